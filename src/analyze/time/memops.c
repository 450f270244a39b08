/*
 * memops.c: memory operations per device (memops.csv).
 *
 * Per run, rank and kind (the memcpy's copy kind from its name: HtoD, DtoH,
 * DtoD, PtoP, ...; "memset"): count, summed bytes (of the operations that
 * record them), summed duration, and the achieved bandwidth bytes / time
 * (bytes per ns = GB/s). Durations are summed, not merged.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/time_tables.h"
#include "analyze/lib/rankdata.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"

static const char *const kinds[] = {"HtoD", "DtoH", "DtoD", "PtoP", "memset", "other copy"};
enum { NKINDS = sizeof(kinds) / sizeof(kinds[0]) };

/* What memops_rank writes to, from the analysis. */
struct memops_walk {
	struct analysis_result *out;
	struct table *t;
};

/* for_each_rank's visitor: one rank's rows of memops.csv. Returns 0. */
static int memops_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	struct memops_walk *w = arg;
	int64_t count[NKINDS] = {0}, bytes[NKINDS] = {0}, time[NKINDS] = {0}, nobytes = 0;
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		size_t x = NKINDS - 1;
		if (a->kind == ACT_KERNEL)
			continue;
		if (a->kind == ACT_MEMSET)
			x = 4;
		else
			for (size_t j = 0; j < 4; j++)
				if (!strcmp(a->copy_kind, kinds[j]))
					x = j;
		count[x]++;
		time[x] += a->end - a->start;
		if (a->bytes >= 0)
			bytes[x] += a->bytes;
		else
			nobytes++;
	}
	if (nobytes)
		result_add_note(w->out, "memops.csv: run %s rank %d: %lld memory operations record no size; "
				"their bytes are left out", k->run, k->rank, (long long)nobytes);
	for (size_t x = 0; x < NKINDS; x++) {
		size_t row = table_add_row(w->t);
		table_set_text(w->t, row, 0, k->run);
		table_set_int(w->t, row, 1, k->rank);
		table_set_text(w->t, row, 2, kinds[x]);
		table_set_int(w->t, row, 3, count[x]);
		table_set_int(w->t, row, 4, bytes[x]);
		table_set_ns(w->t, row, 5, time[x]);
		if (time[x] > 0)
			table_set_real(w->t, row, 6, (double)bytes[x] / (double)time[x]);
	}
	return 0;
}

static int analysis_memops(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *t = table_new("memops", "Memory operations per run, rank and kind",
				    TABLE_SCHEMA(MEMOPS_COLUMNS));
	struct chart *c = chart_new(CHART_GROUPED_BAR, "memops", "Memory operations per device",
				    "time per device (ms)");
	struct buf label;
	buf_init(&label);
	int ret = -1;
	struct memops_walk w = {out, t};
	if (for_each_rank(ctx->store, ctx->experiment, memops_rank, &w) < 0)
		goto out;
	/* The figure: one group of bars per device, one bar per kind any device has. */
	int used[NKINDS] = {0};
	for (size_t row = 0; row < t->nrows; row++)
		if (table_cell(t, row, MO_TIME_US)->v.i > 0)
			used[row % NKINDS] = 1;
	size_t series[NKINDS];
	for (size_t x = 0; x < NKINDS; x++)
		if (used[x])
			series[x] = chart_add_series(c, kinds[x]);
	for (size_t row = 0; row < t->nrows; row += NKINDS) {
		buf_reset(&label);
		buf_printf(&label, "%s r%lld", table_cell(t, row, MO_RUN)->v.text, (long long)table_cell(t, row, MO_RANK)->v.i);
		size_t cat = chart_add_category(c, label.data);
		for (size_t x = 0; x < NKINDS; x++)
			if (used[x])
				chart_set(c, cat, series[x], (double)table_cell(t, row + x, MO_TIME_US)->v.i / 1e6);
	}
	result_add_table(out, t);
	t = NULL;
	result_add_figure(out, c, "Time in memory operations per device (run and rank), one bar per kind, over the "
			  "whole trace; the ranks of a run side by side show their asymmetry.");
	c = NULL;
	result_add_method(out, "memops.csv",
			  "Per run, rank and kind (the memcpy's copy kind as its name states it: HtoD, DtoH, DtoD, "
			  "PtoP, other copy kinds as 'other copy'; memset): the number of operations, their summed "
			  "bytes (those that record a size), their summed duration (not merged), and the achieved "
			  "bandwidth gb_per_s = bytes / time (bytes per ns, i.e. GB/s with GB = 1e9 bytes).");
	ret = 0;
out:
	buf_release(&label);
	table_free(t);
	chart_free(c);
	return ret;
}

const struct analysis_def analysis_def_memops = {
	.name = "memops",
	.run = analysis_memops,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("memops"),
	.figures = ANALYSIS_NAMES("memops"),
};
