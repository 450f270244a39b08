#!/usr/bin/env python3
"""make_round4.py KIND N OUT: the hostile inputs of issue 51's quadratic
paths, for tests/e2e/t_round4_scale.sh, each N-sized (the test builds N and
2N and compares the CPU time). Nothing it makes is committed.

  alloc  a Kineto trace of two profiler steps and N allocations that are
         never freed, whose addresses all fell in one slot of the old fixed
         hash of memory_steps.c's live-allocation map
  comm   a Kineto trace of N record_param_comms ops whose External ids all
         fell in one slot of util/intmap.c's old fixed hash
  runs   OUT/old/perfstudy.db and OUT/new/perfstudy.db, stores (their
         history tables alone) of one experiment of N runs, each with an
         input, numbers and 6 step times; in new, every other run's steps
         are 10 % slower (for `perfstudy diff OUT/old OUT/new`)
  ranks  OUT/rank<r>.json for r < N: one run of N ranks, one step and
         one kernel each
  shapes OUT/rank<r>.json for r < N: one run of N ranks (make_ranks.py's
         synchronous model, 4 steps) where ranks 0-3 take turns doing
         300 us more GPU work (four stragglers), each rank calling 64
         operators with Input Dims in its first step, ranks 0-3's larger
  coalesced  a Kineto trace of N send ops to rank 1 before one
         "nccl:coalesced" batch, and N ncclDevKernel_SendRecv kernels
         inside its GPU annotation: each kernel's batch is those N ops
  overlap  a Kineto trace of N profiler steps that each cover the whole
         trace, N launches and N kernels
  parts  the same two stores of one run whose parts hold N kernels and N
         kernel groups, each 10 % slower in new
"""
import json
import os
import sqlite3
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


SCHEMA = """
CREATE TABLE history_builds(experiment TEXT NOT NULL, build INTEGER NOT NULL, built_at INTEGER, perfstudy TEXT,
  state_sha256 TEXT);
CREATE TABLE history_runs(experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL);
CREATE TABLE history_inputs(experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, path TEXT NOT NULL,
  size INTEGER, sha256 TEXT);
CREATE TABLE history_numbers(experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, metric TEXT NOT NULL,
  value REAL);
CREATE TABLE history_steps(experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, source TEXT NOT NULL,
  dur_ns INTEGER NOT NULL);
CREATE TABLE history_parts(experiment TEXT NOT NULL, build INTEGER NOT NULL, run TEXT NOT NULL, kind TEXT NOT NULL,
  name TEXT NOT NULL, value REAL);
CREATE TABLE history_thresholds(experiment TEXT NOT NULL, metric TEXT NOT NULL, value REAL);
"""


def store(path, runs, parts):
    """A store at path of build 1 of 'default': runs (id, step scale), parts (run, kind, name, value)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path):
        os.unlink(path)
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO history_builds VALUES ('default', 1, 1700000000, '0.1.0', '')")
    e = ("default", 1)
    db.executemany("INSERT INTO history_runs VALUES (?, ?, ?)", [e + (r,) for r, _ in runs])
    db.executemany("INSERT INTO history_inputs VALUES (?, ?, ?, ?, ?, ?)",
                   [e + (r, "traces/%s.json" % r, 1000, "%064x" % i) for i, (r, _) in enumerate(runs)])
    db.executemany("INSERT INTO history_numbers VALUES (?, ?, ?, ?, ?)",
                   [e + (r, "gpu_busy_frac", 0.5 * k) for r, k in runs])
    db.executemany("INSERT INTO history_steps VALUES (?, ?, ?, 'steps', ?)",
                   [e + (r, int(d * k)) for r, k in runs for d in (96000, 98000, 100000, 102000, 104000, 106000)])
    db.executemany("INSERT INTO history_parts VALUES (?, ?, ?, ?, ?, ?)", [e + p for p in parts])
    db.commit()
    db.close()


def history_runs(n, out):
    ids = ["run%06d" % i for i in range(n)]
    store(os.path.join(out, "old", "perfstudy.db"), [(r, 1.0) for r in ids], [])
    store(os.path.join(out, "new", "perfstudy.db"), [(r, 1.1 if i % 2 else 1.0) for i, r in enumerate(ids)], [])


def history_parts(n, out):
    for side, k in (("old", 1.0), ("new", 1.1)):
        parts = [("r", "step", "", 101.0 * k), ("r", "idle", "", 1.0 * k), ("r", "rank", "0", 101.0 * k),
                 ("r", "rank_work", "0", 100.0 * k)]
        parts += [("r", "kernel", "kernel_%06d" % i, 100.0 * k / n) for i in range(n)]
        parts += [("r", "group", "group_%06d" % i, 100.0 * k / n) for i in range(n)]
        store(os.path.join(out, side, "perfstudy.db"), [("r", k)], parts)


def ranks(n, out):
    os.makedirs(out, exist_ok=True)
    for r in range(n):
        with open(os.path.join(out, "rank%d.json" % r), "w") as f:
            f.write('{"distributedInfo": {"rank": %d, "world_size": %d}, "traceEvents": [\n' % (r, n))
            step(f, 1, 1000, 100 + r % 7)
            kernel(f, 1010, 1, "\n")
            f.write("]}\n")


OPS, STEPS = 64, 4


def shapes(n, out):
    os.makedirs(out, exist_ok=True)
    m = 300
    for r in range(n):
        ev, t = [], 1000 + r * 3
        for s in range(STEPS):
            x = m if r == s else 0  # ranks 0-3 take turns: four stragglers
            ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1,
                       "ts": t, "dur": 1000 + m})
            for o in range(OPS if s == 0 else 0):
                ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::op%d" % o, "pid": 1, "tid": 2, "ts": t + 3 + o,
                           "dur": 1, "args": {"Input Dims": [[12 if r < STEPS else 8, 1024], [1024, 1024]]}})
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 5, "dur": 4, "args": {"correlation": s * 100}})
            ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 10, "dur": 400 + x,
                       "args": {"device": 0, "stream": 7, "correlation": s * 100}})
            c = s * 100 + 50
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 500 + x, "dur": 4, "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "pid": 0,
                       "tid": 9, "ts": t + 600 + x, "dur": 200 + m - x,
                       "args": {"device": 0, "stream": 9, "correlation": c, "Collective name": "allreduce",
                                "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float",
                                "Group size": n, "Process Group Name": "0", "Seq": s}})
            t += 1100 + m
        with open(os.path.join(out, "rank%d.json" % r), "w") as f:
            json.dump({"distributedInfo": {"rank": r, "world_size": n, "backend": "nccl"}, "traceEvents": ev}, f,
                      separators=(",", ":"))


def coalesced(n, f):
    header(f)
    step(f, 1, 1000, 20 * n + 2000)
    for i in range(n):
        f.write('{"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 1, "tid": 1, "ts": %d, "dur": 1, '
                '"args": {"External id": %d, "Collective name": "send", "Dst Rank": 1, "In msg nelems": 1024, '
                '"dtype": "Float"}},\n' % (1001 + i, i + 1))
    f.write('{"ph": "X", "cat": "user_annotation", "name": "nccl:coalesced", "pid": 1, "tid": 1, "ts": %d, "dur": 5, '
            '"args": {"External id": 9999999}},\n' % (1001 + n + 10))
    t = 1001 + n + 100
    f.write('{"ph": "X", "cat": "gpu_user_annotation", "name": "nccl:coalesced", "pid": 0, "tid": 7, "ts": %d, '
            '"dur": %d, "args": {"device": 0, "stream": 7, "External id": 9999999}},\n' % (t, 10 * n + 10))
    for i in range(n):
        f.write('{"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)", '
                '"pid": 0, "tid": 7, "ts": %d, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": %d}}%s'
                % (t + 1 + 10 * i, i + 1, ",\n" if i + 1 < n else "\n"))
    f.write("]}\n")


def overlap(n, f):
    header(f)
    for i in range(1, n + 1):
        step(f, i, 1000, 100 * n + 200)
    for i in range(1, n + 1):
        kernel(f, 1000 + 100 * i, i, ",\n" if i < n else "\n")
    f.write("]}\n")


def main():
    kind, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if kind in ("runs", "parts", "ranks", "shapes"):
        {"runs": history_runs, "parts": history_parts, "ranks": ranks, "shapes": shapes}[kind](n, out)
        return
    with open(out, "w") as f:
        {"alloc": alloc, "comm": comm, "coalesced": coalesced, "overlap": overlap}[kind](n, f)


main()
