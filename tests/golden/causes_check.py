#!/usr/bin/env python3
"""causes_check.py: an independent check of straggler_causes.csv against
the raw Kineto traces of one run (json and gzip only, none of perfstudy's
output but the rows under test).

Usage: causes_check.py RUN CSV TRACE...   (the run's traces, any order)

Per rank, from the JSON: the phases' host time (user annotations named
like the default phases; these traces nest phases only within the same
phase, so the union over threads of a phase's ranges is its time), the
outermost cpu_ops of each thread (the ones perfstudy stores) per (phase
holding their start, name) without calls nested in a call of the same
name on the same thread, and the GPU activities (kernel,
gpu_memcpy, gpu_memset; NCCL kernels left out) whose runtime call (same
correlation) starts in a phase, as a union per phase and summed per
(phase, name), and the host time outside operators: the ProfilerStep#
ranges' time that no cpu_op and no cuda_runtime or cuda_driver event
covers, split by the phases' host time, the rest outside phases (name
"(outside operators)", its own kind). Each divided by the rank's
ProfilerStep# count. For every
rank with rows in the CSV: excess = its value - the median of the other
ranks' (0 where a rank lacks the item), and the CSV's rows must be exactly
the top 10 positive ones of each kind, with the same numbers (within
0.01 us) and counts. Prints each rank's first rows; exits 1 on a difference.
"""
import csv
import gzip
import json
import re
import statistics
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from intervals import union, measure  # noqa: E402

PHASES = [
    ("get_train_batch", [r"get_train_batch", r"enumerate\(DataLoader\).*"]),
    ("forward", [r"forward", r"DistributedDataParallel\.forward"]),
    ("backward", [r"backward"]),
    ("optimizer_step", [r"optimizer_step", r"Optimizer\.step#.*"]),
]
OUT = "(outside phases)"
GAP = "(outside operators)"


def intersect(a, b):
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        s, e = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if s < e:
            out.append([s, e])
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def subtract(a, b):
    out = []
    for s, e in a:
        cur = s
        for bs, be in b:
            if be <= cur or bs >= e:
                continue
            if bs > cur:
                out.append([cur, bs])
            cur = max(cur, be)
        if cur < e:
            out.append([cur, e])
    return out


def phase_of_name(n):
    for p, pats in PHASES:
        if any(re.fullmatch(x, n) for x in pats):
            return p
    return None


def ns(us):
    return round(float(us) * 1000)


def profile(path):
    with gzip.open(path, "rt") as f:
        d = json.load(f)
    rank = d.get("distributedInfo", {}).get("rank", 0)
    ev = d["traceEvents"]
    ranges = {p: [] for p, _ in PHASES}
    nsteps = 0
    calls = {p: 0 for p, _ in PHASES}
    for e in ev:
        if e.get("cat") != "user_annotation":
            continue
        if e["name"].startswith("ProfilerStep#"):
            nsteps += 1
        p = phase_of_name(e["name"])
        if p:
            ranges[p].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), e.get("tid")))
    host = {}
    for p, rs in ranges.items():
        host[p] = union([(s, e) for s, e, _ in rs])
        # calls: ranges not enclosed by another of the same phase on the same thread
        for s, e, t in rs:
            if not any(t2 == t and s2 <= s and e <= e2 and (s2, e2) != (s, e) for s2, e2, t2 in rs):
                calls[p] += 1

    def phase_at(t):
        for p, _ in PHASES:
            for s, e in host[p]:
                if s <= t < e:
                    return p
        return OUT

    items = {}

    def put(key, v, c=1):
        a = items.setdefault(key, [0, 0])
        a[0] += v
        a[1] += c

    for p, _ in PHASES:
        put(("host", p, ""), sum(e - s for s, e in host[p]), calls[p])
    # host operators: the outermost of each thread (and enumerate(DataLoader)... at any depth, as
    # perfstudy's store keeps them), same-name nesting on a thread left out
    ops = sorted((e.get("tid"), ns(e["ts"]), -ns(e["dur"]), e["name"]) for e in ev if e.get("cat") == "cpu_op")
    outer, tid, end = [], None, None
    for t, s, negd, name in ops:
        if t != tid:
            tid, end = t, None
        if end is None or s - negd > end:
            end = s - negd
        elif not name.startswith("enumerate(DataLoader)"):
            continue
        outer.append((t, s, negd, name))
    stack, tid = [], None
    for t, s, negd, name in outer:
        if t != tid:
            stack, tid = [], t
        while stack and stack[-1][0] <= s:
            stack.pop()
        nested = any(n == name for _, n in stack)
        stack.append((s - negd, name))
        if not nested:
            put(("host", phase_at(s), name), -negd)
    # host time outside operators and CUDA calls, within the steps
    steps = union([(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
                   if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")])
    busy = union([(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])) for e in ev
                  if e.get("cat") in ("cpu_op", "cuda_runtime", "cuda_driver") and "dur" in e])
    gaps = subtract(steps, busy)
    left = measure(gaps)
    for p, _ in PHASES:
        m = measure(intersect(gaps, host[p]))
        if m > 0:
            put(("host", p, GAP), m)
            left -= m
    if left > 0:
        put(("host", OUT, GAP), left)
    launch = {}
    for e in ev:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            launch[e["args"]["correlation"]] = ns(e["ts"])
    gpu = {}
    for e in ev:
        if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        if e.get("cat") == "kernel" and "nccl" in e["name"].lower():
            continue
        c = e.get("args", {}).get("correlation")
        if c not in launch:
            continue
        p = phase_at(launch[c])
        s = ns(e["ts"])
        gpu.setdefault(p, []).append((s, s + ns(e["dur"])))
        put(("gpu", p, e["name"]), ns(e["dur"]))
    for p, iv in gpu.items():
        put(("gpu", p, ""), sum(e - s for s, e in union(iv)), len(iv))
    return rank, nsteps, items


def kind(key):
    return (key[0], key[2] == "", key[2] == GAP)


def main():
    run, csvpath = sys.argv[1], sys.argv[2]
    prof = {}
    for p in sys.argv[3:]:
        r, n, it = profile(p)
        prof[r] = (n, it)
    rows = [x for x in csv.DictReader(open(csvpath)) if x["run"] == run]
    bad = 0
    for s in sorted({int(x["rank"]) for x in rows}):
        n, mine = prof[s]
        want = []
        for key, (v, c) in mine.items():
            others = [prof[o][1].get(key, [0, 0]) for o in prof if o != s]
            med = statistics.median([x[0] / prof[o][0] for x, o in zip(others, [o for o in prof if o != s])])
            medc = statistics.median([x[1] for x in others])
            ex = v / n - med
            if ex > 0:
                want.append((key, ex, c, medc, v / n, med))
        top = []
        for k in {kind(w[0]) for w in want}:
            top += sorted((w for w in want if kind(w[0]) == k), key=lambda w: -w[1])[:10]
        got = {(x["where"], x["region"], x["name"]): x for x in rows if int(x["rank"]) == s}
        print(f"{run} rank {s}: {len(got)} rows in the CSV, {len(top)} recomputed")
        for key, ex, c, medc, mine_ps, med in sorted(top, key=lambda w: -w[1])[:3]:
            print(f"  {key[0]} {key[1]} {key[2][:60]!r}: excess {ex / 1000:.3f} us/step ({mine_ps / 1000:.3f} vs {med / 1000:.3f}), "
                  f"calls {c} vs {medc}")
        keys = {w[0] for w in top}
        for k in keys ^ set(got):
            # a tie at the 10th place may pick either row
            print(f"DIFF {run} rank {s}: {k} {'missing from the CSV' if k in keys else 'not recomputed'}")
            bad += 1
        for key, ex, c, medc, mine_ps, med in top:
            g = got.get(key)
            if not g:
                continue
            for name, want_v in (("excess_us_per_step", ex), ("us_per_step", mine_ps), ("other_us_per_step", med)):
                if abs(float(g[name]) - want_v / 1000) > 0.01:
                    print(f"DIFF {run} rank {s} {key}: {name} {g[name]} vs {want_v / 1000:.3f}")
                    bad += 1
            if int(g["calls"]) != c or abs(float(g["other_calls"]) - medc) > 1e-9:
                print(f"DIFF {run} rank {s} {key}: calls {g['calls']}/{g['other_calls']} vs {c}/{medc}")
                bad += 1
    print(f"{run}: {bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
