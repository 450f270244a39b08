#!/bin/bash
# t_causes.sh: straggler_causes.csv and its finding (src/analyze/
# straggler_causes.c, findings.c) on the real 4 x H100 runs with planted
# causes of experiments/h100x4 (SOURCE.md):
#   gpt2-4gpu-ddp-host2  rank 2 sleeps 20 ms per step in get_train_batch;
#   gpt2-4gpu-ddp-gpu1   rank 1 runs 10 extra bf16 8192^3 aten::mm per step
#                        in forward, 30 nvjet_sm90_tst_320x128_... kernels
#                        over the 3 profiled steps that no other rank runs,
#                        36630.395 us by the trace: 12210.132 us per step
#                        (python3 over rank1.pt.trace.json.gz; SOURCE.md's
#                        "about 14 ms" is the generator's estimate);
#   gpt2-4gpu-ddp        clean: only natural stragglers.
# The exposed waits and the partition of each rank's step are checked
# against tools/crossrank_check.py, the findings against findings_check.py.
# The planted rank, side, region and kernel must come first, within 15 % of
# what was planted, and every row of every run must agree with
# tests/golden/causes_check.py, which recomputes them from the raw JSON.
. "$(dirname "$0")/lib.sh"

E=$(unpacked experiments/h100x4/traces)
if [ ! -d "$E/gpt2-4gpu-ddp-host2" ]; then
	skipped "experiments/h100x4 is missing"
	finish
	exit $?
fi
A=$(pwd)
{
	echo "version: 1"
	echo "id: h100x4"
	echo "title: 4 x H100 GPT-2 DDP with planted causes"
	echo "runs:"
	for r in gpt2-4gpu-ddp gpt2-4gpu-ddp-host2 gpt2-4gpu-ddp-gpu1; do
		echo "  - id: $r"
		echo "    gpus: 4"
		echo "    traces: $E/$r/rank*.pt.trace.json.gz"
		echo "    inputs: $E/$r/rank0.log"
	done
} >"$T/study.yaml"
$PERFSTUDY build -q "$T/study.yaml" -o "$T/o" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "build failed: $(cat "$T/err")"
C="$T/o/h100x4/data/straggler_causes.csv"
F="$T/o/h100x4/data/findings.csv"
[ -f "$C" ] && ok || bad "no straggler_causes.csv"

# first_row RUN: the run's first row as run,rank,where,region,name,excess_us_per_step
first_row() { python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["run"] == sys.argv[2]:
        print(",".join([r["rank"], r["where"], r["region"], r["name"], r["excess_us_per_step"]]))
        break' "$C" "$1"; }
# within WANT GOT: GOT within 15 % of WANT
within() { awk -v w="$1" -v g="$2" 'BEGIN { exit !(g >= 0.85 * w && g <= 1.15 * w) }'; }

# host2: rank 2, host, get_train_batch, about 20000 us per step
IFS=, read -r rank where region name excess <<<"$(first_row gpt2-4gpu-ddp-host2)"
[ "$rank,$where,$region,$name" = "2,host,get_train_batch," ] && ok ||
	bad "host2: first row $rank,$where,$region,$name, not 2,host,get_train_batch"
within 20000 "$excess" && ok || bad "host2: excess $excess us per step, not within 15 % of 20000"
grep -q '^gpt2-4gpu-ddp-host2,2,"gpt2-4gpu-ddp-host2 rank 2: .*It spends [0-9.]* ms more per step than the median rank on its host in get_train_batch' "$F" &&
	ok || bad "host2: no finding naming rank 2's host in get_train_batch"

# gpu1: rank 1, gpu, forward, then the planted kernel, run only on rank 1 (other_calls 0)
IFS=, read -r rank where region name excess <<<"$(first_row gpt2-4gpu-ddp-gpu1)"
[ "$rank,$where,$region" = "1,gpu,forward" ] && ok || bad "gpu1: first row $rank,$where,$region, not 1,gpu,forward"
within 12210.132 "$excess" && ok || bad "gpu1: excess $excess us per step, not within 15 % of 12210.132"
K=nvjet_sm90_tst_320x128_64x3_1x2_h_bz_coopB_NNT
grep -q "^gpt2-4gpu-ddp-gpu1,1,gpu,forward,$K,12210.132,30,0," "$C" && ok ||
	bad "gpu1: no row for $K with 12210.132 us per step over 30 calls, other ranks 0"
grep -q "gpt2-4gpu-ddp-gpu1 rank 1: .*It spends [0-9.]* ms more per step than the median rank on its GPU in forward ([^)]*), [0-9.]* ms of it in kernel $K (30 calls, run only on rank 1)" "$F" &&
	ok || bad "gpu1: no finding naming rank 1's GPU in forward and $K as run only there"

# every row of every run, recomputed from the raw traces
for r in gpt2-4gpu-ddp gpt2-4gpu-ddp-host2 gpt2-4gpu-ddp-gpu1; do
	if python3 tests/golden/causes_check.py "$r" "$C" $E/$r/rank*.pt.trace.json.gz >"$T/chk" 2>&1; then
		ok
	else
		bad "$r: straggler_causes.csv differs from the raw traces"
		cat "$T/chk" >&2
	fi
done
# waits, exposed waits and the partition of the steps (straggler_ranks.csv),
# recomputed from the raw traces by tools/crossrank_check.py
for r in gpt2-4gpu-ddp gpt2-4gpu-ddp-host2 gpt2-4gpu-ddp-gpu1; do
	CROSSRANK_ALLREDUCE_OUT="$T/ar" python3 tools/crossrank_check.py "$r" "$T/o/h100x4/data" $E/$r/rank*.pt.trace.json.gz >"$T/chk" 2>&1 &&
		ok || bad "$r: collective_waits.csv or straggler_ranks.csv differ from the raw traces: $(cat "$T/chk")"
done
# allreduce_busbw.csv's wait-free columns: per (n, bytes), the kernels' summed transfer from the
# raw traces (crossrank_check.py's lines "n bytes transfer_ns"), busbw = bytes x calls / transfer x 2(n-1)/n
awk '{ k = $1 "," $2; c[k]++; t[k] += $3 } END { for (k in c) { split(k, a, ",");
	printf "%s,%d,%.3f,%.6g\n", k, c[k], t[k] / 1000, a[2] * c[k] / t[k] * 2 * (a[1] - 1) / a[1] } }' "$T/ar" | sort >"$T/want"
python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print("%s,%s,%s,%s,%.6g" % (r["gpus"], r["message_bytes"], r["matched_calls"], r["transfer_us"],
                                float(r["transfer_busbw_gb_per_s"])))' "$T/o/h100x4/data/allreduce_busbw.csv" | sort >"$T/got"
same "$T/want" "$T/got" "allreduce_busbw.csv wait-free transfer against the raw traces"
# idle_time_steps.csv and gpu_idle.csv (the GPU's idle time and host wait, all streams as one, pooled
# over whole steps) of the three runs, against tests/golden/time_reference.py over the raw JSON
python3 - "$T/o/h100x4/data" $(for r in gpt2-4gpu-ddp gpt2-4gpu-ddp-host2 gpt2-4gpu-ddp-gpu1; do
	echo "$r=$(echo $E/$r/rank*.pt.trace.json.gz | tr ' ' ,)"; done) <<'PY' && ok || bad "h100x4: gpu_idle.csv or idle_time_steps.csv differ from the raw traces"
import csv, io, sys
sys.path.insert(0, "tests/golden")
import time_reference as R
runs = R.runs_of(sys.argv[2:])
bad = 0
for name, fn in (("idle_time_steps", R.idle_time_steps), ("gpu_idle", R.gpu_idle)):
    out = io.StringIO()
    fn(runs, csv.writer(out, lineterminator="\n"))
    want = out.getvalue().splitlines()
    got = [l for l in open("%s/%s.csv" % (sys.argv[1], name)).read().splitlines()]
    if want != got:
        print("%s.csv differs:\n%s" % (name, "\n".join(a + "  <>  " + b for a, b in zip(want, got) if a != b)), file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
# every finding of the three runs, the cause included, against the raw traces
R=()
for r in gpt2-4gpu-ddp gpt2-4gpu-ddp-host2 gpt2-4gpu-ddp-gpu1; do
	R+=("$r:4:8=$(echo $E/$r/rank*.pt.trace.json.gz | tr ' ' ,)")
done
python3 tests/golden/findings_check.py "$F" "${R[@]}" >"$T/fc" 2>&1 && ok ||
	bad "h100x4 findings disagree with the raw traces: $(cat "$T/fc")"
# the clean run names its natural stragglers: ranks that made others wait
[ "$(grep -c '^gpt2-4gpu-ddp,' "$C")" -gt 0 ] && ok || bad "clean run: no rows"
# Extra GPU work that hides behind a host-bound step (record_hidden.sh): 2 GPUs, GPT-2 at batch 1, seq
# 128. In both runs rank 1 sleeps 10 ms per step in get_train_batch; in host1gpu it also runs 2 bf16
# 8192^3 products (nvjet_sm90_tst_320x128_..., about 2.8 ms of GPU work) per step in forward. The
# finding must name the host cause first, and the GPU work as likely hidden; the pair of training logs
# (unprofiled iterations, tests/golden/log_medians.py) shows that it did not lengthen the step.
if [ -d "$E/small-2gpu-ddp-host1gpu" ]; then
	{
		echo "version: 1"
		echo "id: hidden"
		echo "title: GPU work behind a host-bound step"
		echo "runs:"
		for r in small-2gpu-ddp-host1 small-2gpu-ddp-host1gpu; do
			echo "  - id: $r"
			echo "    gpus: 2"
			echo "    traces: $E/$r/rank*.pt.trace.json.gz"
			echo "    inputs: $E/$r/rank0.log"
		done
	} >"$T/hidden.yaml"
	$PERFSTUDY build -q "$T/hidden.yaml" -o "$T/h" 2>"$T/err" && ok || bad "hidden: build failed: $(cat "$T/err")"
	C=$T/h/hidden/data/straggler_causes.csv
	HF=$T/h/hidden/data/findings.csv
	for r in small-2gpu-ddp-host1 small-2gpu-ddp-host1gpu; do
		IFS=, read -r rank where region name excess <<<"$(first_row $r)"
		[ "$rank,$where,$region,$name" = "1,host,get_train_batch," ] && ok ||
			bad "$r: first row $rank,$where,$region,$name, not 1,host,get_train_batch"
		within 10000 "$excess" && ok || bad "$r: excess $excess us per step, not within 15 % of 10000"
		python3 tests/golden/causes_check.py "$r" "$C" $E/$r/rank*.pt.trace.json.gz >"$T/chk" 2>&1 && ok ||
			bad "$r: straggler_causes.csv differs from the raw traces: $(cat "$T/chk")"
	done
	kex=$(awk -F, -v k="$K" '$1 == "small-2gpu-ddp-host1gpu" && $3 == "gpu" && $5 == k { print $6 }' "$C")
	within 2800 "$kex" && ok || bad "host1gpu: $K excess '$kex' us per step, not within 15 % of 2800"
	grep -q "small-2gpu-ddp-host1gpu rank 1: .*It spends [0-9.]* ms more per step than the median rank on its host in get_train_batch.*; its GPU also spends [0-9.]* ms more per step in forward, [0-9.]* ms of it in kernel $K (4 calls, run only on rank 1), which likely hides behind its host-bound step" "$HF" &&
		ok || bad "host1gpu: the extra GPU work is not said to hide: $(grep host1gpu "$HF")"
	grep -q 'small-2gpu-ddp-host1 rank.*likely hides' "$HF" && bad "host1 (no extra GPU work): something said to hide" || ok
	# the claim is true: with the extra work, the training's step is no longer by half of that work
	m1=$(python3 tests/golden/log_medians.py "$E/small-2gpu-ddp-host1/rank0.log" | sed 's/.*unprofiled n=[0-9]* median \([0-9.]*\) ms.*/\1/')
	m2=$(python3 tests/golden/log_medians.py "$E/small-2gpu-ddp-host1gpu/rank0.log" | sed 's/.*unprofiled n=[0-9]* median \([0-9.]*\) ms.*/\1/')
	echo "hidden: unprofiled median step host1 $m1 ms, host1gpu $m2 ms (2.8 ms of extra GPU work)"
	awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(b - a < 1.4) }' && ok || bad "host1gpu's steps are $m2 ms against $m1: the GPU work did not hide"
	R=()
	for r in small-2gpu-ddp-host1 small-2gpu-ddp-host1gpu; do
		R+=("$r:2:1=$(echo $E/$r/rank*.pt.trace.json.gz | tr ' ' ,)")
	done
	python3 tests/golden/findings_check.py "$HF" "${R[@]}" >"$T/fc" 2>&1 && ok ||
		bad "hidden findings disagree with the raw traces: $(cat "$T/fc")"
fi

finish
