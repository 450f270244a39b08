#!/usr/bin/env python3
"""make_one_kernel.py N DIR: N tiny Kineto traces written as DIR/rank<r>.json,
each one rank (distributedInfo rank r, world size N) with one ProfilerStep#1,
one cudaLaunchKernel and the one kernel it launched (correlation 1), of
10 + r % 90 us, so the kernels of the run add up to a sum the test can work
out from the files alone. For the many-files case of issue 30 (100,000
one-kernel traces were stopped at 590 s: tests/e2e/t_manyfiles.sh); nothing
is committed that this script makes; the output is the same on every run."""
import os, sys

n, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(out, exist_ok=True)
for r in range(n):
    dur = 10 + r % 90
    with open("%s/rank%d.json" % (out, r), "w") as f:
        f.write('{"distributedInfo": {"rank": %d, "world_size": %d, "backend": "nccl"}, "traceEvents": [\n'
                '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 200},\n'
                '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1010, "dur": 4, '
                '"args": {"correlation": 1}},\n'
                '{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1020, "dur": %d, '
                '"args": {"device": 0, "stream": 7, "correlation": 1}}\n'
                ']}\n' % (r, n, dur))
