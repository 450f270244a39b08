#!/usr/bin/env python3
"""make_whatif.py: tiny Kineto traces for t_whatif.sh, whose steps under
`perfstudy whatif` changes are worked out by hand in that script.

Usage: make_whatif.py OUTDIR

All times in us, one host thread (tid 1), one stream (7), no training log.
  gpu/rank0.json      a GPU-bound run of two steps: the host launches each
                      step's three kernels in 50 us, the GPU runs them back
                      to back: nvjet_gemm 4000, ncclDevKernel_AllReduce
                      3000, elementwise_kernel 2000 (step 1 from 20, step 2
                      from 9020); a cudaDeviceSynchronize ends the last step
                      10 us after its last kernel.
  pair/rank{0,1}.json the same two steps on two ranks, but rank 1's
                      nvjet_gemm takes 6000: rank 0's all-reduce starts at
                      its own time and ends with rank 1's, 3000 after rank
                      1's start (the collective waits for the last rank).
  split/rank{0,1}.json two ranks whose collectives do not match (replayed
                      alone): rank 0 as gpu, rank 1 with a 6000 us
                      nvjet_gemm and a 3000 us copy_kernel in place of the
                      all-reduce.
  loader/rank0.json   a host-bound run of two steps: an 8000 us
                      enumerate(DataLoader) range, then one launch of a
                      2000 us kernel and a cudaDeviceSynchronize, then
                      aten::add up to the next step (period 12000).
  nosteps/rank0.json  one kernel and its launch, no ProfilerStep range.
  roof/rank0.json     gpu on an H100 SXM, each nvjet_gemm launched inside
                      an aten::mm of [8192, 8192] x [8192, 8192] bf16
                      (shapes recorded): roofline:OP=F's input.
Python 3 standard library only.
"""
import json, os, sys

def X(cat, name, ts, dur, **kw):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": dur}
    e.update(kw)
    return e

def kernel(name, ts, dur, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": {"device": 0, "stream": 7, "correlation": corr}}

def launch(ts, corr, name="cudaLaunchKernel", dur=10):
    return X("cuda_runtime", name, ts, dur, args={"correlation": corr})

def gpu_bound(gemm, two, comm=True):
    """Two steps of three kernels; gemm: the nvjet kernel's duration. With two ranks (two),
    each all-reduce ends 3000 us after the slower rank's (gemm 6000) starts it; without comm,
    the middle kernel is a 3000 us copy_kernel instead of the all-reduce."""
    ev, corr, gpu = [], 0, 20
    for k in (1, 2):
        o = (k - 1) * 1000
        if k == 1:
            ev.append(X("user_annotation", "ProfilerStep#1", 0, 999))
        kinds = [("nvjet_gemm_bf16", gemm),
                 ("ncclDevKernel_AllReduce_Sum_bf16_RING_LL" if comm else "copy_kernel", None),
                 ("elementwise_kernel", 2000)]
        for i, (name, dur) in enumerate(kinds):
            corr += 1
            ev.append(launch(o + 20 * i, corr))
            if dur is None:
                # the collective: its transfer (3000) starts when the slower rank reaches it
                slow = gpu + (6000 - gemm if two else 0)
                dur = slow + 3000 - gpu
            ev.append(kernel(name, gpu, dur, corr))
            gpu += dur
        if k == 1:
            ev.append(X("cpu_op", "aten::add", 50, 950))
    ev.append(X("cuda_runtime", "cudaDeviceSynchronize", 1060, gpu + 10 - 1060, args={"correlation": 9999}))
    ev.append(X("user_annotation", "ProfilerStep#2", 1000, gpu + 20 - 1000))
    return ev

def trace(ev, rank=0, world=1):
    return {"distributedInfo": {"rank": rank, "world_size": world}, "traceEvents": ev}

def write(out, run, name, doc):
    os.makedirs(os.path.join(out, run), exist_ok=True)
    with open(os.path.join(out, run, name), "w") as f:
        json.dump(doc, f, indent=0)

out = sys.argv[1]
write(out, "gpu", "rank0.json", trace(gpu_bound(4000, False)))
write(out, "pair", "rank0.json", trace(gpu_bound(4000, True), 0, 2))
write(out, "pair", "rank1.json", trace(gpu_bound(6000, True), 1, 2))
write(out, "split", "rank0.json", trace(gpu_bound(4000, False), 0, 2))
write(out, "split", "rank1.json", trace(gpu_bound(6000, False, comm=False), 1, 2))

ev = []
for k in (1, 2):
    o = (k - 1) * 12000
    ev.append(X("user_annotation", f"ProfilerStep#{k}", o, 11999 if k == 1 else 10040))
    ev.append(X("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", o, 8000))
    ev.append(launch(o + 8000, k))
    ev.append(kernel("gemm_k1", o + 8020, 2000, k))
    ev.append(X("cuda_runtime", "cudaDeviceSynchronize", o + 8010, 2020, args={"correlation": 1000 + k}))
    if k == 1:
        ev.append(X("cpu_op", "aten::add", o + 10030, 1970))
write(out, "loader", "rank0.json", trace(ev))

write(out, "nosteps", "rank0.json", trace([launch(0, 1), kernel("gemm_k1", 20, 100, 1)]))

ev = gpu_bound(4000, False)
for k in (1, 2):
    ev.append(X("cpu_op", "aten::mm", (k - 1) * 1000, 15,
                args={"Input Dims": [[8192, 8192], [8192, 8192]], "Input type": ["c10::BFloat16", "c10::BFloat16"]}))
doc = trace(ev)
doc["deviceProperties"] = [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85029158912,
                            "computeMajor": 9, "computeMinor": 0, "numSms": 132}]
write(out, "roof", "rank0.json", doc)
