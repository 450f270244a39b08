#!/bin/bash
# bench/run.sh: perfstudy on large traces against its floors; run by `make bench`.
#
# Makes large traces from a real H200 trace (bench/mktrace.c repeats its
# steps), then for each prints and writes to $BENCH_OUT (bench/RESULTS.md):
# perfstudy's ingest MB/s (uncompressed bytes into the store, from
# PERFSTUDY_TIMING's ingest stage), the bare simdjson parse and the bare
# inflate of the same file in the same run (bench/bare.cpp), their ratios,
# peak RSS (GNU time's maximum resident set size) and the time per stage.
#
# Knobs (environment):
#   BENCH_SIZES  single-trace sizes in MB          (default "100 1000 4500": the last above 4 GiB; "" for none)
#   BENCH_RANKS  many-rank studies, RANKSxMB        (default "16x20 64x100")
#   BENCH_JOBS   --jobs values for the rank studies (default "1 2")
#   BENCH_DIR    scratch directory                  (default /tmp/perfstudy-bench)
#   BENCH_SRC    the real trace repeated            (default gpt2-124m 2gpu-ddp rank 0)
#   BENCH_KEEP   1 keeps the generated traces       (default: removed at the end)
#   BENCH_OUT    results file                       (default bench/RESULTS.md)
#   BENCH_REPEAT builds per input up to 1.2 GB, the fastest ingest kept (default 3)
set -euo pipefail
cd "$(dirname "$0")"
TOP=$(cd .. && pwd)
PS=${PERFSTUDY:-$TOP/perfstudy}
SIZES=${BENCH_SIZES-"100 1000 4500"}
RANKS=${BENCH_RANKS-"16x20 64x100"}
JOBS=${BENCH_JOBS:-"1 2"}
DIR=${BENCH_DIR:-/tmp/perfstudy-bench}
SRC=${BENCH_SRC:-$TOP/experiments/h200/traces/gpt2-124m/2gpu-ddp/rank0.pt.trace.json.gz}
OUTMD=${BENCH_OUT:-$TOP/bench/RESULTS.md}
REPEAT=${BENCH_REPEAT:-3}
REPEAT_MAX=1200000000
MKTRACE=$TOP/bench/build/mktrace
BARE=$TOP/bench/build/bare
mkdir -p "$DIR"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT

rows=()
log() { echo "$@" >&2; }

# run_ps LABEL BYTES LARGEST BARE_PARSE BARE_COLD INFLATE LIBDEFLATE IGZIP ARGS...: one perfstudy build, one table row.
run_ps() {
	local label=$1 bytes=$2 largest=$3 bparse=$4 bcold=$5 binfl=$6 blibd=$7 bigz=$8
	shift 8
	local err=$DIR/stderr try best="" reps=1
	# Inputs up to REPEAT_MAX bytes: the best of REPEAT builds (this machine is shared and noisy).
	[ "$bytes" -le "$REPEAT_MAX" ] && reps=$REPEAT
	for ((try = 1; try <= reps; try++)); do
		rm -rf "$DIR/out"
		if ! PERFSTUDY_TIMING=1 /usr/bin/time -f 'time: %e %M %U %S' "$PS" build -q "$@" -o "$DIR/out" 2>"$err.try"; then
			log "perfstudy failed on $label:"; cat "$err.try" >&2
			rows+=("| $label | $((bytes / 1000000)) | failed | | | | | | | | | | | | | | | | | | |")
			return
		fi
		local t; t=$(awk '$2 == "timing:" && $3 == "ingest" { print $4 }' "$err.try")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
			mv "$err.try" "$err"
		fi
	done
	st() { awk -v s="$1" '$2 == "timing:" && $3 == s { print $4 }' "$err"; }
	local wall rss cpu
	read -r wall rss cpu < <(awk '$1 == "time:" { print $2, $3, $4 + $5 }' "$err")
	local nfig; nfig=$(find "$DIR/out" -name '*.svg' | wc -l)
	local ingest; ingest=$(st ingest)
	local mbs; mbs=$(awk -v b="$bytes" -v t="$ingest" 'BEGIN { printf "%.0f", b / t / 1e6 }')
	local rparse="" rinfl=""
	[ -n "$bparse" ] && [ "$bparse" != n/a ] && rparse=$(awk -v a="$bparse" -v b="$mbs" 'BEGIN { printf "%.2f", a / b }')
	[ -n "$binfl" ] && rinfl=$(awk -v a="$mbs" -v b="$binfl" 'BEGIN { printf "%.2f", a / b }')
	local rssmb=$((rss / 1024))
	local rssx; rssx=$(awk -v r="$rss" -v l="$largest" 'BEGIN { printf "%.2f", r * 1024 / l }')
	local lim; lim=$(awk -v r="$rss" -v l="$largest" 'BEGIN { print (r * 1024 <= 1.2 * l + 64 * 1048576) ? "yes" : "NO" }')
	rows+=("| $label | $((bytes / 1000000)) | **$mbs** | $bparse | $rparse | $bcold | $binfl | $blibd | $bigz | $rinfl | $rssmb ($rssx×, ${lim}) | $(st read) | $(st parse) | $(st store) | $(st index) | $ingest | $(st analyze) | $(st render) ($nfig) | $(st total) | $cpu |")
	log "${rows[-1]}"
}

kv() { tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }

for s in $SIZES; do
	f=$DIR/t$s.json
	log "making $f ..."
	[ -f "$f" ] || "$MKTRACE" "$SRC" "$f" "$s"
	[ -f "$f.gz" ] || gzip -6 -c "$f" > "$f.gz"
	# The kernel writes the new files back to disk for seconds after: not while measuring.
	sync
	bytes=$(stat -c %s "$f")
	bpo=$("$BARE" parse "$f")
	run_ps "t$s.json" "$bytes" "$bytes" "$(echo "$bpo" | kv parse_mbs)" "$(echo "$bpo" | kv parse_cold_mbs)" "" "" "" "$f"
	bi=$("$BARE" inflate "$f.gz")
	run_ps "t$s.json.gz" "$bytes" "$bytes" "" "" "$(echo "$bi" | kv inflate_mbs)" "$(echo "$bi" | kv libdeflate_mbs)" "$(echo "$bi" | kv igzip_mbs)" "$f.gz"
	rm -f "$f" "$f.gz"
done

have_jobs=0
"$PS" build --help | grep -q -- --jobs && have_jobs=1
for rs in $RANKS; do
	n=${rs%x*}; mb=${rs#*x}
	d=$DIR/ranks$rs
	mkdir -p "$d"
	log "making $n ranks of $mb MB in $d ..."
	for ((r = 0; r < n; r++)); do
		f=$(printf '%s/rank%03d.json' "$d" "$r")
		[ -f "$f" ] || "$MKTRACE" "$SRC" "$f" "$mb" "$r" "$n"
	done
	sync
	bytes=$(cat "$d"/*.json | wc -c)
	largest=$(stat -c %s "$d"/*.json | sort -n | tail -1)
	bpo=$("$BARE" parse "$d/rank000.json")
	bp=$(echo "$bpo" | kv parse_mbs); bc=$(echo "$bpo" | kv parse_cold_mbs)
	if [ $have_jobs = 1 ]; then
		for j in $JOBS; do
			run_ps "$n ranks × $mb MB, --jobs $j" "$bytes" "$largest" "$bp" "$bc" "" "" "" --jobs "$j" "$d"
		done
	else
		run_ps "$n ranks × $mb MB" "$bytes" "$largest" "$bp" "$bc" "" "" "" "$d"
	fi
	rm -rf "$d"
done

{
	echo "# perfstudy benchmark results"
	echo
	echo "Written by \`make bench\` (bench/run.sh) on $(date -u '+%Y-%m-%d %H:%M UTC'), perfstudy $("$PS" --version | awk '{print $2}')"
	echo "built with the Makefile's default flags (\`-O2 -g\`). Machine:"
	echo
	echo '```'
	lscpu | grep -E '^(Architecture|CPU\(s\)|Model name|Thread|Core|Socket|CPU max MHz|L2|L3|Hypervisor)' || true
	free -g | head -2
	uname -sr
	echo '```'
	echo
	echo "Traces: \`$(basename "$SRC")\` of gpt2-124m 2gpu-ddp (experiments/h200), its steps repeated by"
	echo "bench/mktrace.c up to each size (sizes are uncompressed; .gz is gzip -6 of the same file)."
	echo "MB/s are 10^6 uncompressed bytes per second. *perfstudy* is the ingest stage of"
	echo "\`perfstudy build\` (read, inflate, hash, parse and store every trace; PERFSTUDY_TIMING=1);"
	echo "*bare parse* is a simdjson On-Demand walk pulling cat, name, ts and dur out of every event of"
	echo "the same file already in memory (one document, so n/a above 4 GiB) with a parser whose buffers"
	echo "are already allocated (best of 3); *parse ratio* is bare parse over perfstudy (target ≤ 1.6);"
	echo "*cold* is the same walk with a new parser, allocation and page faults of its 4 bytes of index"
	echo "per input byte included, as a one-shot program pays. *inflate* is zlib inflating the same .gz in memory,"
	echo "*libdeflate* the same with libdeflate, *igzip* with ISA-L in pieces of 1 MiB as perfstudy inflates;"
	echo "*gz ratio* is perfstudy over zlib inflate (target ≥ 0.8)."
	echo "Peak RSS is GNU time's maximum resident set size of the whole build, with its multiple of"
	echo "the largest uncompressed trace and whether it is within 1.2× that + 64 MiB. Stage times in"
	echo "seconds: read, parse and store are summed over the threads that did them (they overlap when"
	echo "threads are used); index (the store's indexes and statistics after reading) and ingest"
	echo "(reading every trace, then indexing the store), analyze, render"
	echo "(with the number of figures, each written as SVG, PDF and PNG) and total are wall time;"
	echo "*CPU s* is user + system time of the whole build. Inputs up to 1.2 GB: the build with the"
	echo "fastest ingest of $REPEAT (BENCH_REPEAT); larger ones: one build."
	echo
	echo "| input | MB | perfstudy MB/s | bare parse MB/s | parse ratio | bare cold MB/s | inflate MB/s | libdeflate MB/s | igzip MB/s | gz ratio | peak RSS MiB | read | parse | store | index | ingest | analyze | render (figures) | total | CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} > "$OUTMD.tmp"
mv "$OUTMD.tmp" "$OUTMD"
cat "$OUTMD"
