#!/usr/bin/env python3
"""The several-ranks-per-host table of a compare.sh run (--ppn): per size,
the median over rounds of the slowest rank's time per call (completion),
for rabred:auto, rabred:flat (when run), tuned's default, the best tuned
algorithm, coll/han and the node-aware plans, with the ratios to auto and
auto's ratio to the node-level bound 2(N-1)/N n/B (N hosts, B the link's
measured bandwidth).  Usage: nodes_table.py RESULTS_DIR [P]."""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze import load, meta_bandwidth, meta_ppn  # noqa: E402


def fmt(ms):
    return '%.1f' % ms if ms < 100 else '%.0f' % ms


def main():
    outdir = sys.argv[1]
    p = sys.argv[2] if len(sys.argv) > 2 else '16'
    raw = os.path.join(outdir, 'raw')
    ppn, bw = meta_ppn(outdir), meta_bandwidth(outdir)
    data, _ = load(outdir)
    times = {(b, v): d['max'] for (_, pp, b, v), d in data.items()
             if pp == int(p) and d['status'] == 'ok'}
    chose = {}
    md = open(os.path.join(raw, 'p%s.md' % p)).read()
    for m in re.finditer(r'^\| (\d+) \| ([a-z_]+): \d+', md, re.M):
        chose.setdefault(int(m.group(1)), m.group(2))
    nodes = int(p) // ppn
    cols = ['rabred:auto', 'rabred:flat', 'tuned:default', 'han:default',
            'rabred:node_lanes', 'rabred:node_lanes_ring', 'rabred:node_leaders']
    sizes = sorted({b for b, _ in times})
    present = [c for c in cols if any((b, c) in times for b in sizes)]
    head = ['bytes', 'auto chose'] + [c for c in present] + ['best tuned']
    ratios = [c for c in present if c != 'rabred:auto'] + ['best tuned']
    label = {'tuned:default': "tuned's default", 'han:default': 'han'}
    head += ['%s / auto' % label.get(c, c.split(':')[-1]) for c in ratios]
    head += ['auto / node-level bound']
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '|'.join(['---:'] * len(head)) + '|')
    for b in sizes:
        med = {v: statistics.median(t) / 1e3 for (bb, v), t in times.items() if bb == b}
        tuned = {v: t for v, t in med.items() if v.startswith('tuned:')}
        best = min(tuned, key=tuned.get)
        auto = med['rabred:auto']
        bound = 2.0 * (nodes - 1) / nodes * b / bw * 1e3
        size = '%dK' % (b >> 10) if b < 1 << 20 else '%dM' % (b >> 20)
        cells = [size, chose.get(b, '?')] + [fmt(med[c]) if c in med else '-'
                                             for c in present]
        cells.append('%s %s' % (best.split(':')[1], fmt(tuned[best])))
        for c in ratios:
            t = tuned[best] if c == 'best tuned' else med.get(c)
            cells.append('%.2f' % (t / auto) if t else '-')
        cells.append('%.2f' % (auto / bound))
        print('| ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
