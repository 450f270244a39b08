/*
 * study/build.h: `perfstudy build` as a library call, the whole pipeline:
 *
 *   inputs -> plan (plan.h: experiments, runs, trace files)
 *          -> read every trace into the store (read.c; one transaction per trace)
 *          -> analyze each experiment -> figures and pages (assemble.c)
 *
 * Everything is written into DIR.tmp.<pid> beside DIR and swapped in at the
 * end, so a failed build leaves the previous output as it was and no
 * partial directory behind. The command line (cli/cmd_build.c) only parses
 * options into struct build_options and turns diagnostics into an exit code.
 */
#ifndef PERFSTUDY_STUDY_BUILD_H
#define PERFSTUDY_STUDY_BUILD_H

#include <stddef.h>

/*
 * What a build does besides a plain build (all zero), for a build cut in
 * two stages (cli/cmd_shard.c): `perfstudy ingest` reads shard `shard` of
 * `nshards` into the -o file and stops; `perfstudy merge` builds with every
 * trace's events from the shard databases merge[0..nmerge).
 */
struct build_mode {
	int shard, nshards;
	const char *const *merge;
	size_t nmerge;
};

struct build_options {
	const char *out;    /* output directory */
	const char *preset; /* classification preset, NULL: each manifest's */
	int quiet, force, jobs;
	char **inputs;      /* manifests, trace directories and files */
	size_t ninputs;
	int argc;           /* the whole command line, for the build's fingerprint */
	char **argv;
	const struct build_mode *mode;
};

/*
 * Runs a build. Returns 0 (also when the output was up to date and nothing
 * was written), or -1 after diag; every failure is reported, so the exit
 * code is diag_exit_code().
 */
int build_run(const struct build_options *o);

#endif
