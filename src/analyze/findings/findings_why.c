/*
 * findings_why.c: the why and the price of a straggler (findings_why.h).
 *
 * The price. If the straggler had arrived at each collective with the
 * others, the collective would have started when the latest of the others
 * arrived: the step shortens, per collective the straggler arrived last at,
 * by the smallest wait among the other ranks, and only by the exposed part
 * of it (collective_waits.csv exposed_wait_us: a wait hidden behind other
 * work on that rank's GPU shortens nothing). Summed over the run's matched
 * collectives launched in a profiled step, divided by the straggler's step
 * count (ranks.csv): us per profiled step. A collective some other rank is
 * missing from counts 0. This removes the straggler's excess on the
 * critical path to first order: a later collective that the straggler's
 * lateness also delayed on the others is counted where it was last again.
 *
 * The why. straggler_causes.csv's mechanism word for the rank (the
 * mechanism of its region rows), said with the row that shows it: the
 * copy's bytes and bandwidth, the synchronising operator's calls, the host
 * time outside operators, the ratio of its forward and backward GPU time
 * to the others', the kernel or operator no other rank runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings/cells.h"
#include "analyze/findings/findings_why.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/ranks/straggler_causes.h"
#include "analyze/time/profiler_overhead.h"
#include "util/intmap.h"
#include "util/xalloc.h"


/* One rank's row of one matched collective. */
struct coll_row {
	double step, coll, exposed;
	const char *comm; /* the communicator (text), "" none */
	int rank, last;
};

/* 1 when a and b are rows of one collective. */
static int same_coll(const struct coll_row *a, const struct coll_row *b)
{
	return a->step == b->step && a->coll == b->coll && !strcmp(a->comm, b->comm);
}

static int cmp_coll_row(const void *pa, const void *pb)
{
	const struct coll_row *a = pa, *b = pb;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	int c = strcmp(a->comm, b->comm);
	if (c)
		return c;
	if (a->coll != b->coll)
		return a->coll < b->coll ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/*
 * The straggler's profiled step count: the ranks.csv rows of run whose rank
 * is rank (one row per rank and step); 0 without ranks.csv or its columns.
 * With nranks, also the number of distinct ranks of run there.
 */
static size_t straggler_steps(const struct analysis_result *res, const char *run, int rank, size_t *nranks)
{
	const struct table *rk = result_table(res, "ranks");
	int rrun = col(rk, RANKS_RUN), rrank = col(rk, RANKS_RANK);
	struct intmap ranks = {0};
	size_t steps = 0, n = 0;
	for (size_t r = 0; rk && rrun >= 0 && rrank >= 0 && r < rk->nrows; r++) {
		const char *rr = text(rk, r, rrun);
		if (!rr || strcmp(rr, run))
			continue;
		int k = (int)num(rk, r, rrank);
		if (nranks && intmap_index(&ranks, k, n) == n)
			n++;
		steps += k == rank;
	}
	intmap_free(&ranks);
	if (nranks)
		*nranks = n;
	return steps;
}

double why_saving(const struct analysis_result *res, const char *run, int straggler, double *noise)
{
	const struct table *cw = result_table(res, "collective_waits"), *rk = result_table(res, "ranks");
	int crun = col(cw, CW_RUN), crank = col(cw, CW_RANK), clast = col(cw, CW_LAST_RANK), cm = col(cw, CW_MATCHED),
	    cx = col(cw, CW_EXPOSED_WAIT_US), cstep = col(cw, CW_STEP), ccomm = col(cw, CW_COMMUNICATOR),
	    ccoll = col(cw, CW_COLLECTIVE);
	int rrun = col(rk, RANKS_RUN), rrank = col(rk, RANKS_RANK);
	*noise = 0;
	if (!cw || !rk || crun < 0 || crank < 0 || clast < 0 || cm < 0 || cstep < 0 || ccomm < 0 || ccoll < 0 ||
	    rrun < 0 || rrank < 0)
		return NAN;
	size_t nranks = 0;
	double steps = (double)straggler_steps(res, run, straggler, &nranks);
	struct coll_row *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t r = 0; r < cw->nrows; r++) {
		const char *rr = text(cw, r, crun);
		if (!rr || strcmp(rr, run) || num(cw, r, cm) != 1 || isnan(num(cw, r, cstep)))
			continue;
		double x = num(cw, r, cx);
		v = xgrow(v, &cap, n + 1, sizeof(*v));
		const char *comm = text(cw, r, ccomm);
		v[n++] = (struct coll_row){num(cw, r, cstep), num(cw, r, ccoll), isnan(x) || x < 0 ? 0 : x,
					   comm ? comm : "", (int)num(cw, r, crank), (int)num(cw, r, clast)};
	}
	if (!n || steps <= 0 || nranks < 2) {
		free(v);
		return NAN;
	}
	qsort(v, n, sizeof(*v), cmp_coll_row);
	/* per rank that arrived last: the summed smallest exposed wait of the others */
	struct intmap lasts = {0};
	size_t nl = 0, capl = 0;
	double *sum = NULL;
	int *who = NULL;
	size_t capw = 0;
	for (size_t i = 0; i < n;) {
		size_t e = i + 1;
		while (e < n && same_coll(&v[e], &v[i]))
			e++;
		int last = v[i].last;
		size_t others = 0;
		double least = INFINITY;
		for (size_t j = i; j < e; j++)
			if (v[j].rank != last) {
				others++;
				least = v[j].exposed < least ? v[j].exposed : least;
			}
		if (others + 1 < nranks || isinf(least))
			least = 0;
		size_t k = intmap_index(&lasts, last, nl);
		if (k == nl) {
			sum = xgrow(sum, &capl, nl + 1, sizeof(*sum));
			who = xgrow(who, &capw, nl + 1, sizeof(*who));
			sum[nl] = 0;
			who[nl++] = last;
		}
		sum[k] += least;
		i = e;
	}
	double mine = 0;
	for (size_t k = 0; k < nl; k++) {
		if (who[k] == straggler)
			mine = sum[k] / steps;
		else if (sum[k] / steps > *noise)
			*noise = sum[k] / steps;
	}
	intmap_free(&lasts);
	free(sum);
	free(who);
	free(v);
	return mine;
}

/*
 * The row of straggler_causes.csv of run and rank with the largest excess
 * that matches pred (its name, "" for a region row, where, and mechanism).
 */
static long best_row(const struct table *t, const char *run, int rank,
		     int (*pred)(const char *name, const char *where, enum straggler_mech mech))
{
	int crun = col(t, SC_RUN), crank = col(t, SC_RANK), cn = col(t, SC_NAME), cw = col(t, SC_WHERE),
	    cm = col(t, SC_MECHANISM), ce = col(t, SC_EXCESS_US_PER_STEP);
	long best = -1;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *n = text(t, r, cn), *w = text(t, r, cw), *m = text(t, r, cm);
		if (!rr || strcmp(rr, run) || num(t, r, crank) != rank || !pred(n ? n : "", w ? w : "", straggler_mechanism(m)))
			continue;
		if (best < 0 || num(t, r, ce) > num(t, (size_t)best, ce))
			best = (long)r;
	}
	return best;
}

static int is_region(const char *n, const char *w, enum straggler_mech m)
{
	(void)w;
	(void)m;
	return !*n;
}
static int is_pageable(const char *n, const char *w, enum straggler_mech m)
{
	return *n && !strcmp(w, "gpu") && m == SM_PAGEABLE_COPY;
}
static int is_copy(const char *n, const char *w, enum straggler_mech m)
{
	return *n && !strcmp(w, "gpu") && (m == SM_COPY || is_pageable(n, w, m));
}
static int is_sync_row(const char *n, const char *w, enum straggler_mech m)
{
	(void)w;
	return *n && m == SM_HOST_SYNC;
}
static int is_gap(const char *n, const char *w, enum straggler_mech m)
{
	(void)w;
	return *n && m == SM_HOST_OUTSIDE_OPS;
}
static int is_only_here(const char *n, const char *w, enum straggler_mech m)
{
	(void)w;
	return *n && m == SM_EXTRA_WORK;
}
static int is_more_calls(const char *n, const char *w, enum straggler_mech m)
{
	(void)w;
	return *n && m == SM_MORE_CALLS;
}
static int is_fb_gpu(const char *n, const char *w, enum straggler_mech m)
{
	(void)m;
	return !*n && !strcmp(w, "gpu");
}

const char *why_rank_mechanism(const struct analysis_result *res, const char *run, int straggler)
{
	const struct table *t = result_table(res, "straggler_causes");
	int cm = col(t, SC_MECHANISM);
	long r = t && cm >= 0 ? best_row(t, run, straggler, is_region) : -1;
	return r >= 0 ? text(t, (size_t)r, cm) : NULL;
}

const char *why_mechanism(struct buf *b, const struct analysis_result *res, const char *run, int straggler)
{
	const struct table *t = result_table(res, "straggler_causes");
	int cm = col(t, SC_MECHANISM), cn = col(t, SC_NAME), ce = col(t, SC_EXCESS_US_PER_STEP), cc = col(t, SC_CALLS),
	    coc = col(t, SC_OTHER_CALLS), cb = col(t, SC_BYTES_PER_STEP), cg = col(t, SC_GB_PER_S), creg = col(t, SC_REGION),
	    cmine = col(t, SC_US_PER_STEP), coth = col(t, SC_OTHER_US_PER_STEP), crun = col(t, SC_RUN),
	    crank = col(t, SC_RANK);
	if (!t || cm < 0 || cn < 0 || ce < 0 || creg < 0)
		return NULL;
	long r = best_row(t, run, straggler, is_region);
	if (r < 0)
		return NULL;
	const char *mech = text(t, (size_t)r, cm);
	if (!mech)
		return NULL;
	enum straggler_mech mk = straggler_mechanism(mech);
	long x;
	char rw[320]; /* the region in words (why_region_words) */
	if (mk == SM_PAGEABLE_COPY && (x = best_row(t, run, straggler, is_pageable)) >= 0) {
		int cpg = col(t, SC_PINNED_GB_PER_S);
		double pg = cpg >= 0 ? num(t, (size_t)x, cpg) : NAN;
		char pinned[96] = "";
		if (!isnan(pg))
			snprintf(pinned, sizeof(pinned), " where pinned copies in this run reach %.1f GB/s", pg);
		buf_printf(b, "why: copies from pageable (unpinned) host memory: %s, %.1f MB per step at %.1f GB/s%s, "
			      "%.1f ms per step (%s); the host waits for each such copy, which the driver stages "
			      "through a pinned buffer. Fix: allocate the source pinned (pin_memory=True in the "
			      "DataLoader, tensor.pin_memory()) and copy with non_blocking=True, or keep the data on "
			      "the GPU",
			   text(t, (size_t)x, cn), num(t, (size_t)x, cb) / 1e6, num(t, (size_t)x, cg), pinned,
			   num(t, (size_t)x, ce) / 1000, why_region_words(text(t, (size_t)x, creg), rw, sizeof(rw)));
	} else if (mk == SM_COPY && (x = best_row(t, run, straggler, is_copy)) >= 0) {
		buf_printf(b, "why: copies: %s, %.1f MB per step, %.1f ms per step more than the median rank. Fix: "
			      "copy less (keep the data where it is used) or overlap the copy with compute",
			   text(t, (size_t)x, cn), isnan(num(t, (size_t)x, cb)) ? 0 : num(t, (size_t)x, cb) / 1e6,
			   num(t, (size_t)x, ce) / 1000);
	} else if (mk == SM_HOST_SYNC && (x = best_row(t, run, straggler, is_sync_row)) >= 0) {
		buf_printf(b, "why: host synchronisation: %s, %.0f calls over the trace against the median rank's %.0f, "
			      "%.1f ms per step more %s: each call makes the host wait until the GPU has finished "
			      "everything queued, then the GPU waits for the host to launch again. Fix: keep values on "
			      "the GPU inside the step (no .item(), .cpu(), print or Python condition on a GPU tensor); "
			      "read them once every N steps",
			   text(t, (size_t)x, cn), num(t, (size_t)x, cc), num(t, (size_t)x, coc),
			   num(t, (size_t)x, ce) / 1000, why_region_words(text(t, (size_t)x, creg), rw, sizeof(rw)));
	} else if (mk == SM_HOST_OUTSIDE_OPS && (x = best_row(t, run, straggler, is_gap)) >= 0) {
		buf_printf(b, "why: host time outside every operator and CUDA call: %.1f ms per step more than the "
			      "median rank %s, with nothing recorded on any thread (a sleep, Python work, I/O, a "
			      "lock or the data loader). Fix: find the code with a host profiler (py-spy) or "
			      "record_function annotations around that part of the step",
			   num(t, (size_t)x, ce) / 1000, why_region_words(text(t, (size_t)x, creg), rw, sizeof(rw)));
	} else if (mk == SM_UNEVEN_DATA || mk == SM_SLOWER_GPU) {
		double m = 0, o = 0;
		for (size_t i = 0; i < t->nrows; i++) {
			const char *rr = text(t, i, crun), *n = text(t, i, cn), *w = text(t, i, col(t, SC_WHERE));
			const char *g = text(t, i, creg);
			if (rr && !strcmp(rr, run) && num(t, i, crank) == straggler && is_fb_gpu(n ? n : "", w ? w : "", NSMECH) &&
			    g && strstr(g, "optim") == NULL) {
				m += num(t, i, cmine);
				o += num(t, i, coth);
			}
		}
		/* the input shapes, where the traces recorded them: "[12,1024] vs [8,1024] (1.50x)" */
		const char *sh = NULL;
		int csh = col(t, SC_SHAPES);
		for (size_t i = 0; csh >= 0 && !sh && i < t->nrows; i++) {
			const char *rr = text(t, i, crun), *v = text(t, i, csh);
			if (rr && !strcmp(rr, run) && num(t, i, crank) == straggler && v && *v)
				sh = v;
		}
		char mine[128], other[128];
		double ratio;
		struct buf pre;
		buf_init(&pre);
		if (mk == SM_UNEVEN_DATA && sh && sscanf(sh, "%127s vs %127s (%lfx)", mine, other, &ratio) == 3) {
			buf_printf(&pre, "rank %d's inputs are ", straggler);
			for (const char *p = mine; *p; p++)
				buf_printf(&pre, *p == ',' ? ", " : "%c", *p);
			buf_printf(&pre, " where the others' are ");
			for (const char *p = other; *p; p++)
				buf_printf(&pre, *p == ',' ? ", " : "%c", *p);
			buf_printf(&pre, " (%.3gx); ", ratio);
		}
		if (mk == SM_UNEVEN_DATA)
			buf_printf(b, "why: uneven data: %sthe kernels it shares with the other ranks (same name and "
				      "calls) take longer in forward and backward (its GPU there %.2fx the median rank's), "
				      "not in the optimizer step, whose work does not grow with the batch: its inputs are "
				      "larger (more samples or longer sequences); a kernel only it runs is then cuBLAS's "
				      "choice for the larger shape. Fix: balance the data per "
				      "rank (the same number of samples and tokens: DistributedSampler, length bucketing, "
				      "padding to a fixed length)",
				   pre.data, o > 0 ? m / o : NAN);
		else
			buf_printf(b, "why: a slower GPU: the kernels it shares with the others take longer everywhere, "
				      "the optimizer step's too (forward and backward %.2fx the median rank's). Fix: check "
				      "the GPU's clocks and throttle reasons (nvidia-smi -q -d PERFORMANCE) and other "
				      "processes on it",
				   o > 0 ? m / o : NAN);
		buf_release(&pre);
	} else if (mk == SM_EXTRA_WORK && (x = best_row(t, run, straggler, is_only_here)) >= 0) {
		buf_printf(b, "why: extra work no other rank runs: %s, %.0f calls over the trace, %.1f ms per step "
			      "%s. Fix: remove it from the step or spread it over the ranks (logging, evaluation or "
			      "code under `if rank == ...`)",
			   text(t, (size_t)x, cn), num(t, (size_t)x, cc), num(t, (size_t)x, ce) / 1000,
			   why_region_words(text(t, (size_t)x, creg), rw, sizeof(rw)));
	} else if (mk == SM_MORE_CALLS && (x = best_row(t, run, straggler, is_more_calls)) >= 0) {
		buf_printf(b, "why: more calls than the other ranks: %s, %.0f calls over the trace against the median "
			      "rank's %.0f, %.1f ms per step more %s. Fix: find why this rank calls it more often "
			      "(a loop over its data, a retry, rank-specific code)",
			   text(t, (size_t)x, cn), num(t, (size_t)x, cc), num(t, (size_t)x, coc),
			   num(t, (size_t)x, ce) / 1000, why_region_words(text(t, (size_t)x, creg), rw, sizeof(rw)));
	} else if (mk == SM_SLOWER_KERNELS || mk == SM_SLOWER_HOST) {
		buf_printf(b, "why: its %s is slower throughout (no copy, synchronisation, gap, extra or uneven work "
			      "stands out)",
			   mk == SM_SLOWER_KERNELS ? "GPU work" : "host work");
	} else {
		const char *w = straggler_mechanism_words(mech);
		buf_printf(b, "why: %s", w ? w : mech);
	}
	return mech;
}

/*
 * The price in words: "about X ms per step (Y % of the training's step)",
 * with where the number comes from: the profiled steps' collectives, scaled
 * to the training's steps by the profiler factor where a log gives one.
 */
void why_saving_words(struct buf *b, const struct analysis_result *res, const char *run, int straggler, double saving,
		      double overhead)
{
	double step = (double)profiler_unprofiled_ns(res, run) / 1e3;
	/* the samples it rests on: the straggler's profiled steps, named when fewer than 5 */
	size_t nsteps = straggler_steps(res, run, straggler, NULL);
	char from[96];
	if (nsteps > 0 && nsteps < 5)
		snprintf(from, sizeof(from), "from the collectives of only %zu profiled step%s", nsteps,
			 nsteps == 1 ? "" : "s");
	else
		snprintf(from, sizeof(from), "from the profiled steps' collectives");
	buf_printf(b, "about %.1f ms per step", saving / 1000);
	if (step > 0)
		buf_printf(b, " (%.0f %% of the training's %.1f ms step; %s, scaled by the profiler's factor %.2f)",
			   100 * saving / step, step / 1000, from, overhead);
	else
		buf_printf(b, " (%s; no training log to scale it by)", from);
	/*
	 * The profiler slows ranks unevenly (host-bound ones most): where it
	 * added more per step than the saving, the straggling may be its own.
	 */
	double added = overhead > 1 && step > 0 ? (overhead - 1) * step : 0;
	if (added > saving)
		buf_printf(b, " (the profiler added %.1f ms per step, more than this: the straggling may be the "
			      "profiler's own; confirm on an unprofiled run)", added / 1000);
}

/* The row of straggler_causes.csv for run, rank, where and region with an empty name (the region), or -1. */
const char *why_region_words(const char *region, char *buf, size_t n)
{
	if (!region || !strcmp(region, "(outside phases)"))
		snprintf(buf, n, "outside every phase");
	else
		snprintf(buf, n, "in %s", region);
	return buf;
}

long why_region_row(const struct table *t, const char *run, int rank, const char *where, const char *region)
{
	int crun = col(t, SC_RUN), crank = col(t, SC_RANK), cw = col(t, SC_WHERE), creg = col(t, SC_REGION),
	    cn = col(t, SC_NAME);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *w = text(t, r, cw), *g = text(t, r, creg), *n = text(t, r, cn);
		if (rr && !strcmp(rr, run) && num(t, r, crank) == rank && w && !strcmp(w, where) && g &&
		    !strcmp(g, region) && (!n || !*n))
			return (long)r;
	}
	return -1;
}

/* The first row after region row ro with a name in the same where and region, or -1. */
long why_top_name_row(const struct table *t, const char *run, int rank, const char *where, const char *region)
{
	int crun = col(t, SC_RUN), crank = col(t, SC_RANK), cw = col(t, SC_WHERE), creg = col(t, SC_REGION),
	    cn = col(t, SC_NAME);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *w = text(t, r, cw), *g = text(t, r, creg), *n = text(t, r, cn);
		if (rr && !strcmp(rr, run) && num(t, r, crank) == rank && w && !strcmp(w, where) && g &&
		    !strcmp(g, region) && n && *n && strcmp(n, "(outside operators)"))
			return (long)r;
	}
	return -1;
}

/* The rank's excess per step (us) summed over its region rows (no name) on one side, positive ones only. */
double why_side_excess(const struct table *t, const char *run, int rank, const char *where)
{
	int crun = col(t, SC_RUN), crank = col(t, SC_RANK), cw = col(t, SC_WHERE), cn = col(t, SC_NAME),
	    ce = col(t, SC_EXCESS_US_PER_STEP);
	double sum = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *w = text(t, r, cw), *n = text(t, r, cn);
		double e = num(t, r, ce);
		if (rr && !strcmp(rr, run) && num(t, r, crank) == rank && w && !strcmp(w, where) && (!n || !*n) &&
		    e > 0)
			sum += e;
	}
	return sum;
}
