#!/bin/bash
# t_round4.sh: the fourth red-team round (issue #51), items 4, 5 and 11-15:
# a model replica larger than int, a crash that cleans up, a forged previous
# store, figure names of runs that differ in case and punctuation, JSON of
# names that are not UTF-8, control bytes in the interrupt note, a shard
# claiming two billion shards, `-o DIR/.`, a retargeted symlink. Each case
# failed on the build before the fix (checked against it when written).
source "$(dirname "$0")/lib.sh"
set -m # background builds get signals like a foreground one
export SOURCE_DATE_EPOCH=1700000000
P=$(cd "$(dirname "$PERFSTUDY")" && pwd)/$(basename "$PERFSTUDY") # for commands run elsewhere
SMALL=$PWD/tests/data/small/study

# fails NAME CODE MESSAGE CMD...: CMD exits CODE and says MESSAGE on stderr.
fails() {
	local name=$1 code=$2 msg=$3 rc=0
	shift 3
	"$@" >/dev/null 2>"$T/err" || rc=$?
	if [ $rc -ne "$code" ]; then
		bad "$name: exit $rc, expected $code: $(head -c 600 "$T/err")"
	elif ! grep -qF -- "$msg" "$T/err"; then
		bad "$name: expected '$msg', got: $(head -c 600 "$T/err")"
	else
		ok
	fi
}

# A trace of 200,000 short kernels: a build of it takes about a second,
# long enough to signal it while its temporary output exists.
python3 - "$T/big.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": 1, "tid": 1,
       "ts": i * 1000, "dur": 900} for i in range(1, 20)]
ev += [{"ph": "X", "cat": "kernel", "name": "k%d" % (i % 50), "pid": 0, "tid": 7, "ts": 1000 + i * 0.09,
        "dur": 0.05, "args": {"device": 0, "stream": 7}} for i in range(200000)]
json.dump({"schemaVersion": 1, "traceEvents": ev}, open(sys.argv[1], "w"))
PY

# signal_build SIGNAL OUT: starts a build of big.json into OUT, sends SIGNAL
# once OUT.tmp.<pid> holds its partial mark (.perfstudy-partial, written
# just after the cleanup is armed: the directory alone can exist a moment
# before, and a crash signal, never held back, sent in that moment left it
# behind, as under the sanitizers on a loaded machine); sets rc and leaves
# stderr in $T/err. rc 0: the build ended first. The path is tested as it
# is, not as a pattern (-o may hold '[').
signal_build() {
	local sig=$1 out=$2 pid i
	"$P" build -q "$T/big.json" -o "$out" 2>"$T/err" &
	pid=$!
	for i in $(seq 1000); do
		[ -e "$out.tmp.$pid/.perfstudy-partial" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.005
	done
	kill -"$sig" $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null
	rc=$?
}
# left OUT NAME: neither OUT.tmp.* nor OUT.lock is left.
left() {
	if compgen -G "$1.tmp.*" >/dev/null || [ -e "$1.lock" ]; then
		bad "$2: left behind: $(ls -d "$1".tmp.* "$1".lock 2>/dev/null | tr '\n' ' ')"
		rm -rf "$1".tmp.* "$1.lock"
	else
		ok
	fi
}

# --- item 4: tensor_parallel x pipeline_parallel past int; a crash cleans up ---
# 65536 x 65536 wrapped to 0 in models_replica_ranks() and scaling.c
# divided by it: SIGFPE (exit 136), site.lock and site.tmp.<pid> left.
# The product is checked where the manifest is read: at most the run's
# gpus when given, else at most INT_MAX.
M=$T/m4
mkdir -p "$M"
cp "$SMALL/run-a/rank0.json" "$M/a.json"
printf 'version: 1\nid: tp\ntitle: replica\nruns:\n  - id: a\n    batch: 4\n    traces: a.json\n    tensor_parallel: 65536\n    pipeline_parallel: 65536\n' >"$M/big.yaml"
fails "tp x pp past INT_MAX" 1 \
	"$M/big.yaml:9:24: error: 'tensor_parallel' x 'pipeline_parallel' is 4294967296 GPUs per model replica, more than 2147483647" \
	"$PERFSTUDY" build -q "$M/big.yaml" -o "$M/site"
left "$M/site" "tp x pp past INT_MAX"
printf 'version: 1\nid: tp\ntitle: replica\nruns:\n  - id: a\n    gpus: 2\n    traces: a.json\n    tensor_parallel: 2\n    pipeline_parallel: 2\n' >"$M/gpus.yaml"
fails "tp x pp past gpus" 1 \
	"$M/gpus.yaml:9:24: error: 'tensor_parallel' x 'pipeline_parallel' is 4 GPUs per model replica, more than the run's 'gpus' (2)" \
	"$PERFSTUDY" build -q "$M/gpus.yaml" -o "$M/site"
printf 'version: 1\nid: tp\ntitle: replica\nruns:\n  - id: a\n    gpus: 4\n    traces: a.json\n    tensor_parallel: 2\n    pipeline_parallel: 2\n' >"$M/fits.yaml"
"$PERFSTUDY" build -q "$M/fits.yaml" -o "$M/site" 2>"$T/err" && ok || bad "tp x pp = gpus refused: $(cat "$T/err")"
# A crash (SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT) cleans up as SIGTERM
# does, then dies of the same signal: the exit status still says which.
# (Built with AddressSanitizer, ASan keeps its own handler for SIGSEGV, SIGBUS
# and SIGFPE and turned the re-raised signal into an abort, exit 134: these
# builds run with ASan's handlers off, so that the program's own is tested.)
for sig in SEGV FPE BUS ILL ABRT; do
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_sigfpe=0" \
		signal_build $sig "$M/crash"
	if [ $rc -eq 0 ]; then
		skipped "SIG$sig came after the build had finished"
		continue
	fi
	want=$((128 + $(kill -l $sig)))
	[ $rc -eq $want ] && ok || bad "SIG$sig: exit $rc, want $want"
	left "$M/crash" "SIG$sig"
	grep -q "^perfstudy: crashed; removed $M/crash.tmp.[0-9]*, the previous output is unchanged$" "$T/err" && ok ||
		bad "SIG$sig: no note of the cleanup: $(cat "$T/err")"
done

# --- item 13: the interrupt note escapes the path ---
# -o $'sig\nperfstudy: wrote sig/index.html\e[2J' and SIGTERM printed the
# path raw: a forged "perfstudy: wrote" line and a cleared terminal. The
# note escapes control bytes as every diagnostic does (made when armed: the
# handler may not allocate).
mkdir -p "$T/m13" && cd "$T/m13" || exit 1
O=$'sig\nperfstudy: wrote sig/index.html\e[2J'
signal_build TERM "$O"
if [ $rc -eq 0 ]; then
	skipped "SIGTERM came after the build had finished"
else
	[ $rc -eq 143 ] && ok || bad "SIGTERM with a forged -o: exit $rc, want 143"
	left "$O" "SIGTERM with a forged -o"
	grep -q '^perfstudy: wrote' "$T/err" && bad "SIGTERM with a forged -o: a forged line: $(cat -v "$T/err")" || ok
	grep -q $'\e' "$T/err" && bad "SIGTERM with a forged -o: an escape byte reached the terminal" || ok
	grep -qF 'perfstudy: interrupted; removed sig\nperfstudy: wrote sig/index.html\x1b[2J.tmp.' "$T/err" && ok ||
		bad "SIGTERM with a forged -o: note not escaped: $(cat -v "$T/err")"
fi
cd - >/dev/null || exit 1

# --- item 5: the previous store is read under the SQLite guard ---
# build -o DIR attached DIR/perfstudy.db without the guard diff and merge
# use: a 'meta' or 'history_runs' that is a recursive view hung the build
# (the up-to-date check, the trace cache, the build history). The store
# is now checked first on a bounded connection of its own; one with such
# a view is not reused, and the build says so and finishes. ulimit -t is
# only a safety net: the assertion is on the outcome.
if command -v sqlite3 >/dev/null; then
	V=$T/m5
	mkdir -p "$V"
	"$PERFSTUDY" build -q "$SMALL/run-a" -o "$V/site" 2>"$T/err" || bad "item 5: the first build failed: $(cat "$T/err")"
	rec='WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r)'
	for t in meta history_runs site_files; do
		rm -rf "$V/$t" && cp -r "$V/site" "$V/$t"
		case $t in
		meta) sql="DROP TABLE meta; CREATE VIEW meta(key, value) AS $rec SELECT 'k' || i, 'v' FROM r" ;;
		history_runs) sql="DROP TABLE history_runs; CREATE VIEW history_runs(experiment, build, run) AS $rec SELECT 'default', i, 'run-a' FROM r" ;;
		site_files) sql="DROP TABLE site_files; CREATE VIEW site_files(path, size) AS $rec SELECT 'f' || i, 1 FROM r" ;;
		esac
		sqlite3 "$V/$t/perfstudy.db" "$sql"
		# The same inputs: the up-to-date check reads the store first.
		bash -c 'ulimit -t 20; exec "$0" build "$1" -o "$2"' "$P" "$SMALL/run-a" "$V/$t" >/dev/null 2>"$T/err"
		rc=$?
		[ $rc -eq 0 ] && ok || bad "previous store with '$t' a recursive view: exit $rc, want 0: $(head -c 600 "$T/err")"
		grep -qF "perfstudy: $V/$t/perfstudy.db: not reused: '$t' is a view, not a plain table (a view runs the file's own SQL); reading every trace" "$T/err" &&
			ok || bad "previous store with '$t' a recursive view: not said: $(head -c 600 "$T/err")"
		[ "$(sqlite3 "$V/$t/perfstudy.db" "SELECT type FROM sqlite_master WHERE name = '$t'")" = table ] && ok ||
			bad "previous store with '$t' a recursive view: the new store still has the view"
		left "$V/$t" "previous store with '$t' a recursive view"
	done
else
	skipped "sqlite3 not installed: forged previous store not made"
fi

# --- item 11: every per-run figure has its own file, named by one function ---
# memory_timeline_<run> replaced characters itself: runs UP and up, a.b and
# a_b shared one file (the page showed run up's memory under UP), and a
# 300-byte run id failed the build, exit 3 "File name too long". Five runs
# whose ids differ only in case and punctuation (and one 300 bytes long),
# once with the allocator's events (memory_timeline, step_timeline,
# top_kernels) and once as a 9-stage pipeline (pipeline_bubble,
# rank_spread, step_timeline, top_kernels): each figure on the page must
# be a file of its own whose title names the run the page shows it for.
F=$T/m11
mkdir -p "$F"
python3 tests/e2e/pipeline_gen.py "$F/pipe" gpipe 9 2 || bad "item 11: pipeline_gen.py failed"
long=$(printf 'x%.0s' $(seq 300))
{
	printf 'version: 1\nid: mem\ntitle: memory figures\nruns:\n'
	for r in UP up a.b a_b "$long"; do printf '  - {id: %s, traces: %s/rank*.pt.trace.json}\n' "$r" "$PWD/tests/data/memory"; done
} >"$F/mem.yaml"
{
	printf 'version: 1\nid: pipe\ntitle: pipeline figures\nruns:\n'
	for r in UP up a.b a_b "$long"; do printf '  - {id: %s, pipeline_parallel: 9, traces: %s/rank*.json}\n' "$r" "$F/pipe"; done
} >"$F/pipe.yaml"
"$PERFSTUDY" build -q "$F/mem.yaml" "$F/pipe.yaml" -o "$F/o" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "runs that differ in case and punctuation: exit $rc, want 0: $(head -c 600 "$T/err")"
python3 - "$F/o" "$long" >"$T/out" 2>&1 <<'PY'
import html, os, re, sys
site, long = sys.argv[1], sys.argv[2]
runs = ["UP", "up", "a.b", "a_b", long]
# kind: (experiments, the run and rank in an image's alt text, the run and rank in the figure's first <title>)
kinds = {
    "memory_timeline_": (["mem"], r"profiled steps of run (\S+): ()", r"profiled steps, (\S+)()$"),
    "step_timeline_": (["mem", "pipe"], r"of run (\S+), its median step()", r"^(\S+): step \d+()"),
    "top_kernels_": (["mem", "pipe"], r"GPU time in run (\S+), rank (\d+)", r"by total time: (\S+), rank (\d+)$"),
    "rank_spread_": (["pipe"], r"Every rank of run (\S+) in order()", r"^(\S+): \d+ ranks()"),
    "pipeline_bubble_": (["pipe"], r"^Run (\S+): each pipeline stage()", r"^(\S+): pipeline bubble()"),
}
fail = 0
for kind, (exps, alt_re, title_re) in kinds.items():
    for exp in exps:
        page = open(os.path.join(site, exp, "index.html"), encoding="utf-8").read()
        seen = {}
        for src, alt in re.findall(r'<img src="(figures/%s[^"]*)\.svg" alt="([^"]*)"' % kind, page):
            m = re.search(alt_re, html.unescape(alt))
            if not m:
                continue
            key = (m.group(1), m.group(2))
            if key in seen and seen[key] != src:
                print("FAIL: %s %s: run %s shown twice" % (exp, kind, key[0][:20])); fail = 1
            seen[key] = src
            title = re.search(r"<title>([^<]*)</title>", open(os.path.join(site, exp, src + ".svg"), encoding="utf-8").read())
            t = re.search(title_re, html.unescape(title.group(1))) if title else None
            if not t or (t.group(1), t.group(2)) != key:
                print("FAIL: %s: the page shows %s for run %s, a figure of %s" %
                      (exp, src, key[0][:20], t.group(1)[:20] if t else "nothing")); fail = 1
        shown = {r for r, _ in seen}
        if shown != set(runs):
            print("FAIL: %s %s: figures of %d runs, want 5" % (exp, kind, len(shown))); fail = 1
        if len(set(seen.values())) != len(seen):
            print("FAIL: %s %s: %d figures share %d files" % (exp, kind, len(seen), len(set(seen.values())))); fail = 1
        print("%s %s: %d figures" % (exp, kind, len(seen)))
sys.exit(fail)
PY
[ $? -eq 0 ] && ok || bad "figures of runs that differ in case and punctuation: $(grep FAIL "$T/out" | head -5)"

# --- item 12: one JSON string writer; names that are not UTF-8 ---
# diff's JSON copied the bytes of a run directory `run\xff` raw, and both
# files (--json, --benchmark-json) were not JSON; the merged trace wrote
# U+FFFD. Every JSON file now escapes through util/buf.h (json_add_str): each byte that
# is not UTF-8 as \ufffd. Parsed here with python3's json module.
J=$T/m12
mkdir -p "$J/run"$'\xff'
cp "$SMALL/run-a/rank0.json" "$J/run"$'\xff'/rank0.json
(cd "$J" && "$P" build -q "run"$'\xff' -o o1) 2>"$T/err" || bad "item 12: the first build failed: $(cat "$T/err")"
sed 's/"dur": 100.25/"dur": 200.25/' "$SMALL/run-a/rank0.json" >"$J/run"$'\xff'/rank0.json
(cd "$J" && "$P" build -q "run"$'\xff' -o o2) 2>"$T/err" || bad "item 12: the second build failed: $(cat "$T/err")"
(cd "$J" && "$P" diff -q --json d.json --benchmark-json b.json o1 o2) >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 4 ] && ok || bad "diff of run\\xff: exit $rc, want 4 (a regression): $(head -c 600 "$T/err")"
python3 - "$J" >"$T/out" 2>&1 <<'PY'
import glob, gzip, json, sys
d = sys.argv[1]
runs = [s["run"] for e in json.load(open(d + "/d.json", encoding="utf-8"))["experiments"] for s in e["step_times"]]
assert runs == ["run\ufffd"], runs
names = [b["name"] for b in json.load(open(d + "/b.json", encoding="utf-8"))]
assert "default/run\ufffd step time" in names, names
for f in glob.glob(d + "/o1/default/traces/*.trace.json.gz"):
    t = json.dumps(json.load(gzip.open(f, "rt", encoding="utf-8")), ensure_ascii=False)
    assert "run\ufffd" in t, f
PY
[ $? -eq 0 ] && ok || bad "JSON of run\\xff: $(tail -3 "$T/out")"
ls "$J"/o1/default/traces/*.trace.json.gz >/dev/null 2>&1 && ok || bad "item 12: no merged trace written"

# --- item 14: a shard claiming 2,000,000,000 shards; -o DIR/. ---
# merge allocated a slot per claimed shard and ended in exit 3 "out of
# memory"; now exit 1 naming the shard, its table and key. A set has no
# more shards than traces, and every shard of it must be given.
if command -v sqlite3 >/dev/null; then
	H=$T/m14
	mkdir -p "$H"
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$H/s.db" "$SMALL/run-a/rank0.json" 2>"$T/err" || bad "item 14: ingest failed: $(cat "$T/err")"
	sqlite3 "$H/s.db" "UPDATE shard_meta SET value = '2000000000' WHERE key = 'shards'"
	fails "a shard claiming 2e9 shards" 1 \
		"$H/s.db: error: table 'shard_meta', key 'shards': 2000000000 shards, more than the 1 traces and the 1 shard database given; refused (a damaged or forged shard)" \
		"$PERFSTUDY" merge -q -o "$H/out" "$H/s.db" "$SMALL/run-a/rank0.json"
	[ ! -e "$H/out" ] && ok || bad "a shard claiming 2e9 shards: an output was written"
else
	skipped "sqlite3 not installed: forged shard count not made"
fi
# -o site/. renamed the new output onto "site/.": exit 3 "Device or resource
# busy". A name ending in '.' or '..', or naming nothing, is a usage error.
"$PERFSTUDY" build -q "$SMALL/run-a" -o "$T/m14site" 2>"$T/err" || bad "item 14: the first build failed: $(cat "$T/err")"
cp -r "$T/m14site" "$T/m14site.before"
fails "build -o DIR/." 2 "perfstudy build: error: -o '$T/m14site/.' ends in '.' or '..'; name the output itself (-o DIR, not -o DIR/.)" \
	"$PERFSTUDY" build -q "$SMALL/run-a" -o "$T/m14site/."
fails "build -o DIR/sub/.." 2 "perfstudy build: error: -o '$T/m14site/data/..' ends in '.' or '..'" \
	"$PERFSTUDY" build -q "$SMALL/run-a" -o "$T/m14site/data/.."
fails "build -o ''" 2 "perfstudy build: error: -o '' names no file or directory" \
	"$PERFSTUDY" build -q "$SMALL/run-a" -o ""
fails "ingest -o DIR/." 2 "perfstudy ingest: error: -o '$T/m14site/.' ends in '.' or '..'" \
	"$PERFSTUDY" ingest -q --shard 0/1 -o "$T/m14site/." "$SMALL/run-a/rank0.json"
diff -r "$T/m14site.before" "$T/m14site" >/dev/null && ok || bad "-o DIR/.: the previous output changed"
left "$T/m14site" "-o DIR/."

# --- item 15: the up-to-date fingerprint follows a retargeted symlink ---
# The fingerprint held a file's path, size and modification time: a link
# retargeted to another file of the same size and time was "up to date",
# and the site kept the old file's numbers. It now holds the device and
# inode of the file the path resolves to as well.
Y=$T/m15
mkdir -p "$Y"
sed 's/gemm_kernel/gemm_kernel_one/' "$SMALL/run-a/rank0.json" >"$Y/one.json"
sed 's/gemm_kernel/gemm_kernel_two/' "$SMALL/run-a/rank0.json" >"$Y/two.json"
touch -d '2024-01-01 00:00:00' "$Y/one.json" "$Y/two.json"
ln -s one.json "$Y/link.json"
"$PERFSTUDY" build "$Y/link.json" -o "$Y/site" >/dev/null 2>"$T/err" || bad "item 15: the first build failed: $(cat "$T/err")"
ln -sfn two.json "$Y/link.json"
"$PERFSTUDY" build "$Y/link.json" -o "$Y/site" >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "retargeted link: exit $rc: $(head -c 600 "$T/err")"
grep -q "is up to date" "$T/err" && bad "retargeted link of the same size and time: 'up to date'" || ok
grep -q gemm_kernel_two "$Y/site/default/data/top_kernels.csv" && ! grep -q gemm_kernel_one "$Y/site/default/data/top_kernels.csv" &&
	ok || bad "retargeted link: the site does not show the new target's kernels"
"$PERFSTUDY" build "$Y/link.json" -o "$Y/site" >/dev/null 2>"$T/err"
grep -q "is up to date" "$T/err" && ok || bad "retargeted link: the build after is not up to date: $(head -3 "$T/err")"

finish
