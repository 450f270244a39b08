#!/usr/bin/env python3
"""make_round4.py KIND N OUT: the hostile inputs of issue 51's quadratic
paths, for tests/e2e/t_round4_scale.sh, each N-sized (the test builds N and
2N and compares the CPU time). Nothing it makes is committed.

  alloc  a Kineto trace of two profiler steps and N allocations that are
         never freed, whose addresses all fell in one slot of the old fixed
         hash of memory_steps.c's live-allocation map
  comm   a Kineto trace of N record_param_comms ops whose External ids all
         fell in one slot of util/intmap.c's old fixed hash
"""
import sys

GOLDEN = 0x9E3779B97F4A7C15
M64 = (1 << 64) - 1


def header(f):
    f.write('{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [\n')


def step(f, n, ts, dur):
    f.write('{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d},\n'
            % (n, ts, dur))


def kernel(f, ts, corr, sep=",\n"):
    f.write('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, '
            '"dur": 4, "args": {"correlation": %d}},\n'
            '{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": %d, "dur": 50, '
            '"args": {"device": 0, "stream": 7, "correlation": %d}}%s' % (ts, corr, ts + 5, corr, sep))


def colliding_addrs(n):
    """n positive addresses a with h = a * GOLDEN mod 2^64 and h ^ (h >> 29)
    zero in its low 20 bits (one home slot in every table of up to 2^20):
    h's bits 0-19 and 29-48 zero, the other 24 bits free."""
    inv = pow(GOLDEN, -1, 1 << 64)
    out, i = [], 1
    while len(out) < n:
        lo, hi = i & 0x1FF, i >> 9  # bits 20-28 and 49-63
        h = (lo << 20) | (hi << 49)
        a = (h * inv) & M64
        if 0 < a < (1 << 63):
            out.append(a)
        i += 1
    return out


def alloc(n, f):
    header(f)
    step(f, 1, 1000, n + 100)
    kernel(f, 1010, 1)
    t = 1050
    for i, a in enumerate(colliding_addrs(n)):
        f.write('{"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": %d, '
                '"args": {"Total Reserved": %d, "Total Allocated": %d, "Bytes": 512, "Device Id": 0, '
                '"Device Type": 1, "Addr": %d}},\n' % (t + i, 512 * (i + 1) + (1 << 30), 512 * (i + 1), a))
    e = 1000 + n + 200
    step(f, 2, e, 100)
    kernel(f, e + 10, 2, "\n")
    f.write("]}\n")


def comm(n, f):
    header(f)
    step(f, 1, 1000, 2 * n + 100)
    for i in range(1, n + 1):
        f.write('{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": %d, "dur": 1, '
                '"args": {"External id": %d, "Collective name": "allreduce", "dtype": "Float"}},\n'
                % (1000 + 2 * i, i << 40))
    kernel(f, 1000 + 2 * n + 10, 1, "\n")
    f.write("]}\n")


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(out, "w") as f:
        {"alloc": alloc, "comm": comm}[kind](n, f)


main()
