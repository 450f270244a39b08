#!/bin/bash
# make.sh: regenerates tests/golden/h200/*.csv from the raw traces with the
# independent reference tests/golden/expected.py (Python's json module, not
# perfstudy). With --check, compares instead of writing.
set -eu
cd "$(dirname "$0")/../.."
E=experiments/h200/traces
ARGS=(gpt2-1gpu=$E/gpt2-124m/1gpu/rank0.pt.trace.json.gz
      gpt2-2gpu-ddp=$E/gpt2-124m/2gpu-ddp/rank0.pt.trace.json.gz,$E/gpt2-124m/2gpu-ddp/rank1.pt.trace.json.gz
      bert-1gpu=$E/bert-base/1gpu/rank0.pt.trace.json.gz
      bert-2gpu-ddp=$E/bert-base/2gpu-ddp/rank0.pt.trace.json.gz,$E/bert-base/2gpu-ddp/rank1.pt.trace.json.gz
      bert-2gpu-zero1=$E/bert-base/2gpu-zero1/rank0.pt.trace.json.gz,$E/bert-base/2gpu-zero1/rank1.pt.trace.json.gz)
out=tests/golden/h200
if [ "${1:-}" = --check ]; then
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi
python3 tests/golden/expected.py groups default "${ARGS[@]}" > "$out/groups.csv"
python3 tests/golden/expected.py kernels default "${ARGS[@]}" > "$out/kernels.csv"
python3 tests/golden/expected.py steps default "${ARGS[@]}" > "$out/steps.csv"
python3 tests/golden/expected.py groups payoungkhamdee2021 "${ARGS[@]}" > "$out/groups-payoungkhamdee2021.csv"
# Time accounting (issue 4): step_breakdown, memops, ranks, phases, dispatch, compare,
# collectives, scaling (the last needs each run's GPUs and per-GPU batch: run:gpus:batch).
TARGS=()
for a in "${ARGS[@]}"; do
	case ${a%%=*} in
	gpt2-1gpu) TARGS+=("gpt2-1gpu:1:8=${a#*=}") ;;
	gpt2-2gpu-ddp) TARGS+=("gpt2-2gpu-ddp:2:8=${a#*=}") ;;
	bert-1gpu) TARGS+=("bert-1gpu:1:16=${a#*=}") ;;
	*) TARGS+=("${a%%=*}:2:16=${a#*=}") ;;
	esac
done
python3 tests/golden/time_reference.py "$out" "${TARGS[@]}"
if [ "${1:-}" = --check ]; then
	for f in groups kernels steps groups-payoungkhamdee2021 step_breakdown memops ranks phases dispatch compare \
		collectives scaling; do
		cmp "$out/$f.csv" "tests/golden/h200/$f.csv"
	done
fi
