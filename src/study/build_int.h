/*
 * study/build_int.h: the state of one build, shared by the files of
 * src/study/ that carry it out (build.c drives, read.c reads the traces
 * into the store, assemble.c draws and writes the site). Nothing outside
 * src/study/ includes it.
 */
#ifndef PERFSTUDY_STUDY_BUILD_INT_H
#define PERFSTUDY_STUDY_BUILD_INT_H

#include <stdint.h>

#include "analyze/analysis.h"
#include "study/build.h"
#include "study/plan.h"
#include "report/report.h"
#include "store/store.h"
#include "util/progress.h"

/* What the site shows of one experiment, gathered from its analysis (assemble.c). */
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
	int traced; /* a run of it has a trace (run_traces), else its numbers are all the manifest's */
	const char *gpus_source; /* where gpus_max came from when no run records its GPUs; NULL: the runs */
	struct report_trace *traces; /* the runs' merged traces (report/trace_export.h) */
	size_t ntraces;
};

struct build {
	const struct build_options *opt;
	int force;             /* opt->force, or set by a merge (every trace comes from the shards) */
	struct plan plan;
	struct store *store;
	char *outdir;          /* opt->out without trailing '/' */
	char *tmp;             /* DIR.tmp.<pid>, swapped in at the end */
	char *prev_db;         /* the previous build's store, DIR/perfstudy.db */
	char *fingerprint;     /* what decides the output (cache_fingerprint) */
	int made_tmp;
	int lockfd;            /* DIR.lock, held for the whole build (guard.h), or -1 */
	int64_t built_at;      /* the time this build records in its history (history.h) */
	struct exp_output *outs; /* one per experiment, after analysis */

	/*
	 * The reading side: the previous build's store, whose rows of
	 * unchanged traces are reused (NULL with --force or without one), and
	 * the progress shown on stderr.
	 */
	struct build_cache *cache;
	struct progress progress;
	/* Every trace of the plan in input order; the feed reads them ahead (--jobs). */
	const char **paths;
	size_t npaths, pos;
	struct trace_feed *feed;
	struct shard_set *shards; /* merge: where the traces' events come from */
	int indexed;              /* store_index_early done */
};

/* read.c: starts reading ahead before the store exists, when nothing can be reused. */
void read_early(struct build *b);
/* read.c: every experiment's traces and inputs into b->store, then the indexes; 0 or -1 after diag. */
int read_all(struct build *b);
/* read.c: stops the reading threads and closes the cache (also after a failure). */
void read_end(struct build *b);

/* assemble.c: draws every experiment's figures and writes its page, then the index; 0 or -1 after diag. */
int assemble_site(struct build *b);
void exp_output_release(struct exp_output *o);

#endif
