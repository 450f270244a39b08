#!/bin/bash
# t_replay_pipe.sh: the pipeline-bubble fix priced by the replay
# (replay_fixes.csv pipeline_balance, src/analyze/replay/replay_run.c;
# issue #52), not by the schedule's formula, on a pipeline whose step a
# host holds.
#
# tests/data/replay/make_replay_pipe.py: two stages, GPipe, m = 2
# micro-batches a and b; stage 0 (rank 0) F0 = 1000 us per forward, B0 =
# 2000 per backward; stage 1 (rank 1) F1 = 2000, B1 = 4000. Rank 0's host
# works 5000 us (an operator) between launching f0a and f0b; rank 1's
# launches start 3000 us into the step. The generator's docstring gives
# every kernel's times (relative to the step's o); a send and its recv
# end 100 us after the later of their starts. Worked out by hand below.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

replay_site make_replay_pipe replay_fixes.csv pipe2

# The stages' compute (pipeline_stages.csv, the union of each stage's
# kernels outside communication): stage 0 2 x 1000 + 2 x 2000 = 6000 us,
# stage 1 2 x 2000 + 2 x 4000 = 12000; mean 9000, imbalance 12000 / 9000
# = 1.33 > 1.10: the pipeline-bubble finding blames stage 1 (rank 1).
is 6000.000 "$(awk -F, '$1 == "pipe2" && $4 == 0 { print $12 }' "$D/pipeline_stages.csv")" "stage 0 compute"
is 12000.000 "$(awk -F, '$1 == "pipe2" && $4 == 1 { print $12 }' "$D/pipeline_stages.csv")" "stage 1 compute"

# Measured, the job's step (from the earliest first kernel of a step on
# any rank, rank 0's f0a at o+10, to the next step's; the last step to
# its latest end, rank 0's synchronize at o+18340): 25000, 25000 and
# 18340 - 10 = 18330 us, mean 22776.667. The unchanged graph replays
# them exactly (the rows of replay_steps, each rank alone, too).
is 22776.667 "$(row "$D/replay_fixes.csv" pipeline_balance step_us)" "the replayed step"

# Balanced: every stage computes the mean, 9000 us: stage 0's kernels x
# 9000 / 6000 = 1.5 (F 1500, B 3000), stage 1's x 9000 / 12000 = 0.75
# (F 1500, B 3000); sends, receives and the hosts as measured. Relative
# to o: rank 0 f0a 10-1510, send a from 1510; rank 1's recv a from 3010:
# the transfer 3010-3110; rank 1 f1a 3110-4610, recv b from 4610. Rank 0
# f0b waits for its host: launched at 5020, 5030-6530; send b 6530-6630;
# rank 1 f1b 6630-8130, b1a 8130-11130, send ga 11130-11230 (rank 0's
# recv ga waits from 6630); rank 0 b0a 11230-14230, recv gb from 14230;
# rank 1 b1b 11230-14230, send gb 14230-14330; rank 0 b0b 14330-17330,
# its synchronize ends 17340 (rank 1's at 14340). The host work after
# each synchronize (the covering aten::add, then rank 1's 3000 us
# before its first launch) is as measured: rank 0 launches the next step
# at 17340 + (25000 - 18340) = 24000, its f0a from 24010; rank 1 at
# 14340 + (25000 - 16340) + 3000 = 26000, later. Each later step repeats
# rank 0's times from its start (rank 1's recv a, posted 1000 us earlier
# relative to it, still waits for rank 0's send a). Steps 24000, 24000,
# 17340 - 10 = 17330: the saving is 1000 us every step. The critical
# path runs through rank 0's host (its 5000 us operator) to f0b, then
# f0b, f1b, b1a, b1b, b0b and three transfers: 1000 + 2000 + 4000 + 4000
# + 2000 + 300 measured against 1500 + 1500 + 3000 + 3000 + 3000 + 300
# balanced, 13300 - 12300 = 1000.
is 1000.000 "$(row "$D/replay_fixes.csv" pipeline_balance saving_us_per_step)" "the balanced replay's saving"
is 1000.000 "$(row "$D/replay_fixes.csv" pipeline_balance saving_min_us)" "the smallest step's saving"
is 1000.000 "$(row "$D/replay_fixes.csv" pipeline_balance saving_max_us)" "the largest step's saving"
is 21776.667 "$(row "$D/replay_fixes.csv" pipeline_balance step_without_us)" "the balanced step"
# noise: the savings do not spread, so 1 % of the step, 227.767 us: stated.
is 1 "$(row "$D/replay_fixes.csv" pipeline_balance stated)" "stated"
# The formula, (m - 1) / m x (12000 - 9000) = 1500 us, counts stage 1's
# compute as if it alone set the step; the finding states the replay's
# 1000 and names the formula's beside it.
F=$D/findings.csv
grep -F 'pipeline-bubble' "$F" > "$T/fp"
[ "$(wc -l < "$T/fp")" -eq 1 ] && ok || bad "want one pipeline-bubble finding, got $(wc -l < "$T/fp")"
grep -q '^pipe2,1,.*,1000\.000$' "$T/fp" && ok || bad "the finding's price is not the replay's 1000 us: $(cat "$T/fp")"
grep -qF 'pipeline stage 1 of 2 (rank 1) computes 1.33x the mean of the stages' "$T/fp" &&
	grep -qF 'the step would take 1.00 ms less than its 22.78 ms' "$T/fp" &&
	grep -qF 'would say 1.50 ms' "$T/fp" && ok || bad "the finding's words: $(cat "$T/fp")"
finish
