#!/bin/bash
# record_par.sh: the pipeline- and tensor-parallel runs of issue #42, in one
# call on one host with 4 x NVIDIA H200 (the device machine nvidia-h200-x4):
#   bash record_par.sh OUTDIR
# train_par.py (here) says the model: 8 blocks, d=1024, 16 heads, seq 1024,
# vocab 50257, batch 16, bf16 autocast, AdamW, 30 iterations, profiler
# schedule wait 2, warmup 2, active 5 (iterations 5-9 profiled, 10 pays for
# the export, 11-30 unprofiled). Runs:
#   pp<p>-<schedule>-m<m>  pipeline of p = 2 or 4 stages, GPipe or 1F1B,
#                          m = 4 or 8 micro-batches
#   pp4-gpipe-m8-slow2     the same with stage 2 planted slow (truth.json)
#   tp<t>                  tensor parallel t = 1, 2, 4
#   *-nop2p                the same run with NCCL_P2P_DISABLE=1: NCCL moves
#                          data through host memory instead of NVLink
# Everything lands in OUTDIR/<run>/ and OUTDIR/meta/; at the end the whole
# OUTDIR is packed into OUTDIR.tar (the device returns a few files only).
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
nvidia-smi topo -m | sed 's/\x1b\[[0-9;]*m//g' > meta/nvidia-smi-topo.txt
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
sha256sum "$H/train_par.py" > meta/generator.sha256
run() { # folder nproc args...
	local name=$1 np=$2; shift 2
	local t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 timeout 240 python3 "$H/train_par.py" "$@" --out "$W/$name"
	else
		timeout 240 python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$H/train_par.py" "$@" --out "$W/$name"
	fi > "meta/$name.out" 2>&1
	echo "$name rc=$? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a meta/runs.txt
}
for p in ${STAGES:-2 4}; do
	for s in gpipe 1f1b; do
		for m in 4 8; do
			run pp$p-$s-m$m $p --mode pp --schedule $s --microbatches $m
		done
	done
done
run pp4-gpipe-m8-slow2 4 --mode pp --schedule gpipe --microbatches 8 --plant-slow-stage 2 --plant-size 4
for t in 1 2 4; do run tp$t $t --mode tp; done
NCCL_P2P_DISABLE=1 run tp4-nop2p 4 --mode tp
NCCL_P2P_DISABLE=1 run pp4-gpipe-m8-nop2p 4 --mode pp --schedule gpipe --microbatches 8
cd .. && tar -cf "$W.tar" "$(basename "$W")"
