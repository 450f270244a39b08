#!/bin/bash
# record.sh: how the runs in this folder were recorded, in one call on one
# host with 4 x NVIDIA H200 (the device machine `nvidia-h200-x4`):
#   bash record.sh OUTDIR
# Each run folder gets rank<N>.pt.trace.json.gz, rank<N>.steps.csv (the
# allocator's numbers and each rank's own step time), rank0.log (Megatron
# format, one line per iteration; iterations 5-6 are profiled) and truth.json
# (what was planted). GPT-2 of 2 layers (d=768, 12 heads, seq 1024, vocab
# 50257), batch 8 per GPU, bf16 autocast, AdamW, 30 iterations, profiler
# schedule wait 2, warmup 2, active 2: iterations 5-6 are profiled, 7 pays
# for the export, 8-30 (23) are the unprofiled ones.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
G=$H/train_plant.py
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
nvidia-smi topo -m | sed 's/\x1b\[[0-9;]*m//g' > meta/nvidia-smi-topo.txt
python3 -c 'import torch, transformers, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "transformers", transformers.__version__, "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
run() { # folder nproc generator-args...
	local name=$1 np=$2; shift 2
	local t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 python3 "$G" --strategy single --active 2 "$@" --out "$W/$name"
	else
		python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$G" --active 2 "$@" --out "$W/$name"
	fi > "meta/$name.out" 2>&1
	local rc=$?
	echo "$name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s: $(tail -n 2 "$W/$name/rank0.log" | head -1 | cut -c1-90)" | tee -a meta/runs.txt
}
# issue #39: one clean run and one planted cause per run, on rank 3
run ddp-clean 4 --plant none
run ddp-uneven 4 --plant uneven --plant-size 1.5
run ddp-pageable 4 --plant pageable --plant-size 256
run ddp-sync 4 --plant sync --plant-size 100
run ddp-sleep 4 --plant sleep --plant-size 25
run ddp-extra 4 --plant extra --plant-size 10
# issue #41: allocator events (profile_memory=True)
run mem-1gpu 1 --profile-memory
run mem-ddp-leak 4 --profile-memory --plant leak --plant-rank 2 --plant-size 16
run mem-fsdp 4 --profile-memory --strategy fsdp
ls -l */*.gz | awk '{s+=$5} END {print s, "bytes of traces"}' | tee -a meta/runs.txt
# the unprofiled iterations' median step per run (8-30), for a first look
for d in */rank0.log; do
	printf '%s %s\n' "${d%/rank0.log}" "$(sed -n 's/.*iteration *\([0-9]*\)\/.*per iteration (ms): \([0-9.]*\).*/\1 \2/p' "$d" | awk '$1 >= 8 {print $2}' | sort -n | awk '{a[NR]=$1} END {print "median", (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), "ms of", NR}')"
done | tee -a meta/runs.txt
