#!/bin/bash
# t_ranks.sh: a run of many ranks draws per-rank figures for the ranks that
# matter only (rank 0, the most, the median and the least GPU time), says
# so in a note, and keeps every rank in kernels.csv. Peak memory and time
# are printed, not asserted.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }
python3 tests/data/make_ranks.py 12 "$T/r12/run"
/usr/bin/time -f '%e s %M KB' -o "$T/time" $PERFSTUDY build -q "$T/r12/run" -o "$T/o" 2> "$T/err" && ok || bad "12-rank build: $(cat "$T/err")"
echo "  12 thin ranks: $(cat "$T/time" 2>/dev/null)"
# Every rank has the same GPU time here (ties broken by rank): least = rank 0,
# median = rank 6 (the 7th of 12), most = rank 11: three figures.
n=$(ls "$T/o/default/figures" | grep -c '^top_kernels_run_r[0-9]*\.svg$')
[ "$n" -eq 3 ] && ok || bad "12 ranks: $n top-kernel figures, want 3 (ranks 0 = least, 6 median, 11 most)"
for r in 0 6 11; do
	[ -s "$T/o/default/figures/top_kernels_run_r$r.svg" ] && ok || bad "no top-kernel figure for rank $r"
done
grep -q 'Run run has 12 ranks: top-kernel figures are drawn for rank 0 and the ranks with the most' "$T/o/default/index.html" && ok ||
	bad "no note on the ranks drawn"
[ "$(cut -d, -f2 "$T/o/default/data/kernels.csv" | sort -u | grep -c '^[0-9]')" -eq 12 ] && ok || bad "kernels.csv lost ranks"
# Eight ranks or fewer: every rank drawn, as before.
python3 tests/data/make_ranks.py 4 "$T/r4/run"
$PERFSTUDY build -q "$T/r4/run" -o "$T/o4" 2> "$T/err" || bad "4-rank build: $(cat "$T/err")"
[ "$(ls "$T/o4/default/figures" | grep -c '^top_kernels_run_r[0-9]*\.svg$')" -eq 4 ] && ok || bad "4 ranks: not every rank drawn"
finish
