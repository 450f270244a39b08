/*
 * crossrank.c: the NCCL collectives of each multi-rank run matched across
 * its ranks, and the ranks' clock offsets (crossrank_match); the tables
 * and figure made of them are crossrank_waits.c's.
 *
 * Matching. A collective kernel carries Kineto's NCCL args (stored in the
 * collectives table): its communicator ("Process Group Name", else
 * "Process Group Description"), "Collective name", "In/Out msg nelems",
 * "dtype", "Group size" and, in newer PyTorch, "Seq". Every rank of a
 * communicator issues its collectives in the same order, so the n-th
 * kernel of a communicator on one rank (in order of start) is the same
 * operation as the n-th on every other rank; where every kernel of the
 * communicator has a Seq, the kernels with equal Seq are the operation
 * instead. The ranks' kernels must agree on name, dtype and element
 * counts. What happens on a mismatch (a rank lacks the n-th collective, or
 * its name, dtype or sizes differ from the lowest rank's):
 *   by order  the n-th and every later collective of that communicator are
 *             left unmatched (one warning): once one rank has a collective
 *             more or less, the n-th-is-the-n-th rule pairs wrong kernels;
 *   by Seq    only that operation is left unmatched (a warning for each,
 *             the first five per communicator): Seq pairs the rest.
 * A communicator whose group size is larger than the number of the run's
 * traced ranks that carry it is matched among those (a warning: the rank
 * that arrived last may be one without a trace). Unmatched kernels are
 * still rows of collective_waits.csv, with matched 0 and no wait.
 *
 * Point to point. A send or a recv (Collective name send or recv, or a
 * peer recorded: collectives.peer) is an operation of two ranks, not of
 * the communicator's group: its n-th or its Seq on one rank is no
 * operation of the others' (a pipeline stage sends to its next stage and
 * receives from its previous one), so such kernels are numbered apart from
 * the communicator's other kernels and matched in pairs instead
 * (match_p2p): per communicator and step (the kernels' ProfilerStep#N),
 * the k-th send of rank A to rank B (A's sends to B in order of start) is
 * the k-th recv of rank B from rank A. A pair is an operation of two
 * members like a collective's, so its waits, its straggler (the later of
 * the send's and the recv's start) and the critical path's join follow
 * from the same rules. Where the counts of A's sends to B and B's recvs
 * from A differ in a step, the k-th is no longer the k-th: those sends and
 * recvs stay unmatched (one warning per run, naming the first such pair of
 * ranks). A SendRecv with a peer (a coalesced batch_isend_irecv both ways
 * to one rank, kineto_coalesced.h: Schedule1F1B fuses a forward's send
 * with the next backward's recv, and the peer a backward's send with the
 * next forward's recv) is paired the same way on the channel of its two
 * ranks: the k-th SendRecv of A with B with the k-th of B with A, as NCCL
 * matches such batches' ops in order. A send or recv without a peer, with
 * a peer without a trace, or a SendRecv without a peer, stays unmatched
 * silently. Pairs give no clock offsets: a send
 * may complete into the receiver's buffer before its recv starts (NCCL's
 * small messages; the recv of a busy receiver), so their ends need not
 * coincide; a run whose only matched operations are pairs keeps offset 0
 * and an empty clock_offsets.csv row, as a run without collectives.
 * pipeline_stages.c reads the peers itself to find the stages.
 *
 * Clocks. Every rank leaves a collective at nearly the same moment (the
 * last data arrives everywhere at once), so the offset of rank r's clock
 * against the reference (the run's lowest rank) is the median, over the
 * collectives both took part in, of (end on r - end on the reference);
 * only synchronising ones count where there are any (not rooted ones, see
 * rooted()), and the offset is kept within the feasible range, where no
 * rank leaves a synchronising collective before the other arrived;
 * residual = the 90th percentile of |end difference - offset|, the spread
 * the offset leaves. Every cross-rank comparison uses times on the
 * reference clock: own time - offset. A residual above
 * XR_RESIDUAL_WARN_NS is a warning: the ends disagree by more than a
 * transfer's jitter (clocks drifting during the trace, or a wrong match).
 *
 * Cost: one pass over each rank's events (rank_data, loaded twice, the
 * second time usually from the cache) and a sort of its collectives; the
 * matching is linear in the collectives, the pairing of sends and recvs a
 * sort of them (n log n).
 */
#include "analyze/ranks/collectives.h"
#include "analyze/ranks/crossrank.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/stats.h"
#include "util/search.h"

/* Warnings of operations unmatched by Seq per communicator; the rest are counted. */
#define XR_MAX_SEQ_WARNINGS 5

static int intern(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return (int)i;
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n] = xstrdup(s);
	return (int)(*n)++;
}

static int cmp_kern(const void *pa, const void *pb)
{
	const struct xr_kern *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end < b->end ? -1 : a->end > b->end;
}

/* The ProfilerStep#N whose host range holds t, or -1 (steps sorted by start, disjoint). */
static int64_t step_at(const struct rank_data *d, int64_t t)
{
	size_t l = rk_search(d->steps, d->nsteps, t, 1);
	return l > 0 && d->steps[l - 1].end >= t ? d->steps[l - 1].key : -1;
}

ssize_t crossrank_act_index(const struct rank_data *d, int64_t start, int64_t corr)
{
	size_t l = rank_act_at(d, start);
	for (; l < d->nacts && d->acts[l].start == start; l++)
		if (d->acts[l].kind == ACT_KERNEL && (corr < 0 || d->acts[l].corr < 0 || d->acts[l].corr == corr))
			return (ssize_t)l;
	return -1;
}

/* load_rank's statements (XR_PATH_SQL, XR_COLLS_SQL), prepared once per matching of a run: not per rank. */
#define XR_PATH_SQL "SELECT path FROM traces WHERE run_id = ?1 AND rank = ?2 ORDER BY id LIMIT 1"
#define XR_COLLS_SQL                                                                                             \
	"SELECT c.start_ns, c.correlation, c.collective, c.in_nelems, c.out_nelems, c.dtype,"                   \
	" coalesce(c.group_size, t.world_size), c.process_group, c.seq, c.peer FROM traces t JOIN collectives c" \
	" ON c.trace_id = t.id WHERE t.run_id = ?1 AND t.rank = ?2 ORDER BY c.start_ns"

/*
 * Reads rank k's collective kernels into r (its events from d), with q[0]
 * (XR_PATH_SQL: its first trace file, for its warnings) and q[1]
 * (XR_COLLS_SQL). Returns 0 or -1 after diag.
 */
static int load_rank(struct store_stmt *const q[2], const struct rank_key *k, const struct rank_data *d,
		     struct xr_run *run, struct xr_rank *r)
{
	struct store_stmt *st = q[0];
	rank_bind(st, k);
	int rc = store_next(st);
	if (rc > 0)
		r->path = xstrdup((const char *)store_column_text(st, 0));
	store_reset(st);
	if (rc < 0)
		return -1;
	st = q[1];
	rank_bind(st, k);
	struct launch_index *lidx = rank_launch_index(d);
	struct buf type;
	buf_init(&type);
	size_t cap = 0;
	while ((rc = store_next(st)) > 0) {
		int64_t start = store_column_int64(st, 0);
		int64_t corr = store_column_type(st, 1) == STORE_NULL ? -1 : store_column_int64(st, 1);
		ssize_t ai = crossrank_act_index(d, start, corr);
		if (ai < 0)
			continue; /* args without their kernel: nothing to time */
		const struct rk_act *a = &d->acts[ai];
		r->kerns = xgrow(r->kerns, &cap, r->nkerns + 1, sizeof(*r->kerns));
		struct xr_kern *kn = &r->kerns[r->nkerns++];
		memset(kn, 0, sizeof(*kn));
		kn->start = a->start;
		kn->end = a->end;
		kn->corr = a->corr;
		kn->in_nelems = store_column_int64(st, 3);
		kn->out_nelems = store_column_int64(st, 4);
		kn->group_size = store_column_int64(st, 6);
		kn->seq = store_column_type(st, 8) == STORE_NULL ? -1 : store_column_int64(st, 8);
		buf_reset(&type);
		collective_canonical((const char *)store_column_text(st, 2), &type);
		kn->type = intern(&run->names, &run->nnames, type.data);
		kn->peer = store_column_type(st, 9) == STORE_NULL ? -1 : store_column_int64(st, 9);
		kn->p2p = !strcmp(type.data, "Send") || !strcmp(type.data, "Recv") || kn->peer >= 0;
		const char *dt = (const char *)store_column_text(st, 5);
		kn->dtype = dt ? intern(&run->names, &run->nnames, dt) : -1;
		const char *pg = (const char *)store_column_text(st, 7);
		kn->pg = intern(&run->pgs, &run->npgs, pg ? pg : "(no process group recorded)");
		/* the step of its launch: a kernel of step N's host code may run after the step's host range */
		const struct rk_range *l = rank_launch_of(d, lidx, a->corr);
		kn->step = step_at(d, l ? l->start : a->start);
		kn->op = -1;
	}
	store_reset(st);
	rank_launch_index_release(d, lidx);
	buf_release(&type);
	if (rc < 0)
		return -1;
	/*
	 * Every rank's kernels are kept until the run is matched: xgrow's
	 * first 16 would be 1.7 KB a rank of 3 collectives (27 MB at 16,384
	 * ranks), so the list is cut to its length.
	 */
	if (cap > r->nkerns && r->nkerns)
		r->kerns = xrealloc(r->kerns, r->nkerns * sizeof(*r->kerns));
	if (r->nkerns > 1) /* a rank without communication kernels has none (NULL) */
		qsort(r->kerns, r->nkerns, sizeof(*r->kerns), cmp_kern);
	/* each kernel's number on its communicator, in order of start; the point-to-point ones apart */
	int64_t *count = xcalloc(run->npgs ? 2 * run->npgs : 1, sizeof(*count));
	for (size_t i = 0; i < r->nkerns; i++)
		r->kerns[i].index = count[2 * (size_t)r->kerns[i].pg + (r->kerns[i].p2p != 0)]++;
	free(count);
	return 0;
}

/* A warning about run's rank index ri, as a diagnostic (at its trace) and a note. */
static void __attribute__((format(printf, 4, 5)))
warn(struct analysis_result *out, const struct xr_run *run, size_t ri, const char *fmt, ...)
{
	if (!out)
		return; /* a second matching of the run (the critical path's): warned once already */
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = xmalloc(len > 0 ? (size_t)len + 1 : 1);
	text[0] = '\0';
	va_start(ap, fmt);
	if (len > 0)
		vsnprintf(text, (size_t)len + 1, fmt, ap);
	va_end(ap);
	diag_warning(run->ranks[ri].path ? run->ranks[ri].path : "perfstudy.db", "%s", text);
	result_add_note(out, "collective_waits.csv: %s", text);
	free(text);
}

/* The kernels of communicator pg per member rank: idx[m][0 .. cnt[m]) are kernel indices of ranks[mr[m]]. */
struct pg_lists {
	size_t nm;
	uint32_t *mr;
	size_t *cnt;
	uint32_t **idx;
};

static void pg_lists_build(const struct xr_run *run, int pg, struct pg_lists *pl)
{
	memset(pl, 0, sizeof(*pl));
	pl->mr = xmalloc(run->nranks * sizeof(*pl->mr));
	pl->cnt = xcalloc(run->nranks, sizeof(*pl->cnt));
	pl->idx = xcalloc(run->nranks, sizeof(*pl->idx));
	for (size_t ri = 0; ri < run->nranks; ri++) {
		const struct xr_rank *r = &run->ranks[ri];
		size_t m = pl->nm, cap = 0;
		for (size_t i = 0; i < r->nkerns; i++)
			if (r->kerns[i].pg == pg && !r->kerns[i].p2p) { /* point to point: paired apart (match_p2p) */
				pl->idx[m] = xgrow(pl->idx[m], &cap, pl->cnt[m] + 1, sizeof(**pl->idx));
				pl->idx[m][pl->cnt[m]++] = (uint32_t)i;
			}
		if (pl->cnt[m])
			pl->mr[pl->nm++] = (uint32_t)ri;
	}
}

static void pg_lists_release(struct pg_lists *pl)
{
	for (size_t m = 0; m < pl->nm; m++)
		free(pl->idx[m]);
	free(pl->idx);
	free(pl->cnt);
	free(pl->mr);
}

static const struct xr_kern *member_kern(const struct xr_run *run, const struct pg_lists *pl, size_t m, size_t pos)
{
	return &run->ranks[pl->mr[m]].kerns[pl->idx[m][pos]];
}

/* Whether a and b agree on name, dtype and element counts; else the warning's text in why. */
static int agree(const struct xr_run *run, const struct xr_kern *a, const struct xr_kern *b, struct buf *why)
{
	const char *na = run->names[a->type], *nb = run->names[b->type];
	const char *da = a->dtype >= 0 ? run->names[a->dtype] : "?", *db = b->dtype >= 0 ? run->names[b->dtype] : "?";
	if (a->type == b->type && a->dtype == b->dtype && a->in_nelems == b->in_nelems && a->out_nelems == b->out_nelems)
		return 1;
	buf_printf(why, "%s %s in %lld out %lld elements where the lowest rank has %s %s in %lld out %lld", nb, db,
		   (long long)b->in_nelems, (long long)b->out_nelems, na, da, (long long)a->in_nelems,
		   (long long)a->out_nelems);
	return 0;
}

/*
 * A new operation of n members, described by its kernel k0 (name, dtype,
 * id: Seq, else the number on the communicator; bytes = max(In, Out msg
 * nelems) x the dtype's size), its members from *nmembers on (room made).
 */
static struct xr_op *new_op(struct xr_run *run, const struct xr_kern *k0, size_t n, size_t *cap_ops,
			    size_t nmembers, size_t *cap_members)
{
	run->ops = xgrow(run->ops, cap_ops, run->nops + 1, sizeof(*run->ops));
	struct xr_op *op = &run->ops[run->nops];
	memset(op, 0, sizeof(*op));
	op->pg = k0->pg;
	op->type = k0->type;
	op->dtype = k0->dtype;
	op->id = k0->seq >= 0 ? k0->seq : k0->index;
	int sz = k0->dtype >= 0 ? collective_dtype_size(run->names[k0->dtype]) : 0;
	int64_t nel = k0->in_nelems > k0->out_nelems ? k0->in_nelems : k0->out_nelems;
	op->bytes = sz > 0 && nel > 0 ? nel * sz : -1;
	op->group_size = k0->group_size;
	op->first = nmembers;
	op->n = n;
	run->members = xgrow(run->members, cap_members, nmembers + n, sizeof(*run->members));
	return op;
}

/* Records an operation over the kernels pos[m] of every member (they agree). */
static void add_op(struct xr_run *run, const struct pg_lists *pl, const size_t *pos, size_t *cap_ops,
		   size_t *nmembers, size_t *cap_members)
{
	new_op(run, member_kern(run, pl, 0, pos[0]), pl->nm, cap_ops, *nmembers, cap_members);
	for (size_t m = 0; m < pl->nm; m++) {
		run->members[(*nmembers)++] = (struct xr_member){pl->mr[m], pl->idx[m][pos[m]]};
		run->ranks[pl->mr[m]].kerns[pl->idx[m][pos[m]]].op = (int32_t)run->nops;
	}
	run->nops++;
}

/* Matches communicator pg by order of issue (see the file's comment). */
static void match_by_order(struct xr_run *run, const struct pg_lists *pl, struct analysis_result *out,
			   size_t *cap_ops, size_t *nmembers, size_t *cap_members)
{
	size_t *pos = xcalloc(pl->nm, sizeof(*pos));
	size_t most = 0;
	for (size_t m = 0; m < pl->nm; m++)
		if (pl->cnt[m] > most)
			most = pl->cnt[m];
	struct buf why;
	buf_init(&why);
	for (size_t n = 0; n < most; n++) {
		size_t bad = SIZE_MAX;
		for (size_t m = 0; m < pl->nm && bad == SIZE_MAX; m++) {
			pos[m] = n;
			if (n >= pl->cnt[m]) {
				bad = m;
				buf_printf(&why, "has %zu collectives on it, no #%zu", pl->cnt[m], n);
			} else if (m > 0 && !agree(run, member_kern(run, pl, 0, n), member_kern(run, pl, m, n), &why)) {
				bad = m;
			}
		}
		if (bad != SIZE_MAX) {
			const struct xr_kern *ref = n < pl->cnt[0] ? member_kern(run, pl, 0, n) : NULL;
			int pg = member_kern(run, pl, 0, 0)->pg;
			warn(out, run, pl->mr[bad],
			     "run %s rank %d: collective #%zu (%s) of communicator '%s' does not match: rank %d %s; "
			     "#%zu and the %zu later collectives of '%s' are left unmatched",
			     run->name, run->ranks[pl->mr[bad]].rank, n, ref ? run->names[ref->type] : "?", run->pgs[pg],
			     run->ranks[pl->mr[bad]].rank, why.data, n, most - n - 1, run->pgs[pg]);
			break;
		}
		add_op(run, pl, pos, cap_ops, nmembers, cap_members);
	}
	buf_release(&why);
	free(pos);
}

/* Matches communicator pg by its Seq args: a k-way merge of the members' kernels in order of Seq. */
static void match_by_seq(struct xr_run *run, struct pg_lists *pl, struct analysis_result *out, size_t *cap_ops,
			 size_t *nmembers, size_t *cap_members)
{
	/* each member's kernels in order of Seq (issue order: already so, unless Seq wraps or repeats) */
	for (size_t m = 0; m < pl->nm; m++) {
		const struct xr_kern *k = run->ranks[pl->mr[m]].kerns;
		uint32_t *v = pl->idx[m];
		for (size_t i = 1; i < pl->cnt[m]; i++) { /* insertion sort: linear when already sorted */
			uint32_t x = v[i];
			size_t j = i;
			while (j > 0 && k[v[j - 1]].seq > k[x].seq) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = x;
		}
	}
	size_t *pos = xcalloc(pl->nm, sizeof(*pos)), *at = xmalloc(pl->nm * sizeof(*at));
	size_t nwarn = 0;
	struct buf why;
	buf_init(&why);
	int pg = member_kern(run, pl, 0, 0)->pg;
	for (;;) {
		int64_t low = INT64_MAX;
		for (size_t m = 0; m < pl->nm; m++)
			if (pos[m] < pl->cnt[m] && member_kern(run, pl, m, pos[m])->seq < low)
				low = member_kern(run, pl, m, pos[m])->seq;
		if (low == INT64_MAX)
			break;
		size_t have = 0, bad = SIZE_MAX, first = SIZE_MAX;
		buf_reset(&why);
		for (size_t m = 0; m < pl->nm; m++) {
			at[m] = pos[m];
			if (pos[m] < pl->cnt[m] && member_kern(run, pl, m, pos[m])->seq == low) {
				if (first == SIZE_MAX)
					first = m;
				else if (bad == SIZE_MAX &&
					 !agree(run, member_kern(run, pl, first, pos[first]), member_kern(run, pl, m, pos[m]), &why))
					bad = m;
				have++;
			} else if (bad == SIZE_MAX) {
				bad = m;
				buf_printf(&why, "has no collective with Seq %lld", (long long)low);
			}
		}
		if (bad == SIZE_MAX && have == pl->nm)
			add_op(run, pl, at, cap_ops, nmembers, cap_members);
		else if (nwarn++ < XR_MAX_SEQ_WARNINGS)
			warn(out, run, pl->mr[bad], "run %s rank %d: collective Seq %lld (%s) of communicator '%s' is left "
			     "unmatched: rank %d %s", run->name, run->ranks[pl->mr[bad]].rank, (long long)low,
			     run->names[member_kern(run, pl, first, pos[first])->type], run->pgs[pg],
			     run->ranks[pl->mr[bad]].rank, why.data);
		for (size_t m = 0; m < pl->nm; m++)
			if (pos[m] < pl->cnt[m] && member_kern(run, pl, m, pos[m])->seq == low)
				pos[m]++;
	}
	if (nwarn > XR_MAX_SEQ_WARNINGS)
		warn(out, run, 0, "run %s: %zu more collectives of communicator '%s' left unmatched", run->name,
		     nwarn - XR_MAX_SEQ_WARNINGS, run->pgs[pg]);
	buf_release(&why);
	free(pos);
	free(at);
}

/*
 * A send or recv with a traced peer: its channel (communicator, step,
 * sender, receiver) and itself. A SendRecv with a peer (both: a coalesced
 * batch both ways) has the channel of its two ranks, src the lower rank
 * index and dst the higher, recv 1 on the higher's side.
 */
struct p2p_ent {
	int pg, both, recv;
	int64_t step;
	uint32_t src, dst;       /* rank indices of the sender and the receiver */
	uint32_t rank_i, kern_i; /* the kernel */
};

static int cmp_p2p(const void *pa, const void *pb)
{
	const struct p2p_ent *a = pa, *b = pb;
	if (a->pg != b->pg)
		return a->pg < b->pg ? -1 : 1;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	if (a->both != b->both)
		return a->both - b->both;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->dst != b->dst)
		return a->dst < b->dst ? -1 : 1;
	if (a->recv != b->recv)
		return a->recv - b->recv;
	return a->kern_i < b->kern_i ? -1 : a->kern_i > b->kern_i; /* one rank's kernels, in order of start */
}

/* Records the operation of send s and recv v: its two kernels in rank order, as a collective's. */
static void add_pair(struct xr_run *run, const struct p2p_ent *s, const struct p2p_ent *v, size_t *cap_ops,
		     size_t *nmembers, size_t *cap_members)
{
	struct xr_op *op = new_op(run, &run->ranks[s->rank_i].kerns[s->kern_i], 2, cap_ops, *nmembers, cap_members);
	op->group_size = 2;
	op->p2p = 1;
	const struct p2p_ent *lo = s->rank_i < v->rank_i ? s : v, *hi = lo == s ? v : s;
	run->members[(*nmembers)++] = (struct xr_member){lo->rank_i, lo->kern_i};
	run->members[(*nmembers)++] = (struct xr_member){hi->rank_i, hi->kern_i};
	run->ranks[s->rank_i].kerns[s->kern_i].op = (int32_t)run->nops;
	run->ranks[v->rank_i].kerns[v->kern_i].op = (int32_t)run->nops;
	run->nops++;
}

/*
 * Pairs the sends and recvs of the run (see the file's comment): per
 * communicator, step, sender A and receiver B, the k-th send of A to B with
 * the k-th recv of B from A; a channel whose counts differ in a step is
 * left unmatched, one warning per run.
 */
static void match_p2p(struct xr_run *run, struct analysis_result *out, size_t *cap_ops, size_t *nmembers,
		      size_t *cap_members)
{
	size_t n = 0, cap = 0;
	struct p2p_ent *e = NULL;
	for (size_t ri = 0; ri < run->nranks; ri++) {
		const struct xr_rank *r = &run->ranks[ri];
		for (size_t i = 0; i < r->nkerns; i++) {
			const struct xr_kern *k = &r->kerns[i];
			const char *t = run->names[k->type];
			int both = !strcmp(t, "SendRecv"), recv = !strcmp(t, "Recv");
			if (!k->p2p || k->peer < 0 || k->peer > INT32_MAX || (!recv && !both && strcmp(t, "Send")))
				continue; /* no peer: no one pair */
			int pi = crossrank_rank_index(run, (int)k->peer);
			if (pi < 0 || (size_t)pi == ri)
				continue; /* its peer has no trace here */
			if (both)
				recv = (size_t)pi < ri; /* the higher rank's side */
			e = xgrow(e, &cap, n + 1, sizeof(*e));
			e[n++] = (struct p2p_ent){k->pg, both, recv, k->step, recv ? (uint32_t)pi : (uint32_t)ri,
						  recv ? (uint32_t)ri : (uint32_t)pi, (uint32_t)ri, (uint32_t)i};
		}
	}
	if (n > 1)
		qsort(e, n, sizeof(*e), cmp_p2p);
	size_t nbad = 0, bad_s = 0, bad_v = 0;
	const struct p2p_ent *bad = NULL;
	for (size_t a = 0; a < n;) {
		size_t b = a, c;
		while (b < n && !e[b].recv && e[b].pg == e[a].pg && e[b].step == e[a].step && e[b].both == e[a].both &&
		       e[b].src == e[a].src && e[b].dst == e[a].dst)
			b++;
		c = b;
		while (c < n && e[c].recv && e[c].pg == e[a].pg && e[c].step == e[a].step && e[c].both == e[a].both &&
		       e[c].src == e[a].src && e[c].dst == e[a].dst)
			c++;
		if (b - a == c - b) {
			for (size_t k = 0; k < b - a; k++)
				add_pair(run, &e[a + k], &e[b + k], cap_ops, nmembers, cap_members);
		} else if (nbad++ == 0) {
			bad = &e[a];
			bad_s = b - a;
			bad_v = c - b;
		}
		a = c;
	}
	if (bad && bad->both)
		warn(out, run, bad->src, "run %s step %lld: rank %d issued %zu batches both ways with rank %d on "
		     "communicator '%s', rank %d %zu: these are left unmatched; in all %zu (sender, receiver, step) of "
		     "the run disagree so", run->name, (long long)bad->step, run->ranks[bad->src].rank, bad_s,
		     run->ranks[bad->dst].rank, run->pgs[bad->pg], run->ranks[bad->dst].rank, bad_v, nbad);
	else if (bad)
		warn(out, run, bad->src, "run %s step %lld: rank %d issued %zu sends to rank %d on communicator '%s', "
		     "rank %d %zu recvs from rank %d: these sends and recvs are left unmatched; in all %zu (sender, "
		     "receiver, step) of the run disagree so", run->name, (long long)bad->step,
		     run->ranks[bad->src].rank, bad_s,
		     run->ranks[bad->dst].rank, run->pgs[bad->pg], run->ranks[bad->dst].rank, bad_v,
		     run->ranks[bad->src].rank, nbad);
	free(e);
}

/*
 * Rooted and point-to-point collectives: a rank may leave before the others
 * arrive (a Broadcast's root writes into its peers' buffers and is done), so
 * their ends say less about the clocks than those of the others, where no
 * rank can leave before every rank has arrived.
 */
static int rooted(const char *type)
{
	static const char *const r[] = {"Broadcast", "Reduce", "Send", "Recv", "SendRecv"};
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (!strcmp(type, r[i]))
			return 1;
	return 0;
}

/* The value at fraction q of the sorted v[0 .. n) (nearest rank), n > 0. */
static int64_t quantile(const int64_t *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);
	return v[i > 0 ? (i > n ? n - 1 : i - 1) : 0];
}

/* The clock offsets (see the file's comment), then every operation's arrivals. */
static void align(struct xr_run *run, const char *run_name, struct analysis_result *out)
{
	size_t cap = 0;
	int64_t *diff = NULL;
	int colls = 0; /* a collective of the group matched: pairs of a send and a recv alone give no offsets */
	for (size_t o = 0; o < run->nops && !colls; o++)
		colls = !run->ops[o].p2p;
	/* the reference is ranks[0]: offset 0 */
	run->ranks[0].has_offset = colls;
	for (size_t ri = 1; ri < run->nranks && colls; ri++) {
		struct xr_rank *r = &run->ranks[ri];
		size_t nd = 0, nsync = 0;
		for (size_t i = 0; i < r->nkerns; i++)
			if (r->kerns[i].op >= 0 && !run->ops[r->kerns[i].op].p2p &&
			    run->members[run->ops[r->kerns[i].op].first].rank_i == 0)
				nsync += !rooted(run->names[r->kerns[i].type]);
		/* the feasible offsets: no rank leaves a synchronising collective before every rank arrived */
		int64_t lo = INT64_MIN, hi = INT64_MAX;
		for (size_t i = 0; i < r->nkerns; i++) {
			const struct xr_kern *k = &r->kerns[i];
			if (k->op < 0)
				continue;
			const struct xr_op *op = &run->ops[k->op];
			const struct xr_member *m0 = &run->members[op->first];
			if (op->p2p || m0->rank_i != 0 || (nsync && rooted(run->names[k->type])))
				continue; /* a send's pair; no reference; or rooted, where synchronising ones exist */
			const struct xr_kern *k0 = &run->ranks[0].kerns[m0->kern_i];
			diff = xgrow(diff, &cap, nd + 1, sizeof(*diff));
			diff[nd++] = k->end - k0->end;
			if (!rooted(run->names[k->type])) {
				if (k->start - k0->end > lo)
					lo = k->start - k0->end;
				if (k->end - k0->start < hi)
					hi = k->end - k0->start;
			}
		}
		r->nmatched_ends = nd;
		if (!nd) {
			warn(out, run, ri, "run %s rank %d: no collective shared with rank %d, so its clock offset is "
			     "unknown and taken as 0", run_name, r->rank, run->ranks[0].rank);
			continue;
		}
		qsort(diff, nd, sizeof(*diff), stats_cmp_i64);
		r->has_offset = 1;
		r->offset = quantile(diff, nd, 0.5);
		if (lo <= hi) {
			r->offset = r->offset < lo ? lo : r->offset > hi ? hi : r->offset;
		} else {
			warn(out, run, ri, "run %s rank %d: no clock offset lets every rank leave its collectives after "
			     "all arrived (offset at least %.3f us by one collective, at most %.3f us by another): "
			     "clocks drifting, or collectives paired wrong; the median of the ends is kept", run_name,
			     r->rank, (double)lo / 1e3, (double)hi / 1e3);
		}
		for (size_t i = 0; i < nd; i++)
			diff[i] = diff[i] > r->offset ? diff[i] - r->offset : r->offset - diff[i];
		qsort(diff, nd, sizeof(*diff), stats_cmp_i64);
		r->residual = quantile(diff, nd, 0.9);
		if (r->residual > XR_RESIDUAL_WARN_NS)
			warn(out, run, ri, "run %s rank %d: after its clock offset of %.3f us, the ends of its "
			     "collectives still differ from rank %d's by %.3f us (90th percentile; more than %d us): "
			     "clocks drifting, or collectives paired wrong", run_name, r->rank, (double)r->offset / 1e3,
			     run->ranks[0].rank, (double)r->residual / 1e3, XR_RESIDUAL_WARN_NS / 1000);
	}
	free(diff);
	for (size_t o = 0; o < run->nops; o++) {
		struct xr_op *op = &run->ops[o];
		op->first_arrival = INT64_MAX;
		op->last_arrival = op->second_last_arrival = INT64_MIN;
		for (size_t m = op->first; m < op->first + op->n; m++) {
			const struct xr_rank *r = &run->ranks[run->members[m].rank_i];
			int64_t t = r->kerns[run->members[m].kern_i].start - r->offset;
			if (t < op->first_arrival)
				op->first_arrival = t;
			if (t > op->last_arrival) { /* ties: the lowest rank is the last */
				op->second_last_arrival = op->last_arrival;
				op->last_arrival = t;
				op->last_rank = r->rank;
			} else if (t > op->second_last_arrival) {
				op->second_last_arrival = t;
			}
		}
	}
}

int crossrank_match(struct store *s, const struct rank_key *keys, size_t n, const struct classifier *cls,
		    struct analysis_result *out, struct xr_run *run)
{
	memset(run, 0, sizeof(*run));
	run->name = xstrdup(n ? keys[0].run : "");
	run->ranks = xcalloc(n ? n : 1, sizeof(*run->ranks));
	run->nranks = n;
	struct store_stmt *q[2] = {NULL, NULL};
	int rc = store_prepare(s, "match collectives", XR_PATH_SQL, &q[0]);
	if (rc == 0)
		rc = store_prepare(s, "match collectives", XR_COLLS_SQL, &q[1]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		run->ranks[i].rank = keys[i].rank;
		struct rank_data d;
		if ((rc = rank_data_load(s, &keys[i], cls, &d)) == 0) {
			rc = load_rank(q, &keys[i], &d, run, &run->ranks[i]);
			rank_data_release(&d);
		}
	}
	store_finalize(q[0]);
	store_finalize(q[1]);
	if (rc < 0)
		return -1;
	size_t cap_ops = 0, nmembers = 0, cap_members = 0;
	for (size_t pg = 0; pg < run->npgs; pg++) {
		struct pg_lists pl;
		pg_lists_build(run, (int)pg, &pl);
		if (pl.nm >= 2) {
			int64_t gs = member_kern(run, &pl, 0, 0)->group_size;
			if (gs > (int64_t)pl.nm)
				warn(out, run, pl.mr[0], "run %s: communicator '%s' has %lld ranks, the traces of %zu carry "
				     "it: its collectives are matched among these, and a rank without a trace may have "
				     "been the last to arrive", keys[0].run, run->pgs[pg], (long long)gs, pl.nm);
			int by_seq = 1;
			for (size_t m = 0; m < pl.nm && by_seq; m++)
				for (size_t i = 0; i < pl.cnt[m] && by_seq; i++)
					by_seq = member_kern(run, &pl, m, i)->seq >= 0;
			if (by_seq)
				match_by_seq(run, &pl, out, &cap_ops, &nmembers, &cap_members);
			else
				match_by_order(run, &pl, out, &cap_ops, &nmembers, &cap_members);
		}
		pg_lists_release(&pl);
	}
	match_p2p(run, out, &cap_ops, &nmembers, &cap_members);
	if (run->nops) /* a run without matched collectives has nothing to align by, and needs nothing */
		align(run, keys[0].run, out);
	return 0;
}

void crossrank_release(struct xr_run *run)
{
	for (size_t i = 0; i < run->nranks; i++) {
		free(run->ranks[i].kerns);
		free(run->ranks[i].path);
	}
	free(run->ranks);
	for (size_t i = 0; i < run->npgs; i++)
		free(run->pgs[i]);
	free(run->pgs);
	for (size_t i = 0; i < run->nnames; i++)
		free(run->names[i]);
	free(run->names);
	free(run->ops);
	free(run->members);
	free(run->name);
	memset(run, 0, sizeof(*run));
}

/* lower_bound predicates: a rank below the int key; a kernel starting before the int64_t key. */
static int rank_before(const void *elem, const void *key)
{
	return ((const struct xr_rank *)elem)->rank < *(const int *)key;
}

static int kern_starts_before(const void *elem, const void *key)
{
	return ((const struct xr_kern *)elem)->start < *(const int64_t *)key;
}

int crossrank_rank_index(const struct xr_run *run, int rank)
{
	/* ranks are in rank order, each once (rank_keys): a binary search, not a scan per call */
	size_t l = lower_bound(run->ranks, run->nranks, sizeof(*run->ranks), &rank, rank_before);
	return l < run->nranks && run->ranks[l].rank == rank ? (int)l : -1;
}

const struct xr_kern *crossrank_kern_at(const struct xr_run *run, size_t ri, int64_t start)
{
	const struct xr_rank *r = &run->ranks[ri];
	size_t l = lower_bound(r->kerns, r->nkerns, sizeof(*r->kerns), &start, kern_starts_before);
	return l < r->nkerns && r->kerns[l].start == start ? &r->kerns[l] : NULL;
}
