#!/usr/bin/env python3
"""gen.py: writes the hand-made Kineto traces rank0.pt.trace.json and
rank1.pt.trace.json beside it, whose memory numbers tests/e2e/t_memory.sh
works out by hand (see the comment there)."""
import json, os
out = os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
M = 1048576
def trace(rank, mem):
    ev = []
    for n, s in ((1, 100), (2, 200)):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1, "tid": 1, "ts": s, "dur": 100})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 1, "tid": 1, "ts": s + 10, "dur": 40})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "backward", "pid": 1, "tid": 1, "ts": s + 50, "dur": 40})
        ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": s + 20, "dur": 5,
                   "args": {"device": rank, "stream": 7, "correlation": n}})
    ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "Iteration Start: PyTorch Profiler", "pid": 1, "tid": 1, "ts": 100})
    ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": 125,
               "args": {"Total Reserved": 0, "Total Allocated": 999 * M, "Bytes": 999 * M, "Device Id": -1, "Device Type": 0, "Addr": 5}})
    total = 0
    for ts, addr, b, res in mem:
        total += b
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                   "args": {"Total Reserved": res, "Total Allocated": total, "Bytes": b, "Device Id": rank, "Device Type": 1, "Addr": addr}})
    doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
           "deviceProperties": [{"id": i, "name": "Test GPU", "totalGlobalMem": 1024 * M} for i in range(2)],
           "traceEvents": ev}
    json.dump(doc, open("%s/rank%d.pt.trace.json" % (out, rank), "w"))
trace(0, [(50, 1, 100 * M, 128 * M), (120, 2, 2 * M, 128 * M), (130, 3, 30 * M, 160 * M), (160, 3, -30 * M, 160 * M),
          (170, 4, M, 160 * M), (180, 4, -M, 160 * M), (220, 5, 2 * M, 160 * M), (230, 6, 30 * M, 160 * M), (260, 6, -30 * M, 160 * M)])
trace(1, [(50, 1, 100 * M, 128 * M), (120, 2, 50 * M, 192 * M), (160, 2, -50 * M, 192 * M), (220, 3, 50 * M, 192 * M),
          (260, 3, -50 * M, 192 * M)])
