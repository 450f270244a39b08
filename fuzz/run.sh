#!/bin/sh
# run.sh BUILD NAME...: runs each libFuzzer harness BUILD/fuzz/fuzz_NAME for
# $FUZZ_SECONDS seconds (default 60), one after the other.
#
# Seeds: fuzz/seeds/NAME/, tests/fuzz-regress/NAME/, and, per harness, the
# project's test inputs and experiments and ../shared/corpus when present.
# The growing corpus is kept in BUILD/corpus/NAME/ between runs; crashes,
# hangs and leaks are written to BUILD/crashes/NAME/ and listed at the end,
# to be copied into tests/fuzz-regress/NAME/ and fixed. The log of each run
# is BUILD/logs/NAME.log. Exits 1 when any harness found something.
set -u
B=$1
shift
secs=${FUZZ_SECONDS:-60}
status=0
summary=$B/logs/summary.txt
mkdir -p "$B/logs"
: >"$summary"

# seed NAME FILE...: links the existing files into the harness's seed folder.
seed() {
	n=$1
	shift
	for f in "$@"; do
		[ -f "$f" ] || continue
		ln -sf "$(cd "$(dirname "$f")" && pwd)/$(basename "$f")" \
			"$B/seeds/$n/$(echo "$f" | sed 's|^\.\./||' | tr '/' '_')"
	done
}

# shared NAME DIR: the files of ../shared/corpus/formats/DIR, when present.
shared() {
	[ -d ../shared/corpus/formats/"$2" ] && seed "$1" ../shared/corpus/formats/"$2"/*
}

for n in "$@"; do
	bin=$B/fuzz/fuzz_$n
	rm -rf "$B/seeds/$n" "$B/crashes/$n"
	mkdir -p "$B/corpus/$n" "$B/seeds/$n" "$B/crashes/$n"
	seed "$n" fuzz/seeds/"$n"/* tests/fuzz-regress/"$n"/*
	case $n in
	kineto)
		seed "$n" tests/data/*/*/*/*.json tests/bad/*.json
		for f in tests/data/*/*/*/*.json.gz; do
			[ -f "$f" ] && gzip -dc "$f" >"$B/seeds/$n/$(echo "$f" | tr '/' '_' | sed 's/\.gz$//')" 2>/dev/null
		done
		;;
	ingest)
		seed "$n" tests/data/*/*/*/* tests/bad/* experiments/*/traces/*/*/*
		[ -d ../shared/corpus ] && seed "$n" $(find ../shared/corpus/formats -type f -size -2M)
		;;
	manifest)
		seed "$n" tests/bad/*.yaml experiments/*/*.yaml
		;;
	nsys | nvvp)
		# Small databases made from the test scripts (the corpus's are MBs).
		for f in tests/data/formats/make_$n*.sql; do
			[ -f "$f" ] || continue
			db=$B/seeds/$n/$(basename "$f" .sql).sqlite
			{ echo 'PRAGMA page_size=512;'; cat "$f"; } | sqlite3 "$db" 2>/dev/null || rm -f "$db"
		done
		;;
	ncu) shared "$n" ncu_csv; seed "$n" experiments/*/ncu/* tests/data/formats/*ncu* ;;
	nvprof) shared "$n" nvprof; seed "$n" tests/data/formats/nvprof* ;;
	nvsmi) shared "$n" nvidia_smi_xml; seed "$n" experiments/*/nvidia-smi-q.xml ;;
	megatron) seed "$n" experiments/*/traces/*/*/*.log tests/data/formats/*megatron* ;;
	lightning) shared "$n" lightning_profiler; seed "$n" tests/data/formats*/*lightning* ;;
	nvsmi_topo) seed "$n" experiments/*/nvidia-smi-topo.txt tests/data/formats*/*topo* ;;
	nccl_log) seed "$n" experiments/*/meta/*.out experiments/*/meta/*/*.out ;;
	nvtx_csv) shared "$n" nsys_sqlite; seed "$n" tests/data/formats*/*nvtx* ;;
	pytorch_et) seed "$n" tests/data/formats*/et_* ;;
	memory_timeline) seed "$n" tests/data/formats*/memtl_* ;;
	esac
	dict=
	[ -f fuzz/$n.dict ] && dict=-dict=fuzz/$n.dict
	echo "  FUZZ $n for ${secs}s"
	# -close_fd_mask=2: the readers' error messages are noise here; the
	# sanitizers' reports still come through.
	"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-close_fd_mask=2 -print_final_stats=1 $dict \
		-artifact_prefix="$B/crashes/$n/" "$B/corpus/$n" "$B/seeds/$n" >"$B/logs/$n.log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$B/logs/$n.log" | tail -1)
	found=$(ls "$B/crashes/$n" | wc -l)
	line="$n: ${secs}s, ${execs:-?} executions, exit $rc, $found crash/hang/leak inputs"
	echo "  $line"
	echo "$line" >>"$summary"
	if [ "$rc" -ne 0 ] || [ "$found" -ne 0 ]; then
		status=1
		ls "$B/crashes/$n" | sed "s|^|    $B/crashes/$n/|"
		grep -m3 -E 'ERROR|runtime error|invariant|SUMMARY' "$B/logs/$n.log" | sed 's/^/    /'
	fi
done
exit $status
