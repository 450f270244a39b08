#!/bin/bash
# make.sh: regenerates tests/golden/h200/*.csv from the raw traces with the
# independent reference tests/golden/expected.py (Python's json module, not
# perfstudy). With --check, compares instead of writing.
set -eu
cd "$(dirname "$0")/../.."
. tests/golden/h200-runs.sh
mapfile -t ARGS < <(h200_runs)
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
# collectives, scaling, speedup_error and strategy_scaling (these need each run's GPUs and per-GPU batch:
# run:gpus:batch).
mapfile -t TARGS < <(h200_runs long)
python3 tests/golden/time_reference.py "$out" "${TARGS[@]}"
if [ "${1:-}" = --check ]; then
	for f in groups kernels steps groups-payoungkhamdee2021 step_breakdown memops ranks phases dispatch compare \
		collectives scaling speedup_error strategy_scaling idle_time_steps gpu_idle; do
		cmp "$out/$f.csv" "tests/golden/h200/$f.csv"
	done
fi
