#!/usr/bin/env python3
"""trace_export_check.py: checks a merged trace (traces/<run>.trace.json.gz)
against the raw Kineto traces it was made from, without perfstudy's code.

Usage: trace_export_check.py EXPORT DATA_DIR RUN RAW_TRACE...
       trace_export_check.py --overlaps EXPORT...   (only the overlap check below)

DATA_DIR is the experiment's data/ (clock_offsets.csv, collective_waits.csv,
findings.csv: the numbers the export says it used). Checks:
  - the file is gzip, strict JSON (no NaN), UTF-8, Chrome trace-event format
    (ph, pid, tid, ts on every event; dur >= 0 on "X");
  - one process per raw trace, named "rank N" (N: distributedInfo.rank),
    and one named "perfstudy analysis";
  - every raw event of a kind the store keeps (kernel, gpu_memcpy,
    gpu_memset, cuda_runtime, cuda_driver, user_annotation,
    gpu_user_annotation) is there with its name and duration, at
    raw ts - the rank's offset - time_base_ns, to the nanosecond (the
    offset: clock_offsets.csv's offset_us where |offset_us| > residual_us,
    else 0, as otherData.clock_offsets_ns must say) (or, in
    a cut export, exactly those starting before cut_at_us), and nothing
    else; of the host operators (cpu_op) the store keeps each thread's
    outermost ones (docs/schema.md): each of those is there, and every
    exported one is a raw one;
  - the ranks' synchronising NCCL kernels (AllReduce, AllGather,
    ReduceScatter), paired here by order per process group from the raw
    args, end together after the shift: per rank, the 90th percentile of
    |end - the lowest rank's end| is within the rank's residual_us (the
    offset's stated error) + the offset left unapplied + 1 us;
  - the added tracks exist (waits, exposed waits, critical path; straggler
    windows and the path across ranks where the tables have rows; the path
    across ranks ends at a step's end, so a cut export may have none), the
    exposed waits of each rank sum to collective_waits.csv's exposed_wait_us;
  - the counters "memory: GPU D": one per change of a GPU's allocator
    totals in the raw trace ("[memory]" events of device type 1), at its
    time, with its Total Allocated and Total Reserved; where the file says
    it bounded them, a subset holding the peak;
  - otherData's counts: events_in_store_by_rank per rank, in an uncut file
    the rank's events in the file and those of the raw trace (host
    operators: the file's, checked above), at least those in a cut one;
    their sum events_in_store;
  - each findings.csv row of the run is an instant whose args carry its text;
  - no two slices ("X") of a track perfstudy adds (cat "perfstudy") on one
    (pid, tid) overlap in part: Chrome's format nests a thread's slices, so
    one may hold another whole, or end where the next starts, but not end
    inside it (the input's own lanes hold the events as recorded).
Prints one line per run; exits 1 on the first failure, naming it.
"""
import csv
import gzip
import json
import os
import sys
from collections import Counter, defaultdict
from decimal import Decimal

KEPT = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime", "cuda_driver", "user_annotation",
        "gpu_user_annotation", "cpu_op"}
SYNC = ("AllReduce", "AllGather", "ReduceScatter", "allreduce", "allgather", "reduce_scatter", "_allgather_base",
        "_reduce_scatter_base")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def ns(x):
    """A Kineto time (us, decimal text in the JSON) in integer ns, exactly."""
    return int((Decimal(x) * 1000).to_integral_value())


def load_raw(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as f:
        return json.loads(f.read(), parse_float=Decimal)


def partial_overlaps(events):
    """The first partial overlap among the perfstudy slices of each (pid, tid): [(track, a, b)]."""
    by = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "perfstudy":
            s = ns(e["ts"])
            by[(e["pid"], e["tid"])].append((s, s + ns(e["dur"]), e["name"]))
    out = []
    for k, v in sorted(by.items()):
        v.sort(key=lambda x: (x[0], -x[1]))
        open_ = []  # the slices holding the current start, innermost last
        for sl in v:
            while open_ and open_[-1][1] <= sl[0]:
                open_.pop()
            if open_ and sl[1] > open_[-1][1]:
                out.append((k, open_[-1], sl))
                break
            open_.append(sl)
    return out


def check_overlaps(path, events):
    bad = partial_overlaps(events)
    if bad:
        (pid, tid), a, b = bad[0]
        fail("%s: %d tracks with slices that overlap in part, e.g. pid %d tid %d: %r [%d, %d) ns and %r [%d, %d) ns"
             % (path, len(bad), pid, tid, a[2], a[0], a[1], b[2], b[0], b[1]))


def main():
    if sys.argv[1] == "--overlaps":
        n = 0
        for path in sys.argv[2:]:
            with gzip.open(path, "rb") as f:
                events = json.loads(f.read(), parse_float=Decimal)["traceEvents"]
            check_overlaps(path, events)
            n += sum(1 for e in events if e.get("ph") == "X" and e.get("cat") == "perfstudy")
        print("%d files, %d added slices: none overlaps another of its track in part" % (len(sys.argv) - 2, n))
        return
    export, data, run = sys.argv[1:4]
    raws = sys.argv[4:]
    with gzip.open(export, "rb") as f:
        text = f.read().decode("utf-8")  # strict UTF-8

    def no_nan(c):
        fail("%s: %s in the JSON" % (export, c))
    doc = json.loads(text, parse_float=Decimal, parse_constant=no_nan)
    other = doc.get("otherData", {})
    base = int(other["time_base_ns"])
    cut = ns(other["cut_at_us"]) if "cut_at_us" in other else None
    events = doc["traceEvents"]
    for e in events:
        if not isinstance(e.get("ph"), str) or not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            fail("event without ph, pid or tid: %r" % e)
        if e["ph"] != "M" and not isinstance(e.get("ts"), Decimal):
            fail("event without a numeric ts: %r" % e)
        if e["ph"] == "X" and (not isinstance(e.get("dur"), Decimal) or e["dur"] < 0):
            fail("complete event without dur >= 0: %r" % e)
    procs = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name"}
    pid_of = {}
    for pid, name in procs.items():
        if name.startswith("rank "):
            if int(name[5:]) in pid_of:
                fail("two processes named %s" % name)
            pid_of[int(name[5:])] = pid
    if "perfstudy analysis" not in procs.values():
        fail("no process 'perfstudy analysis'")

    offsets = {}
    for r in csv.DictReader(open(os.path.join(data, "clock_offsets.csv"))) if os.path.exists(
            os.path.join(data, "clock_offsets.csv")) else []:
        if r["run"] == run and r["offset_us"] != "":
            est, resid = ns(r["offset_us"]), ns(r["residual_us"])
            # the offset applied: the estimate where it exceeds its residual (else one clock can't be ruled out)
            offsets[int(r["rank"])] = (est if abs(est) > resid else 0, resid, est)
    said = {int(k): int(v) for k, v in other.get("clock_offsets_ns", {}).items()}
    for rank, (app, _, est) in offsets.items():
        if said.get(rank, 0) != app:
            fail("%s rank %d: otherData.clock_offsets_ns says %r, want %d (estimate %d, residual %d)"
                 % (run, rank, said.get(rank), app, est, offsets[rank][1]))

    by_pid = defaultdict(list)
    for e in events:
        by_pid[e["pid"]].append(e)
    ranks = {}
    nccl = {}
    for path in raws:
        raw = load_raw(path)
        rank = int(raw.get("distributedInfo", {}).get("rank", 0))
        if rank not in pid_of:
            fail("%s: no process 'rank %d'" % (path, rank))
        off = offsets.get(rank, (0, 0))[0]
        want = Counter()
        ops = defaultdict(list)
        coll = defaultdict(list)
        mem = []
        for i, e in enumerate(raw["traceEvents"]):
            a = e.get("args", {})
            if (e.get("name") == "[memory]" and a.get("Device Type") == 1 and isinstance(a.get("Device Id"), int)
                    and a["Device Id"] >= 0 and isinstance(a.get("Total Allocated"), int) and "ts" in e):
                t = ns(e["ts"]) - off - base
                if cut is None or t < cut:
                    mem.append((a["Device Id"], ns(e["ts"]), i, t, a["Total Allocated"], a.get("Total Reserved")))
            if e.get("ph") != "X" or e.get("cat") not in KEPT or "ts" not in e or "dur" not in e:
                continue
            t = ns(e["ts"]) - off - base
            if cut is not None and t >= cut:
                continue
            if e["cat"] == "cpu_op":
                ops[e.get("tid")].append((t, -ns(e["dur"]), e["name"]))
                continue
            want[(e["cat"], e["name"], ns(e["dur"]), t)] += 1
            a = e.get("args", {})
            if e["cat"] == "kernel" and a.get("Collective name") in SYNC:
                pg = a.get("Process Group Name", a.get("Process Group Description", ""))
                coll[pg].append((ns(e["ts"]), e["name"], ns(e["dur"])))
        got = Counter((e["cat"], e["name"], ns(e["dur"]), ns(e["ts"])) for e in by_pid[pid_of[rank]]
                      if e["ph"] == "X" and e.get("cat") in KEPT)
        # host operators: the outermost of each thread must be there (ties of start and duration: one of them)
        raw_ops, must = Counter(), []
        for tid, v in ops.items():
            v.sort()
            end = None
            for i, (t, mdur, name) in enumerate(v):
                raw_ops[("cpu_op", name, -mdur, t)] += 1
                if end is None or t - mdur > end:
                    end = t - mdur
                    tie = [x for x in v[max(0, i - 1):i + 2] if x[:2] == (t, mdur)]
                    must.append([("cpu_op", n, -d, t) for t, d, n in tie])
        got_ops = Counter({k: c for k, c in got.items() if k[0] == "cpu_op"})
        got = got - got_ops
        if got_ops - raw_ops:
            fail("%s rank %d: host operators not in the raw trace: %r" % (run, rank, list(got_ops - raw_ops)[:3]))
        lost = [m for m in must if not any(got_ops[k] for k in m)]
        if lost:
            fail("%s rank %d: %d outermost host operators missing, e.g. %r" % (run, rank, len(lost), lost[:2]))
        want_ops = sum(got_ops.values())
        if want != got:
            miss = list((want - got).items())[:3]
            extra = list((got - want).items())[:3]
            fail("%s rank %d: the export's events differ from the raw trace's: missing %r, extra %r (of %d)"
                 % (run, rank, miss, extra, sum(want.values())))
        ranks[rank] = sum(want.values()) + want_ops
        # the allocator's counters: each change of a GPU's totals, in order (a bounded file: some of them, the peak)
        changes, last = [], {}
        for dev, _, _, t, alloc, res in sorted(mem):
            if last.get(dev) != (alloc, res):
                last[dev] = (alloc, res)
                changes.append(("memory: GPU %d" % dev, t, alloc, res))
        counters = [(e["name"], ns(e["ts"]), e["args"]["allocated_bytes"], e["args"].get("reserved_bytes"))
                    for e in by_pid[pid_of[rank]] if e["ph"] == "C"]
        bounded = any(e["ph"] == "M" and e["name"] == "process_labels" and e["args"]["labels"].startswith("memory counters:")
                      for e in events)
        if counters != changes and not (bounded and set(counters) <= set(changes) and
                                        max(c[2] for c in counters) == max(c[2] for c in changes)):
            fail("%s rank %d: %d memory counter events, the raw trace's allocator changes %d: e.g. %r against %r"
                 % (run, rank, len(counters), len(changes), counters[:2], changes[:2]))
        # the counts the file states: per rank, what the store holds (uncut: every event written, which is
        # every raw event of a kept kind but the inner host operators; cut: at least those written)
        by_rank = other.get("events_in_store_by_rank", {})
        written = sum(1 for e in by_pid[pid_of[rank]] if e["ph"] == "X" and e.get("cat") != "perfstudy")
        stated = by_rank.get(str(rank))
        if stated is None or (cut is None and not stated == written == ranks[rank]) or (cut is not None and stated < written):
            fail("%s rank %d: otherData.events_in_store_by_rank says %r, the file holds %d of its events, the raw "
                 "trace %d (the host operators the store keeps counted as the file's)" % (run, rank, stated, written,
                                                                                           ranks[rank]))
        # each synchronising collective's end on the export's clock (the raw kernel, shifted)
        nccl[rank] = {pg: [ts + dur - off - base for ts, _, dur in sorted(v)] for pg, v in coll.items()}
    if len(pid_of) != len(raws):
        fail("%d processes named 'rank N' for %d traces" % (len(pid_of), len(raws)))
    if sum(other["events_in_store_by_rank"].values()) != other["events_in_store"]:
        fail("%s: events_in_store %d, its ranks' %r" % (run, other["events_in_store"], other["events_in_store_by_rank"]))

    # collective ends line up within the offsets' stated error
    ref = min(nccl)
    worst = []
    for rank in sorted(nccl):
        if rank == ref or rank not in offsets:
            continue
        diffs = []
        for pg, ends in nccl[rank].items():
            refs = nccl[ref].get(pg, [])
            if len(refs) != len(ends):
                continue  # this pairing needs the same count; perfstudy's warns otherwise
            diffs += [abs(a - b) for a, b in zip(ends, refs)]
        if not diffs:
            continue
        diffs.sort()
        p90 = diffs[min(len(diffs) - 1, int(0.9 * len(diffs)))]
        resid = offsets[rank][1] + abs(offsets[rank][2] - offsets[rank][0])
        if p90 > resid + 1000:
            fail("%s rank %d: the collectives' ends differ by %.3f us (90th percentile) after the shift, more than "
                 "the offset's residual and the offset not applied, %.3f us" % (run, rank, p90 / 1e3, resid / 1e3))
        worst.append("rank %d p90 %.3f us (allowed %.3f)" % (rank, p90 / 1e3, resid / 1e3))

    # added tracks
    names = set(threads.values())
    need = ["perfstudy: critical path"] if any(
        r["run"] == run for r in csv.DictReader(open(os.path.join(data, "critical_path.csv")))) else []
    waits = [r for r in csv.DictReader(open(os.path.join(data, "collective_waits.csv")))
             if r["run"] == run] if os.path.exists(os.path.join(data, "collective_waits.csv")) else []
    if any(r["wait_us"] not in ("", "0.000") for r in waits):
        need += ["perfstudy: waits inside collectives", "perfstudy: exposed waits"]
    if os.path.exists(os.path.join(data, "stragglers.csv")) and any(
            r["run"] == run and r["caused_wait_us"] not in ("", "0.000")
            for r in csv.DictReader(open(os.path.join(data, "stragglers.csv")))):
        need.append("perfstudy: straggler windows")
    if cut is None and os.path.exists(os.path.join(data, "critical_path_across.csv")) and any(
            r["run"] == run for r in csv.DictReader(open(os.path.join(data, "critical_path_across.csv")))):
        need.append("perfstudy: critical path across ranks")
    for n in need:
        if n not in names:
            fail("%s: no track '%s' (tracks: %s)" % (run, n, sorted(names)))
    if cut is None:
        for rank, pid in pid_of.items():
            lane = [t for (p, t), n in threads.items() if p == pid and n == "perfstudy: exposed waits"]
            got = sum(ns(e["dur"]) for e in by_pid[pid] if lane and e["ph"] == "X" and e["tid"] == lane[0])
            want = sum(ns(r["exposed_wait_us"]) for r in waits if int(r["rank"]) == rank and r["exposed_wait_us"])
            nrows = sum(1 for r in waits if int(r["rank"]) == rank)
            if abs(got - want) > nrows:
                fail("%s rank %d: exposed waits sum to %.3f us, collective_waits.csv says %.3f us"
                     % (run, rank, got / 1e3, want / 1e3))

    check_overlaps(export, events)

    # a marker per finding, its text in args
    texts = Counter(e["args"].get("finding") for e in events if e["ph"] == "i")
    for r in csv.DictReader(open(os.path.join(data, "findings.csv"))) if os.path.exists(
            os.path.join(data, "findings.csv")) else []:
        if r["run"] == run:
            if texts[r["finding"]] < 1:
                fail("%s: no marker for the finding %r" % (run, r["finding"][:80]))
            texts[r["finding"]] -= 1
    print("%s: %d ranks, %d events match the raw traces%s; %s" % (
        run, len(ranks), sum(ranks.values()), " (cut)" if cut is not None else "",
        ", ".join(worst) if worst else "one rank"))


if __name__ == "__main__":
    main()
