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
#   Sends and recvs are no collectives of the group: no warning of
#   unmatched collectives or of clock offsets, and the balanced runs give no
#   finding at all (no comm-skew, no host-bound: the bubble is the
#   schedule's); the planted run only its pipeline-bubble.
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
YAML
$PERFSTUDY build "$T/study.yaml" -o "$T/o" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "build failed: $(tail -3 "$T/err")"
# sends and recvs are left out of the matching: nothing unmatched, no clock offset out of true
grep -E 'left unmatched|clock offset|does not match' "$T/err" >"$T/warn"
[ -s "$T/warn" ] && bad "point-to-point ops matched as collectives: $(head -3 "$T/warn")" || ok
D=$T/o/study
P=$D/data/pipeline_stages.csv
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
	grep -qF 'Fix: move layers off stage 2.' "$T/fp" && ok || bad "slow: finding names no slow stage: $(cat "$T/fp")"
# its price: stage 0 (rank 2) idles 21000 / 33000; excess 0.636364 - 0.428571 = 0.207792 of 33000 us = 6857.143 us
grep -q '^slow,3,.*,6857\.143$' "$T/fp" && grep -qF 'stage 0 of 4 (rank 2) idles 63.6 %' "$T/fp" &&
	grep -qF '6.86 ms per step' "$T/fp" && ok || bad "slow: finding's price: $(cat "$T/fp")"
grep -F 'pipeline-bubble' "$F" | grep -v '^slow,' >"$T/other"
[ -s "$T/other" ] && bad "a pipeline-bubble finding on a balanced run or on 2 steps: $(cat "$T/other")" || ok
# the balanced runs (and the 2-step planted one): no finding at all; the planted one: its pipeline-bubble alone
for r in gpipe onef1b override ppdp real realg slow2; do
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
		WHERE r.run IN ('real', 'realg') ORDER BY 1, 2, 3"
}
colls "$D/../perfstudy.db" >"$T/c.plain"
# 432 = 3 steps x (1F1B: 16 + 32 + 32 + 16 sends and recvs; GPipe: 8 + 16 + 16 + 8)
awk -F'|' '$5 == "" || $6 == "" || $7 != "BFloat16" { b = 1 } END { exit b || NR != 432 }' "$T/c.plain" &&
	ok || bad "real: sends and recvs without peer, Seq or dtype: $(grep -c '||' "$T/c.plain") of $(wc -l <"$T/c.plain")"
N=$(awk -F'|' '$1 == "realg" && $2 == 1 && $4 == "send" && $5 == 2' "$T/c.plain" | wc -l)
[ "$N" = 12 ] && ok || bad "realg rank 1: want 12 sends to rank 2, got $N"
cat >"$T/real.yaml" <<YAML
title: pipelines
runs:
  - {id: real, traces: $T/real/rank*.json}
  - {id: realg, traces: $T/realg/rank*.json}
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
$PERFSTUDY build "$T/real.yaml" -o "$T/rj1" 2>"$T/reuse.err" && grep -q ' 8 unchanged' "$T/reuse.err" &&
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

finish
