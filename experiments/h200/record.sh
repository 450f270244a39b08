#!/bin/bash
# record.sh: how the traces in this folder were recorded, in one call on one
# host with 4 x NVIDIA H200 (NVLink NV18 between every pair):
#   bash record.sh /path/to/train_trace.py OUTDIR
# train_trace.py is ../shared/corpus/h200/generator/train_trace.py (see
# SOURCE.md for its SHA-256). Each run folder of OUTDIR gets one
# rank<N>.pt.trace.json.gz per rank and rank0.log; OUTDIR/meta gets
# nvidia-smi -q -x, nvidia-smi topo -m and the software versions.
set -u
G=$(realpath "$1"); W=$2
# NVLink multicast stays off: the machines it was recorded on are shared.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x > meta/nvidia-smi-q.xml
nvidia-smi topo -m > meta/nvidia-smi-topo.txt
python3 -c 'import torch, transformers, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "transformers", transformers.__version__, "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
run() { # folder nproc visible-gpus generator-args...
	local name=$1 np=$2 vis=$3; shift 3
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=$vis python3 "$G" "$@" --out "$W/$name"
	else
		CUDA_VISIBLE_DEVICES=$vis python3 -m torch.distributed.run --standalone \
			--nproc_per_node="$np" "$G" "$@" --out "$W/$name"
	fi > "$W/$name.out" 2>&1
	echo "$name rc=$?: $(tail -n 1 "$W/$name/rank0.log")"
}
GPT="--model gpt2 --batch 8 --seq 1024 --vocab 50257"
BERT="--model bert --batch 16 --seq 512 --vocab 30522"
run gpt2-1gpu 1 0 $GPT --strategy single
run bert-1gpu 1 0 $BERT --strategy single
for m in gpt2 bert; do
	[ $m = gpt2 ] && A=$GPT || A=$BERT
	for s in ddp zero1; do
		run $m-2gpu-$s 2 0,1 $A --strategy $s
	done
done
for m in gpt2 bert; do
	[ $m = gpt2 ] && A=$GPT || A=$BERT
	for s in ddp zero1; do
		run $m-4gpu-$s 4 0,1,2,3 $A --strategy $s
	done
done
