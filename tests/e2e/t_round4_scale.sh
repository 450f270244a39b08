#!/bin/bash
# t_round4_scale.sh: issue 51's quadratic paths (items 6-9), each on an
# input generated here (tests/data/make_round4.py) at N and at 2N. The
# check is on growth, never on a wall-clock limit: the CPU time (user +
# sys, bash's `time`) of the 2N input must stay under 2.5 times that of N.
# Linear work gives about 2 (less with the fixed cost of a build); the old
# quadratic paths gave 3.2 to 4 at these sizes, with the fixed cost. N is
# chosen so that a build takes well under a second now, and several
# seconds on the quadratic code. Each N, CPU time and ratio is printed;
# docs/guarantees.md states them as measured.
. "$(dirname "$0")/lib.sh"

GEN=tests/data/make_round4.py
MAX_RATIO=2.5

# cpu_of OUT CMD...: runs CMD (stderr in $T/err), its user + sys CPU
# seconds into $T/cpu_OUT; returns CMD's exit code.
cpu_of() {
	local out=$1 rc TIMEFORMAT='%3U %3S'
	shift
	{ time "$@" 2>"$T/err"; } 2>"$T/time"
	rc=$?
	awk '{ printf "%.3f\n", $1 + $2 }' "$T/time" >"$T/cpu_$out"
	return $rc
}

# grows NAME N2 N1: checks the CPU time of the 2N run ($T/cpu_N2) against N's.
grows() {
	local a b
	a=$(cat "$T/cpu_$3")
	b=$(cat "$T/cpu_$2")
	echo "$1: N $a s CPU, 2N $b s CPU, ratio $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", b / (a > 0 ? a : 0.001) }')"
	awk -v a="$a" -v b="$b" -v m="$MAX_RATIO" 'BEGIN { exit !(b < m * (a > 0.01 ? a : 0.01)) }' &&
		ok || bad "$1: CPU time grew from $a s to $b s when the input doubled (quadratic?)"
}

# build_pair NAME KIND N CHECK: builds KIND's input of N and of 2N; CHECK N DIR
# checks each output; then grows.
build_pair() {
	local name=$1 kind=$2 n=$3 check=$4 m
	for m in "$n" $((2 * n)); do
		python3 "$GEN" "$kind" "$m" "$T/in.json"
		rm -rf "$T/o"
		cpu_of "$m" $PERFSTUDY build -q "$T/in.json" -o "$T/o"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "$name, N=$m: exit $rc, want 0: $(head -c 300 "$T/err")"
		$check "$m" "$T/o"
	done
	rm -f "$T/in.json"
	grows "$name" $((2 * n)) "$n"
}

command -v python3 >/dev/null || { skipped "python3 not installed: no input generated"; finish; exit $?; }

# --- 6. chosen keys: hash tables keyed by the input's own numbers ---
# 60,000 allocations never freed, whose addresses all fell in one slot of
# memory_steps.c's fixed hash (old: 2.1 s, 120,000 7.4 s); now the hash is
# keyed per process. Every allocation of step 1 is kept: 512 bytes each.
alloc_check() {
	local kept
	kept=$(awk -F, 'NR == 2 { print $8 }' "$2/default/data/memory_ranks.csv")
	[ "$kept" = $((512 * $1)) ] && ok || bad "alloc N=$1: kept_bytes_per_step $kept, want $((512 * $1))"
}
build_pair "6. colliding allocation addresses" alloc 60000 alloc_check
# 50,000 record_param_comms ops whose External ids all fell in one slot of
# util/intmap.c's fixed hash (old: 2.8 s, 100,000 9.1 s).
comm_check() { # the N ops, a step, a launch and a kernel
	local n
	n=$(sqlite3 "$2/perfstudy.db" "SELECT events FROM traces")
	[ "$n" = $(($1 + 3)) ] && ok || bad "comm N=$1: $n events read, want $(($1 + 3))"
}
build_pair "6. colliding External ids" comm 50000 comm_check

# --- 7. diff: runs and parts of stores it did not write ---
# diff_pair NAME KIND N CHECK: `perfstudy diff` of KIND's two stores of N
# and of 2N (exit 4: each has a regression); CHECK N checks $T/out.
diff_pair() {
	local name=$1 kind=$2 n=$3 check=$4 m
	for m in "$n" $((2 * n)); do
		rm -rf "$T/d"
		python3 "$GEN" "$kind" "$m" "$T/d"
		cpu_of "$m" $PERFSTUDY diff "$T/d/old" "$T/d/new" >"$T/out"
		rc=$?
		[ $rc -eq 4 ] && ok || bad "$name, N=$m: exit $rc, want 4: $(head -c 300 "$T/err")"
		$check "$m"
	done
	rm -rf "$T/d"
	grows "$name" $((2 * n)) "$n"
}
# 10,000 runs, every other one 10 % slower: a run was looked up by a
# linear search per run and per row (find_run, step_line, same_lines,
# history_changes; old: 3.1 s, 20,000 12.5 s).
runs_check() {
	local want n
	want="perfstudy diff: $1 changes, $(($1 / 2)) regressions"
	[ "$(tail -n 1 "$T/out")" = "$want" ] && ok || bad "runs N=$1: '$(tail -n 1 "$T/out")', want '$want'"
	n=$(grep -c ' ms, the same 6 profiled steps as before: same (within noise)$' "$T/out")
	[ "$n" = $(($1 / 2)) ] && ok || bad "runs N=$1: $n runs said the same, want $(($1 / 2))"
}
diff_pair "7. diff of N runs" runs 10000 runs_check
# One run of 40,000 kernels and 40,000 kernel groups in its parts: each
# part was looked up in the list by a linear search (gather; old: 8.3 s,
# 80,000 ~30 s). The kernel rows past what a build writes (2,000 and
# '(other kernels)') are now summed as one, with a warning naming the store
# and table; the groups are sorted and merged.
parts_check() {
	printf '%s\n' "$T/d/old/perfstudy.db: warning: table 'history_parts', experiment 'default', run 'r': more than 2001 kernel rows, more than a build writes; the rest summed as one '(other kernels)'" \
		"$T/d/new/perfstudy.db: warning: table 'history_parts', experiment 'default', run 'r': more than 2001 kernel rows, more than a build writes; the rest summed as one '(other kernels)'" >"$T/want"
	same "$T/want" "$T/err" "parts N=$1: warnings"
	grep -q "^  $(($1 - 5)) other kernel groups: +0.010 ms$" "$T/out" && ok ||
		bad "parts N=$1: no line '$(($1 - 5)) other kernel groups': $(grep 'other kernel groups' "$T/out")"
}
diff_pair "7. diff of N kernel parts" parts 40000 parts_check

finish
