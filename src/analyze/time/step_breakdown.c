/*
 * step_breakdown.c: the step breakdown (step_breakdown.csv).
 *
 * Per ProfilerStep#N host range [s, e) of a rank, the parts in priority
 * order, each counting only time inside the step that no earlier part
 * claimed, so that the parts sum to the step time:
 *   compute       union of compute kernels (not communication, not memory)
 *   memcpy        union of memcpys and memory-group kernels (copy kernels)
 *   memset        union of memsets
 *   communication union of communication kernels
 *   cuda_runtime  union of CUDA runtime/driver calls on the host
 *   data_loading  union of host ranges named enumerate(DataLoader)...
 *   cpu_other     union of the other host operators (cpu_op)
 *   other         the rest of the step
 * Groups are those of the `default` classification.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/time/time_tables.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

enum { P_COMPUTE, P_MEMCPY, P_MEMSET, P_COMM, P_RUNTIME, P_DATA, P_CPU, P_OTHER, NPARTS };
static const char *const part_names[NPARTS] = {"compute", "memcpy", "memset", "communication",
					       "cuda_runtime", "data_loading", "cpu_other", "other"};

/* Name ids of enumerate(DataLoader)... ranges into *ids (the caller frees them), *n set; 0, or -1 after diag. */
static int dataloader_ids(struct store *s, int64_t **ids, size_t *n)
{
	struct store_stmt *st;
	size_t cap = 0;
	*ids = NULL;
	*n = 0;
	if (store_prepare(s, "step_breakdown: DataLoader names",
			"SELECT id FROM names WHERE name GLOB 'enumerate(DataLoader)*'", &st) < 0)
		return -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		*ids = xgrow(*ids, &cap, *n + 1, sizeof(**ids));
		(*ids)[(*n)++] = store_column_int64(st, 0);
	}
	store_finalize(st);
	return rc;
}

static int is_in(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

/* What step_rank writes to, from the analysis. */
struct step_walk {
	struct analysis_result *out;
	struct table *t;
	struct chart *c;
	struct ivset *parts;
	struct ivset *claimed, *fresh;
	struct buf *label;
	const int64_t *dl;
	size_t ndl;
};

/* for_each_rank's visitor: one rank's rows of step_breakdown.csv and its bar. Returns 0. */
static int step_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct step_walk *w = arg;
	if (!d->nsteps) {
		result_add_note(w->out, "step_breakdown.csv: run %s rank %d has no ProfilerStep ranges",
				k->run, k->rank);
		return 0;
	}
	for (int p = 0; p < NPARTS; p++)
		ivset_clear(&w->parts[p]);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		int p = a->kind == ACT_MEMSET ? P_MEMSET
			: a->kind == ACT_MEMCPY || a->cls == RK_MEMORY ? P_MEMCPY
			: a->cls == RK_COMM ? P_COMM : P_COMPUTE;
		ivset_add(&w->parts[p], a->start, a->end);
	}
	for (size_t i = 0; i < d->nlaunches; i++)
		ivset_add(&w->parts[P_RUNTIME], d->launches[i].start, d->launches[i].end);
	for (size_t i = 0; i < d->nannots; i++)
		if (is_in(w->dl, w->ndl, d->annots[i].key))
			ivset_add(&w->parts[P_DATA], d->annots[i].start, d->annots[i].end);
	for (size_t i = 0; i < d->ncpu_ops; i++)
		ivset_add(&w->parts[is_in(w->dl, w->ndl, d->cpu_ops[i].key) ? P_DATA : P_CPU], d->cpu_ops[i].start,
			  d->cpu_ops[i].end);
	for (int p = 0; p < NPARTS; p++)
		ivset_normalize(&w->parts[p]);
	/*
	 * Each part's time no earlier part claims, for the whole rank: a step's
	 * part is then its measure within the step, (P ∩ W) \ claimed being
	 * (P \ claimed) ∩ W. Measured by running sums (ivsum), so a step costs
	 * O(log n) however many events it holds: clipping every part to every
	 * step made ProfilerStep ranges that each cover the trace quadratic.
	 */
	struct ivsum sum[NPARTS];
	ivset_clear(w->claimed);
	for (int p = 0; p < P_OTHER; p++) {
		ivset_subtract(&w->parts[p], w->claimed, w->fresh);
		ivset_add_all(w->claimed, w->fresh);
		ivset_normalize(w->claimed);
		ivset_clear(&w->parts[p]);
		ivset_add_all(&w->parts[p], w->fresh); /* normal: a difference of normal sets */
		ivsum_init(&sum[p], &w->parts[p]);
	}
	buf_reset(w->label);
	buf_printf(w->label, "%s r%d", k->run, k->rank);
	size_t cat = chart_add_category(w->c, w->label->data);
	int64_t fastest = INT64_MAX, slowest = INT64_MIN;
	for (size_t si = 0; si < d->nsteps; si++) {
		const struct rk_range *st = &d->steps[si];
		fastest = st->end - st->start < fastest ? st->end - st->start : fastest;
		slowest = st->end - st->start > slowest ? st->end - st->start : slowest;
		int64_t used = 0;
		for (int p = 0; p < NPARTS; p++) {
			int64_t v = p == P_OTHER ? (st->end - st->start) - used : ivsum_within(&sum[p], st->start, st->end);
			used += v;
			size_t row = table_add_row(w->t);
			table_set_text(w->t, row, SBD_RUN, k->run);
			table_set_int(w->t, row, SBD_RANK, k->rank);
			table_set_int(w->t, row, SBD_STEP, st->key);
			table_set_text(w->t, row, SBD_PART, part_names[p]);
			table_set_ns(w->t, row, SBD_TIME_US, v);
			chart_update(w->c, cat, (size_t)p,
				     chart_get(w->c, cat, (size_t)p) + (double)v / 1e6 / (double)d->nsteps);
		}
	}
	for (int p = 0; p < P_OTHER; p++)
		ivsum_release(&sum[p]);
	chart_set_spread(w->c, cat, (double)fastest / 1e6, (double)slowest / 1e6, NAN, NAN);
	if (!d->ncpu_ops)
		result_add_note(w->out, "step_breakdown.csv: run %s rank %d records no host operators (cpu_op), "
				"so host work other than CUDA calls and data loading counts as 'other'",
				k->run, k->rank);
	return 0;
}

static int analysis_step_breakdown(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	size_t ndl;
	int64_t *dl;
	if (dataloader_ids(ctx->store, &dl, &ndl) < 0) {
		free(dl);
		return -1;
	}
	struct table *t = table_new("step_breakdown", "Step time by part, in priority order (parts sum to the step)",
				    TABLE_SCHEMA(STEP_BREAKDOWN_COLUMNS));
	struct chart *c = chart_new(CHART_STACKED_BAR, "step_breakdown", "Step time by part",
				    "mean time per step (ms)");
	for (int p = 0; p < NPARTS; p++)
		chart_add_series(c, part_names[p]);
	struct ivset parts[NPARTS], claimed, fresh;
	for (int p = 0; p < NPARTS; p++)
		ivset_init(&parts[p]);
	ivset_init(&claimed);
	ivset_init(&fresh);
	struct buf label;
	buf_init(&label);
	int ret = -1;
	struct step_walk w = {out, t, c, parts, &claimed, &fresh, &label, dl, ndl};
	if (for_each_rank(ctx->store, ctx->experiment, step_rank, &w) < 0)
		goto out;
	result_add_table(out, t);
	t = NULL;
	result_add_figure(out, c,
			  "Mean step time per run and rank, split in priority order: GPU compute, memcpy, memset, "
			  "communication, then host time in CUDA calls, data loading, other host operators, and "
			  "the rest; each part counts only time no earlier part claimed. The whisker spans the rank's "
			  "fastest to its slowest step.");
	c = NULL;
	result_add_method(out, "step_breakdown.csv",
			  "Per ProfilerStep#N host range and rank, the parts in priority order, each counting only "
			  "time inside the step that no earlier part claimed, so the parts sum to the step time: "
			  "compute (union of kernels outside the communication and memory groups of the default "
			  "classification), memcpy (memcpys and memory-group kernels), memset, communication "
			  "(communication-group kernels), cuda_runtime (CUDA runtime and driver calls on the host), "
			  "data_loading (host ranges named enumerate(DataLoader)...), cpu_other (other host "
			  "operators, Kineto cpu_op), other (the rest).");
	ret = 0;
out:
	buf_release(&label);
	for (int p = 0; p < NPARTS; p++)
		ivset_release(&parts[p]);
	ivset_release(&claimed);
	ivset_release(&fresh);
	table_free(t);
	chart_free(c);
	free(dl);
	return ret;
}

const struct analysis_def analysis_def_step_breakdown = {
	.name = "step_breakdown",
	.run = analysis_step_breakdown,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("step_breakdown"),
	.figures = ANALYSIS_NAMES("step_breakdown"),
};
