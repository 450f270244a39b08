/*
 * phases.c: time per named phase of a training step (phases.csv).
 *
 * A phase is a set of host annotation names (user_annotation ranges,
 * PyTorch's record_function): by default get_train_batch, forward,
 * backward and optimizer_step under the names plain PyTorch loops, PyTorch
 * Lightning (1.x action names and 2.x "[LightningModule]Model.hook"
 * names), DDP, FSDP and torch.optim's profiling hook give them; the
 * manifest's `phases` replaces a phase's names or adds phases. In a name,
 * '*' matches any run of characters, every other character only itself.
 *
 * Host time. Per thread, every instant inside matched ranges belongs to
 * the innermost one (the latest started of those enclosing it): Lightning's
 * optimizer_step runs the closure with training_step and backward inside
 * it, and those instants are forward and backward time, not optimizer
 * time. cpu = the measure of the union, over threads, of the instants
 * that belong to the phase; calls = its matched ranges not enclosed by
 * another range of the same phase on the same thread.
 *
 * Device time. gpu = the measure of the union of the GPU activities whose
 * launching runtime call (same correlation id) starts at an instant that
 * belongs to the phase on any thread (backward's kernels are launched from
 * the autograd thread while the annotation is on the main thread). For a
 * rank without runtime calls, gpu = the union of its gpu_user_annotation
 * ranges with the phase's names instead (Kineto's GPU-side spans of the
 * same annotations, gaps included); with neither, gpu is empty.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/time/phases.h"
#include "analyze/lib/rankdata.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"


static const char *const d_batch[] = {"get_train_batch", "[_TrainingEpochLoop].train_dataloader_next",
				      "[TrainingEpochLoop].train_dataloader_next", "enumerate(DataLoader)*"};
static const char *const d_forward[] = {"forward", "model_forward", "DistributedDataParallel.forward",
					"FullyShardedDataParallel.forward", "[LightningModule]*.training_step",
					"[Strategy]*.training_step", "training_step", "Forward *"};
static const char *const d_backward[] = {"backward", "model_backward", "[LightningModule]*.backward",
					 "[Strategy]*.backward", "Backward *"};
static const char *const d_optim[] = {"optimizer_step", "Optimizer.step#*", "[LightningModule]*.optimizer_step",
				      "[Strategy]*.optimizer_step"};
#define N(a) (sizeof(a) / sizeof(a[0]))
static const struct phase default_phases[] = {
	{"get_train_batch", N(d_batch), d_batch},
	{"forward", N(d_forward), d_forward},
	{"backward", N(d_backward), d_backward},
	{"optimizer_step", N(d_optim), d_optim},
};

int wild_match(const char *pat, const char *s)
{
	const char *star = NULL, *retry = NULL;
	while (*s) {
		if (*pat == '*') {
			star = pat++;
			retry = s;
		} else if (*pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++retry;
		} else {
			return 0;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

struct phase *phase_list(const struct manifest *m, size_t *n)
{
	size_t cap = N(default_phases) + (m ? m->nphases : 0);
	struct phase *p = xcalloc(cap ? cap : 1, sizeof(*p));
	*n = 0;
	for (size_t i = 0; i < N(default_phases); i++)
		p[(*n)++] = default_phases[i];
	for (size_t i = 0; m && i < m->nphases; i++) {
		const struct manifest_phase *mp = &m->phases[i];
		size_t j = 0;
		while (j < *n && strcmp(p[j].name, mp->name))
			j++;
		if (j == *n)
			(*n)++;
		p[j].name = mp->name;
		p[j].nnames = mp->nnames;
		p[j].names = (const char *const *)mp->names;
	}
	/* A phase the manifest gives no names is dropped. */
	size_t k = 0;
	for (size_t i = 0; i < *n; i++)
		if (p[i].nnames)
			p[k++] = p[i];
	*n = k;
	return p;
}

/*
 * The slot of id in nm's hash index. The names were searched linearly:
 * 200,000 distinct ProfilerStep#N names made it quadratic (11 s).
 */
static size_t *name_slot(const struct phase_names *nm, int64_t id)
{
	size_t j = (size_t)((uint64_t)id * 0x9E3779B97F4A7C15ull >> 20) & (nm->nslots - 1);
	while (nm->slot[j] && nm->ids[nm->slot[j] - 1] != id)
		j = (j + 1) & (nm->nslots - 1);
	return &nm->slot[j];
}

int phase_of_name(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph, int64_t id)
{
	if (2 * (nm->n + 1) > nm->nslots) {
		nm->nslots = nm->nslots ? 2 * nm->nslots : 64;
		free(nm->slot);
		nm->slot = xcalloc(nm->nslots, sizeof(*nm->slot));
		for (size_t i = 0; i < nm->n; i++)
			*name_slot(nm, nm->ids[i]) = i + 1;
	}
	size_t *slot = name_slot(nm, id);
	if (*slot)
		return nm->phase[*slot - 1];
	int r = -1;
	char *name = rank_name(s, id);
	for (size_t p = 0; name && p < nph && r < 0; p++)
		for (size_t j = 0; j < ph[p].nnames && r < 0; j++)
			if (wild_match(ph[p].names[j], name))
				r = (int)p;
	free(name);
	size_t cap = nm->cap;
	nm->ids = xgrow(nm->ids, &cap, nm->n + 1, sizeof(*nm->ids));
	nm->phase = xgrow(nm->phase, &nm->cap, nm->n + 1, sizeof(*nm->phase));
	nm->ids[nm->n] = id;
	nm->phase[nm->n++] = r;
	*slot = nm->n;
	return r;
}

void phase_names_release(struct phase_names *nm)
{
	free(nm->ids);
	free(nm->phase);
	free(nm->slot);
	memset(nm, 0, sizeof(*nm));
}

struct mrange {
	int64_t start, end, tid;
	int phase;
};

static int cmp_mrange(const void *pa, const void *pb)
{
	const struct mrange *a = pa, *b = pb;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

/*
 * Attributes host time of the matched ranges r[0..n) (sorted by
 * cmp_mrange) to phases, innermost first: adds the pieces to host[phase]
 * and counts the ranges not nested in one of the same phase.
 */
static void attribute(const struct mrange *r, size_t n, struct ivset *host, int64_t *calls)
{
	const struct mrange **stack = xmalloc((n ? n : 1) * sizeof(*stack));
	size_t depth = 0;
	int64_t cursor = 0;
	for (size_t i = 0; i <= n; i++) {
		int new_thread = i == n || (i > 0 && r[i].tid != r[i - 1].tid);
		/* Close what ends before this range starts (everything at a thread's end). */
		while (depth && (new_thread || stack[depth - 1]->end <= r[i].start)) {
			const struct mrange *top = stack[--depth];
			if (top->end > cursor) {
				ivset_add(&host[top->phase], cursor, top->end);
				cursor = top->end;
			}
		}
		if (i == n)
			break;
		if (depth && r[i].start > cursor)
			ivset_add(&host[stack[depth - 1]->phase], cursor, r[i].start);
		if (!depth || r[i].start > cursor)
			cursor = r[i].start;
		int nested = 0;
		for (size_t j = 0; j < depth && !nested; j++)
			nested = stack[j]->phase == r[i].phase;
		if (!nested)
			calls[r[i].phase]++;
		stack[depth++] = &r[i];
	}
	free(stack);
}

void phase_host_time(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph,
		     const struct rank_data *d, struct ivset *host, int64_t *calls)
{
	for (size_t p = 0; p < nph; p++) {
		ivset_clear(&host[p]);
		calls[p] = 0;
	}
	struct mrange *mr = NULL;
	size_t nmr = 0, cap_mr = 0;
	for (size_t i = 0; i < d->nannots; i++) {
		int p = phase_of_name(s, nm, ph, nph, d->annots[i].key);
		if (p < 0)
			continue;
		mr = xgrow(mr, &cap_mr, nmr + 1, sizeof(*mr));
		mr[nmr++] = (struct mrange){d->annots[i].start, d->annots[i].end, d->annots[i].tid, p};
	}
	if (nmr > 1)
		qsort(mr, nmr, sizeof(*mr), cmp_mrange);
	attribute(mr, nmr, host, calls);
	for (size_t p = 0; p < nph; p++)
		ivset_normalize(&host[p]);
	free(mr);
}

int phase_at(const struct ivset *host, size_t nph, int64_t t)
{
	for (size_t p = 0; p < nph; p++) {
		const struct ivset *s = &host[p];
		size_t l = ivset_first_ending_after(s, t);
		if (l < s->n && s->v[l].start <= t)
			return (int)p;
	}
	return -1;
}

/* The index of the phase named name in ph, or -1. */
static int phase_index(const struct phase *ph, size_t nph, const char *name)
{
	for (size_t p = 0; p < nph; p++)
		if (!strcmp(ph[p].name, name))
			return (int)p;
	return -1;
}

/* What phases_rank writes to, from the analysis. */
struct phases_walk {
	const struct analysis_ctx *ctx;
	struct analysis_result *out;
	struct phase_names *nm;
	const struct phase *ph;
	size_t nph;
	struct table *t;
	struct chart *ch, *cg;
	struct ivset *host, *gpu;
	int64_t *calls;
	size_t run_ranks;            /* the ranks of the run so far */
	int any;                     /* a phase was found on some rank */
	const struct rank_key *prev; /* the rank before, or NULL */
	int fwd, bwd;                /* the indexes of forward and backward; -1: not a phase */
	char *run;                   /* the current run's id (a copy: the keys go when the walk ends) */
	int64_t run_calls, run_fb;   /* the run's calls so far: of any phase; of forward or backward */
	struct buf unnamed;          /* the runs with phases but no forward or backward, ", " apart */
	struct buf unnamed_labels;   /* the same runs by their manifest labels (the bars'), "; " apart */
	size_t nunnamed;
};

/* The manifest's label of run (the figure's name for its bar), else the id. */
static const char *run_label(const struct manifest *m, const char *run)
{
	for (size_t i = 0; m && i < m->nruns; i++)
		if (!strcmp(m->runs[i].id, run))
			return m->runs[i].label && *m->runs[i].label ? m->runs[i].label : run;
	return run;
}

/* At a run's end: a run with calls of some phase but none of forward or backward joins w->unnamed. */
static void run_done(struct phases_walk *w)
{
	if (!w->run || (w->fwd < 0 && w->bwd < 0) || !w->run_calls || w->run_fb)
		return;
	buf_printf(&w->unnamed, "%s%s", w->nunnamed ? ", " : "", w->run);
	buf_printf(&w->unnamed_labels, "%s%s", w->nunnamed ? "; " : "", run_label(w->ctx->manifest, w->run));
	w->nunnamed++;
}

/* for_each_rank's visitor: one rank's rows of phases.csv, and its part of its run's bars. Returns 0. */
static int phases_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct phases_walk *w = arg;
	for (size_t p = 0; p < w->nph; p++)
		ivset_clear(&w->gpu[p]);
	phase_host_time(w->ctx->store, w->nm, w->ph, w->nph, d, w->host, w->calls);
	int gpu_known = 1;
	if (d->nlaunches) {
		struct launch_index *idx = rank_launch_index(d);
		for (size_t i = 0; i < d->nacts; i++) {
			const struct rk_range *l = rank_launch_of(d, idx, d->acts[i].corr);
			int p = l ? phase_at(w->host, w->nph, l->start) : -1;
			if (p >= 0)
				ivset_add(&w->gpu[p], d->acts[i].start, d->acts[i].end);
		}
		rank_launch_index_release(d, idx);
	} else if (d->ngpu_annots) {
		for (size_t i = 0; i < d->ngpu_annots; i++) {
			int p = phase_of_name(w->ctx->store, w->nm, w->ph, w->nph, d->gpu_annots[i].key);
			if (p >= 0)
				ivset_add(&w->gpu[p], d->gpu_annots[i].start, d->gpu_annots[i].end);
		}
		result_add_note(w->out, "phases.csv: run %s rank %d records no CUDA runtime calls, so its GPU time "
				"per phase is the union of its gpu_user_annotation ranges", k->run, k->rank);
	} else {
		gpu_known = 0;
		result_add_note(w->out, "phases.csv: run %s rank %d records neither CUDA runtime calls nor GPU-side "
				"annotations, so its GPU time per phase is empty", k->run, k->rank);
	}
	int64_t found = 0;
	for (size_t p = 0; p < w->nph; p++) {
		ivset_normalize(&w->gpu[p]);
		found += w->calls[p];
	}
	if (!found) {
		char *fmt = rank_formats(w->ctx->store, k);
		result_add_note(w->out, "phases.csv: run %s rank %d (%s) has no host annotation (record_function or "
				"NVTX range) named like a phase, so its phase times are 0", k->run, k->rank, fmt);
		free(fmt);
	}
	w->any |= found > 0;
	/* Chart: per run, the mean over its ranks of the time per step. */
	if (!w->prev || strcmp(k->run, w->prev->run)) {
		run_done(w);
		free(w->run);
		w->run = xstrdup(k->run);
		chart_add_category(w->ch, k->run);
		chart_add_category(w->cg, k->run);
		w->run_ranks = 0;
		w->run_calls = w->run_fb = 0;
	}
	w->run_calls += found;
	w->run_fb += (w->fwd >= 0 ? w->calls[w->fwd] : 0) + (w->bwd >= 0 ? w->calls[w->bwd] : 0);
	w->run_ranks++;
	size_t cat = w->ch->ncat - 1;
	double per = d->nsteps ? (double)d->nsteps : 1.0;
	for (size_t p = 0; p < w->nph; p++) {
		int64_t cpu = ivset_measure(&w->host[p]), g = ivset_measure(&w->gpu[p]);
		size_t row = table_add_row(w->t);
		table_set_text(w->t, row, 0, k->run);
		table_set_int(w->t, row, 1, k->rank);
		table_set_text(w->t, row, 2, w->ph[p].name);
		table_set_int(w->t, row, 3, w->calls[p]);
		table_set_ns(w->t, row, 4, cpu);
		if (gpu_known)
			table_set_ns(w->t, row, 5, g);
		/* Running mean over the run's ranks so far. */
		double r = (double)w->run_ranks;
		chart_update(w->ch, cat, p, chart_get(w->ch, cat, p) * (r - 1) / r + (double)cpu / 1e6 / per / r);
		chart_update(w->cg, cat, p, chart_get(w->cg, cat, p) * (r - 1) / r + (double)g / 1e6 / per / r);
	}
	w->prev = k;
	return 0;
}

static int analysis_phases(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	size_t nph;
	struct phase *ph = phase_list(ctx->manifest, &nph);
	struct phase_names nm = {0};
	struct table *t = table_new("phases", "Time per named phase of a step, per run and rank",
				    TABLE_SCHEMA(PHASES_COLUMNS));
	struct chart *ch = chart_new(CHART_STACKED_BAR, "phases_host", "Host time per phase",
				     "mean host time per step (ms)");
	struct chart *cg = chart_new(CHART_STACKED_BAR, "phases_gpu", "GPU time per phase",
				     "mean GPU time per step (ms)");
	for (size_t p = 0; p < nph; p++) {
		chart_add_series(ch, ph[p].name);
		chart_add_series(cg, ph[p].name);
	}
	struct ivset *host = xcalloc(nph ? nph : 1, sizeof(*host)), *gpu = xcalloc(nph ? nph : 1, sizeof(*gpu));
	int64_t *calls = xcalloc(nph ? nph : 1, sizeof(*calls));
	for (size_t p = 0; p < nph; p++) {
		ivset_init(&host[p]);
		ivset_init(&gpu[p]);
	}
	int ret = -1;
	struct phases_walk w = {ctx, out, &nm, ph, nph, t, ch, cg, host, gpu, calls, 0, 0, NULL,
				phase_index(ph, nph, "forward"), phase_index(ph, nph, "backward"), NULL, 0, 0, {0}, {0}, 0};
	buf_init(&w.unnamed);
	buf_init(&w.unnamed_labels);
	struct buf cap;
	buf_init(&cap);
	if (for_each_rank(ctx->store, ctx->experiment, phases_rank, &w) < 0)
		goto out;
	run_done(&w);
	result_add_table(out, t);
	t = NULL;
	if (w.any) {
		/* What the bars of a run without forward and backward annotations leave out, on the figure too. */
		char *missing = w.nunnamed ? xasprintf("no forward or backward annotation in %s: %s bars show only the "
						       "rest of the step", w.unnamed_labels.data,
						       w.nunnamed == 1 ? "its" : "their")
					   : NULL;
		chart_set_note(ch, missing);
		chart_set_note(cg, missing);
		buf_adds(&cap, "Host time per phase and step, per run (mean over its ranks): the time inside each "
			 "phase's annotation ranges, nested ranges counted for the innermost phase.");
		if (missing)
			buf_printf(&cap, " Run%s %s record%s annotations of other phases but none of forward or backward "
				   "(a pipeline schedule that names neither, as PyTorch 2.11's Schedule1F1B): %s bars "
				   "leave out the forward and backward passes, most of the step.", w.nunnamed == 1 ? "" : "s",
				   w.unnamed.data, w.nunnamed == 1 ? "s" : "", w.nunnamed == 1 ? "its" : "their");
		result_add_figure(out, ch, cap.data);
		ch = NULL;
		buf_reset(&cap);
		buf_adds(&cap, "GPU time per phase and step, per run (mean over its ranks): the union of the GPU "
			 "activities launched while the host was in the phase.");
		if (missing)
			buf_printf(&cap, " Run%s %s: no forward or backward annotation, so %s forward and backward "
				   "kernels are in no phase.", w.nunnamed == 1 ? "" : "s", w.unnamed.data,
				   w.nunnamed == 1 ? "its" : "their");
		result_add_figure(out, cg, cap.data);
		cg = NULL;
		free(missing);
	}
	struct buf m;
	buf_init(&m);
	buf_adds(&m, "Per run, rank and phase, over the whole trace file. A phase is a list of host annotation "
		 "(record_function) names, '*' matching any run of characters:");
	for (size_t p = 0; p < nph; p++) {
		buf_printf(&m, "%s %s = ", p ? ";" : "", ph[p].name);
		for (size_t j = 0; j < ph[p].nnames; j++)
			buf_printf(&m, "%s%s", j ? ", " : "", ph[p].names[j]);
	}
	buf_adds(&m, ". Host time: per thread, each instant inside matched ranges belongs to the innermost "
		 "(latest started) of them, so a phase nested in another (Lightning's training_step and backward run "
		 "inside its optimizer_step) is not counted twice; cpu_us is the measure of the union over threads of "
		 "a phase's instants, calls the number of its ranges not enclosed by another range of the same phase. "
		 "GPU time: gpu_us is the measure of the union of the GPU activities (kernels, memcpys, memsets) whose "
		 "launching CUDA runtime call (same correlation id) starts at an instant of the phase on any thread "
		 "(backward's kernels are launched from the autograd thread); for a rank without runtime calls, the "
		 "union of its gpu_user_annotation ranges of the phase's names. The figures show the mean per "
		 "ProfilerStep over a run's ranks. Forward * and Backward * are torch.distributed.pipelining's "
		 "names for a micro-batch's passes under ScheduleGPipe; a run whose ranks have calls of some phase "
		 "but none of forward or backward is named in the figures' note and caption, whose bars then leave "
		 "those passes out.");
	result_add_method(out, "phases.csv", m.data);
	buf_release(&m);
	ret = 0;
out:
	free(w.run);
	buf_release(&w.unnamed);
	buf_release(&w.unnamed_labels);
	buf_release(&cap);
	for (size_t p = 0; p < nph; p++) {
		ivset_release(&host[p]);
		ivset_release(&gpu[p]);
	}
	free(host);
	free(gpu);
	free(calls);
	phase_names_release(&nm);
	free(ph);
	table_free(t);
	chart_free(ch);
	chart_free(cg);
	return ret;
}

const struct analysis_def analysis_def_phases = {
	.name = "phases",
	.run = analysis_phases,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("phases"),
	.figures = ANALYSIS_NAMES("phases_host", "phases_gpu"),
};
