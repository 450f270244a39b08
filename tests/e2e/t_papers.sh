#!/bin/bash
# t_papers.sh: paper 003's own input and tables (issue 20, section 4):
# PyTorch Lightning profiler reports mapped to the phases of a step
# (phase_report_phases.csv, figure phases_report), runs compared per phase
# (compare_phases.csv), and the machine and software table (system.csv).
# Expected values are worked out by hand below or computed here from the raw
# files with Python, never taken from perfstudy's output.
. "$(dirname "$0")/lib.sh"

D="$PWD/tests/data/papers"
# --- 1. Two hand-written Lightning 1.x SimpleProfiler reports (not measurements) ---
# blueridge: get_train_batch 10.0 s, model_forward 25.0, model_backward 48.0,
#   optimizer_step 78.0 with the closure (forward + backward = 73.0) inside it:
#   optimizer's own 78.0 - 73.0 = 5.0; total 10 + 25 + 48 + 5 = 88.0 s.
# azure: get_train_batch 26.7, forward 25.0, backward 48.0, optimizer_step
#   75.0325: own 2.0325; total 26.7 + 25 + 48 + 2.0325 = 101.7325 s.
# azure vs blueridge: get_train_batch 26.7 / 10 = 2.67 ("2.67x more time"),
# optimizer 5 / 2.0325 = 2.4600 ("2.46x faster"), total (101.7325 - 88) / 88
# = 15.6051 % ("15.6 % slower"): paper 003's three quoted numbers.
mkdir -p "$T/l"
cat >"$T/l/study.yaml" <<EOF
title: Lightning reports
runs:
  - { id: blueridge-1gpu, inputs: $D/lightning_blueridge.txt }
  - { id: azure-1gpu, inputs: $D/lightning_azure.txt }
compare: [[blueridge-1gpu, azure-1gpu]]
EOF
if "$PERFSTUDY" build -q "$T/l/study.yaml" -o "$T/lo" 2>"$T/err"; then ok; else bad "lightning build: $(cat "$T/err")"; fi
P="$T/lo/study/data"
want='blueridge-1gpu,lightning_blueridge.txt,get_train_batch,get_train_batch,1000,10000000.000,10000000.000,0.113636
blueridge-1gpu,lightning_blueridge.txt,forward,model_forward,1000,25000000.000,25000000.000,0.284091
blueridge-1gpu,lightning_blueridge.txt,backward,model_backward,1000,48000000.000,48000000.000,0.545455
blueridge-1gpu,lightning_blueridge.txt,optimizer_step,optimizer_step,1000,78000000.000,5000000.000,0.056818
blueridge-1gpu,lightning_blueridge.txt,total,,,,88000000.000,1.000000'
# shares by hand: 10/88 = 0.113636, 25/88 = 0.284091, 48/88 = 0.545455, 5/88 = 0.056818.
got=$(grep '^blueridge-1gpu,' "$P/phase_report_phases.csv")
[ "$got" = "$want" ] && ok || bad "phase_report_phases.csv blueridge: '$got', by hand '$want'"
got=$(awk -F, '$1 == "azure-1gpu" && ($3 == "optimizer_step" || $3 == "total") { print $3, $6, $7 }' "$P/phase_report_phases.csv" | tr '\n' ';')
[ "$got" = "optimizer_step 75032500.000 2032500.000;total  101732500.000;" ] && ok || bad "azure optimizer/total: '$got'"
C="$P/compare_phases.csv"
got=$(awk -F, '$3 == "report" { print $4, $7, $8 }' "$C" | tr '\n' ';')
# ratios b / a: 26.7/10 = 2.67 (+167 %), 1, 1, 2.0325/5 = 0.4065 (-59.35 %), 101.7325/88 = 1.15605 (+15.6051 %).
want='get_train_batch 2.67 167;forward 1 0;backward 1 0;optimizer_step 0.4065 -59.35;total 1.15605 15.6051;'
[ "$got" = "$want" ] && ok || bad "compare_phases.csv: '$got', by hand '$want'"
head -1 "$C" | grep -qx 'run_a,run_b,source,phase,a_us,b_us,ratio,change_pct' && ok || bad "compare_phases.csv header"
for e in svg png pdf; do
	[ -s "$T/lo/study/figures/phases_report.$e" ] && ok || bad "figure phases_report.$e missing"
done
grep -q 'figures/phases_report.svg' "$T/lo/study/index.html" && ok || bad "the page does not show phases_report"

# --- 2. Lightning 2.x reports of the corpus (no license: read from ../shared) ---
L=../shared/corpus/formats/lightning_profiler
if [ -d "$L" ]; then
	cat >"$T/l/corpus.yaml" <<EOF
title: corpus reports
runs:
  - { id: simple, inputs: $(cd "$L" && pwd)/jknoll_ai-chess-bot_simple_extended_EXCERPT.txt }
  - { id: advanced, inputs: $(cd "$L" && pwd)/bysowhat_pl_fit-perf_logs_advanced.txt }
EOF
	if "$PERFSTUDY" build -q "$T/l/corpus.yaml" -o "$T/co" 2>"$T/err"; then ok; else bad "corpus reports build: $(cat "$T/err")"; fi
	R="$T/co/corpus/data/phase_report_phases.csv"
	# SimpleProfiler excerpt: optimizer_step 5588.4 s, [Strategy]DDPStrategy.backward 5545.8 s, no
	# training_step row: optimizer's own 5588.4 - 5545.8 = 42.6 s.
	got=$(awk -F, '$1 == "simple" && $3 == "optimizer_step" { print $4, $6, $7 }' "$R")
	[ "$got" = "[LightningModule]EvaluationModel.optimizer_step 5588400000.000 42600000.000" ] && ok || bad "simple optimizer: '$got'"
	grep -q 'no action of the report is named like phase forward' "$T/co/corpus/index.html" && ok || bad "no note for the missing forward"
	# AdvancedProfiler: each phase's block total ("N function calls in T seconds"), by Python.
	want=$(python3 - "$L/bysowhat_pl_fit-perf_logs_advanced.txt" <<'EOF'
import re, sys
tot, cur = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'Profile stats for: (.*)', line.rstrip('\n'))
    if m:
        cur = m.group(1)
        continue
    m = re.search(r'function calls.* in ([\d.]+) seconds', line)
    if m and cur:
        tot[cur] = float(m.group(1)); cur = None
names = {'get_train_batch': '[_TrainingEpochLoop].train_dataloader_next',
         'forward': '[Strategy]SingleDeviceStrategy.training_step',
         'backward': '[Strategy]SingleDeviceStrategy.backward',
         'optimizer_step': '[LightningModule]LitAutoEncoder.optimizer_step'}
own = {k: tot[v] for k, v in names.items()}
if own['forward'] + own['backward'] <= own['optimizer_step']:
    own['optimizer_step'] -= own['forward'] + own['backward']
print(';'.join('%s %.3f %.3f' % (k, tot[names[k]] * 1e6, own[k] * 1e6) for k in names))
EOF
)
	got=$(awk -F, '$1 == "advanced" && $3 != "total" { print $3, $6, $7 }' "$R" | paste -sd';')
	[ "$got" = "$want" ] && ok || bad "advanced report phases: '$got', python '$want'"
else
	skipped "../shared/corpus/formats/lightning_profiler not present"
fi

# --- 3. system.csv: inputs first (the H200 example), the manifest otherwise ---
if example_h200 "$T/h" 2>"$T/err"; then ok; else bad "h200 build: $(cat "$T/err")"; fi
S="$T/h/h200/data/system.csv"
n=$(grep -c '<gpu id=' experiments/h200/nvidia-smi-q.xml)
tm=$(zcat experiments/h200/traces/gpt2-124m/1gpu/rank0.pt.trace.json.gz | python3 -c "
import json, sys
d = json.load(sys.stdin)
p = d['deviceProperties']
print('%s|%.1f|%d|%d.%d' % (p[0]['name'], p[0]['totalGlobalMem'] / 1e9, p[0]['numSms'], p[0]['computeMajor'], p[0]['computeMinor']))")
IFS='|' read -r name mem sms cc <<<"$tm"
for want in "hardware,GPU model,$name,traces (device properties)" "hardware,GPUs,$n,nvidia-smi -q -x" \
	"hardware,GPU memory (GB),$mem,traces (device properties)" \
	"hardware,streaming multiprocessors per GPU,$sms,traces (device properties)" \
	"hardware,compute capability,$cc,traces (device properties)" \
	"hardware,links between GPUs (nvidia-smi topo -m),NV18 between 6 pairs,nvidia-smi topo -m" \
	"software,driver,$(sed -n 's:.*<driver_version>\(.*\)</driver_version>.*:\1:p' experiments/h200/nvidia-smi-q.xml | head -1),nvidia-smi -q -x" \
	"software,CUDA,$(sed -n 's:.*<cuda_version>\(.*\)</cuda_version>.*:\1:p' experiments/h200/nvidia-smi-q.xml | head -1),nvidia-smi -q -x"; do
	grep -qxF "$want" "$S" && ok || bad "system.csv: no row '$want'"
done
# The four H200 of topo -m are all NV18: 4 x 3 ordered pairs / 2 = 6 pairs.
# Paper 003's Table I and III typed in (begoli-003/idk.yaml), and 002's Table 4 (polaris.yaml).
if "$PERFSTUDY" build -q experiments/begoli-003/idk.yaml experiments/cheng-002/polaris.yaml -o "$T/s" 2>"$T/err"; then ok; else bad "typed-in systems build: $(cat "$T/err")"; fi
S="$T/s/begoli-003-idk/data/system.csv"
for want in "hardware,CPU model,Intel(R) Xeon(R) Gold 6130 CPU @ 2.10 GHz,manifest" "hardware,CPU cores,64,manifest" \
	"hardware,host memory (GB),376,manifest" "hardware,storage,NFS/Flash,manifest" "hardware,GPUs,4,manifest" \
	"software,CUDA,11.2,manifest" "software,PyTorch Lightning,1.3.8,manifest" "software,PyTorch,1.8.1,manifest"; do
	grep -qxF "$want" "$S" && ok || bad "idk system.csv: no row '$want'"
done
# Table II: bert-base-uncased MLM, 109 M: BertForMaskedLM's 109,514,298 (test_estimate.c works it out).
got=$(awk -F, '$1 == "bert-mlm" { print $3, $14 }' "$T/s/begoli-003-idk/data/estimates.csv")
[ "$got" = "109514298 huggingface BertForMaskedLM" ] && ok || bad "003 Table II params: '$got'"
# Table II's model size and batch count are typed into the manifest and shown (issue #54 item 5):
# the printed values are read from the paper's text here, perfstudy's size is 4 x 109,514,298 / 10^6
# = 438.057192 MB (%.6g: 438.057), ratio 438.057192 / 438.058 = 0.99999816 (%.6g: 0.999998).
paper=../shared/papers/003_33504963754894a6.txt
[ -f "$paper" ] || paper=/work/shared/papers/003_33504963754894a6.txt
if [ -f "$paper" ]; then
	mb=$(sed -n 's/^Estimated modal parameter size[[:space:]]*\([0-9.]*\) MB.*/\1/p' "$paper")
	nb=$(sed -n 's/^Number of batches[[:space:]]*\([0-9,]*\).*/\1/p' "$paper" | tr -d ,)
	[ "$mb $nb" = "438.058 190121" ] && ok || bad "003 Table II in the paper's text: '$mb $nb'"
else
	skipped "paper 003's text is not here"; mb=438.058; nb=190121
fi
for e in idk blueridge azure; do
	grep -q "model_size_mb: $mb, batches: $nb" "experiments/begoli-003/$e.yaml" && ok ||
		bad "begoli-003/$e.yaml does not type in Table II's $mb MB and $nb batches"
done
got=$(grep -E '^bert-mlm,(model_size_mb|batches),' "$T/s/begoli-003-idk/data/published.csv")
want="bert-mlm,model_size_mb,$mb,438.057,0.999998,,
bert-mlm,batches,$nb,,,,"
[ "$got" = "$want" ] && ok || bad "003 Table II model size and batches in published.csv: '$got', want '$want'"
S="$T/s/cheng-002-polaris/data/system.csv"
for want in "hardware,pinned memory copy bandwidth (GB/s),24.6,manifest" \
	"hardware,pageable memory copy bandwidth (GB/s),19.2,manifest" "hardware,P2P bandwidth (GB/s),80.5,manifest" \
	"hardware,NIC,ConnectX-5,manifest" "hardware,NIC bandwidth per node (Gbit/s),200,manifest" \
	"hardware,CPU model,AMD 7543P,manifest" "hardware,GPU memory bandwidth (GB/s),1555,manifest"; do
	grep -qxF "$want" "$S" && ok || bad "polaris system.csv: no row '$want'"
done

# --- 4. The manifest disagreeing with an input: the input wins, a note says so ---
mkdir -p "$T/d"
sed -e 's|^hardware:|hardware:\n  cpu_cores: 64|' -e 's|^software:|software:\n  CUDA: "12.4"|' \
	-e "s|nvidia_smi: nvidia-smi-q.xml|nvidia_smi: $PWD/experiments/h200/nvidia-smi-q.xml|" \
	-e "s|topology: nvidia-smi-topo.txt|topology: $PWD/experiments/h200/nvidia-smi-topo.txt|" \
	-e "s|traces: traces/|traces: $PWD/experiments/h200/traces/|" -e "s|inputs: traces/|inputs: $PWD/experiments/h200/traces/|" \
	experiments/h200/study.yaml >"$T/d/study.yaml"
if "$PERFSTUDY" build -q "$T/d/study.yaml" -o "$T/do" 2>"$T/err"; then ok; else bad "disagreeing build: $(cat "$T/err")"; fi
# NCCL: the bundled traces record it (distributedInfo.nccl_version), the same 2.28.9 the manifest types in.
grep -qxF "software,NCCL,2.28.9,traces (distributedInfo.nccl_version)" "$T/do/h200/data/system.csv" && ok || bad "software NCCL row"
grep -qxF "hardware,CPU cores,64,manifest" "$T/do/h200/data/system.csv" && ok || bad "manifest cpu_cores row"
grep -q "system.csv: [^<]*manifest[^<]* cuda \(&#39;\|'\)12\.4\(&#39;\|'\)[^<]*nvidia-smi -q -x[^<]* \(&#39;\|'\)13\.0\(&#39;\|'\)" "$T/do/h200/index.html" && ok || bad "no note for the disagreeing CUDA version"

# --- 5. Bad hardware and software keys: file:line:column errors ---
printf 'title: x\nhardware: {cpu_cores: 0, pinned_copy_gbs: fast, nic: [a]}\nsoftware: {PyTorch: [1], PyTorch: 2}\nruns: [{id: a, published: {params: 1}}]\n' >"$T/bad.yaml"
"$PERFSTUDY" build -q "$T/bad.yaml" -o "$T/badout" 2>"$T/err"
[ $? -eq 1 ] && ok || bad "bad hardware keys: exit code not 1"
# columns by hand: "hardware: {" is 11 characters, cpu_cores' value 0 at 23, fast at 43, [a] at 54;
# line 3: [1] at 21, the second PyTorch key at 26.
for want in "$T/bad.yaml:2:23: error: 'cpu_cores' must be at least 1, got 0" \
	"$T/bad.yaml:2:43: error: expected a number for 'pinned_copy_gbs', got 'fast'" \
	"$T/bad.yaml:2:54: error: expected a string for 'nic', got a sequence" \
	"$T/bad.yaml:3:21: error: expected a version for 'PyTorch', got a sequence" \
	"$T/bad.yaml:3:26: error: duplicate package 'PyTorch' in 'software' (first at 3:12)"; do
	grep -qxF "$want" "$T/err" && ok || bad "no error '$want' in: $(cat "$T/err")"
done

# --- 6. Paper 003's Figure 5 from the bundled real Lightning reports ---
# Expected phases computed here by awk straight from each report's table, not
# by perfstudy: get_train_batch = the total of train_dataloader_next; forward
# = [Strategy]...training_step; backward = [Strategy]...backward;
# optimizer_step's own time = its total minus forward and backward (Lightning
# runs the closure inside it); all in us (the report prints seconds).
E=experiments/begoli-003
if "$PERFSTUDY" build -q "$E/h200-loaders.yaml" -o "$T/lw" 2>"$T/err"; then ok; else bad "h200-loaders build: $(cat "$T/err")"; fi
for w in 0 1 2 4; do
	want=$(awk -F'|' '
		function t(s) { gsub(/[ \t]/, "", s); return s * 1e6 }
		$2 ~ /train_dataloader_next/ { b = t($5) }
		$2 ~ /\[Strategy\].*\.training_step / { f = t($5) }
		$2 ~ /\[Strategy\].*\.backward / { k = t($5) }
		$2 ~ /\[LightningModule\].*\.optimizer_step / { o = t($5) }
		END { printf "%.0f %.0f %.0f %.0f %.0f", b, f, k, o - f - k, b + o }' "$E/lightning/fit-w$w.txt")
	got=$(awk -F, -v r="workers-$w" '$1 == r { printf "%s%.0f", sep, $7; sep = " " }' "$T/lw/begoli-003-h200/data/phase_report_phases.csv")
	[ "$got" = "$want" ] && ok || bad "workers-$w phases: perfstudy '$got', from the report '$want'"
done
# get_train_batch with 2 workers against in process, from the report: 0.037468 / 0.1058 = 0.354140.
grep -qF 'workers-0,workers-2,report,get_train_batch,105800.000,37468.000,0.35414,' "$T/lw/begoli-003-h200/data/compare_phases.csv" &&
	ok || bad "compare_phases workers-0 vs workers-2 get_train_batch"

# --- 7. Software versions the Kineto traces name (system.csv) ---
# Rank 0 says NCCL 2.18.1 and CUDA runtime 12040 = 12.4, driver 12020 = 12.2; rank 1 names NCCL
# 2.18.3: both values are listed. The manifest's NCCL 2.17.1 disagrees (a note); its CUDA 12.2
# agrees with the traces' driver version (no note); the runtime version is not in the manifest.
mkdir -p "$T/sw"
for r in 0 1; do
	v=2.18.1; [ $r = 1 ] && v=2.18.3
	cat >"$T/sw/rank$r.json" <<EOF
{"distributedInfo": {"rank": $r, "world_size": 2, "nccl_version": "$v"}, "cuda_runtime_version": 12040,
 "cuda_driver_version": 12020, "traceEvents": [
{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": 1060, "dur": 400, "args": {"device": $r, "stream": 7, "correlation": 1}}
]}
EOF
done
cat >"$T/sw/study.yaml" <<EOF
title: versions
software: {NCCL: 2.17.1, CUDA: "12.2"}
runs:
  - { id: two, gpus: 2, traces: [rank0.json, rank1.json] }
EOF
if "$PERFSTUDY" build -q "$T/sw/study.yaml" -o "$T/swo" 2>"$T/err"; then ok; else bad "versions build: $(cat "$T/err")"; fi
want='software,CUDA,12.2,traces (cuda_driver_version)
software,CUDA runtime,12.4,traces (cuda_runtime_version)
software,NCCL,2.18.1; 2.18.3,traces (distributedInfo.nccl_version)'
got=$(grep -E '^software,(CUDA|CUDA runtime|NCCL),' "$T/swo/study/data/system.csv")
[ "$got" = "$want" ] && ok || bad "versions from the traces: '$got', by hand '$want'"
grep -q "system.csv: [^<]*manifest[^<]* nccl &#39;2\.17\.1&#39;[^<]*(distributedInfo\.nccl_version)[^<]* &#39;2\.18\.1; 2\.18\.3&#39;" "$T/swo/study/index.html" &&
	ok || bad "no note for the manifest's NCCL against the traces'"
! grep -q "the manifest says cuda" "$T/swo/study/index.html" && ok || bad "a note though the CUDA versions agree"

# --- 8. Paper 001's model (Figures 2-3) from its shape, arch encoder-lm ---
# By hand from the torchinfo rows: layer 4d² + 4d + 2df + f + d + 4d = 160000 + 800 + 80000 + 200 + 200
# + 800 = 242,000; final LayerNorm 2d = 400; decoder dV + V = 6,655,600 + 33,278 = 6,688,878; embedding
# Vd = 6,655,600; sum 13,586,878. torchinfo's printed total 13,466,278 is 120,600 = 3d² + 3d less.
if "$PERFSTUDY" build -q experiments/ncu-encoder/paper-model.yaml -o "$T/pm" 2>"$T/err"; then ok; else bad "paper-model build: $(cat "$T/err")"; fi
got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["params"], $c["params_layers"] }' \
	"$T/pm/ncu-encoder-paper/data/estimates.csv")
[ "$got" = "13586878 242000" ] && ok || bad "001 model params / layer: '$got', by hand '13586878 242000'"
# ratio perfstudy / published = 13586878 / 13466278 = 1.008956 (%.6g: 1.00896)
grep -qx 'torchinfo,params,1.34663e+07,1.35869e+07,1.00896,,' "$T/pm/ncu-encoder-paper/data/published.csv" &&
	ok || bad "001 published params row"
# 12ld^2 = 12 x 1 x 200^2 = 480,000 against the whole count 13,586,878: 28.3060x, so the 12ld^2 row
# compares unlike counts and says so (issue #54 item 10), where 002's GPT models (cheng-002) need no note.
grep -qx 'torchinfo,params_12ld2,1.34663e+07,480000,0.0356446,,unlike counts: 12ld^2 is the layers.* is 28.31x it' \
	"$T/pm/ncu-encoder-paper/data/published.csv" && ok || bad "001 published params_12ld2 row has no flag"

finish
