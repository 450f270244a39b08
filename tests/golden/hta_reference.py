#!/usr/bin/env python3
"""A reimplementation of Holistic Trace Analysis's temporal breakdown and
communication/computation overlap, to check perfstudy's temporal.csv and
overlap.csv against HTA where HTA itself cannot be installed.

Written from HTA's published source (MIT, Meta Platforms), read at commit
0c2146a8d003629a67f225528969752e1f0656aa of
github.com/facebookresearch/HolisticTraceAnalysis:
  hta/common/trace.py            compress_df, _filter_irrelevant_gpu_kernels
  hta/utils/utils.py             get_kernel_type, merge_kernel_intervals
  hta/analyzers/breakdown_analysis.py   get_temporal_breakdown
  hta/analyzers/communication_analysis.py get_comm_comp_overlap
No HTA code is copied; pandas is replaced by plain Python with the same
semantics, step by step:
  * events: every traceEvents entry with both 'dur' and 'cat', except cat
    'Trace'; stream and correlation are args.stream / args.correlation or -1;
  * GPU events are those with stream != -1; the others are "CPU" events;
  * when the symbols (names and categories, over all ranks loaded together)
    holding "ProfilerStep" number two or more, each rank keeps the GPU events
    whose correlation equals that of some CPU event starting before the
    rank's last ProfilerStep start (a pandas inner merge: a GPU event with
    correlation -1 is kept when any such CPU event has correlation -1 too);
  * kernel type (hta/utils/utils.py, newest stored version): COMMUNICATION
    when the name matches ^nccl.*Kernel, MEMORY when it starts with Memcpy,
    Memset or dma, COMPUTATION unless it matches
    (^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync), else OTHER;
  * merged intervals: sorted by ts, an interval joins the group before it
    unless it starts after the group's running maximum end;
  * kernel_time = last merged end - first merged start; idle = kernel_time -
    merged length; compute = merged length of COMPUTATION events;
    non_compute = kernel_time - compute - idle;
  * overlap: a sweep over the merged communication (+1/-1) and computation
    (+2/-2) boundaries; the time while the running sum is 3, divided by the
    merged communication length.
Times are HTA's: the JSON numbers as floats, in the trace's unit (us).

usage: hta_reference.py [--ns] RUN=FILE[,FILE...] ...
  prints CSV run,rank,span,idle,compute,non_compute,comm,overlap (one row per
  file in rank order: distributedInfo.rank, else the file's position), with
  --ns in integer nanoseconds rounded half up, else in HTA's own float us.
"""
import gzip
import json
import re
import sys


def load(path):
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    return json.loads(raw)


def events(doc):
    """compress_df: keep events with dur and cat, drop cat Trace; pull args."""
    out = []
    for e in doc.get('traceEvents', []):
        if not isinstance(e, dict):
            continue
        dur, cat = e.get('dur'), e.get('cat')
        if dur is None or cat is None or cat == 'Trace':
            continue
        args = e.get('args')
        args = args if isinstance(args, dict) else {}
        out.append({'name': e.get('name', ''), 'cat': cat, 'ts': float(e['ts']), 'dur': float(dur),
                    'stream': args.get('stream', -1), 'correlation': args.get('correlation', -1)})
    return out


# hta/utils/utils.py, the version with KernelType.OTHER (newer than
# 0c2146a, where COMMUNICATION was "starts with nccl or contains gloo:" and
# MEMORY "contains Memcpy or Memset"); re.match anchors at the start.
NCCL_KERNEL_RE = re.compile(r"^nccl.*Kernel")
MEMORY_KERNEL_RE = re.compile(r"(^Memcpy)|(^Memset)|(^dma)")
NCCL_COMPUTE_KERNEL_RE = re.compile(r"(^nccl.*Kernel)|(.*(Memcpy)|(Memset))|(.*Sync)")


def kernel_type(name):
    if NCCL_KERNEL_RE.match(name):
        return 'COMMUNICATION'
    if MEMORY_KERNEL_RE.match(name):
        return 'MEMORY'
    if not NCCL_COMPUTE_KERNEL_RE.match(name):
        return 'COMPUTATION'
    return 'OTHER'


def merge(evs):
    """merge_kernel_intervals: [(start, end)] of the merged groups, by ts."""
    out = []
    for e in sorted(evs, key=lambda e: e['ts']):
        s, t = e['ts'], e['ts'] + e['dur']
        if out and not s > out[-1][1]:
            if t > out[-1][1]:
                out[-1][1] = t
        else:
            out.append([s, t])
    return out


def filter_rank(evs, steps_symbols):
    """_filter_irrelevant_gpu_kernels for one rank."""
    cpu = [e for e in evs if e['stream'] == -1]
    gpu = [e for e in evs if e['stream'] != -1]
    starts = [e['ts'] for e in cpu if e['name'] in steps_symbols]
    if not starts:
        return []
    last = max(starts)
    corr = {e['correlation'] for e in cpu if e['ts'] < last}
    return [e for e in gpu if e['correlation'] in corr]


def breakdown(gpu):
    merged = merge(gpu)
    if not merged:
        return None
    span = merged[-1][1] - merged[0][0]
    idle = span - sum(t - s for s, t in merged)
    comp = merge([e for e in gpu if kernel_type(e['name']) == 'COMPUTATION'])
    comm = merge([e for e in gpu if kernel_type(e['name']) == 'COMMUNICATION'])
    compute = sum(t - s for s, t in comp)
    # The overlap sweep of get_comm_comp_overlap.
    status = [(s, 1) for s, _ in comm] + [(t, -1) for _, t in comm] + \
        [(s, 2) for s, _ in comp] + [(t, -2) for _, t in comp]
    status.sort(key=lambda x: x[0])
    running, overlap = 0, 0.0
    for i, (time, d) in enumerate(status):
        running += d
        if running == 3 and i + 1 < len(status):
            overlap += status[i + 1][0] - time
    return {'span': span, 'idle': idle, 'compute': compute, 'non_compute': span - compute - idle,
            'comm': sum(t - s for s, t in comm), 'overlap': overlap}


def analyze(files):
    """One HTA Trace over these files: [(rank, result)] in rank order."""
    loaded = []
    for i, path in enumerate(files):
        doc = load(path)
        info = doc.get('distributedInfo')
        rank = info.get('rank', i) if isinstance(info, dict) else i
        loaded.append((rank, events(doc)))
    symbols = set()
    for _, evs in loaded:
        for e in evs:
            symbols.add(e['name'])
            symbols.add(e['cat'])
    steps = {s for s in symbols if 'ProfilerStep' in s}
    out = []
    for rank, evs in sorted(loaded, key=lambda x: x[0]):
        if len(steps) >= 2:
            gpu = filter_rank(evs, steps)
        else:
            gpu = [e for e in evs if e['stream'] != -1]
        out.append((rank, breakdown(gpu)))
    return out


def main(argv):
    as_ns = False
    if argv and argv[0] == '--ns':
        as_ns, argv = True, argv[1:]
    print('run,rank,span,idle,compute,non_compute,comm,overlap')
    for arg in argv:
        run, files = arg.split('=', 1)
        for rank, r in analyze(files.split(',')):
            if r is None:
                continue
            keys = ['span', 'idle', 'compute', 'non_compute', 'comm', 'overlap']
            vals = [str(int(r[k] * 1000 + 0.5)) if as_ns else repr(r[k]) for k in keys]
            print(','.join([run, str(rank)] + vals))


if __name__ == '__main__':
    main(sys.argv[1:])
