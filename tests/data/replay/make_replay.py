#!/usr/bin/env python3
"""make_replay.py: two tiny 1-GPU Kineto traces for t_replay.sh, whose
replayed steps and savings are worked out by hand in that script.

Usage: make_replay.py OUTDIR

Each trace holds two profiled steps (ProfilerStep#1 at 0 us, #2 at 36000
us in 'shown', 26000 us in 'hidden'); in each step, on host thread 1, at
o = the step's start (all times us):
  o+0      cudaLaunchKernel (10)  -> kernel K1 on stream 7, o+20 .. o+20020
           a sleep of S us: no operator covers it (S = 30000 'shown', 15000 'hidden')
  o+S+10   cudaLaunchKernel (10)  -> kernel K2, 5000 long, from o+S+30 ('shown': 10 us
                                     after its launch returned) or o+20020 ('hidden': when K1 ends)
  o+S+20   cudaDeviceSynchronize, until K2's end + 10
  then     a cpu_op 'aten::add' covering the time up to the next step.
The last step ends with its synchronize.  Python 3 standard library only.
"""
import json, os, sys

def trace(sleep, period):
    ev, corr = [], 0
    for k in (1, 2):
        o = (k - 1) * period
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": period - 1})
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": o, "dur": 10, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_k1", "pid": 0, "tid": 7, "ts": o + 20,
                   "dur": 20000, "args": {"device": 0, "stream": 7, "correlation": corr}})
        corr += 1
        l2 = o + sleep + 10
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": l2, "dur": 10, "args": {"correlation": corr}})
        k2 = l2 + 20 if sleep > 20000 else o + 20020  # shown: after its launch; hidden: after K1
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_k2", "pid": 0, "tid": 7, "ts": k2,
                   "dur": 5000, "args": {"device": 0, "stream": 7, "correlation": corr}})
        sync_end = k2 + 5000 + 10
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                   "ts": l2 + 10, "dur": sync_end - (l2 + 10), "args": {"correlation": corr + 1000}})
        if k == 1:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                       "ts": sync_end, "dur": o + period - sync_end})
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}

out = sys.argv[1]
for name, sleep, period in (("shown", 30000, 36000), ("hidden", 15000, 26000)):
    os.makedirs(os.path.join(out, name), exist_ok=True)
    with open(os.path.join(out, name, "rank0.json"), "w") as f:
        json.dump(trace(sleep, period), f, indent=0)
