/*
 * temporal.c: the temporal breakdown and the communication/computation
 * overlap as Holistic Trace Analysis (HTA) computes them
 * (hta/analyzers/breakdown_analysis.py get_temporal_breakdown,
 * communication_analysis.py get_comm_comp_overlap), on the GPU events HTA
 * keeps (hta.c: its step window, kernel types, interval merge, rounding).
 * Per rank, with E those events:
 *   span        = end of the last merged group of E - start of the first
 *   idle        = span - total length of the merged groups of E
 *   compute     = total length of the merged groups of E's computation kernels
 *   non_compute = span - compute - idle
 *   comm        = total length of the merged groups of E's communication kernels
 *   overlap     = time during which both comm and compute groups run,
 *   fraction    = overlap / comm
 * Each once with HTA's rounding of fractional-microsecond traces (the
 * columns HTA prints) and once on the exact times (exact_ columns).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/hta.h"
#include "analyze/lib/rankdata.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

static void set_temporal(struct table *t, size_t row, size_t col, const struct hta_temporal *r)
{
	table_set_ns(t, row, col, r->span);
	table_set_ns(t, row, col + 1, r->idle);
	table_set_ns(t, row, col + 2, r->compute);
	table_set_ns(t, row, col + 3, r->span - r->compute - r->idle);
}

/* get_gpu_kernel_breakdown's kernel-type names: the types of the bits of v, joined by " overlapping ". */
static void type_label(int v, struct buf *b)
{
	static const char *const names[3] = {"COMPUTATION", "COMMUNICATION", "MEMORY"};
	buf_reset(b);
	for (int i = 0; i < 3; i++)
		if (v & 1 << i)
			buf_printf(b, "%s%s", b->len ? " overlapping " : "", names[i]);
}

/* One run's kernel-type rows: times summed over its ranks (HTA's and exact), each over their total. */
static void add_kernel_types(struct table *t, const char *run, const int64_t *hta, const int64_t *exact,
			     struct buf *label)
{
	int64_t th = 0, te = 0;
	for (int v = 1; v < 8; v++) {
		th += hta[v];
		te += exact[v];
	}
	for (int v = 1; v < 8; v++) {
		if (!hta[v] && !exact[v])
			continue;
		size_t row = table_add_row(t);
		type_label(v, label);
		table_set_text(t, row, 0, run);
		table_set_text(t, row, 1, label->data);
		table_set_ns(t, row, 2, hta[v]);
		if (th > 0)
			table_set_real(t, row, 3, (double)hta[v] / (double)th);
		table_set_ns(t, row, 4, exact[v]);
		if (te > 0)
			table_set_real(t, row, 5, (double)exact[v] / (double)te);
	}
}

static void set_overlap(struct table *t, size_t row, size_t col, const struct hta_temporal *r)
{
	table_set_ns(t, row, col, r->comm);
	table_set_ns(t, row, col + 1, r->overlap);
	if (r->comm > 0)
		table_set_real(t, row, col + 2, (double)r->overlap / (double)r->comm);
}

/* What temporal_rank writes to, and the kernel-type sums of the run it is in. */
struct temporal_walk {
	struct analysis_result *out;
	struct table *t, *o, *kt;
	struct chart *c;
	struct buf *label;
	int64_t types_hta[8], types_exact[8];
	int64_t run;    /* the run of the rank before; -1 before the first */
	char *run_name; /* its name, a copy (the keys end with the walk); NULL before the first */
};

/*
 * hta_for_each_rank's visitor: one rank's rows of temporal.csv and
 * overlap.csv and its bar; at the first rank of a run, the rows of
 * kernel_types.csv of the run before. Returns 0.
 */
static int temporal_rank(const struct rank_key *k, const struct rank_data *d, const struct hta_rank *hr,
			 const struct hta_rank *he, int filter, void *arg)
{
	struct temporal_walk *w = arg;
	int first_of_run = k->run_db_id != w->run;
	if (first_of_run) {
		if (w->run_name) {
			add_kernel_types(w->kt, w->run_name, w->types_hta, w->types_exact, w->label);
			memset(w->types_hta, 0, sizeof(w->types_hta));
			memset(w->types_exact, 0, sizeof(w->types_exact));
			free(w->run_name);
		}
		w->run = k->run_db_id;
		w->run_name = xstrdup(k->run);
	}
	if (!filter && first_of_run)
		result_add_note(w->out, "temporal.csv: run %s has fewer than two ProfilerStep#N names, so all "
				"of its GPU activities are counted (HTA filters by step only with two or more)",
				k->run);
	struct hta_temporal r, x;
	hta_temporal_of(hr, &r);
	hta_temporal_of(he, &x);
	for (int v = 1; v < 8; v++) {
		w->types_hta[v] += r.by_types[v];
		w->types_exact[v] += x.by_types[v];
	}
	if (!he->n) {
		result_add_note(w->out, "temporal.csv: run %s rank %d has no GPU activities%s; its row is left out",
				k->run, k->rank, d->nacts ? " launched before its last step" : "");
		return 0;
	}
	size_t row = table_add_row(w->t);
	table_set_text(w->t, row, 0, k->run);
	table_set_int(w->t, row, 1, k->rank);
	set_temporal(w->t, row, 2, &r);
	set_temporal(w->t, row, 6, &x);
	row = table_add_row(w->o);
	table_set_text(w->o, row, 0, k->run);
	table_set_int(w->o, row, 1, k->rank);
	set_overlap(w->o, row, 2, &r);
	set_overlap(w->o, row, 5, &x);
	buf_reset(w->label);
	buf_printf(w->label, "%s r%d", k->run, k->rank);
	size_t cat = chart_add_category(w->c, w->label->data);
	if (x.span > 0) {
		chart_set(w->c, cat, 0, (double)x.compute / (double)x.span);
		chart_set(w->c, cat, 1, (double)(x.span - x.compute - x.idle) / (double)x.span);
		chart_set(w->c, cat, 2, (double)x.idle / (double)x.span);
	}
	return 0;
}

static int analysis_temporal(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *t = table_new("temporal", "Temporal breakdown per rank, as Holistic Trace Analysis computes it",
				    TABLE_SCHEMA(TEMPORAL_COLUMNS));
	struct table *o = table_new("overlap", "Communication/computation overlap per rank, as HTA computes it",
				    TABLE_SCHEMA(OVERLAP_COLUMNS));
	struct table *kt = table_new("kernel_types", "GPU time by kernel type and their overlaps per run, as HTA computes it",
				     TABLE_SCHEMA(KERNEL_TYPES_COLUMNS));
	struct chart *c = chart_new(CHART_STACKED_BAR, "temporal_breakdown", "Temporal breakdown (HTA, exact times)",
				    "share of the GPU span");
	chart_add_series(c, "compute");
	chart_add_series(c, "non-compute");
	chart_add_series(c, "idle");
	int ret = -1;
	struct buf label;
	buf_init(&label);
	struct temporal_walk w = {out, t, o, kt, c, &label, {0}, {0}, -1, NULL};
	if (hta_for_each_rank(ctx->store, ctx->experiment, temporal_rank, &w) < 0)
		goto out;
	if (w.run_name)
		add_kernel_types(kt, w.run_name, w.types_hta, w.types_exact, &label);
	result_add_table(out, t);
	result_add_table(out, o);
	result_add_table(out, kt);
	t = o = kt = NULL;
	result_add_figure(out, c,
			  "Temporal breakdown per run and rank as Holistic Trace Analysis defines it, on exact times: "
			  "the span from the first to the last GPU activity launched before the last profiled step, "
			  "split into computation kernels, other GPU work (communication, memory, other) and idle time.");
	c = NULL;
	result_add_method(
		out, "temporal.csv",
		"As Holistic Trace Analysis's get_temporal_breakdown (HTA, Meta; checked against the real HTA at "
		"commit f4d0062c on the bundled traces and HTA's own). Events: when the run's ranks have two or more "
		"names ProfilerStep#N, the kernels, memcpys and memsets whose launching runtime or driver call "
		"(same correlation id) starts before the start of the rank's last ProfilerStep#N, host or GPU side "
		"(HTA counts the GPU-side annotation, which has no stream, among the host events); else every one "
		"with a stream. Kernel types by name as HTA's get_kernel_type: communication = name starts with "
		"nccl, hccl or hip or holds ncclKernel; memory = starts with Memcpy, Memset or dma; computation = "
		"every other, except names holding Memcpy, Memset, dma or Sync (and a few others of HTA's list), "
		"which are 'other'. The events are merged as HTA merges intervals (sorted by start, one joins the "
		"group before it unless it starts after every end so far). span = end of the last group minus "
		"start of the first; idle = span minus the groups' lengths; compute = the length of the merged "
		"computation kernels; non_compute = span - compute - idle. The plain columns are HTA's numbers: on "
		"a trace whose timestamps have fractions of a microsecond HTA rounds each event's start up and end "
		"down to whole microseconds (its parser, against overlapping events), so a kernel shorter than a "
		"microsecond counts 0 or even -1 us and idle grows (up to 2.5 points of the span on the bundled "
		"runs; non_compute can even come out negative, where HTA's own assertion would stop). The "
		"exact_ columns are the same definitions on the times the trace gives, and are the ones to use; "
		"HTA gives them too with HTA_DISABLE_NS_ROUNDING=1.");
	result_add_method(out, "overlap.csv",
			  "As HTA's get_comm_comp_overlap, on the events of temporal.csv: comm = length of the merged "
			  "communication kernels; overlap = the time during which both they and the merged "
			  "computation kernels run; overlap_fraction = overlap / comm, empty where a rank has no "
			  "communication. Plain columns with HTA's rounding, exact_ ones on the trace's times.");
	result_add_method(out, "kernel_types.csv",
			  "As the kernel-type table of HTA's get_gpu_kernel_breakdown (with memory kernels), on the "
			  "events of temporal.csv: per rank the merged computation, communication and memory kernels "
			  "(types as in temporal.csv); at each moment the set of types running names the row "
			  "(\"COMPUTATION overlapping COMMUNICATION\" while both run); times summed over the run's ranks; "
			  "fraction = the row over the run's total. Plain and exact_ columns as in temporal.csv.");
	ret = 0;
out:
	buf_release(&label);
	table_free(t);
	table_free(o);
	table_free(kt);
	chart_free(c);
	free(w.run_name);
	return ret;
}

const struct analysis_def analysis_def_temporal = {
	.name = "temporal",
	.run = analysis_temporal,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("temporal", "overlap", "kernel_types"),
	.figures = ANALYSIS_NAMES("temporal_breakdown"),
};
