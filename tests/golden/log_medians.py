#!/usr/bin/env python3
"""log_medians.py LOG [LOG...]: independent reference for step times taken
from a training log (Megatron training_log lines, as the generators in
experiments/*/record.sh write them), computed without perfstudy.

For each log it prints the median iteration time of the unprofiled
iterations and of the profiled ones, and their ratio (the profiler's
overhead). The generators profile with schedule(wait=2, warmup=2, active=3),
so iterations 3-4 run under the profiler's warm-up, 5-7 are the profiled
(active) steps and 8 pays for the trace's export; 1-2 hold start-up
(compilation, allocator, autotuning). Unprofiled = iteration 9 to the end.
With two logs it also prints the relative change of the second's unprofiled
median over the first's and the distribution-free 95 % interval of each
median (order statistics of the binomial(n, 1/2), as in pyperf/asv)."""
import math, re, sys

PAT = re.compile(r"iteration\s+(\d+)/\s*\d+ .*?elapsed time per iteration \(ms\): ([0-9.]+)")


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


def summary(path):
    it = iters(path)
    unprof = [v for k, v in it.items() if k >= 9]
    prof = [it[k] for k in (5, 6, 7) if k in it]
    return it, unprof, prof


def main():
    runs = [summary(p) for p in sys.argv[1:]]
    for p, (it, u, pr) in zip(sys.argv[1:], runs):
        lo, hi = median_ci(u)
        print(f"{p}: iterations {len(it)}, unprofiled n={len(u)} median {median(u):.2f} ms "
              f"95% [{lo:.1f}, {hi:.1f}]; profiled n={len(pr)} median {median(pr):.2f} ms; "
              f"overhead x{median(pr) / median(u):.4f}")
    if len(runs) == 2:
        a, b = median(runs[0][1]), median(runs[1][1])
        print(f"change {100 * (b - a) / a:+.2f} %")


if __name__ == "__main__":
    main()
