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
head -1 "$F" | grep -qx 'run,batch,estimated_flops,measured_flops,dram_bytes,kernel_us' && ok || bad "flops.csv header"
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
# The model sizes the paper printed are perfstudy's parameter counts (vocab 50304); with 4
# and 8 model-parallel ranks Megatron printed more (replicated weights counted per rank).
for pair in gpt2-345m-8gpu:354871296 gpt2-1.2b:1212103680 gpt2-2.5b-mp2:2488688640; do
	run=${pair%%:*} want=${pair#*:}
	got=$(awk -F, -v r="$run" '$1 == r { print $3 }' "$D/estimates.csv")
	[ "$got" = "$want" ] && ok || bad "004 params $run: $got, paper $want"
done

# 5. Paper 002: perfstudy's b(72sd^2 + 12s^2d)l, rounded like the paper, is its table.
if "$PERFSTUDY" build -q experiments/cheng-002/study.yaml -o "$T/c002" 2>"$T/err"; then ok; else bad "cheng-002 build: $(cat "$T/err")"; fi
got=$(awk -F, '$2 == "flops_tflop" { printf "%s=%.1f ", $1, $4 }' "$T/c002/cheng-002/data/published.csv")
want="gpt-125m=0.6 gpt-1.3b=8.2 gpt-2.7b=16.5 gpt-6.7b=41.2 gpt-13b=79.9 gpt-18.4b=114.4 "
[ "$got" = "$want" ] && ok || bad "002 FLOPs: '$got', paper '$want'"

# 6. The H200 example: the logs' TFLOP/s follow Megatron's formula; GPT-2 has 124439808 parameters.
if "$PERFSTUDY" build -q experiments/h200/study.yaml -o "$T/h200" 2>"$T/err"; then ok; else bad "h200 build: $(cat "$T/err")"; fi
H="$T/h200/h200/data"
got=$(awk -F, '$1 == "gpt2-1gpu" { print $3 }' "$H/estimates.csv")
want=$(tail -1 experiments/h200/traces/gpt2-124m/1gpu/rank0.log | awk '{ print $2 }')
[ "$got" = "$want" ] && ok || bad "GPT-2 params $got, the log says $want"
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
