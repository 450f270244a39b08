/*
 * memory_chart.c: memory_timeline_<run> (see memory_chart.h): allocated
 * bytes per drawn rank as solid lines, reserved bytes dashed in the same
 * colour, over the time since each rank's first profiled step's start,
 * with the first drawn rank's phases shaded. A bucket without an event
 * holds the state the last event before it left.
 */
#include "analyze/memory/memory_chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/time/phases.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

void memory_fig_start(struct memory_fig *f)
{
	memset(f, 0, sizeof(*f));
	f->cur = -1;
}

void memory_fig_rank(struct memory_fig *f, int rank, int64_t span_ns)
{
	f->ranks++;
	f->cur = -1;
	if (f->n == MEMFIG_RANKS)
		return;
	struct memfig_rank *r = &f->r[f->n];
	r->rank = rank;
	r->span = span_ns > 0 ? span_ns : 1;
	r->amax = xcalloc(MEMFIG_POINTS, sizeof(double));
	r->alast = xcalloc(MEMFIG_POINTS, sizeof(double));
	r->rmax = xcalloc(MEMFIG_POINTS, sizeof(double));
	r->rlast = xcalloc(MEMFIG_POINTS, sizeof(double));
	r->has = xcalloc(MEMFIG_POINTS, 1);
	f->cur = (int)f->n++;
}

void memory_fig_point(struct memory_fig *f, int64_t t_ns, int64_t allocated, int64_t reserved)
{
	if (f->cur < 0 || t_ns < 0)
		return;
	struct memfig_rank *r = &f->r[f->cur];
	if (t_ns > r->span)
		t_ns = r->span;
	size_t j = (size_t)((double)t_ns / (double)r->span * MEMFIG_POINTS);
	if (j >= MEMFIG_POINTS)
		j = MEMFIG_POINTS - 1;
	double a = (double)allocated, v = (double)reserved;
	if (!r->has[j] || a > r->amax[j])
		r->amax[j] = a;
	if (!r->has[j] || v > r->rmax[j])
		r->rmax[j] = v;
	r->alast[j] = a;
	r->rlast[j] = v;
	r->has[j] = 1;
}

void memory_fig_regions(struct memory_fig *f, const struct ivset *host, const struct phase *ph, size_t nph,
			int64_t lo, int64_t hi)
{
	if (f->cur != 0)
		return;
	for (size_t p = 0; p < nph; p++)
		for (size_t l = ivset_first_ending_after(&host[p], lo); l < host[p].n && host[p].v[l].start < hi; l++) {
			int64_t a = host[p].v[l].start > lo ? host[p].v[l].start : lo;
			int64_t b = host[p].v[l].end < hi ? host[p].v[l].end : hi;
			f->bands = xgrow(f->bands, &f->capb, f->nbands + 1, sizeof(*f->bands));
			f->bands[f->nbands++] = (struct memfig_band){(double)(a - lo) / 1e6, (double)(b - lo) / 1e6, ph[p].name};
		}
}

static void release(struct memory_fig *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->r[i].amax);
		free(f->r[i].alast);
		free(f->r[i].rmax);
		free(f->r[i].rlast);
		free(f->r[i].has);
	}
	free(f->bands);
	memory_fig_start(f);
}

void memory_fig_finish(struct memory_fig *f, struct analysis_result *out, const char *run)
{
	if (!f->n || !out) {
		release(f);
		return;
	}
	struct buf title, cap;
	buf_init(&title);
	buf_init(&cap);
	char *name = fs_figure_name("memory_timeline_", run, NULL); /* one file per exact run id */
	buf_printf(&title, "Allocated and reserved GPU memory over the profiled steps, %s", run);
	struct chart *c = chart_new(CHART_XY, name, title.data, "GiB");
	chart_set_x_axis(c, "time since the rank's first profiled step began (ms)", CHART_SCALE_LINEAR);
	c->from_zero = 1;
	c->sparse = 1;
	int64_t span = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->r[i].span > span)
			span = f->r[i].span;
	struct buf lab;
	buf_init(&lab);
	size_t *sa = xcalloc(f->n, sizeof(*sa)), *sr = xcalloc(f->n, sizeof(*sr));
	for (size_t i = 0; i < f->n; i++) {
		buf_reset(&lab);
		buf_printf(&lab, "r%d", f->r[i].rank);
		sa[i] = chart_add_series(c, lab.data);
	}
	for (size_t i = 0; i < f->n; i++) {
		buf_reset(&lab);
		buf_printf(&lab, "r%d reserved", f->r[i].rank);
		sr[i] = chart_add_series(c, lab.data);
		chart_series_like(c, sr[i], sa[i]);
	}
	double *carry_a = xcalloc(f->n, sizeof(double)), *carry_r = xcalloc(f->n, sizeof(double));
	size_t *done = xcalloc(f->n, sizeof(*done));
	size_t peak_cat = 0;
	double peak = -1;
	for (size_t j = 0; j < MEMFIG_POINTS; j++) {
		double x = ((double)j + 0.5) * (double)span / MEMFIG_POINTS;
		buf_reset(&lab);
		buf_printf(&lab, "%.3f ms", x / 1e6);
		size_t cat = chart_add_category(c, lab.data);
		chart_set_x(c, cat, x / 1e6);
		for (size_t i = 0; i < f->n; i++) {
			const struct memfig_rank *r = &f->r[i];
			double ya = NAN, yr = NAN;
			if (x <= (double)r->span) {
				size_t k = (size_t)(x / (double)r->span * MEMFIG_POINTS);
				if (k >= MEMFIG_POINTS)
					k = MEMFIG_POINTS - 1;
				/* the rank's own buckets before k carry their last state on; the largest since the last point is drawn */
				double ma = -1, mr = -1;
				for (; done[i] <= k; done[i]++)
					if (r->has[done[i]]) {
						ma = fmax(ma, r->amax[done[i]]);
						mr = fmax(mr, r->rmax[done[i]]);
						carry_a[i] = r->alast[done[i]];
						carry_r[i] = r->rlast[done[i]];
					}
				ya = ma >= 0 ? ma : carry_a[i];
				yr = mr >= 0 ? mr : carry_r[i];
				ya /= GIB;
				yr /= GIB;
				if (i == 0 && ya > peak) {
					peak = ya;
					peak_cat = cat;
				}
			}
			chart_set(c, cat, sa[i], ya);
			chart_set(c, cat, sr[i], yr);
		}
	}
	chart_mark_category(c, peak_cat);
	for (size_t b = 0; b < f->nbands; b++)
		chart_add_band(c, f->bands[b].x0, f->bands[b].x1, f->bands[b].key);
	buf_printf(&cap, "GPU memory held by the caching allocator over the profiled steps of run %s: allocated bytes "
		   "(solid) and reserved bytes (dashed, the same colour) per rank, from the allocator's own events "
		   "(PyTorch profile_memory=True), against the time since each rank's first profiled step began; "
		   "each point is the largest value in one of %d equal stretches of that time. Shaded: the phases of ", run,
		   MEMFIG_POINTS);
	buf_printf(&cap, "rank %d (memory_regions.csv). ", f->r[0].rank);
	if (f->ranks > f->n)
		buf_printf(&cap, "Drawn: the first %zu of the run's %zu ranks with events (ranks %d to %d); "
			   "memory_steps.csv has every rank.", f->n, f->ranks, f->r[0].rank, f->r[f->n - 1].rank);
	else
		buf_printf(&cap, "Every rank with events is drawn (%zu).", f->n);
	result_add_figure(out, c, cap.data);
	free(carry_a);
	free(carry_r);
	free(done);
	free(sa);
	free(sr);
	buf_release(&lab);
	free(name);
	buf_release(&title);
	buf_release(&cap);
	release(f);
}
