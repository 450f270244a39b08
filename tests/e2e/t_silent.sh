#!/bin/bash
# t_silent.sh: no failure without a message. A build whose store fails a
# query (an I/O error, a damaged database: here injected) exits 3 with a
# message naming the database file and what the query was for, and leaves
# no output and no temporary directory behind. The exit code comes from the
# diagnostics, so a failure that says nothing would exit 0: the build before
# this test's fix did that when the store failed to prepare the rank check
# or the Provenance inputs' queries (cmd_build.c's check_ranks and
# collect_inputs returned -1 without a word).
#
# The failure is injected with a small LD_PRELOAD library, made here, that
# turns sqlite3_prepare_v2 of a statement containing $FAIL_SQL into the
# preparation of a query of a table that does not exist, and of one
# containing $FAIL_STEP_SQL into a query that fails at its first step: a
# loop over a query's rows (store_next) or an INSERT run for each row
# (store_exec_stmt) says so too, naming what the statement was prepared
# for. The build before the loops were given one idiom ended a few of
# them at the first failed step as if there were no more rows, without a
# word (the GPUs of hardware.csv, the DataLoader ranges of
# step_breakdown.csv), and reported others as another purpose than the
# one the statement was prepared for.
. "$(dirname "$0")/lib.sh"

bin=${PERFSTUDY##* }
if ! command -v cc >/dev/null || ! ldd "$bin" 2>/dev/null | grep -q libsqlite3; then
	skipped "needs cc and a perfstudy linked to libsqlite3 dynamically"
	finish
	exit
fi
cat >"$T/fail.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef int prepare_fn(void *db, const char *sql, int n, void **st, const char **tail);

int sqlite3_prepare_v2(void *db, const char *sql, int n, void **st, const char **tail)
{
	static prepare_fn *real;
	if (!real)
		real = (prepare_fn *)dlsym(RTLD_NEXT, "sqlite3_prepare_v2");
	const char *fail = getenv("FAIL_SQL"), *step = getenv("FAIL_STEP_SQL");
	if (fail && *fail && sql && strstr(sql, fail)) {
		sql = "SELECT * FROM injected_failure";
		n = -1;
	} else if (step && *step && sql && strstr(sql, step)) {
		sql = "SELECT abs(-9223372036854775807 - 1)"; /* integer overflow, when stepped */
		n = -1;
	}
	return real(db, sql, n, st, tail);
}
C
if ! cc -shared -fPIC -o "$T/fail.so" "$T/fail.c" -ldl 2>"$T/cc.err"; then
	skipped "cannot build the injection library: $(head -1 "$T/cc.err")"
	finish
	exit
fi
# A sanitizer build wants its runtime first among the preloaded libraries.
pre="$T/fail.so"
asan=$(ldd "$bin" 2>/dev/null | awk '/libasan/ { print $3 }')
[ -n "$asan" ] && pre="$asan $pre"

IN="tests/data/small/study/run-a tests/data/small/study/run-b"

# fails NAME SQL WHAT: a build whose statement containing SQL cannot be
# prepared exits 3 saying "<tmp>/perfstudy.db: error: sqlite: WHAT: no such
# table: injected_failure", and leaves nothing behind. step_fails NAME SQL
# WHAT: the same for a statement that fails at its first step, "...: WHAT:
# integer overflow".
fails() {
	inject FAIL_SQL "$1" "$2" "$3: no such table: injected_failure"
}
step_fails() {
	inject FAIL_STEP_SQL "$1" "$2" "$3: integer overflow"
}
inject() {
	local o="$T/$2"
	env "$1=$3" LD_PRELOAD="$pre" $PERFSTUDY build -q $IN -o "$o" >"$T/$2.out" 2>"$T/$2.err"
	local rc=$?
	[ $rc -eq 3 ] && ok || bad "$2: exit $rc, want 3 (stderr: $(head -3 "$T/$2.err"))"
	grep -Eq "^$o\.tmp\.[0-9]+/perfstudy\.db: error: sqlite: $4\$" "$T/$2.err" &&
		ok || bad "$2: message: $(cat "$T/$2.err")"
	[ -e "$o" ] && bad "$2: output written" || ok
	ls -d "$o".tmp.* >/dev/null 2>&1 && bad "$2: temporary directory left" || ok
}

# The injection works: nothing matched, the build is as usual.
FAIL_SQL="no statement has this" LD_PRELOAD="$pre" $PERFSTUDY build -q $IN -o "$T/plain" 2>"$T/plain.err" &&
	[ -f "$T/plain/index.html" ] && ok || bad "build with the injection library loaded failed: $(cat "$T/plain.err")"

# A rank recorded twice in a run (read.c's check_ranks).
fails ranks "a.rank, a.path, b.path" "check ranks"
# Files split by device (number_device_ranks), traces without a rank (warn_unranked).
fails split "count(DISTINCT rank) FROM traces x" "list split files"
fails unranked "rank_from_trace = 0 AND part_of IS NULL" "list unranked traces"
# The Provenance inputs and the index's line on each experiment (assemble.c's collect_inputs).
fails inputs "SELECT t.path, t.size, t.sha256 FROM run_traces" "list inputs"
fails summary "SELECT (SELECT group_concat(model" "summarize runs"
# Statements the analyses prepare once and reuse for every rank (rankdata.c, hta_idle.c, critical_path.c).
fails rankload "x.copy_kind, x.stream" "load a rank"
fails launches "'hipMemcpyAsync', 'hipMemsetAsync')" "list launches"
fails synccalls "'cuCtxSynchronize'" "find synchronising calls"
# A step that fails: in a loop over rows that ended silently (models_hardware.c, step_breakdown.c), one
# that said so (rankdata.c), an INSERT of each row (basic_groups.c's classification, which named another purpose).
step_fails hardware "FROM gpu_hardware WHERE experiment" "models: gpu hardware"
step_fails loader "SELECT id FROM names WHERE name GLOB 'enumerate(DataLoader)" "step_breakdown: DataLoader names"
step_fails rankstep "x.copy_kind, x.stream" "load a rank"
step_fails classify "INSERT INTO activity_groups VALUES" "classify all"
# The cache of the previous build (cache.c) and the build history (history.c).
$PERFSTUDY build -q $IN -o "$T/again" 2>/dev/null || bad "build before the rebuilds failed"
FAIL_SQL="INSERT OR REPLACE INTO trace_files" LD_PRELOAD="$pre" $PERFSTUDY build -q --force $IN -o "$T/again" \
	2>"$T/again.err"
rc=$?
[ $rc -eq 3 ] && ok || bad "record trace: exit $rc, want 3"
grep -q "error: sqlite: record trace: no such table: injected_failure" "$T/again.err" && ok ||
	bad "record trace: message: $(cat "$T/again.err")"
[ -f "$T/again/index.html" ] && ok || bad "record trace: the previous output is gone"
finish
