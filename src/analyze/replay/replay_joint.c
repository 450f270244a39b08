/*
 * replay_joint.c: the ranks of one run replayed together, their
 * collectives joined (replay.h, issue #52).
 *
 * The i-th collective kernel of every rank (NCCL's or RCCL's, in start
 * order over the window) is one collective: its transfer starts when the
 * last rank's kernel starts, and takes the wait-free time measured, the
 * median over ranks of (the rank's kernel end - the last rank's kernel
 * start), at least 0. Each rank's kernel ends that long after the later of
 * its own start and the last rank's. Ranks whose collective counts differ
 * (a pipeline's sends and receives) are not joined: rp_joint_new says so.
 *
 * The ranks are replayed side by side (replay_lockstep): each rank until
 * it reaches a collective the others have not all reached, in one pass.
 * Where that cannot go on (a rank launched its collectives in another
 * order than they started), they are replayed one after another, each
 * with the last ranks' starts of the previous round, until no start moves
 * (a fixed point: the starts only grow from round to round, from each
 * rank's own start with no wait in the first); both give the same steps.
 * Ranks share one clock (one host): clock offsets between hosts are not
 * applied.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/replay/replay.h"
#include "analyze/lib/stats.h"
#include "util/xalloc.h"

#define RP_JOINT_ROUNDS 1000 /* a bound on the rounds; each moves at least one start */

struct rp_joint {
	const struct rp_model *const *m;
	size_t n, nc;
	int64_t **comm;      /* per rank: its collectives' activity indexes, in start order */
	int64_t *last;       /* per collective: the last rank's start, this round */
	int64_t **join, **transfer, **starts; /* per rank and activity, for rp_change */
	int64_t **cpos;      /* per rank and activity: its collective's index, -1 none */
	int64_t *steps;      /* one rank's step times */
	size_t max_steps;
};

struct rp_joint *rp_joint_new(const struct rp_model *const *m, size_t n)
{
	if (n < 2)
		return NULL;
	size_t nc = 0;
	for (size_t j = 0; j < m[0]->nops; j++)
		nc += m[0]->ops[j].comm;
	for (size_t r = 1; r < n; r++) {
		size_t c = 0;
		for (size_t j = 0; j < m[r]->nops; j++)
			c += m[r]->ops[j].comm;
		if (c != nc || m[r]->nsteps != m[0]->nsteps)
			return NULL;
	}
	if (!nc)
		return NULL;
	struct rp_joint *x = xcalloc(1, sizeof(*x));
	x->m = m;
	x->n = n;
	x->nc = nc;
	x->comm = xcalloc(n, sizeof(*x->comm));
	x->join = xcalloc(n, sizeof(*x->join));
	x->transfer = xcalloc(n, sizeof(*x->transfer));
	x->starts = xcalloc(n, sizeof(*x->starts));
	x->cpos = xcalloc(n, sizeof(*x->cpos));
	x->last = xmalloc(nc * sizeof(*x->last));
	for (size_t r = 0; r < n; r++) {
		size_t no = m[r]->nops;
		x->comm[r] = xmalloc(nc * sizeof(int64_t));
		x->join[r] = xmalloc(no * sizeof(int64_t));
		x->transfer[r] = xcalloc(no, sizeof(int64_t));
		x->starts[r] = xmalloc(no * sizeof(int64_t));
		x->cpos[r] = xmalloc(no * sizeof(int64_t));
		size_t c = 0;
		for (size_t j = 0; j < no; j++) {
			x->join[r][j] = RP_NO_JOIN;
			x->cpos[r][j] = -1;
			if (m[r]->ops[j].comm) {
				x->cpos[r][j] = (int64_t)c;
				x->comm[r][c++] = (int64_t)j;
			}
		}
		if (m[r]->nsteps > x->max_steps)
			x->max_steps = m[r]->nsteps;
	}
	x->steps = xmalloc((x->max_steps ? x->max_steps : 1) * sizeof(*x->steps));
	/* the wait-free transfer of each collective, measured */
	int64_t *v = xmalloc(n * sizeof(*v));
	for (size_t c = 0; c < nc; c++) {
		int64_t last = INT64_MIN;
		for (size_t r = 0; r < n; r++) {
			const struct rp_op *o = &m[r]->ops[x->comm[r][c]];
			if (o->start > last)
				last = o->start;
		}
		for (size_t r = 0; r < n; r++) {
			const struct rp_op *o = &m[r]->ops[x->comm[r][c]];
			v[r] = o->start + o->dur - last;
		}
		qsort(v, n, sizeof(*v), stats_cmp_i64);
		int64_t t = v[n / 2] > 0 ? v[n / 2] : 0;
		for (size_t r = 0; r < n; r++)
			x->transfer[r][x->comm[r][c]] = t;
	}
	free(v);
	return x;
}

void rp_joint_latest(const struct rp_joint *x, size_t *count)
{
	for (size_t r = 0; r < x->n; r++)
		count[r] = 0;
	for (size_t c = 0; c < x->nc; c++) {
		size_t last = 0;
		for (size_t r = 1; r < x->n; r++)
			if (x->m[r]->ops[x->comm[r][c]].start > x->m[last]->ops[x->comm[last][c]].start)
				last = r;
		count[last]++;
	}
}

void rp_joint_free(struct rp_joint *x)
{
	if (!x)
		return;
	for (size_t r = 0; r < x->n; r++) {
		free(x->comm[r]);
		free(x->join[r]);
		free(x->transfer[r]);
		free(x->starts[r]);
		free(x->cpos[r]);
	}
	free(x->comm);
	free(x->join);
	free(x->transfer);
	free(x->starts);
	free(x->cpos);
	free(x->last);
	free(x->steps);
	free(x);
}

/*
 * Replays every rank under changes, each collective joined at x->last, and
 * sets lo[k] to the earliest start of step k on any rank (lo[nsteps]: the
 * latest end of the last step), -1 where no rank has one.
 */
static void replay_round(struct rp_joint *x, const struct rp_change *changes, int64_t *lo, int64_t *b)
{
	size_t nsteps = x->m[0]->nsteps;
	for (size_t k = 0; k <= nsteps; k++)
		lo[k] = -1;
	for (size_t r = 0; r < x->n; r++) {
		for (size_t c = 0; c < x->nc; c++)
			x->join[r][x->comm[r][c]] = x->last[c];
		struct rp_change ch = changes[r];
		ch.join = x->join[r];
		ch.transfer = x->transfer[r];
		ch.starts = x->starts[r];
		ch.bounds = b;
		rp_replay(x->m[r], &ch, x->steps);
		for (size_t k = 0; k < nsteps; k++)
			if (b[k] >= 0 && (lo[k] < 0 || b[k] < lo[k]))
				lo[k] = b[k];
		if (b[nsteps] >= 0 && b[nsteps] > lo[nsteps])
			lo[nsteps] = b[nsteps];
	}
}

/*
 * The ranks replayed side by side (rp_sim_run): each rank runs until it
 * reaches a collective whose join is not known, its start then known; when
 * every rank has reached collective c, its join is the last of their
 * starts and the ranks waiting on it go on. Each rank stops once per
 * collective, so this is one replay of every rank, not one per round. The
 * result is the rounds' fixed point (a rank's start of a collective never
 * depends on its own join). Sets lo, b as replay_round does; returns 0,
 * or -1 where every rank waits on a collective some rank has not reached
 * (its collectives launched in another order than they started): the
 * rounds then decide.
 */
static int replay_lockstep(struct rp_joint *x, const struct rp_change *changes, int64_t *lo, int64_t *b)
{
	size_t n = x->n, nsteps = x->m[0]->nsteps;
	struct rp_change *ch = xcalloc(n, sizeof(*ch));
	struct rp_sim **sim = xcalloc(n, sizeof(*sim));
	int64_t *wait = xmalloc(n * sizeof(*wait)); /* the activity rank r waits on; -1 none, -2 done */
	size_t *reached = xcalloc(x->nc ? x->nc : 1, sizeof(*reached));
	for (size_t r = 0; r < n; r++) {
		for (size_t c = 0; c < x->nc; c++)
			x->join[r][x->comm[r][c]] = RP_JOIN_PENDING;
		ch[r] = changes[r];
		ch[r].join = x->join[r];
		ch[r].transfer = x->transfer[r];
		ch[r].starts = x->starts[r];
		ch[r].bounds = b;
		sim[r] = rp_sim_new(x->m[r], &ch[r]);
		wait[r] = -1;
	}
	size_t left = n;
	int moved = 1;
	while (left && moved) {
		moved = 0;
		for (size_t r = 0; r < n; r++) {
			if (wait[r] == -2 || (wait[r] >= 0 && x->join[r][wait[r]] == RP_JOIN_PENDING))
				continue;
			moved = 1;
			wait[r] = rp_sim_run(sim[r]);
			if (wait[r] < 0) {
				wait[r] = -2;
				left--;
				continue;
			}
			int64_t c = x->cpos[r][wait[r]];
			if (++reached[c] < n)
				continue;
			int64_t last = INT64_MIN;
			for (size_t q = 0; q < n; q++)
				if (x->starts[q][x->comm[q][c]] > last)
					last = x->starts[q][x->comm[q][c]];
			x->last[c] = last;
			for (size_t q = 0; q < n; q++)
				x->join[q][x->comm[q][c]] = last;
		}
	}
	for (size_t k = 0; k <= nsteps; k++)
		lo[k] = -1;
	for (size_t r = 0; r < n; r++) {
		rp_sim_end(sim[r], x->steps);
		if (left)
			continue;
		for (size_t k = 0; k < nsteps; k++)
			if (b[k] >= 0 && (lo[k] < 0 || b[k] < lo[k]))
				lo[k] = b[k];
		if (b[nsteps] >= 0 && b[nsteps] > lo[nsteps])
			lo[nsteps] = b[nsteps];
	}
	free(ch);
	free(sim);
	free(wait);
	free(reached);
	return left ? -1 : 0;
}

int rp_joint_replay(struct rp_joint *x, const struct rp_change *changes, int64_t *step_ns)
{
	size_t nsteps = x->m[0]->nsteps;
	int64_t *lo = xmalloc((nsteps + 1) * sizeof(*lo)), *b = xmalloc((nsteps + 1) * sizeof(*b));
	int rounds = 1;
	if (replay_lockstep(x, changes, lo, b) < 0) {
		for (size_t r = 0; r < x->n; r++)
			for (size_t c = 0; c < x->nc; c++)
				x->join[r][x->comm[r][c]] = RP_NO_JOIN;
		for (size_t c = 0; c < x->nc; c++)
			x->last[c] = RP_NO_JOIN + 1; /* no wait in the first round */
		/* Rounds until no last start moves: the round that moved nothing ran with the final joins. */
		for (rounds = 0; rounds < RP_JOINT_ROUNDS; rounds++) {
			replay_round(x, changes, lo, b);
			int moved = 0;
			for (size_t c = 0; c < x->nc; c++) {
				int64_t last = INT64_MIN;
				for (size_t r = 0; r < x->n; r++)
					if (x->starts[r][x->comm[r][c]] > last)
						last = x->starts[r][x->comm[r][c]];
				if (last != x->last[c]) {
					x->last[c] = last;
					moved = 1;
				}
			}
			if (!moved)
				break;
		}
	}
	/* The job's steps: from the earliest start of a step on any rank to the earliest of the next. */
	for (size_t k = 0; k < nsteps; k++)
		step_ns[k] = lo[k] >= 0 && lo[k + 1] >= 0 ? lo[k + 1] - lo[k] : -1;
	free(lo);
	free(b);
	return rounds < RP_JOINT_ROUNDS ? rounds : -1;
}

void rp_joint_measured(const struct rp_joint *x, int64_t *step_ns)
{
	size_t nsteps = x->m[0]->nsteps;
	int64_t *lo = xmalloc((nsteps + 1) * sizeof(*lo)), *b = xmalloc((nsteps + 1) * sizeof(*b));
	for (size_t k = 0; k <= nsteps; k++)
		lo[k] = -1;
	for (size_t r = 0; r < x->n; r++) {
		rp_measured(x->m[r], x->steps, b);
		for (size_t k = 0; k < nsteps; k++)
			if (b[k] >= 0 && (lo[k] < 0 || b[k] < lo[k]))
				lo[k] = b[k];
		if (b[nsteps] >= 0 && b[nsteps] > lo[nsteps])
			lo[nsteps] = b[nsteps];
	}
	for (size_t k = 0; k < nsteps; k++)
		step_ns[k] = lo[k] >= 0 && lo[k + 1] >= 0 ? lo[k + 1] - lo[k] : -1;
	free(lo);
	free(b);
}

struct kkey {
	int64_t name_id, occ, dur, op;
};

static int cmp_kkey(const void *a, const void *b)
{
	const struct kkey *x = a, *y = b;
	if (x->name_id != y->name_id)
		return (x->name_id > y->name_id) - (x->name_id < y->name_id);
	return (x->occ > y->occ) - (x->occ < y->occ);
}

/*
 * A rank's compute kernels launched in the window as (name, occurrence of
 * that name in start order, duration, activity index), sorted by name and
 * occurrence; *n set.
 */
static struct kkey *kernel_keys(const struct rp_model *m, size_t *n)
{
	struct kkey *k = xmalloc((m->nops ? m->nops : 1) * sizeof(*k));
	size_t w = 0;
	for (size_t j = 0; j < m->nops; j++)
		if (m->ops[j].kind == RP_OP_KERNEL && !m->ops[j].comm && m->ops[j].call >= 0)
			k[w++] = (struct kkey){m->ops[j].name_id, (int64_t)j, m->ops[j].dur, (int64_t)j};
	/* occ holds the activity index (start order) until the sort by name, then the occurrence */
	qsort(k, w, sizeof(*k), cmp_kkey);
	for (size_t i = 0; i < w; i++)
		k[i].occ = i && k[i - 1].name_id == k[i].name_id ? k[i - 1].occ + 1 : 0;
	*n = w;
	return k;
}

void rp_joint_median(const struct rp_joint *x, size_t r, double *scale)
{
	const struct rp_model *mr = x->m[r];
	for (size_t j = 0; j < mr->nops; j++)
		scale[j] = 1.0;
	size_t *nk = xcalloc(x->n, sizeof(*nk));
	struct kkey **keys = xcalloc(x->n, sizeof(*keys));
	for (size_t q = 0; q < x->n; q++)
		keys[q] = kernel_keys(x->m[q], &nk[q]);
	int64_t *durs = xmalloc(x->n * sizeof(*durs));
	for (size_t i = 0; i < nk[r]; i++) {
		const struct kkey *want = &keys[r][i];
		size_t got = 0;
		for (size_t q = 0; q < x->n; q++) {
			if (q == r)
				continue;
			const struct kkey *hit = bsearch(want, keys[q], nk[q], sizeof(*keys[q]), cmp_kkey);
			if (hit)
				durs[got++] = hit->dur;
		}
		if (2 * got < x->n - 1) {
			scale[want->op] = 0; /* a kernel most other ranks do not run: extra work */
			continue;
		}
		qsort(durs, got, sizeof(*durs), stats_cmp_i64);
		int64_t med = durs[got / 2];
		scale[want->op] = want->dur > 0 ? (double)med / (double)want->dur : 1.0;
	}
	free(durs);
	for (size_t q = 0; q < x->n; q++)
		free(keys[q]);
	free(keys);
	free(nk);
}
