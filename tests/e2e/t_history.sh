#!/bin/bash
# t_history.sh: step times as distributions and differences against their
# noise (step_stats.csv, step_compare.csv; src/analyze/lib/stats.c), on the
# hand-written traces of tests/data/history (make_traces.sh there says how
# they were written). Step durations in us:
#   d1        96 98 100 102 104 106           (6 steps, evens)
#   d1-rerun  97 99 101 103 105 107           (6 steps, odds)
#   d2        93 95 97 ... 109                (9 steps, odds)
#   d2-slow   113 115 ... 129                 (9 steps, odds)
#   d3        108 110 ... 124                 (9 steps, evens)
# The numbers are worked out by hand below and computed again by
# tests/stats_ref.py (plain Python, exact fractions) from the raw traces.
. "$(dirname "$0")/lib.sh"
H=tests/data/history

mkdir -p "$T/s1"
cp $H/d1.json $H/d2.json $H/d3.json "$T/s1/"
cat > "$T/s1/study.yaml" <<'YAML'
version: 1
id: nightly
title: Nightly
runs:
  - id: d1
    traces: [d1.json]
  - id: d2
    traces: [d2.json]
  - id: d3
    traces: [d3.json]
YAML
$PERFSTUDY build -q "$T/s1/study.yaml" -o "$T/o1" 2> "$T/err" && ok || bad "build failed: $(cat "$T/err")"

# step_stats.csv by hand.
# d1, n = 6: median (100 + 102) / 2 = 101. P(B <= 0) = 1/64, 2/64 = 0.03125
#   <= 0.05 but 2 P(B <= 1) = 14/64 > 0.05, so l = 1: [x(1), x(6)] = [96, 106],
#   level 1 - 2/64 = 0.96875. Mean 606 / 6 = 101.
# d2, n = 9: median x(5) = 101. 2 P(B <= 1) = 2 * 10/512 = 0.039 <= 0.05,
#   2 P(B <= 2) = 2 * 46/512 = 0.18 > 0.05, so l = 2: [x(2), x(8)] =
#   [95, 107], level 1 - 20/512 = 0.9609375. Mean 909 / 9 = 101.
# d3, n = 9: median 116, [110, 122], level 0.9609375, mean 1044 / 9 = 116.
# GPU side: each step launches one kernel (same correlation); its end minus
# the previous step's. d1: ends 1256 1458 1655 1857 2059 2254, periods 202
# 197 202 202 195, median 202 of 5. d2: 202 197 202 202 195 206 193 208,
# median (202 + 202) / 2 = 202 of 8. d3: 197 205 194 208 194 203 198 204,
# median (198 + 203) / 2 = 200.5 of 8.
cat > "$T/want" <<'WANT'
run,ranks,steps,median_us,ci_low_us,ci_high_us,ci_level,min_us,max_us,mean_us,gpu_periods,gpu_period_median_us
d1,1,6,101.000,96.000,106.000,0.968750,96.000,106.000,101.000,5,202.000
d2,1,9,101.000,95.000,107.000,0.960938,93.000,109.000,101.000,8,202.000
d3,1,9,116.000,110.000,122.000,0.960938,108.000,124.000,116.000,8,200.500
WANT
same "$T/want" "$T/o1/nightly/data/step_stats.csv" "step_stats.csv"

# step_compare.csv by hand (pairs: each run against the first, d1).
# d1 vs d2: U of d2 = pairs with d2's step longer: d1's 96 is beaten by 7
#   of d2's (97..109), 98 by 6, 100 by 5, 102 by 4, 104 by 3, 106 by 2:
#   27 = 6 * 9 / 2, the middle of U's range: p = 1, within noise.
# d1 vs d3: every d3 step (>= 108) is longer than every d1 step (<= 106):
#   U = 54, the largest value; exactly one of the C(15, 6) = 5005 equally
#   likely rank sets gives it, so p = 2 / 5005 = 0.0003996: a change.
#   ratio 116 / 101 = 1.14851.
# compared: host steps, the loop not asynchronous: each step's one kernel
# (half the step long, 6 us after its start) ends inside its host range.
cat > "$T/want" <<'WANT'
run_a,run_b,steps_a,steps_b,median_a_us,median_b_us,ratio,u,p_value,p_method,verdict,compared
d1,d2,6,9,101.000,101.000,1,27,1,exact,within noise,host steps
d1,d3,6,9,101.000,116.000,1.14851,54,0.0003996,exact,change,host steps
WANT
same "$T/want" "$T/o1/nightly/data/step_compare.csv" "step_compare.csv"

# The same numbers from the separate Python script, over the raw traces.
if command -v python3 > /dev/null; then
	python3 tests/stats_ref.py stats d1=$H/d1.json d2=$H/d2.json d3=$H/d3.json > "$T/ref" &&
		same "$T/ref" "$T/o1/nightly/data/step_stats.csv" "step_stats.csv against stats_ref.py"
	{
		head -1 "$T/o1/nightly/data/step_compare.csv"
		python3 tests/stats_ref.py compare d1=$H/d1.json d2=$H/d2.json
		python3 tests/stats_ref.py compare d1=$H/d1.json d3=$H/d3.json
	} > "$T/ref"
	same "$T/ref" "$T/o1/nightly/data/step_compare.csv" "step_compare.csv against stats_ref.py"
else
	skipped "python3 not installed: stats_ref.py not run"
fi
# The figure that shows the spread is there.
[ -s "$T/o1/nightly/figures/step_times.svg" ] && ok || bad "no figures/step_times.svg"

# --- history: a study rebuilt after adding a run and after replacing traces ---
W=$T/w
mkdir -p "$W"
cp $H/d1.json $H/d2.json $H/d3.json "$W/"
manifest() { # RUN... : the study with these runs, all in series 'nightly'
	{
		printf 'version: 1\nid: nightly\ntitle: Nightly\n'
		printf 'thresholds: {step_time_pct: 0.5, mfu_pp: -2}\n'
		printf 'hardware: {peak_tflops: 100}\nmodel: {layers: 1, hidden: 1000, heads: 10, seq: 64}\n'
		printf 'series:\n  - name: nightly\n    runs: [%s]\n' "$(echo "$@" | sed 's/ /, /g')"
		printf 'runs:\n'
		for r in "$@"; do printf '  - id: %s\n    batch: 1\n    traces: [%s.json]\n' "$r" "$r"; done
	} > "$W/study.yaml"
}
# The model makes MFU computable: one layer, d = 1000, f = 4d = 4000,
# s = 64, batch 1, no vocabulary: 3 x [2 * 64 * (4e6 + 8e6) + 4 * 64^2 *
# 1000] = 3 x (1.536e9 + 16.384e6) = 4.657152e9 FLOPs a step, against the
# manifest's peak of 100 TFLOP/s; utilization.csv takes the mean step.
O=$T/site
manifest d1 d2
SOURCE_DATE_EPOCH=1700000000 $PERFSTUDY build -q --force "$W/study.yaml" -o "$O" 2> "$T/err" && ok || bad "build 1 failed: $(cat "$T/err")"
cp -r "$O" "$T/b1"
# q SQL: a query of the store, or the expected answer when there is no sqlite3 to ask.
q() { if command -v sqlite3 > /dev/null; then sqlite3 "$O/perfstudy.db" "$1"; else echo "$2"; fi; }
command -v sqlite3 > /dev/null || skipped "sqlite3 not installed: history tables not read"
[ "$(q 'SELECT build, built_at FROM history_builds' '1|1700000000')" = "1|1700000000" ] && ok ||
	bad "build 1: history_builds holds '$(q 'SELECT * FROM history_builds')'"
[ ! -e "$O/nightly/data/changes.csv" ] && grep -q 'first build this output directory records' "$O/nightly/index.html" &&
	ok || bad "build 1: a change table, or no note that it is the first build"
# A rebuild that changes nothing records nothing: the same bytes, the store
# included (the same command line: meta.fingerprint holds it).
$PERFSTUDY build -q --force "$W/study.yaml" -o "$O" 2> "$T/err" && ok || bad "forced rebuild failed: $(cat "$T/err")"
diff -r "$T/b1" "$O" > /dev/null && ok || bad "a forced rebuild of the same inputs changed the output"

# Build 2: run d3 added (the series grows by it).
manifest d1 d2 d3
$PERFSTUDY build -q "$W/study.yaml" -o "$O" 2> "$T/err" && ok || bad "build 2 failed: $(cat "$T/err")"
cp -r "$O" "$T/b2"
cat > "$T/want" <<'WANT'
change,run,item,old,new,diff_pct,p_value,verdict,threshold_crossed
run added,d3,,,,,,,
WANT
same "$T/want" "$O/nightly/data/changes.csv" "build 2 changes.csv"
# series.csv: d2 against d1 as in step_compare.csv (p = 1); d3 against d2:
# every d3 step (108..124) is longer than every d2 step (93..109) but 109 >
# 108, so U = 81 - 1 = 80; of the C(18, 9) = 48620 rank sets, one gives
# U = 81 and one U = 80: p = 2 * 2 / 48620 = 8.22707e-05. 116 / 101 = 1.14851.
cat > "$T/want" <<'WANT'
series,order,run,steps,median_us,ci_low_us,ci_high_us,ratio_to_previous,p_value,verdict
nightly,1,d1,6,101.000,96.000,106.000,,,
nightly,2,d2,9,101.000,95.000,107.000,1,1,within noise
nightly,3,d3,9,116.000,110.000,122.000,1.14851,8.22707e-05,change
WANT
same "$T/want" "$O/nightly/data/series.csv" "build 2 series.csv"
[ -s "$O/nightly/figures/trend_nightly.svg" ] && ok || bad "no trend figure for series nightly"
$PERFSTUDY diff "$T/b1" "$T/b2" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx 'nightly: d3: run added' "$T/out" && ok || bad "diff b1 b2: rc $rc, $(cat "$T/out")"

# Build 3: d1's trace replaced by a re-profile within the noise. Its median
# goes 101 -> 102 us (+0.990099 %, over the 0.5 % threshold) but U = 21 of
# 36 (d1's 96 is beaten by 6 of the new steps 97..107, 98 by 5, ... 106 by
# 1: 6+5+4+3+2+1), near the middle 18: p = 0.699134 (exact, as
# tests/stats_ref.py computes it): within noise, so no threshold is crossed.
cp $H/d1-rerun.json "$W/d1.json"
$PERFSTUDY build -q "$W/study.yaml" -o "$O" 2> "$T/err" && ok || bad "build 3 failed: $(cat "$T/err")"
cp -r "$O" "$T/b3"
old=$(sha256sum $H/d1.json | cut -c1-12)
new=$(sha256sum $H/d1-rerun.json | cut -c1-12)
grep -qx "re-read,d1,$W/d1.json,$old,$new,,,," "$O/nightly/data/changes.csv" && ok ||
	bad "build 3: no re-read row for d1 ($old -> $new): $(cat "$O/nightly/data/changes.csv")"
# One row for d1's step time (src/analyze/lib/verdict.h): 6 vs 6 steps, medians
# 0.101 -> 0.102 ms, intervals [96, 106] and [97, 107] us overlap, and the
# test (possible: smallest p 2 / C(12, 6) = 0.0022) gives 0.699: within
# noise, though +0.99 % is over the 0.5 % minimum effect.
grep -qx 'step time,d1,"6 vs 6 profiled steps (slowest rank); 95 % intervals \[0.096, 0.106\] and \[0.097, 0.107\] ms",0.101,0.102,0.990099,0.699134,same (within noise),' "$O/nightly/data/changes.csv" && ok ||
	bad "build 3: d1's step time row: $(grep 'step time' "$O/nightly/data/changes.csv")"
! grep -q 'step_median_us' "$O/nightly/data/changes.csv" && ok || bad "build 3: step_* numbers listed beside the step time row"
# d1's MFU falls 0.461104 -> 4.657152e9 / 102 us / 100 TFLOP/s = 0.4565835 (0.456584 to six digits),
# within the noise like its steps: no threshold. Its own test runs on its samples, flops / each
# step time: the steps' order reversed, so the rank test's p is theirs, 0.699134.
grep -qx 'moved,d1,mfu,0.461104,0.456584,-0.980392,0.699134,same (within noise),' "$O/nightly/data/changes.csv" && ok ||
	bad "build 3: d1's mfu row: $(grep ',mfu,' "$O/nightly/data/changes.csv")"
if command -v python3 > /dev/null; then
	[ "$(python3 tests/stats_ref.py compare a=$H/d1.json b=$H/d1-rerun.json | cut -d, -f9-11)" = "0.699134,exact,within noise" ] &&
		ok || bad "stats_ref.py disagrees on d1 against its re-profile"
fi
$PERFSTUDY diff "$T/b2" "$T/b3" > "$T/out" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q REGRESSION "$T/out" && grep -qx 'nightly: d1: step 0.101 -> 0.102 ms (+0.99 %, 6 vs 6 profiled steps (slowest rank), 95 % intervals \[0.096, 0.106\] and \[0.097, 0.107\] ms, p = 0.699): same (within noise)' "$T/out" &&
	ok || bad "diff b2 b3 (within noise): rc $rc, $(cat "$T/out")"

# Build 4: d2's trace replaced by a slower one (113..129 us). Every new step
# is longer than every old one: U = 81, p = 2 / 48620 = 4.11353e-05; median
# 101 -> 121 us, +19.802 %: beyond the noise and over 0.5 %: a threshold.
cp $H/d2-slow.json "$W/d2.json"
$PERFSTUDY build -q "$W/study.yaml" -o "$O" 2> "$T/err" && ok || bad "build 4 failed: $(cat "$T/err")"
grep -qx 'step time,d2,"9 vs 9 profiled steps (slowest rank); 95 % intervals \[0.095, 0.107\] and \[0.115, 0.127\] ms",0.101,0.121,19.802,4.11353e-05,slower by 20 %,step_time_pct 0.5' "$O/nightly/data/changes.csv" &&
	ok || bad "build 4: d2's step time row: $(grep 'step time' "$O/nightly/data/changes.csv")"
grep -q '^re-read,d2,' "$O/nightly/data/changes.csv" && ! grep -q ',d1,' "$O/nightly/data/changes.csv" && ok ||
	bad "build 4 lists other changes than d2's: $(cat "$O/nightly/data/changes.csv")"
# MFU: 4.657152e9 / (101 us x 100 TFLOP/s) = 0.461104 -> / 121 us = 0.3848886 (0.384889 to six digits),
# -7.6 percentage points (past mfu_pp -2), -16.5289 % (101 / 121 - 1).
grep -qx 'moved,d2,mfu,0.461104,0.384889,-16.5289,4.11353e-05,lower by 17 % (beyond noise),mfu_pp -2' "$O/nightly/data/changes.csv" &&
	ok || bad "build 4: d2's mfu row: $(grep ',mfu,' "$O/nightly/data/changes.csv")"
$PERFSTUDY diff "$T/b3" "$O" > "$T/out" 2>&1
rc=$?
[ $rc -eq 4 ] && grep -qx 'nightly: d2: step 0.101 -> 0.121 ms (+19.80 %, 9 vs 9 profiled steps (slowest rank), 95 % intervals \[0.095, 0.107\] and \[0.115, 0.127\] ms, p = 4.11e-05): slower by 20 %: REGRESSION (step_time_pct 0.5)' "$T/out" &&
	ok || bad "diff b3 b4 (beyond a threshold): rc $rc, $(cat "$T/out")"
$PERFSTUDY diff -q "$T/b3" "$O" > "$T/out" 2>&1
# -q: the two regressions (the median and the MFU), and where the step's time went (10 lines:
# the two, a header, per list of kernel groups, kernels and regions one line and the idle line, one rank).
[ $? -eq 4 ] && [ "$(grep -c REGRESSION "$T/out")" -eq 2 ] && [ "$(wc -l < "$T/out")" -eq 10 ] && ok ||
	bad "diff -q (the median and the MFU): $(cat "$T/out")"
[ "$(q 'SELECT group_concat(build) FROM history_builds' 1,2,3,4)" = "1,2,3,4" ] && ok ||
	bad "history_builds after four builds: $(q 'SELECT * FROM history_builds')"
[ "$(q "SELECT count(*) FROM history_steps WHERE run = 'd2'" 36)" = 36 ] && ok ||
	bad "history_steps: want 9 steps of d2 in each of 4 builds"
# Bad use: a directory without a store, a wrong command line.
$PERFSTUDY diff "$W" "$O" > /dev/null 2> "$T/err"
[ $? -eq 1 ] && grep -q "no perfstudy.db here" "$T/err" && ok || bad "diff of a non-output: $(cat "$T/err")"
$PERFSTUDY diff "$O" > /dev/null 2>&1
[ $? -eq 2 ] && ok || bad "diff with one directory did not exit 2"
$PERFSTUDY help diff | grep -q 'exit codes: 0 no regression, 4 a regression' && ok || bad "help diff"

finish
