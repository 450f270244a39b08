#!/bin/bash
# t_models.sh: Nsight Compute, nvidia-smi and training-log inputs, and the
# model estimates (issues 3 and 5). Every expected number is computed here
# from the raw files with Python's csv module or from the formulas by hand,
# never taken from perfstudy's output.
. "$(dirname "$0")/lib.sh"

if ! command -v python3 >/dev/null; then
	skipped "python3 is needed for the independent sums"
	finish
	exit $?
fi

# Sums over an ncu CSV: add + mul + 2*fma of every precision, dram bytes, time (ns).
ncu_sums() {
	python3 - "$1" <<'EOF'
import csv, re, sys
rows = [l for l in open(sys.argv[1], newline='') if not l.startswith('==')]
scale = {'byte': 1, 'Kbyte': 1e3, 'Mbyte': 1e6, 'Gbyte': 1e9, 'ns': 1, 'nsecond': 1,
         'us': 1e3, 'usecond': 1e3, 'ms': 1e6, 'msecond': 1e6, 'inst': 1, '': 1}
flops = dram = ns = 0
seen = set()
for r in csv.DictReader(rows):
    m, v = r['Metric Name'], r['Metric Value'].replace(',', '')
    if not m or v == 'n/a':
        continue
    k = re.fullmatch(r'(smsp|sm)__sass_thread_inst_executed_op_([hfd])(add|mul|fma)_pred_on\.sum', m)
    if k or m in ('dram__bytes.sum', 'gpu__time_duration.sum'):
        x = round(float(v) * scale[r['Metric Unit']])
    if k:
        key = (r['ID'], k.group(2), k.group(3))
        if key not in seen:
            seen.add(key)
            flops += 2 * x if k.group(3) == 'fma' else x
    elif m == 'dram__bytes.sum':
        dram += x
    elif m == 'gpu__time_duration.sum':
        ns += x
print(flops, dram, '%d.%03d' % (ns // 1000, ns % 1000))
EOF
}

# 1. The bundled ncu-encoder sweep: measured sums and the estimate.
if "$PERFSTUDY" build -q experiments/ncu-encoder/study.yaml -o "$T/ncu" 2>"$T/err"; then ok; else bad "ncu-encoder build: $(cat "$T/err")"; fi
F="$T/ncu/ncu-encoder/data/flops.csv"
for b in 16 32 64 128 256; do
	want=$(ncu_sums "experiments/ncu-encoder/ncu/encoder_b$b.csv")
	got=$(awk -F, -v r="b$b" '$1 == r { print $4, $5, $6 }' "$F")
	[ "$got" = "$want" ] && ok || bad "flops.csv b$b: measured/dram/time '$got', python says '$want'"
	# One layer forward, d 200, f 200, s 35: 2bs(4d^2 + 2df) + 4bs^2d.
	est=$(( 2 * b * 35 * (4 * 200 * 200 + 2 * 200 * 200) + 4 * b * 35 * 35 * 200 ))
	got=$(awk -F, -v r="b$b" '$1 == r { print $3 }' "$F")
	[ "$got" = "$est" ] && ok || bad "flops.csv b$b: estimated $got, formula says $est"
done
# b16 by hand: 2*16*35*240000 + 4*16*1225*200 = 268800000 + 15680000.
grep -q '^b16,16,284480000,' "$F" && ok || bad "flops.csv: b16 estimate is not 284480000"
head -1 "$F" | grep -qx 'run,batch,estimated_flops,measured_flops,dram_bytes,kernel_us,method,estimated_macs,perfstudy_flops,paper001_flops' && ok || bad "flops.csv header"
# Paper 001's own estimate beside perfstudy's: 2 x 7 x b x 35 x 200^2 (its Table 1: b 16 -> 313.6 x 10^6 FLOPs,
# 156.8 x 10^6 MACs); estimated_macs is half the selected estimate.
for b in 16 32 64 128 256; do
	want="perfstudy,$(( (2 * b * 35 * 240000 + 4 * b * 35 * 35 * 200) / 2 )),$(( 2 * b * 35 * 240000 + 4 * b * 35 * 35 * 200 )),$(( 14 * b * 35 * 200 * 200 ))"
	got=$(awk -F, -v r="b$b" '$1 == r { print $7 "," $8 "," $9 "," $10 }' "$F")
	[ "$got" = "$want" ] && ok || bad "flops.csv b$b: method/macs/perfstudy/paper001 '$got', by hand '$want'"
done
# flops_method: paper001 selects it for estimated_flops and the fit.
mkdir -p "$T/p001m"
sed -e 's/^  precision: fp32$/  precision: fp32\n  flops_method: paper001/' -e "s|inputs: ncu/|inputs: $PWD/experiments/ncu-encoder/ncu/|" \
	experiments/ncu-encoder/study.yaml >"$T/p001m/study.yaml"
if "$PERFSTUDY" build -q "$T/p001m/study.yaml" -o "$T/p001" 2>"$T/err"; then ok; else bad "paper001 build: $(cat "$T/err")"; fi
got=$(awk -F, '$1 == "b16" { print $3, $7, $8 }' "$T/p001/ncu-encoder/data/flops.csv")
[ "$got" = "313600000 paper001 156800000" ] && ok || bad "flops_method paper001: b16 '$got', paper 001 Table 1 '313600000 paper001 156800000'"
# The layer's parameters without a vocabulary: 4 x 200^2 + 4 x 200 + 2 x 200^2 + 400 + 800 = 242000 (paper 001's torchinfo).
got=$(python3 -c "import csv,sys; print({r['params_layers'] for r in csv.DictReader(open(sys.argv[1]))})" "$T/ncu/ncu-encoder/data/estimates.csv")
[ "$got" = "{'242000'}" ] && ok || bad "estimates.csv params_layers $got, paper 001: 242000"
# The fit over the five points, recomputed.
want=$(python3 - "$F" <<'EOF'
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
x = [float(a['estimated_flops']) for a in r]; y = [float(a['measured_flops']) for a in r]
n = len(x); mx = sum(x) / n; my = sum(y) / n
sxx = sum((a - mx) ** 2 for a in x); sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
m = sxy / sxx; c = my - m * mx
res = sum((b - m * a - c) ** 2 for a, b in zip(x, y)); tot = sum((b - my) ** 2 for b in y)
print('%.6g %.6g %.6g' % (m, c, 1 - res / tot))
EOF
)
got=$(awk -F, 'NR == 2 { print $2, $3, $4 }' "$T/ncu/ncu-encoder/data/flops_fit.csv")
[ "$got" = "$want" ] && ok || bad "flops_fit.csv: '$got', python says '$want'"
# The x-y figures of paper 001: every format, referenced by the page, one point per run.
G="$T/ncu/ncu-encoder"
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4 "x" $5*16777216+$6*65536+$7*256+$8}'; }
for f in flops_by_batch dram_by_batch flops_estimated_vs_measured arithmetic_intensity_by_batch; do
	for e in svg pdf png tex; do
		[ -s "$G/figures/$f.$e" ] && ok || bad "figure $f.$e missing"
	done
	grep -q "figures/$f.svg" "$G/index.html" && ok || bad "index.html does not show $f"
	[ "$(png_size "$G/figures/$f.png")" = 2100x1050 ] && ok || bad "$f.png is $(png_size "$G/figures/$f.png")"
	head -c 5 "$G/figures/$f.pdf" | grep -q '%PDF-' && ok || bad "$f.pdf is not a PDF"
	! grep -qi 'nan\|inf' "$G/figures/$f.svg" && ok || bad "$f.svg mentions nan or inf"
done
[ ! -e "$G/figures/estimated_flops_by_batch.svg" ] && ok || bad "the old bar chart estimated_flops_by_batch is still drawn"
# Point tooltips: x is the batch (or the estimate), y the value in the axis unit, 3 significant digits.
python3 - "$F" "$G/figures" <<'EOF' >"$T/tips" 2>&1 && ok || bad "figure tooltips: $(cat "$T/tips")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def sig3(v):
    return '%.0f' % v if v >= 100 else '%.1f' % v if v >= 10 else '%.2f' % v if v >= 1 else '%.3f' % v
def has(fig, text):
    if text not in open('%s/%s.svg' % (sys.argv[2], fig)).read():
        sys.exit('%s.svg: no "%s"' % (fig, text))
for r in rows:
    b, m, e, d = int(r['batch']), int(r['measured_flops']) / 1e9, int(r['estimated_flops']) / 1e9, int(r['dram_bytes']) / 1e6
    run = 'batch %d' % b  # figures name run b<N> by its manifest label, "batch <N>"
    has('flops_by_batch', '%s, measured (Nsight Compute): x = %d, y = %s' % (run, b, sig3(m)))
    has('flops_by_batch', '%s, estimated: x = %d, y = %s' % (run, b, sig3(e)))
    has('dram_by_batch', '%s, dram__bytes.sum: x = %d, y = %s' % (run, b, sig3(d)))
    has('flops_estimated_vs_measured', '%s, runs: x = %s, y = %s' % (run, sig3(e), sig3(m)))
    has('arithmetic_intensity_by_batch', '%s, measured FLOPs / DRAM bytes: x = %d, y = %s'
        % (run, b, sig3(int(r['measured_flops']) / int(r['dram_bytes']))))
EOF
# The caption states the fit (python's numbers, rounded as printed) and the units.
python3 - "$F" <<'EOF' >"$T/fitcap"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))
x = [float(a['estimated_flops']) for a in r]; y = [float(a['measured_flops']) for a in r]
n = len(x); mx = sum(x) / n; my = sum(y) / n
m = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x); c = my - m * mx
r2 = 1 - sum((b - m * a - c) ** 2 for a, b in zip(x, y)) / sum((b - my) ** 2 for b in y)
print('measured = %.4g x estimated + %.3g GFLOP has R\u00b2 = %.5f' % (m, c / 1e9, r2))
EOF
grep -qF "$(cat "$T/fitcap")" "$G/index.html" && ok || bad "index.html: no caption '$(cat "$T/fitcap")'"
grep -qF "$(cat "$T/fitcap")" "$G/figures/flops_estimated_vs_measured.tex" && ok || bad "LaTeX caption lacks the fit"

# 2. Nsight Compute files perfstudy has not seen (sm__ prefixes, FP16/FP64, nsecond, rule columns).
S=../shared/corpus/formats/ncu_csv
if [ -d "$S" ]; then
	mkdir -p "$T/m"
	{
		echo "title: ncu formats"
		echo "runs:"
		i=0
		for f in "$S"/*.csv; do
			i=$((i + 1))
			echo "  - { id: f$i, inputs: $(cd "$(dirname "$f")" && pwd)/$(basename "$f") }"
		done
	} >"$T/m/formats.yaml"
	if "$PERFSTUDY" build -q "$T/m/formats.yaml" -o "$T/fmt" 2>"$T/err"; then ok; else bad "ncu formats build: $(cat "$T/err")"; fi
	i=0
	for f in "$S"/*.csv; do
		i=$((i + 1))
		want=$(ncu_sums "$f" | awk '{ print $1, $2 }')
		got=$(awk -F, -v r="f$i" '$1 == r { print $4, $5 }' "$T/fmt/formats/data/flops.csv")
		[ "$got" = "$want" ] && ok || bad "$(basename "$f"): measured/dram '$got', python says '$want'"
	done
	# Counts of launches: distinct IDs.
	for f in "$S"/*.csv; do
		want=$(python3 -c "
import csv,sys
rows=[l for l in open(sys.argv[1], newline='') if not l.startswith('==')]
print(len({r['ID'] for r in csv.DictReader(rows)}))" "$f")
		"$PERFSTUDY" inspect "$f" | grep -q ", $want kernel metrics (no timeline)" && ok || bad "inspect $(basename "$f"): expected $want kernel metrics"
	done
else
	skipped "../shared/corpus/formats/ncu_csv not present"
fi

# 3. Bad Nsight Compute input: an unknown unit, exit 1, no output left.
printf '==PROF== x\n"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","1","k","dram__bytes.sum","furlong","1"\n' >"$T/bad.csv"
printf 'title: bad\nruns: [{id: a, inputs: bad.csv}]\n' >"$T/bad.yaml"
"$PERFSTUDY" build -q "$T/bad.yaml" -o "$T/badout" 2>"$T/err"
[ $? -eq 1 ] && ok || bad "unknown unit: exit code not 1"
grep -qx "$T/bad.csv: error: line 3: unknown unit 'furlong' for 'dram__bytes.sum' (expected byte, Kbyte, Mbyte or Gbyte)" "$T/err" && ok || bad "unknown unit message: $(cat "$T/err")"
[ ! -e "$T/badout" ] && ok || bad "unknown unit: output left behind"
printf '"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n"0","1","k\n' >"$T/bad2.csv"
"$PERFSTUDY" inspect "$T/bad2.csv" 2>"$T/err" >/dev/null
grep -qx "$T/bad2.csv:2:9: error: malformed CSV at byte 83: unterminated quoted field" "$T/err" && ok || bad "unterminated quote: $(cat "$T/err")"

# 4. Paper 004 typed in: scaling 98.8 %, normalized 1, 1.295, 1.249, 1.108, 1.057.
if "$PERFSTUDY" build -q experiments/megatron-004/study.yaml -o "$T/m004" 2>"$T/err"; then ok; else bad "megatron-004 build: $(cat "$T/err")"; fi
D="$T/m004/megatron-004/data"
got=$(awk -F, 'NR == 2 { printf "%.3f", $8 }' "$D/throughput_scaling.csv")
[ "$got" = "0.988" ] && ok || bad "004 scaling efficiency $got, paper 133.26/(2*67.47) = 0.988"
for pair in gpt2-345m-16gpu:1.000 gpt2-1.2b:1.295 gpt2-2.5b-mp2:1.249 gpt2-4.2b-h24:1.108 gpt2-8.3b-h32:1.057; do
	run=${pair%%:*} want=${pair#*:}
	got=$(awk -F, -v r="$run" '$1 == r { printf "%.3f", $11 }' "$D/throughput.csv")
	[ "$got" = "$want" ] && ok || bad "004 normalized $run: $got, paper $want"
done
# The model sizes the paper printed are Megatron-LM's counts; perfstudy's, computed here
# independently (one rank's parameters times the ranks, vocabulary padded to 128 x ranks),
# equal the paper's typed-in sizes but for the 2.5B model-parallel row, where the paper
# printed the 1-rank count (2488688640; 2 ranks give 2491526400).
megatron_check() {
	python3 - "$1" "$2" <<'EOF'
import csv, re, sys
def count(arch, l, d, s, V, t):
    k = 128 * t
    V = (V + k - 1) // k * k
    split = l * (12 * d * d + 7 * d) + V * d
    copies = l * 6 * d + s * d + 2 * d
    if arch == 'bert':
        split += V
        copies += 2 * d + d * d + d + d * d + 3 * d + 2 * d + 2
    return split + t * copies
text = open(sys.argv[1]).read().split('\ncomparisons:')[0]  # the runs, not the comparisons' ids
arch = re.search(r'^  arch: (\w+)', text, re.M).group(1)
seq = int(re.search(r'^  seq: (\d+)', text, re.M).group(1))
vocab = int(re.search(r'^  vocab: (\d+)', text, re.M).group(1))
rows = {r['run']: r for r in csv.DictReader(open(sys.argv[2]))}
bad = []
for block in text.split('  - id: ')[1:]:
    run = block.split()[0]
    l = int(re.search(r'layers: (\d+)', block).group(1)); d = int(re.search(r'hidden: (\d+)', block).group(1))
    t = re.search(r'tensor_parallel: (\d+)', block); t = int(t.group(1)) if t else 1
    paper = re.search(r'params: (\d+)', block)
    ours = count(arch, l, d, seq, vocab, t)
    r = rows[run]
    if int(r['params_estimated']) != ours:
        bad.append('%s: perfstudy %s, python %d' % (run, r['params_estimated'], ours))
    if paper and int(r['params_difference']) != ours - int(paper.group(1)):
        bad.append('%s: difference %s, python %d' % (run, r['params_difference'], ours - int(paper.group(1))))
    if paper and ours != int(paper.group(1)) and run != 'gpt2-2.5b-mp2':
        bad.append("%s: python %d is not the paper's %s" % (run, ours, paper.group(1)))
print('ok' if not bad else '; '.join(bad))
EOF
}
out=$(megatron_check experiments/megatron-004/study.yaml "$D/throughput.csv")
[ "$out" = ok ] && ok || bad "004 GPT-2 params: $out"
grep -q '^gpt2-2.5b-mp2,.*,2491526400,2837760,megatron$' "$D/throughput.csv" && ok || bad "004: the 2.5B model-parallel row is not 2491526400 (+2837760)"
# The TORCH_DDP table is typed in, with its cached GB.
for spec in h32-torchddp:2674:5.98:28.2 h24-torchddp:2581:6.2:28.2 h16-torchddp:2489:6.43:28.2 h8-torchddp:2414:6.63:28.3; do
	IFS=: read -r run ms sps gb <<<"$spec"
	got=$(awk -F, -v r="gpt2-8.3b-$run" '$1 == r { print $6 ":" $7 ":" $12 }' "$D/throughput.csv")
	[ "$got" = "$ms:$sps:$gb" ] && ok || bad "004 TORCH_DDP $run: '$got', paper '$ms:$sps:$gb'"
done
if "$PERFSTUDY" build -q experiments/megatron-004/bert-dgx2.yaml -o "$T/b004" 2>"$T/err"; then ok; else bad "megatron-004-bert build: $(cat "$T/err")"; fi
out=$(megatron_check experiments/megatron-004/bert-dgx2.yaml "$T/b004/megatron-004-bert/data/throughput.csv")
[ "$out" = ok ] && ok || bad "004 BERT params: $out"
got=$(awk -F, '$1 == "bert-8.4b-mp8-ckpt-b32" { print $6 ":" $7 ":" $12 }' "$T/b004/megatron-004-bert/data/throughput.csv")
[ "$got" = "4754:13.46:29.8" ] && ok || bad "004 BERT checkpointing batch 32: '$got', paper 4754:13.46:29.8"

# 5. Paper 002: perfstudy's b(72sd^2 + 12s^2d)l, rounded like the paper, is its table.
if "$PERFSTUDY" build -q experiments/cheng-002/study.yaml -o "$T/c002" 2>"$T/err"; then ok; else bad "cheng-002 build: $(cat "$T/err")"; fi
got=$(awk -F, '$2 == "flops_tflop" { printf "%s=%.1f ", $1, $4 }' "$T/c002/cheng-002/data/published.csv")
want="gpt-125m=0.6 gpt-1.3b=8.2 gpt-2.7b=16.5 gpt-6.7b=41.2 gpt-13b=79.9 gpt-18.4b=114.4 "
[ "$got" = "$want" ] && ok || bad "002 FLOPs: '$got', paper '$want'"
# Its activation table is not its own formula b(34sd + 5as^2)l: by hand for 125M, (34 x 1024 x 768 +
# 5 x 12 x 1024^2) x 12 = 1075838976 bytes = 1.076 GB vs 2.4 printed (x2.23); 18.4B: (34 x 1024 x 6144
# + 5 x 48 x 1024^2) x 40 = 18622709760 = 18.623 GB vs 74.0 (x3.97). Flagged per row and on the page.
grep -q '^gpt-125m,activation_gb,2.4,1.07584,.*"the study.s own formula gives 1.076, it prints 2.4 (x2.23)",$' "$T/c002/cheng-002/data/published.csv" && ok || bad "002 activation discrepancy for 125M not flagged"
grep -q '^gpt-18.4b,activation_gb,74,18.6227,.*"the study.s own formula gives 18.623, it prints 74.0 (x3.97)",$' "$T/c002/cheng-002/data/published.csv" && ok || bad "002 activation discrepancy for 18.4B not flagged"
[ "$(grep -c 'activation_gb.*own formula gives' "$T/c002/cheng-002/data/published.csv")" = 6 ] && ok || bad "002: not every activation row flagged"
! grep -q 'flops_tflop.*own formula' "$T/c002/cheng-002/data/published.csv" && ok || bad "002: a FLOPs row flagged though it rounds to the paper's"
grep -q 'discrepancy in the source: the activation memory the study prints is 2.23-3.97x' "$T/c002/cheng-002/index.html" && ok || bad "002: the page does not flag the activation table"
# Projected memory over batch sizes (002's figure), 125M at b 8 by hand: activations 8 x 1075838976
# = 8606711808, model state 16 x 124439808 = 1991036928, total 10597748736.
# 10597748736 < 40 x 10^9, the A100 40GB of study.yaml's hardware.gpu_memory_gb.
grep -qx 'gpt-125m,GPT 125M,8,8.60671e+09,1.99104e+09,1.05977e+10,40000000000,no' "$T/c002/cheng-002/data/memory_by_batch.csv" && ok || bad "memory_by_batch 125M b 8"
[ "$(grep -c '^gpt-' "$T/c002/cheng-002/data/memory_by_batch.csv")" = 36 ] && ok || bad "memory_by_batch: 6 models x 6 batch sizes (memory_batches)"
[ -s "$T/c002/cheng-002/figures/memory_by_batch.svg" ] && ok || bad "figure memory_by_batch missing"

# 6. The H200 example: the logs' TFLOP/s follow Megatron's formula; GPT-2 has 124439808 parameters.
if example_h200 "$T/h200" 2>"$T/err"; then ok; else bad "h200 build: $(cat "$T/err")"; fi
H="$T/h200/h200/data"
got=$(awk -F, '$1 == "gpt2-1gpu" { print $3 }' "$H/estimates.csv")
want=$(tail -1 experiments/h200/traces/gpt2-124m/1gpu/rank0.log | awk '{ print $2 }')
[ "$got" = "$want" ] && ok || bad "GPT-2 params $got, the log says $want"
# BERT (Hugging Face BertForMaskedLM, objective mlm): the count its log printed.
got=$(awk -F, '$1 == "bert-1gpu" { print $3 }' "$H/estimates.csv")
want=$(tail -1 experiments/h200/traces/bert-base/1gpu/rank0.log | awk '{ print $2 }')
[ "$got" = "$want" ] && ok || bad "BERT params $got, the log says $want"
for spec in gpt2-1gpu:gpt2-124m/1gpu:1:8:1024:50257 gpt2-2gpu-ddp:gpt2-124m/2gpu-ddp:2:8:1024:50257 \
	gpt2-2gpu-zero1:gpt2-124m/2gpu-zero1:2:8:1024:50257 gpt2-4gpu-ddp:gpt2-124m/4gpu-ddp:4:8:1024:50257 \
	gpt2-4gpu-zero1:gpt2-124m/4gpu-zero1:4:8:1024:50257 \
	bert-1gpu:bert-base/1gpu:1:16:512:30522 bert-2gpu-ddp:bert-base/2gpu-ddp:2:16:512:30522 \
	bert-2gpu-zero1:bert-base/2gpu-zero1:2:16:512:30522 bert-4gpu-ddp:bert-base/4gpu-ddp:4:16:512:30522 \
	bert-4gpu-zero1:bert-base/4gpu-zero1:4:16:512:30522; do
	IFS=: read -r run dir p b s v <<<"$spec"
	out=$(python3 - "experiments/h200/traces/$dir/rank0.log" "$p" "$b" "$s" "$v" "$H/utilization.csv" "$run" <<'EOF'
import csv, re, sys
log, p, b, s, V = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
l, h, B = 12, 768, b * p
F = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))   # Megatron, as the generator
worst = 0
for line in open(log):
    m = re.search(r'elapsed time per iteration \(ms\): ([\d.]+) \| throughput per GPU \(TFLOP/s/GPU\): ([\d.]+)', line)
    if m:
        t, logged = float(m.group(1)) / 1e3, float(m.group(2))
        # the log rounds time to 0.05 ms and TFLOP/s to 0.05
        est = F / t / p / 1e12
        tol = 0.05 + est * 0.05e-3 / t
        worst = max(worst, abs(est - logged) - tol)
row = [r for r in csv.DictReader(open(sys.argv[6])) if r['run'] == sys.argv[7]][0]
print('ok' if worst <= 1e-9 and abs(float(row['flops_per_step']) / F - 1) < 1e-5 else 'mismatch %g %s %g' % (worst, row['flops_per_step'], F))
EOF
	)
	[ "$out" = ok ] && ok || bad "h200 $run: log TFLOP/s vs estimate: $out"
done
grep -q '^0,NVIDIA H200,143771,580.159.04,13.0,' "$H/hardware.csv" && ok || bad "hardware.csv: H200 row"

# 7. Every nvidia-smi, Lightning and Megatron file of the corpus is read.
C=../shared/corpus
if [ -d "$C/formats/nvidia_smi_xml" ]; then
	for f in "$C"/formats/nvidia_smi_xml/*.xml "$C"/h200/nvidia-smi-q.xml; do
		want=$(grep -c '<gpu id=' "$f")
		"$PERFSTUDY" inspect "$f" | grep -q "nvidia-smi, .*, $want gpus$" && ok || bad "inspect $f: expected $want gpus"
	done
	for f in "$C"/formats/lightning_profiler/*; do
		"$PERFSTUDY" inspect "$f" | grep -q "lightning-profiler, .* phases" && ok || bad "inspect $f"
	done
	"$PERFSTUDY" inspect "$C/formats/lightning_profiler/jknoll_ai-chess-bot_simple_extended_EXCERPT.txt" | grep -q ", 6 phases" && ok || bad "SimpleProfiler: 6 rows (Total and 5 actions)"
	want=$(grep -c "Profile stats for:" "$C/formats/lightning_profiler/bysowhat_pl_fit-perf_logs_advanced.txt")
	"$PERFSTUDY" inspect "$C/formats/lightning_profiler/bysowhat_pl_fit-perf_logs_advanced.txt" | grep -q ", $want phases" && ok || bad "AdvancedProfiler: $want blocks"
else
	skipped "../shared/corpus/formats not present"
fi
# Megatron lines with a date and a launcher prefix.
printf '[default3]:[2024-05-01 10:00:00] iteration       10/     100 | consumed samples:          80 | elapsed time per iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 150.3 | global batch size:     8 | lm loss: 1.0E+01 |\nunrelated line\n iteration       11/     100 | consumed samples:          88 | elapsed time per iteration (ms): 1000.0 |\n' >"$T/m.log"
"$PERFSTUDY" inspect "$T/m.log" | grep -q "megatron-log, .*, 2 iterations$" && ok || bad "megatron prefixes: $("$PERFSTUDY" inspect "$T/m.log" 2>&1)"

finish
