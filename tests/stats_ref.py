#!/usr/bin/env python3
"""stats_ref.py: step_stats.csv and step_compare.csv computed again in plain
Python (no scipy), from the raw Kineto traces, to check perfstudy's
src/analyze/lib/stats.c on the same numbers.

    stats_ref.py stats RUN=TRACE[,TRACE...] ...   rows of step_stats.csv
    stats_ref.py compare A=TRACES B=TRACES        one row of step_compare.csv
                                                  (the GPU-side periods where
                                                  either loop is asynchronous)

A step is a ProfilerStep#N event of category user_annotation (host side);
a run's sample holds one value per N, its slowest rank's. Its GPU side
(gpu_periods_ns): the period from the end of the GPU work step N-1
launched to the end of step N's, per N the longest over the ranks.
The median's interval is the order-statistic one with exact binomial
probabilities (fractions, not floating point); the Mann-Whitney p-value is
exact by enumerating the rank sums when there are no ties and at most 100
values, else the normal approximation with tie correction and continuity
correction 1/2. See stats.h for the definitions.
"""
import gzip
import json
import math
import sys
from fractions import Fraction


def steps_ns(paths):
    """One value per ProfilerStep#N: the longest of the ranks' (paths') steps of that N."""
    out = {}
    for p in paths:
        op = gzip.open if p.endswith(".gz") else open
        with op(p, "rt") as f:
            doc = json.load(f)
        for e in doc["traceEvents"]:
            if (e.get("ph") == "X" and e.get("cat") == "user_annotation"
                    and e.get("name", "").startswith("ProfilerStep#")):
                n = e["name"][len("ProfilerStep#"):]
                out[n] = max(out.get(n, 0), round(float(e["dur"]) * 1000))
    return list(out.values())


def gpu_periods_ns(paths, ahead=None):
    """The GPU side of the steps: per trace, per ProfilerStep#N, the end of the
    last kernel, memcpy or memset launched (same correlation) by a runtime or
    driver call inside it; step N's period that end minus step N-1's; per N
    the longest over the traces."""
    out = {}
    for p in paths:
        op = gzip.open if p.endswith(".gz") else open
        with op(p, "rt") as f:
            ev = [e for e in json.load(f)["traceEvents"] if e.get("ph") == "X"]
        steps = [(float(e["ts"]), float(e["ts"]) + float(e["dur"]), int(e["name"][len("ProfilerStep#"):])) for e in ev
                 if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")]
        launch = {e["args"]["correlation"]: float(e["ts"]) for e in ev
                  if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
        last = {}
        for e in ev:
            if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
                continue
            t = launch.get(e.get("args", {}).get("correlation"))
            for a, b, n in steps:
                if t is not None and a <= t < b:
                    last[n] = max(last.get(n, 0), round((float(e["ts"]) + float(e["dur"])) * 1000))
        if ahead is not None:  # [steps with GPU work, those whose work ends after the host range]
            for a, b, n in steps:
                if n in last:
                    ahead[0] += 1
                    ahead[1] += last[n] > round(b * 1000)
        for n in last:
            if n - 1 in last and last[n] > last[n - 1]:
                out[n] = max(out.get(n, 0), last[n] - last[n - 1])
    return list(out.values())


def us(ns):
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%03d" % (sign, ns // 1000, ns % 1000)


def median(v):
    s = sorted(v)
    n = len(s)
    t = s[(n - 1) // 2] + s[n // 2]
    return (t + 1) // 2  # halves up


def median_ci(v):
    """[x(l), x(n+1-l)] with l the largest such that 2 P(B <= l-1) <= 0.05."""
    s = sorted(v)
    n = len(s)
    total = 2 ** n
    l, cdf, cdf_l = 0, Fraction(0), Fraction(0)
    for k in range((n + 1) // 2):
        cdf += Fraction(math.comb(n, k), total)
        if 2 * cdf > Fraction(5, 100):
            break
        l, cdf_l = k + 1, cdf
    if l == 0:
        l, cdf_l = 1, Fraction(1, total)
    return s[l - 1], s[n - l], float(1 - 2 * cdf_l)


def mann_whitney(a, b):
    """U of b (pairs with b > a, ties 1/2), two-sided p, and the method."""
    u = sum(1.0 if y > x else 0.5 if y == x else 0.0 for x in a for y in b)
    n, m = len(a), len(b)
    N = n + m
    values = sorted(a + b)
    ties = sum(values.count(x) ** 3 - values.count(x) for x in set(values))
    if ties == 0 and N <= 100:
        # The number of m-subsets of ranks 1..N with each rank sum.
        count = {(0, 0): 1}
        for r in range(1, N + 1):
            for (k, s), c in list(count.items()):
                if k < m:
                    count[(k + 1, s + r)] = count.get((k + 1, s + r), 0) + c
        w = u + m * (m + 1) / 2
        sums = {s: c for (k, s), c in count.items() if k == m}
        total = sum(sums.values())
        le = Fraction(sum(c for s, c in sums.items() if s <= w), total)
        ge = Fraction(sum(c for s, c in sums.items() if s >= w), total)
        return u, min(1.0, float(2 * min(le, ge))), "exact"
    var = n * m / 12 * ((N + 1) - ties / (N * (N - 1)))
    if var <= 0:
        return u, 1.0, "normal"
    z = max(0.0, abs(u - n * m / 2) - 0.5) / math.sqrt(var)
    return u, min(1.0, math.erfc(z / math.sqrt(2))), "normal"


def g6(x):
    return "%.6g" % x


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    runs = [(a.split("=", 1)[0], a.split("=", 1)[1].split(",")) for a in args]
    if mode == "stats":
        print("run,ranks,steps,median_us,ci_low_us,ci_high_us,ci_level,min_us,max_us,mean_us,gpu_periods,"
              "gpu_period_median_us")
        for run, paths in runs:
            v = steps_ns(paths)
            lo, hi, level = median_ci(v)
            mean = math.floor(Fraction(sum(v), len(v)) + Fraction(1, 2))
            print(",".join([run, str(len(paths)), str(len(v)), us(median(v)), us(lo), us(hi), "%.6f" % level,
                            us(min(v)), us(max(v)), us(mean)] +
                           ([str(len(g)), us(median(g))] if (g := gpu_periods_ns(paths)) else ["", ""])))
    else:
        (ra, pa), (rb, pb) = runs
        a, b = steps_ns(pa), steps_ns(pb)
        # an asynchronous loop (host step under 0.8 of the GPU-side period): both runs' periods compared
        # (the host runs ahead: most steps' GPU work ends after their host range)
        ka, kb = [0, 0], [0, 0]
        ga, gb = gpu_periods_ns(pa, ka), gpu_periods_ns(pb, kb)
        gpu = bool(ga and gb) and any(2 * k[1] > k[0] and median(h) < Fraction(4, 5) * median(g)
                                      for h, g, k in ((a, ga, ka), (b, gb, kb)))
        if gpu:
            a, b = ga, gb
        u, p, method = mann_whitney(a, b)
        ma, mb = median(a), median(b)
        # no ordering of so few steps reaches p < 0.05: the smallest exact p is 2 / C(n + m, n)
        verdict = ("change" if p < 0.05 else
                   "too few steps" if 2 / math.comb(len(a) + len(b), len(a)) >= 0.05 else "within noise")
        print(",".join([ra, rb, str(len(a)), str(len(b)), us(ma), us(mb), g6(mb / ma), g6(u), g6(p), method,
                        verdict, "GPU periods" if gpu else "host steps"]))


if __name__ == "__main__":
    main()
