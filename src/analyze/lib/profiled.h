/*
 * profiled.h: which iterations of a run's training log ran under the
 * profiler, as SQL conditions on an iterations row `i` of a run `r`
 * (FROM iterations i JOIN traces t ON t.id = i.trace_id JOIN runs r ON
 * r.id = t.run_id).
 *
 * torch.profiler counts its steps from 0 and a training log its iterations
 * from 1, so ProfilerStep#N is iteration N + 1. With schedule(wait, warmup,
 * active) the profiler already records (and slows) the warm-up iterations
 * before the first profiled one, and the iteration after the last pays for
 * the trace's export. So, with lo and hi the smallest and largest N of the
 * run's ProfilerStep#N:
 *   profiled:   iterations lo + 1 .. hi + 1 (the steps the traces hold);
 *   unprofiled: iterations from the third on (the first two hold start-up:
 *               compilation, allocator, autotuning) outside lo - 1 .. hi + 2
 *               (the two warm-up iterations, the profiled ones, the export).
 * A run kept as a training log alone takes lo and hi from its manifest's
 * profiler_steps (runs.profiler_lo, runs.profiler_hi); the traces' own
 * steps win where both are there. A run with neither has no profiled
 * iteration; its unprofiled ones are all from the third on.
 */
#ifndef PERFSTUDY_PROFILED_H
#define PERFSTUDY_PROFILED_H

#define SQL_PROFILER_LO \
	"coalesce((SELECT min(s.step) FROM steps s JOIN traces u ON u.id = s.trace_id WHERE u.run_id = r.id), r.profiler_lo)"
#define SQL_PROFILER_HI \
	"coalesce((SELECT max(s.step) FROM steps s JOIN traces u ON u.id = s.trace_id WHERE u.run_id = r.id), r.profiler_hi)"

#define SQL_UNPROFILED_ITERATION                                                                        \
	"i.iteration >= 3 AND i.elapsed_ns > 0 AND NOT i.iteration BETWEEN coalesce(" SQL_PROFILER_LO \
	", 1000000000) - 1 AND coalesce(" SQL_PROFILER_HI ", -1000000000) + 2"

#define SQL_PROFILED_ITERATION \
	"i.elapsed_ns > 0 AND i.iteration BETWEEN " SQL_PROFILER_LO " + 1 AND " SQL_PROFILER_HI " + 1"

#endif
