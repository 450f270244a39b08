#!/bin/bash
# t_replay_h2d.sh: a cudaMemcpyAsync from pinned host memory to the device
# does not wait for the GPU (replay_model.c's wait inference; issue #52),
# even where its copy ended just after the call returned because the GPU
# was idle. Before, the replay made such a call wait for its copy, so that
# with the synchronisations removed it waited for all the GPU work queued
# before the copy (the fifth fresh recording of experiments/gpu1-causes,
# SOURCE.md: the batch copied in get_train_batch made the sync fix of the
# sync-after-every-block run 6.6 ms against the logs' 10.8).
#
# tests/data/replay/make_replay_h2d.py gives the trace's times (us,
# relative to each step's o, period 35000). Worked out by hand below.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

replay_site make_replay_h2d replay_fixes.csv h2d

# col MECHANISM COL: the value of COL in h2d's replay_fixes row of MECHANISM.
col() {
	python3 - "$D/replay_fixes.csv" "$@" << 'PY'
import csv, sys
f, mech, c = sys.argv[1:]
for r in csv.DictReader(open(f)):
    if r["run"] == "h2d" and r["mechanism"] == mech:
        print(r[c]); break
PY
}

# Measured steps: step 1 from gemm_k1's start (o+20) to step 2's (35020),
# 35000; step 2 to its synchronize's end, 28090 - 20 = 28070. Mean 31535.
is 31535.000 "$(col sync step_us)" "the replayed step"
# The synchronisations removed (sync: both cudaDeviceSynchronize calls
# return at once, at the launches' median cost, 10): the host runs
# gemm_k1's launch 0-10, its synchronize 10-20, the cudaMemcpyAsync 20-50
# (it waits for nothing: its own 30), aten::mul 50-8050, gemm_k2's launch
# 8050-8060, its synchronize 8060-8070, then the covered host time after
# it as measured, 35000 - 28090 = 6910: step 2's launch at 14980. The GPU
# (stream order, each activity as long as measured and as late after its
# launch and its predecessor as measured): gemm_k1 20-10020; the copy
# 5 after gemm_k1 (as measured: it started 5 after its call returned),
# 10025-10028; gemm_k2 10 after the copy, 10038-20038; step 2's gemm_k1
# launched at 14980-14990, starts 10 after gemm_k2's end, 20048. Step 1
# 20048 - 20 = 20028, saving 35000 - 20028 = 14972. Step 2 the same from
# 20048, its host from 14980: gemm_k1 20048-30048, the copy 30053-30056,
# gemm_k2 30066-40066, the step's last end: 40066 - 20048 = 20018,
# saving 28070 - 20018 = 8052. Mean 11512, stated (above 1 % of the step,
# with 2 steps each step's saving above it).
is 11512.000 "$(col sync saving_us_per_step)" "sync's saving"
is 8052.000 "$(col sync saving_min_us)" "the smaller step's saving"
is 14972.000 "$(col sync saving_max_us)" "the larger step's saving"
is 1 "$(col sync stated)" "stated"
# The copy's call waited for nothing: no implicit_sync row.
is "" "$(col implicit_sync mechanism)" "no implicit synchronisation"
finish
