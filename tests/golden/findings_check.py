#!/usr/bin/env python3
"""findings_check.py: every finding of a built study checked against its raw traces.

    findings_check.py FINDINGS.CSV RUN:GPUS:BATCH=FILE[,FILE...] ...

Recomputes, with Python's json module and none of perfstudy's tables, the
number each finding of findings.csv states, and fails (exit 1, one line per
disagreement) where the statement does not hold:

  scaling          samples/s = gpus x batch / the median of every ProfilerStep
                   of every rank; speedup against the 1-GPU run of the same
                   model (the run's prefix before the first '-'). Exact to
                   the 3 significant digits the finding prints. A finding
                   that 'trains at' takes the step from the training log
                   beside the run's first trace (rank0.log): the median of
                   its unprofiled iterations (the third on, outside the
                   profiler's window: ProfilerStep#N is iteration N + 1, two
                   warm-up iterations before, the export after).
  waiting          NCCL kernels matched across ranks by order per process
                   group (Process Group Name), kernels launched inside a
                   profiled step; a rank's clock offset = the median of the
                   differences of the ends of the operations every rank
                   leaves together (not Broadcast, Reduce, Send, Recv),
                   kept within the offsets that let no rank leave one of
                   them before the other arrived;
                   arrival = start - offset, wait = the latest arrival -
                   this rank's (0 for a kernel that ended before it: a
                   Broadcast's root); per rank, the summed wait for the rank the
                   others waited for longest, per step and over the rank's
                   mean step. The straggler must be the same rank and each
                   named rank's share within 2 percentage points, its wait
                   and its exposed wait (the wait less the union of the
                   rank's other GPU activities) within 0.1 ms (printed to
                   0.1 ms).
  straggler-unpriced  a straggler the waiting rule leaves unpriced: its rank
                   and each named rank's waits as for waiting; the time the
                   profiler added per step (the training log's profiled
                   iterations' median less its unprofiled ones', as for
                   scaling) and its factor (their ratio) within 0.1 ms and
                   0.006; the profiled steps it rests on, the trace's count.
                   The replay's saving it quotes is not recomputed.
  straggler-windows for each operation the straggler arrived last in with
                   another rank waiting, the window [first arrival, its
                   arrival] (offsets as above, on the straggler's clock):
                   the share of the union of these windows in which none of
                   its GPU activities ran, within 2 percentage points.
  host-bound       the rank's GPU is idle (no activity on any stream) at least
                   20 % of its whole steps (pooled: their idle time over their
                   time; whole: a GPU activity launched in it, and not a first
                   or last step under half the median), exact to 1 percentage
                   point; and at least half of that idle time is spent waiting
                   for a launch: a gap on the GPU whose next activity's
                   launching call ended after the gap began.
                   Where the finding puts 100 % of the critical path on the
                   host, the path never left the step's thread: the share
                   it says is outside every operator must be that thread's
                   time inside no cpu_op and no runtime call over the whole
                   steps, within 1 point (0 where it names none).
  comm-skew        per rank, the share of its whole steps inside NCCL kernels
                   (their union, pooled): the rank named has the least, the spread
                   is at least 20 points, each share printed within 1 point.
  cause            the named rank's time per step in the named region, host
                   (the union over threads of the annotations named like
                   the phase: phases.c's default names) or GPU (the union
                   of its non-NCCL GPU activities whose launching call
                   starts in that host time), against the median of the
                   other ranks': the rank's, the median's and the excess
                   within 0.1 ms; a kernel named, its summed time there
                   likewise, and "run only on rank N" only where no other
                   rank runs it; "over all its regions" the sum of the
                   positive excesses over the four phases, within 0.1 ms;
                   "so the other ranks wait" only where the named excess is
                   at least half the largest exposed wait. Extra GPU work
                   said to hide behind a host-bound step: its region's and
                   kernel's GPU excess as above, and the rank's GPU idle
                   share (pooled over whole steps) within 1 point, at least
                   20 %.
A finding of another rule fails the check, so a new rule needs a check here.
"""
import bisect
import collections
import csv
import gzip
import json
import os
import re
import statistics
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from intervals import union, covered  # noqa: E402


def load(path):
    with (gzip.open(path) if path.endswith('.gz') else open(path, 'rb')) as f:
        return json.load(f)['traceEvents']


class Rank:
    def __init__(self, path):
        with (gzip.open(path) if path.endswith('.gz') else open(path, 'rb')) as f:
            doc = json.load(f)
        self.device = ((doc.get('deviceProperties') or [{}])[0]).get('name', '')
        ev = [e for e in doc['traceEvents'] if e.get('ph') == 'X']
        self.annots = [e for e in ev if e.get('cat') == 'user_annotation']
        self.steps = sorted((e['ts'], e['ts'] + e['dur']) for e in ev
                            if e.get('cat') == 'user_annotation' and e['name'].startswith('ProfilerStep#'))
        self.step_tid = {(e['ts'], e['ts'] + e['dur']): e['tid'] for e in ev
                         if e.get('cat') == 'user_annotation' and e['name'].startswith('ProfilerStep#')}
        # per thread, the union of its host operators and runtime calls
        ops = collections.defaultdict(list)
        for e in ev:
            if e.get('cat') in ('cpu_op', 'cuda_runtime', 'cuda_driver'):
                ops[e['tid']].append([e['ts'], e['ts'] + e['dur']])
        self.host_ops = {t: union(v) for t, v in ops.items()}
        self.gpu = sorted((e for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')),
                          key=lambda e: e['ts'])
        self.launch = {e['args']['correlation']: e for e in ev
                       if e.get('cat') in ('cuda_runtime', 'cuda_driver') and 'correlation' in e.get('args', {})}
        self.busy = union([[g['ts'], g['ts'] + g['dur']] for g in self.gpu])
        self.cpu_ops = [e for e in ev if e.get('cat') == 'cpu_op']
        # NCCL kernels with their args whose launching call is inside a profiled step
        self.nccl = [g for g in self.gpu if g.get('cat') == 'kernel' and 'nccl' in g['name'].lower()
                     and 'Collective name' in g.get('args', {}) and self.in_step(g)]

    def in_step(self, g):
        call = self.launch.get(g['args'].get('correlation'))
        t = call['ts'] if call else g['ts']
        return any(s <= t < e for s, e in self.steps)

    def whole_steps(self):
        """The steps pooled: not those in which no GPU activity was launched, nor a first or last step lasting
        under half the median step (the profiler started or stopped inside it)."""
        durs = sorted(e - s for s, e in self.steps)
        n = len(durs)
        med = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2]) / 2
        starts = [c['ts'] for c in (self.launch.get(g['args'].get('correlation')) for g in self.gpu) if c]
        out = []
        for i, (s, e) in enumerate(self.steps):
            launched = any(s <= t < e for t in starts)
            if launched and not ((i == 0 or i == n - 1) and n > 1 and 2 * (e - s) < med):
                out.append((s, e))
        return out

    def idle_share(self):
        """Pooled over whole steps: (their time - GPU busy time in them) / their time."""
        w = self.whole_steps()
        return 1 - sum(covered(self.busy, s, e) for s, e in w) / sum(e - s for s, e in w)

    def outside_share(self):
        """Pooled over whole steps: the time of each step's thread inside no host operator and no runtime
        call, over their time."""
        w = self.whole_steps()
        out = sum((e - s) - covered(self.host_ops.get(self.step_tid[s, e], []), s, e) for s, e in w)
        return out / sum(e - s for s, e in w)

    def host_wait_share(self):
        """Of the GPU's idle time in the whole steps, the share in gaps whose next activity was launched by a
        call that ended after the gap began (before the first activity: all host wait)."""
        idle = wait = 0
        by_start = collections.defaultdict(list)
        for g in self.gpu:
            by_start[g['ts']].append(g)
        for s, e in self.whole_steps():
            for i, (a, b) in enumerate([[-1e30, self.busy[0][0]]] + [[self.busy[k - 1][1], self.busy[k][0]]
                                                                    for k in range(1, len(self.busy))]):
                x, y = max(a, s), min(b, e)
                if y <= x:
                    continue
                idle += y - x
                calls = [self.launch.get(g['args'].get('correlation')) for g in by_start[b]]
                if i == 0 or any(c and c['ts'] + c['dur'] > a for c in calls):
                    wait += y - x
            after = max(self.busy[-1][1], s)  # after the last activity: not host wait, but idle
            if e > after:
                idle += e - after
        return wait / idle if idle else 0.0


PHASES = {
    'get_train_batch': ['get_train_batch', r'\[_TrainingEpochLoop\]\.train_dataloader_next',
                        r'\[TrainingEpochLoop\]\.train_dataloader_next', r'enumerate\(DataLoader\).*'],
    'forward': ['forward', 'model_forward', r'DistributedDataParallel\.forward', r'FullyShardedDataParallel\.forward',
                r'\[LightningModule\].*\.training_step', r'\[Strategy\].*\.training_step', 'training_step'],
    'backward': ['backward', 'model_backward', r'\[LightningModule\].*\.backward', r'\[Strategy\].*\.backward'],
    'optimizer_step': ['optimizer_step', r'Optimizer\.step#.*', r'\[LightningModule\].*\.optimizer_step',
                       r'\[Strategy\].*\.optimizer_step'],
}


def region_times(rk, region):
    """Per step: the host time of the phase (union of its annotations), the GPU time of its
    non-NCCL activities launched in it (union), and per activity name their summed time."""
    host = union([[e['ts'], e['ts'] + e['dur']] for e in rk.annots
                  if any(re.fullmatch(p, e['name']) for p in PHASES[region])])
    gpu, names = [], collections.defaultdict(float)
    for g in rk.gpu:
        if g.get('cat') == 'kernel' and 'nccl' in g['name'].lower():
            continue
        call = rk.launch.get(g.get('args', {}).get('correlation'))
        if call and any(s <= call['ts'] < e for s, e in host):
            gpu.append([g['ts'], g['ts'] + g['dur']])
            names[g['name']] += g['dur']
    n = len(rk.steps)
    return (sum(e - s for s, e in host) / n, sum(e - s for s, e in union(gpu)) / n,
            {k: v / n for k, v in names.items()})


def matched_ops(ranks):
    """Per process group, the n-th NCCL kernel of every rank: a list of {rank: kernel}."""
    per = collections.defaultdict(lambda: collections.defaultdict(list))
    for r, rk in ranks.items():
        for k in rk.nccl:
            per[k['args'].get('Process Group Name', k['args'].get('Process Group Description'))][r].append(k)
    ops = []
    for pg, by_rank in per.items():
        n = min(len(v) for v in by_rank.values())
        for i in range(n):
            ops.append({r: by_rank[r][i] for r in by_rank})
    return ops


def offsets(ranks, ops):
    """Each rank's clock against the lowest rank's: the median of the differences of the
    ends of the operations every rank leaves together (not a rooted Broadcast or Reduce)."""
    ref = min(ranks)
    sync = [op for op in ops if ref in op and op[ref]['args'].get('Collective name', '').lower()
            not in ('broadcast', 'reduce', 'send', 'recv')]
    off = {}
    for r in ranks:
        both = [op for op in sync if r in op]
        if not both:
            off[r] = 0.0
            continue
        med = statistics.median(op[r]['ts'] + op[r]['dur'] - op[ref]['ts'] - op[ref]['dur'] for op in both)
        # kept within the offsets that let no rank leave before the other arrived (crossrank.c)
        lo = max(op[r]['ts'] - op[ref]['ts'] - op[ref]['dur'] for op in both)
        hi = min(op[r]['ts'] + op[r]['dur'] - op[ref]['ts'] for op in both)
        off[r] = min(max(med, lo), hi) if lo <= hi else med
    return off


def waits(ranks):
    """Per (waiter, last) the summed wait and exposed wait (us) in the matched NCCL kernels, and
    the straggler: the rank waited for longest in total."""
    wait = collections.defaultdict(float)  # (waiter, last) -> us
    exposed = collections.defaultdict(float)
    ops = matched_ops(ranks)
    off = offsets(ranks, ops)
    for op in ops:
        arr = {r: k['ts'] - off[r] for r, k in op.items()}
        last = max(op, key=lambda r: (arr[r], -r))
        for r, k in op.items():
            # a kernel that ended before the last arrival (a Broadcast's root) did not wait
            if r != last and k['ts'] + k['dur'] - off[r] > arr[last]:
                wait[r, last] += arr[last] - arr[r]
                # exposed: the wait less every other GPU activity of rank r
                lo, hi = k['ts'], k['ts'] + arr[last] - arr[r]
                other = union([[g['ts'], g['ts'] + g['dur']] for g in ranks[r].gpu
                               if g is not k and g['ts'] < hi and g['ts'] + g['dur'] > lo])
                exposed[r, last] += (hi - lo) - covered(other, lo, hi)
    by_last = collections.defaultdict(float)
    for (a, b), w in wait.items():
        by_last[b] += w
    return wait, exposed, max(by_last, key=by_last.get)


LOGS, STEP_NS = {}, {}


def step_numbers(path):
    """The N of every ProfilerStep#N of one trace (a user_annotation), read with json alone."""
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        doc = json.load(f)
    return sorted({e['name'][len('ProfilerStep#'):] for e in doc['traceEvents']
                   if e.get('cat') == 'user_annotation' and e.get('name', '').startswith('ProfilerStep#')}, key=int)


# dense bf16 FLOP/s and HBM bytes/s from NVIDIA's datasheets (SXM parts), by a substring of the device name
PEAKS = [('H200', 989.5e12, 4.8e12), ('H100', 989.5e12, 3.35e12)]


def roofline(rk, text):
    """An op-roofline finding of a bf16 matrix product (aten::mm A x B) on an H200 or H100 SXM, from the raw trace: its
    calls starting inside a ProfilerStep, the kernels launched inside each call on its thread (by
    correlation), per step over the rank's steps; FLOPs 2MNK and bytes 2 (MK + KN + MN); the roofline's time
    max(FLOPs / bf16 peak, bytes / bandwidth) per call. None when it agrees, else what was expected."""
    m = re.match(r'(\S+) (\[[0-9,]+\]) x (\[[0-9,]+\]) bf16(?: on rank \d+ \(.*?\))?: ([0-9.]+) % of its roofline '
                 r'\((compute|memory)-bound\), ([0-9.]+) (ms|us) per step on the GPU where the roofline allows '
                 r'([0-9.]+) (ms|us): ([0-9.]+) (ms|us) per step lost, ([0-9.]+) % of the step', text)
    if not m or m.group(1) != 'aten::mm':
        return 'not a bf16 aten::mm finding this check reads'
    peaks = [(f, b) for name, f, b in PEAKS if name in rk.device and 'NVL' not in rk.device and 'PCIe' not in rk.device]
    if not peaks:
        return 'device %r not in the check\'s peaks' % rk.device
    peak_f, peak_b = peaks[0]
    a, b = json.loads(m.group(2)), json.loads(m.group(3))
    calls = [e for e in rk.cpu_ops if e['name'] == 'aten::mm' and e.get('args', {}).get('Input Dims', [])[:2] == [a, b]
             and e['args'].get('Input type', [''])[0] == 'c10::BFloat16' and any(s <= e['ts'] < t for s, t in rk.steps)]
    corr = {}
    for c in rk.launch.values():
        corr.setdefault(c['tid'], []).append(c)
    gpu = 0.0
    by_corr = {g['args'].get('correlation'): g for g in rk.gpu if g.get('cat') == 'kernel'}
    for e in calls:
        for c in corr.get(e['tid'], []):
            k = by_corr.get(c['args']['correlation'])
            if e['ts'] <= c['ts'] <= e['ts'] + e['dur'] and k and not k['name'].startswith('void at::native::'):
                gpu += k['dur']
    n = len(rk.steps)
    M, K, N = a[0], a[1], b[1]
    flops, nbytes = 2 * M * N * K, 2 * (M * K + K * N + M * N)
    gpu_us = gpu / n
    roof_us = len(calls) / n * max(flops / peak_f, nbytes / peak_b) * 1e6
    step_us = sum(t - s for s, t in rk.steps) / n
    bound = 'compute' if flops / peak_f >= nbytes / peak_b else 'memory'

    def us(i):
        return float(m.group(i)) * (1000 if m.group(i + 1) == 'ms' else 1)
    got = (float(m.group(4)), us(6), us(8), us(10), float(m.group(12)))
    want = (100 * roof_us / gpu_us, gpu_us, roof_us, gpu_us - roof_us, 100 * (gpu_us - roof_us) / step_us)
    ok = (abs(got[0] - want[0]) <= 0.051 and all(abs(x - y) <= 0.006 * y for x, y in zip(got[1:4], want[1:4]))
          and abs(got[4] - want[4]) <= 0.051 and m.group(5) == bound)
    return None if ok else 'expected %.1f %% (%s-bound), %.4g us, roofline %.4g us, lost %.4g us, %.1f %% of the step' % (
        want[0], bound, want[1], want[2], want[3], want[4])


def main():
    findings = list(csv.DictReader(open(sys.argv[1])))
    runs = {}
    for arg in sys.argv[2:]:
        head, files = arg.split('=', 1)
        run, gpus, batch = head.split(':')
        runs[run] = (int(gpus), int(batch), {i: Rank(f) for i, f in enumerate(files.split(','))})
        LOGS[run] = os.path.join(os.path.dirname(files.split(',')[0]), 'rank0.log')
        STEP_NS[run] = step_numbers(files.split(',')[0])
    bad = []

    def step_med(run):
        return statistics.median(e - s for rk in runs[run][2].values() for s, e in rk.steps)

    def tput(run):
        g, b, _ = runs[run]
        return g * b / step_med(run)

    def log_tput(run):
        """gpus x batch / the median of the log's unprofiled iterations: from the third on, outside
        [lo - 1, hi + 2] with lo, hi the smallest and largest N of the run's ProfilerStep#N."""
        g, b, _ = runs[run]
        ns = [int(x) for x in STEP_NS[run]]
        lo, hi = min(ns), max(ns)
        v = []
        for line in open(LOGS[run]):
            m = re.search(r'iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)', line)
            if m and int(m.group(1)) >= 3 and not lo - 1 <= int(m.group(1)) <= hi + 2:
                v.append(float(m.group(2)))
        return g * b / statistics.median(v)

    def log_medians(run):
        """The training log's median iteration (ms) of its profiled iterations (ProfilerStep#N is
        iteration N + 1) and of its unprofiled ones (as log_tput takes them)."""
        ns = [int(x) for x in STEP_NS[run]]
        lo, hi = min(ns), max(ns)
        prof, unprof = [], []
        for line in open(LOGS[run]):
            m = re.search(r'iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)', line)
            if not m:
                continue
            i = int(m.group(1))
            if lo + 1 <= i <= hi + 1:
                prof.append(float(m.group(2)))
            elif i >= 3 and not lo - 1 <= i <= hi + 2:
                unprof.append(float(m.group(2)))
        return statistics.median(prof), statistics.median(unprof)

    for f in findings:
        if f['run'] not in runs:
            continue
        run, text, rule = f['run'], f['finding'], f['rule'].split(':')[0]
        rank = int(f['rank']) if f['rank'] else None
        g, _, ranks = runs[run]
        if rule == 'scaling':
            base = [r for r in runs if r.split('-')[0] == run.split('-')[0] and runs[r][0] == 1][0]
            s = tput(run) / tput(base)
            m = re.search(r'(runs|trains) at ([0-9.]+)x the throughput of (\S+) ', text)
            if m and m.group(1) == 'trains':
                # from the training logs (rank0.log beside each run's first trace): their unprofiled iterations
                s = log_tput(run) / log_tput(base)
                p = re.search(r'profiled steps say ([0-9.]+)x', text)
                if p and abs(float(p.group(1)) - tput(run) / tput(base)) > 0.005:
                    bad.append('%s scaling: %s; profiled steps give %.2fx' % (run, text, tput(run) / tput(base)))
            if not m or m.group(3) != base or abs(float(m.group(2)) - s) > 0.005:
                bad.append('%s scaling: %s; expected %.2fx of %s' % (run, text, s, base))
        elif rule in ('waiting', 'straggler-unpriced'):
            wait, exposed, straggler = waits(ranks)
            if straggler != rank:
                bad.append('%s %s: straggler %s, expected %d' % (run, rule, rank, straggler))
            named = 0
            for m in re.finditer(r'rank (\d+) ([0-9.]+) ms exposed \(([0-9.]+) ms in all, (\d+) % of its step\)', text):
                named += 1
                a = int(m.group(1))
                steps = ranks[a].steps
                share = wait[a, straggler] / len(steps) / statistics.mean(e - s for s, e in steps)
                if abs(100 * share - int(m.group(4))) > 2:
                    bad.append('%s %s: rank %d %s %%, expected %.1f %%' % (run, rule, a, m.group(4), 100 * share))
                # printed to 0.1 ms; the offsets here may differ from perfstudy's by some us
                if abs(float(m.group(3)) - wait[a, straggler] / len(steps) / 1000) > 0.1 or \
                        abs(float(m.group(2)) - exposed[a, straggler] / len(steps) / 1000) > 0.1:
                    bad.append('%s %s: rank %d %s ms exposed of %s, expected %.2f of %.2f' % (
                        run, rule, a, m.group(2), m.group(3), exposed[a, straggler] / len(steps) / 1000,
                        wait[a, straggler] / len(steps) / 1000))
            if rule == 'straggler-unpriced':
                if not named:
                    bad.append('%s straggler-unpriced: names no waiting rank: %s' % (run, text))
                # the profiler's added time per step, from the training log alone: its profiled
                # iterations' median less its unprofiled iterations' median
                p = re.search(r'less than the ([0-9.]+) ms per step the profiler added \(its factor ([0-9.]+)x', text)
                if p:
                    prof, unprof = log_medians(run)
                    if abs(float(p.group(1)) - (prof - unprof)) > 0.1 or abs(float(p.group(2)) - prof / unprof) > 0.006:
                        bad.append('%s straggler-unpriced: %s ms added, factor %s; the log gives %.2f ms, %.3f' % (
                            run, p.group(1), p.group(2), prof - unprof, prof / unprof))
                q = re.search(r'it rests on (\d+) profiled steps?', text)
                if q and int(q.group(1)) != len(ranks[rank].steps):
                    bad.append('%s straggler-unpriced: %s steps, the trace has %d' % (run, q.group(1), len(ranks[rank].steps)))
        elif rule == 'straggler-windows':
            rk = ranks[rank]
            tot = idle = 0
            ops = matched_ops(ranks)
            off = offsets(ranks, ops)
            wins = []
            for op in ops:
                arr = {r: k['ts'] - off[r] for r, k in op.items()}
                last = max(op, key=lambda r: (arr[r], -r))
                first = min(arr.values())
                # a window that made some rank wait (a kernel that ended before the last arrival did not)
                waited = any(r != last and k['ts'] + k['dur'] - off[r] > arr[last] and arr[r] < arr[last]
                             for r, k in op.items())
                if last != rank or not waited:
                    continue
                wins.append([first + off[rank], op[rank]['ts']])  # on the straggler's clock
            for lo, hi in union(wins):  # overlapping windows counted once
                tot += hi - lo
                idle += (hi - lo) - covered(rk.busy, lo, hi)
            m = re.search(r'its GPU was idle (\d+) %', text)
            if not tot or not m or abs(100 * idle / tot - int(m.group(1))) > 2:
                bad.append('%s straggler-windows: %s; expected idle %.1f %%' % (run, text, 100 * idle / max(tot, 1)))
        elif rule == 'comm-skew':
            # the share of each step inside NCCL kernels, mean over steps, per rank
            share = {}
            for r, rk in ranks.items():
                u = union([[g['ts'], g['ts'] + g['dur']] for g in rk.gpu if 'nccl' in g['name'].lower()])
                w = rk.whole_steps()  # pooled over whole steps
                share[r] = sum(covered(u, s, e) for s, e in w) / sum(e - s for s, e in w)
            least = min(share, key=share.get)
            named = {int(m.group(1)): int(m.group(2)) for m in re.finditer(r'(\d+) \((\d+) %\)', text)}
            if least != rank or max(share.values()) - share[least] < 0.2 or any(
                    abs(100 * share[r] - p) > 1 for r, p in named.items()):
                bad.append('%s comm-skew: %s; expected shares %s' % (
                    run, text, {r: round(100 * v, 1) for r, v in share.items()}))
        elif rule == 'host-bound':
            rk = ranks[rank]
            idle, hw = rk.idle_share(), rk.host_wait_share()
            m = re.search(r'its GPU is idle (\d+) % of the step', text)
            if not m or abs(100 * idle - int(m.group(1))) > 1 or idle < 0.2 or hw < 0.5:
                bad.append('%s host-bound rank %d: %s; expected idle %.1f %%, host wait %.1f %% of it'
                           % (run, rank, text, 100 * idle, 100 * hw))
            # A critical path all host time never leaves the step's thread (a GPU segment would be
            # no host time), so its time outside every operator is that thread's (issue #57: a
            # time.sleep called "host operators"); said apart where it is 1 % or more.
            o = re.search(r"(\d+) % of the step's critical path is (?:host operators and kernel launches|host time: "
                          r"(\d+) % in host operators and kernel launches, (\d+) % outside every operator|host time "
                          r"(outside every operator))", text)
            if o and int(o.group(1)) == 100:
                out = rk.outside_share()
                said = int(o.group(3)) if o.group(3) else 100 if o.group(4) else 0
                if abs(100 * out - said) > 1 or (o.group(2) and abs(100 - 100 * out - int(o.group(2))) > 1):
                    bad.append('%s host-bound rank %d: %s; expected %.1f %% of the step outside every operator'
                               % (run, rank, text, 100 * out))
        elif rule == 'cause':
            text, _, hide = text.partition('; its GPU also spends ')
            if hide:
                # the region in words: "in <phase>", or "outside every phase" (straggler_causes.csv's
                # "(outside phases)", issue #57), whose GPU time causes_check.py recomputes
                h = re.match(r'([0-9.]+) ms more per step (?:in (\S+?)|outside every phase)(?:, ([0-9.]+) ms of it in '
                             r'kernel (.*) \((\d+) calls(, run only on rank \d+)?(?: vs \d+)?\))?, which likely hides '
                             r'behind its host-bound step: its GPU is idle (\d+) % of the step', hide)
                if h and not h.group(2):
                    idle = ranks[rank].idle_share()
                    if abs(100 * idle - int(h.group(7))) > 1 or idle < 0.2:
                        bad.append('%s cause: %s; expected idle %.1f %%' % (run, hide, 100 * idle))
                elif not h:
                    bad.append('%s cause: cannot read the hidden GPU work in %s' % (run, hide))
                else:
                    t = {r: region_times(rk, h.group(2)) for r, rk in ranks.items()}
                    ex = (t[rank][1] - statistics.median(t[r][1] for r in t if r != rank)) / 1000
                    idle = ranks[rank].idle_share()
                    if abs(float(h.group(1)) - ex) > 0.051 or abs(100 * idle - int(h.group(7))) > 1 or idle < 0.2:
                        bad.append('%s cause: %s; expected GPU excess %.2f ms, idle %.1f %%' % (run, hide, ex, 100 * idle))
                    if h.group(4):
                        name = h.group(4)
                        kex = (t[rank][2].get(name, 0) - statistics.median(t[r][2].get(name, 0) for r in t if r != rank)) / 1000
                        only = all(name not in t[r][2] for r in t if r != rank)
                        if abs(float(h.group(3)) - kex) > 0.051 or bool(h.group(6)) != only:
                            bad.append('%s cause: %s; expected kernel %.2f ms, only here %s' % (run, hide, kex, only))
            # the region: "in <phase>", or "outside every phase" for straggler_causes.csv's "(outside phases)"
            m = re.search(r'rank (\d+): .*?It spends ([0-9.]+) ms more per step than the median rank on its '
                          r'(host|GPU) (?:in )?(.+?) \(([0-9.]+) vs ([0-9.]+) ms\)', text)
            if not m or int(m.group(1)) != rank:
                bad.append('%s cause: cannot read %s' % (run, text))
                continue
            side = 1 if m.group(3) == 'GPU' else 0
            if m.group(4) == 'outside every phase':
                # host time outside every phase and operator: the row causes_check.py recomputes
                continue
            t = {r: region_times(rk, m.group(4)) for r, rk in ranks.items()}
            mine = t[rank][side] / 1000
            med = statistics.median(t[r][side] for r in t if r != rank) / 1000
            if any(abs(float(m.group(i)) - v) > 0.051 for i, v in ((2, mine - med), (5, mine), (6, med))):
                bad.append('%s cause: %s; expected %.2f vs %.2f ms' % (run, text, mine, med))
            # the rank's excess summed over the phases on that side (positive ones), where the finding gives it
            a = re.search(r'over all its regions its (host|GPU) spends ([0-9.]+) ms more per step', text)
            if a:
                tot = 0.0
                for reg in PHASES:
                    tr = {r: region_times(rk, reg) for r, rk in ranks.items()}
                    ex = (tr[rank][side] - statistics.median(tr[r][side] for r in tr if r != rank)) / 1000
                    tot += max(ex, 0.0)
                if abs(float(a.group(2)) - tot) > 0.051:
                    bad.append('%s cause: %s; expected %.2f ms over all regions' % (run, text, tot))
            # "so the others wait" only where the named region's excess is at least half the largest exposed wait
            so = re.search(r', so the other ranks? waits? for it (?:([0-9.]+)-)?([0-9.]+) ms per step', text)
            if so and float(m.group(2)) < 0.5 * float(so.group(2)) - 0.051:
                bad.append('%s cause: %s; says "so" for an excess under half the wait' % (run, text))
            k = re.search(r', ([0-9.]+) ms of it in kernel (.*) \((\d+) calls(, run only on rank \d+)?', text)
            if k:
                name = k.group(2)
                ex = (t[rank][2].get(name, 0) - statistics.median(t[r][2].get(name, 0) for r in t if r != rank)) / 1000
                only = all(name not in t[r][2] for r in t if r != rank)
                if abs(float(k.group(1)) - ex) > 0.051 or bool(k.group(4)) != only:
                    bad.append('%s cause: %s; expected kernel %.2f ms, only here %s' % (run, text, ex, only))
        elif rule == 'op-roofline':
            err = roofline(ranks[rank], text)
            if err:
                bad.append('%s op-roofline: %s; %s' % (run, text, err))
        else:
            bad.append('%s: no check for rule %s' % (run, rule))
    for b in bad:
        print('findings_check: ' + b, file=sys.stderr)
    print('findings_check: %d findings, %d disagree' % (len(findings), len(bad)))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
