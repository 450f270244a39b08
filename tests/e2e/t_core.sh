#!/bin/bash
# t_core.sh: the pipeline end to end: builds from directories and from the
# bundled manifest compared with hand-computed (tests/e2e/expected) and
# independently computed (tests/golden) tables, figures and pages, bad input,
# usage, the shared corpus, and the site in a real browser.
. "$(dirname "$0")/lib.sh"

# --- the small hand-checked study, built from directories (no manifest) ---
S=tests/data/small/study
$PERFSTUDY build $S/run-a $S/run-b -o "$T/small" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "small build failed: $(cat "$T/err")"
# compare.csv by hand: run-a has 1 step, run-b 3 (ProfilerStep#7 in b.json,
# #7 and #8 in a.json.gz), so run-a's sums count whole and run-b's a third:
# gemm 10.5 + 11.25 = 21.75 us; sm90 (1000.5 -> 1001 ns) + (2999.5 -> 3000
# ns) = 4001 ns / 3 = 1333.7 -> 1.334 us; Broadcast ("Kernel") 10 us / 3 =
# 3.333; copy_device_to_device 5 / 3 = 1.667; memory a = 2.5 + 0.75 = 3.25,
# ratio 1.667 / 3.25 = 0.512923; rows by |b - a| descending.
for f in groups kernels steps compare; do
	same tests/e2e/expected/small/$f.csv "$T/small/default/data/$f.csv" "small $f.csv"
done
grep -qx "$S/run-b/b.json: byte 281: warning: skipped event 'bad_kernel': negative 'dur'" "$T/err" && ok ||
	bad "negative duration warning missing: $(cat "$T/err")"
$PERFSTUDY build -q --classify payoungkhamdee2021 $S/run-a $S/run-b -o "$T/smallp" 2>/dev/null
same tests/e2e/expected/small-payoungkhamdee/groups.csv "$T/smallp/default/data/groups.csv" "small payoungkhamdee groups.csv"

# --- inspect on the small files: counts checked by hand ---
$PERFSTUDY inspect $S/run-a/rank0.json $S/run-b/a.json.gz >"$T/inspect" 2>&1
cat >"$T/inspect.want" <<WANT
$S/run-a/rank0.json: kineto, 1 ranks, 6 kernels, 1 memcpy, 1 memset, 1 runtime, 2 annotations, 0 gpu annotations, 1 steps, 1 cpu ops, rank 0 of 1, Test GPU <&>
$S/run-b/a.json.gz: kineto, 1 ranks, 3 kernels, 0 memcpy, 0 memset, 0 runtime, 2 annotations, 0 gpu annotations, 2 steps, 0 cpu ops, rank 1 of 2
WANT
same "$T/inspect.want" "$T/inspect" "inspect small"

# --- the bundled example, against the independent reference ---
example_h200 "$T/ex" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "example build failed: $(cat "$T/err")"
for f in groups kernels steps; do
	same tests/golden/h200/$f.csv "$T/ex/h200/data/$f.csv" "example $f.csv"
done
for f in index.html perfstudy.db h200/index.html h200/data/runs.csv assets/style.css; do
	[ -s "$T/ex/$f" ] && ok || bad "example: $f missing"
done
for fig in group_fractions top_kernels_gpt2-1gpu_r0 top_kernels_bert-2gpu-zero1_r1; do
	head -c 4 "$T/ex/h200/figures/$fig.pdf" | grep -q '%PDF' && ok || bad "$fig.pdf is not a PDF"
	head -c 8 "$T/ex/h200/figures/$fig.png" | od -An -tx1 | grep -q '89 50 4e 47' && ok || bad "$fig.png is not a PNG"
	grep -q '<svg' "$T/ex/h200/figures/$fig.svg" && ok || bad "$fig.svg is not an SVG"
	grep -q "figures/$fig.svg" "$T/ex/h200/index.html" && ok || bad "page does not show $fig"
done
# Newest trace: baseTimeNanoseconds + the last GPU activity end, by Python: 2026-11-22 18:05:53 UTC.
grep -q '<dd>2026-11-22</dd>' "$T/ex/h200/index.html" && ok || bad "example page: newest trace date"
# Models: the manifest's models, then its strategies (single, ddp, zero1) as the figures name them, and whence.
grep -q '<dd>GPT-2 124M, BERT-base; strategies single, DDP, ZeRO-1 (manifest)</dd>' "$T/ex/h200/index.html" && ok ||
	bad "example page: models"
$PERFSTUDY build -q --classify payoungkhamdee2021 experiments/h200/study.yaml -o "$T/exp" 2>/dev/null
same tests/golden/h200/groups-payoungkhamdee2021.csv "$T/exp/h200/data/groups.csv" "example payoungkhamdee groups.csv"
# Issue #54 item 6: 000's grouping of the real traces is a view on the site, not only this golden
# file: experiment h200-2021 (get-ins-group.yaml, in make example) gives the golden file's rows of its
# runs, the single-GPU and DDP ones, and reproduction.md's Figure 4 row names it.
G=experiments/h200/get-ins-group.yaml
if [ -f "$G" ] && $PERFSTUDY build -q "$G" -o "$T/ex2021" 2>"$T/err"; then ok; else bad "$G does not build: $(cat "$T/err" 2>/dev/null)"; fi
{ head -1 tests/golden/h200/groups-payoungkhamdee2021.csv
	grep -E '^(gpt2|bert)-(1gpu|2gpu-ddp|4gpu-ddp),' tests/golden/h200/groups-payoungkhamdee2021.csv; } >"$T/g2021.csv"
[ "$(wc -l <"$T/g2021.csv")" = 57 ] && ok || bad "golden 2021 groups: not 56 rows of 14 ranks x 4 groups"
same "$T/g2021.csv" "$T/ex2021/h200-2021/data/groups.csv" "h200-2021 groups.csv (000's get_ins_group on real traces)"
sed -n '/^example:/,/-o out$/p' Makefile | grep -qF "$G" && ok || bad "make example does not build $G"
grep '^| Figure 4 | time per group' docs/reproduction.md | grep -qF '`h200-2021`' && ok ||
	bad "reproduction.md's 000 Figure 4 row does not name the h200-2021 view"
if command -v python3 >/dev/null 2>&1; then
	bash tests/golden/make.sh --check && ok || bad "tests/golden/h200 is not what tests/golden/expected.py computes"
else
	skipped "python3 not installed: golden files not recomputed"
fi

# --- same inputs, same bytes ---
$PERFSTUDY build -q experiments/h200/study.yaml -o "$T/ex2" 2>/dev/null
if diff -r -x perfstudy.db "$T/ex" "$T/ex2" >/dev/null; then ok; else bad "two builds of the example differ"; fi

# --- the store answers queries ---
if command -v sqlite3 >/dev/null 2>&1; then
	n=$(sqlite3 "$T/ex/perfstudy.db" "SELECT count(*) FROM gpu_activities WHERE experiment='h200' AND run='gpt2-1gpu' AND kind='kernel'")
	# 3459: the events of cat "kernel" in the trace, counted by Python.
	[ "$n" = 3459 ] && ok || bad "store: gpt2-1gpu has $n kernels, want 3459"
	n=$(sqlite3 "$T/ex/perfstudy.db" "SELECT count(DISTINCT sha256) FROM traces WHERE rank IS NOT NULL")
	want=$(sha256sum experiments/h200/traces/*/*/rank*.pt.trace.json.gz | cut -d' ' -f1 | sort -u | wc -l)
	[ "$n" = "$want" ] && ok || bad "store: $n distinct trace hashes, want $want (sha256sum)"
else
	skipped "sqlite3 not installed"
fi

# --- the traces make unpack put in place are the recorded JSON (traces.tar.xz, gzipped again) ---
if (cd experiments/h200 && while read -r sum f; do
	[ "$(gzip -dc "$f.gz" | sha256sum | cut -d' ' -f1)" = "$sum" ] || { echo "$f" >&2; exit 1; }
done <traces.sha256); then ok; else bad "experiments/h200: an unpacked trace is not the recorded JSON (traces.sha256)"; fi
[ "$(wc -l <experiments/h200/traces.sha256)" = 26 ] && ok || bad "experiments/h200/traces.sha256 does not list the 26 traces"
(cd experiments/h200x4-parallel && sha256sum --quiet -c traces.sha256) && ok ||
	bad "experiments/h200x4-parallel: an unpacked trace is not the recorded JSON (traces.sha256)"

# --- directories without a manifest: run ids relative to the common parent ---
E=experiments/h200/traces/gpt2-124m
$PERFSTUDY build -q $E/1gpu $E/2gpu-ddp -o "$T/dirs" 2>/dev/null
cut -d, -f1-4 "$T/dirs/default/data/runs.csv" >"$T/runs"
printf 'run,label,gpus,ranks\n1gpu,1gpu,1,1\n2gpu-ddp,2gpu-ddp,2,2\n' >"$T/runs.want"
same "$T/runs.want" "$T/runs" "directory build runs.csv"

# --- bad input: exit 1, the exact message, no output left behind ---
check_bad() { # check_bad INPUT EXPECTED_STDERR
	rm -rf "$T/bad"
	$PERFSTUDY build -q "$1" -o "$T/bad" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] && ok || bad "$1: exit $rc, want 1"
	printf '%s\n' "$2" >"$T/err.want"
	same "$T/err.want" "$T/err" "$1 message"
	if ls -d "$T"/bad* >/dev/null 2>&1; then bad "$1: output left behind"; else ok; fi
}
check_bad tests/bad/truncated.json.gz "tests/bad/truncated.json.gz: error: truncated gzip stream after 646 bytes of uncompressed data"
check_bad tests/bad/corrupt.json.gz "tests/bad/corrupt.json.gz: error: corrupt gzip data near byte 94: invalid code -- missing end-of-block"
check_bad tests/bad/malformed.json "tests/bad/malformed.json:2:31: error: malformed JSON at byte 48: the JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc"
check_bad tests/bad/events-not-array.json "tests/bad/events-not-array.json:1:17: error: expected an array for 'traceEvents' at byte 16: the JSON element does not have the requested type"
# A JSON object with "schema" and "nodes" is a PyTorch execution trace: recognised, but alone in its run an error.
check_bad tests/bad/not-kineto.json "tests/bad/not-kineto.json: error: PyTorch execution trace (Chakra ET): an operator graph with shapes but no timing or GPU activity; read the Kineto trace taken with it; run 'not-kineto.json' has no trace perfstudy can read"
check_bad tests/bad/no-trace-events.json "tests/bad/no-trace-events.json: error: not a Kineto trace: no 'traceEvents' array"
check_bad tests/bad/text.json "tests/bad/text.json: error: unknown format (first byte 0x68): expected a trace JSON (Kineto, JAX, PyTorch), a JAX .xplane.pb, a SQLite export (nsys, nvprof, rocprofv3), a CSV (nvprof, Nsight Compute, nsys NVTX), nvidia-smi output (XML, topo -m), or a Megatron or Lightning log"
check_bad tests/bad/empty.json "tests/bad/empty.json: error: empty file"
check_bad tests/bad/missing-trace.yaml "tests/bad/missing-trace.yaml:4:13: error: no file matches '../data/small/study/run-a/rank9.json'"
check_bad tests/bad/typo.yaml "tests/bad/typo.yaml:2:1: error: unknown key 'rnus' (did you mean 'runs'?)
tests/bad/typo.yaml:1:1: error: missing required key 'runs'"
check_bad tests/bad/no-such-dir "tests/bad/no-such-dir: error: no such file or directory"

# A failed build leaves the previous output exactly as it was.
cp -r "$T/small" "$T/prev"
$PERFSTUDY build -q tests/bad/truncated.json.gz -o "$T/prev" 2>/dev/null
[ $? -eq 1 ] && ok || bad "failed rebuild: wrong exit code"
if diff -r "$T/small" "$T/prev" >/dev/null; then ok; else bad "failed rebuild changed the previous output"; fi
# A directory that is not a perfstudy output is never replaced.
mkdir -p "$T/precious" && echo keep >"$T/precious/notes.txt"
$PERFSTUDY build -q $S/run-a -o "$T/precious" 2>/dev/null
[ $? -eq 1 ] && [ -f "$T/precious/notes.txt" ] && ok || bad "a foreign directory was replaced"

# --- usage ---
$PERFSTUDY >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "no command: want exit 2"
$PERFSTUDY build >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "build without input: want exit 2"
$PERFSTUDY build --bogus x >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown option: want exit 2"
$PERFSTUDY build --classify nope $S/run-a >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown preset: want exit 2"
$PERFSTUDY frobnicate >/dev/null 2>&1; [ $? -eq 2 ] && ok || bad "unknown command: want exit 2"
$PERFSTUDY --version | grep -q '^perfstudy [0-9]' && ok || bad "--version"
for c in build inspect; do
	$PERFSTUDY $c --help | grep -q "^usage: perfstudy $c" && ok || bad "$c --help"
done
$PERFSTUDY inspect /nonexistent/file.json 2>"$T/err"; rc=$?
[ $rc -eq 3 ] && grep -qx "/nonexistent/file.json: error: cannot open: No such file or directory" "$T/err" && ok ||
	bad "inspect of a missing file: exit $rc, $(cat "$T/err")"

# --- every Kineto file of the shared corpus: read, or one line saying why not ---
if [ -d ../shared/corpus ]; then
	find ../shared/corpus/h200 ../shared/corpus/hta -name '*.json' -o -name '*.json.gz' | sort >"$T/files"
	n=$(wc -l <"$T/files")
	$PERFSTUDY inspect $(cat "$T/files") >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -le 1 ] && ok || bad "corpus inspect exit $rc"
	lines=$(($(wc -l <"$T/out") + $(wc -l <"$T/err")))
	[ "$lines" -eq "$n" ] && ok || bad "corpus inspect: $lines lines for $n files"
	if command -v python3 >/dev/null 2>&1; then
		# Kernel counts against Python's json module.
		for f in $(grep '/h200/' "$T/files"); do
			want=$(python3 -c "import json,gzip,sys; d=json.load(gzip.open(sys.argv[1])); print(sum(1 for e in d['traceEvents'] if e.get('ph')=='X' and e.get('cat')=='kernel'))" "$f")
			grep -q "^$f: kineto, 1 ranks, $want kernels," "$T/out" && ok || bad "inspect $f: want $want kernels"
		done
	fi
else
	skipped "../shared/corpus absent"
fi

# --- the site in a real browser ---
bash tests/e2e/browser_check.sh "$T/ex"
rc=$?
if [ $rc -eq 77 ]; then skipped "chromium not installed"; elif [ $rc -eq 0 ]; then ok; else bad "browser check of the example site"; fi

finish
