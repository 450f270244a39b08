#!/bin/bash
# record.sh: how the runs in this folder were recorded, in one call on one
# NVIDIA H100 (the device machine `nvidia-h100-x1`):
#   bash record.sh OUTDIR
# Each run folder gets rank0.pt.trace.json.gz, rank0.steps.csv (per iteration:
# the CUDA-event step time, the host's, the allocator's numbers), rank0.log
# (Megatron format, one line per iteration, the CUDA-event step time;
# iterations 5-7 are profiled, 8 pays for the export, 9-30 (22) are the
# unprofiled ones) and truth.json (what was planted). GPT-2 of 2 layers
# (d=768, 12 heads, seq 1024, vocab 50257), batch 8, bf16 autocast, AdamW, 30
# iterations of an asynchronous loop (no synchronisation around steps),
# profiler schedule wait 2, warmup 2, active 3, record_shapes=True.
# The first run (clean) also probes, after its logged loop, the host's own
# time to enqueue a step and the synchronised step (probe.json); the hidden
# sleep is a third of that GPU-bound slack, the shown one twice the clean
# step.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
G=$H/train_async.py
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
mkdir -p "$W/meta" && cd "$W" || exit 1
date -u +'%Y-%m-%d %H:%M:%S UTC start' > meta/runs.txt
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
python3 -c 'import torch, transformers, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "transformers", transformers.__version__, "gpu", torch.cuda.get_device_name(0))' > meta/versions.txt 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv,noheader >> meta/versions.txt
sha256sum "$G" | sed 's#  .*/#  #' >> meta/versions.txt
run() { # folder generator-args...
	local name=$1; shift
	local t0=$(date +%s.%N)
	python3 "$G" "$@" --out "$W/$name" > "meta/$name.out" 2>&1
	local rc=$?
	echo "$name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s [$*]: $(tail -n 1 "meta/$name.out" | cut -c1-120)" | tee -a meta/runs.txt
}
run clean --plant none --probe 8
# sizes from the clean run: a third of its GPU-bound slack (GPU step minus the
# host's time to enqueue it, unprofiled), at least 2 ms; twice its step
read HID SHOWN < <(python3 -c '
import json; t = json.load(open("clean/truth.json")); p = t["probe"] or {}
s = p.get("gpu_bound_slack_ms", 15.0)
print(max(2, round(s / 3)), round(2 * t["unprofiled_median_ms"]))')
echo "sizes: hidden sleep ${HID} ms, shown sleep ${SHOWN} ms" | tee -a meta/runs.txt
run sleep-hidden --plant sleep --plant-size "$HID"
run sleep-shown --plant sleep --plant-size "$SHOWN"
run item --plant item --plant-size 15
run pageable --plant pageable --plant-size 320
run syncblocks --plant syncblocks
run extra --plant extra --plant-size 5
run leak --plant leak --plant-size 64 --profile-memory
run clean-2 --plant none
ls -l */*.gz | awk '{s+=$5} END {print s, "bytes of traces"}' | tee -a meta/runs.txt
# the unprofiled iterations' median step per run (9-30), for a first look
for d in */rank0.log; do
	printf '%s %s\n' "${d%/rank0.log}" "$(sed -n 's/.*iteration *\([0-9]*\)\/.*per iteration (ms): \([0-9.]*\).*/\1 \2/p' "$d" | awk '$1 >= 9 {print $2}' | sort -n | awk '{a[NR]=$1} END {print "median", (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), "ms of", NR}')"
done | tee -a meta/runs.txt
date -u +'%Y-%m-%d %H:%M:%S UTC end' >> meta/runs.txt
# The traces are kept here as traces.tar.xz (inflated JSON), which `make
# unpack` puts beside the logs:
#   make unpack && ./perfstudy build experiments/gpu1-causes/causes.yaml -o site
