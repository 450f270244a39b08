#!/bin/bash
# t_formats_nvidia.sh: Nsight Systems SQLite exports, nvprof CSV (gpu-trace,
# gpu-summary) and .nvvp, and the Kineto corner cases of issue 3:
#   - small fixtures made here (tests/data/formats: SQL run through sqlite3,
#     hand-written CSV), tables compared with hand-computed expectations
#     (tests/e2e/expected/formats);
#   - bad input: exit 1 and one line naming the file and table or line;
#   - an experiment that mixes an nsys run and a Kineto run;
#   - the shared corpus (skipped when ../shared is absent): groups and
#     kernels checked against sqlite3 and Python over the raw files.
. "$(dirname "$0")/lib.sh"
F=tests/data/formats
E=tests/e2e/expected/formats

if ! command -v sqlite3 >/dev/null; then
	skipped "sqlite3 command not installed: SQLite fixtures not made"
	finish
	exit $?
fi
mkdir -p "$T/in"
sqlite3 "$T/in/nsys.sqlite" <$F/make_nsys.sql
sqlite3 "$T/in/nsys_lazy.sqlite" <$F/make_nsys_lazy.sql
sqlite3 "$T/in/prof.nvvp" <$F/make_nvvp.sql
cp $F/nvprof_gpu_trace.csv $F/nvprof_gpu_summary.csv $F/nvprof_gpu_summary_old.csv "$T/in/"
sum_before=$(sha256sum "$T/in/nsys.sqlite")

# --- inspect: format and counts, worked out from the fixtures by hand ---
(cd "$T/in" && "$OLDPWD/$PERFSTUDY" inspect nsys.sqlite nsys_lazy.sqlite prof.nvvp nvprof_gpu_trace.csv \
	nvprof_gpu_summary.csv nvprof_gpu_summary_old.csv) >"$T/inspect" 2>&1
cat >"$T/inspect.want" <<'WANT'
nsys.sqlite: nsys, 1 ranks, 4 kernels, 3 memcpy, 1 memset, 2 runtime, 2 annotations, 0 gpu annotations, 1 steps, 0 cpu ops, Test GPU <&>, 1 malformed events skipped
nsys_lazy.sqlite: nsys, 1 ranks, 2 kernels, 0 memcpy, 0 memset, 0 runtime, 0 annotations, 0 gpu annotations, 0 steps, 0 cpu ops, Lazy GPU
prof.nvvp: nvvp, 1 ranks, 3 kernels, 2 memcpy, 0 memset, 0 runtime, 1 annotations, 0 gpu annotations, 1 steps, 0 cpu ops, Tesla K20c
nvprof_gpu_trace.csv: nvprof, 1 ranks, 3 kernels, 1 memcpy, 1 memset, 0 runtime, 0 annotations, 0 gpu annotations, 0 steps, 0 cpu ops, Test GPU
nvprof_gpu_summary.csv: nvprof, 1 ranks, 0 kernels, 0 memcpy, 0 memset, 0 runtime, 0 annotations, 0 gpu annotations, 0 steps, 0 cpu ops, 3 summary rows (no timeline)
nvprof_gpu_summary_old.csv: nvprof, 1 ranks, 0 kernels, 0 memcpy, 0 memset, 0 runtime, 0 annotations, 0 gpu annotations, 0 steps, 0 cpu ops, 2 summary rows (no timeline)
WANT
same "$T/inspect.want" "$T/inspect" "inspect formats"

# --- build from the fixtures: groups, kernels, steps by hand ---
(cd "$T/in" && "$OLDPWD/$PERFSTUDY" build nsys.sqlite nsys_lazy.sqlite prof.nvvp nvprof_gpu_trace.csv \
	nvprof_gpu_summary.csv nvprof_gpu_summary_old.csv -o "$T/out") 2>"$T/err"
[ $? -eq 0 ] && ok || bad "formats build failed: $(cat "$T/err")"
for f in groups kernels steps; do
	same $E/$f.csv "$T/out/default/data/$f.csv" "formats $f.csv"
done
grep -qx "nsys.sqlite: table 'CUPTI_ACTIVITY_KIND_KERNEL', rowid 5: warning: skipped row: 'end' before 'start'" "$T/err" && ok ||
	bad "nsys skipped-row warning missing: $(grep warning "$T/err")"
[ "$(sha256sum "$T/in/nsys.sqlite")" = "$sum_before" ] && ok || bad "the nsys database was modified by reading it"
# What the store holds, against the fixture rows.
db="$T/out/perfstudy.db"
q() { sqlite3 "$db" "$1"; }
[ "$(q "SELECT name || '|' || bytes || '|' || copy_kind FROM gpu_activities WHERE run = 'nsys.sqlite' AND kind = 'memcpy' ORDER BY start_ns")" = \
  "Memcpy HtoD (Pageable -> Device)|4096|HtoD
Memcpy DtoD (Device -> Device)|1024|DtoD
Memcpy Unified Host-to-Device|64|Unified Host-to-Device" ] && ok || bad "nsys memcpy names, bytes, kinds"
[ "$(q "SELECT name || '|' || bytes || '|' || start_ns || '|' || dur_ns FROM gpu_activities WHERE run = 'nvprof_gpu_trace.csv' AND kind != 'kernel' ORDER BY start_ns")" = \
  "Memcpy HtoD (Pageable -> Device)|4096|1000020000|500
Memset (Device)|1536|1000030000|250" ] && ok || bad "nvprof memcpy/memset rows"
[ "$(q "SELECT d.name, d.sm_count, d.mem_bandwidth, d.cc FROM devices d JOIN traces t ON t.id = d.trace_id ORDER BY t.id")" = \
  "Test GPU <&>|132|4800000000000|9.0
Lazy GPU|108|2039040000000|8.0
Tesla K20c|13|208000000000|3.5
Test GPU|||" ] && ok || bad "devices: $(q "SELECT * FROM devices")"
[ "$(q "SELECT epoch_offset_ns FROM traces WHERE path LIKE '%nsys.sqlite'")" = 1696392839587175550 ] && ok || bad "nsys epoch offset"
[ "$(q "SELECT count(*) || '|' || sum(total_ns) FROM summaries")" = "5|12000" ] && ok || bad "summaries table"
grep -q "is a GPU summary without a timeline" "$T/out/default/index.html" && ok || bad "summary-only note missing"
# Run ids with '.' or '_' get the first 16 hex digits of their SHA-256 in figure names (t_hostile.sh).
h() { printf '%s' "$1" | sha256sum | cut -c1-16; }
for fig in group_fractions top_kernels_nsys_sqlite_$(h nsys.sqlite)_r0 \
	top_kernels_nvprof_gpu_summary_csv_$(h nvprof_gpu_summary.csv)_r0; do
	grep -q '<svg' "$T/out/default/figures/$fig.svg" 2>/dev/null && ok || bad "figure $fig missing"
done

# --- bad input: exit 1, one line naming the file and the table or line, no output ---
sqlite3 "$T/in/other.sqlite" "CREATE TABLE t(x); INSERT INTO t VALUES(1);"
sqlite3 "$T/in/nocol.sqlite" "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);
CREATE TABLE TARGET_INFO_GPU(id INTEGER); CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, deviceId INTEGER);"
sqlite3 "$T/in/texttime.sqlite" "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES(1,'k');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, streamId, demangledName); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES('abc', 5, 0, 7, 1);"
head -c 3000 "$T/in/nsys.sqlite" >"$T/in/truncated.sqlite"
printf '"Start","Duration","Device","Name"\ns,fortnights,,\n1.0,2.0,"G (0)","k"\n' >"$T/in/badunit.csv"
printf '"Start","Duration","Device","Name"\ns,us,,\n1.0,2.0,"G (0)","k"x\n' >"$T/in/badquote.csv"
printf '"Start","Duration","Device","Name"\ns,us,,\n1.0,2.0,"G (0)"\n' >"$T/in/short.csv"
printf '"Start","Duration","Device","Name"\ns,us,,\n1.0,abc,"G (0)","k"\n' >"$T/in/nan.csv"
check_bad() { # FILE EXPECTED-MESSAGE
	rm -rf "$T/bad"
	(cd "$T/in" && "$OLDPWD/$PERFSTUDY" build -q "$1" -o "$T/bad") 2>"$T/err"
	local rc=$?
	[ $rc -eq 1 ] && ok || bad "$1: exit $rc, expected 1"
	[ "$(cat "$T/err")" = "$2" ] && ok || bad "$1: message '$(cat "$T/err")', expected '$2'"
	[ ! -e "$T/bad" ] && ok || bad "$1: output left behind"
}
check_bad other.sqlite "other.sqlite: error: a SQLite database but not a profiler export: no table 'StringIds' with nsys tables (Nsight Systems), no table 'StringTable' with CUPTI_ACTIVITY_KIND_* tables (nvprof) and no rocpd_* tables (rocprofv3)"
check_bad nocol.sqlite "nocol.sqlite: error: table 'CUPTI_ACTIVITY_KIND_KERNEL': no column 'end' (not a profiler export this reader knows)"
check_bad texttime.sqlite "texttime.sqlite: error: table 'CUPTI_ACTIVITY_KIND_KERNEL': expected an integer in column 'start', got text 'abc'"
check_bad truncated.sqlite "truncated.sqlite: error: corrupt SQLite database: database disk image is malformed"
check_bad badunit.csv "badunit.csv:2: error: column 'Duration': expected a time unit (s, ms, us or ns) in the units row, got 'fortnights'"
check_bad badquote.csv "badquote.csv:3:20: error: malformed CSV at byte 61: expected ',' or the end of the line after a closing quote"
check_bad short.csv "short.csv:3: error: expected 4 fields as in the header, got 3"
check_bad nan.csv "nan.csv:3: error: column 'Duration': expected a non-negative number, got 'abc'"

# --- formats mixed in one experiment: an nsys run next to a Kineto run ---
cat >"$T/in/mixed.yaml" <<YAML
title: nsys and Kineto side by side
runs:
  - { id: from-nsys, gpus: 1, traces: nsys.sqlite }
  - { id: from-kineto, batch: 1, model: { name: tiny, layers: 2, hidden: 64, heads: 2, seq: 16, vocab: 100 },
      traces: $PWD/tests/data/small/study/run-a/rank0.json }
  - { id: from-nvprof-summary, traces: nvprof_gpu_summary.csv }
  - id: typed-in
    gpus: 1
    batch: 1
    model: { name: tiny, layers: 2, hidden: 64, heads: 2, seq: 16, vocab: 100 }
    measured: { iteration_ms: 0.2 }
YAML
$PERFSTUDY build -q "$T/in/mixed.yaml" -o "$T/mixed" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "mixed build failed: $(cat "$T/err")"
g="$T/mixed/mixed/data/groups.csv"
[ "$(grep -c '^from-nsys,0,' "$g")" = 6 ] && [ "$(grep -c '^from-kineto,0,' "$g")" = 6 ] &&
	[ "$(grep -c '^from-nvprof-summary,0,' "$g")" = 6 ] && ok || bad "mixed groups.csv: $(cat "$g")"
grep '^from-nsys,' "$g" | cmp -s - <(grep '^nsys.sqlite,' $E/groups.csv | sed 's/^nsys.sqlite,/from-nsys,/') && ok ||
	bad "mixed: the nsys run's groups differ from its own build"
svg="$T/mixed/mixed/figures/group_fractions.svg"
grep -q 'from-nsys' "$svg" && grep -q 'from-kineto' "$svg" && grep -q 'from-nvprof-summary' "$svg" && ok ||
	bad "mixed: group_fractions does not show all three runs"
# The typed-in run sits beside the trace runs in the step-time figure (the
# Kineto run's step is its one ProfilerStep#1 range: 100.25 us).
grep -q '^typed-in,1,1,200,manifest,' "$T/mixed/mixed/data/utilization.csv" && ok || bad "mixed: typed-in utilization row"
svg="$T/mixed/mixed/figures/step_time.svg"
grep -q 'typed-in (manifest)' "$svg" && grep -q 'from-kineto (profiled steps)' "$svg" && ok ||
	bad "mixed: step_time does not show the typed-in and the Kineto run side by side"
grep -q '^from-kineto,1,1,100.25,' "$T/mixed/mixed/data/utilization.csv" && ok || bad "mixed: Kineto run's step time"

# --- the shared corpus: counts and sums against sqlite3 and Python over the raw files ---
C=../shared/corpus
if [ ! -d $C/formats ]; then
	skipped "../shared/corpus absent: corpus nsys/nvprof checks"
	finish
	exit $?
fi
# Run ids are the paths below the files' common parent, formats/.
(cd $C/formats && "$OLDPWD/$PERFSTUDY" build -q nsys_sqlite/saxpy-mpi-cuda_nsys_perlmutter0.sqlite \
	nsys_sqlite/perlmutter-cloverleaf-cuda.sqlite nvprof/cfd_print-gpu-trace.csv nvprof/cfd_print-gpu-summary.csv \
	nvprof/magma_testing_dgeqrf_profile.nvvp -o "$T/cout") 2>"$T/err"
[ $? -eq 0 ] && ok || bad "corpus formats build failed: $(cat "$T/err")"
[ -s "$T/cout/default/index.html" ] && ok || bad "corpus formats experiment did not render"
K="$T/cout/default/data/kernels.csv"
G="$T/cout/default/data/groups.csv"
# Per kernel name: calls and total ns, from perfstudy's kernels.csv (us with 3 decimals back to ns).
ours() { # RUN -> "name|calls|total_ns" lines, sorted
	python3 - "$K" "$1" <<'PY'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["run"] == sys.argv[2]:
        us, _, frac = r["total_us"].partition(".")
        print("%s|%s|%d" % (r["name"], r["calls"], int(us) * 1000 + int(frac)))
PY
}
for db in saxpy-mpi-cuda_nsys_perlmutter0.sqlite perlmutter-cloverleaf-cuda.sqlite; do
	sqlite3 "file:$C/formats/nsys_sqlite/$db?immutable=1" "SELECT s.value || '|' || count(*) || '|' || sum(k.end - k.start)
		FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName GROUP BY s.value" | sort >"$T/want"
	ours nsys_sqlite/$db | sort >"$T/got"
	same "$T/want" "$T/got" "corpus $db kernels vs sqlite3"
	# Every group summed is all GPU activity: kernels + memcpy + memset.
	want=$(sqlite3 "file:$C/formats/nsys_sqlite/$db?immutable=1" "SELECT (SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL)
		+ (SELECT coalesce(sum(end - start), 0) FROM CUPTI_ACTIVITY_KIND_MEMCPY)")
	got=$(awk -F, -v r=nsys_sqlite/$db '$1 == r { split($4, p, "."); s += p[1] * 1000 + p[2] } END { printf "%.0f", s }' "$G")
	[ "$want" = "$got" ] && ok || bad "corpus $db: GPU time $got, sqlite3 says $want"
done
sqlite3 "file:$C/formats/nvprof/magma_testing_dgeqrf_profile.nvvp?immutable=1" "SELECT count(*) || '|' || sum(end - start)
	FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL" >"$T/want"
awk -F, '$1 == "nvprof/magma_testing_dgeqrf_profile.nvvp" { n += $(NF-4); split($(NF-3), p, "."); s += p[1] * 1000 + p[2] }
	END { printf "%d|%.0f\n", n, s }' "$K" >"$T/got"
same "$T/want" "$T/got" "corpus nvvp kernels vs sqlite3"
# nvprof gpu-trace: Start in s, Duration in ms (its units row); Python's Decimal, kernels only.
python3 - $C/formats/nvprof/cfd_print-gpu-trace.csv <<'PY' | sort >"$T/want"
import csv, sys
from decimal import Decimal, ROUND_HALF_UP
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("==")]
hdr, units = rows[0], rows[1]
scale = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}[units[hdr.index("Duration")]]
agg = {}
for r in rows[2:]:
    name, dur = r[hdr.index("Name")], r[hdr.index("Duration")]
    if name.startswith("[") or not dur:
        continue
    ns = int((Decimal(dur) * scale).to_integral_value(ROUND_HALF_UP))
    c, t = agg.get(name, (0, 0))
    agg[name] = (c + 1, t + ns)
for name, (c, t) in agg.items():
    print("%s|%d|%d" % (name, c, t))
PY
ours nvprof/cfd_print-gpu-trace.csv | sort >"$T/got"
same "$T/want" "$T/got" "corpus nvprof gpu-trace kernels vs Python"
# nvprof gpu-summary: Time is in ms (units row), Calls as given.
python3 - $C/formats/nvprof/cfd_print-gpu-summary.csv <<'PY' | sort >"$T/want"
import csv, sys
from decimal import Decimal
rows = [r for r in csv.reader(open(sys.argv[1])) if r and not r[0].startswith("==")]
hdr, units = rows[0], rows[1]
assert units[hdr.index("Time")] == "ms"
for r in rows[2:]:
    if len(r) == len(hdr) and r[0] == "GPU activities" and not r[-1].startswith("["):
        print("%s|%s|%d" % (r[-1], r[hdr.index("Calls")], int(Decimal(r[hdr.index("Time")]) * 10**6)))
PY
ours nvprof/cfd_print-gpu-summary.csv | sort >"$T/got"
same "$T/want" "$T/got" "corpus nvprof gpu-summary kernels vs Python"

# --- Kineto corner cases (item 7) ---
# ns display unit with fractional us timestamps: ts and dur stay microseconds.
python3 - $C/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz <<'PY' >"$T/want"
import gzip, json, sys
from decimal import Decimal, ROUND_HALF_UP
d = json.load(gzip.open(sys.argv[1]), parse_float=Decimal, parse_int=Decimal)
assert d["displayTimeUnit"] == "ns"
t = sum(int((Decimal(e["dur"]) * 1000).to_integral_value(ROUND_HALF_UP)) for e in d["traceEvents"]
        if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"))
print(t)
PY
$PERFSTUDY build -q $C/hta/ns_resolution_trace $C/hta/_history/large_integer_trace $C/hta/amd_trace $C/hta/cpu_only \
	-o "$T/k" 2>"$T/err"
[ $? -eq 0 ] && ok || bad "kineto corner cases build failed: $(cat "$T/err")"
awk -F, '$1 == "ns_resolution_trace" { split($4, p, "."); s += p[1] * 1000 + p[2] } END { printf "%.0f\n", s }' \
	"$T/k/default/data/groups.csv" >"$T/got"
same "$T/want" "$T/got" "ns_resolution_trace GPU time vs Python"
# A Comms Id of 10159970886766084423 (beyond int64) in args: the kernel's ts 100 and dur 50 us are read.
[ "$(sqlite3 "$T/k/perfstudy.db" "SELECT start_ns || '|' || dur_ns FROM gpu_activities WHERE run = '_history/large_integer_trace'")" = "100000|50000" ] &&
	ok || bad "large_integer_trace kernel times"
# AMD: HIP runtime calls under cuda_runtime are launches.
[ "$(sqlite3 "$T/k/perfstudy.db" "SELECT count(*) FROM launches l JOIN traces t ON t.id = l.trace_id JOIN runs r ON r.id = t.run_id WHERE r.run = 'amd_trace'")" = 21 ] &&
	ok || bad "AMD trace launches"
grep -q "has no GPU activity" "$T/k/default/index.html" && ok || bad "CPU-only note missing"
# One file that records no rank (no distributedInfo) is rank 0: normal input, not a warning (issue 43).
grep -q "mi250_minitoy_train_ROCm6_2_kineto.json.gz: warning: no rank recorded" "$T/k/default/index.html" &&
	bad "a one-file run without distributedInfo is warned about" || ok

# --- inspect names the format of every corpus file this area reads ---
$PERFSTUDY inspect $(find $C/formats/nsys_sqlite $C/formats/nvprof -name '*.sqlite' -o -name '*.nvvp' -o -name 'cfd_*.csv') \
	>"$T/inspect" 2>&1
[ "$(grep -c ': nsys, \|: nvprof, \|: nvvp, ' "$T/inspect")" = 5 ] && ok || bad "corpus inspect: $(cat "$T/inspect")"
# A directory holding an nvprof CSV is a run like a directory of Kineto files;
# its groups are those of the same file given directly (expected/formats).
mkdir -p "$T/dirrun/cfd"
cp tests/data/formats/nvprof_gpu_trace.csv "$T/dirrun/cfd/"
"$PERFSTUDY" build -q "$T/dirrun/cfd" -o "$T/dirout" 2>"$T/err" && ok || bad "directory of an nvprof CSV: $(cat "$T/err")"
grep '^nvprof_gpu_trace.csv,' tests/e2e/expected/formats/groups.csv | sed 's/^nvprof_gpu_trace.csv,/cfd,/' >"$T/dir.want"
grep '^cfd,' "$T/dirout/default/data/groups.csv" >"$T/dir.got"
same "$T/dir.want" "$T/dir.got" "groups of a directory run of an nvprof CSV"

finish
