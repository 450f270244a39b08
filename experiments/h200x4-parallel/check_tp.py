#!/usr/bin/env python3
"""check_tp.py RUNDIR: an independent check of a tensor-parallel run of
train_par.py against its truth.json, from the raw traces alone (json and
gzip; nothing of perfstudy's).

Per rank (RUNDIR/rank<N>.pt.trace.json.gz) and profiled step
(ProfilerStep#K), the all-reduces issued inside the "forward" and the
"backward" annotations of the step, each with its element count:
  NCCL  the record_param_comms cpu_ops of Collective name "allreduce",
        their "In msg nelems";
  gloo  (a --device cpu check, whose traces have no record_param_comms)
        the c10d::allreduce_ ops, the product of their first input's dims.
Want: per step, layers x tp_allreduces_per_block_forward in the forward
and layers x tp_allreduces_per_block_backward in the backward, every one
of tp_allreduce_nelems elements (b x s x h): Megatron's two per block each
way. Prints a line per rank; exits 1 on a difference, 2 when a file is
missing or holds no profiled step.
Ours (perfstudy issue #42)."""
import glob, gzip, json, math, os, sys


def allreduces(doc):
    """(ts, nelems) of every all-reduce the trace issues, NCCL's or gloo's."""
    ev = doc["traceEvents"]
    out = [(e["ts"], e["args"].get("In msg nelems")) for e in ev
           if e.get("name") == "record_param_comms" and e.get("args", {}).get("Collective name") == "allreduce"]
    if not out:
        for e in ev:
            if e.get("name") == "c10d::allreduce_":
                dims = (e.get("args", {}).get("Input Dims") or [[None]])[0]
                dims = dims[0] if dims and isinstance(dims[0], list) else dims
                out.append((e["ts"], math.prod(dims) if dims and None not in dims else None))
    return out


def main():
    run = sys.argv[1]
    truth = json.load(open(os.path.join(run, "truth.json")))
    if truth.get("mode") != "tp" or not truth.get("tp_allreduce_nelems"):
        print("%s: not a tensor-parallel run of 2 or more ranks (truth.json)" % run)
        return 2
    want_n = truth["tp_allreduce_nelems"]
    want = {"forward": truth["layers"] * truth["tp_allreduces_per_block_forward"],
            "backward": truth["layers"] * truth["tp_allreduces_per_block_backward"]}
    files = sorted(glob.glob(os.path.join(run, "rank*.pt.trace.json*")))
    if len(files) != truth["world"]:
        print("%s: %d traces, truth.json says %d ranks" % (run, len(files), truth["world"]))
        return 2
    bad = 0
    for f in files:
        doc = json.load(gzip.open(f, "rt") if f.endswith(".gz") else open(f))
        ev = doc["traceEvents"]
        ann = [e for e in ev if e.get("cat") == "user_annotation" and e.get("ph") == "X"]
        steps = [e for e in ann if e["name"].startswith("ProfilerStep#")]
        if not steps:
            print("%s: no profiled step" % f)
            return 2
        ars = allreduces(doc)
        for st in sorted(steps, key=lambda e: e["ts"]):
            lo, hi = st["ts"], st["ts"] + st["dur"]
            for phase in ("forward", "backward"):
                rng = [(e["ts"], e["ts"] + e["dur"]) for e in ann if e["name"] == phase and lo <= e["ts"] < hi]
                got = [n for ts, n in ars if any(a <= ts <= b for a, b in rng)]
                sizes = sorted(set(got), key=str)
                ok = len(got) == want[phase] and sizes == [want_n]
                bad += not ok
                print("%s %s %s: %d all-reduces of %s elements (want %d of %d)%s" % (
                    os.path.basename(f), st["name"], phase, len(got), ",".join(map(str, sizes)) or "-",
                    want[phase], want_n, "" if ok else "  <- differs"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
