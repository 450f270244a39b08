/*
 * memsites.c: the host operators around a trace's GPU allocations, as
 * memory_ops rows, so that an allocation kept from step to step can be
 * named by the operator that made it (analyze/memory/memory_steps_kept.c).
 *
 * cpu_ops keeps only the outermost operators of each thread (sink.c), but
 * the operator that allocates is usually nested: aten::empty under aten::mm
 * under aten::linear. A Kineto trace writes a thread's "[memory]" events
 * after its operators (another writer may not), so neither can wait for
 * the other: the operators that cpu_ops leaves out are held here (at most
 * INNER_MAX, 40 bytes each) with the times of the trace's GPU allocations
 * (bytes > 0, device type 1; at most ALLOCS_MAX, 16 bytes each). At the
 * trace's end memevents.c's walk of the allocator events keeps of these
 * the allocations no later event frees or allocates again on their device
 * (store_memsites_keep): memory_kept.csv's are among them, and most
 * allocations are freed within their step (experiments/h200x4's
 * mem-1gpu: 7 of 566 are left at the end). Every operator, stored or not,
 * that encloses one of those on its thread (start <= ts <= start + dur)
 * is a memory_ops row: the whole chain of operators around each such
 * allocation, and nothing else. An operator that overlaps a later one of
 * its thread without holding it (Kineto never writes one) counts as ended
 * at the later one's start. Past either bound a warning says what is left out:
 * beyond INNER_MAX, the nested operators (the outermost name the
 * allocations); beyond ALLOCS_MAX, the later allocations.
 */
#include "store/store_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/intmap.h"
#include "util/xalloc.h"

#define INNER_MAX ((size_t)1 << 20) /* nested operators held for one trace (40 MiB) */
#define ALLOCS_MAX ((size_t)1 << 22) /* GPU allocations held for one trace (64 MiB) */

/* A names id (-1: absent) as struct inner_op keeps it, and back. */
static uint32_t id_in(int64_t id)
{
	return (uint32_t)(id + 1);
}

static int64_t id_out(uint32_t v)
{
	return (int64_t)v - 1;
}

void store_memsites_inner(struct store *s, const struct pending_op *o)
{
	if (s->inner_over)
		return;
	if (s->ninner == INNER_MAX) {
		s->inner_over = 1;
		s->ninner = 0;
		return;
	}
	s->inner = xgrow(s->inner, &s->innercap, s->ninner + 1, sizeof(*s->inner));
	s->inner[s->ninner++] = (struct inner_op){o->start, o->dur, o->tid, id_in(o->name_id), id_in(o->dims_id),
						  id_in(o->types_id), id_in(o->concrete_id)};
}

void store_memsites_alloc(struct store *s, int64_t tid, int64_t ts)
{
	if (s->nallocs == ALLOCS_MAX) {
		s->allocs_over = 1;
		return;
	}
	s->allocs = xgrow(s->allocs, &s->alloccap, s->nallocs + 1, sizeof(*s->allocs));
	s->allocs[s->nallocs++] = (struct alloc_at){tid, ts};
}

/* Forgets the trace's operators and allocations, giving their memory back (see store_ops_reset). */
void store_memsites_reset(struct store *s)
{
	free(s->inner);
	free(s->allocs);
	s->inner = NULL;
	s->allocs = NULL;
	s->ninner = s->innercap = 0;
	s->nallocs = s->alloccap = 0;
	s->inner_over = 0;
	s->allocs_over = 0;
}

void store_memsites_release(struct store *s)
{
	store_memsites_reset(s);
}

/*
 * The flush's operators are numbered: 0 .. nops - 1 the stored ones
 * (store.ops), then the inner ones. An operator's thread, start, duration
 * and name, whichever array it is in.
 */
struct op_key {
	int64_t tid, start, dur, name;
};

static struct op_key key_at(const struct store *s, size_t i)
{
	if (i < s->nops) {
		const struct pending_op *o = &s->ops[i];
		return (struct op_key){o->tid, o->start, o->dur, o->name_id};
	}
	const struct inner_op *o = &s->inner[i - s->nops];
	return (struct op_key){o->tid, o->start, o->dur, id_out(o->name)};
}

/* sink.c's order (store_cmp_op); ties by number, as a stable sort of the stored operators, then the inner ones. */
static int cmp_key(const struct op_key *x, size_t i, const struct op_key *y, size_t j)
{
	int c = store_cmp_op_key(x->tid, x->start, x->dur, x->name, y->tid, y->start, y->dur, y->name);
	return c ? c : i < j ? -1 : i > j;
}

struct keyed {
	struct op_key k;
	size_t i;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	return cmp_key(&x->k, x->i, &y->k, y->i);
}

/* Puts v[0..n) (operator numbers, one thread's) in cmp_key's order; in order already, as a rule. */
static void sort_run(const struct store *s, size_t *v, size_t n)
{
	size_t i = 1;
	for (struct op_key prev = n ? key_at(s, v[0]) : (struct op_key){0}; i < n; i++) {
		struct op_key k = key_at(s, v[i]);
		if (cmp_key(&prev, v[i - 1], &k, v[i]) > 0)
			break;
		prev = k;
	}
	if (i >= n)
		return;
	struct keyed *t = xmalloc(n * sizeof(*t));
	for (size_t j = 0; j < n; j++)
		t[j] = (struct keyed){key_at(s, v[j]), v[j]};
	qsort(t, n, sizeof(*t), cmp_keyed);
	for (size_t j = 0; j < n; j++)
		v[j] = t[j].i;
	free(t);
}

/* A thread's operators: how many of each kind, and where they go in the order. */
struct thread_run {
	int64_t tid;
	size_t nops, ninner, at;
};

static int cmp_run(const void *a, const void *b)
{
	const struct thread_run *x = a, *y = b;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * The flush's n operators cand[0..n) (numbers, increasing) in sink.c's
 * order, as their numbers. The stored
 * ones come in that order on each thread (sink.c decides a thread's start
 * after start) and so do the inner ones, each thread's interleaved with
 * the others': they are put by thread (threads in order of tid), and each
 * thread's two runs merged, rather than all sorted (a trace's 900k took a
 * qsort of 0.09 s). A run out of order (operators that came out of order,
 * sorted at the trace's end) is sorted first.
 */
static size_t *op_order(const struct store *s, const size_t *cand, size_t n)
{
	struct intmap map = {0};
	struct thread_run *runs = NULL;
	size_t nruns = 0, runcap = 0, last = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		size_t i = cand[k];
		int64_t tid = key_at(s, i).tid;
		if (last == SIZE_MAX || runs[last].tid != tid) {
			last = intmap_index(&map, tid, nruns);
			if (last == nruns) {
				runs = xgrow(runs, &runcap, nruns + 1, sizeof(*runs));
				runs[nruns++] = (struct thread_run){tid, 0, 0, 0};
			}
		}
		if (i < s->nops)
			runs[last].nops++;
		else
			runs[last].ninner++;
	}
	/* each run's place: runs sorted by tid, a rank for each run's old index */
	size_t *rank = xmalloc((nruns ? nruns : 1) * sizeof(*rank));
	struct thread_run *sorted = xmalloc((nruns ? nruns : 1) * sizeof(*sorted));
	if (nruns)
		memcpy(sorted, runs, nruns * sizeof(*runs));
	for (size_t r = 0; r < nruns; r++)
		sorted[r].at = r; /* its index in runs, until placed */
	qsort(sorted, nruns, sizeof(*sorted), cmp_run);
	size_t at = 0;
	for (size_t r = 0; r < nruns; r++) {
		rank[sorted[r].at] = r;
		sorted[r].at = at;
		at += sorted[r].nops + sorted[r].ninner;
	}
	/* by thread, each thread's stored operators then its inner ones, each in their first order */
	size_t *v = xmalloc((n ? n : 1) * sizeof(*v));
	size_t *fill = xcalloc(nruns ? nruns : 1, sizeof(*fill)), *fill_inner = xcalloc(nruns ? nruns : 1, sizeof(*fill));
	last = SIZE_MAX;
	for (size_t k = 0; k < n; k++) {
		size_t i = cand[k];
		int64_t tid = key_at(s, i).tid;
		if (last == SIZE_MAX || runs[last].tid != tid)
			last = intmap_get(&map, tid);
		size_t r = rank[last];
		if (i < s->nops)
			v[sorted[r].at + fill[r]++] = i;
		else
			v[sorted[r].at + sorted[r].nops + fill_inner[r]++] = i;
	}
	intmap_free(&map);
	free(fill);
	free(fill_inner);
	free(rank);
	free(runs);
	/* each thread: its two runs in order, merged */
	size_t *ord = xmalloc((n ? n : 1) * sizeof(*ord));
	for (size_t r = 0; r < nruns; r++) {
		size_t *a = v + sorted[r].at, na = sorted[r].nops, *b = a + na, nb = sorted[r].ninner;
		size_t *out = ord + sorted[r].at, x = 0, y = 0;
		sort_run(s, a, na);
		sort_run(s, b, nb);
		struct op_key ka = na ? key_at(s, a[0]) : (struct op_key){0};
		struct op_key kb = nb ? key_at(s, b[0]) : (struct op_key){0};
		while (x < na && y < nb) {
			if (cmp_key(&ka, a[x], &kb, b[y]) <= 0) {
				*out++ = a[x++];
				if (x < na)
					ka = key_at(s, a[x]);
			} else {
				*out++ = b[y++];
				if (y < nb)
					kb = key_at(s, b[y]);
			}
		}
		while (x < na)
			*out++ = a[x++];
		while (y < nb)
			*out++ = b[y++];
	}
	free(v);
	free(sorted);
	return ord;
}

static int cmp_alloc(const void *a, const void *b)
{
	const struct alloc_at *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/*
 * Keeps of the held allocations those that store_mem_flush found live at
 * the trace's end (keep[0..n), put in cmp_alloc's order here): only they
 * can be memory_kept.csv's, so only the operators around them are rows.
 */
void store_memsites_keep(struct store *s, struct alloc_at *keep, size_t n)
{
	if (n > 1)
		qsort(keep, n, sizeof(*keep), cmp_alloc);
	size_t m = 0;
	for (size_t i = 0; i < s->nallocs; i++)
		if (n && bsearch(&s->allocs[i], keep, n, sizeof(*keep), cmp_alloc))
			s->allocs[m++] = s->allocs[i];
	s->nallocs = m;
}

/* Operator i's start and end (within int64: sink_cpu_op refused any other). */
static int64_t op_start(const struct store *s, size_t i)
{
	return i < s->nops ? s->ops[i].start : s->inner[i - s->nops].start;
}

static int64_t op_end(const struct store *s, size_t i)
{
	if (i < s->nops)
		return s->ops[i].start + s->ops[i].dur;
	return s->inner[i - s->nops].start + s->inner[i - s->nops].dur;
}

static int64_t op_tid(const struct store *s, size_t i)
{
	return i < s->nops ? s->ops[i].tid : s->inner[i - s->nops].tid;
}

/*
 * Marks the open operators (ord[stack[0..*depth)], outermost first) that
 * hold allocation a, after dropping from the top those that ended before
 * it. The stack is a chain, each operator holding the next, so all that
 * remain hold a, and those below a marked one are marked already: each
 * operator is marked once, however deep the nesting.
 */
static void mark_open(const struct store *s, const size_t *ord, const size_t *stack, size_t *depth,
		      const struct alloc_at *a, unsigned char *mark)
{
	while (*depth && op_end(s, ord[stack[*depth - 1]]) < a->ts)
		(*depth)--;
	for (size_t k = *depth; k-- > 0 && !mark[stack[k]];)
		mark[stack[k]] = 1;
}

/* Operator i as a memory_ops row. */
static int add_row(struct store *s, int64_t trace_id, size_t i)
{
	if (i < s->nops)
		return op_row_add(s, &s->memops, trace_id, &s->ops[i]);
	const struct inner_op *o = &s->inner[i - s->nops];
	struct pending_op p = {.start = o->start, .dur = o->dur, .tid = o->tid, .name_id = id_out(o->name),
			       .dims_id = id_out(o->dims), .types_id = id_out(o->types),
			       .concrete_id = id_out(o->concrete)};
	return op_row_add(s, &s->memops, trace_id, &p);
}

int store_memsites_flush(struct store *s, int64_t trace_id, const char *path)
{
	if (!s->nallocs)
		return 0;
	if (s->inner_over)
		diag_warning(path, "more than %zu nested host operators: its GPU allocations are named by the outermost "
			     "operator of their thread only", INNER_MAX);
	if (s->allocs_over)
		diag_warning(path, "more than %zu GPU allocations: the operators around the later ones are not kept, and "
			     "memory_kept.csv names no operator for them", ALLOCS_MAX);
	if (s->nallocs > 1)
		qsort(s->allocs, s->nallocs, sizeof(*s->allocs), cmp_alloc);
	/*
	 * Only the operators that hold an allocation of their thread, start <=
	 * ts <= start + dur, take part: one that holds none changes no mark
	 * below. It closes those on the stack that end before it ends, but an
	 * allocation at or after its start that they hold, it holds too; and
	 * it is itself closed before any later allocation is marked.
	 */
	size_t *cand = NULL, n = 0, cap = 0;
	for (size_t i = 0; i < s->nops + s->ninner; i++) {
		struct alloc_at from = {op_tid(s, i), op_start(s, i)};
		size_t lo = 0, hi = s->nallocs;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (cmp_alloc(&s->allocs[mid], &from) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->nallocs && s->allocs[lo].tid == from.tid && s->allocs[lo].ts <= op_end(s, i)) {
			cand = xgrow(cand, &cap, n + 1, sizeof(*cand));
			cand[n++] = i;
		}
	}
	size_t *ord = op_order(s, cand, n);
	free(cand);
	unsigned char *mark = xcalloc(n ? n : 1, 1);
	size_t *stack = xmalloc((n ? n : 1) * sizeof(*stack)), depth = 0, a = 0;
	int ret = -1;
	/* one sweep: the operators open at each allocation are on the stack, outermost first */
	for (size_t i = 0; i <= n; i++) {
		int64_t tid = i < n ? op_tid(s, ord[i]) : 0;
		if (i && (i == n || tid != op_tid(s, ord[i - 1]))) {
			/* the thread's last operators: its allocations after the last start */
			int64_t prev = op_tid(s, ord[i - 1]);
			for (; a < s->nallocs && s->allocs[a].tid == prev; a++)
				mark_open(s, ord, stack, &depth, &s->allocs[a], mark);
			depth = 0;
		}
		if (i == n)
			break;
		int64_t start = op_start(s, ord[i]), end = op_end(s, ord[i]);
		while (a < s->nallocs && s->allocs[a].tid < tid)
			a++; /* a thread without operators */
		for (; a < s->nallocs && s->allocs[a].tid == tid && s->allocs[a].ts < start; a++)
			mark_open(s, ord, stack, &depth, &s->allocs[a], mark);
		/*
		 * Those that end before o ends are closed: ended ones, and one that
		 * overlaps o without holding it (not in a Kineto trace; a forged one
		 * must not make the stack a long list scanned at every allocation).
		 */
		while (depth && op_end(s, ord[stack[depth - 1]]) < end)
			depth--;
		stack[depth++] = i;
	}
	/* ROWS_PER_INSERT rows to a statement (rows.c), not one INSERT a row */
	for (size_t i = 0; i < n; i++) {
		if (!mark[i])
			continue;
		if (add_row(s, trace_id, ord[i]) < 0)
			goto out;
	}
	ret = 0;
out:
	free(stack);
	free(mark);
	free(ord);
	store_memsites_reset(s);
	return ret;
}
