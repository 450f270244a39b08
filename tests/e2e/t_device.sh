#!/bin/bash
# t_device.sh: several devices inside one profile (issue 20 section 1,
# paper 000). One process driving two GPUs writes one file whose activities
# are on devices 0 and 1; each (file, device) must become a rank of its own,
# in every format that records the device: nvprof CSV, .nvvp, Nsight Systems
# export, Kineto. Expected values are worked out by hand from the fixtures in
# tests/data/device/ (the arithmetic is in the comments below).
. "$(dirname "$0")/lib.sh"
D=tests/data/device
mkdir -p "$T/in"
cp $D/nvprof_2dev.csv $D/kineto_dp.json "$T/in/"

# --- nvprof CSV, with a manifest that says gpus: 1: split, and a warning ---
cat >"$T/in/study.yaml" <<YAML
title: one process, two GPUs
classify: payoungkhamdee2021
runs:
  - { id: dp2, gpus: 1, traces: nvprof_2dev.csv }
YAML
$PERFSTUDY build "$T/in/study.yaml" -o "$T/out" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "nvprof build failed: $(cat "$T/err")"
dat="$T/out/study/data"
# The warning names the file, the devices and both counts.
grep -q "nvprof_2dev.csv: warning: .* 2 devices (0, 1), .*rank.*'dp2' .* 2 ranks, .*gpus: 1$" "$T/err" &&
	ok || bad "no warning for gpus: 1 with two devices: $(cat "$T/err")"
# runs.csv: gpus is the manifest's 1, ranks the 2 devices; its layout one GPU's (gpus 1).
# The last columns, strategy_source, model_source and batch_source, are empty: no manifest strategy,
# model or batch, no wrapper annotation in the trace, no training log.
grep -q '^dp2,dp2,1,2,,,,Tesla V100-SXM2-32GB,5,,1,1,1,one GPU,,,,,,$' "$dat/runs.csv" && ok || bad "runs.csv: $(cat "$dat/runs.csv")"
# Device 0 (rank 0): volta_sgemm 100 us; ncclReduce 30; HtoD 10 us of 64 KB = 65536 B; PtoP 8 us of
# 128 KB = 131072 B. Device 1 (rank 1): volta_sgemm 40 + 20 = 60 us in 2 calls (mean 30, min 20, max 40);
# ncclReduce 25; DtoH 5 us of 2 KB = 2048 B; memset 2 us of 1 KB = 1024 B.
cat >"$T/want" <<'EOF'
run,rank,name,group,calls,total_us,mean_us,min_us,max_us
dp2,0,volta_sgemm_128x64_tn,matrix-mul,1,100.000,100.000,100.000,100.000
dp2,0,ncclReduceRingLLKernel_sum_f32(ncclColl),memory_mgmt,1,30.000,30.000,30.000,30.000
dp2,1,volta_sgemm_128x64_tn,matrix-mul,2,60.000,30.000,20.000,40.000
dp2,1,ncclReduceRingLLKernel_sum_f32(ncclColl),memory_mgmt,1,25.000,25.000,25.000,25.000
EOF
same "$T/want" "$dat/kernels.csv" "nvprof 2 devices: kernels.csv"
# payoungkhamdee2021 groups: matrix-mul = gemm; memory_mgmt = nccl + memcpy + memset.
# Device 0: 100 | 30 + 10 + 8 = 48; total 148: 100/148 = 0.675676, 48/148 = 0.324324.
# Device 1: 60 | 25 + 5 + 2 = 32; total 92: 60/92 = 0.652174, 32/92 = 0.347826.
cat >"$T/want" <<'EOF'
run,rank,group,time_us,fraction
dp2,0,matrix-mul,100.000,0.675676
dp2,0,memory_mgmt,48.000,0.324324
dp2,0,custom_ops,0.000,0.000000
dp2,0,other,0.000,0.000000
dp2,1,matrix-mul,60.000,0.652174
dp2,1,memory_mgmt,32.000,0.347826
dp2,1,custom_ops,0.000,0.000000
dp2,1,other,0.000,0.000000
EOF
same "$T/want" "$dat/groups.csv" "nvprof 2 devices: groups.csv"
# Memory operations per device: device 0's HtoD and device 1's DtoH are in different rows.
# GB/s = bytes / ns: 65536 / 10000 = 6.5536; 131072 / 8000 = 16.384; 2048 / 5000 = 0.4096; 1024 / 2000 = 0.512.
cat >"$T/want" <<'EOF'
dp2,0,HtoD,1,65536,10.000,6.5536
dp2,0,PtoP,1,131072,8.000,16.384
dp2,1,DtoH,1,2048,5.000,0.4096
dp2,1,memset,1,1024,2.000,0.512
EOF
grep -v ',0,0,0.000,$' "$dat/memops.csv" | tail -n +2 >"$T/got"
same "$T/want" "$T/got" "nvprof 2 devices: memops.csv"
# Each rank's device, and the top kernels over both devices with the Device column (paper 000, Fig. 3).
cat >"$T/want" <<'EOF'
run,rank,device,device_name,file,devices_in_file
dp2,0,0,Tesla V100-SXM2-32GB (0),nvprof_2dev.csv,2
dp2,1,1,Tesla V100-SXM2-32GB (1),nvprof_2dev.csv,2
EOF
sed "s|,$T/in/|,|" "$dat/rank_devices.csv" >"$T/got"
same "$T/want" "$T/got" "nvprof 2 devices: rank_devices.csv"
cat >"$T/want" <<'EOF'
run,place,rank,device,name,group,calls,total_us
dp2,1,0,Tesla V100-SXM2-32GB (0),volta_sgemm_128x64_tn,matrix-mul,1,100.000
dp2,2,1,Tesla V100-SXM2-32GB (1),volta_sgemm_128x64_tn,matrix-mul,2,60.000
dp2,3,0,Tesla V100-SXM2-32GB (0),ncclReduceRingLLKernel_sum_f32(ncclColl),memory_mgmt,1,30.000
dp2,4,1,Tesla V100-SXM2-32GB (1),ncclReduceRingLLKernel_sum_f32(ncclColl),memory_mgmt,1,25.000
EOF
same "$T/want" "$dat/top_kernels.csv" "nvprof 2 devices: top_kernels.csv"
# group_totals.csv sums the run's ranks: matrix-mul 100 + 60 = 160, memory_mgmt 48 + 32 = 80, of 240:
# 160/240 = 0.666667, 80/240 = 0.333333.
printf 'run,gpus,group,time_us,fraction\ndp2,1,matrix-mul,160.000,0.666667\ndp2,1,memory_mgmt,80.000,0.333333\ndp2,1,custom_ops,0.000,0.000000\ndp2,1,other,0.000,0.000000\n' >"$T/want"
same "$T/want" "$dat/group_totals.csv" "nvprof 2 devices: group_totals.csv"
# collectives.csv: the NCCL 2.4-era name says Reduce before "Kernel" (its "_sum_f32" is the operation):
# 30 us on device 0, 25 on device 1.
grep -v '^run,' "$dat/collectives.csv" | cut -d, -f1-5 >"$T/got"
printf 'dp2,0,Reduce,1,30.000\ndp2,1,Reduce,1,25.000\n' >"$T/want"
same "$T/want" "$T/got" "nvprof 2 devices: collectives.csv"
grep -q 'device 0 = rank 0; device 1 = rank 1' "$T/out/study/index.html" && ok || bad "no note on the page for the split file"
for fig in top_kernels_dp2_r0 top_kernels_dp2_r1 memops group_fractions group_fractions_run; do
	grep -q '<svg' "$T/out/study/figures/$fig.svg" 2>/dev/null && ok || bad "figure $fig missing"
done
# The same file with gpus: 2 agrees: no warning. A rebuild reads the split file again (its rows are in
# two traces) and gives the same tables.
sed -i 's/gpus: 1/gpus: 2/' "$T/in/study.yaml"
$PERFSTUDY build -q "$T/in/study.yaml" -o "$T/out2" 2>"$T/err"
[ $? -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "gpus: 2 build: exit or warnings: $(cat "$T/err")"
$PERFSTUDY build -q "$T/in/study.yaml" -o "$T/out2" 2>"$T/err"
for f in kernels groups memops top_kernels; do
	same "$dat/$f.csv" "$T/out2/study/data/$f.csv" "rebuild with gpus: 2: $f.csv"
done

# --- Kineto, one process on two devices (DataParallel) ---
# Device 0: volta_sgemm 50 us (correlation 1). Device 1: volta_sgemm 30 (corr 2), the NCCL broadcast
# 20 (corr 3, with its collective args), HtoD 4 us of 512 B (corr 4). Host: ProfilerStep#1 (200 us),
# one aten::mm, four launches (corr 1-4); a GPU range on stream 9, used by device 1 only.
$PERFSTUDY build -q "$T/in/kineto_dp.json" -o "$T/k" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "kineto build failed: $(cat "$T/err")"
q() { sqlite3 "$1/perfstudy.db" "$2"; }
# Per rank: device, kernels, their total ns, launches, host ranges, GPU ranges, host operators, collectives.
# Rank 0: device 0, 1 kernel of 50000 ns, launch 1, the step, no GPU range, the aten::mm, no collective.
# Rank 1: device 1, 2 kernels of 30000 + 20000 = 50000 ns, launches 2-4, the step copied, the range on
# stream 9, no host operator, the broadcast's args.
cat >"$T/want" <<'EOF'
0|0|1|50000|1|1|0|1|0
1|1|2|50000|3|1|1|0|1
EOF
q "$T/k" "SELECT t.rank, t.device,
	(SELECT count(*) FROM activities a WHERE a.trace_id = t.id AND a.kind = 'kernel'),
	(SELECT sum(dur_ns) FROM activities a WHERE a.trace_id = t.id AND a.kind = 'kernel'),
	(SELECT count(*) FROM launches l WHERE l.trace_id = t.id),
	(SELECT count(*) FROM annotations a WHERE a.trace_id = t.id AND on_gpu = 0),
	(SELECT count(*) FROM annotations a WHERE a.trace_id = t.id AND on_gpu = 1),
	(SELECT count(*) FROM cpu_ops c WHERE c.trace_id = t.id),
	(SELECT count(*) FROM collectives c WHERE c.trace_id = t.id) FROM traces t ORDER BY t.rank" >"$T/got"
same "$T/want" "$T/got" "kineto 2 devices: rows per rank"
# Launches go with the kernel they launched: rank 1 has correlations 2, 3, 4.
[ "$(q "$T/k" "SELECT group_concat(correlation) FROM (SELECT l.correlation FROM launches l JOIN traces t ON t.id = l.trace_id WHERE t.rank = 1 ORDER BY 1)")" = "2,3,4" ] &&
	ok || bad "kineto: launches of rank 1"
# Both ranks see the step (200 us); runs.csv: gpus from the 2 ranks (no manifest, no world size),
# no layout (no DDP annotation, no sends or receives).
printf 'run,rank,step,step_us\nkineto_dp.json,0,1,200.000\nkineto_dp.json,1,1,200.000\n' >"$T/want"
same "$T/want" "$T/k/default/data/steps.csv" "kineto 2 devices: steps.csv"
grep -q '^kineto_dp.json,kineto_dp.json,2,2,,,,GPU A,3,200.000,,,,,,,,,,$' "$T/k/default/data/runs.csv" && ok ||
	bad "kineto runs.csv: $(cat "$T/k/default/data/runs.csv")"
grep -q '^kineto_dp.json,1,HtoD,1,512,4.000,0.128$' "$T/k/default/data/memops.csv" && ok || bad "kineto memops of device 1"

# --- the bundled nvprof-000 example: paper 000's Figure 6 back from its nvprof files ---
$PERFSTUDY build -q experiments/nvprof-000/study.yaml -o "$T/ex" 2>"$T/err"
[ $? -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "nvprof-000 build: $(cat "$T/err")"
ex="$T/ex/nvprof-000/data"
# Ranks are the devices of each file: 1, 2 and 4.
grep -q '^1gpu,1 x V100,1,1,' "$ex/runs.csv" && grep -q '^2gpu,"2 x V100, DataParallel",2,2,' "$ex/runs.csv" &&
	grep -q '^4gpu,"4 x V100, DataParallel",4,4,' "$ex/runs.csv" && ok ||
	bad "nvprof-000 runs.csv: $(cat "$ex/runs.csv")"
# Figure 6 of the paper, typed in from its text: run, device, the name as the paper prints it (its
# truncation), total in ms. top_kernels.csv must list the same rows in the same order, total_us =
# ms x 1000 to the ns.
if command -v python3 >/dev/null; then
	python3 - "$ex/top_kernels.csv" >"$T/got" 2>&1 <<'PY'
import csv, sys
fig6 = """1gpu 0 volta_sgemm_128x64_tn 1698.524756
1gpu 0 volta_sgemm_128x64_nn 1410.022210
1gpu 0 void_at::native::vectorized_elementwise_kernel 748.877009
1gpu 0 volta_sgemm_64x32_sliced1x4_nt 718.032153
1gpu 0 volta_sgemm_128x128_nt 570.040032
1gpu 0 void_at::native::vectorized_elementwise_kernel 502.679115
1gpu 0 volta_sgemm_32x128_tn 464.408549
1gpu 0 _ZN2at6native27unrolled_elementwise_kernelIZZZ 459.705535
1gpu 0 void_at::native::vectorized_elementwise_kernel 456.498958
1gpu 0 volta_sgemm_32x128_nn 443.851096
2gpu 0 volta_sgemm_128x64_tn 7380.638151
2gpu 1 volta_sgemm_128x64_tn 7209.306293
2gpu 0 volta_sgemm_128x64_nn 6313.397334
2gpu 1 volta_sgemm_128x64_nn 6144.265826
2gpu 1 ncclBroadcastRingLLKernel_copy_i8(ncclColl) 3700.675143
2gpu 1 ncclReduceRingLLKernel_sum_f32(ncclColl) 3646.061010
2gpu 0 ncclReduceRingLLKernel_sum_f32(ncclColl) 3635.091898
2gpu 0 ncclBroadcastRingLLKernel_copy_i8(ncclColl) 3521.914578
2gpu 0 void_at::native::vectorized_elementwise_kernel 3223.492764
2gpu 0 volta_sgemm_64x32_sliced1x4_nt 3120.157816
4gpu 0 ncclReduceRingLLKernel_sum_f32(ncclColl) 5482.552254
4gpu 3 ncclReduceRingLLKernel_sum_f32(ncclColl) 5411.964607
4gpu 2 ncclReduceRingLLKernel_sum_f32(ncclColl) 5384.446903
4gpu 1 ncclReduceRingLLKernel_sum_f32(ncclColl) 5303.460930
4gpu 3 ncclBroadcastRingLLKernel_copy_i8(ncclColl) 4465.193033
4gpu 2 ncclBroadcastRingLLKernel_copy_i8(ncclColl) 4452.417370
4gpu 1 ncclBroadcastRingLLKernel_copy_i8(ncclColl) 4372.958164
4gpu 0 ncclBroadcastRingLLKernel_copy_i8(ncclColl) 4208.870268
4gpu 1 volta_sgemm_128x64_tn 3991.212500
4gpu 0 volta_sgemm_128x64_tn 3975.629278"""
want = [l.split() for l in fig6.splitlines()]
got = list(csv.DictReader(open(sys.argv[1])))
assert len(got) == len(want), "%d rows" % len(got)
for w, g in zip(want, got):
    run, dev, name, ms = w[0], w[1], w[2].replace("_at::", " at::"), w[3]
    assert g["run"] == run and g["device"] == "Tesla V100-SXM2-32GB-LS (%s)" % dev, (w, g)
    assert g["name"].startswith(name), (w, g)
    assert g["total_us"] == "%.3f" % (float(ms) * 1000) and g["total_us"].replace(".", "") == ms.replace(".", "").lstrip("0"), (w, g)
print("ok")
PY
	[ "$(cat "$T/got")" = ok ] && ok || bad "nvprof-000 top_kernels.csv against paper 000 Figure 6: $(cat "$T/got")"
else
	skipped "python3 absent: nvprof-000 Figure 6 check"
fi
# The NCCL kernels per device and type, Figure 6(b) and (c): Reduce and Broadcast of each device.
[ "$(grep -E '^(2gpu,0|4gpu,3),' "$ex/collectives.csv" | cut -d, -f1-5 | tr '\n' ' ')" = \
  "2gpu,0,Reduce,4,3635091.898 2gpu,0,Broadcast,4,3521914.578 4gpu,3,Reduce,4,5411964.607 4gpu,3,Broadcast,4,4465193.033 " ] &&
	ok || bad "nvprof-000 collectives per device: $(cat "$ex/collectives.csv")"
# Figures 7-8's data, as the authors' notebook prints it (SOURCE.md: calzonelover/Profiling-Transformer-
# Based-Model, commit facba31, notebook/Analysis2-GPT-2.ipynb, cell 9, the output of analyze((1,2,4))),
# typed in here in ms. Figure 7: time per device and get_ins_group group (its table of Device, ops_group).
cat >"$T/groups" <<'EOF'
1gpu 0 matrix-mul 6293.153052
1gpu 0 memory_mgmt 413.665189
1gpu 0 custom_ops 4325.839326
1gpu 0 other 7.788116
2gpu 0 matrix-mul 27676.138367
2gpu 0 memory_mgmt 8468.581223
2gpu 0 custom_ops 19167.726555
2gpu 0 other 34.956760
2gpu 1 matrix-mul 26773.880864
2gpu 1 memory_mgmt 9594.198584
2gpu 1 custom_ops 16166.040273
2gpu 1 other 33.684987
4gpu 0 matrix-mul 14621.977590
4gpu 0 memory_mgmt 13381.122406
4gpu 0 custom_ops 10293.078968
4gpu 0 other 18.584924
4gpu 1 matrix-mul 14896.915461
4gpu 1 memory_mgmt 10554.359265
4gpu 1 custom_ops 9246.981013
4gpu 1 other 17.572509
4gpu 2 matrix-mul 14424.244212
4gpu 2 memory_mgmt 11845.565177
4gpu 2 custom_ops 8509.420120
4gpu 2 other 18.354816
4gpu 3 matrix-mul 13967.491454
4gpu 3 memory_mgmt 11878.848118
4gpu 3 custom_ops 8643.745200
4gpu 3 other 17.727993
EOF
awk '{ print $4 }' "$T/groups" | ms_to_us >"$T/us"
paste -d' ' "$T/groups" "$T/us" | awk '{ printf "%s,%s,%s,%s\n", $1, $2, $3, $5 }' >"$T/want"
tail -n +2 "$ex/groups.csv" | cut -d, -f1-4 >"$T/got"
same "$T/want" "$T/got" "nvprof-000 groups.csv against the notebook's per-device groups (Figure 7)"
# Figure 7 (right): the notebook's share of all devices' time per group, its Percent column, rounded here
# to 6 decimals of a fraction by hand. 1 GPU: 57.000897 % -> 0.570009, 3.746816 -> 0.037468, 39.181745 ->
# 0.391817, 0.070542 -> 0.000705. 2 GPUs: 50.456298 -> 0.504563, 16.737937 -> 0.167379, 32.742157 ->
# 0.327422, 0.063607 -> 0.000636. 4 GPUs: 40.685865 -> 0.406859, 33.484079 -> 0.334841, 25.779303 ->
# 0.257793, 0.050753 -> 0.000508.
cat >"$T/want" <<'EOF'
1gpu,matrix-mul,0.570009
1gpu,memory_mgmt,0.037468
1gpu,custom_ops,0.391817
1gpu,other,0.000705
2gpu,matrix-mul,0.504563
2gpu,memory_mgmt,0.167379
2gpu,custom_ops,0.327422
2gpu,other,0.000636
4gpu,matrix-mul,0.406859
4gpu,memory_mgmt,0.334841
4gpu,custom_ops,0.257793
4gpu,other,0.000508
EOF
tail -n +2 "$ex/group_totals.csv" | cut -d, -f1,3,5 >"$T/got"
same "$T/want" "$T/got" "nvprof-000 group_totals.csv against the notebook's Percent"
# Figure 8: copies and memsets per device and kind (the notebook's "memory mgmt" tables, ms; no PtoP on
# devices 2 and 3 of 4 GPUs). Device 0 does the host-to-device copies (4 GPUs: 3100.428255 ms against
# 0.261245, 2.117567, 2.061065); on 4 GPUs, devices 2 and 3 spend 1439 ms each in device-to-host copies.
cat >"$T/mem" <<'EOF'
1gpu 0 HtoD 173.327077
1gpu 0 memset 7.658966
1gpu 0 DtoD 0.253756
1gpu 0 DtoH 0.800954
2gpu 0 HtoD 189.445695
2gpu 1 HtoD 0.390557
2gpu 0 PtoP 2.150175
2gpu 1 PtoP 0.918139
2gpu 0 memset 28.819911
2gpu 1 memset 20.914438
2gpu 0 DtoD 1.812935
2gpu 1 DtoD 1.141238
2gpu 0 DtoH 3.333587
2gpu 1 DtoH 2.386565
4gpu 0 HtoD 3100.428255
4gpu 1 HtoD 0.261245
4gpu 2 HtoD 2.117567
4gpu 3 HtoD 2.061065
4gpu 0 PtoP 1.021369
4gpu 1 PtoP 0.535999
4gpu 0 DtoH 4.468720
4gpu 1 DtoH 1.247449
4gpu 2 DtoH 1439.438756
4gpu 3 DtoH 1439.310283
4gpu 0 memset 13.390262
4gpu 1 memset 10.736368
4gpu 2 memset 10.905927
4gpu 3 memset 11.963802
4gpu 0 DtoD 1.010455
4gpu 1 DtoD 0.590585
4gpu 2 DtoD 0.604696
4gpu 3 DtoD 0.596185
EOF
awk '{ print $4 }' "$T/mem" | ms_to_us >"$T/us"
paste -d' ' "$T/mem" "$T/us" | awk '{ printf "%s,%s,%s,%s\n", $1, $2, $3, $5 }' | sort >"$T/want"
tail -n +2 "$ex/memops.csv" | awk -F, '$4 > 0 { print $1 "," $2 "," $3 "," $6 }' | sort >"$T/got"
same "$T/want" "$T/got" "nvprof-000 memops.csv against the notebook's copies and memsets (Figure 8)"
# The notebook's own sum per device of copies, memsets and ncclBroadcast (4 GPUs: 7329.189329,
# 4386.329810, 5905.484316, 5919.124368 ms) against memops.csv plus collectives.csv's Broadcast.
[ "$(awk -F, 'FNR > 1 && $1 == "4gpu" && (FILENAME ~ /memops/ || $3 == "Broadcast") { t[$2] += (FILENAME ~ /memops/ ? $6 : $5) }
	END { for (d = 0; d < 4; d++) printf "%.3f ", t[d] }' "$ex/memops.csv" "$ex/collectives.csv")" = \
  "7329189.329 4386329.810 5905484.316 5919124.368 " ] && ok || bad "nvprof-000 4 GPUs: copies, memsets and broadcast per device"
# Figure 7 as perfstudy draws it per GPU, 4 GPUs against 1: memory mgmt, the notebook's 4-GPU aggregate
# 47659.894966 ms / 4 = 11914.97 ms, drawn as 11915; 1 GPU 413.665189, drawn as 414.
grep -qF '<title>memory mgmt, 4 x V100, DataParallel: 11915</title>' "$T/ex/nvprof-000/figures/compare_2.svg" &&
	grep -qF '<title>memory mgmt, 1 x V100: 414</title>' "$T/ex/nvprof-000/figures/compare_2.svg" && ok ||
	bad "nvprof-000 compare_2: memory mgmt bars"

# --- .nvvp and Nsight Systems exports with a second device (SQLite fixtures made here) ---
if ! command -v sqlite3 >/dev/null; then
	skipped "sqlite3 command not installed: .nvvp and nsys fixtures not made"
	finish
	exit $?
fi
F=tests/data/formats
sqlite3 "$T/in/dp.nvvp" <$F/make_nvvp.sql && sqlite3 "$T/in/dp.nvvp" <$D/nvvp_dev1.sql
sqlite3 "$T/in/dp.sqlite" <$F/make_nsys.sql && sqlite3 "$T/in/dp.sqlite" <$D/nsys_dev1.sql
(cd "$T/in" && "$OLDPWD/$PERFSTUDY" build -q dp.nvvp dp.sqlite -o "$T/s") 2>"$T/err"
[ $? -eq 0 ] && ok || bad "nvvp/nsys build failed: $(cat "$T/err")"
# .nvvp, device 0 (make_nvvp.sql): gemm 2000 + 500 = 2500 ns in 2 calls, scale_kernel 300, DtoH 300 ns
# of 100 B, PtoP 100 ns of 2048 B. Device 1 (nvvp_dev1.sql): gemm 1200, scale_kernel 50, HtoD 400 ns of
# 4096 B. Nsight Systems, device 0 (make_nsys.sql): gemm 3000 + 2500 = 5500 in 2 calls, nccl 4000,
# elementwise 700, HtoD 500 ns of 4096 B, DtoD 250 of 1024, unified 100 of 64, memset 40 of 512.
# Device 1 (nsys_dev1.sql): gemm 1500, nccl 3000, DtoH 800 ns of 2048 B.
cat >"$T/want" <<'EOF'
dp.nvvp|0|0|Tesla K20c (0)|kernel|scale_kernel|1|300
dp.nvvp|0|0|Tesla K20c (0)|kernel|void gemm_kernel<float>(float*, int)|2|2500
dp.nvvp|0|0|Tesla K20c (0)|memcpy|DtoH|1|300
dp.nvvp|0|0|Tesla K20c (0)|memcpy|PtoP|1|100
dp.nvvp|1|1|Tesla K40m (1)|kernel|scale_kernel|1|50
dp.nvvp|1|1|Tesla K40m (1)|kernel|void gemm_kernel<float>(float*, int)|1|1200
dp.nvvp|1|1|Tesla K40m (1)|memcpy|HtoD|1|400
dp.sqlite|0|0|Test GPU <&> (0)|kernel|ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)|1|4000
dp.sqlite|0|0|Test GPU <&> (0)|kernel|void at::native::vectorized_elementwise_kernel<4>(int)|1|700
dp.sqlite|0|0|Test GPU <&> (0)|kernel|void gemm_kernel<float>(float*, int)|2|5500
dp.sqlite|0|0|Test GPU <&> (0)|memcpy|DtoD|1|250
dp.sqlite|0|0|Test GPU <&> (0)|memcpy|HtoD|1|500
dp.sqlite|0|0|Test GPU <&> (0)|memcpy|Unified Host-to-Device|1|100
dp.sqlite|0|0|Test GPU <&> (0)|memset||1|40
dp.sqlite|1|1|Test GPU B (1)|kernel|ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)|1|3000
dp.sqlite|1|1|Test GPU B (1)|kernel|void gemm_kernel<float>(float*, int)|1|1500
dp.sqlite|1|1|Test GPU B (1)|memcpy|DtoH|1|800
EOF
q "$T/s" "SELECT r.run, t.rank, t.device, d.name || ' (' || d.device || ')', a.kind,
	CASE a.kind WHEN 'kernel' THEN n.name ELSE coalesce(a.copy_kind, '') END, count(*), sum(a.dur_ns)
	FROM activities a JOIN traces t ON t.id = a.trace_id JOIN runs r ON r.id = t.run_id
	JOIN names n ON n.id = a.name_id JOIN devices d ON d.trace_id = t.id AND d.device = t.device
	GROUP BY r.run, t.rank, a.kind, 6 ORDER BY r.run, t.rank, a.kind, 6" >"$T/got"
same "$T/want" "$T/got" "nvvp/nsys 2 devices: activities per rank"
# nsys launches: correlations 11 and 12 launch device 0's kernels, 31 device 1's; both ranks keep the
# NVTX ranges (ProfilerStep#1 and forward). runs.csv: 2 GPUs, 2 ranks each.
[ "$(q "$T/s" "SELECT group_concat(x, ' ') FROM (SELECT t.rank || ':' || l.correlation AS x FROM launches l
	JOIN traces t ON t.id = l.trace_id ORDER BY t.rank, l.correlation)")" = "0:11 0:12 1:31" ] && ok || bad "nsys launches per rank"
printf 'run,rank,step,step_us\ndp.nvvp,0,3,7.500\ndp.nvvp,1,3,7.500\ndp.sqlite,0,1,15.000\ndp.sqlite,1,1,15.000\n' >"$T/want"
same "$T/want" "$T/s/default/data/steps.csv" "nvvp/nsys 2 devices: steps.csv"
[ "$(cut -d, -f1,3,4 "$T/s/default/data/runs.csv" | tail -n +2 | tr '\n' ' ')" = "dp.nvvp,2,2 dp.sqlite,2,2 " ] && ok ||
	bad "nvvp/nsys runs.csv: $(cat "$T/s/default/data/runs.csv")"
# One file of each stays one input in the page's Provenance, not one per device.
[ "$(grep -c 'dp.sqlite' "$T/s/default/index.html")" -ge 1 ] && ok || bad "provenance"
finish
