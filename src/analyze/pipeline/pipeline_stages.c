/*
 * pipeline_stages.c: pipeline_stages.csv, the bubble of each stage of a
 * pipeline-parallel run against its schedule's (perfstudy issue 42).
 *
 * Which runs. A run is a pipeline run when the manifest gives it
 * pipeline_parallel >= 2, or when its ranks' point-to-point peers
 * (collectives.peer: a send's "Dst Rank", a recv's "Src Rank") form
 * chains: ranks a and b are joined when a sends to b and b sends to a;
 * each connected component of two or more ranks in which every rank has
 * at most two such neighbours and exactly two ends (a path) is one
 * pipeline. Its stages are the path's ranks in order from stage 0, the
 * end whose first point-to-point op (by host issue time) in its first
 * step with any is a send (activations flow from stage 0). A run the
 * manifest calls a pipeline whose peers form no path is one pipeline of
 * all its ranks, in rank order.
 *
 * Per step (ProfilerStep#N present on every stage) and stage:
 *   pipeline kernels  the stage's compute kernels (a kernel the default
 *                     classification does not put in communication;
 *                     memcpy and memset are not kernels) launched in the
 *                     step (the launch's host start, else the kernel's
 *                     start, inside the ProfilerStep range) before the
 *                     stage's first Optimizer.step#... annotation in the
 *                     step (none: the step's end), so that the optimizer's
 *                     kernels, which a stage that finished early runs
 *                     while the others still work, are left out;
 *   span              from the earliest start to the latest end of the
 *                     pipeline kernels of every stage, on the aligned
 *                     clock (own time - clock_offsets.csv offset where
 *                     crossrank trusts it, else 0: ranks of one host share
 *                     a clock; see offset_of);
 *   compute           the measure of the union of the stage's pipeline
 *                     kernels within the span;
 *   bubble_share      1 - compute / span; formula_bubble_share (p - 1) /
 *                     (m + p - 1) of p stages and m micro-batches, the
 *                     bubble of GPipe and 1F1B alike with equal stages and
 *                     free transfers; excess_share the difference;
 *   imbalance         the largest compute of the pipeline's stages over
 *                     their mean (the same on each stage's row);
 *   p2p               the stage's send and recv kernels issued in the
 *                     step: their time (wait and transfer) and the bytes
 *                     it sends (in msg nelems x the dtype's size);
 *   m                 stage 0's sends to stage 1 in the step: distinct Seq
 *                     values where every one has a Seq (the ops of one
 *                     batch_isend_irecv share it), else their count; the
 *                     manifest's microbatches overrides;
 *   schedule          k = stage 0's sends to stage 1 issued before its
 *                     first recv from stage 1: k < m is 1F1B, else GPipe
 *                     (with m <= p the two are the same schedule); the
 *                     manifest's schedule overrides.
 * A coalesced kernel that both sends and receives (collectives
 * "sendrecv", kineto_coalesced.h: Schedule1F1B fuses a forward's send
 * with the next backward's recv) is one op that is a send and a recv at
 * once: its time counts once in p2p, its bytes are what it sends, it is a
 * send for the peers and m, and a recv for k's first recv.
 * A row per (run, rank) of a pipeline: the median over the steps of each
 * number (separately), steps the count, bubble_sigma the robust spread of
 * the per-step bubble shares (1.4826 x their median absolute deviation),
 * which findings_pipeline.c weighs the excess against.
 *
 * Figure pipeline_bubble_<run>: per stage (a group of two bars) its
 * bubble_share beside formula_bubble_share.
 *
 * Cost: one query of each multi-rank run's sends and recvs per rank (a run
 * without any costs nothing more); the ranks of one pipeline are in memory
 * at a time; each step is found by binary searches over a stage's steps,
 * kernels and ops, so a rank costs the sort of its events.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/ranks/collectives.h"
#include "analyze/pipeline/pipeline_balance.h"
#include "analyze/pipeline/pipeline_ranks.h"
#include "analyze/lib/stats.h"
#include "util/search.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/ranks/ranks_tables.h"

/*
 * The pipelines of a run: the paths of the graph of ranks that send to
 * each other both ways, each from its lower-rank end, into order[]
 * (indexes into v) with pipe set (orient() turns each so that stage 0 comes
 * first, once its ranks are loaded); returns the number of pipelines,
 * *norder the ranks placed.
 */
static int find_pipes(struct pp_rank *v, size_t n, size_t *order, size_t *norder)
{
	*norder = 0;
	for (size_t i = 0; i < n; i++) {
		v[i].pipe = -1;
		v[i].nnbr = 0;
	}
	int bad = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t q = 0; q < v[i].npeers; q++) {
			size_t j = pp_index_of(v, n, v[i].peers[q]);
			if (j == n || j <= i || !pp_sends_to(&v[j], v[i].key->rank))
				continue;
			if (v[i].nnbr == 2 || v[j].nnbr == 2) {
				bad = 1; /* a rank with three neighbours: no path */
				continue;
			}
			v[i].nbr[v[i].nnbr++] = j;
			v[j].nbr[v[j].nnbr++] = i;
		}
	if (bad)
		return 0;
	int npipes = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].nnbr != 1 || v[i].pipe >= 0)
			continue;
		/* walk from this end to the other */
		size_t at = i, prev = n;
		for (;;) {
			order[(*norder)++] = at;
			v[at].pipe = npipes;
			size_t next = n;
			for (size_t k = 0; k < v[at].nnbr; k++)
				if (v[at].nbr[k] != prev)
					next = v[at].nbr[k];
			if (next == n || v[next].pipe >= 0)
				break;
			prev = at;
			at = next;
		}
		npipes++;
	}
	/* a cycle (every rank with two neighbours) is no path */
	for (size_t i = 0; i < n; i++)
		if (v[i].nnbr && v[i].pipe < 0)
			return 0;
	return npipes;
}

/*
 * Turns a pipeline's ranks (order[n], loaded) so that stage 0 comes
 * first: the end whose first op in its first step with any is a send;
 * where neither end or both do, the lower rank's end stays first.
 */
static void orient(const struct pp_rank *v, size_t *order, size_t n)
{
	if (n < 2 || pp_starts_with_send(&v[order[0]]) == 1 || pp_starts_with_send(&v[order[n - 1]]) != 1)
		return;
	for (size_t a = 0, b = n - 1; a < b; a++, b--) {
		size_t t = order[a];
		order[a] = order[b];
		order[b] = t;
	}
}

/* The step range of step number key on r, or NULL. */
static const struct rk_range *step_of(const struct pp_rank *r, int64_t key)
{
	size_t lo = 0, hi = r->nsteps;
	while (lo < hi) { /* steps sorted by key */
		size_t mid = lo + (hi - lo) / 2;
		if (r->steps[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nsteps && r->steps[lo].key == key ? &r->steps[lo] : NULL;
}

/* The per-step numbers of one stage. */
struct pp_step {
	int64_t span_ns, compute_ns;
	double span, compute, bubble, formula, imbalance, p2p, bytes;
	int64_t m, k;
};

/* The output row's inputs for one pipeline: the run's manifest entry and per-stage samples. */
struct pp_pipe {
	const struct manifest_run *mr;
	size_t p;
	const size_t *order; /* stage -> index into the run's ranks */
	struct pp_rank *v;
};

/* Stage j's pipeline kernels of step [s, e): the index range [*a, *b) of its kernels by launch. */
static void step_kernels(const struct pp_rank *r, const struct rk_range *st, size_t *a, size_t *b)
{
	int64_t lim = st->end;
	size_t lo = 0, hi = r->nopt;
	while (lo < hi) { /* the first Optimizer.step at or after the step's start */
		size_t mid = lo + (hi - lo) / 2;
		if (r->opt[mid] < st->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->nopt && r->opt[lo] < st->end)
		lim = r->opt[lo];
	*a = pp_kern_at(r, st->start);
	*b = pp_kern_at(r, lim);
	if (*b < *a)
		*b = *a;
}

/*
 * m and k of a step on stage 0 from its ops with stage 1 (peer): m the
 * distinct Seq values of its sends (their count where one has none), k
 * the sends issued before the first recv (all of them where none; -1
 * without a send).
 */
static void stage0_counts(const struct pp_rank *r, const struct rk_range *st, int64_t peer, struct pp_step *o)
{
	int64_t first_recv = INT64_MAX, nsend = 0, k = 0;
	int all_seq = 1;
	size_t a = pp_op_at(r, st->start), b = pp_op_at(r, st->end);
	for (size_t i = a; i < b; i++) {
		const struct pp_op *op = &r->ops[i];
		if (op->peer == peer && (!op->send || op->recv_too) && op->issue < first_recv)
			first_recv = op->issue;
	}
	int64_t *seqs = xmalloc((b > a ? b - a : 1) * sizeof(*seqs));
	for (size_t i = a; i < b; i++) {
		const struct pp_op *op = &r->ops[i];
		if (op->peer != peer || !op->send)
			continue;
		all_seq &= op->has_seq;
		seqs[nsend++] = op->seq;
		k += op->issue < first_recv;
	}
	o->k = nsend ? k : -1; /* no send to stage 1: no schedule to infer */
	o->m = nsend;
	if (all_seq && nsend) {
		qsort(seqs, (size_t)nsend, sizeof(*seqs), stats_cmp_i64);
		o->m = 1;
		for (int64_t i = 1; i < nsend; i++)
			o->m += seqs[i] != seqs[i - 1];
	}
	free(seqs);
}

/*
 * One step of one pipeline: fills out[stage]; returns 0 when a stage has
 * no step key or no pipeline kernel in it (the step is left out).
 */
static int one_step(const struct pp_pipe *pp, int64_t key, struct pp_step *out, struct ivset *sets)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (size_t j = 0; j < pp->p; j++) {
		const struct pp_rank *r = &pp->v[pp->order[j]];
		const struct rk_range *st = step_of(r, key);
		if (!st)
			return 0;
		size_t a, b;
		step_kernels(r, st, &a, &b);
		if (a == b)
			return 0;
		ivset_clear(&sets[j]);
		for (size_t i = a; i < b; i++) {
			int64_t s0 = r->kerns[i].start - r->offset, e0 = r->kerns[i].end - r->offset;
			ivset_add(&sets[j], s0, e0);
			lo = s0 < lo ? s0 : lo;
			hi = e0 > hi ? e0 : hi;
		}
		ivset_normalize(&sets[j]);
		struct pp_step *o = &out[j];
		memset(o, 0, sizeof(*o));
		o->m = o->k = -1;
		for (size_t i = pp_op_at(r, st->start), e = pp_op_at(r, st->end); i < e; i++) {
			const struct pp_op *op = &r->ops[i];
			o->p2p += (double)(op->end - op->start);
			if (op->send)
				o->bytes += (double)op->bytes;
		}
		if (j == 0 && pp->p > 1)
			stage0_counts(r, st, pp->v[pp->order[1]].key->rank, o);
	}
	double span = (double)(hi - lo), sum = 0, max = 0;
	for (size_t j = 0; j < pp->p; j++) {
		struct pp_step *o = &out[j];
		o->span_ns = hi - lo;
		o->compute_ns = ivset_measure_within(&sets[j], lo, hi);
		o->span = span;
		o->compute = (double)o->compute_ns;
		o->bubble = span > 0 ? 1 - o->compute / span : NAN;
		sum += o->compute;
		max = o->compute > max ? o->compute : max;
	}
	for (size_t j = 0; j < pp->p; j++)
		out[j].imbalance = sum > 0 ? max / (sum / (double)pp->p) : NAN;
	return 1;
}

/* 1.4826 x the median absolute deviation estimates a normal spread's sigma. */
#define PP_MAD_SIGMA 1.4826

enum { S_SPAN, S_COMPUTE, S_BUBBLE, S_FORMULA, S_EXCESS, S_IMBALANCE, S_P2P, S_BYTES, NSAMPLES };

/* The median of a stage's samples of one kind, NAN where it has none. */
static double med_of(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[k++] = v[i];
	return k ? stats_median_double(v, k) : NAN;
}

static void set_real_or_null(struct table *t, size_t row, int col, double x)
{
	if (!isnan(x))
		table_set_real(t, row, (size_t)col, x);
}

static void set_ns_or_null(struct table *t, size_t row, int col, double x)
{
	if (!isnan(x))
		table_set_ns(t, row, (size_t)col, llround(x));
}

/*
 * bubble_share - formula_bubble_share of one step, ((span - compute)(m +
 * p - 1) - (p - 1) span) / (span (m + p - 1)): its numerator in integers,
 * so that a bubble equal to the formula's gives exactly 0; NAN without m.
 */
static double excess(const struct pp_step *o, int64_t p, int64_t m)
{
	int64_t num, a, b, den;
	if (m <= 0 || o->span_ns <= 0)
		return NAN;
	if (__builtin_mul_overflow(o->span_ns - o->compute_ns, m + p - 1, &a) ||
	    __builtin_mul_overflow(p - 1, o->span_ns, &b) || __builtin_sub_overflow(a, b, &num) ||
	    __builtin_mul_overflow(o->span_ns, m + p - 1, &den))
		return o->bubble - (double)(p - 1) / (double)(m + p - 1);
	return (double)num / (double)den;
}

/*
 * The rows of one pipeline of run: per stage the medians over the steps
 * on every stage with pipeline kernels. Returns the steps used.
 */
static size_t pipe_rows(const struct pp_pipe *pp, const char *run, int pipe, struct table *t, struct chart *c,
			int many)
{
	const struct pp_rank *s0 = &pp->v[pp->order[0]];
	size_t p = pp->p, nst = 0, n1f1b = 0, ngpipe = 0;
	struct pp_step *cur = xcalloc(p, sizeof(*cur));
	struct ivset *sets = xcalloc(p, sizeof(*sets));
	for (size_t j = 0; j < p; j++)
		ivset_init(&sets[j]);
	double *smp = xmalloc((s0->nsteps ? s0->nsteps : 1) * p * NSAMPLES * sizeof(*smp));
	int64_t *ms = xmalloc((s0->nsteps ? s0->nsteps : 1) * sizeof(*ms));
	size_t nms = 0;
#define SMP(j, kind, i) smp[((j) * NSAMPLES + (kind)) * s0->nsteps + (i)]
	int man_m = pp->mr && pp->mr->microbatches > 0, man_s = pp->mr && pp->mr->schedule > 0;
	for (size_t s = 0; s < s0->nsteps; s++) {
		if (!one_step(pp, s0->steps[s].key, cur, sets))
			continue;
		int64_t m = man_m ? pp->mr->microbatches : cur[0].m > 0 ? cur[0].m : -1;
		if (!man_m && m > 0)
			ms[nms++] = m;
		if (m > 0 && cur[0].k >= 0 && cur[0].k < m)
			n1f1b++;
		else if (m > 0 && cur[0].k >= 0)
			ngpipe++;
		double formula = m > 0 ? (double)(p - 1) / (double)(m + (int64_t)p - 1) : NAN;
		for (size_t j = 0; j < p; j++) {
			SMP(j, S_SPAN, nst) = cur[j].span;
			SMP(j, S_COMPUTE, nst) = cur[j].compute;
			SMP(j, S_BUBBLE, nst) = cur[j].bubble;
			SMP(j, S_FORMULA, nst) = formula;
			SMP(j, S_EXCESS, nst) = excess(&cur[j], (int64_t)p, m);
			SMP(j, S_IMBALANCE, nst) = cur[j].imbalance;
			SMP(j, S_P2P, nst) = cur[j].p2p;
			SMP(j, S_BYTES, nst) = cur[j].bytes;
		}
		nst++;
	}
	const char *schedule = man_s ? (pp->mr->schedule == 1 ? "GPipe" : "1F1B")
			       : n1f1b + ngpipe ? (n1f1b > ngpipe ? "1F1B" : "GPipe") : NULL;
	int64_t m = man_m ? pp->mr->microbatches : -1;
	if (!man_m && nms) {
		qsort(ms, nms, sizeof(*ms), stats_cmp_i64);
		m = ms[(nms - 1) / 2]; /* the lower median */
	}
	for (size_t j = 0; nst && j < p; j++) {
		const struct pp_rank *r = &pp->v[pp->order[j]];
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, run);
		table_set_int(t, row, 1, r->key->rank);
		table_set_int(t, row, 2, pipe);
		table_set_int(t, row, 3, (int64_t)j);
		table_set_int(t, row, 4, (int64_t)p);
		if (schedule) {
			table_set_text(t, row, 5, schedule);
			table_set_text(t, row, 6, man_s ? "manifest" : "inferred");
		}
		if (m > 0) {
			table_set_int(t, row, 7, m);
			table_set_text(t, row, 8, man_m ? "manifest" : "inferred");
		}
		table_set_int(t, row, 9, (int64_t)nst);
		double med[NSAMPLES];
		for (int k = 0; k < NSAMPLES; k++)
			med[k] = med_of(&SMP(j, k, 0), nst);
		/* the robust spread of the per-step bubble shares (med_of compacted and sorted them) */
		double *dev = xmalloc(nst * sizeof(*dev)), sigma = NAN;
		size_t nd = 0;
		for (size_t i = 0; i < nst; i++)
			if (!isnan(SMP(j, S_BUBBLE, i)))
				dev[nd++] = fabs(SMP(j, S_BUBBLE, i) - med[S_BUBBLE]);
		if (nd)
			sigma = PP_MAD_SIGMA * stats_median_double(dev, nd);
		free(dev);
		set_ns_or_null(t, row, PS_SPAN_US, med[S_SPAN]);
		set_ns_or_null(t, row, PS_COMPUTE_US, med[S_COMPUTE]);
		set_real_or_null(t, row, PS_BUBBLE_SHARE, med[S_BUBBLE]);
		set_real_or_null(t, row, PS_FORMULA_BUBBLE_SHARE, med[S_FORMULA]);
		set_real_or_null(t, row, PS_EXCESS_SHARE, med[S_EXCESS]);
		set_real_or_null(t, row, PS_BUBBLE_SIGMA, sigma);
		set_real_or_null(t, row, PS_IMBALANCE, med[S_IMBALANCE]);
		set_ns_or_null(t, row, PS_P2P_US, med[S_P2P]);
		if (!isnan(med[S_BYTES]))
			table_set_int(t, row, PS_P2P_BYTES, llround(med[S_BYTES]));
		struct buf lab;
		buf_init(&lab);
		if (many)
			buf_printf(&lab, "pipeline %d ", pipe);
		buf_printf(&lab, "stage %zu (rank %d)", j, r->key->rank);
		size_t cat = chart_add_category(c, lab.data);
		buf_release(&lab);
		chart_set(c, cat, 0, isnan(med[S_BUBBLE]) ? NAN : 100 * med[S_BUBBLE]);
		chart_set(c, cat, 1, isnan(med[S_FORMULA]) ? NAN : 100 * med[S_FORMULA]);
	}
#undef SMP
	for (size_t j = 0; j < p; j++)
		ivset_release(&sets[j]);
	free(sets);
	free(cur);
	free(smp);
	free(ms);
	return nst;
}

static const struct manifest_run *manifest_run_of(const struct manifest *m, const char *run)
{
	for (size_t i = 0; m && i < m->nruns; i++)
		if (m->runs[i].id && !strcmp(m->runs[i].id, run))
			return &m->runs[i];
	return NULL;
}

/* The pipelines of one run (keys[n]) into t; returns 0 or -1 after diag. */
static int one_run(const struct analysis_ctx *ctx, struct analysis_result *out, const struct rank_key *keys, size_t n,
		   const struct classifier *cls, const int64_t *opt, size_t nopt, const struct rank_rows *cor,
		   struct store_stmt **ops_st, struct table **t)
{
	const struct manifest_run *mr = manifest_run_of(ctx->manifest, keys[0].run);
	const struct table *co = result_table(out, "clock_offsets");
	struct pp_rank *v = xcalloc(n, sizeof(*v));
	size_t *order = xmalloc(n * sizeof(*order)), norder = 0;
	int rc = 0, npipes = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		v[i].key = &keys[i];
		v[i].offset = pp_offset_of(co, cor, keys[i].run, keys[i].rank);
		rc = pp_load_ops(ctx->store, ops_st, &v[i]);
	}
	if (!rc)
		npipes = find_pipes(v, n, order, &norder);
	if (!rc && !npipes && mr && mr->pipeline_parallel >= 2 && n >= 2) {
		/* the manifest says pipeline, the peers say nothing: the ranks in rank order */
		for (size_t i = 0; i < n; i++) {
			order[i] = i;
			v[i].pipe = 0;
		}
		norder = n;
		npipes = 1;
	}
	if (!rc && npipes && !*t)
		*t = table_new("pipeline_stages", "Pipeline stages: each stage's bubble against its schedule's",
			       TABLE_SCHEMA(PIPELINE_STAGES_COLUMNS));
	struct chart *c = NULL;
	if (!rc && npipes) {
		char *name = fs_figure_name("pipeline_bubble_", keys[0].run, NULL), *title = xasprintf("%s: pipeline bubble per stage", keys[0].run);
		c = chart_new(CHART_GROUPED_BAR, name, title, "share of the pipeline's span (%)");
		free(name);
		free(title);
		chart_add_series(c, "measured bubble");
		chart_add_series(c, "the schedule's, (p - 1) / (m + p - 1)");
	}
	for (size_t a = 0; !rc && a < norder;) {
		size_t b = a + 1;
		while (b < norder && v[order[b]].pipe == v[order[a]].pipe)
			b++;
		/* one pipeline's ranks in memory at a time */
		for (size_t i = a; i < b && !rc; i++)
			rc = pp_load_rank(ctx->store, cls, opt, nopt, &v[order[i]]);
		if (!rc)
			orient(v, &order[a], b - a);
		struct pp_pipe pp = {mr, b - a, &order[a], v};
		if (!rc && !pipe_rows(&pp, keys[0].run, v[order[a]].pipe, *t, c, npipes > 1))
			result_add_note(out,
					"pipeline_stages: run %s, pipeline %d (stage 0 rank %d): no ProfilerStep in which "
					"every stage ran compute kernels",
					keys[0].run, v[order[a]].pipe, v[order[a]].key->rank);
		for (size_t i = a; i < b; i++)
			pp_rank_unload(&v[order[i]]);
		a = b;
	}
	if (c && !chart_is_empty(c)) {
		/* unequal stages: the figure says the split, not the schedule, makes the bubble (pipeline_balance.c) */
		char *bal = NULL, *note = NULL;
		if (pipeline_balance_words(ctx->store, ctx->experiment, keys[0].run, *t, mr ? mr->model.hidden : 0,
					   mr ? mr->model.ffn : 0, &bal, &note) < 0)
			rc = -1;
		chart_set_note(c, note);
		char *cap = xasprintf("Run %s: each pipeline stage's bubble, the share of the pipeline's span in which "
				      "its GPU computes nothing, beside its schedule's, the median over the profiled "
				      "steps (Methods: pipeline_stages.csv).%s", keys[0].run, bal ? bal : "");
		result_add_figure(out, c, cap);
		free(cap);
		free(bal);
		free(note);
	} else if (c) {
		chart_free(c);
	}
	for (size_t i = 0; i < n; i++)
		pp_rank_release(&v[i]);
	free(v);
	free(order);
	return rc;
}

static int analysis_pipeline_stages(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys, nopt = 0;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	struct store_stmt *st;
	int64_t *opt = NULL;
	if (store_prepare(ctx->store, "pipeline_stages: optimizer step names",
			  "SELECT id FROM names WHERE substr(name, 1, 15) = 'Optimizer.step#' ORDER BY id", &st) < 0 ||
	    !(opt = rank_column_ids(st, &nopt))) {
		rank_keys_free(keys, nkeys);
		return -1;
	}
	struct classifier *cls = classifier_preset("default");
	struct table *t = NULL;
	/* clock_offsets' rows by run and rank, and the ops query, made once for every rank of every run */
	struct rank_rows cor;
	rank_rows_init(&cor, result_table(out, "clock_offsets"), CO_RUN, CO_RANK);
	struct store_stmt *ops_st = NULL;
	int rc = 0;
	for (size_t k = 0; k < nkeys && !rc;) {
		size_t e = k + 1;
		while (e < nkeys && !strcmp(keys[e].run, keys[k].run))
			e++;
		if (e - k >= 2)
			rc = one_run(ctx, out, &keys[k], e - k, cls, opt, nopt, &cor, &ops_st, &t);
		k = e;
	}
	store_finalize(ops_st);
	rank_rows_release(&cor);
	classifier_free(cls);
	free(opt);
	rank_keys_free(keys, nkeys);
	if (rc || !t || !t->nrows) {
		table_free(t);
		return rc;
	}
	result_add_table(out, t);
	result_add_method(
		out, "pipeline_stages.csv",
		"Per rank of a pipeline-parallel run, the bubble of its stage against its schedule's. A run is one when "
		"the manifest gives it pipeline_parallel of 2 or more, or when its ranks' send and recv peers "
		"(collectives.peer: Dst Rank of a send, Src Rank of a recv) form chains: two ranks are joined when each "
		"sends to the other, and each connected component that is a path is one pipeline (pipeline, numbered "
		"from the lowest rank's); stage 0 is the end whose first send or recv in its first step is a send, "
		"the others follow along the path (stages: their count p). Where the manifest makes a run a pipeline "
		"and its peers form no path, its ranks in rank order are the stages. Per ProfilerStep#N present on "
		"every stage: a stage's pipeline kernels are its compute kernels (every kernel the default "
		"classification does not put in communication; copies and memsets are not kernels) launched in the "
		"step (host start of the launch inside the ProfilerStep range) before its first Optimizer.step# "
		"annotation in the step (none: the step's end), which leaves out the optimizer's kernels; span_us: from "
		"the earliest start to the latest end of every stage's pipeline kernels, on the aligned clock (own "
		"time - clock_offsets.csv offset_us where its residual_us is at most 100 us, crossrank's bound of "
		"trust, else 0: ranks of one host share a clock, and a run whose only cross-rank operations are "
		"sends and recvs has no offsets, since a send may end before its recv starts); compute_us: the union of the stage's pipeline "
		"kernels within the span; bubble_share = 1 - compute_us / span_us; formula_bubble_share = (p - 1) / "
		"(m + p - 1), the bubble of GPipe and of 1F1B with equal stages and free transfers; excess_share = "
		"bubble_share - formula_bubble_share; imbalance = the largest compute_us of the pipeline's stages over "
		"their mean (the same on each row of a pipeline); p2p_us: the time of the stage's send and recv "
		"kernels issued in the step (waiting and transfer); p2p_bytes: what its sends carry (In msg nelems x "
		"the dtype's size). A coalesced kernel that both sends and receives (collectives sendrecv: Schedule1F1B "
		"fuses a forward's send with the next backward's recv) is one op that is a send and a recv at once: its "
		"time counts once, its bytes are what it sends. microbatches (m): the distinct Seq values of stage 0's "
		"sends to stage 1 in the step "
		"(their count where one has no Seq), the lower median over the steps; the manifest's microbatches "
		"overrides it (microbatches_source manifest, else inferred). schedule: k = stage 0's sends to stage 1 "
		"issued (host start) before its first recv from stage 1 in the step; k < m is 1F1B, else GPipe, the "
		"schedule of most steps; with m <= p the two schedules are the same one (every forward is sent before "
		"the first gradient returns); the manifest's schedule overrides it (schedule_source). Each number is "
		"the median over the steps (steps: their count), each column separately; bubble_sigma = 1.4826 x the "
		"median absolute deviation of the per-step bubble shares (a normal spread's sigma). A finding "
		"(pipeline-bubble) names the stage of each pipeline whose excess_share exceeds max(0.02, 3 x "
		"bubble_sigma) with the largest excess_share x span_us, where the pipeline has at least 3 steps (with "
		"fewer the spread is unknown and nothing is stated); its likely cause is the slowest stage where "
		"imbalance exceeds 1.10 (the finding then leads with that stage and is its rank's, where the fix is: "
		"move layers off it), else the send and recv time. Its price (saving_us_per_step): with a slowest "
		"stage to blame, the replay's (replay_fixes.csv pipeline_balance: the run's ranks replayed together "
		"with every stage's kernels outside communication at their durations x its compute after the best "
		"move of whole layers over its own, which the finding names; where a stage's layers are not found, "
		"x the stages' mean compute over its own), stated only where the replay states it (above its noise; else the finding says that "
		"balancing would not shorten the step, and what holds it is elsewhere); where the ranks were not "
		"replayed together, or their unchanged replay together is off the measured steps by more than 3 %, "
		"the schedule's formula, (m - 1) / m x (the slowest stage's compute_us - the mean's): in a GPipe or "
		"1F1B schedule whose stage s takes t_s per micro-batch the span is about sum t_s + (m - 1) max t_s "
		"(the fill, then the slowest stage sets the pace), balanced (p + m - 1) x the mean; no more than the "
		"bubble beyond the schedule's, excess_share x span_us, which is the price where no stage is "
		"blamed. The finding gives the formula's figure beside the replay's: the formula counts the stages' "
		"compute as if it alone set the step.");
	return 0;
}

const struct analysis_def analysis_def_pipeline_stages = {
	.name = "pipeline_stages",
	.run = analysis_pipeline_stages,
	.needs = ANALYSIS_TABLES("clock_offsets"),
	.makes = ANALYSIS_TABLES("pipeline_stages"),
	.figures = ANALYSIS_NAMES("pipeline_bubble_*"),
};
