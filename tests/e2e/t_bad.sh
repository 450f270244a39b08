#!/bin/bash
# t_bad.sh: the bad-input suite. Each case is one input from tests/bad/ (or
# made here: a FIFO, a device, an unreadable file, a symlink loop) built with
# `perfstudy build`; it pins the exit code and the exact stderr (progress lines
# "perfstudy: ..." aside), and checks that a failed build leaves no output
# and no temporary directory behind, and that the previous output survives.
# The first ten cases of tests/bad/ are checked in t_core.sh (check_bad).
. "$(dirname "$0")/lib.sh"

B=tests/bad
n_cases=0

# t EXIT INPUT... <<MSG: the build of INPUT exits EXIT with exactly MSG on stderr.
t() {
	local want=$1
	shift
	n_cases=$((n_cases + 1))
	cat >"$T/want"
	rm -rf "$T/o"
	$PERFSTUDY build "$@" -o "$T/o" 2>"$T/raw"
	local rc=$?
	grep -v '^perfstudy: ' "$T/raw" >"$T/got"
	[ "$rc" -eq "$want" ] && ok || bad "$*: exit $rc, want $want"
	same "$T/want" "$T/got" "$* message"
	if [ "$want" -ne 0 ]; then
		[ -e "$T/o" ] && bad "$*: output left behind" || ok
	fi
	if ls -d "$T"/o.tmp.* "$T"/o.old.* >/dev/null 2>&1; then bad "$*: temporary directory left behind"; else ok; fi
}

# --- JSON structure: simdjson gives no position for these; a bracket scan does ---
t 1 $B/trailing.json <<'MSG'
tests/bad/trailing.json:1:21: error: unexpected content after the top-level object at byte 20
MSG
t 1 $B/json-unclosed.json <<'MSG'
tests/bad/json-unclosed.json:3:1: error: expected an event object in 'traceEvents' at byte 81: the JSON document has an improper structure: missing or superfluous commas, braces, missing keys, etc
MSG

# --- gzip ---
t 1 $B/gzip-crc.json.gz <<'MSG'
tests/bad/gzip-crc.json.gz: error: corrupt gzip data near byte 82: incorrect data check
MSG
# ISIZE holds the size modulo 2^32: 4 GiB - 1 is the largest claim; 10 GB is claimed as 10 GB mod 4 GiB.
# Nothing is allocated from the claim (stream.c): it is checked against what inflates.
t 1 $B/gzip-isize-4gib.json.gz <<'MSG'
tests/bad/gzip-isize-4gib.json.gz: error: corrupt gzip data near byte 86: incorrect length check
MSG
t 1 $B/gzip-isize-10gb.json.gz <<'MSG'
tests/bad/gzip-isize-10gb.json.gz: error: corrupt gzip data near byte 86: incorrect length check
MSG
t 1 $B/gzip-header-only.json.gz <<'MSG'
tests/bad/gzip-header-only.json.gz: error: truncated gzip stream after 0 bytes of uncompressed data
MSG
t 1 $B/gzip-trailing-garbage.json.gz <<'MSG'
tests/bad/gzip-trailing-garbage.json.gz: error: trailing garbage after gzip data at byte 86
MSG
t 1 $B/gzip-empty.json.gz <<'MSG'
tests/bad/gzip-empty.json.gz: error: empty file (after inflating gzip)
MSG

# --- JSON: encoding, syntax, types, numbers ---
t 1 $B/invalid-utf8.json <<'MSG'
tests/bad/invalid-utf8.json:2:40: error: cannot parse JSON at byte 57: the input is not valid UTF-8
MSG
t 1 $B/invalid-utf8-overlong.json <<'MSG'
tests/bad/invalid-utf8-overlong.json:2:39: error: cannot parse JSON at byte 56: the input is not valid UTF-8
MSG
t 1 $B/event-not-object.json <<'MSG'
tests/bad/event-not-object.json:2:1: error: expected an event object in 'traceEvents' at byte 18: the JSON element does not have the requested type
MSG
t 1 $B/deep-nesting.json <<'MSG'
tests/bad/deep-nesting.json:1:18: error: expected an event object in 'traceEvents' at byte 17: the JSON element does not have the requested type
MSG
t 1 $B/binary.json <<'MSG'
tests/bad/binary.json: error: unknown format (first byte 0x89): expected a trace JSON (Kineto, JAX, PyTorch), a JAX .xplane.pb, a SQLite export (nsys, nvprof, rocprofv3), a CSV (nvprof, Nsight Compute, nsys NVTX), nvidia-smi output (XML, topo -m), or a Megatron or Lightning log
MSG
# JSON after more than 4 KB of blanks (5,000 newlines) was "not a Kineto JSON
# trace (first byte 0x0a)": the blanks are skipped to detect the format,
# and offsets still count them.
t 0 $B/blank-prefix.json <<'MSG'
tests/bad/blank-prefix.json: byte 5021: warning: skipped event 'k': negative 'dur'
tests/bad/blank-prefix.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'blank-prefix.json'
MSG
# Names reach the terminal escaped: a newline, an escape sequence and a C1
# control (U+009B, CSI) in a kernel name forged a line "perfstudy: wrote ...".
t 0 $B/escape-name.json <<'MSG'
tests/bad/escape-name.json: byte 18: warning: skipped event 'k\nperfstudy: wrote site/index.html\x1b[2J\u009b': negative 'dur'
tests/bad/escape-name.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'escape-name.json'
MSG
# A bad value skips its event (or, for an id, is taken as unknown), always aloud.
t 0 $B/nan-dur.json <<'MSG'
tests/bad/nan-dur.json: byte 18: warning: skipped event 'k': 'dur' is not a representable number
tests/bad/nan-dur.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'nan-dur.json'
MSG
t 0 $B/infinite-ts.json <<'MSG'
tests/bad/infinite-ts.json: byte 18: warning: skipped event 'k': 'ts' is not a representable number
tests/bad/infinite-ts.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'infinite-ts.json'
MSG
t 0 $B/negative-dur.json <<'MSG'
tests/bad/negative-dur.json: byte 81: warning: skipped event 'neg': negative 'dur'
MSG
t 0 $B/ts-beyond-int64.json <<'MSG'
tests/bad/ts-beyond-int64.json: byte 18: warning: skipped event 'k': 'ts' is not a representable number
tests/bad/ts-beyond-int64.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'ts-beyond-int64.json'
MSG
t 0 $B/end-beyond-int64.json <<'MSG'
tests/bad/end-beyond-int64.json: byte 18: warning: skipped event 'k': a start outside -2^60 to 3 * 2^60 ns (the years 1933 to 2079)
tests/bad/end-beyond-int64.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'end-beyond-int64.json'
MSG
t 0 $B/ids-beyond-int64.json <<'MSG'
tests/bad/ids-beyond-int64.json: byte 18: warning: event 'k': 'correlation' is not an integer in the int64 range; taken as unknown
MSG
t 0 $B/rank-beyond-int64.json <<'MSG'
tests/bad/rank-beyond-int64.json: warning: 'distributedInfo.rank' is not a rank (an integer from 0); ignored
MSG
t 0 $B/wrong-types.json <<'MSG'
tests/bad/wrong-types.json: byte 18: warning: skipped event 'k': 'ts' is not a representable number
tests/bad/wrong-types.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'wrong-types.json'
MSG
t 0 $B/empty-trace.json <<'MSG'
tests/bad/empty-trace.json: warning: no GPU activity (no kernel, memcpy or memset) in run 'empty-trace.json'
MSG

# --- ranks ---
t 1 $B/ranks-duplicate <<'MSG'
tests/bad/ranks-duplicate/b.json: error: run 'ranks-duplicate': rank 0 is also recorded by 'tests/bad/ranks-duplicate/a.json'
MSG
t 0 $B/ranks-missing <<'MSG'
tests/bad/ranks-missing/rank1.json: warning: run 'ranks-missing': traces of 1 of its 4 ranks (world_size 4); its totals cover only those
MSG
t 0 $B/ranks-clocks <<'MSG'
tests/bad/ranks-clocks/rank0.json: warning: run 'ranks-clocks': the clocks of rank 0 and rank 1 ('tests/bad/ranks-clocks/rank1.json') disagree: their traces do not overlap in time; times are not comparable across these ranks
MSG

# --- CSV and XML ---
t 1 $B/nvprof-unterminated-quote.csv <<'MSG'
tests/bad/nvprof-unterminated-quote.csv:6:43: error: malformed CSV at byte 316: unterminated quoted field
MSG
t 1 $B/nvprof-nan.csv <<'MSG'
tests/bad/nvprof-nan.csv:6: error: column 'Duration': expected a non-negative number, got 'nan'
MSG
t 1 $B/nvprof-negative-dur.csv <<'MSG'
tests/bad/nvprof-negative-dur.csv:6: error: column 'Duration': expected a non-negative number, got '-2.5'
MSG
t 1 $B/nvprof-short-row.csv <<'MSG'
tests/bad/nvprof-short-row.csv:6: error: expected 12 fields as in the header, got 9
MSG
# Misblamed as "not a Kineto JSON trace": an nvprof CSV whose lines end in
# CR alone, an nvidia-smi XML whose DTD pushes the root element past 4 KB.
t 1 $B/nvprof-cr-only.csv <<'MSG'
tests/bad/nvprof-cr-only.csv: error: lines end in CR alone, not LF or CRLF (convert them, e.g. tr '\r' '\n')
MSG
t 0 $B/nvsmi-long-dtd.xml <<'MSG'
tests/bad/nvsmi-long-dtd.xml: warning: no GPU activity (no kernel, memcpy or memset) in run 'nvsmi-long-dtd.xml'
MSG
t 1 $B/yaml-hardware-truncated-xml.yaml <<'MSG'
tests/bad/nvidia-smi-truncated.xml: error: line 86:17: malformed XML: Premature end of data in tag pcie_gen line 84
MSG

# --- SQLite exports that run their own SQL: only plain tables are read ---
# Made with sqlite3: StringIds a view over a never-ending recursive CTE (ran
# forever, filling the temp directory; inspect hung too), the kernel table a
# view with a 900 MB column (1.7 GB RSS), StringIds.value a generated column
# of 900 MB (ran forever).
t 1 $B/nsys-view-recursive.sqlite <<'MSG'
tests/bad/nsys-view-recursive.sqlite: error: table 'StringIds': is a view; only plain tables are read (a view or a generated column runs the file's own SQL)
MSG
t 1 $B/nsys-view-huge-string.sqlite <<'MSG'
tests/bad/nsys-view-huge-string.sqlite: error: table 'CUPTI_ACTIVITY_KIND_KERNEL': is a view; only plain tables are read (a view or a generated column runs the file's own SQL)
MSG
t 1 $B/nsys-generated-column.sqlite <<'MSG'
tests/bad/nsys-generated-column.sqlite: error: table 'StringIds': is a table with generated columns; only plain tables are read (a view or a generated column runs the file's own SQL)
MSG

# --- manifests ---
t 1 $B/yaml-tab.yaml <<'MSG'
tests/bad/yaml-tab.yaml:3:1: error: found character that cannot start any token (while scanning for the next token at 3:1)
MSG
t 1 $B/yaml-alias.yaml <<'MSG'
tests/bad/yaml-alias.yaml:2:23: error: alias '*t' is not supported, repeat the value instead
MSG
t 1 $B/yaml-wrong-type.yaml <<'MSG'
tests/bad/yaml-wrong-type.yaml:2:22: error: expected an integer for 'gpus', got 'two'
MSG
# profiler_steps (a log-only run's ProfilerStep numbers): one N or [LO, HI] with LO <= HI.
t 1 $B/yaml-profiler-steps.yaml <<'MSG'
tests/bad/yaml-profiler-steps.yaml:2:36: error: 'profiler_steps' [LO, HI] needs LO <= HI, got [5, 4]
MSG
t 1 $B/yaml-profiler-steps-three.yaml <<'MSG'
tests/bad/yaml-profiler-steps-three.yaml:2:32: error: 'profiler_steps' must be one step N or two, [LO, HI], got 3 items
MSG
t 1 $B/yaml-nan.yaml <<'MSG'
tests/bad/yaml-nan.yaml:2:25: error: expected a number for 'peak_tflops', got '.nan'
MSG
t 1 $B/yaml-int-overflow.yaml <<'MSG'
tests/bad/yaml-int-overflow.yaml:2:23: error: 'batch' must be at most 2147483647, got 99999999999999999999
MSG
t 1 $B/yaml-two-docs.yaml <<'MSG'
tests/bad/yaml-two-docs.yaml:3:1: error: expected one YAML document, found a second one
MSG
t 1 $B/yaml-invalid-utf8.yaml <<'MSG'
tests/bad/yaml-invalid-utf8.yaml:1:9: error: invalid leading UTF-8 octet
MSG
t 1 $B/yaml-empty.yaml <<'MSG'
tests/bad/yaml-empty.yaml:1:1: error: empty manifest, expected a mapping with 'title' and 'runs'
MSG
t 1 $B/yaml-not-mapping.yaml <<'MSG'
tests/bad/yaml-not-mapping.yaml:1:1: error: expected a mapping at the top of the manifest, got a sequence
MSG
t 1 $B/yaml-version.yaml <<'MSG'
tests/bad/yaml-version.yaml:1:10: error: unsupported manifest version 2 (expected 1)
MSG
t 1 $B/yaml-bad-regex.yaml <<'MSG'
tests/bad/yaml-bad-regex.yaml:3:38: error: invalid regex 'a((': Unmatched ( or \(
MSG
t 1 $B/yaml-nul-id.yaml <<'MSG'
tests/bad/yaml-nul-id.yaml:1:5: error: a NUL character (\0) is not allowed in a value
tests/bad/yaml-nul-id.yaml:3:13: error: a NUL character (\0) is not allowed in a value
MSG
# Ids name output files: nothing that could climb out of the output directory.
t 1 $B/yaml-run-id-traversal.yaml <<'MSG'
tests/bad/yaml-run-id-traversal.yaml:2:13: error: invalid run id '../../etc': use letters, digits, '.', '_' and '-'
MSG
t 1 $B/yaml-exp-id-traversal.yaml <<'MSG'
tests/bad/yaml-exp-id-traversal.yaml:1:5: error: invalid experiment id '../../tmp/x': use letters, digits, '_' and '-'
MSG
# A relative path stays inside the manifest's directory (README, "Trace paths and globs").
t 1 $B/yaml-outside.yaml <<'MSG'
tests/bad/yaml-outside.yaml:2:24: error: '../data/small/study/run-a/rank0.json' is outside the manifest's directory (write an absolute path to read a file elsewhere)
MSG
t 1 $B/yaml-outside-glob.yaml <<'MSG'
tests/bad/yaml-outside-glob.yaml:2:24: error: 'ranks-clocks/../../data/small/study/run-a/rank0.json' is outside the manifest's directory (write an absolute path to read a file elsewhere)
tests/bad/yaml-outside-glob.yaml:2:24: error: 'ranks-clocks/../../data/small/study/run-b/b.json' is outside the manifest's directory (write an absolute path to read a file elsewhere)
MSG
t 1 $B/yaml-outside-hardware.yaml <<'MSG'
tests/bad/yaml-outside-hardware.yaml:2:24: error: '../../experiments/h200/nvidia-smi-q.xml' is outside the manifest's directory (write an absolute path to read a file elsewhere)
MSG
# A directory where a file is expected.
t 1 $B/yaml-dir-as-trace.yaml <<'MSG'
tests/bad/yaml-dir-as-trace.yaml:2:24: error: 'ranks-clocks' is a directory, expected a trace file
MSG
t 1 $B/yaml-dir-as-hardware.yaml <<'MSG'
tests/bad/yaml-dir-as-hardware.yaml:2:24: error: 'ranks-clocks' is a directory, expected an nvidia-smi -q -x file
MSG

# --- files that are not regular files, made here ---
mkfifo "$T/fifo.json"
t 1 "$T/fifo.json" <<MSG
$T/fifo.json: error: is not a regular file (a FIFO), expected a trace file
MSG
t 1 /dev/zero <<'MSG'
/dev/zero: error: is not a regular file (a character device), expected a trace file
MSG
# A manifest is refused the same way before a byte is read: /dev/zero and
# /dev/urandom were read without end (24 GB, then killed), a FIFO blocked.
mkfifo "$T/fifo.yaml"
t 1 "$T/fifo.yaml" <<MSG
$T/fifo.yaml: error: is not a regular file (a FIFO), expected a manifest
MSG
ln -s /dev/zero "$T/zero.yaml"
t 1 "$T/zero.yaml" <<MSG
$T/zero.yaml: error: is not a regular file (a character device), expected a manifest
MSG
ln -s /dev/urandom "$T/urandom.yml"
t 1 "$T/urandom.yml" <<MSG
$T/urandom.yml: error: is not a regular file (a character device), expected a manifest
MSG
# A regular file is read up to 64 MiB (a sparse file: no disk used).
truncate -s 65M "$T/huge.yaml"
t 1 "$T/huge.yaml" <<MSG
$T/huge.yaml: error: manifest larger than 64 MiB, expected a study manifest
MSG
# A link that loops is bad input (exit 1) named as such, as in a glob or a run directory (docs/cli.md).
ln -s loop.json "$T/loop.json"
t 1 "$T/loop.json" <<MSG
$T/loop.json: error: a symbolic link that loops
MSG
echo x >"$T/o-file"
n_cases=$((n_cases + 1))
$PERFSTUDY build -q $B/ranks-missing -o "$T/o-file" 2>"$T/got"
rc=$?
echo "$T/o-file: error: output exists and is not a directory" >"$T/want"
[ $rc -eq 1 ] && ok || bad "output is a file: exit $rc"
same "$T/want" "$T/got" "output is a file message"

# A file without read permission. root reads anyway, so as root the build
# runs as nobody (setpriv) on a copy that nobody may enter; else it is skipped.
mkdir -p "$T/perm" && cp tests/data/small/study/run-a/rank0.json "$T/perm/rank0.json"
chmod 000 "$T/perm/rank0.json"
chmod 755 "$T" "$T/perm"
if [ "$(id -u)" -ne 0 ]; then
	t 3 "$T/perm/rank0.json" <<MSG
$T/perm/rank0.json: error: cannot open: Permission denied
MSG
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null &&
	setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$PWD/$PERFSTUDY" 2>/dev/null; then
	n_cases=$((n_cases + 1))
	mkdir -p "$T/perm/out" && chmod 777 "$T/perm/out"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$PWD/$PERFSTUDY" build -q "$T/perm/rank0.json" \
		-o "$T/perm/out/o" 2>"$T/got"
	rc=$?
	echo "$T/perm/rank0.json: error: cannot open: Permission denied" >"$T/want"
	[ $rc -eq 3 ] && ok || bad "unreadable file: exit $rc, want 3"
	same "$T/want" "$T/got" "unreadable file message"
else
	skipped "unreadable file: running as root without a usable setpriv"
fi
chmod 644 "$T/perm/rank0.json"

# --- a failed build leaves the previous output as it was ---
$PERFSTUDY build -q tests/data/small/study/run-a -o "$T/prev" 2>/dev/null
cp -r "$T/prev" "$T/prev.copy"
for f in gzip-crc.json.gz invalid-utf8.json yaml-outside.yaml ranks-duplicate; do
	$PERFSTUDY build -q --force $B/$f -o "$T/prev" 2>/dev/null
	[ $? -eq 1 ] && ok || bad "rebuild from $f: want exit 1"
	if diff -r "$T/prev.copy" "$T/prev" >/dev/null; then ok; else bad "rebuild from $f changed the previous output"; fi
done
ls -d "$T"/prev.tmp.* "$T"/prev.old.* >/dev/null 2>&1 && bad "failed rebuilds left temporary directories" || ok

[ $n_cases -ge 30 ] && ok || bad "only $n_cases cases"
echo "t_bad: $n_cases bad-input cases (and 10 in t_core.sh)"
finish
