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
#   BENCH_REPEAT rounds per input up to 1.2 GB, the fastest of each kept (default 9)
#   BENCH_REPEAT_LARGE rounds per larger input (default 3)
#   BENCH_SERIES rank counts of the rank series (default "2 4 8 ... 1024"; "" for none):
#                thin ranks of tests/data/make_ranks.py (BENCH_SERIES_STEPS steps each,
#                default 100: about 0.3 MB a rank), one build each (BENCH_SERIES_REPEAT
#                rounds, default 1, the fastest kept), and a growth exponent per stage
#                fitted over the points from BENCH_FIT_FROM ranks (default 64)
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
REPEAT=${BENCH_REPEAT:-9}
REPEAT_LARGE=${BENCH_REPEAT_LARGE:-3}
REPEAT_MAX=1200000000
SERIES=${BENCH_SERIES-"2 4 8 16 32 64 128 256 512 1024"}
SERIES_STEPS=${BENCH_SERIES_STEPS:-100}
SERIES_REPEAT=${BENCH_SERIES_REPEAT:-1}
FIT_FROM=${BENCH_FIT_FROM:-64}
MKTRACE=$TOP/bench/build/mktrace
BARE=$TOP/bench/build/bare
FLOOR=${FLOOR:-$TOP/build/bench/floor}
mkdir -p "$DIR"
[ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$DIR"' EXIT

rows=()
xr=()
speedups=()
floors=()
log() { echo "$@" >&2; }

# The machine is shared and noisy: each input is measured in rounds (REPEAT
# up to REPEAT_MAX bytes, REPEAT_LARGE above), its floor (bench/build/bare)
# and perfstudy in turn, and the best of each is kept, so that a slow spell
# falls on both alike. Slow spells hit perfstudy, on both cores, more than the
# one-thread floors, and last: 16 builds of the 113 MB .json.gz in a row took
# 0.146-0.169 s of ingest for the first four, then 0.104-0.137 s; six in a
# row after a pause were 0.127-0.149 s. Five rounds (10 s for that input)
# fell inside one spell in three of five full runs; nine spread it over 20 s.

# ingest_of FILE: the ingest time a build's stderr FILE gives; nothing when there is no FILE.
ingest_of() { [ ! -f "$1" ] || awk '$2 == "timing:" && $3 == "ingest" { print $4 }' "$1"; }

# try_ps KEY ARGS...: one perfstudy build; its stderr kept as $DIR/KEY.best
# (and its figure count as $DIR/KEY.nfig) when its ingest is the fastest of KEY so far.
try_ps() {
	local key=$1
	shift
	local err=$DIR/$key.try
	rm -rf "$DIR/out"
	if ! PERFSTUDY_TIMING=1 /usr/bin/time -f 'time: %e %M %U %S' "$PS" build -q "$@" -o "$DIR/out" 2>"$err"; then
		log "perfstudy failed on $key:"
		cat "$err" >&2
		touch "$DIR/$key.failed"
		return
	fi
	local t best
	t=$(ingest_of "$err")
	best=$(ingest_of "$DIR/$key.best")
	if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
		mv "$err" "$DIR/$key.best"
		find "$DIR/out" -name '*.svg' | wc -l > "$DIR/$key.nfig"
	fi
}

# try_floor KEY MODE FILE: one run of bench/build/bare MODE FILE; the
# largest of each of its NAME_mbs=VALUE so far kept in $DIR/KEY.floor.
try_floor() {
	local key=$1 out
	out=$("$BARE" "$2" "$3")
	{ [ ! -f "$DIR/$key.floor" ] || cat "$DIR/$key.floor"; echo "$out" | tr ' ' '\n'; } |
		awk -F= 'NF == 2 { if (!($1 in v) || ($1 ~ /_mbs$/ && $2 != "n/a" && $2 + 0 > v[$1] + 0)) v[$1] = $2 } END { for (k in v) print k "=" v[k] }' \
		> "$DIR/$key.floor.new"
	mv "$DIR/$key.floor.new" "$DIR/$key.floor"
}

kv() { awk -F= -v k="$1" '$1 == k { print $2 }' "$2" 2>/dev/null; }

# row KEY LABEL BYTES LARGEST: the table row of KEY's fastest build and its floor.
row() {
	local key=$1 label=$2 bytes=$3 largest=$4
	if [ -f "$DIR/$key.failed" ] || [ ! -f "$DIR/$key.best" ]; then
		rows+=("| $label | $((bytes / 1000000)) | failed | | | | | | | | | | | | | | | | | | |")
		return
	fi
	local err=$DIR/$key.best fl=$DIR/$key.floor
	st() { awk -v s="$1" '$2 == "timing:" && $3 == s { print $4 }' "$err"; }
	local wall rss cpu
	read -r wall rss cpu < <(awk '$1 == "time:" { print $2, $3, $4 + $5 }' "$err")
	local nfig; nfig=$(cat "$DIR/$key.nfig")
	local ingest; ingest=$(st ingest)
	local mbs; mbs=$(awk -v b="$bytes" -v t="$ingest" 'BEGIN { printf "%.0f", b / t / 1e6 }')
	local bparse bcold binfl blibd bigz
	bparse=$(kv parse_mbs "$fl"); bcold=$(kv parse_cold_mbs "$fl")
	binfl=$(kv inflate_mbs "$fl"); blibd=$(kv libdeflate_mbs "$fl"); bigz=$(kv igzip_mbs "$fl")
	local rparse="" rinfl=""
	[ -n "$bparse" ] && [ "$bparse" != n/a ] && rparse=$(awk -v a="$bparse" -v b="$mbs" 'BEGIN { printf "%.2f", a / b }')
	[ -n "$binfl" ] && rinfl=$(awk -v a="$mbs" -v b="$binfl" 'BEGIN { printf "%.2f", a / b }')
	local rssmb=$((rss / 1024))
	local rssx; rssx=$(awk -v r="$rss" -v l="$largest" 'BEGIN { printf "%.2f", r * 1024 / l }')
	local lim; lim=$(awk -v r="$rss" -v l="$largest" 'BEGIN { print (r * 1024 <= 1.2 * l + 64 * 1048576) ? "yes" : "NO" }')
	rows+=("| $label | $((bytes / 1000000)) | **$mbs** | $bparse | $rparse | $bcold | $binfl | $blibd | $bigz | $rinfl | $rssmb ($rssx×, ${lim}) | $(st read) | $(st parse) | $(st store) | $(st index) | $ingest | $(st analyze) | $(st render) ($nfig) | $(st total) | $cpu |")
	log "${rows[-1]}"
}

# floor_line LABEL BYTES FILE: what no build of the plain FILE can leave
# out (bench/floor.c: its SHA-256, reading it, SQLite storing the rows of a
# store built from it; the bare parse from this run's plain.floor), and the
# least wall time any build could take on this machine's cores with it: the
# hash of one file runs on one core, the rest may share them all.
floor_line() {
	local label=$1 bytes=$2 f=$3 out sum
	rm -rf "$DIR/fout"
	if ! "$PS" build -q "$f" -o "$DIR/fout" 2>/dev/null || ! out=$("$FLOOR" "$f" "$DIR/fout/perfstudy.db"); then
		floors+=("$label: floor not measured (the build or bench/build/floor failed)")
		rm -rf "$DIR/fout"
		return
	fi
	rm -rf "$DIR/fout"
	echo "$out" | tr ' ' '\n' > "$DIR/floor.kv"
	local sum_ok="matches sha256sum"
	[ "$(kv sha256 "$DIR/floor.kv")" = "$(sha256sum "$f" | cut -d' ' -f1)" ] || sum_ok="DIFFERS from sha256sum"
	floors+=("$(awk -v label="$label" -v b="$bytes" -v pm="$(kv parse_mbs "$DIR/plain.floor")" \
		-v sha="$(kv sha_s "$DIR/floor.kv")" -v shm="$(kv sha_mbs "$DIR/floor.kv")" -v rd="$(kv read_s "$DIR/floor.kv")" \
		-v st="$(kv store_s "$DIR/floor.kv")" -v rows="$(kv rows "$DIR/floor.kv")" -v wk="$(kv walk_s "$DIR/floor.kv")" \
		-v n="$(nproc)" -v ing="$(ingest_of "$DIR/plain.best")" -v ok="$sum_ok" '
		function least(s) { return s / n > sha ? s / n : sha }
		BEGIN {
		bare = b / pm / 1e6; sum = sha + rd + bare + st; lb = least(sum)
		printf "%s (%d MB): SHA-256 %.4f s (%.0f MB/s, %s), reading %.4f s, bare parse %.4f s, SQLite storing its %d rows %.4f s: %.3f s of CPU, at most %.0f MB/s per core; on %d cores no build takes less than %.3f s, %.2f× the bare parse",
			label, b / 1e6, sha, shm, ok, rd, bare, rows, st, sum, b / sum / 1e6, n, lb, lb / bare
		if (wk != "") {
			sw = sum - bare + wk; lw = least(sw)
			printf "; with perfstudy'"'"'s own walk (%.4f s, every field the store keeps) in place of the bare parse, %.3f s of CPU and at least %.3f s, %.2f×", wk, sw, lw, lw / bare
		}
		printf " (perfstudy: %.3f s, %.2f×)", ing, ing / bare }')")
	log "${floors[-1]}"
}

reps_for() { [ "$1" -le "$REPEAT_MAX" ] && echo "$REPEAT" || echo "$REPEAT_LARGE"; }

for s in $SIZES; do
	f=$DIR/t$s.json
	log "making $f ..."
	[ -f "$f" ] || "$MKTRACE" "$SRC" "$f" "$s"
	[ -f "$f.gz" ] || gzip -6 -c "$f" > "$f.gz"
	# The kernel writes the new files back to disk for seconds after: not while measuring.
	sync
	bytes=$(stat -c %s "$f")
	rm -f "$DIR"/plain.* "$DIR"/gz.*
	for ((try = 1; try <= $(reps_for "$bytes"); try++)); do
		try_floor plain parse "$f"
		try_ps plain "$f"
		try_floor gz inflate "$f.gz"
		try_ps gz "$f.gz"
	done
	row plain "t$s.json" "$bytes" "$bytes"
	row gz "t$s.json.gz" "$bytes" "$bytes"
	[ "$bytes" -gt "$REPEAT_MAX" ] || [ ! -f "$DIR/plain.best" ] || floor_line "t$s.json" "$bytes" "$f"
	rm -f "$f" "$f.gz"
done

have_jobs=0
"$PS" build --help | grep -q -- --jobs && have_jobs=1
[ $have_jobs = 1 ] || JOBS=0
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
	rm -f "$DIR"/ranks.*
	# The --jobs values in turn, so that a ratio of two compares builds of the same spell.
	for ((try = 1; try <= $(reps_for "$bytes"); try++)); do
		try_floor ranks parse "$d/rank000.json"
		for j in $JOBS; do
			if [ "$j" = 0 ]; then try_ps ranks.j0 "$d"; else try_ps "ranks.j$j" --jobs "$j" "$d"; fi
		done
	done
	first=""
	for j in $JOBS; do
		[ ! -f "$DIR/ranks.floor" ] || cp "$DIR/ranks.floor" "$DIR/ranks.j$j.floor"
		label="$n ranks × $mb MB, --jobs $j"
		[ "$j" = 0 ] && label="$n ranks × $mb MB"
		row "ranks.j$j" "$label" "$bytes" "$largest"
		# the cross-rank analyses of the fastest build (PERFSTUDY_TIMING's "analysis" lines)
		[ ! -f "$DIR/ranks.j$j.best" ] || xr+=("$label: $(awk '$2 == "timing:" && $3 == "analysis" &&
			($5 == "crossrank" || $5 == "critical_path") { printf "%s%s %s s", n++ ? ", " : "", $5, $6 }' "$DIR/ranks.j$j.best")")
		t=$(ingest_of "$DIR/ranks.j$j.best")
		if [ -z "$first" ]; then
			first=$t; fj=$j
		elif [ -n "$t" ] && [ -n "$first" ]; then
			speedups+=("$n ranks × $mb MB: ingest with --jobs $j $(awk -v a="$first" -v b="$t" 'BEGIN { printf "%.2f", a / b }')× that with --jobs $fj ($first s -> $t s)")
		fi
	done
	rm -rf "$d"
done


# The rank series: N thin ranks, one run; per N the fastest build's stage
# times (PERFSTUDY_TIMING: ingest, analyze, chart, report = render - chart,
# total), CPU time, peak RSS against the memory bound; then per stage the
# slope of log(time) over log(N) by least squares, from FIT_FROM ranks up
# (below that a build's fixed costs hide the growth): 1 is linear, 2
# quadratic.
series_rows=()
series_pts=$DIR/series.pts
: > "$series_pts"
for n in $SERIES; do
	d=$DIR/series/r$n/run
	log "rank series: $n ranks of $SERIES_STEPS steps ..."
	if [ "$(ls "$d" 2> /dev/null | grep -c '^rank[0-9]*\.json$')" != "$n" ]; then
		rm -rf "$d"
		python3 "$TOP/tests/data/make_ranks.py" "$n" "$d" "$SERIES_STEPS"
	fi
	sync
	best=""
	for ((try = 1; try <= SERIES_REPEAT; try++)); do
		rm -rf "$DIR/sout"
		if ! PERFSTUDY_TIMING=1 /usr/bin/time -f 'time: %e %M %U %S' "$PS" build -q "$d" -o "$DIR/sout" 2> "$DIR/series.try"; then
			log "perfstudy failed on $n ranks:"
			cat "$DIR/series.try" >&2
			continue
		fi
		t=$(awk '$2 == "timing:" && $3 == "total" { print $4 }' "$DIR/series.try")
		if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$t
			mv "$DIR/series.try" "$DIR/series.best"
		fi
	done
	rm -rf "$DIR/sout"
	if [ -z "$best" ]; then
		series_rows+=("| $n | failed | | | | | | | |")
		continue
	fi
	bytes=$(cat "$d"/*.json | wc -c)
	largest=$(stat -c %s "$d"/*.json | sort -n | tail -1)
	read -r ing ana ren cha tot wall rss cpu < <(awk '
		$2 == "timing:" && $3 == "ingest" { i = $4 } $2 == "timing:" && $3 == "analyze" { a = $4 }
		$2 == "timing:" && $3 == "render" { r = $4 } $2 == "timing:" && $3 == "chart" { c = $4 }
		$2 == "timing:" && $3 == "total" { t = $4 } $1 == "time:" { w = $2; m = $3; u = $4 + $5 }
		END { print i, a, r, c, t, w, m, u }' "$DIR/series.best")
	rep=$(awk -v r="$ren" -v c="$cha" 'BEGIN { printf "%.3f", r - c }')
	lim=$(awk -v r="$rss" -v l="$largest" 'BEGIN { printf "%.0f MiB, %s", (1.2 * l + 64 * 1048576) / 1048576, (r * 1024 <= 1.2 * l + 64 * 1048576) ? "within" : "OVER" }')
	series_rows+=("| $n | $((bytes / 1000000)) | $ing | $ana | $cha | $rep | $tot | $cpu | $((rss / 1024)) ($lim) |")
	log "${series_rows[-1]}"
	echo "$n $ing $ana $cha $rep $tot $cpu $((rss / 1024))" >> "$series_pts"
	[ "${BENCH_KEEP:-0}" = 1 ] || rm -rf "$DIR/series/r$n"
done
# slope NAME COLUMN: the least-squares slope of log(column) over log(ranks), points from FIT_FROM ranks
# with a time of at least 1 ms.
slope() {
	awk -v c="$2" -v from="$FIT_FROM" -v name="$1" '$1 >= from && $c >= 0.001 {
		x = log($1); y = log($c); n++; sx += x; sy += y; sxx += x * x; sxy += x * y }
		END { if (n < 2 || n * sxx == sx * sx) printf "%s n/a", name
		      else printf "%s %.2f", name, (n * sxy - sx * sy) / (n * sxx - sx * sx) }' "$series_pts"
}
series_fit=""
[ ! -s "$series_pts" ] || series_fit="$(slope ingest 2), $(slope analyze 3), $(slope chart 4), $(slope report 5), $(slope total 6), $(slope CPU 7), $(slope 'peak RSS' 8)"

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
	echo "*CPU s* is user + system time of the whole build. Inputs up to 1.2 GB (for a rank study, all"
	echo "its traces): $REPEAT rounds (BENCH_REPEAT), each running the floor (bare parse or inflate) and then"
	echo "perfstudy (for a rank study, each --jobs value in turn), the best of each kept: the row is the"
	echo "build with the fastest ingest, its floors the fastest of their rounds. Larger inputs: $REPEAT_LARGE rounds"
	echo "(BENCH_REPEAT_LARGE)."
	echo
	echo "| input | MB | perfstudy MB/s | bare parse MB/s | parse ratio | bare cold MB/s | inflate MB/s | libdeflate MB/s | igzip MB/s | gz ratio | peak RSS MiB | read | parse | store | index | ingest | analyze | render (figures) | total | CPU s |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	if [ ${#speedups[@]} -gt 0 ]; then
		echo
		echo "Speedup of --jobs (best ingest of each, measured in turn):"
		echo
		printf -- '- %s\n' "${speedups[@]}"
	fi
	if [ ${#xr[@]} -gt 0 ]; then
		echo
		echo "Cross-rank analyses in the analyze stage of the rank studies (PERFSTUDY_TIMING, the build above):"
		echo "crossrank (collectives matched across ranks, clock offsets, stragglers) and critical_path"
		echo "(which matches each run's collectives again for its joins):"
		echo
		printf -- '- %s\n' "${xr[@]}"
	fi
	if [ ${#floors[@]} -gt 0 ]; then
		echo
		echo "Floor of a plain trace (bench/floor.c, each part alone, best of 7): the work no build can leave out,"
		echo "the SHA-256 of the file (the provenance lists it), reading it from the page cache in 256 KiB pieces,"
		echo "the bare parse above, and SQLite inserting the rows a build stored for it (32 a statement, one"
		echo "transaction, as perfstudy does, with nothing of perfstudy's around it). The hash of one file runs on"
		echo "one core; the least wall time is the larger of it and the sum over all cores. Then the same with"
		echo "perfstudy's own simdjson walk over the file's events in 1 MiB windows (kineto_json.cpp, every field"
		echo "the store keeps read, nothing recorded) in place of the bare parse, which reads four:"
		echo
		printf -- '- %s\n' "${floors[@]}"
	fi
	if [ ${#series_rows[@]} -gt 0 ]; then
		echo
		echo "Rank series: N thin synthetic ranks of one DDP run (tests/data/make_ranks.py N DIR $SERIES_STEPS: $SERIES_STEPS"
		echo "steps of 8 GEMMs and a Seq-numbered AllReduce with a seeded jitter a rank, about 0.3 MB a rank), one"
		echo "\`perfstudy build\` each (best total of $SERIES_REPEAT, BENCH_SERIES_REPEAT). Seconds of wall time per stage"
		echo "(PERFSTUDY_TIMING; report = render - chart), CPU s (user + system), peak RSS with the README's bound"
		echo "(1.2 x the largest trace + 64 MiB):"
		echo
		echo "| ranks | MB | ingest | analyze | chart | report | total | CPU s | peak RSS MiB (bound) |"
		echo "|---|---|---|---|---|---|---|---|---|"
		printf '%s\n' "${series_rows[@]}"
		echo
		echo "Growth exponents (least-squares slope of log time over log ranks, from $FIT_FROM ranks; 1 is linear,"
		echo "2 quadratic): $series_fit."
	fi
} > "$OUTMD.tmp"
mv "$OUTMD.tmp" "$OUTMD"
cat "$OUTMD"
