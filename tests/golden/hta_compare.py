#!/usr/bin/env python3
"""Compares perfstudy's HTA-compatible tables with the real HTA's goldens.

usage: hta_compare.py GOLDEN_DIR DATA_DIR TOLERANCE_PP [RUN ...]

GOLDEN_DIR: tests/golden/hta (written by tools/hta_goldens.py from HTA runs).
DATA_DIR: a perfstudy build's data/ directory whose run ids are the goldens'.
RUN: the runs to compare (default: every golden run that DATA_DIR's runs.csv
lists).

Mode `hta` of a golden is compared with perfstudy's plain columns, mode
`exact` with its exact_ columns. Each share must agree within TOLERANCE_PP
percentage points:
  temporal.csv   idle, compute and non-compute over the span
  overlap.csv    the overlap percentage (HTA rounds it to 0.01)
  kernel_types   each type's share of the run's total (mode hta only)
  idle_time.csv  each category's share of the stream's idle time, and its
                 time over the rank's temporal span (a missing HTA row is 0)
  launch_stats   each count over the launches, and each sum over the sum of
                 cpu_duration + gpu_duration + launch_delay
A difference documented in GOLDEN_DIR/DIFFERENCES.csv (mode, table, run,
rank, stream, max_pp, cause) may reach its max_pp instead, and no more; a
run with mode and table * there may be absent from perfstudy's tables.
Prints one line per run, rank and table with the largest difference, and
exits 1 on any miss or any row missing from perfstudy's output.
"""
import csv
import os
import sys
from collections import defaultdict


def read(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def f(x):
    return float(x) if x not in (None, '') else 0.0


class Report:
    def __init__(self, tol, documented):
        self.tol, self.bad, self.lines, self.documented = tol, 0, [], documented

    def check(self, what, pairs):
        """pairs: [(name, perfstudy_pp, hta_pp)]; what: 'mode table run rank N [stream S]'."""
        if not pairs:
            return
        worst = max(abs(a - b) for _, a, b in pairs)
        shown = ', '.join(f'{n} {a:.3f}/{b:.3f}' for n, a, b in pairs if abs(a - b) > self.tol / 10)
        self.lines.append(f'{what}: max diff {worst:.4f} pp' + (f' ({shown})' if shown else ''))
        w = what.split()
        doc = self.documented.get((w[0], w[1], w[2], w[4] if len(w) > 4 else '', w[6] if len(w) > 6 else ''))
        tol = self.tol
        if doc:
            tol = max(tol, float(doc['max_pp']))
            self.lines[-1] += f" (documented, up to {doc['max_pp']} pp: {doc['cause']})"
        if worst > tol:
            self.bad += 1
            self.lines[-1] += '  <-- over tolerance'

    def missing(self, what):
        w = what.split()
        doc = self.documented.get(('*', '*', w[2], '', ''))
        if doc:
            self.lines.append(f"{what}: not in perfstudy's output (documented: {doc['cause']})")
            return
        self.lines.append(f'{what}: missing from perfstudy output')
        self.bad += 1


def prefix(mode):
    return '' if mode == 'hta' else 'exact_'


def temporal(gold, data, runs, rep):
    mine = {(r['run'], r['rank']): r for r in read(os.path.join(data, 'temporal.csv'))}
    for g in read(os.path.join(gold, 'temporal.csv')):
        if g['run'] not in runs:
            continue
        what = f"{g['mode']} temporal {g['run']} rank {g['rank']}"
        m = mine.get((g['run'], g['rank']))
        if m is None:
            rep.missing(what)
            continue
        p = prefix(g['mode'])
        span, mspan = f(g['kernel_time_us']), f(m[p + 'span_us'])
        rep.check(what, [(k, 100 * f(m[p + k + '_us']) / mspan if mspan else 0,
                          100 * f(g[k + '_us']) / span if span else 0) for k in ('idle', 'compute', 'non_compute')])


def overlap(gold, data, runs, rep):
    mine = {(r['run'], r['rank']): r for r in read(os.path.join(data, 'overlap.csv'))}
    for g in read(os.path.join(gold, 'overlap.csv')):
        if g['run'] not in runs or g['comp_comm_overlap_pctg'] == '':
            continue
        what = f"{g['mode']} overlap {g['run']} rank {g['rank']}"
        m = mine.get((g['run'], g['rank']))
        if m is None:
            rep.missing(what)
            continue
        rep.check(what, [('overlap', 100 * f(m[prefix(g['mode']) + 'overlap_fraction']),
                          f(g['comp_comm_overlap_pctg']))])


def idle_time(gold, data, runs, rep):
    spans = {(r['run'], r['rank']): r for r in read(os.path.join(data, 'temporal.csv'))}
    mine = {(r['run'], r['rank'], r['stream']): r for r in read(os.path.join(data, 'idle_time.csv'))}
    want = defaultdict(dict)
    for g in read(os.path.join(gold, 'idle_time.csv')):
        if g['run'] in runs:
            want[(g['mode'], g['run'], g['rank'], g['stream'])][g['idle_category']] = f(g['idle_time_us'])
    for (mode, run, rank, stream), cats in sorted(want.items()):
        what = f'{mode} idle_time {run} rank {rank} stream {stream}'
        m = mine.get((run, rank, stream))
        if m is None:
            rep.missing(what)
            continue
        p = prefix(mode)
        total, mtotal = sum(cats.values()), sum(f(m[p + c + '_us']) for c in ('host_wait', 'kernel_wait', 'other'))
        span = f(spans[(run, rank)][p + 'span_us']) if (run, rank) in spans else 0
        pairs = []
        for c in ('host_wait', 'kernel_wait', 'other'):
            a, b = f(m[p + c + '_us']), cats.get(c, 0.0)
            pairs.append((c, 100 * a / mtotal if mtotal else 0, 100 * b / total if total else 0))
            if span:
                pairs.append((c + '/span', 100 * a / span, 100 * b / span))
        rep.check(what, pairs)


def kernel_types(gold, data, runs, rep):
    """Mode hta only: with its rounding off HTA truncates each piece of this table to whole us (astype(int))."""
    mine = defaultdict(dict)
    for r in read(os.path.join(data, 'kernel_types.csv')):
        mine[r['run']][r['kernel_type']] = f(r['time_us'])
    want = defaultdict(dict)
    for g in read(os.path.join(gold, 'kernel_types.csv')):
        if g['run'] in runs and g['mode'] == 'hta':
            want[g['run']][g['kernel_type']] = f(g['sum_us'])
    for run, types in sorted(want.items()):
        if run not in mine:
            rep.missing(f'hta kernel_types {run}')
            continue
        m = mine[run]
        total, mtotal = sum(types.values()), sum(m.values())
        rep.check(f'hta kernel_types {run}', [(k, 100 * m.get(k, 0) / mtotal if mtotal else 0,
                                              100 * types.get(k, 0) / total if total else 0)
                                             for k in sorted(set(types) | set(m))])


LAUNCH_COUNTS = ('launches', 'cpu_duration_over_50us', 'launch_delay_over_100us', 'short_kernels')
LAUNCH_SUMS = ('cpu_duration_sum_us', 'gpu_duration_sum_us', 'launch_delay_sum_us')


def launch_stats(gold, data, runs, rep):
    mine = {(r['run'], r['rank']): r for r in read(os.path.join(data, 'launch_stats.csv'))}
    for g in read(os.path.join(gold, 'launch_stats.csv')):
        if g['run'] not in runs:
            continue
        what = f"{g['mode']} launch_stats {g['run']} rank {g['rank']}"
        m = mine.get((g['run'], g['rank']))
        if m is None:
            rep.missing(what)
            continue
        p = prefix(g['mode'])
        n, mn = f(g['launches']), f(m[p + 'launches'])
        pairs = [(k, 100 * f(m[p + k]) / mn if mn else 0, 100 * f(g[k]) / n if n else 0) for k in LAUNCH_COUNTS[1:]]
        pairs.append(('launches', 100 * mn / n if n else 100, 100))
        tot, mtot = sum(f(g[k]) for k in LAUNCH_SUMS), sum(f(m[p + k]) for k in LAUNCH_SUMS)
        pairs += [(k, 100 * f(m[p + k]) / mtot if mtot else 0, 100 * f(g[k]) / tot if tot else 0) for k in LAUNCH_SUMS]
        rep.check(what, pairs)


def main(gold, data, tol, *runs):
    documented = {(d['mode'], d['table'], d['run'], d['rank'], d['stream']): d
                  for d in read(os.path.join(gold, 'DIFFERENCES.csv'))}
    rep = Report(float(tol), documented)
    have = {r['run'] for r in read(os.path.join(data, 'runs.csv'))}
    runs = set(runs) if runs else {g['run'] for g in read(os.path.join(gold, 'temporal.csv'))} & have
    for check in (temporal, overlap, kernel_types, idle_time, launch_stats):
        if check in (kernel_types, idle_time, launch_stats) and not os.path.exists(os.path.join(data, check.__name__ + '.csv')):
            continue
        check(gold, data, runs, rep)
    print('\n'.join(rep.lines))
    return 1 if rep.bad else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
