/* analysis.c: the registry of analyses and the result they fill, see analysis.h. */
#include "analyze/analysis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/timing.h"
#include "util/xalloc.h"
#include "analyze/lib/rankdata.h"

/*
 * The registry: every analysis, in the order they run, one line each. An
 * analysis's descriptor (its name, run function, the result tables it
 * reads and may add; analysis.h) is defined at the end of its own file as
 * analysis_def_<name>. "store.<table>" names an aggregate one analysis
 * writes into the store for a later one (and for users' queries). The
 * order is checked against the descriptors by tests/unit/test_registry.c,
 * and result_table/result_add_table check each analysis against its own.
 */
#define ANALYSES(X) \
	X(basic) \
	X(step_stats) \
	X(profiler_overhead) \
	X(temporal) \
	X(hta_idle) \
	X(gpu_idle) \
	X(gpu_timeline) \
	X(step_breakdown) \
	X(memops) \
	X(collectives) \
	X(busbw) \
	X(ranks) \
	X(phases) \
	X(dispatch) \
	X(dispatch_ops) \
	X(scaling) \
	X(time_to_train) \
	X(crossrank) \
	X(collective_busbw) \
	X(pipeline_stages) \
	/* fills runs.csv's layout columns (basic.c leaves them empty) from the manifest, pipeline_stages, the traces */ \
	X(run_layout) \
	/* GPipe against 1F1B where a study ran both on one model: step time, bubble against the formula */ \
	X(pipeline_schedules) \
	X(straggler_causes) \
	X(rank_spread) \
	X(step_diff) \
	X(critical_path) \
	X(compare) \
	X(models) \
	X(published_figures) \
	X(comm_volume) \
	X(parallel_comm) \
	X(inputs) \
	X(system) \
	X(report_phases) \
	X(compare_phases) \
	X(flops) \
	X(memory_steps) \
	X(strategy_scaling) \
	X(replay) \
	/* the manifest's questions, answered as perfstudy whatif answers them (from the store) */ \
	X(whatif_manifest) \
	X(checks) \
	/* takes critical_path_hops out of the result (it is no CSV): before sanity and findings */ \
	X(step_timeline) \
	/* after every figure with a bar per rank */ \
	X(figure_ranks) \
	/* after every other figure, so that adding its own renumbers none */ \
	X(op_roofline) \
	/* reads every table so far: flags impossible shares */ \
	X(sanity) \
	X(findings) \
	X(history) \
	/* the tables the manifest's comparisons name, of every experiment */ \
	X(crossexp)

#define DECLARE(name) extern const struct analysis_def analysis_def_##name;
ANALYSES(DECLARE)
#undef DECLARE

#define POINT(name) &analysis_def_##name,
static const struct analysis_def *const registry[] = {ANALYSES(POINT)};
#undef POINT

#define NREGISTRY (sizeof(registry) / sizeof(registry[0]))

const struct analysis_def *const *analysis_registry(size_t *n)
{
	*n = NREGISTRY;
	return registry;
}

static int listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], name) || !strcmp(list[i], ANALYSIS_ANY_TABLE))
			return 1;
	return 0;
}

/* Whether figure name is in list (NULL: none), by name or by a prefix ending in '*'. */
static int figure_listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list && list[i]; i++) {
		size_t n = strlen(list[i]);
		if (n && list[i][n - 1] == '*' ? !strncmp(list[i], name, n - 1) : !strcmp(list[i], name))
			return 1;
	}
	return 0;
}

/* A table an analysis did not declare: a programming error, reported and fatal (analysis.h). */
static void undeclared(const struct analysis_def *a, const char *verb, const char *name, const char *list)
{
	fprintf(stderr,
		"perfstudy: internal error: analysis %s %s table %s, which its descriptor does not list in %s "
		"(analysis_def_%s)\n",
		a->name, verb, name, list, a->name);
	abort();
}

/* Runs the entries of kind when; out->current names the one running. */
static int run_entries(const struct analysis_ctx *ctx, struct analysis_result *out, enum analysis_when when)
{
	int timed = timing_enabled(), counted = counting_enabled();
	for (size_t i = 0; i < NREGISTRY; i++) {
		if (registry[i]->when != when)
			continue;
		double t0 = timed ? timing_now() : 0, c0 = timed ? timing_thread_cpu() : 0;
		long long w0[WORK_NKINDS];
		memcpy(w0, work_count, sizeof(w0));
		out->current = registry[i];
		int rc = registry[i]->run(ctx, out);
		out->current = NULL;
		if (rc < 0)
			return -1;
		/* PERFSTUDY_TIMING: where the analyze stage goes, one line per analysis. */
		if (timed)
			fprintf(stderr, "perfstudy: timing: analysis %s %s %.3f s, %.3f s CPU\n", ctx->experiment,
				registry[i]->name, timing_now() - t0, timing_thread_cpu() - c0);
		/* PERFSTUDY_COUNTS: the work of each analysis, counted (util/timing.h). */
		if (counted)
			fprintf(stderr,
				"perfstudy: counts: analysis %s %s %lld VM steps, %lld rows, %lld cells, %lld scanned\n",
				ctx->experiment, registry[i]->name, work_count[WORK_VM_STEPS] - w0[WORK_VM_STEPS],
				work_count[WORK_ROWS] - w0[WORK_ROWS], work_count[WORK_CELLS] - w0[WORK_CELLS],
				work_count[WORK_SCANNED] - w0[WORK_SCANNED]);
	}
	return 0;
}

/*
 * Whether figure name rests on individual kernels' times and start times
 * (per-rank top kernels, the temporal breakdown, idle time, overlap), the
 * parts a typed-in trace fills with invented kernels.
 */
static int rests_on_kernels(const char *name)
{
	static const char *const prefixes[] = {"top_kernels", "temporal", "idle", "gpu_idle", "overlap"};
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

/*
 * The manifest's 'invented' (what of its inputs is made up): each figure
 * that rests on individual kernels says so in its caption, and a note names
 * them, so the page never shows invented data unmarked.
 */
static void mark_invented(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const char *what = ctx->manifest ? ctx->manifest->invented : NULL;
	if (!what)
		return;
	struct buf names;
	buf_init(&names);
	for (size_t i = 0; i < out->nfigures; i++) {
		struct analysis_figure *f = &out->figures[i];
		if (!f->chart || !rests_on_kernels(f->chart->name))
			continue;
		char *cap = xasprintf("%s%sBuilt on invented data: %s", f->caption ? f->caption : "",
				      f->caption && f->caption[0] ? " " : "", what);
		free(f->caption);
		f->caption = cap;
		buf_printf(&names, "%s%s", names.len ? ", " : "", f->chart->name);
	}
	result_add_note(out, "Invented data (the manifest's 'invented'): %s The figures that rest on individual "
			"kernels' times and start times say so in their captions%s%s; temporal.csv, "
			"idle_time.csv and overlap.csv rest on the same invented start times.", what, names.len ? ": " : "", names.len ? names.data : "");
	buf_release(&names);
}

int analyze_experiment(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	memset(out, 0, sizeof(*out));
	int ret = run_entries(ctx, out, ANALYSIS_EXPERIMENT);
	if (ret == 0)
		mark_invented(ctx, out);
	if (ret < 0)
		analysis_result_release(out);
	rank_cache_clear();
	return ret;
}

int analyze_across(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	return run_entries(ctx, out, ANALYSIS_ACROSS);
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
	for (size_t i = 0; i < r->nnotes; i++) {
		free(r->notes[i]);
		if (r->more)
			free(r->more[i].v);
	}
	free(r->notes);
	free(r->more);
	memset(r, 0, sizeof(*r));
}

void result_add_table(struct analysis_result *r, struct table *t)
{
	if (r->current && !listed(r->current->makes, t->name))
		undeclared(r->current, "adds", t->name, "makes[]");
	r->tables = xgrow(r->tables, &r->cap_tables, r->ntables + 1, sizeof(*r->tables));
	r->tables[r->ntables++] = t;
}

void result_add_figure(struct analysis_result *r, struct chart *c, const char *caption)
{
	if (r->current && !figure_listed(r->current->figures, c->name)) {
		fprintf(stderr,
			"perfstudy: internal error: analysis %s adds figure %s, which its descriptor does not list in "
			"figures (analysis_def_%s)\n",
			r->current->name, c->name, r->current->name);
		abort();
	}
	/*
	 * A chart with two values for one cell would draw one over the other
	 * (chart_set): it is not drawn, and a warning and the page's notes say
	 * which figure and cell. That is a fault of perfstudy's, never of the input.
	 */
	if (c->collisions) {
		const char *cat = c->categories[c->collision_cat], *ser = c->series[c->collision_series];
		diag_warning(c->name, "two values for one bar (category '%.80s', series '%.80s', %zu such); the "
			     "figure is not drawn: a fault in perfstudy", cat, ser, c->collisions);
		result_add_note(r, "figure %s is not drawn: two of its values fell on one bar (category '%.80s', series "
				"'%.80s'), a fault in perfstudy", c->name, cat, ser);
		chart_free(c);
		return;
	}
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

int notes_rank_at(const char *note, size_t *at, size_t *len)
{
	for (const char *p = strstr(note, " rank "); p; p = strstr(p + 1, " rank ")) {
		const char *q = p + 6;
		size_t n = strspn(q, "0123456789");
		if (n) {
			*at = (size_t)(q - note);
			*len = n;
			return 1;
		}
	}
	return 0;
}

int notes_same_but_rank(const char *a, const char *b)
{
	size_t ia, la, ib, lb;
	return notes_rank_at(a, &ia, &la) && notes_rank_at(b, &ib, &lb) && ia == ib && !strncmp(a, b, ia) &&
	       !strcmp(a + ia + la, b + ib + lb);
}

void notes_with_rank(const char *note, long rank, struct buf *out)
{
	size_t at = 0, len = 0;
	buf_reset(out);
	if (!notes_rank_at(note, &at, &len)) {
		buf_adds(out, note);
		return;
	}
	buf_add(out, note, at);
	buf_printf(out, "%ld", rank);
	buf_adds(out, note + at + len);
}

/*
 * Folds s into the note before it where s says the same of another rank
 * and its rank number is written as "%ld" writes it (so that
 * notes_with_rank gives s back, byte for byte): 1, and s is freed.
 */
static int fold_note(struct analysis_result *r, char *s)
{
	if (!r->nnotes || !notes_same_but_rank(r->notes[r->nnotes - 1], s))
		return 0;
	size_t at, len;
	notes_rank_at(s, &at, &len);
	char digits[24];
	if (len >= sizeof(digits))
		return 0;
	long v = strtol(s + at, NULL, 10);
	if (snprintf(digits, sizeof(digits), "%ld", v) != (int)len || memcmp(digits, s + at, len))
		return 0;
	if (!r->more)
		r->more = xcalloc(r->cap_notes, sizeof(*r->more));
	struct note_ranks *m = &r->more[r->nnotes - 1];
	m->v = xgrow(m->v, &m->cap, m->n + 1, sizeof(*m->v));
	m->v[m->n++] = v;
	free(s);
	return 1;
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
	if (fold_note(r, s))
		return;
	size_t cap = r->cap_notes;
	r->notes = xgrow(r->notes, &r->cap_notes, r->nnotes + 1, sizeof(*r->notes));
	if (r->more && r->cap_notes != cap) {
		r->more = xreallocarray(r->more, r->cap_notes, sizeof(*r->more));
		memset(r->more + cap, 0, (r->cap_notes - cap) * sizeof(*r->more));
	}
	r->notes[r->nnotes++] = s;
}

struct table *result_table(const struct analysis_result *r, const char *name)
{
	if (r->current && !listed(r->current->needs, name) && !listed(r->current->makes, name))
		undeclared(r->current, "reads", name, "needs[]");
	if (r->runs && !strcmp(r->runs->name, name))
		return r->runs;
	for (size_t i = 0; i < r->ntables; i++)
		if (!strcmp(r->tables[i]->name, name))
			return r->tables[i];
	return NULL;
}

void result_drop_table(struct analysis_result *r, struct table *t)
{
	size_t k = 0;
	for (size_t i = 0; i < r->ntables; i++)
		if (r->tables[i] != t)
			r->tables[k++] = r->tables[i];
	if (k < r->ntables)
		table_free(t);
	r->ntables = k;
}
