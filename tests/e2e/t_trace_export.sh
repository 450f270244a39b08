#!/bin/bash
# t_trace_export.sh: the merged trace of each run, traces/<run>.trace.json.gz
# (src/report/trace_export.c). tests/e2e/trace_export_check.py reads each
# export and the raw Kineto traces it came from, without perfstudy: strict
# JSON in the trace-event format, one process per rank, every raw event the
# store keeps there with its name and duration at raw ts - offset - base,
# the ranks' collective ends together within the offsets' residual, the
# added tracks there (the exposed waits summing to collective_waits.csv),
# a marker per finding with its text. On the bundled h200 example (1, 2
# and 4 GPUs) and on experiments/h200x4's planted straggler ddp-sleep (rank
# 3 sleeps 25 ms per step: the other ranks wait for it, so the straggler
# windows are rank 3's). Then: names with quotes, backslashes, control
# bytes and bytes that are not UTF-8 come out as valid JSON; a name over
# 16 KiB is cut (ending in "…", its length in args); a run over the
# bound is cut (same window for every rank), said on the page, and the
# build succeeds; two builds give the same bytes; the page links each file
# from Runs and from the cross-rank findings and fetches nothing; site_files
# lists the files; Chromium parses one (when installed).
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
	# rank 3's straggler windows: the most window time, and a label saying so
	python3 - "$T/c/causes/traces/ddp-sleep.trace.json.gz" >"$T/out" 2>&1 <<'EOF' && ok || bad "ddp-sleep: $(cat "$T/out")"
import gzip, json, sys
from collections import Counter
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
lanes = {(e["pid"], e["tid"]) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"
         and e["args"]["name"] == "perfstudy: straggler windows"}
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
