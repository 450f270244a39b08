/*
 * gpu_idle.c: idle time and host wait per GPU, the union over its streams
 * (issue 28, point 4): idle_time_steps.csv per step, gpu_idle.csv per rank.
 *
 * A rank's GPU is idle when none of its kernels, copies or memsets runs on
 * any of its streams. Per step, idle = the host ProfilerStep#N range minus
 * the union of the rank's GPU activities (ranks.csv's idle_us). The gaps of
 * that union, [a, b) with a the end of the GPU's previous busy interval and
 * b the start of the next, each get one cause:
 *   host wait    an activity starting at b was launched by a call that
 *                ended after a: the GPU ran out of work before the host had
 *                finished asking for more (the GPU waits for the host);
 *   kernel wait  else, a gap under 30 us (back-to-back launches, HTA's
 *                consecutive_kernel_delay);
 *   other        else: the next work was queued before the GPU fell idle,
 *                so it waited on something else (an event, another device,
 *                a host synchronisation); also the gap after the last
 *                activity of the trace, whose next launch is not in it.
 * The gap before the first activity is host wait (the GPU had no work yet).
 * Each idle instant of a step lies in exactly one gap, so a step's three
 * causes add up to its idle time; streams are never added together.
 *
 * Whole steps: a step is left out (whole = 0) when no GPU activity was
 * launched inside it, or when it is the rank's first or last step and
 * lasts less than half the median of the rank's steps (the profiler
 * started or stopped inside it). gpu_idle.csv pools the whole steps of each
 * rank: the sums of their times, and shares of those sums (idle / step,
 * host wait / idle), not a mean of per-step shares, so that one short or
 * near-empty step does not weigh as much as a full one.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/intervals.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "util/search.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay, 30 us */

enum { HOST_WAIT, KERNEL_WAIT, OTHER_WAIT, NWAIT };

/* A gap of the union: [a, b); a = INT64_MIN before the first activity, b = INT64_MAX after the last. */
struct gap {
	int64_t a, b;
	int cause;
};

/* The cause of the gap [a, b), b the start of a busy interval. */
static int cause_of(const struct rank_data *d, const struct launch_index *idx, int64_t a, int64_t b)
{
	for (size_t i = rank_act_at(d, b); i < d->nacts && d->acts[i].start == b; i++) {
		const struct rk_range *l = d->acts[i].corr >= 0 ? rank_launch_of(d, idx, d->acts[i].corr) : NULL;
		if (l && l->end > a)
			return HOST_WAIT;
	}
	return a == INT64_MIN ? HOST_WAIT : b - a < KERNEL_WAIT_NS ? KERNEL_WAIT : OTHER_WAIT;
}

/* The gaps of the union u (normal), with their causes; *n set (u->n + 1). */
static struct gap *gaps_of(const struct rank_data *d, const struct launch_index *idx, const struct ivset *u, size_t *n)
{
	struct gap *g = xmalloc((u->n + 1) * sizeof(*g));
	for (size_t i = 0; i <= u->n; i++) {
		g[i].a = i ? u->v[i - 1].end : INT64_MIN;
		g[i].b = i < u->n ? u->v[i].start : INT64_MAX;
		g[i].cause = i < u->n ? cause_of(d, idx, g[i].a, g[i].b) : OTHER_WAIT;
	}
	*n = u->n + 1;
	return g;
}

/* Per step of d: 1 when at least one GPU activity was launched inside its host range (caller frees). */
static char *steps_with_launches(const struct rank_data *d, const struct launch_index *idx)
{
	char *has = xcalloc(d->nsteps ? d->nsteps : 1, 1);
	for (size_t i = 0; i < d->nacts; i++) {
		const struct rk_range *l = d->acts[i].corr >= 0 ? rank_launch_of(d, idx, d->acts[i].corr) : NULL;
		if (!l)
			continue;
		size_t k = rk_search(d->steps, d->nsteps, l->start, 1); /* the first step starting after it */
		if (k && l->start < d->steps[k - 1].end)
			has[k - 1] = 1;
	}
	return has;
}

struct pooled {
	int64_t steps, left_out, step, idle, wait[NWAIT];
};

/* One rank's rows, a for_each_rank visitor: arg is {idle_time_steps, gpu_idle}. Returns 0. */
static int rank_rows(const struct rank_key *key, const struct rank_data *d, void *arg)
{
	struct table *ts = ((struct table **)arg)[0], *tr = ((struct table **)arg)[1];
	struct ivset u;
	ivset_init(&u);
	for (size_t i = 0; i < d->nacts; i++)
		ivset_add(&u, d->acts[i].start, d->acts[i].end);
	ivset_normalize(&u);
	struct launch_index *idx = rank_launch_index(d);
	size_t ng;
	struct gap *g = gaps_of(d, idx, &u, &ng);
	char *launched = steps_with_launches(d, idx);
	int64_t *dur = xmalloc((d->nsteps ? d->nsteps : 1) * sizeof(*dur));
	for (size_t i = 0; i < d->nsteps; i++)
		dur[i] = d->steps[i].end - d->steps[i].start;
	qsort(dur, d->nsteps, sizeof(*dur), stats_cmp_i64);
	/* the median step: the middle one, or the mean of the two middle ones */
	int64_t med = !d->nsteps ? 0 : d->nsteps % 2 ? dur[d->nsteps / 2] : (dur[d->nsteps / 2 - 1] + dur[d->nsteps / 2]) / 2;
	/*
	 * The gaps of each cause as a set with running sums: a step's wait of a
	 * cause is the set's measure within the step, two binary searches.
	 * Steps may overlap (nested, out of order, or each covering the trace),
	 * and a walk over the gaps of each step made those quadratic.
	 */
	struct ivset gs[NWAIT];
	struct ivsum gsum[NWAIT];
	for (int c = 0; c < NWAIT; c++)
		ivset_init(&gs[c]);
	for (size_t i = 0; i < ng; i++) /* in order, disjoint, never touching: each set is normal as it is */
		ivset_add(&gs[g[i].cause], g[i].a, g[i].b);
	for (int c = 0; c < NWAIT; c++)
		ivsum_init(&gsum[c], &gs[c]);
	struct pooled p = {0};
	for (size_t k = 0; k < d->nsteps; k++) {
		int64_t s = d->steps[k].start, e = d->steps[k].end, w[NWAIT];
		for (int c = 0; c < NWAIT; c++)
			w[c] = ivsum_within(&gsum[c], s, e);
		int64_t idle = w[HOST_WAIT] + w[KERNEL_WAIT] + w[OTHER_WAIT];
		int edge = k == 0 || k + 1 == d->nsteps;
		int whole = launched[k] && !(edge && d->nsteps > 1 && 2 * (e - s) < med);
		size_t row = table_add_row(ts);
		table_set_text(ts, row, 0, key->run);
		table_set_int(ts, row, 1, key->rank);
		table_set_int(ts, row, 2, d->steps[k].key);
		table_set_ns(ts, row, 3, e - s);
		table_set_ns(ts, row, 4, idle);
		for (int c = 0; c < NWAIT; c++)
			table_set_ns(ts, row, 5 + c, w[c]);
		if (idle > 0)
			table_set_real(ts, row, 8, (double)w[HOST_WAIT] / (double)idle);
		table_set_int(ts, row, 9, whole);
		if (!whole) {
			p.left_out++;
			continue;
		}
		p.steps++;
		p.step += e - s;
		p.idle += idle;
		for (int c = 0; c < NWAIT; c++)
			p.wait[c] += w[c];
	}
	if (d->nsteps) {
		size_t row = table_add_row(tr);
		table_set_text(tr, row, 0, key->run);
		table_set_int(tr, row, 1, key->rank);
		table_set_int(tr, row, 2, p.steps);
		table_set_int(tr, row, 3, p.left_out);
		table_set_ns(tr, row, 4, p.step);
		table_set_ns(tr, row, 5, p.idle);
		for (int c = 0; c < NWAIT; c++)
			table_set_ns(tr, row, 6 + c, p.wait[c]);
		if (p.step > 0)
			table_set_real(tr, row, 9, (double)p.idle / (double)p.step);
		if (p.idle > 0)
			table_set_real(tr, row, 10, (double)p.wait[HOST_WAIT] / (double)p.idle);
	}
	for (int c = 0; c < NWAIT; c++) {
		ivsum_release(&gsum[c]);
		ivset_release(&gs[c]);
	}
	free(dur);
	free(launched);
	free(g);
	rank_launch_index_release(d, idx);
	ivset_release(&u);
	return 0;
}

static int analysis_gpu_idle(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *ts = table_new("idle_time_steps", "GPU idle time per ProfilerStep by cause, all streams as one GPU",
				     TABLE_SCHEMA(IDLE_TIME_STEPS_COLUMNS));
	struct table *tr = table_new("gpu_idle", "GPU idle time and host wait per rank, pooled over whole steps",
				     TABLE_SCHEMA(GPU_IDLE_COLUMNS));
	int ret = -1;
	struct table *tables[2] = {ts, tr};
	if (for_each_rank(ctx->store, ctx->experiment, rank_rows, tables) < 0)
		goto out;
	result_add_table(out, ts);
	result_add_table(out, tr);
	ts = tr = NULL;
	result_add_method(
		out, "idle_time_steps.csv",
		"Per ProfilerStep#N and rank, the GPU (all its streams as one): idle_us = the step's host range minus "
		"the union of the rank's kernels, copies and memsets (as ranks.csv). Each gap of that union, from "
		"the end of one busy interval to the start of the next, has one cause: host wait when an activity "
		"starting at its end was launched by a call that ended after the gap began (the GPU waited for the "
		"host to ask for work); kernel wait, else, when the gap is under 30 us (back-to-back launches); other "
		"else (the work was queued but waited on an event, another device, a synchronisation; also the gap "
		"after the trace's last activity). The gap before the first activity is host wait. A step's three "
		"causes add up to its idle time: the streams are never added together. host_wait_share = host wait "
		"over idle. whole = 0 for a step left out of gpu_idle.csv: no GPU activity launched in it, or the "
		"rank's first or last step lasting less than half its median step (the profiler started or stopped "
		"inside it).");
	result_add_method(out, "gpu_idle.csv",
			  "Per rank, idle_time_steps.csv pooled over its whole steps (whole = 1): the sums of step, "
			  "idle and cause times; idle_share = idle over step time and host_wait_share = host wait "
			  "over idle time, both ratios of the sums (not means of per-step shares).");
	ret = 0;
out:
	table_free(ts);
	table_free(tr);
	return ret;
}

const struct analysis_def analysis_def_gpu_idle = {
	.name = "gpu_idle",
	.run = analysis_gpu_idle,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("idle_time_steps", "gpu_idle"),
};
