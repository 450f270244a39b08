#!/usr/bin/env python3
"""make_replay_pipe.py: a tiny two-stage GPipe pipeline whose step a host
holds (two 1-GPU Kineto traces, ranks 0 and 1 of world 2) for
t_replay_pipe.sh, which works its replay out by hand.

Usage: make_replay_pipe.py OUTDIR   (writes OUTDIR/pipe2/rank{0,1}.json)

m = 2 micro-batches a and b. Stage 0 (rank 0) computes each forward in
F0 = 1000 us and each backward in B0 = 2000 us; stage 1 (rank 1) twice
that, F1 = 2000, B1 = 4000 (it holds more layers). Every kernel runs on
stream 7; a send's or recv's kernel is ncclDevKernel_SendRecv with its
NCCL args (Collective name send or recv, Dst Rank of a send, Src Rank of a
recv), no Seq. Three profiled steps, ProfilerStep#k at o = (k - 1) x
25000 us, on host thread 1, 10 us cudaLaunchKernel calls:
  rank 0: f0a at o, send a at o+10, then an 'aten::cat' operator from
          o+20 to o+5020 (host work that holds the step), then from o+5020
          back to back: f0b, send b, recv ga, b0a, recv gb, b0b;
  rank 1: an 'aten::zeros' operator from o to o+3000, then from o+3000
          back to back: recv a, f1a, recv b, f1b, b1a, send ga, b1b, send gb;
then cudaDeviceSynchronize until the rank's last kernel ends + 10 and, but
in the last step, an 'aten::add' covering the host from there to the next
step. A kernel starts when its launch returned or its stream's previous
kernel ended, whichever is later, and a send and its recv both end 100 us
after the later of their two starts. Relative to o, the GPU:
  rank 0: f0a 10-1010, send a 1010-3110, f0b 5030-6030, send b 6030-6130,
          recv ga 6130-12230, b0a 12230-14230, recv gb 14230-16330,
          b0b 16330-18330
  rank 1: recv a 3010-3110, f1a 3110-5110, recv b 5110-6130, f1b 6130-8130,
          b1a 8130-12130, send ga 12130-12230, b1b 12230-16230,
          send gb 16230-16330
Python 3 standard library only.
"""
import json, os, sys

PERIOD = 25000
F = {0: 1000, 1: 2000}
B = {0: 2000, 1: 4000}
# per rank: the host operator before the launches (name, from, to), the launches' first start
HOST = {0: ("aten::cat", 20, 5020), 1: ("aten::zeros", 0, 3000)}
# per rank, in launch order: (kernel, duration or None for a send/recv, kind, peer)
PLAN = {
    0: [("f0a", F[0], None, None), ("send", None, "send", 1), ("f0b", F[0], None, None), ("send", None, "send", 1),
        ("recv", None, "recv", 1), ("b0a", B[0], None, None), ("recv", None, "recv", 1), ("b0b", B[0], None, None)],
    1: [("recv", None, "recv", 0), ("f1a", F[1], None, None), ("recv", None, "recv", 0), ("f1b", F[1], None, None),
        ("b1a", B[1], None, None), ("send", None, "send", 0), ("b1b", B[1], None, None), ("send", None, "send", 0)],
}
# each transfer's start (the later of its send's and recv's starts), relative to o, by (from, to, index)
XFER = {(0, 1, 0): 3010, (0, 1, 1): 6030, (1, 0, 0): 12130, (1, 0, 1): 16230}
# the launch times relative to o: rank 0's first two at 0 and 10, the rest from 5020; rank 1's from 3000
LAUNCH = {0: [0, 10] + [5020 + 10 * i for i in range(6)], 1: [3000 + 10 * i for i in range(8)]}


def trace(r, steps=3):
    ev, corr = [], 0
    for k in range(1, steps + 1):
        o = (k - 1) * PERIOD
        ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{k}", "pid": 1, "tid": 1,
                   "ts": o, "dur": PERIOD - 1})
        name, h0, h1 = HOST[r]
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": o + h0, "dur": h1 - h0})
        gpu, sent = o, {}
        for i, (kname, dur, kind, peer) in enumerate(PLAN[r]):
            corr += 1
            at = o + LAUNCH[r][i]
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": at, "dur": 10, "args": {"correlation": corr}})
            args = {"device": r, "stream": 7, "correlation": corr}
            start = max(at + 10, gpu)
            if kind is None:
                end = start + dur
            else:
                src, dst = (r, peer) if kind == "send" else (peer, r)
                idx = sent.get((src, dst), 0)
                sent[(src, dst)] = idx + 1
                x = o + XFER[(src, dst, idx)]
                assert x >= start, (r, k, i)
                end = x + 100
                kname = "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)"
                args.update({"Collective name": kind, "In msg nelems": 1024, "Out msg nelems": 1024,
                             "dtype": "BFloat16", "Group size": 2, "Process Group Name": "0",
                             "Process Group Ranks": "[0, 1]"})
                args["Dst Rank" if kind == "send" else "Src Rank"] = peer
            ev.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7, "ts": start,
                       "dur": end - start, "args": args})
            gpu = end
        at = o + LAUNCH[r][-1] + 10
        sync_end = gpu + 10
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1,
                   "ts": at, "dur": sync_end - at, "args": {"correlation": corr + 1000}})
        if k < steps:
            ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1,
                       "ts": sync_end, "dur": o + PERIOD - sync_end})
    return {"distributedInfo": {"backend": "nccl", "rank": r, "world_size": 2}, "traceEvents": ev}


out = os.path.join(sys.argv[1], "pipe2")
os.makedirs(out, exist_ok=True)
for r in PLAN:
    with open(os.path.join(out, f"rank{r}.json"), "w") as f:
        json.dump(trace(r), f, indent=0)
