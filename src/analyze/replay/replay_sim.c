/*
 * replay_sim.c: replays a rank's model (replay.h) under a change.
 *
 * The host runs its calls in order: a call starts when the one before it
 * returned plus the host time between them (times the host factor, but
 * the stretches no operator covers, which the profiler does not slow; less
 * what the change cuts out of it before the factor applies), and
 * never before the one before it started (calls of two threads may
 * overlap). A launch first waits for a free slot of the launch queue (at
 * most m->queue activities pending), then costs its own time; its activity
 * is ready when it returns. A call that waited for an activity returns
 * when that activity ends (plus the wake-up measured), unless the change
 * takes the wait out. An activity starts when it is ready, its stream's
 * previous activity ended and the activity it waited for ended, plus what
 * was left of its measured start past those, and takes its duration times
 * the change's scale (a joined collective: its transfer from the last
 * rank's start, times that scale). Every time is integer ns.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/replay.h"
#include "util/xalloc.h"

struct rp_sim {
	const struct rp_model *m;
	const struct rp_change *c;
	int64_t *s, *e;         /* activities' replayed start and end */
	unsigned char *done;    /* activity computed */
	int64_t *ready;         /* per call: when its activity is ready (replayed) */
	int64_t *call_end;
	unsigned char *called;  /* call replayed */
	int64_t *heap;          /* ends of the launched activities still pending (min-heap) */
	size_t nheap;
	int64_t *stack;
	double f;               /* the host factor */
	/* where rp_sim_run stopped: call i, at phase (0 not begun, 1 launching, 2 waiting), then activity tail */
	size_t i, tail;
	int phase;
	int64_t t, end, prev_start, prev_end;
	int64_t blocked;        /* the joined activity whose join is pending */
};

static void heap_push(struct rp_sim *x, int64_t v)
{
	size_t i = x->nheap++;
	x->heap[i] = v;
	while (i && x->heap[(i - 1) / 2] > x->heap[i]) {
		int64_t t = x->heap[i];
		x->heap[i] = x->heap[(i - 1) / 2];
		x->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

static void heap_pop(struct rp_sim *x)
{
	x->heap[0] = x->heap[--x->nheap];
	size_t i = 0;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < x->nheap && x->heap[l] < x->heap[m])
			m = l;
		if (r < x->nheap && x->heap[r] < x->heap[m])
			m = r;
		if (m == i)
			break;
		int64_t t = x->heap[i];
		x->heap[i] = x->heap[m];
		x->heap[m] = t;
		i = m;
	}
}

static int64_t scaled(int64_t v, double f)
{
	return f == 1.0 ? v : (int64_t)((double)v * f);
}

static int op_time(struct rp_sim *x, int64_t j);

/*
 * One activity whose stream predecessor is computed: 0, or -1 where a
 * joined collective's join is still pending (its start is in starts).
 */
static int op_one(struct rp_sim *x, int64_t j)
{
	const struct rp_op *o = &x->m->ops[j];
	int64_t ready = o->start; /* not launched in the window: as measured */
	if (o->call >= 0 && x->called[o->call])
		ready = x->ready[o->call];
	int64_t at = ready, prev_end = o->prev >= 0 ? x->e[o->prev] : INT64_MIN;
	if (prev_end > at)
		at = prev_end;
	if (o->dep >= 0) {
		const struct rp_op *d = &x->m->ops[o->dep];
		if (x->done[o->dep] || d->call < 0 || x->called[d->call]) {
			if (op_time(x, o->dep) < 0)
				return -1;
			if (x->e[o->dep] > at)
				at = x->e[o->dep];
		}
	}
	int64_t start = at + o->extra;
	if (start < prev_end)
		start = prev_end;
	int64_t dur = o->dur;
	int joined = x->c->join && x->c->join[j] != RP_NO_JOIN;
	if (joined)
		dur = x->c->transfer[j]; /* a joined collective: its wait-free transfer is what a change scales */
	if (x->c->drop_op && x->c->drop_op[j])
		dur = 0;
	else if (x->c->op_scale)
		dur = (int64_t)((double)dur * x->c->op_scale[j]);
	x->s[j] = start;
	x->e[j] = start + dur;
	if (x->c->starts)
		x->c->starts[j] = start;
	if (joined && x->c->join[j] == RP_JOIN_PENDING) {
		x->blocked = j;
		return -1;
	}
	if (joined)
		x->e[j] = (start > x->c->join[j] ? start : x->c->join[j]) + dur;
	x->done[j] = 1;
	return 0;
}

/*
 * Computes activity j and, first, every activity before it on its stream
 * not yet computed: 0, or -1 where a join is pending (what was computed
 * stays computed).
 */
static int op_time(struct rp_sim *x, int64_t j)
{
	if (x->done[j])
		return 0;
	size_t n = 0;
	for (int64_t k = j; k >= 0 && !x->done[k]; k = x->m->ops[k].prev)
		x->stack[n++] = k;
	/* the stack is per call of op_time: the nested ones (deps) use the part above n */
	int64_t *mine = x->stack;
	x->stack += n;
	int ret = 0;
	while (n && ret == 0)
		ret = op_one(x, mine[--n]);
	x->stack = mine;
	return ret;
}

static size_t step_times(const struct rp_model *m, const int64_t *s, const int64_t *e, const int64_t *call_end,
			 int64_t *step_ns, int64_t *bounds)
{
	size_t got = 0;
	for (size_t k = 0; k < m->nsteps; k++) {
		step_ns[k] = -1;
		if (bounds)
			bounds[k] = m->steps[k].first_op >= 0 ? s[m->steps[k].first_op] : -1;
		if (m->steps[k].first_op < 0)
			continue;
		int64_t b = s[m->steps[k].first_op], end = -1;
		if (k + 1 < m->nsteps && m->steps[k + 1].first_op >= 0) {
			end = s[m->steps[k + 1].first_op];
		} else {
			/* the last step: to the end of its last activity or call, whichever is later */
			for (size_t i = 0; i < m->ncalls; i++) {
				if (m->calls[i].step != (int)k)
					continue;
				if (call_end[i] > end)
					end = call_end[i];
				if (m->calls[i].op >= 0 && e[m->calls[i].op] > end)
					end = e[m->calls[i].op];
			}
		}
		step_ns[k] = end - b;
		if (bounds && k + 1 == m->nsteps)
			bounds[m->nsteps] = end;
		got++;
	}
	return got;
}

struct rp_sim *rp_sim_new(const struct rp_model *m, const struct rp_change *c)
{
	struct rp_sim *x = xcalloc(1, sizeof(*x));
	size_t no = m->nops ? m->nops : 1, nc = m->ncalls ? m->ncalls : 1;
	x->m = m;
	x->c = c;
	x->s = xmalloc(no * sizeof(*x->s));
	x->e = xmalloc(no * sizeof(*x->e));
	x->done = xcalloc(no, 1);
	x->stack = xmalloc(no * sizeof(*x->stack));
	x->heap = xmalloc(no * sizeof(*x->heap));
	x->ready = xmalloc(nc * sizeof(*x->ready));
	x->call_end = xmalloc(nc * sizeof(*x->call_end));
	x->called = xcalloc(nc, 1);
	x->f = c->host_factor > 0 ? c->host_factor : 1.0;
	x->prev_start = x->prev_end = m->origin;
	return x;
}

/*
 * Call i's start, and its launch up to the activity's computation: the
 * launch queue's free slot, the call's own cost (phase 0 of rp_sim_run;
 * done once per call, as it pops the queue).
 */
static void call_begin(struct rp_sim *x, size_t i)
{
	const struct rp_model *m = x->m;
	const struct rp_change *c = x->c;
	const struct rp_call *k = &m->calls[i];
	/* the first call's gap runs from the first step's host start (m->origin) */
	int64_t fixed = c->no_gap && c->no_gap[i] ? 0 : k->gap_fixed, covered = k->gap - k->gap_fixed;
	if (c->gap_cut && c->gap_cut[i] > 0 && covered > 0)
		covered -= c->gap_cut[i] < covered ? c->gap_cut[i] : covered;
	int64_t t = x->prev_end + scaled(covered, x->f) + fixed;
	if (t < x->prev_start)
		t = x->prev_start;
	int waits = k->wait_op >= 0 && !(c->no_wait && c->no_wait[i]);
	if (k->op >= 0) {
		/* a free slot of the launch queue first */
		while (x->nheap && x->heap[0] <= t)
			heap_pop(x);
		while (x->nheap >= (size_t)m->queue) {
			if (x->heap[0] > t)
				t = x->heap[0];
			heap_pop(x);
		}
		x->end = t + scaled(k->wait_op >= 0 || k->throttled ? k->cost : k->dur, x->f);
		x->ready[i] = x->end;
		x->called[i] = 1;
	} else if (waits) {
		x->end = t + scaled(k->cost, x->f);
	} else {
		x->end = t + scaled(k->wait_op >= 0 ? k->cost : k->dur, x->f);
	}
	x->t = t;
}

int64_t rp_sim_run(struct rp_sim *x)
{
	const struct rp_model *m = x->m;
	const struct rp_change *c = x->c;
	for (; x->i < m->ncalls; x->i++, x->phase = 0) {
		size_t i = x->i;
		const struct rp_call *k = &m->calls[i];
		if (x->phase == 0) {
			call_begin(x, i);
			x->phase = 1;
		}
		if (x->phase == 1) {
			if (k->op >= 0) {
				if (op_time(x, k->op) < 0)
					return x->blocked;
				heap_push(x, x->e[k->op]);
			}
			x->phase = 2;
		}
		/* a call that waits returns when its activity ends (plus the wake-up), unless the change takes it out */
		if (k->wait_op >= 0 && !(c->no_wait && c->no_wait[i])) {
			if (op_time(x, k->wait_op) < 0)
				return x->blocked;
			if (x->e[k->wait_op] + k->wake > x->end)
				x->end = x->e[k->wait_op] + k->wake;
		}
		x->called[i] = 1;
		x->call_end[i] = x->end;
		x->prev_start = x->t;
		x->prev_end = x->end;
	}
	for (; x->tail < m->nops; x->tail++)
		if (op_time(x, (int64_t)x->tail) < 0)
			return x->blocked;
	return -1;
}

size_t rp_sim_end(struct rp_sim *x, int64_t *step_ns)
{
	const struct rp_model *m = x->m;
	if (x->c->bounds && m->nsteps)
		x->c->bounds[m->nsteps] = -1;
	size_t got = step_times(m, x->s, x->e, x->call_end, step_ns, x->c->bounds);
	free(x->s);
	free(x->e);
	free(x->done);
	free(x->stack);
	free(x->heap);
	free(x->ready);
	free(x->call_end);
	free(x->called);
	free(x);
	return got;
}

size_t rp_replay(const struct rp_model *m, const struct rp_change *c, int64_t *step_ns)
{
	struct rp_sim *x = rp_sim_new(m, c);
	rp_sim_run(x); /* no join is pending outside rp_joint_replay */
	return rp_sim_end(x, step_ns);
}

size_t rp_measured(const struct rp_model *m, int64_t *step_ns, int64_t *bounds)
{
	size_t no = m->nops ? m->nops : 1, nc = m->ncalls ? m->ncalls : 1;
	int64_t *s = xmalloc(no * sizeof(*s)), *e = xmalloc(no * sizeof(*e)), *ce = xmalloc(nc * sizeof(*ce));
	for (size_t j = 0; j < m->nops; j++) {
		s[j] = m->ops[j].start;
		e[j] = m->ops[j].start + m->ops[j].dur;
	}
	for (size_t i = 0; i < m->ncalls; i++)
		ce[i] = m->calls[i].start + m->calls[i].dur;
	if (bounds && m->nsteps)
		bounds[m->nsteps] = -1;
	size_t got = step_times(m, s, e, ce, step_ns, bounds);
	free(s);
	free(e);
	free(ce);
	return got;
}
