#!/bin/bash
# t_parallel.sh: --jobs and shards change how traces are read, never what is
# built. The bundled example built with --jobs 1, --jobs 4 and from two
# shards (perfstudy ingest --shard I/2 + perfstudy merge) gives the same
# CSV, HTML, SVG, PDF and PNG bytes and the same rows in every table of the
# store; the messages on stderr are the same too, and with several bad
# traces the first one in input order is the one reported, whatever N.
# Merge refuses shards that do not fit. A figure-drawing process that is
# killed fails the build and leaves the previous output. No timings are
# asserted.
source "$(dirname "$0")/lib.sh"
# Every build here records the same time in its history (history_builds),
# so stores built in different seconds compare equal.
export SOURCE_DATE_EPOCH=1700000000

# dump DB: every table of the store but meta (its fingerprint names the output directory), as SQL.
dump() {
	sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'meta' ORDER BY name" |
		while read -r t; do sqlite3 "$1" ".dump $t"; done
}
# same_site A B NAME: same files, same bytes (but the store), same rows in the store.
same_site() {
	if diff -r -x perfstudy.db "$1" "$2" > "$T/diff" 2>&1; then ok; else bad "$3: files differ"; head -5 "$T/diff" >&2; fi
	dump "$1/perfstudy.db" > "$T/a.sql"
	dump "$2/perfstudy.db" > "$T/b.sql"
	if [ -s "$T/a.sql" ] && cmp -s "$T/a.sql" "$T/b.sql"; then ok; else bad "$3: stores differ"; diff "$T/a.sql" "$T/b.sql" | head -5 >&2; fi
}
# Messages with the output directory's name taken out.
clean() { sed -e "s#$T/[a-z0-9]*#OUT#g" "$1"; }

M=experiments/h200/study.yaml
"$PERFSTUDY" build --jobs 1 "$M" -o "$T/j1" 2> "$T/j1.err" || bad "--jobs 1 build failed: $(cat "$T/j1.err")"
"$PERFSTUDY" build --jobs 4 "$M" -o "$T/j4" 2> "$T/j4.err" || bad "--jobs 4 build failed: $(cat "$T/j4.err")"
"$PERFSTUDY" build -j2 -q "$M" -o "$T/j2" 2> /dev/null || bad "-j2 build failed"
same_site "$T/j1" "$T/j4" "--jobs 1 and --jobs 4"
same_site "$T/j1" "$T/j2" "--jobs 1 and -j2"
# The trace_id indexes' statistics (and those of the event tables' indexes
# on (trace_id, start_ns)) are exact (--jobs 4 makes the indexes
# before the last traces are stored, --jobs 1 after): SQLite's full ANALYZE
# of a copy says the same.
q="SELECT tbl, idx, stat FROM sqlite_stat1 WHERE idx LIKE '%_by_trace' OR idx LIKE '%_by_start' ORDER BY idx"
cp "$T/j4/perfstudy.db" "$T/an.db"
a=$(sqlite3 "$T/an.db" "$q")
sqlite3 "$T/an.db" "ANALYZE"
b=$(sqlite3 "$T/an.db" "$q")
[ "$(printf '%s\n' "$a" | grep -c 'activities_by_trace|[1-9][0-9]* [1-9]')" = 1 ] &&
	[ "$(printf '%s\n' "$a" | grep -c 'activities_by_start|[1-9][0-9]* [1-9][0-9]* [1-9]')" = 1 ] && [ "$a" = "$b" ] && ok ||
	bad "index statistics: '$a', a full ANALYZE: '$b'"
# A trace_id index where a table holds two traces or more, none where it
# holds one (every row has the same trace_id): run-a is one trace, run-a
# and run-b built together three.
idx() { sqlite3 "$1" "SELECT group_concat(name, ' ') FROM (SELECT name FROM sqlite_master WHERE type = 'index' AND name GLOB 'a*_by_trace' ORDER BY name)"; }
"$PERFSTUDY" build -q tests/data/small/study/run-a -o "$T/one" || bad "build of one trace failed"
"$PERFSTUDY" build -q tests/data/small/study/run-a tests/data/small/study/run-b -o "$T/two" || bad "build of three traces failed"
[ "$(idx "$T/one/perfstudy.db")" = "" ] && [ "$(idx "$T/two/perfstudy.db")" = "activities_by_trace annotations_by_trace" ] && ok ||
	bad "trace_id indexes: one trace '$(idx "$T/one/perfstudy.db")', three '$(idx "$T/two/perfstudy.db")'"
clean "$T/j1.err" > "$T/j1.msg"
clean "$T/j4.err" > "$T/j4.msg"
same "$T/j1.msg" "$T/j4.msg" "stderr of --jobs 1 and --jobs 4"
# A run of two files that record no rank: each file's rank is its position,
# said for each (the order decides); one such file alone is rank 0, unsaid.
mkdir -p "$T/nr"
for f in a b; do
	printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2, "pid": 0, "tid": 7, "args": {"device": 0, "stream": 7, "correlation": 1}}]}\n' > "$T/nr/$f.json"
done
printf 'version: 1\nid: nr\ntitle: no ranks\nruns:\n  - id: two\n    traces: [a.json, b.json]\n  - id: one\n    traces: [a.json]\n' > "$T/nr/study.yaml"
"$PERFSTUDY" build "$T/nr/study.yaml" -o "$T/nro" 2> "$T/nr.err" || bad "no-rank build failed: $(cat "$T/nr.err")"
grep -q "a.json: warning: no rank recorded (no 'distributedInfo'); taken as rank 0, its position among the 2 files of run 'two'" "$T/nr.err" &&
	grep -q "b.json: warning: no rank recorded (no 'distributedInfo'); taken as rank 1, its position among the 2 files of run 'two'" "$T/nr.err" &&
	ok || bad "two files without ranks: not said: $(cat "$T/nr.err")"
grep -q "run 'one'" "$T/nr.err" && bad "one file without a rank: warned: $(cat "$T/nr.err")" || ok
# The readers' warnings reach stderr from the worker threads, in file order.
"$PERFSTUDY" build --jobs 4 tests/bad/negative-dur.json tests/bad/nan-dur.json -o "$T/w4" 2> "$T/w4.err" ||
	bad "--jobs 4 build of two bad traces failed: $(cat "$T/w4.err")"
grep -q "negative-dur.json: byte 81: warning: skipped event 'neg': negative 'dur'" "$T/w4.err" &&
	grep -q "nan-dur.json: byte 18: warning: skipped event 'k': 'dur' is not a representable number" "$T/w4.err" && ok ||
	bad "--jobs 4: the readers' warnings are missing from stderr: $(cat "$T/w4.err")"

# Rebuilds of the same inputs into the same directory (--force, --jobs 2)
# write the same bytes, the store included: where the early trace_id
# indexes go must not depend on the threads' timing (it did: 2 of 4
# rebuilds of the h200 study differed).
"$PERFSTUDY" build -q --force --jobs 2 experiments/h200/study.yaml -o "$T/re" || bad "rebuild 1 failed"
cp -r "$T/re" "$T/re1"
for k in 2 3 4; do
	"$PERFSTUDY" build -q --force --jobs 2 experiments/h200/study.yaml -o "$T/re" || bad "rebuild $k failed"
	diff -r "$T/re1" "$T/re" > /dev/null && ok || bad "rebuild $k: other bytes than the first"
done

# Shards: 0/2 with one job, 1/2 with two, merged in either order.
"$PERFSTUDY" ingest -q --shard 0/2 -o "$T/s0.db" --jobs 1 "$M" || bad "ingest --shard 0/2 failed"
"$PERFSTUDY" ingest -q --shard=1/2 -o "$T/s1.db" --jobs 2 "$M" || bad "ingest --shard 1/2 failed"
# Trace i of the inputs (in manifest order) goes to shard i mod 2.
n=$(ls experiments/h200/traces/*/*/rank*.pt.trace.json.gz | wc -l)
[ "$(sqlite3 "$T/s0.db" "SELECT group_concat(position) FROM shard_traces")" = "$(seq -s, 0 2 $((n - 1)))" ] && ok ||
	bad "shard 0/2 should hold positions 0,2,...,$((n - 1)) of $n"
# A shard is the same bytes whoever writes it: with other --jobs, and with the
# reading threads on (records carry no padding bytes of the writer's memory).
PERFSTUDY_READAHEAD=always "$PERFSTUDY" ingest -q --shard 0/2 -o "$T/s0b.db" --jobs 3 "$M" || bad "ingest --shard 0/2 again failed"
cmp -s "$T/s0.db" "$T/s0b.db" && ok || bad "shard 0/2 written twice differs"
"$PERFSTUDY" merge "$T/s1.db" "$T/s0.db" "$M" -o "$T/merged" 2> "$T/merge.err" || bad "merge failed: $(cat "$T/merge.err")"
same_site "$T/j1" "$T/merged" "single build and shard 0/2 + 1/2 + merge"
clean "$T/merge.err" > "$T/merge.msg"
same "$T/j1.msg" "$T/merge.msg" "stderr of build and merge"
# The default shard name, and a trace directory as input.
(cd "$T" && "$OLDPWD/$PERFSTUDY" ingest -q --shard 0/1 "$OLDPWD/tests/data/small/study/run-a") || bad "ingest without -o failed"
[ -f "$T/perfstudy-shard-0-of-1.db" ] && ok || bad "ingest without -o: no perfstudy-shard-0-of-1.db"

# Merge refuses what does not fit; nothing is written.
merge_fails() { # NAME EXPECTED-MESSAGE ARGS...
	local name=$1 msg=$2
	shift 2
	rm -rf "$T/mf"
	if "$PERFSTUDY" merge -q -o "$T/mf" "$@" 2> "$T/mf.err"; then
		bad "$name: merge succeeded"
	elif ! grep -qF -- "$msg" "$T/mf.err"; then
		bad "$name: expected '$msg', got: $(cat "$T/mf.err")"
	elif [ -e "$T/mf" ]; then
		bad "$name: output left behind"
	else
		ok
	fi
}
merge_fails "missing shard" "error: shard 1/2 is missing (run perfstudy ingest --shard 1/2)" "$T/s0.db" "$M"
merge_fails "repeated shard" "error: shard repeats a shard given before" "$T/s0.db" "$T/s0.db" "$M"
merge_fails "other inputs" "error: shard was cut from other inputs" "$T/s0.db" "$T/s1.db" tests/data/small/study/run-a
mkdir -p "$T/copy"
cp -r experiments/h200/traces/bert-base/2gpu-ddp "$T/copy/ddp"
"$PERFSTUDY" ingest -q --shard 0/1 -o "$T/c.db" "$T/copy/ddp" || bad "ingest of a copied run failed"
touch -d '2001-01-01' "$T/copy/ddp/rank1.pt.trace.json.gz"
merge_fails "changed trace" "rank1.pt.trace.json.gz: error: changed since shard 0/1 read it" "$T/c.db" "$T/copy/ddp"
if "$PERFSTUDY" merge -q -o "$T/mf" "$M" 2> "$T/mf.err"; then bad "merge without shards succeeded"
elif [ $? -eq 2 ] && grep -q 'no shard database given' "$T/mf.err"; then ok; else bad "merge without shards: $(cat "$T/mf.err")"; fi

# Usage errors: exit 2.
usage_fails() { # NAME EXPECTED ARGS...
	local name=$1 msg=$2
	shift 2
	"$PERFSTUDY" "$@" > /dev/null 2> "$T/u.err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -qF -- "$msg" "$T/u.err"; then ok; else bad "$name: exit $rc, $(cat "$T/u.err")"; fi
}
usage_fails "--jobs 0" "error: --jobs expects a number from 1 to 1024, got '0'" build --jobs 0 "$M"
usage_fails "--jobs x" "got 'x'" build -j x "$M"
usage_fails "--shard 2/2" "error: --shard expects I/N with 0 <= I < N, got '2/2'" ingest --shard 2/2 "$M"
usage_fails "no --shard" "error: --shard I/N is required" ingest "$M"

# Several bad traces: the first in input order is reported, alone, whatever N.
mkdir -p "$T/badrun"
for i in 0 1 2 3 4 5; do cp tests/data/small/study/run-a/*.json "$T/badrun/rank$i.json" 2>/dev/null || true; done
cp tests/bad/malformed.json "$T/badrun/rank2.json"
cp tests/bad/truncated-string.json "$T/badrun/rank4.json"
for j in 1 2 4; do
	"$PERFSTUDY" build -q --jobs $j "$T/badrun" -o "$T/bad$j" 2> "$T/bad$j.err"
	echo "exit $?" >> "$T/bad$j.err"
	[ -e "$T/bad$j" ] && bad "--jobs $j: output left behind after a bad trace"
done
if [ "$(grep -c error "$T/bad1.err")" = 1 ] && grep -q "rank2.json" "$T/bad1.err" && grep -qx "exit 1" "$T/bad1.err"; then ok
else bad "bad traces, --jobs 1: $(cat "$T/bad1.err")"; fi
same "$T/bad1.err" "$T/bad2.err" "bad traces, stderr of --jobs 1 and 2"
same "$T/bad1.err" "$T/bad4.err" "bad traces, stderr of --jobs 1 and 4"
if "$PERFSTUDY" ingest -q --shard 0/2 -o "$T/bad.db" "$T/badrun" 2> "$T/badshard.err"; then bad "ingest of a bad trace succeeded"
elif grep -q "rank2.json" "$T/badshard.err" && [ ! -e "$T/bad.db" ] && ! ls "$T"/bad.db.tmp.* > /dev/null 2>&1; then ok
else bad "ingest of a bad trace: $(cat "$T/badshard.err")"; fi

# Reruns with workers: one trace changed is read again, the others reused; same store as --force.
cp -r experiments/h200/traces/gpt2-124m/2gpu-ddp "$T/rr"
"$PERFSTUDY" build -q --jobs 2 "$T/rr" -o "$T/rro"
cp "$T/rr/rank0.pt.trace.json.gz" "$T/r0" && gzip -dc "$T/r0" | gzip -1 > "$T/rr/rank0.pt.trace.json.gz"
"$PERFSTUDY" build --jobs 2 "$T/rr" -o "$T/rro" 2> "$T/rr.err"
grep -q "rank1.pt.trace.json.gz: unchanged, reused" "$T/rr.err" && grep -q "reading $T/rr/rank0" "$T/rr.err" && ok ||
	bad "rerun with --jobs 2: $(cat "$T/rr.err")"
"$PERFSTUDY" build -q --force --jobs 2 "$T/rr" -o "$T/rrf"
for t in activities launches annotations cpu_ops; do
	q="SELECT count(*), sum(dur_ns), min(start_ns), max(start_ns) FROM $t"
	a=$(sqlite3 "$T/rro/perfstudy.db" "$q")
	b=$(sqlite3 "$T/rrf/perfstudy.db" "$q")
	[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "rerun with --jobs 2: $t differs from a --force build ($a vs $b)"
done

# The store stage is timed apart from parsing.
PERFSTUDY_TIMING=1 "$PERFSTUDY" build -q --jobs 2 "$M" -o "$T/tm" 2> "$T/tm.err"
grep -q '^perfstudy: timing: store [0-9.]* s$' "$T/tm.err" && ! grep -q '^perfstudy: timing: store 0.000 s$' "$T/tm.err" && ok ||
	bad "timing: no store time: $(cat "$T/tm.err")"

# A process drawing figures that dies fails the build (its figures are
# missing) and leaves the previous output as it was. The build is killed
# only when one of its workers is seen while it runs; else skipped.
cp -r "$T/j1" "$T/kw"
"$PERFSTUDY" build -q --force --jobs 4 "$M" -o "$T/kw" 2> "$T/kw.err" &
pid=$!
killed=
for _ in $(seq 2000); do
	kill -0 "$pid" 2>/dev/null || break
	for st in /proc/[0-9]*/stat; do
		# The parent pid is the 2nd field after the command name's ")".
		pp=$(sed 's/.*) //' "$st" 2>/dev/null | cut -d' ' -f2)
		if [ "$pp" = "$pid" ]; then
			c=${st#/proc/}
			kill -9 "${c%/stat}" 2>/dev/null && killed=1
			break
		fi
	done
	[ -n "$killed" ] && break
	sleep 0.02
done
wait "$pid"
rc=$?
if [ -z "$killed" ]; then
	skipped "no figure worker seen while the build ran"
else
	[ "$rc" -ne 0 ] && grep -q 'a process drawing figures was killed by signal 9' "$T/kw.err" && ok ||
		bad "a killed figure worker: exit $rc, stderr: $(cat "$T/kw.err")"
	diff -r "$T/j1" "$T/kw" > /dev/null && ok || bad "a killed figure worker changed the previous output"
	ls -d "$T"/kw.tmp.* > /dev/null 2>&1 && bad "a killed figure worker left a temporary output" || ok
fi

finish
