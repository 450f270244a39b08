#!/bin/bash
# record_fresh.sh: runs recorded after the replay (src/analyze/replay/) was
# written, to check it on runs it was never developed on (issue #52):
#   bash record_fresh.sh OUTDIR [host|gpu|fifth|sixth|seventh|eighth]
# The same generator (train_async.py, asynchronous loop) on other models and
# other sizes for each cause. host (the first call): GPT-2 of 4 layers,
# d=1024, 16 heads, seq 512, batch 4, which turned out host-bound, with a
# host that slowed down between runs (clean 17.8 ms, clean-2 25.8 ms). gpu
# (the second call): seq 1024, batch 8 (GPU-bound), a clean run between every
# two planted ones, so that each plant has a clean neighbour to compare with.
# Each run folder as record.sh writes them.
set -u
H=$(cd "$(dirname "$0")" && pwd)
W=$1
G=$H/train_async.py
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 PYTHONUNBUFFERED=1 CUDA_VISIBLE_DEVICES=0
mkdir -p "$W/meta" && cd "$W" || exit 1
date -u +'%Y-%m-%d %H:%M:%S UTC start' > meta/runs.txt
nvidia-smi -q -x | gzip -9n > meta/nvidia-smi-q.xml.gz
python3 -c 'import torch, transformers, sys; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__, "gpu", torch.cuda.get_device_name(0))' > meta/versions.txt 2>&1
sha256sum "$G" | sed 's#  .*/#  #' >> meta/versions.txt
MODE=${2:-host}
M="--layers 4 --hidden 1024 --heads 16 --seq 512 --batch 4"
[ "$MODE" = gpu ] && M="--layers 4 --hidden 1024 --heads 16 --seq 1024 --batch 8"
# fifth (the fifth call, 7 Dec 2026): a model no earlier call used, after
# the p2p join and the all-at-once price were written
[ "$MODE" = fifth ] && M="--layers 6 --hidden 768 --heads 12 --seq 1024 --batch 6"
# sixth (7 Dec 2026): after the pinned-copy rule the fifth led to
[ "$MODE" = sixth ] && M="--layers 5 --hidden 896 --heads 14 --seq 768 --batch 8"
# seventh (7 Dec 2026, evening): after the host-factor range rule (e05042f)
# and the layer search; a model shape no earlier call used, every cause
[ "$MODE" = seventh ] && M="--layers 3 --hidden 1280 --heads 20 --seq 640 --batch 6"
# eighth (7 Dec 2026, evening): after the same-place price (a wait and the
# host work after it priced together), on a shape no earlier call used;
# not recorded yet: the session that wrote it got no device machine
[ "$MODE" = eighth ] && M="--layers 7 --hidden 640 --heads 10 --seq 896 --batch 5"
run() { # folder generator-args...
	local name=$1; shift
	local t0=$(date +%s.%N)
	python3 "$G" $M "$@" --out "$W/$name" > "meta/$name.out" 2>&1
	local rc=$?
	echo "$name rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s [$*]: $(tail -n 1 "meta/$name.out" | cut -c1-120)" | tee -a meta/runs.txt
}
if [ "$MODE" = host ]; then
	run clean --plant none --probe 8
	run sleep-hidden --plant sleep --plant-size 3
	run sleep-shown --plant sleep --plant-size 50
	run item --plant item --plant-size 25
	run pageable --plant pageable --plant-size 192
	run syncblocks --plant syncblocks
	run extra --plant extra --plant-size 8
	run clean-2 --plant none
elif [ "$MODE" = eighth ]; then
	run clean-a --plant none --probe 8
	run item --plant item --plant-size 18
	run syncblocks --plant syncblocks
	run clean-b --plant none
	run sleep-hidden --plant sleep --plant-size 3
	run item-b --plant item --plant-size 6
	run clean-c --plant none
	run extra --plant extra --plant-size 3
	run pageable --plant pageable --plant-size 96
	run sleep-shown --plant sleep --plant-size 25
	run clean-d --plant none
elif [ "$MODE" = seventh ]; then
	run clean-a --plant none --probe 8
	run pageable --plant pageable --plant-size 224
	run sleep-hidden --plant sleep --plant-size 6
	run clean-b --plant none
	run extra --plant extra --plant-size 7
	run item --plant item --plant-size 12
	run clean-c --plant none
	run syncblocks --plant syncblocks
	run sleep-shown --plant sleep --plant-size 45
	run clean-d --plant none
elif [ "$MODE" = sixth ]; then
	run clean-a --plant none --probe 8
	run syncblocks --plant syncblocks
	run clean-b --plant none
	run item --plant item --plant-size 10
	run extra --plant extra --plant-size 4
	run clean-c --plant none
	run sleep-shown --plant sleep --plant-size 30
	run pageable --plant pageable --plant-size 200
	run clean-d --plant none
elif [ "$MODE" = fifth ]; then
	run clean-a --plant none --probe 8
	run item --plant item --plant-size 15
	run clean-b --plant none
	run sleep-shown --plant sleep --plant-size 40
	run sleep-hidden --plant sleep --plant-size 4
	run clean-c --plant none
	run pageable --plant pageable --plant-size 160
	run syncblocks --plant syncblocks
	run clean-d --plant none
	run extra --plant extra --plant-size 5
	run item-b --plant item --plant-size 8
	run clean-e --plant none
else
	run clean-a --plant none --probe 8
	run sleep-shown --plant sleep --plant-size 60
	run item --plant item --plant-size 20
	run clean-b --plant none
	run pageable --plant pageable --plant-size 256
	run syncblocks --plant syncblocks
	run clean-c --plant none
	run extra --plant extra --plant-size 6
	run sleep-hidden --plant sleep --plant-size 5
	run clean-d --plant none
fi
for d in */rank0.log; do
	printf '%s %s\n' "${d%/rank0.log}" "$(sed -n 's/.*iteration *\([0-9]*\)\/.*per iteration (ms): \([0-9.]*\).*/\1 \2/p' "$d" | awk '$1 >= 9 {print $2}' | sort -n | awk '{a[NR]=$1} END {print "median", (NR % 2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2), "ms of", NR}')"
done | tee -a meta/runs.txt
date -u +'%Y-%m-%d %H:%M:%S UTC end' >> meta/runs.txt
