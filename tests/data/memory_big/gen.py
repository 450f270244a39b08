#!/usr/bin/env python3
"""gen.py: writes a Kineto trace of one rank with many caching-allocator
events, for the store's size per allocator event (tests/e2e/t_memory_store.sh)
and docs/performance.md's measure of it.

  gen.py OUT.json EVENTS [--no-memory]

EVENTS "[memory]" events over 10 profiled steps (ProfilerStep#1..10, each
with forward and backward and a kernel), as PyTorch's profile_memory=True
writes them: allocations and frees of a GPU (device 0) with 47-bit
addresses, realistic sizes, the allocator's running totals, a reserved total
that steps up now and then, epoch-sized microsecond times with fractions,
and a few host (device_type 0) events; every 500th allocation is kept
(never freed). The events are written out of time order in places,
as Kineto does. --no-memory writes the same trace without them (the
baseline the store's growth is measured against). Deterministic."""
import json, random, sys

out, n = sys.argv[1], int(sys.argv[2])
mem = "--no-memory" not in sys.argv[3:]
rng = random.Random(55)
T0 = 5683652561258.052  # microseconds, as in a real trace
STEPS = 10
step_us = max(1000.0, n * 2.0 / STEPS)
ev = []
for s in range(STEPS):
    t = T0 + s * step_us
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (s + 1), "pid": 962, "tid": 962,
               "ts": t, "dur": step_us * 0.98})
    ev.append({"ph": "X", "cat": "user_annotation", "name": "forward", "pid": 962, "tid": 962, "ts": t + 1,
               "dur": step_us * 0.45})
    ev.append({"ph": "X", "cat": "user_annotation", "name": "backward", "pid": 962, "tid": 962,
               "ts": t + step_us * 0.5, "dur": step_us * 0.45})
    ev.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": t + 5, "dur": 3,
               "args": {"device": 0, "stream": 7, "correlation": s + 1}})
if mem:
    total, reserved, free, k = 0, 2 << 30, [], 0
    base = 139651050459136
    per = n // STEPS
    for s in range(STEPS):
        t = T0 + s * step_us + 2
        for i in range(per):
            t += rng.uniform(0.5, 3.0) * step_us * 0.9 / (per * 1.75)
            if rng.random() < 0.03:  # the host's allocator, its own totals
                ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 962,
                           "tid": 962, "ts": round(t, 3),
                           "args": {"Total Reserved": 0, "Total Allocated": 4096, "Bytes": 4096, "Device Id": -1,
                                    "Device Type": 0, "Addr": 94000000000000 + i, "Ev Idx": len(ev)}})
                continue
            if free and (rng.random() < 0.5 or total > (1 << 30)):
                addr, b = free.pop(rng.randrange(len(free)))
                b = -b
            else:
                b = rng.choice((512, 4096, 65536, 1 << 20, 4 << 20, 16 << 20, 3 * 512 * 1024))
                addr = base + rng.randrange(1 << 32) * 512
                if k % 500:
                    free.append((addr, b))  # every 500th allocation is kept: never freed
                k += 1
            total += b
            if total > reserved:
                reserved += 20 << 20
            ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 962,
                       "tid": 962, "ts": round(t, 3),
                       "args": {"Total Reserved": reserved, "Total Allocated": total, "Bytes": b,
                                "Device Id": 0, "Device Type": 1, "Addr": addr,
                                "finished": False, "Ev Idx": len(ev)}})
    # Kineto's order is not time order everywhere: swap a few neighbours
    for i in range(len(ev) - 1, 0, -97):
        ev[i], ev[i - 1] = ev[i - 1], ev[i]
doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1},
       "deviceProperties": [{"id": 0, "name": "Test GPU", "totalGlobalMem": 80 << 30}], "traceEvents": ev}
with open(out, "w") as f:
    json.dump(doc, f)
