#!/usr/bin/env python3
"""Measured time / the model's price for every rabred plan timed in the
recorded cluster grids: the forced algorithms, and auto (its plan is the
cheapest of the prices, the balanced choice).  Prices are rabred's own
(coll_rabred_verbose 3 lines, prices-pP.txt); times are the grids'
medians of the average over ranks (summary.csv).
Usage: residuals.py > residuals.md  (from this folder)"""
import csv, glob, re, statistics, collections, os
here = os.path.dirname(os.path.abspath(__file__))
grids = ['model-cluster-5r-20261207', 'model-cluster-16m-20261207']
prices = {}
for f in glob.glob(os.path.join(here, 'prices-p*.txt')):
    for line in open(f):
        m = re.search(r'(allreduce|reduce) p=(\d+) bytes=(\d+) prices: (.*)', line)
        if m:
            key = (m.group(1), int(m.group(2)), int(m.group(3)))
            for name, val in re.findall(r'(\w+) ([\d.e+]+) us', m.group(4)):
                prices[key + (name,)] = float(val) / 1e3
rows = collections.defaultdict(dict)  # (coll, alg) -> {(p, bytes): ratio}
for g in grids:
    for r in csv.DictReader(open(os.path.join(here, '..', g, 'summary.csv'))):
        if r['status'] != 'ok' or not r['variant'].startswith('rabred:'):
            continue
        c, p, b, v = r['coll'], int(r['p']), int(r['bytes']), r['variant'][7:]
        if v == 'auto':
            cand = {k[3]: x for k, x in prices.items() if k[:3] == (c, p, b)}
            if not cand:
                continue
            v = min(cand, key=cand.get)
            if (c, v) in rows and (p, b) in rows[(c, v)]:
                continue  # the forced run of the same plan is there
        if (c, p, b, v) not in prices:
            continue
        rows[(c, v)][(p, b)] = float(r['median_avg_us']) / 1e3 / prices[(c, p, b, v)]
sizes = sorted({k[1] for d in rows.values() for k in d})
ps = sorted({k[0] for d in rows.values() for k in d})
label = lambda b: '%dK' % (b >> 10) if b < 1 << 20 else '%dM' % (b >> 20)
print('Measured / priced (median of the average over ranks / rabred\'s price), '
      'from %s; blank: not timed.\n' % ', '.join(grids))
for (c, alg), d in sorted(rows.items()):
    if len(d) < 3:
        continue
    print('**%s %s** (median %.2f, %d cells)\n' % (c, alg, statistics.median(d.values()), len(d)))
    print('| p | ' + ' | '.join(label(b) for b in sizes) + ' |')
    print('|---|' + '---:|' * len(sizes))
    for p in ps:
        if any((p, b) in d for b in sizes):
            print('| %d | ' % p + ' | '.join('%.2f' % d[(p, b)] if (p, b) in d else ''
                                             for b in sizes) + ' |')
    print()
