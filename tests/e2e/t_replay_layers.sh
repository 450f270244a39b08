#!/bin/bash
# t_replay_layers.sh: the pipeline-bubble fix priced as a move of whole
# layers (replay_fixes.csv pipeline_balance, src/analyze/replay/
# replay_layers.c and replay_run.c; issue #52): each stage's layers found
# in its trace, the best split by whole layers, replayed.
#
# tests/data/replay/make_replay_layers.py: two stages, GPipe, m = 2
# micro-batches a and b. A layer's forward is lyr_qkv (150 us) then
# lyr_mlp (50 us), 200 us. Per micro-batch, stage 0 (rank 0): emb 100 +
# 3 layers 600 = 700 us forward, one backward kernel of 1300 (2 x 600 +
# 100); stage 1 (rank 1): 5 layers 1000 + head 400 = 1400 forward, one
# backward kernel of 2600 (2 x 1000 + 600). Rank 1's host works 1000 us
# (an operator) before its launches. The generator's docstring gives
# every kernel's times; a send and its recv end 100 us after the later of
# their starts. Worked out by hand below.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

replay_site make_replay_layers replay_fixes.csv layers2

# The stages' compute per step: stage 0 2 x (700 + 1300) = 4000 us,
# stage 1 2 x (1400 + 2600) = 8000; mean 6000, imbalance 1.33 > 1.10.
is 4000.000 "$(awk -F, '$1 == "layers2" && $4 == 0 { print $12 }' "$D/pipeline_stages.csv")" "stage 0 compute"
is 8000.000 "$(awk -F, '$1 == "layers2" && $4 == 1 { print $12 }' "$D/pipeline_stages.csv")" "stage 1 compute"

# The layers. Stage 0's compute kernels of a step by name: emb, then
# (lyr_qkv, lyr_mlp) 3 times, again for b, then bwd0 twice. No kernel
# repeats in each micro-batch (bwd0's run of 2 is one run, not m = 2:
# the micro-batches'), the pair (lyr_qkv, lyr_mlp) runs 3 times in a row
# once in each micro-batch and covers 2 x 600 / 4000 = 30 % >= 3 %: L0 =
# 3; stage 1's pair 5 times: L1 = 5. A layer per step: 3 x its forward
# (backward twice the forward) x 2 micro-batches = 3 x 200 x 2 = 1200 us
# on both stages (the share 3 x 1200 / 4000 of 4000 us; 3 x 2000 / 8000
# / 5 of 8000); outside the layers stage 0 keeps 4000 - 3 x 1200 = 400
# us (emb), stage 1 8000 - 5 x 1200 = 2000 (head, loss).
# The split of the 8 layers: stage 0 400 + 1200 n0, stage 1 2000 + 1200
# n1: 3+5 4000 / 8000, 4+4 5200 / 6800, 5+3 6400 / 5600, 6+2 7600 /
# 4400: 5+3 is the least slowest stage, 6400 us: move 2 layers from
# stage 1 to stage 0. Stage 1 then computes 5600 us.
W=$(row "$D/replay_fixes.csv" pipeline_balance where)
case "$W" in
"move 2 layers from stage 1 to stage 0: 3+5 -> 5+3: "*) ok ;;
*) bad "the move: $W" ;;
esac
for s in "stage 0 has 3 layers of 1.20 ms and 0.40 ms outside them" \
	"stage 1 has 5 layers of 1.20 ms and 2.00 ms outside them" "8.00 ms per step" "5.60 ms after the move"; do
	case "$W" in *"$s"*) ok ;; *) bad "the where lacks '$s': $W" ;; esac
done

# Measured, the job's step (from the earliest first kernel of a step on
# any rank, rank 0's emb at o+10, to the next step's; the last step to
# its latest end, rank 0's synchronize at o+10720): 15000, 15000 and
# 10710, mean 13570.
is 13570.000 "$(row "$D/replay_fixes.csv" pipeline_balance step_us)" "the replayed step"

# After the move, stage 0's kernels x 6400 / 4000 = 1.6 (forward 1120,
# backward 2080), stage 1's x 5600 / 8000 = 0.7 (forward 980, backward
# 1820). Relative to o: rank 0 forward a 10-1130; send a 1130-1230 (rank
# 1's recv waits from 1010); forward b 1230-2350, send b from 2350; rank 1
# forward a 1230-2210, recv b from 2210: transfer 2350-2450; forward b
# 2450-3430, bwd1 a 3430-5250, send ga 5250-5350 (rank 0's recv from
# 2450); rank 0 bwd0 a 5350-7430, recv gb from 7430; rank 1 bwd1 b
# 5350-7170, send gb from 7170: transfer 7430-7530; rank 0 bwd0 b
# 7530-9610, its synchronize ends 9620, rank 1's 7540. The host after
# them as measured: rank 0 launches the next step at 9620 + (15000 -
# 10720) = 13900 (emb from 13910); rank 1 at 7540 + (15000 - 9420) + its
# 1000 us operator = 14120 (recv from 14130, before rank 0's send: the
# same times relative to rank 0's step). Steps 13900, 13900 and 9620 -
# 10 = 9610: 1100 us less each, mean 12470.
is 1100.000 "$(row "$D/replay_fixes.csv" pipeline_balance saving_us_per_step)" "the move's saving"
is 1100.000 "$(row "$D/replay_fixes.csv" pipeline_balance saving_min_us)" "the smallest step's saving"
is 1100.000 "$(row "$D/replay_fixes.csv" pipeline_balance saving_max_us)" "the largest step's saving"
is 12470.000 "$(row "$D/replay_fixes.csv" pipeline_balance step_without_us)" "the step after the move"
is 1 "$(row "$D/replay_fixes.csv" pipeline_balance stated)" "stated"

# The bound, every stage at the mean 6000 (x 1.5 and x 0.75: forward
# 1050 and backward 1950 on both): rank 0 forward a 10-1060, transfer
# 1060-1160, forward b 1160-2210; rank 1 forward a 1160-2210, transfer b
# 2210-2310, forward b 2310-3360, bwd1 a 3360-5310, transfer ga
# 5310-5410; rank 0 bwd0 a 5410-7360, rank 1 bwd1 b 5410-7360, transfer
# gb 7360-7460, rank 0 bwd0 b 7460-9410, synchronize 9420: next step
# 9420 + 4280 = 13700 (rank 1's recv at 7470 + 5580 + 1010 = 14060):
# 13700, 13700, 9400, 1300 us less each.
case "$W" in *"every stage at the mean, the most moving layers could give, would save 1.30 ms"*) ok ;;
*) bad "the bound: $W" ;; esac

# The finding names the move and states the replay's price.
F=$D/findings.csv
grep -F 'pipeline-bubble' "$F" > "$T/fp"
[ "$(wc -l < "$T/fp")" -eq 1 ] && ok || bad "want one pipeline-bubble finding, got $(wc -l < "$T/fp")"
grep -q '^layers2,1,.*,1100\.000$' "$T/fp" && ok || bad "the finding's price is not the replay's 1100 us: $(cat "$T/fp")"
grep -qF 'move 2 layers from stage 1 to stage 0: 3+5 -> 5+3' "$T/fp" &&
	grep -qF 'the step would take 1.10 ms less than its 13.57 ms' "$T/fp" && ok || bad "the finding's words: $(cat "$T/fp")"

# Stage 0 of one layer (make_replay_layers.py OUT 1 5): its compute
# kernels of a step are emb, lyr_qkv, lyr_mlp twice in a row (the two
# micro-batches' forwards; the send between them is communication), then
# bwd0 twice: each block repeats in one run only, not once in each of the
# m = 2 micro-batches, so no layer is found (the micro-batches' repeat is
# not a layer) and the row keeps the stages' mean, saying why.
python3 tests/data/replay/make_replay_layers.py "$T/rp" 1 5
$PERFSTUDY build -q "$T/rp/layers1x5" -o "$T/site1" 2> "$T/err" && ok || bad "build 1x5 failed: $(cat "$T/err")"
W=$(row "$(find "$T/site1" -name replay_fixes.csv | head -1)" pipeline_balance where)
case "$W" in
"stage 1 of 2 (rank 1) computes 8.00 ms per step"*"every other stage's at its own mean over its compute"*"(layers not found: stage 0 (rank 0): its compute kernels have no block that repeats in each of its micro-batches)") ok ;;
*) bad "one layer: $W" ;;
esac
finish
