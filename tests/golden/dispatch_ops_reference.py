#!/usr/bin/env python3
"""Independent reference for perfstudy's dispatch_ops.csv (paper 002's Table 6).

Reads the raw Kineto JSON (time_reference.py's parsing: integer ns, the
default classification of the issue) and writes the CSV perfstudy must
produce byte for byte, from the README's definition, not from perfstudy's C
code. The owner of an intra-op instant is found differently from
dispatch_ops.c (which sweeps over the operators' edges with a set of open
ones): here each piece of idle ∩ O between two operator edges asks every
thread for its latest-starting top-level operator by binary search and keeps
the one that contains the piece and started last (ties: ends first, then the
higher thread id).

usage: dispatch_ops_reference.py TOP_N RUN=FILE[,FILE...] ...   (CSV on stdout)
"""
import bisect
import csv
import sys

sys.path.insert(0, __import__('os').path.dirname(__file__))
from expected import default_group, neutral, us  # noqa: E402
from time_reference import clip, inter, measure, minus, runs_of, union  # noqa: E402

TYPE_OF_GROUP = {'matrix-mul': 'GEMM', 'elementwise': 'elementwise', 'attention': 'attention'}


def kernel_type(name):
    if 'CatArrayBatchedCopy' in name:
        return 'CatArrayBatchedCopy'
    return TYPE_OF_GROUP.get(default_group('kernel', name), 'other')


def top_level(ops):
    """Per thread, the operators not inside an earlier (or equal, longer-first) one: (s, e, tid, name)."""
    out = {}
    for tid in {o[2] for o in ops}:
        reach = None
        for s, e, _, name in sorted((o for o in ops if o[2] == tid), key=lambda o: (o[0], -o[1])):
            if reach is None or e > reach:
                out.setdefault(tid, []).append((s, e, tid, name))
                reach = e
    return out


def split_intra(d, per_op):
    """Adds each piece of every step's idle ∩ O to the top-level operator owning it."""
    top = top_level(d.ops)
    starts = {tid: [o[0] for o in v] for tid, v in top.items()}
    edges = sorted({x for v in top.values() for o in v for x in (o[0], o[1])})
    O = union([[o[0], o[1]] for v in top.values() for o in v])
    busy = union([[a['s'], a['e']] for a in d.acts])
    for s, e, _ in d.steps:
        for lo, hi in inter(minus([[s, e]], clip(busy, s, e)), O):
            cuts = [lo] + edges[bisect.bisect_right(edges, lo):bisect.bisect_left(edges, hi)] + [hi]
            for a, b in zip(cuts, cuts[1:]):
                best = None
                for tid, v in top.items():
                    i = bisect.bisect_right(starts[tid], a) - 1
                    if i >= 0 and v[i][1] >= b:
                        key = (v[i][0], -v[i][1], tid)
                        if best is None or key > best[0]:
                            best = (key, v[i][3])
                per_op[best[1]] = per_op.get(best[1], 0) + b - a


def main():
    top_n = int(sys.argv[1])
    w = csv.writer(sys.stdout, lineterminator='\n')
    w.writerow(['run', 'part', 'name', 'time_us', 'share'])
    for run, ranks in runs_of(sys.argv[2:]):
        types = {t: 0 for t in ('GEMM', 'CatArrayBatchedCopy', 'elementwise', 'attention', 'other')}
        per_op = {}
        for _, d in ranks:
            if not d.steps:
                continue
            for a in d.acts:
                if a['kind'] == 'kernel' and a['cls'] == 'compute':
                    types[kernel_type(a['name'])] += sum(measure(clip([[a['s'], a['e']]], s, e)) for s, e, _ in d.steps)
            split_intra(d, per_op)
        ktotal = sum(types.values())
        if ktotal:
            for t, v in sorted(types.items(), key=lambda x: (-x[1], x[0])):
                w.writerow([run, 'kernel', t, us(v), '%.6f' % (v / ktotal)])
        itotal = sum(per_op.values())
        rows = sorted(per_op.items(), key=lambda x: (-x[1], x[0].encode()))
        for name, v in rows[:top_n]:
            w.writerow([run, 'intra-op', neutral(name), us(v), '%.6f' % (v / itotal)])
        if len(rows) > top_n:
            rest = sum(v for _, v in rows[top_n:])
            w.writerow([run, 'intra-op', 'other', us(rest), '%.6f' % (rest / itotal)])


if __name__ == '__main__':
    main()
