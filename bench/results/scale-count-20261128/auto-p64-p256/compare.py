#!/usr/bin/env python3
"""auto's new rows (raw.txt) against the earlier runs' rows of the same
cells: auto's earlier choice and time, and the best measured there."""
import re, sys, os
here = os.path.dirname(os.path.abspath(__file__))
results = os.path.join(here, '..', '..')

def load(path):
    rows = {}
    for line in open(path):
        if 'RESULT' not in line:
            continue
        d = dict(re.findall(r'(\w+)=(\S+)', line))
        rows.setdefault((d['platform'], int(d['p']), int(d['bytes'])), []).append(d)
    return rows

new = load(os.path.join(here, 'raw.txt'))
old = {}
for run in ['scale-p64-20261127', 'scale-p256-small-20261127']:
    for k, v in load(os.path.join(results, run, 'raw.txt')).items():
        old.setdefault(k, []).extend(v)
print('| platform | p | bytes | auto now | earlier auto | best earlier | now / best | earlier / best |')
print('|---|---:|---:|---|---|---:|---:|---:|')
for k in sorted(new, key=lambda k: (k[1], k[0], k[2])):
    a = new[k][0]
    rows = old.get(k, [])
    was = [r for r in rows if r['variant'] == 'auto']
    best = min(float(r['time_s']) for r in rows if r['variant'] != 'auto')
    t, w = float(a['time_s']), float(was[0]['time_s'])
    print('| %s | %d | %d | %s %.4g us | %s %.4g us | %.4g us | %.3f | %.3f |' % (
        k[0], k[1], k[2], a['chosen'], 1e6 * t, was[0]['chosen'], 1e6 * w, 1e6 * best,
        t / best, w / best))
