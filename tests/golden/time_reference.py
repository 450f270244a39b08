#!/usr/bin/env python3
"""Independent reference for perfstudy's time-accounting tables.

Computes step_breakdown.csv, memops.csv, ranks.csv, phases.csv, dispatch.csv,
compare.csv, idle_time_steps.csv and gpu_idle.csv straight from the raw Kineto JSON (numbers as Decimal,
times as integer ns) from the definitions in the README, not from
perfstudy's C code: unions are merged lists, no interval sweeps are shared.
Prints the CSV perfstudy must write byte for byte.

usage: time_reference.py OUTDIR RUN=FILE[,FILE...] ...
writes OUTDIR/{step_breakdown,memops,ranks,phases,dispatch,compare}.csv.
Runs are given in manifest order; compare uses the default pairs with the
model taken from RUN's prefix before the first '-' (gpt2-1gpu -> gpt2).
"""
import bisect
import collections
import math
import csv
import os
import re
import io
import sys
from decimal import Decimal, ROUND_HALF_UP

sys.path.insert(0, __import__('os').path.dirname(__file__))
from expected import load, ns, default_group, ranks_of, us, neutral  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from intervals import union, measure  # noqa: E402

GPU = {'kernel': 'kernel', 'gpu_memcpy': 'memcpy', 'memcpy': 'memcpy', 'gpu_memset': 'memset', 'memset': 'memset'}


def clip(iv, lo, hi):
    return [[max(s, lo), min(e, hi)] for s, e in iv if min(e, hi) > max(s, lo)]


def minus(a, b):
    """a \\ b for unions a and b (sorted, disjoint)."""
    out = []
    ends = [be for _, be in b]
    for s, e in a:
        cur = s
        for bs, be in b[bisect.bisect_right(ends, s):]:
            if bs >= e:
                break
            if bs > cur:
                out.append([cur, bs])
            cur = max(cur, be)
        if cur < e:
            out.append([cur, e])
    return out


def inter(a, b):
    return minus(a, minus(a, b))


class Rank:
    def __init__(self, doc):
        self.acts, self.launch, self.annots, self.gpu_annots, self.ops, self.steps, self.runtime = [], {}, [], [], [], [], []
        self.launch_end = {}
        self.world = (doc.get('distributedInfo') or {}).get('world_size')
        for e in doc['traceEvents']:
            if e.get('ph') != 'X' or 'ts' not in e or 'dur' not in e:
                continue
            cat, name, args = str(e.get('cat', '')).lower(), e.get('name', ''), e.get('args') or {}
            s, d = ns(e['ts']), ns(e['dur'])
            if d < 0:
                continue
            if cat in GPU:
                kind = GPU[cat]
                g = default_group(kind, name)
                cls = 'comm' if g == 'communication' else 'memory' if g == 'memory' else 'compute'
                ck = ''
                if kind == 'memcpy' and 'Memcpy ' in name:
                    w = name.split('Memcpy ', 1)[1][:5]
                    if w[:4] in ('HtoD', 'DtoH', 'DtoD', 'HtoH', 'PtoP', 'HtoA', 'AtoH', 'AtoA', 'DtoA', 'AtoD') and w[4:] in ('', ' '):
                        ck = w[:4]
                self.acts.append(dict(s=s, e=s + d, kind=kind, cls=cls, name=name, corr=args.get('correlation'),
                                      bytes=args.get('bytes'), ck=ck, args=args))
            elif cat in ('cuda_runtime', 'runtime', 'cuda_driver'):
                self.runtime.append([s, s + d])
                c = args.get('correlation')
                if c is not None and (c not in self.launch or s < self.launch[c]):
                    self.launch[c] = s
                    self.launch_end[c] = s + d
            elif cat == 'user_annotation':
                self.annots.append((s, s + d, e.get('tid'), name))
                if name.startswith('ProfilerStep#') and name[13:14].isdigit():
                    self.steps.append((s, s + d, int(''.join(ch for ch in name[13:] if ch.isdigit()))))
            elif cat == 'gpu_user_annotation':
                self.gpu_annots.append((s, s + d, name))
            elif cat in ('cpu_op', 'operator'):
                self.ops.append((s, s + d, e.get('tid'), name))
        self.steps.sort()

    def union_of(self, pred):
        return union([[a['s'], a['e']] for a in self.acts if pred(a)])


RUN_INFO = {}  # run -> (gpus, per-GPU batch), from 'run:gpus:batch=files' arguments
RUN_LOG = {}   # run -> its training log, rank0.log beside its first trace, when there is one


def runs_of(argv):
    out = []
    for arg in argv:
        run, files = arg.split('=', 1)
        if ':' in run:
            run, g, b = run.split(':')
            RUN_INFO[run] = (int(g), int(b))
        log = os.path.join(os.path.dirname(files.split(',')[0]), 'rank0.log')
        if os.path.exists(log):
            RUN_LOG[run] = log
        out.append((run, [(r, Rank(doc)) for r, doc in ranks_of(files.split(','))]))
    return out


def step_breakdown(runs, w):
    w.writerow(['run', 'rank', 'step', 'part', 'time_us'])
    for run, ranks in runs:
        for rank, d in ranks:
            for step, part, v in breakdown_parts(d):
                w.writerow([run, rank, step, part, us(v)])


def breakdown_parts(d):
    """One rank's step breakdown: (step, part, ns) in step and priority order; the parts of a step add up to it.
    Worked out once per rank (step_breakdown and strategy_scaling both read it)."""
    if getattr(d, 'parts_memo', None) is not None:
        return d.parts_memo
    out = d.parts_memo = []
    parts = [
        ('compute', d.union_of(lambda a: a['kind'] == 'kernel' and a['cls'] == 'compute')),
        ('memcpy', d.union_of(lambda a: a['kind'] == 'memcpy' or (a['kind'] == 'kernel' and a['cls'] == 'memory'))),
        ('memset', d.union_of(lambda a: a['kind'] == 'memset')),
        ('communication', d.union_of(lambda a: a['kind'] == 'kernel' and a['cls'] == 'comm')),
        ('cuda_runtime', union(d.runtime)),
        ('data_loading', union([[s, e] for s, e, _, n in d.annots + d.ops if n.startswith('enumerate(DataLoader)')])),
        ('cpu_other', union([[s, e] for s, e, _, _ in d.ops])),
    ]
    for s, e, step in d.steps:
        claimed, used = [], 0
        for part, iv in parts:
            fresh = minus(clip(iv, s, e), claimed)
            v = measure(fresh)
            claimed = union(claimed + fresh)
            used += v
            out.append((step, part, v))
        out.append((step, 'other', e - s - used))
    return out


# The figures' names of the manifest's strategy keys (the paper's words; FSDP shards as ZeRO-3), the
# strategy_label of scaling.csv and speedup_error.csv.
STRATEGY_SHOWN = {'ddp': 'DDP', 'zero1': 'ZeRO-1', 'zero2': 'ZeRO-2', 'zero3': 'ZeRO-3', 'fsdp': 'ZeRO-3',
                  'tp': 'tensor parallel', 'pp': 'pipeline parallel'}
SCALING = {}  # run -> (baseline, speedup from the profiled steps, the logs' speedup or None), from scaling()


def strategy_scaling(runs, w):
    """Per strategy (the run id's part after 'Ngpu-', named as the report names it: ddp DDP,
    zero1 ZeRO-1) of which some model has runs on two or more GPU counts, its 1-GPU runs
    counted: its runs and the 1-GPU runs of the same models, by model (in the order of their
    first run) and GPUs. Per run: per step, the mean over its ranks of the compute part, the
    communication part, the rest and the whole step (the step breakdown's parts); then the
    mean over its steps in ascending order, rounded half up to the ns. comm_share =
    communication / step. speedup: the logs' (scaling) where the run and its baseline have
    logs ('log'), else the profiled steps' ('profiled'). peak_allocated_bytes: empty, as these
    traces carry no allocator events (t_memory.sh checks it on traces that do)."""
    w.writerow(['strategy', 'run', 'model', 'gpus', 'steps', 'ranks', 'step_us', 'compute_us',
                'communication_us', 'other_us', 'comm_share', 'baseline', 'speedup', 'speedup_source',
                'peak_allocated_bytes'])
    names = {'gpt2': 'GPT-2 124M', 'bert': 'BERT-base'}
    shown = {'ddp': 'DDP', 'zero1': 'ZeRO-1', 'single': 'single'}
    info, models = {}, []
    for run, ranks in runs:
        per_step = collections.defaultdict(list)  # step -> [(compute, comm, other, whole)] per rank
        for _, d in ranks:
            acc = collections.OrderedDict()
            for step, part, v in breakdown_parts(d):
                a = acc.setdefault(step, [0, 0, 0, 0])
                a[0 if part == 'compute' else 1 if part == 'communication' else 2] += v
                a[3] += v
            for step, a in acc.items():
                per_step[step].append(a)
        sums = [0.0, 0.0, 0.0, 0.0]
        for step in sorted(per_step):
            rows = per_step[step]
            for k in range(4):
                sums[k] += sum(r[k] for r in rows) / len(rows)
        n = len(per_step)
        vals = [math.floor(x / n + 0.5) for x in sums]
        model = run.split('-')[0]
        if model not in models:
            models.append(model)
        info[run] = dict(g=RUN_INFO[run][0], model=model, steps=n, ranks=max(len(r) for r in per_step.values()),
                         v=vals, strategy=shown[run.split('gpu-')[1] if 'gpu-' in run else 'single'])
    for st in [x for x in dict.fromkeys(i['strategy'] for i in info.values()) if x != 'single']:
        mods = {i['model'] for i in info.values() if i['strategy'] == st}
        sel = [r for r, _ in runs if info[r]['strategy'] == st or (info[r]['g'] == 1 and info[r]['model'] in mods)]
        if not any(len({info[r]['g'] for r in sel if info[r]['model'] == m}) > 1 for m in mods):
            continue
        sel.sort(key=lambda r: (models.index(info[r]['model']), info[r]['g']))
        for r in sel:
            i = info[r]
            base, sp, ls = SCALING[r]
            c, m, o, whole = i['v']
            w.writerow([st, r, names[i['model']], i['g'], i['steps'], i['ranks'], us(whole), us(c), us(m), us(o),
                        frac(m, whole), base, '%.6g' % (ls if ls is not None else sp),
                        'log' if ls is not None else 'profiled', ''])  # no allocator events in these traces


def memops(runs, w):
    w.writerow(['run', 'rank', 'kind', 'count', 'bytes', 'time_us', 'gb_per_s'])
    kinds = ['HtoD', 'DtoH', 'DtoD', 'PtoP', 'memset', 'other copy']
    for run, ranks in runs:
        for rank, d in ranks:
            agg = {k: [0, 0, 0] for k in kinds}
            for a in d.acts:
                if a['kind'] == 'kernel':
                    continue
                k = 'memset' if a['kind'] == 'memset' else a['ck'] if a['ck'] in kinds[:4] else 'other copy'
                agg[k][0] += 1
                agg[k][2] += a['e'] - a['s']
                if a['bytes'] is not None:
                    agg[k][1] += int(a['bytes'])
            for k in kinds:
                c, b, t = agg[k]
                w.writerow([run, rank, k, c, b, us(t), '%.6g' % (b / t) if t > 0 else ''])


def ranks_table(runs, w):
    w.writerow(['run', 'step', 'rank', 'step_us', 'idle_us', 'comm_us', 'slowest'])
    for run, ranks in runs:
        rows = []
        for rank, d in ranks:
            allu = d.union_of(lambda a: True)
            comm = d.union_of(lambda a: a['kind'] == 'kernel' and a['cls'] == 'comm')
            for s, e, step in d.steps:
                rows.append([step, rank, e - s, e - s - measure(clip(allu, s, e)), measure(clip(comm, s, e))])
        for r in rows:
            same = [x for x in rows if x[0] == r[0]]
            slow = max(same, key=lambda x: (x[2], -same.index(x)))
            w.writerow([run, r[0], r[1], us(r[2]), us(r[3]), us(r[4]), 1 if r is slow else 0])


KERNEL_WAIT_NS = 30000


def gpu_idle_rows(d):
    """Per step of one rank: [step, dur, idle, host, kernel, other, whole]. Idle = the step minus the union of
    every GPU activity; each gap of that union is host wait when an activity starting at its end was launched
    by a call that ended after the gap began (before the first activity: host), else kernel wait under 30 us,
    else other (also after the last activity)."""
    u = d.union_of(lambda a: True)
    by_start = collections.defaultdict(list)
    for a in d.acts:
        by_start[a['s']].append(a)
    gaps = []  # (a, b, cause)
    prev = None
    for s, e in u:
        host = any(a['corr'] in d.launch_end and d.launch_end[a['corr']] > (prev if prev is not None else -10**30)
                   for a in by_start[s])
        if prev is None:
            cause = 0
        else:
            cause = 0 if host else 1 if s - prev < KERNEL_WAIT_NS else 2
        gaps.append((prev if prev is not None else -10**30, s, cause))
        prev = e
    gaps.append((prev if prev is not None else -10**30, 10**30, 2))
    durs = sorted(e - s for s, e, _ in d.steps)
    n = len(durs)
    med = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2]) // 2
    launch_starts = [d.launch[a['corr']] for a in d.acts if a['corr'] in d.launch]
    rows = []
    for i, (s, e, step) in enumerate(d.steps):
        w = [0, 0, 0]
        for ga, gb, c in gaps:
            x, y = max(ga, s), min(gb, e)
            if y > x:
                w[c] += y - x
        launched = any(s <= t < e for t in launch_starts)
        edge = i == 0 or i == n - 1
        whole = launched and not (edge and n > 1 and 2 * (e - s) < med)
        rows.append([step, e - s, sum(w)] + w + [whole])
    return rows


def frac(a, b):
    return '%.6f' % (a / b) if b > 0 else ''


def idle_time_steps(runs, w):
    w.writerow(['run', 'rank', 'step', 'step_us', 'idle_us', 'host_wait_us', 'kernel_wait_us', 'other_us',
                'host_wait_share', 'whole'])
    for run, ranks in runs:
        for rank, d in ranks:
            for step, dur, idle, h, k, o, whole in gpu_idle_rows(d):
                w.writerow([run, rank, step, us(dur), us(idle), us(h), us(k), us(o), frac(h, idle), int(whole)])


def gpu_idle(runs, w):
    w.writerow(['run', 'rank', 'steps', 'steps_left_out', 'step_us', 'idle_us', 'host_wait_us', 'kernel_wait_us',
                'other_us', 'idle_share', 'host_wait_share'])
    for run, ranks in runs:
        for rank, d in ranks:
            rows = gpu_idle_rows(d)
            if not rows:
                continue
            whole = [r for r in rows if r[6]]
            t = [sum(r[i] for r in whole) for i in range(1, 6)]
            w.writerow([run, rank, len(whole), len(rows) - len(whole), us(t[0]), us(t[1]), us(t[2]), us(t[3]),
                        us(t[4]), frac(t[1], t[0]), frac(t[2], t[1])])


PHASES = [
    ('get_train_batch', ['get_train_batch', '[_TrainingEpochLoop].train_dataloader_next',
                         '[TrainingEpochLoop].train_dataloader_next', 'enumerate(DataLoader)*']),
    ('forward', ['forward', 'model_forward', 'DistributedDataParallel.forward', 'FullyShardedDataParallel.forward',
                 '[LightningModule]*.training_step', '[Strategy]*.training_step', 'training_step']),
    ('backward', ['backward', 'model_backward', '[LightningModule]*.backward', '[Strategy]*.backward']),
    ('optimizer_step', ['optimizer_step', 'Optimizer.step#*', '[LightningModule]*.optimizer_step',
                        '[Strategy]*.optimizer_step']),
]


def wild(pat, s):
    import re
    return re.fullmatch('.*'.join(re.escape(p) for p in pat.split('*')), s, re.S) is not None


def phase_of(name):
    for i, (_, pats) in enumerate(PHASES):
        if any(wild(p, name) for p in pats):
            return i
    return None


def phases(runs, w):
    """Host instants go to the innermost matched range: found per ns boundary, not by a stack."""
    w.writerow(['run', 'rank', 'phase', 'calls', 'cpu_us', 'gpu_us'])
    for run, ranks in runs:
        for rank, d in ranks:
            host = [[] for _ in PHASES]
            calls = [0] * len(PHASES)
            by_tid = {}
            for s, e, tid, name in d.annots:
                p = phase_of(name)
                if p is not None:
                    by_tid.setdefault(tid, []).append((s, e, p))
            for rs in by_tid.values():
                for s, e, p in rs:
                    if not any(p2 == p and s2 <= s and e <= e2 and (s2, e2) != (s, e) or
                               (p2 == p and (s2, e2) == (s, e) and rs.index((s2, e2, p2)) < rs.index((s, e, p)))
                               for s2, e2, p2 in rs):
                        calls[p] += 1
                cuts = sorted({x for s, e, _ in rs for x in (s, e)})
                for lo, hi in zip(cuts, cuts[1:]):
                    inside = [(s, -e, p) for s, e, p in rs if s <= lo and hi <= e]
                    if inside:
                        host[max(inside)[2]].append([lo, hi])
            host = [union(h) for h in host]
            gpu = [[] for _ in PHASES]
            for a in d.acts:
                t = d.launch.get(a['corr'])
                if t is None:
                    continue
                for p, h in enumerate(host):
                    if any(s <= t < e for s, e in h):
                        gpu[p].append([a['s'], a['e']])
                        break
            for p, (name, _) in enumerate(PHASES):
                w.writerow([run, rank, name, calls[p], us(measure(host[p])), us(measure(union(gpu[p])))])


def dispatch(runs, w):
    w.writerow(['run', 'rank', 'step', 'step_us', 'comm_us', 'compute_us', 'memory_us', 'idle_us', 'intra_op_us',
                'inter_op_us'])
    for run, ranks in runs:
        for rank, d in ranks:
            C = d.union_of(lambda a: a['kind'] == 'kernel' and a['cls'] == 'comm')
            K = d.union_of(lambda a: a['kind'] == 'kernel' and a['cls'] == 'compute')
            M = d.union_of(lambda a: a['kind'] != 'kernel' or a['cls'] == 'memory')
            top = []
            by_tid = {}
            for s, e, tid, _ in d.ops:
                by_tid.setdefault(tid, []).append((s, e))
            for ops in by_tid.values():
                ops.sort(key=lambda x: (x[0], -x[1]))
                reach = None
                for s, e in ops:
                    if reach is None or e > reach:
                        top.append([s, e])
                        reach = e
            O = union(top)
            for s, e, step in d.steps:
                c = clip(C, s, e)
                k = minus(clip(K, s, e), c)
                m = minus(clip(M, s, e), union(c + k))
                idle = minus([[s, e]], union(c + k + m))
                intra = measure(inter(idle, O))
                w.writerow([run, rank, step, us(e - s), us(measure(c)), us(measure(k)), us(measure(m)),
                            us(measure(idle)), us(intra), us(measure(idle) - intra)])


def compare(runs, w):
    w.writerow(['run_a', 'run_b', 'level', 'name', 'group', 'a_us', 'b_us', 'diff_us', 'ratio'])
    order = ['matrix-mul', 'attention', 'communication', 'memory', 'elementwise', 'other']
    tot = {}
    for run, ranks in runs:
        names, steps = {}, 0
        for rank, d in ranks:
            steps += len(d.steps)
            for a in d.acts:
                g = default_group(a['kind'], a['name'])
                n = names.setdefault(a['name'], [g, 0])
                n[1] += a['e'] - a['s']
        tot[run] = (names, steps or len(ranks))

    def per(t, n):
        q, r = divmod(t, n)
        return q + (2 * r >= n)

    model = lambda r: r.split('-')[0]
    ids = [r for r, _ in runs]
    pairs = []
    for i in range(1, len(ids)):
        base = next((j for j in range(i) if model(ids[j]) == model(ids[i])), 0)
        pairs.append((ids[base], ids[i]))
    key = lambda row: (-abs(row[3] - row[2]), row[0])
    for a, b in pairs:
        (na, da), (nb, db) = tot[a], tot[b]
        groups = []
        for g in order:
            ga = per(sum(v[1] for v in na.values() if v[0] == g), da)
            gb = per(sum(v[1] for v in nb.values() if v[0] == g), db)
            groups.append((g, g, ga, gb))
        kern = []
        for n in set(na) | set(nb):
            g = (na.get(n) or nb.get(n))[0]
            kern.append((n, g, per(na[n][1], da) if n in na else 0, per(nb[n][1], db) if n in nb else 0))
        for level, rows in (('group', groups), ('kernel', kern)):
            for n, g, x, y in sorted(rows, key=lambda r: (-abs(r[3] - r[2]), r[0].encode())):
                w.writerow([a, b, level, neutral(n), g, us(x), us(y), us(y - x), '%.6g' % (y / x) if x else ''])


DTYPE_SIZE = {'Float': 4, 'float': 4, 'Double': 8, 'double': 8, 'Half': 2, 'BFloat16': 2, 'bf16': 2,
              'Long': 8, 'Int': 4, 'Short': 2, 'Char': 1, 'Byte': 1, 'Bool': 1, 'float16': 2,
              'bfloat16': 2, 'float32': 4, 'int64': 8, 'int32': 4, 'uint8': 1}
KNOWN = ['AllReduce', 'AllGather', 'ReduceScatter', 'Broadcast', 'Reduce', 'SendRecv', 'Send', 'Recv',
         'AllToAll', 'Barrier']


def canonical(raw):
    """'all_reduce', 'allreduce', '_allgather_base' -> NCCL's names; others as they are."""
    flat = raw.replace('_', '')
    for k in KNOWN:
        if flat.lower() == k.lower() or (flat.lower().startswith(k.lower()) and flat[len(k):].lower() == 'base'):
            return k
    return raw


def collectives(runs, w):
    """Per run, rank and collective type over the NCCL kernels: calls, time, bytes
    (max(In, Out msg nelems) x dtype size), algbw = bytes / time of the sized calls,
    busbw = algbw x 2(n-1)/n (AllReduce), (n-1)/n (AllGather, ReduceScatter), 1 else."""
    w.writerow(['run', 'rank', 'collective', 'calls', 'time_us', 'bytes', 'algbw_gb_per_s', 'busbw_gb_per_s'])
    for run, ranks in runs:
        for rank, d in ranks:
            agg = {}
            for a in sorted((a for a in d.acts if a['kind'] == 'kernel' and a['cls'] == 'comm'), key=lambda a: a['s']):
                args = a['args']
                if 'Collective name' in args:
                    t = canonical(str(args['Collective name']))
                else:
                    name = a['name']
                    i = name.find('Kernel_')
                    if i < 0:
                        t = 'other'
                    else:
                        rest = name[i + 7:]
                        j = min([k for k in (rest.find('_'), rest.find('('), rest.find('<')) if k >= 0] or [len(rest)])
                        t = canonical(rest[:j])
                g = agg.setdefault(t, dict(calls=0, time=0, bytes=0, btime=0, group=0))
                g['calls'] += 1
                g['time'] += a['e'] - a['s']
                n_in, n_out = args.get('In msg nelems', 0) or 0, args.get('Out msg nelems', 0) or 0
                sz = DTYPE_SIZE.get(args.get('dtype'), 0)
                if (n_in > 0 or n_out > 0) and sz > 0:
                    g['bytes'] += max(n_in, n_out) * sz
                    g['btime'] += a['e'] - a['s']
                n = args.get('Group size', d.world)
                if n is not None:
                    g['group'] = n
            for t, g in agg.items():
                row = [run, rank, t, g['calls'], us(g['time']), '', '', '']
                if g['btime'] > 0:
                    algbw = g['bytes'] / g['btime']
                    row[5] = g['bytes']
                    row[6] = '%.6g' % algbw
                    if g['group'] > 0:
                        n = g['group']
                        f = 2.0 * (n - 1) / n if t == 'AllReduce' else (n - 1) / n if t in ('AllGather', 'ReduceScatter') else 1.0
                        row[7] = '%.6g' % (algbw * f)
                w.writerow(row)


def scaling(runs, w):
    """Per run: step = median of all its ranks' ProfilerStep durations (even count: the
    mean of the middle two, rounded half up); samples/s = gpus x batch / step; comm = the
    mean over ranks and steps of the union of communication kernels in the step (halves up); share =
    sum comm / sum step. Model = run id up to its first '-', strategy = what follows
    'Ngpu-' ('single' for 1gpu). Baseline: the run of the same model with the fewest GPUs
    among the 1-GPU runs and the runs of the same strategy; speedup = S(n) / S(g),
    efficiency = speedup / (n / g). Prediction base m: the same model and strategy, with
    communication, fewest GPUs below n; eff = f(g(m)) / f(g(n)), f(p) = (p - 1) / p (n's
    communication predicted from m's, never measured on n); predicted samples/s =
    gpus x batch / (step(m) x ((1 - share(m)) + share(m) / eff)); predicted speedup = that
    over S(g). past_linear: 1 where an efficiency (profiled or the log's) exceeds
    1 + 2 eff sqrt(ra^2 + rb^2), r the relative standard error of each median,
    1.2533 x 1.4826 MAD / (median sqrt(n)) (n: the log's unprofiled iterations, or the
    profiled steps pooled over ranks, len / gpus); under 5 samples a side, any
    efficiency over 1. Also writes the mean squared error table (speedup_error.csv)."""
    w.writerow(['run', 'gpus', 'strategy', 'step_us', 'samples_per_s', 'comm_us', 'comm_share', 'baseline',
                'speedup', 'efficiency', 'prediction_base', 'comm_efficiency', 'predicted_speedup',
                'log_step_us', 'log_speedup', 'log_efficiency', 'past_linear', 'log_predicted_speedup',
                'strategy_label', 'step_samples'])
    info = {}
    for run, ranks in runs:
        durs, comm = [], 0
        for _, d in ranks:
            C = d.union_of(lambda a: a['kind'] == 'kernel' and a['cls'] == 'comm')
            for s, e, _n in d.steps:
                durs.append(e - s)
                comm += measure(clip(C, s, e))
        durs.sort()
        n = len(durs)
        med = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2] + 1) // 2
        g, b = RUN_INFO[run]
        strategy = run.split('gpu-')[1] if 'gpu-' in run else 'single'
        def rel_se(v, m, k):
            if k < 5 or m <= 0:
                return None
            d = sorted(abs(x - m) for x in v)
            mad = d[len(d) // 2] if len(d) % 2 else (d[len(d) // 2 - 1] + d[len(d) // 2]) / 2
            return 1.2533 * 1.4826 * mad / (m * math.sqrt(k))
        logv = unprofiled_values(run, [st[2] for st in ranks[0][1].steps])
        logm = unprofiled_median_ns(run, [st[2] for st in ranks[0][1].steps])
        info[run] = dict(rse=rel_se(durs, med, n / g), lrse=rel_se(logv, logm, len(logv)) if logm else None,
                         g=g, b=b, med=med, sps=float(g * b) * 1e9 / med, comm=comm / n,
                         share=comm / sum(durs), strategy=strategy, model=run.split('-')[0], n=n,
                         log=unprofiled_median_ns(run, [st[2] for st in ranks[0][1].steps]))
    errs = []
    for run, _ in runs:
        r = info[run]
        base = None
        for r2, _ in runs:
            c = info[r2]
            if c['model'] == r['model'] and (c['g'] == 1 or c['strategy'] == r['strategy']) and \
                    (base is None or c['g'] < info[base]['g']):
                base = r2
        bi = info[base]
        speedup = r['sps'] / bi['sps']
        eff = speedup / (float(r['g']) / float(bi['g']))
        pbase = None
        for r2, _ in runs:
            c = info[r2]
            if r2 != run and c['comm'] > 0 and c['g'] < r['g'] and c['model'] == r['model'] and \
                    c['strategy'] == r['strategy'] and c['b'] == r['b'] and (pbase is None or c['g'] < info[pbase]['g']):
                pbase = r2
        row = [run, r['g'], r['strategy'], us(r['med']), '%.6g' % r['sps'], us(int(r['comm'] + 0.5)),
               '%.6f' % r['share'], base, '%.6g' % speedup, '%.6g' % eff, pbase or '', '', '',
               us(r['log']) if r['log'] else '', '', '', 0, '', STRATEGY_SHOWN.get(r['strategy'], r['strategy']), r['n']]

        def past(e, ra, rb):
            if e <= 1:
                return False
            return ra is None or rb is None or e > 1 + 2 * e * math.sqrt(ra * ra + rb * rb)
        row[16] = int(base != run and past(eff, r['rse'], bi['rse']))
        ls = None
        if r['log'] and bi['log']:
            ls = (r['g'] * r['b'] / r['log']) / (bi['g'] * bi['b'] / bi['log'])
            row[14], row[15] = '%.6g' % ls, '%.6g' % (ls / (float(r['g']) / float(bi['g'])))
            row[16] = int(row[16] or (base != run and past(ls / (float(r['g']) / float(bi['g'])), r['lrse'], bi['lrse'])))
        SCALING[run] = (base, speedup, ls)
        if pbase and r['comm'] > 0:
            m = info[pbase]
            ce = ((m['g'] - 1) / m['g']) / ((r['g'] - 1) / r['g'])  # out of sample: ring volume per GPU, m's bandwidth
            factor = (1 - m['share']) + m['share'] / ce
            pred = float(r['g'] * r['b']) * 1e9 / (m['med'] * factor) / bi['sps']
            row[11], row[12] = '%.6g' % ce, '%.6g' % pred
            # anchored on the logs (issue #54 item 3): m's unprofiled median step, the baseline's log throughput
            lpred = None
            if m['log'] and bi['log']:
                lpred = (r['g'] * r['b'] / (m['log'] * factor)) / (bi['g'] * bi['b'] / bi['log'])
                row[17] = '%.6g' % lpred
            errs.append((r['model'], r['strategy'], pred, speedup, ls, lpred))
        w.writerow(row)
    _write_errs(errs)


def _write_errs(errs):
    """speedup_error.csv: the mean squared error of the predictions per model and strategy, and over all:
    log_mse of the log-anchored prediction against the training logs' speedups (runs with a log on
    both sides), trace_mse of the profiled one against the profiled steps'."""
    with open(os.path.join(OUTDIR, 'speedup_error.csv'), 'w', newline='') as f:
        e = csv.writer(f, lineterminator='\n')
        e.writerow(['model', 'strategy', 'strategy_label', 'log_runs', 'log_mse', 'runs', 'trace_mse'])

        names = {'gpt2': 'GPT-2 124M', 'bert': 'BERT-base'}
        seen = []
        for m, st, _, _, _, _ in errs:
            if (m, st) not in seen:
                seen.append((m, st))

        def row(sel):
            v = [(p - s) ** 2 for p, s, _, _ in sel]
            lv = [(lp - ls) ** 2 for _, _, ls, lp in sel if ls is not None and lp is not None]
            return [len(lv), '%.6g' % (sum(lv) / len(lv)) if lv else '', len(v), '%.6g' % (sum(v) / len(v))]
        for m, st in seen:
            e.writerow([names[m], st, STRATEGY_SHOWN.get(st, st)] + row([(p, s, ls, lp) for m2, st2, p, s, ls, lp in errs if (m2, st2) == (m, st)]))
        if errs:
            e.writerow(['all', '', ''] + row([(p, s, ls, lp) for _, _, p, s, ls, lp in errs]))


def unprofiled_values(run, ns):
    """The run's training log's unprofiled iterations (ns), as unprofiled_median_ns selects them."""
    log = RUN_LOG.get(run)
    if not log:
        return []
    lo, hi = (min(ns), max(ns)) if ns else (10 ** 9, -10 ** 9)
    v = []
    for line in open(log):
        m = re.search(r'iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)', line)
        if m and int(m.group(1)) >= 3 and not lo - 1 <= int(m.group(1)) <= hi + 2:
            v.append(round(float(m.group(2)) * 1e6))
    return v


def unprofiled_median_ns(run, ns):
    """The median (ns, halves up) of the run's training log's unprofiled iterations: from the
    third on, outside [lo - 1, hi + 2] where lo, hi are the smallest and largest N of its
    ProfilerStep#N (ProfilerStep#N is iteration N + 1; two warm-up iterations before, the
    export after); ns: the N of the run's ProfilerStep#N. None without a log."""
    log = RUN_LOG.get(run)
    if not log:
        return None
    lo, hi = (min(ns), max(ns)) if ns else (10 ** 9, -10 ** 9)
    v = []
    for line in open(log):
        m = re.search(r'iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)', line)
        if m:
            it = int(m.group(1))
            if it >= 3 and not lo - 1 <= it <= hi + 2:
                v.append(round(float(m.group(2)) * 1e6))
    if not v:
        return None
    v.sort()
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2] + 1) // 2


OUTDIR = '.'


def main():
    global OUTDIR
    outdir = OUTDIR = sys.argv[1]
    runs = runs_of(sys.argv[2:])
    for name, fn in (('step_breakdown', step_breakdown), ('memops', memops), ('ranks', ranks_table),
                     ('phases', phases), ('dispatch', dispatch), ('compare', compare),
                     ('collectives', collectives), ('scaling', scaling), ('strategy_scaling', strategy_scaling),
                     ('idle_time_steps', idle_time_steps),
                     ('gpu_idle', gpu_idle)):
        out = io.StringIO()
        fn(runs, csv.writer(out, lineterminator='\n'))
        with open(os.path.join(outdir, name + '.csv'), 'w', newline='') as f:
            f.write(out.getvalue())


if __name__ == '__main__':
    main()
