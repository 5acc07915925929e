#!/usr/bin/env python3
"""The emulated cluster's floor for allreduce (see floor.sh).

    floor.py RESULTS_DIR [COMPARE_DIR]

Reads RESULTS_DIR/raw/pN.md (rabred_netmodel's tables), writes
RESULTS_DIR/floor.csv and floor.md and prints the table:
    floor(p, n) = t_ring(n/p) * B / (n/p)
the time of one ring step (every rank sends n/p bytes to its right
neighbour while receiving from its left, plain MPI_Sendrecv) over the
time the bound allows for it.  t_ring between the measured sizes is
interpolated linearly in log(size)-log(time); B is the one-way bandwidth
of the 4 MiB ping-pong in the same run.  With COMPARE_DIR (a compare.sh
result), the table also shows rabred:auto / bound and best tuned / bound
from its ratios.csv, so a reader sees how far above the floor each is.
"""
import csv
import math
import os
import re
import sys

SIZES = [262144, 1048576, 4194304]  # allreduce bytes shown (bound from 1 MiB)
ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|")


def read_netmodel(path):
    """{bytes: (one-way us, ring us)} from rabred_netmodel's first table."""
    rows = {}
    with open(path) as f:
        for line in f:
            m = ROW.match(line)
            if m:
                rows[int(m.group(1))] = (float(m.group(2)), float(m.group(4)))
    return rows


def interpolate(rows, size):
    """t_ring(size) in us, log-log between the two measured sizes around it."""
    sizes = sorted(rows)
    if size in rows:
        return rows[size][1]
    if size < sizes[0] or size > sizes[-1]:
        return None
    hi = next(s for s in sizes if s > size)
    lo = max(s for s in sizes if s < size)
    w = math.log(size / lo) / math.log(hi / lo)
    return math.exp((1 - w) * math.log(rows[lo][1]) + w * math.log(rows[hi][1]))


def compare_ratios(compare_dir):
    """{(p, bytes): (auto/bound, best tuned/bound, best tuned name)}"""
    out = {}
    path = os.path.join(compare_dir, "ratios.csv")
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["coll"] == "allreduce" and r["auto_over_bound"]:
                out[(int(r["p"]), int(r["bytes"]))] = (
                    float(r["auto_over_bound"]), float(r["best_tuned_over_bound"]), r["best_tuned"])
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    res = sys.argv[1]
    ratios = compare_ratios(sys.argv[2]) if len(sys.argv) == 3 else {}
    raw = os.path.join(res, "raw")
    ps = sorted(int(m.group(1)) for m in (re.match(r"p(\d+)\.md$", n) for n in os.listdir(raw)) if m)
    table = []
    for p in ps:
        rows = read_netmodel(os.path.join(raw, "p%d.md" % p))
        if 4194304 not in rows or not all(r[1] > 0 for r in rows.values()):
            print("p = %d: no complete ring table in raw/p%d.md, skipped" % (p, p), file=sys.stderr)
            continue
        bw = 4194304 / rows[4194304][0]  # bytes per us
        for n in SIZES:
            t = interpolate(rows, n / p)
            if t is not None:
                table.append((p, n, n / p, t, t * bw / (n / p), ratios.get((p, n))))
    with open(os.path.join(res, "floor.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["p", "bytes", "step_bytes", "ring_step_us", "floor",
                    "auto_over_bound", "best_tuned_over_bound", "best_tuned"])
        for p, n, m, t, fl, r in table:
            w.writerow([p, n, int(m), "%.1f" % t, "%.3f" % fl] + (list(r) if r else ["", "", ""]))
    lines = ["| p | allreduce bytes | ring step (bytes) | floor |"
             + (" rabred:auto / bound | best tuned / bound |" if ratios else ""),
             "|---:|---:|---:|---:|" + ("---:|---:|" if ratios else "")]
    for p, n, m, t, fl, r in table:
        extra = ""
        if ratios:
            extra = " %.2f | %.2f (%s) |" % r if r else " | |"
        lines.append("| %d | %d | %d | %.2f |%s" % (p, n, int(m), fl, extra))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(res, "floor.md"), "w") as f:
        f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
