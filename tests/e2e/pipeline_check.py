#!/usr/bin/env python3
"""pipeline_check.py: pipeline stages and bubbles computed from raw Kineto traces (t_pipeline.sh).

Usage: pipeline_check.py RANKFILE...   (the .json or .json.gz traces of one run)

Prints rank,stage,stages,schedule,microbatches,bubble_share per rank, one
line each in stage order, from the trace files alone (not perfstudy's
output), by the definitions of pipeline_stages.csv (docs/output.md), written
again here independently in plain Python (standard library only):
  - a send/recv is a kernel whose args have "Collective name" send or recv,
    its peer "Dst Rank" (send) or "Src Rank" (recv) and its "Seq" taken
    from its own args, else (as PyTorch 2.11 writes them) from those of the
    record_param_comms cpu_op with its "External id", wherever that is in
    the file; its issue time the host start of the cudaLaunchKernel (or
    cuLaunchKernelEx) with its correlation;
  - a coalesced kernel (a batch_isend_irecv: ncclDevKernel_SendRecv with no
    "Collective name") is the send or recv of its batch: the
    gpu_user_annotation "nccl:coalesced" on its stream that covers its
    start gives an External id; the user_annotation "nccl:coalesced" of
    that id on the host, and the record_param_comms send/recv ops on its
    thread from the previous such annotation's end to its start, are the
    batch (taken when they all talk to one peer): a send or a recv, or,
    when the batch has both, one op that is a send and a recv at once
    (Schedule1F1B's fused batches);
  - ranks that send to each other both ways are neighbours; the path they
    form is the pipeline; stage 0 is the end whose first op in its first
    step with ops is a send;
  - per ProfilerStep#N on every stage, a stage's pipeline kernels are its
    non-NCCL kernels launched inside the step before its first
    Optimizer.step# annotation in it; span from the earliest start to the
    latest end over the stages; bubble = 1 - |union of the stage's| / span;
  - m = distinct Seq of stage 0's sends to stage 1 in the step, k = those
    issued before its first recv from stage 1; k < m: 1F1B, else GPipe;
  - each value is the median over the steps (all ranks share one clock).
"""
import gzip
import json
import statistics
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def coalesced_batch(ev, k):
    """The args of the record_param_comms send/recv ops of kernel k's batch, or None."""
    gpu = [e for e in ev if e["cat"] == "gpu_user_annotation" and e["name"] == "nccl:coalesced"
           and e["tid"] == k["tid"] and e["ts"] <= k["ts"] <= e["ts"] + e["dur"]]
    if not gpu:
        return None
    ext = max(gpu, key=lambda e: e["ts"])["args"]["External id"]
    host = [e for e in ev if e["cat"] == "user_annotation" and e["name"] == "nccl:coalesced"]
    mine = [e for e in host if e["args"].get("External id") == ext]
    if not mine:
        return None
    h = mine[0]
    before = [e["ts"] + e["dur"] for e in host if e["tid"] == h["tid"] and e["ts"] < h["ts"]]
    lo = max(before) if before else float("-inf")
    return [e["args"] for e in ev if e["cat"] == "cpu_op" and e["name"] == "record_param_comms"
            and e["tid"] == h["tid"] and lo <= e["ts"] <= h["ts"]
            and e["args"].get("Collective name") in ("send", "recv")]


def union_within(ivs, lo, hi):
    total, end = 0, None
    for s, e in sorted(ivs):
        s, e = max(s, lo), min(e, hi)
        if e <= s:
            continue
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def main():
    ranks = {}
    for path in sys.argv[1:]:
        doc = load(path)
        rank = doc["distributedInfo"]["rank"]
        ev = [e for e in doc["traceEvents"] if e.get("ph") == "X"]
        launch = {e["args"]["correlation"]: e["ts"] for e in ev if e["cat"] in ("cuda_runtime", "cuda_driver")}
        comms = {}
        for e in ev:
            if e["cat"] == "cpu_op" and e["name"] == "record_param_comms":
                comms.setdefault(e["args"]["External id"], e["args"])
        steps = {int(e["name"].split("#")[1]): (e["ts"], e["ts"] + e["dur"]) for e in ev
                 if e["cat"] == "user_annotation" and e["name"].startswith("ProfilerStep#")}
        opt = sorted(e["ts"] for e in ev if e["cat"] == "user_annotation" and e["name"].startswith("Optimizer.step#"))
        ops, kerns = [], []
        for e in ev:
            if e["cat"] != "kernel":
                continue
            a = e.get("args", {})
            when = launch.get(a.get("correlation"), e["ts"])
            coll = a.get("Collective name")
            if coll is None and e["name"].startswith("ncclDevKernel_SendRecv"):
                batch = coalesced_batch(ev, e)
                peers = {b.get("Dst Rank", b.get("Src Rank")) for b in (batch or [])}
                if len(peers) == 1:
                    dirs = {b["Collective name"] for b in batch}
                    ops.append((when, dirs.pop() if len(dirs) == 1 else "sendrecv", peers.pop(), None))
                continue
            if coll in ("send", "recv"):
                op = comms.get(a.get("External id"), {})
                key = "Dst Rank" if coll == "send" else "Src Rank"
                ops.append((when, coll, a.get(key, op.get(key)), a.get("Seq", op.get("Seq"))))
            elif "nccl" not in e["name"].lower():
                kerns.append((when, e["ts"], e["ts"] + e["dur"]))
        ops.sort()
        ranks[rank] = {"steps": steps, "opt": opt, "ops": ops, "kerns": kerns}
    sends = {r: {o[2] for o in d["ops"] if o[1] in ("send", "sendrecv")} for r, d in ranks.items()}
    nbr = {r: sorted(q for q in sends[r] if q in ranks and r in sends[q]) for r in ranks}
    ends = [r for r in sorted(ranks) if len(nbr[r]) == 1]
    assert len(ends) == 2 and all(len(v) <= 2 for v in nbr.values()), "not one chain"

    def first_is_send(r):
        d = ranks[r]
        for n in sorted(d["steps"]):
            s, e = d["steps"][n]
            inside = [o for o in d["ops"] if s <= o[0] < e]
            if inside:
                return inside[0][1] in ("send", "sendrecv")
        return False

    start = ends[0] if first_is_send(ends[0]) or not first_is_send(ends[1]) else ends[1]
    chain, prev = [start], None
    while True:
        nxt = [q for q in nbr[chain[-1]] if q != prev]
        if not nxt:
            break
        prev = chain[-1]
        chain.append(nxt[0])
    p = len(chain)
    bubbles = {r: [] for r in chain}
    ms, scheds = [], []
    for n in sorted(ranks[chain[0]]["steps"]):
        if any(n not in ranks[r]["steps"] for r in chain):
            continue
        sets = {}
        for r in chain:
            s, e = ranks[r]["steps"][n]
            lim = next((t for t in ranks[r]["opt"] if s <= t < e), e)
            sets[r] = [(ks, ke) for (w, ks, ke) in ranks[r]["kerns"] if s <= w < lim]
        if any(not sets[r] for r in chain):
            continue
        lo = min(ks for r in chain for ks, _ in sets[r])
        hi = max(ke for r in chain for _, ke in sets[r])
        for r in chain:
            bubbles[r].append(1 - union_within(sets[r], lo, hi) / (hi - lo))
        s, e = ranks[chain[0]]["steps"][n]
        mine = [o for o in ranks[chain[0]]["ops"] if s <= o[0] < e and o[2] == chain[1]]
        snd = [o for o in mine if o[1] in ("send", "sendrecv")]
        rcv = [o[0] for o in mine if o[1] in ("recv", "sendrecv")]
        m = len({o[3] for o in snd}) if all(o[3] is not None for o in snd) else len(snd)
        k = len([o for o in snd if not rcv or o[0] < min(rcv)])
        ms.append(m)
        scheds.append("1F1B" if k < m else "GPipe")
    m = sorted(ms)[(len(ms) - 1) // 2]
    sched = "1F1B" if scheds.count("1F1B") > scheds.count("GPipe") else "GPipe"
    print("rank,stage,stages,schedule,microbatches,bubble_share")
    for i, r in enumerate(chain):
        print("%d,%d,%d,%s,%d,%.9f" % (r, i, p, sched, m, statistics.median(bubbles[r])))


if __name__ == "__main__":
    main()
