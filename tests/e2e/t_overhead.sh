#!/bin/bash
# t_overhead.sh: profiler_overhead.csv and scaling.csv's log_ columns against
# tests/golden/log_medians.py, which reads the raw training logs (not
# perfstudy) and takes the profiled iterations from the ProfilerStep#N of the
# traces beside them: the medians of the unprofiled iterations (9 to the
# end where the generators profile iterations 5-7 = ProfilerStep#4..6; 8 on
# for small-2gpu-ddp-host1, recorded with --active 2: 5-6 = #4..5) and of
# the profiled ones, and their ratio. Then a study whose log says a 2-GPU run
# trains 2.5x faster per GPU than its 1-GPU baseline: the efficiency over
# 100 % is flagged.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

# check DIR EXPDIR RUN=LOG...: each run's row of DIR/EXPDIR/data/profiler_overhead.csv equals log_medians.py on LOG.
check() {
	local csv=$1/$2/data/profiler_overhead.csv
	shift 2
	[ -s "$csv" ] && ok || { bad "no $csv"; return; }
	python3 - "$csv" "$@" <<'PY' && ok || bad "profiler_overhead.csv disagrees with log_medians.py"
import csv, sys
sys.path.insert(0, "tests/golden")
import log_medians as L
rows = {r["run"]: r for r in csv.DictReader(open(sys.argv[1]))}
bad = 0
for arg in sys.argv[2:]:
    run, log = arg.split("=", 1)
    it, unprof, prof = L.summary(log)
    r = rows[run]
    want = {"unprofiled": len(unprof), "log_profiled": len(prof),
            "unprofiled_median_us": "%.3f" % (L.median(unprof) * 1000),
            "log_profiled_median_us": "%.3f" % (L.median(prof) * 1000),
            "overhead": "%.6g" % (L.median(prof) / L.median(unprof))}
    for k, v in want.items():
        if str(v) != r[k]:
            print("%s %s: perfstudy %s, log_medians.py %s" % (run, k, r[k], v), file=sys.stderr)
            bad = 1
    print("  %s: overhead %s (log_medians.py %s), unprofiled %s us" % (run, r["overhead"], want["overhead"], r["unprofiled_median_us"]))
sys.exit(bad)
PY
}

# The bundled H200 study (its logs profile iterations 5-7 of 20).
example_h200 "$T/h200" 2> "$T/err" || bad "h200 build: $(cat "$T/err")"
E=experiments/h200/traces
args=()
for m in gpt2:gpt2-124m bert:bert-base; do
	for r in 1gpu 2gpu-ddp 2gpu-zero1 4gpu-ddp 4gpu-zero1; do
		args+=("${m%%:*}-$r=$E/${m#*:}/$r/rank0.log")
	done
done
check "$T/h200" h200 "${args[@]}"
# scaling.csv's log_speedup: gpt2-2gpu-zero1 against gpt2-1gpu, by hand from
# log_medians.py's medians: (2 x 8 / 65.80 ms) / (8 / 62.10 ms) = 1.88754.
grep -q '^gpt2-2gpu-zero1,.*,65800.000,1.88754,0.943769,0,,ZeRO-1,6$' "$T/h200/h200/data/scaling.csv" && ok ||
	bad "scaling.csv: gpt2-2gpu-zero1's log columns: $(grep '^gpt2-2gpu-zero1' "$T/h200/h200/data/scaling.csv")"
grep -q 'profiling slowed run gpt2-2gpu-zero1 by 1.48x' "$T/h200/h200/index.html" && ok || bad "no note on gpt2-2gpu-zero1's overhead"
# Figures that state a speedup use the logs' where there are logs: Fig. 15's MSE against the logs'
# speedups (log_mse, all 4 predicted runs have logs), the profiled steps' beside it (trace_mse);
# 003 Fig. 4's comparison (phases of profiled steps) gives the logs' unprofiled iterations and their
# ratio to the 1-GPU run's in its caption: bert-2gpu-ddp 63.30 / 35.60 ms = 1.78 (log_medians.py).
head -1 "$T/h200/h200/data/speedup_error.csv" | grep -qx 'model,strategy,strategy_label,log_runs,log_mse,runs,trace_mse' && ok ||
	bad "speedup_error.csv header: $(head -1 "$T/h200/h200/data/speedup_error.csv")"
grep -q '^all,,,4,[0-9.]*,4,0.0639113$' "$T/h200/h200/data/speedup_error.csv" && ok || bad "speedup_error.csv all: $(grep '^all' "$T/h200/h200/data/speedup_error.csv")"
# Fig. 15's prediction scored against the logs is anchored on the logs (issue #54 item 3): the paper
# audit, recomputing it in Python from the raw traces and logs, found log_mse 0.697 with the profiled
# anchor and 0.043 with the logs' (m's unprofiled median step, the baseline's log throughput).
awk -F, '$1 == "all" { x = $5 - 0.043; if (x < 0) x = -x; found = x < 0.0005 } END { exit !found }' \
	"$T/h200/h200/data/speedup_error.csv" && ok ||
	bad "speedup_error.csv: log_mse over all runs not 0.043 (the logs' anchor): $(grep '^all' "$T/h200/h200/data/speedup_error.csv")"
# Issue #54 item 10: two step times of one run side by side without saying which is which: Key
# numbers' 83.6 ms for gpt2-2gpu-ddp (the median over its 3 profiled steps of each step's slowest
# rank) and the scaling table's 81.2 ms (the median of both ranks' 6 steps pooled), and the runs
# table's mean. Counted here from the raw traces' ProfilerStep#N ranges; each column that shows one
# says under its header which statistic of which source, and scaling.csv gives its sample count.
python3 - "$E/gpt2-124m/2gpu-ddp" "$T/h200/h200/index.html" <<'EOF' && ok || bad "the page's step times of gpt2-2gpu-ddp are not labelled with their statistic"
import glob, gzip, html, json, os, re, statistics, sys
D, PAGE = sys.argv[1:3]
steps = {}  # rank -> {N: dur_us}
for f in sorted(glob.glob(os.path.join(D, "rank*.pt.trace.json.gz"))):
    t = json.load(gzip.open(f))
    r = t["distributedInfo"]["rank"]
    for e in t["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") == "user_annotation" and str(e.get("name", "")).startswith("ProfilerStep#"):
            steps.setdefault(r, {})[int(e["name"].split("#")[1])] = float(e["dur"])
pooled = [d for s in steps.values() for d in s.values()]
common = set.intersection(*(set(s) for s in steps.values()))
slowest = [max(s[n] for s in steps.values()) for n in common]
med_pooled, med_slowest, mean_pooled = statistics.median(pooled), statistics.median(slowest), statistics.mean(pooled)
bad = False
def need(c, msg):
    global bad
    if not c:
        print(msg, file=sys.stderr)
        bad = True
need(len(pooled) == 6 and len(slowest) == 3, "want 2 ranks x 3 steps: %d, %d" % (len(pooled), len(slowest)))
need(abs(med_pooled - med_slowest) > 1000, "the two medians agree: %.3f %.3f" % (med_pooled, med_slowest))
page = open(PAGE).read()
# The scaling table: step_us is the pooled median; its header says so; step_samples counts them.
m = re.search(r'<section class="table" id="table-scaling">.*?</section>', page, re.S).group(0)
ths = re.findall(r'<th[^>]*title="CSV column ([a-z_]+)"[^>]*>(.*?)</th>', m, re.S)
names = [n for n, _ in ths]
hdr = {n: html.unescape(re.sub(r"<[^>]+>", " ", h)) for n, h in ths}
row = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in
       re.findall(r"<td[^>]*>(.*?)</td>", re.search(r'<tr><td class="text">gpt2-2gpu-ddp</td>.*?</tr>', m).group(0))]
need(abs(float(row[names.index("step_us")]) - med_pooled) < 0.001, "scaling step_us %s, want %.3f" % (row[names.index("step_us")], med_pooled))
need("median of every rank's steps pooled" in hdr["step_us"] and "trace, profiled" in hdr["step_us"], "scaling step header: %s" % hdr["step_us"])
need("step_samples" in names and row[names.index("step_samples")] == str(len(pooled)), "scaling step_samples: want %d" % len(pooled))
need("training log, unprofiled" in hdr["log_step_us"], "scaling log step header: %s" % hdr["log_step_us"])
# Key numbers: the slowest rank's median, said so in its header, with its 3 steps.
k = re.search(r'<table class="data keynums">.*?</table>', page, re.S).group(0)
need("median over steps of each step\u2019s slowest rank" in html.unescape(k), "Key numbers: the trace column does not say which statistic")
kr = re.search(r'<tr><td class="text">gpt2-2gpu-ddp</td>.*?</tr>', k).group(0)
need("%.1f ms" % (med_slowest / 1000) in kr and "only 3 steps" in kr, "Key numbers: want %.1f ms of 3 steps: %s" % (med_slowest / 1000, kr[:300]))
# The runs table's mean, said to be a mean.
m = re.search(r'<section id="runs">.*?</section>', page, re.S).group(0)
ths = re.findall(r'<th[^>]*title="CSV column ([a-z_]+)"[^>]*>(.*?)</th>', m, re.S)
names = [n for n, _ in ths]
hdr = {n: html.unescape(re.sub(r"<[^>]+>", " ", h)) for n, h in ths}
row = [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in
       re.findall(r"<td[^>]*>(.*?)</td>", re.search(r'<tr><td class="text">gpt2-2gpu-ddp</td>.*?</tr>', m).group(0))]
need(abs(float(row[names.index("mean_step_us")]) - mean_pooled) < 0.001, "runs mean_step_us %s, want %.3f" % (row[names.index("mean_step_us")], mean_pooled))
need("mean of every rank's steps" in hdr["mean_step_us"], "runs mean step header: %s" % hdr["mean_step_us"])
sys.exit(bad)
EOF
grep -q "unprofiled median iteration (profiler_overhead.csv): bert-1gpu 35\.6 ms; bert-2gpu-ddp 63\.3 ms (1\.78x " \
	"$T/h200/h200/index.html" && ok || bad "comparison bert-phases: no logs' iterations beside the profiled phases"
grep -qF '1-4 GPUs of one H200 system (not time to train)' "$T/h200/h200/index.html" && ok ||
	bad "comparison bert-phases: the title does not say what it shows (003 Fig. 4)"
# The findings read profiled steps: bert-2gpu-ddp's say that the profiler
# slowed them 2.10x (log_medians.py: 133.10 / 63.30 = 2.1027). Its rank 1
# waited for is slower throughout, by less than the profiler added: no
# waiting or cause finding (t_why.sh), but its host-bound one says it.
grep '^bert-2gpu-ddp,1,' "$T/h200/h200/data/findings.csv" | grep -q 'rank 1 is host-bound.*which the profiler slowed 2.10x against the training' && ok ||
	bad "bert-2gpu-ddp's host-bound finding does not say the profiler slowed its steps 2.10x"

# The sanity flag: a run whose trace's median step (each ProfilerStep#N's slowest rank) is more than twice
# its log's unprofiled median. By python3 over the raw files (median of the 3 steps' slowest rank, and
# log_medians.py): bert-2gpu-ddp 134.27 / 63.30 = 2.12, the only one over 2 (bert-4gpu-zero1 1.91).
grep -q 'run bert-2gpu-ddp&#39;s profiled steps[^<]* 134\.3 ms (trace, median step)[^<]* twice [^<]*unprofiled iterations (63\.3 ms)' "$T/h200/h200/index.html" &&
	ok || bad "no sanity warning on bert-2gpu-ddp's profiled steps"
[ "$(grep -o 'profiled steps take [0-9.]* ms (trace, median step), more than twice' "$T/h200/h200/index.html" | wc -l)" -eq 1 ] &&
	ok || bad "the 2x sanity warning is given for other runs than bert-2gpu-ddp"

# The 4 x H100 reruns (30 iterations).
H=$(unpacked experiments/h100x4/traces)
if [ -d "$H" ]; then
	mkdir -p "$T/x"
	{
		printf 'version: 1\nid: x\ntitle: H100 runs\nruns:\n'
		for r in gpt2-1gpu gpt2-4gpu-ddp gpt2-4gpu-ddp-host2 small-4gpu-ddp small-2gpu-ddp-host1; do
			printf '  - id: %s\n    traces: %s/%s/rank*.pt.trace.json.gz\n    inputs: %s/%s/rank0.log\n' "$r" "$H" "$r" "$H" "$r"
		done
	} > "$T/x/study.yaml"
	$PERFSTUDY build -q "$T/x/study.yaml" -o "$T/xo" 2> "$T/err" || bad "h100x4 build: $(cat "$T/err")"
	check "$T/xo" x gpt2-1gpu=$H/gpt2-1gpu/rank0.log gpt2-4gpu-ddp=$H/gpt2-4gpu-ddp/rank0.log \
		gpt2-4gpu-ddp-host2=$H/gpt2-4gpu-ddp-host2/rank0.log small-4gpu-ddp=$H/small-4gpu-ddp/rank0.log \
		small-2gpu-ddp-host1=$H/small-2gpu-ddp-host1/rank0.log
	# --active 2: two profiled iterations, 23 unprofiled of 30 (3-30 less 3-7).
	grep -q '^small-2gpu-ddp-host1,.*' "$T/xo/x/data/profiler_overhead.csv" &&
		python3 tests/golden/log_medians.py "$H/small-2gpu-ddp-host1/rank0.log" | grep -q 'unprofiled n=23 .*profiled n=2 ' &&
		ok || bad "log_medians.py: small-2gpu-ddp-host1 is not 23 unprofiled and 2 profiled iterations"
else
	skipped "experiments/h100x4 missing"
fi

# More than linear: two one-rank runs of the same hand-written trace, the
# 2-GPU one's log 2.5x faster per sample (8 samples in 1000 ms against 16
# in 400 ms: speedup 5, efficiency 250 %).
mkdir -p "$T/s"
cp tests/data/history/d1.json "$T/s/a.json"
cp tests/data/history/d1.json "$T/s/b.json"
for x in a:1000.0 b:400.0; do
	for i in $(seq 1 20); do
		printf ' iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %s | throughput per GPU (TFLOP/s/GPU): 1.0 | learning rate: 1.000000E-04 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
			"$i" 20 $((i * 8)) "${x#*:}" 8
	done > "$T/s/${x%%:*}.log"
done
cat > "$T/s/study.yaml" <<'YAML'
version: 1
id: sup
title: Superlinear
model: { name: M }
runs:
  - id: one
    gpus: 1
    batch: 8
    traces: [a.json]
    inputs: [a.log]
  - id: two
    gpus: 2
    batch: 8
    strategy: ddp
    traces: [b.json]
    inputs: [b.log]
YAML
$PERFSTUDY build -q "$T/s/study.yaml" -o "$T/so" 2> "$T/err" || bad "superlinear build: $(cat "$T/err")"
grep -q '^two,.*,400000.000,5,2.5,1,,DDP,[0-9]*$' "$T/so/sup/data/scaling.csv" && ok || bad "superlinear scaling.csv: $(cat "$T/so/sup/data/scaling.csv")"
grep -q 'scaling.csv: run two scales past 100 % against one' "$T/so/sup/index.html" && ok || bad "no note on the efficiency over 100 %"

# An efficiency of 1.003 inside the medians' noise is not flagged (issue 39):
# one's 20 iterations alternate 980 and 1020 ms (median 1000, every
# deviation 20, sigma 1.4826 x 20 = 29.65 ms); two's are 997 ms (2 GPUs,
# twice the samples per step: efficiency 1000 / 997 = 1.003). With n unprofiled iterations the
# median's relative error is 1.2533 x 29.65 / (1000 sqrt(n)), 0.0088 at
# n = 18: the flag needs more than 1 + 2 x 1.003 x 0.0088 = 1.018.
for i in $(seq 1 20); do
	printf ' iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %s | throughput per GPU (TFLOP/s/GPU): 1.0 | learning rate: 1.000000E-04 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
		"$i" 20 $((i * 8)) "$((980 + 40 * (i % 2))).0" 8
done > "$T/s/a.log"
for i in $(seq 1 20); do
	printf ' iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): 997.0 | throughput per GPU (TFLOP/s/GPU): 1.0 | learning rate: 1.000000E-04 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
		"$i" 20 $((i * 16)) 16
done > "$T/s/b.log"
$PERFSTUDY build -q "$T/s/study.yaml" -o "$T/sn" 2> "$T/err" || bad "noisy superlinear build: $(cat "$T/err")"
awk -F, '$1 == "two" { exit !($16 > 1.002 && $16 < 1.004) }' "$T/sn/sup/data/scaling.csv" && ok ||
	bad "log_efficiency is not 1.003: $(cat "$T/sn/sup/data/scaling.csv")"
grep -q 'scales past 100 %' "$T/sn/sup/index.html" && bad "1.003 within the noise is flagged" || ok
finish
