#!/usr/bin/env python3
"""Summarise a bench/compare run: medians, spreads, ratio tables, plots.

    analyze.py RESULTS_DIR [--rate 100mbit] [--bandwidth BYTES_PER_S]

Reads RESULTS_DIR/raw/p*.csv (rabred_bench --csv: one line per variant,
size and round) and writes into RESULTS_DIR:

  summary.csv  per (coll, p, bytes, variant): median over rounds of the avg,
               min and max over ranks, and the spread of the avg over rounds,
               (max - min) / median
  ratios.csv   per (coll, p, bytes): tuned:default, rabred:auto, the best
               tuned and best rabred variant, time ratios, the bandwidth
               bound and the ratios to it
  results.md   the same as markdown tables, plus the run's metadata
  time_vs_size_<coll>.png, ratio_<coll>.png, heatmap_<coll>.png
                                               (when matplotlib imports)

Ratios are times: below 1 rabred:auto is faster.  The bandwidth bound is
2(p-1)/p * n / B for allreduce (each rank must send and receive that much,
Patarasuk and Yuan) and n / B for reduce (the root's link must carry one
partial result of every element); B is the measured link bandwidth when
given (MPI one-way 4 MiB ping-pong: TCP goodput, about 95% of the rate),
else the nominal rate.  The bound is compared with the median of the max
over ranks, i.e. when the slowest rank leaves: the completion time of the
operation.  Standard library only, except the plots.
"""
import argparse
import csv
import glob
import math
import os
import re
import statistics
import sys

FAMILY_TUNED = ('tuned:', 'previous')
# Plots: a handful of lines per panel (auto, the profile, the defaults, the
# best tuned algorithm of each size), bands for the spread of the rounds.
# Below this the bandwidth bound says nothing (latency dominates).
BOUND_MIN_BYTES = 65536


def rate_bytes_per_s(rate):
    m = re.fullmatch(r'(\d+)(bit|kbit|mbit|gbit)', rate.lower())
    if not m:
        sys.exit('analyze.py: bad rate %r' % rate)
    mult = {'bit': 1, 'kbit': 1e3, 'mbit': 1e6, 'gbit': 1e9}[m.group(2)]
    return int(m.group(1)) * mult / 8


def load(outdir):
    """{(coll, p, bytes, variant): {'avg': [...], 'min': [...], 'max': [...],
    'status': 'ok'|'skipped'|'predicted', 'est': us}} and the run's mode."""
    data, modes = {}, set()
    files = sorted(glob.glob(os.path.join(outdir, 'raw', 'p*.csv')))
    for path in files:
        with open(path, newline='') as f:
            for row in csv.DictReader(f):
                key = (row['coll'], int(row['p']), int(row['bytes']), row['variant'])
                d = data.setdefault(key, {'avg': [], 'min': [], 'max': [],
                                          'status': row['status'], 'est': None})
                modes.add((row['mode'], row['max_delay_ms'], row['late_rank']))
                if row['status'] == 'ok':
                    d['status'] = 'ok'
                    for k in ('avg', 'min', 'max'):
                        d[k].append(float(row[k + '_us']))
                else:
                    d['est'] = float(row['avg_us'])
    return data, modes


def meta_bandwidth(outdir):
    """The bandwidth compare.sh measured (raw/meta.txt), or None."""
    try:
        with open(os.path.join(outdir, 'raw', 'meta.txt')) as f:
            for line in f:
                m = re.match(r'bandwidth_Bps: *([0-9.eE+]+)\s*$', line)
                if m:
                    return float(m.group(1))
    except OSError:
        pass
    return None


def meta_ppn(outdir):
    """Ranks per host of the run (raw/meta.txt), 1 when not given."""
    try:
        with open(os.path.join(outdir, 'raw', 'meta.txt')) as f:
            for line in f:
                m = re.match(r'ppn: *([0-9]+)\s*$', line)
                if m:
                    return max(1, int(m.group(1)))
    except OSError:
        pass
    return 1


def stats(d):
    if not d['avg']:
        return None
    med = statistics.median(d['avg'])
    return {'avg': med, 'min': statistics.median(d['min']),
            'max': statistics.median(d['max']), 'n': len(d['avg']),
            'spread': (max(d['avg']) - min(d['avg'])) / med if med > 0 else 0.0,
            'fastest': min(d['avg'])}


PPN = 1  # ranks per host (raw/meta.txt "ppn:"): the bound is the node-level one


def bound_us(coll, p, nbytes, bw):
    nodes = max(1, p // PPN)
    factor = 2.0 * (nodes - 1) / nodes if coll == 'allreduce' else 1.0
    return 1e6 * factor * nbytes / bw


def human(nbytes):
    for unit, div in (('M', 1 << 20), ('K', 1 << 10)):
        if nbytes >= div and nbytes % div == 0:
            return '%d%s' % (nbytes // div, unit)
    return str(nbytes)


def fmt_us(us):
    if us is None:
        return '-'
    if us >= 1e5:
        return '%.0f ms' % (us / 1e3)
    if us >= 1e3:
        return '%.1f ms' % (us / 1e3)
    if us < 10:  # shared-memory latencies: tenths and hundredths count
        return '%.2f us' % us
    return '%.0f us' % us


def analyse(data, bw, balanced):
    """Per (coll, p, bytes) comparison rows."""
    cells = sorted({k[:3] for k in data})
    rows = []
    for coll, p, nbytes in cells:
        st = {v: stats(d) for (c, q, b, v), d in data.items()
              if (c, q, b) == (coll, p, nbytes)}
        ok = {v: s for v, s in st.items() if s}
        default = next((v for v in ('tuned:default', 'previous') if v in ok), None)
        auto = ok.get('rabred:auto')
        if default is None or auto is None:
            continue
        tuned = {v: s for v, s in ok.items() if v.startswith(FAMILY_TUNED)}
        rabred = {v: s for v, s in ok.items() if v.startswith('rabred:')}
        bt = min(tuned, key=lambda v: tuned[v]['avg'])
        br = min(rabred, key=lambda v: rabred[v]['avg'])
        r = {'coll': coll, 'p': p, 'bytes': nbytes,
             'default': ok[default]['avg'], 'auto': auto['avg'],
             'best_tuned': bt, 'best_tuned_us': tuned[bt]['avg'],
             'best_rabred': br, 'best_rabred_us': rabred[br]['avg'],
             'auto_over_default': auto['avg'] / ok[default]['avg'],
             'auto_over_best_tuned': auto['avg'] / tuned[bt]['avg'],
             'best_rabred_over_best_tuned': rabred[br]['avg'] / tuned[bt]['avg'],
             # by completion time (max over ranks): matters for reduce, where
             # tree leaves leave early and pull the average down
             'best_tuned_by_max': min(tuned, key=lambda v: tuned[v]['max']),
             'auto_over_best_tuned_by_max':
                 auto['max'] / min(s['max'] for s in tuned.values()),
             'auto_spread': auto['spread'], 'best_tuned_spread': tuned[bt]['spread'],
             # auto's fastest round against the best tuned median: a cell
             # over 1.05x where this is not is a miss within the noise
             'auto_fastest_over_best_tuned': auto['fastest'] / tuned[bt]['avg'],
             'bound_us': None, 'auto_over_bound': None, 'best_tuned_over_bound': None,
             'stats': st, 'default_name': default,
             # coll/han (bench/rabred_bench's han:default, multi-host runs
             # with han loaded): Open MPI 5.0's default on several nodes
             'han_us': ok['han:default']['avg'] if 'han:default' in ok else None,
             'auto_over_han': auto['avg'] / ok['han:default']['avg']
                              if 'han:default' in ok else None,
             # rabred:auto under the rules of a profile (rabred_bench --profile)
             'profile_over_best_tuned': ok['rabred:profile']['avg'] / tuned[bt]['avg']
                                        if 'rabred:profile' in ok else None,
             'profile_fastest_over_best_tuned':
                 ok['rabred:profile']['fastest'] / tuned[bt]['avg']
                 if 'rabred:profile' in ok else None,
             'profile_over_best_tuned_by_max':
                 ok['rabred:profile']['max'] / min(s['max'] for s in tuned.values())
                 if 'rabred:profile' in ok else None}
        if balanced and bw and nbytes >= BOUND_MIN_BYTES:
            b = bound_us(coll, p, nbytes, bw)
            r['bound_us'] = b
            r['auto_over_bound'] = auto['max'] / b
            r['best_tuned_over_bound'] = tuned[bt]['max'] / b
        rows.append(r)
    return rows


def write_csvs(outdir, data, rows):
    with open(os.path.join(outdir, 'summary.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['coll', 'p', 'bytes', 'variant', 'status', 'rounds',
                    'median_avg_us', 'median_min_us', 'median_max_us', 'spread',
                    'estimate_us'])
        for (coll, p, nbytes, v), d in sorted(data.items()):
            s = stats(d)
            if s:
                w.writerow([coll, p, nbytes, v, 'ok', s['n'], '%.3f' % s['avg'],
                            '%.3f' % s['min'], '%.3f' % s['max'], '%.4f' % s['spread'], ''])
            else:
                w.writerow([coll, p, nbytes, v, d['status'], 0, '', '', '', '',
                            '%.3f' % d['est'] if d['est'] is not None else ''])
    keys = ['coll', 'p', 'bytes', 'default', 'auto', 'best_tuned', 'best_tuned_us',
            'best_rabred', 'best_rabred_us', 'auto_over_default', 'auto_over_best_tuned',
            'best_tuned_by_max', 'auto_over_best_tuned_by_max',
            'best_rabred_over_best_tuned', 'auto_spread', 'best_tuned_spread',
            'bound_us', 'auto_over_bound', 'best_tuned_over_bound', 'han_us', 'auto_over_han',
            'profile_over_best_tuned', 'profile_over_best_tuned_by_max',
            'auto_fastest_over_best_tuned', 'profile_fastest_over_best_tuned']
    with open(os.path.join(outdir, 'ratios.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow([{'default': 'tuned_default_us', 'auto': 'rabred_auto_us'}.get(k, k)
                    for k in keys])
        for r in rows:
            w.writerow(['%.4g' % r[k] if isinstance(r[k], float) else
                        ('' if r[k] is None else r[k]) for k in keys])


def grid_table(rows, coll, key, fmt='%.2f'):
    ps = sorted({r['p'] for r in rows if r['coll'] == coll})
    sizes = sorted({r['bytes'] for r in rows if r['coll'] == coll})
    cell = {(r['p'], r['bytes']): r for r in rows if r['coll'] == coll}
    out = ['| p \\ bytes | ' + ' | '.join(human(s) for s in sizes) + ' |',
           '|---:|' + '---:|' * len(sizes)]
    for p in ps:
        vals = []
        for s in sizes:
            r = cell.get((p, s))
            vals.append(fmt % r[key] if r and r[key] is not None else '-')
        out.append('| %d | %s |' % (p, ' | '.join(vals)))
    return '\n'.join(out)


def detail_table(rows, coll, p, balanced):
    out = ['| bytes | tuned:default | rabred:auto (spread) | best tuned (spread) | best rabred '
           '| auto / default | auto / best tuned |' + (' bound | auto / bound |' if balanced else ''),
           '|---:|---:|---:|:---|:---|---:|---:|' + ('---:|---:|' if balanced else '')]
    for r in rows:
        if r['coll'] != coll or r['p'] != p:
            continue
        line = ('| %s | %s | %s (%.0f%%) | %s %s (%.0f%%) | %s %s | %.2f | %.2f |'
                % (human(r['bytes']), fmt_us(r['default']), fmt_us(r['auto']),
                   100 * r['auto_spread'], r['best_tuned'], fmt_us(r['best_tuned_us']),
                   100 * r['best_tuned_spread'], r['best_rabred'], fmt_us(r['best_rabred_us']),
                   r['auto_over_default'], r['auto_over_best_tuned']))
        if balanced:
            line += ' %s | %s |' % (fmt_us(r['bound_us']),
                                    '%.2f' % r['auto_over_bound'] if r['auto_over_bound'] else '-')
        out.append(line)
    return '\n'.join(out)


def over_line(r, key, near, slack_us):
    """Is the cell's ratio `key` over `near`, and by more than `slack_us`?"""
    return r[key] > near and (r[key] - 1) * r['best_tuned_us'] > slack_us


def within_summary(rows, near=1.05, slack_us=0.02):
    """How many cells are within `near` (or `slack_us`, where that is more)
    of the best tuned algorithm, and the worst ratio, for rabred:auto and
    (when run) rabred:profile, by the average over ranks (OSU's figure) and
    by the completion time (the max over ranks: what the model prices, and
    what the next collective waits for; for MPI_Reduce the average favours
    trees whose leaves leave early)."""
    out = ['| variant / best tuned | collective | cells | within %.2fx or %g ns | worst |'
           % (near, 1000 * slack_us), '|:---|:---|---:|---:|---:|']
    for key, name in (('auto_over_best_tuned', 'rabred:auto'),
                      ('profile_over_best_tuned', 'rabred:profile'),
                      ('auto_over_best_tuned_by_max', 'rabred:auto, completion time'),
                      ('profile_over_best_tuned_by_max', 'rabred:profile, completion time')):
        for coll in ('both', 'allreduce', 'reduce'):
            cells = [r for r in rows if r.get(key) and coll in ('both', r['coll'])]
            if cells:
                within = sum(not over_line(r, key, near, slack_us) for r in cells)
                out.append('| %s | %s | %d | %d (%.0f%%) | %.2f |'
                           % (name, coll, len(cells), within, 100.0 * within / len(cells),
                              max(r[key] for r in cells)))
    return out


def noise_summary(rows, near=1.05, slack_us=0.02):
    """Of the cells over the line by the median (over_line: `near` and
    `slack_us`), how many stay over it in the variant's fastest round:
    the misses the round-to-round noise does
    not explain (on a shared machine one slow round of three can carry a
    median over the line)."""
    out = ['| variant / best tuned | collective | cells over %.2fx | of them, also the fastest round |'
           % near, '|:---|:---|---:|---:|']
    for key, fastest, name in (
            ('auto_over_best_tuned', 'auto_fastest_over_best_tuned', 'rabred:auto'),
            ('profile_over_best_tuned', 'profile_fastest_over_best_tuned', 'rabred:profile')):
        for coll in ('both', 'allreduce', 'reduce'):
            cells = [r for r in rows if r.get(key) and coll in ('both', r['coll'])]
            if cells:
                over = [r for r in cells if over_line(r, key, near, slack_us)]
                out.append('| %s | %s | %d | %d |' % (
                    name, coll, len(over), sum(over_line(r, fastest, near, slack_us) for r in over)))
    return out


def losses(rows, coll, threshold=1.10):
    out = []
    for r in rows:
        if r['coll'] == coll and r['auto_over_best_tuned'] > threshold:
            out.append('- p = %d, %s: rabred:auto %s vs %s %s (%.2fx; best rabred: %s %s)'
                       % (r['p'], human(r['bytes']), fmt_us(r['auto']), r['best_tuned'],
                          fmt_us(r['best_tuned_us']), r['auto_over_best_tuned'],
                          r['best_rabred'], fmt_us(r['best_rabred_us'])))
    return out


def write_markdown(outdir, rows, modes, bw, bw_src, balanced, plots):
    meta = ''
    mpath = os.path.join(outdir, 'raw', 'meta.txt')
    if os.path.exists(mpath):
        with open(mpath) as f:
            meta = f.read().rstrip()
    mode_txt = ', '.join('%s%s' % (m, '' if m == 'balanced' else ' (max delay %s ms%s)'
                                   % (d, '' if lr == '-1' else ', late rank ' + lr))
                         for m, d, lr in sorted(modes))
    L = ['# rabred vs coll/tuned on the emulated cluster', '',
         'Generated by `bench/compare/analyze.py` from `raw/p*.csv` '
         '(`bench/rabred_bench --csv`). Arrival mode: %s.' % mode_txt, '',
         'Times are medians over the interleaved rounds of the average over ranks of '
         'each rank\'s mean time per call (OSU style; in imbalanced modes Proficz 2018\'s '
         'average elapsed time). Ratios are times: **< 1 means rabred:auto is faster**. '
         '"best tuned" is the fastest of tuned:default and every coll/tuned algorithm '
         'forced; "best rabred" the fastest of rabred:auto and every rabred algorithm '
         'forced. Spread = (max - min) / median of the rounds.', '']
    if balanced and bw:
        where = ('2(p-1)/p n/B' if PPN == 1 else
                 '2(N-1)/N n/B over N = p/%d hosts (the node-level bound: %d ranks share '
                 'each host\'s link)' % (PPN, PPN))
        L += ['Bandwidth bound: allreduce %s, reduce n/B, with B = %.2f MB/s '
              '(%.1f Mbit/s, %s), compared with the median of the max over ranks '
              '(completion of the operation); from %s up (below it latency dominates).'
              % (where, bw / 1e6, bw * 8 / 1e6, bw_src, human(BOUND_MIN_BYTES)), '']
    L += within_summary(rows) + ['']
    L += noise_summary(rows) + ['']
    for coll in ('allreduce', 'reduce'):
        if not any(r['coll'] == coll for r in rows):
            continue
        L += ['## MPI_%s' % ('Allreduce' if coll == 'allreduce' else 'Reduce (root 0)'), '',
              '### rabred:auto / best tuned', '', grid_table(rows, coll, 'auto_over_best_tuned'), '',
              '### rabred:auto / tuned:default', '', grid_table(rows, coll, 'auto_over_default'), '']
        if any(r['coll'] == coll and r['profile_over_best_tuned'] for r in rows):
            L += ['### rabred:profile (the same, with the profile\'s rules) / best tuned', '',
                  grid_table(rows, coll, 'profile_over_best_tuned'), '']
        if any(r['coll'] == coll and r['auto_over_han'] for r in rows):
            L += ['### rabred:auto / han:default (coll/han, Open MPI\'s hierarchical '
                  'component)', '', grid_table(rows, coll, 'auto_over_han'), '']
        L += [
              '### rabred:auto / best tuned, by the max over ranks (completion time)', '',
              grid_table(rows, coll, 'auto_over_best_tuned_by_max'), '',
              '### best rabred algorithm / best tuned', '',
              grid_table(rows, coll, 'best_rabred_over_best_tuned'), '']
        if balanced and bw:
            L += ['### rabred:auto (max over ranks) / bandwidth bound', '',
                  grid_table(rows, coll, 'auto_over_bound'), '',
                  '### best tuned (max over ranks) / bandwidth bound', '',
                  grid_table(rows, coll, 'best_tuned_over_bound'), '']
        lost = losses(rows, coll)
        L += ['### Where rabred:auto is more than 10% slower than the best tuned', '']
        L += lost if lost else ['- nowhere']
        L += ['']
        for p in sorted({r['p'] for r in rows if r['coll'] == coll}):
            L += ['### p = %d' % p, '', detail_table(rows, coll, p, balanced and bw), '']
        for name in plots.get(coll, []):
            L += ['![%s](%s)' % (name, name), '']
    L += ['## Run', '', '```', meta, '```', '']
    with open(os.path.join(outdir, 'results.md'), 'w') as f:
        f.write('\n'.join(L))


def time_lines(data, rows, coll, p):
    """The few lines of a time-against-size panel: rabred:auto, rabred:profile
    (when run), tuned's default and the best coll/tuned algorithm of each
    size; each point (bytes, median, lowest round, highest round) of the
    average over ranks, so the band shows the spread of the rounds."""
    def point(nbytes, variant):
        d = data.get((coll, p, nbytes, variant))
        st = stats(d) if d else None
        return (nbytes, st['avg'], min(d['avg']), max(d['avg'])) if st else None

    cells = sorted((r for r in rows if r['coll'] == coll and r['p'] == p),
                   key=lambda r: r['bytes'])
    default = cells[0]['default_name'] if cells else 'tuned:default'
    lines = []
    for label, color, style, pick in (
            ('rabred:auto', 'black', '-', lambda r: 'rabred:auto'),
            ('rabred:profile', 'tab:blue', '-', lambda r: 'rabred:profile'),
            (default, 'tab:red', '--', lambda r: r['default_name']),
            ('best tuned algorithm', 'tab:orange', '--', lambda r: r['best_tuned'])):
        pts = [pt for pt in (point(r['bytes'], pick(r)) for r in cells) if pt]
        if pts:
            lines.append((label, color, style, pts))
    return lines


def finish_grid(fig, axes, ps, ncol):
    """Blank the unused panels and put one legend for all on the right."""
    for ax in list(axes.flat)[len(ps):]:
        ax.axis('off')
    handles, labels = {}, []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    fig.legend([handles[lab] for lab in labels], labels, loc='center right', fontsize=8)
    fig.tight_layout(rect=(0, 0, 1 - 2.4 / (5.0 * ncol + 2.6), 1))


def ratio_plot(plt, rows, coll, ps, path):
    """rabred:auto / best tuned against size, a line per p, with the 1.0 and
    1.05 lines: where auto loses and by how much, on one axis."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    cmap = plt.get_cmap('viridis')
    for i, p in enumerate(ps):
        cells = sorted((r for r in rows if r['coll'] == coll and r['p'] == p),
                       key=lambda r: r['bytes'])
        ax.plot([r['bytes'] for r in cells], [r['auto_over_best_tuned'] for r in cells], '-o',
                color=cmap(i / max(1, len(ps) - 1)), lw=1.5, ms=4, label='p = %d' % p)
    ax.axhline(1.0, color='k', lw=1)
    ax.axhline(1.05, color='k', lw=1, ls=':', label='1.05')
    ax.set_xscale('log', base=2)
    ax.set_yscale('log')
    lo, hi = ax.get_ylim()
    ax.set_yticks([t for t in (0.25, 0.33, 0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 4)
                   if lo <= t <= hi])
    ax.yaxis.set_major_formatter(plt.FormatStrFormatter('%g'))
    ax.yaxis.set_minor_formatter(plt.NullFormatter())
    ax.set_xlabel('bytes per rank')
    ax.set_ylabel('rabred:auto / best tuned (time)')
    ax.set_title('MPI_%s: rabred:auto / the best coll/tuned algorithm (< 1: rabred faster)'
                 % coll.capitalize(), fontsize=10)
    ax.grid(True, which='both', alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot(outdir, data, rows, bw, balanced):
    """time_vs_size_<coll>.png and heatmap_<coll>.png; {} without matplotlib."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
        from matplotlib.colors import LogNorm
    except ImportError:
        print('analyze.py: matplotlib not available: no plots', file=sys.stderr)
        return {}
    made = {}
    for coll in ('allreduce', 'reduce'):
        ps = sorted({r['p'] for r in rows if r['coll'] == coll})
        if not ps:
            continue
        ncol = min(3, len(ps))
        nrow = math.ceil(len(ps) / ncol)
        fig, axes = plt.subplots(nrow, ncol, figsize=(5.0 * ncol + 2.6, 4.0 * nrow), squeeze=False)
        for ax, p in zip(axes.flat, ps):
            for label, color, style, pts in time_lines(data, rows, coll, p):
                xs = [x for x, _, _, _ in pts]
                ax.fill_between(xs, [lo / 1e6 for _, _, lo, _ in pts],
                                [hi / 1e6 for _, _, _, hi in pts], color=color, alpha=0.18,
                                lw=0)
                ax.plot(xs, [y / 1e6 for _, y, _, _ in pts], style, color=color, marker='o',
                        lw=2.0, label=label)
            if balanced and bw:
                xs = sorted({r['bytes'] for r in rows if r['coll'] == coll and r['p'] == p
                             and r['bytes'] >= BOUND_MIN_BYTES})
                ax.plot(xs, [bound_us(coll, p, x, bw) / 1e6 for x in xs], 'k:', lw=1.5,
                        label='bandwidth bound')
            ax.set_xscale('log', base=2)
            ax.set_yscale('log')
            ax.set_title('MPI_%s, p = %d' % (coll.capitalize(), p))
            ax.set_xlabel('bytes per rank')
            ax.set_ylabel('time (s)')
            ax.grid(True, which='both', alpha=0.3)
        finish_grid(fig, axes, ps, ncol)
        name = 'time_vs_size_%s.png' % coll
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        made.setdefault(coll, []).append(name)

        name = 'ratio_%s.png' % coll
        ratio_plot(plt, rows, coll, ps, os.path.join(outdir, name))
        made[coll].append(name)

        sizes = sorted({r['bytes'] for r in rows if r['coll'] == coll})
        cell = {(r['p'], r['bytes']): r['auto_over_best_tuned'] for r in rows if r['coll'] == coll}
        grid = [[cell.get((p, s), float('nan')) for s in sizes] for p in ps]
        fig, ax = plt.subplots(figsize=(max(6.0, 1.6 + 0.8 * len(sizes)),
                                        max(3.2, 1.6 + 0.45 * len(ps))))
        vals = [x for row in grid for x in row if not math.isnan(x)]
        # Colours saturate at 4x either way, so one outlier (a small message
        # hit by the scheduler) does not wash out the rest.
        lim = min(4.0, max(2.0, max(max(vals), 1 / min(vals)))) if vals else 2.0
        im = ax.imshow(grid, cmap='RdBu_r', norm=LogNorm(vmin=1 / lim, vmax=lim),
                       aspect='auto', origin='lower')
        ax.set_xticks(range(len(sizes)), [human(s) for s in sizes])
        ax.set_yticks(range(len(ps)), [str(p) for p in ps])
        ax.set_xlabel('bytes per rank')
        ax.set_ylabel('p (hosts)')
        for i, row in enumerate(grid):
            for j, x in enumerate(row):
                if not math.isnan(x):
                    dark = abs(math.log(x)) > 0.6 * math.log(lim)
                    ax.text(j, i, '%.2f' % x, ha='center', va='center', fontsize=8,
                            color='white' if dark else 'black')
        ax.set_title('MPI_%s: rabred:auto / best tuned\n(time ratio; < 1: rabred faster)'
                     % coll.capitalize(), fontsize=10)
        ticks = [t for t in (0.25, 0.5, 1, 2, 4)
                 if 1 / lim <= t <= lim]
        bar = fig.colorbar(im, ax=ax, ticks=ticks)
        bar.ax.set_yticklabels(['%g' % t for t in ticks])
        bar.ax.minorticks_off()
        fig.tight_layout()
        name = 'heatmap_%s.png' % coll
        fig.savefig(os.path.join(outdir, name), dpi=110)
        plt.close(fig)
        made[coll].append(name)
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('outdir')
    ap.add_argument('--rate', default='100mbit', help='nominal link rate (tc syntax)')
    ap.add_argument('--bandwidth', type=float,
                    help='measured link bandwidth, bytes/s (default: raw/meta.txt)')
    ap.add_argument('--no-plots', action='store_true')
    a = ap.parse_args()
    global PPN
    PPN = meta_ppn(a.outdir)
    data, modes = load(a.outdir)
    if not data:
        sys.exit('analyze.py: no raw/p*.csv data in %s' % a.outdir)
    balanced = all(m[0] == 'balanced' for m in modes)
    if not a.bandwidth:
        a.bandwidth = meta_bandwidth(a.outdir)
    if a.bandwidth:
        bw, src = a.bandwidth, 'measured: MPI one-way 4 MiB ping-pong; nominal %s' % a.rate
    else:
        bw, src = rate_bytes_per_s(a.rate), 'nominal %s' % a.rate
    rows = analyse(data, bw, balanced)
    write_csvs(a.outdir, data, rows)
    plots = {} if a.no_plots else plot(a.outdir, data, rows, bw, balanced)
    write_markdown(a.outdir, rows, modes, bw, src, balanced, plots)
    # The ratio tables on stdout (scripts/run-main.sh shows them).
    for coll in ('allreduce', 'reduce'):
        if any(r['coll'] == coll for r in rows):
            print('\n%s: rabred:auto / best tuned (time ratio, < 1: rabred faster)\n' % coll)
            print(grid_table(rows, coll, 'auto_over_best_tuned'))
            print('\n%s: rabred:auto / tuned:default\n' % coll)
            print(grid_table(rows, coll, 'auto_over_default'))
            if balanced and bw:
                print('\n%s: rabred:auto (max over ranks) / bandwidth bound\n' % coll)
                print(grid_table(rows, coll, 'auto_over_bound'))


if __name__ == '__main__':
    main()
