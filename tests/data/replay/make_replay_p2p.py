#!/usr/bin/env python3
"""make_replay_p2p.py: a tiny three-stage pipeline (three 1-GPU Kineto
traces, ranks 0, 1, 2 of world 3) for t_replay_p2p.sh, whose replayed
steps are worked out by hand in that script.

Usage: make_replay_p2p.py OUTDIR   (writes OUTDIR/pipe3/rank{0,1,2}.json)

One forward and one backward pass of one micro-batch: stage 0 computes
fwd_s0 and sends to stage 1, which receives, computes fwd_s1 and sends to
stage 2, which receives, computes fwd_s2 and bwd_s2 and sends back to 1,
which receives, computes bwd_s1 and sends to 0, which receives and
computes bwd_s0. The middle stage so sends and receives to two peers (4
point-to-point kernels), the end stages to one (2 each): their counts
differ. Every kernel runs on stream 7; a send's or recv's kernel is
ncclDevKernel_SendRecv with its NCCL args (Collective name send or recv,
Dst Rank of a send, Src Rank of a recv). Two profiled steps,
ProfilerStep#k at o = (k - 1) x 10000 us; per rank, on host thread 1,
back-to-back 10 us cudaLaunchKernel calls from o, in this order:
  rank 0: fwd_s0 (1000), send->1, recv<-1, bwd_s0 (2000)
  rank 1: recv<-0, fwd_s1 (1000), send->2, recv<-2, bwd_s1 (2000), send->0
  rank 2: recv<-1, fwd_s2 (1000), bwd_s2 (2000), send->1
then cudaDeviceSynchronize until the rank's last kernel ends + 10, and in
step 1 an 'aten::add' covering the host from there to the next step.
Each kernel starts when its launch returned or its stream's previous
kernel ended, whichever is later (a recv from its launch), except a send,
which starts after its stream's previous kernel; a send and its recv both
end 100 us after the send starts. Relative to o, the GPU:
  rank 0: fwd_s0 10-1010, send->1 1010-1110, recv<-1 1110-7410, bwd_s0 7410-9410
  rank 1: recv<-0 10-1110, fwd_s1 1110-2110, send->2 2110-2210,
          recv<-2 2210-5310, bwd_s1 5310-7310, send->0 7310-7410
  rank 2: recv<-1 10-2210, fwd_s2 2210-3210, bwd_s2 3210-5210, send->1 5210-5310
Written by replay_trace.py (this folder). Python 3 standard library only.
"""
import sys

import replay_trace

PERIOD = 10000
PLAN = {  # per rank: (kernel, duration or None for a send/recv, send/recv and peer)
    0: [("fwd_s0", 1000, None), ("send", None, 1), ("recv", None, 1), ("bwd_s0", 2000, None)],
    1: [("recv", None, 0), ("fwd_s1", 1000, None), ("send", None, 2), ("recv", None, 2), ("bwd_s1", 2000, None),
        ("send", None, 0)],
    2: [("recv", None, 1), ("fwd_s2", 1000, None), ("bwd_s2", 2000, None), ("send", None, 1)],
}
# the sends' starts (relative to o), by (from, to): every send and its recv end 100 us later
SEND = {(0, 1): 1010, (1, 2): 2110, (2, 1): 5210, (1, 0): 7310}


def kernels(r):
    """Rank r's kernels as replay_trace.py takes them: (name, launch, start, end, peer) relative to o."""
    ks, at, gpu = [], 0, 0  # the next launch, the stream's last end
    for name, dur, peer in PLAN[r]:
        if peer is None:
            start, end = max(at + 10, gpu), max(at + 10, gpu) + dur
        else:
            send = SEND[(r, peer)] if name == "send" else SEND[(peer, r)]
            start = send if name == "send" else max(at + 10, gpu)
            end = send + 100
        assert start >= max(at + 10, gpu), (r, name)
        ks.append((name, at, start, end, peer))
        at += 10
        gpu = end
    return ks


replay_trace.write(sys.argv[1], "pipe3", PERIOD, 2, {r: (None, kernels(r)) for r in PLAN})
