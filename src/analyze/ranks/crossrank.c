/*
 * crossrank.c: the NCCL collectives of each multi-rank run matched across
 * its ranks (collective_waits.csv), the ranks' clock offsets
 * (clock_offsets.csv), the rank each collective waited for
 * (stragglers.csv, straggler_ranks.csv) and figure rank_waits.
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
 * Per matched collective (times on the reference clock): arrival of a rank
 * = its kernel's start; last arrival = the latest; wait_us = last arrival
 * - own arrival; transfer_us = own end - last arrival (0 when the offset's
 * error puts it below 0); algorithm bandwidth = bytes / transfer (not the
 * kernel's duration, which includes the wait); bus bandwidth = algbw x
 * NCCL's factor (2(n-1)/n AllReduce, (n-1)/n AllGather and ReduceScatter,
 * 1 otherwise). bytes = max(In, Out msg nelems) x the dtype's size
 * (nccl-tests' S). The exposed part of a wait: the wait's interval minus
 * every other activity of that GPU (kernels, copies, memsets on any
 * stream, other collectives included): what the wait costs the rank.
 * Figure rank_waits stacks a partition of each rank's steps (compute and
 * copies, exposed communication, exposed wait, idle), never overlapping
 * times.
 *
 * Cost: one pass over each rank's events (rank_data, loaded twice, the
 * second time usually from the cache) and a sort of its collectives; the
 * matching is linear in the collectives; a straggler window costs a
 * binary search and the intervals inside it.
 */
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
#include "analyze/lib/search.h"

/*
 * The residual above which the clock offset is not trusted: 100 us. On the
 * bundled study (one host, so one clock: the true offsets are 0) the ends
 * of the AllReduce kernels of BERT's ranks agree within 13-18 us (90th
 * percentile), GPT-2's within 22-96 us, and the estimated offsets are
 * within 90 us of 0: this method's precision on NVLink. Ranks whose clocks
 * drift apart during the trace, or kernels paired wrong, exceed it.
 */
#define XR_RESIDUAL_WARN_NS 100000
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
	" coalesce(c.group_size, t.world_size), c.process_group, c.seq FROM traces t JOIN collectives c"        \
	" ON c.trace_id = t.id WHERE t.run_id = ?1 AND t.rank = ?2 ORDER BY c.start_ns"

/*
 * Reads rank k's collective kernels into r (its events from d), with q[0]
 * (XR_PATH_SQL: its first trace file, for its warnings) and q[1]
 * (XR_COLLS_SQL). Returns 0 or -1 after diag.
 */
static int load_rank(struct store *s, sqlite3_stmt *const q[2], const struct rank_key *k, const struct rank_data *d,
		     struct xr_run *run, struct xr_rank *r)
{
	sqlite3_stmt *st = q[0];
	store_bind_int64(st, 1, k->run_db_id);
	store_bind_int(st, 2, k->rank);
	if (sqlite3_step(st) == SQLITE_ROW)
		r->path = xstrdup((const char *)store_column_text(st, 0));
	store_reset(st);
	st = q[1];
	store_bind_int64(st, 1, k->run_db_id);
	store_bind_int(st, 2, k->rank);
	int64_t *lidx = rank_launch_index(d);
	struct buf type;
	buf_init(&type);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t start = store_column_int64(st, 0);
		int64_t corr = store_column_type(st, 1) == SQLITE_NULL ? -1 : store_column_int64(st, 1);
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
		kn->seq = store_column_type(st, 8) == SQLITE_NULL ? -1 : store_column_int64(st, 8);
		buf_reset(&type);
		collective_canonical((const char *)store_column_text(st, 2), &type);
		kn->type = intern(&run->names, &run->nnames, type.data);
		const char *dt = (const char *)store_column_text(st, 5);
		kn->dtype = dt ? intern(&run->names, &run->nnames, dt) : -1;
		const char *pg = (const char *)store_column_text(st, 7);
		kn->pg = intern(&run->pgs, &run->npgs, pg ? pg : "(no process group recorded)");
		/* the step of its launch: a kernel of step N's host code may run after the step's host range */
		const struct rk_range *l = rank_launch_of(d, lidx, a->corr);
		kn->step = step_at(d, l ? l->start : a->start);
		kn->op = -1;
	}
	if (rc != SQLITE_DONE)
		diag_syserror("perfstudy.db", "sqlite: %s", sqlite3_errmsg(store_db(s)));
	store_reset(st);
	free(lidx);
	buf_release(&type);
	if (rc != SQLITE_DONE)
		return -1;
	if (r->nkerns > 1) /* a rank without communication kernels has none (NULL) */
		qsort(r->kerns, r->nkerns, sizeof(*r->kerns), cmp_kern);
	/* each kernel's number on its communicator, in order of start */
	int64_t *count = xcalloc(run->npgs ? run->npgs : 1, sizeof(*count));
	for (size_t i = 0; i < r->nkerns; i++)
		r->kerns[i].index = count[r->kerns[i].pg]++;
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
			if (r->kerns[i].pg == pg) {
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

/* Records an operation over the kernels pos[m] of every member (they agree). */
static void add_op(struct xr_run *run, const struct pg_lists *pl, const size_t *pos, size_t *cap_ops,
		   size_t *nmembers, size_t *cap_members)
{
	const struct xr_kern *k0 = member_kern(run, pl, 0, pos[0]);
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
	op->first = *nmembers;
	op->n = pl->nm;
	run->members = xgrow(run->members, cap_members, *nmembers + pl->nm, sizeof(*run->members));
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

static int cmp_i64(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	return a < b ? -1 : a > b;
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
	/* the reference is ranks[0]: offset 0 */
	run->ranks[0].has_offset = 1;
	for (size_t ri = 1; ri < run->nranks; ri++) {
		struct xr_rank *r = &run->ranks[ri];
		size_t nd = 0, nsync = 0;
		for (size_t i = 0; i < r->nkerns; i++)
			if (r->kerns[i].op >= 0 && run->members[run->ops[r->kerns[i].op].first].rank_i == 0)
				nsync += !rooted(run->names[r->kerns[i].type]);
		/* the feasible offsets: no rank leaves a synchronising collective before every rank arrived */
		int64_t lo = INT64_MIN, hi = INT64_MAX;
		for (size_t i = 0; i < r->nkerns; i++) {
			const struct xr_kern *k = &r->kerns[i];
			if (k->op < 0)
				continue;
			const struct xr_op *op = &run->ops[k->op];
			const struct xr_member *m0 = &run->members[op->first];
			if (m0->rank_i != 0 || (nsync && rooted(run->names[k->type])))
				continue; /* the reference took no part; or rooted, where synchronising ones exist */
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
		qsort(diff, nd, sizeof(*diff), cmp_i64);
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
		qsort(diff, nd, sizeof(*diff), cmp_i64);
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
	sqlite3_stmt *q[2] = {NULL, NULL};
	int rc = store_prepare(s, "match collectives", XR_PATH_SQL, &q[0]);
	if (rc == 0)
		rc = store_prepare(s, "match collectives", XR_COLLS_SQL, &q[1]);
	for (size_t i = 0; i < n && rc == 0; i++) {
		run->ranks[i].rank = keys[i].rank;
		struct rank_data d;
		if ((rc = rank_data_load(s, &keys[i], cls, &d)) == 0) {
			rc = load_rank(s, q, &keys[i], &d, run, &run->ranks[i]);
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

/*
 * What a rank's GPU did in a window, each instant counted once, in this
 * order: a compute kernel ran; else a memory activity (memcpy, memset,
 * memory kernel); else a communication kernel; else the GPU was idle, with
 * the host inside an operator (a stored cpu_op of any thread) or between
 * operators.
 */
enum { W_COMPUTE, W_MEMORY, W_COMM, W_IDLE_IN_OP, W_IDLE_BETWEEN, NW };
static const char *const w_cols[NW] = {"compute_us", "memory_us", "communication_us", "idle_host_in_op_us",
				       "idle_host_between_ops_us"};

/* A rank's activity sets: C compute, CM compute or memory, A any activity, O host operators, OA O or A. */
struct gpu_sets {
	struct ivset c, cm, a, o, oa;
};

static void gpu_sets_build(const struct rank_data *d, struct gpu_sets *g)
{
	ivset_init(&g->c);
	ivset_init(&g->cm);
	ivset_init(&g->a);
	ivset_init(&g->o);
	ivset_init(&g->oa);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *x = &d->acts[i];
		int compute = x->kind == ACT_KERNEL && x->cls == RK_COMPUTE;
		int comm = x->kind == ACT_KERNEL && x->cls == RK_COMM;
		if (compute)
			ivset_add(&g->c, x->start, x->end);
		if (!comm)
			ivset_add(&g->cm, x->start, x->end);
		ivset_add(&g->a, x->start, x->end);
	}
	for (size_t i = 0; i < d->ncpu_ops; i++)
		ivset_add(&g->o, d->cpu_ops[i].start, d->cpu_ops[i].end);
	ivset_normalize(&g->c);
	ivset_normalize(&g->cm);
	ivset_normalize(&g->a);
	ivset_normalize(&g->o);
	ivset_union(&g->o, &g->a, &g->oa);
	ivset_normalize(&g->oa);
}

static void gpu_sets_release(struct gpu_sets *g)
{
	ivset_release(&g->c);
	ivset_release(&g->cm);
	ivset_release(&g->a);
	ivset_release(&g->o);
	ivset_release(&g->oa);
}

/* The window [lo, hi) split as above into w[NW]. */
static void window_split(const struct gpu_sets *g, int64_t lo, int64_t hi, int64_t w[NW])
{
	int64_t c = ivset_measure_within(&g->c, lo, hi), cm = ivset_measure_within(&g->cm, lo, hi);
	int64_t a = ivset_measure_within(&g->a, lo, hi);
	int64_t oa = ivset_measure_within(&g->oa, lo, hi);
	w[W_COMPUTE] = c;
	w[W_MEMORY] = cm - c;
	w[W_COMM] = a - cm;
	w[W_IDLE_IN_OP] = oa - a; /* |O \ A| = |O ∪ A| - |A| */
	w[W_IDLE_BETWEEN] = (hi - lo) - oa;
}

/* Per rank of a run: the sums behind straggler_ranks.csv and figure rank_waits. */
struct rank_acc {
	int64_t nsteps, waited, transfer, compute, caused;
	int64_t exposed_wait;                                /* of its matched kernels in steps */
	int64_t step, busy, exposed_comm, exposed_wait_in_steps, idle; /* the partition of its steps */
	int64_t nwin, win_union, win[NW]; /* the windows in which it made another rank wait: count, union, split */
	size_t last_ops, last_steps;
	struct buf last_in;
};

/* Per step of a run: the waiting each rank caused in it. */
struct step_caused {
	int64_t step;
	int64_t *caused; /* per rank index */
};

/*
 * The wait and transfer of kernel k of an operation (reference clock). A
 * kernel that ended before the last rank arrived did not wait for it
 * (rooted collectives: a Broadcast's root writes into its peers' buffers
 * and leaves; or the offset's error): wait 0, transfer its whole duration.
 */
int crossrank_times(const struct xr_run *run, const struct xr_rank *r, const struct xr_kern *k, int64_t *wait,
		     int64_t *transfer)
{
	const struct xr_op *op = &run->ops[k->op];
	*wait = op->last_arrival - (k->start - r->offset);
	*transfer = k->end - r->offset - op->last_arrival;
	if (*transfer < 0) { /* it left before the last rank arrived (a Broadcast's root): it did not wait */
		*wait = 0;
		*transfer = k->end - k->start;
		return 0;
	}
	return 1;
}

struct xr_tables {
	struct table *waits, *offsets, *strag, *strag_ranks;
	struct chart *chart;
};

/* A row of collective_waits.csv; exposed: the exposed part of the kernel's wait (ns), -1 unknown. */
static void waits_row(struct table *t, const struct xr_run *run, const struct xr_rank *r, const struct xr_kern *k,
		      int64_t exposed)
{
	size_t row = table_add_row(t), c = 0;
	const struct xr_op *op = k->op >= 0 ? &run->ops[k->op] : NULL;
	table_set_text(t, row, c++, run->name);
	if (k->step >= 0)
		table_set_int(t, row, c, k->step);
	c++;
	table_set_text(t, row, c++, run->pgs[k->pg]);
	table_set_int(t, row, c++, k->seq >= 0 ? k->seq : k->index);
	table_set_text(t, row, c++, run->names[k->type]);
	if (k->dtype >= 0)
		table_set_text(t, row, c, run->names[k->dtype]);
	c++;
	int sz = k->dtype >= 0 ? collective_dtype_size(run->names[k->dtype]) : 0;
	int64_t nel = k->in_nelems > k->out_nelems ? k->in_nelems : k->out_nelems;
	if (sz > 0 && nel > 0)
		table_set_int(t, row, c, nel * sz);
	c++;
	if (k->group_size > 0)
		table_set_int(t, row, c, k->group_size);
	c++;
	table_set_int(t, row, c++, r->rank);
	table_set_int(t, row, c++, op != NULL);
	table_set_ns(t, row, c++, k->start);
	table_set_ns(t, row, c++, k->end);
	table_set_ns(t, row, c++, k->start - r->offset);
	table_set_ns(t, row, c++, k->end - k->start);
	if (!op)
		return;
	int64_t wait, transfer;
	crossrank_times(run, r, k, &wait, &transfer);
	table_set_ns(t, row, c++, op->last_arrival);
	table_set_int(t, row, c++, op->last_rank);
	table_set_ns(t, row, c++, wait);
	table_set_ns(t, row, c++, transfer);
	if (op->bytes >= 0 && transfer > 0) {
		double algbw = (double)op->bytes / (double)transfer; /* bytes per ns = GB/s */
		table_set_real(t, row, c, algbw);
		if (op->group_size > 0)
			table_set_real(t, row, c + 1, algbw * collective_bus_factor(run->names[op->type], op->group_size));
	}
	c += 2;
	if (exposed >= 0)
		table_set_ns(t, row, c, exposed);
}

/*
 * The exposed part of a wait: [lo, hi) on the rank's own clock minus every
 * other activity of its GPU (cm: the union of its kernels other than
 * communication, copies and memsets; and its other communication kernels,
 * found among d's activities sorted by start, none longer than maxcomm),
 * the kernel that waits (starting at self_start, correlation self_corr)
 * excepted. Adds the exposed pieces to ew; returns their measure.
 */
static int64_t exposed_wait(const struct rank_data *d, const struct ivset *cm, int64_t maxcomm, int64_t lo, int64_t hi,
			    int64_t self_start, int64_t self_corr, struct ivset *ew)
{
	struct ivset w, t1, oc, t2;
	ivset_init(&w);
	ivset_init(&t1);
	ivset_init(&oc);
	ivset_init(&t2);
	ivset_add(&w, lo, hi);
	ivset_subtract(&w, cm, &t1);
	/* the communication kernels that may overlap [lo, hi): they start before hi, and after lo - maxcomm */
	size_t l = rank_act_at(d, hi);
	for (size_t j = l; j > 0 && d->acts[j - 1].start >= lo - maxcomm; j--) {
		const struct rk_act *a = &d->acts[j - 1];
		if (a->kind != ACT_KERNEL || a->cls != RK_COMM || a->end <= lo ||
		    (a->start == self_start && (self_corr < 0 || a->corr == self_corr)))
			continue;
		ivset_add(&oc, a->start, a->end);
	}
	ivset_normalize(&oc);
	ivset_subtract(&t1, &oc, &t2);
	int64_t r = ivset_measure(&t2);
	ivset_add_all(ew, &t2);
	ivset_release(&w);
	ivset_release(&t1);
	ivset_release(&oc);
	ivset_release(&t2);
	return r;
}

/* The tables and figure of one matched run. Returns 0 or -1 after diag. */
static int run_tables(struct store *s, const struct rank_key *keys, const struct classifier *cls,
		      const struct xr_run *run, struct xr_tables *xt)
{
	size_t nr = run->nranks;
	for (size_t ri = 0; ri < nr; ri++) {
		const struct xr_rank *r = &run->ranks[ri];
		size_t row = table_add_row(xt->offsets), c = 0;
		table_set_text(xt->offsets, row, c++, run->name);
		table_set_int(xt->offsets, row, c++, r->rank);
		table_set_int(xt->offsets, row, c++, run->ranks[0].rank);
		table_set_int(xt->offsets, row, c++, ri ? (int64_t)r->nmatched_ends : 0);
		if (r->has_offset) {
			table_set_ns(xt->offsets, row, c, r->offset);
			table_set_ns(xt->offsets, row, c + 1, r->residual);
		}
	}
	struct rank_acc *acc = xcalloc(nr, sizeof(*acc));
	int64_t **exposed = xcalloc(nr, sizeof(*exposed)); /* per rank, per kernel: its exposed wait, ns */
	int64_t (*brk)[NW] = xcalloc(run->nops ? run->nops : 1, sizeof(*brk));
	int64_t *op_step = xmalloc((run->nops ? run->nops : 1) * sizeof(*op_step));
	int64_t *op_caused = xcalloc(run->nops ? run->nops : 1, sizeof(*op_caused));
	for (size_t o = 0; o < run->nops; o++) {
		op_step[o] = -1;
		/* the waiting each operation caused: the sum of its ranks' waits */
		const struct xr_op *op = &run->ops[o];
		for (size_t m = op->first; m < op->first + op->n; m++) {
			const struct xr_rank *r = &run->ranks[run->members[m].rank_i];
			int64_t wait, transfer;
			crossrank_times(run, r, &r->kerns[run->members[m].kern_i], &wait, &transfer);
			op_caused[o] += wait;
		}
	}
	/* pass 2 over the ranks: their compute per step, and the windows of the operations they arrived last in */
	for (size_t ri = 0; ri < nr; ri++) {
		const struct xr_rank *r = &run->ranks[ri];
		struct rank_data d;
		if (rank_data_load(s, &keys[ri], cls, &d) < 0) {
			for (size_t i = 0; i < nr; i++)
				free(exposed[i]);
			free(exposed);
			free(op_caused);
			free(acc);
			free(brk);
			free(op_step);
			return -1;
		}
		struct gpu_sets g;
		gpu_sets_build(&d, &g);
		int64_t maxcomm = 0;
		for (size_t i = 0; i < d.nacts; i++)
			if (d.acts[i].kind == ACT_KERNEL && d.acts[i].cls == RK_COMM && d.acts[i].end - d.acts[i].start > maxcomm)
				maxcomm = d.acts[i].end - d.acts[i].start;
		struct ivset ew, win;
		ivset_init(&ew);
		ivset_init(&win);
		acc[ri].nsteps = (int64_t)d.nsteps;
		exposed[ri] = xcalloc(r->nkerns ? r->nkerns : 1, sizeof(**exposed));
		for (size_t i = 0; i < r->nkerns; i++) {
			const struct xr_kern *k = &r->kerns[i];
			if (k->op < 0)
				continue;
			const struct xr_op *op = &run->ops[k->op];
			int64_t wait, transfer;
			crossrank_times(run, r, k, &wait, &transfer);
			if (wait > 0)
				exposed[ri][i] = exposed_wait(&d, &g.cm, maxcomm, k->start, k->start + wait, k->start, k->corr, &ew);
			if (k->step >= 0) {
				acc[ri].waited += wait;
				acc[ri].transfer += transfer;
				acc[ri].exposed_wait += exposed[ri][i];
			}
			if (op->last_rank != r->rank)
				continue;
			/* the window in which a rank was waiting for this one, on this rank's clock */
			window_split(&g, op->first_arrival + r->offset, op->last_arrival + r->offset, brk[k->op]);
			op_step[k->op] = k->step;
			if (op_caused[k->op] > 0) { /* a window that made some rank wait */
				ivset_add(&win, op->first_arrival + r->offset, op->last_arrival + r->offset);
				acc[ri].nwin++;
			}
		}
		/* the union of those windows, each instant once, split as the windows are */
		ivset_normalize(&win);
		acc[ri].win_union = ivset_measure(&win);
		for (size_t i = 0; i < win.n; i++) {
			int64_t w[NW];
			window_split(&g, win.v[i].start, win.v[i].end, w);
			for (int q = 0; q < NW; q++)
				acc[ri].win[q] += w[q];
		}
		ivset_release(&win);
		/* the partition of its steps: compute and copies, exposed communication, exposed wait, idle */
		ivset_normalize(&ew);
		for (size_t i = 0; i < d.nsteps; i++) {
			int64_t lo = d.steps[i].start, hi = d.steps[i].end;
			int64_t cm = ivset_measure_within(&g.cm, lo, hi), a = ivset_measure_within(&g.a, lo, hi);
			int64_t w = ivset_measure_within(&ew, lo, hi);
			acc[ri].compute += ivset_measure_within(&g.c, lo, hi);
			acc[ri].step += hi - lo;
			acc[ri].busy += cm;
			acc[ri].exposed_wait_in_steps += w;
			acc[ri].exposed_comm += a - cm - w;
			acc[ri].idle += (hi - lo) - a;
		}
		ivset_release(&ew);
		gpu_sets_release(&g);
		rank_data_release(&d);
	}
	/* collective_waits.csv: each operation's kernels in rank order, then the unmatched ones */
	for (size_t o = 0; o < run->nops; o++)
		for (size_t m = run->ops[o].first; m < run->ops[o].first + run->ops[o].n; m++) {
			const struct xr_member *mb = &run->members[m];
			const struct xr_rank *r = &run->ranks[mb->rank_i];
			waits_row(xt->waits, run, r, &r->kerns[mb->kern_i], exposed[mb->rank_i][mb->kern_i]);
		}
	for (size_t ri = 0; ri < nr; ri++)
		for (size_t i = 0; i < run->ranks[ri].nkerns; i++)
			if (run->ranks[ri].kerns[i].op < 0)
				waits_row(xt->waits, run, &run->ranks[ri], &run->ranks[ri].kerns[i], -1);
	for (size_t ri = 0; ri < nr; ri++)
		free(exposed[ri]);
	free(exposed);

	/* stragglers.csv, and the waiting each rank caused per step */
	struct step_caused *sc = NULL;
	size_t nsc = 0, cap_sc = 0;
	for (size_t o = 0; o < run->nops; o++) {
		const struct xr_op *op = &run->ops[o];
		int lr = crossrank_rank_index(run, op->last_rank);
		int64_t caused = op_caused[o];
		acc[lr].caused += caused;
		acc[lr].last_ops += caused > 0; /* a tie where nobody waited makes no straggler */
		size_t row = table_add_row(xt->strag), c = 0;
		table_set_text(xt->strag, row, c++, run->name);
		if (op_step[o] >= 0)
			table_set_int(xt->strag, row, c, op_step[o]);
		c++;
		table_set_text(xt->strag, row, c++, run->pgs[op->pg]);
		table_set_int(xt->strag, row, c++, op->id);
		table_set_text(xt->strag, row, c++, run->names[op->type]);
		table_set_int(xt->strag, row, c++, (int64_t)op->n);
		table_set_int(xt->strag, row, c++, op->last_rank);
		table_set_ns(xt->strag, row, c++, op->last_arrival - op->second_last_arrival);
		table_set_ns(xt->strag, row, c++, op->last_arrival - op->first_arrival);
		table_set_ns(xt->strag, row, c++, caused);
		for (int w = 0; w < NW; w++)
			table_set_ns(xt->strag, row, c++, brk[o][w]);
		if (op_step[o] < 0)
			continue;
		size_t si;
		for (si = 0; si < nsc && sc[si].step != op_step[o]; si++)
			;
		if (si == nsc) {
			sc = xgrow(sc, &cap_sc, nsc + 1, sizeof(*sc));
			sc[nsc].step = op_step[o];
			sc[nsc].caused = xcalloc(nr, sizeof(int64_t));
			nsc++;
		}
		sc[si].caused[lr] += caused;
	}
	/* the straggler of a step: the rank that caused the most waiting in it (ties: the lowest rank) */
	for (size_t si = 0; si < nsc; si++) {
		size_t best = 0;
		for (size_t ri = 1; ri < nr; ri++)
			if (sc[si].caused[ri] > sc[si].caused[best])
				best = ri;
		if (sc[si].caused[best] > 0) {
			acc[best].last_steps++;
			buf_printf(&acc[best].last_in, "%s%lld", acc[best].last_in.len ? " " : "", (long long)sc[si].step);
		}
		free(sc[si].caused);
	}
	free(sc);

	struct buf label;
	buf_init(&label);
	for (size_t ri = 0; ri < nr; ri++) {
		struct rank_acc *a = &acc[ri];
		size_t row = table_add_row(xt->strag_ranks), c = 0;
		table_set_text(xt->strag_ranks, row, c++, run->name);
		table_set_int(xt->strag_ranks, row, c++, run->ranks[ri].rank);
		table_set_int(xt->strag_ranks, row, c++, a->nsteps);
		table_set_int(xt->strag_ranks, row, c++, (int64_t)a->last_ops);
		table_set_int(xt->strag_ranks, row, c++, (int64_t)a->last_steps);
		table_set_text(xt->strag_ranks, row, c++, a->last_in.len ? a->last_in.data : "");
		table_set_ns(xt->strag_ranks, row, c++, a->caused);
		int64_t per[4] = {a->caused, a->waited, a->transfer, a->compute};
		for (int q = 0; q < 4; q++) {
			if (q > 0)
				table_set_ns(xt->strag_ranks, row, c, per[q]);
			c += q > 0;
			if (a->nsteps > 0)
				table_set_ns(xt->strag_ranks, row, c, per[q] / a->nsteps);
			c++;
		}
		table_set_ns(xt->strag_ranks, row, c++, a->exposed_wait);
		int64_t part[5] = {a->exposed_wait, a->step, a->busy, a->exposed_comm, a->idle};
		for (int q = 0; q < 5; q++) {
			if (a->nsteps > 0)
				table_set_ns(xt->strag_ranks, row, c, part[q] / a->nsteps);
			c++;
		}
		table_set_int(xt->strag_ranks, row, c++, a->nwin);
		table_set_ns(xt->strag_ranks, row, c++, a->win_union);
		for (int w = 0; w < NW; w++)
			table_set_ns(xt->strag_ranks, row, c++, a->win[w]);
		if (a->nsteps > 0) {
			buf_reset(&label);
			buf_printf(&label, "%s r%d", run->name, run->ranks[ri].rank);
			size_t cat = chart_add_category(xt->chart, label.data);
			double n = (double)a->nsteps * 1e6;
			chart_set(xt->chart, cat, 0, (double)a->busy / n);
			chart_set(xt->chart, cat, 1, (double)a->exposed_comm / n);
			chart_set(xt->chart, cat, 2, (double)a->exposed_wait_in_steps / n);
			chart_set(xt->chart, cat, 3, (double)a->idle / n);
		}
		buf_release(&a->last_in);
	}
	buf_release(&label);
	free(acc);
	free(brk);
	free(op_step);
	free(op_caused);
	return 0;
}

static void add_methods(struct analysis_result *out)
{
	result_add_method(
		out, "collective_waits.csv",
		"Per multi-rank run, every NCCL kernel that records Kineto's NCCL args, one row per rank. Matching: "
		"per communicator (the 'Process Group Name' arg, else 'Process Group Description'), the n-th "
		"collective a rank issues (in order of kernel start) is the same operation as the n-th on every other "
		"rank of the communicator; where every kernel of the communicator records 'Seq', equal Seq is the "
		"same operation instead. The ranks must agree with the lowest rank on collective name, dtype and "
		"In/Out msg nelems. A mismatch (a rank lacks the collective, or disagrees) is a warning naming run, "
		"rank and collective; matching by order then stops for that communicator (that collective and every "
		"later one are unmatched, since the n-th is no longer the n-th), matching by Seq leaves only that "
		"collective unmatched. Unmatched kernels are rows with matched = 0 and no wait. communicator: the "
		"process group; collective: Seq, else the number on the communicator from 0; bytes = max(In, Out msg "
		"nelems) x the dtype's size; ranks: the group size. start_us, end_us: the kernel on its rank's own "
		"clock; arrival_us = start_us - the rank's clock offset (clock_offsets.csv), on the reference "
		"rank's clock; last_arrival_us: the latest arrival of the collective's ranks, last_rank that rank "
		"(ties: the lowest); wait_us = last_arrival_us - arrival_us; transfer_us = end_us - offset - "
		"last_arrival_us; a kernel that ended before the last arrival did not wait for it (a Broadcast's "
		"root leaves once its data is in its peers' buffers): wait 0, transfer its whole kernel; kernel_us = end_us - start_us = "
		"wait + transfer; algbw = bytes / transfer_us (bytes per ns = GB/s), from the transfer, not the "
		"kernel (which includes the wait); busbw = algbw x 2(n-1)/n (AllReduce), (n-1)/n (AllGather, "
		"ReduceScatter), 1 otherwise (nccl-tests PERFORMANCE.md). step: the ProfilerStep#N whose host range "
		"holds the kernel's launch call (else the kernel's start). exposed_wait_us: the part of the wait "
		"([start_us, start_us + wait_us) on the rank's clock) in which no other kernel, copy or memset ran "
		"on any stream of that GPU (the union of its other activities subtracted): the time the wait "
		"costs the rank, where wait_us may overlap compute that goes on meanwhile.");
	result_add_method(
		out, "clock_offsets.csv",
		"Per multi-rank run and rank, the rank's clock against the reference rank (the run's lowest): every "
		"rank leaves a collective at nearly the same moment, so offset_us = the median, over the matched "
		"collectives both took part in (collectives), of (kernel end on the rank - kernel end on the "
		"reference); residual_us = the 90th percentile of |end difference - offset|, the spread the offset "
		"leaves. Only synchronising collectives count (not Broadcast, Reduce, Send, Recv, whose root may "
		"leave before the others arrive) where the two ranks share any, and the offset is kept within "
		"the offsets that let no rank leave a synchronising collective before the other arrived "
		"(max(start - reference end) .. min(end - reference start)). Every cross-rank comparison (waits, "
		"transfers, stragglers, the critical path's joins) uses own time - offset. On the bundled study "
		"(one host: the true offsets are 0) the offsets come out within 90 us of 0 and the residuals at "
		"13-96 us, the method's precision there. A residual above 100 us is a warning (clocks drifting during the trace, or "
		"collectives paired wrong); a rank sharing no collective with the reference keeps offset 0, with a "
		"warning; in a run where no collective matched, offset and residual are empty.");
	result_add_method(
		out, "stragglers.csv",
		"Per matched collective: last_rank, the rank that arrived last; late_us = its arrival - the "
		"second-last arrival (what it alone delayed the collective); spread_us = last - first arrival; "
		"caused_wait_us = the sum of the other ranks' wait_us. The window [first arrival, last arrival] "
		"(some rank waiting for last_rank throughout), on last_rank's clock, split by what last_rank's GPU "
		"did, each instant once in this order: compute_us (a compute kernel ran), memory_us (a memcpy, "
		"memset or memory kernel), communication_us (another communication kernel), idle_host_in_op_us (GPU "
		"idle while a host operator (cpu_op) of any of its threads ran), idle_host_between_ops_us (GPU idle, "
		"host between operators). step: last_rank's step of the collective.");
	result_add_method(
		out, "straggler_ranks.csv",
		"Per multi-rank run and rank: steps (its ProfilerStep#N ranges); collectives_last (collectives it "
		"arrived last in, some other rank waiting for it); steps_last and last_in_steps: the steps in which it caused the most waiting of "
		"all ranks (summed caused_wait_us of the step's collectives; ties: the lowest rank); caused_wait_us "
		"in total and per step; waited_us, transfer_us (its own wait and transfer in the matched collectives "
		"of its steps) in total and per step; compute_per_step_us (the union of its compute kernels within "
		"its steps' host ranges, per step); exposed_wait_us (the summed exposed_wait_us of its matched "
		"collectives in its steps, collective_waits.csv) in total and per step. The partition of its steps "
		"(ProfilerStep host ranges), per step, that figure rank_waits stacks: step_per_step_us = "
		"busy_per_step_us (the union of its compute kernels, copies and memsets) + exposed_comm_per_step_us "
		"(communication kernels only, not in an exposed wait) + the exposed waits (their union within the "
		"steps) + idle_per_step_us (no GPU activity). Each instant of a step is in exactly one part, so "
		"the bars reach the step and never more. windows: the collectives it arrived last in that made "
		"another rank wait (caused_wait_us > 0 in stragglers.csv); window_union_us: the union of their "
		"windows [first arrival, its arrival] on its clock (overlapping windows counted once), split as "
		"stragglers.csv splits one window (window_compute_us ... window_idle_host_between_ops_us, summing "
		"to window_union_us).");
}

int analysis_crossrank(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct classifier *cls = classifier_preset("default");
	struct xr_tables xt;
	xt.waits = table_new("collective_waits", "NCCL collectives matched across ranks: wait for the last rank and transfer",
			     "run:text,step:int,communicator:text,collective:int,name:text,dtype:text,bytes:int,ranks:int,"
			     "rank:int,matched:int,start_us:us,end_us:us,arrival_us:us,kernel_us:us,last_arrival_us:us,"
			     "last_rank:int,wait_us:us,transfer_us:us,algbw_gb_per_s:real,busbw_gb_per_s:real,"
			     "exposed_wait_us:us");
	xt.offsets = table_new("clock_offsets", "Clock offset of each rank against the run's lowest rank",
			       "run:text,rank:int,reference_rank:int,collectives:int,offset_us:us,residual_us:us");
	struct buf cols;
	buf_init(&cols);
	buf_adds(&cols, "run:text,step:int,communicator:text,collective:int,name:text,ranks:int,last_rank:int,"
			"late_us:us,spread_us:us,caused_wait_us:us");
	for (int w = 0; w < NW; w++)
		buf_printf(&cols, ",%s:us", w_cols[w]);
	xt.strag = table_new("stragglers", "The rank each collective waited for, and what its GPU did meanwhile", cols.data);
	buf_release(&cols);
	xt.strag_ranks = table_new("straggler_ranks", "Per rank: the waiting it caused and its own wait, transfer and compute",
				   "run:text,rank:int,steps:int,collectives_last:int,steps_last:int,last_in_steps:text,"
				   "caused_wait_us:us,caused_wait_per_step_us:us,waited_us:us,waited_per_step_us:us,"
				   "transfer_us:us,transfer_per_step_us:us,compute_us:us,compute_per_step_us:us,"
				   "exposed_wait_us:us,exposed_wait_per_step_us:us,step_per_step_us:us,busy_per_step_us:us,"
				   "exposed_comm_per_step_us:us,idle_per_step_us:us,windows:int,window_union_us:us,"
				   "window_compute_us:us,window_memory_us:us,window_communication_us:us,"
				   "window_idle_host_in_op_us:us,window_idle_host_between_ops_us:us");
	xt.chart = chart_new(CHART_STACKED_BAR, "rank_waits", "Where each rank's step goes: computing, communicating, "
			     "waiting for another rank, idle", "mean time per step (ms)");
	chart_add_series(xt.chart, "compute and copies");
	chart_add_series(xt.chart, "exposed communication");
	chart_add_series(xt.chart, "exposed wait for another rank");
	chart_add_series(xt.chart, "idle");
	int ret = -1, any = 0;
	for (size_t k = 0; k < nkeys;) {
		size_t e = k + 1;
		while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
			e++;
		if (e - k >= 2) {
			struct xr_run run;
			int rc = crossrank_match(ctx->store, &keys[k], e - k, cls, out, &run);
			size_t nkerns = 0;
			for (size_t ri = 0; ri < run.nranks; ri++)
				nkerns += run.ranks[ri].nkerns;
			/* a run with collectives gets its rows even when none matched (matched 0) */
			if (rc == 0 && nkerns)
				rc = run_tables(ctx->store, &keys[k], cls, &run, &xt);
			any |= nkerns > 0;
			crossrank_release(&run);
			if (rc < 0)
				goto done;
		}
		k = e;
	}
	ret = 0;
	if (any) {
		result_add_table(out, xt.waits);
		result_add_table(out, xt.offsets);
		result_add_table(out, xt.strag);
		result_add_table(out, xt.strag_ranks);
		result_add_figure(out, xt.chart,
				  "Per run and rank of the multi-GPU runs, mean per step, a partition of the step (the "
				  "bars reach the step): its GPU running compute kernels, copies or memsets; only "
				  "communication kernels, not waiting (exposed communication); only a collective waiting "
				  "for another rank to arrive (exposed wait); nothing (idle). straggler_ranks.csv holds "
				  "the values.");
		add_methods(out);
		xt.waits = xt.offsets = xt.strag = xt.strag_ranks = NULL;
		xt.chart = NULL;
	}
done:
	table_free(xt.waits);
	table_free(xt.offsets);
	table_free(xt.strag);
	table_free(xt.strag_ranks);
	chart_free(xt.chart);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}
