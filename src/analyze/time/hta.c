/*
 * hta.c: the GPU events Holistic Trace Analysis analyses, as HTA (commit
 * f4d0062c) chooses, classifies and times them; see hta.h. Each place where
 * perfstudy once differed from the real HTA (tests/golden/hta/, written by
 * tools/hta_goldens.py) is a numbered cause, followed here:
 *
 * 1. Rounding (hta/common/trace_parser.py round_down_time_stamps). When a
 *    trace's ts column holds fractions of a microsecond (pandas reads it as
 *    float64), HTA rounds every event's start up and its end (ts + dur, in
 *    doubles) down to whole microseconds, "due to issue with events
 *    overlapping" (pytorch/pytorch#122425). A kernel of 0.736 us that starts
 *    at ...491.764 becomes [492, 492): it vanishes from the busy time; one of
 *    0.7 us within a microsecond ([110.2, 110.9) -> [111, 110)) ends before
 *    it starts, and HTA's interval merge counts it as -1 us of busy time when
 *    it falls in a gap. Each event loses up to 2 us, so idle time grows: on
 *    the bundled runs by up to 2.5 points of the span. The HTA columns follow
 *    this rounding, on the doubles HTA's parser makes (us_double); the exact_
 *    columns do not, nor HTA's doubles, which on epoch-microsecond traces
 *    keep only a quarter of a microsecond (docs/output.md, Agreement with HTA). A
 *    trace is "fractional" when any event perfstudy keeps of the rank starts
 *    at a fraction of a us.
 * 2. Step window (hta/common/trace.py _filter_irrelevant_gpu_kernels). When
 *    the run's ranks together have two or more names ProfilerStep#N, HTA
 *    keeps the GPU events (stream >= 0, correlation >= 0) whose correlation
 *    is that of a host event (runtime or driver call) starting before the
 *    start of the rank's last ProfilerStep#N event, host side or GPU side
 *    (a gpu_user_annotation has no stream, so HTA counts it among the host
 *    events; it starts when the GPU reaches the step). Otherwise it keeps
 *    every GPU event with a stream.
 * 3. Kernel types (hta/utils/utils.py get_kernel_type, the patterns of
 *    hta/common/types.py): by name, not by perfstudy's classification.
 * 4. Interval merge (merge_kernel_intervals): sorted by start, an event
 *    joins the group before it unless it starts after the largest end so
 *    far; a group spans its least start to its largest end. Equal starts
 *    are merged as one (pandas' unstable sort may put a reversed interval
 *    first and count it, +-1 us).
 * Events HTA reads that perfstudy does not keep (cuda_sync events with a
 * stream and a correlation, which HTA counts as GPU work; any event not of
 * ph "X") are not followed; docs/output.md says where it matters.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/time/hta.h"
#include "util/diag.h"
#include "util/xalloc.h"

static int starts(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/*
 * hta/utils/utils.py get_kernel_type with the patterns of hta/common/types.py
 * (Python's re.match: anchored at the start):
 *   communication: (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)
 *   memory:        (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)
 *   computation:   none of (^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|
 *                  (^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)|(^hip)|
 *                  (^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|
 *                  (^collective_subgraph_execution)
 *   other:         the rest (a kernel whose name holds Sync, Memcpy, dma ...)
 */
enum hta_ktype hta_kernel_type(const char *n)
{
	if (starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || strstr(n, "ncclKernel"))
		return HTA_COMM;
	if (starts(n, "Memcpy") || starts(n, "hipMemcpy") || starts(n, "Memset") || starts(n, "hipMemset") ||
	    starts(n, "dma"))
		return HTA_MEMORY;
	static const char *const prefixes[] = {"Stream Wait Event", "runFunction", "job_exe", "packet", "pe_exe",
					       "cpum_exe_subgraph", "collective_subgraph_execution"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (starts(n, prefixes[i]))
			return HTA_OTHER;
	if (strstr(n, "Memcpy") || strstr(n, "Memset") || strstr(n, "dma") || strstr(n, "Sync") ||
	    (starts(n, "cuda") && strstr(n + 4, "LaunchKernel")))
		return HTA_OTHER;
	return HTA_COMPUTE;
}

struct hta_names {
	struct store *store;
	struct store_stmt *st;  /* SELECT name FROM names WHERE id = ?1 */
	signed char *type; /* by name id: 0 not looked up yet, else 1 + hta_ktype */
	size_t n;
};

struct hta_names *hta_names_new(struct store *s)
{
	struct hta_names *nm = xcalloc(1, sizeof(*nm));
	nm->store = s;
	return nm;
}

void hta_names_free(struct hta_names *nm)
{
	if (!nm)
		return;
	store_finalize(nm->st);
	free(nm->type);
	free(nm);
}

int hta_type(struct hta_names *nm, int64_t name_id, enum hta_ktype *out)
{
	size_t id = name_id > 0 ? (size_t)name_id : 0;
	if (id >= nm->n) {
		size_t n = nm->n ? nm->n : 256;
		while (n <= id)
			n *= 2;
		nm->type = xrealloc(nm->type, n);
		memset(nm->type + nm->n, 0, n - nm->n);
		nm->n = n;
	}
	if (!nm->type[id]) {
		if (!nm->st && store_prepare(nm->store, "hta: a kernel's name",
				"SELECT name FROM names WHERE id = ?1", &nm->st) < 0)
			return -1;
		store_bind_int64(nm->st, 1, name_id);
		int rc = store_next(nm->st);
		const char *name = rc > 0 ? (const char *)store_column_text(nm->st, 0) : NULL;
		enum hta_ktype type = hta_kernel_type(name ? name : "");
		store_reset(nm->st);
		if (rc < 0)
			return -1;
		nm->type[id] = (signed char)(1 + type);
	}
	*out = (enum hta_ktype)(nm->type[id] - 1);
	return 0;
}

int hta_run_filters(struct store *s, int64_t run_db_id)
{
	struct store_stmt *st;
	/* the run's traces, their annotations, the names by id: not every trace once per step name */
	if (store_prepare(s, "hta: profiler steps of a run",
			"SELECT count(DISTINCT a.name_id) FROM traces t CROSS JOIN annotations a ON a.trace_id = t.id"
			" CROSS JOIN names n ON n.id = a.name_id WHERE t.run_id = ?1 AND n.name GLOB 'ProfilerStep#[0-9]*'", &st) < 0)
		return -1;
	store_bind_int64(st, 1, run_db_id);
	if (store_next(st) <= 0) { /* count() has a row */
		store_finalize(st);
		return -1;
	}
	int filters = store_column_int64(st, 0) >= 2;
	store_finalize(st);
	return filters;
}

/*
 * Cause 1: the double pandas reads from a JSON time of ns nanoseconds
 * (decimal microseconds, ns / 1000 exactly): below 2^53 ns the division of
 * the exact double by 1000 is rounded once, as strtod rounds the text; above
 * (epoch-microsecond traces, 1.7e18 ns) the text itself is parsed, since
 * (double)ns would round twice.
 */
static double us_double(int64_t ns)
{
	if (ns > -(INT64_C(1) << 53) && ns < INT64_C(1) << 53)
		return (double)ns / 1000.0;
	char text[32];
	snprintf(text, sizeof(text), "%s%" PRId64 ".%03" PRId64, ns < 0 ? "-" : "", imaxabs(ns / 1000),
		 imaxabs(ns % 1000));
	return strtod(text, NULL);
}

/* HTA's ts rounded up; its end, ts + dur in doubles, rounded down. */
int64_t hta_start(const struct hta_rank *r, int64_t start_ns)
{
	return r->rounded ? (int64_t)ceil(us_double(start_ns)) * 1000 : start_ns;
}

int64_t hta_end(const struct hta_rank *r, int64_t start_ns, int64_t end_ns)
{
	return r->rounded ? (int64_t)floor(us_double(start_ns) + us_double(end_ns - start_ns)) * 1000 : end_ns;
}

static int fractional(const struct rk_range *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].start % 1000)
			return 1;
	return 0;
}

static int rank_fractional(const struct rank_data *d)
{
	for (size_t i = 0; i < d->nacts; i++)
		if (d->acts[i].start % 1000)
			return 1;
	return fractional(d->launches, d->nlaunches) || fractional(d->annots, d->nannots) ||
	       fractional(d->gpu_annots, d->ngpu_annots) || fractional(d->cpu_ops, d->ncpu_ops) ||
	       fractional(d->steps, d->nsteps);
}

/* "ProfilerStep#" and a digit: HTA's ProfilerStepGroupingPattern. */
static int is_step_name(struct store *s, int64_t name_id)
{
	char *name = rank_name(s, name_id);
	int yes = name && starts(name, "ProfilerStep#") && name[13] >= '0' && name[13] <= '9';
	free(name);
	return yes;
}

int hta_rank_events(const struct rank_data *d, struct hta_names *nm, int filter, int exact, struct hta_rank *out)
{
	memset(out, 0, sizeof(*out));
	out->rounded = !exact && rank_fractional(d);
	out->filtered = filter;
	out->last_step = INT64_MIN;
	/* Cause 2: the last ProfilerStep#N to start, host or GPU side. */
	for (size_t i = 0; i < d->nsteps; i++)
		if (hta_start(out, d->steps[i].start) > out->last_step)
			out->last_step = hta_start(out, d->steps[i].start);
	int64_t checked = -1; /* one name lookup per distinct GPU annotation name is enough */
	int checked_yes = 0;
	for (size_t i = 0; i < d->ngpu_annots; i++) {
		const struct rk_range *a = &d->gpu_annots[i];
		if (hta_start(out, a->start) <= out->last_step)
			continue;
		if (a->key != checked) {
			checked = a->key;
			checked_yes = is_step_name(nm->store, a->key);
		}
		if (checked_yes)
			out->last_step = hta_start(out, a->start);
	}
	struct launch_index *idx = filter ? rank_launch_index(d) : NULL;
	out->ev = xmalloc((d->nacts ? d->nacts : 1) * sizeof(*out->ev));
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (a->stream < 0)
			continue;
		if (filter) {
			const struct rk_range *l = a->corr >= 0 ? rank_launch_of(d, idx, a->corr) : NULL;
			if (!l || out->last_step == INT64_MIN || hta_start(out, l->start) >= out->last_step)
				continue;
		}
		struct hta_ev *e = &out->ev[out->n];
		e->start = hta_start(out, a->start);
		e->end = hta_end(out, a->start, a->end);
		e->stream = a->stream;
		e->corr = a->corr;
		e->act = i;
		if (hta_type(nm, a->name_id, &e->type) < 0) {
			rank_launch_index_release(d, idx);
			hta_rank_release(out);
			return -1;
		}
		out->n++;
	}
	rank_launch_index_release(d, idx);
	/* acts are sorted by start, and rounding up keeps that order: nothing to sort. */
	return 0;
}

/* hta_for_each_rank's walk: the caller's visitor, the names' types, and the step filter of the current run. */
struct hta_walk {
	struct store *s;
	struct hta_names *nm;
	int64_t run; /* the run whose filter is known; -1 before the first */
	int filter;
	hta_visit_fn *visit;
	void *arg;
};

/* for_each_rank's visitor: the rank's HTA events, then the caller's visitor. */
static int hta_visit(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct hta_walk *w = arg;
	if (k->run_db_id != w->run) {
		if ((w->filter = hta_run_filters(w->s, k->run_db_id)) < 0)
			return -1;
		w->run = k->run_db_id;
	}
	struct hta_rank hr, he;
	if (hta_rank_events(d, w->nm, w->filter, 0, &hr) < 0)
		return -1;
	if (hta_rank_events(d, w->nm, w->filter, 1, &he) < 0) {
		hta_rank_release(&hr);
		return -1;
	}
	int rc = w->visit(k, d, &hr, &he, w->filter, w->arg);
	hta_rank_release(&hr);
	hta_rank_release(&he);
	return rc;
}

int hta_for_each_rank(struct store *s, const char *exp, hta_visit_fn *visit, void *arg)
{
	struct hta_walk w = {s, hta_names_new(s), -1, 0, visit, arg};
	int rc = for_each_rank(s, exp, hta_visit, &w);
	hta_names_free(w.nm);
	return rc;
}

void hta_rank_release(struct hta_rank *r)
{
	free(r->ev);
	memset(r, 0, sizeof(*r));
}

struct span {
	int64_t start, end; /* end < start: a group of one reversed event (cause 1) */
};

/* Cause 4: merge_kernel_intervals over the events of the types in mask; groups into g (n of them at most). */
static size_t merge_groups(const struct hta_rank *r, unsigned mask, struct span *g)
{
	size_t ng = 0;
	int64_t reach = 0, prev_start = 0; /* the largest end so far; the start before */
	for (size_t i = 0; i < r->n; i++) {
		const struct hta_ev *e = &r->ev[i];
		if (!(mask & 1u << e->type))
			continue;
		if (!ng || (e->start > reach && e->start != prev_start)) {
			g[ng].start = e->start;
			g[ng++].end = e->end;
			if (ng == 1)
				reach = e->end;
		} else if (e->end > g[ng - 1].end) {
			g[ng - 1].end = e->end;
		}
		if (e->end > reach)
			reach = e->end;
		prev_start = e->start;
	}
	return ng;
}

static int64_t measure(const struct span *g, size_t n)
{
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += g[i].end - g[i].start;
	return sum;
}

struct bound {
	int64_t t;
	int d;
};

/* The groups' starts (+d) and ends (-d) by time: nearly in order already, so an insertion sort. */
static void bounds_of(const struct span *g, size_t n, int d, struct bound *b)
{
	for (size_t i = 0; i < n; i++) {
		b[2 * i] = (struct bound){g[i].start, d};
		b[2 * i + 1] = (struct bound){g[i].end, -d};
	}
	for (size_t i = 1; i < 2 * n; i++)
		for (size_t j = i; j > 0 && b[j - 1].t > b[j].t; j--) {
			struct bound t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
}

#define MAX_RUNNING 15

/*
 * The sweep of get_comm_comp_overlap and _get_gpu_kernel_type_time: the
 * starts of the groups of set i add w[i] to a running sum and their ends
 * take it off; by_running[v] (v in 1..MAX_RUNNING) is the time during which
 * the sum is v. Among bounds at one time the order does not change the
 * result (only the last of them is followed by a gap, and its sum is the
 * same in any order).
 */
static void sweep(const struct span *const *g, const size_t *n, const int *w, int k, int64_t *by_running)
{
	struct bound *b[3];
	size_t at[3] = {0, 0, 0};
	for (int i = 0; i < k; i++) {
		b[i] = xmalloc((2 * n[i] + 1) * sizeof(*b[i]));
		bounds_of(g[i], n[i], w[i], b[i]);
	}
	memset(by_running, 0, (MAX_RUNNING + 1) * sizeof(*by_running));
	int running = 0;
	int64_t t = 0;
	for (;;) {
		int next = -1;
		for (int i = 0; i < k; i++)
			if (at[i] < 2 * n[i] && (next < 0 || b[i][at[i]].t < b[next][at[next]].t))
				next = i;
		if (next < 0)
			break;
		const struct bound *x = &b[next][at[next]++];
		if (running > 0 && running <= MAX_RUNNING)
			by_running[running] += x->t - t;
		running += x->d;
		t = x->t;
	}
	for (int i = 0; i < k; i++)
		free(b[i]);
}

/*
 * get_temporal_breakdown and get_comm_comp_overlap: span = end of the last
 * merged group - start of the first; idle = span - the groups' lengths;
 * compute = the lengths of the computation groups; comm = those of the
 * communication groups; overlap = the sweep above, by_types the kernel-type
 * breakdown of get_gpu_kernel_breakdown (include_memory_kernels).
 */
void hta_temporal_of(const struct hta_rank *r, struct hta_temporal *out)
{
	memset(out, 0, sizeof(*out));
	struct span *all = xmalloc((r->n ? r->n : 1) * sizeof(*all));
	struct span *comp = xmalloc((r->n ? r->n : 1) * sizeof(*comp));
	struct span *comm = xmalloc((r->n ? r->n : 1) * sizeof(*comm));
	size_t nall = merge_groups(r, ~0u, all);
	size_t ncomp = merge_groups(r, 1u << HTA_COMPUTE, comp);
	size_t ncomm = merge_groups(r, 1u << HTA_COMM, comm);
	if (nall) {
		out->span = all[nall - 1].end - all[0].start;
		out->idle = out->span - measure(all, nall);
	}
	out->compute = measure(comp, ncomp);
	out->comm = measure(comm, ncomm);
	/* get_comm_comp_overlap: communication counts 1, computation 2; the overlap is where the sum is 3. */
	int64_t by_running[MAX_RUNNING + 1];
	const struct span *const pair[2] = {comm, comp};
	const size_t npair[2] = {ncomm, ncomp};
	sweep(pair, npair, (const int[]){1, 2}, 2, by_running);
	out->overlap = by_running[3];
	/* _get_gpu_kernel_type_time: computation 1, communication 2, memory 4. */
	size_t nmem = merge_groups(r, 1u << HTA_MEMORY, all);
	const struct span *const three[3] = {comp, comm, all};
	const size_t nthree[3] = {ncomp, ncomm, nmem};
	sweep(three, nthree, (const int[]){1, 2, 4}, 3, by_running);
	for (int v = 1; v < 8; v++)
		out->by_types[v] = by_running[v];
	free(all);
	free(comp);
	free(comm);
}
