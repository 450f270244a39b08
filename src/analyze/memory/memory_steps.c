/*
 * memory_steps.c: what each rank's caching allocator holds, per profiled
 * step and region, from the allocator's own events (the store's
 * memory_events: Kineto "[memory]" events of a trace recorded with
 * profile_memory=True); memory_steps.csv, memory_regions.csv,
 * memory_ranks.csv, memory_kept.csv and one figure memory_timeline_<run>
 * per run.
 *
 * A rank's events are those of its GPU (device_type 1, CUDA; the first
 * device id its events name when they name several, said in a note), in
 * order of time. The allocated bytes at an instant t are the "Total
 * Allocated" of the last event at or before t (at a step's or region's
 * start: strictly before t); before the rank's first event, that event's
 * total minus its own bytes. Reserved likewise with "Total Reserved".
 *
 *   step                   ProfilerStep#N (N), its host range
 *   start_allocated_bytes  allocated at the step's start
 *   peak_allocated_bytes   the largest of that and every event's total
 *                          allocated within the step: what
 *                          torch.cuda.max_memory_allocated() gives with
 *                          its peak reset at the step's start
 *   peak_at_us             the time of the first event that reached the
 *                          peak, from the step's start (0: the start)
 *   peak_region            the phase (analyze/time/phases.c: get_train_batch,
 *                          forward, backward, optimizer_step or the
 *                          manifest's) whose host time holds that instant,
 *                          "outside" when none does
 *   end_allocated_bytes    allocated at the step's end
 *   peak_reserved_bytes    the same peak of the reserved bytes
 *   memory_regions.csv     per step and phase with host time in it: the
 *                          allocated bytes at the phase's first start and
 *                          last end in the step, and the peak of those and
 *                          the events inside the phase's host time there
 *
 * Growth (memory_ranks.csv). The allocations a rank kept: those made in a
 * profiled step before its last one whose address no free of the trace
 * releases; kept_bytes_per_step = their bytes / (steps - 1), kept_region
 * the phase where most of those bytes were allocated. A rank grows when
 * kept_bytes_per_step and its end_allocated_bytes' change per step both
 * exceed the noise: NOISE_FLOOR, or the largest change per step of
 * end_allocated_bytes of a rank of the same run that kept nothing, if
 * larger. The steps until the device is full, a range, both ends in steps
 * of kept_bytes_per_step, device_bytes the trace's deviceProperties
 * totalGlobalMem for the events' device (what the driver leaves to
 * programs):
 *   steps_to_full           (device_bytes - last step's peak allocated) /
 *                           kept_bytes_per_step: the most, as if the
 *                           allocator's cached blocks were all reusable;
 *   steps_to_full_reserved  (device_bytes - last step's peak reserved) /
 *                           kept_bytes_per_step, 0 where the reserved peak
 *                           already fills it: the reserved memory running
 *                           ahead of allocated counted as taken.
 * The CUDA context and NCCL's buffers lie outside the allocator and so
 * outside the trace: the device fills sooner still by them, said in words.
 *
 * Events whose totals or bytes are negative or above STORE_MEM_MAX (1 PiB)
 * are left out as not an allocator's (the store keeps none of them, nor
 * the host's: store/memevents.c).
 *
 * memory_kept.csv (memory_steps_kept.c): the same kept allocations by the host
 * operator that made them, its parent, the shape where its inputs give it,
 * and how many per step.
 *
 * Memory stays bounded by the live allocations (one slot per address not
 * yet freed), MEMFIG_POINTS points per drawn rank and one store row's
 * events (4096; a rank of several traces: all its events, 56 bytes each).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/memory/memory_chart.h"
#include "analyze/memory/memory_steps_kept.h"
#include "analyze/time/phases.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/intmap.h"
#include "util/xalloc.h"

#define NOISE_FLOOR ((int64_t)1 << 20) /* 1 MiB: the smallest growth per step named */
/*
 * 1 PiB: no device holds more. Events whose totals or bytes are negative
 * or larger are not an allocator's (a damaged or hostile trace) and are
 * left out, so that no difference of two of them overflows.
 */

/* a + b, at most INT64_MAX (a, b >= 0): a kept total of many allocations. */
static int64_t sat_add(int64_t a, int64_t b)
{
	int64_t r;
	return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

/*
 * One live allocation: its address, bytes, thread and time, the step index
 * (-1: none) and phase (-1: outside) it was made in.
 */
struct live {
	int64_t addr, bytes, tid, ts;
	int32_t step, phase;
	int used;
};

/*
 * The live allocations by address: open addressing, linear probing,
 * deletion by backward shift. Addresses come from the trace, so they hash
 * under the process's random key (hashkey_u64, util/intmap.h): a fixed hash let colliding
 * addresses make each insert a scan. The one walk over the slots (the
 * kept bytes) only sums, so the slot order never reaches an output.
 */
struct live_map {
	struct live *v;
	size_t cap, n;
};

static size_t home_of(int64_t addr, size_t cap)
{
	return (size_t)hashkey_u64((uint64_t)addr) & (cap - 1);
}

static void live_put(struct live_map *m, const struct live *l)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct live *v = xcalloc(cap, sizeof(*v));
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->v[i].used)
				continue;
			size_t j = home_of(m->v[i].addr, cap);
			while (v[j].used)
				j = (j + 1) & (cap - 1);
			v[j] = m->v[i];
		}
		free(m->v);
		m->v = v;
		m->cap = cap;
	}
	size_t j = home_of(l->addr, m->cap);
	while (m->v[j].used && m->v[j].addr != l->addr)
		j = (j + 1) & (m->cap - 1);
	if (!m->v[j].used)
		m->n++;
	m->v[j] = *l;
	m->v[j].used = 1;
}

/* Forgets addr's allocation (a free); nothing when it is not live (allocated before the trace). */
static void live_take(struct live_map *m, int64_t addr)
{
	if (!m->cap)
		return;
	size_t mask = m->cap - 1, i = home_of(addr, m->cap);
	while (m->v[i].used && m->v[i].addr != addr)
		i = (i + 1) & mask;
	if (!m->v[i].used)
		return;
	for (size_t j = i;;) {
		j = (j + 1) & mask;
		if (!m->v[j].used)
			break;
		size_t k = home_of(m->v[j].addr, m->cap);
		/* v[j] stays where it is when its home lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		m->v[i] = m->v[j];
		i = j;
	}
	m->v[i].used = 0;
	m->n--;
}

/* One step's numbers, and per phase the region's bounds and numbers (nph each). */
struct mstep {
	int64_t n, start, end;
	int64_t start_alloc, end_alloc, peak, peak_t, start_res, peak_res, events;
	int64_t *r_start_t, *r_end_t, *r_start, *r_end, *r_peak; /* r_start_t -1: the phase has no time here */
};

/* A time at which the allocated bytes are read: into *dst (and a step's or region's peak when a start). */
struct probe {
	int64_t t;
	int end;                 /* read after the events at t (an end), else before them (a start) */
	int64_t *dst, *res_dst;  /* res_dst: the reserved bytes too (steps' starts), or NULL */
	int64_t *peak, *peak_t, *peak_res;
};

static int cmp_probe(const void *pa, const void *pb)
{
	const struct probe *a = pa, *b = pb;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return a->end - b->end;
}

/* Every ranks' summary, kept to the end of the run for the noise of growth. */
struct mrank {
	int rank, device, nsteps;
	int64_t peak, end_first, end_last, peak_last, res_last, kept, device_bytes;
	int kept_phase; /* -1: outside */
};

struct mem_walk {
	const struct analysis_ctx *ctx;
	struct analysis_result *out;
	struct phase_names nm;
	struct phase *ph;
	size_t nph;
	struct ivset *host;
	int64_t *calls;
	struct table *steps, *regions, *ranks, *kept;
	struct mrank *mr;        /* the current run's ranks with events */
	size_t nmr, capmr;
	char *run;               /* the current run */
	struct memory_fig fig;   /* the current run's figure */
	struct buf without;      /* the runs without memory events, for the Methods */
	struct store_mem_event *ev; /* a row's or the rank's allocator events (struct ev_src), kept for the next */
	size_t evcap;
};

static const char *phase_name(const struct mem_walk *w, int p)
{
	return p >= 0 ? w->ph[p].name : "outside";
}

/* The device's memory in bytes from the rank's traces (deviceProperties), or -1. */
static int64_t device_bytes(struct store *s, const struct rank_key *k, int device)
{
	struct store_stmt *st;
	int64_t v = -1;
	st = rank_query(s, "memory: device size",
			"SELECT d.total_mem FROM traces t CROSS JOIN devices d ON d.trace_id = t.id"
			" WHERE t.run_id = ?1 AND t.rank = ?2 AND d.device = ?3 AND d.total_mem > 0"
			" ORDER BY t.id LIMIT 1", k);
	if (!st)
		return -1;
	store_bind_int(st, 3, device);
	if (store_next(st) > 0)
		v = store_column_int64(st, 0);
	store_finalize(st);
	return v;
}

/* The step index holding t (steps sorted, disjoint), from *at on; -1 when none. */
static long step_of(const struct mstep *S, size_t ns, size_t *at, int64_t t)
{
	while (*at < ns && S[*at].end < t)
		(*at)++;
	return *at < ns && S[*at].start <= t ? (long)*at : -1;
}

/* The probes of the steps and regions, sorted. */
static struct probe *make_probes(struct mstep *S, size_t ns, size_t nph, size_t *np)
{
	struct probe *pr = xcalloc(ns * (2 + 2 * nph) + 1, sizeof(*pr));
	size_t n = 0;
	for (size_t i = 0; i < ns; i++) {
		pr[n++] = (struct probe){S[i].start, 0, &S[i].start_alloc, &S[i].start_res, &S[i].peak, &S[i].peak_t,
					 &S[i].peak_res};
		pr[n++] = (struct probe){S[i].end, 1, &S[i].end_alloc, NULL, NULL, NULL, NULL};
		for (size_t p = 0; p < nph; p++) {
			if (S[i].r_start_t[p] < 0)
				continue;
			pr[n++] = (struct probe){S[i].r_start_t[p], 0, &S[i].r_start[p], NULL, &S[i].r_peak[p], NULL, NULL};
			pr[n++] = (struct probe){S[i].r_end_t[p], 1, &S[i].r_end[p], NULL, NULL, NULL, NULL};
		}
	}
	if (n > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
		qsort(pr, n, sizeof(*pr), cmp_probe);
	*np = n;
	return pr;
}

static void resolve(struct probe *p, int64_t cur, int64_t res)
{
	*p->dst = cur;
	if (p->res_dst)
		*p->res_dst = res;
	if (p->peak && cur > *p->peak) {
		*p->peak = cur;
		if (p->peak_t)
			*p->peak_t = p->t;
	}
	if (p->peak_res && res > *p->peak_res)
		*p->peak_res = res;
}

/* The table rows of one rank's steps and regions. */
static void rank_rows(struct mem_walk *w, const struct rank_key *k, const struct mstep *S, size_t ns,
		      const struct ivset *host)
{
	for (size_t i = 0; i < ns; i++) {
		const struct mstep *s = &S[i];
		size_t row = table_add_row(w->steps);
		table_set_text(w->steps, row, 0, k->run);
		table_set_int(w->steps, row, 1, k->rank);
		table_set_int(w->steps, row, 2, s->n);
		table_set_int(w->steps, row, 3, s->events);
		table_set_int(w->steps, row, 4, s->start_alloc);
		table_set_int(w->steps, row, 5, s->peak);
		table_set_ns(w->steps, row, 6, s->peak_t - s->start);
		table_set_text(w->steps, row, 7, phase_name(w, phase_at(host, w->nph, s->peak_t)));
		table_set_int(w->steps, row, 8, s->end_alloc);
		table_set_int(w->steps, row, 9, s->peak_res);
		for (size_t p = 0; p < w->nph; p++) {
			if (s->r_start_t[p] < 0)
				continue;
			row = table_add_row(w->regions);
			table_set_text(w->regions, row, 0, k->run);
			table_set_int(w->regions, row, 1, k->rank);
			table_set_int(w->regions, row, 2, s->n);
			table_set_text(w->regions, row, 3, w->ph[p].name);
			table_set_int(w->regions, row, 4, s->r_start[p]);
			table_set_int(w->regions, row, 5, s->r_end[p]);
			table_set_int(w->regions, row, 6, s->r_peak[p]);
		}
	}
}

/* The current run's memory_ranks.csv rows (growth needs the run's noise) and its figure. */
static void flush_run(struct mem_walk *w)
{
	if (!w->run)
		return;
	if (!w->nmr)
		buf_printf(&w->without, "%s%s", w->without.len ? ", " : "", w->run);
	int64_t noise = NOISE_FLOOR;
	for (size_t i = 0; i < w->nmr; i++) {
		const struct mrank *r = &w->mr[i];
		if (r->nsteps >= 2 && !r->kept) {
			int64_t d = llabs(r->end_last - r->end_first) / (r->nsteps - 1);
			if (d > noise)
				noise = d;
		}
	}
	for (size_t i = 0; i < w->nmr; i++) {
		const struct mrank *r = &w->mr[i];
		struct table *t = w->ranks;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, w->run);
		table_set_int(t, row, 1, r->rank);
		table_set_int(t, row, 2, r->device);
		table_set_int(t, row, 3, r->nsteps);
		table_set_int(t, row, 4, r->peak);
		if (r->device_bytes > 0)
			table_set_int(t, row, 5, r->device_bytes);
		table_set_int(t, row, 9, noise);
		if (r->nsteps < 2) {
			table_set_int(t, row, 11, 0);
			continue;
		}
		int64_t change = (r->end_last - r->end_first) / (r->nsteps - 1), per = r->kept / (r->nsteps - 1);
		table_set_int(t, row, 6, change);
		table_set_int(t, row, 7, per);
		table_set_text(t, row, 8, r->kept ? phase_name(w, r->kept_phase) : "");
		int grows = per > noise && change > noise;
		table_set_int(t, row, 10, grows);
		table_set_int(t, row, 11, r->nsteps - 1);
		if (grows && r->device_bytes > r->peak_last)
			table_set_int(t, row, 12, (r->device_bytes - r->peak_last) / per);
		if (grows && r->device_bytes > 0)
			table_set_int(t, row, 13, r->device_bytes > r->res_last ? (r->device_bytes - r->res_last) / per : 0);
	}
	memory_fig_finish(&w->fig, w->out, w->run);
	free(w->run);
	w->run = NULL;
	w->nmr = 0;
}

/* v[0..n) by time, stably (equal times keep their order), through tmp of n. */
static void sort_events(struct store_mem_event *v, struct store_mem_event *tmp, size_t n)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	sort_events(v, tmp, h);
	sort_events(v + h, tmp, n - h);
	size_t i = 0, j = h, o = 0;
	while (i < h && j < n)
		tmp[o++] = v[j].ts_ns < v[i].ts_ns ? v[j++] : v[i++];
	while (i < h)
		tmp[o++] = v[i++];
	memcpy(v, tmp, o * sizeof(*v)); /* v[j..n) are in place */
}

/*
 * A rank's allocator events in order of time, among equal times by trace,
 * then by place in the trace. The store keeps a trace's in that order, so
 * a rank of one trace (the usual) is decoded a row (4096 events) at a
 * time; one of several traces is decoded whole into w->ev and sorted.
 */
struct ev_src {
	struct store_stmt *st;
	struct mem_walk *w;
	size_t n, i;
	int err; /* a failure, said */
};

/* The next row's events into w->ev: 1, 0 at the end, -1 after diag. */
static int ev_row(struct ev_src *src, const struct rank_key *k, size_t at, int64_t *trace)
{
	struct mem_walk *w = src->w;
	int rc = store_next(src->st);
	if (rc <= 0)
		return rc;
	int64_t m = store_column_int64(src->st, 1);
	const void *data = store_column_blob(src->st, 2);
	size_t len = (size_t)store_column_bytes(src->st, 2);
	*trace = store_column_int64(src->st, 0);
	if (m >= 0 && m <= (1 << 20)) {
		w->ev = xgrow(w->ev, &w->evcap, at + (size_t)m + 1, sizeof(*w->ev));
		if (store_mem_decode(data ? data : "", len, (size_t)m, w->ev + at) == 0) {
			src->n = at + (size_t)m;
			return 1;
		}
	}
	diag_error(NULL, "memory: run %s rank %d: memory_events rows not as perfstudy stores them", k->run, k->rank);
	return -1;
}

/* Opens the rank's events: 0, or -1 after diag. */
static int ev_open(struct ev_src *src, struct store *s, const struct rank_key *k, struct mem_walk *w)
{
	*src = (struct ev_src){.w = w};
	struct store_stmt *st = rank_query(s, "memory: a rank's traces with events",
					   "SELECT count(DISTINCT m.trace_id) FROM traces t CROSS JOIN memory_events m"
					   " ON m.trace_id = t.id WHERE t.run_id = ?1 AND t.rank = ?2", k);
	if (!st)
		return -1;
	int rc = store_next(st);
	int64_t traces = rc > 0 ? store_column_int64(st, 0) : 0;
	store_finalize(st);
	if (rc < 0)
		return -1;
	src->st = rank_query(s, "memory: a rank's events",
			     "SELECT m.trace_id, m.events, m.data FROM traces t CROSS JOIN memory_events m"
			     " ON m.trace_id = t.id WHERE t.run_id = ?1 AND t.rank = ?2 ORDER BY t.id, m.chunk", k);
	if (!src->st)
		return -1;
	if (traces <= 1)
		return 0;
	int64_t trace;
	while ((rc = ev_row(src, k, src->n, &trace)) > 0)
		;
	store_finalize(src->st);
	src->st = NULL;
	if (rc < 0)
		return -1;
	/* by time; the place in w->ev breaks ties: trace, then place in it */
	struct store_mem_event *tmp = xcalloc(src->n + 1, sizeof(*tmp));
	sort_events(w->ev, tmp, src->n);
	free(tmp);
	return 0;
}

/* The next event, or NULL at the end or after a failure (src->err). */
static const struct store_mem_event *ev_next(struct ev_src *src, const struct rank_key *k)
{
	if (src->i == src->n && src->st) {
		int64_t trace;
		int rc = ev_row(src, k, 0, &trace);
		src->i = 0;
		if (rc <= 0) {
			src->n = 0;
			src->err = rc < 0;
			return NULL;
		}
	}
	return src->i < src->n ? &src->w->ev[src->i++] : NULL;
}

/* One rank's events, read once in order of time. Returns 0, or -1 after diag. */
static int mem_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct mem_walk *w = arg;
	struct store *s = w->ctx->store;
	if (!w->run || strcmp(w->run, k->run)) {
		flush_run(w);
		w->run = xstrdup(k->run);
		memory_fig_start(&w->fig);
	}
	size_t nph = w->nph, ns = d->nsteps;
	phase_host_time(s, &w->nm, w->ph, nph, d, w->host, w->calls);
	struct mstep *S = xcalloc(ns ? ns : 1, sizeof(*S));
	int64_t *slab = xcalloc(5 * (ns * nph) + 1, sizeof(*slab));
	for (size_t i = 0; i < ns; i++) {
		struct mstep *m = &S[i];
		m->n = d->steps[i].key;
		m->start = d->steps[i].start;
		m->end = d->steps[i].end;
		m->peak = m->peak_res = INT64_MIN;
		m->peak_t = m->start;
		m->r_start_t = slab + (5 * i + 0) * nph;
		m->r_end_t = slab + (5 * i + 1) * nph;
		m->r_start = slab + (5 * i + 2) * nph;
		m->r_end = slab + (5 * i + 3) * nph;
		m->r_peak = slab + (5 * i + 4) * nph;
		for (size_t p = 0; p < nph; p++) {
			const struct ivset *h = &w->host[p];
			m->r_start_t[p] = -1;
			m->r_peak[p] = INT64_MIN;
			for (size_t l = ivset_first_ending_after(h, m->start); l < h->n && h->v[l].start < m->end; l++) {
				if (m->r_start_t[p] < 0)
					m->r_start_t[p] = h->v[l].start > m->start ? h->v[l].start : m->start;
				m->r_end_t[p] = h->v[l].end < m->end ? h->v[l].end : m->end;
			}
		}
	}
	size_t np, pi = 0, at = 0;
	struct probe *pr = make_probes(S, ns, nph, &np);
	struct live_map live = {0};
	struct ev_src src = {0};
	int ret = -1, first = 1, device = -1, drawn = 0;
	int64_t cur = 0, res = 0, other = 0, last_ts = 0, start0 = ns ? S[0].start : 0;
	if (ev_open(&src, s, k, w) < 0)
		goto out;
	const struct store_mem_event *e;
	while ((e = ev_next(&src, k))) {
		int dev = e->device;
		int64_t ts = e->ts_ns, bytes = e->bytes, addr = e->addr, tot = e->total_allocated;
		int64_t rsv = e->total_reserved < 0 ? 0 : e->total_reserved, tid = e->tid;
		if (first) {
			device = dev;
			cur = tot - bytes;
			res = rsv;
			first = 0;
			if (ns)
				memory_fig_rank(&w->fig, k->rank, S[ns - 1].end - start0);
		} else if (dev != device) {
			other++;
			continue;
		}
		while (pi < np && (pr[pi].end ? pr[pi].t < ts : pr[pi].t <= ts))
			resolve(&pr[pi++], cur, res);
		if (ns && !drawn && ts >= start0) {
			memory_fig_point(&w->fig, 0, cur, res); /* the state at the first step's start */
			drawn = 1;
		}
		cur = tot;
		res = rsv;
		last_ts = ts;
		long si = step_of(S, ns, &at, ts);
		int p = phase_at(w->host, nph, ts);
		if (si >= 0) {
			struct mstep *m = &S[si];
			m->events++;
			if (tot > m->peak) {
				m->peak = tot;
				m->peak_t = ts;
			}
			if (rsv > m->peak_res)
				m->peak_res = rsv;
			if (p >= 0 && tot > m->r_peak[p])
				m->r_peak[p] = tot;
		}
		if (ns && ts >= start0 && ts <= S[ns - 1].end)
			memory_fig_point(&w->fig, ts - start0, cur, res);
		if (addr < 0)
			continue;
		if (bytes > 0)
			live_put(&live, &(struct live){addr, bytes, tid, ts, (int32_t)si, p, 1});
		else if (bytes < 0)
			live_take(&live, addr);
	}
	if (src.err)
		goto out;
	ret = 0;
	if (first)
		goto out; /* no memory events: no rows */
	while (pi < np)
		resolve(&pr[pi++], cur, res);
	if (other)
		result_add_note(w->out, "memory_steps.csv: run %s rank %d: %" PRId64 " allocator events of devices other "
				"than device %d, its first, are left out", k->run, k->rank, other, device);
	if (!ns) {
		result_add_note(w->out, "memory_steps.csv: run %s rank %d has allocator events but no ProfilerStep#N "
				"ranges; no step rows", k->run, k->rank);
		goto out;
	}
	if (!drawn)
		memory_fig_point(&w->fig, 0, cur, res);
	if (last_ts < S[ns - 1].end)
		memory_fig_point(&w->fig, S[ns - 1].end - start0, cur, res);
	rank_rows(w, k, S, ns, w->host);
	memory_fig_regions(&w->fig, w->host, w->ph, nph, start0, S[ns - 1].end);
	/* growth: what was allocated in a step before the last and never freed */
	struct mrank r = {.rank = k->rank, .device = device, .nsteps = (int)ns, .peak = INT64_MIN,
			  .end_first = S[0].end_alloc, .end_last = S[ns - 1].end_alloc, .peak_last = S[ns - 1].peak,
			  .res_last = S[ns - 1].peak_res, .kept_phase = -1};
	for (size_t i = 0; i < ns; i++)
		if (S[i].peak > r.peak)
			r.peak = S[i].peak;
	int64_t *byphase = xcalloc(nph + 1, sizeof(*byphase));
	struct kept_alloc *kv = NULL;
	size_t nkv = 0, capkv = 0;
	for (size_t i = 0; i < live.cap; i++) {
		const struct live *l = &live.v[i];
		if (!l->used || l->step < 0 || (size_t)l->step + 1 >= ns)
			continue;
		r.kept = sat_add(r.kept, l->bytes);
		byphase[l->phase + 1] = sat_add(byphase[l->phase + 1], l->bytes);
		kv = xgrow(kv, &capkv, nkv + 1, sizeof(*kv));
		kv[nkv++] = (struct kept_alloc){l->tid, l->ts, l->bytes, l->step};
	}
	/* memory_steps_kept.c sorts them: the slots' order never reaches an output */
	int krc = memory_kept_rank(s, k, kv, nkv, (int64_t)ns - 1, w->kept);
	free(kv);
	if (krc < 0) {
		free(byphase);
		ret = -1;
		goto out;
	}
	int64_t best = 0;
	for (size_t p = 0; p <= nph; p++)
		if (byphase[p] > best) {
			best = byphase[p];
			r.kept_phase = (int)p - 1;
		}
	free(byphase);
	r.device_bytes = device_bytes(s, k, device);
	w->mr = xgrow(w->mr, &w->capmr, w->nmr + 1, sizeof(*w->mr));
	w->mr[w->nmr++] = r;
out:
	store_finalize(src.st);
	free(live.v);
	free(pr);
	free(slab);
	free(S);
	return ret;
}

/* Whether the experiment (?1 of sql, a SELECT EXISTS) has what sql asks: 1, 0, or -1 after diag. */
static int exp_has(struct store *s, const char *exp, const char *what, const char *sql)
{
	struct store_stmt *st = store_query(s, what, sql, exp);
	if (!st)
		return -1;
	int r = store_next(st);
	if (r == 1)
		r = store_column_int(st, 0);
	store_finalize(st);
	return r;
}

static int analysis_memory_steps(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	/* allocator events of a GPU; without, whether a Kineto trace (the one format read for them) could have had them */
	int any = exp_has(ctx->store, ctx->experiment, "memory: any events",
			  "SELECT EXISTS(SELECT 1 FROM runs r CROSS JOIN traces t ON t.run_id = r.id"
			  " CROSS JOIN memory_events m ON m.trace_id = t.id WHERE r.experiment = ?1)");
	if (any < 0)
		return -1;
	int kineto = any ? 1 : exp_has(ctx->store, ctx->experiment, "memory: any kineto trace",
				       "SELECT EXISTS(SELECT 1 FROM runs r CROSS JOIN traces t ON t.run_id = r.id"
				       " WHERE r.experiment = ?1 AND t.format = 'kineto')");
	if (kineto < 0)
		return -1;
	if (!any && kineto) {
		result_add_method(out, "memory",
				  "No trace of this experiment records the caching allocator's events (PyTorch's "
				  "profiler, the one reader of them here, writes them as \"[memory]\" instant events when recording with "
				  "profile_memory=True), so there is no memory_steps.csv, memory_regions.csv, memory_ranks.csv, "
				  "memory_kept.csv or memory_timeline figure.");
		return 0;
	}
	if (!any)
		return 0; /* no format that could hold them: nothing to say */
	struct mem_walk w = {.ctx = ctx, .out = out};
	w.ph = phase_list(ctx->manifest, &w.nph);
	w.host = xcalloc(w.nph + 1, sizeof(*w.host));
	w.calls = xcalloc(w.nph + 1, sizeof(*w.calls));
	for (size_t p = 0; p < w.nph; p++)
		ivset_init(&w.host[p]);
	buf_init(&w.without);
	memory_fig_start(&w.fig);
	w.steps = table_new("memory_steps", "GPU memory per profiled step: the caching allocator's own numbers",
			    TABLE_SCHEMA(MEMORY_STEPS_COLUMNS));
	w.regions = table_new("memory_regions", "GPU memory per profiled step and phase",
			      TABLE_SCHEMA(MEMORY_REGIONS_COLUMNS));
	w.ranks = table_new("memory_ranks", "GPU memory per rank: its peak, and what it keeps from step to step",
			    TABLE_SCHEMA(MEMORY_RANKS_COLUMNS));
	w.kept = memory_kept_table();
	int ret = for_each_rank(ctx->store, ctx->experiment, mem_rank, &w);
	if (ret == 0)
		flush_run(&w);
	else
		memory_fig_finish(&w.fig, NULL, NULL);
	if (ret == 0) {
		if (w.without.len)
			result_add_note(out, "memory_steps.csv: run%s %s record%s no allocator events (PyTorch "
					"profile_memory=True); no memory rows or figure for %s",
					strchr(w.without.data, ',') ? "s" : "", w.without.data,
					strchr(w.without.data, ',') ? "" : "s", strchr(w.without.data, ',') ? "them" : "it");
		result_add_table(out, w.steps);
		result_add_table(out, w.regions);
		result_add_table(out, w.ranks);
		result_add_table(out, w.kept);
		w.steps = w.regions = w.ranks = w.kept = NULL;
		struct buf m;
		buf_init(&m);
		buf_printf(&m,
			   "From the caching allocator's own events (PyTorch profile_memory=True: one \"[memory]\" "
			   "event per allocation or free of a GPU block, with the allocator's total allocated and "
			   "reserved bytes just after it), per run, rank (the events of its GPU) and profiled step "
			   "(ProfilerStep#N, its host range; a training log's iteration N+1). The allocated bytes at an "
			   "instant are the total of the last event at or before it (at a start: before it); before "
			   "the first event, that event's total minus its own bytes. start_allocated_bytes and "
			   "end_allocated_bytes: at the step's start and end. peak_allocated_bytes: the largest of the "
			   "start's and every event's total in the step, which is what torch.cuda.max_memory_allocated() "
			   "reports with its peak reset at the step's start; peak_at_us: when the first event reaching it "
			   "came, from the step's start; peak_region: the phase (phases.csv's: get_train_batch, forward, "
			   "backward, optimizer_step or the manifest's phases, innermost on the host) whose host time holds "
			   "that instant, or outside. peak_reserved_bytes: the same peak of the reserved bytes. events: "
			   "the step's allocator events (those whose bytes or totals are negative or above 1 PiB are left out as not an "
			   "allocator's). A run without such events gets no rows and no figure; a note "
			   "names it.");
		result_add_method(out, "memory_steps.csv", m.data);
		buf_reset(&m);
		result_add_method(out, "memory_regions.csv",
				  "Per run, rank, profiled step and phase with host time in the step: the allocated "
				  "bytes (as memory_steps.csv defines them) at the phase's first start in the step, "
				  "at its last end, and the peak: the largest of the start's and the totals of the "
				  "allocator events inside the phase's host time in that step.");
		buf_printf(&m,
			   "Per run and rank: device and device_bytes (the GPU its events name and its memory from the "
			   "trace's deviceProperties), steps (profiled steps), peak_allocated_bytes (the largest of "
			   "memory_steps.csv's). Growth, from the allocations the rank kept: those made in a profiled step "
			   "before its last one whose address no free in the trace releases. rate_steps = steps - 1: the "
			   "steps the rates rest on (with two profiled steps, one). kept_bytes_per_step: their bytes / "
			   "rate_steps; kept_region: the phase in which most of those bytes were allocated. "
			   "end_change_bytes_per_step: (end_allocated_bytes of the last step - of the first) / rate_steps. "
			   "noise_bytes: %d MiB, or the largest absolute end_change_bytes_per_step of a rank of the run "
			   "that kept nothing, if larger. grows = 1 when both kept_bytes_per_step and "
			   "end_change_bytes_per_step exceed noise_bytes; steps_to_full: then (device_bytes - the last "
			   "step's peak_allocated_bytes) / kept_bytes_per_step, the steps until the peak no longer fits "
			   "on the device at that rate: the most, as if every block the allocator caches could be reused; "
			   "steps_to_full_reserved: (device_bytes - the last step's peak_reserved_bytes) / "
			   "kept_bytes_per_step (0 where that peak already fills it), the fewest this trace shows, with the "
			   "memory the allocator reserved beyond what it allocated counted as taken. Both in steps, from the "
			   "trace alone (its allocator events and deviceProperties; the rate rests on rate_steps steps). The "
			   "CUDA context and NCCL's buffers are outside the allocator and not in the trace: the device fills "
			   "sooner still by them.", (int)(NOISE_FLOOR >> 20));
		result_add_method(out, "memory_ranks.csv", m.data);
		result_add_method(out, "memory_kept.csv", memory_kept_method());
		buf_release(&m);
	}
	table_free(w.steps);
	table_free(w.regions);
	table_free(w.ranks);
	table_free(w.kept);
	for (size_t p = 0; p < w.nph; p++)
		ivset_release(&w.host[p]);
	free(w.host);
	free(w.calls);
	free(w.ph);
	free(w.mr);
	free(w.ev);
	free(w.run);
	phase_names_release(&w.nm);
	buf_release(&w.without);
	return ret;
}

const struct analysis_def analysis_def_memory_steps = {
	.name = "memory_steps",
	.run = analysis_memory_steps,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("memory_steps", "memory_regions", "memory_ranks", "memory_kept"),
	.figures = ANALYSIS_NAMES("memory_timeline_*"),
};
