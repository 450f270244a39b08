#!/usr/bin/env python3
"""memory_check.py: an independent check of memory_steps.csv and
memory_ranks.csv against the raw Kineto traces of one run (json and gzip
only, none of perfstudy's output but the rows under test).

Usage: memory_check.py RUN DATA_DIR TRACE...   (the run's traces, any order)

Per trace (its rank: distributedInfo.rank, else 0): the "[memory]" instant
events of a GPU (args "Device Type" 1, "Device Id" >= 0), in order of ts
(file order on ties), and the host ProfilerStep#N ranges (cat
user_annotation). Per step, with times as exact decimals of microseconds:
  start   the "Total Allocated" of the last event before the step's start;
          with none before, the first event's total minus its "Bytes"
  peak    the largest of start and the totals of the events in [start, end]
  peak_at the time of the first event that reached it (the start when none
          exceeded start), from the step's start
  region  the innermost host annotation holding that instant among the
          default phases' names (get_train_batch, forward, backward,
          optimizer_step, DistributedDataParallel.forward,
          FullyShardedDataParallel.forward, Optimizer.step#*,
          enumerate(DataLoader)*), else "outside"
  end     the total of the last event at or before the step's end
  reserved the same peak of "Total Reserved"
and per rank: the bytes of allocations made in a step before the last
whose address no later event frees, per step before the last
(kept_bytes_per_step). Every row of memory_steps.csv for RUN must match
(integers exactly, peak_at_us within 0.002 us), and every rank must have
its rows; memory_ranks.csv's kept_bytes_per_step likewise. Prints one line
per rank; exits 1 on a difference.
"""
import csv
import gzip
import json
import sys
from decimal import Decimal

PHASES = {"get_train_batch": "get_train_batch", "forward": "forward", "backward": "backward",
          "optimizer_step": "optimizer_step", "DistributedDataParallel.forward": "forward",
          "FullyShardedDataParallel.forward": "forward"}
PREFIXES = {"Optimizer.step#": "optimizer_step", "enumerate(DataLoader)": "get_train_batch"}


def phase_of(name):
    if name in PHASES:
        return PHASES[name]
    for p, ph in PREFIXES.items():
        if name.startswith(p):
            return ph
    return None


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


def check_trace(path):
    d = load(path)
    rank = int((d.get("distributedInfo") or {}).get("rank", 0))
    steps, annots, mem = [], [], []
    for i, e in enumerate(d["traceEvents"]):
        name, cat = e.get("name", ""), e.get("cat", "")
        if e.get("ph") == "X" and cat == "user_annotation":
            ts, dur = Decimal(e["ts"]), Decimal(e["dur"])
            if name.startswith("ProfilerStep#"):
                steps.append((ts, ts + dur, int(name[13:])))
            elif phase_of(name):
                annots.append((ts, ts + dur, phase_of(name)))
        elif e.get("ph") == "i" and cat == "cpu_instant_event" and name == "[memory]":
            a = e["args"]
            if a.get("Device Type") == 1 and a.get("Device Id", -1) >= 0:
                mem.append((Decimal(e["ts"]), i, a["Bytes"], a.get("Addr"), a["Total Allocated"], a.get("Total Reserved", 0)))
    mem.sort(key=lambda m: (m[0], m[1]))
    steps.sort()
    rows = {}
    if not mem:
        return rank, rows, None
    for (s, e, n) in steps:
        before = [m for m in mem if m[0] < s]
        start = before[-1][4] if before else mem[0][4] - mem[0][2]
        start_res = before[-1][5] if before else mem[0][5]
        inside = [m for m in mem if s <= m[0] <= e]
        peak, peak_t, res = start, s, start_res
        for m in inside:
            if m[4] > peak:
                peak, peak_t = m[4], m[0]
            res = max(res, m[5])
        upto = [m for m in mem if m[0] <= e]
        end = upto[-1][4] if upto else mem[0][4] - mem[0][2]
        holding = [a for a in annots if a[0] <= peak_t <= a[1]]
        region = max(holding, key=lambda a: a[0])[2] if holding else "outside"
        rows[n] = dict(events=len(inside), start_allocated_bytes=start, peak_allocated_bytes=peak,
                       peak_at_us=peak_t - s, peak_region=region, end_allocated_bytes=end,
                       peak_reserved_bytes=res)
    live = {}
    for m in mem:
        if m[3] is None:
            continue
        if m[2] > 0:
            live[m[3]] = (m[2], m[0])
        elif m[2] < 0:
            live.pop(m[3], None)
    kept = None
    if len(steps) >= 2:
        early = steps[:-1]
        kept = sum(b for b, t in live.values() if any(s <= t <= e for s, e, _ in early)) // len(early)
    return rank, rows, kept


def main():
    run, data = sys.argv[1], sys.argv[2]
    got = [r for r in csv.DictReader(open(data + "/memory_steps.csv")) if r["run"] == run]
    ranks = {r["rank"]: r for r in csv.DictReader(open(data + "/memory_ranks.csv")) if r["run"] == run}
    bad = 0
    seen = 0
    for path in sys.argv[3:]:
        rank, want, kept = check_trace(path)
        mine = {int(r["step"]): r for r in got if int(r["rank"]) == rank}
        if set(mine) != set(want):
            print("%s rank %d: steps %s, expected %s" % (run, rank, sorted(mine), sorted(want)))
            bad += 1
            continue
        seen += len(mine)
        for n, w in want.items():
            r = mine[n]
            for k, v in w.items():
                if k == "peak_at_us":
                    ok = abs(Decimal(r[k]) - v) <= Decimal("0.002")
                elif k == "peak_region":
                    ok = r[k] == v
                else:
                    ok = int(r[k]) == v
                if not ok:
                    print("%s rank %d step %d: %s %s, expected %s" % (run, rank, n, k, r[k], v))
                    bad += 1
        if kept is not None and want:
            k = ranks.get(str(rank), {}).get("kept_bytes_per_step")
            if k is None or int(k) != kept:
                print("%s rank %d: kept_bytes_per_step %s, expected %d" % (run, rank, k, kept))
                bad += 1
        print("%s rank %d: %d steps agree%s" % (run, rank, len(want), "" if kept is None else ", kept %d B/step" % kept))
    if seen != len(got):
        print("%s: %d rows in memory_steps.csv, %d checked" % (run, len(got), seen))
        bad += 1
    sys.exit(1 if bad else 0)


main()
