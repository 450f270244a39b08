#!/bin/bash
# record.sh: how the runs in this folder were recorded on the device machine
# nvidia-h100-x4 (4 x H100 80GB, NV18 between every pair), for the papers'
# multi-GPU items (issue #31):
#   bash record.sh OUTDIR zero     paper 002 Figs 12-14: one GPT-2 on 2 and 4 GPUs,
#                                  DDP, ZeRO-1, ZeRO-2 (FSDP2 reshard_after_forward=False), ZeRO-3 (FSDP2)
#   bash record.sh OUTDIR sockets  paper 003 Fig 6: BERT on 2 GPUs over NCCL's socket
#                                  transport (P2P and SHM off) under NCCL_SOCKET_NTHREADS x NCCL_NSOCKS_PERTHREAD
#   bash record.sh OUTDIR zero3-4  the 4-GPU ZeRO-3 (FSDP2) run of "zero" alone (it was cut
#                                  off by the device's time limit in the first recording)
#   bash record.sh OUTDIR fig1     paper 000 Fig 1's kind: time to train 768 samples
#                                  on 1, 2, 4 GPUs at batch 4, 8, 16 per GPU (logs)
# train_trace.py here is ../h100x4/train_trace.py (the corpus generator) plus
# the zero2 strategy. Each run folder gets rank<N>.pt.trace.json.gz per rank and
# rank0.log (one Megatron training_log line per iteration; iterations 5-6 profiled).
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1 WHAT=$2
G=$H/train_trace.py
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x > meta/nvidia-smi-q.xml
nvidia-smi topo -m | sed 's/\x1b\[[0-9;]*m//g' > meta/nvidia-smi-topo.txt
run() { # folder nproc generator-args...
	local name=$1 np=$2; shift 2
	local t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 python3 "$G" "$@" --out "$W/$name"
	else
		python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$G" "$@" --out "$W/$name"
	fi > "$W/meta/$name.out" 2>&1
	local rc=$?
	echo "$name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s: $(tail -n 1 "$W/$name/rank0.log")" | tee -a meta/runs.txt
}
# GPT-2 of 4 layers (d=768, 12 heads, seq 1024, vocab 50257), batch 8 per GPU, 20 iterations
GPT="--model gpt2 --layers 4 --batch 8 --seq 1024 --vocab 50257 --iters 20 --active 2"
case $WHAT in
zero3-4)
	run gpt2-4gpu-fsdp 4 $GPT --strategy fsdp ;;
zero)
	for n in 2 4; do
		for s in ddp zero1 zero2 fsdp; do
			run gpt2-${n}gpu-$s $n $GPT --strategy $s
		done
	done ;;
sockets)
	# BERT of 4 layers (d=768, 12 heads, seq 512), batch 16 per GPU, 2 GPUs, socket transport only
	BERT="--model bert --layers 4 --batch 16 --seq 512 --vocab 30522 --iters 20 --active 2 --strategy ddp"
	for c in 1x1 2x2 4x4 8x8; do
		NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 NCCL_IB_DISABLE=1 NCCL_NET=Socket \
		NCCL_SOCKET_NTHREADS=${c%x*} NCCL_NSOCKS_PERTHREAD=${c#*x} NCCL_DEBUG=INFO \
			run bert-2gpu-sock$c 2 $BERT
	done ;;
fig1)
	# 768 samples of BERT (4 layers, seq 128) on 1, 2, 4 GPUs at batch 4, 8, 16 per GPU
	for b in 4 8 16; do
		for n in 1 2 4; do
			it=$((768 / (b * n)))
			s=ddp; [ $n = 1 ] && s=single
			run bert-${n}gpu-b$b $n --model bert --layers 4 --batch $b --seq 128 --vocab 30522 --iters $it --active 1 --strategy $s
		done
	done ;;
esac
