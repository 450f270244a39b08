/* analysis.c: the registry of analyses and the result they fill, see analysis.h. */
#include "analyze/analysis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart.h"
#include "util/timing.h"
#include "util/xalloc.h"
#include "analyze/lib/rankdata.h"

/* In the order they run and their tables appear. */
static const struct analysis_def registry[] = {
	{"basic", analysis_basic},
	{"step_stats", analysis_step_stats},
	{"profiler_overhead", analysis_profiler_overhead}, /* before scaling and models: their log_ columns */
	{"temporal", analysis_temporal},
	{"hta_idle", analysis_hta_idle},
	{"gpu_idle", analysis_gpu_idle},
	{"gpu_timeline", analysis_gpu_timeline},
	{"step_breakdown", analysis_step_breakdown},
	{"memops", analysis_memops},
	{"collectives", analysis_collectives},
	{"busbw", analysis_busbw},
	{"ranks", analysis_ranks},
	{"phases", analysis_phases},
	{"dispatch", analysis_dispatch},
	{"dispatch_ops", analysis_dispatch_ops},
	{"scaling", analysis_scaling},
	{"time_to_train", analysis_time_to_train}, /* after profiler_overhead */
	{"crossrank", analysis_crossrank},
	{"collective_busbw", analysis_coll_busbw}, /* after crossrank: reads collective_waits */
	{"straggler_causes", analysis_straggler_causes}, /* after crossrank: reads straggler_ranks */
	{"rank_spread", analysis_rank_spread},           /* after ranks and crossrank; draws top_kernels */
	{"step_diff", analysis_step_diff},               /* after scaling, ranks and crossrank */
	{"critical_path", analysis_critical_path},
	{"compare", analysis_compare},
	{"models", analysis_models},
	{"published_figures", analysis_published_figures},
	{"comm_volume", analysis_comm_volume},
	{"parallel_comm", analysis_parallel_comm},
	{"inputs", analysis_inputs},
	{"system", analysis_system},
	{"report_phases", analysis_report_phases},
	{"compare_phases", analysis_compare_phases},
	{"flops", analysis_flops},
	{"checks", analysis_checks},
	{"figure_ranks", analysis_figure_ranks}, /* after every figure with a bar per rank */
	{"sanity", analysis_sanity},     /* before findings: flags impossible shares */
	{"findings", analysis_findings}, /* last: reads the tables of all the others */
};

int analyze_experiment(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	memset(out, 0, sizeof(*out));
	int ret = 0;
	int timed = timing_enabled();
	for (size_t i = 0; i < sizeof(registry) / sizeof(registry[0]); i++) {
		double t0 = timed ? timing_now() : 0;
		if (registry[i].run(ctx, out) < 0) {
			analysis_result_release(out);
			ret = -1;
			break;
		}
		/* PERFSTUDY_TIMING: where the analyze stage goes, one line per analysis. */
		if (timed)
			fprintf(stderr, "perfstudy: timing: analysis %s %s %.3f s\n", ctx->experiment, registry[i].name,
				timing_now() - t0);
	}
	rank_cache_clear();
	return ret;
}

void analysis_result_release(struct analysis_result *r)
{
	table_free(r->runs);
	for (size_t i = 0; i < r->ntables; i++)
		table_free(r->tables[i]);
	free(r->tables);
	for (size_t i = 0; i < r->nfigures; i++) {
		chart_free(r->figures[i].chart);
		free(r->figures[i].caption);
	}
	free(r->figures);
	for (size_t i = 0; i < r->nmethods; i++) {
		free(r->methods[i].term);
		free(r->methods[i].text);
	}
	free(r->methods);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	memset(r, 0, sizeof(*r));
}

void result_add_table(struct analysis_result *r, struct table *t)
{
	r->tables = xgrow(r->tables, &r->cap_tables, r->ntables + 1, sizeof(*r->tables));
	r->tables[r->ntables++] = t;
}

void result_add_figure(struct analysis_result *r, struct chart *c, const char *caption)
{
	r->figures = xgrow(r->figures, &r->cap_figures, r->nfigures + 1, sizeof(*r->figures));
	r->figures[r->nfigures].chart = c;
	r->figures[r->nfigures].caption = xstrdup(caption);
	r->nfigures++;
}

void result_add_method(struct analysis_result *r, const char *term, const char *text)
{
	r->methods = xgrow(r->methods, &r->cap_methods, r->nmethods + 1, sizeof(*r->methods));
	r->methods[r->nmethods].term = xstrdup(term);
	r->methods[r->nmethods].text = xstrdup(text);
	r->nmethods++;
}

void result_add_note(struct analysis_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = xmalloc((size_t)(n > 0 ? n : 0) + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)(n > 0 ? n : 0) + 1, fmt, ap);
	va_end(ap);
	r->notes = xgrow(r->notes, &r->cap_notes, r->nnotes + 1, sizeof(*r->notes));
	r->notes[r->nnotes++] = s;
}

struct table *result_table(const struct analysis_result *r, const char *name)
{
	if (r->runs && !strcmp(r->runs->name, name))
		return r->runs;
	for (size_t i = 0; i < r->ntables; i++)
		if (!strcmp(r->tables[i]->name, name))
			return r->tables[i];
	return NULL;
}
