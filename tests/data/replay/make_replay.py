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
The last step ends with its synchronize.

OUTDIR/extra/study.yaml: four runs for extra_gpu_work, two configurations
(batch 1: GPU-bound, batch 2: host-bound), in this order, each step on
host thread 1 at o = the step's start, two steps, every kernel 'gemm_a' on
stream 7, every launch (10 us) inside an 'aten::mm' operator (o+L .. o+L+15)
with Input Dims A = [64,64],[64,64] or X = [128,128],[128,128]:
  gpu-ref   (batch 1, period 21000) launches at o+0 (A, K1a, 10000 long,
            o+20 .. o+10020) and o+20 (A, K1b, 10000, after K1a); then a
            cudaDeviceSynchronize from o+40 to K1b's end + 10 (o+20030)
  gpu-extra (batch 1, period 26000) the same with an extra launch between
            them: o+0 A K1a (o+20 .. o+10020), o+20 X Kx (5000, o+10020 ..
            o+15020), o+40 A K1b (o+15020 .. o+25020), synchronize o+60 ..
            o+25030
  gpu-shapes (batch 1, period 21000) gpu-ref with K1b's operator on X: the
            same operator on other shapes, the same count
  gpu-more  (batch 1, period 26000) gpu-extra with its last call on X: o+0 A
            K1a (o+20 .. o+10020), o+20 X Kx (5000), o+40 X Ky (10000,
            o+15020 .. o+25020), synchronize o+60 .. o+25030: one A call
            fewer than gpu-ref, two X calls more
  host-extra (batch 2, period 30000) o+0 A K1 (5000, o+20 .. o+5020), o+20 X
            Kx (3000, o+5020 .. o+8020)
  host-ref  (batch 2, period 30000) o+0 A K1 only
In the GPU-bound runs an 'aten::add' covers the host from the synchronize's
end to the next step (the last step ends with its synchronize); in the
host-bound ones 'aten::add' covers o+40 .. o+29900, then a 10 us
cudaDeviceSynchronize (the GPU is idle: it waits for nothing), every step.
The manifest's compare names host-ref as host-extra's reference.

OUTDIR/slack/study.yaml: two runs of one configuration (batch 3) with a
training log each (rank0.log, 10 iterations: the first 1000 ms, the others
the period; ProfilerStep#1 and #2 are iterations 2 and 3), for the host
factor of a GPU-bound run, two steps each, on host thread 1 at o = the
step's start:
  slack-extra (period 15030) o+0 A K1 (10000, o+20 .. o+10020), o+20 X Kx
            (5000, o+10020 .. o+15020), each launch (10 us) in an aten::mm
            (15 us); aten::add covers o+40 .. o+12040 (host work, which the
            host factor scales), then cudaDeviceSynchronize until Kx's end
            + 10 (o+15030), where the next step starts: GPU-bound, with
            host slack
  slack-ref (period 12050) the same without Kx: the synchronize from
            o+12040 to o+12050 waits for nothing
OUTDIR/itemwork/rank0.json: `.item()` and the host work after it, in one
place (saving_same_place_us), two steps of period 30000 on host thread 1 at
o = the step's start:
  o+0 .. o+15  a user annotation 'optimizer_step' (the phase both lie after)
  o+0      cudaLaunchKernel (10)  -> K1, 10000 long, o+20 .. o+10020
  o+20     cudaMemcpyAsync until o+10040 -> 'Memcpy DtoH (Device -> Pageable)'
           on the same stream, o+10020 .. o+10030 (the copy waits for K1,
           the call for the copy: a blocking copy, woken 10 us after it)
           a sleep of 12000 us: no operator covers it
  o+22040  cudaLaunchKernel (10)  -> K2, 5000 long, o+22060 .. o+27060
  then     (the first step) an 'aten::add' from o+22050 to the next step.
Python 3 standard library only.
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

def trace_itemwork(period=30000):
    ev, corr = [], 0
    for k in (1, 2):
        o = (k - 1) * period
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": period - 1})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "optimizer_step", "pid": 1, "tid": 1,
                   "ts": o, "dur": 15})
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": o, "dur": 10, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_k1", "pid": 0, "tid": 7, "ts": o + 20,
                   "dur": 10000, "args": {"device": 0, "stream": 7, "correlation": corr}})
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1,
                   "ts": o + 20, "dur": 10020, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pageable)", "pid": 0, "tid": 7,
                   "ts": o + 10020, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": corr, "bytes": 4}})
        corr += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                   "ts": o + 22040, "dur": 10, "args": {"correlation": corr}})
        ev.append({"ph": "X", "cat": "kernel", "name": "gemm_k2", "pid": 0, "tid": 7, "ts": o + 22060,
                   "dur": 5000, "args": {"device": 0, "stream": 7, "correlation": corr}})
        if k == 1:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                       "ts": o + 22050, "dur": period - 22050})
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}

def trace_extra(launches, period, sync_wait):
    """launches: (dims, kernel start offset, kernel duration) per step; sync_wait: the GPU-bound synchronize."""
    ev, corr = [], 0
    for k in (1, 2):
        o = (k - 1) * period
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": period - 1})
        at, last_end = o, 0
        for dims, ks, kd in launches:
            corr += 1
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": at, "dur": 15,
                       "args": {"Input Dims": dims}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": at, "dur": 10, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": o + ks,
                       "dur": kd, "args": {"device": 0, "stream": 7, "correlation": corr}})
            at += 20
            last_end = o + ks + kd
        if sync_wait:
            sync_end = last_end + 10
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                       "ts": at, "dur": sync_end - at, "args": {"correlation": corr + 1000}})
            if k == 1:
                ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                           "ts": sync_end, "dur": o + period - sync_end})
        else:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                       "ts": o + 40, "dur": 29860})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                       "ts": o + 29900, "dur": 10, "args": {"correlation": corr + 1000}})
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}

A, X = [[64, 64], [64, 64]], [[128, 128], [128, 128]]
EXTRA = (("gpu-ref", 1, trace_extra([(A, 20, 10000), (A, 10020, 10000)], 21000, True)),
         ("gpu-extra", 1, trace_extra([(A, 20, 10000), (X, 10020, 5000), (A, 15020, 10000)], 26000, True)),
         ("gpu-shapes", 1, trace_extra([(A, 20, 10000), (X, 10020, 10000)], 21000, True)),
         ("gpu-more", 1, trace_extra([(A, 20, 10000), (X, 10020, 5000), (X, 15020, 10000)], 26000, True)),
         ("host-extra", 2, trace_extra([(A, 20, 5000), (X, 5020, 3000)], 30000, False)),
         ("host-ref", 2, trace_extra([(A, 20, 5000)], 30000, False)))

def trace_slack(extra, hosts=(12000, 12000)):
    """hosts: each step's aten::add (us); the synchronize after it returns
    10 us after the later of its call and the GPU's last kernel."""
    ev, corr, o = [], 0, 0
    for k, h in enumerate(hosts, 1):
        period = max(40 + h + 10, (15020 if extra else 10020) + 10)
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": period - 1})
        for at, dims, ks, kd in ((0, A, 20, 10000), (20, X, 10020, 5000))[:2 if extra else 1]:
            corr += 1
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": o + at, "dur": 15,
                       "args": {"Input Dims": dims}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": o + at, "dur": 10, "args": {"correlation": corr}})
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": o + ks,
                       "dur": kd, "args": {"device": 0, "stream": 7, "correlation": corr}})
        ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": o + 40, "dur": h})
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                   "ts": o + 40 + h, "dur": period - 40 - h, "args": {"correlation": corr + 1000}})
        o += period
    return {"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": ev}

def megatron_log(ms):
    return "".join(" iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.2f | "
                   "learning rate: 1.000000E-04 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | "
                   "number of skipped iterations:   0 | number of nan iterations:   0 |\n"
                   % (i, 10, 3 * i, 1000 if i == 1 else ms, 3) for i in range(1, 11))

out = sys.argv[1]
os.makedirs(os.path.join(out, "slack"), exist_ok=True)
with open(os.path.join(out, "slack", "study.yaml"), "w") as f:
    f.write("version: 1\nid: slack\ntitle: host slack\nruns:\n")
    for name, extra, ms in (("slack-extra", True, 15.03), ("slack-ref", False, 12.05)):
        f.write(f"  - {{id: {name}, gpus: 1, batch: 3, strategy: single, traces: [{name}.json], inputs: [{name}.log]}}\n")
        with open(os.path.join(out, "slack", name + ".json"), "w") as t:
            json.dump(trace_slack(extra), t, indent=0)
        with open(os.path.join(out, "slack", name + ".log"), "w") as t:
            t.write(megatron_log(ms))
# slack3: three steps whose host work differs (H3 below), for the noise at
# either end of the range of host factors the log allows
H3 = (14960, 14960, 4000)
os.makedirs(os.path.join(out, "slack3"), exist_ok=True)
with open(os.path.join(out, "slack3", "study.yaml"), "w") as f:
    f.write("version: 1\nid: slack3\ntitle: host slack, uneven host\nruns:\n")
    for name, extra, ms in (("slack3-extra", True, 15.03), ("slack3-ref", False, 13.34)):
        f.write(f"  - {{id: {name}, gpus: 1, batch: 3, strategy: single, traces: [{name}.json], inputs: [{name}.log]}}\n")
        with open(os.path.join(out, "slack3", name + ".json"), "w") as t:
            json.dump(trace_slack(extra, H3), t, indent=0)
        with open(os.path.join(out, "slack3", name + ".log"), "w") as t:
            t.write(megatron_log(ms))
os.makedirs(os.path.join(out, "extra"), exist_ok=True)
with open(os.path.join(out, "extra", "study.yaml"), "w") as f:
    f.write("version: 1\nid: extra\ntitle: extra GPU work\ncompare: [[host-ref, host-extra]]\nruns:\n")
    for name, batch, tr in EXTRA:
        f.write(f"  - {{id: {name}, gpus: 1, batch: {batch}, strategy: single, traces: [{name}.json]}}\n")
        with open(os.path.join(out, "extra", name + ".json"), "w") as t:
            json.dump(tr, t, indent=0)
for name, sleep, period in (("shown", 30000, 36000), ("hidden", 15000, 26000)):
    os.makedirs(os.path.join(out, name), exist_ok=True)
    with open(os.path.join(out, name, "rank0.json"), "w") as f:
        json.dump(trace(sleep, period), f, indent=0)
os.makedirs(os.path.join(out, "itemwork"), exist_ok=True)
with open(os.path.join(out, "itemwork", "rank0.json"), "w") as f:
    json.dump(trace_itemwork(), f, indent=0)
