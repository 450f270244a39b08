#!/bin/bash
# bench/replay.sh: what the replay (src/analyze/replay/, issue #52) costs a
# build, measured, never asserted (bench/RESULTS.md keeps the numbers):
#   bash bench/replay.sh [ROUNDS]     (after make && make unpack)
# 1. The largest bundled trace: h200x4-parallel's pp2-gpipe-m8 (two ranks,
#    28 MB of JSON each): the build's total time and the replay analysis's
#    own (PERFSTUDY_TIMING), best of ROUNDS (3) builds each.
# 2. Growth with events: make_many_steps.py traces of N, 2N and 4N steps;
#    growth with ranks: make_ranks.py runs of N, 2N and 4N ranks of 20
#    steps; the replay analysis's CPU time for each (the ranks of a run of
#    up to 64 are replayed together).
set -u
cd "$(dirname "$0")/.."
P=${PERFSTUDY:-./perfstudy}
R=${1:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# best RUN_LABEL MANIFEST_OR_DIR...: prints "total replay replay_cpu", the best of R builds.
best() {
	local bt=999 br=999 bc=999 i t r c
	for i in $(seq "$R"); do
		rm -rf "$T/o"
		PERFSTUDY_TIMING=1 "$P" build -q "$@" -o "$T/o" 2> "$T/err" || { echo "build failed: $(tail -2 "$T/err")" >&2; return 1; }
		t=$(sed -n 's/^perfstudy: timing: total \([0-9.]*\) s.*/\1/p' "$T/err")
		read -r r c < <(sed -n 's/^perfstudy: timing: analysis [^ ]* replay \([0-9.]*\) s, \([0-9.]*\) s CPU.*/\1 \2/p' "$T/err")
		bt=$(awk -v a="$bt" -v b="$t" 'BEGIN { print (b < a ? b : a) }')
		br=$(awk -v a="$br" -v b="${r:-0}" 'BEGIN { print (b < a ? b : a) }')
		bc=$(awk -v a="$bc" -v b="${c:-0}" 'BEGIN { print (b < a ? b : a) }')
	done
	echo "$bt $br $bc"
}
d=experiments/h200x4-parallel/par/pp2-gpipe-m8
[ -f "$d/rank0.pt.trace.json" ] || { echo "bench/replay.sh: $d is not unpacked (make unpack)" >&2; exit 1; }
mkdir -p "$T/big/pp2-gpipe-m8"
ln -s "$PWD/$d/rank0.pt.trace.json" "$PWD/$d/rank1.pt.trace.json" "$T/big/pp2-gpipe-m8/"
read -r tot rep cpu < <(best "$T/big/pp2-gpipe-m8")
echo "largest bundled trace (pp2-gpipe-m8, 2 ranks, $(du -shL "$T/big/pp2-gpipe-m8" | cut -f1)): build $tot s, replay $rep s ($cpu s CPU): $(awk -v a="$rep" -v b="$tot" 'BEGIN { printf "%.1f", 100 * a / (b - a) }') % added"
for n in 2000 4000 8000; do
	mkdir -p "$T/s$n/steps"
	python3 tests/data/make_many_steps.py "$n" "$T/s$n/steps/rank0.json"
	read -r tot rep cpu < <(best "$T/s$n/steps")
	echo "steps $n: build $tot s, replay $rep s ($cpu s CPU)"
done
for n in 16 32 64; do
	python3 tests/data/make_ranks.py "$n" "$T/r$n/ranks" 20 > /dev/null
	read -r tot rep cpu < <(best "$T/r$n/ranks")
	echo "ranks $n (20 steps): build $tot s, replay $rep s ($cpu s CPU)"
done
