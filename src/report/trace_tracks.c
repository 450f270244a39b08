/*
 * trace_tracks.c: the tracks perfstudy adds to the merged trace
 * (trace_export.c's opening comment defines them): the waits inside
 * collectives and their exposed parts, the straggler windows, and the
 * slices and markers made of table rows.
 */
#include "report/trace_export_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/xalloc.h"

/*
 * The clock offset the export applies: clock_offsets.csv's offset_us where
 * its magnitude exceeds its residual_us, else 0. The offset is the median
 * of the differences between the ends of the collectives two ranks shared,
 * the residual the 90th percentile of how far they stray from it
 * (crossrank.c): an offset within the residual is within the spread of the
 * ends themselves, as large as the ends' own scatter on one clock, and
 * cannot be told from none. On one host (one clock, true offset 0) the
 * estimates are such noise: the bundled runs' offsets are within 90 us of
 * 0 with residuals of 8-135 us, and a 4-stage pipeline's offsets of 52-107
 * us moved its matched sends' and recvs' ends from 13 us apart in the raw
 * traces to 39 us in the merged file. So an offset moves a rank's events
 * only where it exceeds its own stated error (clocks of different hosts:
 * NTP's milliseconds). The tables keep their own offsets; their
 * reference-clock times are drawn against the rank's events (est - off,
 * trace_export_int.h).
 */
int64_t tx_clock_applied(int64_t offset, int64_t residual)
{
	return (offset < 0 ? -offset : offset) > residual ? offset : 0;
}

/* ---- the run's added tracks ---- */

/* Waits by rank index, then start, then row. */
static int cmp_wrow(const void *pa, const void *pb)
{
	const struct wrow *a = pa, *b = pb;
	if (a->ri != b->ri)
		return a->ri < b->ri ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * The exposed parts of rank ri's waits: its rows ex of exposed_waits
 * (crossrank_waits.c cuts each wait into them, as collective_waits.csv
 * defines exposed_wait_us), one slice each, in the table's order.
 */
static void write_exposed(struct tx_run *x, size_t ri, const struct table *t, const struct rrow *ex, size_t n)
{
	struct tx_rank *r = &x->ranks[ri];
	for (size_t i = 0; i < n; i++) {
		int64_t start = tx_cell_i(t, ex[i].row, EW_START_US, 0), end = tx_cell_i(t, ex[i].row, EW_END_US, 0);
		if (start - r->off >= x->cut)
			continue;
		tx_ev_head(&x->o, "X", "perfstudy", ri + 1, LANE_EXPOSED, start - r->off - x->base);
		tx_ev_dur(&x->o, end - start);
		buf_printf(&x->o.b, ",\"name\":\"exposed wait for rank %" PRId64 "\"}", tx_cell_i(t, ex[i].row, EW_LAST_RANK, -1));
	}
}

/* The rows of collective_waits.csv of the run, by rank. */
struct wrow *tx_collect_waits(struct tx_run *x, const struct tx_tab *tw, size_t *nw)
{
	const struct table *t = tw->t;
	size_t *rows, n = tx_tab_rows(tw, x->run, &rows);
	struct wrow *w = xcalloc(n + 1, sizeof(*w));
	*nw = 0;
	for (size_t i = 0; i < n; i++) {
		size_t ri = tx_rank_index(x, (int)tx_cell_i(t, rows[i], CW_RANK, -1));
		if (ri == SIZE_MAX)
			continue;
		w[(*nw)++] = (struct wrow){
			.ri = ri,
			.row = rows[i],
			.start = tx_cell_i(t, rows[i], CW_START_US, 0),
			.arrival = tx_cell_i(t, rows[i], CW_ARRIVAL_US, 0),
			.wait = tx_cell_i(t, rows[i], CW_WAIT_US, 0),
			.last_rank = (int)tx_cell_i(t, rows[i], CW_LAST_RANK, -1),
		};
	}
	free(rows);
	if (*nw > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
		qsort(w, *nw, sizeof(*w), cmp_wrow);
	return w;
}

/* Windows by the rank waited for, then first arrival, then row. */
static int cmp_window(const void *pa, const void *pb)
{
	const struct tx_window *a = pa, *b = pb;
	if (a->last_rank != b->last_rank)
		return a->last_rank < b->last_rank ? -1 : 1;
	if (a->first_arrival != b->first_arrival)
		return a->first_arrival < b->first_arrival ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * The run's rows of straggler_windows (tw), each with its row of
 * stragglers.csv (ts: the same order, windows those of its rows that made
 * some rank wait; communicator and collective the key), sorted by the rank
 * waited for, then first arrival.
 */
struct tx_window *tx_collect_windows(struct tx_run *x, const struct tx_tab *tw, const struct tx_tab *ts, size_t *nwins)
{
	const struct table *t = tw->t;
	size_t *rows, n = tx_tab_rows(tw, x->run, &rows), *srows, ns = tx_tab_rows(ts, x->run, &srows);
	struct tx_window *wins = xcalloc(n + 1, sizeof(*wins));
	int ccomm = ts->t ? STG_COMMUNICATOR : -1, ccol = ts->t ? STG_COLLECTIVE : -1;
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		struct tx_window *win = &wins[i];
		*win = (struct tx_window){
			.last_rank = (int)tx_cell_i(t, rows[i], SW_RANK, -1),
			.first_arrival = tx_cell_i(t, rows[i], SW_FIRST_ARRIVAL_US, 0),
			.last_arrival = tx_cell_i(t, rows[i], SW_LAST_ARRIVAL_US, 0),
			.row = rows[i],
			.strag_row = SIZE_MAX,
		};
		const char *comm = tx_cell_s(t, rows[i], SW_COMMUNICATOR);
		int64_t id = tx_cell_i(t, rows[i], SW_COLLECTIVE, -1);
		size_t k = j;
		while (k < ns && (strcmp(comm, tx_cell_s(ts->t, srows[k], ccomm)) || id != tx_cell_i(ts->t, srows[k], ccol, -2)))
			k++;
		if (k < ns) {
			win->strag_row = srows[k];
			j = k + 1;
		}
	}
	free(rows);
	free(srows);
	if (n > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
		qsort(wins, n, sizeof(*wins), cmp_window);
	*nwins = n;
	return wins;
}

static int cmp_step_range(const void *a, const void *b)
{
	const struct step_range *x = a, *y = b;
	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->end > y->end) - (x->end < y->end);
}

/* Orders rank r's step ranges by step, then start, for tx_step_range_of. */
void tx_sort_steps(struct tx_rank *r)
{
	if (r->nsteps > 1) /* qsort's array may be NULL when empty */
		qsort(r->steps, r->nsteps, sizeof(*r->steps), cmp_step_range);
}

/* lower_bound's predicate: the step range's step is below the key's (int64_t). */
static int step_before(const void *elem, const void *key)
{
	return ((const struct step_range *)elem)->step < *(const int64_t *)key;
}

/*
 * The step range of step of rank r (the earliest-starting one where a step
 * number repeats), or NULL. Binary search over the ranges tx_sort_steps
 * ordered: a lookup per critical-path row and per finding, so a linear scan
 * was quadratic in the steps (200,000 bare steps: minutes).
 */
const struct step_range *tx_step_range_of(const struct tx_rank *r, int64_t step)
{
	size_t lo = lower_bound(r->steps, r->nsteps, sizeof(*r->steps), &step, step_before);
	return lo < r->nsteps && r->steps[lo].step == step ? &r->steps[lo] : NULL;
}

/* Where a rank's findings stand: the start of its first step, else its first event (reference clock, from base). */
int64_t tx_marker_ts(const struct tx_run *x, const struct tx_rank *r)
{
	int64_t t = r->first != INT64_MAX ? r->first : x->base + r->off;
	for (size_t i = 0; i < r->nsteps; i++)
		if (i == 0 || r->steps[i].start < t)
			t = r->steps[i].start;
	return t - r->off - x->base;
}

/* One finding as an instant on lane tid of process pid, findings.csv's row in args. */
void tx_write_finding(struct tx_run *x, const struct table *t, size_t row, size_t pid, int tid, int64_t ts)
{
	const char *rule = tx_cell_s(t, row, FND_RULE);
	size_t n = strcspn(rule, ":");
	tx_ev_head(&x->o, "i", "perfstudy", pid, tid, ts);
	buf_adds(&x->o.b, ",\"s\":\"t\",\"name\":");
	char *name = xasprintf("finding: %.*s", (int)(n > 40 ? 40 : n), rule);
	tx_put_cstr(&x->o.b, name);
	free(name);
	buf_adds(&x->o.b, ",\"args\":");
	tx_put_row(&x->o.b, t, row);
	buf_adds(&x->o.b, "}");
}

/* A slice of an added track with a table row in args. */
void tx_write_slice(struct tx_run *x, size_t pid, int tid, int64_t ts, int64_t dur, const char *name,
			const struct table *t, size_t row)
{
	tx_ev_head(&x->o, "X", "perfstudy", pid, tid, ts);
	tx_ev_dur(&x->o, dur > 0 ? dur : 0);
	buf_adds(&x->o.b, ",\"name\":");
	tx_put_cstr(&x->o.b, name);
	if (t) {
		buf_adds(&x->o.b, ",\"args\":");
		tx_put_row(&x->o.b, t, row);
	}
	buf_adds(&x->o.b, "}");
}

/*
 * The lane of a slice [start, end) of an added track whose slices come in
 * order of start: the first lane whose last slice ended by start, else a
 * new one (trace_export_int.h). Chrome's format nests the slices of one
 * thread, so two that overlap in part would be drawn one inside the other,
 * cut wrong; slices that overlap (a rank last in collectives of two
 * communicators at once, a step's path across ranks longer than its step)
 * go on lanes of their own instead.
 */
size_t tx_spill_place(struct tx_spill *s, int64_t start, int64_t end)
{
	for (size_t k = 0; k < s->n; k++)
		if (s->end[k] <= start) {
			s->end[k] = end;
			return k;
		}
	s->end = xgrow(s->end, &s->cap, s->n + 1, sizeof(*s->end));
	s->end[s->n] = end;
	return s->n++;
}

/* The tid of lane k of a track on tid first, its lanes past the first from tid more on. */
int tx_spill_tid(int first, int more, size_t k)
{
	return k ? more + (int)k - 1 : first;
}

/* Names lanes 1 .. of s (tids from more): "<name> (k + 1)", sorted with the track's own (sort; < 0: no sort index). */
void tx_spill_names(struct tx_run *x, const struct tx_spill *s, size_t pid, int more, const char *name, int sort)
{
	for (size_t k = 1; k < s->n; k++) {
		char *ln = xasprintf("perfstudy: %s (%zu)", name, k + 1);
		tx_ev_meta(&x->o, "thread_name", pid, more + (int)k - 1, ln, 0);
		if (sort >= 0)
			tx_ev_meta(&x->o, "thread_sort_index", pid, more + (int)k - 1, NULL, sort);
		free(ln);
	}
}

struct across {
	int64_t start, path;
	size_t row, eri, lane;
};

/* Slices by start, then row. */
static int cmp_across(const void *pa, const void *pb)
{
	const struct across *a = *(const struct across *const *)pa, *b = *(const struct across *const *)pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * The critical path across ranks of each step (critical_path_across.csv,
 * ta) on lane 1 of the process "perfstudy analysis" (pid): [end of the
 * step on end_rank - path_us, that end], in the table's order; a path
 * longer than its step overlaps the step before, so the lanes are given
 * in order of start (tx_spill_place; the extra ones from tid 3 on).
 * Returns the slices written.
 */
size_t tx_write_across(struct tx_run *x, const struct tx_tab *ta, size_t pid)
{
	const struct table *t = ta->t;
	size_t *rows = NULL, nrows = tx_tab_rows(ta, x->run, &rows), n = 0;
	struct across *a = xcalloc(nrows + 1, sizeof(*a));
	struct across **by = xcalloc(nrows + 1, sizeof(*by));
	for (size_t i = 0; i < nrows; i++) {
		size_t eri = tx_rank_index(x, (int)tx_cell_i(t, rows[i], CPA_END_RANK, -1));
		const struct step_range *sp =
			eri == SIZE_MAX ? NULL : tx_step_range_of(&x->ranks[eri], tx_cell_i(t, rows[i], CPA_STEP, -1));
		if (!sp || sp->end - x->ranks[eri].off >= x->cut)
			continue;
		int64_t path = tx_cell_i(t, rows[i], CPA_PATH_US, 0), end = sp->end - x->ranks[eri].off - x->base;
		a[n] = (struct across){end - path, path, rows[i], eri, 0};
		by[n] = &a[n];
		n++;
	}
	if (n > 1)
		qsort(by, n, sizeof(*by), cmp_across);
	struct tx_spill sp = {0};
	for (size_t i = 0; i < n; i++)
		by[i]->lane = tx_spill_place(&sp, by[i]->start, by[i]->start + (by[i]->path > 0 ? by[i]->path : 0));
	for (size_t i = 0; i < n; i++) {
		char name[96];
		snprintf(name, sizeof(name), "critical path across ranks, step %" PRId64 " (ends on rank %d)",
			 tx_cell_i(t, a[i].row, CPA_STEP, -1), x->ranks[a[i].eri].rank);
		tx_write_slice(x, pid, tx_spill_tid(1, 3, a[i].lane), a[i].start, a[i].path, name, t, a[i].row);
	}
	tx_spill_names(x, &sp, pid, 3, "critical path across ranks", -1);
	free(sp.end);
	free(by);
	free(a);
	free(rows);
	return n;
}

/*
 * Each step's critical path of rank ri (critical_path.csv, tc; its rows by
 * rank, crit[*ci ..), *ci moved past the rank's): a slice over the step's
 * ProfilerStep range, named by its bound. Returns the slices written.
 */
size_t tx_write_crit(struct tx_run *x, size_t ri, const struct table *tc, const struct rrow *crit, size_t ncrit,
		     size_t *ci)
{
	const struct tx_rank *r = &x->ranks[ri];
	int cstep = tc ? CPATH_STEP : -1, cbound = tc ? CPATH_BOUND : -1;
	size_t n = 0;
	char name[64];
	for (; *ci < ncrit && crit[*ci].rank <= r->rank; (*ci)++) {
		const struct rrow *c = &crit[*ci];
		const struct step_range *sp = c->rank == r->rank ? tx_step_range_of(r, tx_cell_i(tc, c->row, cstep, -1)) : NULL;
		if (!sp || sp->start - r->off >= x->cut)
			continue;
		snprintf(name, sizeof(name), "critical path: %.40s-bound", tx_cell_s(tc, c->row, cbound));
		tx_write_slice(x, ri + 1, LANE_CRIT, sp->start - r->off - x->base, sp->end - sp->start, name, tc, c->row);
		n++;
	}
	return n;
}

/* The tracks perfstudy adds to rank ri after its events (trace_export_int.h). */
void tx_write_rank_tracks(struct tx_run *x, size_t ri, const struct tx_tab *tabs, const struct wrow *w, size_t nw,
			  const struct rrow *ex, size_t nex, const struct tx_window *wins, size_t nwins, unsigned *used)
{
	struct tx_rank *r = &x->ranks[ri];
	const struct table *tw = tabs[T_WAITS].t;
	char name[64];
	/* the tables' reference-clock times, moved beside the rank's events (trace_export_int.h) */
	int64_t shift = r->est - r->off;
	for (size_t i = 0; i < nw; i++) {
		if (w[i].wait <= 0 || w[i].arrival + shift >= x->cut)
			continue;
		snprintf(name, sizeof(name), "wait for rank %d", w[i].last_rank);
		tx_write_slice(x, ri + 1, LANE_WAITS, w[i].arrival + shift - x->base, w[i].wait, name, tw, w[i].row);
		*used |= 1u << LANE_WAITS;
	}
	size_t before = x->o.nevents;
	write_exposed(x, ri, tabs[T_EXPOSED].t, ex, nex);
	if (x->o.nevents > before)
		*used |= 1u << LANE_EXPOSED;
	/* in order of first arrival (tx_collect_windows); past the input's lanes, those of overlapping windows */
	struct tx_spill sp = {0};
	int more = LANE_INPUT + (int)x->nlanes;
	for (size_t i = 0; i < nwins; i++) {
		if (wins[i].last_rank != r->rank || wins[i].first_arrival + shift >= x->cut)
			continue;
		int64_t dur = wins[i].last_arrival - wins[i].first_arrival;
		size_t k = tx_spill_place(&sp, wins[i].first_arrival, wins[i].first_arrival + (dur > 0 ? dur : 0));
		tx_write_slice(x, ri + 1, tx_spill_tid(LANE_WINDOWS, more, k), wins[i].first_arrival + shift - x->base, dur,
			       "others wait for this rank", wins[i].strag_row != SIZE_MAX ? tabs[T_STRAG].t : NULL,
			       wins[i].strag_row);
		*used |= 1u << LANE_WINDOWS;
	}
	tx_spill_names(x, &sp, ri + 1, more, "straggler windows", LANE_WINDOWS);
	free(sp.end);
}

/* Writes the merged trace of one run (its ranks in rank order) into dir; fills info. 0 or -1 after diag. */
