#!/bin/bash
# record.sh: how the Lightning reports in this folder were recorded, in one
# call on one NVIDIA H200 (the device machine lent to this project):
#   bash record.sh OUTDIR
# One run per number of DataLoader workers (0 = loading in the training
# process, Lightning's and paper 003's default; then 1, 2, 4), each 200
# steps of BERT-base MLM, batch 4, sequence 512, fp32, with Lightning's
# SimpleProfiler (extended). OUTDIR gets fit-w<N>.txt per run and
# versions.txt, nvidia-smi-q.xml.
set -u
H=$(dirname "$(realpath "$0")"); W=$1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1
mkdir -p "$W" || exit 1
nvidia-smi -q -x > "$W/nvidia-smi-q.xml"
python3 -c 'import torch, transformers, lightning, sys, os; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__, "lightning", lightning.__version__, "cpus", os.cpu_count(), "gpu", torch.cuda.get_device_name(0))' > "$W/versions.txt" 2>&1
for w in 0 1 2 4; do
	python3 "$H/train_bert_lightning.py" --workers $w --steps 200 --out "$W" --name w$w > "$W/w$w.out" 2>&1
	echo "w$w rc=$?: $(tail -n 1 "$W/w$w.out")"
done
