#!/usr/bin/env python3
"""make_replay_layers.py: a two-stage GPipe pipeline whose stages run 3 and
5 identical layer blocks (two 1-GPU Kineto traces, ranks 0 and 1 of world
2) for t_replay_layers.sh, which works the move by whole layers out by hand.

Usage: make_replay_layers.py OUTDIR [L0 L1]
  writes OUTDIR/layers2/rank{0,1}.json; with L0 L1 (layers of stage 0 and
  1, 3 and 5 by default) OUTDIR/layers<L0>x<L1>/ instead, the kernels'
  times as below but for the layers' count (not worked out by hand: the
  test reads only which rule applies)

m = 2 micro-batches a and b. A layer's forward is two kernels, lyr_qkv
(150 us) then lyr_mlp (50 us). Per micro-batch:
  stage 0 (rank 0): forward = emb (100 us) + 3 layers (600 us) = 700 us;
                    backward = one kernel bwd0 of 1300 us (2 x 600 + 100);
  stage 1 (rank 1): forward = 5 layers (1000 us) + head (400 us) = 1400 us;
                    backward = one kernel bwd1 of 2600 us (2 x 1000 + 600).
Every kernel runs on stream 7; a send's or recv's kernel is
ncclDevKernel_SendRecv with its NCCL args (Collective name send or recv,
Dst Rank of a send, Src Rank of a recv). Three profiled steps,
ProfilerStep#k at o = (k - 1) x 15000 us, on host thread 1, 10 us
cudaLaunchKernel calls back to back:
  rank 0: from o: emb, 3 x (lyr_qkv, lyr_mlp), send a, the same for b,
          recv ga, bwd0 a, recv gb, bwd0 b;
  rank 1: an 'aten::zeros' operator from o to o+1000, then from o+1000:
          recv a, 5 x (lyr_qkv, lyr_mlp), head, recv b, the same for b,
          bwd1 a, send ga, bwd1 b, send gb;
then cudaDeviceSynchronize until the rank's last kernel ends + 10 and, but
in the last step, an 'aten::add' covering the host from there to the next
step. A kernel starts when its launch returned or its stream's previous
kernel ended, whichever is later; a send and its recv both end 100 us
after the later of their two starts. Relative to o, the GPU:
  rank 0: forward a 10-710, send a 710-1110, forward b 1110-1810,
          send b 1810-2610, recv ga 2610-6710, bwd0 a 6710-8010,
          recv gb 8010-9410, bwd0 b 9410-10710 (synchronize ends 10720)
  rank 1: recv a 1010-1110, forward a 1110-2510, recv b 2510-2610,
          forward b 2610-4010, bwd1 a 4010-6610, send ga 6610-6710,
          bwd1 b 6710-9310, send gb 9310-9410 (synchronize ends 9420)
Written by replay_trace.py (this folder). Python 3 standard library only.
"""
import sys

import replay_trace

PERIOD = 15000
LAYER = [("lyr_qkv", 150), ("lyr_mlp", 50)]
ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
LAYERS = (int(ARGS[1]), int(ARGS[2])) if len(ARGS) == 3 else (3, 5)


def fwd(r):
    if r == 0:
        return [("emb", 100)] + LAYER * LAYERS[0]
    return LAYER * LAYERS[1] + [("head", 400)]


# per rank, in launch order: (kernel, duration) or ("send"/"recv", peer)
PLAN = {
    0: fwd(0) + [("send", 1)] + fwd(0) + [("send", 1), ("recv", 1), ("bwd0", 1300), ("recv", 1), ("bwd0", 1300)],
    1: [("recv", 0)] + fwd(1) + [("recv", 0)] + fwd(1) + [("bwd1", 2600), ("send", 0), ("bwd1", 2600), ("send", 0)],
}
HOST = {0: None, 1: ("aten::zeros", 0, 1000)}
FIRST = {0: 0, 1: 1000}


def schedule():
    """Each rank's kernels' (start, end) relative to o, by the rules above."""
    done = {r: [] for r in PLAN}
    gpu = {r: 0 for r in PLAN}
    while any(len(done[r]) < len(PLAN[r]) for r in PLAN):
        moved = False
        for r in PLAN:
            i = len(done[r])
            if i == len(PLAN[r]):
                continue
            name, x = PLAN[r][i]
            start = max(FIRST[r] + 10 * i + 10, gpu[r])
            if name in ("send", "recv"):
                # the matching kernel of the peer: the same index among its kinds toward r
                other = "recv" if name == "send" else "send"
                k = sum(1 for n, p in PLAN[r][:i] if n == name)
                j = [q for q, (n, p) in enumerate(PLAN[x]) if n == other and p == r][k]
                if j >= len(done[x]):
                    # the peer's start is known once its stream reaches it
                    if j != len(done[x]):
                        continue
                    pstart = max(FIRST[x] + 10 * j + 10, gpu[x])
                else:
                    pstart = done[x][j][0]
                end = max(start, pstart) + 100
            else:
                end = start + x
            done[r].append((start, end))
            gpu[r] = end
            moved = True
        assert moved
    return done


def kernels(r, sched):
    """Rank r's kernels as replay_trace.py takes them: (name, launch, start, end, peer) relative to o."""
    return [(name, FIRST[r] + 10 * i, start, end, x if name in ("send", "recv") else None)
            for i, ((name, x), (start, end)) in enumerate(zip(PLAN[r], sched[r]))]


sched = schedule()
if "--print" in sys.argv:
    for r in PLAN:
        print(r, [(PLAN[r][i][0], s, e) for i, (s, e) in enumerate(sched[r])])
run = "layers2" if LAYERS == (3, 5) else "layers%dx%d" % LAYERS
replay_trace.write(ARGS[0], run, PERIOD, 3, {r: (HOST[r], kernels(r, sched)) for r in PLAN})
