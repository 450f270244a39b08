#!/bin/bash
# t_loss.sh: a build never loses data (issue #30). An output that is one of
# its own inputs, an output directory holding inputs, two builds into one
# directory at once, and shards with forged contents are refused with the
# documented exit code and a message naming the input and place, before
# anything is written: the previous output stays as it was and no temporary
# file or directory is left behind.
source "$(dirname "$0")/lib.sh"
export SOURCE_DATE_EPOCH=1700000000
abs=$(pwd)

# fails NAME CODE MESSAGE CMD...: CMD exits CODE and says MESSAGE on stderr.
fails() {
	local name=$1 code=$2 msg=$3 rc=0
	shift 3
	"$@" > /dev/null 2> "$T/err" || rc=$?
	if [ $rc -ne "$code" ]; then
		bad "$name: exit $rc, expected $code: $(head -c 600 "$T/err")"
	elif ! grep -qF -- "$msg" "$T/err"; then
		bad "$name: expected '$msg', got: $(head -c 600 "$T/err")"
	else
		ok
	fi
}
# no_temp DIR NAME: nothing named *.tmp.* was left in DIR.
no_temp() {
	if ls "$1" | grep -q '\.tmp\.'; then bad "$2: temporary left: $(ls "$1" | grep '\.tmp\.')"; else ok; fi
}

# 1. ingest -o INPUT: the output file is an input (the same file, by
# another name, or a hard link); refused, the input untouched.
C=$T/c1
mkdir -p "$C/sub"
cp tests/data/small/study/run-a/rank0.json "$C/t.json"
printf 'title: own output\nruns:\n  - id: a\n    traces: t.json\n' > "$C/study.yaml"
cp "$C/t.json" "$C/t.orig"
cp "$C/study.yaml" "$C/study.orig"
ln "$C/t.json" "$C/hard.json"
fails "ingest -o the trace" 1 "t.json: error: the output is also an input ($C/t.json)" \
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$C/t.json" "$C/t.json"
fails "ingest -o the trace by another path" 1 "error: the output is also an input ($C/t.json)" \
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$C/sub/../t.json" "$C/t.json"
fails "ingest -o a hard link of the trace" 1 "hard.json: error: the output is also an input ($C/t.json)" \
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$C/hard.json" "$C/t.json"
fails "ingest -o the manifest" 1 "study.yaml: error: the output is also an input ($C/study.yaml)" \
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$C/study.yaml" "$C/study.yaml"
fails "ingest -o a trace the manifest names" 1 "t.json: error: the output is also an input ($C/t.json)" \
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$C/t.json" "$C/study.yaml"
(cd "$C" && "$abs/$PERFSTUDY" ingest -q --shard 0/1 -o ./t.json t.json 2> "$T/err") && bad "ingest -o ./t.json t.json succeeded" || ok
cmp -s "$C/t.json" "$C/t.orig" && ok || bad "ingest -o its input: the trace was overwritten"
cmp -s "$C/study.yaml" "$C/study.orig" && ok || bad "ingest -o its input: the manifest was overwritten"
no_temp "$C" "ingest -o its input"
"$PERFSTUDY" ingest -q --shard 0/1 -o "$C/s.db" "$C/study.yaml" && ok || bad "ingest to another file failed"

# 2. build INSIDE/... -o DIR: inputs inside the output directory, which
# the swap replaces whole; refused, the inputs and the old site kept.
S=$T/site
"$PERFSTUDY" build -q tests/data/small/study/run-a -o "$S" || bad "first build failed"
cp -r tests/data/small/study/run-b "$S/tr"
echo "my notes" > "$S/notes.txt"
printf 'title: inside\nruns:\n  - id: a\n    traces: site/tr/b.json\n' > "$T/inside.yaml"
cp -r "$S" "$T/site.before"
fails "build a directory inside -o" 1 "$S/tr: error: input is inside the output directory $S" \
	"$PERFSTUDY" build -q "$S/tr" -o "$S"
mkdir -p "$S/m" && cp tests/data/small/study/run-b/b.json "$S/m/" &&
	printf 'title: stored\nruns:\n  - id: a\n    traces: b.json\n' > "$S/m/study.yaml"
cp -r "$S/m" "$T/site.before/m"
fails "build a manifest stored in -o" 1 "$S/m/study.yaml: error: input is inside the output directory $S" \
	"$PERFSTUDY" build -q "$S/m/study.yaml" -o "$S"
fails "build a trace a manifest names inside -o" 1 "$S/tr/b.json: error: input is inside the output directory $S" \
	"$PERFSTUDY" build -q "$T/inside.yaml" -o "$S/"
diff -r "$T/site.before" "$S" > /dev/null && ok || bad "build -o a directory holding inputs: the directory changed"
no_temp "$T" "build -o a directory holding inputs"

# 3. Two builds into one directory: the second fails at once, naming the
# directory, while the first holds DIR.lock; the lock never enters the site
# and dies with its holder, even a SIGKILLed one; a build removes it when done.
O=$T/out
"$PERFSTUDY" build -q tests/data/small/study/run-a -o "$O" || bad "build before the lock failed"
cp -r "$O" "$T/out.before"
flock -o "$O.lock" sleep 20 &
holder=$!
for _ in $(seq 50); do flock -n "$O.lock" true 2> /dev/null || break; sleep 0.1; done
fails "a second build into a locked directory" 1 "$O: error: another perfstudy build is writing this output directory" \
	"$PERFSTUDY" build -q --force tests/data/small/study/run-b -o "$O"
fails "a merge into a locked directory" 1 "$O: error: another perfstudy build is writing this output directory" \
	"$PERFSTUDY" merge -q "$C/s.db" "$C/study.yaml" -o "$O"
grep -qF "not waiting" "$T/err" && ok || bad "the lock message should say the build does not wait: $(cat "$T/err")"
kill "$holder"
wait "$holder" 2> /dev/null
diff -r "$T/out.before" "$O" > /dev/null && ok || bad "a build into a locked directory changed it"
no_temp "$T" "a build into a locked directory"
# A real build holds the lock: a second one started while it runs fails.
PERFSTUDY_READAHEAD=never "$PERFSTUDY" build -q --force --jobs 1 experiments/h200/study.yaml -o "$O" 2> "$T/first.err" &
first=$!
for _ in $(seq 200); do ls "$T" | grep -q '^out\.tmp\.' && break; sleep 0.05; done
fails "a build while another runs" 1 "$O: error: another perfstudy build is writing this output directory" \
	"$PERFSTUDY" build -q --force tests/data/small/study/run-b -o "$O"
wait "$first" && ok || bad "the first build failed: $(cat "$T/first.err")"
[ -f "$O/h200-bert/index.html" ] || [ "$(ls "$O" | grep -c .)" -gt 3 ] && ok || bad "the first build's site is missing"
# SIGKILL of the holder leaves no lock that blocks the next build.
"$PERFSTUDY" build -q --force --jobs 1 experiments/h200/study.yaml -o "$O" &
victim=$!
for _ in $(seq 200); do ls "$T" | grep -q '^out\.tmp\.' && break; sleep 0.05; done
kill -KILL "$victim"
wait "$victim" 2> /dev/null
"$PERFSTUDY" build -q --force tests/data/small/study/run-b -o "$O" 2> "$T/err" && ok || bad "build after a SIGKILLed holder: $(cat "$T/err")"
[ -z "$(find "$O" -name '*.lock')" ] && ok || bad "a lock file inside the site: $(find "$O" -name '*.lock')"
[ ! -e "$O.lock" ] && ok || bad "the lock file is left beside the site after a build"
no_temp "$T" "build after a SIGKILLed holder"

# 4. merge of a damaged or forged shard: a NULL trace path, a negative
# duration, a kind no reader produces. Each is refused with exit 1, naming
# the shard, its table and row; the trace is not blamed, the old site kept.
F=$T/c4
mkdir -p "$F"
cp tests/data/small/study/run-a/rank0.json "$F/t.json"
"$PERFSTUDY" ingest -q --shard 0/1 -o "$F/good.db" "$F/t.json" || bad "ingest of the shard to forge failed"
"$PERFSTUDY" merge -q "$F/good.db" "$F/t.json" -o "$F/site" || bad "merge of a good shard failed"
cp -r "$F/site" "$F/site.before"
# forge SHARD FIELD VALUE: the first GPU activity record (tag 1) of every
# batch gets kind (int32 at 0) or dur_ns (int64 at 24) = VALUE.
forge() {
	cp "$F/good.db" "$1"
	python3 - "$1" "$2" "$3" << 'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
field, value = sys.argv[2], int(sys.argv[3])
for rowid, data in db.execute("SELECT rowid, data FROM shard_batches").fetchall():
    b = bytearray(data)
    at = 0
    while at + 8 <= len(b):
        tag, n = struct.unpack_from("<II", b, at)
        if tag == 1:
            if field == "kind":
                struct.pack_into("<i", b, at + 8, value)
            else:
                struct.pack_into("<q", b, at + 8 + 24, value)
            break
        at += 8 + n
    db.execute("UPDATE shard_batches SET data = ? WHERE rowid = ?", (bytes(b), rowid))
db.commit()
PY
}
forge "$F/neg.db" dur -5000
fails "merge of a shard with a negative duration" 1 \
	"neg.db: error: table shard_batches, rows of position 0 (trace '$F/t.json'), event " \
	"$PERFSTUDY" merge -q "$F/neg.db" "$F/t.json" -o "$F/site"
grep -qF "has a negative duration in ns (-5000)" "$T/err" && ok || bad "negative duration: $(cat "$T/err")"
grep -q "^$F/t.json: error" "$T/err" && bad "negative duration blamed on the trace: $(cat "$T/err")" || ok
forge "$F/kind.db" kind 9
fails "merge of a shard with a bad kind" 1 \
	"kind.db: error: table shard_batches, rows of position 0 (trace '$F/t.json'), event " \
	"$PERFSTUDY" merge -q "$F/kind.db" "$F/t.json" -o "$F/site"
grep -qF "has no valid kind (9)" "$T/err" && ok || bad "bad kind: $(cat "$T/err")"
cp "$F/good.db" "$F/null.db"
sqlite3 "$F/null.db" "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'path TEXT NOT NULL', 'path TEXT') WHERE name = 'shard_traces'" &&
	sqlite3 "$F/null.db" "UPDATE shard_traces SET path = NULL" || bad "could not forge a NULL path"
fails "merge of a shard with a NULL path" 1 \
	"null.db: error: table shard_traces, row position 0: path is not text, expected '$F/t.json'" \
	"$PERFSTUDY" merge -q "$F/null.db" "$F/t.json" -o "$F/site"
# A shard stored in the output directory is an input too.
cp "$F/good.db" "$F/site/good.db"
cp "$F/good.db" "$F/site.before/good.db"
fails "merge of a shard stored in -o" 1 "$F/site/good.db: error: input is inside the output directory $F/site" \
	"$PERFSTUDY" merge -q "$F/site/good.db" "$F/t.json" -o "$F/site"
diff -r "$F/site.before" "$F/site" > /dev/null && ok || bad "merge of a forged shard changed the output"
no_temp "$F" "merge of a forged shard"

# --- Round 3 (issue 43): what a build may delete, what makes a site stale ---
S=tests/data/small/study/run-a

# 5. The stale-output sweep removes only what perfstudy marked as its own
# (util/fs.h's .perfstudy-partial naming the directory) and empty
# directories: a user's site.old.2024/ and site.tmp.77777/ (numbers of no
# running process) stay, whole.
mkdir -p "$T/r3/site.old.2024" "$T/r3/site.tmp.77777" "$T/r3/site.tmp.999997"
echo thesis > "$T/r3/site.old.2024/thesis.txt"
echo notes > "$T/r3/site.tmp.77777/notes.txt"
# A marked directory copied under another name is not the one its mark names.
mkdir -p "$T/r3/site.tmp.999996"
printf 'perfstudy partial output: site.tmp.999995\n' > "$T/r3/site.tmp.999996/.perfstudy-partial"
# A killed build's leftover, marked as perfstudy marks it: removed.
mkdir -p "$T/r3/site.tmp.999994/data"
printf 'perfstudy partial output: site.tmp.999994\n' > "$T/r3/site.tmp.999994/.perfstudy-partial"
$PERFSTUDY build $S -o "$T/r3/site" > /dev/null 2> "$T/err" && ok || bad "sweep: build failed: $(cat "$T/err")"
[ "$(cat "$T/r3/site.old.2024/thesis.txt" 2>/dev/null)" = thesis ] && ok || bad "sweep: the user's site.old.2024 was removed"
[ "$(cat "$T/r3/site.tmp.77777/notes.txt" 2>/dev/null)" = notes ] && ok || bad "sweep: the user's site.tmp.77777 was removed"
[ -e "$T/r3/site.tmp.999996/.perfstudy-partial" ] && ok || bad "sweep: a mark naming another directory was taken for this one's"
[ ! -e "$T/r3/site.tmp.999997" ] && ok || bad "sweep: an empty leftover was kept"
[ ! -e "$T/r3/site.tmp.999994" ] && ok || bad "sweep: a marked leftover was kept"
grep -q "removing $T/r3/site.tmp.999994, left by a build that was killed" "$T/err" && ok || bad "sweep: message: $(cat "$T/err")"
grep -q "site.old.2024\|site.tmp.77777" "$T/err" && bad "sweep: spoke of the user's directories: $(cat "$T/err")" || ok
[ ! -e "$T/r3/site/.perfstudy-partial" ] && ok || bad "sweep: the finished site keeps the partial mark"
ls -a "$T/r3/site" | grep -q perfstudy-partial && bad "the site holds a partial mark" || ok

# 6. ingest -o FILE replaces only a shard, and says so before reading:
# a user's thesis.db and notes.txt stay; -o onto a directory fails at once.
mkdir -p "$T/r3i"
echo 'my thesis' > "$T/r3/thesis.db"
echo 'my notes' > "$T/r3/notes.txt"
fails "ingest -o thesis.db" 1 "exists and is not a perfstudy shard database" \
	$PERFSTUDY ingest -q --shard 0/1 -o "$T/r3/thesis.db" $S
fails "ingest -o notes.txt" 1 "exists and is not a perfstudy shard database" \
	$PERFSTUDY ingest -q --shard 0/1 -o "$T/r3/notes.txt" $S
[ "$(cat "$T/r3/thesis.db")" = 'my thesis' ] && [ "$(cat "$T/r3/notes.txt")" = 'my notes' ] && ok ||
	bad "ingest -o replaced a user's file"
grep -q "reading" "$T/err" && bad "ingest -o notes.txt read before refusing: $(cat "$T/err")" || ok
mkdir -p "$T/r3/adir"
fails "ingest -o DIR" 1 "the output is a directory" $PERFSTUDY ingest --shard 0/1 -o "$T/r3/adir" $S
grep -q "reading" "$T/err" && bad "ingest -o DIR read before refusing: $(cat "$T/err")" || ok
# A shard is replaced, as before.
$PERFSTUDY ingest -q --shard 0/1 -o "$T/r3i/s.db" $S 2> "$T/err" &&
	$PERFSTUDY ingest -q --shard 0/1 -o "$T/r3i/s.db" $S 2> "$T/err" && ok || bad "ingest over a shard: $(cat "$T/err")"
no_temp "$T/r3i" "ingest -o refusals"

# 7. A lock file that is not perfstudy's is neither used nor removed:
# build -o flake beside a user's flake.lock.
printf '{"nodes": {}}\n' > "$T/r3/flake.lock"
fails "build -o flake" 1 "exists and is not a perfstudy lock file" $PERFSTUDY build -q $S -o "$T/r3/flake"
[ "$(cat "$T/r3/flake.lock")" = '{"nodes": {}}' ] && ok || bad "build -o flake removed or changed flake.lock"
[ ! -e "$T/r3/flake" ] && ok || bad "build -o flake wrote the output beside a foreign lock"
printf 'x\n' > "$T/r3/s2.db.lock"
fails "ingest -o s2.db" 1 "exists and is not a perfstudy lock file" $PERFSTUDY ingest -q --shard 0/1 -o "$T/r3/s2.db" $S
# An empty one (being made, or an older perfstudy's) and one perfstudy wrote (left by SIGKILL) are perfstudy's.
: > "$T/r3/e.lock"
$PERFSTUDY build -q $S -o "$T/r3/e" 2> "$T/err" && [ ! -e "$T/r3/e.lock" ] && ok || bad "empty lock: $(cat "$T/err")"
printf 'perfstudy lock: a build or ingest is writing the output beside this file\n' > "$T/r3/k.lock"
$PERFSTUDY build -q $S -o "$T/r3/k" 2> "$T/err" && [ ! -e "$T/r3/k.lock" ] && ok || bad "left lock: $(cat "$T/err")"

# 8. Every file a build reads is in its fingerprint: rewriting a trace, a
# run's training log (inputs:), hardware.nvidia_smi or hardware.topology
# rebuilds the site; an untouched study stays up to date.
W=$T/r3/fp
mkdir -p "$W"
cp tests/data/history/d1.json "$W/a.json"
for i in $(seq 1 20); do
	printf ' iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): 100.0 | throughput per GPU (TFLOP/s/GPU): 1.0 | learning rate: 1.000000E-04 | global batch size: %5d | lm loss: 1.000000E+01 | loss scale: 1.0 | number of skipped iterations:   0 | number of nan iterations:   0 |\n' \
		"$i" 20 $((i * 8)) 8
done > "$W/a.log"
cp experiments/h200/nvidia-smi-q.xml "$W/smi.xml"
cp experiments/h200/nvidia-smi-topo.txt "$W/topo.txt"
cat > "$W/study.yaml" <<'YAML'
version: 1
id: fp
title: Fingerprint
hardware:
  nvidia_smi: smi.xml
  topology: topo.txt
runs:
  - id: one
    batch: 8
    traces: [a.json]
    inputs: [a.log]
YAML
$PERFSTUDY build "$W/study.yaml" -o "$W/site" > /dev/null 2> "$T/err" && ok || bad "fingerprint: first build: $(cat "$T/err")"
$PERFSTUDY build "$W/study.yaml" -o "$W/site" > /dev/null 2> "$T/err"
grep -q "is up to date" "$T/err" && ok || bad "fingerprint: an untouched study was rebuilt: $(cat "$T/err")"
# rewrite FILE: the same bytes but one, and a new modification time.
for f in a.json a.log smi.xml topo.txt; do
	case $f in
	a.log) sed -i 's/(ms): 100.0/(ms): 2000.0/' "$W/$f" ;;
	*) printf '\n' >> "$W/$f" ;;
	esac
	touch -d '+1 minute' "$W/$f"
	$PERFSTUDY build "$W/study.yaml" -o "$W/site" > /dev/null 2> "$T/err"
	grep -q "is up to date" "$T/err" && bad "fingerprint: $f rewritten, yet 'up to date'" || ok
	grep -q "wrote $W/site/index.html" "$T/err" && ok || bad "fingerprint: $f rewritten, no rebuild: $(cat "$T/err")"
done
# The 20x slower log reaches the page's numbers.
grep -q '^one,' "$W/site/fp/data/profiler_overhead.csv" && grep -q '2000000.000' "$W/site/fp/data/profiler_overhead.csv" && ok ||
	bad "fingerprint: the rewritten log's 2000 ms are not in profiler_overhead.csv: $(cat "$W/site/fp/data/profiler_overhead.csv")"

# 9. perfstudy diff escapes every path and name it prints: a trace moved
# into a folder named with a newline, a forged tally and an escape sequence
# stays on its line ('inputs moved', the new folder escaped).
W=$T/r3/esc
mkdir -p "$W/d"
cp tests/data/history/d1.json "$W/d/a.json"
printf 'version: 1\nid: x\ntitle: X\nruns:\n  - id: r\n    traces: ["*/*.json"]\n' > "$W/study.yaml"
$PERFSTUDY build -q "$W/study.yaml" -o "$W/o" 2> "$T/err" && cp -r "$W/o" "$W/o1" && ok || bad "escape: build 1: $(cat "$T/err")"
rm -r "$W/d"
mkdir -p "$W/$(printf 'b\nperfstudy diff: 0 changes, 0 regressions\033[1A')"
cp tests/data/history/d1.json "$W/$(printf 'b\nperfstudy diff: 0 changes, 0 regressions\033[1A')/a.json"
$PERFSTUDY build -q "$W/study.yaml" -o "$W/o" 2> "$T/err" && ok || bad "escape: build 2: $(cat "$T/err")"
$PERFSTUDY diff "$W/o1" "$W/o" > "$T/diffout" 2> "$T/err"
[ -s "$T/diffout" ] || echo "escape: diff said nothing: $(cat "$T/err")" >&2
[ "$(grep -c '^perfstudy diff: ' "$T/diffout")" = 1 ] && grep -q '^perfstudy diff: 1 change, 0 regressions$' "$T/diffout" && ok ||
	bad "escape: a path forged a tally line: $(cat -A "$T/diffout")"
grep -q "$(printf '\033')" "$T/diffout" && bad "escape: an escape byte reached the output" || ok
grep -qF 'inputs moved: '"$W"'/d -> '"$W"'/b\nperfstudy diff: 0 changes, 0 regressions\x1b[1A (1 input, ' "$T/diffout" && ok ||
	bad "escape: the path is not shown escaped: $(cat -A "$T/diffout")"

# 10. Past a file size limit (ulimit -f) a build fails with exit 3 naming
# the file it could not write, and leaves neither DIR.tmp.<pid> nor
# DIR.lock (SIGXFSZ used to kill it with both left behind).
W=$T/r3/fsize
mkdir -p "$W"
rc=0
(ulimit -f 2000; exec $PERFSTUDY build -q experiments/h200/study.yaml -o "$W/site") 2> "$T/err" || rc=$?
[ $rc -eq 3 ] && ok || bad "ulimit -f: exit $rc, expected 3: $(head -c 400 "$T/err")"
grep -q "$W/site.tmp.[0-9]*/.*: error: " "$T/err" && ok || bad "ulimit -f: the file is not named: $(head -c 400 "$T/err")"
[ -z "$(ls -A "$W")" ] && ok || bad "ulimit -f: left behind: $(ls -A "$W")"

# 11. ingest killed with SIGKILL (no handler runs) leaves OUT.tmp.<pid>; the
# next ingest into OUT removes it, as its header says it is perfstudy's
# shard (application_id 'pfsh') and <pid> is gone, and says so; a user's
# OUT.tmp.<digits> of anything else stays.
W=$T/r3/kill
mkdir -p "$W"
H=experiments/h200/traces/bert-base/4gpu-zero1
$PERFSTUDY ingest -q --shard 0/1 -o "$W/s.db" $H/rank*.pt.trace.json.gz &
pid=$!
for i in $(seq 100); do [ -e "$W/s.db.tmp.$pid" ] && break; sleep 0.05; done
sleep 0.3
kill -9 $pid 2> /dev/null
wait $pid 2> /dev/null
if [ -f "$W/s.db.tmp.$pid" ]; then
	ok
	[ "$(od -An -tx1 -j68 -N4 "$W/s.db.tmp.$pid" | tr -d ' ')" = 70667368 ] && ok || bad "kill: no 'pfsh' application_id"
	printf 'my notes\n' > "$W/s.db.tmp.77777"
	$PERFSTUDY ingest --shard 0/1 -o "$W/s.db" tests/data/history/d1.json > /dev/null 2> "$T/err" && ok ||
		bad "kill: the next ingest failed: $(cat "$T/err")"
	[ ! -e "$W/s.db.tmp.$pid" ] && ok || bad "kill: s.db.tmp.$pid left after the next ingest"
	grep -q "removed $W/s.db.tmp.$pid, left by an ingest that was killed (process $pid)" "$T/err" && ok ||
		bad "kill: the removal is not said: $(cat "$T/err")"
	[ "$(cat "$W/s.db.tmp.77777")" = "my notes" ] && ok || bad "kill: a user's s.db.tmp.77777 was touched"
else
	skipped "kill: the ingest finished before it could be killed"
fi


# 12. (#51 round 4, 1) An output of diff is never one of its inputs:
# --json or --benchmark-json naming OLD_DIR/perfstudy.db, by its path, a
# symbolic or a hard link, is a usage error (exit 2) naming both, and the
# store stays byte for byte as it was; so is one file for both outputs.
W=$T/r4/diff
mkdir -p "$W"
$PERFSTUDY build -q tests/data/history/d1.json -o "$W/old" || bad "r4 diff: first build failed"
$PERFSTUDY build -q tests/data/history/d1.json -o "$W/new" || bad "r4 diff: second build failed"
cp "$W/old/perfstudy.db" "$W/db.orig"
ln -s "$W/old/perfstudy.db" "$W/link.db"
ln "$W/new/perfstudy.db" "$W/hard.db"
fails "diff --json the old store" 2 "perfstudy.db: error: the output is also an input ($W/old/perfstudy.db)" \
	"$PERFSTUDY" diff -q --json "$W/old/perfstudy.db" "$W/old" "$W/new"
fails "diff --benchmark-json the old store by a link" 2 "link.db: error: the output is also an input ($W/old/perfstudy.db)" \
	"$PERFSTUDY" diff -q --benchmark-json "$W/link.db" "$W/old" "$W/new"
fails "diff --json a hard link of the new store" 2 "hard.db: error: the output is also an input ($W/new/perfstudy.db)" \
	"$PERFSTUDY" diff -q --json "$W/hard.db" "$W/old" "$W/new"
fails "diff --json and --benchmark-json one file" 2 "--json and --benchmark-json name one file" \
	"$PERFSTUDY" diff -q --json "$W/same.json" --benchmark-json "$W/same.json" "$W/old" "$W/new"
cmp -s "$W/old/perfstudy.db" "$W/db.orig" && ok || bad "r4 diff: the old store was overwritten"
[ -L "$W/link.db" ] && ok || bad "r4 diff: the link was replaced"
[ ! -e "$W/same.json" ] && ok || bad "r4 diff: one file for both outputs was written"

# 13. (#51 round 4, 2) diff writes each JSON file through a fresh
# exclusive temporary name: a symbolic link planted at FILE.tmp is not
# followed (its target stays), a user's FILE.tmp stays, and no temporary
# file is left.
cp "$W/db.orig" "$W/old/perfstudy.db" # as it was, should 12 have failed
printf 'victim\n' > "$W/victim"
ln -s "$W/victim" "$W/diff.json.tmp"
printf 'my benchmark notes\n' > "$W/bench.json.tmp"
"$PERFSTUDY" diff -q --json "$W/diff.json" --benchmark-json "$W/bench.json" "$W/old" "$W/new" 2> "$T/err" && ok ||
	bad "r4 tmp: diff failed: $(cat "$T/err")"
[ "$(cat "$W/victim")" = victim ] && ok || bad "r4 tmp: the symbolic link at diff.json.tmp was followed"
[ -L "$W/diff.json.tmp" ] && ok || bad "r4 tmp: the symbolic link at diff.json.tmp was replaced"
[ "$(cat "$W/bench.json.tmp")" = "my benchmark notes" ] && ok || bad "r4 tmp: a user's bench.json.tmp was consumed"
python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' "$W/diff.json" "$W/bench.json" && ok ||
	bad "r4 tmp: the JSON files do not parse"
[ -z "$(ls "$W" | grep '\.tmp\.')" ] && ok || bad "r4 tmp: temporary left: $(ls "$W" | grep '\.tmp\.')"

# 14. (#51 round 4, 3) A build's DIR.tmp.<pid> and an ingest's
# OUT.tmp.<pid> are created exclusively: when the pid repeats, a user's
# directory or file of that name is neither removed nor written into (the
# build stops naming it), while perfstudy's own marked leftover of a killed
# build with that pid is still cleaned and the build goes on. The shell's
# subshell pid is the pid `exec` keeps.
W=$T/r4/pid
mkdir -p "$W"
rc=0
(mkdir -p "$W/site.tmp.$BASHPID" && printf 'my thesis\n' > "$W/site.tmp.$BASHPID/thesis.tex" &&
	exec "$PERFSTUDY" build -q tests/data/history/d1.json -o "$W/site") 2> "$T/err" || rc=$?
[ $rc -ne 0 ] && grep -q "site.tmp.[0-9]*: error: exists and is not perfstudy's partial output" "$T/err" && ok ||
	bad "r4 pid: a user's site.tmp.<pid>: exit $rc: $(head -c 400 "$T/err")"
[ "$(cat "$W"/site.tmp.*/thesis.tex)" = "my thesis" ] && ok || bad "r4 pid: a user's site.tmp.<pid>/thesis.tex was deleted"
[ ! -e "$W/site" ] && ok || bad "r4 pid: a site was written"
rm -rf "$W"/site.tmp.*
(mkdir -p "$W/site.tmp.$BASHPID" && printf 'perfstudy partial output: site.tmp.%s\n' $BASHPID > "$W/site.tmp.$BASHPID/.perfstudy-partial" &&
	printf 'x\n' > "$W/site.tmp.$BASHPID/index.html" &&
	exec "$PERFSTUDY" build -q tests/data/history/d1.json -o "$W/site") 2> "$T/err" && ok ||
	bad "r4 pid: perfstudy's own leftover of that pid blocked the build: $(head -c 400 "$T/err")"
[ -f "$W/site/index.html" ] && [ -z "$(ls "$W" | grep '\.tmp\.')" ] && ok || bad "r4 pid: after a leftover: $(ls "$W")"
rc=0
(printf 'my notes\n' > "$W/s.db.tmp.$BASHPID" &&
	exec "$PERFSTUDY" ingest -q --shard 0/1 -o "$W/s.db" tests/data/history/d1.json) 2> "$T/err" || rc=$?
[ $rc -ne 0 ] && grep -q "s.db.tmp.[0-9]*: error: exists and is not a perfstudy shard" "$T/err" && ok ||
	bad "r4 pid: a user's s.db.tmp.<pid>: exit $rc: $(head -c 400 "$T/err")"
[ "$(cat "$W"/s.db.tmp.*)" = "my notes" ] && ok || bad "r4 pid: a user's s.db.tmp.<pid> was unlinked or written"
[ ! -e "$W/s.db" ] && ok || bad "r4 pid: a shard was written"

finish
