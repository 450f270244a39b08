"""make_ranks.py N DIR [STEPS] [--slow R=US ...] [--turns R=US,R=US,...] [--base MOD]: N thin synthetic
Kineto ranks of one DDP run (STEPS ProfilerSteps, 3 by default, 8 GEMMs and one Seq-numbered AllReduce a
step, rank r starting 3r us later), written as DIR/rank<r>.json, for the many-rank tests
(tests/e2e/t_ranks.sh) and measurements (make bench).
With STEPS given, each rank's GEMMs also get a jitter of 0-9 us a step from a generator seeded with
the rank (so the ranks differ and the AllReduces wait), and the output is the same on every run;
100 steps make ranks of about 0.3 MB.

With --slow, --turns or --base the ranks are synchronous instead, with planted stragglers whose effect
follows from the parameters alone (no jitter):
  --slow R=US   rank R does US us more GPU work every step (repeatable);
  --turns L     L = R=US,R=US,...: in step s, the (s mod k)-th of the k listed ranks does US us more;
  --base MOD    every rank r does r % MOD us more every step (so the ranks are not all tied).
A rank's extra work x (its --slow, its turn, its base, summed) is one kernel "slow_work" of x us, launched
inside a "forward" user_annotation that lasts x us longer. Every rank's AllReduce starts when it arrives,
600 + x us into its step, and all of them end together, 200 us after the last arrival (x = M, the step's
largest extra), as NCCL's would; every step lasts 1000 + M us. So, per step, a rank waits M - x us in the
AllReduce (on an idle GPU: the exposed wait), its own time (step less that wait) is 1000 + x us, the rank
with x = M is the last to arrive and every other rank r waits M - x_r for it; clocks differ by 3r us, the
offset perfstudy estimates from the common ends."""
import json, os, random, sys

args = sys.argv[1:]
slow, turns, base = {}, [], 0
pos = []
i = 0
while i < len(args):
    a = args[i]
    if a == "--slow":
        r, us = args[i + 1].split("=")
        slow[int(r)] = slow.get(int(r), 0) + int(us)
        i += 2
    elif a == "--turns":
        turns = [(int(p.split("=")[0]), int(p.split("=")[1])) for p in args[i + 1].split(",")]
        i += 2
    elif a == "--base":
        base = int(args[i + 1])
        i += 2
    else:
        pos.append(a)
        i += 1
n, out = int(pos[0]), pos[1]
steps = int(pos[2]) if len(pos) > 2 else 3
jitter = len(pos) > 2
sync = bool(slow or turns or base)
os.makedirs(out, exist_ok=True)


def extra(r, s):
    """The planted extra GPU work of rank r in step s, us."""
    x = slow.get(r, 0) + (r % base if base else 0)
    if turns and turns[s % len(turns)][0] == r:
        x += turns[s % len(turns)][1]
    return x


def sync_rank(r):
    ev = []
    t = 1000 + r * 3
    for s in range(steps):
        x, m = extra(r, s), max(extra(q, s) for q in range(n))
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1, "ts": t, "dur": 1000 + m})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 1, "tid": 1, "ts": t + 2, "dur": 446 + x})
        for k in range(8):
            c = s * 100 + k
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 5 + k * 50, "dur": 4, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm_%d" % k, "pid": 0, "tid": 7, "ts": t + 10 + k * 50, "dur": 40, "args": {"device": 0, "stream": 7, "correlation": c}})
        if x:
            c = s * 100 + 40
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 440, "dur": 4, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": "slow_work", "pid": 0, "tid": 7, "ts": t + 450, "dur": x, "args": {"device": 0, "stream": 7, "correlation": c}})
        c = s * 100 + 50
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 500 + x, "dur": 4, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 9, "ts": t + 600 + x, "dur": 200 + m - x, "args": {"device": 0, "stream": 9, "correlation": c, "Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float", "Group size": n, "Process Group Name": "0", "Seq": s}})
        t += 1100 + m
    return ev


for r in range(n):
    if sync:
        ev = sync_rank(r)
        json.dump({"distributedInfo": {"rank": r, "world_size": n, "backend": "nccl"}, "traceEvents": ev}, open("%s/rank%d.json" % (out, r), "w"))
        continue
    rnd = random.Random(r)
    ev = []
    t = 1000 + r * 3
    for s in range(steps):
        j = rnd.randrange(10) if jitter else 0
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1, "ts": t, "dur": 1000})
        for k in range(8):
            c = s * 100 + k
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 5 + k * 50, "dur": 4, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm_%d" % k, "pid": 0, "tid": 7, "ts": t + 10 + k * 50, "dur": 40 + j, "args": {"device": 0, "stream": 7, "correlation": c}})
        c = s * 100 + 50
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": t + 500, "dur": 4, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0, "tid": 9, "ts": t + 600 + (r % 7) * 10 + j * 8, "dur": 200, "args": {"device": 0, "stream": 9, "correlation": c, "Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float", "Group size": n, "Process Group Name": "0", "Seq": s}})
        t += 1100
    json.dump({"distributedInfo": {"rank": r, "world_size": n, "backend": "nccl"}, "traceEvents": ev}, open("%s/rank%d.json" % (out, r), "w"))
