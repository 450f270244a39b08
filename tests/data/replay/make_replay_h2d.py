#!/usr/bin/env python3
"""make_replay_h2d.py: a tiny 1-GPU Kineto trace for t_replay_h2d.sh, whose
replay without its synchronisations is worked out by hand in that script:
a copy from pinned host memory to the device, issued while the GPU is
idle, ends just after its cudaMemcpyAsync returned, so that its end alone
cannot tell whether the call waited for it (CUDA runs such a copy
asynchronously: it did not).

Usage: make_replay_h2d.py OUTDIR   (writes OUTDIR/h2d/rank0.json)

Two profiled steps, ProfilerStep#k at o = (k - 1) x 35000 us; on host
thread 1 (all times us, relative to o):
  o+0      cudaLaunchKernel (10)   -> gemm_k1 on stream 7, o+20 .. o+10020
  o+10     cudaDeviceSynchronize, until gemm_k1's end + 10 (o+10030)
  o+10030  cudaMemcpyAsync (30)    -> Memcpy HtoD (Pinned -> Device) on
                                      stream 7, o+10065 .. o+10068
  o+10060  aten::mul, 8000 of host work
  o+18060  cudaLaunchKernel (10)   -> gemm_k2 on stream 7, o+18080 .. o+28080
  o+18070  cudaDeviceSynchronize, until gemm_k2's end + 10 (o+28090)
  then, in step 1, an 'aten::add' covering the host up to the next step.
Python 3 standard library only.
"""
import json, os, sys

PERIOD = 35000


def trace():
    ev, corr = [], 0
    for k in (1, 2):
        o = (k - 1) * PERIOD
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": PERIOD - 1})

        def call(name, ts, dur, cat="cuda_runtime"):
            nonlocal corr
            corr += 1
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": o + ts, "dur": dur,
                       "args": {"correlation": corr}})
            return corr

        def gpu(cat, name, ts, dur, c, extra=None):
            args = {"device": 0, "stream": 7, "correlation": c}
            args.update(extra or {})
            ev.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": 7, "ts": o + ts, "dur": dur,
                       "args": args})

        gpu("kernel", "gemm_k1", 20, 10000, call("cudaLaunchKernel", 0, 10))
        call("cudaDeviceSynchronize", 10, 10020)
        gpu("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 10065, 3, call("cudaMemcpyAsync", 10030, 30),
            {"bytes": 49152, "memory bandwidth (GB/s)": 16.4})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mul", "pid": 1, "tid": 1, "ts": o + 10060,
                   "dur": 8000})
        gpu("kernel", "gemm_k2", 18080, 10000, call("cudaLaunchKernel", 18060, 10))
        call("cudaDeviceSynchronize", 18070, 10020)
        if k == 1:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": o + 28090,
                       "dur": PERIOD - 28090})
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}


out = os.path.join(sys.argv[1], "h2d")
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "rank0.json"), "w") as f:
    json.dump(trace(), f, indent=0)
