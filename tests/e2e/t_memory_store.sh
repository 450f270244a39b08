#!/bin/bash
# t_memory_store.sh: the caching allocator's events stored compactly
# (issue #55 item 4; store/memevents.c). A generated one-rank trace with
# 30,000 "[memory]" events (tests/data/memory_big/gen.py: 47-bit addresses,
# epoch microsecond times, running totals, some out of time order) is built
# with and without them: the store grows by under 25 bytes an event (the
# varint encoding takes about 12-16: head 1, tid 2, time 2-3, bytes 2-4,
# address 4-5, totals 1-2; one SQLite row an event took about 50), and
# memory_steps.csv still counts, per step, every GPU event an independent
# count over the raw JSON puts in it. Then the same trace again beside a
# copy of it in the same output directory: the first is reused from the
# previous store (the build cache copies memory_events rows, keyed without
# a rowid) and gives the same memory_steps.csv rows as before.
. "$(dirname "$0")/lib.sh"

N=30000
python3 tests/data/memory_big/gen.py "$T/mem.json" $N || bad "gen.py"
python3 tests/data/memory_big/gen.py "$T/bare.json" $N --no-memory || bad "gen.py --no-memory"
$PERFSTUDY build -q "$T/mem.json" -o "$T/m" 2>"$T/err" && ok || bad "build: $(cat "$T/err")"
cp "$T/m/default/data/memory_steps.csv" "$T/first.csv"
$PERFSTUDY build -q "$T/bare.json" -o "$T/b" 2>"$T/err" && ok || bad "build without events: $(cat "$T/err")"
python3 - "$T/mem.json" "$T/m/perfstudy.db" "$T/b/perfstudy.db" "$T/m/default/data/memory_steps.csv" <<'PY' && ok || bad "memory store"
import csv, json, os, sys
doc = json.load(open(sys.argv[1]))
steps = {e["name"]: (e["ts"], e["ts"] + e["dur"]) for e in doc["traceEvents"]
         if e.get("name", "").startswith("ProfilerStep#")}
mem = [e for e in doc["traceEvents"] if e.get("name") == "[memory]"]
gpu = [e for e in mem if e["args"]["Device Type"] == 1]
grow = os.path.getsize(sys.argv[2]) - os.path.getsize(sys.argv[3])
per = grow / len(mem)
print("store: %d bytes more for %d events (%d of a GPU): %.1f bytes an event" % (grow, len(mem), len(gpu), per))
assert per < 25, "%.1f bytes an allocator event, want under 25" % per
rows = list(csv.DictReader(open(sys.argv[4])))
assert len(rows) == len(steps), (len(rows), len(steps))
for r in rows:
    # ts_ns are whole nanoseconds of the microsecond times; a step's range is its host range
    a, b = steps["ProfilerStep#" + r["step"]]
    want = sum(1 for e in gpu if round(a * 1000) <= round(e["ts"] * 1000) < round(b * 1000))
    assert int(r["events"]) == want, (r["step"], r["events"], want)
PY
cp "$T/mem.json" "$T/mem2.json"
$PERFSTUDY build -q "$T/mem.json" "$T/mem2.json" -o "$T/m" 2>"$T/err" && ok || bad "build again: $(cat "$T/err")"
for f in mem.json mem2.json; do
	[ "$(grep "^$f," "$T/m/default/data/memory_steps.csv" | cut -d, -f2-)" = "$(grep "^mem.json," "$T/first.csv" | cut -d, -f2-)" ] &&
		ok || bad "memory_steps.csv of $f after the cache's copy"
done
finish
