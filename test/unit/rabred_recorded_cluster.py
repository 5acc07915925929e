#!/usr/bin/env python3
"""Write test/unit/rabred_recorded_cluster.h, test_calibrate's recorded data.

  test/unit/rabred_recorded_cluster.py [--prefix NAME] CALIBRATION.md PARAMS.conf SUMMARY.csv [...]

CALIBRATION.md: a rabred-calibrate report whose inter-node per-size table has
the four columns one-way, exchange, back to back, back to back send first
(microseconds).  PARAMS.conf: the parameter file the forced runs used; the
terms measured apart (reduce, copy, sync, peer, duplex, send buffer) come
from it.
SUMMARY.csv: bench/compare/compare.sh summaries; every rabred algorithm forced
(rabred:NAME, not auto, flat or profile, nor the arrival-aware and node-aware
ones, which the balanced one-rank-per-host decision never runs) gives one run,
its median over rounds of the ranks' average time per call.  The header goes
to stdout; its names start with NAME (default "recorded"), so that several
recordings can sit side by side.
"""
import csv
import re
import sys

SKIP = {"auto", "flat", "profile", "balanced", "prereduced_ring", "prereduced_scatter",
        "sorted_linear_tree", "node_lanes", "node_lanes_ring", "node_leaders",
        "node_leaders_direct",
        "node_chain"}
TERMS = [("recorded_reduce_mbs", "coll_rabred_reduce_mbs"),
         ("recorded_copy_mbs", "coll_rabred_copy_mbs"),
         ("recorded_sync_us", "coll_rabred_round_sync_us"),
         ("recorded_peer_us", "coll_rabred_inter_peer_us"),
         ("recorded_duplex", "coll_rabred_inter_duplex"),
         ("recorded_send_buffer_bytes", "coll_rabred_inter_send_buffer_bytes")]


def link_table(path):
    text = open(path).read()
    part = text[text.index("inter-node"):]
    rows = re.findall(r"^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", part,
                      re.M)
    if len(rows) < 3:
        sys.exit(f"{path}: no inter-node table with a send-first column")
    return [[float(x) for x in r] for r in rows]


def params(path):
    out = {}
    for line in open(path):
        m = re.match(r"^\s*(\w+)\s*=\s*(\S+)", line)
        if m:
            out[m.group(1)] = float(m.group(2))
    return out


def runs(paths):
    out = []
    for path in paths:
        for r in csv.DictReader(open(path)):
            fam, _, alg = r["variant"].partition(":")
            if fam == "rabred" and alg not in SKIP and r["status"] == "ok":
                out.append((r["coll"], int(r["p"]), int(r["bytes"]), alg,
                            float(r["median_avg_us"])))
    return sorted(out)


def column(name, values):
    cells = [f"{v:.3f}" for v in values]
    lines = [", ".join(cells[i:i + 6]) for i in range(0, len(cells), 6)]
    body = ",\n    ".join(lines)
    return f"static const double {name}[] = {{\n    {body}}};"


def main(argv):
    prefix = "recorded"
    if len(argv) > 2 and argv[1] == "--prefix":
        prefix, argv = argv[2], argv[:1] + argv[3:]
    if len(argv) < 4:
        sys.exit(__doc__)
    table, conf, recorded = link_table(argv[1]), params(argv[2]), runs(argv[3:])
    guard = prefix.upper() + "_H"
    print("/*\n * Recorded measurements for test_calibrate (not code: data), written by")
    print(f" *   test/unit/rabred_recorded_cluster.py --prefix {prefix} \\")
    print(" \\\n".join(f" *       {path}" for path in argv[1:]))
    print(" * The link's per-size medians (microseconds) from the rabred-calibrate")
    print(" * report; the terms measured apart from the parameter file the forced")
    print(" * runs used; each run the median over rounds of the ranks' average time")
    print(" * per call (microseconds) of one rabred algorithm forced.  recorded_run_t")
    print(" * is rabred_recorded_cluster.h's.\n */")
    print(f"#ifndef RABRED_{guard}\n#define RABRED_{guard}\n")
    for i, name in enumerate(["bytes", "oneway_us", "exchange_us", "repeated_us",
                              "repeated_sf_us"]):
        print(column(f"{prefix}_{name}", [row[i] for row in table]))
    print("/* the terms measured apart */")
    for cname, pname in TERMS:
        if pname not in conf:
            sys.exit(f"{argv[2]}: no {pname}")
        print(f"static const double {cname.replace('recorded', prefix)} = {conf[pname]};")
    print(f"\nstatic const recorded_run_t {prefix}_runs[] = {{")
    for coll, p, b, alg, us in recorded:
        print(f'    {{"{coll}", {p}, {b}, "{alg}", {us:.3f}}},')
    print(f"}};\n\n#endif /* RABRED_{guard} */")


if __name__ == "__main__":
    main(sys.argv)
