/*
 * study/read.c: a build's reading stage. Every trace of the plan goes into
 * the store, one transaction per trace, read ahead by --jobs threads
 * (ingest/parallel.h) or, when unchanged since the previous build, copied
 * from its store (cache.h); then each run's ranks are checked and its other
 * inputs read, and the tables are indexed for the analyses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "study/build_int.h"
#include "study/cache.h"
#include "study/shard.h"
#include "ingest/ingest.h"
#include "ingest/parallel.h"
#include "util/diag.h"
#include "util/timing.h"
#include "util/xalloc.h"

/*
 * Starts the feed that reads the traces ahead with jobs threads (merge:
 * from the shards), leaving alone those the cache will reuse. A feed
 * started early (read_early) is left as it is.
 */
static int reading_feed(struct build *b)
{
	const struct build_mode *mode = b->opt->mode;
	if (b->feed)
		return 0;
	if (mode->nmerge && shard_set_open(mode->merge, mode->nmerge, b->paths, b->npaths, &b->shards) < 0)
		return -1;
	b->feed = feed_new(b->paths, b->npaths, b->opt->jobs);
	if (b->shards)
		feed_use_source(b->feed, shard_set_batches, b->shards);
	for (size_t i = 0; i < b->npaths; i++)
		if (cache_trace_unchanged(b->cache, b->paths[i]))
			feed_skip(b->feed, i);
	struct ingest_sink like;
	store_sink_kinds(&like);
	feed_start(b->feed, &like);
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
void read_early(struct build *b)
{
	if (b->opt->mode->nmerge || (!b->force && access(b->prev_db, F_OK) == 0))
		return;
	b->paths = plan_paths(&b->plan, &b->npaths);
	reading_feed(b);
}

static int64_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (int64_t)st.st_size : 0;
}

/* Sets up the reading side before the first trace: attaches prev_db unless force. */
static int reading_begin(struct build *b)
{
	const struct plan *p = &b->plan;
	struct store *s = b->store;
	int64_t total = 0;
	size_t n = 0;
	for (size_t i = 0; i < p->nexp; i++)
		for (size_t r = 0; r < p->exps[i].nruns; r++)
			for (size_t t = 0; t < p->exps[i].runs[r].ntraces; t++, n++)
				total += file_size(p->exps[i].runs[r].traces[t]);
	progress_init(&b->progress, b->opt->quiet, total, n);
	b->cache = NULL;
	if (cache_prepare_store(s) < 0)
		return -1;
	return b->force ? 0 : cache_open(s, b->prev_db, b->opt->quiet, &b->cache);
}

void read_end(struct build *b)
{
	feed_free(b->feed);
	b->feed = NULL;
	shard_set_free(b->shards);
	b->shards = NULL;
	if (b->store)
		cache_close(b->cache, b->store);
	b->cache = NULL;
}

/*
 * Ingests one trace file, or copies its rows from the previous build when
 * it has not changed; the transaction makes it all or nothing. Returns 0,
 * -1 after diag, or 1 for a file of a recognised format that holds nothing
 * perfstudy uses (a PyTorch execution trace beside the Kineto ones), with
 * *unused saying what it is: the caller rolls it back and warns, or fails
 * when the run has no other trace.
 */
static int ingest_trace(struct build *b, int64_t run_id, const char *path, int index, const char **unused)
{
	struct store *s = b->store;
	size_t pos = b->pos++;
	size_t mark = diag_warning_count();
	int64_t size = file_size(path);
	int64_t tid;
	/* Only what the feed left alone: a trace read ahead is stored as read. */
	int reused = feed_skipped(b->feed, pos) ? cache_reuse_trace(b->cache, s, run_id, path, index, &tid) : 0;
	if (reused < 0)
		return -1;
	if (reused) {
		progress_reused(&b->progress, path, size);
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
	progress_reading(&b->progress, path, size);
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
	int nthreads = feed_threads(b->feed);
	if (!b->indexed && nthreads && pos * 4 >= b->npaths * 3 && pos + (size_t)nthreads >= b->npaths) {
		double t0 = timing_now();
		if (store_index_early(s) < 0)
			return -1;
		timing_add(TIME_INDEX, timing_now() - t0);
		b->indexed = 1;
	}
	/* merge: the shard's events are checked as a reader checks a trace's (shard.h). */
	struct shard_check check;
	struct ingest_sink checked;
	if (b->shards)
		shard_check_sink(b->shards, pos, &sink, &check, &checked);
	if (feed_take(b->feed, pos, b->shards ? &checked : &sink, &counts, &format, &meta) < 0)
		return -1;
	progress_read(&b->progress, size);
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
	int rank;
	char *first, *second;
	int ret = store_duplicate_rank(s, run_id, &rank, &first, &second);
	if (ret > 0) {
		diag_error(second, "run '%s': rank %d is also recorded by '%s'", run, rank, first);
		ret = -1;
	}
	free(first);
	free(second);
	return ret;
}

/* What the rank checks' warnings say of the run. */
struct rank_note {
	const char *run;
	int manifest_gpus;
	size_t ntraces;
};

/*
 * A run whose files hold several devices each (store_split_devices) has
 * one rank per (file, device), numbered by store_number_device_ranks. Said
 * as a warning where the manifest's gpus disagrees with the ranks that
 * gives, so that no file is split (or its devices merged) without a word;
 * the page says it for every split file, in a note (basic_runs.c).
 */
static void warn_split(void *ctx, const struct store_split_file *f)
{
	const struct rank_note *n = ctx;
	if (n->manifest_gpus > 0 && f->ranks != n->manifest_gpus)
		diag_warning(f->path,
			     "holds GPU activities on %d devices (%s), each taken as a rank of its own: run '%s'"
			     " has %d ranks, but its manifest says gpus: %d",
			     f->devices, f->device_list, n->run, f->ranks, n->manifest_gpus);
}

static int number_device_ranks(struct store *s, int64_t run_id, const char *run, int manifest_gpus)
{
	if (store_number_device_ranks(s, run_id) < 0)
		return -1;
	struct rank_note n = {.run = run, .manifest_gpus = manifest_gpus};
	return store_each_split_file(s, run_id, warn_split, &n);
}

/*
 * A trace that records no rank (a Kineto trace without distributedInfo;
 * nsys, nvprof and .nvvp files never do) gets its position among the run's
 * files. Said once per file when the run has several files and the order
 * decides; a run of one such file is rank 0, normal input for one GPU
 * (said in the Methods, runs.csv's ranks), not a warning. Returns 0, or -1
 * after diag.
 */
static void warn_unranked_one(void *ctx, const char *path, int rank, const char *format)
{
	const struct rank_note *n = ctx;
	int kineto = !strcmp(format, "kineto");
	if (n->ntraces < 2)
		return;
	diag_warning(path, "%s; taken as rank %d, its position among the %zu file%s of run '%s'",
		     kineto ? "no rank recorded (no 'distributedInfo')" : "the format records no rank", rank,
		     n->ntraces, n->ntraces == 1 ? "" : "s", n->run);
}

static int warn_unranked(struct store *s, int64_t run_id, const char *run, size_t ntraces)
{
	struct rank_note n = {.run = run, .ntraces = ntraces};
	return store_each_unranked_trace(s, run_id, warn_unranked_one, &n);
}

/*
 * A run's other inputs (manifest 'inputs': logs, Nsight Compute CSVs,
 * nvidia-smi XML; a run directory's *.log), each in its own transaction, with no rank; file indexes
 * continue after the traces'.
 */
static int ingest_inputs(struct store *s, int64_t run_id, char *const *inputs, size_t ninputs, size_t first,
			 int quiet)
{
	for (size_t i = 0; i < ninputs; i++) {
		const char *path = inputs[i];
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
		if (!quiet) {
			char *esc = diag_escape(path); /* a file name never reaches the terminal raw */
			fprintf(stderr, "perfstudy: reading %s\n", esc);
			free(esc);
		}
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
	if (!quiet) {
		char *esc = diag_escape(path); /* a file name never reaches the terminal raw */
		fprintf(stderr, "perfstudy: reading %s\n", esc);
		free(esc);
	}
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

static int ingest_experiment(struct build *b, struct exp_plan *e)
{
	struct store *s = b->store;
	int quiet = b->opt->quiet;
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
			char saved[XALLOC_CONTEXT_MAX];
			xalloc_context("reading", rp->traces[t], saved); /* named if memory runs out */
			rc = ingest_trace(b, run_id, rp->traces[t], (int)t, &unused[t]);
			xalloc_context_restore(saved);
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
		if (warn_unranked(s, run_id, rp->id, rp->ntraces) < 0)
			return -1;
		/* Manifest runs are planned in manifest order, so run r is the manifest's run r. */
		if (e->manifest && r < e->manifest->nruns &&
		    ingest_inputs(s, run_id, e->manifest->runs[r].inputs, e->manifest->runs[r].ninputs, rp->ntraces,
				  quiet) < 0)
			return -1;
		/* a run directory's training logs, found beside its traces (plan.c) */
		if (ingest_inputs(s, run_id, rp->logs, rp->nlogs, rp->ntraces, quiet) < 0)
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

int read_all(struct build *b)
{
	int r = reading_begin(b);
	if (!b->paths)
		b->paths = plan_paths(&b->plan, &b->npaths);
	if (r < 0 || reading_feed(b) < 0)
		return -1;
	for (size_t i = 0; i < b->plan.nexp; i++)
		if (ingest_experiment(b, &b->plan.exps[i]) < 0)
			return -1;
	read_end(b);
	progress_finish(&b->progress);
	double t_index = timing_now();
	xalloc_context("indexing the store", NULL, NULL);
	if (store_index_traces(b->store) < 0)
		return -1;
	timing_add(TIME_INDEX, timing_now() - t_index);
	return 0;
}
