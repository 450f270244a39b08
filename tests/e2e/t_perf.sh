#!/bin/bash
# t_perf.sh: the large-trace machinery gives the same store as before.
# Kineto traces are parsed in windows (src/ingest/kineto/kineto_stream.c); cutting
# the same trace into windows of 64 bytes up (PERFSTUDY_WINDOW_BYTES), with
# each vector width of the scan (PERFSTUDY_SIMD), must give the same rows as
# one window, also for gzip of one and of two members
# (ISA-L's igzip reads both), a byte order mark, strings holding
# brackets, quotes and backslashes, and keys after traceEvents.
# PERFSTUDY_TIMING prints one line per stage.
source "$(dirname "$0")/lib.sh"

# dump DB: every stored row of the ingest tables, in a fixed order.
dump() {
	for t in traces devices names activities launches annotations; do
		echo "== $t"
		sqlite3 "$1" "SELECT * FROM $t" | sort
	done
}
# one INPUT NAME: builds INPUT with several window sizes, compares the stores.
one() {
	local input=$1 name=$2
	# Each build into a fresh directory: a rebuild would reuse the rows of
	# unchanged traces instead of reading them again.
	rm -rf "$T/ref"
	if ! "$PERFSTUDY" build -q "$input" -o "$T/ref" 2>"$T/err"; then
		bad "$name: build failed: $(cat "$T/err")"
		return
	fi
	dump "$T/ref/perfstudy.db" > "$T/ref.txt"
	# WINDOW:SIMD; the scan loops for other vector widths (PERFSTUDY_SIMD caps
	# the width; on a CPU without AVX-512 or AVX2 the cap changes nothing).
	for ws in 64:portable 64:sse2 64:avx2 64: 100: 1000:portable 1000:sse2 1000:avx2 1000: 65536: 1048576:portable; do
		local w=${ws%%:*} simd=${ws#*:}
		rm -rf "$T/w"
		if ! PERFSTUDY_WINDOW_BYTES=$w PERFSTUDY_SIMD=$simd "$PERFSTUDY" build -q "$input" -o "$T/w" 2>"$T/err"; then
			bad "$name: build with $w-byte windows (${simd:-widest} scan) failed: $(cat "$T/err")"
			continue
		fi
		dump "$T/w/perfstudy.db" > "$T/w.txt"
		same "$T/ref.txt" "$T/w.txt" "$name, $w-byte windows, ${simd:-widest} scan"
	done
}

one experiments/h200/traces/gpt2-124m/2gpu-ddp "h200 gpt2 ddp (gzip)"
one tests/data/small/study/run-a "small run-a"

# A hand-made trace with the awkward cases; its kernel times are known.
mkdir -p "$T/odd"
printf '\xef\xbb\xbf{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU \\"[x]\\"", "numSms": 4}],\n' > "$T/odd/rank0.json"
cat >> "$T/odd/rank0.json" <<'JSON'
 "traceEvents": [
  {"ph": "X", "cat": "kernel", "name": "k{[\"]}\\", "ts": 1.5, "dur": 2, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "]}, {\"ph\": \"X\"", "ts": 10, "dur": 0.001, "args": {"device": 0, "stream": 7, "nested": [{"a": [1, {"b": "}"}]}]}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "dur": 0.25, "tid": 3, "args": {"correlation": 1}},
  {"ph": "i", "name": "\\\\", "ts": 3},
  {"ph": "X", "cat": "GPU_Memset", "name": "Memset (Device)", "ts": 30, "dur": 1, "args": {"device": 0, "stream": 7, "bytes": 64}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0.5, "dur": 20, "tid": 3}
 ],
 "distributedInfo": {"rank": 0, "world_size": 1},
 "baseTimeNanoseconds": 1700000000000000000
}
JSON
one "$T/odd" "odd cases"
dump "$T/ref/perfstudy.db" > "$T/odd.txt"
# Expected by hand: two kernels (1500 ns + 2000 ns, 10000 ns + 1 ns), one
# memset (its category in another case: categories match without case),
# one launch, one step.
if grep -q '^1|kernel|[0-9]*|0|7|1500|2000|||1$' "$T/odd.txt" && grep -q '^1|kernel|[0-9]*|0|7|10000|1|||$' "$T/odd.txt" &&
	grep -q '^1|memset|[0-9]*|0|7|30000|1000|64||$' "$T/odd.txt" &&
	sqlite3 "$T/ref/perfstudy.db" "SELECT count(*) FROM launches" | grep -qx 1 &&
	sqlite3 "$T/ref/perfstudy.db" "SELECT rank, world_size, epoch_offset_ns FROM traces" | grep -qx '0|1|1700000000000000000' &&
	sqlite3 "$T/ref/perfstudy.db" "SELECT name FROM devices" | grep -qx 'GPU "\[x\]"'; then
	ok
else
	bad "odd cases: unexpected rows"; cat "$T/odd.txt" >&2
fi
gzip -c "$T/odd/rank0.json" > "$T/odd.json.gz"
mkdir -p "$T/gz1" "$T/gz2"
cp "$T/odd.json.gz" "$T/gz1/rank0.json.gz"
# Two gzip members: igzip goes on after the first.
head -c 300 "$T/odd/rank0.json" | gzip -c > "$T/gz2/rank0.json.gz"
tail -c +301 "$T/odd/rank0.json" | gzip -c >> "$T/gz2/rank0.json.gz"
for d in gz1 gz2; do
	one "$T/$d" "odd cases, $d"
	if sqlite3 "$T/ref/perfstudy.db" "SELECT * FROM activities; SELECT * FROM launches;" > "$T/$d.txt" &&
		[ -s "$T/$d.txt" ]; then ok; else bad "odd cases, $d: store could not be dumped"; fi
done
same "$T/gz1.txt" "$T/gz2.txt" "one and two gzip members"

# The shim stops reading an event once "ph" is not "X" or its "cat" is not
# read, and reads only "External id" of a host operator's args
# (kineto_json.cpp); events whose fields come in other orders, or with
# escaped keys, are read whole and give the same rows. By hand: kernel K1
# [1000, 3000) ns on device 0 stream 7 (cat after args, ph last); kernel K2
# [4000, 4500) ns, its "ts" key written "\u0074s"; launch L [500, 750) ns,
# correlation 9 after the cpu_op-like arg names; kernel K3 [8000, 9000) ns,
# its "ph" and "cat" values written with escapes ("\u0058", "k\u0065rnel"),
# while K4's "ph" is "\u0066" ("f"): skipped; the flow event and the
# python_function are skipped; cpu_op O [0, 5000) ns with external id 42
# (after "Input Dims"), cpu_op P [6000, 7000) ns whose External id comes first.
# Kernel K5 [10000, 11000) ns on device 1 stream 8, its args' keys written
# with escapes, after each field a longer key that starts like it ("tsx",
# "durx", "streamx": not read); cpu_op Q [7000, 7500) ns, external id 44
# under an escaped key.
mkdir -p "$T/order"
cat > "$T/order/rank0.json" <<'JSON'
{"traceEvents": [
 {"name": "K1", "ts": 1, "dur": 2, "args": {"device": 0, "stream": 7}, "cat": "kernel", "ph": "X"},
 {"ph": "X", "cat": "kernel", "name": "K2", "\u0074s": 4, "dur": 0.5, "args": {"device": 0, "stream": 7}},
 {"ph": "\u0058", "cat": "k\u0065rnel", "name": "K3", "ts": 8, "dur": 1, "args": {"device": 0, "stream": 7}},
 {"ph": "\u0066", "cat": "kernel", "name": "K4", "ts": 9, "dur": 1, "args": {"device": 0, "stream": 7}},
 {"ph": "X", "cat": "cuda_runtime", "name": "L", "ts": 0.5, "dur": 0.25, "tid": 2, "args": {"Input Dims": [[1]], "correlation": 9}},
 {"ph": "f", "cat": "ac2g", "name": "flow", "ts": 1, "args": {"device": "not an int"}},
 {"ph": "X", "cat": "python_function", "name": "py", "ts": 0, "dur": 9, "args": {"device": "not an int"}},
 {"ph": "X", "cat": "cpu_op", "name": "O", "ts": 0, "dur": 5, "tid": 1, "args": {"Input Dims": [[2, 3], []], "External id": 42, "Ev Idx": 1}},
 {"ph": "X", "cat": "cpu_op", "name": "P", "ts": 6, "dur": 1, "tid": 1, "args": {"External id": 43, "Input Dims": [[]]}},
 {"ph": "X", "cat": "kernel", "name": "K5", "ts": 10, "tsx": 99, "dur": 1, "durx": 5, "args": {"d\u0065vice": 1, "str\u0065am": 8, "streamx": 3}},
 {"ph": "X", "cat": "cpu_op", "name": "Q", "ts": 7, "dur": 0.5, "tid": 1, "args": {"\u0045xternal id": 44}}
]}
JSON
if "$PERFSTUDY" build -q "$T/order" -o "$T/order-out" 2>"$T/err"; then
	db=$T/order-out/perfstudy.db
	got=$(sqlite3 "$db" "SELECT n.name, a.device, a.stream, a.start_ns, a.dur_ns FROM activities a JOIN names n ON n.id = a.name_id ORDER BY 4;
		SELECT n.name, l.start_ns, l.dur_ns, l.correlation FROM launches l JOIN names n ON n.id = l.name_id;
		SELECT n.name, c.start_ns, c.dur_ns, c.external_id FROM cpu_ops c JOIN names n ON n.id = c.name_id ORDER BY 2;
		SELECT events, skipped FROM traces WHERE part_of IS NULL")  # K5 on device 1 makes a second rank row
	want='K1|0|7|1000|2000
K2|0|7|4000|500
K3|0|7|8000|1000
K5|1|8|10000|1000
L|500|250|9
O|0|5000|42
P|6000|1000|43
Q|7000|500|44
11|0'
	if [ "$got" = "$want" ]; then ok; else bad "field orders: got $got"; fi
	if [ -s "$T/err" ]; then bad "field orders: unexpected messages: $(cat "$T/err")"; else ok; fi
else
	bad "field orders: build failed: $(cat "$T/err")"
fi

# Integers in args: Kineto's short ones are read in place (kineto_json.cpp,
# take_int), all others by simdjson; both must agree with JSON. Worked out by
# hand: K1 device 0 stream 7 (a value ended by a space, a newline, '}');
# K2's device 1.0 and K4's 2e0 are numbers but not integers, K3's stream 00
# is not JSON: each unknown with a warning; K5's correlation has 17
# digits (the first not read in place), K6's is INT64_MAX; K7's stream -2
# (negative: not read in place, and stored as unknown, like every unknown
# value, as NULL); K8's device 3E0 and stream 5x (not JSON) unknown.
mkdir -p "$T/ints"
cat > "$T/ints/rank0.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "kernel", "name": "K1", "ts": 1, "dur": 1, "args": {"device": 0 , "stream": 7
 , "correlation": 5}},
 {"ph": "X", "cat": "kernel", "name": "K2", "ts": 2, "dur": 1, "args": {"device": 1.0, "stream": 7,"correlation":6}},
 {"ph": "X", "cat": "kernel", "name": "K3", "ts": 3, "dur": 1, "args": {"device": 0, "stream": 00, "correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "K4", "ts": 4, "dur": 1, "args": {"device": 2e0, "stream": 7, "correlation": 8}},
 {"ph": "X", "cat": "kernel", "name": "K5", "ts": 5, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 12345678901234567}},
 {"ph": "X", "cat": "kernel", "name": "K6", "ts": 6, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 9223372036854775807}},
 {"ph": "X", "cat": "kernel", "name": "K7", "ts": 7, "dur": 1, "args": {"device": 0, "stream": -2, "correlation": 10}},
 {"ph": "X", "cat": "kernel", "name": "K8", "ts": 8, "dur": 1, "args": {"device": 3E0, "stream": 5x, "correlation": 11}}
]}
JSON
if "$PERFSTUDY" build "$T/ints" -o "$T/ints-out" >/dev/null 2>"$T/err"; then
	got=$(sqlite3 "$T/ints-out/perfstudy.db" "SELECT n.name, a.device, a.stream, a.correlation FROM activities a
		JOIN names n ON n.id = a.name_id ORDER BY a.start_ns")
	want='K1|0|7|5
K2||7|6
K3|0||7
K4||7|8
K5|0|7|12345678901234567
K6|0|7|9223372036854775807
K7|0||10
K8|||11'
	if [ "$got" = "$want" ]; then ok; else bad "integers in args: got $got"; fi
	for w in "K2': 'device'" "K3': 'stream'" "K4': 'device'" "K8': 'device'"; do
		grep -q "warning: event '${w%%':*}': '${w#*: '}" "$T/err" && ok || bad "integers in args: no warning for $w: $(cat "$T/err")"
	done
else
	bad "integers in args: build failed: $(cat "$T/err")"
fi

# Host operators: only each thread's outermost ones are stored, and
# enumerate(DataLoader)... ranges at any depth (store/sink.c, sink_cpu_op).
# Worked out by hand: on thread 1, A [0,100) us holds B; C [50,150) overlaps
# A without being inside it, so it is outermost too and holds D; E is a data
# loader range inside A and C; F is alone. On thread 2, G [15,25) holds H,
# which starts with it but ends earlier. Kept: A, C, E, F, G. The same
# operators in three orders: shuffled (decided at the trace's end), in
# order of start as Kineto writes them, H before G (decided as they come),
# and in order but for a last one, X [5,6) inside A, that starts before
# its thread's latest (the rows stored so far are redone at the end).
ops_case() {
	local name=$1
	shift
	mkdir -p "$T/ops-$name"
	{
		echo '{"traceEvents": ['
		for e in "$@"; do
			case $e in
			A) echo '{"ph": "X", "cat": "cpu_op", "name": "A", "ts": 0, "dur": 100, "tid": 1},' ;;
			B) echo '{"ph": "X", "cat": "cpu_op", "name": "B", "ts": 10, "dur": 10, "tid": 1},' ;;
			C) echo '{"ph": "X", "cat": "cpu_op", "name": "C", "ts": 50, "dur": 100, "tid": 1},' ;;
			D) echo '{"ph": "X", "cat": "cpu_op", "name": "D", "ts": 60, "dur": 10, "tid": 1},' ;;
			E) echo '{"ph": "X", "cat": "cpu_op", "name": "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "ts": 80, "dur": 10, "tid": 1},' ;;
			F) echo '{"ph": "X", "cat": "cpu_op", "name": "F", "ts": 200, "dur": 10, "tid": 1},' ;;
			G) echo '{"ph": "X", "cat": "cpu_op", "name": "G", "ts": 15, "dur": 10, "tid": 2},' ;;
			H) echo '{"ph": "X", "cat": "cpu_op", "name": "H", "ts": 15, "dur": 5, "tid": 2},' ;;
			X) echo '{"ph": "X", "cat": "cpu_op", "name": "X", "ts": 5, "dur": 1, "tid": 1},' ;;
			W) echo '{"ph": "X", "cat": "cpu_op", "name": "W", "ts": 1, "dur": 198, "tid": 1},' ;;
			esac
		done
		echo '{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 1}},'
		echo '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0, "dur": 300, "tid": 1}'
		echo ']}'
	} > "$T/ops-$name/rank0.json"
	rm -rf "$T/opsout"
	if "$PERFSTUDY" build -q "$T/ops-$name" -o "$T/opsout" 2>"$T/err"; then
		sqlite3 "$T/opsout/perfstudy.db" "SELECT c.tid, n.name, c.start_ns, c.dur_ns FROM cpu_ops c
			JOIN names n ON n.id = c.name_id ORDER BY c.tid, c.start_ns" > "$T/ops.txt"
		same "$T/ops.want" "$T/ops.txt" "outermost host operators stored ($name)"
	else
		bad "host operators ($name): build failed: $(cat "$T/err")"
	fi
}
cat > "$T/ops.want" <<'WANT'
1|A|0|100000
1|C|50000|100000
1|enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__|80000|10000
1|F|200000|10000
2|G|15000|10000
WANT
ops_case shuffled D A H B C E F G
ops_case ordered A B H G C D E F
ops_case late A B H G C D E F X
# Last, W [1,199) instead: starts after A, so not inside it, and holds C
# (stored before W came), D and E; F ends after it. Thread 1 keeps A, W, E
# (a data loader range), F; thread 2 still G (its group of one start, G
# and H, not decided when W comes, must not be lost). Only the operators
# stored so far and those not decided are kept for the redo (store/sink.c).
cat > "$T/ops.want" <<'WANT'
1|A|0|100000
1|W|1000|198000
1|enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__|80000|10000
1|F|200000|10000
2|G|15000|10000
WANT
ops_case late-holding A B H G C D E F W

# Reading and cutting on a thread of their own (kineto_stream.c's cutter,
# on when a core is spare: --jobs 2 with one trace; PERFSTUDY_READAHEAD=always
# turns it on for small files too) give the same rows, messages and exit
# status as one thread (--jobs 1), also when reading fails after the first
# windows and with a warning before that.
zcat experiments/h200/traces/gpt2-124m/1gpu/rank0.pt.trace.json.gz > "$T/big.json"
# A negative dur on the first event, ProfilerStep#4 (a warning).
python3 - "$T/big.json" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p).read()
at = s.index('"cat": "user_annotation"')
m = re.compile(r'"dur": [0-9.]+').search(s, at)
open(p, 'w').write(s[:m.start()] + '"dur": -5' + s[m.end():])
PY
mkdir -p "$T/cut-ok" "$T/cut-trunc" "$T/cut-corrupt" "$T/cut-syntax"
gzip -c "$T/big.json" > "$T/cut-ok/rank0.json.gz"
size=$(stat -c %s "$T/cut-ok/rank0.json.gz")
head -c $((size / 2)) "$T/cut-ok/rank0.json.gz" > "$T/cut-trunc/rank0.json.gz"
# 64 bytes of deflate data changed at 90 %: a gzip error (after igzip gives up, zlib's).
python3 - "$T/cut-ok/rank0.json.gz" "$T/cut-corrupt/rank0.json.gz" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
for k in range(64):
    b[len(b) * 9 // 10 + k] ^= 0x55
open(sys.argv[2], 'wb').write(b)
PY
# Broken JSON at 90 % of the file.
python3 - "$T/big.json" "$T/cut-syntax/rank0.json" <<'PY'
import sys
s = open(sys.argv[1]).read()
at = s.index('"ph": "X"', len(s) * 9 // 10)
open(sys.argv[2], 'w').write(s[:at] + '"ph": X"' + s[at + 9:])
PY
# A build of $T/$d (64 KiB windows, threads on for a small file) with
# --jobs J and the environment given: its exit status, messages and (for a
# case without error) rows must be those of the one-thread build ($r1,
# $T/e1, $T/d1.txt).
like_one_thread() { # WHAT J VAR=VALUE...
	local what=$1 j=$2 r
	shift 2
	rm -rf "$T/o"
	env PERFSTUDY_WINDOW_BYTES=65536 PERFSTUDY_READAHEAD=always "$@" \
		"$PERFSTUDY" build --jobs "$j" "$T/$d" -o "$T/o" > /dev/null 2> "$T/e3"
	r=$?
	[ "$r1" = $r ] && ok || bad "$d: exit $r1 with one thread, $r $what"
	same "$T/e1" "$T/e3" "$d: messages $what"
	if [ -z "$pat" ]; then
		dump "$T/o/perfstudy.db" > "$T/d3.txt"
		same "$T/d1.txt" "$T/d3.txt" "$d: rows $what"
	fi
}
for d in cut-ok cut-trunc cut-corrupt cut-syntax; do
	# The same output directory both times (messages name it).
	rm -rf "$T/o"
	PERFSTUDY_WINDOW_BYTES=65536 "$PERFSTUDY" build --jobs 1 "$T/$d" -o "$T/o" > /dev/null 2> "$T/e1"
	r1=$?
	[ -f "$T/o/perfstudy.db" ] && dump "$T/o/perfstudy.db" > "$T/d1.txt"
	rm -rf "$T/o"
	PERFSTUDY_WINDOW_BYTES=65536 PERFSTUDY_READAHEAD=always "$PERFSTUDY" build --jobs 2 "$T/$d" -o "$T/o" > /dev/null 2> "$T/e2"
	r2=$?
	[ $r1 = $r2 ] && ok || bad "$d: exit $r1 with one thread, $r2 with the cutter"
	same "$T/e1" "$T/e2" "$d: messages with the cutter"
	# Expected by hand: the warning first, then (all but cut-ok) one error naming the place; exit 0 or 1.
	grep -q "warning: .*negative 'dur'" "$T/e2" && ok || bad "$d: no warning for the negative dur: $(cat "$T/e2")"
	case $d in
	cut-ok) want=0 pat='' ;;
	cut-trunc) want=1 pat='error: truncated gzip stream after [0-9]* bytes of uncompressed data' ;;
	cut-corrupt) want=1 pat='error: .*gzip' ;;
	cut-syntax) want=1 pat="rank0.json:[0-9]*:[0-9]*: error: " ;;
	esac
	[ $r2 = $want ] && ok || bad "$d: exit $r2, want $want: $(cat "$T/e2")"
	if [ -n "$pat" ]; then
		grep -q "$pat" "$T/e2" && [ "$(grep -n "warning: .*negative 'dur'" "$T/e2" | cut -d: -f1)" -lt "$(grep -n "$pat" "$T/e2" | cut -d: -f1)" ] &&
			ok || bad "$d: want the warning, then '$pat': $(cat "$T/e2")"
	else
		dump "$T/o/perfstudy.db" > "$T/d2.txt"
		same "$T/d1.txt" "$T/d2.txt" "$d: rows with the cutter"
		# The compressed bytes are hashed on a thread of their own here (stream.c's zhash): coreutils' digest.
		want=$(sha256sum < "$T/$d/rank0.json.gz" | cut -d' ' -f1)
		got=$(sqlite3 "$T/o/perfstudy.db" "SELECT sha256 FROM traces")
		[ "$got" = "$want" ] && ok || bad "$d: sha256 with the cutter $got, sha256sum says $want"
	fi
	# zlib alone (PERFSTUDY_INFLATE=zlib; igzip hands it only what it rejects), --jobs 1 and 2: the same.
	case $d in
	cut-ok | cut-trunc | cut-corrupt)
		for j in 1 2; do
			like_one_thread "with zlib alone (--jobs $j)" $j PERFSTUDY_INFLATE=zlib
		done
		;;
	esac
	# Parse helpers (kineto_stream.c): windows parsed by 2 and 4 threads at once, given out in order.
	for h in 1 3; do
		like_one_thread "with $h parse helpers" 2 PERFSTUDY_PARSE_HELPERS=$h
	done
done

# Every broken .json.gz of tests/bad (CRC, empty, header only, sizes,
# trailing garbage, truncated, corrupt) gives the same messages and exit
# status inflated by igzip (which hands what it rejects to zlib) and by
# zlib alone.
for f in tests/bad/*.gz; do
	rm -rf "$T/g"
	"$PERFSTUDY" build -q --force "$f" -o "$T/g" > /dev/null 2> "$T/g1"
	r1=$?
	rm -rf "$T/g"
	PERFSTUDY_INFLATE=zlib "$PERFSTUDY" build -q --force "$f" -o "$T/g" > /dev/null 2> "$T/g2"
	r2=$?
	[ $r1 = $r2 ] && ok || bad "$f: exit $r1 with igzip, $r2 with zlib alone"
	same "$T/g1" "$T/g2" "$f: messages with zlib alone"
done

# A .json.gz's compressed bytes are read in pieces of 256 KiB (stream.c's
# zbuf), by the read-ahead thread or not. A trace in three gzip members of
# about 330 KB (member ends inside and across pieces), then with 300 kB of
# zero padding, stores the rows of the same trace uncompressed; with
# garbage after three zero bytes the error is at the garbage's byte
# (counted here); corrupt bytes in the second member give zlib's message
# with the bytes igzip had read read again (isal_fallback), as with zlib
# alone.
mkdir -p "$T/mm/plain" "$T/mm/multi" "$T/mm/pad" "$T/mm/garb" "$T/mm/corr"
zcat experiments/h200/traces/gpt2-124m/1gpu/rank0.pt.trace.json.gz > "$T/mm/plain/rank0.json"
garb_at=$(python3 - "$T/mm" <<'PY'
import gzip, sys
d = sys.argv[1]
j = open(d + '/plain/rank0.json', 'rb').read()
cuts = [0, len(j) // 3 + 12345, 2 * len(j) // 3 + 777, len(j)]
z = b''.join(gzip.compress(j[a:b], 6) for a, b in zip(cuts, cuts[1:]))
open(d + '/multi/rank0.json.gz', 'wb').write(z)
open(d + '/pad/rank0.json.gz', 'wb').write(z + b'\0' * 300000)
open(d + '/garb/rank0.json.gz', 'wb').write(z + b'\0\0\0garbage')
c = bytearray(z)
for k in range(40):
    c[600000 + k] ^= 0x5a
open(d + '/corr/rank0.json.gz', 'wb').write(bytes(c))
print(len(z) + 3)
PY
)
rm -rf "$T/mo"
"$PERFSTUDY" build -q "$T/mm/plain" -o "$T/mo" 2>/dev/null
dump "$T/mo/perfstudy.db" | grep -v '^[0-9]*|[0-9]*|/' > "$T/mm.want"
for d in multi pad garb corr; do
	for env in PERFSTUDY_INFLATE=zlib PERFSTUDY_NO_READAHEAD=1 PERFSTUDY_READAHEAD=always; do
		rm -rf "$T/mo"
		env $env "$PERFSTUDY" build -q --jobs 2 "$T/mm/$d" -o "$T/mo" > /dev/null 2> "$T/mm.err"
		r=$?
		case $d in
		multi | pad)
			[ $r = 0 ] && ok || bad "$d ($env): exit $r: $(cat "$T/mm.err")"
			dump "$T/mo/perfstudy.db" | grep -v '^[0-9]*|[0-9]*|/' > "$T/mm.got"
			same "$T/mm.want" "$T/mm.got" "$d ($env): rows of the uncompressed trace"
			;;
		garb)
			grep -q "error: trailing garbage after gzip data at byte $garb_at\$" "$T/mm.err" && [ $r = 1 ] && ok ||
				bad "$d ($env): exit $r, want the garbage at byte $garb_at: $(cat "$T/mm.err")"
			;;
		corr)
			[ $r = 1 ] && ok || bad "$d ($env): exit $r"
			if [ "$env" = PERFSTUDY_INFLATE=zlib ]; then
				cp "$T/mm.err" "$T/mm.zlib"
				grep -q "error: corrupt gzip data near byte" "$T/mm.err" && ok || bad "$d: zlib's message: $(cat "$T/mm.err")"
			else
				same "$T/mm.zlib" "$T/mm.err" "$d ($env): messages of igzip then zlib and of zlib alone"
			fi
			;;
		esac
	done
done

# Timing lines on stderr, one per stage: read parse store index ingest analyze render chart total.
PERFSTUDY_TIMING=1 "$PERFSTUDY" build -q tests/data/small/study/run-a -o "$T/t" 2>"$T/err"
if [ "$(grep -c '^perfstudy: timing: [a-z]* [0-9.]* s$' "$T/err")" = 9 ]; then ok; else bad "timing lines: $(cat "$T/err")"; fi

finish
