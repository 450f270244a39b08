#!/bin/bash
# t_replay_p2p.sh: a pipeline's stages replayed together, their sends and
# receives joined by peer (src/analyze/replay/replay_joint.c, issue #52).
#
# tests/data/replay/make_replay_p2p.py: three stages (ranks 0, 1, 2), one
# micro-batch forward and back; the middle stage sends and receives to two
# peers, the end stages to one, so the ranks' collective counts differ
# (2, 4, 2) and an order-only join cannot pair them. Steps and savings are
# worked out by hand below from the model's definitions (replay.h,
# replay_sim.c's header, replay_joint.c's): no training log, host factor 1.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

replay_site make_replay_p2p replay_steps.csv pipe3

# field FILE RANK STEP COL: the value of COL in pipe3's row of RANK and STEP (STEP '' for a file without steps).
field() {
	python3 - "$@" << 'PY'
import csv, sys
f, rank, step, c = sys.argv[1:]
for r in csv.DictReader(open(f)):
    if r["run"] == "pipe3" and r["rank"] == rank and r.get("step", "") == step:
        print(r[c]); break
PY
}
# col FILE STEP COL: the value of COL in whatif.csv's row of step STEP.
col() {
	python3 - "$@" << 'PY'
import csv, sys
f, step, c = sys.argv[1:]
for r in csv.DictReader(open(f)):
    if r["step"] == step:
        print(r[c]); break
PY
}

# Measured, each rank alone (times us, relative to the step's o; a step
# from the rank's first kernel at o+10 to the next step's, the last to its
# synchronize's end, its last kernel's end + 10): rank 0's step 1 is 10000,
# step 2 9420 - 10 = 9410; rank 1's last kernel (send->0) ends at 7410:
# step 2 7410; rank 2's (send->1) at 5310: step 2 5310. The unchanged
# graph replays each exactly.
for rs in "0 1 10000.000" "0 2 9410.000" "1 1 10000.000" "1 2 7410.000" "2 1 10000.000" "2 2 5310.000"; do
	set -- $rs
	is "$3" "$(field "$D/replay_steps.csv" "$1" "$2" measured_us)" "rank $1 step $2 measured"
	is "$3" "$(field "$D/replay_steps.csv" "$1" "$2" replayed_us)" "rank $1 step $2 replayed"
	is 0 "$(field "$D/replay_steps.csv" "$1" "$2" error)" "rank $1 step $2 error"
done
# The ranks are replayed together (their sends and receives paired by peer).
for r in 0 1 2; do
	is "replayed with the run's other ranks, their collectives joined: the run's row" \
		"$(field "$D/replay_calibration.csv" "$r" "" basis)" "rank $r replayed with the others"
done

# wi NAME CHANGE: perfstudy whatif on pipe3 into $T/NAME.csv; its exit status.
wi() { $PERFSTUDY whatif "$T/site" pipe3 "$2" -o "$T/$1.csv" > "$T/$1.out" 2> "$T/$1.err"; }
# steps NAME W1 W2 WHY: whatif of steps 1 and 2, the measured and replayed job's steps 10000 and 9410.
steps() {
	local f=$T/$1.csv
	is 10000.000 "$(col "$f" 1 measured_us)" "$4: step 1 measured"
	is 10000.000 "$(col "$f" 1 replayed_us)" "$4: step 1 replayed"
	is "$2" "$(col "$f" 1 whatif_us)" "$4: step 1 whatif"
	is 9410.000 "$(col "$f" 2 measured_us)" "$4: step 2 measured"
	is 9410.000 "$(col "$f" 2 replayed_us)" "$4: step 2 replayed"
	is "$3" "$(col "$f" 2 whatif_us)" "$4: step 2 whatif"
}

# The job's step, joined: from the earliest start of a step on any rank
# (o+10) to the earliest of the next; the last to the latest end (rank
# 0's synchronize at o+9420): 10000 and 19420 - 10010 = 9410. Each send
# and its recv are one group of two: its transfer starts at the later
# start (the send's) and takes the median over the two of (end - that
# start) = 100, so the unchanged replay is the measured one.
wi same host=1 && ok || bad "host=1: $(cat "$T/same.err")"
steps same 10000.000 9410.000 "host=1"
is "run pipe3: 9.7 ms -> 9.7 ms per step (+0.0 ms, +0.0 %), replayed over 2 steps (3 ranks together, host factor 1, no training log)" \
	"$(cat "$T/same.out")" "host=1: the three stages together"

# kernels:fwd_s0=0.5 (stage 0): fwd_s0 10-510, send->1 510-610, which
# ends rank 1's recv<-0 at 610 (joined); fwd_s1 610-1610, send->2
# 1610-1710 ends rank 2's recv<-1; fwd_s2 1710-2710, bwd_s2 2710-4710,
# send->1 4710-4810 ends rank 1's recv<-2; bwd_s1 4810-6810, send->0
# 6810-6910 ends rank 0's recv<-1; bwd_s0 6910-8910, its synchronize at
# 8920. Every synchronize returns 500 earlier and each rank's next launch
# follows after its unchanged covered host time: step 2 starts at 9510 on
# every rank. Steps 9510 - 10 = 9500 and 9500 + 8920 - 9510 = 8910. Alone
# (before the join by peer) the other stages kept their measured recv
# waits, and step 1 stayed at the slowest rank's 10000.
wi s0 'kernels:fwd_s0=0.5' && ok || bad "kernels:fwd_s0=0.5: $(cat "$T/s0.err")"
steps s0 9500.000 8910.000 "kernels:fwd_s0=0.5"
# kernels:fwd_s1=0.5 (the middle stage): fwd_s1 1110-1610, send->2
# 1610-1710, and from there as above: bwd_s0 ends at 8910, steps 9500 and
# 8910. Alone it saved nothing (stage 0 kept its measured recv).
wi s1 'kernels:fwd_s1=0.5' && ok || bad "kernels:fwd_s1=0.5: $(cat "$T/s1.err")"
steps s1 9500.000 8910.000 "kernels:fwd_s1=0.5"
is 500.000 "$(col "$T/s1.csv" mean saving_us)" "kernels:fwd_s1=0.5: the mean saving"
finish
