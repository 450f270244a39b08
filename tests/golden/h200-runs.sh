# h200-runs.sh, sourced: the bundled H200 study's runs (experiments/h200/study.yaml),
# in manifest order, for the reference scripts, which read the raw traces themselves.
#   h200_runs        prints run=rank0,rank1,... per run      (expected.py)
#   h200_runs long   prints run:gpus:batch=rank0,rank1,...   (time_reference.py)
h200_runs() {
	local E=experiments/h200/traces m r files gpus batch
	for m in gpt2:gpt2-124m:8 bert:bert-base:16; do
		batch=${m##*:}
		for r in 1gpu 2gpu-ddp 2gpu-zero1 4gpu-ddp 4gpu-zero1; do
			files=$(ls "$E/$(echo "$m" | cut -d: -f2)/$r"/rank*.pt.trace.json.gz | sort -V | paste -sd, -)
			gpus=${r%%gpu*}
			if [ "${1:-}" = long ]; then
				echo "${m%%:*}-$r:$gpus:$batch=$files"
			else
				echo "${m%%:*}-$r=$files"
			fi
		done
	done
}
