#!/bin/bash
# t_rank_work.sh: no analysis passes over all ranks once per rank (issue
# 55, item 2). Two generated runs (tests/data/make_ranks.py: thin DDP
# ranks whose AllReduces wait; make_round4.py shapes: ranks of operators
# with Input Dims, four stragglers) are each built at N, 2N and 4N ranks with
# PERFSTUDY_COUNTS=1, which prints each analysis's work as counts (util/
# timing.h: SQLite VM steps, rows handed over, result-table cells read,
# entries a search passed over), never a time: a count does not move with
# the machine's load, so the bound can be tight. Each count of each
# analysis may grow at most MAX_RATIO times per doubling of the ranks:
# linear work gives 2 or less (fixed costs), a pass over every rank per
# rank 4. Counts under FLOOR at the larger size are left out (a query plan
# that SQLite changes with the table's size moves a few thousand steps).
# Before the fixes (the counting alone, f300def) pipeline_stages read
# clock_offsets.csv whole for each rank (cells 4.0x per doubling),
# collectives searched every rank's aggregates for each kernel (scanned
# 4.0x), rank_spread's top-kernel figures read kernels.csv whole for each
# drawn rank (cells 3.5x) and step_timeline clock_offsets.csv for each
# drawn lane (cells 2.56x): docs/performance.md.
. "$(dirname "$0")/lib.sh"

N=256
MAX_RATIO=2.2
FLOOR=10000

command -v python3 >/dev/null || { skipped "python3 not installed: no input generated"; finish; exit $?; }

# counts NAME M GEN...: builds the run GEN writes for M ranks (GEN M DIR);
# its counts as "analysis kind count" lines in $T/NAME$M.
counts() {
	local name=$1 m=$2
	shift 2
	"$@" "$m" "$T/r$m/run" || { bad "$name: $* $m failed"; return 1; }
	PERFSTUDY_COUNTS=1 $PERFSTUDY build -q "$T/r$m/run" -o "$T/o$m" 2>"$T/err$m"
	local rc=$?
	[ $rc -eq 0 ] && ok || bad "$name, N=$m: build exit $rc: $(grep -v 'counts:' "$T/err$m" | head -c 300)"
	awk '$2 == "counts:" && $3 == "analysis" {
		print $5, "vm", $6; print $5, "rows", $9; print $5, "cells", $11; print $5, "scanned", $13 }' \
		"$T/err$m" | tr -d , >"$T/$name$m"
	rm -rf "$T/r$m" "$T/o$m"
}

# growth NAME: every count of NAME's builds within MAX_RATIO times the
# smaller size's, at each doubling.
growth() {
	local name=$1 m
	for m in $N $((2 * N)); do
		awk -v r="$MAX_RATIO" -v f="$FLOOR" -v a="$m" -v b="$((2 * m))" '
			FNR == NR { small[$1 " " $2] = $3; next }
			{ k = $1 " " $2; s = small[k] + 0
			  if ($3 >= f && $3 > r * s)
				printf "%s: %d at %d ranks, %d at %d: %.2fx\n", k, s, a, $3, b, s ? $3 / s : 0 }' \
			"$T/$name$m" "$T/$name$((2 * m))" >"$T/over"
		[ ! -s "$T/over" ] && ok || bad "$name: counts grew more than ${MAX_RATIO}x from $m to $((2 * m)) ranks:
$(cat "$T/over")"
	done
	# For the log: the largest ratio at the last doubling.
	awk -v f="$FLOOR" -v n="$name" 'FNR == NR { small[$1 " " $2] = $3; next }
		$3 >= f && small[$1 " " $2] > 0 { q = $3 / small[$1 " " $2]; if (q > best) { best = q; k = $1 " " $2 } }
		END { printf "%s: largest growth from %d to %d ranks: %s %.2fx\n", n, '$((2 * N))', '$((4 * N))', k, best }' \
		"$T/$name$((2 * N))" "$T/$name$((4 * N))"
}

# Thin DDP ranks, 3 steps, jittered so that the AllReduces wait.
ddp() { python3 tests/data/make_ranks.py "$1" "$2" 3; }
# Ranks of 64 operators with Input Dims each, four of them stragglers
# (straggler_causes' input shapes).
shapes() { python3 tests/data/make_round4.py shapes "$1" "$2"; }

for m in $N $((2 * N)) $((4 * N)); do
	counts ddp $m ddp
	counts shapes $m shapes
done

# The counts are there: a line per analysis, and each kind counted somewhere.
n=$(wc -l <"$T/ddp$N")
[ "$n" -ge 160 ] && ok || bad "N=$N: $((n / 4)) analyses with counts, want 40 or more (PERFSTUDY_COUNTS printed nothing?)"
for kind in vm rows cells; do
	awk -v k="$kind" '$2 == k && $3 > 0 { found = 1 } END { exit !found }' "$T/ddp$((4 * N))" && ok ||
		bad "N=$((4 * N)): no analysis counted any $kind"
done
grep -q '^collectives scanned ' "$T/ddp$N" && grep -q '^pipeline_stages cells ' "$T/ddp$N" && ok ||
	bad "no counts of collectives or pipeline_stages"

growth ddp
growth shapes

finish
