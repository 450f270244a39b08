"""make_ranks.py N DIR [STEPS]: N thin synthetic Kineto ranks of one DDP run (STEPS ProfilerSteps, 3 by
default, 8 GEMMs and one Seq-numbered AllReduce a step, rank r starting 3r us later), written as
DIR/rank<r>.json, for the many-rank tests (tests/e2e/t_ranks.sh) and measurements (make bench).
With STEPS given, each rank's GEMMs also get a jitter of 0-9 us a step from a generator seeded with
the rank (so the ranks differ and the AllReduces wait), and the output is the same on every run;
100 steps make ranks of about 0.3 MB."""
import json, os, random, sys
n, out = int(sys.argv[1]), sys.argv[2]
steps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
jitter = len(sys.argv) > 3
os.makedirs(out, exist_ok=True)
for r in range(n):
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
