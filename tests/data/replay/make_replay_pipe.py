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
Written by replay_trace.py (this folder). Python 3 standard library only.
"""
import sys

import replay_trace

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


def kernels(r):
    """Rank r's kernels as replay_trace.py takes them: (name, launch, start, end, peer) relative to o."""
    ks, gpu, sent = [], 0, {}
    for i, (kname, dur, kind, peer) in enumerate(PLAN[r]):
        start = max(LAUNCH[r][i] + 10, gpu)
        if kind is None:
            end = start + dur
        else:
            src, dst = (r, peer) if kind == "send" else (peer, r)
            idx = sent.get((src, dst), 0)
            sent[(src, dst)] = idx + 1
            x = XFER[(src, dst, idx)]
            assert x >= start, (r, i)
            end = x + 100
        ks.append((kname, LAUNCH[r][i], start, end, peer))
        gpu = end
    return ks


replay_trace.write(sys.argv[1], "pipe2", PERIOD, 3, {r: (HOST[r], kernels(r)) for r in PLAN})
