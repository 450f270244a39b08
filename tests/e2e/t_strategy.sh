#!/bin/bash
# t_strategy.sh: the strategy of a run whose manifest names none (issue #57
# item 7), from its traces' wrapper annotations and from its training log's
# last line "params N world W strategy S" (the bundled generator's), on our
# own 4 x H200 recordings (experiments/h200x4) in a manifest that names no
# strategy and no model:
#   ddp-clean   traces and log: DDP, the trace's DistributedDataParallel.forward
#               and the log agreeing;
#   mem-fsdp    traces and log: ZeRO-3 from FSDP2's annotations, the log's
#               "fsdp" agreeing;
#   mem-1gpu    traces without a wrapper's annotation and log: the log's;
#   ddp-sleep   its log alone: the log's, and the data-parallel layout from it;
#   ddp-extra   traces and a copy of its log whose strategy line says zero2:
#               the trace's, the disagreement in strategy_source and a note.
# Expected: the log's line and the traces' annotation names read here from
# the raw files. runs.csv's strategy and strategy_source, the page's Models
# fact (which said "not recorded", then "not named in the manifest" where
# the logs name the model by its size), the strategy figures' captions, and
# collective_busbw.csv's strategy column (which was empty for a run the
# manifest gave none).
. "$(dirname "$0")/lib.sh"

E=$(unpacked experiments/h200x4/traces)
if [ ! -f "$E/ddp-clean/rank0.pt.trace.json.gz" ] || [ ! -f "$E/mem-fsdp/rank0.pt.trace.json.gz" ]; then
	skipped "experiments/h200x4 could not be unpacked"
	finish
	exit $?
fi
mkdir -p "$T/edited"
sed 's/^\(params [0-9]* world [0-9]* strategy \).*/\1zero2/' "$E/ddp-extra/rank0.log" >"$T/edited/rank0.log"
grep -q '^params [0-9]* world 4 strategy zero2$' "$T/edited/rank0.log" && ok || bad "the edited log has no strategy line"
{
	printf 'version: 1\nid: st\ntitle: strategies\nruns:\n'
	for r in ddp-clean mem-fsdp mem-1gpu; do
		g=4
		[ "$r" = mem-1gpu ] && g=1
		printf '  - {id: %s, gpus: %s, traces: "%s/%s/rank*.pt.trace.json.gz", inputs: "%s/%s/rank0.log"}\n' \
			"$r" "$g" "$E" "$r" "$E" "$r"
	done
	printf '  - {id: ddp-sleep, gpus: 4, inputs: "%s/ddp-sleep/rank0.log"}\n' "$E"
	printf '  - {id: ddp-extra, gpus: 4, traces: "%s/ddp-extra/rank*.pt.trace.json.gz", inputs: "%s"}\n' \
		"$E" "$T/edited/rank0.log"
} >"$T/st.yaml"
$PERFSTUDY build -q "$T/st.yaml" -o "$T/o" 2>"$T/err" && ok || bad "build: $(cat "$T/err")"

python3 - "$E" "$T/edited/rank0.log" "$T/o/st" <<'PY' >"$T/out" 2>&1 && ok || bad "strategies: $(cat "$T/out")"
import csv, glob, gzip, html, json, re, sys
E, edited, O = sys.argv[1:]
bad = 0
def log_strategy(path):
    s = None
    for line in open(path):
        m = re.fullmatch(r"\s*params \d+ world \d+ strategy ([A-Za-z0-9_.-]+)\s*", line)
        if m:
            s = m.group(1)
    return s
def trace_strategy(run):
    # the wrappers' host annotations, as the Methods give the rule
    names = {}
    for f in glob.glob("%s/%s/rank*.pt.trace.json.gz" % (E, run)):
        for e in json.load(gzip.open(f))["traceEvents"]:
            if e.get("cat") == "user_annotation":
                names[e["name"]] = names.get(e["name"], 0) + 1
    pre = sum(c for n, c in names.items() if n.startswith("FSDP::pre_forward"))
    gather = sum(c for n, c in names.items() if n.startswith("FSDP::all_gather") and not n.startswith("FSDP::all_gather_copy"))
    if "Optimizer.step#ZeroRedundancyOptimizer.step" in names:
        return "zero1", "Optimizer.step#ZeroRedundancyOptimizer.step"
    if pre:
        return ("zero3" if gather > pre else "zero2"), "FSDP::pre_forward"
    if "FullyShardedDataParallel.forward" in names:
        return "fsdp", "FullyShardedDataParallel.forward"
    if "DistributedDataParallel.forward" in names:
        return "ddp", "DistributedDataParallel.forward"
    return None, None
shown = lambda s: {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3", "fsdp": "ZeRO-3"}.get(s, s)
runs = {r["run"]: r for r in csv.DictReader(open(O + "/data/runs.csv"))}
order = ["ddp-clean", "mem-fsdp", "mem-1gpu", "ddp-sleep", "ddp-extra"]
fact = []  # (shown strategy, set of sources) per run, in manifest order
for run in order:
    log = log_strategy(edited if run == "ddp-extra" else "%s/%s/rank0.log" % (E, run))
    tr, ann = trace_strategy(run) if run != "ddp-sleep" else (None, None)
    if tr and log and shown(tr) == shown(log):
        want, src, froms = tr, ("trace: " + ann, "; training log (rank0.log): strategy " + log), {1, 2}
    elif tr and log:
        want, src, froms = tr, ("trace: " + ann, "; the training log (rank0.log) says " + log), {1}
    elif tr:
        want, src, froms = tr, ("trace: " + ann, ""), {1}
    else:
        want, src, froms = log, ("training log (rank0.log): strategy " + log, ""), {2}
    r = runs.get(run, {})
    got = r.get("strategy_source", "")
    if r.get("strategy") != want or not got.startswith(src[0]) or not got.endswith(src[1]):
        print("%s: strategy %r from %r, want %r from %r...%r" % (run, r.get("strategy"), got, want, src[0], src[1])); bad += 1
    fact.append((shown(want), froms))
# the log alone: data parallel over the run's 4 GPUs, the log named as the layout's source
r = runs.get("ddp-sleep", {})
if (r.get("data_parallel"), r.get("tensor_parallel"), r.get("pipeline_parallel"), r.get("layout_source")) != \
        ("4", "1", "1", "training log (rank0.log): strategy " + log_strategy(E + "/ddp-sleep/rank0.log")):
    print("ddp-sleep: layout %r" % [r.get(k) for k in ("data_parallel", "tensor_parallel", "pipeline_parallel", "layout_source")]); bad += 1
# the Models fact: no model named; each strategy once, first seen first, with the union of its
# sources, strategies of the same sources together
names, srcs = [], {}
for s, f in fact:
    if s not in srcs:
        names.append(s); srcs[s] = set()
    srcs[s] |= f
words = {1: "trace annotations", 2: "training logs"}
parts = []
for i, s in enumerate(names):
    parts.append(s if i + 1 < len(names) and srcs[names[i + 1]] == srcs[s] else
                 "%s (%s)" % (s, " and ".join(words[k] for k in sorted(srcs[s]))))
# the models: none in the manifest, so those the logs' "params N" lines give, each once, in
# 3 significant digits ("53.6M params"), then "(training logs)"
models = []
for log in [E + "/" + r + "/rank0.log" for r in ("ddp-clean", "mem-fsdp", "mem-1gpu", "ddp-sleep")] + [edited]:
    n = [int(m.group(1)) for m in (re.fullmatch(r"\s*params (\d+) world .*\s*", l) for l in open(log)) if m]
    w = n and ("%.3gB params" % (n[-1] / 1e9) if n[-1] >= 1e9 else "%.3gM params" % (n[-1] / 1e6))
    if w and w not in models:
        models.append(w)
want = ", ".join(models) + " (training logs); strategies " + ", ".join(parts)
page = open(O + "/index.html").read()
m = re.search(r"<dt>Models</dt><dd>(.*?)</dd>", page)
if not m or html.unescape(m.group(1)) != want:
    print("Models fact %r, want %r" % (m and html.unescape(m.group(1)), want)); bad += 1
if "its traces&#39; annotations say strategy ddp" not in page and "its traces' annotations say strategy ddp" not in page:
    print("no note on ddp-extra's log disagreeing"); bad += 1
# the strategy figure's caption names the run whose strategy only its log gave
want = "mem-1gpu from its training log (rank0.log): strategy " + log_strategy(E + "/mem-1gpu/rank0.log")
if html.escape(want, quote=True) not in page and want not in page:
    print("no caption says %r" % want); bad += 1
# collective_busbw.csv: ddp-clean's strategy is the trace's, not empty
rows = [r for r in csv.DictReader(open(O + "/data/collective_busbw.csv")) if r["run"] == "ddp-clean"]
if not rows or any(r["strategy"] != trace_strategy("ddp-clean")[0] for r in rows):
    print("collective_busbw.csv ddp-clean strategies %r" % [r["strategy"] for r in rows]); bad += 1
sys.exit(bad > 0)
PY

finish
