#!/usr/bin/env python3
"""Seed 004's Tables 3 and 4 from bench/arrival/arrival.sh runs.

Reads every MODE-Dms/raw/p*.csv under the output directory (rabred_bench
--csv lines), takes per (mode, max delay, p, bytes, variant) the median over
rounds of the average over ranks of each rank's elapsed time (Proficz's (2018)
average elapsed time), and writes tables.md and tables.csv: one table per
mode, p and size with the delays as columns, then the speedups of rabred's
auto and of the arrival-aware algorithms against tuned's ring and against
rabred's balanced choice (time of the reference / time of the variant:
> 1 means faster than the reference).
"""
import csv
import glob
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'compare'))
from analyze import human  # noqa: E402  (one size formatter for every table)

ORDER = ['tuned:ring', 'tuned:default', 'rabred:balanced', 'rabred:auto', 'rabred:pairwise_ring',
         'rabred:neighbor_ring', 'rabred:prereduced_ring', 'rabred:prereduced_scatter', 'rabred:sorted_linear_tree']
SPEEDUP_OF = ['rabred:auto', 'rabred:prereduced_ring', 'rabred:prereduced_scatter',
              'rabred:sorted_linear_tree']
REFERENCES = ['tuned:ring', 'rabred:balanced']


def load(outdir):
    samples = {}
    for path in glob.glob(os.path.join(outdir, '*', 'raw', 'p*.csv')):
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                if row.get('status', 'ok') != 'ok' or row['coll'] != 'allreduce':
                    continue
                # balanced arrival is max delay 0 of every imbalanced mode
                modes = ['one-late', 'rand-late'] if row['mode'] == 'balanced' else [row['mode']]
                for mode in modes:
                    key = (mode, 0.0 if row['mode'] == 'balanced' else float(row['max_delay_ms']),
                           int(row['p']), int(row['bytes']), row['variant'])
                    samples.setdefault(key, []).append(float(row['avg_us']))
    return {k: statistics.median(v) for k, v in samples.items()}


def fmt_delay(d):
    return ('%g' % d) + ' ms'


def write(outdir, med):
    cells = sorted({(k[0], k[2], k[3]) for k in med})
    lines = ['# Imbalanced arrival: average elapsed time (Proficz 2018, Tables 3 and 4)', '',
             'Median over rounds of the average over ranks of each rank\'s elapsed time in '
             'MPI_Allreduce (ms), from its (delayed) arrival to its exit. one-late: rank 0 '
             'arrives max-delay late; rand-late: each rank a uniform random delay up to '
             'max-delay. Speedup = reference time / variant time (> 1: faster).', '']
    rows_csv = []
    for mode, p, nbytes in cells:
        delays = sorted({k[1] for k in med if (k[0], k[2], k[3]) == (mode, p, nbytes)})
        variants = [v for v in ORDER if any((mode, d, p, nbytes, v) in med for d in delays)]
        lines += ['## %s, p = %d, %s per rank' % (mode, p, human(nbytes)), '',
                  '| algorithm | ' + ' | '.join(fmt_delay(d) for d in delays) + ' |',
                  '|---|' + '---:|' * len(delays)]
        for v in variants:
            vals = [med.get((mode, d, p, nbytes, v)) for d in delays]
            lines.append('| %s | ' % v + ' | '.join('%.1f' % (x / 1e3) if x else '-' for x in vals)
                         + ' |')
            for d, x in zip(delays, vals):
                if x:
                    rows_csv.append([mode, p, nbytes, d, v, '%.1f' % x])
        for ref in REFERENCES:
            for v in SPEEDUP_OF:
                pairs = [(med.get((mode, d, p, nbytes, ref)), med.get((mode, d, p, nbytes, v)))
                         for d in delays]
                if not any(a and b for a, b in pairs):
                    continue
                lines.append('| speedup %s vs %s | ' % (v.split(':')[1], ref) +
                             ' | '.join('**%.3f**' % (a / b) if a and b else '-' for a, b in pairs)
                             + ' |')
        lines.append('')
    with open(os.path.join(outdir, 'tables.md'), 'w') as f:
        f.write('\n'.join(lines))
    with open(os.path.join(outdir, 'tables.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['mode', 'p', 'bytes', 'max_delay_ms', 'variant', 'avg_elapsed_us'])
        w.writerows(rows_csv)
    print('\n'.join(lines))


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: tables.py bench/results/NAME')
    med = load(sys.argv[1])
    if not med:
        sys.exit('tables.py: no allreduce rows under %s/*/raw/' % sys.argv[1])
    write(sys.argv[1], med)


if __name__ == '__main__':
    main()
