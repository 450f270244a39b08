/*
 * study/plan.h: what a build reads, planned from its command line's inputs
 * before any trace is opened.
 *
 * Each manifest (.yaml/.yml) is one experiment with its runs and their
 * trace files; the trace directories and files given are the runs of one
 * experiment named 'default' (a directory's trace files are one run's
 * ranks). The plan owns every string and manifest it holds.
 */
#ifndef PERFSTUDY_STUDY_PLAN_H
#define PERFSTUDY_STUDY_PLAN_H

#include <stddef.h>

#include "analyze/lib/classify.h"
#include "manifest/manifest.h"
#include "store/store.h"

struct run_plan {
	struct store_run info;
	char *id;
	size_t ntraces;
	char **traces;
	/* A run directory's training logs (*.log beside its traces), read as a manifest run's inputs. */
	size_t nlogs;
	char **logs;
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

/*
 * Plans inputs[0..n) (manifests, trace directories and files) into p,
 * with the classification preset (NULL: each manifest's own). Returns 0,
 * or -1 after diag (a manifest's error, a missing directory, a run or
 * experiment id given twice); p is released by plan_release either way.
 */
int plan_inputs(struct plan *p, char **inputs, size_t n, const char *preset);
void plan_release(struct plan *p);
/*
 * The files to read of a JAX profile directory (jaxdir.c): one per host
 * of its one session. Returns 1 with *out (the caller frees the array and
 * the paths), 0 when dir is not a JAX profile, or -1 after diag (several
 * sessions, a chosen file that is a link leading nowhere). A session that
 * is such a link is a warning and is not read.
 */
int plan_jax_profile(const char *dir, char ***out, size_t *n);
/* The trace paths of a plan in the order the build reads them (the caller frees the array, not the paths). */
const char **plan_paths(const struct plan *p, size_t *n);

#endif
