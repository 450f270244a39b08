#!/bin/bash
# t_crossrank.sh: collectives matched across ranks (src/analyze/ranks/crossrank.c)
# and the critical path's joins (critical_path.c), on hand-built two-rank traces
# whose values are worked out here by hand, and on the bundled study
# against an independent reading of its raw traces (tools/crossrank_check.py).
. "$(dirname "$0")/lib.sh"

# --- two ranks, two steps (tests/data/crossrank/two/rank{0,1}.json, times in us) ---
# Both ranks, thread 1: ProfilerStep#1 [1000, 1100]; aten::mm [1005, 1015]
# with cudaLaunchKernel [1006, 1010] -> gemm on stream 7 from 1012 (rank 0:
# 30 us, to 1042; rank 1: 50 us, to 1062); nccl:all_reduce [1020, 1030]
# with cudaLaunchKernel [1022, 1026] -> the AllReduce kernel on stream 17
# (1000 Float: 4000 bytes, process group "0"): rank 0 [1050, 1080], rank 1
# [1070, 1080]; aten::item [1066, 1097] around cudaDeviceSynchronize
# [1067, 1095]. ProfilerStep#2 [2000, 2100]: an AllReduce of 2000 Float
# (8000 bytes) [2010, 2030] on both ranks.
#
# Clock: ends differ by 1080 - 1080 = 0 and 2030 - 2030 = 0: offset 0,
# residual 0.
# Collective 0: arrivals 1050 (rank 0), 1070 (rank 1): last rank 1 at 1070.
#   rank 0: wait 1070 - 1050 = 20, transfer 1080 - 1070 = 10
#   rank 1: wait 0, transfer 10; algbw = 4000 B / 10 us = 0.4 GB/s, busbw
#   = 0.4 x 2(2-1)/2 = 0.4.
# Collective 1: both arrive at 2010: last rank 0 (tie: the lowest), wait 0,
#   transfer 20; 8000 B / 20 us = 0.4 GB/s.
# Straggler of collective 0: rank 1, late 20 (= spread: two ranks), caused
# rank 0's 20. Its window [1050, 1070] on rank 1: gemm to 1062: compute 12;
# [1062, 1066] GPU idle between operators 4; [1066, 1070] idle inside
# aten::item 4. Collective 1: nobody waited.
# straggler_ranks: rank 0 waited 20 in 2 steps (10 per step), transferred
# 10 + 20 = 30 (15), computed 30 (15); rank 1 caused 20 (10), last in step
# 1, transferred 30, computed 50 (25).
# Exposed: rank 0's wait [1050, 1070] meets no other activity of its GPU
# (gemm ended at 1042): exposed 20 (10 per step). The partition of the two
# 100 us steps: rank 0 busy (gemm) 30 -> 15 per step; communication kernels
# 30 + 20 = 50, less the exposed wait 20: 30 -> 15; exposed wait 10; idle
# 200 - (30 + 50) = 120 -> 60; 15 + 15 + 10 + 60 = 100. Rank 1: busy 50 ->
# 25, communication 10 + 20 = 30 -> 15, no wait, idle 200 - 80 -> 60.
# Windows that made a rank wait: rank 1's of collective 0 only (collective
# 1 made nobody wait): 1 window, union 20, split as above 12, 0, 0, 4, 4.
#
# Critical path, rank 0, step 1, back from 1100: [1097, 1100] host 3 (after
# aten::item), [1095, 1097] host 2 (after the sync call), [1080, 1095] host
# 15 (the sync waited for the AllReduce, which ended last inside it), the
# AllReduce [1070, 1080] communication 10 and [1050, 1070] waiting for rank
# 1, 20; it could start at its launch's end 1026 but started 24 us later (>
# 20): it waited for the gemm on stream 7 (ended 1042): idle [1042, 1050] 8;
# gemm [1012, 1042] compute 30; its launch [1006, 1012] host 6; [1005,
# 1006] host 1; [1000, 1005] host 5 (before the thread's first event).
#   compute 30, communication 10, host 3+2+15+6+1+5 = 32, idle 8, wait 20
#   (rank 1): 100.
# Rank 1, step 1: the same, but the AllReduce is joined at its own start
# (it was last): communication 10, no wait; idle [1062, 1070] 8; gemm 50.
#   compute 50, communication 10, host 32, idle 8: 100.
# Step 2 on both: the AllReduce ends at 2030, after the last host event
# (2008) and waited for by nothing: host [2008, 2100] 92, [2007, 2008] 1,
# [2003, 2007] 4, [2002, 2003] 1, [2000, 2002] 2: host 100.
# Of the host time, outside every operator and runtime call
# (host_outside_ops_us, issue #57): step 1 [1097, 1100] 3 (after
# aten::item) and [1000, 1005] 5 (before the thread's first event) = 8;
# step 2 [2008, 2100] 92 (after nccl:all_reduce) and [2000, 2002] 2 (back
# to step 1's aten::item end, 1097) = 94; on both ranks.
$PERFSTUDY build -q tests/data/crossrank/two -o "$T/two" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "two-rank build failed: $(cat "$T/err")"
D=$T/two/default/data
cat >"$T/want" <<'WANT'
run,step,communicator,collective,name,dtype,bytes,ranks,rank,matched,start_us,end_us,arrival_us,kernel_us,last_arrival_us,last_rank,wait_us,transfer_us,algbw_gb_per_s,busbw_gb_per_s,exposed_wait_us
two,1,0,0,AllReduce,Float,4000,2,0,1,1050.000,1080.000,1050.000,30.000,1070.000,1,20.000,10.000,0.4,0.4,20.000
two,1,0,0,AllReduce,Float,4000,2,1,1,1070.000,1080.000,1070.000,10.000,1070.000,1,0.000,10.000,0.4,0.4,0.000
two,2,0,1,AllReduce,Float,8000,2,0,1,2010.000,2030.000,2010.000,20.000,2010.000,0,0.000,20.000,0.4,0.4,0.000
two,2,0,1,AllReduce,Float,8000,2,1,1,2010.000,2030.000,2010.000,20.000,2010.000,0,0.000,20.000,0.4,0.4,0.000
WANT
same "$T/want" "$D/collective_waits.csv" "two-rank collective_waits.csv"
# (clock_offsets.csv of this run holds only zero offsets, a table without
# data that the build leaves out; the shifted run below checks it.)
cat >"$T/want" <<'WANT'
run,step,communicator,collective,name,ranks,last_rank,late_us,spread_us,caused_wait_us,compute_us,memory_us,communication_us,idle_host_in_op_us,idle_host_between_ops_us
two,1,0,0,AllReduce,2,1,20.000,20.000,20.000,12.000,0.000,0.000,4.000,4.000
two,2,0,1,AllReduce,2,0,0.000,0.000,0.000,0.000,0.000,0.000,0.000,0.000
WANT
same "$T/want" "$D/stragglers.csv" "two-rank stragglers.csv"
cat >"$T/want" <<'WANT'
run,rank,steps,collectives_last,steps_last,last_in_steps,caused_wait_us,caused_wait_per_step_us,waited_us,waited_per_step_us,transfer_us,transfer_per_step_us,compute_us,compute_per_step_us,exposed_wait_us,exposed_wait_per_step_us,step_per_step_us,busy_per_step_us,exposed_comm_per_step_us,idle_per_step_us,windows,window_union_us,window_compute_us,window_memory_us,window_communication_us,window_idle_host_in_op_us,window_idle_host_between_ops_us
two,0,2,0,0,,0.000,0.000,20.000,10.000,30.000,15.000,30.000,15.000,20.000,10.000,100.000,15.000,15.000,60.000,0,0.000,0.000,0.000,0.000,0.000,0.000
two,1,2,1,1,1,20.000,10.000,0.000,0.000,30.000,15.000,50.000,25.000,0.000,0.000,100.000,25.000,15.000,60.000,1,20.000,12.000,0.000,0.000,4.000,4.000
WANT
same "$T/want" "$D/straggler_ranks.csv" "two-rank straggler_ranks.csv"
cat >"$T/want" <<'WANT'
run,rank,step,step_us,compute_us,communication_us,memory_us,host_us,idle_us,wait_us,wait_rank,bound,host_outside_ops_us
two,0,1,100.000,30.000,10.000,0.000,32.000,8.000,20.000,1,host and launch,8.000
two,0,2,100.000,0.000,0.000,0.000,100.000,0.000,0.000,,host and launch,94.000
two,1,1,100.000,50.000,10.000,0.000,32.000,8.000,0.000,,compute,8.000
two,1,2,100.000,0.000,0.000,0.000,100.000,0.000,0.000,,host and launch,94.000
WANT
same "$T/want" "$D/critical_path.csv" "two-rank critical_path.csv"
# The path across ranks, step 1: both steps end at 1100 (tie: rank 0).
# From rank 0's end as above down to the AllReduce's join (host 3 + 2 + 15,
# communication 10: 30 on rank 0), then on rank 1 from its AllReduce's
# start 1070 (it arrived last): idle 8, gemm 50, host 6 + 1 + 5 (70 on
# rank 1). compute 50, communication 10, host 32, idle 8: 100. Step 2 is
# rank 0's host path alone.
cat >"$T/want" <<'WANT'
run,step,end_rank,path_us,compute_us,communication_us,memory_us,host_us,idle_us,wait_us,ranks_on_path,path_by_rank,most_rank,most_rank_us,cut
two,1,0,100.000,50.000,10.000,0.000,32.000,8.000,0.000,2,r0 30.000; r1 70.000,1,70.000,0
two,2,0,100.000,0.000,0.000,0.000,100.000,0.000,0.000,1,r0 100.000,0,100.000,0
WANT
same "$T/want" "$D/critical_path_across.csv" "two-rank critical_path_across.csv"
[ -f "$T/two/default/figures/rank_waits.svg" ] && ok || bad "figure rank_waits.svg missing"

# --- the same with rank 1's clock 5000 us ahead (tests/data/crossrank/shifted) ---
# Its ends 6080 and 7030 against 1080 and 2030: offset 5000 (feasible:
# max(6070 - 1080, 7010 - 2030) = 4990 .. min(6080 - 1050, 7030 - 2010) =
# 5020), residual 0; on rank 0's clock every wait and path is as above.
$PERFSTUDY build -q tests/data/crossrank/shifted -o "$T/sh" 2>/dev/null
grep -q '^shifted,1,0,2,5000.000,0.000$' "$T/sh/default/data/clock_offsets.csv" && ok ||
	bad "shifted clock: want offset 5000 us: $(cat "$T/sh/default/data/clock_offsets.csv")"
cut -d, -f2- "$T/sh/default/data/critical_path.csv" >"$T/got"
cut -d, -f2- "$D/critical_path.csv" >"$T/want"
same "$T/want" "$T/got" "critical path with a shifted clock"
cut -d, -f2- "$T/sh/default/data/critical_path_across.csv" >"$T/got"
cut -d, -f2- "$D/critical_path_across.csv" >"$T/want"
same "$T/want" "$T/got" "critical path across ranks with a shifted clock"
awk -F, 'NR > 1 { print $9, $16, $17, $18 }' "$T/sh/default/data/collective_waits.csv" >"$T/got"
awk -F, 'NR > 1 { print $9, $16, $17, $18 }' "$D/collective_waits.csv" >"$T/want"
same "$T/want" "$T/got" "waits with a shifted clock"

# --- rank 1 without step 2's AllReduce (tests/data/crossrank/missing) ---
# Collective 0 is matched as above; rank 0's collective 1 is unmatched (a
# row with matched 0 and no wait) and a warning names run, rank and
# collective.
$PERFSTUDY build tests/data/crossrank/missing -o "$T/mi" 2>"$T/err"
grep -q "run missing rank 1: collective #1 (AllReduce) of communicator '0' does not match" "$T/err" && ok ||
	bad "no warning for the missing collective: $(cat "$T/err")"
grep -q '^missing,2,0,1,AllReduce,Float,8000,2,0,0,2010.000,2030.000,2010.000,20.000,,,,,,,$' \
	"$T/mi/default/data/collective_waits.csv" && ok || bad "the unmatched collective's row"
grep -q '^missing,1,0,0,AllReduce,Float,4000,2,0,1,1050.000,1080.000,1050.000,30.000,1070.000,1,20.000,10.000,' \
	"$T/mi/default/data/collective_waits.csv" && ok || bad "collective 0 still matched"

# --- the bundled study against its raw traces, and a shifted real trace ---
E=experiments/h200/traces
if [ -d "$E" ] && command -v python3 >/dev/null; then
	example_h200 "$T/ex" 2>"$T/err" || bad "example build failed: $(cat "$T/err")"
	python3 tools/crossrank_check.py bert-2gpu-ddp "$T/ex/h200/data" $E/bert-base/2gpu-ddp/rank*.json.gz >"$T/chk" &&
		ok || bad "bert-2gpu-ddp against its raw traces: $(cat "$T/chk")"
	python3 tools/crossrank_check.py gpt2-4gpu-zero1 "$T/ex/h200/data" $E/gpt2-124m/4gpu-zero1/rank*.json.gz >"$T/chk" &&
		ok || bad "gpt2-4gpu-zero1 against its raw traces: $(cat "$T/chk")"
	# bert-2gpu-ddp with rank 1's timestamps moved 1234567.891 us later: its
	# offset must move by that, within 5 us
	mkdir -p "$T/shift/bert"
	cp $E/bert-base/2gpu-ddp/rank0.pt.trace.json.gz "$T/shift/bert/"
	python3 -c 'import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
for e in d["traceEvents"]:
    if "ts" in e: e["ts"] = float(e["ts"]) + 1234567.891
json.dump(d, gzip.open(sys.argv[2], "wt"))' $E/bert-base/2gpu-ddp/rank1.pt.trace.json.gz "$T/shift/bert/rank1.pt.trace.json.gz"
	$PERFSTUDY build -q "$T/shift/bert" -o "$T/sho" 2>/dev/null
	base=$(awk -F, '$1 == "bert-2gpu-ddp" && $2 == 1 { print $5 }' "$T/ex/h200/data/clock_offsets.csv")
	awk -F, -v b="$base" '$1 == "bert" && $2 == 1 { d = $5 - b - 1234567.891; exit !(d > -5 && d < 5) }' \
		"$T/sho/default/data/clock_offsets.csv" && ok ||
		bad "shifted real trace: offset $(grep '^bert,1' "$T/sho/default/data/clock_offsets.csv"), unshifted $base"
else
	skipped "experiments/h200/traces or python3 absent"
fi

# --- matching by Seq (tests/data/crossrank/seq): rank 0 has Seq 0, 1, 2, rank 1 Seq 0 and 2 ---
# Seq 0: both [1010, 1020]: wait 0, transfer 10, 4000 B / 10 us = 0.4 GB/s.
# Seq 1 (rank 0 [1040, 1050], 2000 Float = 8000 B) is unmatched with a
# warning; Seq 2 is still matched (Seq pairs it): rank 0 [1065, 1080],
# rank 1 [1070, 1080]; offset 0 (ends 1020 - 1020 and 1080 - 1080); last
# rank 1 at 1070: rank 0 waits 5 and transfers 10, rank 1 transfers 10;
# 12000 B / 10 us = 1.2 GB/s (busbw x 2(2-1)/2 = 1). collective: the Seq.
# Rank 0's wait [1065, 1070] meets no other kernel of its GPU: exposed 5.
$PERFSTUDY build tests/data/crossrank/seq -o "$T/seq" 2>"$T/err"
grep -q "run seq rank 1: collective Seq 1 (AllReduce) of communicator '0' is left unmatched: rank 1 has no collective with Seq 1" \
	"$T/err" && ok || bad "no warning for the missing Seq: $(cat "$T/err")"
cat >"$T/want" <<'WANT'
run,step,communicator,collective,name,dtype,bytes,ranks,rank,matched,start_us,end_us,arrival_us,kernel_us,last_arrival_us,last_rank,wait_us,transfer_us,algbw_gb_per_s,busbw_gb_per_s,exposed_wait_us
seq,1,0,0,AllReduce,Float,4000,2,0,1,1010.000,1020.000,1010.000,10.000,1010.000,0,0.000,10.000,0.4,0.4,0.000
seq,1,0,0,AllReduce,Float,4000,2,1,1,1010.000,1020.000,1010.000,10.000,1010.000,0,0.000,10.000,0.4,0.4,0.000
seq,1,0,2,AllReduce,Float,12000,2,0,1,1065.000,1080.000,1065.000,15.000,1070.000,1,5.000,10.000,1.2,1.2,5.000
seq,1,0,2,AllReduce,Float,12000,2,1,1,1070.000,1080.000,1070.000,10.000,1070.000,1,0.000,10.000,1.2,1.2,0.000
seq,1,0,1,AllReduce,Float,8000,2,0,0,1040.000,1050.000,1040.000,10.000,,,,,,,
WANT
same "$T/want" "$T/seq/default/data/collective_waits.csv" "matching by Seq"

# --- sizes disagree (tests/data/crossrank/sizes: two, rank 1's first AllReduce of 999 elements) ---
# By order, the first disagreement stops the communicator: both collectives
# of both ranks are unmatched rows, no offset; one warning names the rank.
$PERFSTUDY build tests/data/crossrank/sizes -o "$T/sz" 2>"$T/err"
grep -q "run sizes rank 1: collective #0 (AllReduce) of communicator '0' .*rank 1 AllReduce Float in 999 out 999 .*AllReduce Float in 1000 out 1000; #0 and the 1 later .* left unmatched" \
	"$T/err" && ok || bad "no warning for disagreeing sizes: $(cat "$T/err")"
[ "$(awk -F, 'NR > 1 && $10 == 0' "$T/sz/default/data/collective_waits.csv" | wc -l)" -eq 4 ] && ok ||
	bad "sizes: want 4 unmatched rows: $(cat "$T/sz/default/data/collective_waits.csv")"
[ ! -f "$T/sz/default/data/clock_offsets.csv" ] && ok || bad "sizes: want no offsets (none measured)"
finish
