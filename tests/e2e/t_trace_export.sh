#!/bin/bash
# t_trace_export.sh: the merged trace of each run, traces/<run>.trace.json.gz
# (src/report/trace_export.c). tests/e2e/trace_export_check.py reads each
# export and the raw Kineto traces it came from, without perfstudy: strict
# JSON in the trace-event format, one process per rank, every raw event the
# store keeps there with its name and duration at raw ts - offset - base,
# the ranks' collective ends together within the offsets' residual, the
# added tracks there (the exposed waits summing to collective_waits.csv,
# no two slices of one added track overlapping in part),
# a marker per finding with its text; the internal tables the tracks are
# drawn from (exposed_waits, straggler_windows) neither in data/ nor on the page. On the
# bundled h200 example (1, 2 and 4 GPUs) and on experiments/h200x4's
# planted straggler ddp-sleep (rank 3 sleeps 25 ms per step: the other ranks wait for it, so the straggler
# windows are rank 3's). Then: names with quotes, backslashes, control
# bytes and bytes that are not UTF-8 come out as valid JSON; a name over
# 16 KiB is cut (ending in "…", its length in args); a run over the
# bound is cut (same window for every rank), said on the page, and the
# build succeeds; two builds give the same bytes; a run over the size
# rule (PERFSTUDY_TRACE_EXPORT_MAX) gets no file and the page says so and
# how to have it (=0 writes it); a cut run's exposed
# waits before the cut are the uncut run's; a cut run of generated
# ranks reads (PERFSTUDY_TIMING's rows read) what it writes, not what is
# stored, and doubling its steps adds only their ProfilerStep#N ranges;
# the page links each file
# from Runs and from the cross-rank findings and fetches nothing; site_files
# lists the files; an offset within its residual moves no event (two
# ranks of one clock keep their send's and recv's ends 13 us apart); the
# allocator's allocated and reserved bytes are counters with the values
# worked out by hand, bounded with their peaks kept;
# Chromium parses one (when installed).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { skipped "python3 not installed"; finish; exit; }
CHECK=tests/e2e/trace_export_check.py

# --- the bundled h200 example ---
example_h200 "$T/h"
O="$T/h/h200"
for r in gpt2-1gpu:gpt2-124m/1gpu gpt2-2gpu-ddp:gpt2-124m/2gpu-ddp gpt2-4gpu-ddp:gpt2-124m/4gpu-ddp \
	gpt2-4gpu-zero1:gpt2-124m/4gpu-zero1 bert-2gpu-ddp:bert-base/2gpu-ddp bert-4gpu-ddp:bert-base/4gpu-ddp; do
	run=${r%%:*}
	if python3 $CHECK "$O/traces/$run.trace.json.gz" "$O/data" "$run" experiments/h200/traces/${r#*:}/rank*.pt.trace.json.gz \
		>"$T/out" 2>&1; then ok; else bad "h200 $run: $(cat "$T/out")"; fi
	cat "$T/out"
done
# every run's file, those the loop above does not check included (the ZeRO-1
# runs' straggler windows of two communicators and paths across ranks longer
# than their step overlapped): no slice of an added track overlaps another
# of its thread in part
python3 $CHECK --overlaps "$O"/traces/*.trace.json.gz >"$T/out" 2>&1 && ok || bad "h200 overlaps: $(cat "$T/out")"
cat "$T/out"
# one file per run of the manifest, each linked from Runs; cross-rank findings link theirs
n=$(ls "$O/traces" | wc -l)
[ "$n" -eq 10 ] && ok || bad "h200: $n files in traces/, want 10"
for f in "$O"/traces/*.trace.json.gz; do
	grep -q "href=\"traces/$(basename "$f")\" download" "$O/index.html" && ok || bad "h200: no link to $(basename "$f")"
done
grep -q 'gpt2-2gpu-ddp rank 1 is host-bound.*<a class="evidence trace" href="traces/gpt2-2gpu-ddp.trace.json.gz" download>merged trace</a>' \
	"$O/index.html" && ok || bad "h200: the host-bound finding of gpt2-2gpu-ddp rank 1 does not link its merged trace"
grep -q 'gpt2-4gpu-ddp trains at .*merged trace' "$O/index.html" && bad "h200: a finding of no rank links a trace" || ok
grep -q 'ui.perfetto.dev' "$O/index.html" && ok || bad "h200: the page does not say how to open the file"
grep -qiE '(href|src)="(https?:)?//' "$O/index.html" && bad "h200: the page links outside the site" || ok
grep -q '<dt><code>traces/&lt;run&gt;.trace.json.gz</code></dt>' "$O/index.html" && ok || bad "h200: no Methods entry"
# the tables the export draws from that are no CSV (table.h's internal ones) stay out of data/ and the page
for t in exposed_waits straggler_windows; do
	[ ! -e "$O/data/$t.csv" ] && ! grep -q "$t" "$O/index.html" && ok || bad "h200: internal table $t written or shown"
done
# each file one valid gzip member (header, deflate stream, CRC-32 and length
# checked by Python's gzip and again by hand), deflated by ISA-L's igzip:
# the example's larger runs (over 5 MB of JSON) no more than 95 % of what
# zlib's level 1 (the export's deflate before) makes of the same JSON
python3 - "$O"/traces/*.trace.json.gz >"$T/out" 2>&1 <<'EOF' && ok || bad "h200: gzip: $(cat "$T/out")"
import gzip, struct, sys, zlib
for f in sys.argv[1:]:
    raw = open(f, "rb").read()
    assert raw[:3] == b"\x1f\x8b\x08", "%s: not a gzip header" % f
    data = gzip.decompress(raw)  # raises on a bad CRC-32 or length
    d = zlib.decompressobj(16 + 15)
    assert d.decompress(raw) == data and d.eof and not d.unused_data, "%s: not one gzip member" % f
    crc, size = struct.unpack("<II", raw[-8:])
    assert crc == zlib.crc32(data) and size == len(data) % 2**32, "%s: trailer" % f
    if len(data) > 5 << 20:
        z = zlib.compressobj(1, zlib.DEFLATED, 16 + 15)
        zl = len(z.compress(data) + z.flush())
        assert len(raw) <= 0.95 * zl, "%s: %d bytes, zlib level 1 %d" % (f, len(raw), zl)
        print("%s: %d bytes, zlib level 1 %d" % (f.split("/")[-1], len(raw), zl))
EOF
cat "$T/out"
# site_files (the up-to-date check) lists every export with its size
python3 - "$T/h" >"$T/out" 2>&1 <<'EOF' && ok || bad "site_files: $(cat "$T/out")"
import os, sqlite3, sys
site = sys.argv[1]
rows = dict(sqlite3.connect(os.path.join(site, "perfstudy.db")).execute("SELECT path, size FROM site_files"))
for f in sorted(os.listdir(os.path.join(site, "h200", "traces"))):
    p = "h200/traces/" + f
    assert rows.get(p) == os.path.getsize(os.path.join(site, p)), p
EOF

# --- the planted straggler: experiments/h200x4 ddp-sleep (and ddp-clean) ---
E=$(unpacked experiments/h200x4/traces)
if [ -d "$E/ddp-sleep" ]; then
	{
		printf 'version: 1\nid: causes\ntitle: planted causes\nruns:\n'
		for r in ddp-clean ddp-sleep; do
			printf '  - id: %s\n    gpus: 4\n    traces: %s/%s/rank*.pt.trace.json.gz\n    inputs: %s/%s/rank0.log\n' \
				"$r" "$E" "$r" "$E" "$r"
		done
	} >"$T/causes.yaml"
	$PERFSTUDY build -q "$T/causes.yaml" -o "$T/c" 2>"$T/err" && ok || bad "causes build: $(cat "$T/err")"
	for run in ddp-clean ddp-sleep; do
		if python3 $CHECK "$T/c/causes/traces/$run.trace.json.gz" "$T/c/causes/data" "$run" "$E/$run"/rank*.pt.trace.json.gz \
			>"$T/out" 2>&1; then ok; else bad "causes $run: $(cat "$T/out")"; fi
		cat "$T/out"
	done
	python3 $CHECK --overlaps "$T"/c/causes/traces/*.trace.json.gz >"$T/out" 2>&1 && ok || bad "causes overlaps: $(cat "$T/out")"
	# rank 3's straggler windows: the most window time, and a label saying so
	python3 - "$T/c/causes/traces/ddp-sleep.trace.json.gz" >"$T/out" 2>&1 <<'EOF' && ok || bad "ddp-sleep: $(cat "$T/out")"
import gzip, json, sys
from collections import Counter
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
lanes = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"
         and e["args"]["name"].startswith("perfstudy: straggler windows")}
win = Counter()
for e in ev:
    if e["ph"] == "X" and (e["pid"], e["tid"]) in lanes:
        win[procs[e["pid"]]] += e["dur"]
top = win.most_common(1)[0][0] if win else None
assert top == "rank 3", "straggler windows by rank: %r" % win
labels = [e["args"]["labels"] for e in ev if e["ph"] == "M" and e["name"] == "process_labels" and procs[e["pid"]] == "rank 3"]
assert labels and labels[0].startswith("straggler:"), labels
print("windows (us) by rank:", dict(win))
EOF
	cat "$T/out"
else
	skipped "experiments/h200x4's traces are missing"
fi

# --- names from an input: quotes, backslashes, control bytes, bytes that are not UTF-8 ---
{
	head -5 tests/data/formats/nvprof_gpu_trace.csv
	printf '1.000001,2.5,1,,,,,"Test GPU (0)","1","7","bad\377\376 \001ctl\033[31m tab\there back\\\\slash ""q"" \342\200\250 \303\251 cut\342\202",10\n'
} >"$T/names.csv"
$PERFSTUDY build -q "$T/names.csv" -o "$T/n" 2>"$T/err" && ok || bad "names build: $(cat "$T/err")"
python3 - "$(echo "$T"/n/default/traces/names_csv_*.trace.json.gz)" >"$T/out" 2>&1 <<'EOF' && ok || bad "names: $(cat "$T/out")"
import gzip, json, sys
raw = gzip.open(sys.argv[1]).read()
assert all(b >= 0x20 or b == 0x0a for b in raw) and b"\xe2\x80\xa8" not in raw, "a control byte or U+2028 went out raw"
doc = json.loads(raw.decode("utf-8"), parse_constant=lambda c: 1 / 0)
names = [e["name"] for e in doc["traceEvents"] if e.get("cat") == "kernel"]
want = "bad\ufffd\ufffd \x01ctl\x1b[31m tab\there back\\\\slash \"q\" \u2028 \u00e9 cut\ufffd\ufffd"
assert names == [want], names
EOF

# --- a name over 16 KiB is cut, ending in "…", its length in args ---
python3 - "$T/long.json" <<'EOF'
import json, sys
name = "k" * 20000
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 90, "dur": 200},
      {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": 100, "dur": 50, "args": {"device": 0, "stream": 7}}]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
$PERFSTUDY build -q "$T/long.json" -o "$T/l" 2>"$T/err" && ok || bad "long name build: $(cat "$T/err")"
python3 - "$(echo "$T"/l/default/traces/long_json_*.trace.json.gz)" >"$T/out" 2>&1 <<'EOF' && ok || bad "long name: $(cat "$T/out")"
import gzip, json, sys
k = [e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("cat") == "kernel"]
assert len(k) == 1 and k[0]["name"] == "k" * 16384 + "\u2026" and k[0]["args"]["name_bytes"] == 20000, k[0]["args"]
EOF

# --- the bound: a run over it is cut, the same window for every rank; the build succeeds ---
mkdir -p "$T/cut"
printf 'version: 1\nid: cut\ntitle: cut\nruns:\n  - id: r\n    traces: %s/experiments/h200/traces/gpt2-124m/2gpu-ddp/rank*.pt.trace.json.gz\n' \
	"$PWD" >"$T/cut/m.yaml"
PERFSTUDY_TRACE_MAX_EVENTS=5000 $PERFSTUDY build -q "$T/cut/m.yaml" -o "$T/cut/o" 2>"$T/err" && ok ||
	bad "cut build: $(cat "$T/err")"
if python3 $CHECK "$T/cut/o/cut/traces/r.trace.json.gz" "$T/cut/o/cut/data" r \
	experiments/h200/traces/gpt2-124m/2gpu-ddp/rank*.pt.trace.json.gz >"$T/out" 2>&1; then ok; else bad "cut: $(cat "$T/out")"; fi
cat "$T/out"
python3 - "$T/cut/o/cut/traces/r.trace.json.gz" >"$T/out" 2>&1 <<'EOF' && ok || bad "cut: $(cat "$T/out")"
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1]))
n = sum(1 for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] != "perfstudy")
assert 4000 <= n <= 5000, n
assert "cut_at_us" in doc["otherData"]
EOF
grep -q 'cut: [0-9]* of the events kept' "$T/cut/o/cut/index.html" && ok || bad "cut: the page does not say the file was cut"
# the same bytes again (SOURCE_DATE_EPOCH builds are compared byte for byte)
PERFSTUDY_TRACE_MAX_EVENTS=5000 $PERFSTUDY build -q --force "$T/cut/m.yaml" -o "$T/cut/o2" 2>"$T/err"
cmp -s "$T/cut/o/cut/traces/r.trace.json.gz" "$T/cut/o2/cut/traces/r.trace.json.gz" && ok || bad "two builds wrote different exports"

# --- the size rule: a run over PERFSTUDY_TRACE_EXPORT_MAX stored events gets no file, said on the page ---
PERFSTUDY_TRACE_EXPORT_MAX=1000 $PERFSTUDY build -q "$T/cut/m.yaml" -o "$T/cut/o3" 2>"$T/err" && ok ||
	bad "size rule build: $(cat "$T/err")"
[ ! -e "$T/cut/o3/cut/traces/r.trace.json.gz" ] && ok || bad "size rule: the run over the limit was written"
grep -q '<li id="trace-r">r &middot; 2 ranks &middot; [0-9]* events &middot; not written: over 1000 events' \
	"$T/cut/o3/cut/index.html" && ok || bad "size rule: the page's line does not say the file was not written"
grep -q 'Size rule: a run with more than 1000 events.*PERFSTUDY_TRACE_EXPORT_MAX=0' "$T/cut/o3/cut/index.html" && ok ||
	bad "size rule: Methods do not say how to have the file"
! grep -q 'traces/r.trace.json.gz' "$T/cut/o3/cut/index.html" && ok || bad "size rule: the page links a file not written"
PERFSTUDY_TRACE_EXPORT_MAX=0 $PERFSTUDY build -q --force "$T/cut/m.yaml" -o "$T/cut/o4" 2>"$T/err" &&
	[ -s "$T/cut/o4/cut/traces/r.trace.json.gz" ] && ! grep -q 'Size rule' "$T/cut/o4/cut/index.html" && ok ||
	bad "size rule: PERFSTUDY_TRACE_EXPORT_MAX=0 did not write the file"

# a cut run's exposed waits before the cut are the uncut export's: the
# activities past the cut inside a wait that starts before it are still
# subtracted (bert-2gpu-ddp cut at 20,000 events has such waits)
mkdir -p "$T/cutw"
printf 'version: 1\nid: cutw\ntitle: cutw\nruns:\n  - id: bert-2gpu-ddp\n    traces: %s/experiments/h200/traces/bert-base/2gpu-ddp/rank*.pt.trace.json.gz\n' \
	"$PWD" >"$T/cutw/m.yaml"
PERFSTUDY_TRACE_MAX_EVENTS=20000 $PERFSTUDY build -q "$T/cutw/m.yaml" -o "$T/cutw/o" 2>"$T/err" && ok ||
	bad "cut waits build: $(cat "$T/err")"
python3 - "$T/cutw/o/cutw/traces/bert-2gpu-ddp.trace.json.gz" "$O/traces/bert-2gpu-ddp.trace.json.gz" >"$T/out" 2>&1 <<'EOF' && ok || bad "cut waits: $(cat "$T/out")"
import gzip, json, sys
def exposed(path):
    doc = json.load(gzip.open(path))
    lanes = {(e["pid"], e["tid"]) for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"
             and e["args"]["name"] == "perfstudy: exposed waits"}
    return doc["otherData"], sorted((e["pid"], e["ts"], e["dur"], e["name"]) for e in doc["traceEvents"]
                                    if e["ph"] == "X" and (e["pid"], e["tid"]) in lanes)
oc, cut = exposed(sys.argv[1])
ou, full = exposed(sys.argv[2])
assert "cut_at_us" in oc and "cut_at_us" not in ou
want = [e for e in full if e[1] < oc["cut_at_us"]]
assert want and cut == want, "%d exposed waits before the cut, %d in the uncut export" % (len(cut), len(want))
print("cut waits: %d exposed waits before %.3f us, as uncut" % (len(cut), oc["cut_at_us"]))
EOF
cat "$T/out"

# --- a cut run reads what it writes: the rows past the cut stay in the store ---
# make_ranks.py: 16 thin ranks of 20 and of 40 steps, cut at 400 events (25 a rank),
# each build timed (PERFSTUDY_TIMING's "trace export" line: events written, rows read).
# trace_export_check.py checks the cut files (exactly the raw events before
# cut_at_us); the rows read may exceed what is written only by the ranks'
# ProfilerStep#N ranges (a finding's marker stands at the first step): the
# exposed parts of the waits come from crossrank's exposed_waits, not from
# activities read past the cut, so doubling the steps (and the stored rows)
# adds at most those.
for s in 20 40; do
	python3 tests/data/make_ranks.py 16 "$T/rk$s/r" "$s" >/dev/null
	PERFSTUDY_TIMING=1 PERFSTUDY_TRACE_MAX_EVENTS=400 $PERFSTUDY build -q "$T/rk$s/r" -o "$T/rk$s/o" 2>"$T/rk$s/err" &&
		ok || bad "rows $s steps: build failed: $(tail -3 "$T/rk$s/err")"
	if python3 $CHECK "$T/rk$s/o/default/traces/r.trace.json.gz" "$T/rk$s/o/default/data" r "$T/rk$s/r"/rank*.json \
		>"$T/out" 2>&1; then ok; else bad "rows $s steps: $(cat "$T/out")"; fi
	cat "$T/out"
done
python3 - "$T/rk20" "$T/rk40" >"$T/out" 2>&1 <<'EOF' && ok || bad "rows read: $(cat "$T/out")"
import gzip, json, glob, os, re, sys
got = {}
for d in sys.argv[1:]:
    # raw counts, from the input files: every stored event, and the host ProfilerStep#N ranges
    stored = steps = 0
    for f in glob.glob(os.path.join(d, "r", "rank*.json")):
        for e in json.load(open(f))["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "cuda_runtime",
                                                        "cuda_driver", "user_annotation", "gpu_user_annotation", "cpu_op"):
                stored += 1
                steps += e["cat"] == "user_annotation" and re.match(r"ProfilerStep#[0-9]", e["name"]) is not None
    line = [l for l in open(os.path.join(d, "err")) if "timing: trace export r " in l]
    assert len(line) == 1, "no timing line for the export: %r" % line
    m = re.search(r"(\d+) of (\d+) events written, (\d+) rows read, (\d+) VM steps", line[0])
    written, in_store, rows, vm = map(int, m.groups())
    ev = json.load(gzip.open(os.path.join(d, "o/default/traces/r.trace.json.gz")))
    assert "cut_at_us" in ev["otherData"], "not cut"
    out = sum(1 for e in ev["traceEvents"] if e["ph"] == "X" and e["cat"] != "perfstudy")
    assert written == out, (written, out)
    assert in_store == ev["otherData"]["events_in_store"], (in_store, ev["otherData"]["events_in_store"])
    assert rows <= written + steps, "%s: %d rows read for %d written (%d steps, %d stored)" % (d, rows, written, steps, in_store)
    got[d] = (stored, rows, steps, vm)
(s1, r1, p1, v1), (s2, r2, p2, v2) = got.values()
assert s2 > 1.8 * s1, (s1, s2)
assert r2 - r1 <= p2 - p1, "doubling the stored rows (%d -> %d) read %d -> %d rows" % (s1, s2, r1, r2)
# SQLite's work: the rows before the cut and the ranks' step ranges are
# found through the index on (trace_id, start_ns), not by walking the
# ranks' rows; what still grows with the stored rows is their count (a few
# VM steps an index entry), so twice the rows cost well under twice the steps
assert v2 <= 1.7 * v1, "doubling the stored rows (%d -> %d) took %d -> %d VM steps" % (s1, s2, v1, v2)
print("rows read: %d of %d stored at 20 steps, %d of %d at 40; VM steps %d -> %d" % (r1, s1, r2, s2, v1, v2))
EOF
cat "$T/out"

# --- one host, one clock: an offset within its residual moves no event ---
# Two ranks recorded on one clock: their AllReduces start together and end
# (rank 1 - rank 0) -40, 10, 30, 40 and 50 us apart, so crossrank's offset
# (the median) is 30 us and its residual (the 90th percentile of |d - 30|)
# 70 us; in step 2 rank 0's send ends 13 us before rank 1's recv. The
# offset is within its residual: the export applies none, and the two ends
# stay 13 us apart (moved by the 30 us, they were 17 us apart the other way).
python3 - "$T/host" <<'EOF'
import json, os, sys
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
ends = [-40, 10, 30, 40, 50]
for r in range(2):
    ev, t = [], 1000
    for s, e in enumerate(ends):
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 1, "tid": 1, "ts": t, "dur": 1000})
        kerns = [("gemm", t + 10, 500, 7, {}),
                 ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", t + 600, 200 + (e if r else 0), 9,
                  {"Collective name": "allreduce", "In msg nelems": 1048576, "Out msg nelems": 1048576, "dtype": "Float",
                   "Group size": 2, "Process Group Name": "0", "Seq": s})]
        if s == 2:
            kerns.append(("ncclDevKernel_SendRecv", t + 850, 63 if r else 50, 11,
                          {"Collective name": "recv" if r else "send", "In msg nelems": 1024, "Out msg nelems": 1024,
                           "dtype": "Float", "Group size": 2, "Process Group Name": "0"}))
        for k, (name, ts, dur, stream, extra) in enumerate(kerns):
            c = s * 10 + k
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": ts - 5, "dur": 4,
                       "args": {"correlation": c}})
            ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": stream, "ts": ts, "dur": dur,
                       "args": dict({"device": r, "stream": stream, "correlation": c}, **extra)})
        t += 1100
    json.dump({"distributedInfo": {"rank": r, "world_size": 2, "backend": "nccl"}, "traceEvents": ev},
              open("%s/rank%d.json" % (d, r), "w"))
EOF
$PERFSTUDY build -q "$T/host" -o "$T/ho" 2>"$T/err" && ok || bad "one host build: $(cat "$T/err")"
if python3 $CHECK "$T/ho/default/traces/host.trace.json.gz" "$T/ho/default/data" host "$T/host"/rank*.json \
	>"$T/out" 2>&1; then ok; else bad "one host: $(cat "$T/out")"; fi
python3 - "$T/ho/default/traces/host.trace.json.gz" "$T/ho/default/data/clock_offsets.csv" >"$T/out" 2>&1 <<'EOF' && ok || bad "one host: $(cat "$T/out")"
import csv, gzip, json, sys
from decimal import Decimal
row = [r for r in csv.DictReader(open(sys.argv[2])) if r["rank"] == "1"][0]
off, resid = Decimal(row["offset_us"]), Decimal(row["residual_us"])
assert off == 30 and resid == 70, "crossrank's estimate changed (%s us, residual %s us): the test's premise" % (off, resid)
doc = json.loads(gzip.open(sys.argv[1]).read(), parse_float=Decimal)
assert doc["otherData"]["clock_offsets_ns"] == {"0": 0, "1": 0}, doc["otherData"]["clock_offsets_ns"]
procs = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
end = {procs[e["pid"]]: e["ts"] + e["dur"] for e in doc["traceEvents"] if e.get("name") == "ncclDevKernel_SendRecv"}
gap = end["rank 1"] - end["rank 0"]
assert gap == Decimal("13.000"), "send and recv ends %s us apart in the export, 13 in the raw traces" % gap
print("one host: offset %s us within residual %s us not applied; send/recv ends 13 us apart as raw" % (off, resid))
EOF
cat "$T/out"

# --- the allocator's memory as counters per rank ---
# A rank whose allocator events (GPU 0) allocate 1000 and 3000 bytes, free
# the 1000, allocate 5000 while the reserved grows to 4 MiB, and free the
# 5000, one event every 100 us from 100 us past the step's start (a host
# allocation between them is not the GPU's): allocated 1000, 4000, 3000,
# 8000, 3000 bytes, reserved 2, 2, 2, 4, 4 MiB, worked out by hand. Then
# 1000 changes under a bound of 100 events: at most 100 written, the peak
# among them, said in a label.
python3 - "$T/mem" <<'EOF'
import json, os, sys
d = sys.argv[1]
os.makedirs(d + "/a", exist_ok=True)
os.makedirs(d + "/b", exist_ok=True)
MiB = 1 << 20
def trace(path, mem):
    ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#0", "pid": 1, "tid": 1, "ts": 1000, "dur": 100000},
          {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1010, "dur": 4, "args": {"correlation": 1}},
          {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1020, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 1}}]
    for ts, dev_type, addr, b, alloc, res in mem:
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                   "args": {"Addr": addr, "Bytes": b, "Total Allocated": alloc, "Total Reserved": res,
                            "Device Id": 0 if dev_type else -1, "Device Type": dev_type}})
    json.dump({"traceEvents": ev}, open(path, "w"))
trace(d + "/a/mem.json", [(1100, 1, 1, 1000, 1000, 2 * MiB), (1200, 1, 2, 3000, 4000, 2 * MiB),
                          (1250, 0, 9, 777, 777, 0), (1300, 1, 1, -1000, 3000, 2 * MiB),
                          (1400, 1, 3, 5000, 8000, 4 * MiB), (1500, 1, 3, -5000, 3000, 4 * MiB)])
mem, tot = [], 0
for i in range(1000):
    b = (i * 37 % 101 + 1) * 1000 if i % 2 == 0 else -mem[-1][3]
    tot += b
    mem.append((2000 + i * 10, 1, 10 + i // 2, b, tot, 64 * MiB))
trace(d + "/b/many.json", mem)
EOF
$PERFSTUDY build -q "$T/mem/a/mem.json" -o "$T/mem/oa" 2>"$T/err" && ok || bad "memory build: $(cat "$T/err")"
python3 - "$(echo "$T"/mem/oa/default/traces/mem_json*.trace.json.gz)" >"$T/out" 2>&1 <<'EOF' && ok || bad "memory counters: $(cat "$T/out")"
import gzip, json, sys
from decimal import Decimal
MiB = 1 << 20
doc = json.loads(gzip.open(sys.argv[1]).read(), parse_float=Decimal)
procs = {e["pid"]: e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
c = [(procs[e["pid"]], e["name"], e["ts"], e["args"]) for e in doc["traceEvents"] if e["ph"] == "C"]
want = [("rank 0", "memory: GPU 0", Decimal(t), {"allocated_bytes": a, "reserved_bytes": r})
        for t, a, r in [("100.000", 1000, 2 * MiB), ("200.000", 4000, 2 * MiB), ("300.000", 3000, 2 * MiB),
                        ("400.000", 8000, 4 * MiB), ("500.000", 3000, 4 * MiB)]]
assert c == want, "counters %r, want %r" % (c, want)
EOF
PERFSTUDY_TRACE_MAX_EVENTS=100 $PERFSTUDY build -q "$T/mem/b/many.json" -o "$T/mem/ob" 2>"$T/err" && ok ||
	bad "memory bound build: $(cat "$T/err")"
# and against the raw allocator events, by trace_export_check.py (every change; bounded: a subset with the peak)
for m in oa:a/mem.json ob:b/many.json; do
	o=${m%%:*} raw=${m#*:}
	if python3 $CHECK "$(echo "$T"/mem/$o/default/traces/*.trace.json.gz)" "$T/mem/$o/default/data" "${raw#*/}" "$T/mem/$raw" \
		>"$T/out" 2>&1; then ok; else bad "memory $raw: $(cat "$T/out")"; fi
done
python3 - "$(echo "$T"/mem/ob/default/traces/many_json*.trace.json.gz)" >"$T/out" 2>&1 <<'EOF' && ok || bad "memory bound: $(cat "$T/out")"
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
c = [e["args"]["allocated_bytes"] for e in ev if e["ph"] == "C"]
peak = max((i * 37 % 101 + 1) * 1000 for i in range(0, 1000, 2))
assert 50 <= len(c) <= 100 and max(c) == peak and min(c) == 0, (len(c), max(c), peak, min(c))
labels = [e["args"]["labels"] for e in ev if e["ph"] == "M" and e["name"] == "process_labels"]
assert any(l.startswith("memory counters: %d of 1000 changes written" % len(c)) for l in labels), labels
print("memory bound: %d of 1000 changes written, peak %d kept" % (len(c), peak))
EOF
cat "$T/out"

# --- Chromium's own JSON parser reads one (chrome://tracing cannot be driven headless) ---
browser=""
for b in ${CHROMIUM:-} chromium chromium-browser google-chrome; do command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }; done
if [ -n "$browser" ]; then
	cp "$O/traces/gpt2-2gpu-ddp.trace.json.gz" "$T/x.json.gz"
	cat >"$T/x.html" <<'EOF'
<!DOCTYPE html><html><body><p id="r">pending</p><script>
fetch("x.json.gz").then(r => new Response(r.body.pipeThrough(new DecompressionStream("gzip"))).text())
  .then(t => { const d = JSON.parse(t); const p = new Set(d.traceEvents.filter(e => e.ph == "M" && e.name == "process_name").map(e => e.args.name));
    document.getElementById("r").textContent = "parsed " + d.traceEvents.length + " events, processes " + [...p].sort().join("|"); })
  .catch(e => { document.getElementById("r").textContent = "error " + e; });
</script></body></html>
EOF
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --allow-file-access-from-files --virtual-time-budget=20000 \
		--dump-dom "file://$T/x.html" >"$T/dom" 2>/dev/null
	grep -q 'parsed [0-9]* events, processes perfstudy analysis|rank 0|rank 1' "$T/dom" && ok ||
		bad "Chromium did not parse the export: $(grep -o '<p id="r">[^<]*' "$T/dom")"
else
	skipped "Chromium not installed"
fi
finish
