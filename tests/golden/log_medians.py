#!/usr/bin/env python3
"""log_medians.py [--steps LO:HI] LOG [LOG...]: independent reference for step times taken
from a training log (Megatron training_log lines, as the generators in
experiments/*/record.sh write them), computed without perfstudy.

For each log it prints the median iteration time of the unprofiled
iterations and of the profiled ones, and their ratio (the profiler's
overhead). Which iterations ran under the profiler comes from the run's
traces, the trace files beside the log (*.json, *.json.gz in its
directory), as src/analyze/lib/profiled.h defines it, written again here:
torch.profiler counts steps from 0 and the log iterations from 1, so
ProfilerStep#N is iteration N + 1; with lo and hi the smallest and largest
N of any ProfilerStep#N in those traces, the profiled iterations are
lo + 1 .. hi + 1, and the unprofiled ones are those from the third on
(1-2 hold start-up: compilation, allocator, autotuning) outside
lo - 1 .. hi + 2 (the two warm-up iterations before, which the profiler
already slows, and the one after, which pays for the trace's export).
A log kept without its traces takes lo and hi from --steps LO:HI (what a
manifest's profiler_steps says, worked out from the recording's
torch.profiler schedule); without traces and --steps no iteration is
profiled and every one from the third on is unprofiled. Only iterations with a positive time
count. schedule(wait=2, warmup=2, active=3) gives ProfilerStep#4..6:
profiled 5-7, unprofiled 9 to the end; --active 2 gives #4..5: profiled
5-6, unprofiled 8 on.
With two logs it also prints the relative change of the second's unprofiled
median over the first's and the distribution-free 95 % interval of each
median (order statistics of the binomial(n, 1/2), as in pyperf/asv)."""
import glob, gzip, math, os, re, sys

PAT = re.compile(r"iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)")
STEP = re.compile(rb'"ProfilerStep#(\d+)"')


def iters(path):
    out = {}
    for line in open(path):
        m = PAT.search(line)
        if m:
            out[int(m.group(1))] = float(m.group(2))
    return out


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def median_ci(xs, conf=0.95):
    """Smallest symmetric pair of order statistics (j, n-1-j) whose binomial
    coverage of the median is at least conf."""
    s = sorted(xs)
    n = len(s)
    best = (s[0], s[-1])
    for j in range(n // 2):
        cover = sum(math.comb(n, k) for k in range(j + 1, n - j)) / 2 ** n
        if cover >= conf:
            best = (s[j], s[n - 1 - j])
        else:
            break
    return best


def profiler_steps(log):
    """(lo, hi): the smallest and largest N of ProfilerStep#N in the traces beside log, or None."""
    ns = set()
    d = os.path.dirname(log) or "."
    for f in sorted(glob.glob(os.path.join(d, "*.json")) + glob.glob(os.path.join(d, "*.json.gz"))):
        data = gzip.open(f).read() if f.endswith(".gz") else open(f, "rb").read()
        ns.update(int(m.group(1)) for m in STEP.finditer(data))
    return (min(ns), max(ns)) if ns else None


def summary(path, given=None):
    it = iters(path)
    steps = profiler_steps(path) or given
    if steps:
        lo, hi = steps
        prof = [v for k, v in sorted(it.items()) if lo + 1 <= k <= hi + 1 and v > 0]
        unprof = [v for k, v in it.items() if k >= 3 and not lo - 1 <= k <= hi + 2 and v > 0]
    else:
        prof = []
        unprof = [v for k, v in it.items() if k >= 3 and v > 0]
    return it, unprof, prof


def main():
    args, given = sys.argv[1:], None
    if args[:1] == ["--steps"]:
        lo, hi = args[1].split(":")
        given, args = (int(lo), int(hi)), args[2:]
    runs = [summary(p, given) for p in args]
    for p, (it, u, pr) in zip(args, runs):
        lo, hi = median_ci(u)
        prof = f"median {median(pr):.2f} ms; overhead x{median(pr) / median(u):.4f}" if pr else "none"
        print(f"{p}: iterations {len(it)}, unprofiled n={len(u)} median {median(u):.2f} ms "
              f"95% [{lo:.1f}, {hi:.1f}]; profiled n={len(pr)} {prof}")
    if len(runs) == 2:
        a, b = median(runs[0][1]), median(runs[1][1])
        print(f"change {100 * (b - a) / a:+.2f} %")


if __name__ == "__main__":
    main()
