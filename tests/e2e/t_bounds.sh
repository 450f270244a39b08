#!/bin/bash
# t_bounds.sh: the times and sizes perfstudy takes (issue #51 item 10).
# Values the readers accepted overflowed int64 in the analyses: events at
# +-9e15 us (gpu_timeline.c: 9000000000000001000 - -9000000000000000000 under
# UBSan; the merged trace wrote ts -446744073709551.616), "In msg nelems"
# 2^62 (collectives.c: 2^62 * 4; bytes 0), ProfilerStep ranges of 4.6e18 ns
# (negative step times). ingest.h bounds them once: a start from -2^60 to
# 3 * 2^60 ns, a duration up to 2^52 ns, at most 2^48 elements; the readers
# skip an event outside with a warning naming the file and the byte, a size
# past its bound is taken as unknown with a warning. Each check failed on
# the build before the fix (wrong numbers in the plain build, a UBSan stop
# in the sanitizer build); the expected numbers and byte offsets come from
# Python over the files written here.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { skipped "python3 not installed"; finish; exit; }

python3 - "$T/in" <<'PY'
import json, os, sys
out = sys.argv[1]
os.makedirs(out)
def dump(name, ev):
    text = '{"schemaVersion": 1, "traceEvents": [\n' + ",\n".join(json.dumps(e) for e in ev) + "\n]}\n"
    open(os.path.join(out, name), "w").write(text)
    return text
step = lambda n, ts, dur: {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % n, "pid": 1, "tid": 1,
                           "ts": ts, "dur": dur}
def kern(name, ts, dur, **a):
    return {"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7, "ts": ts, "dur": dur,
            "args": dict({"device": 0, "stream": 7}, **a)}
def at(text, e):
    return text.index(json.dumps(e))   # the byte where the event's object begins
# 1. kernels at +-9e15 us beside sound ones; k runs 100 + 300 us
far, early = kern("far", 9e15, 1), kern("early", -9e15, 1)
t = dump("times.json", [step(1, 1000, 1000), kern("k", 1100, 100), far, early, step(2, 2000, 1000), kern("k", 2100, 300)])
msg = "a start outside -2^60 to 3 * 2^60 ns (the years 1933 to 2079)"
w = ["%s/times.json: byte %d: warning: skipped event 'far': %s" % (out, at(t, far), msg),
     "%s/times.json: byte %d: warning: skipped event 'early': %s" % (out, at(t, early), msg)]
open(out + "/times.want", "w").write("\n".join(w) + "\n")
# 2. an all-reduce of 2^62 elements: its size is unknown, not 2^62 * 4 bytes
nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL"
dump("nelems.json", [step(1, 1000, 1000), kern(nccl, 1100, 100, **{"Collective name": "allreduce",
     "In msg nelems": 2**62, "Out msg nelems": 2**62, "dtype": "Float", "Group size": 2}), kern("k", 1300, 100)])
w = ["%s/nelems.json: warning: '%s': '%s msg nelems' %d is more than %d; taken as unknown" % (out, nccl, d, 2**62, 2**48)
     for d in ("In", "Out")]
open(out + "/nelems.want", "w").write("\n".join(w) + "\n")
# 3. two ProfilerStep#1 ranges of 4.6e18 ns (over 2^52 ns) and a sound step 2 of 1000 us
s1, s1b = step(1, 1000, 4.6e15), step(1, 2000, 4.6e15)
t = dump("steps.json", [s1, s1b, kern("k", 1100, 100), step(2, 5000, 1000), kern("k", 5100, 200)])
msg = "a duration over 2^52 ns (52 days)"
w = ["%s/steps.json: byte %d: warning: skipped event 'ProfilerStep#1': %s" % (out, at(t, e), msg) for e in (s1, s1b)]
open(out + "/steps.want", "w").write("\n".join(w) + "\n")
# 4. the bounds themselves are taken: a kernel starting at 3 * 2^60 ns lasting 2^52 ns, one at -2^60 ns
# (as exact decimal texts: 3 * 2^60 ns = 3458764513820540.928 us, a float would round it past the bound)
def exact_us(ns):
    return "%s%d.%03d" % ("-" if ns < 0 else "", abs(ns) // 1000, abs(ns) % 1000)
ev = [step(1, 1000, 1000), kern("k", 1100, 100), kern("last", "TS_LAST", "DUR_LAST"), kern("first", "TS_FIRST", 1)]
t = dump("edge.json", ev)
for k, ns in (("TS_LAST", 3 * 2**60), ("DUR_LAST", 2**52), ("TS_FIRST", -2**60)):
    t = t.replace('"%s"' % k, exact_us(ns))
open(os.path.join(out, "edge.json"), "w").write(t)
PY

# build NAME: builds $T/in/NAME.json into $T/NAME; its warnings (progress lines aside) in $T/NAME.got
build() {
	$PERFSTUDY build "$T/in/$1.json" -o "$T/$1" 2>"$T/$1.raw"
	local rc=$?
	[ $rc -eq 0 ] && ok || bad "$1: exit $rc, want 0: $(head -c 400 "$T/$1.raw")"
	grep -v '^perfstudy: ' "$T/$1.raw" >"$T/$1.got"
}

build times
same "$T/in/times.want" "$T/times.got" "events at +-9e15 us: the warnings"
printf 'times.json,0,k,other,2,400.000\n' >"$T/want"
cut -d, -f1-6 "$T/times/default/data/kernels.csv" | tail -n +2 >"$T/got"
same "$T/want" "$T/got" "events at +-9e15 us: kernels.csv keeps the sound kernels only"
printf 'times.json,0,1,1000.000\ntimes.json,0,2,1000.000\n' >"$T/want"
tail -n +2 "$T/times/default/data/steps.csv" >"$T/got"
same "$T/want" "$T/got" "events at +-9e15 us: steps.csv"

build nelems
same "$T/in/nelems.want" "$T/nelems.got" "2^62 elements: the warnings"
printf 'nelems.json,0,AllReduce,1,100.000,,,\n' >"$T/want"
tail -n +2 "$T/nelems/default/data/collectives.csv" >"$T/got"
same "$T/want" "$T/got" "2^62 elements: collectives.csv has no bytes"

build steps
same "$T/in/steps.want" "$T/steps.got" "4.6e18 ns steps: the warnings"
printf 'steps.json,0,2,1000.000\n' >"$T/want"
tail -n +2 "$T/steps/default/data/steps.csv" >"$T/got"
same "$T/want" "$T/got" "4.6e18 ns steps: steps.csv has the sound step only"

build edge
[ -s "$T/edge.got" ] && bad "the bounds themselves: warned: $(head -c 400 "$T/edge.got")" || ok
cut -d, -f3,5,6 "$T/edge/default/data/kernels.csv" | tail -n +2 | sort >"$T/got"
printf 'first,1,1.000\nk,1,100.000\nlast,1,4503599627370.496\n' >"$T/want"
same "$T/want" "$T/got" "the bounds themselves: kernels.csv"

finish
