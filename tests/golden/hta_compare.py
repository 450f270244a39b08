#!/usr/bin/env python3
"""Compares perfstudy's temporal.csv and overlap.csv with hta_reference.py.

usage: hta_compare.py TEMPORAL_CSV OVERLAP_CSV REFERENCE_CSV TOLERANCE_PP
Each share (idle, compute, non_compute over span; overlap over comm) must
agree within TOLERANCE_PP percentage points for every run and rank the
reference lists. Prints one line per rank and exits 1 on any miss.
"""
import csv
import sys


def rows(path):
    with open(path) as f:
        return {(r['run'], r['rank']): r for r in csv.DictReader(f)}


def main(temporal, overlap, reference, tol):
    t, o, ref = rows(temporal), rows(overlap), rows(reference)
    tol = float(tol)
    bad = 0
    for key, r in ref.items():
        if key not in t:
            print(f'{key[0]} rank {key[1]}: missing from perfstudy output')
            bad += 1
            continue
        span = float(r['span'])
        mine = t[key]
        mspan = float(mine['span_us'])
        pairs = [(name, 100 * float(mine[name + '_us']) / mspan if mspan else 0,
                  100 * float(r[name]) / span if span else 0) for name in ('idle', 'compute', 'non_compute')]
        comm = float(r['comm'])
        ov = o[key]
        if comm > 0:
            pairs.append(('overlap', 100 * float(ov['overlap_fraction'] or 0), 100 * float(r['overlap']) / comm))
        worst = max(abs(a - b) for _, a, b in pairs)
        print(f'{key[0]} rank {key[1]}: ' + ', '.join(f'{n} {a:.2f}/{b:.2f}' for n, a, b in pairs)
              + f' (max diff {worst:.3f} pp)')
        if worst > tol:
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:]))
