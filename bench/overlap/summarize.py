#!/usr/bin/env python3
"""Medians over rounds of bench/rabred_overlap's RESULT lines: per p, size
and variant the blocking and pure nonblocking times, their ratio, the
overlapped time and the overlap %, and rabred's overlap against libnbc's."""
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        if not line.startswith("RESULT "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        rows[(int(f["p"]), int(f["bytes"]), f["variant"])].append(f)


def med(key, name):
    return statistics.median(float(r[name]) for r in rows[key])


print("| p | bytes | variant | blocking ms | pure ms | pure/blocking | overlapped ms | overlap % | rounds |")
print("|---|---|---|---|---|---|---|---|---|")
for key in sorted(rows, key=lambda k: (k[0], k[1], k[2] != "libnbc", k[2])):
    p, n, v = key
    b, pu, o = med(key, "blocking_s"), med(key, "pure_s"), med(key, "overlapped_s")
    ov = med(key, "overlap_pct")
    print(f"| {p} | {n} | {v} | {b*1e3:.2f} | {pu*1e3:.2f} | {pu/b:.3f} | {o*1e3:.2f} | {ov:.1f} | {len(rows[key])} |")
print()
print("Overlap of each rabred variant minus libnbc's (points, medians):")
for key in sorted(rows):
    p, n, v = key
    if v == "libnbc" or (p, n, "libnbc") not in rows:
        continue
    d = med(key, "overlap_pct") - med((p, n, "libnbc"), "overlap_pct")
    print(f"- p={p} bytes={n} {v}: {d:+.1f}")
