/*
 * collective_busbw.c: bus bandwidth and its efficiency per collective type and
 * run (collective_busbw.csv, figure collective_busbw): paper 002's
 * communication per ZeRO stage (ZeRO-1's AllReduce and AllGather, sent by
 * PyTorch's ZeroRedundancyOptimizer as Broadcasts; ZeRO-2's ReduceScatter
 * and AllGather; ZeRO-3's AllGathers and ReduceScatter) with their
 * efficiency as the GPUs grow.
 *
 * Over the collectives matched across the ranks of a run
 * (collective_waits.csv, matched = 1), per run and collective type:
 *   kernels        the matched kernels, all ranks;
 *   bytes          their summed message bytes S;
 *   transfer_us    their summed transfer, from the last rank's arrival to
 *                  the kernel's end (no waiting in it);
 *   wait_us        their summed wait for the last rank;
 *   busbw_gb_per_s sum of S x f / transfer (bytes per ns = GB/s), f the
 *                  type's bus factor over n GPUs (nccl-tests: 2(n-1)/n
 *                  AllReduce, (n-1)/n AllGather, ReduceScatter, 1
 *                  Broadcast and Reduce): what the links did;
 *   kernel_busbw_gb_per_s the same over the kernels' whole time (transfer
 *                  + wait): what the training got;
 *   baseline       the run of the same strategy with the fewest GPUs that
 *                  sends this type (itself when it is that run);
 *   efficiency     busbw / the baseline's busbw: 1 when the links keep
 *                  their bandwidth as the GPUs grow.
 * A run's strategy is runs.csv's: the manifest's, else the one its traces'
 * annotations or its training logs say (basic_strategy.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/ranks/collectives.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/time/time_tables.h"

struct ctype {
	char run[256], type[32];
	const char *strategy;
	const struct manifest_run *mr; /* its manifest run, for the strategy's name in the figure */
	int64_t gpus, kernels;
	double bytes, sent, transfer_ns, wait_ns;
	size_t base; /* index of the baseline entry */
};

/* Cell (r, c) of t, c its contract's enum. */
static const struct cell *cell_of(const struct table *t, size_t r, int c)
{
	return table_cell(t, r, (size_t)c);
}

static const char *model_of(const struct ctype *x)
{
	return x->mr && x->mr->model.name ? x->mr->model.name : "";
}

/* Whether a and b are of one strategy (both without one counts). */
static int same_strategy(const struct ctype *a, const struct ctype *b)
{
	return (!a->strategy && !b->strategy) || (a->strategy && b->strategy && !strcmp(a->strategy, b->strategy));
}

/*
 * Whether another run of v[i]'s strategy, GPU count and model sends v[i]'s
 * type, so that one bar would hide the other and only the runs' labels tell
 * them apart.
 */
static int shares_cell(const struct ctype *v, size_t n, size_t i)
{
	for (size_t j = 0; j < n; j++)
		if (j != i && v[j].gpus == v[i].gpus && !strcmp(v[j].type, v[i].type) &&
		    !strcmp(model_of(&v[j]), model_of(&v[i])) && same_strategy(&v[j], &v[i]))
			return 1;
	return 0;
}

static int analysis_collective_busbw(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct table *w = result_table(out, "collective_waits"), *rt = result_table(out, "runs");
	const struct manifest *man = ctx->manifest;
	int crun = rt ? RUNS_RUN : -1, cst = rt ? RUNS_STRATEGY : -1;
	if (!w || !man)
		return 0;
	struct ctype *v = NULL;
	size_t n = 0, cap = 0;
	struct buf type;
	buf_init(&type);
	for (size_t r = 0; r < w->nrows; r++) {
		const struct cell *run = cell_of(w, r, CW_RUN), *name = cell_of(w, r, CW_NAME),
				  *matched = cell_of(w, r, CW_MATCHED), *bytes = cell_of(w, r, CW_BYTES),
				  *ranks = cell_of(w, r, CW_RANKS), *tr = cell_of(w, r, CW_TRANSFER_US),
				  *wt = cell_of(w, r, CW_WAIT_US);
		if (!run || !name || !matched || !bytes || !ranks || !tr || !wt || run->null || name->null ||
		    matched->null || matched->v.i != 1 || bytes->null || bytes->v.i <= 0 || ranks->null || tr->null ||
		    tr->v.i <= 0)
			continue;
		buf_reset(&type);
		collective_canonical(name->v.text, &type);
		size_t i;
		for (i = 0; i < n && (strcmp(v[i].run, run->v.text) || strcmp(v[i].type, type.data)); i++)
			;
		if (i == n) {
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			memset(&v[n], 0, sizeof(*v));
			snprintf(v[n].run, sizeof(v[n].run), "%s", run->v.text);
			snprintf(v[n].type, sizeof(v[n].type), "%s", type.data);
			v[n].gpus = ranks->v.i;
			for (size_t k = 0; k < man->nruns; k++)
				if (!strcmp(man->runs[k].id, run->v.text)) {
					v[n].strategy = man->runs[k].strategy;
					v[n].mr = &man->runs[k];
					if (man->runs[k].gpus > 0)
						v[n].gpus = man->runs[k].gpus;
				}
			for (size_t k = 0; rt && k < rt->nrows; k++)
				if (table_text(rt, k, cst) && !strcmp(table_text(rt, k, crun), run->v.text))
					v[n].strategy = table_text(rt, k, cst);
			n++;
		}
		struct ctype *c = &v[i];
		c->kernels++;
		c->bytes += (double)bytes->v.i;
		c->sent += (double)bytes->v.i * collective_bus_factor(type.data, ranks->v.i);
		c->transfer_ns += (double)tr->v.i;
		c->wait_ns += wt->null ? 0 : (double)wt->v.i;
	}
	buf_release(&type);
	if (!n) {
		free(v);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		v[i].base = i;
		for (size_t j = 0; j < n; j++)
			if (!strcmp(v[j].type, v[i].type) && v[j].gpus < v[v[i].base].gpus && same_strategy(&v[j], &v[i]))
				v[i].base = j;
	}
	struct table *t = table_new("collective_busbw", "Bus bandwidth per collective type and run, and its efficiency",
				    TABLE_SCHEMA(COLLECTIVE_BUSBW_COLUMNS));
	struct chart *c = chart_new(CHART_GROUPED_BAR, "collective_busbw",
				    "Bus bandwidth per collective type, strategy and GPU count (wait-free transfer)",
				    "bus bandwidth (GB/s)");
	chart_set_x_axis(c, "strategy and collective", CHART_SCALE_LINEAR);
	size_t models = 0; /* distinct model names among the runs */
	for (size_t i = 0; i < n; i++) {
		size_t j;
		for (j = 0; j < i && strcmp(model_of(&v[j]), model_of(&v[i])); j++)
			;
		models += j == i;
	}
	struct buf label;
	buf_init(&label);
	int64_t gs[8];
	size_t ngs = 0;
	for (size_t i = 0; i < n; i++) {
		size_t k;
		for (k = 0; k < ngs && gs[k] != v[i].gpus; k++)
			;
		if (k == ngs && ngs < 8)
			gs[ngs++] = v[i].gpus;
	}
	for (size_t a = 0; a < ngs; a++)
		for (size_t b = a + 1; b < ngs; b++)
			if (gs[b] < gs[a]) {
				int64_t x = gs[a];
				gs[a] = gs[b], gs[b] = x;
			}
	for (size_t k = 0; k < ngs; k++) {
		buf_reset(&label);
		buf_printf(&label, "%lld GPU%s", (long long)gs[k], gs[k] == 1 ? "" : "s");
		chart_add_series(c, label.data);
	}
	for (size_t i = 0; i < n; i++) {
		struct ctype *x = &v[i];
		double busbw = x->sent / x->transfer_ns, kbusbw = x->sent / (x->transfer_ns + x->wait_ns);
		double bb = v[x->base].sent / v[x->base].transfer_ns;
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, x->run);
		table_set_int(t, row, 1, x->gpus);
		if (x->strategy)
			table_set_text(t, row, 2, x->strategy);
		table_set_text(t, row, 3, x->type);
		table_set_int(t, row, 4, x->kernels);
		table_set_int(t, row, 5, llround(x->bytes));
		table_set_ns(t, row, 6, llround(x->transfer_ns));
		table_set_ns(t, row, 7, llround(x->wait_ns));
		table_set_real(t, row, 8, busbw);
		table_set_real(t, row, 9, kbusbw);
		table_set_text(t, row, 10, v[x->base].run);
		table_set_real(t, row, 11, busbw / bb);
		/*
		 * One category per strategy and type (and model, where the runs are
		 * of several), in order of first appearance; a bar is one run's, so
		 * where two runs of one model, strategy and GPU count send the type
		 * (settings, transports), each is a category named by its label.
		 */
		buf_reset(&label);
		char shown[32]; /* "ZeRO-3", "DDP": the naming of every figure (layout_strategy_shown) */
		layout_strategy_shown(x->mr, x->strategy, shown, sizeof(shown));
		if (x->strategy)
			table_set_text(t, row, 12, shown);
		if (shares_cell(v, n, i))
			buf_printf(&label, "%s: %s", x->mr && x->mr->label ? x->mr->label : x->run, x->type);
		else if (models > 1)
			buf_printf(&label, "%s %s %s", model_of(x), shown, x->type);
		else
			buf_printf(&label, "%s %s", shown, x->type);
		size_t cat;
		for (cat = 0; cat < c->ncat && strcmp(c->categories[cat], label.data); cat++)
			;
		if (cat == c->ncat)
			cat = chart_add_category(c, label.data);
		size_t s;
		for (s = 0; s < ngs && gs[s] != x->gpus; s++)
			;
		if (s < ngs)
			chart_set(c, cat, s, busbw);
	}
	buf_release(&label);
	free(v);
	result_add_table(out, t);
	result_add_figure(out, c,
			  "Bus bandwidth of each collective type per strategy and GPU count (and model, where there "
			  "are several; per run, named by its label, where runs of one model, strategy and GPU count "
			  "send the same type), from the wait-free transfer "
			  "of the collectives matched across ranks (from the last rank's arrival to the kernel's end); "
			  "collective_busbw.csv gives it with the kernels' whole time (wait included) and the "
			  "efficiency against the fewest GPUs of the same strategy.");
	result_add_method(
		out, "collective_busbw.csv",
		"Per run and collective type, over the collectives matched across the run's ranks "
		"(collective_waits.csv, matched = 1): kernels (all ranks), bytes (their message bytes S), transfer_us "
		"(from the last rank's arrival to each kernel's end, summed), wait_us (summed wait for the last "
		"rank); busbw = sum of S x f / transfer with nccl-tests' bus factor f over n GPUs (2(n-1)/n "
		"AllReduce, (n-1)/n AllGather and ReduceScatter, 1 Broadcast and Reduce): what the links did; "
		"kernel_busbw the same over transfer + wait: what the training got; baseline: the run of the same "
		"strategy with the fewest GPUs sending that type; efficiency = busbw / the baseline's busbw.");
	return 0;
}

const struct analysis_def analysis_def_collective_busbw = {
	.name = "collective_busbw",
	.run = analysis_collective_busbw,
	.needs = ANALYSIS_TABLES("runs", "collective_waits"),
	.makes = ANALYSIS_TABLES("collective_busbw"),
	.figures = ANALYSIS_NAMES("collective_busbw"),
};
