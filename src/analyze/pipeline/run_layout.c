/*
 * run_layout.c: runs.csv's parallel layout (perfstudy issue 54), filled
 * into the columns basic_runs.c leaves empty, after pipeline_stages.csv.
 *
 * Per run, the first rule that applies:
 *   manifest          tensor_parallel or pipeline_parallel given: t and p
 *                     (1 where one is not given), data_parallel gpus / (t p);
 *   manifest strategy a strategy of ddp or a ZeRO stage (layout_zero_stage:
 *                     zero1..3, fsdp): data_parallel gpus, t = p = 1;
 *   trace: send/recv path  pipeline_stages.csv found pipelines in the
 *                     ranks' point-to-point peers: p its stages,
 *                     data_parallel its pipelines, t = gpus / (p x pipelines)
 *                     where that divides exactly (else empty);
 *   trace: <name>     a rank's host annotation DistributedDataParallel.forward
 *                     or FullyShardedDataParallel.forward (the wrappers'
 *                     record_function names): data_parallel gpus, t = p = 1;
 *   one GPU           gpus 1: 1, 1, 1;
 * else all three empty (layout_source empty). gpus is runs.csv's.
 * Where the manifest gives no strategy, basic_strategy.c has inferred one
 * from the traces' annotations or the training logs (runs.csv strategy,
 * strategy_source says whose; issue #57 item 7). A run so inferred to be
 * DDP or a ZeRO stage gets the layout of "manifest strategy" with the first
 * clause of its strategy_source ("trace: <annotation>", "training log
 * (<file>): strategy S") as its layout_source, ahead of the send/recv path.
 * schedule and microbatches: the manifest's where it gives them, else
 * pipeline_stages.csv's (inferred from the sends and receives), its first
 * row of the run; schedule_source says whose (manifest, inferred, or both
 * named when they differ).
 */
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "store/store.h"
#include "util/buf.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/time/time_tables.h"

static const struct manifest_run *man_run(const struct manifest *m, const char *run)
{
	for (size_t i = 0; m && i < m->nruns; i++)
		if (!strcmp(m->runs[i].id, run))
			return &m->runs[i];
	return NULL;
}

/* The data-parallel wrapper a rank of run names in its annotations ("DistributedDataParallel.forward"), or NULL. */
static int ddp_name(struct store *s, const char *exp, const char *run, const char **name)
{
	static const char *const names[] = {"DistributedDataParallel.forward", "FullyShardedDataParallel.forward"};
	*name = NULL;
	struct store_stmt *st = store_query(s, "run_layout: a data-parallel wrapper's annotation",
					    "SELECT n.name FROM annotations a JOIN names n ON n.id = a.name_id"
					    " JOIN run_traces t ON t.id = a.trace_id"
					    " WHERE t.experiment = ?1 AND t.run = ?2 AND n.name IN (?3, ?4)"
					    " ORDER BY n.name LIMIT 1", exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	store_bind_text(st, 3, names[0]);
	store_bind_text(st, 4, names[1]);
	int rc = store_next(st);
	if (rc == 1)
		*name = !strcmp((const char *)store_column_text(st, 0), names[0]) ? names[0] : names[1];
	store_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* Whether strategy is data parallel over every GPU: ddp or a ZeRO stage (zero1..3, fsdp). */
static int data_parallel(const char *strategy)
{
	char shown[64];
	layout_strategy_shown(NULL, strategy, shown, sizeof(shown));
	return !strcmp(shown, "DDP") || !strncmp(shown, "ZeRO-", 5);
}

/* What pipeline_stages.csv says of run: stages, pipelines, and its first row's schedule and m; 0 when none. */
struct pp_seen {
	int64_t stages, pipelines, m;
	const char *schedule, *schedule_source, *m_source;
};

static int pp_of(const struct table *ps, const char *run, struct pp_seen *o)
{
	memset(o, 0, sizeof(*o));
	if (!ps)
		return 0;
	int crun = PS_RUN, cpipe = PS_PIPELINE;
	int cst = PS_STAGES, csch = PS_SCHEDULE;
	int cschs = PS_SCHEDULE_SOURCE, cm = PS_MICROBATCHES;
	int cms = PS_MICROBATCHES_SOURCE;
	int64_t maxpipe = -1;
	for (size_t r = 0; r < ps->nrows; r++) {
		if (strcmp(table_cell(ps, r, (size_t)crun)->v.text, run))
			continue;
		const struct cell *p = table_cell(ps, r, (size_t)cpipe);
		if (!p->null && p->v.i > maxpipe)
			maxpipe = p->v.i;
		if (o->stages)
			continue;
		o->stages = table_cell(ps, r, (size_t)cst)->v.i;
		const struct cell *sc = table_cell(ps, r, (size_t)csch), *m = table_cell(ps, r, (size_t)cm);
		if (!sc->null) {
			o->schedule = sc->v.text;
			o->schedule_source = table_cell(ps, r, (size_t)cschs)->v.text;
		}
		if (!m->null) {
			o->m = m->v.i;
			o->m_source = table_cell(ps, r, (size_t)cms)->v.text;
		}
	}
	o->pipelines = maxpipe + 1;
	return o->stages > 0;
}

static int analysis_run_layout(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct table *rt = result_table(out, "runs");
	const struct table *ps = result_table(out, "pipeline_stages");
	if (!rt)
		return 0;
	int cgpus = RUNS_GPUS, cdp = RUNS_DATA_PARALLEL;
	int ctp = RUNS_TENSOR_PARALLEL, cpp = RUNS_PIPELINE_PARALLEL;
	int csrc = RUNS_LAYOUT_SOURCE, csch = RUNS_SCHEDULE;
	int cm = RUNS_MICROBATCHES, cms = RUNS_SCHEDULE_SOURCE;
	int cst = RUNS_STRATEGY, csts = RUNS_STRATEGY_SOURCE;
	struct buf w, sw;
	buf_init(&w);
	buf_init(&sw);
	int ret = 0;
	for (size_t r = 0; r < rt->nrows; r++) {
		const char *run = table_cell(rt, r, RUNS_RUN)->v.text;
		const struct cell *g = table_cell(rt, r, (size_t)cgpus);
		int64_t gpus = g->null ? 0 : g->v.i, dp = 0, tp = 0, pp = 0;
		const struct manifest_run *mr = man_run(ctx->manifest, run);
		struct pp_seen seen;
		int piped = pp_of(ps, run, &seen);
		const char *src = NULL, *wrapper = NULL, *inferred = NULL;
		const char *ssrc = table_text(rt, r, csts), *strategy = table_text(rt, r, cst);
		if (ssrc && strcmp(ssrc, "manifest") && strategy && data_parallel(strategy)) {
			inferred = strategy;
			buf_reset(&sw);
			const char *semi = strstr(ssrc, "; ");
			buf_add(&sw, ssrc, semi ? (size_t)(semi - ssrc) : strlen(ssrc));
		}
		if (mr && (mr->tensor_parallel > 0 || mr->pipeline_parallel > 0)) {
			tp = mr->tensor_parallel > 0 ? mr->tensor_parallel : 1;
			pp = mr->pipeline_parallel > 0 ? mr->pipeline_parallel : 1;
			dp = gpus / (tp * pp);
			src = "manifest";
		} else if (mr && mr->strategy && (!strcmp(mr->strategy, "ddp") || layout_zero_stage(mr) > 0)) {
			dp = gpus, tp = pp = 1;
			src = "manifest strategy";
		} else if (inferred && !piped) {
			dp = gpus, tp = pp = 1;
			buf_reset(&w);
			buf_adds(&w, sw.data); /* "trace: <annotation>", "training log (<file>): strategy S" */
			src = w.data;
		} else if (piped) {
			pp = seen.stages;
			dp = seen.pipelines;
			tp = gpus % (pp * dp) == 0 ? gpus / (pp * dp) : 0;
			src = "trace: send/recv path";
		} else {
			if (ddp_name(ctx->store, ctx->experiment, run, &wrapper) < 0) {
				ret = -1;
				break;
			}
			if (wrapper) {
				dp = gpus, tp = pp = 1;
				buf_reset(&w);
				buf_printf(&w, "trace: %s", wrapper);
				src = w.data;
			} else if (gpus == 1) {
				dp = tp = pp = 1;
				src = "one GPU";
			}
		}
		if (dp > 0)
			table_set_int(rt, r, (size_t)cdp, dp);
		if (tp > 0)
			table_set_int(rt, r, (size_t)ctp, tp);
		if (pp > 0)
			table_set_int(rt, r, (size_t)cpp, pp);
		if (src)
			table_set_text(rt, r, (size_t)csrc, src);
		/* the schedule and micro-batches: the manifest's, else pipeline_stages.csv's */
		int ms = mr && mr->schedule > 0, mm = mr && mr->microbatches > 0;
		const char *sch = ms ? (mr->schedule == 1 ? "GPipe" : "1F1B") : seen.schedule;
		const char *sch_src = ms ? "manifest" : seen.schedule_source;
		int64_t m = mm ? mr->microbatches : seen.m;
		const char *m_src = mm ? "manifest" : seen.m_source;
		if (sch)
			table_set_text(rt, r, (size_t)csch, sch);
		if (m > 0)
			table_set_int(rt, r, (size_t)cm, m);
		if (sch_src && m_src && strcmp(sch_src, m_src)) {
			buf_reset(&w);
			buf_printf(&w, "schedule %s, microbatches %s", sch_src, m_src);
			table_set_text(rt, r, (size_t)cms, w.data);
		} else if (sch_src || m_src) {
			table_set_text(rt, r, (size_t)cms, sch_src ? sch_src : m_src);
		}
	}
	buf_release(&w);
	buf_release(&sw);
	return ret;
}

const struct analysis_def analysis_def_run_layout = {
	.name = "run_layout",
	.run = analysis_run_layout,
	.needs = ANALYSIS_TABLES("runs", "pipeline_stages"),
	.makes = ANALYSIS_NONE,
};
