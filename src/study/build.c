/*
 * study/build.c: `perfstudy build`'s pipeline (build.h), from a plan to
 * the swap of the new output directory into place. Reading is read.c's,
 * drawing and pages assemble.c's; this file holds the order of the stages,
 * the build's fingerprint (is the output up to date?), the analyses and
 * the temporary directory's life.
 */
#include "study/build.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/history/crossexp.h"
#include "analyze/history/history.h"
#include "study/build_int.h"
#include "study/cache.h"
#include "study/guard.h"
#include "study/shard.h"
#include "util/buf.h"
#include "util/cleanup.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/timing.h"
#include "util/xalloc.h"

/* The experiments' analyses, every one before any is drawn: comparisons across experiments read them all. */
static int analyze_one(struct build *b, struct exp_plan *e, struct exp_output *o)
{
	struct store *s = b->store;
	memset(o, 0, sizeof(*o));
	struct analysis_ctx ctx = {
		.store = s,
		.experiment = e->id,
		.cls = e->cls,
		.manifest = e->manifest,
		.top_n = e->top_n,
		.built_at = b->built_at,
	};
	double t_analyze = timing_now();
	xalloc_context("analyzing experiment", e->id, NULL); /* named if memory runs out */
	if (analyze_experiment(&ctx, &o->res) < 0)
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


/*
 * What decides a build's output, as text for cache_fingerprint: the command
 * line, and for every experiment its manifest's bytes and, for every file
 * the build reads (traces, each run's inputs: training logs, Nsight Compute
 * CSVs, reports; hardware.nvidia_smi and hardware.topology), its path,
 * size and modification time (a file rewritten with new bytes gets a new
 * time; touching one merely re-reads it), and the device and inode of the
 * file the path resolves to: a symbolic link (or a directory on the path)
 * retargeted to another file of the same size and time was "up to date".
 */
static void add_stat(struct buf *b, const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0)
		buf_printf(b, "file %s %lld %lld.%09ld %llu:%llu\n", path, (long long)st.st_size,
			   (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec, (unsigned long long)st.st_dev,
			   (unsigned long long)st.st_ino);
	else
		buf_printf(b, "file %s missing\n", path);
}

static char *build_fingerprint(const struct plan *p, int argc, char *const *argv)
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
		if (e->manifest && e->manifest->hardware.topology)
			add_stat(&b, e->manifest->hardware.topology);
		for (size_t r = 0; r < e->nruns; r++)
			for (size_t t = 0; t < e->runs[r].ntraces; t++)
				add_stat(&b, e->runs[r].traces[t]);
		/* A run's other inputs: training logs, Nsight Compute CSVs, nvidia-smi files, reports. */
		for (size_t r = 0; e->manifest && r < e->manifest->nruns; r++)
			for (size_t i = 0; i < e->manifest->runs[r].ninputs; i++)
				add_stat(&b, e->manifest->runs[r].inputs[i]);
		for (size_t r = 0; r < e->nruns; r++)
			for (size_t i = 0; i < e->runs[r].nlogs; i++)
				add_stat(&b, e->runs[r].logs[i]);
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


/*
 * Plans the inputs and checks what can be checked before any trace is
 * read: experiment ids, and the runs comparisons name (all must be in
 * this build).
 */
static int plan_build(struct build *b)
{
	if (plan_inputs(&b->plan, b->opt->inputs, b->opt->ninputs, b->opt->preset) < 0)
		return -1;
	struct crossexp_exp *xcheck = cross_exps(&b->plan, NULL);
	int xbad = crossexp_check(xcheck, b->plan.nexp) < 0;
	cross_exps_free(xcheck, b->plan.nexp);
	return xbad ? -1 : 0;
}

/*
 * Whether the output is up to date (1: nothing to do), after the output
 * directory was checked and the early reading started; 0 to build, -1
 * after diag.
 */
static int up_to_date(struct build *b)
{
	if (cleanup_stale(b->outdir, b->opt->quiet) < 0 || check_output_dir(b->outdir) < 0)
		return -1;
	b->prev_db = xasprintf("%s/perfstudy.db", b->outdir);
	read_early(b);
	b->fingerprint = build_fingerprint(&b->plan, b->opt->argc, b->opt->argv);
	if (!b->force && cache_up_to_date(b->prev_db, b->fingerprint, b->outdir, b->opt->quiet)) {
		if (!b->opt->quiet)
			diag_line(stderr, "perfstudy: %s is up to date: no input, option or manifest changed"
					  " since it was built (--force rebuilds)", b->outdir);
		return 1;
	}
	return 0;
}

/*
 * Creates DIR.tmp.<pid> exclusively (mkdir, never an existing directory).
 * One of that name may be there already when pids repeat (containers start
 * from the same pids): it is removed only when it holds perfstudy's partial
 * mark naming it (a killed build's leftover, fs.h) or is empty; anything
 * else there is the user's (a site.tmp.1234/thesis.tex) and the build
 * stops naming it. Returns 0, or -1 after diag.
 */
static int make_tmp(const char *tmp)
{
	const char *slash = strrchr(tmp, '/');
	const char *name = slash ? slash + 1 : tmp;
	if (mkdir(tmp, 0777) == 0)
		return 0;
	if (errno == ENOENT) {
		/* The parent of DIR does not exist yet: make it, then DIR.tmp.<pid> as before. */
		char *parent = xstrdup(tmp);
		char *ps = strrchr(parent, '/');
		int r = 0;
		if (ps && ps != parent) {
			*ps = '\0';
			r = fs_mkdirs(parent);
		}
		free(parent);
		if (r < 0)
			return -1;
		if (mkdir(tmp, 0777) == 0)
			return 0;
	}
	if (errno != EEXIST) {
		diag_syserror(tmp, "cannot create directory: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (lstat(tmp, &st) == 0 && S_ISDIR(st.st_mode) && (fs_is_partial(tmp, name) || rmdir(tmp) == 0)) {
		if (fs_is_dir(tmp) == 1 && fs_remove_tree(tmp) < 0)
			return -1;
		if (mkdir(tmp, 0777) == 0)
			return 0;
	}
	diag_error(tmp, "exists and is not perfstudy's partial output (no %s mark naming it): the build "
			"writes its temporary output under this name; move it away and build again",
		   FS_PARTIAL_MARK);
	return -1;
}

/* Makes DIR.tmp.<pid> and the new store in it. */
static int open_store(struct build *b)
{
	/*
	 * From here a SIGINT, SIGTERM or SIGHUP removes tmp and exits 128 + the
	 * signal. Held from before the mkdir until the handler knows tmp: a
	 * signal in between (the lock's handler already installed) left the
	 * new directory behind. A held signal is delivered at cleanup_hold(0).
	 */
	cleanup_hold(1);
	if (make_tmp(b->tmp) < 0) {
		cleanup_hold(0);
		return -1;
	}
	cleanup_arm(b->tmp);
	cleanup_hold(0);
	b->made_tmp = 1;
	/* Marked as perfstudy's, for cleanup_stale after a SIGKILL; unmarked before the swap. */
	const char *slash = strrchr(b->tmp, '/');
	if (fs_mark_partial(b->tmp, slash ? slash + 1 : b->tmp) < 0)
		return -1;
	char *dbpath = xasprintf("%s/perfstudy.db", b->tmp);
	int r = store_open(dbpath, &b->store);
	free(dbpath);
	if (r < 0)
		return -1;
	return cache_set_fingerprint(b->store, b->fingerprint);
}

/* Analyses, comparisons across experiments, the site and the history, in one transaction. */
static int analyze_and_assemble(struct build *b)
{
	const struct plan *p = &b->plan;
	double t_lap = timing_now();
	b->built_at = history_build_time();
	if (store_history_open(b->store, b->prev_db, b->opt->quiet) < 0)
		return -1;
	b->outs = xcalloc(p->nexp, sizeof(*b->outs));
	int ok = store_begin(b->store) == 0;
	for (size_t i = 0; ok && i < p->nexp; i++)
		if (analyze_one(b, &p->exps[i], &b->outs[i]) < 0)
			ok = 0;
	if (ok) {
		/* Comparisons across experiments, once all are analysed; appended to the experiment naming them. */
		struct crossexp_exp *x = cross_exps(p, b->outs);
		for (size_t i = 0; ok && i < p->nexp; i++) {
			const struct exp_plan *e = &p->exps[i];
			struct analysis_ctx ctx = {
				.store = b->store,
				.experiment = e->id,
				.cls = e->cls,
				.manifest = e->manifest,
				.top_n = e->top_n,
				.built_at = b->built_at,
				.exps = x,
				.nexps = p->nexp,
				.self = i,
			};
			if (analyze_across(&ctx, &b->outs[i].res) < 0)
				ok = 0;
		}
		cross_exps_free(x, p->nexp);
	}
	if (ok && assemble_site(b) < 0)
		ok = 0;
	/* What the up-to-date shortcut checks is there next time (cache.h). */
	if (ok && cache_record_site(b->store, b->tmp) < 0)
		ok = 0;
	if (ok) {
		xalloc_context("recording the build history", NULL, NULL);
		const char **ids = xcalloc(p->nexp + 1, sizeof(*ids));
		const struct manifest **mans = xcalloc(p->nexp + 1, sizeof(*mans));
		for (size_t i = 0; i < p->nexp; i++) {
			ids[i] = p->exps[i].id;
			mans[i] = p->exps[i].manifest;
		}
		if (history_write(b->store, ids, mans, p->nexp) < 0)
			ok = 0;
		free(ids);
		free(mans);
	}
	timing_add(TIME_RENDER, timing_now() - t_lap - timing_get(TIME_ANALYZE));
	if (ok && store_commit(b->store) < 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* Closes the store and swaps DIR.tmp.<pid> in for DIR. */
static int swap_in(struct build *b)
{
	int r = store_close(b->store);
	b->store = NULL;
	if (r < 0)
		return -1;
	/* No signal between the two renames of the swap: it completes or fails whole. */
	cleanup_hold(1);
	fs_unmark_partial(b->tmp);
	if (fs_replace_dir(b->tmp, b->outdir) < 0) {
		cleanup_hold(0);
		return -1;
	}
	b->made_tmp = 0;
	cleanup_disarm();
	cleanup_hold(0);
	return 0;
}

static void build_release(struct build *b)
{
	if (b->outs)
		for (size_t i = 0; i < b->plan.nexp; i++)
			exp_output_release(&b->outs[i]);
	free(b->outs);
	read_end(b);
	if (b->store)
		store_close(b->store);
	if (b->made_tmp)
		fs_remove_tree(b->tmp);
	cleanup_disarm();
	plan_release(&b->plan);
	free(b->paths);
	free(b->tmp);
	/* After the swap and the removal of tmp: the whole build is under the lock. */
	if (b->lockfd >= 0)
		guard_unlock(b->outdir, b->lockfd);
	free(b->outdir);
	free(b->fingerprint);
	free(b->prev_db);
}

int build_run(const struct build_options *o)
{
	struct build b;
	memset(&b, 0, sizeof(b));
	b.opt = o;
	b.lockfd = -1;
	b.force = o->force;
	double t_start = timing_now();
	b.outdir = xstrdup(o->out);
	while (strlen(b.outdir) > 1 && b.outdir[strlen(b.outdir) - 1] == '/')
		b.outdir[strlen(b.outdir) - 1] = '\0';
	b.tmp = xasprintf("%s.tmp.%ld", b.outdir, (long)getpid());
	int ret = -1;
	if (plan_build(&b) < 0)
		goto out;
	if (o->mode->nshards) {
		/* perfstudy ingest: this shard's traces into the shard database, nothing else. */
		if (guard_output_file(o->out, &b.plan, (const char *const *)o->inputs, o->ninputs) < 0 ||
		    (b.lockfd = guard_lock_file(b.outdir)) < 0)
			goto out;
		size_t n;
		const char **paths = plan_paths(&b.plan, &n);
		ret = shard_write(o->out, paths, n, o->mode->shard, o->mode->nshards, o->jobs, o->quiet);
		free(paths);
		goto out;
	}
	struct plan no_plan = {0};
	if (guard_output_dir(b.outdir, &b.plan, (const char *const *)o->inputs, o->ninputs) < 0 ||
	    guard_output_dir(b.outdir, &no_plan, o->mode->merge, o->mode->nmerge) < 0 ||
	    (b.lockfd = guard_lock(b.outdir)) < 0)
		goto out;
	if (o->mode->nmerge)
		b.force = 1; /* every trace comes from the shards */
	int fresh = up_to_date(&b);
	if (fresh)
		ret = fresh > 0 ? 0 : -1; /* up to date: nothing was written */
	if (fresh || open_store(&b) < 0 || read_all(&b) < 0)
		goto out;
	timing_add(TIME_INGEST, timing_now() - t_start);
	if (analyze_and_assemble(&b) < 0 || swap_in(&b) < 0)
		goto out;
	if (!o->quiet) {
		char *esc = diag_escape(b.outdir);
		fprintf(stderr, "perfstudy: wrote %s/index.html\n", esc);
		free(esc);
	}
	timing_print(timing_now() - t_start);
	ret = 0;
out:
	build_release(&b);
	return ret;
}
