/*
 * study/plan.c: a build's inputs -> experiments, runs and trace files
 * (plan.h). A manifest names its runs' files; a directory given on the
 * command line is one run whose trace files are its ranks (a JAX profile
 * directory: one file per host, jaxdir.c).
 */
#include "study/plan.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/ingest.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

void plan_release(struct plan *p)
{
	for (size_t i = 0; i < p->nexp; i++) {
		struct exp_plan *e = &p->exps[i];
		for (size_t r = 0; r < e->nruns; r++) {
			for (size_t t = 0; t < e->runs[r].ntraces; t++)
				free(e->runs[r].traces[t]);
			free(e->runs[r].traces);
			for (size_t t = 0; t < e->runs[r].nlogs; t++)
				free(e->runs[r].logs[t]);
			free(e->runs[r].logs);
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
	char **v = NULL, **broken = NULL;
	size_t cap = 0, k = 0, cap_broken = 0, nbroken = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !ingest_is_rank_file(e->d_name))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		/* A link that leads nowhere was dropped without a word; a manifest glob refuses it too. */
		char why[4200];
		if (fs_broken_link(p, why, sizeof(why))) {
			broken = xgrow(broken, &cap_broken, nbroken + 1, sizeof(*broken));
			broken[nbroken++] = p;
			continue;
		}
		if (fs_is_dir(p) != 0) {
			free(p);
			continue;
		}
		v = xgrow(v, &cap, k + 1, sizeof(*v));
		v[k++] = p;
	}
	closedir(d);
	if (nbroken) {
		/* Each one, in name order: readdir's order is the file system's. */
		qsort(broken, nbroken, sizeof(*broken), cmp_str);
		for (size_t i = 0; i < nbroken; i++) {
			char why[4200];
			fs_broken_link(broken[i], why, sizeof(why));
			diag_error(broken[i], "%s; a trace file in a run directory must be readable (remove the link)", why);
			free(broken[i]);
		}
		free(broken);
		for (size_t i = 0; i < k; i++)
			free(v[i]);
		free(v);
		return -1;
	}
	if (!k) {
		/* The endings come from the readers' table, so the list cannot fall behind a new format. */
		char *pat = ingest_rank_file_patterns();
		diag_error(dir, "no trace files in directory (expected %s, or a JAX profile directory holding "
				"plugins/profile/<session>/*.xplane.pb or *.trace.json.gz)", pat);
		free(pat);
		free(v);
		return -1;
	}
	if (k) /* qsort's array may not be NULL, even when empty */
		qsort(v, k, sizeof(*v), cmp_str);
	*out = v;
	*n = k;
	return 0;
}

/*
 * The training logs of a run directory: its regular files named *.log,
 * sorted (rank0.log, as the bundled generators write it). Read as a
 * manifest run's inputs are: a file no reader recognises is left out with
 * a warning. Sets *out (NULL when none) and *n.
 */
static void list_logs(const char *dir, char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return;
	char **v = NULL;
	size_t cap = 0, k = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !has_suffix(e->d_name, ".log") || ingest_is_rank_file(e->d_name))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st) < 0 || !S_ISREG(st.st_mode)) {
			free(p);
			continue;
		}
		v = xgrow(v, &cap, k + 1, sizeof(*v));
		v[k++] = p;
	}
	closedir(d);
	if (k)
		qsort(v, k, sizeof(*v), cmp_str);
	*out = v;
	*n = k;
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
	char saved[XALLOC_CONTEXT_MAX];
	xalloc_context("reading manifest", path, saved); /* named if memory runs out */
	int r = manifest_load(path, &m);
	xalloc_context_restore(saved);
	if (r < 0)
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
		r.info.has_profiler_steps = mr->has_profiler_steps;
		r.info.profiler_lo = mr->profiler_lo;
		r.info.profiler_hi = mr->profiler_hi;
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
			char why[4200];
			if (fs_broken_link(inputs[i], why, sizeof(why)))
				diag_error(inputs[i], "%s", why);
			else if (errno == ENOENT)
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
		int jax = fs_is_dir(real[i]) == 1 ? plan_jax_profile(inputs[i], &r.traces, &r.ntraces) : 0;
		if (jax < 0) {
			free(r.id);
			free(parent);
			goto out;
		}
		if (fs_is_dir(real[i]) == 1 && !jax) {
			if (list_traces(inputs[i], &r.traces, &r.ntraces) < 0) {
				free(r.id);
				free(parent);
				goto out;
			}
		} else if (!jax) {
			r.traces = xcalloc(1, sizeof(*r.traces));
			r.traces[0] = xstrdup(inputs[i]);
			r.ntraces = 1;
		}
		if (fs_is_dir(real[i]) == 1)
			list_logs(inputs[i], &r.logs, &r.nlogs);
		for (size_t j = 0; j < e->nruns; j++)
			if (!strcmp(e->runs[j].id, r.id)) {
				diag_error(inputs[i], "run '%s' given twice", r.id);
				for (size_t t = 0; t < r.ntraces; t++)
					free(r.traces[t]);
				free(r.traces);
				for (size_t t = 0; t < r.nlogs; t++)
					free(r.logs[t]);
				free(r.logs);
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

/* The trace paths of a plan in the order ingest_experiment takes them (caller frees the array). */
const char **plan_paths(const struct plan *p, size_t *n)
{
	size_t k = 0, cap = 0;
	const char **v = NULL;
	for (size_t i = 0; i < p->nexp; i++)
		for (size_t r = 0; r < p->exps[i].nruns; r++)
			for (size_t t = 0; t < p->exps[i].runs[r].ntraces; t++) {
				v = xgrow(v, &cap, k + 1, sizeof(*v));
				v[k++] = p->exps[i].runs[r].traces[t];
			}
	*n = k;
	return v;
}

int plan_inputs(struct plan *p, char **inputs, size_t n, const char *preset)
{
	char **dirs = xcalloc(n + 1, sizeof(*dirs));
	size_t ndirs = 0;
	int ret = -1;
	for (size_t i = 0; i < n; i++) {
		if (is_manifest_path(inputs[i]) && fs_is_dir(inputs[i]) != 1) {
			if (plan_manifest(p, inputs[i], preset) < 0)
				goto out;
		} else {
			dirs[ndirs++] = inputs[i];
		}
	}
	if (ndirs && plan_directories(p, dirs, ndirs, preset) < 0)
		goto out;
	for (size_t i = 0; i < p->nexp; i++)
		for (size_t j = i + 1; j < p->nexp; j++)
			if (!strcmp(p->exps[i].id, p->exps[j].id)) {
				diag_error(p->exps[j].source ? p->exps[j].source : "perfstudy",
					   "experiment id '%s' is used twice", p->exps[j].id);
				goto out;
			}
	ret = 0;
out:
	free(dirs);
	return ret;
}
