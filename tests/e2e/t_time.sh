#!/bin/bash
# t_time.sh: time accounting (issue 4). step_breakdown, memops, ranks,
# phases, dispatch and compare of the bundled H200 example against the
# committed tests/golden/h200/*.csv, which tests/golden/time_reference.py
# computes straight from the raw JSON (recomputed by t_core.sh through
# tests/golden/make.sh --check when python3 is present); temporal.csv and
# overlap.csv against tests/golden/hta_reference.py (a reimplementation of
# Holistic Trace Analysis) on the bundled H200 traces
# and on HTA's own test traces (../shared, skipped when absent); manifest
# phases and compare pairs on the small fixture.
. "$(dirname "$0")/lib.sh"

"$PERFSTUDY" build -q -o "$T/h200" experiments/h200/study.yaml || bad "build of the h200 example failed"
D=$T/h200/h200/data
for f in temporal overlap step_breakdown memops collectives ranks scaling phases dispatch compare; do
	[ -s "$D/$f.csv" ] && ok || bad "$f.csv missing"
done
TIME_TABLES="step_breakdown memops ranks phases dispatch compare collectives scaling speedup_error"
for f in $TIME_TABLES; do
	same tests/golden/h200/$f.csv "$D/$f.csv" "$f.csv against the committed reference"
done
# A study that outgrows the rank cache (src/analyze/rankdata.c) loads ranks again: the same
# tables with no cache and with one that holds only the first ranks. At 1 MB the study's
# ranks would not fit as arrays, so the cache keeps them packed (varint differences, about
# a fifth of the size): the tables show that unpacking gives back exactly what was loaded.
for cb in 0 1000000; do
	PERFSTUDY_RANK_CACHE_BYTES=$cb "$PERFSTUDY" build -q -o "$T/cache$cb" experiments/h200/study.yaml ||
		bad "build with a rank cache of $cb bytes failed"
	for f in temporal overlap $TIME_TABLES; do
		same "$D/$f.csv" "$T/cache$cb/h200/data/$f.csv" "$f.csv with a rank cache of $cb bytes"
	done
done
for f in scaling speedup_model memops phases_host phases_gpu dispatch compare_1; do
	[ -s "$T/h200/h200/figures/$f.png" ] && ok || bad "figure $f missing"
done

# A manifest's own phase names and compare pairs (the study's traces, renamed phases).
sed -e 's|traces/|'"$PWD"'/experiments/h200/traces/|' -e '/nvidia_smi:/d' -e '/topology:/d' experiments/h200/study.yaml > "$T/ph.yaml"
cat >> "$T/ph.yaml" <<'YAML'
phases:
  forward: [DistributedDataParallel.forward]
  get_train_batch: []
  zero_grad: ["Optimizer.zero_grad#*"]
compare: [[bert-2gpu-zero1, bert-2gpu-ddp]]
YAML
"$PERFSTUDY" build -q -o "$T/ph" "$T/ph.yaml" || bad "build with phases and compare failed"
P=$T/ph/h200/data
grep -q '^gpt2-1gpu,0,forward,0,0.000,0.000$' "$P/phases.csv" && ok || bad "forward renamed: 1-GPU run has no DDP forward"
grep -q '^gpt2-2gpu-ddp,0,forward,3,' "$P/phases.csv" && ok || bad "forward renamed: DDP forward not found"
grep -q ',get_train_batch,' "$P/phases.csv" && bad "a phase given no names is still listed" || ok
grep -q '^bert-2gpu-zero1,1,zero_grad,3,' "$P/phases.csv" && ok || bad "added phase zero_grad missing"
[ "$(cut -d, -f1,2 "$P/compare.csv" | sort -u | grep -vc '^run_a')" = 1 ] && ok || bad "compare: not exactly the manifest's pair"
grep -q '^bert-2gpu-zero1,bert-2gpu-ddp,group,' "$P/compare.csv" && ok || bad "compare: pair order"

# Which launches temporal.csv keeps, worked out by hand. The host enters ProfilerStep#2 at 100 us,
# the GPU at 130 us (its gpu_user_annotation, which has no stream: HTA counts it among the CPU
# events, so the last step starts at 130). Kept: the kernel launched at 10 (20-50 us) and the copy
# launched at 110 (120-125 us); dropped: the kernel launched at 140. span = 125 - 20 = 105 us,
# union 30 + 5 = 35, idle 70, compute 30 (the gemm), non_compute 105 - 30 - 70 = 5.
mkdir -p "$T/gs/run"
cat > "$T/gs/run/rank0.json" <<'JSON'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
 {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#2", "pid": 0, "tid": 7, "ts": 130, "dur": 50, "args": {"External id": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 110, "dur": 2, "args": {"correlation": 2}},
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 120, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 140, "dur": 2, "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 150, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 3}}
]}
JSON
"$PERFSTUDY" build -q -o "$T/gso" "$T/gs/run" || bad "build of the GPU-step case failed"
grep -qx 'run,0,105.000,70.000,30.000,5.000' "$T/gso/default/data/temporal.csv" && ok ||
	bad "temporal.csv: the GPU's ProfilerStep start is not the last step's: $(cat "$T/gso/default/data/temporal.csv")"

if ! command -v python3 >/dev/null; then
	skipped "python3 absent: no recomputation from the raw JSON, no HTA comparison"
	finish
	exit $?
fi
# The committed time tables against time_reference.py, recomputed from the raw JSON: t_core.sh
# runs tests/golden/make.sh --check, which does it (a minute or two; not twice).
. tests/golden/h200-runs.sh
head -1 "$D/temporal.csv" | grep -qx 'run,rank,span_us,idle_us,compute_us,non_compute_us' && ok || bad "temporal.csv header"
head -1 "$D/overlap.csv" | grep -qx 'run,rank,comm_us,overlap_us,overlap_fraction' && ok || bad "overlap.csv header"
grep -q '^bert-2gpu-zero1,0,Broadcast,' "$D/collectives.csv" && ok || bad "ZeRO-1 Broadcast missing from collectives.csv"

python3 tests/golden/hta_reference.py $(h200_runs) \
	> "$T/ref_h200.csv" || bad "hta_reference.py failed on h200"
if python3 tests/golden/hta_compare.py "$D/temporal.csv" "$D/overlap.csv" "$T/ref_h200.csv" 0.01 > "$T/cmp.txt"; then ok; else
	bad "h200 temporal/overlap differ from HTA by more than 0.01 pp"; cat "$T/cmp.txt" >&2; fi

H=../shared/corpus/hta
if [ ! -d "$H" ]; then
	skipped "../shared/corpus/hta absent"
	finish
	exit $?
fi
# HTA's own test traces, never seen by perfstudy's development: one run each.
mkdir -p "$T/hta"
args=()
for d in trace_filter nccl_parser_config ns_resolution_trace negative_queue_length_values_check df_index_resolver trace_diff/control trace_diff/test; do
	run=$(echo "$d" | tr / _)
	mkdir -p "$T/hta/$run"
	cp "$H/$d"/*.json.gz "$T/hta/$run/"
	args+=("$run=$(ls "$T/hta/$run"/*.json.gz | paste -sd,)")
done
"$PERFSTUDY" build -q -o "$T/hout" "$T/hta"/* || bad "build of the HTA traces failed"
python3 tests/golden/hta_reference.py "${args[@]}" > "$T/ref_hta.csv" || bad "hta_reference.py failed on HTA traces"
if python3 tests/golden/hta_compare.py "$T/hout/default/data/temporal.csv" "$T/hout/default/data/overlap.csv" \
	"$T/ref_hta.csv" 0.01 > "$T/cmp2.txt"; then ok; else
	bad "HTA traces: temporal/overlap differ from HTA by more than 0.01 pp"; cat "$T/cmp2.txt" >&2; fi

# The reference against the values HTA's own test asserts (SOURCE.md, MTIA):
# idle 5648827, compute 7305596, non-compute 373924 of 13328347.
python3 tests/golden/hta_reference.py mtia=$H/mtia_trace_single_rank/mtia_rank_0.json.gz > "$T/mtia.csv" || bad "mtia"
python3 - "$T/mtia.csv" <<'PY' && ok || bad "hta_reference.py is more than 0.25 pp from HTA's MTIA test values"
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
span = float(r['span'])
want = {'idle': 5648827 / 13328347, 'compute': 7305596 / 13328347, 'non_compute': 373924 / 13328347}
worst = max(abs(100 * float(r[k]) / span - 100 * v) for k, v in want.items())
print(f'mtia: max difference from HTA test values {worst:.3f} pp', file=sys.stderr)
sys.exit(0 if worst <= 0.25 else 1)
PY
finish
