#!/bin/bash
# t_strategy_gpu1.sh: the strategy inferred from the wrappers' annotations
# (issue #57 item 7) on a recording made after that rule was written:
# experiments/gpu1-wrappers, one small model (not the bundled runs' GPT-2)
# under DDP, ZeroRedundancyOptimizer with and without DDP, FSDP1 in its
# three sharding strategies and FSDP2 with and without resharding, all at
# world size 1 (SOURCE.md). With one rank no wrapper shards or reduces
# anything: PyTorch's FSDP switches itself to NO_SHARD, FSDP2 gathers
# nothing, NCCL launches no kernel. Before the fix perfstudy called these
# runs ddp, zero1, fsdp (ZeRO-3) and zero2 (fsdp2-zero3 too).
# Expected, from the raw files: truth.json's world size (1: strategy
# single), and the wrapper's annotation that the trace holds, which
# strategy_source must name; the run without a wrapper, on one GPU
# (truth.json's world 1), is single too, from no wrapper (its log names
# none; h57rest a: it was left without a strategy).
. "$(dirname "$0")/lib.sh"

E=$(unpacked experiments/gpu1-wrappers/traces)
if [ ! -f "$E/ddp/rank0.pt.trace.json.gz" ]; then
	bad "experiments/gpu1-wrappers/traces.tar.xz could not be unpacked"
	finish
	exit $?
fi
sed "s#\"traces/#\"$E/#g" experiments/gpu1-wrappers/wrappers.yaml >"$T/w.yaml"
$PERFSTUDY build -q "$T/w.yaml" -o "$T/o" 2>"$T/err" && ok || bad "build: $(cat "$T/err")"

python3 - "$E" "$T/o/gpu1-wrappers" <<'PY' >"$T/out" 2>&1 && ok || bad "strategies: $(cat "$T/out")"
import csv, gzip, json, sys
E, O = sys.argv[1:]
WRAPPERS = ["Optimizer.step#ZeroRedundancyOptimizer.step", "FSDP::pre_forward",
            "FullyShardedDataParallel.forward", "DistributedDataParallel.forward"]
runs = {r["run"]: r for r in csv.DictReader(open(O + "/data/runs.csv"))}
bad = 0
for run in ["single", "ddp", "zero1-ddp", "zero1-bare", "fsdp1-full", "fsdp1-grad", "fsdp1-noshard",
            "fsdp2-zero2", "fsdp2-zero3"]:
    truth = json.load(open("%s/%s/truth.json" % (E, run)))
    names = {e["name"] for e in json.load(gzip.open("%s/%s/rank0.pt.trace.json.gz" % (E, run)))["traceEvents"]
             if e.get("cat") == "user_annotation"}
    ann = next((w for w in WRAPPERS if w in names), None)
    if (ann is None) != (truth["wrapper"] == "none"):
        print("%s: the trace's wrapper annotation %r against truth.json's %r" % (run, ann, truth["wrapper"])); bad += 1
    r = runs.get(run, {})
    if ann is None and truth["world"] == 1:
        want, src = "single", "one GPU, no wrapper in its traces"
    elif ann is None:
        want, src = "", ""
    elif truth["world"] == 1:
        want, src = "single", "trace: %s on one GPU" % ann
    else:
        want, src = None, None
    if r.get("strategy") != want or not r.get("strategy_source", "").startswith(src):
        print("%s: strategy %r from %r, want %r from %r..." % (run, r.get("strategy"), r.get("strategy_source"), want, src)); bad += 1
print("%d runs" % len(runs))
sys.exit(bad > 0)
PY
cat "$T/out" | tail -1
finish
