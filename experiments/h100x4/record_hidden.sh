#!/bin/bash
# record_hidden.sh: the two runs of issue #28's "hides behind the host" case,
# recorded after record.sh, on the same kind of host (nvidia-h100-x4, 2 of
# its GPUs): GPT-2 of 6 layers at batch 1, seq 128 (host-bound: its GPU waits
# for launches), DDP on 2 GPUs, 30 iterations, iterations 5-6 profiled:
#   small-2gpu-ddp-host1     rank 1 sleeps 10 ms per step in get_train_batch;
#   small-2gpu-ddp-host1gpu  the same, and rank 1 also runs 2 extra bf16
#                            8192^3 products (about 2.8 ms of GPU work) per
#                            step in forward.
# Where the second run's step is no longer than the first's, rank 1's extra
# GPU work hid behind its host. train_trace_hostgpu.py is train_trace.py
# plus --straggle-gpu-ms (extra GPU work besides a host straggle).
#   bash record_hidden.sh OUTDIR
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
G=$H/train_trace_hostgpu.py
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
run() { # folder generator-args...
	local name=$1; shift
	local t0=$(date +%s.%N)
	CUDA_VISIBLE_DEVICES=0,1 python3 -m torch.distributed.run --standalone --nproc_per_node=2 "$G" "$@" \
		--out "$W/$name" > "$W/meta/$name.out" 2>&1
	local rc=$?
	echo "$name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s: $(tail -n 1 "$W/$name/rank0.log")" | tee -a meta/runs.txt
}
SMALL="--model gpt2 --layers 6 --batch 1 --seq 128 --vocab 50257 --iters 30 --active 2 --strategy ddp"
run small-2gpu-ddp-host1 $SMALL --straggle-rank 1 --straggle-kind host --straggle-ms 10
run small-2gpu-ddp-host1gpu $SMALL --straggle-rank 1 --straggle-kind host --straggle-ms 10 --straggle-gpu-ms 2.8
