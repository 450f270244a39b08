#!/bin/bash
# t_diff_explain.sh: perfstudy diff says each verdict in words (direction,
# size, noise, threshold) and, for a run whose step time changed beyond the
# noise, where the change went per kernel group, kernel, region and rank, in
# ms per step adding up to it; --json and --benchmark-json write the same
# for CI. Inputs: the two-rank synthetic Kineto traces of diff_explain.py
# (its docstring gives every time), variants A (the base), B (gemm_bwd 10 %
# longer), R (gemm_bwd x3, softmax gone, a cast kernel new) and X (R with a
# hostile kernel name). Expected numbers are worked out by hand below and
# again by diff_explain.py's own implementation of the definition over the
# raw files (never from perfstudy's output).
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }
G=tests/e2e/diff_explain.py

# build VARIANT: the variant's traces as run t1 of experiment 'default' (a build from a
# directory), always from the same path $T/w/t1, into $T/o-VARIANT.
build() {
	rm -rf "$T/w"
	python3 $G gen "$T/w/t1" "$1" || bad "gen $1"
	$PERFSTUDY build -q "$T/w/t1" -o "$T/o-$1" 2> "$T/err" || bad "build $1: $(cat "$T/err")"
}
for v in A A2 B R X S; do build $v; done

# --- identical inputs: no change, and the run's verdict says so ---
$PERFSTUDY diff "$T/o-A" "$T/o-A2" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx 'default: t1: step 1.06 ms, the same 10 profiled steps as before: same (within noise)' "$T/out" &&
	grep -qx 'perfstudy diff: 0 changes, 0 regressions' "$T/out" && ok || bad "A -> A2: rc $rc: $(cat "$T/out")"

# --- S: 50 us more GPU work a step hidden in the idle tail: the same steps ---
# gpu_busy_frac gets its own test on its own samples, one per step: the ranks' mean busy share,
# A (800 / (1050 + j) + 800 / (1055 + j)) / 2 <= 0.7601 (j = 0), S the same with 850 >= 0.8007
# (j = 9): every S sample above every A sample, p = 2 / C(20, 10) = 1.08e-05, though the step
# samples are the very same (the step line's test would give p = 1).
$PERFSTUDY diff "$T/o-A" "$T/o-S" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx 'default: t1: step 1.06 ms, the same 10 profiled steps as before: same (within noise)' "$T/out" &&
	grep -q '^default: t1: gpu_busy_frac [0-9.]* -> [0-9.]* (+[0-9.]* %, p = 1.08e-05): higher by [0-9.]* % (beyond noise)$' "$T/out" &&
	! grep -q 'where the step' "$T/out" && ok || bad "A -> S: rc $rc: $(cat "$T/out")"

# --- B: gemm_bwd 300 -> 330 us, every step 30 us longer ---
# Verdict samples: per step the slowest rank's (rank 1: 1055 + j us, j = 0..9): medians 1059.5 and
# 1089.5 us, +30 / 1059.5 = +2.83 %. Every B step is longer than every A step, so Mann-Whitney's
# p = 2 / C(20, 10) = 2 / 184756 = 1.08e-05: beyond the noise, under the 5 % threshold.
$PERFSTUDY diff --json "$T/b.json" --benchmark-json "$T/b-bench.json" "$T/o-A" "$T/o-B" > "$T/out" 2>&1
rc=$?
echo "  A -> B: exit $rc"
sed -n '/: step /,$p' "$T/out" | head -20
[ $rc -eq 0 ] && ok || bad "A -> B: exit $rc, want 0: $(cat "$T/out")"
grep -q '^default: t1: step .* (+2.83 %, 10 vs 10 profiled steps (slowest rank), .*, p = 1.08e-05): slower by 2.8 % (beyond noise, under the 5 % threshold)$' "$T/out" &&
	ok || bad "A -> B: the step line: $(grep ': step ' "$T/out")"
# Contributors, by hand. Per rank and step: compute first (gemm_fwd [100, 300), elementwise
# [300, 350) (rank 1 to 360), softmax [320, 380) keeps what elementwise left: 30 (rank 1: 20),
# gemm_bwd 300), then the memcpy [80, 130) keeps [80, 100) = 20, then NCCL 200; busy 800 on both
# ranks. Parts' step: rank 0 1050 + 4.5, rank 1 1055 + 4.5, mean 1057 us; B: 1087. Only gemm_bwd
# changed: +30 us = +0.030 ms, in group matrix-mul and region backward; idle unchanged. Each rank's
# own step +30 us (rank 0 1054.5 -> 1084.5, rank 1 1059.5 -> 1089.5), said first and labelled, as
# is its compute and copies' +0.030 ms; its share of the run's change, what the list adds up
# with, +30 / 2 = +0.015 ms, labelled as such (issue 57: a share read as the rank's own change).
for l in \
	'default: t1: where the step'"'"'s +0.030 ms went (profiled steps, mean over 2 -> 2 ranks: 1.057 -> 1.087 ms); each list adds up to it, the ranks by their shares:' \
	'  kernel group matrix-mul: +0.030 ms (0.500 -> 0.530)' \
	'  kernel gemm_bwd: +0.030 ms (0.300 -> 0.330)' \
	'  region backward: +0.030 ms (0.500 -> 0.530)' \
	'  idle (nothing on the GPU, beside the kernels): +0.000 ms (0.257 -> 0.257)' \
	'  rank 0: its step +0.030 ms (1.054 -> 1.085 ms), its compute and copies +0.030 ms; its share of the change +0.015 ms (its step / 2 ranks)' \
	'  rank 1: its step +0.030 ms (1.060 -> 1.089 ms), its compute and copies +0.030 ms; its share of the change +0.015 ms (its step / 2 ranks)'; do
	grep -qxF "$l" "$T/out" && ok || bad "A -> B: no line '$l'"
done
# gpu_busy_frac gets its own test, on its own per-step samples (not the step line's).
grep -q '^default: t1: gpu_busy_frac .*(+[0-9.]* %, p = [0-9.e-]*): higher by .* (beyond noise)$' "$T/out" && ok ||
	bad "A -> B: gpu_busy_frac: $(grep gpu_busy_frac "$T/out")"

# check_json FILE OLD NEW: FILE parses, its contributors equal diff_explain.py's over the raw
# traces of variants OLD and NEW to 1e-6 ms, and each list with idle adds up to change_ms.
check_json() {
	rm -rf "$T/r"
	python3 $G gen "$T/r/old" "$2" && python3 $G gen "$T/r/new" "$3" && python3 $G ref "$T/r/old" "$T/r/new" > "$T/ref" ||
		bad "diff_explain.py ref $2 $3"
	python3 - "$1" "$T/ref" <<'PY' && ok || bad "$1 against diff_explain.py ref $2 $3"
import json, sys
d = json.load(open(sys.argv[1]))
want = {}
for line in open(sys.argv[2]):
    kind, rest = line.rstrip("\n").split(" ", 1)
    name, v = rest.rsplit(" ", 1)
    want[(kind, name)] = float(v) / 1000
[st] = d["experiments"][0]["step_times"]
c = st["contributors"]
got = {("step", "-"): c["change_ms"], ("idle", "-"): c["idle"]["change_ms"]}
for key, kind in (("kernel_groups", "group"), ("kernels", "kernel"), ("regions", "region"), ("ranks", "rank")):
    for m in c[key]:
        got[(kind, m["name"])] = m["change_ms"]
        if kind == "rank":
            got[("rank_work", m["name"])] = m["new_work_ms"] - m["old_work_ms"]
            got[("rank_step", m["name"])] = m["step_change_ms"]
            assert abs(m["step_change_ms"] - (m["new_step_ms"] - m["old_step_ms"])) < 1e-6, m
            assert abs(m["old_step_ms"] - m["old_ms"] * c["old_ranks"]) < 1e-6, m
        assert abs(m["change_ms"] - (m["new_ms"] - m["old_ms"])) < 1e-6, m
    total = sum(m["change_ms"] for m in c[key]) + (0 if kind == "rank" else c["idle"]["change_ms"])
    assert abs(total - c["change_ms"]) < 1e-6, (key, total, c["change_ms"])
bad = [(k, want.get(k), got.get(k)) for k in set(want) | set(got)
       if k not in want or k not in got or abs(want[k] - got[k]) > 1e-6]
assert not bad, bad
assert st["noise"] == "beyond" and st["test"] == "mann-whitney", st
PY
}
check_json "$T/b.json" A B
python3 - "$T/b.json" <<'PY' && ok || bad "A -> B JSON verdict: $(cat "$T/b.json")"
import json, sys
st = json.load(open(sys.argv[1]))["experiments"][0]["step_times"][0]
assert st["regression"] is False and st["over_threshold"] is False, st
assert abs(st["old_ms"] - 1.0595) < 1e-9 and abs(st["new_ms"] - 1.0895) < 1e-9, st
assert abs(st["p_value"] - 2 / 184756) < 1e-9, st
assert st["verdict"] == "slower by 2.8 % (beyond noise, under the 5 % threshold)", st
PY
# github-action-benchmark's customSmallerIsBetter: [{name, unit, value, range}], B's median 1.0895 ms.
python3 - "$T/b-bench.json" <<'PY' && ok || bad "benchmark JSON: $(cat "$T/b-bench.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 1, d
e = d[0]
assert e["name"] == "default/t1 step time" and e["unit"] == "ms" and abs(e["value"] - 1.0895) < 1e-9, e
assert isinstance(e["range"], str) and e["range"].startswith("± "), e
PY

# --- R: gemm_bwd x3, a lost autocast: a regression, explained ---
# Slowest rank 1655 + j: median 1659.5 us, +600 / 1059.5 = +56.6 %. Per rank: gemm_bwd 900 (+600),
# softmax gone (rank 0 30, rank 1 20: -25 mean), cast [360, 400) new: 40 on both; the step +600, so
# idle = 600 - 600 - 40 + 25 = -15 us. Groups: matrix-mul +600, other (the cast) +40, elementwise
# -25. Regions: forward +40 - 25 = +15, backward +600. Ranks: each one's step +600 us (rank 0
# 1054.5 -> 1654.5, rank 1 1059.5 -> 1659.5), its share +300; rank 0's compute and copies 600 ->
# 1210 us (20 + 200 + 50 + 40 + 900), rank 1's 600 -> 1220.
$PERFSTUDY diff --json "$T/r.json" "$T/o-A" "$T/o-R" > "$T/out" 2>&1
rc=$?
echo "  A -> R: exit $rc"
[ $rc -eq 4 ] && ok || bad "A -> R: exit $rc, want 4: $(cat "$T/out")"
grep -q '^default: t1: step .* (+56.63 %, .*, p = 1.08e-05): slower by 57 %: REGRESSION (min effect 5 %)$' "$T/out" && ok ||
	bad "A -> R: the step line: $(grep ': step ' "$T/out")"
for l in \
	'  kernel group matrix-mul: +0.600 ms (0.500 -> 1.100)' \
	'  kernel group other: +0.040 ms (0.000 -> 0.040, appeared)' \
	'  kernel group elementwise: -0.025 ms (0.080 -> 0.055)' \
	'  kernel gemm_bwd: +0.600 ms (0.300 -> 0.900)' \
	'  kernel cast_bf16_kernel: +0.040 ms (0.000 -> 0.040, appeared)' \
	'  kernel softmax_kernel: -0.025 ms (0.025 -> 0.000, vanished)' \
	'  idle (nothing on the GPU, beside the kernels): -0.015 ms (0.257 -> 0.242)' \
	'  region backward: +0.600 ms (0.500 -> 1.100)' \
	'  region forward: +0.015 ms (0.300 -> 0.315)' \
	'  rank 0: its step +0.600 ms (1.054 -> 1.655 ms), its compute and copies +0.610 ms; its share of the change +0.300 ms (its step / 2 ranks)' \
	'  rank 1: its step +0.600 ms (1.060 -> 1.659 ms), its compute and copies +0.620 ms; its share of the change +0.300 ms (its step / 2 ranks)'; do
	grep -qxF "$l" "$T/out" && ok || bad "A -> R: no line '$l'"
done
# the largest contributor first
[ "$(grep '^  kernel ' "$T/out" | grep -v '^  kernel group' | head -1)" = '  kernel gemm_bwd: +0.600 ms (0.300 -> 0.900)' ] && ok ||
	bad "A -> R: kernels not largest first: $(grep '^  kernel ' "$T/out")"
check_json "$T/r.json" A R
# -q: only the regression, with where it went
$PERFSTUDY diff -q "$T/o-A" "$T/o-R" > "$T/out" 2>&1
[ $? -eq 4 ] && [ "$(grep -c REGRESSION "$T/out")" -eq 1 ] && grep -qF '  kernel gemm_bwd: +0.600 ms' "$T/out" &&
	! grep -q 'gpu_busy_frac\|^perfstudy diff:' "$T/out" && ok || bad "diff -q A R: $(cat "$T/out")"

# --- X: a kernel name with a quote, a backslash, a newline and an escape sequence ---
$PERFSTUDY diff --json "$T/x.json" "$T/o-A" "$T/o-X" > "$T/out" 2>&1
[ $? -eq 4 ] && ok || bad "A -> X: not exit 4"
! grep -q $'\033' "$T/out" && [ "$(grep -c '^perfstudy diff: ' "$T/out")" -eq 1 ] && ok ||
	bad "A -> X: a raw escape or a forged line on stdout: $(cat -v "$T/out")"
grep -qF '  kernel cast "bf16"\ kernel\n\x1b[2Kperfstudy diff: 0 changes: +0.040 ms (0.000 -> 0.040, appeared)' "$T/out" && ok ||
	bad "A -> X: the escaped name: $(grep 'cast' "$T/out" | cat -v)"
python3 - "$T/x.json" <<'PY' && ok || bad "A -> X: the JSON does not give the name back"
import json, sys
c = json.load(open(sys.argv[1]))["experiments"][0]["step_times"][0]["contributors"]
names = [m["name"] for m in c["kernels"]]
assert 'cast "bf16"\\ kernel\n\x1b[2Kperfstudy diff: 0 changes' in names, names
PY

# --- a store written before history_parts existed (the table dropped) ---
if command -v sqlite3 > /dev/null; then
	cp -r "$T/o-A" "$T/o-old"
	sqlite3 "$T/o-old/perfstudy.db" "DROP TABLE history_parts"
	$PERFSTUDY diff "$T/o-old" "$T/o-R" > "$T/out" 2>&1
	[ $? -eq 4 ] && grep -qx 'default: t1: no parts of the step .*old build.*(no ProfilerStep ranges, .*build it again)' "$T/out" &&
		grep -qx 'default: t1: gpu_busy_frac .*: no samples to test' "$T/out" && ok || bad "diff from a store without parts: $(cat "$T/out")"
	# Rebuilt with this perfstudy, the same inputs keep build 1, which takes this build's parts.
	rm -rf "$T/w"
	python3 $G gen "$T/w/t1" A
	$PERFSTUDY build -q "$T/w/t1" -o "$T/o-old" 2> "$T/err" || bad "rebuild over a store without parts: $(cat "$T/err")"
	[ "$(sqlite3 "$T/o-old/perfstudy.db" "SELECT group_concat(DISTINCT build) FROM history_parts; SELECT count(*) FROM history_builds")" = "$(printf '1\n1')" ] &&
		ok || bad "the rebuilt store's parts: $(sqlite3 "$T/o-old/perfstudy.db" 'SELECT build, count(*) FROM history_parts GROUP BY build')"
	$PERFSTUDY diff "$T/o-old" "$T/o-R" > "$T/out" 2>&1
	grep -qxF '  kernel gemm_bwd: +0.600 ms (0.300 -> 0.900)' "$T/out" && ok || bad "diff after the rebuild: $(cat "$T/out")"
	# A store that holds what no perfstudy writes in history_parts: a value that is no number,
	# a view in place of the table. Each is exit 1 naming the store and the table.
	cp -r "$T/o-A" "$T/o-nan" && cp -r "$T/o-A" "$T/o-view"
	sqlite3 "$T/o-nan/perfstudy.db" "UPDATE history_parts SET value = 'NaNx' WHERE kind = 'idle'"
	sqlite3 "$T/o-view/perfstudy.db" "DROP TABLE history_parts; CREATE VIEW history_parts AS SELECT 1 AS x"
	$PERFSTUDY diff "$T/o-A" "$T/o-nan" > "$T/out" 2> "$T/err"
	[ $? -eq 1 ] && [ "$(cat "$T/err")" = "$T/o-nan/perfstudy.db: error: table 'history_parts', run 't1', idle '': value 'NaNx' is not a number" ] &&
		ok || bad "history_parts with 'NaNx': $(cat "$T/err")"
	$PERFSTUDY diff "$T/o-A" "$T/o-view" > "$T/out" 2> "$T/err"
	[ $? -eq 1 ] && grep -q "table 'history_parts': is a view, not a plain table; refused" "$T/err" && ok ||
		bad "history_parts as a view: $(cat "$T/err")"
else
	skipped "sqlite3 not installed: no store without history_parts made"
fi

# --- a run of 2,500 kernel names: the 2,000 largest kept, the rest one row ---
# One step; kernel k_K runs K us (K = 1..2500) one after the other: the 500 smallest sum to
# 500 x 501 / 2 = 125250 us, all of them 2500 x 2501 / 2 = 3126250 us (group 'other').
if command -v sqlite3 > /dev/null; then
	mkdir -p "$T/many/t1"
	python3 - "$T/many/t1/rank0.json" <<'PY'
import json, sys
ev = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 3126300}]
ts = 1010
for k in range(1, 2501):
    ev.append({"ph": "X", "cat": "kernel", "name": "k_%d" % k, "pid": 0, "tid": 7, "ts": ts, "dur": k,
               "args": {"device": 0, "stream": 7}})
    ts += k
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
	$PERFSTUDY build -q "$T/many/t1" -o "$T/o-many" 2> "$T/err" || bad "build of 2,500 kernel names: $(cat "$T/err")"
	got=$(sqlite3 "$T/o-many/perfstudy.db" "SELECT count(*) FROM history_parts WHERE kind = 'kernel';
		SELECT value FROM history_parts WHERE kind = 'kernel' AND name = '(other kernels)';
		SELECT value FROM history_parts WHERE kind = 'group';
		SELECT min(value) FROM history_parts WHERE kind = 'kernel' AND name <> '(other kernels)'")
	[ "$got" = "$(printf '2001\n125250.0\n3126250.0\n501.0')" ] && ok || bad "2,500 kernel names: $got"
fi

# --- the same run built from another folder: one line, 'inputs moved' (issue 57 item 1) ---
# A's traces again under $T/mv/t1, named as a profiler names them per host and process, rank 0's
# file sorting after rank 1's: no path is the same, but each rank (the traces' distributedInfo)
# has one Kineto trace a side, so each is matched with its rank's, whose bytes are the same (cmp
# below): the same SHA-256. B's under $T/mvb/t1: matched alike, both with another SHA-256.
rm -rf "$T/mv" "$T/mvb" "$T/mvref"
python3 $G gen "$T/mv/t1" A && python3 $G gen "$T/mvref" A && python3 $G gen "$T/mvb/t1" B || bad "gen moved"
mv "$T/mv/t1/rank0.json" "$T/mv/t1/node9_77.1700000001.pt.trace.json"
mv "$T/mv/t1/rank1.json" "$T/mv/t1/node1_42.1700000000.pt.trace.json"
cmp -s "$T/mv/t1/node9_77.1700000001.pt.trace.json" "$T/mvref/rank0.json" &&
	cmp -s "$T/mv/t1/node1_42.1700000000.pt.trace.json" "$T/mvref/rank1.json" || bad "moved: not A's bytes"
$PERFSTUDY build -q "$T/mv/t1" -o "$T/o-mv" 2> "$T/err" && $PERFSTUDY build -q "$T/mvb/t1" -o "$T/o-mvb" 2>> "$T/err" ||
	bad "build moved: $(cat "$T/err")"
$PERFSTUDY diff --json "$T/mv.json" "$T/o-A" "$T/o-mv" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qxF "default: t1: inputs moved: $T/w/t1 -> $T/mv/t1 (2 inputs, matched by rank and format; the same SHA-256)" "$T/out" &&
	! grep -q 'input added\|input removed' "$T/out" && grep -qx 'perfstudy diff: 1 change, 0 regressions' "$T/out" &&
	grep -qx 'default: t1: step 1.06 ms, the same 10 profiled steps as before: same (within noise)' "$T/out" && ok ||
	bad "A -> A moved: rc $rc: $(cat "$T/out")"
python3 - "$T/mv.json" "$T/w/t1" "$T/mv/t1" <<'PY' && ok || bad "A -> A moved: the JSON's changes: $(cat "$T/mv.json")"
import json, sys
ch = json.load(open(sys.argv[1]))["experiments"][0]["changes"]
assert [(c["change"], c["run"], c["old"], c["new"]) for c in ch] == [("inputs moved", "t1", sys.argv[2], sys.argv[3])], ch
PY
$PERFSTUDY diff "$T/o-A" "$T/o-mvb" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qxF "default: t1: inputs moved: $T/w/t1 -> $T/mvb/t1 (2 inputs, matched by rank and format; 2 of them with another SHA-256)" "$T/out" &&
	! grep -q 'input added\|input removed' "$T/out" && grep -q '^default: t1: step .*(+2.83 %, .*): slower by 2.8 %' "$T/out" && ok ||
	bad "A -> B moved: rc $rc: $(cat "$T/out")"
# Built into one output directory (A from $T/w/t1, then from $T/mv/t1): changes.csv's one row.
cp -r "$T/o-A" "$T/o-seq"
$PERFSTUDY build -q "$T/mv/t1" -o "$T/o-seq" 2> "$T/err" || bad "build moved into o-seq: $(cat "$T/err")"
printf 'change,run,item,old,new,diff_pct,p_value,verdict,threshold_crossed\ninputs moved,t1,"2 inputs, matched by rank and format; the same SHA-256",%s,%s,,,,\n' \
	"$T/w/t1" "$T/mv/t1" > "$T/want"
cmp -s "$T/want" "$T/o-seq/default/data/changes.csv" && ok || bad "o-seq changes.csv: $(cat "$T/o-seq/default/data/changes.csv")"

# --- a run under another name: --pair OLD=NEW (issue 57 item 3) ---
# B's traces built from $T/pb/t1-new, run t1-new. Without --pair: run added, run removed and a line
# saying how to compare the two; with --pair t1=t1-new the verdict of A -> B above (+2.83 %,
# p = 2 / C(20, 10) = 1.08e-05) for run t1-new, its inputs moved; R's as t1-r: exit 4.
rm -rf "$T/pb" "$T/pr"
python3 $G gen "$T/pb/t1-new" B && python3 $G gen "$T/pr/t1-r" R || bad "gen pair"
$PERFSTUDY build -q "$T/pb/t1-new" -o "$T/o-pb" 2> "$T/err" && $PERFSTUDY build -q "$T/pr/t1-r" -o "$T/o-pr" 2>> "$T/err" ||
	bad "build pair: $(cat "$T/err")"
$PERFSTUDY diff "$T/o-A" "$T/o-pb" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx 'default: t1-new: run added' "$T/out" && grep -qx 'default: t1: run removed' "$T/out" &&
	grep -qx 'default: run t1 removed and run t1-new added: .*--pair t1=t1-new' "$T/out" &&
	! grep -q ': step ' "$T/out" && ok || bad "A -> t1-new without --pair: rc $rc: $(cat "$T/out")"
$PERFSTUDY diff --pair t1=t1-new --json "$T/pair.json" "$T/o-A" "$T/o-pb" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qxF "default: t1-new: compared with run t1 of $T/o-A (--pair t1=t1-new)" "$T/out" &&
	grep -q '^default: t1-new: step .* (+2.83 %, 10 vs 10 profiled steps (slowest rank), .*, p = 1.08e-05): slower by 2.8 % (beyond noise, under the 5 % threshold)$' "$T/out" &&
	grep -qxF "default: t1-new: inputs moved: $T/w/t1 -> $T/pb/t1-new (2 inputs, matched by rank and format; 2 of them with another SHA-256)" "$T/out" &&
	grep -qxF '  kernel gemm_bwd: +0.030 ms (0.300 -> 0.330)' "$T/out" && ! grep -q 'run added\|run removed\|--pair t1=t1-new$' "$T/out" &&
	ok || bad "A -> t1-new with --pair: rc $rc: $(cat "$T/out")"
python3 - "$T/pair.json" <<'PY' && ok || bad "--pair: the JSON: $(cat "$T/pair.json")"
import json, sys
e = json.load(open(sys.argv[1]))["experiments"][0]
assert e["pairs"] == [{"old_run": "t1", "new_run": "t1-new"}], e["pairs"]
assert [s["run"] for s in e["step_times"]] == ["t1-new"] and abs(e["step_times"][0]["p_value"] - 2 / 184756) < 1e-9, e
PY
$PERFSTUDY diff -q --pair t1=t1-r "$T/o-A" "$T/o-pr" > "$T/out" 2>&1
[ $? -eq 4 ] && grep -q '^default: t1-r: step .*: slower by 57 %: REGRESSION (min effect 5 %)$' "$T/out" && ok ||
	bad "A -> t1-r with --pair: $(cat "$T/out")"
# A pair that fits no experiment, or is no pair, or pairs a run twice: exit 2, naming both stores.
$PERFSTUDY diff --pair t1=nope "$T/o-A" "$T/o-pb" > "$T/out" 2> "$T/err"
[ $? -eq 2 ] && [ ! -s "$T/out" ] && grep -qxF "perfstudy diff: error: --pair 't1=nope': no experiment has run 't1' in the latest build of $T/o-A/perfstudy.db and run 'nope' in that of $T/o-pb/perfstudy.db" "$T/err" &&
	ok || bad "--pair t1=nope: $(cat "$T/out" "$T/err")"
$PERFSTUDY diff --pair t1 "$T/o-A" "$T/o-pb" > /dev/null 2> "$T/err"
[ $? -eq 2 ] && grep -q "pair 't1': expected OLD=NEW" "$T/err" && ok || bad "--pair t1: $(cat "$T/err")"
$PERFSTUDY diff --pair t1=a --pair t1=b "$T/o-A" "$T/o-pb" > /dev/null 2> "$T/err"
[ $? -eq 2 ] && grep -q "run 't1' is paired twice" "$T/err" && ok || bad "--pair twice: $(cat "$T/err")"

# --- bad use ---
$PERFSTUDY diff --json "$T/no/such/dir/x.json" "$T/o-A" "$T/o-B" > /dev/null 2> "$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q "no/such/dir/x.json: error: cannot write the JSON of the diff" "$T/err" && ok || bad "--json to a missing directory: rc $rc: $(cat "$T/err")"
$PERFSTUDY diff "$T/o-A" "$T/o-B" --json > /dev/null 2> "$T/err"
[ $? -eq 2 ] && grep -q "needs a FILE" "$T/err" && ok || bad "--json without a FILE: $(cat "$T/err")"
finish
