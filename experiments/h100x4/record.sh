#!/bin/bash
# record.sh: how the runs in this folder were recorded, in one call on one
# host with 4 x NVIDIA H100 80GB (the device machine `nvidia-h100-x4`):
#   bash record.sh OUTDIR
# train_trace.py here is ../shared/corpus/h200/generator/train_trace.py,
# unchanged (SOURCE.md gives its SHA-256); jax_train.py is ours. Each run
# folder of OUTDIR gets one rank<N>.pt.trace.json.gz per rank and rank0.log
# (one line per iteration, Megatron format; iterations 5-7 are the profiled
# ones: schedule wait 2, warmup 2, active 3); OUTDIR/meta gets nvidia-smi -q
# -x, nvidia-smi topo -m and the software versions.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
G=$H/train_trace.py
# NVLink multicast stays off: the machines it was recorded on are shared.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
nvidia-smi topo -m | sed 's/\x1b\[[0-9;]*m//g' > meta/nvidia-smi-topo.txt
python3 -c 'import torch, transformers, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "transformers", transformers.__version__, "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
python3 -c 'import jax, jaxlib; print("jax", jax.__version__, "jaxlib", jaxlib.__version__, "devices", jax.devices())' >> meta/versions.txt 2>&1
nproc >> meta/versions.txt
run() { # folder nproc generator-args...
	local name=$1 np=$2; shift 2
	local t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 python3 "$G" "$@" --out "$W/$name"
	else
		python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$G" "$@" --out "$W/$name"
	fi > "$W/$name.out" 2>&1
	local rc=$?
	echo "$name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s: $(tail -n 1 "$W/$name/rank0.log")" | tee -a meta/runs.txt
}
# GPT-2 of 6 layers (d=768, 12 heads, seq 1024, vocab 50257), batch 8 per
# GPU, 30 iterations: small traces, the same kernels as GPT-2 124M.
GPT="--model gpt2 --layers 6 --batch 8 --seq 1024 --vocab 50257 --iters 30"
run gpt2-1gpu 1 $GPT --strategy single
run gpt2-2gpu-ddp 2 $GPT --strategy ddp
run gpt2-4gpu-ddp 4 $GPT --strategy ddp
run gpt2-4gpu-ddp-rerun 4 $GPT --strategy ddp
# planted causes (issue #28): rank 2 sleeps 20 ms in get_train_batch; rank 1
# runs about 14 ms of extra bf16 matrix products (10 x 8192^3) in forward
run gpt2-4gpu-ddp-host2 4 $GPT --strategy ddp --straggle-rank 2 --straggle-kind host --straggle-ms 20
run gpt2-4gpu-ddp-gpu1 4 $GPT --strategy ddp --straggle-rank 1 --straggle-kind gpu --straggle-ms 14
# planted slowdown of every rank (issue #29): 3 extra matrix products (~4 ms)
run gpt2-4gpu-ddp-slow 4 $GPT --strategy ddp --straggle-rank -2 --straggle-kind gpu --straggle-ms 4.2
# a host-bound configuration (batch 1, seq 128): the same extra GPU work
# (1 product, ~1.4 ms) may hide behind the host
SMALL="--model gpt2 --layers 6 --batch 1 --seq 128 --vocab 50257 --iters 30"
run small-4gpu-ddp 4 $SMALL --strategy ddp
run small-4gpu-ddp-hidden 4 $SMALL --strategy ddp --straggle-rank -2 --straggle-kind gpu --straggle-ms 1.4
# JAX (issue #33): data-parallel training on 1 and 4 GPUs, steps 5-7 profiled
for n in 1 4; do
	t0=$(date +%s.%N)
	timeout 240 python3 "$H/jax_train.py" $n "$W/jax-${n}gpu" > "$W/jax-${n}gpu.out" 2>&1
	rc=$?
	echo "jax-${n}gpu rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a meta/runs.txt
done
