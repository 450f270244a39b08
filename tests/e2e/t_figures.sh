#!/bin/bash
# t_figures.sh: pages of studies typed in from a paper (no traces): what
# has no data is left out and said once, and the typed-in numbers get the
# figures they support (issue 20, section 6).
. "$(dirname "$0")/lib.sh"

$PERFSTUDY build -q experiments/cheng-002/study.yaml experiments/megatron-004/study.yaml -o "$T/site" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "building the typed-in studies failed: $(cat "$T/err")"

# The notes of a page: the <li> items between "Notes" and the next section.
notes() { awk '/id="notes"/ { on = 1 } on && /<\/section>/ { on = 0 } on' "$1" | grep -c '<li>'; }
for id in cheng-002 megatron-004; do
	P=$T/site/$id/index.html
	# No trace, so no ProfilerStep: scaling.csv's throughput cells and compare.csv's group times are
	# empty or 0 for every run. Both tables are left out, from the page and from data/.
	[ ! -e "$T/site/$id/data/scaling.csv" ] && ok || bad "$id: scaling.csv written with no data"
	[ ! -e "$T/site/$id/data/compare.csv" ] && ok || bad "$id: compare.csv written with no data"
	grep -qF 'href="data/scaling.csv"' "$P" && bad "$id: the page shows an empty scaling table" || ok
	grep -qF 'href="data/compare.csv"' "$P" && bad "$id: the page shows compare.csv" || ok
	# Said once, first, instead of one note per run and table (6 or 12 runs x 2-3 tables before).
	n=$(notes "$P")
	[ "$n" -ge 1 ] && [ "$n" -le 3 ] && ok || bad "$id: $n notes, want 1 to 3"
	grep -qF 'Left out, as no run has data for them: scaling.csv, compare.csv' "$P" && ok ||
		bad "$id: no note saying what is left out"
	grep -qF 'has no ProfilerStep ranges' "$P" && bad "$id: per-run ProfilerStep notes" || ok
done
# cheng-002's figures: published and estimated parameters, FLOPs and activations per model.
F=$T/site/cheng-002/figures
for f in published_params published_flops published_activations; do
	[ -s "$F/$f.png" ] && [ -s "$F/$f.svg" ] && ok || bad "cheng-002: no figure $f"
	grep -qF "figures/$f.png" "$T/site/cheng-002/index.html" && ok || bad "cheng-002 page lacks $f"
	grep -qF '<title>x axis: model</title>' "$F/$f.svg" && ok || bad "$f: no x axis title"
	grep -qF '<title>key: published</title>' "$F/$f.svg" && ok || bad "$f: no key"
done
# Parameters 0.125 to 18.4 billion (the manifest's published params) span 147x > 100x: a log axis.
# Activations 2.4 to 74 GB (31x): linear.
grep -qF '<title>y axis: parameters (10^9), log scale</title>' "$F/published_params.svg" && ok ||
	bad "published_params: no log axis"
grep -qF 'log scale' "$F/published_activations.svg" && bad "published_activations: a log axis for 31x" || ok
# GPT 1.3B's bars: the manifest's 1.3e9, and the general form 12ld^2 + 13ld + (V + s)d + 2d with
# l 24, d 2064, V 50257, s 1024: 1,226,907,648 + 643,968 + 105,843,984 + 4,128 = 1,333,399,728,
# drawn in billions with three significant digits.
grep -qF '<title>gpt-1.3b, published: 1.30</title>' "$F/published_params.svg" && ok || bad "published_params: gpt-1.3b's published bar"
grep -qF '<title>gpt-1.3b, perfstudy: 1.33</title>' "$F/published_params.svg" && ok || bad "published_params: gpt-1.3b's estimate bar"

# Runs and configurations of runs are drawn in black and greys, never a palette colour (chart_style):
# every rgb() of the SVG has three equal channels. greys_only FILE.
greys_only() { ! grep -o 'rgb([^)]*)' "$1" | tr -d 'rgb()%' | awk -F, '$1 != $2 || $2 != $3 { found = 1 } END { exit !found }'; }
# The check itself: the Okabe-Ito orange of a kernel group is not a grey.
echo '<path style="fill:rgb(90.196078%,62.352941%,0%)"/>' >"$T/orange.svg"
greys_only "$T/orange.svg" && bad "greys_only takes orange for a grey" || ok

# megatron-004's comparison (NVLink against PCIe): bars per system in greys, the x axis names the GPU
# counts, the y axis the metric in words (samples_per_s -> "samples per s") and its table.
$PERFSTUDY build -q experiments/megatron-004/study.yaml experiments/megatron-004/pcie.yaml \
	experiments/megatron-004/bert-dgx2.yaml -o "$T/m4" 2>"$T/err" && ok || bad "megatron-004 build: $(cat "$T/err")"
C=$T/m4/megatron-004/figures/comparison_nvlink-vs-pcie.svg
greys_only "$C" && ok || bad "comparison_nvlink-vs-pcie: systems in palette colours"
grep -qF '<title>x axis: GPU count</title>' "$C" && ok || bad "comparison: no x axis title"
grep -qF '<title>y axis: samples per s (throughput.csv)</title>' "$C" && ok || bad "comparison: y axis title"
# Horizontal bars name their category axis: step_time's runs, with where each step time came from
# (megatron-004 types its iteration times into the manifest, so "(manifest)" after each run's label).
S=$T/m4/megatron-004/figures/step_time.svg
grep -qF '<title>y axis: run (source of its step time)</title>' "$S" && ok || bad "step_time: no category axis title"
grep -q '<title>[^<]*(manifest)' "$S" && ok || bad "step_time: no step-time source in the run labels"
# A step time from a training log says "training log", not "(log)", which reads like a log scale. The
# two Megatron iterations (numbers 10 and 11, both after the first) give (1234.5 + 1000.0) / 2 =
# 1117.25 ms, drawn with its leading digits, 1117.
mkdir -p "$T/log"
printf ' iteration       10/     100 | consumed samples:          80 | elapsed time per iteration (ms): 1234.5 | global batch size:     8 |\n iteration       11/     100 | consumed samples:          88 | elapsed time per iteration (ms): 1000.0 |\n' >"$T/log/m.log"
printf 'title: a training log\nmodel: {name: gpt2, layers: 2, hidden: 64, heads: 2, vocab: 100, seq: 16}\nruns:\n  - {id: logged, label: "GPT, 1 GPU", gpus: 1, batch: 8, traces: m.log}\n' >"$T/log/study.yaml"
$PERFSTUDY build -q "$T/log/study.yaml" -o "$T/log/out" 2>"$T/err" && ok || bad "training-log build: $(cat "$T/err")"
S=$(ls "$T"/log/out/*/figures/step_time.svg 2>/dev/null | head -1)
grep -q '<title>GPT, 1 GPU (training log)$' "$S" && grep -q '^step time (ms): 1117</title>' "$S" && ok ||
	bad "step_time: no 'training log' bar of 1117 ms"
grep -qF '(log)' "$S" && bad "step_time: '(log)' reads like a log scale" || ok

# A comparison of a column in us is drawn in ms, its axis titled in words; the table keeps us. Step
# times typed in as 640 and 800 ms: utilization.csv's step_us 640000 and 800000, bars of 640 and 800.
mkdir -p "$T/us"
cat >"$T/us/study.yaml" <<'YAML'
id: us
title: step times
model: {name: gpt2, layers: 2, hidden: 64, heads: 2, vocab: 100, seq: 16}
runs:
  - { id: a, label: A, gpus: 8, batch: 4, measured: { iteration_ms: 640 } }
  - { id: b, label: B, gpus: 16, batch: 4, measured: { iteration_ms: 800 } }
comparisons:
  - id: steps
    metric: utilization.step_us
    runs: [a, b]
YAML
$PERFSTUDY build -q "$T/us/study.yaml" -o "$T/us/out" 2>"$T/err" && ok || bad "us build: $(cat "$T/err")"
U=$T/us/out/us/figures/comparison_steps.svg
grep -qF '<title>y axis: step time (ms, utilization.csv)</title>' "$U" && ok || bad "comparison in us: y axis $(grep -o 'y axis: [^<]*' "$U")"
grep -qF ': 640</title>' "$U" && grep -qF ': 800</title>' "$U" && ok || bad "comparison in us: bars not in ms"
grep -q '^steps,.*,a,8,,640000,' "$T/us/out/us/data/comparisons.csv" && ok || bad "comparisons.csv: $(cat "$T/us/out/us/data/comparisons.csv")"

# ncu-encoder's scatter of measured on estimated FLOPs: its points are runs, so black, not orange.
$PERFSTUDY build -q experiments/ncu-encoder/study.yaml -o "$T/ncu" 2>"$T/err" && ok || bad "ncu-encoder build: $(cat "$T/err")"
greys_only "$T/ncu/ncu-encoder/figures/flops_estimated_vs_measured.svg" && ok ||
	bad "flops_estimated_vs_measured: runs in a palette colour"
# Its lines against the batch size are quantities over the runs (measured, estimated), not categories
# of time: greys too.
for f in flops_by_batch dram_by_batch arithmetic_intensity_by_batch; do
	greys_only "$T/ncu/ncu-encoder/figures/$f.svg" && ok || bad "$f: a line in a palette colour"
done

finish
