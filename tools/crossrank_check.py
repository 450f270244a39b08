#!/usr/bin/env python3
"""crossrank_check.py: an independent check of collective_waits.csv and
clock_offsets.csv against the raw Kineto traces of one run.

Usage: crossrank_check.py RUN DATA_DIR TRACE...   (traces of one run, any order)

Reads the NCCL kernels (cat "kernel" with a "Collective name" arg) of each
trace straight from the JSON, matches the n-th of each communicator
("Process Group Name") across ranks, estimates each rank's clock offset as
the median of (end - rank 0's end) over the AllReduce/AllGather/
ReduceScatter kernels (clamped to [max(start - end0), min(end - start0)]),
and computes wait = last arrival - arrival, transfer = end - offset - last
arrival (wait 0 and transfer = kernel when that is negative); the exposed
wait: [start, start + wait) less every other GPU activity of the rank
(kernels, memcpys, memsets, other NCCL kernels). Per rank, over its
ProfilerStep# ranges, the partition straggler_ranks.csv gives: busy (the
union of its non-NCCL activities), exposed waits (the union of their
exposed pieces), exposed communication (the rest of the union of all its
activities), idle (no activity). Prints the per-rank totals and exits 1
when a row of the CSVs differs by more than 0.002 us. With
CROSSRANK_COLL_OUT set to a file, appends "name n bytes transfer_ns wait_ns" for
every kernel of every matched collective. With
CROSSRANK_ALLREDUCE_OUT set to a file, appends a line "n bytes transfer_ns"
per AllReduce kernel to it (n the run's ranks, bytes = max(In, Out msg
nelems) x the dtype's size), for allreduce_busbw.csv's wait-free columns (the CSV rounds to
1 ns; the JSON's us carry 3 decimals; per-step values 0.002 us + 1 ns).
"""
import csv
import gzip
import json
import os
import sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'lib'))
from intervals import union  # noqa: E402


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f)
    rank = d.get("distributedInfo", {}).get("rank", 0)
    ks = []
    acts, steps = [], []
    for e in d["traceEvents"]:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            s = round(float(e["ts"]) * 1000)
            acts.append((s, s + round(float(e["dur"]) * 1000), e.get("cat") == "kernel" and "nccl" in e["name"].lower()))
        if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"):
            s = round(float(e["ts"]) * 1000)
            steps.append((s, s + round(float(e["dur"]) * 1000)))
        a = e.get("args", {})
        if e.get("cat") == "kernel" and "Collective name" in a:
            s = round(float(e["ts"]) * 1000)
            ks.append((s, s + round(float(e["dur"]) * 1000), a.get("Process Group Name", a.get("Process Group Description")),
                       a["Collective name"], a.get("dtype"), a.get("In msg nelems"), a.get("Out msg nelems")))
    ks.sort()
    ALL[rank] = (sorted(acts), sorted(steps))
    return rank, ks


ALL = {}  # rank -> (its GPU activities (start, end, is_nccl), its steps)


def subtract(a, b):
    """The union a less the union b, both sorted and disjoint."""
    out = []
    for s, e in a:
        for bs, be in b:
            if be <= s or bs >= e:
                continue
            if bs > s:
                out.append([s, bs])
            s = max(s, be)
            if s >= e:
                break
        if s < e:
            out.append([s, e])
    return out


def within(u, lo, hi):
    return sum(max(0, min(e, hi) - max(s, lo)) for s, e in u)


def main():
    run, data = sys.argv[1], sys.argv[2]
    ranks = dict(load(p) for p in sys.argv[3:])
    rs = sorted(ranks)
    ops = []  # per op: {rank: kernel}
    for pg in sorted({k[2] for r in rs for k in ranks[r]}):
        lists = {r: [k for k in ranks[r] if k[2] == pg] for r in rs}
        for n in range(min(len(v) for v in lists.values())):
            ops.append({r: lists[r][n] for r in rs})
    sync = ("allreduce", "allgather", "reduce_scatter", "_allgather_base", "_reduce_scatter_base")
    off = {rs[0]: 0}
    for r in rs[1:]:
        both = [o for o in ops if o[rs[0]][3] in sync] or ops
        d = sorted(o[r][1] - o[rs[0]][1] for o in both)
        med = d[(len(d) + 1) // 2 - 1]
        lo = max(o[r][0] - o[rs[0]][1] for o in both)
        hi = min(o[r][1] - o[rs[0]][0] for o in both)
        off[r] = min(max(med, lo), hi) if lo <= hi else med
    want = {}
    EXP = {}
    tot = {r: [0, 0] for r in rs}
    for n, o in enumerate(ops):
        last = max(o[r][0] - off[r] for r in rs)
        for r in rs:
            w, t = last - (o[r][0] - off[r]), o[r][1] - off[r] - last
            if t < 0:
                w, t = 0, o[r][1] - o[r][0]
            ex = []
            if w > 0:
                lo, hi = o[r][0], o[r][0] + w
                others = [(a, b) for a, b, _ in ALL[r][0] if a < hi and b > lo and (a, b) != (o[r][0], o[r][1])]
                ex = subtract([[lo, hi]], union(others))
                EXP.setdefault(r, []).extend(ex)
            want[(r, o[r][0])] = (w, t, sum(b - a for a, b in ex))
            if os.environ.get("CROSSRANK_ALLREDUCE_OUT") and o[r][3] == "allreduce":
                size = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2}.get(o[r][4], 0)
                with open(os.environ["CROSSRANK_ALLREDUCE_OUT"], "a") as f:
                    f.write("%d %d %d\n" % (len(rs), max(int(o[r][5]), int(o[r][6])) * size, t))
            if os.environ.get("CROSSRANK_COLL_OUT"):
                size = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2}.get(o[r][4], 0)
                with open(os.environ["CROSSRANK_COLL_OUT"], "a") as f:
                    f.write("%s %d %d %d %d\n" % (o[r][3], len(rs), max(int(o[r][5]), int(o[r][6])) * size, t, w))
            tot[r][0] += w
            tot[r][1] += t
    bad = 0
    with open(data + "/clock_offsets.csv") as f:
        for row in csv.DictReader(f):
            if row["run"] == run and abs(float(row["offset_us"]) * 1000 - off[int(row["rank"])]) > 2:
                print("offset differs:", row, off[int(row["rank"])] / 1000)
                bad += 1
    seen = 0
    with open(data + "/collective_waits.csv") as f:
        for row in csv.DictReader(f):
            if row["run"] != run or row["matched"] != "1":
                continue
            key = (int(row["rank"]), round(float(row["start_us"]) * 1000))
            w, t, x = want[key]
            seen += 1
            if abs(float(row["wait_us"]) * 1000 - w) > 2 or abs(float(row["transfer_us"]) * 1000 - t) > 2 or \
                    abs(float(row["exposed_wait_us"]) * 1000 - x) > 2:
                print("row differs:", row, w / 1000, t / 1000, x / 1000)
                bad += 1
    if seen != len(want):
        print("rows: csv %d, expected %d" % (seen, len(want)))
        bad += 1
    # the partition of each rank's steps (straggler_ranks.csv)
    part = {}
    for r in rs:
        acts, steps = ALL[r]
        cm = union([[a, b] for a, b, nccl in acts if not nccl])
        al = union([[a, b] for a, b, _ in acts])
        ew = union(EXP.get(r, []))
        n = len(steps)
        busy = sum(within(cm, lo, hi) for lo, hi in steps)
        a = sum(within(al, lo, hi) for lo, hi in steps)
        w = sum(within(ew, lo, hi) for lo, hi in steps)
        tot_step = sum(hi - lo for lo, hi in steps)
        part[r] = (tot_step // n, busy // n, (a - busy - w) // n, w, tot_step - a)
    with open(data + "/straggler_ranks.csv") as f:
        for row in csv.DictReader(f):
            if row["run"] != run:
                continue
            r = int(row["rank"])
            st, busy, comm, w, idle = part[r]
            n = len(ALL[r][1])
            got = [float(row[c]) * 1000 for c in ("busy_per_step_us", "exposed_comm_per_step_us",
                                                   "exposed_wait_per_step_us", "idle_per_step_us")]
            exp_ = [busy, comm, w / n, idle / n]
            if any(abs(g - e) > 3 for g, e in zip(got, exp_)):
                print("partition differs:", r, [g / 1000 for g in got], [e / 1000 for e in exp_])
                bad += 1
    for r in rs:
        print("%s rank %d: offset %.3f us, wait %.3f us, transfer %.3f us over %d collectives; per step: "
              "busy %.3f, exposed communication %.3f, exposed wait %.3f, idle %.3f us"
              % (run, r, off[r] / 1000, tot[r][0] / 1000, tot[r][1] / 1000, len(ops), part[r][1] / 1000,
                 part[r][2] / 1000, part[r][3] / len(ALL[r][1]) / 1000, part[r][4] / len(ALL[r][1]) / 1000))
    sys.exit(1 if bad else 0)


main()
