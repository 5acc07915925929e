#!/usr/bin/env python3
"""Measured (median over rounds of the slowest rank, nodes-*-20261206)
over the model's price (prices.txt) for every rabred algorithm of the node
runs, cheapest price first; * marks auto's choice."""
import csv
import os
import re
import statistics
from collections import defaultdict

here = os.path.dirname(os.path.abspath(__file__))
for line in open(os.path.join(here, 'prices.txt')):
    m = re.match(r'(\S+) allreduce p=16 bytes=(\d+) prices: (.*)', line)
    cfg, nbytes = m.group(1), int(m.group(2))
    price = {a: float(t) / 1e3 for a, t in re.findall(r'(\w+) ([0-9.e+-]+) us', m.group(3))}
    runs = os.path.join(here, '..', 'nodes-%s-20261206' % cfg, 'raw', 'p16.csv')
    times = defaultdict(list)
    for row in csv.DictReader(open(runs)):
        if int(row['bytes']) == nbytes and row['status'] == 'ok':
            times[row['variant']].append(float(row['max_us']) / 1e3)
    cells = []
    for i, (alg, p) in enumerate(sorted(price.items(), key=lambda x: x[1])):
        t = times.get('rabred:' + alg)
        if t:
            t = statistics.median(t)
            cells.append('%s%s %.0f/%.0f = %.2f' % ('*' if i == 0 else '', alg, t, p, t / p))
    print('| %s | %s | %s |' % (cfg, '%dK' % (nbytes >> 10), ' · '.join(cells)))
