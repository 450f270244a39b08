#!/bin/bash
# t_why.sh: the why and the price (issue #39) on real 4 x H200 runs, each
# with one cause planted on rank 3 by our own generator
# (experiments/h200x4: train_plant.py, SOURCE.md, truth.json per run):
# straggler_causes.csv's mechanism names what was planted, the cause
# finding says it in words, findings.csv's saving_us_per_step is within
# 40 % of what the training logs say the cause costs (the run's unprofiled
# median minus the clean run's, computed here from the raw logs by
# tests/golden/log_medians.py, not by perfstudy), the findings are ordered
# by saving, and the clean run gets no cause finding. Every row of
# straggler_causes.csv is recomputed from the raw traces
# (tests/golden/causes_check.py), every finding too (findings_check.py).
. "$(dirname "$0")/lib.sh"

RUNS="ddp-clean ddp-uneven ddp-pageable ddp-sync ddp-sleep ddp-extra"
planted_study "$T/study.yaml" $RUNS || { finish; exit $?; }
$PERFSTUDY build -q "$T/study.yaml" -o "$T/o" 2>"$T/err" && ok || bad "build: $(cat "$T/err")"
D=$T/o/why/data

# The truth, from the raw files only: per run, the plant (truth.json) and the
# training logs' unprofiled medians (log_medians.py, with the traces beside
# the logs to know which iterations were profiled).
for r in $RUNS; do
	python3 tests/golden/log_medians.py "$E/ddp-clean/rank0.log" "$E/$r/rank0.log" |
		sed -n "s#^.*/$r/rank0.log: .*unprofiled n=\([0-9]*\) median \([0-9.]*\) ms.*#$r \1 \2#p"
done | sort -u >"$T/medians"
[ "$(wc -l <"$T/medians")" -eq 6 ] && ok || bad "log medians: $(cat "$T/medians")"

python3 - "$E" "$D" "$T/medians" <<'PY' >"$T/check" 2>&1 && ok || bad "why and price: $(cat "$T/check")"
import csv, json, sys
E, D, M = sys.argv[1:]
med = {l.split()[0]: (int(l.split()[1]), float(l.split()[2])) for l in open(M)}
want = {"uneven": ("uneven_data", "uneven data"), "pageable": ("pageable_copy", "pageable (unpinned) host memory"),
        "sync": ("host_sync", "host synchronisation: aten::item"), "sleep": ("host_outside_ops", "outside every operator"),
        "extra": ("extra_work", "extra work no other rank runs")}
causes = list(csv.DictReader(open(D + "/straggler_causes.csv")))
findings = list(csv.DictReader(open(D + "/findings.csv")))
bad = 0
for run in med:
    truth = json.load(open("%s/%s/truth.json" % (E, run)))
    cause = [f for f in findings if f["run"] == run and f["evidence"] == "table-straggler_causes"]
    if truth["plant"] == "none":
        if cause or any(f["run"] == run and f["evidence"] == "table-collective_waits" for f in findings):
            print("%s: the clean run has a straggler finding: %s" % (run, cause))
            bad += 1
        continue
    rank = truth["rank"]
    mech, words = want[truth["plant"]]
    region = [c for c in causes if c["run"] == run and int(c["rank"]) == rank and c["name"] == ""]
    got = region[0]["mechanism"] if region else None
    if got != mech:
        print("%s: mechanism %s, planted %s (%s)" % (run, got, truth["plant"], mech))
        bad += 1
    if len(cause) != 1 or int(cause[0]["rank"]) != rank or words not in cause[0]["finding"]:
        print("%s: no cause finding for rank %d saying '%s': %s" % (run, rank, words, cause))
        bad += 1
        continue
    saving = float(cause[0]["saving_us_per_step"]) / 1000
    cost = med[run][1] - med["ddp-clean"][1]
    ok = abs(saving - cost) <= 0.4 * cost
    print("%s: planted %s on rank %d; mechanism %s; saving %.2f ms per step, the logs' difference %.2f ms (%+.0f %%)"
          % (run, truth["plant"], rank, got, saving, cost, 100 * (saving / cost - 1)))
    if not ok:
        print("%s: saving %.2f ms not within 40 %% of %.2f ms" % (run, saving, cost))
        bad += 1
# ordered by saving, largest first; findings without a saving after
s = [float(f["saving_us_per_step"]) if f["saving_us_per_step"] else None for f in findings]
have = [x for x in s if x is not None]
if have != sorted(have, reverse=True) or any(x is not None for x in s[len(have):]):
    print("findings not ordered by saving: %s" % s)
    bad += 1
sys.exit(1 if bad else 0)
PY
sed 's/^/  /' "$T/check"

# the rows and the findings against the raw traces
R=()
for r in $RUNS; do
	python3 tests/golden/causes_check.py "$r" "$D/straggler_causes.csv" $E/$r/rank*.pt.trace.json.gz >"$T/chk" 2>&1 &&
		ok || bad "$r: straggler_causes.csv differs from the raw traces: $(grep DIFF "$T/chk" | head -5)"
	R+=("$r:4:8=$(echo $E/$r/rank*.pt.trace.json.gz | tr ' ' ,)")
done
python3 tests/golden/findings_check.py "$D/findings.csv" "${R[@]}" >"$T/fc" 2>&1 && ok ||
	bad "findings disagree with the raw traces: $(cat "$T/fc")"
# Issue #57: a region is said in words: ddp-sleep's planted sleep (truth.json: rank 3, outside every
# phase, which findings_check.py recomputes) is "on its host outside every phase", and no finding
# shows straggler_causes.csv's key "(outside phases)".
grep -q '(outside phases)' "$D/findings.csv" && bad "a finding says '(outside phases)'" || ok
grep -q '^ddp-sleep,3,.*on its host outside every phase (' "$D/findings.csv" && ok ||
	bad "ddp-sleep's cause finding: $(grep '^ddp-sleep,3,' "$D/findings.csv" | grep -o 'It spends[^(]*' | head -1)"
# Issue #57: that sleep is outside every operator, not "host operators and kernel launches": the
# host-bound finding of ddp-sleep's rank 3 splits its critical path (all host time) into the two,
# its share outside every operator being rank 3's main thread's time inside no cpu_op and no
# runtime call in its steps (findings_check.py, from the raw trace: 88 %).
grep -q '^ddp-sleep,3,"ddp-sleep rank 3 is host-bound: .*critical path is host time: [0-9]* % in host operators and kernel launches, [0-9]* % outside every operator (' \
	"$D/findings.csv" && ok || bad "ddp-sleep's host-bound finding: $(grep '^ddp-sleep,3,.*host-bound' "$D/findings.csv" | cut -c1-300)"

# Input shapes and pinned bandwidth (issue #39 item 1), from the raw traces
# only: each rank's first aten::embedding's "Input Dims", the first input
# that differs between the slow rank and the others (mode), with the ratio
# of element counts, must be straggler_causes.csv's shapes on the
# uneven_data rows and in the cause finding's words; runs whose shapes agree
# give no shapes. pinned_gb_per_s of each pageable_copy row: the bytes over
# the time of the run's copies named like it with Pinned for Pageable, all
# ranks, empty when there are none; the finding says it.
python3 - "$E" "$D" $RUNS <<'PY' >"$T/shp" 2>&1 && ok || bad "shapes and pinned bandwidth: $(cat "$T/shp")"
import collections, csv, glob, gzip, json, math, sys
E, D, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
causes = list(csv.DictReader(open(D + "/straggler_causes.csv")))
findings = list(csv.DictReader(open(D + "/findings.csv")))
bad = 0
def elems(d):
    return math.prod(d)
for run in runs:
    ev = {}
    for f in sorted(glob.glob("%s/%s/rank*.pt.trace.json.gz" % (E, run))):
        rank = int(f.split("/rank")[-1].split(".")[0])
        ev[rank] = json.load(gzip.open(f))["traceEvents"]
    emb = {}
    for r, es in ev.items():
        ops = sorted((e for e in es if e.get("cat") == "cpu_op" and e.get("name") == "aten::embedding"),
                     key=lambda e: float(e["ts"]))
        emb[r] = ops[0]["args"]["Input Dims"] if ops else None
    rows = [c for c in causes if c["run"] == run]
    for slow in sorted({int(c["rank"]) for c in rows}):
        others = [json.dumps(emb[r]) for r in emb if r != slow]
        mode = json.loads(collections.Counter(others).most_common(1)[0][0])
        mine = emb[slow]
        want = ""
        if mine != mode:
            k = next(i for i in range(min(len(mine), len(mode))) if mine[i] != mode[i])
            want = "%s vs %s (%.2fx)" % (json.dumps(mine[k]).replace(" ", ""), json.dumps(mode[k]).replace(" ", ""),
                                        elems(mine[k]) / elems(mode[k]))
        got = {c["shapes"] for c in rows if int(c["rank"]) == slow and c["mechanism"] in ("uneven_data", "different_kernel")}
        other = {c["shapes"] for c in rows if int(c["rank"]) == slow and c["mechanism"] not in ("uneven_data", "different_kernel")}
        if (want and got != {want}) or (not want and got - {""}) or other - {""}:
            print("%s rank %d: shapes %s, the raw embedding's %r" % (run, slow, got | other, want))
            bad += 1
        print("%s rank %d: embedding input dims %s, others %s; shapes %r" % (run, slow, mine, mode, want))
        if want and any(c["mechanism"] == "uneven_data" for c in rows if int(c["rank"]) == slow and c["name"] == ""):
            a, o, ratio = mine[k], mode[k], elems(mine[k]) / elems(mode[k])
            words = "uneven data: rank %d's inputs are %s where the others' are %s (%.3gx)" % (slow, a, o, ratio)
            if not any(words in f["finding"] for f in findings if f["run"] == run):
                print("%s: no finding says %r" % (run, words))
                bad += 1
    for c in rows:
        pg = c["pinned_gb_per_s"]
        if c["mechanism"] != "pageable_copy":
            if pg:
                print("%s: pinned_gb_per_s %s on a %s row" % (run, pg, c["mechanism"]))
                bad += 1
            continue
        if not c["name"]: # a region row: no copy named, no rate
            if pg:
                print("%s: pinned_gb_per_s %s on a region row" % (run, pg))
                bad += 1
            continue
        pinned = c["name"].replace("Pageable", "Pinned")
        cp = [e for es in ev.values() for e in es if e.get("cat") == "gpu_memcpy" and e.get("name") == pinned
              and e.get("args", {}).get("bytes", 0) > 0 and float(e.get("dur", 0)) > 0]
        want = sum(e["args"]["bytes"] for e in cp) / sum(float(e["dur"]) * 1000 for e in cp) if cp else None
        if c["gb_per_s"]:
            print("%s rank %s: %s at %s GB/s; %d copies %s in the raw traces: %s GB/s" % (run, c["rank"], c["name"],
                  c["gb_per_s"], len(cp), pinned, "%.3f" % want if want else "none"))
        if (want is None) != (pg == "") or (want is not None and abs(float(pg) / want - 1) > 0.01):
            print("%s: pinned_gb_per_s %r, the raw traces' %r" % (run, pg, want))
            bad += 1
        if want is not None and c["name"] and not any(
                "at %.1f GB/s where pinned copies in this run reach %.1f GB/s" % (float(c["gb_per_s"]), float(pg))
                in f["finding"] for f in findings if f["run"] == run):
            print("%s: no finding states the pinned rate %s GB/s" % (run, pg))
            bad += 1
sys.exit(1 if bad else 0)
PY
sed 's/^/  /' "$T/shp"

# The bundled H200 runs have nothing planted (experiments/h200/SOURCE.md):
# their stragglers are slower throughout under a profiler that slowed the
# runs 1.3-2.1x, by less than it added: no cause finding.
example_h200 "$T/ex"
python3 -c 'import csv, sys
print(sum(r["evidence"] == "table-straggler_causes" for r in csv.DictReader(open(sys.argv[1]))))' \
	"$T/ex/h200/data/findings.csv" | grep -qx 0 && ok || bad "the unplanted H200 runs get a cause finding"

# Cross-checks against the log (item 5): the clean run's log prints a global
# batch of 32 (8 per GPU x 4) and its own TFLOP/s per GPU. A manifest batch
# of 8 (per GPU) agrees with both; 32 (the global batch given as per GPU)
# is warned about, naming both batches and both TFLOP/s (x4.00).
gb=$(sed -n 's/.*global batch size: *\([0-9]*\).*/\1/p' "$E/ddp-clean/rank0.log" | sort -u)
[ "$gb" = 32 ] && ok || bad "the clean log's global batch: '$gb'"
for b in 8 32; do
	{
		printf 'version: 1\nid: logcheck\ntitle: log cross-check\nruns:\n  - id: clean\n    gpus: 4\n    batch: %s\n' "$b"
		printf '    traces: %s/ddp-clean/rank*.pt.trace.json.gz\n    inputs: %s/ddp-clean/rank0.log\n' "$E" "$E"
		printf '    model: {name: gpt2, layers: 2, hidden: 768, heads: 12, seq: 1024, vocab: 50257, precision: bf16}\n'
	} >"$T/lc$b.yaml"
	$PERFSTUDY build -q "$T/lc$b.yaml" -o "$T/lc$b" 2>"$T/err" && ok || bad "log check build $b: $(cat "$T/err")"
done
grep -q 'warning: run clean' "$T/lc8/logcheck/index.html" && bad "batch 8 per GPU: a warning: $(grep -o 'warning: run clean[^<]*' "$T/lc8/logcheck/index.html")" || ok
grep -q "warning: run clean: [^<]*manifest[^<]* batch 32 per GPU x 4 [^<]* global batch[^<]* 128,[^<]* training log[^<]* 32" "$T/lc32/logcheck/index.html" &&
	ok || bad "batch 32: no warning naming both batches"
grep -q "warning: run clean: [0-9.]* TFLOP/s per GPU by perfstudy&#39;s count [^<]* [0-9.]* by the training log[^<]*(4\.00x)" "$T/lc32/logcheck/index.html" &&
	ok || bad "batch 32: no warning naming both TFLOP/s"
finish
