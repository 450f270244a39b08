#!/bin/bash
# t_ranks.sh: a run of many ranks gets one distribution over all its ranks
# (rank_spread.csv, figure rank_spread_<run>) and per-rank figures for the
# ranks that matter only (the fastest, the median, the slowest by own time,
# and the outliers beyond 1.5 IQR: src/analyze/ranks/rank_spread.c), says so in a
# note, and keeps every rank in kernels.csv. The expected table comes from
# the generator's parameters (tests/data/make_ranks.py's docstring: own time
# 1000 + x us, wait M - x, step 1000 + M), never from perfstudy. Peak memory
# and time are printed, not asserted.
. "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

# 32 synchronous ranks, 6 steps: rank r does r % 5 us extra every step,
# rank 5 300 us more and rank 17 120 us more (so 5 is the slowest, and the
# last to arrive in every step: M = 300), rank 9 40 us more in steps 0, 2, 4
# and rank 11 60 us more in steps 1, 3, 5 (an even count of steps: their
# medians are means of two middle values).
ARGS="--base 5 --slow 5=300 --slow 17=120 --turns 9=40,11=60"
python3 tests/data/make_ranks.py 32 "$T/r32/run" 6 $ARGS
/usr/bin/time -f '%e s %M KB' -o "$T/time" $PERFSTUDY build -q "$T/r32/run" -o "$T/o" 2> "$T/err" && ok || bad "32-rank build: $(cat "$T/err")"
echo "  32 thin ranks: $(cat "$T/time" 2>/dev/null)"

# The expected rank_spread.csv, from the parameters alone.
python3 - "$T/want.csv" "$T/want_drawn" <<'EOF'
import statistics, sys
n, steps = 32, 6
slow = {5: 300, 17: 120}
turns = [(9, 40), (11, 60)]
def x(r, s):
    v = r % 5 + slow.get(r, 0)
    if turns[s % len(turns)][0] == r:
        v += turns[s % len(turns)][1]
    return v
def med(v):  # us; the mean of two middle values is exact here (integers in us)
    return statistics.median(v)
rows = []
for r in range(n):
    st, wt, ow = [], [], []
    for s in range(steps):
        m = max(x(q, s) for q in range(n))
        st.append(1000 + m); wt.append(m - x(r, s)); ow.append(1000 + x(r, s))
    rows.append((med(ow), r, med(st), med(wt)))
rows.sort()
own = [o for o, _, _, _ in rows]
q1, _, q3 = statistics.quantiles(own, n=4, method="inclusive")
lo, hi = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
role = {}
for o, r, _, _ in rows:
    if o < lo or o > hi:
        role[r] = "outlier"
own_of = {r: o for o, r, _, _ in rows}
# drawn first: farthest beyond its fence, ties the lower rank
outl = sorted(role, key=lambda r: (-max(lo - own_of[r], own_of[r] - hi), r))
fast, medr, slowest = rows[0][1], rows[n // 2][1], rows[-1][1]
drawn = {fast, medr, slowest} | set([r for r in outl if r not in (fast, medr, slowest)][:8])
role[medr] = "median"; role[fast] = "fastest"; role[slowest] = "slowest"
with open(sys.argv[1], "w") as f:
    f.write("run,rank,steps,step_median_us,exposed_wait_median_us,own_median_us,position,role,drawn\n")
    for i, (o, r, st, wt) in enumerate(rows):
        f.write("run,%d,%d,%.3f,%.3f,%.3f,%d,%s,%d\n" % (r, steps, st, wt, o, i + 1, role.get(r, ""), r in drawn))
with open(sys.argv[2], "w") as f:
    f.write("".join("top_kernels_run_r%d.svg\n" % r for r in sorted(drawn)))
EOF
same "$T/want.csv" "$T/o/default/data/rank_spread.csv" "rank_spread.csv of 32 ranks"
# By hand: rank 5 (own 1300 us) is the slowest, rank 0 (1000, the lowest of
# the ties) the fastest; rank 17 (1122) an outlier. The generator's answer
# must say so too, or the script above is wrong.
grep -q '^run,5,.*,32,slowest,1$' "$T/want.csv" && grep -q '^run,0,.*,1,fastest,1$' "$T/want.csv" &&
	grep -q '^run,17,.*,outlier,1$' "$T/want.csv" && ok || bad "the expected table lost its planted ranks"
ls "$T/o/default/figures" | grep '^top_kernels_run_r[0-9]*\.svg$' | sort > "$T/got_drawn"
sort "$T/want_drawn" -o "$T/want_drawn"
same "$T/want_drawn" "$T/got_drawn" "top-kernel figures of 32 ranks"
# The figures with a bar per rank keep the same ranks (figure_ranks.c), and say so.
sed 's/^top_kernels_run_r\([0-9]*\)\.svg$/\1/' "$T/want_drawn" | sort -n > "$T/want_ranks"
nfig=0
for f in step_breakdown temporal_breakdown group_fractions dispatch memops critical_path rank_waits; do
	svg=$T/o/default/figures/$f.svg
	[ -f "$svg" ] || continue
	nfig=$((nfig + 1))
	grep -o '<title>run r[0-9]*, ' "$svg" | sed 's/<title>run r\([0-9]*\), /\1/' | sort -nu > "$T/got_ranks"
	same "$T/want_ranks" "$T/got_ranks" "ranks with a bar in $f"
	grep -q "$((32 - $(wc -l < "$T/want_ranks"))) ranks left out here are in the CSV" \
		"$T/o/default/figures/$f.tex" && ok || bad "$f's caption does not say how many ranks it leaves out"
done
echo "  $nfig figures with a bar per rank checked"
[ $nfig -ge 5 ] && ok || bad "only $nfig figures with a bar per rank found"
[ -s "$T/o/default/figures/rank_spread_run.svg" ] && ok || bad "no rank_spread figure"
# Every rank is a point with its tooltip; only the chosen ones are named.
[ "$(grep -c '<title>rank [0-9]*[^<]*, own time' "$T/o/default/figures/rank_spread_run.svg")" -eq 32 ] && ok ||
	bad "rank_spread: not one own-time point per rank"
grep -q '<title>rank 5, slowest, own time' "$T/o/default/figures/rank_spread_run.svg" && ok || bad "rank 5 not named slowest in the figure"
grep -q 'Run run has 32 ranks: [^<]*fastest, the median and the slowest rank by median own time' \
	"$T/o/default/index.html" && ok || bad "no note on the ranks drawn"
grep -q 'Tukey' "$T/o/default/index.html" && ok || bad "the rule is not in Methods"
[ "$(cut -d, -f2 "$T/o/default/data/kernels.csv" | sort -u | grep -c '^[0-9]')" -eq 32 ] && ok || bad "kernels.csv lost ranks"
# The generator records no host operators: step_breakdown.csv's note says so
# of every rank, shown once with the other 31 ranks (report.c, set_notes).
[ "$(grep -o 'step_breakdown.csv: run run rank [0-9]* records no host operators' "$T/o/default/index.html" | wc -l)" -eq 1 ] &&
	grep -q 'step_breakdown.csv: run run rank 0 records no host operators[^<]*(likewise 31 more ranks: 1-31)' "$T/o/default/index.html" &&
	ok || bad "the 32 ranks' step_breakdown notes are not one note"

# 12 thin ranks of the jittered kind: one figure per chosen rank, as rank_spread.csv says.
python3 tests/data/make_ranks.py 12 "$T/r12/run" 5
$PERFSTUDY build -q "$T/r12/run" -o "$T/o12" 2> "$T/err" || bad "12-rank build: $(cat "$T/err")"
want=$(awk -F, 'NR > 1 && $9 == 1 { print "top_kernels_run_r" $2 ".svg" }' "$T/o12/default/data/rank_spread.csv" | sort)
got=$(ls "$T/o12/default/figures" | grep '^top_kernels_run_r[0-9]*\.svg$' | sort)
[ -n "$want" ] && [ "$want" = "$got" ] && ok || bad "12 ranks: figures '$got', rank_spread.csv says '$want'"
[ "$(awk -F, 'NR > 1' "$T/o12/default/data/rank_spread.csv" | wc -l)" -eq 12 ] && ok || bad "12 ranks: not one row per rank"

# Eight ranks or fewer: every rank drawn, as before, and no distribution figure.
python3 tests/data/make_ranks.py 4 "$T/r4/run"
$PERFSTUDY build -q "$T/r4/run" -o "$T/o4" 2> "$T/err" || bad "4-rank build: $(cat "$T/err")"
[ "$(ls "$T/o4/default/figures" | grep -c '^top_kernels_run_r[0-9]*\.svg$')" -eq 4 ] && ok || bad "4 ranks: not every rank drawn"
[ ! -e "$T/o4/default/figures/rank_spread_run.svg" ] && ok || bad "4 ranks: a distribution figure"
finish
