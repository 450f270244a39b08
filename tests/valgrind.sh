#!/bin/bash
# valgrind.sh: valgrind's memcheck over what matters, with no leaks allowed
# (definite or indirect; caches of fontconfig/cairo in tests/valgrind.supp):
# the unit tests, the fuzz harnesses over their regression inputs, and
# perfstudy on the small study, the bundled example, inspect, whatif, and every
# input of tests/bad/ (the error paths). The ASan build runs the whole suite;
# this pass is kept to a few minutes on two cores. Run by `make valgrind-check`.
# usage: tests/valgrind.sh BUILD_DIR
cd "$(dirname "$0")/.."
B=${1:-build}
VG="valgrind -q --leak-check=full --error-exitcode=99 --errors-for-leak-kinds=definite,indirect
	--suppressions=tests/valgrind.supp --gen-suppressions=no"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
n=0

# vg WANT_RC... -- CMD...: runs CMD under valgrind; valgrind's findings exit 99.
vg() {
	local want=()
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	n=$((n + 1))
	$VG "$@" >"$T/out" 2>"$T/err"
	local rc=$? w
	for w in "${want[@]}"; do [ $rc -eq "$w" ] && return 0; done
	echo "FAIL (exit $rc): $*" >&2
	grep -E '^==[0-9]+==' "$T/err" | head -30 >&2
	fail=1
}

for t in "$B"/tests/test_*; do
	case $t in *.o | *.d) continue ;; esac
	vg 0 -- "$t"
done
for r in "$B"/fuzz/regress_*; do
	case $r in *.o | *.d) continue ;; esac
	name=${r##*/regress_}
	[ -d "tests/fuzz-regress/$name" ] && vg 0 -- "$r" "tests/fuzz-regress/$name"
done
S=tests/data/small/study
vg 0 -- ./perfstudy build -q $S/run-a $S/run-b -o "$T/small"
vg 0 -- ./perfstudy build -q experiments/h200/study.yaml -o "$T/ex"
vg 0 -- ./perfstudy build -q --jobs 2 tests/data/memory/study.yaml -o "$T/mem"
vg 0 -- ./perfstudy inspect $S/run-a/rank0.json $S/run-b/a.json.gz
# whatif on the example: a run's two ranks replayed together, calibrated, under every kind of change; and its errors.
vg 0 -- ./perfstudy whatif "$T/ex" gpt2-2gpu-ddp collectives=0.5 'kernels:nvjet*=0.5' host=0.8 gaps=0 \
	data-loading=0 syncs=0 rank=1:median -o "$T/whatif.csv"
vg 2 -- ./perfstudy whatif "$T/ex" nope host=1 -o "$T/whatif-no.csv"
vg 2 -- ./perfstudy whatif "$T/ex" gpt2-1gpu rank=0:median -o "$T/whatif-no.csv"
# One trace cut by the cutter thread and parsed by it and two parse helpers, in windows of 4 KiB.
PERFSTUDY_READAHEAD=always PERFSTUDY_PARSE_HELPERS=2 PERFSTUDY_WINDOW_BYTES=4096 \
	vg 0 -- ./perfstudy build -q --jobs 2 experiments/h200/traces/gpt2-124m/1gpu/rank0.pt.trace.json.gz -o "$T/cut"
for f in tests/bad/*; do
	rm -rf "$T/bad"
	vg 0 1 3 -- ./perfstudy build -q --force "$f" -o "$T/bad"
done
echo "valgrind: $n programs run, $([ $fail -eq 0 ] && echo 'no errors, no leaks' || echo FAILED)"
exit $fail
