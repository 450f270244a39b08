#!/bin/bash
# t_output_doc.sh: docs/output.md's table of tables says what the pages'
# Methods say. It builds the sites every table appears in (make example's
# manifests; the hand-written traces of tests/data/history built twice with
# a series, for changes.csv, history.csv and series.csv; tests/data/memory
# for the memory tables; a synthetic GPipe run of tests/e2e/pipeline_gen.py
# for pipeline_stages.csv) and runs
# tools/output_tables.py over them: each table's row must give its CSV's
# columns and its Methods text, word for word. Then a doc with one word
# changed must fail the check (the check can fail).
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

# make example's manifests, from the Makefile's example target.
M=$(sed -n '/^example: perfstudy/,/-o out/p' Makefile | sed 's/^example:.*//; s/\\$//; s#./perfstudy build##; s/-o out//' | tr -d '\n\t')
[ -n "$M" ] && ok || bad "no manifests in the Makefile's example target"
$PERFSTUDY build -q $M -o "$T/example" 2> "$T/err" && ok || bad "example build failed: $(tail -3 "$T/err")"

# A series rebuilt with a run added: changes.csv, history.csv, series.csv.
H=tests/data/history
mkdir -p "$T/w"
cp $H/d1.json $H/d2.json $H/d3.json "$T/w/"
manifest() {
	{
		printf 'version: 1\nid: nightly\ntitle: Nightly\n'
		printf 'series:\n  - name: nightly\n    runs: [%s]\n' "$(echo "$@" | sed 's/ /, /g')"
		printf 'runs:\n'
		for r in "$@"; do printf '  - id: %s\n    traces: [%s.json]\n' "$r" "$r"; done
	} > "$T/w/study.yaml"
}
manifest d1 d2
$PERFSTUDY build -q "$T/w/study.yaml" -o "$T/hist" 2> "$T/err" && ok || bad "build 1 failed: $(cat "$T/err")"
manifest d1 d2 d3
$PERFSTUDY build -q "$T/w/study.yaml" -o "$T/hist" 2> "$T/err" && ok || bad "build 2 failed: $(cat "$T/err")"
for f in changes history series; do
	[ -s "$T/hist/nightly/data/$f.csv" ] && ok || bad "the rebuilt series has no $f.csv"
done

# Allocator events (memory_steps.csv, memory_regions.csv, memory_ranks.csv): the hand-made traces of t_memory.sh.
$PERFSTUDY build -q tests/data/memory/study.yaml -o "$T/mem" 2> "$T/err" && ok || bad "memory build failed: $(cat "$T/err")"

# A pipeline-parallel run (pipeline_stages.csv), which no bundled example is: pipeline_gen.py's GPipe.
mkdir -p "$T/pp"
python3 tests/e2e/pipeline_gen.py "$T/pp/gpipe" gpipe 4 4 && ok || bad "pipeline_gen.py failed"
printf 'title: Pipeline\nruns:\n  - {id: gpipe, traces: gpipe/rank*.json}\n' > "$T/pp/study.yaml"
$PERFSTUDY build -q "$T/pp/study.yaml" -o "$T/pipe" 2> "$T/err" && ok || bad "pipeline build failed: $(cat "$T/err")"
[ -s "$T/pipe/study/data/pipeline_stages.csv" ] && ok || bad "the pipeline build has no pipeline_stages.csv"

python3 tools/output_tables.py "$T/example" "$T/hist" "$T/mem" "$T/pipe" > "$T/out" 2>&1 && ok ||
	bad "docs/output.md's tables differ from the Methods: $(cat "$T/out")"
# Every table a build wrote is in the docs: the generator's count is the number of distinct CSVs.
n=$( (cd "$T" && ls example/*/data/*.csv hist/*/data/*.csv mem/*/data/*.csv pipe/*/data/*.csv) | sed 's#.*/##' | sort -u | wc -l)
grep -q ": $n tables agree" "$T/out" && ok || bad "want $n tables in the docs: $(cat "$T/out")"

# The check fails on a doc that drifted: one word of one definition changed.
sed 's/| one row per `<gpu>`/| one row for each `<gpu>`/; s/One row per <gpu> of each/One row for each <gpu> of each/' docs/output.md > "$T/drift.md"
cmp -s docs/output.md "$T/drift.md" && bad "the drift edit changed nothing"
python3 tools/output_tables.py --doc "$T/drift.md" "$T/example" "$T/hist" "$T/mem" "$T/pipe" > /dev/null 2>&1 && bad "a drifted doc passed" || ok
finish
