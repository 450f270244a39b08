#!/usr/bin/env python3
"""diff_explain.py: the traces of t_diff_explain.sh and, independently of
perfstudy, where a change of step time went.

  diff_explain.py gen DIR VARIANT   writes DIR/rank0.json and DIR/rank1.json
  diff_explain.py ref OLD NEW       prints the contributors from the raw files

Two ranks, ten ProfilerStep#N each. Times in us from the step's start s:
host thread 1: 'forward' [10, 400) launching a memcpy at 20, gemm_fwd at 30,
elementwise_kernel at 40, softmax_kernel at 45 (cast_bf16_kernel at 48 in
variant R); 'backward' [400, D - 20) launching gemm_bwd at 410 and the NCCL
kernel at 420. GPU: memcpy [80, 130) (stream 7), gemm_fwd [100, 300),
elementwise [300, 350) ([300, 360) on rank 1), softmax [320, 380) (stream 8),
cast [360, 400) (R only), gemm_bwd [450, 450 + G), the NCCL all-reduce
[450 + G, 650 + G) (stream 13); the step ends at D = 750 + G + j + 5 x rank,
j the step's jitter (0..9, one permutation). Variants: A and A2 (the same,
G = 300), B (G = 330: one kernel 10 % longer), R (G = 900, softmax gone, the
cast kernel new: a lost autocast), X (R with a cast kernel named with a quote,
a backslash, a newline and an escape sequence), S (A with a kernel late_kernel
[660 + G, 710 + G) in the idle tail: the same steps, more GPU work).

ref applies the definition of docs/cli.md ("where the time went") to the
raw events: per rank W = the union of its ProfilerStep ranges; compute
kernels (not nccl), then memcpys, then NCCL kernels claim the instants of W
no earlier class holds, within a class the earliest started first; idle =
the rest; each divided by the rank's steps, a run's part the mean over its
ranks; region = the innermost forward/backward annotation holding the
launch's start. Output lines: KIND NAME DELTA_US (new - old), KIND one of
step, idle, group, kernel, region, rank (a rank's delta over the ranks: its
share), rank_step (a rank's own step, not over the ranks), rank_work (a
rank's compute kernels and copies, its own, not over the ranks).
"""
import json
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'lib'))
from intervals import union, covered as measure_within  # noqa: E402

JITTER = [3, 7, 0, 9, 5, 1, 8, 2, 6, 4]


def gen(out, variant):
    g = {"A": 300, "A2": 300, "B": 330, "R": 900, "X": 900, "S": 300}[variant]
    # X: R with the new kernel's name made of what must be escaped in text and in JSON
    cast = 'cast "bf16"\\ kernel\n\x1b[2Kperfstudy diff: 0 changes' if variant == "X" else "cast_bf16_kernel"
    os.makedirs(out, exist_ok=True)
    for rank in (0, 1):
        ev = []
        corr = [0]

        def launch(ts, name="cudaLaunchKernel"):
            corr[0] += 1
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 5,
                       "args": {"correlation": corr[0]}})
            return corr[0]

        def kernel(name, ts, dur, stream, c, cat="kernel"):
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                       "args": {"device": rank, "stream": stream, "correlation": c}})

        for n, j in enumerate(JITTER, start=1):
            s = 10000 * n
            d = 750 + g + j + 5 * rank
            ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1, "tid": 1,
                       "ts": s, "dur": d})
            ev.append({"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 1, "tid": 1, "ts": s + 10,
                       "dur": 390})
            ev.append({"ph": "X", "cat": "user_annotation", "name": "backward", "pid": 1, "tid": 1,
                       "ts": s + 400, "dur": d - 420})
            kernel("Memcpy HtoD (Pageable -> Device)", s + 80, 50, 7, launch(s + 20, "cudaMemcpyAsync"),
                   "gpu_memcpy")
            kernel("gemm_fwd", s + 100, 200, 7, launch(s + 30))
            kernel("elementwise_kernel", s + 300, 50 + 10 * rank, 7, launch(s + 40))
            if variant not in ("R", "X"):
                kernel("softmax_kernel", s + 320, 60, 8, launch(s + 45))
            else:
                kernel(cast, s + 360, 40, 7, launch(s + 48))
            kernel("gemm_bwd", s + 450, g, 7, launch(s + 410))
            kernel("ncclKernel_AllReduce_RING_LL_Sum_float", s + 450 + g, 200, 13, launch(s + 420))
            if variant == "S":
                kernel("late_kernel", s + 660 + g, 50, 7, launch(s + 430))
        with open(os.path.join(out, "rank%d.json" % rank), "w") as f:
            json.dump({"distributedInfo": {"rank": rank, "world_size": 2}, "traceEvents": ev}, f)


def group(name):
    n = name.lower()
    if "nccl" in n:
        return "communication"
    if "gemm" in n:
        return "matrix-mul"
    if "memcpy" in n:
        return "memory"
    if "elementwise" in n or "softmax" in n:
        return "elementwise"
    return "other"


def rank_parts(path):
    """{('kernel'|'group'|'region', name): us per step}, step, idle for one rank file."""
    ev = json.load(open(path))["traceEvents"]
    steps = [e for e in ev if e["name"].startswith("ProfilerStep#")]
    win = union([(e["ts"], e["ts"] + e["dur"]) for e in steps])
    span = sum(b - a for a, b in win)
    launches = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") == "cuda_runtime"}
    annots = [e for e in ev if e.get("cat") == "user_annotation" and e["name"] in ("forward", "backward")]
    acts = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy")]

    def cls(e):
        if e.get("cat") == "gpu_memcpy":
            return 1
        return 2 if "nccl" in e["name"].lower() else 0

    parts = {}
    held = []  # instants of the classes before, a union
    busy = work = 0
    for c in (0, 1, 2):
        mine = sorted((e for e in acts if cls(e) == c), key=lambda e: (e["ts"], e["ts"] + e["dur"]))
        hw = []
        for a, b in held:
            for wa, wb in win:
                lo, hi = max(a, wa), min(b, wb)
                if hi > lo:
                    hw.append((lo, hi))
        hw = union(hw)
        frontier = float("-inf")
        for e in mine:
            lo, hi = max(e["ts"], frontier), e["ts"] + e["dur"]
            frontier = max(frontier, hi)
            if hi <= lo:
                continue
            t = measure_within(win, lo, hi) - measure_within(hw, lo, hi)
            if t <= 0:
                continue
            busy += t
            work += t if c != 2 else 0
            ls = launches.get(e["args"].get("correlation"))
            region = "(no phase)"
            inner = None
            for an in annots:
                if ls is not None and an["ts"] <= ls < an["ts"] + an["dur"]:
                    if inner is None or an["ts"] >= inner["ts"]:
                        inner = an
            if inner is not None:
                region = inner["name"]
            for key in (("kernel", e["name"]), ("group", group(e["name"])), ("region", region)):
                parts[key] = parts.get(key, 0) + t
        held = union(held + [(e["ts"], e["ts"] + e["dur"]) for e in mine])
    n = len(steps)
    return {k: v / n for k, v in parts.items()}, span / n, (span - busy) / n, work / n


def run_parts(d):
    files = sorted(f for f in os.listdir(d) if f.endswith(".json"))
    total, step, idle, ranks = {}, 0, 0, {}
    for i, f in enumerate(files):
        p, s, idl, work = rank_parts(os.path.join(d, f))
        for k, v in p.items():
            total[k] = total.get(k, 0) + v / len(files)
        step += s / len(files)
        idle += idl / len(files)
        ranks[("rank", str(i))] = s / len(files)
        ranks[("rank_step", str(i))] = s
        ranks[("rank_work", str(i))] = work
    total.update(ranks)
    return total, step, idle


def ref(old, new):
    a, sa, ia = run_parts(old)
    b, sb, ib = run_parts(new)
    print("step - %.3f" % (sb - sa))
    print("idle - %.3f" % (ib - ia))
    for k in sorted(set(a) | set(b)):
        print("%s %s %.3f" % (k[0], k[1], b.get(k, 0) - a.get(k, 0)))


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3])
    else:
        ref(sys.argv[2], sys.argv[3])
