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
arrival (wait 0 and transfer = kernel when that is negative). Prints the
per-rank totals and exits 1 when a row of the CSVs differs by more than
0.002 us (the CSV rounds to 1 ns; the JSON's us carry 3 decimals).
"""
import csv
import gzip
import json
import sys


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f)
    rank = d.get("distributedInfo", {}).get("rank", 0)
    ks = []
    for e in d["traceEvents"]:
        a = e.get("args", {})
        if e.get("cat") == "kernel" and "Collective name" in a:
            s = round(float(e["ts"]) * 1000)
            ks.append((s, s + round(float(e["dur"]) * 1000), a.get("Process Group Name", a.get("Process Group Description")),
                       a["Collective name"], a.get("dtype"), a.get("In msg nelems"), a.get("Out msg nelems")))
    ks.sort()
    return rank, ks


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
    tot = {r: [0, 0] for r in rs}
    for n, o in enumerate(ops):
        last = max(o[r][0] - off[r] for r in rs)
        for r in rs:
            w, t = last - (o[r][0] - off[r]), o[r][1] - off[r] - last
            if t < 0:
                w, t = 0, o[r][1] - o[r][0]
            want[(r, o[r][0])] = (w, t)
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
            w, t = want[key]
            seen += 1
            if abs(float(row["wait_us"]) * 1000 - w) > 2 or abs(float(row["transfer_us"]) * 1000 - t) > 2:
                print("row differs:", row, w / 1000, t / 1000)
                bad += 1
    if seen != len(want):
        print("rows: csv %d, expected %d" % (seen, len(want)))
        bad += 1
    for r in rs:
        print("%s rank %d: offset %.3f us, wait %.3f us, transfer %.3f us over %d collectives"
              % (run, r, off[r] / 1000, tot[r][0] / 1000, tot[r][1] / 1000, len(ops)))
    sys.exit(1 if bad else 0)


main()
