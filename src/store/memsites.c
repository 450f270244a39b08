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
 * INNER_MAX, 72 bytes each) with the times of the trace's GPU allocations
 * (bytes > 0, device type 1; at most ALLOCS_MAX, 16 bytes each), and at
 * the trace's end every operator, stored or not, that encloses one of
 * those allocations on its thread (start <= ts <= start + dur) is a
 * memory_ops row: the whole chain of operators around each allocation,
 * and nothing else. An operator that overlaps a later one of its thread
 * without holding it (Kineto never writes one) counts as ended at the
 * later one's start. Past either bound a warning says what is left out:
 * beyond INNER_MAX, the nested operators (the outermost name the
 * allocations); beyond ALLOCS_MAX, the later allocations.
 */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

#define INNER_MAX ((size_t)1 << 20) /* nested operators held for one trace (72 MiB) */
#define ALLOCS_MAX ((size_t)1 << 22) /* GPU allocations held for one trace (64 MiB) */

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
	s->inner[s->ninner++] = *o;
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

void store_memsites_reset(struct store *s)
{
	s->ninner = 0;
	s->nallocs = 0;
	s->inner_over = 0;
	s->allocs_over = 0;
}

void store_memsites_release(struct store *s)
{
	free(s->inner);
	free(s->allocs);
}

/* Operators by thread, start, longer first (sink.c's order), through an array of pointers. */
static int cmp_opp(const void *a, const void *b)
{
	return store_cmp_op(*(const struct pending_op *const *)a, *(const struct pending_op *const *)b);
}

static int cmp_alloc(const void *a, const void *b)
{
	const struct alloc_at *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static int64_t op_end(const struct pending_op *o)
{
	return o->start + o->dur; /* within int64: sink_cpu_op refused any other */
}

/*
 * Marks the open operators (ord[stack[0..*depth)], outermost first) that
 * hold allocation a, after dropping from the top those that ended before
 * it. The stack is a chain, each operator holding the next, so all that
 * remain hold a, and those below a marked one are marked already: each
 * operator is marked once, however deep the nesting.
 */
static void mark_open(const struct pending_op *const *ord, const size_t *stack, size_t *depth, const struct alloc_at *a,
		      unsigned char *mark)
{
	while (*depth && op_end(ord[stack[*depth - 1]]) < a->ts)
		(*depth)--;
	for (size_t k = *depth; k-- > 0 && !mark[stack[k]];)
		mark[stack[k]] = 1;
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
	size_t n = s->nops + s->ninner;
	const struct pending_op **ord = xmalloc((n ? n : 1) * sizeof(*ord));
	for (size_t i = 0; i < s->nops; i++)
		ord[i] = &s->ops[i];
	for (size_t i = 0; i < s->ninner; i++)
		ord[s->nops + i] = &s->inner[i];
	if (n > 1)
		qsort(ord, n, sizeof(*ord), cmp_opp);
	if (s->nallocs > 1)
		qsort(s->allocs, s->nallocs, sizeof(*s->allocs), cmp_alloc);
	unsigned char *mark = xcalloc(n ? n : 1, 1);
	size_t *stack = xmalloc((n ? n : 1) * sizeof(*stack)), depth = 0, a = 0;
	int ret = -1;
	/* one sweep: the operators open at each allocation are on the stack, outermost first */
	for (size_t i = 0; i <= n; i++) {
		const struct pending_op *o = i < n ? ord[i] : NULL;
		if (i && (!o || o->tid != ord[i - 1]->tid)) {
			/* the thread's last operators: its allocations after the last start */
			for (; a < s->nallocs && s->allocs[a].tid == ord[i - 1]->tid; a++)
				mark_open(ord, stack, &depth, &s->allocs[a], mark);
			depth = 0;
		}
		if (!o)
			break;
		while (a < s->nallocs && s->allocs[a].tid < o->tid)
			a++; /* a thread without operators */
		for (; a < s->nallocs && s->allocs[a].tid == o->tid && s->allocs[a].ts < o->start; a++)
			mark_open(ord, stack, &depth, &s->allocs[a], mark);
		/*
		 * Those that end before o ends are closed: ended ones, and one that
		 * overlaps o without holding it (not in a Kineto trace; a forged one
		 * must not make the stack a long list scanned at every allocation).
		 */
		while (depth && op_end(ord[stack[depth - 1]]) < op_end(o))
			depth--;
		stack[depth++] = i;
	}
	/* ROWS_PER_INSERT rows to a statement (rows.c), not one INSERT a row */
	for (size_t i = 0; i < n; i++) {
		if (!mark[i])
			continue;
		if (op_row_add(s, &s->memops, trace_id, ord[i]) < 0)
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
