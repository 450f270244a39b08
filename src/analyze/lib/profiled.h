/*
 * profiled.h: which iterations of a run's training log ran under the
 * profiler, as SQL conditions on an iterations row `i` of a run: its row
 * `x` of run_traces (FROM iterations i JOIN run_traces x ON x.id =
 * i.trace_id; id "x.run_id") or of runs (id "x.id").
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

/* Of the run whose row is x (of runs, or of run_traces), its id the SQL expression id. */
#define SQL_PROFILER_LO_OF(x, id)                                                                           \
	"coalesce((SELECT min(s.step) FROM steps s JOIN traces u ON u.id = s.trace_id WHERE u.run_id = " id \
	"), " x ".profiler_lo)"
#define SQL_PROFILER_HI_OF(x, id)                                                                           \
	"coalesce((SELECT max(s.step) FROM steps s JOIN traces u ON u.id = s.trace_id WHERE u.run_id = " id \
	"), " x ".profiler_hi)"

#define SQL_UNPROFILED_ITERATION_OF(x, id)                                                                      \
	"i.iteration >= 3 AND i.elapsed_ns > 0 AND NOT i.iteration BETWEEN coalesce(" SQL_PROFILER_LO_OF(x, id) \
	", 1000000000) - 1 AND coalesce(" SQL_PROFILER_HI_OF(x, id) ", -1000000000) + 2"

#define SQL_PROFILED_ITERATION_OF(x, id)                                                                            \
	"i.elapsed_ns > 0 AND i.iteration BETWEEN " SQL_PROFILER_LO_OF(x, id) " + 1 AND " SQL_PROFILER_HI_OF(x, id) \
	" + 1"

/* Of a run r of runs. */
#define SQL_UNPROFILED_ITERATION SQL_UNPROFILED_ITERATION_OF("r", "r.id")

#endif
