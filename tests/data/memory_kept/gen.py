#!/usr/bin/env python3
"""gen.py: writes the hand-made Kineto trace rank0.pt.trace.json beside it,
whose kept allocations tests/e2e/t_memory.sh works out by hand (see the
comment there): three steps, operators nested on two threads, and the
allocator's events after every operator, as Kineto writes them."""
import json, os
out = os.path.dirname(os.path.abspath(__file__))
M = 1048576
ev, mem = [], []
def x(cat, name, tid, ts, dur, dims=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur}
    if dims is not None:
        e["args"] = {"Input Dims": dims}
    ev.append(e)
for n, s in ((1, 100), (2, 200), (3, 300)):
    x("user_annotation", "ProfilerStep#%d" % n, 1, s, 100)
    x("user_annotation", "forward", 1, s + 10, 40)
    x("user_annotation", "backward", 1, s + 50, 40)
    x("user_annotation", "my<step>&co", 1, s + 31, 6)
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": s + 20, "dur": 5,
               "args": {"device": 0, "stream": 7, "correlation": n}})
    # thread 1: aten::linear > aten::mm > aten::empty, 1024 bytes (8 x 32 fp32) at s+16
    x("cpu_op", "aten::linear", 1, s + 12, 18, [[8, 16], [32, 16], [32]])
    x("cpu_op", "aten::mm", 1, s + 14, 10, [[8, 16], [16, 32]])
    x("cpu_op", "aten::empty", 1, s + 15, 2, [[], [], [], [], [], []])
    mem.append((s + 16, 1, 1000 + n, 1024, 1))
    if n > 1:
        mem.append((s + 40, 1, 1000 + n, -1024, 1))    # freed in steps 2 and 3 only
    # thread 1: aten::ones > aten::empty under my<step>&co, 2 MiB at s+33, never freed
    x("cpu_op", "aten::ones", 1, s + 32, 4, [[], [], [], [], []])
    x("cpu_op", "aten::empty", 1, s + 33, 1, [[], [], [], [], [], []])
    mem.append((s + 33, 1, 2000 + n, 2 * M, 1))
    # thread 1: aten::add in backward, 4096 bytes at s+60, freed at s+70
    x("cpu_op", "aten::add", 1, s + 58, 4, [[32], [32]])
    mem.append((s + 60, 1, 3000 + n, 4096, 1))
    mem.append((s + 70, 1, 3000 + n, -4096, 1))
    # thread 1, step 2: two allocations of 512 bytes outside every operator, in backward, never freed
    if n == 2:
        mem.append((s + 80, 1, 4001, 512, 1))
        mem.append((s + 81, 1, 4002, 512, 1))
    # thread 2 (autograd): evaluate_function: MulBackward0 > aten::mul, 8192 bytes at s+65, never freed
    x("cpu_op", "autograd::engine::evaluate_function: MulBackward0", 2, s + 62, 10)
    x("cpu_op", "aten::mul", 2, s + 64, 3, [[2048], []])
    mem.append((s + 65, 2, 5000 + n, 8192, 1))
    # a host allocation (Device Type 0) inside aten::mul, never freed: not the GPU's
    mem.append((s + 66, 2, 6000 + n, 999, 0))
total = {0: 0, 1: 100 * M}
for ts, tid, addr, b, dt in sorted(mem):
    total[dt] += b
    ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": tid, "ts": ts,
               "args": {"Total Reserved": 256 * M if dt else 0, "Total Allocated": total[dt], "Bytes": b,
                        "Device Id": 0 if dt else -1, "Device Type": dt, "Addr": addr}})
doc = {"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Test GPU", "totalGlobalMem": 1024 * M}],
       "traceEvents": ev}
json.dump(doc, open("%s/rank0.pt.trace.json" % out, "w"))
