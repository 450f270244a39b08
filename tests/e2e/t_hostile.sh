#!/bin/bash
# t_hostile.sh: hostile inputs that need more than t_bad.sh's exit code and
# message: outputs checked for what they hold, inputs generated here, and
# memory measured (peak RSS from /usr/bin/time, printed in the log and
# compared with the documented bound; never a wall-clock limit).
. "$(dirname "$0")/lib.sh"

B=tests/bad

# --- a NUL inside a name: kept, shown as U+2400, never a cut ---
# "gemm\u0000_fp16" and "gemm\u0000_fp32" were one kernel "gemm" with 2 calls.
for f in nul-name.json nvprof-nul-name.csv; do
	rm -rf "$T/o"
	$PERFSTUDY build -q $B/$f -o "$T/o" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] && ok || bad "$f: exit $rc, want 0"
	cut -d, -f5,7 "$T/o/default/data/top_kernels.csv" | sort >"$T/got"
	printf 'gemm\342\220\200_fp16,1\ngemm\342\220\200_fp32,1\nname,calls\n' >"$T/want"
	same "$T/want" "$T/got" "$f: kernels named with a NUL"
done

finish
