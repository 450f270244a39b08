#!/bin/bash
# t_critpath.sh: the critical path of a step (src/analyze/ranks/critical_path.c) on
# hand-built traces whose paths are worked out here by hand.
. "$(dirname "$0")/lib.sh"

# --- one rank, two steps (tests/data/critpath/one/rank0.json, times in us) ---
# Thread 1 holds both steps; stream 7 runs kernels, stream 20 a memcpy.
#
# Step 1 [1000, 1100]. Ops aten::empty [995, 1003], aten::mm [1010, 1030]
# (cudaLaunchKernel [1012, 1016] -> gemm [1020, 1040]), cudaMemcpyAsync
# [1032, 1034] -> memcpy on stream 20 [1050, 1068], aten::relu [1040, 1050]
# (cudaLaunchKernel [1042, 1045] -> relu [1072, 1090]),
# cudaDeviceSynchronize [1060, 1095]. Back from the step's end:
#   [1095, 1100] host   the thread after the sync call returned        5
#   [1090, 1095] host   sync: relu ended last inside the call (1090)   5
#   [1072, 1090] compute relu                                         18
#   [1068, 1072] idle   relu could start at max(gemm end 1040, launch end
#                       1045) = 1045, but started 27 us later (> 20): it
#                       waited for another stream, the memcpy that
#                       ended last before it (1068)                    4
#   [1050, 1068] memory the memcpy                                    18
#   [1032, 1050] host   its launch (cudaMemcpyAsync start)            18
#   [1030, 1032] [1016, 1030] [1012, 1016] [1010, 1012] [1003, 1010]
#   [1000, 1003] host   back along thread 1 to the step's start
#                       2 + 14 + 4 + 2 + 7 + 3                       32
# compute 18, memory 18, host 5 + 5 + 18 + 32 = 60, idle 4: 100 = step.
#
# Step 2 [2000, 2100], the same without the memcpy and with gemm [2020,
# 2070]: [2095, 2100] host 5, [2090, 2095] host 5 (sync), relu [2072, 2090]
# compute 18, [2070, 2072] idle 2 (relu ready at max(2070, 2045) = 2070,
# 2 us later: its stream's order binds, gemm's end 2070 is later than its
# launch 2042), gemm [2020, 2070] compute 50, [2012, 2020] host 8 (gemm's
# launch at 2012 is later than the stream's previous end, step 1's relu at
# 1090), [2010, 2012] 2, [2003, 2010] 7, [2000, 2003] 3 host.
# compute 68, host 5 + 5 + 8 + 2 + 7 + 3 = 30, idle 2: 100.
# host_outside_ops_us, the host segments in which thread 1 is inside no
# operator and no runtime call (issue #57): step 1 [1095, 1100] 5 (after
# the sync), [1030, 1032] 2 (between aten::mm and cudaMemcpyAsync),
# [1003, 1010] 7 (between aten::empty and aten::mm) = 14; the sync's and
# the launches' segments are inside calls or launch latency. Step 2 [2095,
# 2100] 5, [2003, 2010] 7 = 12.
$PERFSTUDY build -q tests/data/critpath/one -o "$T/one" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "one-rank build failed: $(cat "$T/err")"
cat >"$T/want" <<'WANT'
run,rank,step,step_us,compute_us,communication_us,memory_us,host_us,idle_us,wait_us,wait_rank,bound,host_outside_ops_us
one,0,1,100.000,18.000,0.000,18.000,60.000,4.000,0.000,,host and launch,14.000
one,0,2,100.000,68.000,0.000,0.000,30.000,2.000,0.000,,compute,12.000
WANT
same "$T/want" "$T/one/default/data/critical_path.csv" "one-rank critical_path.csv"
cat >"$T/want" <<'WANT'
run,step,ranks,step_us,critical_rank,compute_us,communication_us,memory_us,host_us,idle_us,wait_us,max_wait_rank,max_wait_us,waited_for_rank
one,1,1,100.000,0,18.000,0.000,18.000,60.000,4.000,0.000,,,
one,2,1,100.000,0,68.000,0.000,0.000,30.000,2.000,0.000,,,
WANT
same "$T/want" "$T/one/default/data/critical_path_steps.csv" "one-rank critical_path_steps.csv"
[ -f "$T/one/default/figures/critical_path.svg" ] && ok || bad "figure critical_path.svg missing"

# --- HTA's critical-path test traces (../shared), on the windows HTA's tests use ---
# tools/critpath_vs_hta.py writes each with a ProfilerStep#1 over the window.
# Expected: the GPU part of the path as HTA's critical_path_analysis
# reported it (run by hand, HTA f4d0062): alexnet gpu_compute_bound 3712 us
# (HTA counts memcpy and memset as compute), cuda_event_sync_multi_stream
# gpu_compute_bound 124 us and gpu_kernel_kernel_overhead 15 us.
C=../shared/corpus/hta/critical_path
if [ -d "$C/alexnet" ] && [ -d "$C/cuda_event_sync_multi_stream" ] && command -v python3 >/dev/null; then
	python3 -c 'import sys, glob; sys.path.insert(0, "tools"); import critpath_vs_hta as c
for n, a, i in c.CASES[1:4:2]:
    c.inject(glob.glob(sys.argv[1] + "/" + n + "/*.json.gz")[0], sys.argv[2] + "/" + n + "/trace.json", a, i)' \
		"$C" "$T/hta" && ok || bad "could not write the HTA windows"
	$PERFSTUDY build -q "$T/hta/alexnet" "$T/hta/cuda_event_sync_multi_stream" -o "$T/htao" 2>"$T/err" && ok ||
		bad "HTA traces build failed: $(cat "$T/err")"
	awk -F, '$1 == "alexnet" { print $5 + $7 } $1 == "cuda_event_sync_multi_stream" { print $5 + $7, $9 + 0 }' \
		"$T/htao/default/data/critical_path.csv" >"$T/got"
	printf '3712\n124 15\n' >"$T/want"
	same "$T/want" "$T/got" "GPU part of the critical path on HTA's traces"
else
	skipped "HTA critical-path traces or python3 absent"
fi

# --- every row of the bundled study sums to its step ---
if [ -d experiments/h200/traces ]; then
	example_h200 "$T/ex" 2>"$T/err" || bad "example build failed: $(cat "$T/err")"
	awk -F, 'NR > 1 { s = $5 + $6 + $7 + $8 + $9 + $10; d = s - $4; if (d < -0.0015 || d > 0.0015) { print; n++ } }
		END { exit n > 0 }' "$T/ex/h200/data/critical_path.csv" >"$T/bad" && ok ||
		bad "critical path parts do not sum to the step: $(head -3 "$T/bad")"
	[ "$(wc -l <"$T/ex/h200/data/critical_path.csv")" -eq 79 ] && ok ||
		bad "critical_path.csv of the example: want 78 rows (26 ranks, 3 steps each)"
else
	skipped "experiments/h200/traces absent"
fi
finish
