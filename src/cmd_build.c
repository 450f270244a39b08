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
#include "analyze/crossexp.h"
#include "build_cache.h"
#include "analyze/classify.h"
#include "chart/chart.h"
#include "chart/figures.h"
#include "cli.h"
#include "history.h"
#include "ingest/ingest.h"
#include "ingest/parallel.h"
#include "manifest/manifest.h"
#include "report/report.h"
#include "shard.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/cleanup.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/progress.h"
#include "util/sha256.h"
#include "util/timing.h"
#include "util/xalloc.h"

void usage_build(void)
{
	printf("usage: perfstudy build [-o DIR] [--classify PRESET] [--force] [--jobs N] [-q] INPUT...\n\n"
	       "Each INPUT is a manifest (.yaml/.yml) or a trace directory or file.\n"
	       "Each manifest is one experiment; all directories and files given are the\n"
	       "runs of one experiment named 'default'. A directory is one run whose\n"
	       "*.json, *.json.gz, *.sqlite (Nsight Systems), *.nvvp and *.csv (nvprof) files are\n"
	       "its ranks; its run id is its path relative\n"
	       "to the deepest common parent of all directories given.\n\n"
	       "  -o, --output DIR     output directory (default: out); replaced atomically\n"
	       "  --classify PRESET    kernel classification: default, payoungkhamdee2021\n"
	       "                       (overrides a manifest's classify setting)\n"
	       "  --force              read every trace again, even those unchanged since\n"
	       "                       the build in DIR (whose rows are otherwise reused)\n"
	       "  -j, --jobs N         read N traces and draw N figures at once (default:\n"
	       "                       the number of cores); the output is the same for any N\n"
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
	return has_suffix(s, ".json") || has_suffix(s, ".json.gz") || has_suffix(s, ".sqlite") || has_suffix(s, ".nvvp") ||
	       has_suffix(s, ".csv");
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
		diag_error(dir, "no trace files in directory (expected *.json, *.json.gz, *.sqlite, *.nvvp or *.csv)");
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

/*
 * The reading side of one build: the previous build's store, whose rows of
 * unchanged traces are reused (NULL with --force or without one), and the
 * progress shown on stderr. One build runs per process.
 */
static struct reading {
	struct build_cache *cache;
	struct progress progress;
	/* Every trace of the plan in input order; the feed reads them ahead (--jobs). */
	const char **paths;
	size_t npaths, pos;
	struct trace_feed *feed;
	struct shard_set *shards; /* merge: where the traces' events come from */
	int indexed;              /* store_index_early done */
} reading;

/* The trace paths of a plan in the order ingest_experiment takes them (caller frees the array). */
static const char **plan_paths(const struct plan *p, size_t *n)
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

/*
 * Starts the feed that reads the traces ahead with jobs threads (merge:
 * from the shards), leaving alone those the cache will reuse. A feed
 * started early (reading_early) is left as it is.
 */
static int reading_feed(int jobs, const struct build_mode *mode)
{
	if (reading.feed)
		return 0;
	if (mode->nmerge && shard_set_open(mode->merge, mode->nmerge, reading.paths, reading.npaths, &reading.shards) < 0)
		return -1;
	reading.feed = feed_new(reading.paths, reading.npaths, jobs);
	if (reading.shards)
		feed_use_source(reading.feed, shard_set_batches, reading.shards);
	for (size_t i = 0; i < reading.npaths; i++)
		if (cache_trace_unchanged(reading.cache, reading.paths[i]))
			feed_skip(reading.feed, i);
	struct ingest_sink like;
	store_sink_kinds(&like);
	feed_start(reading.feed, &like);
	return 0;
}

/*
 * With nothing a previous build could give (no previous store, or
 * --force), the threads start reading before the build's fingerprint and
 * its store are made (the SHA-256 of the executable and the schema: 6 ms
 * of a 113 MB .json.gz's 120 ms of ingest, while the other core idled).
 * A previous store is looked at first: the build may be up to date, and
 * its traces reused.
 */
static void reading_early(const struct plan *p, const char *prev_db, int force, int jobs,
			  const struct build_mode *mode)
{
	if (mode->nmerge || (!force && access(prev_db, F_OK) == 0))
		return;
	reading.paths = plan_paths(p, &reading.npaths);
	reading_feed(jobs, mode);
}

static int64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Sets up `reading` before the first trace: attaches prev_db unless force. */
static int reading_begin(struct store *s, const struct plan *p, const char *prev_db, int force, int quiet)
{
	int64_t total = 0;
	size_t n = 0;
	for (size_t i = 0; i < p->nexp; i++)
		for (size_t r = 0; r < p->exps[i].nruns; r++)
			for (size_t t = 0; t < p->exps[i].runs[r].ntraces; t++, n++)
				total += file_size(p->exps[i].runs[r].traces[t]);
	progress_init(&reading.progress, quiet, total, n);
	reading.cache = NULL;
	if (cache_prepare_store(s) < 0)
		return -1;
	return force ? 0 : cache_open(s, prev_db, quiet, &reading.cache);
}

static void reading_end(struct store *s)
{
	feed_free(reading.feed);
	reading.feed = NULL;
	shard_set_free(reading.shards);
	reading.shards = NULL;
	if (s)
		cache_close(reading.cache, s);
	reading.cache = NULL;
}

/*
 * Ingests one trace file, or copies its rows from the previous build when
 * it has not changed; the transaction makes it all or nothing. Returns 0,
 * -1 after diag, or 1 for a file of a recognised format that holds nothing
 * perfstudy uses (a PyTorch execution trace beside the Kineto ones), with
 * *unused saying what it is: the caller rolls it back and warns, or fails
 * when the run has no other trace.
 */
static int ingest_trace(struct store *s, int64_t run_id, const char *path, int index, int quiet,
			const char **unused)
{
	(void)quiet; /* progress_init took it */
	size_t pos = reading.pos++;
	size_t mark = diag_warning_count();
	int64_t size = file_size(path);
	int64_t tid;
	/* Only what the feed left alone: a trace read ahead is stored as read. */
	int reused = feed_skipped(reading.feed, pos) ? cache_reuse_trace(reading.cache, s, run_id, path, index, &tid) : 0;
	if (reused < 0)
		return -1;
	if (reused) {
		progress_reused(&reading.progress, path, size);
		return cache_record_trace(s, tid, path, mark);
	}
	tid = store_add_trace(s, run_id, path, index);
	if (tid < 0)
		return -1;
	struct ingest_sink sink;
	store_sink(s, tid, &sink);
	struct ingest_counts counts;
	struct source_meta meta;
	const char *format;
	progress_reading(&reading.progress, path, size);
	/*
	 * The last quarter of the traces, and no more left than reading
	 * threads, so that they are all being read: the indexes of the rows
	 * stored so far are built now, while the threads still parse, and not
	 * after the last trace on one core (16 ranks of 20 MB, --jobs 2: see
	 * bench/RESULTS.md). The place depends only on the number of traces and
	 * of threads, so that two builds of the same inputs write the same
	 * bytes: whether the threads had claimed every trace, the test before,
	 * depended on their timing, and so did the store's pages (t_interrupt
	 * caught a rebuild's database differing).
	 */
	int nthreads = feed_threads(reading.feed);
	if (!reading.indexed && nthreads && pos * 4 >= reading.npaths * 3 && pos + (size_t)nthreads >= reading.npaths) {
		double t0 = timing_now();
		if (store_index_early(s) < 0)
			return -1;
		timing_add(TIME_INDEX, timing_now() - t0);
		reading.indexed = 1;
	}
	if (feed_take(reading.feed, pos, &sink, &counts, &format, &meta) < 0)
		return -1;
	progress_read(&reading.progress, size);
	if (counts.unused) {
		*unused = counts.unused;
		return 1;
	}
	int ndevices;
	if (store_finish_trace(s, tid, format, &meta, &counts) < 0 || store_split_devices(s, tid, &ndevices) < 0)
		return -1;
	return cache_record_trace(s, tid, path, mark);
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

/*
 * A run whose files hold several devices each (store_split_devices) has
 * one rank per (file, device), numbered by store_number_device_ranks. Said
 * as a warning where the manifest's gpus disagrees with the ranks that
 * gives, so that no file is split (or its devices merged) without a word;
 * the page says it for every split file, in a note (basic.c).
 */
static int number_device_ranks(struct store *s, int64_t run_id, const char *run, int manifest_gpus)
{
	if (store_number_device_ranks(s, run_id) < 0)
		return -1;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s),
			       "SELECT t.path, count(*), (SELECT group_concat(device, ', ') FROM (SELECT device FROM traces"
			       "  WHERE id = t.id OR part_of = t.id ORDER BY device)),"
			       " (SELECT count(DISTINCT rank) FROM traces x WHERE x.run_id = ?1)"
			       " FROM traces t JOIN traces p ON p.id = t.id OR p.part_of = t.id"
			       " WHERE t.run_id = ?1 AND t.part_of IS NULL GROUP BY t.id HAVING count(*) > 1 ORDER BY t.file_index",
			       -1, &st, NULL) != SQLITE_OK) {
		diag_syserror("perfstudy.db", "sqlite: %s", sqlite3_errmsg(store_db(s)));
		return -1;
	}
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int ranks = sqlite3_column_int(st, 3);
		if (manifest_gpus > 0 && ranks != manifest_gpus)
			diag_warning((const char *)sqlite3_column_text(st, 0),
				     "holds GPU activities on %d devices (%s), each taken as a rank of its own: run '%s'"
				     " has %d ranks, but its manifest says gpus: %d",
				     sqlite3_column_int(st, 1), (const char *)sqlite3_column_text(st, 2), run, ranks,
				     manifest_gpus);
	}
	sqlite3_finalize(st);
	return 0;
}

/*
 * A trace that records no rank (a Kineto trace without distributedInfo;
 * nsys, nvprof and .nvvp files never do) gets its position among the run's
 * files. Said once per file for Kineto, where a rank is expected, and for
 * the other formats when the run has several files and the order decides.
 */
static void warn_unranked(struct store *s, int64_t run_id, const char *run, size_t ntraces)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s), "SELECT path, rank, coalesce(format, '') FROM traces"
			       " WHERE run_id = ?1 AND rank_from_trace = 0 AND part_of IS NULL"
			       " AND id NOT IN (SELECT part_of FROM traces WHERE part_of IS NOT NULL) ORDER BY file_index", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_int64(st, 1, run_id);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *fmt = (const char *)sqlite3_column_text(st, 2);
		int kineto = !strcmp(fmt, "kineto");
		if (!kineto && ntraces < 2)
			continue;
		diag_warning((const char *)sqlite3_column_text(st, 0),
			     "%s; taken as rank %d, its position among the %zu file%s of run '%s'",
			     kineto ? "no rank recorded (no 'distributedInfo')" : "the format records no rank",
			     sqlite3_column_int(st, 1), ntraces, ntraces == 1 ? "" : "s", run);
	}
	sqlite3_finalize(st);
}

/*
 * A run's other inputs (manifest 'inputs': logs, Nsight Compute CSVs,
 * nvidia-smi XML), each in its own transaction, with no rank; file indexes
 * continue after the traces'.
 */
static int ingest_inputs(struct store *s, int64_t run_id, const struct manifest_run *mr, size_t first,
			 int quiet)
{
	for (size_t i = 0; i < mr->ninputs; i++) {
		const char *path = mr->inputs[i];
		if (store_begin(s) < 0)
			return -1;
		int64_t tid = store_add_input(s, run_id, path, (int)(first + i));
		struct ingest_sink sink;
		struct ingest_counts counts;
		struct source_meta meta;
		const char *format;
		if (tid < 0)
			return -1;
		store_sink(s, tid, &sink);
		if (!quiet)
			fprintf(stderr, "perfstudy: reading %s\n", path);
		if (ingest_file(path, &sink, &counts, &format, &meta) < 0) {
			store_rollback(s);
			return -1;
		}
		if (counts.unused) {
			diag_warning(path, "%s; left out", counts.unused);
			store_rollback(s);
			continue;
		}
		if (store_finish_trace(s, tid, format, &meta, &counts) < 0) {
			store_rollback(s);
			return -1;
		}
		if (store_commit(s) < 0)
			return -1;
	}
	return 0;
}

/*
 * The manifest's hardware.nvidia_smi (GPU descriptions) or, topology set,
 * hardware.topology (nvidia-smi topo -m links), for the whole experiment.
 */
static int ingest_hardware(struct store *s, const char *exp, const char *path, int topology, int quiet)
{
	struct ingest_sink sink;
	struct ingest_counts counts;
	const char *format;
	store_sink_experiment(s, exp, path, &sink);
	if (!quiet)
		fprintf(stderr, "perfstudy: reading %s\n", path);
	if (store_begin(s) < 0)
		return -1;
	if (ingest_file(path, &sink, &counts, &format, NULL) < 0) {
		store_rollback(s);
		return -1;
	}
	if (topology ? !format || strcmp(format, "nvidia-smi-topo") : !counts.gpus || counts.links) {
		diag_error(path, "expected %s, found %s",
			   topology ? "the output of nvidia-smi topo -m (hardware.topology)"
				    : "an nvidia-smi -q -x file (hardware.nvidia_smi)",
			   format ? format : "no GPU");
		store_rollback(s);
		return -1;
	}
	return store_commit(s);
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
		/* unused[t]: what trace t is when it holds nothing perfstudy uses */
		const char **unused = xcalloc(rp->ntraces + 1, sizeof(*unused));
		size_t used = 0, nunused = 0;
		int rc = 0;
		for (size_t t = 0; t < rp->ntraces && rc >= 0; t++) {
			if (store_begin(s) < 0) {
				rc = -1;
				break;
			}
			rc = ingest_trace(s, run_id, rp->traces[t], (int)t, quiet, &unused[t]);
			if (rc != 0) {
				store_rollback(s);
				nunused += rc > 0;
				continue;
			}
			used++;
			if (store_commit(s) < 0)
				rc = -1;
		}
		/* Files that hold nothing perfstudy uses: left out beside real traces, an error alone. */
		for (size_t t = 0; rc >= 0 && nunused && t < rp->ntraces; t++) {
			if (!unused[t])
				continue;
			if (!used) {
				diag_error(rp->traces[t], "%s; run '%s' has no trace perfstudy can read", unused[t], rp->id);
				rc = -1;
			} else {
				diag_warning(rp->traces[t], "%s; not a rank of run '%s', left out", unused[t], rp->id);
			}
		}
		free(unused);
		if (rc < 0)
			return -1;
		if (number_device_ranks(s, run_id, rp->id, rp->info.gpus) < 0 || check_ranks(s, run_id, rp->id) < 0)
			return -1;
		warn_unranked(s, run_id, rp->id, rp->ntraces);
		/* Manifest runs are planned in manifest order, so run r is the manifest's run r. */
		if (e->manifest && r < e->manifest->nruns &&
		    ingest_inputs(s, run_id, &e->manifest->runs[r], rp->ntraces, quiet) < 0)
			return -1;
	}
	if (e->manifest && e->manifest->hardware.nvidia_smi &&
	    ingest_hardware(s, e->id, e->manifest->hardware.nvidia_smi, 0, quiet) < 0)
		return -1;
	if (e->manifest && e->manifest->hardware.topology &&
	    ingest_hardware(s, e->id, e->manifest->hardware.topology, 1, quiet) < 0)
		return -1;
	return 0;
}

struct exp_output {
	struct analysis_result res;
	size_t nfigs, ntables; /* the non-empty ones, in figs and tables */
	struct report_figure *figs;
	struct report_method *methods;
	const struct table **tables;
	struct report_input *inputs;
	char **input_strs;
	size_t ninputs;
	char *models;
	char *date;
	char *headline;
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
	free(o->headline);
}

static int collect_inputs(struct store *s, const char *exp, struct exp_output *o)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(store_db(s),
			       "SELECT t.path, t.size, t.sha256 FROM traces t JOIN runs r ON r.id = t.run_id"
			       " WHERE r.experiment = ?1 AND t.part_of IS NULL ORDER BY r.position, t.file_index", -1, &st, NULL) != SQLITE_OK)
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
			       "   WHERE t.run_id = r.id), (SELECT count(*) FROM traces t WHERE t.run_id = r.id AND t.rank IS NOT NULL)) AS g"
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
	int cg = table_col_index(runs, "gpus"), cs = table_col_index(runs, "mean_step_us");
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

/* Threads that draw figures: --jobs. */
static int render_jobs = 1;
/* The time this build records in its history (history.h). */
static int64_t built_at;

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

/* Whether r shows a table of that name (len bytes): one with data. */
static int shows_table(const struct analysis_result *r, const char *name, size_t len)
{
	for (size_t i = 0; i < r->ntables; i++)
		if (strlen(r->tables[i]->name) == len && !strncmp(r->tables[i]->name, name, len))
			return table_has_data(r->tables[i]);
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
	for (size_t i = 0; i < r->ntables; i++)
		if (r->tables[i]->nrows && !table_has_data(r->tables[i]))
			add_name(&names, r->tables[i]->name, strlen(r->tables[i]->name), &ntables);
	for (size_t n = 0; n < r->nnotes; n++) {
		const char *note = r->notes[n], *p = note;
		while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
			p++;
		size_t len = (size_t)(p - note);
		if (len && !strncmp(p, ".csv:", 5) && !shows_table(r, note, len)) {
			add_name(&names, note, len, &ntables);
			free(r->notes[n]);
			dropped++;
		} else {
			r->notes[keep++] = r->notes[n];
		}
	}
	r->nnotes = keep;
	if (ntables) {
		buf_printf(&names, ".");
		if (dropped)
			buf_printf(&names, " Their %zu note%s on single runs %s not repeated.", dropped,
				   dropped == 1 ? "" : "s", dropped == 1 ? "is" : "are");
		result_add_note(r, "Left out, as no run has data for %s: %s", ntables == 1 ? "it" : "them", names.data);
		/* First: it explains why the page has less than other studies' pages. */
		char *first = r->notes[r->nnotes - 1];
		memmove(r->notes + 1, r->notes, (r->nnotes - 1) * sizeof(*r->notes));
		r->notes[0] = first;
	}
	buf_release(&names);
}

/* The experiment's analyses into o->res (every experiment's before any is drawn: comparisons read them all). */
static int analyze_one(struct store *s, struct exp_plan *e, struct exp_output *o)
{
	memset(o, 0, sizeof(*o));
	struct analysis_ctx ctx = {
		.store = s,
		.experiment = e->id,
		.cls = e->cls,
		.manifest = e->manifest,
		.top_n = e->top_n,
	};
	double t_analyze = timing_now();
	if (analyze_experiment(&ctx, &o->res) < 0 || history_record(s, e->id, e->manifest, &o->res, built_at) < 0)
		return -1;
	timing_add(TIME_ANALYZE, timing_now() - t_analyze);
	return 0;
}

/* The build's experiments as crossexp.h wants them (outs may be NULL: before analysis); free the result. */
static struct crossexp_exp *cross_exps(const struct plan *p, const struct exp_output *outs)
{
	struct crossexp_exp *x = xcalloc(p->nexp + 1, sizeof(*x));
	for (size_t i = 0; i < p->nexp; i++) {
		const struct exp_plan *e = &p->exps[i];
		const char **runs = xcalloc(e->nruns + 1, sizeof(*runs));
		for (size_t j = 0; j < e->nruns; j++)
			runs[j] = e->runs[j].id;
		x[i] = (struct crossexp_exp){e->id, e->manifest, runs, e->nruns, outs ? &outs[i].res : NULL};
	}
	return x;
}

static void cross_exps_free(struct crossexp_exp *x, size_t n)
{
	for (size_t i = 0; x && i < n; i++)
		free((void *)x[i].runs);
	free(x);
}

/* Draws o's figures and gathers what the report shows; o->res is the experiment's finished analysis. */
static int output_experiment(struct store *s, struct exp_plan *e, const char *site, struct exp_output *o)
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
	/* --jobs threads draw the figures (the same bytes as one). */
	int frc = chart_write_many(charts, captions, o->nfigs, figdir, &style, render_jobs);
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
	/* Tables with no data are left out of the page and data/, as empty figures are (drop_no_data). */
	for (size_t i = 0; i < r->ntables; i++)
		if (table_has_data(r->tables[i]))
			o->tables[o->ntables++] = r->tables[i];
	drop_notes_of_left_out(&o->res);
	o->headline = make_headline(r->runs);
	if (collect_inputs(s, e->id, o) < 0 || add_file_inputs(e, o) < 0)
		goto out;
	ret = 0;
out:
	free(figdir);
	return ret;
}

/*
 * What decides a build's output, as text for cache_fingerprint: the command
 * line, and for every experiment its manifest's bytes and, for every input
 * file, its path, size and modification time (a file rewritten with new
 * bytes gets a new time; touching one merely re-reads it).
 */
static void add_stat(struct buf *b, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0)
		buf_printf(b, "file %s %lld %lld.%09ld\n", path, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			   (long)st.st_mtim.tv_nsec);
	else
		buf_printf(b, "file %s missing\n", path);
}

static char *build_fingerprint(const struct plan *p, int argc, char **argv)
{
	struct buf b;
	buf_init(&b);
	for (int i = 0; i < argc; i++) {
		/* --jobs changes nothing in the output either. */
		if (!strcmp(argv[i], "--jobs") || !strcmp(argv[i], "-j")) {
			i++;
			continue;
		}
		if (strcmp(argv[i], "-q") && strcmp(argv[i], "--quiet") && strncmp(argv[i], "--jobs=", 7) &&
		    strncmp(argv[i], "-j", 2))
			buf_printf(&b, "arg %s\n", argv[i]);
	}
	for (size_t i = 0; i < p->nexp; i++) {
		const struct exp_plan *e = &p->exps[i];
		buf_printf(&b, "experiment %s\n", e->id);
		if (e->manifest_text)
			buf_printf(&b, "manifest %zu\n%s\n", strlen(e->manifest_text), e->manifest_text);
		if (e->manifest && e->manifest->hardware.nvidia_smi)
			add_stat(&b, e->manifest->hardware.nvidia_smi);
		for (size_t r = 0; r < e->nruns; r++)
			for (size_t t = 0; t < e->runs[r].ntraces; t++)
				add_stat(&b, e->runs[r].traces[t]);
	}
	char *fp = cache_fingerprint(b.data);
	buf_release(&b);
	return fp;
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
	static const struct build_mode plain = {0};
	return cmd_build_mode(argc, argv, &plain);
}

int cmd_build_mode(int argc, char **argv, const struct build_mode *mode)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"classify", required_argument, NULL, 'c'},
		{"quiet", no_argument, NULL, 'q'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "out", *preset = NULL;
	int quiet = 0, force = 0, c, jobs = feed_default_jobs();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 1024) {
				fprintf(stderr, "perfstudy %s: error: --jobs expects a number from 1 to 1024, got '%s'\n",
					argv[0], optarg);
				return EXIT_USAGE;
			}
			jobs = (int)v;
			break;
		}
		case 'c':
			preset = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'f':
			force = 1;
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
	double t_start = timing_now(), t_lap = t_start;

	struct plan plan = {0};
	struct store *store = NULL;
	struct exp_output *outs = NULL;
	char *outdir = xstrdup(out);
	while (strlen(outdir) > 1 && outdir[strlen(outdir) - 1] == '/')
		outdir[strlen(outdir) - 1] = '\0';
	char *tmp = xasprintf("%s.tmp.%ld", outdir, (long)getpid());
	int made_tmp = 0;
	char *fingerprint = NULL;
	char *prev_db = NULL; /* the previous build's store */

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
	/* Comparisons name runs of other experiments: all must be in this build (before any trace is read). */
	struct crossexp_exp *xcheck = cross_exps(&plan, NULL);
	int xbad = crossexp_check(xcheck, plan.nexp) < 0;
	cross_exps_free(xcheck, plan.nexp);
	if (xbad)
		goto fail;
	if (mode->nshards) {
		/* perfstudy ingest: this shard's traces into the shard database, nothing else. */
		size_t n;
		const char **paths = plan_paths(&plan, &n);
		shard_write(out, paths, n, mode->shard, mode->nshards, jobs, quiet);
		free(paths);
		goto fail;
	}
	if (mode->nmerge)
		force = 1; /* every trace comes from the shards */
	if (cleanup_stale(outdir, quiet) < 0 || check_output_dir(outdir) < 0)
		goto fail;
	prev_db = xasprintf("%s/perfstudy.db", outdir);
	reading_early(&plan, prev_db, force, jobs, mode);
	fingerprint = build_fingerprint(&plan, argc, argv);
	if (!force) {
		if (cache_up_to_date(prev_db, fingerprint)) {
			if (!quiet)
				fprintf(stderr, "perfstudy: %s is up to date: no input, option or manifest changed"
						" since it was built (--force rebuilds)\n", outdir);
			goto fail; /* nothing was written; diag_exit_code() is 0 */
		}
	}
	/* From here a SIGINT, SIGTERM or SIGHUP removes tmp and exits 128 + the signal. */
	cleanup_arm(tmp);
	fs_remove_tree(tmp);
	if (fs_mkdirs(tmp) < 0)
		goto fail;
	made_tmp = 1;

	char *dbpath = xasprintf("%s/perfstudy.db", tmp);
	int r = store_open(dbpath, &store);
	free(dbpath);
	if (r < 0)
		goto fail;
	if (cache_set_fingerprint(store, fingerprint) < 0)
		goto fail;
	r = reading_begin(store, &plan, prev_db, force, quiet);
	if (!reading.paths)
		reading.paths = plan_paths(&plan, &reading.npaths);
	render_jobs = jobs;
	if (r < 0 || reading_feed(jobs, mode) < 0)
		goto fail;
	for (size_t i = 0; i < plan.nexp; i++)
		if (ingest_experiment(store, &plan.exps[i], quiet) < 0)
			goto fail;
	reading_end(store);
	progress_finish(&reading.progress);
	double t_index = timing_now();
	if (store_index_traces(store) < 0)
		goto fail;
	timing_add(TIME_INDEX, timing_now() - t_index);
	timing_lap(TIME_INGEST, &t_lap);
	built_at = history_build_time();
	if (history_open(store, prev_db, quiet) < 0)
		goto fail;

	outs = xcalloc(plan.nexp, sizeof(*outs));
	const struct report_experiment **reps = xcalloc(plan.nexp, sizeof(*reps));
	struct report_experiment *rep = xcalloc(plan.nexp, sizeof(*rep));
	int ok = 1;
	if (store_begin(store) < 0)
		ok = 0;
	for (size_t i = 0; ok && i < plan.nexp; i++)
		if (analyze_one(store, &plan.exps[i], &outs[i]) < 0)
			ok = 0;
	if (ok) {
		/* Comparisons across experiments, once all are analysed; appended to the experiment naming them. */
		struct crossexp_exp *x = cross_exps(&plan, outs);
		for (size_t i = 0; ok && i < plan.nexp; i++)
			if (crossexp_add(x, plan.nexp, i, &outs[i].res) < 0)
				ok = 0;
		cross_exps_free(x, plan.nexp);
	}
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
	if (ok) {
		const char **ids = xcalloc(plan.nexp + 1, sizeof(*ids));
		const struct manifest **mans = xcalloc(plan.nexp + 1, sizeof(*mans));
		for (size_t i = 0; i < plan.nexp; i++) {
			ids[i] = plan.exps[i].id;
			mans[i] = plan.exps[i].manifest;
		}
		if (history_write(store, ids, mans, plan.nexp) < 0)
			ok = 0;
		free(ids);
		free(mans);
	}
	timing_add(TIME_RENDER, timing_now() - t_lap - timing_get(TIME_ANALYZE));
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
	/* No signal between the two renames of the swap: it completes or fails whole. */
	cleanup_hold(1);
	if (fs_replace_dir(tmp, outdir) < 0) {
		cleanup_hold(0);
		goto fail;
	}
	made_tmp = 0;
	cleanup_disarm();
	cleanup_hold(0);
	if (!quiet)
		fprintf(stderr, "perfstudy: wrote %s/index.html\n", outdir);
	timing_print(timing_now() - t_start);
fail:
	if (outs)
		for (size_t i = 0; i < plan.nexp; i++)
			exp_output_release(&outs[i]);
	free(outs);
	reading_end(store);
	if (store)
		store_close(store);
	if (made_tmp)
		fs_remove_tree(tmp);
	cleanup_disarm();
	plan_release(&plan);
	free(dirs);
	free(reading.paths);
	reading.paths = NULL;
	free(tmp);
	free(outdir);
	free(fingerprint);
	free(prev_db);
	return diag_exit_code();
}
