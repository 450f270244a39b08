#!/bin/sh
# make_traces.sh: writes the tiny Kineto traces of the history tests, one
# per run and variant: ProfilerStep#N host ranges of the given durations
# (microseconds, in the order given), 200 us apart, each with one kernel
# of half its length. Run from this directory; the .json files are
# committed, this only says how they were made.
trace() { # FILE DURATION...
	f=$1
	shift
	{
		printf '{"distributedInfo": {"rank": 0, "world_size": 1}, "traceEvents": [\n'
		n=1
		for d in "$@"; do
			ts=$((1000 + n * 200))
			printf '{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d", "pid": 1, "tid": 1, "ts": %d, "dur": %d},\n' "$n" "$ts" "$d"
			printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %d, "dur": 4, "args": {"correlation": %d}},\n' $((ts + 1)) "$n"
			printf '{"ph": "X", "cat": "kernel", "name": "gemm_kernel", "pid": 0, "tid": 7, "ts": %d, "dur": %d, "args": {"device": 0, "stream": 7, "correlation": %d}},\n' $((ts + 6)) $((d / 2)) "$n"
			n=$((n + 1))
		done
		printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": %d, "dur": 2}\n]}\n' $((1000 + n * 200))
	} > "$f"
}
# night 1: 6 steps, the even numbers 96..106 (shuffled)
trace d1.json 100 104 98 102 106 96
# night 1 again, re-profiled within noise: the odd numbers 97..107
trace d1-rerun.json 101 105 99 103 107 97
# night 2: 9 steps, the odd numbers 93..109
trace d2.json 99 103 97 101 105 95 107 93 109
# night 2 re-profiled after a regression: 9 steps, the odd numbers 113..129
trace d2-slow.json 119 123 117 121 125 115 127 113 129
# night 3: 9 steps, the even numbers 108..124
trace d3.json 116 110 120 108 124 112 118 114 122
