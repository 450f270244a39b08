#!/usr/bin/env python3
"""make_many_steps.py N OUT [--bare]: a Kineto trace of N profiler steps
(ProfilerStep#1..N), each with one launch and one kernel, or with --bare the
step ranges alone (about 100 bytes a step: 200,000 make the 20 MB trace of
issue 30, which took 3.5 min and 8.1 GB and wrote a 500 MB page).
For the hostile-input tests (tests/e2e/t_hostile.sh); nothing is committed
that this script makes."""
import sys

n, out = int(sys.argv[1]), sys.argv[2]
bare = "--bare" in sys.argv[3:]
with open(out, "w") as f:
    f.write('{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [\n')
    for i in range(1, n + 1):
        ts = 1000 + i * 100
        sep = ",\n" if i < n else "\n"
        f.write('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": 90}'
                % (i, ts))
        if not bare:
            f.write(',\n{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, '
                    '"dur": 4, "args": {"correlation": %d}},\n'
                    '{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": %d, "dur": 50, '
                    '"args": {"device": 0, "stream": 7, "correlation": %d}}' % (ts + 1, i, ts + 6, i))
        f.write(sep)
    f.write("]}\n")
