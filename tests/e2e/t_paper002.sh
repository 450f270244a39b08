#!/bin/bash
# t_paper002.sh: paper 002's (Cheng et al., SIGMETRICS 2024) projected memory
# over batch sizes (memory_by_batch.csv), model-parallelism communication
# (parallel_comm.csv and its figures) and TG40 vs Polaris table (relative.csv,
# comparisons.csv), each against numbers worked out by hand below, and the
# errors of their manifest keys (file:line:col).
. "$(dirname "$0")/lib.sh"

D=tests/data/paper002

# near FILE 'python condition selecting one row' COLUMN EXPECTED: the cell is
# EXPECTED within a relative 1e-5 (the CSV prints 6 significant digits).
near() {
	local got
	got=$(python3 - "$1" "$2" "$3" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if eval(sys.argv[2], {}, {'r': r})]
print(rows[0][sys.argv[3]] if len(rows) == 1 else 'rows=%d' % len(rows))
EOF
)
	python3 -c "import sys; g, w = sys.argv[1], float(sys.argv[2]); sys.exit(0 if g not in ('', ) and not g.startswith('rows=') and abs(float(g) - w) <= 1e-5 * abs(w) + 1e-12 else 1)" "$got" "$4" &&
		ok || bad "$1 [$2] $3: got '$got', want $4"
}

# --- 1. memory_by_batch.csv: the formulas of estimates.csv ---
# tests/data/paper002/mem.yaml: l 2, d 64, a 4, s 128, V 1000, tensor parallel
# t 2, selective recomputation, ZeRO-3, 4 GPUs = 2 data-parallel, GPU 0.003 GB.
#   activations (Korthikanti, selective): l s b d (10 + 24/t) = 2 x 128 x b x 64 x 22
#     = 360448 b: b 4 -> 1441792, b 8 -> 2883584
#   P = l (12d^2 + 13d) + (V + s) d + 2d = 2 x 49984 + 1128 x 64 + 128 = 172288
#   model state, ZeRO-3: 16 (P / t) / dp = 16 x 86144 / 2 = 689152
#   totals 2130944 (< 3000000: no), 3572736 (> 3000000: yes)
if $PERFSTUDY build -q $D/mem.yaml -o "$T/mem" 2>"$T/err"; then ok; else bad "mem.yaml: $(cat "$T/err")"; fi
M=$T/mem/p002-mem/data/memory_by_batch.csv
near "$M" "r['batch'] == '4'" activation_bytes 1441792
near "$M" "r['batch'] == '4'" model_state_bytes 689152
near "$M" "r['batch'] == '4'" total_bytes 2130944
near "$M" "r['batch'] == '8'" activation_bytes 2883584
near "$M" "r['batch'] == '8'" total_bytes 3572736
grep -q '^tiny-tp2,tiny,4,.*,3000000,no$' "$M" && ok || bad "memory_by_batch b 4 should fit in 3 MB"
grep -q '^tiny-tp2,tiny,8,.*,3000000,yes$' "$M" && ok || bad "memory_by_batch b 8 should exceed 3 MB"
[ "$(grep -c '^tiny-tp2,' "$M")" = 2 ] && ok || bad "memory_by_batch: one row per memory_batches entry"
# The run's own batch (4) is estimates.csv's row: the same numbers.
near "$T/mem/p002-mem/data/estimates.csv" "r['run'] == 'tiny-tp2'" memory_bytes_per_gpu 2130944
grep -q 'GPU memory 0.003 GB' "$T/mem/p002-mem/figures/memory_by_batch.svg" && ok || bad "memory_by_batch: no GPU memory line"

# cheng-002's six GPT models on the A100 40GB (40 x 10^9 bytes), b 1..32, one GPU, no ZeRO:
# 18.4B (l 40, d 6144, a 48, s 1024, V 50257) at b 32:
#   activations b(34sd + 5as^2)l = 32 x (34 x 1024 x 6144 + 5 x 48 x 1024^2) x 40
#     = 32 x (213909504 + 251658240) x 40 = 32 x 18622709760 = 595926712320
#   P = 40 x (12 x 6144^2 + 13 x 6144) + (50257 + 1024) x 6144 + 2 x 6144
#     = 18119393280 + 3194880 + 315070464 + 12288 = 18437670912; 16P = 295002734592
#   total 890929446912 > 40 x 10^9
if $PERFSTUDY build -q experiments/cheng-002/study.yaml -o "$T/c" 2>"$T/err"; then ok; else bad "cheng-002: $(cat "$T/err")"; fi
C=$T/c/cheng-002/data
near "$C/memory_by_batch.csv" "r['run'] == 'gpt-18.4b' and r['batch'] == '32'" activation_bytes 595926712320
near "$C/memory_by_batch.csv" "r['run'] == 'gpt-18.4b' and r['batch'] == '32'" model_state_bytes 295002734592
near "$C/memory_by_batch.csv" "r['run'] == 'gpt-18.4b' and r['batch'] == '32'" total_bytes 890929446912
[ "$(cut -d, -f1 "$C/memory_by_batch.csv" | sort -u | grep -c '^gpt-')" = 6 ] && ok || bad "cheng-002: not six models"
[ "$(grep -c '^gpt-' "$C/memory_by_batch.csv")" = 36 ] && ok || bad "cheng-002: 6 models x 6 batches"
# 125M (P = 124439808, 16P = 1991036928; activations 1075838976 b): b 32 is
# 34426847232 + 1991036928 = 36417884160 < 4e10, the only model that fits at 32.
[ "$(grep -c ',32,.*,no$' "$C/memory_by_batch.csv")" = 1 ] && ok || bad "cheng-002: only 125M fits at b 32"
near "$C/memory_by_batch.csv" "r['run'] == 'gpt-125m' and r['batch'] == '32'" total_bytes 36417884160

# --- 2. parallel_comm.csv ---
# tests/data/paper002/pc.yaml: same model, fp16 (a = g = 2 bytes), 8 GPUs, 4 per
# node, intra 100 GB/s, inter slow 10 / fast 20 GB/s, ZeRO-1, global batch B =
# 2 x 8 = 16, P = 172288.
# (TP 2, DP 4), slow: b = 16 / 4 = 4; one GPU holds P / 2 = 86144 parameters;
#   DP AllReduce 2 (1 - 1/4) 2 x 86144 = 258432, AllGather (1 - 1/4) 2 x 86144 = 129216;
#   TP 4 AllReduces x 2 layers x 2 (1 - 1/2) x b s d a = 8 x 4 x 128 x 64 x 2 = 524288;
#   TP spans 2 GPUs (in a node: 100 GB/s), DP 2 x 4 = 8 (across nodes: 10 GB/s);
#   time = 387648 / 10e9 + 524288 / 100e9 = 3.87648e-5 + 5.24288e-6 = 4.400768e-5 s
# (PP 2, DP 4), fast: DP spans 4 (in a node): 387648 / 100e9 = 3.87648e-6;
#   PP 2 b s d a = 2 x 4 x 128 x 64 x 2 = 131072 across nodes at 20 GB/s = 6.5536e-6;
#   time 1.043008e-5 s
# (TP 8, PP 1, DP 1), slow: b = 16; TP 4 x 2 x 2 (1 - 1/8) x 16 x 128 x 64 x 2
#   = 16 x 1.75 x 262144 = 3670016 bytes at 10 GB/s = 3.670016e-4 s; 4 heads over 8: refused.
if $PERFSTUDY build -q $D/pc.yaml -o "$T/pc" 2>"$T/err"; then ok; else bad "pc.yaml: $(cat "$T/err")"; fi
P=$T/pc/p002-pc/data/parallel_comm.csv
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '2' and r['bandwidth'] == 'slow'" dp_allreduce_bytes 258432
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '2' and r['bandwidth'] == 'slow'" dp_allgather_bytes 129216
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '2' and r['bandwidth'] == 'slow'" tp_allreduce_bytes 524288
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '2' and r['bandwidth'] == 'slow'" time_s 4.400768e-5
grep -q '^tp_dp,tiny,2,1,4,4,slow,10,100,intra-node,none,inter-node,' "$P" && ok || bad "parallel_comm: TP 2 links"
near "$P" "r['plane'] == 'pp_dp' and r['pp'] == '2' and r['bandwidth'] == 'fast'" pp_sendrecv_bytes 131072
near "$P" "r['plane'] == 'pp_dp' and r['pp'] == '2' and r['bandwidth'] == 'fast'" dp_time_s 3.87648e-6
near "$P" "r['plane'] == 'pp_dp' and r['pp'] == '2' and r['bandwidth'] == 'fast'" time_s 1.043008e-5
near "$P" "r['plane'] == 'tp_pp' and r['tp'] == '8' and r['bandwidth'] == 'slow'" tp_allreduce_bytes 3670016
near "$P" "r['plane'] == 'tp_pp' and r['tp'] == '8' and r['bandwidth'] == 'slow'" time_s 3.670016e-4
grep -q '^tp_pp,tiny,8,1,1,.*,4 heads do not divide over TP 8$' "$P" && ok || bad "parallel_comm: TP 8 over 4 heads not flagged"
# 3 planes x 4 splits (x = 1, 2, 4, 8) x 2 bandwidths.
[ "$(grep -c ',tiny,' "$P")" = 24 ] && ok || bad "parallel_comm: 24 rows"
for f in parallel_comm_pp_dp parallel_comm_tp_dp parallel_comm_tp_pp; do
	[ -s "$T/pc/p002-pc/figures/$f.svg" ] && ok || bad "no figure $f"
done
# pc-hw.yaml: 2 GPUs per node and 50 GB/s from hardware, global batch 8, ZeRO-0:
# (TP 1, DP 4): AllReduce 2 (1 - 1/4) 2 x 172288 = 516864 at 5 GB/s = 1.033728e-4 s;
# (TP 2, DP 2): TP in a node (50 GB/s), b = 8 / 2 = 4: 524288 / 50e9 = 1.048576e-5;
#   DP 2 (1 - 1/2) 2 x 86144 = 172288 across nodes: 3.44576e-5; time 4.494336e-5.
if $PERFSTUDY build -q $D/pc-hw.yaml -o "$T/pch" 2>"$T/err"; then ok; else bad "pc-hw.yaml: $(cat "$T/err")"; fi
P=$T/pch/p002-pc-hw/data/parallel_comm.csv
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '1'" time_s 1.033728e-4
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '2'" intra_node_gbs 50
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '2'" time_s 4.494336e-5
grep -q '^tp_dp,tiny,4,1,1,8,only,5,50,inter-node,' "$P" && ok || bad "parallel_comm: TP 4 spans two 2-GPU nodes"

# Without any intra-node bandwidth: a split whose groups stay in a node has no time, and the
# page says why; (TP 1, DP 4) across two nodes still has its 1.033728e-4 s.
sed -e 's/p2p_gbs: 50/nodes: 2/' -e 's/^id: p002-pc-hw/id: p002-pc-nointra/' $D/pc-hw.yaml >"$T/nointra.yaml"
if $PERFSTUDY build -q "$T/nointra.yaml" -o "$T/pcn" 2>"$T/err"; then ok; else bad "no intra: $(cat "$T/err")"; fi
P=$T/pcn/p002-pc-nointra/data/parallel_comm.csv
grep -q '^tp_dp,tiny,2,1,2,4,only,5,,intra-node,none,inter-node,172288,0,0,524288,0,3.44576e-05,,0,,$' "$P" && ok || bad "no intra: TP 2 should have no time"
near "$P" "r['plane'] == 'tp_dp' and r['tp'] == '1'" time_s 1.033728e-4
grep -q 'no intra-node bandwidth (parallel_comm.intra_node_gbs or hardware.p2p_gbs)' "$T/pcn/p002-pc-nointra/index.html" && ok || bad "no intra: no note"

# cheng-002 (18.4B, 32 GPUs, 4 per node): TP 8 leaves the node, TP 4 does not (the paper's
# jump "from 4 to 8"); PP 8 puts DP 4 inside a node.
P=$C/parallel_comm.csv
grep -q '^tp_dp,gpt-18.4b,4,1,8,4,P0,5,80.5,intra-node,none,inter-node,' "$P" && ok || bad "cheng-002: TP 4 in a node"
grep -q '^tp_dp,gpt-18.4b,8,1,4,8,P0,5,80.5,inter-node,none,inter-node,' "$P" && ok || bad "cheng-002: TP 8 across nodes"
grep -q '^pp_dp,gpt-18.4b,1,8,4,8,P2,25,80.5,none,inter-node,intra-node,' "$P" && ok || bad "cheng-002: PP 8 keeps DP in a node"
# (TP 1, PP 1, DP 32) at P0: ZeRO-1, 3 (1 - 1/32) 2 P = 3 x 31/32 x 2 x 18437670912
#   = 107168962176 bytes at 5 GB/s = 21.4337924352 s
near "$P" "r['plane'] == 'pp_dp' and r['pp'] == '1' and r['bandwidth'] == 'P0'" time_s 21.4337924352

# --- 3. TG40 vs Polaris (the table after Fig. 15), typed in as printed ---
if $PERFSTUDY build -q experiments/cheng-002/tg40.yaml experiments/cheng-002/polaris.yaml -o "$T/tp" 2>"$T/err"; then
	ok
else
	bad "tg40 + polaris: $(cat "$T/err")"
fi
X=$T/tp/cheng-002-tg40/data/comparisons.csv
# ratios against TG40 = 1x: 2.45 / 1 (+145 %), 7.35 / 1 (+635 %), 69.02 / 26.7 = 2.585019 (+158.5 %)
near "$X" "r['comparison'] == 'training-time' and r['system'] == 'Polaris'" ratio 2.45
near "$X" "r['comparison'] == 'training-time' and r['system'] == 'Polaris'" change_pct 145
near "$X" "r['comparison'] == 'comm-time' and r['system'] == 'Polaris'" change_pct 635
near "$X" "r['comparison'] == 'comm-share' and r['system'] == 'Polaris'" ratio 2.5850187265917603
near "$X" "r['comparison'] == 'comm-share' and r['system'] == 'TG40'" value 26.7
# Computed from the typed numbers, Polaris: compute share 100 - 69.02 = 30.98;
# comm_share_x = 7.35 / 2.45 = 3 (Polaris's share should be 3 x 26.7 = 80.1 %
# if all three numbers were of the same runs: the paper's 69.02 % (a ratio of
# 2.585) is not; the table is inconsistent with itself); time_saved_pct =
# (1 - 1/2.45) x 100 = 59.1837: TG40 takes 59.2 % less time, not the 62.29 %
# "faster on average" of the ZeRO-2 text (which would be 1 / (1 - 0.6229) =
# 2.652x), so the two statements are of different runs.
R=$T/tp/cheng-002-polaris/data/relative.csv
near "$R" "r['run'] == 'speedup-table'" compute_pct 30.98
near "$R" "r['run'] == 'speedup-table'" comm_share_x 3
near "$R" "r['run'] == 'speedup-table'" time_saved_pct 59.183673469
grep -q '^speedup-table,TG40,2.45,7.35,69.02,' "$R" && ok || bad "polaris relative.csv: the typed numbers"
for f in comparison_training-time comparison_comm-time comparison_comm-share; do
	[ -s "$T/tp/cheng-002-tg40/figures/$f.svg" ] && ok || bad "no figure $f"
done

# --- the new keys' errors, each at its place ---
t_err() { # t_err FILE <<MSG: the build of FILE fails (exit 1) with exactly MSG
	cat >"$T/want"
	$PERFSTUDY build "$1" -o "$T/bad" 2>"$T/raw"
	local rc=$?
	grep -v '^perfstudy: ' "$T/raw" >"$T/got"
	[ "$rc" -eq 1 ] && ok || bad "$1: exit $rc, want 1"
	same "$T/want" "$T/got" "$1 message"
}
t_err $D/bad-keys.yaml <<'MSG'
tests/data/paper002/bad-keys.yaml:4:21: error: 'memory_batches' must be ascending, each batch once: 2 after 4
tests/data/paper002/bad-keys.yaml:4:24: error: 'memory_batches' must be at least 1, got 0
tests/data/paper002/bad-keys.yaml:4:27: error: expected an integer for 'memory_batches', got 'x'
tests/data/paper002/bad-keys.yaml:7:9: error: 'gpus' must be at least 1, got 0
tests/data/paper002/bad-keys.yaml:8:9: error: 'zero' must be between 0 and 3, got 4
tests/data/paper002/bad-keys.yaml:9:24: error: duplicate bandwidth 'P0' in 'bandwidths'
tests/data/paper002/bad-keys.yaml:9:35: error: 'P1' must be greater than 0, got -1
tests/data/paper002/bad-keys.yaml:10:3: error: unknown key 'bandwith' (did you mean 'bandwidths'?)
tests/data/paper002/bad-keys.yaml:15:38: error: 'comm_pct' is a percentage of the training time, at most 100, got 101
tests/data/paper002/bad-keys.yaml:15:15: error: 'time_x' and 'comm_time_x' are multiples of a reference: name it in 'relative_to'
tests/data/paper002/bad-keys.yaml:17:25: error: 'time_x' must be greater than 0, got 0
tests/data/paper002/bad-keys.yaml:17:41: error: 'relative_to' must not be empty
tests/data/paper002/bad-keys.yaml:6:8: error: unknown run 'nosuch' in 'parallel_comm'
MSG
t_err $D/bad-shape.yaml <<'MSG'
tests/data/paper002/bad-shape.yaml:4:17: error: expected a non-empty list of batch sizes, e.g. [1, 2, 4, 8] for 'memory_batches', got '8'
tests/data/paper002/bad-shape.yaml:8:15: error: expected a mapping of labels to inter-node GB/s, e.g. { P0: 5, P1: 12.5 } for 'bandwidths', got a sequence
tests/data/paper002/bad-shape.yaml:6:8: error: run 'a' of 'parallel_comm' needs the model's layers, hidden and seq and the run's batch
tests/data/paper002/bad-shape.yaml:6:3: error: 'parallel_comm' needs 'gpus_per_node' (or hardware.gpus_per_node)
MSG

finish
