#!/bin/bash
# t_findings.sh: the findings at the top of an experiment's page
# (src/analyze/findings/findings.c) on hand-built traces whose numbers are worked out
# here by hand (tests/data/findings/, times in us).
. "$(dirname "$0")/lib.sh"

# Run "two", ProfilerStep#1 [1000, 2000] on both ranks, batch 8 per GPU.
#   rank 0: gemm [1030, 1330] on stream 7, all-reduce [1340, 1990] on stream
#           20 (650 us inside the collective), host done at 1130, then
#           cudaDeviceSynchronize [1130, 1995].
#   rank 1: the host works alone [1000, 1690] (aten::slow_host_work), then
#           launches gemm [1720, 1920] and the all-reduce [1930, 1990].
# ranks.csv: comm share rank 0 = 650 / 1000 = 0.65, rank 1 = 60 / 1000 = 0.06;
#   difference 0.59 >= 0.20, so comm-skew: rank 0 waits for rank 1 (value 0.59).
#   idle rank 1 = 1000 - (200 + 60) = 740 -> 0.74 >= 0.20.
# critical path of rank 1 (back from 2000): [1995, 2000] host 5; the sync's
#   end waited for the all-reduce's end 1990: [1990, 1995] host 5; the
#   all-reduce [1930, 1990] communication 60; its start waited for its launch
#   at 1915 (its stream was empty, the launch returned 1925, 5 us before):
#   [1915, 1930] host 15; the thread back to 1000: host 915. host = 5 + 5 +
#   15 + 915 = 940 of 1000 = 0.94 >= 0.50: rank 1 is host-bound (value: its
#   idle share 0.74), and as the rank waited for it says so.
# scaling: both runs' step 1000 (two) and 500 (one); samples/s = gpus x
#   batch / step: one 8 / 500 us = 16000/s, two 16 / 1000 us = 16000/s;
#   speedup 1.00 on 2x the GPUs, efficiency 0.5.
# Matched across the ranks (collective_waits.csv, crossrank.c): the
#   all-reduce's ends agree (1990, 1990): clock offset 0; rank 1 arrives
#   last at 1930, rank 0 waits 1930 - 1340 = 590 us = 0.59 of its step: the
#   waiting finding (value 0.59) replaces comm-skew, which applies only
#   without matched collectives. Straggler window [1340, 1930] on rank 1:
#   gemm [1720, 1920] computes 200 (34 %); idle 390 = 0.661017 of 590:
#   [1340, 1720] inside aten::slow_host_work and aten::mm, [1920, 1925]
#   inside c10d::allreduce_ (385, 65 %), [1925, 1930] between operators
#   (5, 1 %).
# Run "one": ProfilerStep#1 [1000, 1500], gemm [1060, 1460] launched at
#   1040; the GPU is busy its whole span (temporal.csv idle 0) and the
#   critical path is 100 us host of 500 (0.2 < 0.5): no finding.
$PERFSTUDY build -q tests/data/findings/study.yaml -o "$T/o" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "build failed: $(cat "$T/err")"
D="$T/o/findings"
python3 -c 'import csv, sys
for r in csv.reader(open(sys.argv[1])): print(",".join([r[0], r[1], r[3], r[4]]))' "$D/data/findings.csv" >"$T/got"
cat >"$T/want" <<'WANT'
run,rank,value,evidence
two,1,0.59,table-collective_waits
one,0,0.0909091,table-replay_fixes
two,,1,table-scaling
two,1,0.661017,table-straggler_ranks
two,1,0.74,table-gpu_idle
WANT
same "$T/want" "$T/got" "findings.csv run, rank, value, evidence"
grep -q '^two,,two runs at 1.00x the throughput of one with 2x its GPUs (50 % scaling efficiency),' "$D/data/findings.csv" \
	&& ok || bad "scaling finding's text"
# Rank 0's wait [1340, 1930] meets no other activity of its GPU (the gemm
# ended at 1330): all 590 us of it exposed.
# The price, from the replay of both ranks together (replay_fixes.csv; no
# log: host factor 1). The job's step runs from the first GPU activity of
# the step on any rank (rank 0's gemm at 1030) to the last end (both
# synchronizes return at 1995): 965. Host work per rank, the gaps between
# calls from the step's start at 1000 plus each call's own cost (a wait's
# cost is the median launch's, 10): rank 0 10 + 90 + 10 + 3 x 10 = 140,
# rank 1 700 + 205 + 0 + 3 x 10 = 935. host_like_median scales rank 1's
# host by 140 / 935: its launches return at 1000 + 104 + 1 = 1105 (gemm
# 1115-1315, started 10 after its launch as measured) and 1105 + 30 + 1 =
# 1136 (its all-reduce, which started 5 us after its launch as measured, is
# ready at 1141: no wait on the gemm was seen). Rank 0 is unchanged: its
# all-reduce starts after its gemm (1330) + 10 = 1340, the last start, so
# both all-reduces end at 1340 + 60 (the wait-free transfer: 1990 - 1930)
# = 1400, and both synchronizes return at 1405: the step is 1405 - 1030 =
# 375, 590 shorter. Noise: 1 % of 965 = 9.65 (one step). Said first
# (findings are ordered by saving), with the replay's words.
grep -q 'two: if rank 1 arrived with the others.* 590 us per step, 61 % of the 965 us step.*replay_fixes\.csv).* noise of 10 us; .*wait for rank 1 per step.*: rank 0 0\.6 ms exposed (0\.6 ms in all, 59 % of its step)' "$D/data/findings.csv" \
	&& ok || bad "waiting finding's text"
python3 -c 'import csv, sys
print([r["saving_us_per_step"] for r in csv.DictReader(open(sys.argv[1])) if r["evidence"] == "table-collective_waits"])' \
	"$D/data/findings.csv" | grep -qx "\['590.000'\]" && ok || bad "the waiting finding's saving_us_per_step is not 590 us"
# The one window [1340, 1930] that made rank 0 wait: 590 us = 0.6 ms in the one step.
grep -q 'two rank 1, in the 1 window .*waited for it (.*; 0\.6 ms, 0\.6 ms per step, .*): its GPU was idle 66 % .*(65 % .*inside an operator, 1 % between operators), computing 34 %' "$D/data/findings.csv" \
	&& ok || bad "straggler-windows finding's text"
# Rank 1's GPU (gpu_idle.csv): busy [1720, 1920] and [1930, 1990]; the gap before the first activity
# (720 us in the step) waits for the host; [1920, 1930]: the all-reduce's launch ended at 1925, after the
# gap began: host; [1990, 2000] after the last activity: other. Host wait 730 of 740 idle = 99 %.
grep -q 'two rank 1 is host-bound: .*idle 74 % of the step, .*94 % of the step.s critical path .*host operators and kernel launches; 99 % of its GPU.s idle time .*waiting for the host' "$D/data/findings.csv" \
	&& ok || bad "host-bound finding's text"
# Run one, replayed alone: its step runs from the gemm's start (1060) to the
# synchronize's return (1500): 440. The synchronize waited for the gemm's
# end (1460) and woke 40 later; returning at once (after its 10 us cost, at
# 1080) the step ends with the gemm: 400, 40 us saved, 9 % of the step, over
# the noise (1 % of 440 = 4.4): the one finding of run one.
grep -q '^one,0,.*one: synchronisations .*(cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize) (outside every annotated phase, 1 per step): .* 40 us per step, 9 % of the 440 us replayed step' "$D/data/findings.csv" &&
	ok || bad "run one: the synchronize's replayed price"
[ "$(grep -c '^one,' "$D/data/findings.csv")" -eq 1 ] && ok || bad "run one: more than the one finding"

# Where two's extra time over one goes (step_diff.csv), each step a partition:
#   one (1 rank): step 500, gemm [1060, 1460] busy 400, idle 100.
#   two rank 0: gemm [1030, 1330] busy 300; all-reduce [1340, 1990]: waiting for rank 1 until its
#     arrival at 1930 (exposed: nothing else runs) 590, then transferring 60 (exposed communication);
#     idle 1000 - 300 - 650 = 50. rank 1: gemm busy 200, all-reduce 60 exposed communication (it
#     arrived last: no wait), idle 740.
#   two, mean over ranks: busy 250, communication 60, wait 295, idle 395 (sum 1000).
#   extra 500 = busy -150 + communication 60 + wait 295 + idle 295.
grep -qx 'two,one,2,1000.000,500.000,500.000,-150.000,60.000,295.000,295.000' "$D/data/step_diff.csv" && ok ||
	bad "step_diff.csv: $(cat "$D/data/step_diff.csv")"
[ -s "$D/figures/step_diff.svg" ] && ok || bad "figure step_diff missing"

# The page: the findings first, each linking to an anchor the page has; not
# repeated among the tables.
P="$D/index.html"
grep -q '<section id="findings" class="findings">' "$P" && ok || bad "no findings section"
for a in $(grep -o 'class="evidence" href="#[^"]*"' "$P" | sed 's/.*#//; s/"//'); do
	grep -q "id=\"$a\"" "$P" && ok || bad "evidence link #$a has no anchor"
done
[ "$(grep -c 'class="evidence"' "$P")" -eq 5 ] && ok || bad "expected 5 evidence links"
grep -q 'id="table-findings"' "$P" && bad "findings.csv also shown as a table" || ok
[ "$(grep -n 'id="findings"' "$P" | cut -d: -f1)" -lt "$(grep -n 'id="runs"' "$P" | cut -d: -f1)" ] \
	&& ok || bad "findings not before the runs"
grep -q '<dt><code>findings.csv</code></dt>' "$P" && ok || bad "no Methods entry for findings.csv"
grep -q '^<h3>two</h3>$' "$P" && ok || bad "findings not listed under their run"
grep -q '^<h3>one</h3>$' "$P" && ok || bad "no heading for run one's finding"
# The bundled H200 study: every finding's number recomputed from the raw
# traces by tests/golden/findings_check.py (Python's json module, none of
# perfstudy's tables): scaling, who waits for whom inside matched
# collectives and how long, what the last rank's GPU did before it arrived,
# host-bound ranks (idle share, and most of the idle time waiting for a launch),
# and the matrix products that lose the most time against their roofline.
if command -v python3 >/dev/null; then
	example_h200 "$T/h200" 2>"$T/err"
	[ $? -eq 0 ] && ok || bad "h200 build failed: $(cat "$T/err")"
	. tests/golden/h200-runs.sh
	mapfile -t A < <(h200_runs long)
	[ "$(grep -c . "$T/h200/h200/data/findings.csv")" -gt 10 ] && ok || bad "h200: fewer than 10 findings"
	python3 tests/golden/findings_check.py "$T/h200/h200/data/findings.csv" "${A[@]}" >"$T/fc" 2>&1 \
		&& ok || bad "h200 findings disagree with the raw traces: $(cat "$T/fc")"
	# Issue #57: in bert-4gpu-ddp ranks 0-2 wait for rank 3 about 76-79 of their
	# ~123 ms profiled step inside the all-reduces (by hand from the raw traces,
	# findings_check.py's waits()), yet its saving (the replay's ~10 ms) is less
	# than the ~57 ms per step the profiler added (rank0.log: profiled median
	# 127.1 ms less unprofiled 70.35 ms): the straggler is said, unpriced, with
	# why; findings_check.py has checked each number of it above.
	grep -q '^bert-4gpu-ddp,3,"bert-4gpu-ddp: rank 3 held the other ranks back, but no saving is stated for it: .*rank 0 [0-9.]* ms exposed .*rank 1 .*rank 2 .*No saving, because .*less than the [0-9.]* ms per step the profiler added' \
		"$T/h200/h200/data/findings.csv" && ok || bad "h200: bert-4gpu-ddp's straggler rank 3 is not said unpriced"
	grep -q 'rank 3 held the other ranks back' "$T/h200/h200/index.html" && ok ||
		bad "h200 page: the unpriced straggler is not on the page"
	# its folded summary says who waited for whom: it read "inside matched
	# collectives they waited for it per step, exposed", cut mid-phrase
	grep -q '<summary>bert-4gpu-ddp: rank 3 held the other ranks back, but no saving is stated for it: inside matched collectives the others waited for it per step</summary>' \
		"$T/h200/h200/index.html" && ok || bad "h200 page: the unpriced straggler's summary: $(grep -o '<summary>bert-4gpu-ddp: rank 3[^<]*' "$T/h200/h200/index.html")"
	# and under "What to fix first", which lists only priced causes
	sed -n '/<section id="fix"/,/<\/section>/p' "$T/h200/h200/index.html" |
		grep -q 'Seen, not priced: .*bert-4gpu-ddp rank 3.* held the other ranks back' && ok ||
		bad "h200 page: What to fix first does not name the unpriced straggler"
else
	skipped "python3 not installed: the bundled study's findings are not checked"
fi
# host-bound over many ranks: N copies of two's rank 1 (host-bound by hand
# above: idle 74 %, critical path 94 % host, 99 % of the idle waiting for the
# host) as ranks 0 .. N-1, arriving together (no one waits, so no straggler).
# Four ranks: a statement each; six: one for the run, with the shares and
# rank 0 (all tie; the lowest) named as the one idle longest.
for n in 4 6; do
	mkdir -p "$T/m$n/many"
	for r in $(seq 0 $((n - 1))); do
		sed -e "s/\"rank\": 1, \"world_size\": 2/\"rank\": $r, \"world_size\": $n/" -e 's/"Group size": 2/"Group size": '"$n"'/' \
			tests/data/findings/two/rank1.json >"$T/m$n/many/rank$r.json"
	done
	printf '%s\n' 'version: 1' 'id: many' 'title: many host-bound ranks' 'runs:' \
		"  - {id: many, gpus: $n, strategy: ddp, traces: many/rank*.json}" >"$T/m$n/study.yaml"
	$PERFSTUDY build -q "$T/m$n/study.yaml" -o "$T/m$n/o" 2>"$T/err" || bad "$n copies: build failed: $(cat "$T/err")"
done
[ "$(grep -c '^many,[0-9]*,"many rank [0-9] is host-bound: its GPU is idle 74 %' "$T/m4/o/many/data/findings.csv")" -eq 4 ] &&
	ok || bad "4 host-bound ranks: not one statement each: $(cat "$T/m4/o/many/data/findings.csv")"
[ "$(grep -c 'host-bound' "$T/m6/o/many/data/findings.csv")" -eq 1 ] &&
	grep -q '^many,0,"many: 6 of its 6 ranks are host-bound: .*idle 74 % of the step, .*94 % of the step.s critical path .*host operators and kernel launches; 99 % of their GPUs. idle time .*waiting for the host.*; rank 0 idles most' \
		"$T/m6/o/many/data/findings.csv" && ok || bad "6 host-bound ranks: not one statement for the run: $(cut -c1-300 "$T/m6/o/many/data/findings.csv")"
finish
