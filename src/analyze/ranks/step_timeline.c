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
 *                outermost user annotations inside the step instead
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

/* The rank's clock offset (ns) from clock_offsets.csv, 0 where none. */
static int64_t offset_of(const struct table *co, const char *run, int rank)
{
	if (!co)
		return 0;
	int crun = CO_RUN, crank = CO_RANK, coff = CO_OFFSET_US;
	for (size_t r = 0; r < co->nrows; r++) {
		const struct cell *k = cell_of(co, crank, r), *o = cell_of(co, coff, r);
		if (run_is(co, crun, r, run) && k && o && k->v.i == rank)
			return o->v.i;
	}
	return 0;
}

/*
 * The ranks rank_spread.csv draws (drawn = 1), for runs of more than
 * TL_MAX_LANES ranks: its (run, rank) rows sorted once, each looked up by
 * binary search (a scan of the table per rank took 36 s for 40,000 ranks).
 * Of rows repeating a run and rank, the first decides, as a scan would.
 */
struct drawn_row {
	const char *run;
	int64_t rank;
	size_t row;
	int drawn;
};

struct drawn_set {
	struct drawn_row *v;
	size_t n;
};

static int cmp_drawn_row(const void *pa, const void *pb)
{
	const struct drawn_row *a = pa, *b = pb;
	int c = strcmp(a->run, b->run);
	if (c)
		return c;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return (a->row > b->row) - (a->row < b->row);
}

static void drawn_set_init(struct drawn_set *ds, const struct table *rs)
{
	memset(ds, 0, sizeof(*ds));
	if (!rs || !rs->nrows)
		return;
	int crun = RS_RUN, crank = RS_RANK, cd = RS_DRAWN;
	ds->v = xmalloc(rs->nrows * sizeof(*ds->v));
	for (size_t r = 0; r < rs->nrows; r++) {
		const struct cell *u = cell_of(rs, crun, r), *k = cell_of(rs, crank, r), *d = cell_of(rs, cd, r);
		if (u && k)
			ds->v[ds->n++] = (struct drawn_row){u->v.text, k->v.i, r, d && d->v.i};
	}
	if (ds->n > 1)
		qsort(ds->v, ds->n, sizeof(*ds->v), cmp_drawn_row);
}

/* Whether rank_spread.csv draws the rank (a run of more than TL_MAX_LANES ranks). */
static int drawn_rank(const struct drawn_set *ds, const char *run, int rank)
{
	size_t lo = 0, hi = ds->n;
	struct drawn_row key = {run, rank, 0, 0};
	while (lo < hi) { /* the first row not before (run, rank, row 0) */
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_drawn_row(&ds->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ds->n && !strcmp(ds->v[lo].run, run) && ds->v[lo].rank == rank && ds->v[lo].drawn;
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

/* The host, kernel, copy and collective rows of one lane; returns its GPU's busy time in the step (ns). */
static int64_t lane_rows(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph,
		      const struct rank_data *d, const struct lane *ln, size_t li, int64_t t0, struct chart *c,
		      struct buf *tip)
{
	int64_t lo = ln->start + ln->offset, hi = ln->end + ln->offset; /* own clock */
	struct ivset *host = xcalloc(nph ? nph : 1, sizeof(*host)), clip;
	int64_t *calls = xcalloc(nph ? nph : 1, sizeof(*calls));
	for (size_t p = 0; p < nph; p++)
		ivset_init(&host[p]);
	ivset_init(&clip);
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
		covered = a->end;
	}
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
		size_t row = a->cls == RK_COMM ? ROW_COLL : a->kind == ACT_KERNEL ? ROW_KERNELS : ROW_COPIES;
		const char *key = row == ROW_COLL ? "communication" : row == ROW_KERNELS ? "compute"
							   : a->kind == ACT_MEMSET ? "memset" : "memcpy";
		chart_add_span(c, li, row, ms_own(s0, ln, t0), ms_own(s1, ln, t0), key, NULL, 0);
		chart_update(c, li, row, chart_get(c, li, row) + (double)(s1 - s0) / 1e6);
	}
	return busy;
}

/* The hatched waits of the lanes' matched collectives of step N (collective_waits.csv). */
static void lane_waits(const struct table *cw, const char *run, int64_t step, const struct lane *lanes, size_t nl,
		       int64_t t0, struct chart *c, struct buf *tip)
{
	if (!cw)
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
		chart_add_span(c, li, ROW_COLL, ms(ar->v.i, t0), ms(la->v.i, t0), "waiting for another rank", tip->data, 1);
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
				  size_t nph, const struct classifier *cls, const struct drawn_set *ds, int64_t *step_out,
				  struct buf *busy_words, int *fail)
{
	const char *run = keys[0].run;
	const struct table *cps = result_table(out, "critical_path_steps");
	int64_t len = 0, step = cps ? median_step(cps, run, &len) : -1;
	if (step < 0)
		return NULL;
	const struct table *co = result_table(out, "clock_offsets");
	struct lane *lanes = xcalloc(n, sizeof(*lanes));
	size_t nl = 0;
	for (size_t i = 0; i < n; i++)
		if (n <= TL_MAX_LANES || drawn_rank(ds, run, keys[i].rank))
			lanes[nl++] = (struct lane){&keys[i], offset_of(co, run, keys[i].rank), 1, 0};
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
		chart_set_x_axis(c, "time from the step's start on the reference clock (ms)", CHART_SCALE_LINEAR);
		chart_set_path_label(c, n == 1 ? "critical path" : "critical path across ranks");
		for (size_t r = 0; r < NROWS; r++)
			chart_add_series(c, row_names[r]);
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
			int64_t busy = lane_rows(ctx->store, nm, ph, nph, &data[li], &lanes[li], li, t0, c, &tip);
			int64_t len = lanes[li].end - lanes[li].start;
			if (len > 0)
				buf_printf(busy_words, "%s%s %.0f %%", busy_words->len ? ", " : "", c->categories[li],
					   100.0 * (double)busy / (double)len);
		}
		lane_waits(result_table(out, "collective_waits"), run, step, lanes, nl, t0, c, &tip);
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
	buf_init(&busy);
	struct drawn_set ds;
	drawn_set_init(&ds, result_table(out, "rank_spread"));
	for (size_t k = 0; k < nkeys && !fail;) {
		size_t e = k + 1;
		while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
			e++;
		int64_t step = -1;
		struct chart *c = run_timeline(ctx, out, &keys[k], e - k, &nm, ph, nph, cls, &ds, &step, &busy, &fail);
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
			"earliest start of step N of the lanes. Rows: host (each phase's host time as in phases.csv, or "
			"where a rank has none its outermost user annotations inside the step), kernels (compute "
			"kernels), copies (memcpys and memsets), collectives (communication kernels by the default "
			"classification), with each matched collective's wait for the last rank hatched (arrival_us to "
			"last_arrival_us of collective_waits.csv); activities of a row closer than 0.4 pt drawn as one bar "
			"whose opacity is the share of it they cover (at least 0.15), and the caption gives each lane's "
			"GPU busy share of its step (the union of its activities, all streams as one); the critical path across ranks of the step as "
			"critical_path_across.csv defines it, drawn from the step's end back through each joined "
			"collective to the rank that arrived last (one rank, or no joined collective: along the rank "
			"whose step ended last).");
	buf_release(&cap);
	buf_release(&busy);
	free(ds.v);
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
