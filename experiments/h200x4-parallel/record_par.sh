#!/bin/bash
# record_par.sh: the pipeline- and tensor-parallel runs of issue #42, in one
# call on one host with 4 x NVIDIA H200 (the device machine nvidia-h200-x4):
#   bash record_par.sh OUTDIR
# train_par.py (here) says the model: 8 blocks, d=1024, 16 heads, seq 1024,
# vocab 50257, batch 16, bf16 autocast, AdamW, 30 iterations, profiler
# window at the end (iterations 1-26 unprofiled, 27 the profiler's warm-up,
# 28-30 profiled: 3, not more, to keep the traces small enough for the tree;
# last, because iterations after a profiled window can run slower:
# probe/profiler_wrap.py). Runs:
#   pp<p>-<schedule>-m<m>  pipeline of p = 2 or 4 stages, GPipe or 1F1B,
#                          m = 4 or 8 micro-batches
#   pp4-gpipe-m8-slow2     the same with stage 2 planted slow (truth.json)
#   tp<t>                  tensor parallel t = 1, 2, 4
#   *-nop2p                the same run with NCCL_P2P_DISABLE=1: NCCL moves
#                          data through host memory instead of NVLink
#   *-p2p                  (part p2p) the same runs as part nop2p without
#                          it, launched next to them on the same host
# in 7 launches, one per process group (train_par.py runs a launch's runs in
# turn): PARTS="pp2 pp4 tp nop2p" (the default) or any of them (TPS="1 2":
# only those TP degrees; NOP2P_GPUS=2 NOP2P_RUNS=gpipe:4: the nop2p and p2p
# parts on 2 GPUs with that pipeline), to split the
# work over calls. Everything lands in OUTDIR/<run>/ and OUTDIR/meta/; at the
# end the whole OUTDIR is packed into OUTDIR.tar (the device returns a few
# files only).
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
nvidia-smi topo -m | sed 's/\x1b\[[0-9;]*m//g' > meta/nvidia-smi-topo.txt
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
sha256sum "$H/train_par.py" > meta/generator.sha256
launch() { # label nproc args...: one launch, its output in meta/<label>.out
	local name=$1 np=$2; shift 2
	local t0=$(date +%s.%N)
	if [ "$np" = 1 ]; then
		CUDA_VISIBLE_DEVICES=0 timeout 400 python3 "$H/train_par.py" "$@" --out "$W"
	else
		timeout 400 python3 -m torch.distributed.run --standalone --nproc_per_node="$np" "$H/train_par.py" "$@" --out "$W"
	fi > "meta/$name.out" 2>&1
	echo "$name rc=$? $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s" | tee -a meta/runs.txt
}
for part in ${PARTS:-pp2 pp4 tp nop2p}; do
	case $part in
	pp2) launch pp2 2 --mode pp --runs gpipe:4,gpipe:8,1f1b:4,1f1b:8 ;;
	pp4) launch pp4 4 --mode pp --runs gpipe:4,gpipe:8,1f1b:4,1f1b:8,gpipe:8:slow2:4 ;;
	tp) for t in ${TPS:-1 2 4}; do launch tp$t $t --mode tp; done ;;
	nop2p | p2p) ( # NCCL's log of its set-up says the transport
		g=${NOP2P_GPUS:-4}
		export NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT
		[ $part = p2p ] || export NCCL_P2P_DISABLE=1
		launch tp$g-$part $g --mode tp --suffix=-$part
		launch pp$g-$part $g --mode pp --runs "${NOP2P_RUNS:-gpipe:8}" --suffix=-$part ) ;;
	*) echo "record_par.sh: unknown part $part" >&2 ;;
	esac
done
cd .. && tar -cf "$W.tar" "$(basename "$W")"
