#!/bin/bash
# t_crossexp.sh: comparisons across experiments (the manifest's 'comparisons', comparisons.csv,
# figures comparison_<id>): ratios between named runs of two hand-written typed-in studies, worked
# out by hand below; paper 004's NVLink/PCIe and DGX-2/PCIe comparisons from the bundled
# megatron-004 manifests; a manifest built without the other; every error with its place.
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/x"
cat > "$T/x/a.yaml" <<'YAML'
version: 1
id: sys-a
title: System A
runs:
  - { id: r8, gpus: 8, batch: 4, measured: { samples_per_s: 50, iteration_ms: 640 } }
  - { id: r16, gpus: 16, batch: 4, measured: { samples_per_s: 90, iteration_ms: 711.1 } }
comparisons:
  - id: a-vs-b
    metric: throughput.samples_per_s
    baseline: sys-b/p8
    runs: [sys-b/p8, r8, r16]
    systems: { sys-a: "A, NVLink", sys-b: "B, PCIe" }
  - id: time
    metric: throughput.iteration_ms
    runs: [sys-b/p8, r8]
YAML
cat > "$T/x/b.yaml" <<'YAML'
version: 1
id: sys-b
title: System B
runs:
  - { id: p8, gpus: 8, batch: 4, measured: { samples_per_s: 40, iteration_ms: 800 } }
YAML
"$PERFSTUDY" build -q -o "$T/out" "$T/x/a.yaml" "$T/x/b.yaml" 2>"$T/err" && ok || bad "a + b build: $(cat "$T/err")"
# Baseline p8 (40 samples/s): r8 50/40 = 1.25, +25 %; r16 90/40 = 2.25, +125 %.
# Times, baseline p8 (its first run): 800 ms; r8 640/800 = 0.8, (0.8 - 1) x 100 = -20 %.
cat > "$T/want" <<'CSV'
comparison,system,experiment,run,gpus,key,value,baseline,baseline_value,ratio,change_pct,log_ms,log_ratio
a-vs-b,"B, PCIe",sys-b,p8,8,,40,sys-b/p8,40,1,0,,
a-vs-b,"A, NVLink",sys-a,r8,8,,50,sys-b/p8,40,1.25,25,,
a-vs-b,"A, NVLink",sys-a,r16,16,,90,sys-b/p8,40,2.25,125,,
time,sys-b,sys-b,p8,8,,800,sys-b/p8,800,1,0,,
time,sys-a,sys-a,r8,8,,640,sys-b/p8,800,0.8,-20,,
CSV
same "$T/want" "$T/out/sys-a/data/comparisons.csv" "comparisons.csv of a + b"
[ -e "$T/out/sys-b/data/comparisons.csv" ] && bad "b, which names no comparison, has comparisons.csv" || ok
for f in comparison_a-vs-b comparison_time; do
	[ -s "$T/out/sys-a/figures/$f.svg" ] && ok || bad "figure $f missing"
done
# Grouped by GPU count (8, 16), one bar per system: the SVG names both systems.
grep -q 'A, NVLink' "$T/out/sys-a/figures/comparison_a-vs-b.svg" && grep -q 'B, PCIe' "$T/out/sys-a/figures/comparison_a-vs-b.svg" &&
	ok || bad "comparison figure lacks a system"
grep -qF 'ratio = value / baseline_value' "$T/out/sys-a/index.html" && ok || bad "comparisons Methods missing"

# a alone: sys-b is not in the build, a warning at each reference (line 11 col 12, line 10 col 15,
# line 15 col 12), its runs left out, no ratios.
"$PERFSTUDY" build -o "$T/alone" "$T/x/a.yaml" >/dev/null 2>"$T/err" && ok || bad "a alone failed: $(cat "$T/err")"
grep -qF "$T/x/a.yaml:11:12: warning: experiment 'sys-b' is not in this build: comparison 'a-vs-b' leaves sys-b/p8 out" "$T/err" &&
	ok || bad "a alone: warning: $(cat "$T/err")"
grep -qx 'a-vs-b,"A, NVLink",sys-a,r8,8,,50,,,,,,' "$T/alone/sys-a/data/comparisons.csv" && ok ||
	bad "a alone: $(cat "$T/alone/sys-a/data/comparisons.csv")"
grep -qF 'its baseline sys-b/p8 is not in this build' "$T/alone/sys-a/index.html" && ok || bad "a alone: no note"

# Paper 004 from the bundled manifests: GPT-2 0.35B at batch 32 on 8 GPUs, 67.47 samples/s on the
# DGX-2 against 56.56 on the PCIe machine: 67.47 / 56.56 = 1.192892, a gain of 19.29 % ("19.3 %").
# BERT 0.34B: 414.05 samples/s on 16 DGX-2 GPUs against 134.62 on 8 PCIe GPUs: 3.075694.
"$PERFSTUDY" build -q -o "$T/m4" experiments/megatron-004/study.yaml experiments/megatron-004/pcie.yaml \
	experiments/megatron-004/bert-dgx2.yaml 2>"$T/err" && ok || bad "megatron-004 build: $(cat "$T/err")"
C=$T/m4/megatron-004/data/comparisons.csv
grep -qx 'nvlink-vs-pcie,"DGX-2, NVLink",megatron-004,gpt2-345m-8gpu,8,,67.47,megatron-004-pcie/gpt2-b32,56.56,1.19289,19.2893,,' "$C" &&
	ok || bad "004 NVLink/PCIe: $(grep gpt2-345m-8gpu "$C")"
grep -qx 'bert-dgx2-vs-pcie,"DGX-2, NVLink",megatron-004-bert,bert-0.34b-dp,16,,414.05,megatron-004-pcie/megatron-bert,134.62,3.07569,207.569,,' "$C" &&
	ok || bad "004 414 vs 135: $(grep bert-0.34b "$C")"
[ -s "$T/m4/megatron-004/figures/comparison_nvlink-vs-pcie.png" ] && ok || bad "004 comparison figure missing"

# Runs with a training log (the bundled h200 example's BERT runs, bert-phases): beside the traces'
# values, log_ms is the log's unprofiled median iteration and log_ratio its ratio to the baseline's,
# both recomputed here by tests/golden/log_medians.py from the raw logs (and the traces' ProfilerStep
# numbers): 1 GPU 35.60 ms, 2 GPUs 63.30 ms, 63.30 / 35.60 = 1.77809.
if [ -f experiments/h200/traces/bert-base/1gpu/rank0.log ]; then
	example_h200 "$T/h200"
	L=experiments/h200/traces/bert-base
	want=$(python3 tests/golden/log_medians.py $L/1gpu/rank0.log $L/2gpu-ddp/rank0.log | python3 -c '
import re, sys
m = [float(x) for x in re.findall(r"unprofiled n=\d+ median ([0-9.]+) ms", sys.stdin.read())]
print(f"{m[1]:g},{m[1] / m[0]:.6g}")')
	got=$(grep '^bert-phases,.*,bert-2gpu-ddp,2,forward,' "$T/h200/h200/data/comparisons.csv" | awk -F, '{ print $(NF-1) "," $NF }')
	[ -n "$want" ] && [ "$got" = "$want" ] && ok || bad "h200 bert-2gpu-ddp log_ms,log_ratio: $got, want $want"
	grep -q '^bert-phases,.*,bert-1gpu,1,forward,.*,35.6,1$' "$T/h200/h200/data/comparisons.csv" && ok ||
		bad "h200 bert-1gpu: $(grep bert-1gpu,1,forward "$T/h200/h200/data/comparisons.csv")"
	grep -qF 'log_ratio = log_ms / the baseline' "$T/h200/h200/index.html" && ok || bad "no Methods for log_ratio"
fi

# Errors, each at its place.
check_err() { # check_err NAME SED-EXPRESSION EXPECTED-MESSAGE
	sed "$2" "$T/x/a.yaml" > "$T/x/e.yaml"
	"$PERFSTUDY" build -q -o "$T/e" "$T/x/e.yaml" "$T/x/b.yaml" 2>"$T/err"
	local rc=$?
	[ $rc -eq 1 ] && grep -qF "$T/x/e.yaml:$3" "$T/err" && ok || bad "$1: exit $rc, $(cat "$T/err")"
}
check_err "unknown run of another experiment" 's|sys-b/p8, r8, r16|sys-b/p9, r8, r16|; s|baseline: sys-b/p8|baseline: sys-b/p9|' \
	"11:12: error: unknown run 'p9' of experiment 'sys-b' in 'comparisons'"
check_err "unknown run of this manifest" 's|runs: \[sys-b/p8, r8, r16\]|runs: [sys-b/p8, r9, r16]|' \
	"11:22: error: unknown run 'r9' in 'comparisons'"
check_err "metric without a table" 's|metric: throughput.samples_per_s|metric: samples|' \
	"9:13: error: expected 'table.column' for 'metric', e.g. 'throughput.samples_per_s', got 'samples'"
check_err "metric column unknown" 's|metric: throughput.samples_per_s|metric: throughput.sample_per_s|' \
	"8:5: error: comparison 'a-vs-b': throughput.csv of experiment 'sys-b' has no numeric column 'sample_per_s'"
check_err "metric column of text" 's|metric: throughput.samples_per_s|metric: throughput.status|' \
	"8:5: error: comparison 'a-vs-b': throughput.csv of experiment 'sys-b' has no numeric column 'status'"
check_err "baseline not among runs" 's|baseline: sys-b/p8|baseline: r8x|' \
	"10:15: error: 'baseline' 'r8x' is not one of the comparison's 'runs'"
check_err "stack_by not a text column" 's|    systems:|    stack_by: gpus\n    systems:|' \
	"8:5: error: comparison 'a-vs-b': throughput.csv of experiment 'sys-b' has no text column 'gpus' for 'stack_by'"
check_err "duplicate comparison id" 's|  - id: time|  - id: a-vs-b|' \
	"13:5: error: duplicate comparison id 'a-vs-b' (first at 8:5)"
check_err "run twice" 's|runs: \[sys-b/p8, r8\]|runs: [r8, r8]|' \
	"15:16: error: run 'r8' is twice in the comparison's 'runs'"
check_err "unknown key" 's|    metric: throughput.iteration_ms|    metrc: throughput.iteration_ms|' \
	"14:5: error: unknown key 'metrc' (did you mean 'metric'?)"

finish
