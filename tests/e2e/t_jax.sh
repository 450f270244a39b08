#!/bin/bash
# t_jax.sh: JAX profiles (the jax-trace reader, a profile directory as a
# run, XLA's kernel names, one rank per GPU).
#
# tests/data/jax/tiny.trace.json, worked out by hand (times in us):
#   GPU 0 (pid 1): stream 8 MemcpyH2D [104, 107.25) 4096 B; stream 7
#     fusion_1 [105, 115) elementwise, nvjet_* [112, 120) matrix-mul,
#     ncclDevKernel_AllReduce_Sum_f32 [160, 165.0005): 5000.5 ns rounds half
#     away from zero to 5001 ns, communication; "Memset 0" [170, 171) 4 B;
#     wrapped_convert [186, 196) elementwise. The "XLA Ops" thread's
#     fusion.1 is a derived line, not GPU work: skipped.
#   GPU 1 (pid 2): loop_add_fusion [106, 110) elementwise, the AllReduce
#     [161, 167), memcpy128 [180, 182) (a kernel; memory by its name).
#   Host: steps 1 [100, 150) and 2 [150, 190.5); fusion_1's launch
#     (correlation 11) is the one runtime call; "$builtins isinstance" is
#     neither.
#   groups, rank 0: matrix-mul 8, communication 5.001, memory 3.25 + 1 =
#     4.25, elementwise 10 + 10 = 20, of 37.251 in all: 8 / 37.251 =
#     0.214759, 5.001 / 37.251 = 0.134251, 4.25 / 37.251 = 0.114091,
#     20 / 37.251 = 0.536898; rank 1: 6, 2, 4 of 12.
#   GPU busy per step (step_breakdown's compute + memcpy + memset +
#     communication): rank 0 step 1: [104, 120) = 16; step 2: 5.001 + 1 +
#     [186, 190.5) 4.5 = 10.501; rank 1: 4 and 6 + 2 = 8.
#   The AllReduce is matched across the two ranks (communicator jit_step).
#
# experiments/h100x4/jax.yaml (real profiles, SOURCE.md there): steps.csv,
# groups.csv and the busy time per step equal tests/golden/jax_reference.py
# over the raw trace JSON and over the raw XSpace protobuf (its own
# decoder), which must agree with each other; the directory JAX made, given
# as a run, reads one file, its .xplane.pb.gz, and gives the same steps,
# groups, step breakdown and matched collectives as the trace JSON.
. "$(dirname "$0")/lib.sh"

TINY=tests/data/jax/tiny.trace.json

# --- inspect ---
$PERFSTUDY inspect $TINY >"$T/out" 2>"$T/err" && ok || bad "inspect tiny: $(cat "$T/err")"
echo "$TINY: jax-trace, 2 ranks, 7 kernels, 1 memcpy, 1 memset, 1 runtime, 2 annotations, 0 gpu annotations, 2 steps, 0 cpu ops" >"$T/want"
same "$T/want" "$T/out" "inspect tiny"

$PERFSTUDY inspect tests/data/jax/tiny.xplane.pb >"$T/out" 2>"$T/err" && ok || bad "inspect tiny xplane: $(cat "$T/err")"
echo "tests/data/jax/tiny.xplane.pb: xplane, 2 ranks, 7 kernels, 1 memcpy, 1 memset, 1 runtime, 2 annotations, 0 gpu annotations, 2 steps, 0 cpu ops" >"$T/want"
same "$T/want" "$T/out" "inspect tiny xplane"

# Process names: "/device:GPU:3 (pid 1)" is GPU 3; "/device:GPU:03" and "/device:GPU:7x" are no GPU.
$PERFSTUDY inspect tests/fuzz-regress/jax_trace/gpu-names.json >"$T/out" 2>"$T/err" && ok || bad "inspect gpu-names: $(cat "$T/err")"
grep -q ': jax-trace, 1 ranks, 1 kernels, ' "$T/out" && ok || bad "gpu-names: $(cat "$T/out")"

# --- the tiny trace, by hand ---
$PERFSTUDY build -q $TINY -o "$T/tiny" 2>"$T/err" && ok || bad "build tiny: $(cat "$T/err")"
D=$T/tiny/default/data
cat >"$T/want" <<'EOF'
run,rank,group,time_us,fraction
tiny.trace.json,0,matrix-mul,8.000,0.214759
tiny.trace.json,0,attention,0.000,0.000000
tiny.trace.json,0,communication,5.001,0.134251
tiny.trace.json,0,memory,4.250,0.114091
tiny.trace.json,0,elementwise,20.000,0.536898
tiny.trace.json,0,other,0.000,0.000000
tiny.trace.json,1,matrix-mul,0.000,0.000000
tiny.trace.json,1,attention,0.000,0.000000
tiny.trace.json,1,communication,6.000,0.500000
tiny.trace.json,1,memory,2.000,0.166667
tiny.trace.json,1,elementwise,4.000,0.333333
tiny.trace.json,1,other,0.000,0.000000
EOF
same "$T/want" "$D/groups.csv" "tiny groups.csv"
cat >"$T/want" <<'EOF'
run,rank,step,step_us
tiny.trace.json,0,1,50.000
tiny.trace.json,0,2,40.500
tiny.trace.json,1,1,50.000
tiny.trace.json,1,2,40.500
EOF
same "$T/want" "$D/steps.csv" "tiny steps.csv"
# busy RUN-DATA-DIR: run,rank,step,busy_us from step_breakdown.csv's GPU parts (integer ns, no rounding)
busy() {
	awk -F, 'NR > 1 && ($4 == "compute" || $4 == "memcpy" || $4 == "memset" || $4 == "communication") {
		split($5, p, "."); k = $1 "," $2 "," $3; if (!(k in ns)) order[++n] = k; ns[k] += p[1] * 1000 + p[2] }
		END { print "run,rank,step,busy_us"; for (i = 1; i <= n; i++) printf "%s,%d.%03d\n", order[i], ns[order[i]] / 1000, ns[order[i]] % 1000 }' "$1/step_breakdown.csv"
}
busy "$D" >"$T/got"
printf 'run,rank,step,busy_us\ntiny.trace.json,0,1,16.000\ntiny.trace.json,0,2,10.501\ntiny.trace.json,1,1,4.000\ntiny.trace.json,1,2,8.000\n' >"$T/want"
same "$T/want" "$T/got" "tiny busy time per step"
grep -q '^tiny.trace.json,0,HtoD,1,4096,3.250,' "$D/memops.csv" && ok || bad "tiny memops: HtoD 4096 B in 3.25 us"
[ "$(awk -F, '$3 == "jit_step" && $5 == "AllReduce" && $6 == "float32" && $10 == 1' "$D/collective_waits.csv" | wc -l)" = 2 ] &&
	ok || bad "tiny: the AllReduce matched on both ranks"

# The same events as XSpace (tests/data/jax/make_xplane.py wrote tiny.xplane.pb
# from tiny.trace.json: times in ps, step_num an int64 stat): the same tables.
$PERFSTUDY build -q tests/data/jax/tiny.xplane.pb -o "$T/tinyx" 2>"$T/err" && ok || bad "build tiny xplane: $(cat "$T/err")"
for f in groups steps memops; do
	sed 's/^tiny.trace.json,/tiny.xplane.pb,/' "$D/$f.csv" >"$T/want"
	same "$T/want" "$T/tinyx/default/data/$f.csv" "tiny xplane $f.csv"
done
busy "$T/tinyx/default/data" | sed 's/^tiny.xplane.pb,/tiny.trace.json,/' >"$T/got"
printf 'run,rank,step,busy_us\ntiny.trace.json,0,1,16.000\ntiny.trace.json,0,2,10.501\ntiny.trace.json,1,1,4.000\ntiny.trace.json,1,2,8.000\n' >"$T/want"
same "$T/want" "$T/got" "tiny xplane busy time per step"

# --- bad input: the place, not byte 0 ---
head -c 900 $TINY >"$T/trunc.json"
$PERFSTUDY inspect "$T/trunc.json" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "trunc.json:12:18: error: the document ends before its top-level object is closed at byte 900" "$T/err" &&
	ok || bad "truncated JAX trace: rc $rc, $(cat "$T/err")"

head -c 700 tests/data/jax/tiny.xplane.pb >"$T/cut.xplane.pb"
$PERFSTUDY inspect "$T/cut.xplane.pb" >/dev/null 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "cut.xplane.pb: error: truncated XSpace protobuf: the field at byte 0 runs past the end (byte 700)" "$T/err" &&
	ok || bad "truncated XSpace: rc $rc, $(cat "$T/err")"

# --- the bundled runs against the independent reading ---
$PERFSTUDY build -q experiments/h100x4/jax.yaml -o "$T/m" 2>"$T/err" && ok || bad "build jax.yaml: $(cat "$T/err")"
M=$T/m/h100x4-jax/data
grep -q '^jax-4gpu,"JAX, 4 GPUs, data parallel",4,4,' "$M/runs.csv" && ok || bad "jax-4gpu: 4 ranks from one file"
S=experiments/h100x4/traces
if command -v python3 >/dev/null; then
	J1=$(ls $S/jax-1gpu/profile/plugins/profile/*/vm.trace.json.gz) J4=$(ls $S/jax-4gpu/profile/plugins/profile/*/vm.trace.json.gz)
	X1=$(ls $S/jax-1gpu/profile/plugins/profile/*/vm.xplane.pb.gz) X4=$(ls $S/jax-4gpu/profile/plugins/profile/*/vm.xplane.pb.gz)
	for t in steps groups busy; do
		python3 tests/golden/jax_reference.py $t jax-1gpu="$J1" jax-4gpu="$J4" >"$T/ref_$t.csv" || bad "jax_reference.py $t"
		python3 tests/golden/jax_reference.py $t jax-1gpu="$X1" jax-4gpu="$X4" >"$T/refx_$t.csv" || bad "jax_reference.py $t (xplane)"
		same "$T/ref_$t.csv" "$T/refx_$t.csv" "reference $t: trace JSON and XSpace agree"
	done
	same "$T/ref_steps.csv" "$M/steps.csv" "jax steps.csv"
	same "$T/ref_groups.csv" "$M/groups.csv" "jax groups.csv"
	busy "$M" >"$T/got"
	same "$T/ref_busy.csv" "$T/got" "jax busy time per step"
	# every NCCL kernel of the 4 ranks is a matched collective
	n=$(python3 -c '
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
gpu = {e["pid"] for e in ev if e.get("name") == "process_name" and e["args"]["name"].startswith("/device:GPU:")}
print(sum(1 for e in ev if e.get("ph") == "X" and e.get("pid") in gpu and e["name"].startswith("ncclDevKernel_")))' "$J4")
	[ "$(awk -F, '$1 == "jax-4gpu" && $10 == 1' "$M/collective_waits.csv" | wc -l)" = "$n" ] && [ "$n" -gt 0 ] &&
		ok || bad "jax-4gpu: $n NCCL kernels, not all matched"
else
	skipped "python3 absent: the JAX runs against jax_reference.py"
fi

# --- the directory JAX made, given as a run: one file (the XSpace), the same tables ---
$PERFSTUDY build $S/jax-4gpu/profile -o "$T/d" 2>"$T/err" && ok || bad "build profile dir: $(cat "$T/err")"
grep -q '^perfstudy: 1 trace: 1 read' "$T/err" && grep -q '^perfstudy: reading .*/vm.xplane.pb.gz' "$T/err" &&
	ok || bad "profile dir: not its xplane.pb alone: $(cat "$T/err")"
for f in steps groups step_breakdown collective_waits; do
	awk -F, 'NR > 1 { sub(/^[^,]*,/, ""); print }' "$T/d/default/data/$f.csv" >"$T/got"
	awk -F, '$1 == "jax-4gpu" { sub(/^[^,]*,/, ""); print }' "$M/$f.csv" >"$T/want"
	same "$T/want" "$T/got" "profile dir (XSpace) $f.csv equals the manifest's (trace JSON)"
done
grep -q '^hardware,GPU model,NVIDIA H100 80GB HBM3,' "$T/d/default/data/system.csv" && ok || bad "XSpace: the GPU's name"
# two sessions are two recordings: refused
mkdir -p "$T/two/plugins/profile/a" "$T/two/plugins/profile/b"
cp $TINY "$T/two/plugins/profile/a/h.trace.json"
cp $TINY "$T/two/plugins/profile/b/h.trace.json"
$PERFSTUDY build -q "$T/two" -o "$T/two-out" 2>"$T/err"; rc=$?
[ $rc = 1 ] && grep -q "holds 2 JAX profiling sessions" "$T/err" && [ ! -e "$T/two-out" ] &&
	ok || bad "two sessions: rc $rc, $(cat "$T/err")"
# a session with trace JSON and perfetto JSON of the same events: the host's file only
mkdir -p "$T/one/plugins/profile/s"
cp $TINY "$T/one/plugins/profile/s/h.trace.json"
cp $TINY "$T/one/plugins/profile/s/perfetto_trace.json"
$PERFSTUDY build "$T/one" -o "$T/one-out" 2>"$T/err" && grep -q "reading .*/s/h.trace.json" "$T/err" &&
	! grep -q "reading .*perfetto" "$T/err" && ok || bad "session: not the host's file alone: $(cat "$T/err")"

finish
