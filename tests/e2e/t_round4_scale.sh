#!/bin/bash
# t_round4_scale.sh: issue 51's quadratic paths (items 6-9), each on an
# input generated here (tests/data/make_round4.py) at N and at 2N. The
# check is on growth, never on a wall-clock limit: the CPU time (user +
# sys, bash's `time`; or one analysis's own, from PERFSTUDY_TIMING) of the
# 2N input must stay under MAX_RATIO times that of N. Linear work gives
# about 2 (less with the fixed cost of a build); the old quadratic paths
# gave 3.4 to 7.9 at these sizes, fixed cost included. CPU time still moves
# with the machine's load (caches, other processes on the core), so a
# ratio over the bound is measured again, up to twice, each size's least
# time kept: a quadratic path stays over it, a disturbed measurement does
# not. N is chosen so that a build takes about a second now, and several
# on the quadratic code. Each N, CPU time and ratio is printed;
# docs/guarantees.md states them as measured.
. "$(dirname "$0")/lib.sh"

GEN=tests/data/make_round4.py
MAX_RATIO=2.5
FLOOR_S=0.05 # CPU times below this compare as this: timer and scheduling noise

command -v python3 >/dev/null || { skipped "python3 not installed: no input generated"; finish; exit $?; }

# cpu_of CMD...: runs CMD (stderr in $T/err), its user + sys CPU seconds
# into $T/cpu; returns CMD's exit code.
cpu_of() {
	local rc TIMEFORMAT='%3U %3S'
	{ time "$@" 2>"$T/err"; } 2>"$T/time"
	rc=$?
	awk '{ printf "%.3f\n", $1 + $2 }' "$T/time" >"$T/cpu"
	return $rc
}

# analysis_cpu NAME: the CPU seconds of analysis NAME in $T/err (a build
# with PERFSTUDY_TIMING=1) into $T/cpu; its wall seconds where the line has
# no CPU figure (a perfstudy before it had none).
analysis_cpu() {
	awk -v a="$1" '$3 == "analysis" && $5 == a { v = $8 == "CPU" ? $7 : $6; found = 1 }
		END { printf "%.3f\n", found ? v : 0 }' "$T/err" >"$T/cpu"
}

# pair NAME N RUN CHECK: RUN M (M = N, then K*N; K is $K, default 2) runs
# the measured command
# on the input of size M (made beforehand), leaves its CPU seconds in
# $T/cpu and returns the command's exit status; CHECK M checks what it
# made, on the first round. Then the ratio, measured again while over the
# bound (at most three rounds, each size's least time kept).
pair() {
	local name=$1 n=$2 run=$3 check=$4 k=${K:-2} max=${MAX_RATIO_K:-$MAX_RATIO} m round a b
	for round in 1 2 3; do
		for m in "$n" $((k * n)); do
			$run "$m"
			rc=$?
			if [ $round -eq 1 ]; then
				[ $rc -eq "${WANT_RC:-0}" ] && ok ||
					bad "$name, N=$m: exit $rc, want ${WANT_RC:-0}: $(grep -v 'timing:' "$T/err" | head -c 300)"
				$check "$m"
				cp "$T/cpu" "$T/cpu_$m"
			else
				awk -v m="$(cat "$T/cpu")" '{ printf "%.3f\n", $1 < m ? $1 : m }' "$T/cpu_$m" >"$T/t" &&
					mv "$T/t" "$T/cpu_$m"
			fi
		done
		a=$(cat "$T/cpu_$n")
		b=$(cat "$T/cpu_$((k * n))")
		awk -v a="$a" -v b="$b" -v m="$max" -v f="$FLOOR_S" \
			'BEGIN { exit !(b < m * (a > f ? a : f)) }' && break
		[ $round -lt 3 ] && echo "$name: N $a s, ${k}N $b s CPU: over $max times, measured again"
	done
	echo "$name: N $a s CPU, ${k}N $b s CPU, ratio $(awk -v a="$a" -v b="$b" -v f="$FLOOR_S" \
		'BEGIN { printf "%.2f", (b > f ? b : f) / (a > f ? a : f) }')"
	awk -v a="$a" -v b="$b" -v m="$max" -v f="$FLOOR_S" 'BEGIN { exit !(b < m * (a > f ? a : f)) }' &&
		ok || bad "$name: CPU time grew from $a s to $b s when the input grew $k times (quadratic?)"
}

# --- builds of one generated trace: build_pair NAME KIND N CHECK ---
# CHECK M DIR checks the output DIR of the build of size M.
build_run() {
	rm -rf "$T/o"
	cpu_of $PERFSTUDY build -q "$T/in$1.json" -o "$T/o"
}
build_pair() {
	local name=$1 kind=$2 n=$3
	BUILD_CHECK=$4
	python3 "$GEN" "$kind" "$n" "$T/in$n.json" && python3 "$GEN" "$kind" $((2 * n)) "$T/in$((2 * n)).json"
	pair "$name" "$n" build_run build_check
	rm -f "$T/in$n.json" "$T/in$((2 * n)).json"
}
build_check() { $BUILD_CHECK "$1" "$T/o"; }

# --- 6. chosen keys: hash tables keyed by the input's own numbers ---
# 60,000 allocations never freed, whose addresses all fell in one slot of
# memory_steps.c's fixed hash (old: 2.3 s, 120,000 7.9 s); now the hash is
# keyed per process. Every allocation of step 1 is kept: 512 bytes each.
alloc_check() {
	local kept
	kept=$(awk -F, 'NR == 2 { print $8 }' "$2/default/data/memory_ranks.csv")
	[ "$kept" = $((512 * $1)) ] && ok || bad "alloc N=$1: kept_bytes_per_step $kept, want $((512 * $1))"
}
build_pair "6. colliding allocation addresses" alloc 60000 alloc_check
# 50,000 record_param_comms ops whose External ids all fell in one slot of
# util/intmap.c's fixed hash (old: 2.8 s, 100,000 9.7 s).
comm_check() { # the N ops, a step, a launch and a kernel
	local n
	n=$(sqlite3 "$2/perfstudy.db" "SELECT events FROM traces")
	[ "$n" = $(($1 + 3)) ] && ok || bad "comm N=$1: $n events read, want $(($1 + 3))"
}
build_pair "6. colliding External ids" comm 50000 comm_check

# --- 7. diff: runs and parts of stores it did not write ---
# diff_pair NAME KIND N CHECK: `perfstudy diff` of KIND's two stores of N
# and of 2N (exit 4: each has a regression); CHECK M checks $T/out.
diff_run() {
	cpu_of $PERFSTUDY diff "$T/d$1/old" "$T/d$1/new" >"$T/out"
}
diff_pair() {
	local name=$1 kind=$2 n=$3
	python3 "$GEN" "$kind" "$n" "$T/d$n" && python3 "$GEN" "$kind" $((2 * n)) "$T/d$((2 * n))"
	WANT_RC=4 pair "$name" "$n" diff_run "$4"
	rm -rf "$T/d$n" "$T/d$((2 * n))"
}
# 10,000 runs, every other one 10 % slower: a run was looked up by a
# linear search per run and per row (find_run, step_line, same_lines,
# history_changes; old: 3.7 s, 20,000 15.3 s).
runs_check() {
	local want n
	want="perfstudy diff: $1 changes, $(($1 / 2)) regressions"
	[ "$(tail -n 1 "$T/out")" = "$want" ] && ok || bad "runs N=$1: '$(tail -n 1 "$T/out")', want '$want'"
	n=$(grep -c ' ms, the same 6 profiled steps as before: same (within noise)$' "$T/out")
	[ "$n" = $(($1 / 2)) ] && ok || bad "runs N=$1: $n runs said the same, want $(($1 / 2))"
}
diff_pair "7. diff of N runs" runs 10000 runs_check
# One run of 40,000 kernels and 40,000 kernel groups in its parts: each
# part was looked up in the list by a linear search (gather; old: 9.1 s,
# 80,000 34.6 s). The kernel rows past what a build writes (2,000 and
# '(other kernels)') are now summed as one, with a warning naming the store
# and table; the groups are sorted and merged.
parts_check() {
	local side
	for side in old new; do
		echo "$T/d$1/$side/perfstudy.db: warning: table 'history_parts', experiment 'default', run 'r': more than 2001 kernel rows, more than a build writes; the rest summed as one '(other kernels)'"
	done >"$T/want"
	same "$T/want" "$T/err" "parts N=$1: warnings"
	grep -q "^  $(($1 - 5)) other kernel groups: +0.010 ms$" "$T/out" && ok ||
		bad "parts N=$1: no line '$(($1 - 5)) other kernel groups': $(grep 'other kernel groups' "$T/out")"
}
diff_pair "7. diff of N kernel parts" parts 40000 parts_check

# --- 8. ProfilerStep ranges that overlap ---
# 4,000 steps each covering the whole trace (4,000 kernels): step_breakdown,
# dispatch, dispatch_ops, gpu_idle, ranks and the history's parts clipped
# every set to every step, critical_path walked every step through the
# whole trace (old: 1.9 s, 8,000 11.3 s; 20,000 in a 10 MB trace 29.5 s).
# Now each step's share of a set is two binary searches over running sums
# (the same numbers), and critical_path walks a step only where fewer than
# 8 walked steps are open, with a note.
overlap_check() {
	local n
	n=$(awk -F, '$3 == 1 && $4 == "compute" { print $5 }' "$2/default/data/step_breakdown.csv")
	[ "$n" = "$((50 * $1)).000" ] && ok || bad "overlap N=$1: step 1's compute $n us, want $((50 * $1)).000 (every kernel)"
	n=$(($(wc -l <"$2/default/data/critical_path.csv") - 1))
	[ "$n" = 8 ] && ok || bad "overlap N=$1: $n critical_path.csv rows, want 8 (the steps walked)"
	grep -q "critical_path.csv: run in$1.json rank 0: $(($1 - 8)) of its $1 ProfilerStep ranges [^<]* 8 or more earlier" \
		"$2/default/index.html" && ok || bad "overlap N=$1: no note on the steps not walked"
}
build_pair "8. N profiler steps over the whole trace" overlap 4000 overlap_check

# --- 9. ranks: step_timeline, straggler shapes, coalesced batches ---
# rank_pair NAME KIND N ANALYSIS CHECK: builds KIND's run of N ranks (N
# files) and of 2N, and compares the CPU time of ANALYSIS alone: the rest
# of a build of thousands of files is linear and would hide it. CHECK M
# checks $T/o.
rank_run() {
	rm -rf "$T/o"
	PERFSTUDY_TIMING=1 $PERFSTUDY build -q "$T/r$1/run" -o "$T/o" 2>"$T/err"
	local rc=$?
	analysis_cpu "$RANK_ANALYSIS"
	return $rc
}
rank_pair() {
	local name=$1 kind=$2 n=$3
	RANK_ANALYSIS=$4
	local k=${K:-2}
	python3 "$GEN" "$kind" "$n" "$T/r$n/run" && python3 "$GEN" "$kind" $((k * n)) "$T/r$((k * n))/run"
	pair "$name ($4)" "$n" rank_run "$5"
	rm -rf "$T/r$n" "$T/r$((k * n))"
}
# 2,500 ranks of one kernel each: drawn_rank scanned rank_spread once per
# rank (old, wall time, the old binary giving no CPU figure: 0.07 s, 5,000
# 0.56 s; 40,000 36 s); now one sorted pass.
timeline_check() {
	[ -f "$T/o/default/figures/step_timeline_run.svg" ] && ok || bad "ranks N=$1: no step_timeline_run.svg"
}
rank_pair "9. a run of N one-kernel ranks" ranks 2500 step_timeline timeline_check
# 1,024 ranks, four of them stragglers, each rank's 64 operators with Input
# Dims: count_of walked the equal values once per value (old, wall time on
# a loaded machine, the old binary giving no CPU figure: 0.75 s, 2,048
# ranks 3.4 s; the issue's 2,048 ranks 11.9 s).
shapes_check() {
	local n
	n=$(awk -F, 'NR > 1 { print $2 }' "$T/o/default/data/straggler_causes.csv" | sort -u | tr '\n' ' ')
	[ "$n" = "0 1 2 3 " ] && ok || bad "shapes N=$1: straggler ranks '$n', want '0 1 2 3 '"
}
# This analysis is n log n (a median sorts the other ranks' values per
# item): 2 * 11/10 = 2.2 expected for 2N, 4 * 12/10 = 4.8 for 4N. The
# bound 2.5 left too little room: CI's loaded two cores measured 2.69
# three times over (0.064 s, 0.172 s), caches shared with the other job.
# So this pair is N and 4N, bound 8: midway (geometrically) between
# linear (4) and quadratic (16); 5.1 measured here unloaded.
K=4 MAX_RATIO_K=8 rank_pair "9. input shapes of N ranks" shapes 1024 straggler_causes shapes_check
# 20,000 SendRecv kernels of one coalesced batch of 20,000 sends: each
# kernel walked the thread's unclaimed sends (old: 2.9 s, 40,000 10.0 s).
coalesced_check() {
	local got
	got=$(sqlite3 "$2/perfstudy.db" "SELECT collective, peer, in_nelems, count(*) FROM collectives GROUP BY 1, 2, 3")
	[ "$got" = "send|1|$((1024 * $1))|$1" ] && ok || bad "coalesced N=$1: collectives '$got', want 'send|1|$((1024 * $1))|$1'"
}
build_pair "9. N kernels of one coalesced batch" coalesced 20000 coalesced_check

finish
