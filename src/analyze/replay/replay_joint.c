/*
 * replay_joint.c: the ranks of one run replayed together, their
 * collectives joined (replay.h, issue #52).
 *
 * A group is the kernels of one collective operation, on the ranks that
 * take part in it (NCCL's or RCCL's, in start order over the window):
 *   - a point-to-point kernel whose peer the store records (collectives:
 *     a send's Dst Rank, a recv's Src Rank, a fused sendrecv's one peer):
 *     the k-th send of rank a to rank b with the k-th recv of b from a,
 *     the k-th sendrecv of a with b with the k-th of b with a, per ordered
 *     pair of ranks: a group of two ranks. A pipeline's stages are so
 *     joined whatever their schedule and however many neighbours each has;
 *   - every other collective kernel: the i-th of every rank among them, a
 *     group of all ranks.
 * Where the peers do not pair up (a send without its recv in the window, a
 * peer outside the run), or no kernel records one, every collective kernel
 * is taken as all ranks', the i-th of every rank as one (right for a
 * two-stage pipeline's sends and receives in GPipe's order, not always in
 * 1F1B's); ranks whose counts then differ are not joined: rp_joint_new says
 * so. A group's transfer starts when its last member's kernel starts, and
 * takes the wait-free time measured, the median over members of (the
 * member's kernel end - the last member's kernel start), at least 0. Each
 * member's kernel ends that long after the later of its own start and the
 * last member's.
 *
 * The ranks are replayed side by side (replay_lockstep): each rank until
 * it reaches a group the others of the group have not all reached, in one
 * pass. Where that cannot go on (a rank launched its collectives in another
 * order than they started), they are replayed one after another, each
 * with the last members' starts of the previous round, until no start moves
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
	size_t n, ng;
	size_t *goff;        /* per group g: its members are goff[g] .. goff[g + 1] - 1 */
	size_t *mrank;       /* per member: its rank */
	int64_t *mop;        /* per member: its activity on that rank */
	int64_t *last;       /* per group: the last member's start, this round */
	int64_t **join, **transfer, **starts; /* per rank and activity, for rp_change */
	int64_t **gpos;      /* per rank and activity: its group, -1 none */
	int64_t *steps;      /* one rank's step times */
	size_t max_steps;
};

/* A point-to-point kernel to pair: the ordered pair of ranks (from, to), its occurrence on that pair, side. */
struct pkey {
	size_t from, to, occ, side;
	size_t r;
	int64_t j;
};

static int cmp_pkey(const void *a, const void *b)
{
	const struct pkey *x = a, *y = b;
	if (x->from != y->from)
		return (x->from > y->from) - (x->from < y->from);
	if (x->to != y->to)
		return (x->to > y->to) - (x->to < y->to);
	if (x->occ != y->occ)
		return (x->occ > y->occ) - (x->occ < y->occ);
	return (x->side > y->side) - (x->side < y->side);
}

/*
 * The point-to-point groups of the n ranks: pairs (v[2i], v[2i + 1]) of
 * the returned array, *npairs set; NULL where no kernel records a peer or
 * they do not pair up (*npairs 0).
 */
static struct pkey *p2p_pairs(const struct rp_model *const *m, size_t n, size_t *npairs)
{
	*npairs = 0;
	size_t nv = 0;
	for (size_t r = 0; r < n; r++)
		for (size_t j = 0; j < m[r]->nops; j++)
			nv += m[r]->ops[j].comm && m[r]->ops[j].p2p;
	if (!nv)
		return NULL;
	struct pkey *v = xmalloc(nv * sizeof(*v));
	size_t w = 0, *occ = xmalloc(3 * n * sizeof(*occ)); /* per kind and peer: kernels seen */
	int ok = nv % 2 == 0;
	for (size_t r = 0; r < n && ok; r++) {
		memset(occ, 0, 3 * n * sizeof(*occ));
		for (size_t j = 0; j < m[r]->nops && ok; j++) {
			const struct rp_op *o = &m[r]->ops[j];
			if (!o->comm || !o->p2p)
				continue;
			size_t q = 0;
			while (q < n && m[q]->rank != o->peer)
				q++;
			if (q == n || q == r) {
				ok = 0;
				break;
			}
			size_t k = occ[(size_t)(o->p2p - 1) * n + q]++;
			struct pkey *e = &v[w++];
			if (o->p2p == RP_P2P_SEND)
				*e = (struct pkey){r, q, 2 * k, 0, r, (int64_t)j};
			else if (o->p2p == RP_P2P_RECV)
				*e = (struct pkey){q, r, 2 * k, 1, r, (int64_t)j};
			else /* sendrecv: occurrences apart from the sends' (odd) */
				*e = (struct pkey){r < q ? r : q, r < q ? q : r, 2 * k + 1, r < q ? 0 : 1, r, (int64_t)j};
		}
	}
	free(occ);
	if (ok) {
		qsort(v, nv, sizeof(*v), cmp_pkey);
		for (size_t i = 0; i < nv && ok; i += 2)
			ok = v[i].side == 0 && v[i + 1].side == 1 && v[i].from == v[i + 1].from && v[i].to == v[i + 1].to &&
			     v[i].occ == v[i + 1].occ;
	}
	if (!ok) {
		free(v);
		return NULL;
	}
	*npairs = nv / 2;
	return v;
}

/* The all-rank groups: per rank, its kernels that are not in pairs; NULL where their counts differ. */
static int64_t **all_rank(const struct rp_model *const *m, size_t n, int by_peer, size_t *nc)
{
	size_t c0 = 0;
	for (size_t r = 0; r < n; r++) {
		size_t c = 0;
		for (size_t j = 0; j < m[r]->nops; j++)
			c += m[r]->ops[j].comm && !(by_peer && m[r]->ops[j].p2p);
		if (r && c != c0)
			return NULL;
		c0 = c;
	}
	int64_t **v = xcalloc(n, sizeof(*v));
	for (size_t r = 0; r < n; r++) {
		v[r] = xmalloc((c0 ? c0 : 1) * sizeof(int64_t));
		size_t c = 0;
		for (size_t j = 0; j < m[r]->nops; j++)
			if (m[r]->ops[j].comm && !(by_peer && m[r]->ops[j].p2p))
				v[r][c++] = (int64_t)j;
	}
	*nc = c0;
	return v;
}

struct rp_joint *rp_joint_new(const struct rp_model *const *m, size_t n)
{
	if (n < 2)
		return NULL;
	for (size_t r = 1; r < n; r++)
		if (m[r]->nsteps != m[0]->nsteps)
			return NULL;
	size_t npairs, nc = 0;
	struct pkey *pairs = p2p_pairs(m, n, &npairs);
	int64_t **all = all_rank(m, n, pairs != NULL, &nc);
	if (!all && pairs) { /* the rest does not match: every kernel by order, as without peers */
		free(pairs);
		pairs = NULL;
		npairs = 0;
		all = all_rank(m, n, 0, &nc);
	}
	if (!all || !(nc + npairs)) {
		free(pairs);
		if (all)
			for (size_t r = 0; r < n; r++)
				free(all[r]);
		free(all);
		return NULL;
	}
	struct rp_joint *x = xcalloc(1, sizeof(*x));
	x->m = m;
	x->n = n;
	x->ng = nc + npairs;
	x->goff = xmalloc((x->ng + 1) * sizeof(*x->goff));
	size_t nm = nc * n + 2 * npairs;
	x->mrank = xmalloc(nm * sizeof(*x->mrank));
	x->mop = xmalloc(nm * sizeof(*x->mop));
	x->last = xmalloc(x->ng * sizeof(*x->last));
	size_t w = 0;
	for (size_t c = 0; c < nc; c++) {
		x->goff[c] = w;
		for (size_t r = 0; r < n; r++, w++) {
			x->mrank[w] = r;
			x->mop[w] = all[r][c];
		}
	}
	for (size_t p = 0; p < 2 * npairs; p++, w++) {
		if (p % 2 == 0)
			x->goff[nc + p / 2] = w;
		x->mrank[w] = pairs[p].r;
		x->mop[w] = pairs[p].j;
	}
	x->goff[x->ng] = w;
	for (size_t r = 0; r < n; r++)
		free(all[r]);
	free(all);
	free(pairs);
	x->join = xcalloc(n, sizeof(*x->join));
	x->transfer = xcalloc(n, sizeof(*x->transfer));
	x->starts = xcalloc(n, sizeof(*x->starts));
	x->gpos = xcalloc(n, sizeof(*x->gpos));
	for (size_t r = 0; r < n; r++) {
		size_t no = m[r]->nops;
		x->join[r] = xmalloc((no ? no : 1) * sizeof(int64_t));
		x->transfer[r] = xcalloc(no ? no : 1, sizeof(int64_t));
		x->starts[r] = xmalloc((no ? no : 1) * sizeof(int64_t));
		x->gpos[r] = xmalloc((no ? no : 1) * sizeof(int64_t));
		for (size_t j = 0; j < no; j++) {
			x->join[r][j] = RP_NO_JOIN;
			x->gpos[r][j] = -1;
		}
		if (m[r]->nsteps > x->max_steps)
			x->max_steps = m[r]->nsteps;
	}
	x->steps = xmalloc((x->max_steps ? x->max_steps : 1) * sizeof(*x->steps));
	/* the wait-free transfer of each group, measured */
	int64_t *v = xmalloc(n * sizeof(*v));
	for (size_t g = 0; g < x->ng; g++) {
		int64_t last = INT64_MIN;
		for (size_t i = x->goff[g]; i < x->goff[g + 1]; i++) {
			const struct rp_op *o = &m[x->mrank[i]]->ops[x->mop[i]];
			x->gpos[x->mrank[i]][x->mop[i]] = (int64_t)g;
			if (o->start > last)
				last = o->start;
		}
		size_t k = 0;
		for (size_t i = x->goff[g]; i < x->goff[g + 1]; i++) {
			const struct rp_op *o = &m[x->mrank[i]]->ops[x->mop[i]];
			v[k++] = o->start + o->dur - last;
		}
		qsort(v, k, sizeof(*v), stats_cmp_i64);
		int64_t t = v[k / 2] > 0 ? v[k / 2] : 0;
		for (size_t i = x->goff[g]; i < x->goff[g + 1]; i++)
			x->transfer[x->mrank[i]][x->mop[i]] = t;
	}
	free(v);
	return x;
}

void rp_joint_latest(const struct rp_joint *x, size_t *count)
{
	for (size_t r = 0; r < x->n; r++)
		count[r] = 0;
	for (size_t g = 0; g < x->ng; g++) {
		size_t last = x->goff[g];
		for (size_t i = x->goff[g] + 1; i < x->goff[g + 1]; i++)
			if (x->m[x->mrank[i]]->ops[x->mop[i]].start > x->m[x->mrank[last]]->ops[x->mop[last]].start)
				last = i;
		count[x->mrank[last]]++;
	}
}

void rp_joint_free(struct rp_joint *x)
{
	if (!x)
		return;
	for (size_t r = 0; r < x->n; r++) {
		free(x->join[r]);
		free(x->transfer[r]);
		free(x->starts[r]);
		free(x->gpos[r]);
	}
	free(x->goff);
	free(x->mrank);
	free(x->mop);
	free(x->join);
	free(x->transfer);
	free(x->starts);
	free(x->gpos);
	free(x->last);
	free(x->steps);
	free(x);
}

/* The latest replayed start of group g's members (x->starts). */
static int64_t group_last(const struct rp_joint *x, size_t g)
{
	int64_t last = INT64_MIN;
	for (size_t i = x->goff[g]; i < x->goff[g + 1]; i++)
		if (x->starts[x->mrank[i]][x->mop[i]] > last)
			last = x->starts[x->mrank[i]][x->mop[i]];
	return last;
}

/* Sets every member's join of group g to v. */
static void group_join(struct rp_joint *x, size_t g, int64_t v)
{
	for (size_t i = x->goff[g]; i < x->goff[g + 1]; i++)
		x->join[x->mrank[i]][x->mop[i]] = v;
}

/*
 * Replays every rank under changes, each group joined at x->last, and
 * sets lo[k] to the earliest start of step k on any rank (lo[nsteps]: the
 * latest end of the last step), -1 where no rank has one.
 */
static void replay_round(struct rp_joint *x, const struct rp_change *changes, int64_t *lo, int64_t *b)
{
	size_t nsteps = x->m[0]->nsteps;
	for (size_t k = 0; k <= nsteps; k++)
		lo[k] = -1;
	for (size_t g = 0; g < x->ng; g++)
		group_join(x, g, x->last[g]);
	for (size_t r = 0; r < x->n; r++) {
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
 * every member of group g has reached it, its join is the last of their
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
	size_t *reached = xcalloc(x->ng ? x->ng : 1, sizeof(*reached));
	for (size_t g = 0; g < x->ng; g++)
		group_join(x, g, RP_JOIN_PENDING);
	for (size_t r = 0; r < n; r++) {
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
			size_t g = (size_t)x->gpos[r][wait[r]];
			if (++reached[g] < x->goff[g + 1] - x->goff[g])
				continue;
			x->last[g] = group_last(x, g);
			group_join(x, g, x->last[g]);
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
		for (size_t g = 0; g < x->ng; g++)
			x->last[g] = RP_NO_JOIN + 1; /* no wait in the first round */
		/* Rounds until no last start moves: the round that moved nothing ran with the final joins. */
		for (rounds = 0; rounds < RP_JOINT_ROUNDS; rounds++) {
			replay_round(x, changes, lo, b);
			int moved = 0;
			for (size_t g = 0; g < x->ng; g++) {
				int64_t last = group_last(x, g);
				if (last != x->last[g]) {
					x->last[g] = last;
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
