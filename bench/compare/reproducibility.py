#!/usr/bin/env python3
"""How well does one run predict another, and what can a decision reach?

    reproducibility.py [--allowance-ns NS] RESULTS_DIR RESULTS_DIR [...]

Reads each RESULTS_DIR/summary.csv (written by analyze.py) of runs that
measured the same cells (collective, p, size) with the same coll/tuned
algorithms, and prints three markdown tables:

  drift    per collective: how often the same forced tuned algorithm, same
           code, same machine, moves by more than 5% and more than 15%
           between two runs (its median over rounds, by the ranks' average)
  retest   per ordered pair of runs (X, Y) and collective: the tuned
           algorithm fastest in X, timed in Y against Y's fastest: the
           cells within 1.05x (or NS nanoseconds, default 0) and the worst
           ratio.  A test-retest reference, not a bound: picking by one
           noisy run can do worse than a choice that is near the best in
           every run
  ceiling  per collective, over all the runs: in each cell the fixed
           choice of one tuned algorithm that is within the allowance of
           the run's fastest in the most runs; the cells such a choice
           gets within it, averaged over runs (what the best fixed
           decision among tuned's algorithms scores), and the cells where
           every tuned algorithm is beyond 1.15x of its run's fastest in
           at least one run (where "never worse than 1.15x" cannot be
           shown by any fixed choice)

Standard library only.
"""
import argparse
import csv
import itertools
import os
import sys

TUNED = 'tuned:'


def load(run):
    """{coll: {(p, bytes): {variant: median avg us}}} of the tuned variants."""
    cells = {}
    with open(os.path.join(run, 'summary.csv'), newline='') as f:
        for row in csv.DictReader(f):
            if row['status'] != 'ok' or not row['variant'].startswith(TUNED):
                continue
            cell = (int(row['p']), int(row['bytes']))
            cells.setdefault(row['coll'], {}).setdefault(cell, {})[
                row['variant']] = float(row['median_avg_us'])
    return cells


def shared(x, y):
    """Cells of both runs, each with the variants both measured."""
    for cell in sorted(set(x) & set(y)):
        names = set(x[cell]) & set(y[cell])
        if names:
            yield cell, {n: x[cell][n] for n in names}, {n: y[cell][n] for n in names}


def drift(runs, coll):
    moves = []
    for x, y in itertools.combinations(runs, 2):
        for _, tx, ty in shared(x.get(coll, {}), y.get(coll, {})):
            moves += [max(tx[n], ty[n]) / min(tx[n], ty[n]) for n in tx]
    return moves


def within(time, best, allowance_us):
    return time <= 1.05 * best or time - best <= allowance_us


def oracle(x, y, allowance_us):
    """(cells, cells within the allowance, worst ratio, misses)."""
    n = good = 0
    worst, misses = 1.0, []
    for cell, tx, ty in shared(x, y):
        pick = min(tx, key=tx.get)
        best = min(ty.values())
        n += 1
        if within(ty[pick], best, allowance_us):
            good += 1
        else:
            misses.append('%d/%d %s %.2f' % (cell[0], cell[1], pick[len(TUNED):],
                                             ty[pick] / best))
        worst = max(worst, ty[pick] / best)
    return n, good, worst, misses


def ceiling(runs, allowance_us):
    """(cells, expected cells within, cells where every choice passes 1.15x
    in some run) over the cells every run measured."""
    cells = set(runs[0]).intersection(*[set(r) for r in runs[1:]])
    n, expected, hopeless = 0, 0.0, []
    for cell in sorted(cells):
        names = set(runs[0][cell]).intersection(*[set(r[cell]) for r in runs[1:]])
        if not names:
            continue
        best = [min(r[cell][v] for v in names) for r in runs]
        share = max(sum(within(r[cell][v], b, allowance_us) for r, b in zip(runs, best))
                    for v in names) / len(runs)
        worst = min(max(r[cell][v] / b for r, b in zip(runs, best)) for v in names)
        n += 1
        expected += share
        if worst > 1.15:
            hopeless.append('%d/%d %.2f' % (cell[0], cell[1], worst))
    return n, expected, hopeless


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('runs', nargs='+')
    ap.add_argument('--allowance-ns', type=float, default=0.0,
                    help='a miss smaller than this is within (default 0)')
    args = ap.parse_args()
    if len(args.runs) < 2:
        sys.exit('reproducibility.py: give at least two runs')
    data = [load(r) for r in args.runs]
    names = [os.path.basename(os.path.normpath(r)) for r in args.runs]
    colls = sorted({c for d in data for c in d})

    print('## Drift: the same tuned algorithm in two runs\n')
    print('| collective | pairs | moved > 5% | moved > 15% | median move |')
    print('|---|---:|---:|---:|---:|')
    for coll in colls:
        m = sorted(drift(data, coll))
        if not m:
            continue
        big5 = sum(r > 1.05 for r in m)
        big15 = sum(r > 1.15 for r in m)
        print('| %s | %d | %d (%.0f%%) | %d (%.0f%%) | %.3f |' % (
            coll, len(m), big5, 100.0 * big5 / len(m), big15,
            100.0 * big15 / len(m), m[len(m) // 2]))

    allowance = ' or %g ns' % args.allowance_ns if args.allowance_ns else ''
    print('\n## Retest: the fastest tuned algorithm of run X, timed in run Y\n')
    print('| collective | X | Y | cells | within 1.05x%s | worst | misses (p/bytes algorithm ratio) |'
          % allowance)
    print('|---|---|---|---:|---:|---:|---|')
    for coll in colls:
        for (i, x), (j, y) in itertools.permutations(enumerate(data), 2):
            n, good, worst, misses = oracle(x.get(coll, {}), y.get(coll, {}),
                                            args.allowance_ns / 1000.0)
            if n:
                print('| %s | %s | %s | %d | %d (%.0f%%) | %.2f | %s |' % (
                    coll, names[i], names[j], n, good, 100.0 * good / n, worst,
                    ', '.join(misses)))

    print('\n## Ceiling: the best fixed choice of a tuned algorithm per cell, over all runs\n')
    print('| collective | cells | within 1.05x%s, expected | cells where every choice passes '
          '1.15x in some run (p/bytes, its least worst ratio) |' % allowance)
    print('|---|---:|---:|---|')
    for coll in colls:
        n, expected, hopeless = ceiling([d.get(coll, {}) for d in data],
                                        args.allowance_ns / 1000.0)
        if n:
            print('| %s | %d | %.1f (%.0f%%) | %d: %s |' % (
                coll, n, expected, 100.0 * expected / n, len(hopeless), ', '.join(hopeless)))


if __name__ == '__main__':
    main()
