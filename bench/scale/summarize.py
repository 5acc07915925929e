#!/usr/bin/env python3
"""Tables of a scale run (scripts/run-scale.sh): per platform, p and size,
rabred's auto, the best algorithm measured (rabred's or SMPI's), and the
Open MPI selector; ends with the line run-scale.sh prints last.

Input: lines 'platform=NAME RESULT variant=V coll=C p=P bytes=N time_s=T
chosen=A sim_s=S check=ok' (rabred_scale's RESULT lines, prefixed with
the platform).  Every variant except auto competes for the best, the SMPI
selectors included (each runs one of the algorithms it selects among).
"""
import os
import sys
from collections import defaultdict

SELECTOR = "smpi:ompi"  # SMPI's copy of Open MPI's coll/tuned decision


def parse(path):
    cells = defaultdict(dict)  # (platform, p, bytes) -> variant -> (time, chosen)
    failed = []
    for line in open(path):
        if "did not finish" in line:
            failed.append(((line.split()[-1], 0, 0), "timeout: " + line.strip()))
            continue
        fields = line.split()
        if len(fields) < 3 or fields[1] != "RESULT":
            continue
        kv = dict(f.split("=", 1) for f in fields if "=" in f)
        if not {"platform", "p", "bytes", "time_s", "check"} <= kv.keys():
            continue  # a line cut short (a run stopped while writing)
        key = (kv["platform"], int(kv["p"]), int(kv["bytes"]))
        if not kv["check"].startswith("ok"):
            failed.append((key, kv["variant"]))
            continue
        if float(kv["time_s"]) <= 0:  # SMPI's smp_* at p = 256 on one core per host
            failed.append((key, "zero: " + kv["variant"]))
            continue
        cells[key][kv["variant"]] = (float(kv["time_s"]), kv["chosen"])
    return cells, failed


def size_name(b):
    for unit, name in ((1 << 20, "M"), (1 << 10, "K")):
        if b >= unit and b % unit == 0:
            return "%d%s" % (b // unit, name)
    return "%dB" % b


def cell_name(key):
    return "%s p=%d %s" % (key[0], key[1], size_name(key[2]))


def best_of(variants):
    name = min((v for v in variants if v != "auto"), key=lambda v: variants[v][0])
    return name, variants[name][0]


def crosscheck(path, out):
    """On the contention-free crossbar, SMPI's time of each rabred plan
    against rabred's own simulator (sim_s, in its flow-level mode: latency
    overlapped but for the measured per-message overhead, ports shared):
    the largest deviation per algorithm."""
    worst = {}
    for line in open(path):
        fields = line.split()
        if len(fields) < 3 or fields[1] != "RESULT" or fields[0] != "platform=crossbar":
            continue
        kv = dict(f.split("=", 1) for f in fields if "=" in f)
        if not {"sim_s", "time_s", "variant", "p", "bytes"} <= kv.keys():
            continue
        sim, t = float(kv["sim_s"]), float(kv["time_s"])
        if kv["variant"] == "auto" or sim <= 0:
            continue
        dev = t / sim - 1
        cur = worst.get(kv["variant"])
        if cur is None or abs(dev) > abs(cur[0]):
            worst[kv["variant"]] = (dev, "p=%s %s" % (kv["p"], size_name(int(kv["bytes"]))))
    if not worst:
        return
    out.write("\nCross-check on the crossbar: SMPI's time / rabred's simulator - 1, "
              "the largest per algorithm\n\n| algorithm | deviation | at |\n|---|---|---|\n")
    for alg in sorted(worst):
        out.write("| %s | %+.1f %% | %s |\n" % (alg, 100 * worst[alg][0], worst[alg][1]))


def table(cells, out):
    out.write("| platform | p | size | auto (chose) | best (which) | auto/best "
              "| ompi selector | ompi/best | ompi/auto |\n")
    out.write("|---|---|---|---|---|---|---|---|---|\n")
    for key in sorted(cells):
        v = cells[key]
        if "auto" not in v:
            continue
        bname, btime = best_of(v)
        auto, chose = v["auto"]
        sel = v.get(SELECTOR)
        sel_cols = ("%.4g us | %.2f | %.2f" % (sel[0] * 1e6, sel[0] / btime, sel[0] / auto)
                    if sel else "- | - | -")
        out.write("| %s | %d | %s | %.4g us (%s) | %.4g us (%s) | %.3f | %s |\n" % (
            key[0], key[1], size_name(key[2]), auto * 1e6, chose, btime * 1e6, bname,
            auto / btime, sel_cols))


def verdict(cells, failed, out):
    ratios = []
    for key, v in cells.items():
        if "auto" in v:
            bname, btime = best_of(v)
            ratios.append((v["auto"][0] / btime, key))
    if not ratios:
        out.write("scale: no cell has a result for auto\n")
        return 1
    within = sum(1 for r, _ in ratios if r <= 1.05)
    worst, wkey = max(ratios)
    # Against the Open MPI selector: where it is 2x off the best, auto is
    # to be 2x better than it; anywhere, not worse.
    off = [(k, v) for k, v in cells.items() if "auto" in v and SELECTOR in v
           and v[SELECTOR][0] >= 2 * best_of(v)[1]]
    twice = sum(1 for k, v in off if v[SELECTOR][0] >= 2 * v["auto"][0])
    worse = [(v["auto"][0] / v[SELECTOR][0], k) for k, v in cells.items()
             if "auto" in v and SELECTOR in v and v["auto"][0] > v[SELECTOR][0] * 1.0001]
    out.write("scale: against the Open MPI selector: %d cells where it is 2x off the best, "
              "auto 2x better than it in %d; auto slower than it in %d cells%s\n" % (
                  len(off), twice, len(worse),
                  ", worst %.2fx at %s" % (max(worse)[0], cell_name(max(worse)[1]))
                  if worse else ""))
    late = [f[1] for f in failed if f[1].startswith("timeout: ")]
    zero = sorted(set(f[1][len("zero: "):] for f in failed if f[1].startswith("zero: ")))
    failed = [f for f in failed if not f[1].startswith(("timeout: ", "zero: "))]
    if zero:
        out.write("scale: %s reported a time of 0 s (not counted)\n" % ", ".join(zero))
    for t in late:
        out.write(t[len("timeout: "):] + " (not counted)\n")
    ours = [f for f in failed if not f[1].startswith("smpi:")]
    theirs = sorted(set(f[1] for f in failed if f[1].startswith("smpi:")))
    if theirs:  # SMPI's own algorithms: reported, left out of the best
        out.write("scale: wrong results from SMPI's %s (%d cells; not counted)\n" % (
            ", ".join(theirs), len(failed) - len(ours)))
    if ours:
        out.write("scale: WRONG RESULTS from rabred in %d cells, first: %s %s\n" % (
            len(ours), ours[0][1], cell_name(ours[0][0])))
    out.write("scale: auto within 1.05x of the best in %d of %d cells, worst %.2fx at %s\n" % (
        within, len(ratios), worst, cell_name(wkey)))
    return 1 if ours else 0


def plot(cells, path):
    """ratios.png: per cell, auto's and the Open MPI selector's time over
    the best measured (1 = the best), one panel per platform."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    platforms = sorted(set(k[0] for k in cells if "auto" in cells[k]))
    if not platforms:
        return
    fig, axes = plt.subplots(1, len(platforms), figsize=(4 * len(platforms), 3.6),
                             squeeze=False, sharey=True)
    for ax, plat in zip(axes[0], platforms):
        keys = sorted(k for k in cells if k[0] == plat and "auto" in cells[k])
        labels = ["p=%d\n%s" % (k[1], size_name(k[2])) for k in keys]
        auto = [cells[k]["auto"][0] / best_of(cells[k])[1] for k in keys]
        sel = [cells[k][SELECTOR][0] / best_of(cells[k])[1] if SELECTOR in cells[k] else 0
               for k in keys]
        x = range(len(keys))
        ax.bar([i - 0.2 for i in x], auto, 0.4, label="rabred auto")
        ax.bar([i + 0.2 for i in x], sel, 0.4, label="SMPI's Open MPI selector")
        ax.axhline(1.05, color="gray", linestyle="--", linewidth=0.8)
        ax.set_xticks(list(x))
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_yscale("log")
        ax.set_title(plat)
    axes[0][0].set_ylabel("time / best measured")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: summarize.py RAW SUMMARY.md\n")
        return 2
    cells, failed = parse(sys.argv[1])
    plot(cells, os.path.join(os.path.dirname(sys.argv[2]) or ".", "ratios.png"))
    with open(sys.argv[2], "w") as md:
        table(cells, md)
        crosscheck(sys.argv[1], md)
        md.write("\n")
        rc = verdict(cells, failed, md)
    rc = verdict(cells, failed, sys.stdout)
    return rc


if __name__ == "__main__":
    sys.exit(main())
