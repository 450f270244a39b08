#!/bin/bash
# record_zero.sh: the ZeRO sweep of issue #42 (paper 002's Figs 12-14): logs, the
# allocator's numbers and one profiled iteration (the last) per rank, on one
# 4 x H200 host:
#   bash record_zero.sh OUTDIR
# GPT-2-shaped models of 125M, 350M, 1.3B and 2.7B parameters (GPT-3's shapes),
# batch 4 per GPU, seq 1024, bf16 autocast, AdamW, 20 iterations; 1 GPU, and
# 2 and 4 GPUs with DDP, ZeRO-1, ZeRO-2 and ZeRO-3 (train_zero.py says how).
# One launch per GPU count trains every size and strategy in turn (36 runs in
# 3 launches). NPS="1 2" (say) records only those GPU counts, SIZES="125m 350m"
# only those sizes.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
python3 -c 'import torch, sys, transformers; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "transformers", transformers.__version__, "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
sha256sum "$H/train_zero.py" > meta/generator.sha256
sizes=$(echo ${SIZES:-125m 350m 1.3b 2.7b} | tr ' ' ,)
for np in ${NPS:-1 2 4}; do
	t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 timeout 500 python3 "$H/train_zero.py" --sizes "$sizes" --strategies single --out "$W"
	else
		timeout 500 python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$H/train_zero.py" \
			--sizes "$sizes" --strategies ddp,zero1,zero2,zero3 --out "$W"
	fi > "meta/${np}gpu.out" 2>&1
	echo "${np}gpu rc=$? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a meta/runs.txt
done
cd .. && tar -cf "$W.tar" "$(basename "$W")"
