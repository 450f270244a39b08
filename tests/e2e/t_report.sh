#!/bin/bash
# t_report.sh: what people publish: paper-ready figures (sizes, fonts
# embedded, pages not empty, LaTeX snippets, tooltips, same bytes), one site
# from several manifests, reruns that re-read only what changed, and
# `make install` into a DESTDIR.
. "$(dirname "$0")/lib.sh"

# --- a second study beside the example: single-column figures, hatching, log scale ---
mkdir -p "$T/st"
sed -e 's/^id: h200/id: h200-single/' -e "s#traces/#$PWD/experiments/h200/traces/#" \
	-e "s#nvidia-smi-q.xml#$PWD/experiments/h200/nvidia-smi-q.xml#" \
	-e "s#nvidia-smi-topo.txt#$PWD/experiments/h200/nvidia-smi-topo.txt#" \
	-e 's/^  top_n: 10/  top_n: 10\n  size: single\n  hatching: true\n  log_scale: true/' \
	experiments/h200/study.yaml >"$T/st/single.yaml"
$PERFSTUDY build -q experiments/h200/study.yaml "$T/st/single.yaml" -o "$T/site" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "two-manifest build failed: $(cat "$T/err")"
for id in h200 h200-single; do
	grep -qF "href=\"$id/index.html\"" "$T/site/index.html" && ok || bad "index does not link to $id"
	grep -qF 'href="../index.html"' "$T/site/$id/index.html" && ok || bad "$id page does not link back"
done
# The means of tests/golden/h200/steps.csv (expected.py) per run, by Python: 49.036 (bert-1gpu) to
# 133.747 ms (bert-2gpu-ddp).
grep -qF '10 runs, 1–4 GPUs, mean step 49.0–133.7 ms' "$T/site/index.html" && ok || bad "index headline"
# Provenance: the manifest and its nvidia-smi file are inputs too, with size and hash.
sz=$(stat -c %s experiments/h200/study.yaml)
sum=$(sha256sum experiments/h200/study.yaml | cut -d' ' -f1)
grep -qF "<td class=\"text path\">experiments/h200/study.yaml</td><td class=\"num\">$sz</td><td class=\"text\"><code class=\"hash\">$sum</code>" \
	"$T/site/h200/index.html" && ok || bad "provenance lacks the manifest with size and SHA-256"
grep -qF "experiments/h200/nvidia-smi-q.xml</td>" "$T/site/h200/index.html" && ok || bad "provenance lacks nvidia-smi-q.xml"

# --- figures: sizes, embedded fonts, pages with ink, LaTeX, tooltips ---
F=$T/site/h200-single/figures
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }
[ "$(png_size "$F/group_fractions.png")" = 1050x780 ] && ok || bad "single-column PNG is $(png_size "$F/group_fractions.png"), want 1050x780 (3.5 x 2.6 in at 300 dpi)"
[ "$(png_size "$T/site/h200/figures/group_fractions.png")" = 2100x1050 ] && ok || bad "default PNG size"
grep -q 'width="252pt" height="187.2pt"' "$F/group_fractions.svg" && ok || bad "single-column SVG size"
if command -v pdffonts >/dev/null && command -v pdftoppm >/dev/null; then
	for pdf in "$T"/site/*/figures/*.pdf; do
		# Every font listed must say "yes" in the emb column.
		n=$(pdffonts "$pdf" | tail -n +3 | awk '$(NF-4) != "yes"' | wc -l)
		f=$(pdffonts "$pdf" | tail -n +3 | wc -l)
		[ "$n" -eq 0 ] && [ "$f" -gt 0 ] && ok || bad "$pdf: $n of $f fonts not embedded"
		# A page with ink: some pixel of a small greyscale rendering is not white.
		pdftoppm -r 20 -gray "$pdf" "$T/page" && ink=$(tail -c +16 "$T/page"-1.pgm | od -An -tu1 -v | tr -s ' ' '\n' | awk '$1 != "" && $1 < 200' | wc -l)
		[ "${ink:-0}" -gt 50 ] && ok || bad "$pdf: page looks empty"
		rm -f "$T"/page-*.pgm
	done
else
	skipped "poppler-utils not installed: PDF fonts and pages not checked"
fi
for tex in "$T"/site/*/figures/*.tex; do
	name=$(basename "$tex" .tex)
	grep -qF "\\includegraphics{figures/$name.pdf}" "$tex" && grep -q '\\caption{.' "$tex" && ok ||
		bad "$tex: no \\includegraphics or caption"
done
grep -q '^\\begin{figure}\[tbp\]' "$F/group_fractions.tex" && ok || bad "single-column snippet should use figure"
grep -q '^\\begin{figure\*}\[tbp\]' "$T/site/h200/figures/group_fractions.tex" && ok || bad "double-column snippet should use figure*"
svg=$T/site/h200/figures/top_kernels_gpt2-1gpu_r0.svg
# The title names the run by its manifest label ("GPT-2 124M, 1 GPU"), not its id.
grep -q '^<title>Top 10 kernels by total time: GPT-2 124M, 1 GPU, rank 0</title>' "$svg" && ok || bad "SVG has no document <title>"
# Figures a reviewer accepts (issue 20, 6); texts are glyphs, so the SVG tooltips are checked.
H=$T/site/h200/figures
# memops: HtoD ~0.011 ms beside DtoD ~1.4-1.9 ms per device (memops.csv) is > 100x: a log axis
# by default, and with the manifest's log_scale: true.
for d in "$H" "$F"; do
	grep -qF '<title>y axis: time per device (ms), log scale</title>' "$d/memops.svg" && ok || bad "$d/memops.svg: no log axis"
done
grep -qF '<title>x axis: run, rank</title>' "$H/memops.svg" && ok || bad "memops: no x axis title"
grep -qF '<title>x axis: run, rank</title>' "$H/step_breakdown.svg" && ok || bad "step_breakdown: no x axis title"
grep -qF '<title>x axis: run</title>' "$H/phases_host.svg" && ok || bad "phases_host: no x axis title"
grep -qF '<title>x axis: kernel group</title>' "$H/compare_1.svg" && ok || bad "compare_1: no x axis title"
grep -qF '<title>key: other host operators</title>' "$H/step_breakdown.svg" && ok || bad "step_breakdown key: no human name"
grep -qE '<title>key: (cpu_other|data_loading|cuda_runtime)</title>' "$H/step_breakdown.svg" && bad "step_breakdown key shows code names" || ok
grep -qF '<title>key: optimizer step</title>' "$H/phases_host.svg" && ok || bad "phases_host key: no human name"
# Runs by the manifest's labels in keys and under bars.
grep -qF '<title>key: GPT-2 124M, 1 GPU</title>' "$H/compare_1.svg" && ok || bad "compare_1 key: no run label"
grep -qF '<title>GPT-2 124M, 2 GPUs, DDP</title>' "$H/step_breakdown.svg" && ok || bad "step_breakdown: no run label under the bars"
grep -qF 'gpt2-2gpu-ddp r0' "$H/step_breakdown.svg" && bad "step_breakdown: a bar named by run id" || ok
# Scaling: GPUs on a log-2 axis, "ideal" in the key.
grep -qF '<title>x axis: GPUs, log scale</title>' "$H/scaling.svg" && ok || bad "scaling: no log-2 GPU axis"
grep -qF '<title>key: linear scaling</title>' "$H/scaling.svg" && ok || bad "scaling: linear scaling not in the key"
grep -q '<rect [^>]*><title>void at::native::' "$svg" && ok || bad "SVG has no tooltip with a full kernel name"
grep -q 'log scale' "$F/top_kernels_gpt2-1gpu_r0.svg" 2>/dev/null || ok # the label is drawn as glyphs; checked by eye
$PERFSTUDY build -q experiments/h200/study.yaml "$T/st/single.yaml" -o "$T/site2" 2>/dev/null
diff -r -x perfstudy.db "$T/site" "$T/site2" >/dev/null && ok || bad "two builds of the same studies differ"

# --- the two-study site in a real browser; screenshots kept in build/test-artifacts ---
ARTIFACTS=build/test-artifacts/screenshots bash tests/e2e/browser_check.sh "$T/site"
rc=$?
if [ $rc -eq 77 ]; then skipped "chromium not installed"; elif [ $rc -eq 0 ]; then ok; else bad "browser check of the two-study site"; fi

# --- reruns: only what changed is read ---
cp -r tests/data/small/study "$T/small"
S=$T/small
$PERFSTUDY build "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err1"
n=$(grep -c '^perfstudy: reading ' "$T/err1")
[ "$n" -eq 3 ] && ok || bad "first build read $n traces, want 3: $(cat "$T/err1")"
dump() { sqlite3 "$1" ".dump" | grep -v "'build_id'\|'fingerprint'"; }
command -v sqlite3 >/dev/null && dump "$T/r/perfstudy.db" >"$T/dump1"
# Nothing changed at all: the previous output is kept as it is.
$PERFSTUDY build "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err2"
grep -qx "perfstudy: $T/r is up to date: .*(--force rebuilds)" "$T/err2" &&
	ok || bad "unchanged rebuild is not 'up to date': $(cat "$T/err2")"
if command -v sqlite3 >/dev/null; then
	dump "$T/r/perfstudy.db" >"$T/dump1b"
	same "$T/dump1" "$T/dump1b" "store after an up-to-date rebuild"
fi
# An option changed (same output): traces are reused, analyses run again.
$PERFSTUDY build --classify default "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err2"
grep -q '^perfstudy: reading .*json' "$T/err2" && bad "unchanged rebuild read a trace: $(cat "$T/err2")" || ok
n=$(grep -c ': unchanged, reused$' "$T/err2")
[ "$n" -eq 3 ] && ok || bad "unchanged rebuild reused $n traces, want 3"
grep -qx "$S/run-b/b.json: byte 281: warning: skipped event 'bad_kernel': negative 'dur'" "$T/err2" && ok ||
	bad "a reused trace's warning is not reported again"
grep -qF "negative &#39;dur&#39;" "$T/r/default/index.html" && ok || bad "a reused trace's warning is not in Provenance"
if command -v sqlite3 >/dev/null; then
	dump "$T/r/perfstudy.db" >"$T/dump2"
	same "$T/dump1" "$T/dump2" "store after an unchanged rebuild"
else
	skipped "sqlite3 not installed: store rows not compared"
fi
same tests/e2e/expected/small/kernels.csv "$T/r/default/data/kernels.csv" "kernels.csv after a rebuild"
# Touched but the same bytes: the hash says unchanged. Changed: read again.
touch -d '2001-01-01' "$S/run-a/rank0.json"
$PERFSTUDY build "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err3"
grep -qx "perfstudy: $S/run-a/rank0.json: unchanged, reused" "$T/err3" && ok || bad "touched trace with the same bytes was re-read"
printf '\n' >>"$S/run-b/b.json"
$PERFSTUDY build "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err4"
grep -q "^perfstudy: reading $S/run-b/b.json " "$T/err4" && ok || bad "changed trace was not re-read: $(cat "$T/err4")"
[ "$(grep -c ': unchanged, reused$' "$T/err4")" -eq 2 ] && ok || bad "other traces not reused after one changed"
same tests/e2e/expected/small/kernels.csv "$T/r/default/data/kernels.csv" "kernels.csv after a partial rebuild"
# A run removed disappears.
$PERFSTUDY build "$S/run-a" -o "$T/r" 2>"$T/err5"
grep -q 'run-b' "$T/r/default/data/runs.csv" && bad "removed run still in runs.csv" || ok
if command -v sqlite3 >/dev/null; then
	[ "$(sqlite3 "$T/r/perfstudy.db" "SELECT count(*) FROM traces")" = 1 ] && ok || bad "removed run's traces still in the store"
fi
# --force reads everything.
$PERFSTUDY build --force "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err6"
[ "$(grep -c '^perfstudy: reading ' "$T/err6")" -eq 3 ] && ok || bad "--force did not re-read every trace"
$PERFSTUDY build -q "$S/run-a" "$S/run-b" -o "$T/r" 2>"$T/err7"
[ ! -s "$T/err7" ] && ok || bad "--quiet printed: $(cat "$T/err7")"

# --- make install into a DESTDIR; the installed binary builds the example ---
if make -s -o perfstudy install PREFIX=/usr DESTDIR="$T/inst" >"$T/err" 2>&1; then
	[ -x "$T/inst/usr/bin/perfstudy" ] && ok || bad "install: no binary"
	[ -f "$T/inst/usr/share/man/man1/perfstudy.1" ] && ok || bad "install: no man page"
	if command -v man >/dev/null; then
		man -l "$T/inst/usr/share/man/man1/perfstudy.1" 2>/dev/null | grep -q 'EXIT STATUS' && ok || bad "man page does not render"
	fi
	(cd "$T" && "$T/inst/usr/bin/perfstudy" build -q "$OLDPWD/experiments/h200/study.yaml" -o "$T/inst-out") 2>"$T/err"
	[ $? -eq 0 ] && [ -s "$T/inst-out/h200/index.html" ] && [ -s "$T/inst-out/assets/style.css" ] && ok ||
		bad "installed binary could not build the example: $(cat "$T/err")"
else
	bad "make install failed: $(cat "$T/err")"
fi

finish
