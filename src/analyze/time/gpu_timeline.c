/*
 * gpu_timeline.c: the GPU timeline of TraceLens (AMD's trace analysis,
 * TraceLens/TreePerf/gpu_event_analyser.py compute_metrics_dict), per rank
 * over the whole trace, so that a run read here can be set beside
 * TraceLens's gpu_timeline.csv (docs/output.md, "Agreement with
 * TraceLens").
 *
 * Per rank, over every kernel, memcpy and memset it ran:
 *   memcpy       the memcpy activities and the copy kernels of the default
 *                classification's memory group (ROCm's legacy rocclr copy
 *                kernels, __amd_rocclr_copyBuffer, MEMORY_COPY_*: where
 *                TraceLens puts them); memory-group kernels that fill
 *                (names holding "fill" or "memset") are not copies
 *   communication the kernels of the communication group (nccl, rccl, ...)
 *   computation  every other activity, memsets and fill kernels included
 *                (TraceLens counts gpu_memset events as computation)
 *   computation_time     = |union of computation|
 *   exposed_comm_time    = |union of communication minus computation|
 *   exposed_memcpy_time  = |union of memcpy minus computation minus
 *                          communication|
 *   busy_time            = |union of all activities|
 *   total_time           = end of the last activity - start of the first
 *   idle_time            = total_time - busy_time
 *   total_comm_time      = |union of communication|
 *   total_memcpy_time    = |union of memcpy|
 * computation + exposed_comm + exposed_memcpy + idle = total, as TraceLens
 * asserts. Times are the trace's integer ns; TraceLens adds doubles of
 * microseconds, whose rounding is far below the 0.1 % the comparison
 * allows.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/analysis.h"
#include "analyze/time/time_tables.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "util/xalloc.h"

enum { TL_COMP, TL_COMM, TL_MEMCPY, TL_ALL, TL_N };

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; hay && *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

/* TraceLens's bucket of one activity (name: the activity's, for memory-group kernels). */
static int bucket_of(struct store *s, const struct rk_act *a)
{
	if (a->kind == ACT_MEMCPY)
		return TL_MEMCPY;
	if (a->kind == ACT_MEMSET)
		return TL_COMP;
	if (a->cls == RK_COMM)
		return TL_COMM;
	if (a->cls != RK_MEMORY)
		return TL_COMP;
	char *name = rank_name(s, a->name_id);
	int fill = contains_ci(name, "fill") || contains_ci(name, "memset");
	free(name);
	return fill ? TL_COMP : TL_MEMCPY;
}

static void rank_row(struct store *s, const struct rank_key *k, const struct rank_data *d, struct table *t)
{
	struct ivset set[TL_N], tmp, tmp2;
	for (int i = 0; i < TL_N; i++)
		ivset_init(&set[i]);
	ivset_init(&tmp);
	ivset_init(&tmp2);
	int64_t first = 0, last = 0;
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_act *a = &d->acts[i];
		if (!i || a->start < first)
			first = a->start;
		if (!i || a->end > last)
			last = a->end;
		ivset_add(&set[bucket_of(s, a)], a->start, a->end);
		ivset_add(&set[TL_ALL], a->start, a->end);
	}
	for (int i = 0; i < TL_N; i++)
		ivset_normalize(&set[i]);
	int64_t comp = ivset_measure(&set[TL_COMP]);
	ivset_subtract(&set[TL_COMM], &set[TL_COMP], &tmp);
	int64_t exposed_comm = ivset_measure(&tmp);
	ivset_clear(&tmp);
	ivset_subtract(&set[TL_MEMCPY], &set[TL_COMP], &tmp);
	ivset_subtract(&tmp, &set[TL_COMM], &tmp2);
	int64_t exposed_memcpy = ivset_measure(&tmp2);
	int64_t busy = ivset_measure(&set[TL_ALL]);
	int64_t total = last - first;
	size_t row = table_add_row(t);
	size_t c = 0;
	table_set_text(t, row, c++, k->run);
	table_set_int(t, row, c++, k->rank);
	table_set_ns(t, row, c++, comp);
	table_set_ns(t, row, c++, exposed_comm);
	table_set_ns(t, row, c++, exposed_memcpy);
	table_set_ns(t, row, c++, busy);
	table_set_ns(t, row, c++, total - busy);
	table_set_ns(t, row, c++, total);
	table_set_ns(t, row, c++, ivset_measure(&set[TL_COMM]));
	table_set_ns(t, row, c++, ivset_measure(&set[TL_MEMCPY]));
	for (int i = 0; i < TL_N; i++)
		ivset_release(&set[i]);
	ivset_release(&tmp);
	ivset_release(&tmp2);
}

struct timeline_walk {
	struct store *s;
	struct table *t;
};

/* for_each_rank's visitor: a row for each rank with GPU activity. Returns 0. */
static int visit_rank(const struct rank_key *k, const struct rank_data *d, void *arg)
{
	const struct timeline_walk *w = arg;
	if (d->nacts)
		rank_row(w->s, k, d, w->t);
	return 0;
}

static int analysis_gpu_timeline(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *t = table_new("gpu_timeline", "GPU timeline per rank, as TraceLens computes it",
				    TABLE_SCHEMA(GPU_TIMELINE_COLUMNS));
	int ret = -1;
	struct timeline_walk w = {ctx->store, t};
	if (for_each_rank(ctx->store, ctx->experiment, visit_rank, &w) < 0)
		goto out;
	result_add_table(out, t);
	t = NULL;
	result_add_method(
		out, "gpu_timeline.csv",
		"As TraceLens's gpu_timeline (AMD; TreePerf/gpu_event_analyser.py, checked against the reports in "
		"TraceLens's tests), per rank over all its kernels, memcpys and memsets: memcpy = the memcpy "
		"activities and the copy kernels of the memory group (ROCm's legacy rocclr copy kernels; not the "
		"fill kernels); communication = the communication group's kernels; computation = everything else, "
		"memsets included as TraceLens counts them. computation = length of the union of computation; "
		"exposed_comm = communication not under computation; exposed_memcpy = memcpy under neither; busy = "
		"union of all; total = end of the last activity - start of the first; idle = total - busy; "
		"total_comm and total_memcpy the unions of each. computation + exposed_comm + exposed_memcpy + "
		"idle = total. Unlike TraceLens, which adds up every GPU of a PyTorch trace into one timeline, "
		"one row per rank (GPU).");
	ret = 0;
out:
	table_free(t);
	return ret;
}

const struct analysis_def analysis_def_gpu_timeline = {
	.name = "gpu_timeline",
	.run = analysis_gpu_timeline,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("gpu_timeline"),
};
