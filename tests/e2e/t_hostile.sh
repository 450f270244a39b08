#!/bin/bash
# t_hostile.sh: hostile inputs that need more than t_bad.sh's exit code and
# message: outputs checked for what they hold, inputs generated here, and
# memory measured (peak RSS from /usr/bin/time, printed in the log and
# compared with the documented bound; never a wall-clock limit).
. "$(dirname "$0")/lib.sh"

B=tests/bad
P=$(cd "$(dirname "$PERFSTUDY")" && pwd)/$(basename "$PERFSTUDY") # for commands run elsewhere

# --- a NUL inside a name: kept, shown as U+2400, never a cut ---
# "gemm\u0000_fp16" and "gemm\u0000_fp32" were one kernel "gemm" with 2 calls.
for f in nul-name.json nvprof-nul-name.csv; do
	rm -rf "$T/o"
	$PERFSTUDY build -q $B/$f -o "$T/o" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$f: exit $rc, want 0"
	cut -d, -f5,7 "$T/o/default/data/top_kernels.csv" | sort >"$T/got"
	printf 'gemm\342\220\200_fp16,1\ngemm\342\220\200_fp32,1\nname,calls\n' >"$T/want"
	same "$T/want" "$T/got" "$f: kernels named with a NUL"
done
if command -v sqlite3 >/dev/null; then
	sqlite3 "$T/nul.sqlite" "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
INSERT INTO StringIds VALUES (1, 'gemm' || char(0) || '_fp16'), (2, 'gemm' || char(0) || '_fp32');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  demangledName INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (1000, 1500, 0, 7, 1), (2000, 2700, 0, 7, 2);"
	rm -rf "$T/o"
	$PERFSTUDY build -q "$T/nul.sqlite" -o "$T/o" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "nul.sqlite: exit $rc, want 0"
	cut -d, -f5,7 "$T/o/default/data/top_kernels.csv" | sort >"$T/got"
	printf 'gemm\342\220\200_fp16,1\ngemm\342\220\200_fp32,1\nname,calls\n' >"$T/want"
	same "$T/want" "$T/got" "nul.sqlite: kernels named with a NUL"
else
	skipped "sqlite3 command not installed: NUL in an nsys name not checked"
fi

# --- SQLite: inspect stops on a view as build does; the step budget ---
$PERFSTUDY inspect $B/nsys-view-recursive.sqlite >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "inspect of a recursive view: exit $rc, want 1"
echo "tests/bad/nsys-view-recursive.sqlite: error: table 'StringIds': is a view; only plain tables are read (a view or a generated column runs the file's own SQL)" >"$T/want"
same "$T/want" "$T/err" "inspect of a recursive view"
# Plain tables only, yet quadratic: each of 30,000 copies of an unknown kind
# looks its label up in an unindexed table of 30,000 rows (the old binary:
# 61 s, exit 0). A connection's budget is 100 million SQLite steps plus 64
# per byte of the file; a real export takes under one per byte.
if command -v sqlite3 >/dev/null; then
	sqlite3 "$T/quad.sqlite" "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INTEGER, name TEXT, label TEXT);
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 30000)
  INSERT INTO ENUM_CUDA_MEMCPY_OPER SELECT 1000, NULL, NULL FROM r;
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,
  bytes INTEGER, copyKind INTEGER);
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 30000)
  INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY SELECT i * 100, i * 100 + 50, 0, 7, 64, 99 FROM r;
CREATE TABLE TARGET_INFO_GPU(id INTEGER NOT NULL, name TEXT);"
	size=$(stat -c %s "$T/quad.sqlite")
	rm -rf "$T/o"
	rss $PERFSTUDY build -q "$T/quad.sqlite" -o "$T/o"
	rc=$?
	[ $rc -eq 1 ] && ok || bad "quadratic SQLite export: exit $rc, want 1"
	steps=$(( (100000000 + 64 * size) / 1000000 ))
	echo "$T/quad.sqlite: error: table 'CUPTI_ACTIVITY_KIND_MEMCPY': stopped after $steps million SQLite steps, far more than a $size-byte profiler export needs (a crafted database?)" >"$T/want"
	same "$T/want" "$T/err" "quadratic SQLite export"
	[ ! -e "$T/o" ] && ok || bad "quadratic SQLite export: output left behind"
	echo "quadratic SQLite export ($size bytes): stopped, peak RSS $(cut -d' ' -f1 "$T/rss") KB"
else
	skipped "sqlite3 command not installed: the SQLite step budget is not checked"
fi

# --- gzip bombs: 512 MiB of blanks in 32 members of 16 MiB (about 520 KB) ---
# Each was held whole (10 GiB of blanks: 10.5 GB of memory). Now a Kineto
# trace is streamed with at most 16 MiB in its header or in one event, and a
# file loaded whole stops past 64 MiB at 100 times its compressed size. Peak
# RSS is printed, and must stay below half the inflated size (256 MiB); a
# build with AddressSanitizer (shadow memory, quarantine) gets three times
# that (the unbounded reader reached 10 GB).
bomb_limit_kb=262144
if ldd "$P" 2>/dev/null | grep -q libasan; then bomb_limit_kb=$((3 * 262144)); fi
head -c 16777216 /dev/zero | tr '\0' ' ' | gzip -9 >"$T/blanks.gz"
bomb() { # NAME PREFIX SUFFIX: PREFIX, 512 MiB of blanks, SUFFIX, as gzip members
	{
		printf '%s' "$2" | gzip
		for i in $(seq 32); do cat "$T/blanks.gz"; done
		printf '%s' "$3" | gzip
	} >"$T/$1"
}
bomb only-blanks.json.gz '' ''
bomb blank-header.json.gz '{' '"traceEvents": []}'
bomb blank-array.json.gz '{"traceEvents": [' ']}'
bomb blank-event.json.gz '{"traceEvents": [{"ph": "X", "cat": "kernel", ' '"name": "k", "ts": 1, "dur": 2}]}'
bomb blank-tail.json.gz '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 1, "dur": 2}]' '}'
bomb blank-csv.csv.gz '' "$(cat $B/nvprof-nan.csv)"
size=$(stat -c %s "$T/blank-csv.csv.gz")
cat >"$T/bomb-want" <<WANT
only-blanks.json.gz: error: only whitespace (536870912 bytes after inflating gzip)
blank-header.json.gz: error: more than 16 MiB of JSON outside 'traceEvents' (by byte 17825792); refused to bound memory
blank-array.json.gz: error: more than 16 MiB in one element of 'traceEvents' from byte 16 (an event this large, or blanks); refused to bound memory
blank-event.json.gz: error: more than 16 MiB in one element of 'traceEvents' from byte 16 (an event this large, or blanks); refused to bound memory
blank-tail.json.gz: error: more than 16 MiB of JSON outside 'traceEvents' (by byte 17825792); refused to bound memory
blank-csv.csv.gz: error: gzip data inflates more than 100 times ($size bytes to 67108865 so far); refused as a gzip bomb
WANT
while read -r want; do
	f=${want%%:*}
	rm -rf "$T/o"
	(cd "$T" && rss "$P" build -q "$f" -o o)
	rc=$?
	[ $rc -eq 1 ] && ok || bad "$f: exit $rc, want 1"
	[ "$(cat "$T/err")" = "$want" ] && ok || bad "$f: message '$(cat "$T/err")', want '$want'"
	[ ! -e "$T/o" ] && ok || bad "$f: output left behind"
	kb=$(cut -d' ' -f1 "$T/rss")
	echo "gzip bomb $f: 512 MiB inflated, peak RSS $kb KB"
	{ [ "$kb" = "?" ] || [ "$kb" -lt "$bomb_limit_kb" ]; } && ok || bad "$f: peak RSS $kb KB, not below $((bomb_limit_kb / 1024)) MiB"
done <"$T/bomb-want"

# --- file names reach the terminal escaped (progress lines and messages) ---
# A newline in a file's name forged "perfstudy: wrote index.html.json"; an
# invalid UTF-8 byte (0x9b, CSI to some terminals) went out raw.
mkdir -p "$T/names"
bad_name=$(printf 'x\nperfstudy: wrote index.html\233.json')
echo garbage >"$T/names/$bad_name"
rm -rf "$T/o"
(cd "$T/names" && "$P" build "$bad_name" -o "$T/o") 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "file name with a newline: exit $rc, want 1"
printf '%s\n' 'perfstudy: reading x\nperfstudy: wrote index.html\x9b.json (8 B)' \
	'x\nperfstudy: wrote index.html\x9b.json: error: unknown format (first byte 0x67): expected a trace JSON (Kineto, JAX, PyTorch), a JAX .xplane.pb, a SQLite export (nsys, nvprof, rocprofv3), a CSV (nvprof, Nsight Compute, nsys NVTX), nvidia-smi output (XML, topo -m), or a Megatron or Lightning log' >"$T/want"
same "$T/want" "$T/err" "file name with a newline"
# The same name through a manifest ("reading" line) and through inspect (stdout).
cp tests/data/history/d1.json "$T/names/$bad_name"
printf 'version: 1\nid: n\ntitle: names\nruns:\n  - id: r\n    traces: ["x*.json"]\n' >"$T/names/study.yaml"
rm -rf "$T/o"
"$P" build "$T/names/study.yaml" -o "$T/o" 2>"$T/err"
grep -q '^perfstudy: reading .*/names/x\\nperfstudy: wrote index.html\\x9b.json (2.5 kB)$' "$T/err" && ! grep -q $'\x9b' "$T/err" &&
	[ "$(grep -c '^perfstudy: wrote ' "$T/err")" -eq 1 ] && ok || bad "manifest build: a name reached stderr raw: $(cat -v "$T/err")"
"$P" inspect "$T/names/$bad_name" >"$T/out" 2>&1
[ "$(wc -l <"$T/out")" -eq 1 ] && grep -q 'x\\nperfstudy: wrote index.html\\x9b.json: kineto' "$T/out" && ok ||
	bad "inspect: a name reached stdout raw: $(cat -v "$T/out")"

# --- figure file names: one per exact run id and series name ---
# "UP" and "up", "a.b" and "a_b" (and directories "a b" and "a_b") wrote the
# same top_kernels_* file, so one run's section showed another run's kernels;
# series "A" and "a" likewise shared trend_a. Each run's figure (found on the
# page by its caption) must be its own file and name only its own kernels.
mkdir -p "$T/coll/a b" "$T/coll/a_b"
trace() { # FILE KERNEL STEP_US
	printf '{"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 90, "dur": %s},\n{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": 100, "dur": 50, "args": {"device": 0, "stream": 7}}]}\n' "$3" "$2" >"$1"
}
trace "$T/coll/UP.json" kern_upper 200
trace "$T/coll/up.json" kern_lower 100
trace "$T/coll/adotb.json" kern_adotb 400
trace "$T/coll/ab.json" kern_underscore 300
trace "$T/coll/a b/t.json" kern_space 500
trace "$T/coll/a_b/t.json" kern_dir_underscore 600
printf '%s\n' 'version: 1' 'id: coll' 'title: colliding names' 'runs:' \
	'  - {id: UP, traces: UP.json}' '  - {id: up, traces: up.json}' \
	'  - {id: a.b, traces: adotb.json}' '  - {id: a_b, traces: ab.json}' \
	'series:' '  - {name: A, runs: [UP]}' '  - {name: a, runs: [up, a.b]}' >"$T/coll/m.yaml"
# figure_of PAGE RUN: the SVG of the top-kernels figure whose caption names RUN.
figure_of() {
	grep -o '<img src="figures/top_kernels_[a-z0-9_-]*\.svg" alt="[^"]*"' "$1" |
		grep -F "kernels with the largest total GPU time in run $2, rank 0 " | sed 's/^<img src="\([^"]*\)".*/\1/'
}
check_runs() { # DIR PAGE_DIR RUN=KERNEL...
	local dir=$1 site=$2 seen= r k f
	shift 2
	for rk in "$@"; do
		r=${rk%%=*} k=${rk#*=}
		f=$(figure_of "$site/index.html" "$r")
		[ "$(echo "$f" | grep -c .)" -eq 1 ] && ok || bad "$dir: run '$r': $(echo "$f" | grep -c .) top-kernel figures on the page, want 1"
		[ -n "$f" ] || continue
		case " $seen " in *" $f "*) bad "$dir: run '$r' shares $f with another run" ;; *) ok ;; esac
		seen="$seen $f"
		grep -q "data-name=\"$k\"" "$site/$f" && ok || bad "$dir: run '$r': $f does not name its kernel $k"
		for other in "$@"; do
			[ "${other#*=}" = "$k" ] && continue
			! grep -q "data-name=\"${other#*=}\"" "$site/$f" && ok || bad "$dir: run '$r': $f names ${other#*=}, another run's kernel"
		done
	done
}
rm -rf "$T/o"
$PERFSTUDY build -q "$T/coll/m.yaml" -o "$T/o" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "colliding run ids: exit $rc, want 0: $(cat "$T/err")"
check_runs "manifest" "$T/o/coll" UP=kern_upper up=kern_lower a.b=kern_adotb a_b=kern_underscore
n=$(ls "$T/o/coll/figures" | grep -c '^trend_.*\.svg$')
[ "$n" -eq 2 ] && ok || bad "series 'A' and 'a': $n trend figures, want 2"
for sa in "A:UP" "a:a.b"; do
	f=$(grep -l "<title>Series ${sa%%:*}: " "$T/o/coll/figures/"trend_*.svg)
	[ "$(echo "$f" | grep -c .)" -eq 1 ] && grep -q "<title>${sa#*:}, median step time" "$f" && ok ||
		bad "series '${sa%%:*}': no trend figure of its own holding run '${sa#*:}'"
done
rm -rf "$T/o"
(cd "$T/coll" && "$P" build -q "a b" a_b -o "$T/o") 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "directories 'a b' and 'a_b': exit $rc, want 0: $(cat "$T/err")"
check_runs "directories" "$T/o/default" "a b=kern_space" a_b=kern_dir_underscore

# --- out of memory: the temporary directory removed, the file named ---
# A build that ran out of memory printed "perfstudy: error: out of memory"
# and left DIR.tmp.<pid> behind. The limit is found here: the smallest
# `ulimit -v` (in steps of 8 MiB) under which a tiny build succeeds, plus
# 16 MiB; a 60 MiB nvprof CSV (gzip, 400 KB), read whole, needs more. Not
# under AddressSanitizer, whose shadow memory wants terabytes of address space.
if ldd "$P" 2>/dev/null | grep -q libasan; then
	skipped "AddressSanitizer build: no ulimit -v"
else
	rm -rf "$T/o" "$T/p"
	$PERFSTUDY build -q tests/data/small/study/run-a -o "$T/o" 2>"$T/err" && ok || bad "out of memory: the first build failed"
	(cd "$T/o" && find . -type f | sort | xargs sha256sum) >"$T/before"
	base=
	for mb in $(seq 48 8 512); do
		if (ulimit -v $((mb * 1024)) && exec "$P" build -q --jobs 1 tests/data/small/study/run-a -o "$T/p") 2>/dev/null; then
			base=$mb
			break
		fi
		rm -rf "$T/p" "$T/p.lock"
	done
	if [ -z "$base" ]; then
		bad "out of memory: no build of tests/data/small/study/run-a succeeded under 512 MiB of address space"
	else
		{ head -5 tests/data/formats/nvprof_gpu_trace.csv
		  yes '1.000001,2.5,1,,,,,"Test GPU (0)","1","7","gemm_kernel",10' | head -c 62914560; } | gzip -1 >"$T/big.csv.gz"
		limit=$((base + 16))
		(ulimit -v $((limit * 1024)) && exec "$P" build -q --jobs 1 "$T/big.csv.gz" -o "$T/o") 2>"$T/err"
		rc=$?
		echo "out of memory: a tiny build needs under $base MiB of address space; the 60 MiB CSV under $limit MiB: exit $rc"
		[ $rc -eq 3 ] && ok || bad "out of memory: exit $rc, want 3: $(cat "$T/err")"
		printf '%s\n' "perfstudy: error: out of memory while reading '$T/big.csv.gz'" \
			"perfstudy: removed $T/o.tmp.<pid>, the previous output is unchanged" >"$T/want"
		sed 's/o\.tmp\.[0-9]*,/o.tmp.<pid>,/' "$T/err" >"$T/got"
		same "$T/want" "$T/got" "out of memory: message"
		n=$(ls -d "$T"/o.tmp.* 2>/dev/null | wc -l)
		[ "$n" -eq 0 ] && ok || bad "out of memory: $n temporary directories left behind"
		(cd "$T/o" && find . -type f | sort | xargs sha256sum) >"$T/after"
		same "$T/before" "$T/after" "out of memory: the previous output"
		# The same for an ingest: its FILE.tmp.<pid> removed, FILE as it was.
		"$P" ingest -q --shard 0/1 -o "$T/oom.db" tests/data/small/study/run-a 2>"$T/err" || bad "out of memory: the first ingest failed"
		cp "$T/oom.db" "$T/oom.before"
		(ulimit -v $((limit * 1024)) && exec "$P" ingest -q --jobs 1 --shard 0/1 -o "$T/oom.db" "$T/big.csv.gz") 2>"$T/err"
		rc=$?
		[ $rc -eq 3 ] && ok || bad "out of memory in an ingest: exit $rc, want 3: $(cat "$T/err")"
		printf '%s\n' "perfstudy: error: out of memory while reading '$T/big.csv.gz'" \
			"perfstudy: removed $T/oom.db.tmp.<pid>, the previous output is unchanged" >"$T/want"
		sed 's/oom\.db\.tmp\.[0-9]*,/oom.db.tmp.<pid>,/' "$T/err" >"$T/got"
		same "$T/want" "$T/got" "out of memory in an ingest: message"
		[ -z "$(ls "$T" | grep '^oom\.db\.tmp')" ] && ok || bad "out of memory in an ingest: its temporary file left behind"
		cmp -s "$T/oom.before" "$T/oom.db" && ok || bad "out of memory in an ingest: the previous shard changed"
	fi
fi

# --- perfstudy diff on stores it did not write ---
# A value 'NaNx' was read as 0 (a change that never was, exit 0); a file
# that is not a database was "no build history"; a history table replaced
# by a recursive view hung diff. Each is now exit 1 naming the store, the
# table and what is wrong.
if command -v sqlite3 >/dev/null; then
	mkdir -p "$T/diff"
	$PERFSTUDY build -q tests/data/history/d1.json -o "$T/diff/a" 2>"$T/err" || bad "diff: the build failed: $(cat "$T/err")"
	for d in nan view notdb notours; do mkdir -p "$T/diff/$d"; done
	cp "$T/diff/a/perfstudy.db" "$T/diff/nan/" && cp "$T/diff/a/perfstudy.db" "$T/diff/view/"
	sqlite3 "$T/diff/nan/perfstudy.db" "UPDATE history_numbers SET value = 'NaNx' WHERE metric = 'gpu_busy_frac'"
	sqlite3 "$T/diff/view/perfstudy.db" "DROP TABLE history_steps; CREATE VIEW history_steps AS
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)
SELECT 'default' AS experiment, 1 AS build, 'd1.json' AS run, 'steps' AS source, i AS dur_ns FROM r"
	head -c 8192 /dev/urandom >"$T/diff/notdb/perfstudy.db"
	sqlite3 "$T/diff/notours/perfstudy.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
	cat >"$T/diff/want" <<WANT
nan|$T/diff/nan/perfstudy.db: error: table 'history_numbers', run 'd1.json', metric 'gpu_busy_frac': value 'NaNx' is not a number
view|$T/diff/view/perfstudy.db: error: table 'history_steps': is a view, not a plain table; refused (a perfstudy store has only plain tables, and a view runs the file's own SQL)
notdb|$T/diff/notdb/perfstudy.db: error: not a SQLite database (a perfstudy store is one: a build writes it as DIR/perfstudy.db)
notours|$T/diff/notours/perfstudy.db: error: a SQLite database but not a perfstudy store (no table 'history_builds' or 'gpu_activities')
WANT
	while IFS='|' read -r d want; do
		timed=; [ -x /usr/bin/time ] && timed="/usr/bin/time -f %U_s_CPU,_peak_RSS_%M_KB -o $T/cpu"
		echo "(no GNU time)" >"$T/cpu"
		# ulimit -t: a hang fails the test instead of stalling it (each case takes milliseconds).
		$timed bash -c 'ulimit -t 60; exec "$0" diff "$1" "$2"' "$P" "$T/diff/a" "$T/diff/$d" >"$T/out" 2>"$T/err"
		rc=$?
		[ $rc -eq 1 ] && ok || bad "diff with '$d': exit $rc, want 1"
		[ "$(cat "$T/err")" = "$want" ] && ok || bad "diff with '$d': message '$(cat "$T/err")', want '$want'"
		[ ! -s "$T/out" ] && ok || bad "diff with '$d': printed changes: $(head -3 "$T/out")"
		echo "diff against '$d': $(tail -n 1 "$T/cpu" | tr _ ' ')"
	done <"$T/diff/want"
else
	skipped "sqlite3 command not installed: diff on damaged stores not checked"
fi

# --- a string too long for the store names the input, not the store ---
# "string or blob too big" named DIR.tmp.<pid>/perfstudy.db. A CSV field is
# refused past 16 MiB at its line and column; any other name or string
# reaching the store past 16 MiB (here a Lightning action) names the input.
rm -rf "$T/o"
$PERFSTUDY build -q tests/data/small/study/run-a -o "$T/o" 2>"$T/err" || bad "long strings: the first build failed"
(cd "$T/o" && find . -type f | sort | xargs sha256sum) >"$T/before"
{ head -5 tests/data/formats/nvprof_gpu_trace.csv
  printf '1.000001,2.5,1,,,,,"Test GPU (0)","1","7","'
  head -c 17825792 /dev/zero | tr '\0' k
  printf '",10\n'; } | gzip -1 >"$T/longname.csv.gz"
{ head -6 tests/data/papers/lightning_azure.txt
  head -c 17825793 /dev/zero | tr '\0' p
  printf '\t|  0.025          \t|1000           \t|  25.0           \t|  22.677         \t|\n'; } | gzip -1 >"$T/longaction.txt.gz"
cat >"$T/long-want" <<WANT
longname.csv.gz|longname.csv.gz:6:43: error: malformed CSV at byte 321: a field longer than 16 MiB; refused
longaction.txt.gz|longaction.txt.gz: error: a phase name of 17825793 bytes, more than 16 MiB (it begins 'pppppppppppppppppppppppppppppppppppppppp'); refused
WANT
while IFS='|' read -r f want; do
	(cd "$T" && rss "$P" build -q "$f" -o o)
	rc=$?
	[ $rc -eq 1 ] && ok || bad "$f: exit $rc, want 1"
	[ "$(cat "$T/err")" = "$want" ] && ok || bad "$f: message '$(cat "$T/err")', want '$want'"
	(cd "$T/o" && find . -type f | sort | xargs sha256sum) >"$T/after"
	same "$T/before" "$T/after" "$f: the previous output"
	echo "$f (a 17 MiB string): refused, peak RSS $(cut -d' ' -f1 "$T/rss") KB"
done <"$T/long-want"

# --- links that lead nowhere: an error naming the link, in a directory as in a glob ---
# A run directory dropped a dangling or looping link without a word (and
# built the run from its other ranks); a manifest glob failed on the same
# file with "No such file or directory". Both are now exit 1 naming it.
mkdir -p "$T/links/run"
cp tests/data/history/d1.json "$T/links/run/rank0.json"
ln -s nowhere.json "$T/links/run/rank1.json"
ln -s rank2.json "$T/links/run/rank2.json"
printf 'version: 1\nid: s\ntitle: links\nruns:\n  - id: r\n    traces: run/rank*.json\n' >"$T/links/m.yaml"
rm -rf "$T/o"
$PERFSTUDY build -q tests/data/small/study/run-a -o "$T/o" 2>"$T/err" || bad "links: the first build failed"
(cd "$T/o" && find . -type f | sort | xargs sha256sum) >"$T/before"
for input in run m.yaml; do
	(cd "$T/links" && "$P" build -q "$input" -o "$T/o") 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] && ok || bad "broken links via '$input': exit $rc, want 1"
	if [ "$input" = run ]; then
		printf '%s\n' "run/rank1.json: error: a symbolic link to 'nowhere.json', which does not exist; a trace file in a run directory must be readable (remove the link)" \
			"run/rank2.json: error: a symbolic link that loops; a trace file in a run directory must be readable (remove the link)" >"$T/want"
	else
		printf '%s\n' "m.yaml:6:13: error: 'run/rank1.json' is a symbolic link to 'nowhere.json', which does not exist" \
			"m.yaml:6:13: error: 'run/rank2.json' is a symbolic link that loops" >"$T/want"
	fi
	same "$T/want" "$T/err" "broken links via '$input'"
	(cd "$T/o" && find . -type f | sort | xargs sha256sum) >"$T/after"
	same "$T/before" "$T/after" "broken links via '$input': the previous output"
done

# --- the up-to-date shortcut notices a deleted or truncated output file ---
# An unchanged rebuild said "up to date" and left a deleted figure missing.
# A file missing, of another size or newer than the store is written again.
rm -rf "$T/o"
$PERFSTUDY build -q tests/data/small/study/run-a -o "$T/o" 2>"$T/err" || bad "shortcut: the first build failed"
fig=$(ls "$T/o/default/figures/"*.svg | head -n 1)
for what in deleted truncated edited; do
	cp "$fig" "$T/fig.want"
	case $what in
	deleted) rm "$fig" ;;
	truncated) : >"$fig" ;;
	edited) printf 'X' | dd of="$fig" bs=1 seek=100 conv=notrunc 2>/dev/null ;; # same size, newer than the store
	esac
	$PERFSTUDY build tests/data/small/study/run-a -o "$T/o" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "shortcut, a $what figure: exit $rc, want 0"
	grep -qF "perfstudy: $fig is missing or changed since the last build: building again" "$T/err" && ok ||
		bad "shortcut, a $what figure: not said: $(head -3 "$T/err")"
	cmp -s "$T/fig.want" "$fig" && ok || bad "shortcut, a $what figure: not written again"
	$PERFSTUDY build tests/data/small/study/run-a -o "$T/o" 2>"$T/err"
	grep -q "is up to date" "$T/err" && ok || bad "shortcut, a $what figure: the build after is not up to date: $(head -3 "$T/err")"
done

# --- 50 KB kernel names: labels fitted by binary search over at most 512 characters ---
# Labels were fitted one character (or word) at a time with a cairo
# measurement each: a 10 KB label took 9.7 s; these ten 50 KB names of
# 9,000 words each did not finish in a minute. The CPU time is printed;
# `ulimit -t 60` only stops a return of the quadratic fit (this takes about a second).
awk 'BEGIN { printf "{\"traceEvents\": [";
	for (k = 0; k < 10; k++) {
		s = ""; for (i = 0; length(s) < 51200; i++) s = s (i ? " " : "") "w" k "_" i;
		printf "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %d, \"dur\": %d, \"args\": {\"device\": 0, \"stream\": 7}}",
			(k ? ",\n" : ""), substr(s, 1, 51200), 100 + 100 * k, 50 - k
	}
	print "]}" }' >"$T/long-names.json"
rm -rf "$T/o"
timed=; [ -x /usr/bin/time ] && timed="/usr/bin/time -f %U_s_CPU,_peak_RSS_%M_KB -o $T/cpu"
echo "(no GNU time)" >"$T/cpu"
$timed bash -c 'ulimit -t 60; exec "$0" build -q "$1" -o "$2"' "$P" "$T/long-names.json" "$T/o" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "ten 50 KB kernel names: exit $rc, want 0: $(head -c 300 "$T/err")"
echo "ten 50 KB kernel names drawn: $(tail -n 1 "$T/cpu" | tr _ ' ')"
svg=$(ls "$T/o/default/figures/"top_kernels_*_r0.svg 2>/dev/null | head -n 1)
n=$(grep -o 'data-label="[^"]*"' "$svg" 2>/dev/null | wc -l)
[ "$n" -eq 10 ] && ok || bad "ten 50 KB kernel names: $n labels in the top-kernels figure, want 10"
long=$(grep -o 'data-label="[^"]*"' "$svg" 2>/dev/null | awk 'length($0) > 512 + 13' | wc -l)
[ "$long" -eq 0 ] && ok || bad "ten 50 KB kernel names: $long labels longer than 512 characters"
# The same through a manifest: a 50 KB title and two 50 KB run labels of
# words (figure titles, category labels); the old binary took over a minute.
words=$(awk 'BEGIN { s = ""; for (i = 0; length(s) < 51200; i++) s = s (i ? " " : "") "word" i; print substr(s, 1, 51200) }')
cp tests/data/history/d1.json "$T/t.json"
printf 'version: 1\nid: lab\ntitle: "%s"\nruns:\n  - id: r1\n    label: "%s"\n    traces: t.json\n  - id: r2\n    label: "%s x"\n    traces: t.json\n' \
	"$words" "$words" "$words" >"$T/labels.yaml"
rm -rf "$T/o"
echo "(no GNU time)" >"$T/cpu"
$timed bash -c 'ulimit -t 60; exec "$0" build -q "$1" -o "$2"' "$P" "$T/labels.yaml" "$T/o" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "50 KB title and run labels: exit $rc, want 0: $(head -c 300 "$T/err")"
echo "a 50 KB title and two 50 KB run labels drawn: $(tail -n 1 "$T/cpu" | tr _ ' ')"

# --- many profiler steps: time and memory in proportion, long tables in the CSVs ---
# 200,000 ProfilerStep#N (a 20 MB trace) took 3.5 min and 8.1 GB and wrote
# a 500 MB page: a step-by-step search in step_stats (its rank count per
# step), ranks (the slowest rank), critical_path (the run's steps) and
# phases (the step names) made them quadratic. 20,000 steps with a launch
# and a kernel each (tests/data/make_many_steps.py; 200,000 of them, 83 MB:
# 5.8 s and 418 MB, docs/guarantees.md) must build with the page's tables
# cut at 50 rows and every row in the CSVs. CPU time and peak RSS are
# printed; `ulimit -t 120` only stops a quadratic return (this takes ~1 s;
# before, 72 s).
if command -v python3 >/dev/null; then
	python3 tests/data/make_many_steps.py 20000 "$T/steps.json"
	rm -rf "$T/o"
	timed=; [ -x /usr/bin/time ] && timed="/usr/bin/time -f %U_s_CPU,_peak_RSS_%M_KB -o $T/cpu"
	echo "(no GNU time)" >"$T/cpu"
	$timed bash -c 'ulimit -t 120; exec "$0" build -q "$1" -o "$2"' "$P" "$T/steps.json" "$T/o" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "20,000 steps: exit $rc, want 0: $(head -c 300 "$T/err")"
	echo "20,000 profiler steps ($(stat -c %s "$T/steps.json") bytes): $(tail -n 1 "$T/cpu" | tr _ ' ')"
	n=$(($(wc -l <"$T/o/default/data/steps.csv") - 1))
	[ "$n" -eq 20000 ] && ok || bad "20,000 steps: steps.csv has $n rows"
	page=$(stat -c %s "$T/o/default/index.html")
	echo "20,000 profiler steps: index.html $page bytes"
	[ "$page" -lt 1048576 ] && ok || bad "20,000 steps: index.html is $page bytes, not under 1 MiB"
	grep -q 'the first 50 shown (sorting sorts those); all 20000 are in the CSV' "$T/o/default/index.html" && ok ||
		bad "20,000 steps: no table on the page says it shows the first 50 of 20000 rows"
else
	skipped "python3 not installed: 20,000 profiler steps not built"
fi

# --- two ingests into one shard file: the second fails, nothing is lost ---
# Each wrote FILE.tmp.<pid> and renamed it over FILE: both exited 0 and
# the later rename silently discarded the other's shard. An ingest now
# holds FILE.lock as a build holds DIR.lock.
if command -v flock >/dev/null && command -v sqlite3 >/dev/null; then
	X=$T/shard.db
	"$P" ingest -q --shard 0/1 -o "$X" tests/data/small/study/run-a 2>"$T/err" || bad "ingest before the lock failed: $(cat "$T/err")"
	cp "$X" "$T/shard.before"
	flock -o "$X.lock" sleep 20 &
	holder=$!
	for _ in $(seq 50); do flock -n "$X.lock" true 2>/dev/null || break; sleep 0.1; done
	"$P" ingest -q --shard 0/1 -o "$X" tests/data/small/study/run-b 2>"$T/err"
	rc=$?
	kill "$holder"
	wait "$holder" 2>/dev/null
	[ $rc -eq 1 ] && ok || bad "ingest into a locked shard file: exit $rc, want 1"
	echo "$X: error: another perfstudy build is writing this output file (it holds $X.lock); not waiting for it: run builds into one file one after the other" >"$T/want"
	same "$T/want" "$T/err" "ingest into a locked shard file"
	cmp -s "$T/shard.before" "$X" && ok || bad "ingest into a locked shard file: the file changed"
	# A real ingest holds the lock while it reads: a second one started meanwhile fails.
	PERFSTUDY_READAHEAD=never "$P" ingest -q --jobs 1 --shard 0/1 -o "$X" experiments/h200/study.yaml 2>"$T/first.err" &
	first=$!
	for _ in $(seq 200); do ls "$T" | grep -q '^shard\.db\.tmp\.' && break; sleep 0.05; done
	"$P" ingest -q --shard 0/1 -o "$X" tests/data/small/study/run-b 2>"$T/err"
	rc=$?
	wait "$first" && ok || bad "the first ingest failed: $(cat "$T/first.err")"
	[ $rc -eq 1 ] && ok || bad "an ingest while another runs: exit $rc, want 1: $(cat "$T/err")"
	n=$(sqlite3 "$X" "SELECT count(*) FROM shard_traces WHERE path LIKE '%experiments/h200/%'")
	m=$(sqlite3 "$X" "SELECT count(*) FROM shard_traces")
	[ "$n" -gt 1 ] && [ "$n" = "$m" ] && ok || bad "an ingest while another runs: the shard holds $m traces, $n of the first ingest"
	[ ! -e "$X.lock" ] && [ -z "$(ls "$T" | grep '^shard\.db\.tmp\.')" ] && ok || bad "an ingest left its lock or temporary file behind"
else
	skipped "flock or sqlite3 not installed: concurrent ingests not checked"
fi

# --- manifest checking in time linear in its runs ---
# 100,000 runs, the last one repeating the first's id: the duplicate check
# compared each run with every earlier one (21.7 s; here the old binary took
# over a minute). The CPU time is printed; `ulimit -t 30` only stops a
# quadratic check from running on (this one takes about a second).
mkdir -p "$T/many"
echo '{"traceEvents": []}' >"$T/many/t.json"
{
	echo 'title: many runs'
	echo 'runs:'
	seq 0 99999 | awk '{ print "  - id: r" $1; print "    traces: t.json" }'
	echo '  - id: r0'
	echo '    traces: t.json'
} >"$T/many/m.yaml"
rm -rf "$T/o"
timed=; [ -x /usr/bin/time ] && timed="/usr/bin/time -f %U_s_CPU,_peak_RSS_%M_KB -o $T/cpu"
echo "(no GNU time)" >"$T/cpu"
$timed bash -c 'ulimit -t 30; exec "$0" build -q "$1" -o "$2"' "$P" "$T/many/m.yaml" "$T/o" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "100,000 runs: exit $rc, want 1"
echo "$T/many/m.yaml:200003:9: error: duplicate run id 'r0' (first at 3:9)" >"$T/want"
same "$T/want" "$T/err" "100,000 runs"
echo "manifest of 100,000 runs checked: $(tail -n 1 "$T/cpu" | tr _ ' ')"

# --- merge of a forged shard (issue 43 item 7) ---
# A shard whose shard_meta is a recursive view that never yields 'format'
# hung merge (10 s of CPU and counting: merge opened its shards without the
# SQLite guard). Now exit 1 at once, naming the shard and the table.
if command -v sqlite3 >/dev/null; then
	mkdir -p "$T/fshard"
	sqlite3 "$T/fshard/forged.db" "CREATE VIEW shard_meta(key, value) AS
WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 'k' || i, 'v' FROM r"
	bash -c 'ulimit -t 60; exec "$0" merge -q -o "$1" "$2" tests/data/small/study/run-a' "$P" "$T/fshard/out" \
		"$T/fshard/forged.db" >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -eq 1 ] && ok || bad "merge of a shard with a recursive view: exit $rc, want 1"
	echo "$T/fshard/forged.db: error: table 'shard_meta': is a view, not a plain table; refused (a perfstudy shard has only plain tables, and a view runs the file's own SQL)" >"$T/want"
	same "$T/want" "$T/err" "merge of a shard with a recursive view"
	[ ! -e "$T/fshard/out" ] && ok || bad "merge of a forged shard wrote an output"
else
	skipped "sqlite3 not installed: forged shard not made"
fi

# --- a directory with no trace (issue 43 item 18) ---
# The message listed five endings of its own; rocprofv3's *_results.db and
# JAX's .xplane.pb were missing. The endings now come from the readers.
mkdir -p "$T/notrace"
echo notes > "$T/notrace/notes.txt"
$PERFSTUDY build -q "$T/notrace" -o "$T/notrace-out" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "a directory without traces: exit $rc, want 1"
for want in '*.json' '*.json.gz' '*.sqlite' '*.nvvp' '*.csv' '*_results.db' '*.xplane.pb'; do
	grep -qF -- "$want" "$T/err" && ok || bad "no-trace message does not list $want: $(cat "$T/err")"
done

# --- the critical path in time n log n in streams (issue 43 item 9) ---
# Each activity looked its stream up in a list of the streams seen so far:
# 200,000 streams took 11.6 s, and these 600,000 kernels, one stream each,
# 88 s of CPU (now 2.4 s: the activities sorted by stream once). The CPU
# time is printed; `ulimit -t 60` only stops a quadratic return.
awk -v n=600000 'BEGIN { printf "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": %d}", 2 * n + 10;
	for (i = 0; i < n; i++) printf ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%d,\"dur\":1,\"args\":{\"stream\":%d}}", 1 + 2 * i, i;
	print "]}" }' >"$T/streams.json"
rm -rf "$T/o"
timed=; [ -x /usr/bin/time ] && timed="/usr/bin/time -f %U_s_CPU,_peak_RSS_%M_KB -o $T/cpu"
echo "(no GNU time)" >"$T/cpu"
$timed bash -c 'ulimit -t 60; exec "$0" build -q "$1" -o "$2"' "$P" "$T/streams.json" "$T/o" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "600,000 streams: exit $rc, want 0: $(head -c 300 "$T/err")"
echo "600,000 streams, one kernel each: $(tail -n 1 "$T/cpu" | tr _ ' ')"
printf 'run,rank,step,step_us\nstreams.json,0,1,1200010.000\n' >"$T/want"
cut -d, -f1-4 "$T/o/default/data/critical_path.csv" 2>/dev/null >"$T/got"
same "$T/want" "$T/got" "600,000 streams: critical_path.csv"
rm -rf "$T/o" "$T/streams.json"

# --- ranks indexed by their position, not their number (issue 43 item 12) ---
# A trace of rank 2147483000 made the critical path allocate an array of
# 2^31 waits (17 GB). Two ranks, 7 and 2147483000, as tests/data/crossrank/two
# (rank 7 waits 20 us for the other in step 1), must build in 4 GiB of
# address space, the wait named by its rank number. Not under
# AddressSanitizer (no ulimit -v).
mkdir -p "$T/bigrank"
sed 's/"rank": 0, "world_size": 2/"rank": 7, "world_size": 2/' tests/data/crossrank/two/rank0.json >"$T/bigrank/rank0.json"
sed 's/"rank": 1, "world_size": 2/"rank": 2147483000, "world_size": 2/' tests/data/crossrank/two/rank1.json >"$T/bigrank/rank1.json"
rm -rf "$T/o"
if ldd "$P" 2>/dev/null | grep -q libasan; then
	"$P" build -q "$T/bigrank" -o "$T/o" 2>"$T/err"
else
	(ulimit -v 4194304 && exec "$P" build -q "$T/bigrank" -o "$T/o") 2>"$T/err"
fi
rc=$?
[ $rc -eq 0 ] && ok || bad "rank 2147483000: exit $rc, want 0: $(head -c 300 "$T/err")"
printf '%s\n' "run,rank,step,wait_us,wait_rank" "bigrank,7,1,20.000,2147483000" "bigrank,7,2,0.000," \
	"bigrank,2147483000,1,0.000," "bigrank,2147483000,2,0.000," >"$T/want"
cut -d, -f1,2,3,10,11 "$T/o/default/data/critical_path.csv" 2>/dev/null >"$T/got"
same "$T/want" "$T/got" "rank 2147483000: critical_path.csv"
printf '%s\n' "step,critical_rank,max_wait_rank,waited_for_rank" "1,2147483000,7,2147483000" "2,7,," >"$T/want"
cut -d, -f2,5,12,14 "$T/o/default/data/critical_path_steps.csv" 2>/dev/null >"$T/got"
same "$T/want" "$T/got" "rank 2147483000: critical_path_steps.csv"

# --- rocpd: a region over the whole int64 range; 9 and 20 sessions (issue 43 items 14, 16) ---
# A region from INT64_MIN to INT64_MAX overflowed end - start (an abort
# under the sanitizer). Such a row is now skipped with a warning naming the
# file, the table and the row, as a kernel with a negative start always was.
# A file of 9 or more sessions (uuid-suffixed tables) was refused: the GPUs
# of all sessions were one compound SELECT, past the SQLite guard's limit of
# 8 terms; now one query per session. Sessions are copies of the one
# tests/data/rocpd/make_rocpd.py writes (5 kernels, 1 annotation each).
if command -v sqlite3 >/dev/null && command -v python3 >/dev/null; then
	U=_0198c1a2_7d3e_7b41_9c55_2f0e4a6b8c10
	mkdir -p "$T/rocpd"
	python3 tests/data/rocpd/make_rocpd.py "$T/rocpd/one.db" || bad "make_rocpd.py failed"
	cp "$T/rocpd/one.db" "$T/rocpd/huge.db"
	sqlite3 "$T/rocpd/huge.db" "INSERT INTO rocpd_region$U (id, guid, nid, pid, tid, start, \"end\", name_id, event_id)
SELECT 99, guid, nid, pid, tid, -9223372036854775808, 9223372036854775807, name_id, event_id FROM rocpd_region$U WHERE id = 3"
	rm -rf "$T/o"
	(cd "$T/rocpd" && "$P" build huge.db -o "$T/o") 2>&1 | grep -v '^perfstudy: ' >"$T/got"
	[ -f "$T/o/index.html" ] && ok || bad "rocpd region over the int64 range: no site built"
	echo "huge.db: table 'rocpd_region$U', id 99: warning: skipped row: negative 'start'" >"$T/want"
	same "$T/want" "$T/got" "rocpd region over the int64 range"
	for n in 9 20; do
		cp "$T/rocpd/one.db" "$T/rocpd/s$n.db"
		tables=$(sqlite3 "$T/rocpd/one.db" "SELECT substr(name, 1, length(name) - length('$U')) FROM sqlite_master
WHERE type = 'table' AND name LIKE '%$U'")
		for i in $(seq 2 "$n"); do
			V=${U%????}$(printf %04d "$i")
			for t in $tables; do echo "CREATE TABLE $t$V AS SELECT * FROM $t$U;"; done
		done | sqlite3 "$T/rocpd/s$n.db"
		(cd "$T/rocpd" && "$P" inspect "s$n.db") >"$T/out" 2>"$T/err"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "rocpd of $n sessions: inspect exit $rc, want 0: $(cat "$T/err")"
		echo "s$n.db: rocpd, 2 ranks, $((5 * n)) kernels, $((2 * n)) memcpy, 0 memset, $((8 * n)) runtime, $n annotations, 0 gpu annotations, $n steps, 0 cpu ops, AMD Instinct MI300X" >"$T/want"
		same "$T/want" "$T/out" "rocpd of $n sessions: inspect"
		rm -rf "$T/o"
		(cd "$T/rocpd" && "$P" build -q "s$n.db" -o "$T/o") 2>"$T/err"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "rocpd of $n sessions: build exit $rc, want 0: $(cat "$T/err")"
	done
else
	skipped "sqlite3 or python3 not installed: rocpd regions and sessions not checked"
fi

finish
