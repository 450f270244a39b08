#!/bin/bash
# t_time.sh: time accounting (issue 4). step_breakdown, memops, ranks,
# phases, dispatch and compare of the bundled H200 example against the
# committed tests/golden/h200/*.csv, which tests/golden/time_reference.py
# computes straight from the raw JSON (recomputed by t_core.sh through
# tests/golden/make.sh --check when python3 is present); the HTA-compatible
# tables (temporal, overlap, idle_time, launch_stats) against the real
# Holistic Trace Analysis's numbers in tests/golden/hta/ (tools/hta_goldens.py)
# on the bundled H200 traces and on HTA's own test traces (../shared, skipped
# when absent), and on a hand-worked trace; manifest phases and compare pairs
# on the small fixture.
. "$(dirname "$0")/lib.sh"

"$PERFSTUDY" build -q -o "$T/h200" experiments/h200/study.yaml || bad "build of the h200 example failed"
D=$T/h200/h200/data
for f in temporal overlap kernel_types idle_time idle_time_steps gpu_idle launch_stats step_breakdown memops collectives ranks scaling phases \
	dispatch compare; do
	[ -s "$D/$f.csv" ] && ok || bad "$f.csv missing"
done
TIME_TABLES="step_breakdown memops ranks phases dispatch compare collectives scaling speedup_error strategy_scaling idle_time_steps gpu_idle"
for f in $TIME_TABLES; do
	same tests/golden/h200/$f.csv "$D/$f.csv" "$f.csv against the committed reference"
done
# A study that outgrows the rank cache (src/analyze/lib/rankdata.c) loads ranks again: the same
# tables with no cache and with one that holds only the first ranks. At 1 MB the study's
# ranks would not fit as arrays, so the cache keeps them packed (varint differences, about
# a fifth of the size): the tables show that unpacking gives back exactly what was loaded.
for cb in 0 1000000; do
	PERFSTUDY_RANK_CACHE_BYTES=$cb "$PERFSTUDY" build -q -o "$T/cache$cb" experiments/h200/study.yaml ||
		bad "build with a rank cache of $cb bytes failed"
	for f in temporal overlap kernel_types idle_time idle_time_steps gpu_idle launch_stats $TIME_TABLES; do
		same "$D/$f.csv" "$T/cache$cb/h200/data/$f.csv" "$f.csv with a rank cache of $cb bytes"
	done
done
for f in scaling speedup_model memops phases_host phases_gpu dispatch compare_1 strategy_scaling_ddp strategy_scaling_zero-1; do
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
grep -qx 'run,0,105.000,70.000,30.000,5.000,105.000,70.000,30.000,5.000' "$T/gso/default/data/temporal.csv" && ok ||
	bad "temporal.csv: the GPU's ProfilerStep start is not the last step's: $(cat "$T/gso/default/data/temporal.csv")"

# Idle time breakdown, launch statistics and HTA's rounding on tests/data/hta/idle (worked by hand; the
# real HTA at f4d0062 prints the same). Steps [0,100) and [100,200): kept are the events launched before
# 100. Stream 7: K1 [20,30) launched 10-15, K2 [35,40) 16-18, K3 [55,60) 50-52, copy M4 [100,110) 53-54,
# K5 [110.2,110.9) 60-61 (K6, launched at 120, dropped); stream 20: nccl K7 [70,90) (cuLaunchKernel
# 62-63), memset S8 [170,171) (cudaMemsetAsync 2-62, another thread).
#  exact: span 171 - 20 = 151; busy 10+5+5+20+10+0.7+1 = 51.7, idle 99.3; compute 10+5+5+0.7 = 20.7;
#         non_compute 151 - 20.7 - 99.3 = 31.
#  HTA:   K5 is rounded to [ceil 110.2, floor 110.9) = [111, 110): it starts after every end so far
#         (110), so it is a group of its own, -1 us; span 151, busy 50, idle 101, compute 19, non 31.
#  idle, stream 7: K2 gap 35-30 = 5, launched 16 < 30: kernel wait; K3 gap 15, launched 50 > 40: host
#         wait; M4 gap 40, launched 53 < 60, >= 30 us: other; K5 gap 0.2 (HTA: 111-110 = 1): kernel.
#         Stream 20: S8 gap 170-90 = 80, launched 2: other.
#  per step: all gaps' events were launched in step 1: host 15, kernel 5.2, other 40+80 = 120,
#         host share 15 / 140.2 = 0.106990; step 2 none.
#  launches (not cuLaunchKernel): K1 K2 K3 M4 K5 S8 = 6; cpu 5 2 2 1 1 60: sum 71, median (2+2)/2 = 2,
#         max 60; gpu 10 5 5 10 0.7 1: sum 31.7 (HTA: K5 110-111 = -1, sum 30), median 5, max 10;
#         delay 20-15=5 35-18=17 55-52=3 100-54=46 110.2-61=49.2 (HTA 111-61 = 50) 170-62=108:
#         sum 228.2 (HTA 229), median (17+46)/2 = 31.5, max 108; cpu > 50: 1 (S8's); delay > 100: 1;
#         short (cpu <= 50, gpu < cpu): K5 only = 1. Compute stream 7 (gemms, 20.7 us; stream 20 has
#         none): idle 15+5.2+40 = 60.2 of the span 151 = 0.398675 (>= 0.1), host wait 15/60.2 =
#         0.249169 (< 0.5): not host-bound.
#  kernel types: computation 20.7; HTA's sweep counts time only while its running sum is positive, and
#         the reversed K5 piece [111, 110) makes it -1 from 110 to 111, so it takes nothing off there:
#         10+5+5 = 20 (temporal's compute, a sum of group lengths, says 19); communication 20; memory
#         10+1 = 11; fractions over 51.7 (HTA 51): 0.400387 0.386847 0.212766 (0.392157 0.392157 0.215686).
"$PERFSTUDY" build -q -o "$T/idle" tests/data/hta/idle || bad "build of the idle case failed"
I=$T/idle/default/data
same_line() { grep -qxF "$2" "$I/$1" && ok || bad "$1: want '$2', have: $(cat "$I/$1")"; }
same_line temporal.csv 'idle,0,151.000,101.000,19.000,31.000,151.000,99.300,20.700,31.000'
same_line overlap.csv 'idle,0,20.000,0.000,0.000000,20.000,0.000,0.000000'
same_line kernel_types.csv 'idle,COMPUTATION,20.000,0.392157,20.700,0.400387'
same_line kernel_types.csv 'idle,COMMUNICATION,20.000,0.392157,20.000,0.386847'
same_line kernel_types.csv 'idle,MEMORY,11.000,0.215686,11.000,0.212766'
same_line idle_time.csv 'idle,0,7,15.000,6.000,40.000,15.000,5.200,40.000'
same_line idle_time.csv 'idle,0,20,0.000,0.000,80.000,0.000,0.000,80.000'
# GPU idle time per step, all streams as one GPU (gpu_idle.c): the union of every activity (K6 included:
#  gpu_idle keeps what ranks.csv keeps) is [20,30) [35,40) [55,60) [70,90) [100,110) [110.2,110.9) [130,140)
#  [170,171). Its gaps and their causes (host wait: an activity starting at the gap's end was launched by a
#  call that ended after the gap began): before 20 host (first); [30,35) K2's call ended 18: 5 us < 30,
#  kernel; [40,55) K3's ended 52 > 40: host; [60,70) K7's ended 63 > 60: host; [90,100) M4's ended 54, 10 us:
#  kernel; [110,110.2) kernel; [110.9,130) K6's ended 122: host; [140,170) S8's ended 62, 30 us: other;
#  after 171: other.
#  step 1 [0,100): busy 40, idle 60 = host 20+15+10 = 45, kernel 5+10 = 15; share 0.75.
#  step 2 [100,200): busy 10+0.7+10+1 = 21.7, idle 78.3 = host 19.1, kernel 0.2, other 30+29 = 59;
#         share 19.1/78.3 = 0.243934. Both whole (launches in each, equal lengths).
#  pooled: step 200, idle 138.3 (0.6915), host 64.1 (64.1/138.3 = 0.463485), kernel 15.2, other 59.
same_line idle_time_steps.csv 'idle,0,1,100.000,60.000,45.000,15.000,0.000,0.750000,1'
same_line idle_time_steps.csv 'idle,0,2,100.000,78.300,19.100,0.200,59.000,0.243934,1'
same_line gpu_idle.csv 'idle,0,2,0,200.000,138.300,64.100,15.200,59.000,0.691500,0.463485'
same_line launch_stats.csv "idle,0,6,71.000,2.000,60.000,30.000,5.000,10.000,229.000,31.500,108.000,1,1,1,\
6,71.000,2.000,60.000,31.700,5.000,10.000,228.200,31.500,108.000,1,1,1,\
7,0.398675,0.249169,not host-bound: stream 7 idle 40 % of the span; 25 % of that host wait"

# Whole steps (gpu_idle.c): S1 [0,100) launches K1 (call [10,12), runs [20,50)); S2 [100,200) launches
#  nothing (left out); S3 [200,300) launches K2 (call [210,212), runs [250,260)); S4 [300,310) launches K3
#  (call [302,304), runs [305,306)) but is the last step and lasts 10 us, under half the median step
#  (100 us): left out. Gaps: before 20 host; [50,250) K2's call ended 212 > 50: host; [260,305) K3's ended
#  304: host; after 306 other. S1 idle 70 (host 20+50); S2 idle 100 (host); S3 idle 90 (host 50+40); S4
#  idle 9 = host 5 + other 4. Pooled over S1 and S3: step 200, idle 160 (0.8), all host wait (1).
mkdir -p "$T/whole/run"
cat > "$T/whole/run/rank0.json" <<'JSON'
{"schemaVersion": 1, "traceEvents": [
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 200, "dur": 100},
 {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 300, "dur": 10},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}},
 {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"device": 0, "stream": 7, "correlation": 1}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 210, "dur": 2, "args": {"correlation": 2}},
 {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 250, "dur": 10, "args": {"device": 0, "stream": 7, "correlation": 2}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 302, "dur": 2, "args": {"correlation": 3}},
 {"ph": "X", "cat": "kernel", "name": "void gemm_kernel<float>(float*)", "pid": 0, "tid": 7, "ts": 305, "dur": 1, "args": {"device": 0, "stream": 7, "correlation": 3}}
]}
JSON
"$PERFSTUDY" build -q -o "$T/wo" "$T/whole/run" || bad "build of the whole-steps case failed"
I=$T/wo/default/data
same_line idle_time_steps.csv 'run,0,1,100.000,70.000,70.000,0.000,0.000,1.000000,1'
same_line idle_time_steps.csv 'run,0,2,100.000,100.000,100.000,0.000,0.000,1.000000,0'
same_line idle_time_steps.csv 'run,0,3,100.000,90.000,90.000,0.000,0.000,1.000000,1'
same_line idle_time_steps.csv 'run,0,4,10.000,9.000,5.000,0.000,4.000,0.555556,0'
same_line gpu_idle.csv 'run,0,2,2,200.000,160.000,160.000,0.000,0.000,0.800000,1.000000'

if ! command -v python3 >/dev/null; then
	skipped "python3 absent: no recomputation from the raw JSON, no HTA comparison"
	finish
	exit $?
fi
# The committed time tables against time_reference.py, recomputed from the raw JSON: t_core.sh
# runs tests/golden/make.sh --check, which does it (a minute or two; not twice).
. tests/golden/h200-runs.sh
head -1 "$D/temporal.csv" | grep -qx 'run,rank,span_us,idle_us,compute_us,non_compute_us,exact_span_us,exact_idle_us,exact_compute_us,exact_non_compute_us' &&
	ok || bad "temporal.csv header"
head -1 "$D/overlap.csv" |
	grep -qx 'run,rank,comm_us,overlap_us,overlap_fraction,exact_comm_us,exact_overlap_us,exact_overlap_fraction' &&
	ok || bad "overlap.csv header"
grep -q '^bert-2gpu-zero1,0,Broadcast,' "$D/collectives.csv" && ok || bad "ZeRO-1 Broadcast missing from collectives.csv"

# The real HTA's numbers (tests/golden/hta, from tools/hta_goldens.py): every share within 0.1 percentage
# point, HTA's own rounding (columns without exact_) and exact times (exact_ columns, HTA with its
# HTA_DISABLE_NS_ROUNDING) alike.
if python3 tests/golden/hta_compare.py tests/golden/hta "$D" 0.1 > "$T/cmp.txt"; then ok; else
	bad "h200: HTA-compatible tables differ from the real HTA by more than 0.1 pp"; grep 'over tol\|missing' "$T/cmp.txt" >&2; fi

H=../shared/corpus/hta
if [ ! -d "$H" ]; then
	skipped "../shared/corpus/hta absent"
	finish
	exit $?
fi
# HTA's own test traces, never seen by perfstudy's development: one run each, named as in the goldens.
mkdir -p "$T/hta"
for d in $(sed -n 's/^- `\([^`]*\)`: `\.\.\/shared\/corpus\/hta\/\([^`]*\)`.*/\1:\2/p' tests/golden/hta/SOURCE.md); do
	mkdir -p "$T/hta/${d%%:*}"
	cp "$H/${d#*:}"/*.json* "$T/hta/${d%%:*}/"
done
"$PERFSTUDY" build -q -o "$T/hout" "$T/hta"/* 2>"$T/hout.err" || bad "build of the HTA traces failed"
if python3 tests/golden/hta_compare.py tests/golden/hta "$T/hout/default/data" 0.1 > "$T/cmp2.txt"; then ok; else
	bad "HTA traces: HTA-compatible tables differ from the real HTA by more than 0.1 pp"
	grep 'over tol\|missing' "$T/cmp2.txt" >&2
fi
# strategy_scaling: two strategies whose names differ only in case and punctuation ("zero1", shown
# ZeRO-1, and "Zero 1") get a figure each, under two names, and a 1-GPU run of their model in both.
P=$PWD/experiments/h200/traces/gpt2-124m
cat >"$T/col.yaml" <<EOF
version: 1
id: col
title: two strategies, one figure name
runs:
  - {id: g1, gpus: 1, batch: 8, strategy: single, traces: $P/1gpu/rank*.pt.trace.json.gz}
  - {id: g2z, gpus: 2, batch: 8, strategy: zero1, traces: $P/2gpu-zero1/rank*.pt.trace.json.gz}
  - {id: g2x, gpus: 2, batch: 8, strategy: "Zero 1", traces: $P/2gpu-ddp/rank*.pt.trace.json.gz}
  - {id: g4x, gpus: 4, batch: 8, strategy: "Zero 1", traces: $P/4gpu-ddp/rank*.pt.trace.json.gz}
EOF
"$PERFSTUDY" build -q "$T/col.yaml" -o "$T/col" 2>"$T/err" && ok || bad "two strategies: build failed: $(cat "$T/err")"
[ -s "$T/col/col/figures/strategy_scaling_zero-1.svg" ] && [ -s "$T/col/col/figures/strategy_scaling_zero-1-2.svg" ] && ok ||
	bad "two strategies of one figure name: $(ls "$T/col/col/figures" | grep strategy_scaling | paste -sd' ')"
[ "$(cut -d, -f1,2,4 "$T/col/col/data/strategy_scaling.csv" | tail -n +2 | paste -sd' ')" = "ZeRO-1,g1,1 ZeRO-1,g2z,2 Zero 1,g1,1 Zero 1,g2x,2 Zero 1,g4x,4" ] &&
	ok || bad "two strategies: runs $(cut -d, -f1,2,4 "$T/col/col/data/strategy_scaling.csv" | paste -sd' ')"

finish
