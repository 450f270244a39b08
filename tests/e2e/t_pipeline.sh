#!/bin/bash
# t_pipeline.sh: pipeline_stages.csv and the pipeline-bubble finding (issue 42)
# on synthetic pipeline-parallel Kineto traces (tests/e2e/pipeline_gen.py),
# against an independent reading of the same traces (pipeline_check.py) and
# against the schedule's bubble worked out by hand:
#
#   GPipe, p = 4 stages, m = 4 micro-batches, every stage t_f = 1000 us per
#   forward and t_b = 2000 us per backward, transfers free. Stage s runs
#   forward i in [(i + s) t_f, (i + s + 1) t_f): the last forward ends at
#   (m + p - 1) t_f. The backwards run the other way: stage s runs backward
#   i from (m + p - 1) t_f + (i + p - 1 - s) t_b, so stage 0's last ends at
#   (m + p - 1) (t_f + t_b) = 7 x 3000 = 21000 us: the span. Each stage
#   computes m (t_f + t_b) = 12000 us of it, so its bubble is
#   1 - 12000 / 21000 = 9 / 21 = 3/7 = 0.428571 = (p - 1) / (m + p - 1).
#
#   1F1B, p = 4, m = 8: each stage computes 8 x 3000 = 24000 us; its
#   warm-up and cool-down leave the same (p - 1) (t_f + t_b) = 9000 us idle
#   as GPipe's, span 33000 us: bubble 9000 / 33000 = 3/11 = 0.272727.
#
#   Planted: GPipe p = 4, m = 4 with stage 2 at twice the compute, stages on
#   ranks 2, 0, 3, 1: the others wait for it (imbalance 24000 / 15000 =
#   1.6), so their bubble exceeds 3/7 and the finding names stage 2's rank, 3.
#
#   real, realg: the 1F1B and GPipe runs with the NCCL args written as
#   PyTorch 2.11 writes them (pipeline_gen.py --args real: peer, dtype and
#   Seq only on the record_param_comms cpu_op of the kernel's External id),
#   realg with every kernel before its op (--order gpu-first): the same
#   rows as above, read through every ingest path (--jobs, shards + merge,
#   reuse of unchanged traces, small windows with parse helpers).
#
#   coal, coalg: the same 1F1B and GPipe runs in the form a
#   batch_isend_irecv takes under NCCL 2.28 (pipeline_gen.py --args
#   coalesced, as recorded in experiments/h200x4-parallel/probe/): one
#   ncclDevKernel_SendRecv per batch with no collective args, found through
#   the "nccl:coalesced" annotations; the same rows again (m counted:
#   no Seq). coal's 1F1B fuses a send with the next recv from the same
#   peer into one batch, as Schedule1F1B does: one "sendrecv" kernel, a
#   send and a recv at once. The probe itself, a batch of a send and a recv,
#   is a sendrecv of 1048576 Float each way with rank 0; with its recv
#   taken out, a send.
#
#   Sends and recvs are no collectives of the group but pairs: the k-th
#   send of A to B in a step with the k-th recv of B from A. No warning of
#   unmatched collectives or of clock offsets (pairs give none), and the
#   balanced runs give no finding at all (no comm-skew, no host-bound: the
#   bubble is the schedule's); the planted run only its pipeline-bubble.
#
#   Critical path across ranks (times from the step's start, which is
#   3500 us before the GPU's: the host launches LEAD = 3000 us ahead, from
#   400 + 100 us before that). Each step ends 1000 us after the span on
#   every rank (a tie: the path starts on rank 0), its host waits in a
#   cudaDeviceSynchronize for the optimizer's kernels (300 us, from 10 us
#   after the last backward). A stage whose compute waited for its input
#   waited (stream wait) for its recv, which ends as the compute starts and
#   started 3001 us before (launched LEAD + 2 us before, starting 1 us
#   after), so before its send: the path hops to the sender at the send's
#   start, the end of the sender's compute.
#   Planted (stage s on rank perm[s]: 2, 0, 3, 1; stage 2 t_f 2000, t_b
#   4000): forwards of stage 2 [2000 + 2000 i, 4000 + 2000 i), stage 3
#   [4000 + 2000 i, 5000 + 2000 i); backwards stage 3 [11000 + 2000 i, ..),
#   stage 2 [13000 + 4000 i, 17000 + 4000 i), stage 1 from 17000 after each
#   of stage 2's, the last [29000, 31000), stage 0's last ends at 33000:
#   the span, so the step is 37500 us. Back from its end on rank 0 (stage
#   1): host, sync, optimizer and stage 1's B3 to 29000 (5000 us, GPU
#   33000 - 29000 + 1000: 32.5 to 37.5 ms); rank 3's (stage 2) B3 .. B0,
#   back to back, 29000 to 13000 (16000 us: 16.5 to 32.5 ms); stage 2's B0
#   waited for stage 3's (rank 1) B0 [11000, 13000) after its F3
#   [10000, 11000) (3000 us: 13.5 to 16.5 ms), which waited for stage 2's
#   F3: rank 3's F3 .. F0, 10000 to 2000 (8000 us: 5.5 to 13.5 ms); its F0
#   waited for stage 1's (rank 0) F0 [1000, 2000) (1000 us: 4.5 to 5.5 ms),
#   which waited for stage 0's (rank 2) F0 [0, 1000) and the 3500 us before
#   (4500 us: 0 to 4.5 ms). Per rank: r0 6000, r1 3000, r2 4500, r3 24000:
#   the slow stage's rank holds most of the path.
#   Balanced GPipe (stage s on rank s): rank 0 from the step's end back to
#   its B0 at 13000 (its backwards back to back, 21000 + 1000 - 13000 =
#   9000 us), rank 1's B0 [11000, 13000), rank 2's B0 [9000, 11000),
#   rank 3's B0 and its forwards, back to back, [3000, 9000), rank 2's F0
#   [2000, 3000), rank 1's F0 [1000, 2000), rank 0's F0 [0, 1000) and the
#   3500 us before: r0 13500, r1 3000, r2 3000, r3 6000, every stage.
#   The recv of stage 3 (rank 1) of the planted run for F0 starts at 999
#   and its send at 4000, where its compute starts: wait_us 3001, last_rank
#   3 (its sender).
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
	skipped "python3 absent"
	finish
fi

G=tests/e2e/pipeline_gen.py
python3 $G "$T/gpipe" gpipe 4 4 && python3 $G "$T/onef1b" 1f1b 4 8 &&
	python3 $G "$T/slow" gpipe 4 4 --slow 2 --perm 2,0,3,1 &&
	python3 $G "$T/slow2" gpipe 4 4 --slow 2 --steps 2 &&
	python3 $G "$T/ppdp" gpipe 4 4 --world 8 && python3 $G "$T/ppdp" gpipe 4 4 --world 8 --perm 7,5,6,4 &&
	python3 $G "$T/real" 1f1b 4 8 --args real && python3 $G "$T/realg" gpipe 4 4 --args real --order gpu-first &&
	python3 $G "$T/coal" 1f1b 4 8 --args coalesced && python3 $G "$T/coalg" gpipe 4 4 --args coalesced --order gpu-first &&
	ok || bad "pipeline_gen.py failed"
gzip -9n "$T/onef1b"/rank*.json

cat >"$T/study.yaml" <<'YAML'
title: pipelines
runs:
  - {id: gpipe, traces: gpipe/rank*.json}
  - {id: onef1b, traces: onef1b/rank*.json.gz}
  - {id: slow, label: "slow <&> stage", traces: slow/rank*.json}
  - {id: slow2, traces: slow2/rank*.json}
  - {id: override, traces: gpipe/rank*.json, schedule: 1f1b, microbatches: 4}
  - {id: ppdp, traces: ppdp/rank*.json}
  - {id: real, traces: real/rank*.json}
  - {id: realg, traces: realg/rank*.json}
  - {id: coal, traces: coal/rank*.json}
  - {id: coalg, traces: coalg/rank*.json}
YAML
$PERFSTUDY build "$T/study.yaml" -o "$T/o" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "build failed: $(tail -3 "$T/err")"
# sends and recvs are matched in pairs, not as collectives: nothing unmatched, no clock offset out of true
grep -E 'left unmatched|clock offset|does not match' "$T/err" >"$T/warn"
[ -s "$T/warn" ] && bad "point-to-point ops matched as collectives: $(head -3 "$T/warn")" || ok
D=$T/o/study
P=$D/data/pipeline_stages.csv
# the critical path across ranks, as worked out above: per step, from critical_path_across.csv
cpa() { # cpa RUN PATH_BY_RANK MOST_RANK
	awk -F, -v run="$1" -v want="$2" -v most="$3" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["run"] == run { n++; if ($c["path_by_rank"] != want || $c["most_rank"] != most) b = 1 }
		END { exit n != 3 || b }' "$D/data/critical_path_across.csv" &&
		ok || bad "$1: critical path across ranks: $(grep "^$1," "$D/data/critical_path_across.csv" | cut -d, -f1-4,12-14)"
}
cpa slow "r0 6000.000; r1 3000.000; r2 4500.000; r3 24000.000" 3
cpa gpipe "r0 13500.000; r1 3000.000; r2 3000.000; r3 6000.000" 0
# ... and from the step timeline's tooltips (the figure's step: any, every step is the same)
tips() { # tips RUN: "rank:ms" per rank on the path, in rank order
	grep -o 'critical path across ranks on rank [0-9]*: [0-9.]* to [0-9.]*' "$D/figures/step_timeline_$1.svg" |
		awk '{ r = $7; sub(":", "", r); t[r] += $10 - $8 } END { for (r in t) printf "%s:%.3f\n", r, t[r] }' | sort | paste -sd' '
}
[ "$(tips slow)" = "0:6.000 1:3.000 2:4.500 3:24.000" ] && ok || bad "slow: timeline's critical path: $(tips slow)"
[ "$(tips gpipe)" = "0:13.500 1:3.000 2:3.000 3:6.000" ] && ok || bad "gpipe: timeline's critical path: $(tips gpipe)"
# the pairs in collective_waits.csv: every send and recv of the synthetic runs matched; the recv waited for its send
W=$D/data/collective_waits.csv
awk -F, 'NR > 1 && ($5 == "Send" || $5 == "Recv") { n++; if ($10 != 1) b++ } END { exit !n || b }' "$W" &&
	ok || bad "sends or recvs left unmatched: $(awk -F, '$10 == 0' "$W" | head -3)"
awk -F, '$1 == "slow" && $2 == 1 && $5 == "Recv" && $9 == 1 && $4 == 1 && $11 == "10999.000" && $16 == 3 && $17 == "3001.000" { f = 1 }
	END { exit !f }' "$W" && ok || bad "slow: rank 1's first recv: $(awk -F, '$1 == "slow" && $5 == "Recv" && $9 == 1' "$W" | head -2)"
[ -f "$P" ] && ok || bad "pipeline_stages.csv missing"
head -1 "$P" | grep -qx 'run,rank,pipeline,stage,stages,schedule,schedule_source,microbatches,microbatches_source,steps,span_us,compute_us,bubble_share,formula_bubble_share,excess_share,bubble_sigma,imbalance,p2p_us,p2p_bytes' &&
	ok || bad "pipeline_stages.csv header: $(head -1 "$P")"

# stage, stages, schedule, m and bubble_share of each run against pipeline_check.py (1e-6 on shares)
check_run() { # check_run RUN FILES...
	local run=$1
	shift
	python3 tests/e2e/pipeline_check.py "$@" >"$T/want.$run" || { bad "$run: pipeline_check.py failed"; return; }
	awk -F, -v run="$run" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["run"] == run { print $c["rank"] "," $c["stage"] "," $c["stages"] "," $c["schedule"] "," $c["microbatches"] "," $c["bubble_share"] }' \
		"$P" >"$T/got.$run"
	if awk -F, 'NR == FNR { if (FNR > 1) w[FNR - 1] = $0; next }
		{ split(w[FNR], a, ","); n++
		  for (i = 1; i <= 5; i++) if (a[i] != $i) exit 1
		  d = a[6] - $6; if (d < 0) d = -d; if (d > 1e-6) exit 1 }
		END { exit n == length(w) ? 0 : 1 }' "$T/want.$run" "$T/got.$run"; then
		ok
	else
		bad "$run: pipeline_stages.csv differs from pipeline_check.py"
		paste -d'|' "$T/want.$run" "$T/got.$run" >&2
	fi
}
check_run gpipe "$T"/gpipe/rank*.json
check_run onef1b "$T"/onef1b/rank*.json.gz
check_run slow "$T"/slow/rank*.json
check_run real "$T"/real/rank*.json
check_run realg "$T"/realg/rank*.json
check_run coal "$T"/coal/rank*.json
check_run coalg "$T"/coalg/rank*.json

# the hand constants: 3/7 on every GPipe stage, 3/11 on every 1F1B stage, as measured and as the formula
hand() { # hand RUN SHARE
	awk -F, -v run="$1" -v h="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["run"] == run { n++; for (k = 0; k < 2; k++) { x = k ? $c["formula_bubble_share"] : $c["bubble_share"]
			d = x - h; if (d < 0) d = -d; if (d > 1e-6) bad++ } }
		END { exit n == 4 && !bad ? 0 : 1 }' "$P" && ok || bad "$1: bubble_share is not $2 on its 4 stages"
}
hand gpipe 0.428571428571
hand onef1b 0.272727272727
hand override 0.428571428571
hand real 0.272727272727
hand realg 0.428571428571
hand coal 0.272727272727
hand coalg 0.428571428571
# the planted case's formula is GPipe's too; the slow stage idles 1 - 24000 / 33000 = 3/11
awk -F, '$1 == "slow" && $4 == 2 && $2 == 3 && $14 == "0.428571" && $13 == "0.272727" && $17 == "1.6" { f = 1 } END { exit !f }' "$P" &&
	ok || bad "slow: stage 2 should be rank 3 with bubble 3/11, formula 3/7, imbalance 1.6"

# two pipelines in one run (pipeline and data parallel): ranks 0-3 and 7, 5, 6, 4, each 3/7
awk -F, '$1 == "ppdp" { n++; s = s $3 ":" $4 ":" $2 " "; if ($13 != "0.428571" || $14 != "0.428571") b = 1 }
	END { exit n != 8 || b || s != "0:0:0 0:1:1 0:2:2 0:3:3 1:0:7 1:1:5 1:2:6 1:3:4 " }' "$P" &&
	ok || bad "ppdp: two pipelines: $(grep '^ppdp,' "$P" | cut -d, -f1-5,13,14)"

# inferred against the manifest's
awk -F, '$1 == "gpipe" && !($6 == "GPipe" && $7 == "inferred" && $8 == 4 && $9 == "inferred" && $10 == 3) { b = 1 }
	$1 == "onef1b" && !($6 == "1F1B" && $7 == "inferred" && $8 == 8 && $9 == "inferred") { b = 1 }
	$1 == "override" && !($6 == "1F1B" && $7 == "manifest" && $8 == 4 && $9 == "manifest") { b = 1 } END { exit b }' "$P" &&
	ok || bad "schedule or microbatches and their sources"

# the finding: on the planted case with 3 steps, naming the slow stage's rank; nowhere else
F=$D/data/findings.csv
grep '^slow,' "$F" | grep -F 'pipeline-bubble' >"$T/fp"
[ "$(wc -l <"$T/fp")" -eq 1 ] && ok || bad "slow: want one pipeline-bubble finding, got $(wc -l <"$T/fp")"
# It is the slow stage's rank's (3: What to fix first names the rank where the fix is) and leads with it.
grep -qF 'slow: pipeline stage 2 of 4 (rank 3) computes 1.60x the mean of the stages' "$T/fp" &&
	grep -qF 'Fix: move layers off stage 2:' "$T/fp" && ok || bad "slow: finding names no slow stage: $(cat "$T/fp")"
# The bubble beyond the schedule's: stage 0 (rank 2) idles 21000 / 33000; excess 0.636364 -
# 0.428571 = 0.207792 of 33000 us = 6857.143 us. The price is what balancing the stages saves,
# worked out on the schedule: per micro-batch the stages take t_f + t_b = 1000 + 2000 us, stage 2
# twice that. The forwards' span is the fill, the sum over the stages (1 + 1 + 2 + 1) x 1000,
# plus (m - 1) = 3 of the slowest, 3 x 2000: 11000 us; the backwards' the same at twice the time,
# 22000 us; 33000 in all, as measured. Balanced, each stage 15000 / 4 = 3750 us per micro-batch
# (1250 + 2500): (p + m - 1) = 7 x 3750 = 26250 us. Saving 33000 - 26250 = 6750 us per step.
grep -q '^slow,3,.*,6750\.000$' "$T/fp" && grep -qF 'stage 0 of 4 (rank 2) idles 63.6 %' "$T/fp" &&
	grep -qF '6.86 ms per step, is bubble beyond' "$T/fp" && grep -qF 'the step would be about 6.75 ms shorter' "$T/fp" &&
	ok || bad "slow: finding's price: $(cat "$T/fp")"
grep -F 'pipeline-bubble' "$F" | grep -v '^slow,' >"$T/other"
[ -s "$T/other" ] && bad "a pipeline-bubble finding on a balanced run or on 2 steps: $(cat "$T/other")" || ok
# the balanced runs (and the 2-step planted one): no finding at all; the planted one: its pipeline-bubble alone
for r in gpipe onef1b override ppdp real realg coal coalg slow2; do
	grep -q "^$r," "$F" && bad "$r: a finding on a balanced pipeline: $(grep "^$r," "$F" | cut -c1-200)" || ok
done
[ "$(grep -c '^slow,' "$F")" -eq 1 ] && ok || bad "slow: findings beside pipeline-bubble: $(grep '^slow,' "$F" | cut -c1-200)"
# the 2-step planted run has rows, steps 2, and no finding (its noise is unknown)
awk -F, '$1 == "slow2" { n++; if ($10 != 2) b = 1 } END { exit n != 4 || b }' "$P" && ok || bad "slow2: 4 rows of 2 steps"

# the figure: measured beside the schedule's, per stage
for r in gpipe onef1b slow; do
	[ -f "$D/figures/pipeline_bubble_$r.svg" ] && ok || bad "figure pipeline_bubble_$r missing"
done
[ -e "$D/figures/pipeline_bubble_two.svg" ] && bad "a pipeline figure of a run without pipeline" || ok

# the page: the Methods entry, the finding, the label escaped
grep -qF 'pipeline_stages.csv' "$D/index.html" && ok || bad "no pipeline_stages.csv on the page"
grep -qF 'computes 1.60x the mean of the stages' "$D/index.html" && ok || bad "finding not on the page"
grep -qF 'slow &lt;&amp;&gt; stage' "$D/index.html" && ok || bad "label not escaped on the page"
grep -qF 'slow <&> stage' "$D/index.html" && bad "label unescaped on the page" || ok

# the store: the peer of each send and recv
N=$(sqlite3 "$D/../perfstudy.db" "SELECT count(*) FROM collectives c JOIN traces t ON t.id = c.trace_id
	JOIN runs r ON r.id = t.run_id WHERE r.run = 'gpipe' AND t.rank = 1 AND c.collective = 'send' AND c.peer = 2")
[ "$N" = 12 ] && ok || bad "gpipe rank 1: want 12 sends to rank 2 in collectives.peer, got $N"

# the real form: peer, dtype and Seq from record_param_comms, in either order, through every ingest path
colls() { # colls DB: the real runs' collectives, on one line each
	sqlite3 "$1" "SELECT r.run, t.rank, c.start_ns, c.collective, c.peer, c.seq, c.dtype, c.process_group
		FROM collectives c JOIN traces t ON t.id = c.trace_id JOIN runs r ON r.id = t.run_id
		WHERE r.run IN ('real', 'realg', 'coal', 'coalg') ORDER BY 1, 2, 3"
}
colls "$D/../perfstudy.db" >"$T/c.plain"
# 432 per form = 3 steps x (1F1B: 16 + 32 + 32 + 16 sends and recvs; GPipe: 8 + 16 + 16 + 8); coalesced: no
# Seq, and coal's 1F1B batches a send with the next recv from its peer: one sendrecv row for the two, as
# many rows as the raw files have SendRecv kernels
K=$(cat "$T"/coal/rank*.json | grep -o '"name":"ncclDevKernel_SendRecv(' | wc -l)
awk -F'|' -v k="$K" '{ n[$1 == "coal" ? "coal" : "other"]++; ops += $1 == "coal" ? ($4 == "sendrecv" ? 2 : 1) : 0
		fused += $4 == "sendrecv" }
	($4 != "send" && $4 != "recv" && !($1 == "coal" && $4 == "sendrecv")) || $5 == "" || ($1 ~ /^real/ && $6 == "") ||
	$7 != "BFloat16" { b = 1 }
	END { exit b || n["other"] != 576 || n["coal"] != k || ops != 288 || !fused }' "$T/c.plain" &&
	ok || bad "real, coal: sends and recvs without peer, Seq or dtype, or batches miscounted ($K SendRecv kernels): $(cut -d'|' -f1,4 "$T/c.plain" | sort | uniq -c | tr '\n' ' ')"
N=$(awk -F'|' '$1 == "coalg" && $2 == 1 && $4 == "send" && $5 == 2' "$T/c.plain" | wc -l)
[ "$N" = 12 ] && ok || bad "coalg rank 1: want 12 sends to rank 2, got $N"
N=$(awk -F'|' '$1 == "realg" && $2 == 1 && $4 == "send" && $5 == 2' "$T/c.plain" | wc -l)
[ "$N" = 12 ] && ok || bad "realg rank 1: want 12 sends to rank 2, got $N"
cat >"$T/real.yaml" <<YAML
title: pipelines
runs:
  - {id: real, traces: $T/real/rank*.json}
  - {id: realg, traces: $T/realg/rank*.json}
  - {id: coal, traces: $T/coal/rank*.json}
  - {id: coalg, traces: $T/coalg/rank*.json}
YAML
same_colls() { # same_colls DB NAME
	colls "$1" >"$T/c.other"
	cmp -s "$T/c.plain" "$T/c.other" && ok || { bad "$2: collectives differ from the plain build's"; diff "$T/c.plain" "$T/c.other" | head -3 >&2; }
}
$PERFSTUDY build -q --jobs 1 "$T/real.yaml" -o "$T/rj1" && same_colls "$T/rj1/perfstudy.db" "--jobs 1" || bad "--jobs 1 build failed"
PERFSTUDY_WINDOW_BYTES=256 PERFSTUDY_PARSE_HELPERS=2 $PERFSTUDY build -q --jobs 2 "$T/real.yaml" -o "$T/rw" &&
	same_colls "$T/rw/perfstudy.db" "256-byte windows, parse helpers" || bad "windowed build failed"
$PERFSTUDY ingest -q --shard 0/2 -o "$T/s0.db" "$T/real.yaml" && $PERFSTUDY ingest -q --shard 1/2 -o "$T/s1.db" "$T/real.yaml" &&
	$PERFSTUDY merge -q "$T/s1.db" "$T/s0.db" "$T/real.yaml" -o "$T/rm" && same_colls "$T/rm/perfstudy.db" "shards + merge" ||
	bad "shards + merge failed"
sed -i 's/^title: pipelines$/title: pipelines again/' "$T/real.yaml"
$PERFSTUDY build "$T/real.yaml" -o "$T/rj1" 2>"$T/reuse.err" && grep -q ' 16 unchanged' "$T/reuse.err" &&
	same_colls "$T/rj1/perfstudy.db" "reuse of unchanged traces" || bad "reuse: $(tail -2 "$T/reuse.err")"

# not a pipeline: a run of two ranks with AllReduces only has no row; the manifest can make it one
$PERFSTUDY build -q tests/data/crossrank/two -o "$T/two" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "two: build failed"
[ -e "$T/two/default/data/pipeline_stages.csv" ] && bad "two: pipeline_stages.csv of a run without pipeline" || ok
cat >"$T/man.yaml" <<YAML
title: manifest pipeline
runs:
  - {id: two, traces: $PWD/tests/data/crossrank/two/rank*.json, pipeline_parallel: 2, microbatches: 2}
YAML
$PERFSTUDY build -q "$T/man.yaml" -o "$T/man" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "man: build failed: $(tail -3 "$T/err")"
awk -F, 'NR > 1 { n++; if (!($1 == "two" && $4 == n - 1 && $8 == 2 && $9 == "manifest" && $7 == "" && $14 == "0.333333")) b = 1 }
	END { exit n != 2 || b }' "$T/man/man/data/pipeline_stages.csv" 2>/dev/null &&
	ok || bad "man: pipeline_parallel 2 without peers: $(cat "$T/man/man/data/pipeline_stages.csv" 2>&1)"

# a malformed peer: warned about, taken as unknown
python3 - "$T/gpipe/rank0.json" "$T/badpeer/rank0.json" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
for e in doc["traceEvents"]:
    if e.get("cat") == "kernel" and e.get("args", {}).get("Dst Rank") is not None:
        e["args"]["Dst Rank"] = "one"
        break
os.makedirs(os.path.dirname(sys.argv[2]), exist_ok=True)
json.dump(doc, open(sys.argv[2], "w"))
PY
$PERFSTUDY build "$T/badpeer" -o "$T/bp" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "badpeer: build failed"
grep -q "rank0.json: byte [0-9]*: warning: event 'ncclDevKernel_SendRecv(ncclDevComm\*, unsigned long, ncclWork\*)': 'Dst Rank' is not an integer in the int64 range; taken as unknown" "$T/err" &&
	ok || bad "badpeer: no warning: $(cat "$T/err")"
N=$(sqlite3 "$T/bp/perfstudy.db" "SELECT count(*) FROM collectives WHERE collective = 'send' AND peer IS NULL")
[ "$N" = 1 ] && ok || bad "badpeer: want 1 send without peer, got $N"

# a send without its recv: that step's sends of rank 0 to rank 1 and recvs of 1 from 0 left unmatched, one warning
mkdir -p "$T/unpaired" && cp "$T"/gpipe/rank[123].json "$T/unpaired/"
python3 - "$T/gpipe/rank0.json" "$T/unpaired/rank0.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
k = next(i for i, e in enumerate(doc["traceEvents"]) if e.get("cat") == "kernel" and "Dst Rank" in e.get("args", {}))
del doc["traceEvents"][k]  # the first send of rank 0 (stage 0, step 1)
json.dump(doc, open(sys.argv[2], "w"))
PY
$PERFSTUDY build "$T/unpaired" -o "$T/up" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "unpaired: build failed"
grep 'rank0\.json: warning: run unpaired step 1: rank 0 .* 3 sends to rank 1 on communicator '"'0'"', rank 1 4 recvs from rank 0: .*left unmatched; .* 1 (sender, receiver, step) of the run' "$T/err" >"$T/w1"
[ "$(grep -c 'left unmatched' "$T/err")" = 1 ] && [ -s "$T/w1" ] && ok || bad "unpaired: want one warning: $(grep unmatched "$T/err")"
# 7 unmatched: rank 0's 3 sends and rank 1's 4 recvs of that step; the other steps and ranks paired
N=$(awk -F, '$10 == 0' "$T/up/default/data/collective_waits.csv" | wc -l)
[ "$N" = 7 ] && ok || bad "unpaired: want 7 unmatched sends and recvs, got $N"

# manifest errors
t_bad() { # t_bad FILE MESSAGE
	rm -rf "$T/b"
	$PERFSTUDY build "$1" -o "$T/b" 2>"$T/raw"
	local rc=$?
	grep -v '^perfstudy: ' "$T/raw" >"$T/got"
	echo "$2" >"$T/want"
	[ $rc -eq 1 ] && ok || bad "$1: exit $rc, want 1"
	same "$T/want" "$T/got" "$1 message"
}
t_bad tests/bad/yaml-pipeline-schedule.yaml \
	"tests/bad/yaml-pipeline-schedule.yaml:2:81: error: unknown value 'interleaved' for 'schedule' (expected one of gpipe, 1f1b)"
t_bad tests/bad/yaml-pipeline-microbatches.yaml \
	"tests/bad/yaml-pipeline-microbatches.yaml:2:85: error: 'microbatches' must be at least 1, got 0"


# coal's fused batches are paired like sends and recvs: the k-th SendRecv of A with B with B's k-th with A;
# every kernel of the run is matched, the SendRecvs as many as the sendrecv rows of its collectives
W=$D/data/collective_waits.csv
awk -F, -v want="$(awk -F'|' '$1 == "coal" && $4 == "sendrecv"' "$T/c.plain" | wc -l)" '
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	$c["run"] == "coal" { n++; if ($c["matched"] != 1) b = 1; sr += $c["name"] == "SendRecv" }
	END { exit b || !n || sr != want || !sr }' "$W" && ok || bad "coal: fused batches not all paired"
# one fused batch of rank 0 taken out: that step's batches of ranks 0 and 1 left unmatched, one warning.
# Per step stage 0 (4 warm-up forwards) fuses its 5 forward-to-backward turns (F3-B0, F4-B1 .. F7-B4) and
# stage 1 (3 warm-up forwards) its 5 backward-to-forward turns (B0-F3 .. B4-F7): 4 against 5 in step 1.
mkdir -p "$T/coalx" && cp "$T"/coal/rank[123].json "$T/coalx/"
python3 - "$T/coal/rank0.json" "$T/coalx/rank0.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
ev = doc["traceEvents"]
host = sorted((e for e in ev if e["cat"] == "user_annotation" and e["name"] == "nccl:coalesced"), key=lambda e: e["ts"])
prev = float("-inf")
for h in host:
    kinds = {e["args"]["Collective name"] for e in ev if e["cat"] == "cpu_op" and prev <= e["ts"] <= h["ts"]}
    prev = h["ts"] + h["dur"]
    if {"send", "recv"} <= kinds:
        g = next(e for e in ev if e["cat"] == "gpu_user_annotation" and e["args"]["External id"] == h["args"]["External id"])
        k = next(e for e in ev if e["cat"] == "kernel" and e["tid"] == g["tid"] and e["ts"] == g["ts"])
        ev.remove(k)  # the first fused batch's kernel (step 1)
        break
json.dump(doc, open(sys.argv[2], "w"))
PY
$PERFSTUDY build "$T/coalx" -o "$T/cx" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "coalx: build failed"
[ "$(grep -c 'left unmatched' "$T/err")" = 1 ] &&
	grep -q "warning: run coalx step 1: rank 0 issued 4 batches both ways with rank 1 on communicator '0', rank 1 5: these are left unmatched" "$T/err" &&
	ok || bad "coalx: want one warning of batches both ways: $(grep unmatched "$T/err")"

# the recorded probe (experiments/h200x4-parallel/probe/): a batch of a send and a recv to rank 0, one kernel:
# a sendrecv, in what the send carries, out what the recv does; without its recv, a send. Both read here
# from the raw file: the ops before the first nccl:coalesced annotation.
PR=experiments/h200x4-parallel/probe/coalesced_p2p.pt.trace.json.gz
mkdir -p "$T/probe1"
python3 - "$PR" "$T/probe1/rank0.json" "$T/probe.want" "$T/probe1.want" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1], "rt"))
ev = doc["traceEvents"]
ann = min((e for e in ev if e.get("cat") == "user_annotation" and e.get("name") == "nccl:coalesced"), key=lambda e: e["ts"])
ops = [e for e in ev if e.get("name") == "record_param_comms" and e["ts"] <= ann["ts"]
       and e["args"].get("Collective name") in ("send", "recv")]
snd = [e["args"] for e in ops if e["args"]["Collective name"] == "send"]
rcv = [e["args"] for e in ops if e["args"]["Collective name"] == "recv"]
open(sys.argv[3], "w").write("sendrecv|%d|%d|%d|%s\n" % (snd[0]["Dst Rank"], sum(a["In msg nelems"] for a in snd),
                                                        sum(a["In msg nelems"] for a in rcv), snd[0]["dtype"]))
n = sum(a["In msg nelems"] for a in snd)
open(sys.argv[4], "w").write("send|%d|%d|%d|%s\n" % (snd[0]["Dst Rank"], n, n, snd[0]["dtype"]))
for e in ops:
    if e["args"]["Collective name"] == "recv":
        ev.remove(e)
json.dump(doc, open(sys.argv[2], "w"))
PY
Q="SELECT collective, peer, in_nelems, out_nelems, dtype FROM collectives"
$PERFSTUDY build -q "$PR" -o "$T/probe" && sqlite3 "$T/probe/perfstudy.db" "$Q" >"$T/probe.got" &&
	cmp -s "$T/probe.want" "$T/probe.got" && ok || bad "probe: want $(cat "$T/probe.want"), got $(cat "$T/probe.got" 2>&1)"
$PERFSTUDY build -q "$T/probe1" -o "$T/probe1o" && sqlite3 "$T/probe1o/perfstudy.db" "$Q" >"$T/probe1.got" &&
	cmp -s "$T/probe1.want" "$T/probe1.got" && ok || bad "probe without its recv: want $(cat "$T/probe1.want"), got $(cat "$T/probe1.got" 2>&1)"

# an uncoalesced send (its own kernel carries its External id) just before the probe's batch, to the same
# peer: its op is no member of the batch, which stays a sendrecv of the probe's counts; the send is a send
# of 7. The want is read from the raw file: a batch's ops are those before its annotation that no kernel
# names by External id.
mkdir -p "$T/probe2"
python3 - "$PR" "$T/probe2/rank0.json" "$T/probe2.want" <<'PY'
import gzip, json, sys
doc = json.load(gzip.open(sys.argv[1], "rt"))
ev = doc["traceEvents"]
op0 = min((e for e in ev if e.get("name") == "record_param_comms"), key=lambda e: e["ts"])
k0 = next(e for e in ev if e.get("cat") == "kernel")
ev += [dict(op0, ts=op0["ts"] - 100, dur=10, args=dict(op0["args"], **{"External id": 100, "In msg nelems": 7})),
       {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": op0["pid"], "tid": op0["tid"],
        "ts": op0["ts"] - 95, "dur": 2, "args": {"External id": 100, "correlation": 999}},
       dict(k0, ts=k0["ts"] - 60, dur=1, args=dict(k0["args"], correlation=999, **{"External id": 100,
            "Collective name": "send", "In msg nelems": 7, "Out msg nelems": 7, "dtype": "Float"}))]
json.dump(doc, open(sys.argv[2], "w"))
named = {e["args"]["External id"] for e in ev if e.get("cat") == "kernel" and "External id" in e["args"]}
ann = min((e for e in ev if e.get("cat") == "user_annotation" and e.get("name") == "nccl:coalesced"), key=lambda e: e["ts"])
ops = [e for e in ev if e.get("name") == "record_param_comms" and e["args"].get("Collective name") in ("send", "recv")]
own = [e["args"] for e in ops if e["args"]["External id"] in named]
batch = [e["args"] for e in ops if e["args"]["External id"] not in named and e["ts"] <= ann["ts"]]
snd = sum(a["In msg nelems"] for a in batch if a["Collective name"] == "send")
rcv = sum(a["In msg nelems"] for a in batch if a["Collective name"] == "recv")
with open(sys.argv[3], "w") as f:
    f.write("send|%d|%d|%d|%s\n" % (own[0]["Dst Rank"], own[0]["In msg nelems"], own[0]["In msg nelems"], own[0]["dtype"]))
    f.write("sendrecv|%d|%d|%d|%s\n" % (batch[0].get("Dst Rank", batch[0].get("Src Rank")), snd, rcv, batch[0]["dtype"]))
PY
$PERFSTUDY build -q "$T/probe2" -o "$T/probe2o" && sqlite3 "$T/probe2o/perfstudy.db" "$Q ORDER BY start_ns" >"$T/probe2.got" &&
	cmp -s "$T/probe2.want" "$T/probe2.got" && ok ||
	bad "probe after an uncoalesced send: want $(cat "$T/probe2.want"), got $(cat "$T/probe2.got" 2>&1)"

finish
