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

finish
