#!/bin/bash
# t_example_figs.sh: the figures and pages of the bundled example (the
# manifests of the Makefile's example target) say what they show (issue 31):
# every drawn category label is different where the names differ and cut only
# between words (check_labels.py over every SVG), no two keys of a figure
# share a colour and no axis title is cut (check_figs.py), axis titles carry the
# quantity and unit of the table they draw, figures leave out what cannot
# exist, the subject of a figure can be seen, no page is over 1 MB and a
# wide runs table is not cut at a 1400 px window. Expected values come from
# the inputs (manifests, CSVs typed in from the papers), never from
# perfstudy's output.
. "$(dirname "$0")/lib.sh"

manifests=$(sed -n '/^example:/,/-o out$/p' Makefile | grep -o 'experiments/[^ ]*\.yaml')
[ "$(echo "$manifests" | wc -l)" -ge 10 ] && ok || bad "the example's manifests not found in the Makefile"
# shellcheck disable=SC2086 # one word per manifest
$PERFSTUDY build -q $manifests -o "$T/out" 2>"$T/err" && ok || { bad "the example does not build"; cat "$T/err" >&2; }
S=$T/out

# --- labels: unique and whole words, on every figure ---
nsvg=$(find "$S" -path '*/figures/*.svg' | wc -l)
[ "$nsvg" -gt 100 ] && ok || bad "only $nsvg figures"
if find "$S" -path '*/figures/*.svg' -print0 | xargs -0 python3 tests/e2e/check_labels.py >"$T/labels"; then ok; else
	bad "labels: $(grep -c . "$T/labels") lines"; head -5 "$T/labels" >&2
fi
# The labels are read from the SVGs' data-label: none read would pass vacuously.
nlab=$(sed -n 's/^check_labels: \([0-9]*\) labels.*/\1/p' "$T/labels")
[ "${nlab:-0}" -gt 500 ] && ok || bad "only ${nlab:-0} drawn labels read"
# --- what is drawn (issue 57 item 8): no two keys of one figure in one colour (the step timeline drew
# "optimizer step" in compute's orange made pale, "forward" in memcpy's sky blue), no axis title cut
# ("bus ... (GB/s), log scale" beside a plot that long labels made short); check_figs.py reads every SVG.
if find "$S" -path '*/figures/*.svg' -print0 | xargs -0 python3 tests/e2e/check_figs.py >"$T/figs"; then ok; else
	bad "figures: $(grep -vc '^check_figs:' "$T/figs") faults"; head -5 "$T/figs" >&2
fi
# Read, not passed vacuously: the keys and axis titles read (each xargs batch prints its own counts).
read -r nkey ntitle < <(awk '/^check_figs:/ { k += $2; t += $5 } END { print k + 0, t + 0 }' "$T/figs")
[ "$nkey" -gt 1000 ] && [ "$ntitle" -gt 500 ] && ok || bad "only $nkey keys and $ntitle axis titles read"
# The step timelines were read: each of h200's runs (a folder of traces) has one, its key holding the
# default phases (optimizer step among them) beside the GPU's parts.
runs=$(ls -d experiments/h200/traces/*/*/ | wc -l)
n=$(grep -l '<title>key: optimizer step</title>' "$S"/h200/figures/step_timeline_*.svg | wc -l)
[ "$n" -eq "$runs" ] && ok || bad "$n of h200's $runs step timelines have the key optimizer step"

# megatron-004's runs differ by heads and TORCH_DDP (study.yaml's labels): both stay on every bar.
for f in step_time achieved_tflops; do
	for h in 32 24 16 8; do
		n=$(grep -o 'data-label="[^"]*"' "$S/megatron-004/figures/$f.svg" | grep -c " $h heads, .*TORCH_DDP")
		[ "$n" -eq 1 ] && ok || bad "$f: the TORCH_DDP run with $h heads is not told apart ($n labels)"
	done
done

# megatron-004's labels fit whole (issue 42: "72 ... TORCH_DDP ..." was cut).
for f in step_time achieved_tflops; do
	n=$(grep -o 'data-label="[^"]*"' "$S/megatron-004/figures/$f.svg" | grep -c $'\u2026')
	[ "$n" -eq 0 ] && ok || bad "$f: $n labels of megatron-004 cut"
done
# Comparisons without GPU counts (cheng-002-tg40's typed-in table) name each system on the x axis.
for f in training-time comm-time comm-share; do
	for sys in TG40 Polaris; do
		grep -qF "data-label=\"$sys\"" "$S/cheng-002-tg40/figures/comparison_$f.svg" && ok || bad "comparison_$f: no x tick $sys"
	done
done
# step_times states the interval's real level: 95 % only where every run's ci_level is 0.95 or more.
for csv in "$S"/*/data/step_stats.csv; do
	d=$(dirname "$(dirname "$csv")")
	lo=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ci_level") c = i; next }
		$c != "" && (m == "" || $c + 0 < m) { m = $c + 0 } END { print m }' "$csv")
	[ -n "$lo" ] && [ -s "$d/figures/step_times.svg" ] || continue
	if awk -v m="$lo" 'BEGIN { exit !(m < 0.95) }'; then
		want="<title>Step time per run: median, interval of the median (coverage $(awk -v m="$lo" 'BEGIN { printf "%.0f", 100 * m }')% or more), min to max</title>"
	else
		want='<title>Step time per run: median, 95% interval, min to max</title>'
	fi
	grep -qF "$want" "$d/figures/step_times.svg" && ok || bad "$d step_times (lowest ci_level $lo): $(grep -o '<title>Step time[^<]*' "$d/figures/step_times.svg")"
done

# --- axis titles ---
# begoli-003-h200: Lightning's get-batch time is the report's total over the run, not per step.
grep -qF '<title>y axis: get batch time, total over the run (ms)</title>' "$S/begoli-003-h200/figures/phases_report_get_batch.svg" && ok ||
	bad "phases_report_get_batch: $(grep -o 'y axis: [^<]*' "$S/begoli-003-h200/figures/phases_report_get_batch.svg")"
# nvprof files have no ProfilerStep ranges: time per GPU over the whole profile, not per step.
for f in "$S"/nvprof-000/figures/compare_*.svg "$S"/nvprof-000-roberta/figures/compare_*.svg; do
	grep -qE '<title>y axis: time per GPU, whole profile \(ms\)(, log scale)?</title>' "$f" && ok || bad "$f: $(grep -o 'y axis: [^<]*' "$f")"
done
# relative.csv: comm_pct is the paper's 26.7 / 69.02 (%), time_x a multiple of TG40's.
C=$S/cheng-002-tg40/figures
grep -qF '<title>y axis: communication share (%, relative.csv)</title>' "$C/comparison_comm-share.svg" && ok ||
	bad "comm-share: $(grep -o 'y axis: [^<]*' "$C/comparison_comm-share.svg")"
grep -qF '<title>y axis: training time (x the reference run, relative.csv)</title>' "$C/comparison_training-time.svg" && ok ||
	bad "training-time: $(grep -o 'y axis: [^<]*' "$C/comparison_training-time.svg")"
grep -l 'GPUs unknown\|GPUs not given' "$C"/comparison_*.svg && bad "a comparison without GPU counts has a GPU category" || ok
# begoli-003: 109 M parameters (Table II) on a 10^6 axis.
grep -qF '<title>y axis: parameters (10^6)</title>' "$S/begoli-003-idk/figures/published_params.svg" && ok || bad "published_params: not in 10^6"

# --- parallel_comm: splits of 32 GPUs whose 40 layers or 48 heads (study.yaml) do not divide are left out ---
for plane in tp_pp pp_dp tp_dp; do
	f=$S/cheng-002/figures/parallel_comm_$plane.svg
	for x in 1 2 4 8 16 32; do
		y=$((32 / x))
		case $plane in
		tp_pp) tp=$x pp=$y ;;
		pp_dp) tp=1 pp=$x ;;
		tp_dp) tp=$x pp=1 ;;
		esac
		drawn=0
		grep -qF "data-label=\"($x, $y)\"" "$f" && drawn=1
		if [ $((48 % tp)) -eq 0 ] && [ $((40 % pp)) -eq 0 ]; then want=1; else want=0; fi
		[ $drawn -eq $want ] && ok || bad "parallel_comm_$plane: ($x, $y) drawn $drawn, want $want"
	done
done
grep -qF 'Left out: (1, 32), (2, 16), (32, 1)' "$S/cheng-002/index.html" && ok || bad "tp_pp caption does not name the splits left out"

# --- begoli-003-h200: get-batch in its own panel; h200 scaling: a tick below its lowest speedup ---
[ -s "$S/begoli-003-h200/figures/phases_report_get_batch.svg" ] && ok || bad "no get-batch panel"
lowest=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "speedup") c = i; next }
	$c != "" && (m == "" || $c + 0 < m) { m = $c + 0 } END { print m }' "$S/h200/data/scaling.csv")
if command -v pdftotext >/dev/null; then
	tick=$(pdftotext "$S/h200/figures/scaling.pdf" - | awk -v m="$lowest" '/^[0-9.]+$/ && $1 + 0 <= m { print; exit }')
	[ -n "$tick" ] && ok || bad "scaling: no tick at or below the lowest speedup $lowest"
else
	skipped "pdftotext not installed"
fi

# --- pages: under 1 MB, long tables cut with the count said ---
while IFS= read -r p; do
	size=$(wc -c <"$p")
	[ "$size" -lt 1000000 ] && ok || bad "$p: $size bytes"
done < <(find "$S" -name index.html)
rows=$(($(wc -l <"$S/h200/data/collective_waits.csv") - 1))
[ "$rows" -gt 50 ] && ok || bad "collective_waits.csv has only $rows rows"
grep -qF "collective_waits.csv</code> &middot; $rows rows &middot; <span class=\"shown\">the first 50 shown" "$S/h200/index.html" && ok ||
	bad "collective_waits: the page does not say it shows 50 of $rows rows"
shown=$(awk '/id="table-collective_waits"/ { on = 1 } on && /<tr>/ { n++ } on && /<\/section>/ { print n; exit }' "$S/h200/index.html")
[ "$shown" -le 51 ] && ok || bad "collective_waits: $shown rows on the page"

# --- the runs table at a 1400 px window: nothing cut (scrollWidth = clientWidth) ---
browser=
for b in chromium chromium-browser google-chrome; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done
if [ -n "$browser" ]; then
	cat >"$T/measure.html" <<HTML
<html><body><iframe id="f" src="file://$S/megatron-004/index.html" style="width:1400px;height:800px;border:0"></iframe>
<script>document.getElementById('f').onload = function () { var w = this.contentDocument.querySelector('#runs .table-wrap');
document.body.setAttribute('data-r', w.scrollWidth + ' ' + w.clientWidth); };</script></body></html>
HTML
	r=$(timeout 60 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files --user-data-dir="$T/profile" \
		--window-size=1450,1000 --virtual-time-budget=3000 --dump-dom "file://$T/measure.html" 2>/dev/null |
		grep -o 'data-r="[0-9]* [0-9]*"' | tr -d '"' | cut -d= -f2)
	set -- $r
	[ $# -eq 2 ] && [ "$1" -le "$2" ] && ok || bad "runs table at 1400 px: scrollWidth clientWidth = '$r'"
else
	skipped "chromium not installed"
fi
# --- one value per bar (issue #54 item 2): no figure draws two runs as one bar ---
# A chart refuses a second value for a cell and the page then notes the figure as not drawn; no page of
# the example has such a note (time_to_train drew h200's ZeRO-1 runs over its DDP ones, h200x2-parallel's
# tp2 over four pipelines; scaling its pipelines over one another).
n=$(grep -l "is not drawn: two of its values" "$S"/*/index.html | wc -l)
[ "$n" -eq 0 ] && ok || bad "$n pages with a figure that had two values for one bar: $(grep -oh "figure [a-z0-9_-]* is not drawn: two[^<]*" "$S"/*/index.html | head -3)"
# h200's runs trained 160/320/640 (GPT-2) and 320/640/1280 (BERT) samples on 1/2/4 GPUs (the logs'
# consumed samples): no two runs of one model trained the same samples on different GPU counts, so
# there is no time to train.
python3 - experiments/h200 <<'EOF' && ok || bad "h200's logs: two runs of one model with the same samples"
import glob, re, sys
last = {}
for f in glob.glob(sys.argv[1] + "/**/*.log", recursive=True):
    s = re.findall(r"consumed samples:\s+(\d+)", open(f).read())
    if s:
        last[f] = int(s[-1])
model = lambda f: "bert" if "bert" in f else "gpt2"
gpus = lambda f: re.search(r"/(\d)gpu", f).group(1)
pairs = [(a, b) for a in last for b in last if model(a) == model(b) and last[a] == last[b] and gpus(a) != gpus(b)]
sys.exit(1 if pairs or not last else 0)
EOF
[ ! -e "$S/h200/figures/time_to_train.svg" ] && ok || bad "h200 draws a time to train of runs that trained different samples"
# h200x2-parallel's six runs trained 480 samples each: six bars, each its run's log summed after the
# first iteration (s, to the tooltip's 2 decimals), the 1-GPU run under "1 GPU", the others under "2 GPUs".
python3 - experiments/h200x4-parallel "$S/h200x2-parallel/figures/time_to_train.svg" <<'EOF' && ok || bad "h200x2-parallel's time to train: not one bar per run from its log"
import re, sys
x, svg = sys.argv[1], open(sys.argv[2]).read()
got = sorted(re.findall(r"<title>(\d) GPUs?, [^<]*: ([0-9.]+)</title>", svg))
want = []
for run, log, g in (("pp2-gpipe-m4", "rank1", 2), ("pp2-gpipe-m8", "rank1", 2), ("pp2-1f1b-m4", "rank1", 2),
                    ("pp2-1f1b-m8", "rank1", 2), ("tp1", "rank0", 1), ("tp2", "rank0", 2)):
    ms = [float(v) for v in re.findall(r"elapsed time per iteration \(ms\): ([0-9.]+)", open("%s/par/%s/%s.log" % (x, run, log)).read())]
    want.append((str(g), sum(ms[1:]) / 1000))
want.sort()
# (the tooltip prints 2 decimals: within half of the last one)
if len(got) != len(want) or any(a[0] != b[0] or abs(float(a[1]) - b[1]) > 0.0051 for a, b in zip(got, want)):
    print("got %s, want %s" % (got, sorted(want)), file=sys.stderr)
    sys.exit(1)
EOF

# One figure, each source labelled (issue #54 item 9): h200's strategy figures draw profiled steps (the
# axis says so) and every speedup names its source; every h200 run has a training log (a rank0.log in
# each run's folder), so each of the 4 multi-GPU bars per strategy gives the log's speedup.
for st in ddp zero-1; do
	f=$S/h200/figures/strategy_scaling_$st.svg
	n=$(grep -o 'data-label="[^"]*GPUs ([0-9.]*x log)"' "$f" | wc -l)
	logs=$(ls experiments/h200/traces/*/*/rank0.log | grep -c "/[24]gpu-${st/-/}/")
	[ "$n" -eq 4 ] && [ "$logs" -eq 4 ] && ok || bad "strategy_scaling_$st: $n speedups labelled as the log's, $logs runs with logs"
	grep -q 'y axis: time per profiled iteration (ms)' "$f" && ok || bad "strategy_scaling_$st: the axis does not say profiled"
done

finish
