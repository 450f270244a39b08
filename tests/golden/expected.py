#!/usr/bin/env python3
"""Independent reference for perfstudy's groups.csv, kernels.csv and steps.csv.

Written from the definitions in the issue and README, not from perfstudy's C
code: it reads the raw Kineto JSON with Python's json module (numbers as
Decimal, so no precision is lost), classifies kernel names with its own copy
of the rules, and prints the CSV perfstudy must produce byte for byte.

usage: expected.py {groups|kernels|steps} PRESET RUN=FILE[,FILE...] ...
"""
import csv
import gzip
import io
import json
import sys
from decimal import Decimal, ROUND_HALF_UP


def load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    return json.loads(raw, parse_float=Decimal)


def ns(us):
    return int((Decimal(us) * 1000).to_integral_value(rounding=ROUND_HALF_UP))


GPU_CATS = {'kernel': 'kernel', 'gpu_memcpy': 'memcpy', 'memcpy': 'memcpy',
            'gpu_memset': 'memset', 'memset': 'memset'}


def default_group(kind, name):
    """The 'default' preset as the issue states it."""
    if kind != 'kernel':
        return 'memory'
    low = name.lower()
    if 'nccl' in low:
        return 'communication'
    if any(w in low for w in ('flash', 'fmha', 'sdpa', 'attention')):
        return 'attention'
    if any(w in low for w in ('gemm', 'nvjet', 'xmma', 'wgmma', 'hmma', 'cutlass', 'cublas')):
        return 'matrix-mul'
    if any(w in low for w in ('copy_device_to_device', 'memcpy', 'memset')):
        return 'memory'
    if 'at::native' in name or any(w in low for w in ('elementwise', 'reduce', 'softmax', 'norm', 'triton')):
        return 'elementwise'
    return 'other'


def payoungkhamdee_group(kind, name):
    """get_ins_group of Payoungkhamdee & Phattiyaphaibun (2021), per the issue."""
    if kind != 'kernel':
        return 'memory_mgmt'
    if 'gemm' in name:
        return 'matrix-mul'
    if 'nccl' in name.lower() or 'copy_device_to_device' in name.lower():
        return 'memory_mgmt'
    if any(w in name for w in ('::native', 'vectorized_elementwise', '_cpp1_ii', 'reduce_kernel')):
        return 'custom_ops'
    return 'other'


PRESETS = {
    'default': (default_group, ['matrix-mul', 'attention', 'communication', 'memory', 'elementwise', 'other']),
    'payoungkhamdee2021': (payoungkhamdee_group, ['matrix-mul', 'memory_mgmt', 'custom_ops', 'other']),
}


def ranks_of(files):
    out = []
    for i, path in enumerate(files):
        doc = load(path)
        info = doc.get('distributedInfo') or {}
        rank = info.get('rank', i) if isinstance(info.get('rank'), int) else i
        out.append((rank, doc))
    return sorted(out, key=lambda x: x[0])


def us(v):
    sign = '-' if v < 0 else ''
    v = abs(v)
    return '%s%d.%03d' % (sign, v // 1000, v % 1000)


def neutral(s):
    return "'" + s if s[:1] in ('=', '+', '-', '@', '\t', '\r') else s


def main():
    what, preset = sys.argv[1], sys.argv[2]
    fn, order = PRESETS[preset]
    runs = []
    for arg in sys.argv[3:]:
        run, files = arg.split('=', 1)
        runs.append((run, files.split(',')))
    out = io.StringIO()
    w = csv.writer(out, lineterminator='\n')
    if what == 'groups':
        w.writerow(['run', 'rank', 'group', 'time_us', 'fraction'])
    elif what == 'kernels':
        w.writerow(['run', 'rank', 'name', 'group', 'calls', 'total_us', 'mean_us', 'min_us', 'max_us'])
    else:
        w.writerow(['run', 'rank', 'step', 'step_us'])
    for run, files in runs:
        for rank, doc in ranks_of(files):
            times = {g: 0 for g in order}
            kern = {}
            steps = []
            for e in doc['traceEvents']:
                if e.get('ph') != 'X':
                    continue
                cat = str(e.get('cat', '')).lower()
                if 'ts' not in e or 'dur' not in e:
                    continue
                d = ns(e['dur'])
                if d < 0:
                    continue
                name = e.get('name', '')
                if cat in GPU_CATS:
                    kind = GPU_CATS[cat]
                    g = fn(kind, name)
                    times[g] += d
                    if kind == 'kernel':
                        k = kern.setdefault(name, [0, 0, None, None, g])
                        k[0] += 1
                        k[1] += d
                        k[2] = d if k[2] is None else min(k[2], d)
                        k[3] = d if k[3] is None else max(k[3], d)
                elif cat == 'user_annotation' and name.startswith('ProfilerStep#') and name[13:14].isdigit():
                    steps.append((int(''.join(c for c in name[13:] if c.isdigit()) or 0), ns(e['ts']), d))
            if what == 'groups':
                total = sum(times.values())
                for g in order:
                    w.writerow([run, rank, g, us(times[g]), '%.6f' % (times[g] / total) if total else ''])
            elif what == 'kernels':
                for name, (calls, tot, mn, mx, g) in sorted(kern.items(), key=lambda kv: (-kv[1][1], kv[0].encode())):
                    w.writerow([run, rank, neutral(name), g, calls, us(tot), us((2 * tot + calls) // (2 * calls)), us(mn), us(mx)])
            else:
                for step, start, d in sorted(steps):
                    w.writerow([run, rank, step, us(d)])
    sys.stdout.write(out.getvalue())


if __name__ == '__main__':
    main()
