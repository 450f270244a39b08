/*
 * cmd_build.c: `perfstudy build`, the whole pipeline.
 *
 *   inputs -> plan (experiments, runs, trace files)
 *          -> ingest every trace into the store (one transaction per trace)
 *          -> analyze each experiment -> chart models -> figures
 *          -> report (HTML + CSV)
 *
 * Everything is written into DIR.tmp.<pid> beside DIR and swapped in at the
 * end, so a failed build leaves the previous output as it was and no
 * partial directory behind.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/analysis.h"
#include "analyze/classify.h"
#include "chart/chart.h"
#include "chart/figures.h"
#include "cli.h"
#include "ingest/ingest.h"
#include "manifest/manifest.h"
#include "report/report.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

void usage_build(void)
{
	printf("usage: perfstudy build [-o DIR] [--classify PRESET] [-q] INPUT...\n\n"
	       "Each INPUT is a manifest (.yaml/.yml) or a trace directory or file.\n"
	       "Each manifest is one experiment; all directories and files given are the\n"
	       "runs of one experiment named 'default'. A directory is one run whose\n"
	       "*.json and *.json.gz files are its ranks; its run id is its path relative\n"
	       "to the deepest common parent of all directories given.\n\n"
	       "  -o, --output DIR     output directory (default: out); replaced atomically\n"
	       "  --classify PRESET    kernel classification: default, payoungkhamdee2021\n"
	       "                       (overrides a manifest's classify setting)\n"
	       "  -q, --quiet          no progress or warnings on stderr\n"
	       "  -h, --help           this help\n\n"
	       "Writes DIR/index.html, DIR/perfstudy.db, DIR/<experiment>/index.html,\n"
	       "DIR/<experiment>/data/*.csv and DIR/<experiment>/figures/*.{svg,pdf,png}.\n"
	       "Exit: 0 ok, 1 bad input, 2 usage, 3 I/O or system error.\n");
}

struct run_plan {
	struct store_run info;
	char *id;
	size_t ntraces;
	char **traces;
};

struct exp_plan {
	char *id;
	char *title;
	char *description;
	char *source;        /* manifest path or NULL */
	const char *manifest_text;
	struct classifier *cls;
	int top_n;
	size_t nruns, cap_runs;
	struct run_plan *runs;
	struct manifest *manifest; /* owned, may be NULL */
};

struct plan {
	size_t nexp, cap_exp;
	struct exp_plan *exps;
};

static void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nexp; i++) {
		struct exp_plan *e = &p->exps[i];
		for (size_t r = 0; r < e->nruns; r++) {
			for (size_t t = 0; t < e->runs[r].ntraces; t++)
				free(e->runs[r].traces[t]);
			free(e->runs[r].traces);
			free(e->runs[r].id);
		}
		free(e->runs);
		free(e->id);
		free(e->title);
		free(e->description);
		free(e->source);
		classifier_free(e->cls);
		if (e->manifest)
			manifest_free(e->manifest);
	}
	free(p->exps);
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);
	return n >= m && !strcmp(s + n - m, suf);
}

static int is_manifest_path(const char *s)
{
	return has_suffix(s, ".yaml") || has_suffix(s, ".yml");
}

static int is_trace_name(const char *s)
{
	return has_suffix(s, ".json") || has_suffix(s, ".json.gz");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The trace files of a run directory, sorted. */
static int list_traces(const char *dir, char ***out, size_t *n)
{
	DIR *d = opendir(dir);
	if (!d) {
		diag_syserror(dir, "cannot open directory: %s", strerror(errno));
		return -1;
	}
	char **v = NULL;
	size_t cap = 0, k = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !is_trace_name(e->d_name))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		if (fs_is_dir(p) != 0) {
			free(p);
			continue;
		}
		v = xgrow(v, &cap, k + 1, sizeof(*v));
		v[k++] = p;
	}
	closedir(d);
	if (!k) {
		diag_error(dir, "no trace files in directory (expected *.json or *.json.gz)");
		free(v);
		return -1;
	}
	qsort(v, k, sizeof(*v), cmp_str);
	*out = v;
	*n = k;
	return 0;
}

/* The run id of a directory: its path relative to the common parent. */
static char *relative_id(const char *real, const char *parent)
{
	size_t n = strlen(parent);
	const char *p = real;
	if (!strncmp(real, parent, n)) {
		p = real + n;
		while (*p == '/')
			p++;
	}
	return xstrdup(*p ? p : real);
}

static char *common_parent(char **paths, size_t n)
{
	/* Start from the first path's parent and shorten to a common prefix at '/'. */
	char *c = xstrdup(paths[0]);
	char *slash = strrchr(c, '/');
	if (slash)
		*(slash == c ? slash + 1 : slash) = '\0';
	for (size_t i = 1; i < n; i++) {
		for (;;) {
			size_t len = strlen(c);
			if (!strncmp(paths[i], c, len) && (paths[i][len] == '/' || len == 1))
				break;
			slash = strrchr(c, '/');
			if (!slash || slash == c) {
				c[1] = '\0';
				break;
			}
			*slash = '\0';
		}
	}
	return c;
}

static void add_run(struct exp_plan *e, struct run_plan *r)
{
	e->runs = xgrow(e->runs, &e->cap_runs, e->nruns + 1, sizeof(*e->runs));
	r->info.position = (int)e->nruns;
	e->runs[e->nruns++] = *r;
}

static struct exp_plan *add_exp(struct plan *p)
{
	p->exps = xgrow(p->exps, &p->cap_exp, p->nexp + 1, sizeof(*p->exps));
	struct exp_plan *e = &p->exps[p->nexp++];
	memset(e, 0, sizeof(*e));
	e->top_n = 10;
	return e;
}

static struct classifier *make_classifier(const char *preset, const struct manifest *m)
{
	if (!preset && m && m->nrules) {
		struct classify_rule *rules = xcalloc(m->nrules, sizeof(*rules));
		for (size_t i = 0; i < m->nrules; i++) {
			rules[i].group = m->rules[i].group;
			rules[i].pattern = m->rules[i].pattern;
			rules[i].is_regex = m->rules[i].is_regex;
			rules[i].ignore_case = m->rules[i].ignore_case;
		}
		struct classifier *c = classifier_rules(rules, m->nrules);
		free(rules);
		return c;
	}
	if (!preset)
		preset = m && m->classify_preset ? m->classify_preset : "default";
	return classifier_preset(preset);
}

static int plan_manifest(struct plan *p, const char *path, const char *preset)
{
	struct manifest *m;
	if (manifest_load(path, &m) < 0)
		return -1;
	struct exp_plan *e = add_exp(p);
	e->manifest = m;
	e->id = xstrdup(m->id);
	e->title = xstrdup(m->title);
	e->description = m->description ? xstrdup(m->description) : NULL;
	e->source = xstrdup(path);
	e->manifest_text = m->text;
	e->top_n = m->figures.top_n > 0 ? m->figures.top_n : 10;
	e->cls = make_classifier(preset, m);
	if (!e->cls)
		return -1;
	for (size_t i = 0; i < m->nruns; i++) {
		const struct manifest_run *mr = &m->runs[i];
		struct run_plan r;
		memset(&r, 0, sizeof(r));
		r.id = xstrdup(mr->id);
		r.info.run = r.id;
		r.info.label = mr->label;
		r.info.gpus = mr->gpus;
		r.info.batch = mr->batch;
		r.info.strategy = mr->strategy;
		r.info.model = mr->model.name;
		r.info.layers = mr->model.layers;
		r.info.hidden = mr->model.hidden;
		r.info.heads = mr->model.heads;
		r.info.ffn = mr->model.ffn;
		r.info.seq = mr->model.seq;
		r.info.vocab = mr->model.vocab;
		r.traces = xcalloc(mr->ntraces ? mr->ntraces : 1, sizeof(*r.traces));
		for (size_t t = 0; t < mr->ntraces; t++)
			r.traces[t] = xstrdup(mr->traces[t]);
		r.ntraces = mr->ntraces;
		add_run(e, &r);
	}
	return 0;
}

static int plan_directories(struct plan *p, char **inputs, size_t n, const char *preset)
{
	char **real = xcalloc(n, sizeof(*real));
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		real[i] = realpath(inputs[i], NULL);
		if (!real[i]) {
			if (errno == ENOENT)
				diag_error(inputs[i], "no such file or directory");
			else
				diag_syserror(inputs[i], "cannot resolve path: %s", strerror(errno));
			goto out;
		}
	}
	char *parent = common_parent(real, n);
	struct exp_plan *e = add_exp(p);
	e->id = xstrdup("default");
	e->title = xstrdup("Performance study");
	e->cls = make_classifier(preset, NULL);
	for (size_t i = 0; i < n; i++) {
		struct run_plan r;
		memset(&r, 0, sizeof(r));
		r.id = relative_id(real[i], parent);
		if (fs_is_dir(real[i]) == 1) {
			if (list_traces(inputs[i], &r.traces, &r.ntraces) < 0) {
				free(r.id);
				free(parent);
				goto out;
			}
		} else {
			r.traces = xcalloc(1, sizeof(*r.traces));
			r.traces[0] = xstrdup(inputs[i]);
			r.ntraces = 1;
		}
		for (size_t j = 0; j < e->nruns; j++)
			if (!strcmp(e->runs[j].id, r.id)) {
				diag_error(inputs[i], "run '%s' given twice", r.id);
				for (size_t t = 0; t < r.ntraces; t++)
					free(r.traces[t]);
				free(r.traces);
				free(r.id);
				free(parent);
				goto out;
			}
		r.info.run = r.id;
		add_run(e, &r);
	}
	free(parent);
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(real[i]);
	free(real);
	return ret;
}

/* Ingests one trace file; the transaction makes it all or nothing. */
static int ingest_trace(struct store *s, int64_t run_id, const char *path, int index, int quiet)
{
	int64_t tid = store_add_trace(s, run_id, path, index);
	if (tid < 0)
		return -1;
	struct ingest_sink sink;
	store_sink(s, tid, &sink);
	struct ingest_counts counts;
	struct source_meta meta;
	const char *format;
	if (!quiet)
		fprintf(stderr, "perfstudy: reading %s\n", path);
	if (ingest_file(path, &sink, &counts, &format, &meta) < 0)
		return -1;
	return store_finish_trace(s, tid, format, &meta, &counts);
}

static int check_ranks(struct store *s, int64_t run_id, const char *run)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s),
			       "SELECT a.rank, a.path, b.path FROM traces a JOIN traces b ON a.run_id = b.run_id"
			       " AND a.rank = b.rank AND a.id < b.id WHERE a.run_id = ?1 LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int ret = 0;
	if (sqlite3_step(st) == SQLITE_ROW) {
		diag_error((const char *)sqlite3_column_text(st, 2),
			   "run '%s': rank %d is also recorded by '%s'", run, sqlite3_column_int(st, 0),
			   (const char *)sqlite3_column_text(st, 1));
		ret = -1;
	}
	sqlite3_finalize(st);
	return ret;
}

static int ingest_experiment(struct store *s, struct exp_plan *e, int quiet)
{
	if (store_add_experiment(s, e->id, e->title, e->source, e->manifest_text, classifier_name(e->cls)) < 0)
		return -1;
	for (size_t r = 0; r < e->nruns; r++) {
		struct run_plan *rp = &e->runs[r];
		rp->info.experiment = e->id;
		int64_t run_id = store_add_run(s, &rp->info);
		if (run_id < 0)
			return -1;
		for (size_t t = 0; t < rp->ntraces; t++) {
			if (store_begin(s) < 0)
				return -1;
			if (ingest_trace(s, run_id, rp->traces[t], (int)t, quiet) < 0) {
				store_rollback(s);
				return -1;
			}
			if (store_commit(s) < 0)
				return -1;
		}
		if (check_ranks(s, run_id, rp->id) < 0)
			return -1;
	}
	return 0;
}

struct exp_output {
	struct analysis_result res;
	struct report_figure *figs;
	struct report_method *methods;
	const struct table **tables;
	struct report_input *inputs;
	char **input_strs;
	size_t ninputs;
	char *models;
	char *date;
	int gpus_max;
};

static void exp_output_release(struct exp_output *o)
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
}

static int collect_inputs(struct store *s, const char *exp, struct exp_output *o)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s),
			       "SELECT t.path, t.size, t.sha256 FROM traces t JOIN runs r ON r.id = t.run_id"
			       " WHERE r.experiment = ?1 ORDER BY r.position, t.file_index", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
	size_t cap = 0, cap2 = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		o->inputs = xgrow(o->inputs, &cap, o->ninputs + 1, sizeof(*o->inputs));
		o->input_strs = xgrow(o->input_strs, &cap2, 2 * o->ninputs + 2, sizeof(char *));
		o->input_strs[2 * o->ninputs] = xstrdup((const char *)sqlite3_column_text(st, 0));
		o->input_strs[2 * o->ninputs + 1] = xstrdup((const char *)sqlite3_column_text(st, 2));
		o->inputs[o->ninputs].path = o->input_strs[2 * o->ninputs];
		o->inputs[o->ninputs].sha256 = o->input_strs[2 * o->ninputs + 1];
		o->inputs[o->ninputs].size = sqlite3_column_int64(st, 1);
		o->ninputs++;
	}
	sqlite3_finalize(st);
	/*
	 * Models in manifest order without repeats; the most GPUs of any run;
	 * the newest trace's date, from its epoch offset (Kineto's
	 * baseTimeNanoseconds) or, without one, from times that already are
	 * epoch times (plausible between 2000 and 2100).
	 */
	if (sqlite3_prepare_v2(store_db(s),
			       "SELECT (SELECT group_concat(model, ', ') FROM (SELECT model FROM runs"
			       "   WHERE experiment = ?1 AND model IS NOT NULL GROUP BY model ORDER BY min(position))),"
			       " (SELECT max(g) FROM (SELECT coalesce(r.gpus, (SELECT max(world_size) FROM traces t"
			       "   WHERE t.run_id = r.id), (SELECT count(*) FROM traces t WHERE t.run_id = r.id)) AS g"
			       "   FROM runs r WHERE r.experiment = ?1)),"
			       " (SELECT date(max(t.last_ns + coalesce(t.epoch_offset_ns, 0)) / 1000000000, 'unixepoch')"
			       "   FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.experiment = ?1"
			       "   AND t.last_ns + coalesce(t.epoch_offset_ns, 0) BETWEEN 946684800000000000 AND 4102444800000000000)",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) != SQLITE_NULL)
			o->models = xstrdup((const char *)sqlite3_column_text(st, 0));
		o->gpus_max = sqlite3_column_int(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			o->date = xstrdup((const char *)sqlite3_column_text(st, 2));
	}
	sqlite3_finalize(st);
	return 0;
}

static int output_experiment(struct store *s, struct exp_plan *e, const char *site, struct exp_output *o)
{
	memset(o, 0, sizeof(*o));
	struct analysis_ctx ctx = {
		.store = s,
		.experiment = e->id,
		.cls = e->cls,
		.manifest = e->manifest,
		.top_n = e->top_n,
	};
	if (analyze_experiment(&ctx, &o->res) < 0)
		return -1;
	char *figdir = xasprintf("%s/%s/figures", site, e->id);
	int ret = -1;
	if (fs_mkdirs(figdir) < 0)
		goto out;
	struct chart_style style = {0};
	if (e->manifest) {
		style.width_in = e->manifest->figures.width_in;
		style.height_in = e->manifest->figures.height_in;
	}
	const struct analysis_result *r = &o->res;
	o->figs = xcalloc(r->nfigures + 1, sizeof(*o->figs));
	for (size_t i = 0; i < r->nfigures; i++) {
		if (chart_write(r->figures[i].chart, figdir, &style) < 0)
			goto out;
		o->figs[i].name = r->figures[i].chart->name;
		o->figs[i].caption = r->figures[i].caption;
	}
	o->methods = xcalloc(r->nmethods + 1, sizeof(*o->methods));
	for (size_t i = 0; i < r->nmethods; i++) {
		o->methods[i].term = r->methods[i].term;
		o->methods[i].text = r->methods[i].text;
	}
	o->tables = xcalloc(r->ntables + 1, sizeof(*o->tables));
	for (size_t i = 0; i < r->ntables; i++)
		o->tables[i] = r->tables[i];
	if (collect_inputs(s, e->id, o) < 0)
		goto out;
	ret = 0;
out:
	free(figdir);
	return ret;
}

/* Refuses to replace something that is not a perfstudy output. */
static int check_output_dir(const char *dir)
{
	int isdir = fs_is_dir(dir);
	if (isdir < 0)
		return 0;
	if (!isdir) {
		diag_error(dir, "output exists and is not a directory");
		return -1;
	}
	DIR *d = opendir(dir);
	if (!d) {
		diag_syserror(dir, "cannot open directory: %s", strerror(errno));
		return -1;
	}
	int empty = 1;
	struct dirent *ent;
	while ((ent = readdir(d)))
		if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, ".."))
			empty = 0;
	closedir(d);
	char *db = xasprintf("%s/perfstudy.db", dir);
	struct stat st;
	int ok = empty || stat(db, &st) == 0;
	free(db);
	if (!ok) {
		diag_error(dir, "refusing to replace a directory that is not a perfstudy output (no perfstudy.db)");
		return -1;
	}
	return 0;
}

int cmd_build(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"classify", required_argument, NULL, 'c'},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "out", *preset = NULL;
	int quiet = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			preset = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage_build();
			return EXIT_OK;
		default:
			fprintf(stderr, "perfstudy build: error: unknown or incomplete option '%s' (see perfstudy build --help)\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "perfstudy build: error: no input given (see perfstudy build --help)\n");
		return EXIT_USAGE;
	}
	if (preset) {
		struct classifier *probe = classifier_preset(preset);
		if (!probe) {
			fprintf(stderr, "perfstudy build: error: unknown classification preset '%s' "
					"(presets: default, payoungkhamdee2021)\n", preset);
			return EXIT_USAGE;
		}
		classifier_free(probe);
	}
	diag_set_quiet(quiet);

	struct plan plan = {0};
	struct store *store = NULL;
	struct exp_output *outs = NULL;
	char *outdir = xstrdup(out);
	while (strlen(outdir) > 1 && outdir[strlen(outdir) - 1] == '/')
		outdir[strlen(outdir) - 1] = '\0';
	char *tmp = xasprintf("%s.tmp.%ld", outdir, (long)getpid());
	int made_tmp = 0;

	char **dirs = xcalloc((size_t)argc, sizeof(*dirs));
	size_t ndirs = 0;
	for (int i = optind; i < argc; i++) {
		if (is_manifest_path(argv[i]) && fs_is_dir(argv[i]) != 1) {
			if (plan_manifest(&plan, argv[i], preset) < 0)
				goto fail;
		} else {
			dirs[ndirs++] = argv[i];
		}
	}
	if (ndirs && plan_directories(&plan, dirs, ndirs, preset) < 0)
		goto fail;
	for (size_t i = 0; i < plan.nexp; i++)
		for (size_t j = i + 1; j < plan.nexp; j++)
			if (!strcmp(plan.exps[i].id, plan.exps[j].id)) {
				diag_error(plan.exps[j].source ? plan.exps[j].source : "perfstudy",
					   "experiment id '%s' is used twice", plan.exps[j].id);
				goto fail;
			}
	if (check_output_dir(outdir) < 0)
		goto fail;
	fs_remove_tree(tmp);
	if (fs_mkdirs(tmp) < 0)
		goto fail;
	made_tmp = 1;

	char *dbpath = xasprintf("%s/perfstudy.db", tmp);
	int r = store_open(dbpath, &store);
	free(dbpath);
	if (r < 0)
		goto fail;
	for (size_t i = 0; i < plan.nexp; i++)
		if (ingest_experiment(store, &plan.exps[i], quiet) < 0)
			goto fail;

	outs = xcalloc(plan.nexp, sizeof(*outs));
	const struct report_experiment **reps = xcalloc(plan.nexp, sizeof(*reps));
	struct report_experiment *rep = xcalloc(plan.nexp, sizeof(*rep));
	int ok = 1;
	if (store_begin(store) < 0)
		ok = 0;
	for (size_t i = 0; ok && i < plan.nexp; i++) {
		struct exp_plan *e = &plan.exps[i];
		struct exp_output *o = &outs[i];
		if (output_experiment(store, e, tmp, o) < 0) {
			ok = 0;
			break;
		}
		rep[i] = (struct report_experiment){
			.id = e->id,
			.title = e->title,
			.description = e->description,
			.classification = classifier_name(e->cls),
			.gpus_max = o->gpus_max,
			.newest_trace_date = o->date,
			.models = o->models,
			.runs = o->res.runs,
			.ntables = o->res.ntables,
			.tables = o->tables,
			.nfigures = o->res.nfigures,
			.figures = o->figs,
			.nmethods = o->res.nmethods,
			.methods = o->methods,
			.methods_rules = classifier_describe(e->cls),
			.nnotes = o->res.nnotes,
			.notes = (const char *const *)o->res.notes,
			.ninputs = o->ninputs,
			.inputs = o->inputs,
			.manifest_text = e->manifest_text,
			.nwarnings = diag_warning_count(),
		};
		const char **warns = xcalloc(diag_warning_count() + 1, sizeof(*warns));
		for (size_t w = 0; w < diag_warning_count(); w++)
			warns[w] = diag_warning_text(w);
		rep[i].warnings = warns;
		if (report_write_experiment(tmp, &rep[i]) < 0)
			ok = 0;
		free(warns);
		rep[i].warnings = NULL;
		reps[i] = &rep[i];
	}
	if (ok && report_write_index(tmp, reps, plan.nexp) < 0)
		ok = 0;
	if (ok && store_commit(store) < 0)
		ok = 0;
	free(reps);
	free(rep);
	if (!ok)
		goto fail;
	if (store_close(store) < 0) {
		store = NULL;
		goto fail;
	}
	store = NULL;
	if (fs_replace_dir(tmp, outdir) < 0)
		goto fail;
	made_tmp = 0;
	if (!quiet)
		fprintf(stderr, "perfstudy: wrote %s/index.html\n", outdir);
fail:
	if (outs)
		for (size_t i = 0; i < plan.nexp; i++)
			exp_output_release(&outs[i]);
	free(outs);
	if (store)
		store_close(store);
	if (made_tmp)
		fs_remove_tree(tmp);
	plan_release(&plan);
	free(dirs);
	free(tmp);
	free(outdir);
	return diag_exit_code();
}
