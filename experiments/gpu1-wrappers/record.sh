#!/bin/bash
# record.sh: the wrapper recording of issue #57 item 7 (SOURCE.md), in one
# call on the device machine (one GPU):
#   bash experiments/gpu1-wrappers/record.sh OUTDIR
# Writes OUTDIR/<run>/ per run (train_wrappers.py says which), meta/ with
# the versions, nvidia-smi -q -x and the console output, and
# OUTDIR/traces.tar.xz of the run folders.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0
mkdir -p "$W/meta" && cd "$W" || exit 1
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
python3 -c 'import torch, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "nccl", torch.cuda.nccl.version(), "gpus", torch.cuda.device_count())' > meta/versions.txt 2>&1
sha256sum "$H/train_wrappers.py" > meta/generator.sha256
date -u +%FT%TZ > meta/started.txt
timeout 500 python3 "$H/train_wrappers.py" --out "$W/runs" > meta/console.out 2>&1
echo "rc=$?" >> meta/console.out
date -u +%FT%TZ > meta/ended.txt
