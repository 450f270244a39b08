#!/bin/bash
# t_amd.sh: AMD GPUs: PyTorch traces from ROCm (HIP runtime names, RCCL,
# hipBLASLt and flash-attention kernel names, MI300X device properties),
# rocprofv3's rocpd database, and TraceLens's own reports.
#
# tests/data/rocm/mi300_tiny.json, worked out by hand (times in us; one
# MI300X, ProfilerStep#1 [100, 200)):
#   stream 0  Cijk_Ailk_Bljk_HHS_BH_... [110, 120) matrix-mul (hipLaunchKernel
#             [101, 103)); Custom_Cijk_... [120, 125) matrix-mul
#             (hipExtModuleLaunchKernel [104, 107)); attn_fwd [125, 135)
#             attention ([108, 109)); Memcpy HtoD [141, 143) 4096 B
#             (hipMemcpyAsync [112, 114)); __amd_rocclr_copyBuffer [145, 146)
#             and __amd_rocclr_fillBufferAligned [147, 148) memory ([115, 116),
#             [117, 118))
#   stream 1  rcclGenericKernel [128, 140) communication ([110, 111))
#   groups: matrix-mul 10 + 5 = 15, attention 10, communication 12, memory
#     2 + 1 + 1 = 4, of 41: 15/41 = 0.365854, 10/41 = 0.243902,
#     12/41 = 0.292683, 4/41 = 0.097561
#   gpu_timeline (TraceLens's definitions): computation = [110, 135) and
#     the fill kernel [147, 148) = 26; communication [128, 140) minus
#     computation = [135, 140) = 5; memcpy = the copy and the copy kernel,
#     [141, 143) and [145, 146) = 3, all exposed; busy = [110, 140) +
#     2 + 1 + 1 = 34; total = 148 - 110 = 38; idle = 4
#   launch statistics (exact): the seven HIP launch and copy calls
#     (hipStreamSynchronize is none): cpu durations 2+3+1+1+2+1+1 = 11, GPU
#     41, launch delays 110-103, 120-107, 125-109, 128-111, 141-114,
#     145-116, 147-118 = 7+13+16+17+27+29+29 = 138, median 17, max 29
#
# tests/data/rocpd/make_rocpd.py writes a rocpd database (the rows are in
# its comment; times in ns), read through its uuid-suffixed tables:
#   GPU 0: Cijk [2000, 7000) 5 us matrix-mul, attn_fwd [7000, 10000) 3
#     attention, add_kernel [10000, 10500) 0.5 other (its mangled name
#     _Z10add_kernelPfS_i demangled), ncclDevKernel [9000, 12000) 3
#     communication, HtoD copy [12500, 13500) 1 us 1 MiB memory: of 12.5,
#     0.4, 0.24, 0.24, 0.08, 0.04
#   gpu_timeline GPU 0: computation [2000, 10500) = 8.5; communication
#     minus it [10500, 12000) = 1.5; memcpy exposed 1; busy [2000, 12000) +
#     1 = 11; total 13500 - 2000 = 11.5; idle 0.5
#   GPU 1: Cijk [2500, 4500) 2 us; the device-to-device copy from GPU 0
#     [5000, 5800) 0.8 us 4096 B is PtoP (two GPUs), on GPU 1 (its
#     destination): matrix-mul 2/2.8 = 0.714286, memory 0.285714;
#     gpu_timeline 2, 0, 0.8, 2.8, idle 0.5, total 5800 - 2500 = 3.3
#   ProfilerStep#1 (a roctx range, MARKER_CORE_RANGE_API) [1000, 20000):
#     one step of 19 us on both GPUs; 8 runtime calls (7 HIP, 1 HSA; the
#     RCCL_API region is not read); launches with a HIP launch or async
#     copy call: GPU 0 five (four kernels, the HtoD copy), GPU 1 one (the
#     peer copy's hipMemcpyPeerAsync is none of them)
#
# The bundled H200 study's gpu_timeline.csv equals, to the ns, the timeline
# tests/golden/tracelens_compare.py --timeline computes from its raw traces.
# With ../shared: HTA's MI250 ROCm trace (amd_trace) against Python over
# the raw file. With TraceLens's test traces (TRACELENS_DIR=.../tests/traces
# of github:AMD-AGI/TraceLens, or its mirror under /work/.mirror): every
# trace with a report, per-kernel time and GPU timeline against TraceLens's
# own CSVs (tests/golden/tracelens_compare.py, 0.1 %).
. "$(dirname "$0")/lib.sh"

# --- a ROCm PyTorch trace, by hand ---
TINY=tests/data/rocm/mi300_tiny.json
$PERFSTUDY inspect $TINY >"$T/out" 2>"$T/err" && ok || bad "inspect tiny: $(cat "$T/err")"
echo "$TINY: kineto, 1 ranks, 6 kernels, 1 memcpy, 0 memset, 8 runtime, 1 annotations, 0 gpu annotations, 1 steps, 0 cpu ops, rank 0 of 1, AMD Instinct MI300X" >"$T/want"
same "$T/want" "$T/out" "inspect tiny"

$PERFSTUDY build -q $TINY -o "$T/tiny" 2>"$T/err" && ok || bad "build tiny: $(cat "$T/err")"
D="$T/tiny/default/data"
cat >"$T/want" <<'EOF'
run,rank,group,time_us,fraction
mi300_tiny.json,0,matrix-mul,15.000,0.365854
mi300_tiny.json,0,attention,10.000,0.243902
mi300_tiny.json,0,communication,12.000,0.292683
mi300_tiny.json,0,memory,4.000,0.097561
mi300_tiny.json,0,elementwise,0.000,0.000000
mi300_tiny.json,0,other,0.000,0.000000
EOF
same "$T/want" "$D/groups.csv" "tiny groups"
cat >"$T/want" <<'EOF'
run,rank,computation_us,exposed_comm_us,exposed_memcpy_us,busy_us,idle_us,total_us,total_comm_us,total_memcpy_us
mi300_tiny.json,0,26.000,5.000,3.000,34.000,4.000,38.000,12.000,3.000
EOF
same "$T/want" "$D/gpu_timeline.csv" "tiny gpu_timeline"
# exact_launches .. exact_launch_delay_max_us
cut -d, -f16-25 "$D/launch_stats.csv" | tail -n 1 >"$T/out"
echo "7,11.000,1.000,3.000,41.000,5.000,12.000,138.000,17.000,29.000" >"$T/want"
same "$T/want" "$T/out" "tiny launch_stats"
grep -q '^hardware,GPU model,AMD Instinct MI300X,' "$D/system.csv" && ok || bad "tiny: system.csv has no MI300X"

# --- rocpd ---
python3 tests/data/rocpd/make_rocpd.py "$T/prof_results.db" || bad "make_rocpd.py failed"
DB="$T/prof_results.db"
$PERFSTUDY inspect "$DB" >"$T/out" 2>"$T/err" && ok || bad "inspect rocpd: $(cat "$T/err")"
echo "$DB: rocpd, 2 ranks, 5 kernels, 2 memcpy, 0 memset, 8 runtime, 1 annotations, 0 gpu annotations, 1 steps, 0 cpu ops, AMD Instinct MI300X" >"$T/want"
same "$T/want" "$T/out" "inspect rocpd"
$PERFSTUDY build -q "$DB" -o "$T/rocpd" 2>"$T/err" && ok || bad "build rocpd: $(cat "$T/err")"
D="$T/rocpd/default/data"
cat >"$T/want" <<'EOF'
run,rank,group,time_us,fraction
prof_results.db,0,matrix-mul,5.000,0.400000
prof_results.db,0,attention,3.000,0.240000
prof_results.db,0,communication,3.000,0.240000
prof_results.db,0,memory,1.000,0.080000
prof_results.db,0,elementwise,0.000,0.000000
prof_results.db,0,other,0.500,0.040000
prof_results.db,1,matrix-mul,2.000,0.714286
prof_results.db,1,attention,0.000,0.000000
prof_results.db,1,communication,0.000,0.000000
prof_results.db,1,memory,0.800,0.285714
prof_results.db,1,elementwise,0.000,0.000000
prof_results.db,1,other,0.000,0.000000
EOF
same "$T/want" "$D/groups.csv" "rocpd groups"
cat >"$T/want" <<'EOF'
run,rank,computation_us,exposed_comm_us,exposed_memcpy_us,busy_us,idle_us,total_us,total_comm_us,total_memcpy_us
prof_results.db,0,8.500,1.500,1.000,11.000,0.500,11.500,3.000,1.000
prof_results.db,1,2.000,0.000,0.800,2.800,0.500,3.300,0.000,0.800
EOF
same "$T/want" "$D/gpu_timeline.csv" "rocpd gpu_timeline"
cat >"$T/want" <<'EOF'
run,rank,step,step_us
prof_results.db,0,1,19.000
prof_results.db,1,1,19.000
EOF
same "$T/want" "$D/steps.csv" "rocpd steps"
grep -v ',0,0,0.000,' "$D/memops.csv" >"$T/out"
cat >"$T/want" <<'EOF'
run,rank,kind,count,bytes,time_us,gb_per_s
prof_results.db,0,HtoD,1,1048576,1.000,1048.58
prof_results.db,1,PtoP,1,4096,0.800,5.12
EOF
same "$T/want" "$T/out" "rocpd memops"
grep -q '^prof_results.db,0,"add_kernel(float\*, float\*, int)",other,1,0.500,' "$D/kernels.csv" && ok ||
	bad "rocpd: the mangled kernel name is not demangled"
cut -d, -f1,2,16 "$D/launch_stats.csv" >"$T/out"
printf 'run,rank,exact_launches\nprof_results.db,0,5\nprof_results.db,1,1\n' >"$T/want"
same "$T/want" "$T/out" "rocpd launches"

# rocpd input errors: a row that ends before it starts is skipped with a warning; a view where a
# table belongs, a missing symbol table and a missing column stop at the table's name.
U=_0198c1a2_7d3e_7b41_9c55_2f0e4a6b8c10
rocpd_case() { # NAME SQL: a copy of the database changed by SQL
	cp "$DB" "$T/$1.db" && sqlite3 "$T/$1.db" "$2" || bad "rocpd case $1: sqlite3 failed"
}
rocpd_case backwards "UPDATE rocpd_kernel_dispatch$U SET \"end\" = 1500 WHERE id = 3"
(cd "$T" && "$OLDPWD/$PERFSTUDY" build backwards.db -o "$T/bw") 2>&1 | grep -v '^perfstudy:' >"$T/out"
echo "backwards.db: table 'rocpd_kernel_dispatch$U', id 3: warning: skipped row: 'end' before 'start'" >"$T/want"
same "$T/want" "$T/out" "rocpd backwards row"
check_rocpd_bad() { # NAME MESSAGE
	(cd "$T" && "$OLDPWD/$PERFSTUDY" build -q "$1.db" -o "$T/bad") 2>"$T/err"
	local rc=$?
	[ $rc -eq 1 ] && ok || bad "rocpd $1: exit $rc, want 1"
	echo "$2" >"$T/want"
	same "$T/want" "$T/err" "rocpd $1 message"
	[ ! -e "$T/bad" ] && ok || bad "rocpd $1: output left behind"
}
rocpd_case view "ALTER TABLE rocpd_region$U RENAME TO x; CREATE VIEW rocpd_region$U AS SELECT * FROM x"
check_rocpd_bad view "view.db: error: table 'rocpd_region$U': is a view; only plain tables are read (a view or a generated column runs the file's own SQL)"
rocpd_case nosym "DROP VIEW rocpd_info_kernel_symbol; DROP TABLE rocpd_info_kernel_symbol$U"
check_rocpd_bad nosym "nosym.db: error: table 'rocpd_info_kernel_symbol$U': absent, but rocpd_kernel_dispatch$U names kernels by it"
rocpd_case nosize "ALTER TABLE rocpd_memory_copy$U DROP COLUMN size"
check_rocpd_bad nosize "nosize.db: error: table 'rocpd_memory_copy$U': no column 'size' (not a profiler export this reader knows)"

# --- HTA's MI250 ROCm trace (../shared) against Python over the raw file ---
A=../shared/corpus/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz
if [ -f "$A" ]; then
	$PERFSTUDY build -q "$A" -o "$T/amd" 2>"$T/err" && ok || bad "build amd_trace: $(cat "$T/err")"
	D="$T/amd/default/data"
	python3 - "$A" "$D" >"$T/out" 2>&1 <<'EOF' && ok || { bad "amd_trace differs from Python over the raw trace"; cat "$T/out" >&2; }
import csv, gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))['traceEvents']
ns = lambda x: round(x * 1000)
gpu = [e for e in ev if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]
calls = {e['args']['correlation']: e['name'] for e in ev if e.get('cat') == 'cuda_runtime' and 'correlation' in e.get('args', {})}
# hipBLASLt/Tensile GEMMs are named Cijk_...: matrix-mul
gemm = sum(ns(e['dur']) for e in gpu if e['name'].startswith('Cijk_'))
launch = {'hipLaunchKernel', 'hipExtModuleLaunchKernel', 'hipModuleLaunchKernel', 'hipExtLaunchKernel', 'hipMemcpyAsync', 'hipMemsetAsync'}
n = sum(1 for e in gpu if calls.get(e['args'].get('correlation')) in launch)
groups = {r['group']: r for r in csv.DictReader(open(sys.argv[2] + '/groups.csv'))}
ls = next(csv.DictReader(open(sys.argv[2] + '/launch_stats.csv')))
bad = 0
if round(float(groups['matrix-mul']['time_us']) * 1000) != gemm:
    print('matrix-mul', groups['matrix-mul']['time_us'], 'want', gemm / 1000); bad = 1
if int(ls['exact_launches']) != n or n == 0:
    print('launches', ls['exact_launches'], 'want', n); bad = 1
sys.exit(bad)
EOF
else
	skipped "../shared/corpus/hta/amd_trace absent"
fi

# --- gpu_timeline.csv of the bundled H200 study (26 ranks, NCCL overlapping compute) against the
# same definitions computed from the raw traces in exact ns (tracelens_compare.py --timeline) ---
example_h200 "$T/h200"
. tests/golden/h200-runs.sh
if python3 tests/golden/tracelens_compare.py --timeline "$T/h200/h200/data" $(h200_runs) >"$T/out" 2>&1; then ok; else
	bad "h200: gpu_timeline.csv differs from the raw traces"; head -5 "$T/out" >&2; fi

# --- TraceLens's MI300 and MI210 test traces against TraceLens's own reports ---
TL=${TRACELENS_DIR:-}
MIRROR=/work/.mirror/AMD-AGI+TraceLens/repo
if [ -z "$TL" ] && [ -d "$MIRROR" ]; then
	# The mirror is a bare git directory: take the traces and reports out of it (blobs it lacks are left out).
	TL="$T/tracelens"
	git --git-dir="$MIRROR" ls-tree -r --name-only HEAD tests/traces/mi300 tests/traces/mi210 2>/dev/null |
		grep -E '(\.json\.gz|_perf_report_csvs/(gpu_timeline|kernel_summary)\.csv)$' | while read -r p; do
		mkdir -p "$TL/$(dirname "${p#tests/traces/}")"
		git --git-dir="$MIRROR" show "HEAD:$p" >"$TL/${p#tests/traces/}" 2>/dev/null || rm -f "$TL/${p#tests/traces/}"
	done
fi
if [ -n "$TL" ] && [ -d "$TL" ]; then
	python3 tests/golden/tracelens_compare.py "$PERFSTUDY" "$TL" "$T/tlout" >"$T/tl.txt" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then ok; elif [ $rc -eq 77 ]; then skipped "$(cat "$T/tl.txt")"; else
		bad "TraceLens's reports differ from perfstudy's by more than 0.1 %"; grep -v '^$' "$T/tl.txt" >&2; fi
else
	skipped "TraceLens's test traces absent (set TRACELENS_DIR to TraceLens's tests/traces)"
fi
finish
