#!/bin/sh
# t_formats_more.sh: the remaining formats of issue 3 and the measured-vs-
# estimated tables of issue 5.
#  - every file of ../shared/corpus is named by `inspect` (exit 0, nothing on
#    stderr), with counts checked against Python over the raw files;
#  - nsys stats NVTX CSV, nvidia-smi topo -m, PyTorch execution trace and
#    memory timeline on small hand-written fixtures (tests/data/formats_more),
#    expected values worked out by hand;
#  - comm_volume.csv of the H200 example against a separate Python reading
#    of the raw Kineto traces; utilization with the H200 peak from the table;
#  - Lightning reports and nvidia-smi files as run inputs; the BERT and PCIe
#    tables of paper 004.
. "$(dirname "$0")/lib.sh"
F=tests/data/formats_more
C=../shared/corpus

# --- 1. inspect on the fixtures: exact lines ---
cat >"$T/want" <<EOF
$F/nvtx_pushpop.csv: nsys-nvtx-csv, 1 ranks, 0 kernels, 0 memcpy, 0 memset, 0 runtime, 6 annotations, 0 gpu annotations, 2 steps, 0 cpu ops, no GPU activity
$F/topo4.txt: nvidia-smi-topo, 1 ranks, 0 kernels, 0 memcpy, 0 memset, 0 runtime, 0 annotations, 0 gpu annotations, 0 steps, 0 cpu ops, 4 gpus, 10 links
$F/et_small.json: pytorch-et, 2 records, nothing perfstudy uses: PyTorch execution trace (Chakra ET): an operator graph with shapes but no timing or GPU activity; read the Kineto trace taken with it
$F/memtl_small.raw: memory-timeline, 3 records, nothing perfstudy uses: PyTorch memory timeline (export_memory_timeline): bytes by category over time, with no kernels or steps to place them in
EOF
$PERFSTUDY inspect $F/nvtx_pushpop.csv $F/topo4.txt $F/et_small.json $F/memtl_small.raw >"$T/got" 2>"$T/err"
[ $? -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "inspect fixtures: exit or stderr: $(cat "$T/err")"
same "$T/want" "$T/got" "inspect fixtures"
# A malformed memory timeline is bad input: exit 1, where and what.
$PERFSTUDY inspect $F/memtl_bad.raw >/dev/null 2>"$T/err"
[ $? -eq 1 ] && ok || bad "malformed memory timeline: exit code"
echo "$F/memtl_bad.raw: error: malformed memory timeline at byte 24: expected numbers in nested arrays, found '\"'" >"$T/want"
same "$T/want" "$T/err" "malformed memory timeline message"
# An NVTX row with a text where a time belongs.
sed 's/^13000,/13x00,/' $F/nvtx_pushpop.csv >"$T/nvtx_bad.csv"
$PERFSTUDY inspect "$T/nvtx_bad.csv" >/dev/null 2>"$T/err"
[ $? -eq 1 ] && grep -qF "$T/nvtx_bad.csv:8: error: expected an integer number of ns for 'Start (ns)', got '13x00'" "$T/err" \
	&& ok || bad "bad NVTX time: $(cat "$T/err")"

# --- 2. a study from the fixtures: NVTX phases and steps, topology, Lightning and nvidia-smi as inputs ---
D=$PWD/$F E=$PWD/experiments/h200
cat >"$T/more.yaml" <<EOF
version: 1
id: more
title: More formats
hardware:
  topology: $D/topo4.txt
runs:
  - id: nvtx
    traces: $D/nvtx_pushpop.csv
  - id: lit
    gpus: 1
    batch: 8
    model: { name: GPT-2 124M, layers: 12, hidden: 768, heads: 12, seq: 1024, vocab: 50257, precision: bf16 }
    inputs: [$D/lightning_simple.txt, $E/traces/gpt2-124m/1gpu/rank0.log, $E/nvidia-smi-q.xml]
EOF
$PERFSTUDY build -q "$T/more.yaml" -o "$T/more" 2>"$T/err" && ok || bad "fixture study: $(cat "$T/err")"
M=$T/more/more/data
# By hand: forward [1500,5500) + [13000,16000) = 7000 ns, backward 4500 + 3000 ns; steps 10000 and 8000 ns.
printf 'nvtx,0,forward,2,7.000,\nnvtx,0,backward,2,7.500,\n' >"$T/want"
grep -E '^nvtx,0,(forward|backward),' "$M/phases.csv" >"$T/got"
same "$T/want" "$T/got" "NVTX CSV phases"
printf 'run,rank,step,step_us\nnvtx,0,1,10.000\nnvtx,0,2,8.000\n' >"$T/want"
same "$T/want" "$M/steps.csv" "NVTX CSV steps"
# The 4-GPU matrix, upper triangle in row order, written out by hand.
cat >"$T/want" <<'EOF'
a,b,link,meaning,cpu_affinity,numa_affinity,source
GPU0,GPU1,NV12,a bonded set of NVLinks (NV# = # links),0-23,0,topo4.txt
GPU0,GPU2,NV12,a bonded set of NVLinks (NV# = # links),0-23,0,topo4.txt
GPU0,GPU3,SYS,PCIe and the SMP interconnect between NUMA nodes (QPI/UPI),0-23,0,topo4.txt
GPU0,NIC0,PIX,at most one PCIe bridge,0-23,0,topo4.txt
GPU1,GPU2,NV12,a bonded set of NVLinks (NV# = # links),0-23,0,topo4.txt
GPU1,GPU3,SYS,PCIe and the SMP interconnect between NUMA nodes (QPI/UPI),0-23,0,topo4.txt
GPU1,NIC0,PIX,at most one PCIe bridge,0-23,0,topo4.txt
GPU2,GPU3,NV4,a bonded set of NVLinks (NV# = # links),24-47,1,topo4.txt
GPU2,NIC0,SYS,PCIe and the SMP interconnect between NUMA nodes (QPI/UPI),24-47,1,topo4.txt
GPU3,NIC0,SYS,PCIe and the SMP interconnect between NUMA nodes (QPI/UPI),24-47,1,topo4.txt
EOF
same "$T/want" "$M/interconnect.csv" "interconnect.csv of topo4.txt"
# Lightning SimpleProfiler: seconds to us by hand (0.0625 s = 62500.000 us); the Total row has no mean.
cat >"$T/want" <<'EOF'
run,source,action,calls,mean_us,total_us,percent
lit,lightning_simple.txt,Total,130,,12500000.000,100
lit,lightning_simple.txt,run_training_epoch,1,10250000.000,10250000.000,82
lit,lightning_simple.txt,run_training_batch,100,100000.000,10000000.000,80
lit,lightning_simple.txt,[Strategy]DDPStrategy.backward,16,62500.000,1000000.000,8
EOF
same "$T/want" "$M/phase_report.csv" "phase_report.csv"
grep -qF '<td class="text">[Strategy]DDPStrategy.backward</td>' "$T/more/more/index.html" && ok || bad "phase_report in the page"
# nvidia-smi as a run input: the hardware table, and the GPU (hence the peak) of a run without traces.
grep -q '^1,NVIDIA H200,143771,' "$M/hardware.csv" && ok || bad "hardware.csv from a run input"
awk -F, '$1 == "lit" { print $9, $11, $12 }' "$M/utilization.csv" | grep -qx 'NVIDIA H200 989.5 table' \
	&& ok || bad "utilization of lit: $(grep '^lit' "$M/utilization.csv")"
# hardware.topology must be topo -m output.
sed "s#topology: .*#topology: $E/nvidia-smi-q.xml#" "$T/more.yaml" >"$T/more2.yaml"
$PERFSTUDY build -q "$T/more2.yaml" -o "$T/more2" 2>"$T/err"
[ $? -eq 1 ] && grep -q "nvidia-smi-q\.xml: error: .*nvidia-smi topo -m (hardware\.topology), found nvidia-smi" "$T/err" \
	&& ok || bad "topology not topo: $(cat "$T/err")"
[ ! -e "$T/more2" ] && ok || bad "failed build left output"

# --- 3. an execution trace beside a Kineto trace: a warning, one rank ---
mkdir -p "$T/etdir/run"
cp $F/et_small.json "$T/etdir/run/a_et.json"
cp tests/data/small/study/run-a/rank0.json "$T/etdir/run/rank0.json"
$PERFSTUDY build "$T/etdir/run" -o "$T/etout" >/dev/null 2>"$T/err"
[ $? -eq 0 ] && ok || bad "build with an execution trace: $(cat "$T/err")"
grep -q "^$T/etdir/run/a_et\.json: warning: PyTorch execution trace (Chakra ET): .*Kineto trace.*not a rank of run 'run', left out$" "$T/err" \
	&& ok || bad "execution trace warning: $(cat "$T/err")"
[ "$(awk -F, 'NR == 2 { print $4 }' "$T/etout/default/data/runs.csv")" = 1 ] && ok || bad "execution trace counted as a rank"

# --- 4. H200: measured communication bytes per GPU and step against Python over the raw traces ---
example_h200 "$T/h200" 2>"$T/err" && ok || bad "h200 build: $(cat "$T/err")"
H=$T/h200/h200/data
if command -v python3 >/dev/null; then
	python3 - "$H/comm_volume.csv" <<'EOF' >"$T/py" 2>&1
import csv, gzip, json, sys
size = {'Float': 4, 'Long': 8, 'BFloat16': 2, 'Half': 2}
# Parameters worked out by hand: 12ld^2 + 13ld + (V + s)d + 2d (GPT-2); BERT is Hugging Face's
# BertForMaskedLM (the manifest's framework and objective): + 4d + V + d^2 + d - pooler (d^2 + d)
# = 109482240 - 768^2 - 768 + 768^2 + 768 + 1536 + 30522 (tests/unit/test_estimate.c).
P = {'gpt2': 124439808, 'bert': 109514298}
got = {(r['run'], r['rank']): r for r in csv.DictReader(open(sys.argv[1]))}
bad = 0
runs = [('%s-%dgpu-%s' % (m, p, s), '%s/%dgpu-%s' % (d, p, s), p)
        for m, d in (('gpt2', 'gpt2-124m'), ('bert', 'bert-base')) for p in (2, 4) for s in ('ddp', 'zero1')]
for run, d, p in runs:
    for rank in range(p):
        ev = json.load(gzip.open('experiments/h200/traces/%s/rank%d.pt.trace.json.gz' % (d, rank)))['traceEvents']
        steps = sum(1 for e in ev if e.get('cat') == 'user_annotation' and e['name'].startswith('ProfilerStep#'))
        msg = sent = 0
        for e in ev:
            a = e.get('args', {})
            if e.get('cat') != 'kernel' or 'Collective name' not in a:
                continue
            n = a['Group size']
            S = max(a['In msg nelems'], a['Out msg nelems']) * size[a['dtype']]
            f = 2 * (n - 1) / n if a['Collective name'] == 'allreduce' else (n - 1) / n
            msg += S
            sent += S * f
        # fp32 gradients (the traces' allreduce dtype is Float); ZeRO-1 as paper 002 counts it: the
        # gradient AllReduce 2(1 - 1/p)gP and the parameter AllGather (1 - 1/p)gP.
        est = (3 if run.endswith('zero1') else 2) * (1 - 1 / p) * 4 * P[run.split('-')[0]]
        r = got[(run, str(rank))]
        want = [str(round(msg / steps)), str(round(sent / steps)), str(round(est)), 'Float', '4', str(steps)]
        have = [r['message_bytes_per_step'], r['measured_bytes_per_gpu'], r['estimated_bytes_per_gpu'],
                r['grad_dtype'], r['grad_bytes'], r['steps']]
        if want != have or abs(float(r['ratio']) - sent / steps / est) > 1e-5 * sent / steps / est:
            print('%s rank %d: want %s ratio %.6g, got %s %s' % (run, rank, want, sent / steps / est, have, r['ratio']))
            bad += 1
print('ok' if bad == 0 and len(got) == sum(p for _, _, p in runs) else 'mismatch %d rows' % len(got))
EOF
	[ "$(tail -1 "$T/py")" = ok ] && ok || bad "comm_volume.csv vs Python: $(cat "$T/py")"
else
	skipped "python3 not present: comm_volume.csv not recomputed"
fi
# ZeRO-1 as paper 002 counts it, 3(1-1/p)gP: the trace's AllReduce 2(1-1/p)gP' plus broadcasts
# (1-1/p)gP'', on 2 GPUs and on 4. P = 109514298 worked out by hand above; per step the trace's
# AllReduces carry P' = 109514298 elements (the same count) and its broadcasts P'' = 109516346 (the
# shards padded), counted by Python: (2 x 109514298 + 109516346) / (3 x 109514298) = 1.000006, whatever p.
for run in bert-2gpu-zero1 bert-4gpu-zero1; do
	awk -F, -v r=$run '$1 == r && $2 == 0 { print $12 }' "$H/comm_volume.csv" | grep -qx '1.00001' && ok || bad "$run ratio"
done
grep -qF 'g the size of the dtype that the trace' "$T/h200/h200/index.html" && ok || bad "comm_volume Methods"
# Utilization: the H200 named by deviceProperties, its dense BF16 peak from the table.
n=$(awk -F, 'NR > 1 && $9 == "NVIDIA H200" && $10 == "bf16" && $11 == "989.5" && $12 == "table"' "$H/utilization.csv" | wc -l)
[ "$n" = 10 ] && ok || bad "utilization: $n of 10 runs use the H200 table peak"
{
	echo 'a,b,link,meaning,cpu_affinity,numa_affinity,source'
	for pair in 0,1 0,2 0,3 1,2 1,3 2,3; do
		echo "GPU${pair%,*},GPU${pair#*,},NV18,a bonded set of NVLinks (NV# = # links),0-63,0,nvidia-smi-topo.txt"
	done
} >"$T/want"
same "$T/want" "$H/interconnect.csv" "h200 interconnect.csv"
grep -qF "experiments/h200/nvidia-smi-topo.txt</td>" "$T/h200/h200/index.html" && ok || bad "provenance lacks nvidia-smi-topo.txt"

# --- 5. paper 004: BERT and PCIe tables; derived samples/s rounds to the paper's ---
$PERFSTUDY build -q experiments/megatron-004/bert-dgx2.yaml experiments/megatron-004/pcie.yaml -o "$T/m4" 2>"$T/err" \
	&& ok || bad "004 BERT/PCIe build: $(cat "$T/err")"
for t in "$T/m4/megatron-004-bert/data/throughput.csv" "$T/m4/megatron-004-pcie/data/throughput.csv"; do
	# samples/s = batch x gpus / tensor_parallel / time: the paper's column, to its two decimals.
	n=$(awk -F, 'NR > 1 && $6 != "" { d = $3 * $2 / $4 / ($6 / 1000); if (sprintf("%.2f", d) + 0 != $7 + 0) print $1, d, $7 }' "$t")
	[ -z "$n" ] && ok || bad "$t: derived samples/s differ from the paper's: $n"
done
# Normalized to the smallest BERT (0.34B, 414.05 samples/s), by hand from the paper's numbers:
# 1.2B data parallel: 1185801090 x (2 x 16 / 0.476) / (336297858 x 14 x 16 / 0.541) = 0.572506.
awk -F, '$1 == "bert-1.2b-dp" { print $11 }' "$T/m4/megatron-004-bert/data/throughput.csv" | grep -qx '0.572506' \
	&& ok || bad "BERT 1.2B normalized"
# PCIe GPT-2: batch 32 over batch 24 at equal size = (32 x 8 / 4.526) / (24 x 8 / 3.470) = 1.02224.
awk -F, '$1 == "gpt2-b32" { print $11 }' "$T/m4/megatron-004-pcie/data/throughput.csv" | grep -qx '1.02224' \
	&& ok || bad "PCIe GPT-2 batch 32 normalized"
[ "$(grep -c '^bert-' "$T/m4/megatron-004-bert/data/utilization.csv")" = 12 ] && ok || bad "BERT utilization rows (12 runs in bert-dgx2.yaml)"

# --- 6. every corpus file is named and read ---
if [ -d "$C" ]; then
	find "$C" -type f ! -name '*.md' ! -name '*.py' | sort >"$T/files"
	xargs $PERFSTUDY inspect <"$T/files" >"$T/lines" 2>"$T/err"
	[ $? -eq 0 ] && [ ! -s "$T/err" ] && ok || bad "inspect over the corpus: $(head -3 "$T/err")"
	[ "$(wc -l <"$T/lines")" = "$(wc -l <"$T/files")" ] && ok || bad "one line per corpus file"
	grep -qF "$C/hta/execution_trace/benchmark_simple_add_et.json.gz: pytorch-et, " "$T/lines" && ok || bad "corpus ET"
	grep -qF "$C/hta/memory_analysis/memory_timeline.raw.gz: memory-timeline, " "$T/lines" && ok || bad "corpus memory timeline"
	grep -qF "$C/h200/nvidia-smi-topo.txt: nvidia-smi-topo, 1 ranks, 0 kernels, 0 memcpy, 0 memset, 0 runtime, 0 annotations, 0 gpu annotations, 0 steps, 0 cpu ops, 2 gpus, 1 links" "$T/lines" \
		&& ok || bad "corpus topo"
	if command -v python3 >/dev/null; then
		python3 - "$C" <<'EOF' >"$T/want" 2>&1
import csv, gzip, json, sys
C = sys.argv[1]
et = json.load(gzip.open(C + '/hta/execution_trace/benchmark_simple_add_et.json.gz'))
print('%s/hta/execution_trace/benchmark_simple_add_et.json.gz: pytorch-et, %d records' % (C, len(et['nodes'])))
tl = json.load(gzip.open(C + '/hta/memory_analysis/memory_timeline.raw.gz'))
print('%s/hta/memory_analysis/memory_timeline.raw.gz: memory-timeline, %d records' % (C, len(tl)))
rows = [r for r in csv.DictReader(open(C + '/formats/nsys_sqlite/nbody-nvtx_trace.csv')) if r['Name']]
steps = sum(1 for r in rows if r['Name'].startswith('ProfilerStep#'))
print('%s/formats/nsys_sqlite/nbody-nvtx_trace.csv: nsys-nvtx-csv, 1 ranks, 0 kernels, 0 memcpy, 0 memset, 0 runtime, %d annotations, 0 gpu annotations, %d steps' % (C, len(rows), steps))
EOF
		grep -oE '^[^,]+, [0-9]+ records|^[^,]+: nsys-nvtx-csv, .* steps' "$T/lines" | sort >"$T/got"
		sort "$T/want" -o "$T/want"
		same "$T/want" "$T/got" "corpus ET, memory timeline and NVTX counts vs Python"
		# The NVTX ranges as stored: count and summed duration against End - Start.
		printf 'version: 1\ntitle: nbody\nruns:\n  - id: nbody\n    traces: %s\n' "$PWD/$C/formats/nsys_sqlite/nbody-nvtx_trace.csv" >"$T/nbody.yaml"
		$PERFSTUDY build -q "$T/nbody.yaml" -o "$T/nbody" 2>"$T/err" && ok || bad "nbody build: $(cat "$T/err")"
		got=$(sqlite3 "$T/nbody/perfstudy.db" "SELECT count(*) || ' ' || sum(dur_ns) FROM annotations")
		want=$(python3 -c "
import csv, sys
r = list(csv.DictReader(open('$C/formats/nsys_sqlite/nbody-nvtx_trace.csv')))
print(len(r), sum(int(x['End (ns)']) - int(x['Start (ns)']) for x in r))")
		[ "$got" = "$want" ] && ok || bad "nbody NVTX ranges: $got, Python $want"
		# Lightning reports of the corpus as run inputs: one phase_report row per action.
		printf 'version: 1\ntitle: lightning\nruns:\n  - id: l\n    inputs: [%s, %s]\n' \
			"$PWD/$C/formats/lightning_profiler/jknoll_ai-chess-bot_simple_extended_EXCERPT.txt" \
			"$PWD/$C/formats/lightning_profiler/bysowhat_pl_fit-perf_logs_advanced.txt" >"$T/lit.yaml"
		$PERFSTUDY build -q "$T/lit.yaml" -o "$T/lit" 2>"$T/err" && ok || bad "lightning build: $(cat "$T/err")"
		got=$(awk -F, 'NR > 1 && $2 ~ /^jknoll/ && $3 == "run_training_batch" { print $4, $5, $6 }' "$T/lit/lit/data/phase_report.csv")
		[ "$got" = "19540 286070.000 5589700000.000" ] && ok || bad "SimpleProfiler run_training_batch: '$got'"
		n=$(($(grep -c "Profile stats for:" "$C/formats/lightning_profiler/bysowhat_pl_fit-perf_logs_advanced.txt") + 6))
		[ "$(($(wc -l <"$T/lit/lit/data/phase_report.csv") - 1))" = "$n" ] && ok || bad "phase_report rows: want $n"
	else
		skipped "python3 not present: corpus counts not recomputed"
	fi
else
	skipped "../shared/corpus not present"
fi

finish
