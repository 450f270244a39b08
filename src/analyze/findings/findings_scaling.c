/*
 * findings_scaling.c: the scaling rule of findings.csv (findings.c applies
 * it first for each run): every run with more GPUs than its baseline in
 * scaling.csv, its speedup against the baseline and the ideal (the GPU
 * ratio), with the efficiency; from the training logs' unprofiled
 * iterations where both runs have a log, else from the profiled steps.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "analyze/findings/findings_int.h"
#include "analyze/findings/findings_rules.h"
#include "analyze/time/profiler_overhead.h"
#include "util/buf.h"

/*
 * The run scaling.csv measures run against: its baseline column where it
 * has one, else the run of the same model with the fewest GPUs (the first
 * in manifest order), as scaling.csv chooses it.
 */
static const char *baseline_of(const struct table *runs, const struct table *sc, size_t scrow, const char *run)
{
	const char *b = text(sc, scrow, col(sc, SCL_BASELINE));
	if (b)
		return b;
	int crun = col(runs, RUNS_RUN), cm = col(runs, RUNS_MODEL), cg = col(runs, RUNS_GPUS);
	const char *model = NULL;
	for (size_t r = 0; r < runs->nrows && !model; r++)
		if (text(runs, r, crun) && !strcmp(text(runs, r, crun), run))
			model = text(runs, r, cm);
	if (!model)
		return NULL;
	double best = INFINITY;
	for (size_t r = 0; r < runs->nrows; r++) {
		const char *m = text(runs, r, cm);
		double g = num(runs, r, cg);
		if (m && !strcmp(m, model) && g < best) {
			best = g;
			b = text(runs, r, crun);
		}
	}
	return b;
}

void findings_rule_scaling(struct findings *f, const struct analysis_result *res, const struct table *runs,
			  const struct table *sc, const char *run)
{
	int crun = col(sc, SCL_RUN), cs = col(sc, SCL_SPEEDUP), cg = col(sc, SCL_GPUS), ce = col(sc, SCL_EFFICIENCY),
	    cls = col(sc, SCL_LOG_SPEEDUP), cle = col(sc, SCL_LOG_EFFICIENCY), cpl = col(sc, SCL_PAST_LINEAR);
	if (crun < 0 || cs < 0 || cg < 0 || ce < 0)
		return;
	for (size_t r = 0; r < sc->nrows; r++) {
		const char *rr = text(sc, r, crun);
		double s = num(sc, r, cs), g = num(sc, r, cg), e = num(sc, r, ce);
		double ls = cls >= 0 ? num(sc, r, cls) : NAN, le = cle >= 0 ? num(sc, r, cle) : NAN;
		if (!rr || strcmp(rr, run) || isnan(s) || isnan(e) || isnan(g) || e <= 0)
			continue;
		double ideal = s / e; /* efficiency = speedup / (n / g) */
		if (ideal < 1.5)
			continue; /* the baseline itself, or a run with as many GPUs */
		const char *base = baseline_of(runs, sc, r, run);
		int past = num(sc, r, cpl) == 1; /* beyond the medians' noise (scaling.csv) */
		if (!isnan(ls) && !isnan(le) && le > 0) {
			int64_t na = profiler_unprofiled_count(res, run), nb = base ? profiler_unprofiled_count(res, base) : 0;
			/* the training, not the profiler: the log's unprofiled iterations (profiler_overhead.csv) */
			buf_printf(&f->s, "%s trains at %.2fx the throughput of %s with %.0fx its GPUs (%.0f %% scaling "
				   "efficiency, from the training logs' unprofiled iterations)%s", run, ls,
				   base ? base : "its baseline", ideal, 100 * le, ls < 1 ? ": slower than the baseline" : "");
			if (fabs(s - ls) > SCALING_SPLIT * ls)
				buf_printf(&f->s, "; its profiled steps say %.2fx (%.0f %%): the profiler slowed the runs "
					   "unevenly (profiler_overhead.csv)", s, 100 * e);
			/* fewer than 5 samples a side: said, with the counts */
			if (na < 5 || nb < 5)
				buf_printf(&f->s, " (from only %lld and %lld unprofiled iterations: too few to measure "
						  "their noise)", (long long)na, (long long)nb);
			if (past)
				buf_adds(&f->s, "; more than linear is not plausible: see the notes on scaling.csv");
			findings_add(f, run, -1, ls, "table-scaling",
			    "scaling: every run with more GPUs than its baseline; speedup and efficiency from the training "
			    "logs' unprofiled iterations where both runs have a log (scaling.csv log_speedup), else from "
			    "the profiled steps");
			continue;
		}
		buf_printf(&f->s, "%s runs at %.2fx the throughput of %s with %.0fx its GPUs (%.0f %% scaling efficiency)%s",
			   run, s, base ? base : "its baseline",
			   ideal, 100 * e, s < 1 ? ": slower than the baseline" : "");
		if (past)
			buf_adds(&f->s, "; more than linear is not plausible: see the notes on scaling.csv");
		findings_add(f, run, -1, s, "table-scaling",
		    "scaling: every run with more GPUs than its baseline; speedup and efficiency from the training "
		    "logs' unprofiled iterations where both runs have a log (scaling.csv log_speedup), else from "
		    "the profiled steps");
	}
}
