/*
 * step_timeline.c: figure step_timeline_<run>, one representative step of
 * each run drawn as one lane per rank on the aligned clock.
 *
 * The step: the run's median step, the ProfilerStep#N whose step_us in
 * critical_path_steps.csv (the longest of its ranks' ProfilerStep ranges)
 * is the lower median of the run's steps, sorted by step_us and then by
 * step number (so of equal step_us the lower step is taken): of n steps the
 * ((n - 1) / 2)-th, counted from 0.
 *
 * The lanes: every rank of a run of at most 8 ranks, else the ranks
 * rank_spread.csv draws (drawn = 1), in rank order. Each rank's times are
 * moved onto the reference clock (own time - its clock_offsets.csv offset,
 * 0 where none), as collective_waits.csv and the critical path do; the
 * time axis is in ms from t0, the earliest start of step N of the lanes on
 * that clock, to the latest end. Rows of a lane:
 *   host         the rank's time in each phase of phases.csv (phases.c's
 *                rule: per thread the innermost matched annotation) within
 *                its step N; a rank without any is drawn with the
 *                outermost user annotations inside the step instead; the
 *                rest of the step as "host operators outside the phases"
 *                where a host operator, runtime call or other annotation
 *                runs, else "host time outside operators" (host_rest)
 *   kernels      its compute kernels (every kernel not communication by
 *                the default classification)
 *   copies       its memcpys and memsets
 *   collectives  its communication kernels; over each matched collective
 *                of the step, the wait for the last rank (collective_waits.csv:
 *                from arrival_us to last_arrival_us, both on the reference
 *                clock; its tooltip gives wait_us and exposed_wait_us) is
 *                hatched
 * and the critical path across ranks (critical_path_hops, the segments of
 * critical_path_across.csv's path of step N from critical_path_steps.c),
 * drawn from segment to segment, at a joined collective from one lane to
 * the next. A run whose step has no such segment (one rank, or no matched
 * collective) gets its path along the rank whose step ended last.
 *
 * A run of one rank has no other clock (the axis says no reference clock)
 * and draws only the GPU rows with something in its step (issue #57: no
 * empty collectives row on one GPU).
 *
 * The rows hold every activity of the step: the figure merges those
 * closer than 0.4 pt, drawn as dense as they are busy (draw_timeline.c);
 * the caption gives each lane's GPU busy share of its step, all streams as
 * one (issue #57: a lane 74 % idle looked solid). critical_path_hops is used here
 * and dropped from the result, so it is no CSV.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/time/phases.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "analyze/ranks/ranks_tables.h"

#define TL_MAX_LANES 8

enum { ROW_HOST, ROW_KERNELS, ROW_COPIES, ROW_COLL, NROWS };
static const char *const row_names[NROWS] = {"host", "kernels", "copies", "collectives"};
/* The host row's keys for its time in no phase (host_rest). */
#define HOST_OTHER_OPS "host operators outside the phases"
#define HOST_OUTSIDE_OPS "host time outside operators"

struct step_len {
	int64_t step, us;
};

static int cmp_step_len(const void *pa, const void *pb)
{
	const struct step_len *a = pa, *b = pb;
	if (a->us != b->us)
		return a->us < b->us ? -1 : 1;
	return (a->step > b->step) - (a->step < b->step);
}

/* A column's cell in row r, NULL when the column is missing or the cell empty. */
static const struct cell *cell_of(const struct table *t, int col, size_t r)
{
	if (!t || col < 0)
		return NULL;
	const struct cell *c = table_cell(t, r, (size_t)col);
	return c->null ? NULL : c;
}

static int run_is(const struct table *t, int col, size_t r, const char *run)
{
	const struct cell *c = cell_of(t, col, r);
	return c && !strcmp(c->v.text, run);
}

/* The median step of run (see the top), or -1 when critical_path_steps.csv has none. */
static int64_t median_step(const struct table *cps, const char *run, int64_t *len)
{
	int crun = CPS_RUN, cstep = CPS_STEP, cus = CPS_STEP_US;
	struct step_len *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t r = 0; r < cps->nrows; r++) {
		const struct cell *s = cell_of(cps, cstep, r), *u = cell_of(cps, cus, r);
		if (!run_is(cps, crun, r, run) || !s || !u)
			continue;
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		v[n++] = (struct step_len){s->v.i, u->v.i};
	}
	int64_t step = -1;
	if (n) {
		qsort(v, n, sizeof(*v), cmp_step_len);
		step = v[(n - 1) / 2].step;
		*len = v[(n - 1) / 2].us;
	}
	free(v);
	return step;
}

/*
 * The rank's clock offset (ns) from clock_offsets.csv, 0 where none: of
 * its rows (co, by run and rank), the first with an offset.
 */
static int64_t offset_of(const struct table *co, const struct rank_rows *cor, const char *run, int rank)
{
	const struct rank_row_at *f;
	size_t n = rank_rows_find(cor, run, rank, &f);
	for (size_t i = 0; i < n; i++) {
		const struct cell *o = cell_of(co, CO_OFFSET_US, f[i].row);
		if (o)
			return o->v.i;
	}
	return 0;
}

/*
 * Whether rank_spread.csv (rs, by run and rank) draws the rank (a run of
 * more than TL_MAX_LANES ranks): its first row of the run and rank decides.
 */
static int drawn_rank(const struct table *rs, const struct rank_rows *rsr, const char *run, int rank)
{
	const struct rank_row_at *f;
	if (!rank_rows_find(rsr, run, rank, &f))
		return 0;
	const struct cell *d = cell_of(rs, RS_DRAWN, f->row);
	return d && d->v.i;
}

/* One lane: its rank, its step on the reference clock, its data while the figure is built. */
struct lane {
	const struct rank_key *key;
	int64_t offset, start, end; /* start, end: step N on the reference clock; start > end: none */
};

/*
 * ms from t0: exact in int64_t (a double holds the 4.5e18 ns of a
 * trace's clock to about 500 ns only), in doubles where two times of a
 * hostile trace are further apart than int64_t holds.
 */
static double ms(int64_t ns_ref, int64_t t0)
{
	int64_t d;
	if (!__builtin_sub_overflow(ns_ref, t0, &d))
		return (double)d / 1e6;
	return ((double)ns_ref - (double)t0) / 1e6;
}

/* A time on the lane's own clock in ms from t0 on the reference clock. */
static double ms_own(int64_t own, const struct lane *ln, int64_t t0)
{
	int64_t ref;
	if (!__builtin_sub_overflow(own, ln->offset, &ref))
		return ms(ref, t0);
	return ((double)own - (double)ln->offset - (double)t0) / 1e6;
}

/* The row an activity belongs to: collectives, kernels or copies. */
static int act_row(const struct rk_act *a)
{
	return a->cls == RK_COMM ? ROW_COLL : a->kind == ACT_KERNEL ? ROW_KERNELS : ROW_COPIES;
}

/* Adds each interval of v to the lane's host row under key, with its tooltip. */
static void host_spans(struct chart *c, size_t li, const struct lane *ln, int64_t t0, const struct ivset *v,
		       const char *key, struct buf *tip)
{
	for (size_t i = 0; i < v->n; i++) {
		buf_reset(tip);
		buf_printf(tip, "%s, %s: %.3f to %.3f ms", c->categories[li], key, ms_own(v->v[i].start, ln, t0),
			   ms_own(v->v[i].end, ln, t0));
		chart_add_span(c, li, ROW_HOST, ms_own(v->v[i].start, ln, t0), ms_own(v->v[i].end, ln, t0), key,
			       tip->data, 0);
		chart_update(c, li, ROW_HOST, chart_get(c, li, ROW_HOST) + (double)(v->v[i].end - v->v[i].start) / 1e6);
	}
}

/*
 * The host row's time in none of the phases drawn (drawn: their union,
 * normal), [lo, hi) on the lane's own clock: where a host operator, a
 * runtime call or a user annotation other than the step's own range runs,
 * HOST_OTHER_OPS; where none does (Python between operators, a sleep, a
 * busy loop), HOST_OUTSIDE_OPS (issue #57: a blank host row read as idle).
 */
static void host_rest(const struct rank_data *d, const struct lane *ln, size_t li, int64_t t0, struct chart *c,
		      const struct ivset *drawn, struct buf *tip)
{
	int64_t lo = ln->start + ln->offset, hi = ln->end + ln->offset;
	struct ivset busy, step, rest, ops, none;
	ivset_init(&busy);
	ivset_init(&step);
	ivset_init(&rest);
	ivset_init(&ops);
	ivset_init(&none);
	const struct rk_range *sets[3] = {d->cpu_ops, d->launches, d->annots};
	size_t ns[3] = {d->ncpu_ops, d->nlaunches, d->nannots};
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < ns[k]; i++) {
			const struct rk_range *a = &sets[k][i];
			if (a->start >= hi)
				break; /* sorted by start */
			if (a->end <= lo || (k == 2 && a->start <= lo && a->end >= hi))
				continue; /* outside, or a range around the whole step (ProfilerStep#N) */
			ivset_add(&busy, a->start < lo ? lo : a->start, a->end > hi ? hi : a->end);
		}
	ivset_normalize(&busy);
	ivset_add(&step, lo, hi);
	ivset_subtract(&step, drawn, &rest);
	ivset_intersect(&rest, &busy, &ops);
	ivset_subtract(&rest, &busy, &none);
	host_spans(c, li, ln, t0, &ops, HOST_OTHER_OPS, tip);
	host_spans(c, li, ln, t0, &none, HOST_OUTSIDE_OPS, tip);
	ivset_release(&busy);
	ivset_release(&step);
	ivset_release(&rest);
	ivset_release(&ops);
	ivset_release(&none);
}

/*
 * The host, kernel, copy and collective rows of one lane (row_of: each
 * row's series, -1 none drawn); returns its GPU's busy time in the step (ns).
 */
static int64_t lane_rows(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph,
		      const struct rank_data *d, const struct lane *ln, size_t li, int64_t t0, struct chart *c,
		      const int *row_of, struct buf *tip)
{
	int64_t lo = ln->start + ln->offset, hi = ln->end + ln->offset; /* own clock */
	struct ivset *host = xcalloc(nph ? nph : 1, sizeof(*host)), clip, drawn;
	int64_t *calls = xcalloc(nph ? nph : 1, sizeof(*calls));
	for (size_t p = 0; p < nph; p++)
		ivset_init(&host[p]);
	ivset_init(&clip);
	ivset_init(&drawn);
	phase_host_time(s, nm, ph, nph, d, host, calls);
	int any = 0;
	for (size_t p = 0; p < nph; p++) {
		ivset_clip(&host[p], lo, hi, &clip);
		for (size_t i = 0; i < clip.n; i++) {
			buf_reset(tip);
			buf_printf(tip, "%s, %s: %.3f to %.3f ms", c->categories[li], ph[p].name,
				   ms_own(clip.v[i].start, ln, t0), ms_own(clip.v[i].end, ln, t0));
			chart_add_span(c, li, ROW_HOST, ms_own(clip.v[i].start, ln, t0),
				       ms_own(clip.v[i].end, ln, t0), ph[p].name, tip->data, 0);
			chart_update(c, li, ROW_HOST, chart_get(c, li, ROW_HOST) + (double)(clip.v[i].end - clip.v[i].start) / 1e6);
			ivset_add(&drawn, clip.v[i].start, clip.v[i].end);
			any = 1;
		}
	}
	/* No phase: the outermost user annotations inside the step (not the ProfilerStep range itself). */
	int64_t covered = lo;
	for (size_t i = 0; !any && i < d->nannots; i++) {
		const struct rk_range *a = &d->annots[i];
		if (a->start < lo || a->end > hi || (a->start == lo && a->end == hi) || a->start < covered)
			continue;
		char *name = rank_name(s, a->key);
		buf_reset(tip);
		buf_printf(tip, "%s, %s", c->categories[li], name ? name : "annotation");
		free(name);
		chart_add_span(c, li, ROW_HOST, ms_own(a->start, ln, t0), ms_own(a->end, ln, t0),
			       "user annotation", tip->data, 0);
		chart_update(c, li, ROW_HOST, chart_get(c, li, ROW_HOST) + (double)(a->end - a->start) / 1e6);
		ivset_add(&drawn, a->start, a->end);
		covered = a->end;
	}
	ivset_normalize(&drawn);
	host_rest(d, ln, li, t0, c, &drawn, tip);
	ivset_release(&drawn);
	for (size_t p = 0; p < nph; p++)
		ivset_release(&host[p]);
	ivset_release(&clip);
	free(host);
	free(calls);
	/* The GPU rows: every activity overlapping the step, clipped to it; their union, all streams as one. */
	int64_t busy = 0, upto = lo;
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (a->start >= hi)
			break;
		if (a->end <= lo)
			continue;
		int64_t s0 = a->start < lo ? lo : a->start, s1 = a->end > hi ? hi : a->end;
		if (s1 > upto) { /* activities by start: the union grows at its end */
			busy += s1 - (s0 > upto ? s0 : upto);
			upto = s1;
		}
		int kind = act_row(a);
		const char *key = kind == ROW_COLL ? "communication" : kind == ROW_KERNELS ? "compute"
							    : a->kind == ACT_MEMSET ? "memset" : "memcpy";
		if (row_of[kind] < 0)
			continue;
		size_t row = (size_t)row_of[kind];
		chart_add_span(c, li, row, ms_own(s0, ln, t0), ms_own(s1, ln, t0), key, NULL, 0);
		chart_update(c, li, row, chart_get(c, li, row) + (double)(s1 - s0) / 1e6);
	}
	return busy;
}

/* The hatched waits of the lanes' matched collectives of step N (collective_waits.csv). */
static void lane_waits(const struct table *cw, const char *run, int64_t step, const struct lane *lanes, size_t nl,
		       int64_t t0, struct chart *c, int coll_row, struct buf *tip)
{
	if (!cw || coll_row < 0)
		return;
	int crun = CW_RUN, cstep = CW_STEP, crank = CW_RANK,
	    carr = CW_ARRIVAL_US, clast = CW_LAST_ARRIVAL_US,
	    cwait = CW_WAIT_US, cexp = CW_EXPOSED_WAIT_US,
	    clr = CW_LAST_RANK, cname = CW_NAME;
	for (size_t r = 0; r < cw->nrows; r++) {
		const struct cell *st = cell_of(cw, cstep, r), *rk = cell_of(cw, crank, r), *ar = cell_of(cw, carr, r),
				  *la = cell_of(cw, clast, r), *wt = cell_of(cw, cwait, r);
		if (!st || st->v.i != step || !rk || !ar || !la || !wt || wt->v.i <= 0 || !run_is(cw, crun, r, run))
			continue;
		size_t li = 0;
		while (li < nl && lanes[li].key->rank != rk->v.i)
			li++;
		if (li == nl)
			continue;
		const struct cell *ex = cell_of(cw, cexp, r), *lr = cell_of(cw, clr, r), *nm = cell_of(cw, cname, r);
		buf_reset(tip);
		buf_printf(tip, "%s waits in %s for rank %lld: %.3f ms (exposed %.3f ms), %.3f to %.3f ms", c->categories[li],
			   nm ? nm->v.text : "a collective", lr ? (long long)lr->v.i : -1LL, (double)wt->v.i / 1e6,
			   ex ? (double)ex->v.i / 1e6 : 0.0, ms(ar->v.i, t0), ms(la->v.i, t0));
		chart_add_span(c, li, (size_t)coll_row, ms(ar->v.i, t0), ms(la->v.i, t0), "waiting for another rank",
			       tip->data, 1);
	}
}

/* The path of step N: the segments of critical_path_hops, or the whole step on the lane that ended last. */
static void lane_path(const struct table *hops, const char *run, int64_t step, const struct lane *lanes, size_t nl,
		      int64_t t0, struct chart *c)
{
	int crun = hops ? CPH_RUN : -1, cstep = hops ? CPH_STEP : -1,
	    crank = hops ? CPH_RANK : -1, cfrom = hops ? CPH_FROM_US : -1,
	    cto = hops ? CPH_TO_US : -1;
	for (size_t r = 0; hops && r < hops->nrows; r++) {
		const struct cell *st = cell_of(hops, cstep, r), *rk = cell_of(hops, crank, r), *f = cell_of(hops, cfrom, r),
				  *to = cell_of(hops, cto, r);
		if (!st || st->v.i != step || !rk || !f || !to || !run_is(hops, crun, r, run))
			continue;
		size_t li = 0;
		while (li < nl && lanes[li].key->rank != rk->v.i)
			li++;
		if (li == nl)
			continue; /* a rank not drawn: the path joins its next segment directly */
		/* segments are in order from the step's end back: each drawn right to left */
		chart_add_path_point(c, li, ms(to->v.i, t0));
		chart_add_path_point(c, li, ms(f->v.i, t0));
	}
	if (c->npath)
		return;
	size_t last = nl;
	for (size_t li = 0; li < nl; li++)
		if (lanes[li].start <= lanes[li].end && (last == nl || lanes[li].end > lanes[last].end))
			last = li;
	if (last < nl) {
		chart_add_path_point(c, last, ms(lanes[last].end, t0));
		chart_add_path_point(c, last, ms(lanes[last].start, t0));
	}
}

/* The figure of one run (keys[0..n), its ranks); NULL when it has no step to draw. */
static struct chart *run_timeline(const struct analysis_ctx *ctx, struct analysis_result *out,
				  const struct rank_key *keys, size_t n, struct phase_names *nm, const struct phase *ph,
				  size_t nph, const struct classifier *cls, const struct rank_rows *byrank, int64_t *step_out,
				  struct buf *busy_words, int *fail)
{
	const char *run = keys[0].run;
	const struct table *cps = result_table(out, "critical_path_steps");
	int64_t len = 0, step = cps ? median_step(cps, run, &len) : -1;
	if (step < 0)
		return NULL;
	const struct table *co = result_table(out, "clock_offsets"), *rs = result_table(out, "rank_spread");
	struct lane *lanes = xcalloc(n, sizeof(*lanes));
	size_t nl = 0;
	for (size_t i = 0; i < n; i++)
		if (n <= TL_MAX_LANES || drawn_rank(rs, &byrank[1], run, keys[i].rank))
			lanes[nl++] = (struct lane){&keys[i], offset_of(co, &byrank[0], run, keys[i].rank), 1, 0};
	struct rank_data *data = xcalloc(nl ? nl : 1, sizeof(*data));
	size_t loaded = 0;
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (; loaded < nl; loaded++) {
		if (rank_data_load(ctx->store, lanes[loaded].key, cls, &data[loaded]) < 0) {
			*fail = 1;
			break;
		}
		const struct rank_data *d = &data[loaded];
		for (size_t si = 0; si < d->nsteps; si++)
			if (d->steps[si].key == step) {
				lanes[loaded].start = d->steps[si].start - lanes[loaded].offset;
				lanes[loaded].end = d->steps[si].end - lanes[loaded].offset;
				t0 = t0 < lanes[loaded].start ? t0 : lanes[loaded].start;
				t1 = t1 > lanes[loaded].end ? t1 : lanes[loaded].end;
				break;
			}
	}
	struct chart *c = NULL;
	if (!*fail && t0 < t1) {
		char *name = fs_figure_name("step_timeline_", run, NULL); /* one file per exact run id */
		char *title = nl == n ? xasprintf("%s: step %lld (the median step) on %s", run, (long long)step,
						  n == 1 ? "its one rank" : "every rank")
				      : xasprintf("%s: step %lld (the median step) on %zu of its %zu ranks", run,
						  (long long)step, nl, n);
		c = chart_new(CHART_TIMELINE, name, title, "rank");
		free(name);
		free(title);
		/* one rank: no other clock to align to; its GPU rows with nothing in the step left out */
		chart_set_x_axis(c, n == 1 ? "time from the step's start (ms)"
					   : "time from the step's start on the reference clock (ms)",
				 CHART_SCALE_LINEAR);
		chart_set_path_label(c, n == 1 ? "critical path" : "critical path across ranks");
		int used[NROWS] = {1, n > 1, n > 1, n > 1}, row_of[NROWS];
		for (size_t li = 0; li < nl && n == 1; li++) {
			int64_t lo = lanes[li].start + lanes[li].offset, hi = lanes[li].end + lanes[li].offset;
			for (size_t i = 0; lanes[li].start <= lanes[li].end && i < data[li].nacts; i++) {
				const struct rk_act *a = &data[li].acts[i];
				if (a->start >= hi)
					break;
				if (a->end > lo)
					used[act_row(a)] = 1;
			}
		}
		for (int r = 0, k = 0; r < NROWS; r++) {
			row_of[r] = used[r] ? k++ : -1;
			if (used[r])
				chart_add_series(c, row_names[r]);
		}
		struct buf lab, tip;
		buf_init(&lab);
		buf_init(&tip);
		for (size_t li = 0; li < nl; li++) {
			buf_reset(&lab);
			buf_printf(&lab, "rank %d", lanes[li].key->rank);
			chart_add_category(c, lab.data);
		}
		buf_reset(busy_words);
		for (size_t li = 0; li < nl; li++) {
			if (lanes[li].start > lanes[li].end)
				continue;
			int64_t busy = lane_rows(ctx->store, nm, ph, nph, &data[li], &lanes[li], li, t0, c, row_of, &tip);
			int64_t len = lanes[li].end - lanes[li].start;
			if (len > 0)
				buf_printf(busy_words, "%s%s %.0f %%", busy_words->len ? ", " : "", c->categories[li],
					   100.0 * (double)busy / (double)len);
		}
		lane_waits(result_table(out, "collective_waits"), run, step, lanes, nl, t0, c, row_of[ROW_COLL], &tip);
		lane_path(result_table(out, "critical_path_hops"), run, step, lanes, nl, t0, c);
		buf_release(&lab);
		buf_release(&tip);
		*step_out = step;
	}
	for (size_t i = 0; i < loaded; i++)
		rank_data_release(&data[i]);
	free(data);
	free(lanes);
	return c;
}

static int analysis_step_timeline(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	size_t nph;
	struct phase *ph = phase_list(ctx->manifest, &nph);
	struct phase_names nm;
	memset(&nm, 0, sizeof(nm));
	int fail = 0, any = 0;
	struct buf cap, busy;
	buf_init(&cap);
	/* clock_offsets' and rank_spread's rows by run and rank, sorted once */
	struct rank_rows byrank[2];
	rank_rows_init(&byrank[0], result_table(out, "clock_offsets"), CO_RUN, CO_RANK);
	rank_rows_init(&byrank[1], result_table(out, "rank_spread"), RS_RUN, RS_RANK);
	buf_init(&busy);
	for (size_t k = 0; k < nkeys && !fail;) {
		size_t e = k + 1;
		while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
			e++;
		int64_t step = -1;
		struct chart *c = run_timeline(ctx, out, &keys[k], e - k, &nm, ph, nph, cls, byrank, &step, &busy, &fail);
		if (c) {
			buf_reset(&cap);
			/* one rank: no clocks to align, no rank to wait for (issue #57) */
			if (c->ncat == 1)
				buf_printf(&cap,
					   "Step %lld of run %s, its median step, on its one rank: the critical path in "
					   "black (Methods: step timeline).",
					   (long long)step, keys[k].run);
			else
				buf_printf(&cap,
					   "Step %lld of run %s, its median step, on %zu ranks, aligned clocks: waits for "
					   "the last rank hatched, the critical path across ranks in black (Methods: step "
					   "timeline).",
					   (long long)step, keys[k].run, c->ncat);
			if (e - k > TL_MAX_LANES)
				buf_printf(&cap, " Of its %zu ranks, those rank_spread.csv draws.", e - k);
			/* how busy each lane's GPU is, so that a row of many short kernels is not read as solid */
			if (busy.len)
				buf_printf(&cap, " GPU busy in this step (all streams as one): %s; a paler bar is mostly idle.",
					   busy.data);
			result_add_figure(out, c, cap.data);
			any = 1;
		}
		k = e;
	}
	struct table *hops = result_table(out, "critical_path_hops");
	if (hops)
		result_drop_table(out, hops);
	if (any)
		result_add_method(
			out, "step timeline",
			"Figure step_timeline_<run>: the run's median step, the ProfilerStep#N whose step_us in "
			"critical_path_steps.csv (the longest of its ranks' step ranges) is the lower median of the run's "
			"steps ordered by step_us, equal ones by step number (of n steps the ((n - 1) / 2)-th from 0). "
			"One lane per rank (every rank of a run of at most 8, else the ranks rank_spread.csv draws), each "
			"rank's times moved onto the reference clock by its clock_offsets.csv offset; time in ms from the "
			"earliest start of step N of the lanes (a run of one rank: its own clock). Rows: host (each phase's "
			"host time as in phases.csv, or where a rank has none its outermost user annotations inside the "
			"step; the rest of the step as host operators outside the phases where a host operator, runtime "
			"call or other user annotation runs, else as host time outside operators: Python between "
			"operators, a sleep, a busy loop), kernels (compute kernels), copies (memcpys and memsets), "
			"collectives (communication kernels by the default classification; a run of one rank draws "
			"only the rows with something in its step), with each matched collective's wait for the last "
			"rank hatched (arrival_us to "
			"last_arrival_us of collective_waits.csv); activities of a row closer than 0.4 pt drawn as one bar "
			"whose opacity is the share of it they cover (at least 0.15), and the caption gives each lane's "
			"GPU busy share of its step (the union of its activities, all streams as one); the critical path "
			"across ranks of the step as "
			"critical_path_across.csv defines it, drawn from the step's end back through each joined "
			"collective to the rank that arrived last (one rank, or no joined collective: along the rank "
			"whose step ended last).");
	buf_release(&cap);
	rank_rows_release(&byrank[0]);
	rank_rows_release(&byrank[1]);
	buf_release(&busy);
	phase_names_release(&nm);
	free(ph);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return fail ? -1 : 0;
}

const struct analysis_def analysis_def_step_timeline = {
	.name = "step_timeline",
	.run = analysis_step_timeline,
	.needs = ANALYSIS_TABLES("critical_path_steps", "critical_path_hops", "collective_waits", "clock_offsets",
		"rank_spread"),
	.makes = ANALYSIS_NONE,
	.figures = ANALYSIS_NAMES("step_timeline_*"),
};
