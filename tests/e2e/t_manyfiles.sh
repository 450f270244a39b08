#!/bin/bash
# t_manyfiles.sh: a directory of many tiny traces, each one rank with one
# kernel (issue 30: 100,000 of them were stopped at 590 s). Scans of every
# trace per trace (the device notes of basic_runs.c), of every rank per step
# (critical_path), of a table per note (the page's left-out tables) and a
# statement prepared per rank made it quadratic: 10,000 ranks took 20 s of
# CPU, now about 6 s (docs/performance.md). 20,000 ranks
# (tests/data/make_one_kernel.py) must build, with every rank in the CSVs
# and the numbers Python finds in the raw files. CPU time and peak RSS are
# printed, never asserted; `ulimit -t 300` only stops a quadratic return
# (this takes about 12 s of CPU).
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { skipped "python3 not installed"; finish; exit; }

N=20000
P=$(cd "$(dirname "$PERFSTUDY")" && pwd)/$(basename "$PERFSTUDY")
python3 tests/data/make_one_kernel.py $N "$T/run"
timed=; [ -x /usr/bin/time ] && timed="/usr/bin/time -f %U_s_user,_%S_s_system_CPU,_peak_RSS_%M_KB -o $T/cpu"
echo "(no GNU time)" >"$T/cpu"
$timed bash -c 'ulimit -t 300; exec "$0" build -q "$1" -o "$2"' "$P" "$T/run" "$T/o" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] && ok || bad "$N one-kernel ranks: exit $rc, want 0: $(head -c 300 "$T/err")"
echo "$N one-kernel ranks: $(tail -n 1 "$T/cpu" | tr _ ' ')"
D=$T/o/default/data

# What the raw files hold, by Python alone: per rank (distributedInfo), its
# kernels' summed duration, its ProfilerStep's, and the GPU idle time inside
# the step (the step's range less the kernels' union within it), in us.
python3 - "$T/run" "$T" <<'EOF'
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
rows = []
for f in os.listdir(src):
    d = json.load(open(os.path.join(src, f)))
    r = d["distributedInfo"]["rank"]
    ks = [(e["ts"], e["ts"] + e["dur"]) for e in d["traceEvents"] if e.get("cat") == "kernel"]
    st = [(e["ts"], e["ts"] + e["dur"]) for e in d["traceEvents"] if e.get("name", "").startswith("ProfilerStep#")]
    assert len(st) == 1
    s0, s1 = st[0]
    busy, end = 0, s0
    for a, b in sorted(ks):
        a, b = max(a, end, s0), min(b, s1)
        if b > a:
            busy += b - a
            end = b
    rows.append((r, sum(b - a for a, b in ks), s1 - s0, s1 - s0 - busy, os.path.join(src, f)))
rows.sort()
with open(out + "/want_kernels", "w") as w:
    for r, k, s, i, p in rows:
        w.write("%d,%d.000\n" % (r, k))
with open(out + "/want_idle", "w") as w:
    for r, k, s, i, p in rows:
        w.write("%d,%d.000,%d.000\n" % (r, s, i))
with open(out + "/want_files", "w") as w:
    for p in sorted(p for r, k, s, i, p in rows):
        w.write(p + "\n")
with open(out + "/want_sum", "w") as w:
    w.write("%d.000\n" % sum(k for r, k, s, i, p in rows))
with open(out + "/want_step", "w") as w:
    w.write("%d.000\n" % (sum(s for r, k, s, i, p in rows) // len(rows)))
EOF

# runs.csv: one run of N ranks and N kernels, the mean step the generator's
n=$(($(wc -l <"$D/kernels.csv") - 1))
[ "$n" -eq $N ] && ok || bad "kernels.csv has $n rows, want $N"
echo "$N,$N" >"$T/want"
awk -F, 'NR > 1 { print $4 "," $9 }' "$D/runs.csv" >"$T/got"
same "$T/want" "$T/got" "runs.csv ranks and kernels"
awk -F, 'NR > 1 { print $10 }' "$D/runs.csv" >"$T/got"
same "$T/want_step" "$T/got" "runs.csv mean_step_us"
# kernels.csv: each rank's one kernel, its duration; and their sum
awk -F, 'NR > 1 { print $2 "," $6 }' "$D/kernels.csv" | sort -t, -k1,1n >"$T/got"
same "$T/want_kernels" "$T/got" "kernels.csv rank and total_us"
awk -F, 'NR > 1 { split($6, p, "."); s += p[1] } END { print s ".000" }' "$D/kernels.csv" >"$T/got"
same "$T/want_sum" "$T/got" "total kernel time"
# ranks.csv: each rank's step and the GPU idle time inside it
awk -F, 'NR > 1 { print $3 "," $4 "," $5 }' "$D/ranks.csv" | sort -t, -k1,1n >"$T/got"
same "$T/want_idle" "$T/got" "ranks.csv step_us and idle_us"
# rank_devices.csv: every file once
awk -F, 'NR > 1 { print $5 }' "$D/rank_devices.csv" | sort >"$T/got"
sort "$T/want_files" >"$T/want"
same "$T/want" "$T/got" "rank_devices.csv files"
n=$(($(wc -l <"$D/steps.csv") - 1))
[ "$n" -eq $N ] && ok || bad "steps.csv has $n rows, want $N"
# Top-kernel figures for the ranks that matter only (rank_spread.c, t_ranks.sh).
# Every rank's one step lasts 200 us with no collective, so every own time
# ties: by position (ties to the lower rank) the fastest is rank 0, the
# median rank N/2 (position floor(N/2) + 1), the slowest rank N-1, and no
# rank lies beyond the fences of a zero IQR.
printf 'top_kernels_run_r%d.svg\n' 0 $((N / 2)) $((N - 1)) | sort >"$T/want_figs"
ls "$T/o/default/figures" | grep '^top_kernels_run_r[0-9]*\.svg$' | sort >"$T/got_figs"
same "$T/want_figs" "$T/got_figs" "top-kernel figures of $N ranks"
grep -q "Run run has $N ranks: per-rank figures are drawn for the fastest, the median and the slowest rank" \
	"$T/o/default/index.html" && ok || bad "no note on the ranks drawn"
echo "$N one-kernel ranks: index.html $(stat -c %s "$T/o/default/index.html") bytes"
finish
