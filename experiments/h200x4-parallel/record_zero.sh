#!/bin/bash
# record_zero.sh: the ZeRO sweep of issue #42 (paper 002's Figs 12-14), logs and the
# allocator's numbers only (no profiler), on one 4 x H200 host:
#   bash record_zero.sh OUTDIR
# GPT-2-shaped models of 125M, 350M, 1.3B and 2.7B parameters (GPT-3's shapes),
# batch 4 per GPU, seq 1024, bf16 autocast, AdamW, 20 iterations; 1 GPU, and
# 2 and 4 GPUs with DDP, ZeRO-1, ZeRO-2 and ZeRO-3 (train_zero.py says how).
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
run() { # folder nproc args...
	local name=$1 np=$2; shift 2
	local t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 timeout 300 python3 "$H/train_zero.py" "$@" --out "$W/$name"
	else
		timeout 300 python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$H/train_zero.py" "$@" --out "$W/$name"
	fi > "meta/$name.out" 2>&1
	echo "$name rc=$? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a meta/runs.txt
}
for size in ${SIZES:-125m 350m 1.3b 2.7b}; do
	run $size-1gpu 1 --size $size --strategy single
	for np in ${NPS-2 4}; do
		for s in ddp zero1 zero2 zero3; do
			run $size-${np}gpu-$s $np --size $size --strategy $s
		done
	done
done
cd .. && tar -cf "$W.tar" "$(basename "$W")"
