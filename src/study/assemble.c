/*
 * study/assemble.c: a build's output stage. Each experiment's finished
 * analysis becomes its figures (drawn by --jobs processes), the tables and
 * notes its page shows (those without data left out), its Provenance
 * inputs, and the page itself; then the index of all experiments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/classify.h"
#include "analyze/lib/layout.h"
#include "study/build_int.h"
#include "chart/chart.h"
#include "chart/figures.h"
#include "report/trace_export.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/timing.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

void exp_output_release(struct exp_output *o)
{
	analysis_result_release(&o->res);
	free(o->figs);
	free(o->methods);
	free(o->tables);
	for (size_t i = 0; i < o->ninputs * 2; i++)
		free(o->input_strs[i]);
	free(o->input_strs);
	free(o->inputs);
	free(o->models);
	free(o->date);
	free(o->headline);
	trace_export_free(o->traces, o->ntraces);
}

static int collect_inputs(struct store *s, const char *exp, struct exp_output *o)
{
	struct store_stmt *st = store_query(s, "list inputs",
					    "SELECT t.path, t.size, t.sha256 FROM run_traces t"
					    " WHERE t.experiment = ?1 AND t.part_of IS NULL"
					    " ORDER BY t.position, t.file_index", exp);
	if (!st)
		return -1;
	size_t cap = 0, cap2 = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		o->inputs = xgrow(o->inputs, &cap, o->ninputs + 1, sizeof(*o->inputs));
		o->input_strs = xgrow(o->input_strs, &cap2, 2 * o->ninputs + 2, sizeof(char *));
		o->input_strs[2 * o->ninputs] = xstrdup((const char *)store_column_text(st, 0));
		o->input_strs[2 * o->ninputs + 1] = xstrdup((const char *)store_column_text(st, 2));
		o->inputs[o->ninputs].path = o->input_strs[2 * o->ninputs];
		o->inputs[o->ninputs].sha256 = o->input_strs[2 * o->ninputs + 1];
		o->inputs[o->ninputs].size = store_column_int64(st, 1);
		o->ninputs++;
	}
	store_finalize(st);
	if (rc < 0)
		return -1;
	o->traced = o->ninputs > 0;
	/*
	 * Models in manifest order without repeats; the most GPUs of any run;
	 * the newest trace's date, from its epoch offset (Kineto's
	 * baseTimeNanoseconds) or, without one, from times that already are
	 * epoch times (plausible between 2000 and 2100).
	 */
	st = store_query(s, "summarize runs",
			 "SELECT (SELECT group_concat(model, ', ') FROM (SELECT model FROM runs"
			 "   WHERE experiment = ?1 AND model IS NOT NULL GROUP BY model ORDER BY min(position))),"
			 " (SELECT max(g) FROM (SELECT coalesce(r.gpus, (SELECT max(world_size) FROM traces t"
			 "   WHERE t.run_id = r.id),"
			 " (SELECT count(*) FROM traces t WHERE t.run_id = r.id AND t.rank IS NOT NULL)) AS g"
			 "   FROM runs r WHERE r.experiment = ?1)),"
			 " (SELECT date(max(t.last_ns + coalesce(t.epoch_offset_ns, 0)) / 1000000000, 'unixepoch')"
			 "   FROM run_traces t WHERE t.experiment = ?1"
			 "   AND t.last_ns + coalesce(t.epoch_offset_ns, 0)"
			 " BETWEEN 946684800000000000 AND 4102444800000000000)", exp);
	if (!st)
		return -1;
	rc = store_next(st);
	if (rc > 0) {
		if (store_column_type(st, 0) != STORE_NULL)
			o->models = xstrdup((const char *)store_column_text(st, 0));
		o->gpus_max = store_column_int(st, 1);
		if (store_column_type(st, 2) != STORE_NULL)
			o->date = xstrdup((const char *)store_column_text(st, 2));
	}
	store_finalize(st);
	return rc < 0 ? -1 : 0;
}

/*
 * The look of an experiment's figures: the manifest's size preset, explicit
 * size (which wins), font, hatching and log scale, and the study's colour
 * map: groups in the classification's order, the analyses' names with
 * fixed colours, and the runs' ids and labels (runs are drawn in greys). Returns the array style->runs and
 * style->run_labels point into; the caller frees it after the last chart_write.
 */
static const char **figure_style(const struct exp_plan *e, struct chart_style *style)
{
	memset(style, 0, sizeof(*style));
	const struct manifest *m = e->manifest;
	if (m) {
		if (m->figures.size)
			chart_size_preset(m->figures.size, &style->width_in, &style->height_in);
		if (m->figures.width_in > 0)
			style->width_in = m->figures.width_in;
		if (m->figures.height_in > 0)
			style->height_in = m->figures.height_in;
		style->font = m->figures.font;
		style->font_size = m->figures.font_size;
		style->hatching = m->figures.hatching;
		/* The manifest says -1 auto, 0 never, 1 always; the style 0 auto, -1 never. */
		style->log_scale = m->figures.log_scale < 0 ? 0 : m->figures.log_scale ? 1 : -1;
	}
	style->ngroups = classifier_groups(e->cls, &style->groups);
	style->colours = analysis_colours(&style->ncolours);
	/* One array: the ids, then the labels (NULL where a run has none). */
	const char **runs = xcalloc(2 * e->nruns + 1, sizeof(*runs));
	for (size_t i = 0; i < e->nruns; i++) {
		runs[i] = e->runs[i].id;
		runs[e->nruns + i] = e->runs[i].info.label;
	}
	style->runs = runs;
	style->run_labels = runs + e->nruns;
	style->nruns = e->nruns;
	return runs;
}

/*
 * The index's one line on an experiment, from its run table: how many runs,
 * the range of GPUs, and the range of the runs' mean step times, e.g.
 * "5 runs, 1–2 GPUs, mean step 53.6–109.0 ms". Returns NULL without runs.
 */
static char *make_headline(const struct table *runs)
{
	if (!runs || !runs->nrows)
		return NULL;
	int cg = RUNS_GPUS, cs = RUNS_MEAN_STEP_US;
	int64_t gmin = INT64_MAX, gmax = 0, smin = INT64_MAX, smax = -1;
	for (size_t i = 0; i < runs->nrows; i++) {
		const struct cell *g = cg >= 0 ? table_cell(runs, i, (size_t)cg) : NULL;
		const struct cell *st = cs >= 0 ? table_cell(runs, i, (size_t)cs) : NULL;
		if (g && !g->null && g->v.i > 0) {
			gmin = g->v.i < gmin ? g->v.i : gmin;
			gmax = g->v.i > gmax ? g->v.i : gmax;
		}
		if (st && !st->null) {
			smin = st->v.i < smin ? st->v.i : smin;
			smax = st->v.i > smax ? st->v.i : smax;
		}
	}
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "%zu run%s", runs->nrows, runs->nrows == 1 ? "" : "s");
	if (gmax > 0) {
		if (gmin == gmax)
			buf_printf(&b, ", %" PRId64 " GPU%s", gmax, gmax == 1 ? "" : "s");
		else
			buf_printf(&b, ", %" PRId64 "\u2013%" PRId64 " GPUs", gmin, gmax);
	}
	if (smax >= 0) {
		if (smin == smax)
			buf_printf(&b, ", mean step %.1f ms", (double)smax / 1e6);
		else
			buf_printf(&b, ", mean step %.1f\u2013%.1f ms", (double)smin / 1e6, (double)smax / 1e6);
	}
	return buf_detach(&b);
}

/*
 * The models the training logs give where the manifest names none
 * (runs.csv model where model_source is "training log (<file>): ..."), each
 * once, then " (training logs)": "53.6M params (training logs)". Appended
 * to b; nothing where no log gives one.
 */
static void models_from_logs(struct buf *b, const struct table *runs)
{
	size_t n = runs ? runs->nrows : 0, start = b->len, said = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = table_text(runs, i, RUNS_MODEL), *src = table_text(runs, i, RUNS_MODEL_SOURCE);
		if (!v || !*v || !src || strncmp(src, "training log (", 14))
			continue;
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++) {
			const char *w = table_text(runs, k, RUNS_MODEL), *ws = table_text(runs, k, RUNS_MODEL_SOURCE);
			seen = w && ws && !strcmp(w, v) && !strncmp(ws, "training log (", 14);
		}
		if (!seen)
			buf_printf(b, "%s%s", said++ ? ", " : "", v);
	}
	if (b->len > start)
		buf_adds(b, " (training logs)");
}

/*
 * The page's Models fact: the manifest's models (models; NULL: none named),
 * then the runs' strategies as the figures name them (runs.csv strategy,
 * layout_strategy_shown) with where they came from (strategy_source:
 * manifest, trace annotations, training logs, a 1-GPU run without a
 * wrapper), those of one source
 * together: "GPT-2 124M; strategies single, DDP, ZeRO-1 (manifest)", "not
 * named in the manifest; strategy DDP (trace annotations and training
 * logs)"; without a manifest's models those the training logs give
 * (models_from_logs): "53.6M params (training logs); strategy DDP (...)".
 * NULL when there is neither. Frees models.
 */
static char *models_fact(char *models, const struct table *runs, const struct manifest *m)
{
	int cst = runs ? RUNS_STRATEGY : -1, csrc = runs ? RUNS_STRATEGY_SOURCE : -1;
	size_t n = runs ? runs->nrows : 0, ns = 0, none = 0;
	char(*shown)[64] = xcalloc(n + 1, sizeof(*shown));
	unsigned *from = xcalloc(n + 1, sizeof(*from));
	for (size_t i = 0; i < n; i++) {
		const char *st = table_text(runs, i, cst), *src = table_text(runs, i, csrc), *id = table_text(runs, i, RUNS_RUN);
		if (!st || !*st) {
			none++;
			continue;
		}
		const struct manifest_run *mr = NULL;
		for (size_t k = 0; m && id && k < m->nruns && !mr; k++)
			if (!strcmp(m->runs[k].id, id))
				mr = &m->runs[k];
		char name[64];
		layout_strategy_shown(mr, st, name, sizeof(name));
		unsigned bits = !src || !strcmp(src, "manifest") ? 1u : 0u;
		bits |= src && !strncmp(src, "trace: ", 7) ? 2u : 0u;
		/* the logs agree: "training log (<file>): ..." first, or "; training log (<file>): ..." after the trace's */
		bits |= src && (!strncmp(src, "training log (", 14) || strstr(src, "; training log (")) ? 4u : 0u;
		bits |= src && !strncmp(src, "one GPU, ", 9) ? 8u : 0u;
		size_t k = 0;
		while (k < ns && strcmp(shown[k], name))
			k++;
		if (k == ns)
			snprintf(shown[ns++], sizeof(shown[0]), "%s", name);
		from[k] |= bits;
	}
	struct buf b;
	buf_init(&b);
	if (models)
		buf_adds(&b, models);
	else
		models_from_logs(&b, runs);
	int named = b.len > 0;
	if (ns) {
		static const char *const word[] = {"manifest", "trace annotations", "training logs",
						   "one GPU, no wrapper in its traces"};
		buf_printf(&b, "%s; strateg%s ", named ? "" : "not named in the manifest", ns > 1 ? "ies" : "y");
		for (size_t k = 0; k < ns; k++) {
			buf_printf(&b, "%s%s", k ? ", " : "", shown[k]);
			if (k + 1 < ns && from[k + 1] == from[k])
				continue;
			buf_adds(&b, " (");
			for (int w = 0, said = 0; w < 4; w++)
				if (from[k] & (1u << w))
					buf_printf(&b, "%s%s", said++ ? " and " : "", word[w]);
			buf_addc(&b, ')');
		}
		if (none)
			buf_printf(&b, "; not known for %zu run%s", none, none == 1 ? "" : "s");
	}
	free(shown);
	free(from);
	free(models);
	if (b.len)
		return buf_detach(&b);
	buf_release(&b);
	return NULL;
}

/*
 * GPUs (max) where no run records its GPUs (a study of published tables):
 * the GPUs the manifest's model-parallelism estimate splits
 * (parallel_comm's gpus), else the system's (hardware gpus), saying which.
 */
static void gpus_of_manifest(const struct manifest *m, struct exp_output *o)
{
	if (o->gpus_max > 0 || !m)
		return;
	double hw = manifest_hardware_number(m, "gpus");
	if (m->parallel_comm.run && m->parallel_comm.gpus > 0) {
		o->gpus_max = m->parallel_comm.gpus;
		o->gpus_source = "the model-parallelism estimate's, from the manifest's parallel_comm; no run records "
				 "its GPUs";
	} else if (hw >= 1 && hw <= 1e9) {
		o->gpus_max = (int)hw;
		o->gpus_source = "the system's, from the manifest's hardware gpus; no run records its GPUs";
	}
}

/*
 * Puts the files the traces were read with into the Provenance inputs too:
 * the manifest first, then its nvidia-smi and topology files, each with size
 * and SHA-256.
 */
static int add_file_inputs(const struct exp_plan *e, struct exp_output *o)
{
	const char *files[3] = {e->source, e->manifest ? e->manifest->hardware.nvidia_smi : NULL,
				e->manifest ? e->manifest->hardware.topology : NULL};
	for (int k = 2; k >= 0; k--) {
		if (!files[k])
			continue;
		FILE *f = fopen(files[k], "rb");
		if (!f) {
			diag_syserror(files[k], "cannot read: %s", strerror(errno));
			return -1;
		}
		struct sha256 h;
		sha256_init(&h);
		char chunk[8192];
		size_t n;
		int64_t size = 0;
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
			sha256_update(&h, chunk, n);
			size += (int64_t)n;
		}
		fclose(f);
		char hex[65];
		sha256_final_hex(&h, hex);
		/* Shift the trace inputs up: these come first, manifest before nvidia-smi. */
		o->inputs = xrealloc(o->inputs, (o->ninputs + 1) * sizeof(*o->inputs));
		o->input_strs = xrealloc(o->input_strs, (2 * o->ninputs + 2) * sizeof(char *));
		memmove(o->inputs + 1, o->inputs, o->ninputs * sizeof(*o->inputs));
		memmove(o->input_strs + 2, o->input_strs, 2 * o->ninputs * sizeof(char *));
		o->input_strs[0] = xstrdup(files[k]);
		o->input_strs[1] = xstrdup(hex);
		o->inputs[0] = (struct report_input){o->input_strs[0], size, o->input_strs[1]};
		o->ninputs++;
	}
	return 0;
}

/*
 * Whether a table has something to show: a row, and, where it has columns
 * of measured quantities (times, fractions, reals), one such cell given
 * and not 0. A study typed in from a paper has no traces: scaling.csv's
 * rows hold only run and GPU count, compare.csv's group times are all 0.
 */
static int table_has_data(const struct table *t)
{
	if (!t->nrows)
		return 0;
	/* changes.csv's runs added, removed and re-read are data without a number (history.c). */
	if (!strcmp(t->name, "changes"))
		return 1;
	int measured = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		enum col_type ty = t->cols[c].type;
		if (ty != COL_US && ty != COL_FRAC && ty != COL_REAL)
			continue;
		measured = 1;
		for (size_t r = 0; r < t->nrows; r++) {
			const struct cell *x = table_cell(t, r, c);
			if (!x->null && (ty == COL_US ? x->v.i != 0 : x->v.f != 0))
				return 1;
		}
	}
	return !measured;
}

/*
 * Whether r shows a table of that name (len bytes): one with data (has[i],
 * table_has_data of table i, worked out once: a note per rank each scanning
 * a table of zeros was quadratic in ranks).
 */
static int shows_table(const struct analysis_result *r, const unsigned char *has, const char *name, size_t len)
{
	for (size_t i = 0; i < r->ntables; i++)
		if (strlen(r->tables[i]->name) == len && !strncmp(r->tables[i]->name, name, len))
			return has[i];
	return 0;
}

/* Adds ", name.csv" (len bytes of name) to names unless it is there. */
static void add_name(struct buf *names, const char *name, size_t len, size_t *n)
{
	char *item = xasprintf("%.*s.csv", (int)len, name);
	int have = 0;
	for (const char *p = names->len ? strstr(names->data, item) : NULL; p && !have; p = strstr(p + 1, item))
		have = (p == names->data || p[-1] == ' ') && (p[strlen(item)] == ',' || !p[strlen(item)]);
	if (!have) {
		buf_printf(names, "%s%s", names->len ? ", " : "", item);
		(*n)++;
	}
	free(item);
}

/*
 * A table left out takes its notes ("<name>.csv: ...", one per run as a
 * rule) with it, whether it had rows without data or none at all; one
 * note, first, names the tables left out that had rows or notes, so the
 * page says so once instead of once per run and table.
 */
static void drop_notes_of_left_out(struct analysis_result *r)
{
	struct buf names;
	buf_init(&names);
	size_t dropped = 0, ntables = 0, keep = 0;
	unsigned char *has = xcalloc(r->ntables + 1, 1);
	for (size_t i = 0; i < r->ntables; i++) {
		has[i] = (unsigned char)table_has_data(r->tables[i]);
		if (r->tables[i]->nrows && !has[i] && !r->tables[i]->internal)
			add_name(&names, r->tables[i]->name, strlen(r->tables[i]->name), &ntables);
	}
	for (size_t n = 0; n < r->nnotes; n++) {
		const char *note = r->notes[n], *p = note;
		while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
			p++;
		size_t len = (size_t)(p - note);
		/* the notes folded into it (analysis.h: more) name the same table */
		struct note_ranks more = r->more ? r->more[n] : (struct note_ranks){0, 0, NULL};
		if (len && !strncmp(p, ".csv:", 5) && !shows_table(r, has, note, len)) {
			add_name(&names, note, len, &ntables);
			free(r->notes[n]);
			free(more.v);
			dropped += 1 + more.n;
		} else {
			if (r->more)
				r->more[keep] = more;
			r->notes[keep++] = r->notes[n];
		}
	}
	if (r->more)
		memset(r->more + keep, 0, (r->nnotes - keep) * sizeof(*r->more));
	r->nnotes = keep;
	free(has);
	if (ntables) {
		buf_printf(&names, ".");
		if (dropped)
			buf_printf(&names, " Their %zu note%s on single runs %s not repeated.", dropped,
				   dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
		size_t before = r->nnotes;
		result_add_note(r, "Left out, as no run has data for %s: %s", ntables == 1 ? "it" : "them", names.data);
		/* First: it explains why the page has less than other studies' pages (it names no rank: never folded). */
		if (r->nnotes > before) {
			char *first = r->notes[r->nnotes - 1];
			memmove(r->notes + 1, r->notes, (r->nnotes - 1) * sizeof(*r->notes));
			r->notes[0] = first;
			if (r->more) { /* its own entry (none folded into it) goes first with it */
				struct note_ranks none = r->more[r->nnotes - 1];
				memmove(r->more + 1, r->more, (r->nnotes - 1) * sizeof(*r->more));
				r->more[0] = none;
			}
		}
	}
	buf_release(&names);
}

/* Draws o's figures and gathers what the report shows; o->res is the experiment's finished analysis. */
static int output_experiment(struct store *s, struct exp_plan *e, const char *site, int jobs, struct exp_output *o)
{
	char *figdir = xasprintf("%s/%s/figures", site, e->id);
	int ret = -1;
	if (fs_mkdirs(figdir) < 0)
		goto out;
	struct chart_style style;
	const char **run_ids = figure_style(e, &style);
	const struct analysis_result *r = &o->res;
	o->figs = xcalloc(r->nfigures + 1, sizeof(*o->figs));
	const struct chart **charts = xcalloc(r->nfigures + 1, sizeof(*charts));
	const char **captions = xcalloc(r->nfigures + 1, sizeof(*captions));
	for (size_t i = 0; i < r->nfigures; i++) {
		/* A figure with nothing to draw (an analysis the runs' data cannot support) is left out. */
		if (chart_is_empty(r->figures[i].chart))
			continue;
		/* Bars and keys name runs by the manifest's labels, not their ids. */
		chart_use_run_labels(r->figures[i].chart, style.runs, style.run_labels, style.nruns);
		charts[o->nfigs] = r->figures[i].chart;
		captions[o->nfigs] = r->figures[i].caption;
		o->figs[o->nfigs].name = r->figures[i].chart->name;
		o->figs[o->nfigs].caption = r->figures[i].caption;
		o->nfigs++;
	}
	/* --jobs processes draw the figures (the same bytes as one). */
	double t_chart = timing_now();
	int frc = chart_write_many(charts, captions, o->nfigs, figdir, &style, jobs);
	timing_add(TIME_CHART, timing_now() - t_chart);
	free(charts);
	free(captions);
	free(run_ids);
	if (frc < 0)
		goto out;
	o->methods = xcalloc(r->nmethods + 1, sizeof(*o->methods));
	for (size_t i = 0; i < r->nmethods; i++) {
		o->methods[i].term = r->methods[i].term;
		o->methods[i].text = r->methods[i].text;
	}
	o->tables = xcalloc(r->ntables + 1, sizeof(*o->tables));
	/*
	 * Tables with no data are left out of the page and data/, as empty
	 * figures are (drop_no_data); internal ones (table.h) are never shown.
	 */
	for (size_t i = 0; i < r->ntables; i++)
		if (table_has_data(r->tables[i]) && !r->tables[i]->internal)
			o->tables[o->ntables++] = r->tables[i];
	drop_notes_of_left_out(&o->res);
	o->headline = make_headline(r->runs);
	if (collect_inputs(s, e->id, o) < 0 || add_file_inputs(e, o) < 0)
		goto out;
	o->models = models_fact(o->models, r->runs, e->manifest);
	gpus_of_manifest(e->manifest, o);
	/* Each run's merged trace, from the store and every table (those left out of the page too). */
	if (trace_export_experiment(s, site, e->id, (const struct table *const *)r->tables, r->ntables, &o->traces,
				    &o->ntraces) < 0)
		goto out;
	ret = 0;
out:
	free(figdir);
	return ret;
}


/* The page of experiment i: what output_experiment gathered, and the warnings met so far. */
static int write_page(struct build *b, size_t i, struct report_experiment *rep)
{
	struct exp_plan *e = &b->plan.exps[i];
	struct exp_output *o = &b->outs[i];
	*rep = (struct report_experiment){
		.id = e->id,
		.title = e->title,
		.description = e->description,
		.classification = classifier_name(e->cls),
		.gpus_max = o->gpus_max,
		.untraced = !o->traced,
		.gpus_source = o->gpus_source,
		.newest_trace_date = o->date,
		.headline = o->headline,
		.models = o->models,
		.runs = o->res.runs,
		.ntables = o->ntables,
		.tables = o->tables,
		.nfigures = o->nfigs,
		.figures = o->figs,
		.nmethods = o->res.nmethods,
		.methods = o->methods,
		.methods_rules = classifier_describe(e->cls),
		.nnotes = o->res.nnotes,
		.notes = (const char *const *)o->res.notes,
		.notes_more = o->res.more,
		.ninputs = o->ninputs,
		.inputs = o->inputs,
		.manifest_text = e->manifest_text,
		.nwarnings = diag_warning_count(),
		.ntraces = o->ntraces,
		.traces = o->traces,
	};
	const char **warns = xcalloc(diag_warning_count() + 1, sizeof(*warns));
	for (size_t w = 0; w < diag_warning_count(); w++)
		warns[w] = diag_warning_text(w);
	rep->warnings = warns;
	int rc = report_write_experiment(b->tmp, rep);
	free(warns);
	rep->warnings = NULL;
	return rc;
}

int assemble_site(struct build *b)
{
	size_t n = b->plan.nexp;
	const struct report_experiment **reps = xcalloc(n + 1, sizeof(*reps));
	struct report_experiment *rep = xcalloc(n + 1, sizeof(*rep));
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		xalloc_context("writing the figures and page of experiment", b->plan.exps[i].id, NULL);
		if (output_experiment(b->store, &b->plan.exps[i], b->tmp, b->opt->jobs, &b->outs[i]) < 0)
			goto out;
		int rc = write_page(b, i, &rep[i]);
		reps[i] = &rep[i];
		if (rc < 0)
			goto out;
	}
	xalloc_context("writing", "index.html", NULL);
	if (report_write_index(b->tmp, reps, n) < 0)
		goto out;
	ret = 0;
out:
	free(reps);
	free(rep);
	return ret;
}
