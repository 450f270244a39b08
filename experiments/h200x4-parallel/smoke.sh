#!/bin/bash
# smoke.sh OUTDIR: checks train_par.py and train_zero.py where no multi-GPU
# host is lent: every multi-rank path on the CPU with gloo (tiny shapes:
# several runs per launch, pipelines of 2 and 4 stages with both schedules
# and a planted slow stage, TP 2 with check_tp.py over its traces, DDP and
# ZeRO-1/2/3), then, on one GPU, the
# runs that need only one (tp1, and the ZeRO sweep's 1-GPU runs of every
# size: NPS=1 bash record_zero.sh; not with CPU_ONLY=1). Packs OUTDIR into
# OUTDIR.tar.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
mkdir -p "$W/cpu" "$W/meta" && cd "$W" || exit 1
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
tiny="--device cpu --seq 64 --hidden 64 --heads 4 --layers 4 --vocab 1000 --batch 8 --iters 6 --active 2"
run="python3 -m torch.distributed.run --standalone --nproc_per_node"
step() { # label command...
	local name=$1 t0=$(date +%s.%N); shift
	timeout 200 "$@" >"meta/$name.out" 2>&1
	echo "$name rc=$? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a meta/runs.txt
}
step cpu-pp2 $run=2 "$H/train_par.py" $tiny --mode pp --runs gpipe:4,1f1b:4 --out "$W/cpu"
step cpu-pp4 $run=4 "$H/train_par.py" $tiny --mode pp --runs 1f1b:8,gpipe:4:slow2:1 --out "$W/cpu"
step cpu-tp2 $run=2 "$H/train_par.py" $tiny --mode tp --suffix=-x --out "$W/cpu"
step cpu-tp2-check python3 "$H/check_tp.py" "$W/cpu/tp2-x"
step cpu-zero2 $run=2 "$H/train_zero.py" --device cpu --sizes tiny --strategies ddp,zero1,zero2,zero3 --seq 64 --batch 2 --iters 4 --profile-step 3 --out "$W/cpu"
[ -n "${CPU_ONLY:-}" ] || step gpu-tp1 python3 "$H/train_par.py" --mode tp --out "$W/par"
[ -n "${CPU_ONLY:-}" ] || step gpu-zero1 env NPS=1 bash "$H/record_zero.sh" "$W/zero"
for f in par/*/*.json.gz zero/*/*.json.gz cpu/*/*.json.gz; do
	echo "$f gz $(stat -c %s "$f") raw $(gzip -dc "$f" | wc -c) xz $(gzip -dc "$f" | xz -9 | wc -c)"
done > meta/sizes.txt
find . -type f | sort > meta/files.txt
cd .. && tar -cf "$W.tar" "$(basename "$W")"
