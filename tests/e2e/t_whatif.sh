#!/bin/bash
# t_whatif.sh: perfstudy whatif SITE RUN CHANGE... (issue #52 item 6), on
# hand-made traces whose steps under each change are worked out below from
# the replay's definitions (src/analyze/replay/replay.h, whatif.h):
# tests/data/whatif/make_whatif.py (gpu, pair, split, loader, nosteps) and
# tests/data/replay/make_replay.py (shown, as t_replay.sh works it out).
# None of them has a training log: the host factor is 1, and the unchanged
# replay reproduces the measured step. Then the error paths: a CHANGE
# outside the grammar, an unknown run, an output that is the store, a site
# without a store, a store with a foreign view; none leaves a whatif.csv.
source "$(dirname "$0")/lib.sh"
command -v python3 > /dev/null || { skipped "python3 not installed"; finish; exit; }

python3 tests/data/whatif/make_whatif.py "$T/wi"
python3 tests/data/replay/make_replay.py "$T/wi"
$PERFSTUDY build -q "$T/wi/gpu" "$T/wi/pair" "$T/wi/split" "$T/wi/loader" "$T/wi/nosteps" "$T/wi/shown" "$T/wi/roof" \
	-o "$T/site" 2> "$T/err" &&
	ok || bad "build failed: $(cat "$T/err")"

# col FILE STEP COL: the value of COL in the row of step STEP (a number or 'mean').
col() {
	python3 - "$@" << 'PY'
import csv, sys
f, step, c = sys.argv[1:]
for r in csv.DictReader(open(f)):
    if r["step"] == step:
        print(r[c]); break
PY
}
# wi NAME RUN CHANGE...: runs whatif into $T/NAME.csv; its exit status.
wi() {
	local name=$1
	shift
	$PERFSTUDY whatif "$T/site" "$@" -o "$T/$name.csv" > "$T/$name.out" 2> "$T/$name.err"
}
# steps NAME M1 R1 W1 M2 R2 W2 WHY: measured, replayed and whatif of steps 1 and 2, and the mean row's.
steps() {
	local f=$T/$1.csv why=$8
	is "$2" "$(col "$f" 1 measured_us)" "$why: step 1 measured"
	is "$3" "$(col "$f" 1 replayed_us)" "$why: step 1 replayed"
	is "$4" "$(col "$f" 1 whatif_us)" "$why: step 1 whatif"
	is "$5" "$(col "$f" 2 measured_us)" "$why: step 2 measured"
	is "$6" "$(col "$f" 2 replayed_us)" "$why: step 2 replayed"
	is "$7" "$(col "$f" 2 whatif_us)" "$why: step 2 whatif"
	local want
	want=$(python3 -c "import sys; a = [float(x) for x in sys.argv[1:]]; print('%.3f' % ((a[0] - a[1] + a[2] - a[3]) / 2))" "$3" "$4" "$6" "$7")
	is "$want" "$(col "$f" mean saving_us)" "$why: mean saving"
}

# gpu (make_whatif.py): step 1's kernels run back to back from 20:
# nvjet_gemm 20-4020, the all-reduce 4020-7020, elementwise 7020-9020;
# step 2's from 9020 to 18020, and its synchronize returns at 18030.
# Measured (the first kernel of a step to the next step's; the last step
# to its last call's end): 9020 - 20 = 9000 and 18030 - 9020 = 9010.
wi same gpu host=1 && ok || bad "gpu host=1: $(cat "$T/same.err")"
steps same 9000.000 9000.000 9000.000 9010.000 9010.000 9010.000 "gpu host=1 (no log: factor 1)"
is 1 "$(col "$T/same.csv" 1 host_factor)" "gpu: the host factor without a log"
is "run gpu: 9.0 ms -> 9.0 ms per step (+0.0 ms, +0.0 %), replayed over 2 steps (1 rank, host factor 1, no training log)" \
	"$(cat "$T/same.out")" "gpu host=1: the summary line"
# collectives=0.5: each all-reduce 1500 long. Step 1: 20-4020, 4020-5520,
# 5520-7520; step 2 from 7520: 7520-11520, -13020, -15020, the synchronize
# at 15030. Steps 7500 and 7510: 1500 saved in each.
wi coll gpu collectives=0.5 && ok || bad "gpu collectives=0.5: $(cat "$T/coll.err")"
steps coll 9000.000 9000.000 7500.000 9010.000 9010.000 7510.000 "gpu collectives=0.5"
is "run gpu: 9.0 ms -> 7.5 ms per step (-1.5 ms, -16.7 %), replayed over 2 steps (1 rank, host factor 1, no training log)" \
	"$(cat "$T/coll.out")" "gpu collectives=0.5: the summary line"
# kernels:nvjet*=0: the two nvjet_gemm kernels take no time. Step 1: the
# gemm at 20-20; the all-reduce is ready when its launch returns (30),
# 30-3030; elementwise 3030-5030; step 2's gemm 5030-5030, all-reduce
# 5030-8030, elementwise 8030-10030, synchronize 10040. Steps 5010, 5010.
wi nvjet gpu 'kernels:nvjet*=0' && ok || bad "gpu kernels:nvjet*=0: $(cat "$T/nvjet.err")"
steps nvjet 9000.000 9000.000 5010.000 9010.000 9010.000 5010.000 "gpu kernels:nvjet*=0"
# kernels:elementwise*=0: step 1 ends when its all-reduce does (7020),
# step 2's all-reduce ends at 14020, its synchronize returns at 14030:
# steps 7000 and 7010, exactly the 2000 of each elementwise kernel.
wi elem gpu 'kernels:elementwise*=0' && ok || bad "gpu kernels:elementwise*=0: $(cat "$T/elem.err")"
steps elem 9000.000 9000.000 7000.000 9010.000 9010.000 7010.000 "gpu kernels:elementwise*=0"
# Two changes apply together: the same arithmetic with both: step 1's
# kernels at 20-20 (gemm), 30-1530 (all-reduce), 1530-3530; step 2's gemm
# at 3530, all-reduce 3530-5030, elementwise 5030-7030, synchronize 7040.
wi both gpu 'kernels:nvjet*=0' collectives=0.5 && ok || bad "gpu two changes: $(cat "$T/both.err")"
steps both 9000.000 9000.000 3510.000 9010.000 9010.000 3510.000 "gpu kernels:nvjet*=0 collectives=0.5"
is "kernels:nvjet*=0 collectives=0.5" "$(col "$T/both.csv" mean change)" "the change column"

# roof: gpu with each nvjet_gemm inside an aten::mm of [8192, 8192] x [8192, 8192] bf16 on an H100 SXM
# (989.5 TFLOP/s bf16, 3.35 TB/s). By hand: 2 x 8192^3 = 1099511627776 FLOPs, 1111.179 us at the peak;
# 3 x 8192^2 x 2 = 402653184 bytes, 120.195 us at the bandwidth: the roofline is 1111.179 us a call.
# roofline:aten::mm=0.5: the mm at half its roofline, 1111.179 / 0.5 = 2222.358 us a call where it
# took 4000: each gemm 2222.358, 1777.642 saved in each step: 9000 - 1777.642 = 7222.358 and
# 9010 - 1777.642 = 7232.358. The all-reduce and elementwise kernels, no mm's, stay.
wi roof roof 'roofline:aten::mm=0.5' && ok || bad "roof roofline:aten::mm=0.5: $(cat "$T/roof.err")"
steps roof 9000.000 9000.000 7222.358 9010.000 9010.000 7232.358 "roof roofline:aten::mm=0.5"
is "run roof: 9.0 ms -> 7.2 ms per step (-1.8 ms, -19.7 %), replayed over 2 steps (1 rank, host factor 1, no training log)" \
	"$(cat "$T/roof.out")" "roof roofline:aten::mm=0.5: the summary line"
# roofline:aten::mm=0.25: a quarter of the roofline is 4444.716 us, slower than the 4000 measured:
# the mm keeps its time, nothing saved.
wi roofq roof 'roofline:aten::mm=0.25' && ok || bad "roof roofline:aten::mm=0.25: $(cat "$T/roofq.err")"
steps roofq 9000.000 9000.000 9000.000 9010.000 9010.000 9010.000 "roof roofline:aten::mm=0.25"
# A pattern no priced operator matches changes nothing, with a warning; the gpu run has no shapes.
wi roofn roof 'roofline:aten::bmm=1' && ok || bad "roof roofline:aten::bmm=1: $(cat "$T/roofn.err")"
grep -q "no operator of run 'roof' matching 'aten::bmm' has a roofline" "$T/roofn.err" && ok || bad "roofline: no warning: $(cat "$T/roofn.err")"
steps roofn 9000.000 9000.000 9000.000 9010.000 9010.000 9010.000 "roof roofline:aten::bmm=1"
wi roofg gpu 'roofline:*=1' && ok || bad "gpu roofline:*=1: $(cat "$T/roofg.err")"
grep -q "has a roofline" "$T/roofg.err" && ok || bad "roofline without shapes: no warning: $(cat "$T/roofg.err")"

# pair: two ranks replayed together, their all-reduces joined. Rank 1's
# gemm takes 6000 (20-6020): each all-reduce's transfer starts at 6020 and
# ends at 9020 on both ranks (3000 of transfer: the median over ranks of
# end - last start); elementwise 9020-11020; step 2 from 11020 (both
# ranks) to the synchronize's 22030. The job's step: 11000 and 11010.
wi pair pair host=1 && ok || bad "pair host=1: $(cat "$T/pair.err")"
steps pair 11000.000 11000.000 11000.000 11010.000 11010.000 11010.000 "pair host=1"
grep -q "(2 ranks together, host factor 1, no training log)" "$T/pair.out" && ok || bad "pair: $(cat "$T/pair.out")"
# rank=1:median: rank 1's gemm at rank 0's 4000 (the other ranks' median):
# both ranks start the all-reduce at 4020, it ends at 7020; elementwise
# 7020-9020, step 2 from 9020 to 18030: steps 9000 and 9010.
wi med pair rank=1:median && ok || bad "pair rank=1:median: $(cat "$T/med.err")"
steps med 11000.000 11000.000 9000.000 11010.000 11010.000 9010.000 "pair rank=1:median"
# collectives=0.5 joined: the transfer takes 1500, from the last rank's
# start: 6020-7520, elementwise 7520-9520; step 2's gemms from 9520, rank
# 1's ends at 15520, the all-reduce at 17020, elementwise 19020,
# synchronize 19030: steps 9500 and 9510.
wi pcoll pair collectives=0.5 && ok || bad "pair collectives=0.5: $(cat "$T/pcoll.err")"
steps pcoll 11000.000 11000.000 9500.000 11010.000 11010.000 9510.000 "pair collectives=0.5"

# split: two ranks whose collectives do not match (rank 1 has none), so
# each is replayed alone and the job's step is the slower rank's: rank 0
# as gpu (9000, 9010), rank 1 with its 6000 us gemm, then 3000 and 2000:
# 11020 - 20 = 11000, and 22030 - 11020 = 11010.
wi split split host=1 && ok || bad "split host=1: $(cat "$T/split.err")"
steps split 11000.000 11000.000 11000.000 11010.000 11010.000 11010.000 "split host=1"
is "run split: 11.0 ms -> 11.0 ms per step (+0.0 ms, +0.0 %), replayed over 2 steps (2 ranks alone, each rank at its own host factor, no training log)" \
	"$(cat "$T/split.out")" "split: the summary line"
is "" "$(col "$T/split.csv" mean host_factor)" "split: no one host factor"
# collectives=0.5 shortens rank 0's steps only (7500, 7510): rank 1 still takes 11000 and 11010.
wi scoll split collectives=0.5 && ok || bad "split collectives=0.5: $(cat "$T/scoll.err")"
steps scoll 11000.000 11000.000 11000.000 11010.000 11010.000 11010.000 "split collectives=0.5"
# 'kernels:nvjet*=0.5': rank 0's gemms take 2000 (steps 7000, 7010), rank
# 1's 3000: 20-3020, 3020-6020, 6020-8020, step 2 from 8020 to its
# synchronize at 16030: 8000 and 8010, the job's.
wi snv split 'kernels:nvjet*=0.5' && ok || bad "split kernels:nvjet*=0.5: $(cat "$T/snv.err")"
steps snv 11000.000 11000.000 8000.000 11010.000 11010.000 8010.000 "split kernels:nvjet*=0.5"

# loader: step 1's launch at 8000 after an 8000 us DataLoader range (the
# first call's gap from the step's start at 0), the kernel 8020-10020, the
# synchronize until 10030; step 2's launch at 20000 after aten::add (to
# 12000) and the next DataLoader range (12000-20000): measured 20020 -
# 8020 = 12000, and 22030 - 20020 = 2010. data-loading=0 takes the 8000
# us in each range out: the launch at 0, the kernel 20-2020 (its measured
# 10 us past its launch kept), the synchronize returns at 2030; step 2's
# launch after the 1970 us of aten::add at 4000, its kernel 4020-6020,
# synchronize 6030: step 1 = 4000, step 2 = 2010 (its own DataLoader
# time lies in step 1).
wi dl loader data-loading=0 && ok || bad "loader data-loading=0: $(cat "$T/dl.err")"
steps dl 12000.000 12000.000 4000.000 2010.000 2010.000 2010.000 "loader data-loading=0"
# gaps=0 takes out only stretches no operator covers: the DataLoader's are covered.
wi gl loader gaps=0 && ok || bad "loader gaps=0: $(cat "$T/gl.err")"
steps gl 12000.000 12000.000 12000.000 2010.000 2010.000 2010.000 "loader gaps=0"
# A run without DataLoader ranges: said, and nothing changes.
wi nodl gpu data-loading=0 && ok || bad "gpu data-loading=0: $(cat "$T/nodl.err")"
is "$T/site/perfstudy.db: warning: run 'gpu': no enumerate(DataLoader) range recorded on its profiled ranks: data-loading=0 changes nothing" \
	"$(cat "$T/nodl.err")" "gpu data-loading=0: the warning"

# shown (make_replay.py, worked out in t_replay.sh): the 30000 us sleep
# taken out saves 10000 us in each step; the synchronize returning at once
# saves 980 and 4040.
wi gaps shown gaps=0 && ok || bad "shown gaps=0: $(cat "$T/gaps.err")"
steps gaps 36000.000 36000.000 26000.000 35020.000 35020.000 25020.000 "shown gaps=0"
wi sync shown syncs=0 && ok || bad "shown syncs=0: $(cat "$T/sync.err")"
steps sync 36000.000 36000.000 35020.000 35020.000 35020.000 30980.000 "shown syncs=0"

# slack-extra (make_replay.py's slack/, with a training log; t_replay.sh
# works out why its log allows every host factor f in [0.1, 1]: the step is
# the GPU's, and f is the top, 1). 'kernels:gemm*=0.5': K1 5000, Kx 2500.
# At f = 1 the GPU ends at o+7520, the host reaches the synchronize at
# o+12040 and it returns at o+12050: steps 12050 and 12030 (the last, to
# the synchronize's end from K1's start at o+20), 2980 saved on each of
# 15030 and 15010. At f = 0.1 (host_factor_lo): K1 from o+11, Kx ends at
# o+7511, the synchronize returns at o+7521: steps 7521 and 7510 against
# 15021 and 15010, 7500 saved (saving_fast_host_us).
$PERFSTUDY build -q "$T/wi/slack/study.yaml" -o "$T/slack" 2> "$T/err" && ok || bad "slack build failed: $(cat "$T/err")"
$PERFSTUDY whatif "$T/slack" slack-extra 'kernels:gemm*=0.5' -o "$T/slack.csv" > "$T/slack.out" 2> "$T/slack.err" &&
	ok || bad "slack-extra kernels:gemm*=0.5: $(cat "$T/slack.err")"
steps slack 15030.000 15030.000 12050.000 15010.000 15010.000 12030.000 "slack-extra kernels:gemm*=0.5"
is 1 "$(col "$T/slack.csv" mean host_factor)" "slack-extra: the host factor, the top of the log's range"
is 0.1 "$(col "$T/slack.csv" mean host_factor_lo)" "slack-extra: the bottom of the log's range"
is 7500.000 "$(col "$T/slack.csv" mean saving_fast_host_us)" "slack-extra: the saving with the fastest host"
is "the training log allows host factors from 0.1 to 1 (its median within 1 %): at 0.1, -7.5 ms per step" \
	"$(sed -n 2p "$T/slack.out")" "slack-extra: the range on stdout"

# The manifest's questions (key whatif): answered by the same code into the
# site's whatif.csv, shown on the page with their definition in Methods.
# Expected values independent of perfstudy: kernels:nvjet*=0.5 on gpu,
# whose kernels run back to back on the GPU (GPU-bound), saves half the
# nvjet kernels' time in each step, summed here from the raw trace;
# collectives=0.5 and data-loading=0 as worked out above (gpu: 1500 a
# step; loader: steps 4000 and 2010 against 12000 and 2010). A change
# whose pattern holds markup, a quote and a comma: escaped on the page,
# quoted in the CSV; it matches no kernel, which a warning at the
# question's line says.
mkdir -p "$T/q"
cp -r "$T/wi/gpu" "$T/wi/loader" "$T/q/"
cat > "$T/q/study.yaml" << 'EOF2'
version: 1
id: questions
title: Questions
runs:
  - {id: gpu, traces: gpu/rank0.json}
  - {id: loader, traces: loader/rank0.json}
whatif:
  - {run: gpu, change: "kernels:nvjet*=0.5"}
  - run: gpu
    change: [collectives=0.5]
  - {run: loader, change: data-loading=0}
  - {run: gpu, change: 'kernels:<b>&"x,y*=0.5'}
EOF2
$PERFSTUDY build -q "$T/q/study.yaml" -o "$T/qsite" 2> "$T/q.err" && ok || bad "questions build failed: $(cat "$T/q.err")"
Q=$T/qsite/questions
python3 - "$Q/data/whatif.csv" "$T/wi/gpu/rank0.json" << 'PY' && ok || bad "the manifest's questions in whatif.csv"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ev = json.load(open(sys.argv[2]))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"]) for e in ev if e["name"].startswith("ProfilerStep#"))
# the nvjet kernels launched in each step (their launch's correlation), halved
launch = {e["args"]["correlation"]: e["ts"] for e in ev if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
half = [sum(e["dur"] for e in ev if e.get("cat") == "kernel" and e["name"].startswith("nvjet")
            and a <= launch[e["args"]["correlation"]] < b) / 2 for a, b in steps]
want = {("gpu", "kernels:nvjet*=0.5"): sum(half) / len(half), ("gpu", "collectives=0.5"): 1500.0,
        ("loader", "data-loading=0"): (12000 - 4000 + 2010 - 2010) / 2, ("gpu", 'kernels:<b>&"x,y*=0.5'): 0.0}
got = {(r["run"], r["change"]): float(r["saving_us"]) for r in rows if r["step"] == "mean"}
if got != want:
    sys.exit(f"mean savings {got}, expected {want}")
lw = [float(r["whatif_us"]) for r in rows if r["run"] == "loader" and r["step"] != "mean"]
if lw != [4000.0, 2010.0]:
    sys.exit(f"loader data-loading=0 steps {lw}, expected [4000, 2010]")
PY
grep -q '^gpu,"kernels:<b>&""x,y\*=0.5",mean,' "$Q/data/whatif.csv" && ok || bad "the change not quoted in whatif.csv"
grep -q 'kernels:&lt;b&gt;&amp;&quot;x,y\*=0.5' "$Q/index.html" && ok || bad "the change not escaped on the page"
grep -q 'kernels:<b>' "$Q/index.html" && bad "the change unescaped on the page" || ok
grep -q '<dt><code>whatif.csv</code></dt>' "$Q/index.html" && ok || bad "no Methods entry for whatif.csv"
grep -q "study.yaml:12:5: warning: whatif question (run gpu: kernels:&lt;b&gt;&amp;&quot;x,y\\*=0.5):[^<]* 1 &#39;kernels:&lt;b&gt;&amp;&quot;x,y\\*=0.5&#39;:[^<]* no kernel[^<]* &#39;gpu&#39;" "$Q/index.html" &&
	ok || bad "the warning at the question's line, escaped on the page"
# Errors in a question are the manifest's, at their line and column.
cat > "$T/q/bad.yaml" << 'EOF2'
title: Bad questions
runs:
  - {id: gpu, traces: gpu/rank0.json}
whatif:
  - {run: nope, change: collectives=0.5}
  - {run: gpu, change: [host=0]}
  - {change: syncs=0}
EOF2
$PERFSTUDY build -q "$T/q/bad.yaml" -o "$T/qbad" 2> "$T/qbad.err"
is 1 "$?" "bad questions: exit status"
grep -q "bad.yaml:5:11: error: unknown run 'nope' in 'whatif'" "$T/qbad.err" && ok || bad "unknown run: $(cat "$T/qbad.err")"
grep -q "bad.yaml:6:25: error: change 'host=0' in 'whatif': expected host=X, X a number above 0, at most 1000" "$T/qbad.err" &&
	ok || bad "a bad change: $(cat "$T/qbad.err")"
grep -q "bad.yaml:7:5: error: .*'run'" "$T/qbad.err" && ok || bad "a question without a run: $(cat "$T/qbad.err")"

# A CHANGE's text goes through the CSV writer: a comma is quoted; a pattern that matches nothing is said.
wi comma gpu 'kernels:a,b*=1' && ok || bad "kernels:a,b*=1: $(cat "$T/comma.err")"
grep -q '^gpu,"kernels:a,b\*=1",mean,' "$T/comma.csv" && ok || bad "the change not quoted: $(cat "$T/comma.csv")"
is "$T/site/perfstudy.db: warning: argument 3 'kernels:a,b*=1': no kernel of run 'gpu' matches: it changes nothing" \
	"$(cat "$T/comma.err")" "a pattern that matches nothing"

# The default output is whatif.csv in the current directory; SITE may name the store.
abs=$PERFSTUDY
[ "$PERFSTUDY" = ./perfstudy ] && abs=$PWD/perfstudy
mkdir "$T/cwd"
(cd "$T/cwd" && $abs whatif "$T/site/perfstudy.db" gpu collectives=0.5 > /dev/null 2>&1) && ok || bad "whatif with the store's path"
cmp -s "$T/cwd/whatif.csv" "$T/coll.csv" && ok || bad "the default whatif.csv differs from -o's"

# The usage: --help, help whatif, the command table.
$PERFSTUDY whatif --help | grep -q "^usage: perfstudy whatif SITE RUN CHANGE... \[-o FILE\]" && ok || bad "whatif --help"
$PERFSTUDY help whatif | grep -q "^  rank=R:median " && ok || bad "help whatif: the grammar"
$PERFSTUDY --help | grep -q "^  whatif " && ok || bad "--help: whatif not listed"
$PERFSTUDY whatif --bogus "$T/site" gpu host=1 2> "$T/opt.err"
is 2 "$?" "an unknown option: exit status"
is "perfstudy whatif: error: unknown option '--bogus' (see perfstudy whatif --help)" "$(cat "$T/opt.err")" "an unknown option"

# Errors: the message, the exit status, and no whatif.csv.
# fails NAME STATUS MESSAGE ARGS...: whatif ARGS exits STATUS, says MESSAGE on stderr, writes no $T/NAME.csv.
fails() {
	local name=$1 want=$2 msg=$3
	shift 3
	$PERFSTUDY whatif "$@" -o "$T/$name.csv" > "$T/$name.out" 2> "$T/$name.err"
	is "$want" "$?" "$name: exit status"
	is "$msg" "$(cat "$T/$name.err")" "$name: message"
	[ ! -e "$T/$name.csv" ] && ok || bad "$name: wrote $T/$name.csv"
}
G="(see perfstudy whatif --help)"
fails fast 2 "perfstudy whatif: error: argument 3 'collectives=fast': expected collectives=X, X a number from 0 to 1000 $G" \
	"$T/site" gpu collectives=fast
fails bogus 2 "perfstudy whatif: error: argument 4 'bogus=1': unknown change 'bogus': expected one of collectives=X, kernels:PATTERN=X, roofline:OP=F, host=X, gaps=0, data-loading=0, syncs=0 or rank=R:median $G" \
	"$T/site" gpu host=0.5 bogus=1
fails noeq 2 "perfstudy whatif: error: argument 3 'collectives': expected CHANGE=VALUE, one of collectives=X, kernels:PATTERN=X, roofline:OP=F, host=X, gaps=0, data-loading=0, syncs=0 or rank=R:median $G" \
	"$T/site" gpu collectives
fails gaps1 2 "perfstudy whatif: error: argument 3 'gaps=1': expected gaps=0 (taken out: the only value this change takes) $G" \
	"$T/site" gpu gaps=1
fails host0 2 "perfstudy whatif: error: argument 3 'host=0': expected host=X, X a number above 0, at most 1000 $G" \
	"$T/site" gpu host=0
fails nopat 2 "perfstudy whatif: error: argument 3 'kernels:=0.5': expected kernels:PATTERN=X with a PATTERN (fnmatch, e.g. 'nvjet*') $G" \
	"$T/site" gpu kernels:=0.5
fails rankx 2 "perfstudy whatif: error: argument 3 'rank=x:median': expected rank=R:median, R a rank of the run $G" \
	"$T/site" pair rank=x:median
fails nochange 2 "perfstudy whatif: error: expected SITE RUN CHANGE... $G" "$T/site" gpu
fails roof2 2 "perfstudy whatif: error: argument 3 'roofline:aten::mm=2': expected roofline:OP=F, F the fraction of its roofline the operator reaches, above 0, at most 1 $G" \
	"$T/site" roof roofline:aten::mm=2
fails roof0 2 "perfstudy whatif: error: argument 3 'roofline:aten::mm=0': expected roofline:OP=F, F the fraction of its roofline the operator reaches, above 0, at most 1 $G" \
	"$T/site" roof roofline:aten::mm=0
fails norun 2 "$T/site/perfstudy.db: error: no run 'nope' (its runs: gpu, pair, split, loader, nosteps, shown, roof)" \
	"$T/site" nope host=1
fails onerank 2 "$T/site/perfstudy.db: error: argument 3 'rank=0:median': run 'gpu' has one rank, so no rank can be set to the median rank's: rank=R:median needs ranks replayed together" \
	"$T/site" gpu rank=0:median
fails alone 2 "$T/site/perfstudy.db: error: argument 3 'rank=1:median': run 'split' has ranks whose collectives do not match (replayed alone), so no rank can be set to the median rank's: rank=R:median needs ranks replayed together" \
	"$T/site" split rank=1:median
fails rank5 2 "$T/site/perfstudy.db: error: argument 3 'rank=5:median': run 'pair' has no rank 5 with profiled steps" \
	"$T/site" pair rank=5:median
fails nosteps 1 "$T/site/perfstudy.db: error: run 'nosteps': no replayable step (a ProfilerStep#N range that launches GPU work, on some rank, with its runtime calls)" \
	"$T/site" nosteps host=1
mkdir "$T/empty"
fails nostore 1 "$T/empty: error: no perfstudy.db here: not a perfstudy output directory (perfstudy build -o writes one)" \
	"$T/empty" gpu host=1

# The output is never the store: by its name, another path, or a hard link; the store is left as it was.
sum=$(sha256sum < "$T/site/perfstudy.db")
ln "$T/site/perfstudy.db" "$T/hard.db"
for out in "$T/site/perfstudy.db" "$T/site/../site/perfstudy.db" "$T/hard.db"; do
	$PERFSTUDY whatif "$T/site" gpu host=1 -o "$out" 2> "$T/same.err"
	is 2 "$?" "-o $out: exit status"
	grep -q "error: the output is also an input ($T/site/perfstudy.db): refusing to overwrite it" "$T/same.err" &&
		ok || bad "-o $out: $(cat "$T/same.err")"
done
is "$sum" "$(sha256sum < "$T/site/perfstudy.db")" "the store after the refusals"

# A store whose steps view is not the schema's own runs the file's own SQL: refused.
cp "$T/site/perfstudy.db" "$T/forged.db"
python3 - "$T/forged.db" << 'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("DROP VIEW steps; CREATE VIEW steps AS SELECT trace_id, 1 AS step, start_ns, dur_ns FROM annotations;")
db.commit()
PY
fails forged 1 "$T/forged.db: error: refused: view 'steps' is not the one a perfstudy store holds (a view runs the file's own SQL)" \
	"$T/forged.db" gpu host=1

finish
