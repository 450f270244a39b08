/*
 * step_diff.c: where the extra time of a run's step over its baseline's
 * goes (issue 28, point 7): step_diff.csv and figure step_diff.
 *
 * Each run's step, mean over its ranks of their mean per step, is split
 * into a partition (each instant of a step in exactly one part):
 *   busy          the GPU runs compute kernels, copies or memsets;
 *   exposed comm  only communication kernels run, not waiting;
 *   exposed wait  only a collective runs, waiting for another rank;
 *   idle          nothing runs on the GPU (mostly waiting for the host:
 *                 gpu_idle.csv says how much).
 * A multi-rank run takes the partition of straggler_ranks.csv
 * (*_per_step_us, crossrank_waits.c); a one-rank run, which has no rank to wait
 * for, takes ranks.csv: idle_us, and busy = step_us - idle_us (its
 * communication kernels, if any, count as busy); a figure whose runs all
 * ran on one GPU only draws busy and idle (issue #57: no "wait for
 * another rank" on one GPU). The baseline is the run scaling.csv
 * measures the run against. Per run with a baseline other than
 * itself: extra = its step - the baseline's, and the extra of each part,
 * which add up to it (to the ns; each is rounded to the ns). The steps are
 * the profiled ones (profiler_overhead.csv says how much the profiler
 * slowed each run), so this says where profiled time goes, not the
 * training's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/history/history.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/models/models.h"
#include "analyze/ranks/ranks_tables.h"

enum { P_BUSY, P_COMM, P_WAIT, P_IDLE, NPART };

static const char *const part_names[NPART] = {"compute and copies", "exposed communication",
					      "exposed wait for another rank", "idle"};

struct part {
	double step, p[NPART]; /* ns per step, mean over ranks */
	int ranks;
};

/* A COL_US cell in ns, or NAN. */
static double ns_of(const struct table *t, size_t row, int col)
{
	if (col < 0)
		return NAN;
	const struct cell *c = table_cell(t, row, (size_t)col);
	return c->null ? NAN : (double)c->v.i;
}

static int text_is(const struct table *t, size_t row, int col, const char *s)
{
	const struct cell *c = col >= 0 ? table_cell(t, row, (size_t)col) : NULL;
	return c && !c->null && c->v.text && !strcmp(c->v.text, s);
}

/* The partition of run's step; 0, or -1 when no table has the run. */
static int part_of(const struct analysis_result *res, const char *run, struct part *out)
{
	memset(out, 0, sizeof(*out));
	const struct table *sr = result_table(res, "straggler_ranks");
	if (sr) {
		int crun = SR_RUN, cs = SR_STEP_PER_STEP_US;
		int cp[NPART] = {SR_BUSY_PER_STEP_US, SR_EXPOSED_COMM_PER_STEP_US,
				 SR_EXPOSED_WAIT_PER_STEP_US, SR_IDLE_PER_STEP_US};
		for (size_t r = 0; crun >= 0 && r < sr->nrows; r++) {
			if (!text_is(sr, r, crun, run) || isnan(ns_of(sr, r, cs)))
				continue;
			out->step += ns_of(sr, r, cs);
			for (int p = 0; p < NPART; p++)
				out->p[p] += ns_of(sr, r, cp[p]);
			out->ranks++;
		}
	}
	if (!out->ranks) { /* one rank (or no matched collectives): ranks.csv, mean over steps per rank */
		const struct table *rk = result_table(res, "ranks");
		int crun = rk ? RANKS_RUN : -1, crank = rk ? RANKS_RANK : -1;
		int cs = rk ? RANKS_STEP_US : -1, ci = rk ? RANKS_IDLE_US : -1;
		int64_t rank = -1;
		size_t nsteps = 0;
		for (size_t r = 0; crun >= 0 && crank >= 0 && r < rk->nrows; r++) {
			if (!text_is(rk, r, crun, run))
				continue;
			if (rank >= 0 && table_cell(rk, r, (size_t)crank)->v.i != rank)
				return -1; /* several ranks without straggler_ranks rows: no partition to take */
			rank = table_cell(rk, r, (size_t)crank)->v.i;
			double s = ns_of(rk, r, cs), i = ns_of(rk, r, ci);
			if (isnan(s) || isnan(i))
				continue;
			out->step += s;
			out->p[P_IDLE] += i;
			out->p[P_BUSY] += s - i;
			nsteps++;
		}
		if (!nsteps)
			return -1;
		out->step /= (double)nsteps;
		for (int p = 0; p < NPART; p++)
			out->p[p] /= (double)nsteps;
		out->ranks = 1;
		return 0;
	}
	out->step /= out->ranks;
	for (int p = 0; p < NPART; p++)
		out->p[p] /= out->ranks;
	return 0;
}

/* The run's gpus in scaling.csv, or 0. */
static int64_t gpus_of(const struct table *sc, const char *run)
{
	for (size_t r = 0; r < sc->nrows; r++)
		if (text_is(sc, r, SCL_RUN, run)) {
			const struct cell *g = table_cell(sc, r, SCL_GPUS);
			return g->null ? 0 : g->v.i;
		}
	return 0;
}

static int analysis_step_diff(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	(void)ctx;
	const struct table *sc = result_table(out, "scaling");
	int crun = sc ? SCL_RUN : -1, cbase = sc ? SCL_BASELINE : -1;
	if (crun < 0 || cbase < 0)
		return 0;
	/*
	 * Whether every run drawn (each run with a baseline, and that baseline)
	 * ran on one GPU (scaling.csv gpus) and has its one rank: then no part
	 * waits for another rank or communicates, and the figure leaves those
	 * two parts out (issue #57). A run of more GPUs with one rank's trace
	 * waited unseen: it keeps them.
	 */
	int one_rank = 1;
	for (size_t r = 0; r < sc->nrows && one_rank; r++) {
		const struct cell *a = table_cell(sc, r, (size_t)crun), *b = table_cell(sc, r, (size_t)cbase);
		struct part pr, pb;
		if (a->null || b->null || !strcmp(a->v.text, b->v.text) || part_of(out, a->v.text, &pr) < 0 ||
		    part_of(out, b->v.text, &pb) < 0)
			continue;
		one_rank = pr.ranks == 1 && pb.ranks == 1 && gpus_of(sc, a->v.text) == 1 && gpus_of(sc, b->v.text) == 1;
	}
	struct table *t = table_new("step_diff", "Where the extra time of a run's step over its baseline's goes",
				    TABLE_SCHEMA(STEP_DIFF_COLUMNS));
	struct chart *c = chart_new(CHART_STACKED_BAR, "step_diff",
				    one_rank ? "Where the step goes, against the baseline run (one GPU each)"
					     : "Where the step goes, against the baseline run (mean over ranks)",
				    "time per step (ms)");
	chart_set_x_axis(c, "run (baseline first)", CHART_SCALE_LINEAR);
	size_t series[NPART];
	for (int p = 0, k = 0; p < NPART; p++)
		if (!one_rank || (p != P_COMM && p != P_WAIT)) {
			series[p] = (size_t)k++;
			chart_add_series(c, part_names[p]);
		} else {
			series[p] = SIZE_MAX;
		}
	struct buf seen;
	buf_init(&seen);
	for (size_t r = 0; r < sc->nrows; r++) {
		const struct cell *a = table_cell(sc, r, (size_t)crun), *b = table_cell(sc, r, (size_t)cbase);
		if (a->null || b->null || !strcmp(a->v.text, b->v.text))
			continue;
		struct part pr, pb;
		if (part_of(out, a->v.text, &pr) < 0 || part_of(out, b->v.text, &pb) < 0)
			continue;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, a->v.text);
		table_set_text(t, row, 1, b->v.text);
		table_set_int(t, row, 2, pr.ranks);
		table_set_ns(t, row, 3, llround(pr.step));
		table_set_ns(t, row, 4, llround(pb.step));
		table_set_ns(t, row, 5, llround(pr.step - pb.step));
		for (int p = 0; p < NPART; p++)
			table_set_ns(t, row, 6 + (size_t)p, llround(pr.p[p] - pb.p[p]));
		/* the baseline's bar once, before the first run measured against it */
		const struct part *bars[2] = {&pb, &pr};
		const char *names[2] = {b->v.text, a->v.text};
		for (int k = 0; k < 2; k++) {
			struct buf key;
			buf_init(&key);
			buf_printf(&key, "\n%s\n", names[k]);
			if (k == 0 && strstr(seen.data ? seen.data : "", key.data)) {
				buf_release(&key);
				continue;
			}
			buf_adds(&seen, key.data);
			buf_release(&key);
			size_t cat = chart_add_category(c, names[k]);
			for (int p = 0; p < NPART; p++)
				if (series[p] != SIZE_MAX)
					chart_set(c, cat, series[p], bars[k]->p[p] / 1e6);
		}
	}
	buf_release(&seen);
	if (!t->nrows) {
		table_free(t);
		chart_free(c);
		return 0;
	}
	result_add_table(out, t);
	if (one_rank)
		result_add_figure(out, c,
				  "Each run's step on its one GPU as a partition: kernels (communication kernels among them, "
				  "if any), copies or memsets; nothing on the GPU (idle). One rank waits for no other rank "
				  "and has no exposed communication: step_diff.csv's exposed columns are 0. Each baseline's "
				  "bar comes first, so the growth of each part is where the extra time of the run over its "
				  "baseline goes (step_diff.csv). Profiled steps.");
	else
		result_add_figure(out, c,
				  "Each run's step, mean over its ranks, as a partition: compute kernels, copies or memsets; "
				  "only communication, not waiting (exposed communication); only a collective waiting for "
				  "another rank (exposed wait); nothing on the GPU (idle). Each baseline's bar comes first, so "
				  "the growth of each part is where the extra time of the run over its baseline goes "
				  "(step_diff.csv). Profiled steps.");
	result_add_method(
		out, "step_diff.csv",
		"Per run with a baseline other than itself (scaling.csv): each run's step, the mean over its ranks "
		"of their mean per step, split into a partition: busy (compute kernels, copies, memsets), exposed "
		"communication (only communication kernels, not waiting), exposed wait (only a collective waiting "
		"for another rank) and idle (nothing on the GPU), from straggler_ranks.csv's *_per_step_us for a "
		"multi-rank run and from ranks.csv for a one-rank run (busy = step_us - idle_us: no rank to wait "
		"for, so its exposed_comm_extra_us and exposed_wait_extra_us are 0, and a figure whose runs all "
		"ran on one GPU leaves those two parts out). extra_us = the run's step - the baseline's, and "
		"*_extra_us the same for each part; the four add up to extra_us (each rounded to the ns). These "
		"are the profiled steps: profiler_overhead.csv gives how much the profiler slowed each run.");
	return 0;
}

const struct analysis_def analysis_def_step_diff = {
	.name = "step_diff",
	.run = analysis_step_diff,
	.needs = ANALYSIS_TABLES("straggler_ranks", "ranks", "scaling"),
	.makes = ANALYSIS_TABLES("step_diff"),
	.figures = ANALYSIS_NAMES("step_diff"),
};
