/*
 * chart_many.c: writing a report's figures in several processes (see chart.h).
 *
 * Each figure is independent (its own cairo surfaces and files), so workers
 * take the next figure in turn from a counter they share. The workers are
 * processes, not threads: cairo 1.16 (Debian 12) keeps its scaled fonts in
 * one process-wide map, and two threads drawing text at once abort in it
 * now and then ("cairo_scaled_font_destroy: Assertion `! scaled_font->
 * cache_frozen' failed", seen in CI with --jobs 2). A forked worker has its
 * own copy of every cairo cache, so nothing is shared but the counter.
 *
 * What a figure reports (diag) is kept with it; a child writes its figures'
 * messages and results to a temporary file that the parent reads after the
 * child ends, and the parent replays them in figure order, so messages and
 * the first failure are those of a one-process run. The files are the same
 * bytes whatever the number of workers (tests/e2e/t_parallel.sh compares
 * --jobs 1 and 4). A child that dies (a signal, or running out of memory)
 * fails the build; a child that cannot be started leaves its share to the
 * others.
 */
#include "chart/chart.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/diag.h"
#include "util/xalloc.h"

struct message {
	enum diag_level level;
	char *text;
};

struct job {
	const struct chart *chart;
	const char *caption;
	int failed;
	int done; /* drawn, here or in a child whose results were read back */
	struct message *msgs;
	size_t nmsgs, cap;
};

struct pool {
	struct job *jobs;
	size_t n;
	_Atomic size_t *next; /* in memory shared with the children */
	const char *dir;
	const struct chart_style *style;
};

static void keep(void *ctx, enum diag_level level, const char *text)
{
	struct job *j = ctx;
	j->msgs = xgrow(j->msgs, &j->cap, j->nmsgs + 1, sizeof(*j->msgs));
	j->msgs[j->nmsgs++] = (struct message){level, xstrdup(text)};
}

/* Draws figures until none is left; done(i) after each (a child reports it there). -1 when done failed. */
static int work(struct pool *p, int (*done)(struct pool *, size_t, void *), void *ctx)
{
	int ret = 0;
	for (;;) {
		size_t i = atomic_fetch_add(p->next, 1);
		if (i >= p->n)
			break;
		struct job *j = &p->jobs[i];
		diag_divert(keep, j);
		j->failed = chart_write(j->chart, p->dir, p->style) < 0 ||
			    chart_write_latex(j->chart, p->dir, j->caption, p->style) < 0;
		diag_divert(NULL, NULL);
		j->done = 1;
		if (done && done(p, i, ctx) < 0) {
			ret = -1;
			break;
		}
	}
	chart_render_release();
	return ret;
}

/*
 * A child's record of figure i in its results file: the index, failed and
 * the number of messages, then each message's level, length and bytes.
 */
struct record {
	uint64_t index;
	int32_t failed;
	uint32_t nmsgs;
};

static int put(FILE *f, const void *v, size_t n)
{
	return fwrite(v, 1, n, f) == n ? 0 : -1;
}

static int report(struct pool *p, size_t i, void *ctx)
{
	FILE *f = ctx;
	struct job *j = &p->jobs[i];
	struct record r = {i, j->failed, (uint32_t)j->nmsgs};
	if (put(f, &r, sizeof(r)) < 0)
		return -1;
	for (size_t m = 0; m < j->nmsgs; m++) {
		int32_t level = (int32_t)j->msgs[m].level;
		uint64_t len = strlen(j->msgs[m].text);
		if (put(f, &level, sizeof(level)) < 0 || put(f, &len, sizeof(len)) < 0 ||
		    put(f, j->msgs[m].text, len) < 0)
			return -1;
	}
	return fflush(f) == 0 ? 0 : -1;
}

/* In the child: draw, write the results, and end without the parent's exit handlers or stdio buffers. */
static void child(struct pool *p, FILE *f)
{
	cleanup_in_child();
	/* Not left drawing once the build has ended (killed, or failed elsewhere). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	_exit(work(p, report, f) < 0 ? 1 : 0);
}

/* Reads a child's results file into the jobs it drew; -1 when it is cut short. */
static int read_back(struct pool *p, FILE *f)
{
	struct record r;
	if (fseek(f, 0, SEEK_SET) != 0)
		return -1;
	while (fread(&r, sizeof(r), 1, f) == 1) {
		if (r.index >= p->n || p->jobs[r.index].done)
			return -1;
		struct job *j = &p->jobs[r.index];
		j->failed = r.failed;
		for (uint32_t m = 0; m < r.nmsgs; m++) {
			int32_t level;
			uint64_t len;
			if (fread(&level, sizeof(level), 1, f) != 1 || fread(&len, sizeof(len), 1, f) != 1 ||
			    len > (1u << 24))
				return -1;
			char *text = xmalloc(len + 1);
			if (len && fread(text, len, 1, f) != 1) {
				free(text);
				return -1;
			}
			text[len] = '\0';
			j->msgs = xgrow(j->msgs, &j->cap, j->nmsgs + 1, sizeof(*j->msgs));
			j->msgs[j->nmsgs++] = (struct message){(enum diag_level)level, text};
		}
		j->done = 1;
	}
	return ferror(f) ? -1 : 0;
}

struct worker {
	pid_t pid;
	FILE *results;
};

int chart_write_many(const struct chart *const *charts, const char *const *captions, size_t n, const char *dir,
		     const struct chart_style *style, int jobs)
{
	_Atomic size_t *next = mmap(NULL, sizeof(*next), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (next == MAP_FAILED) {
		diag_syserror(dir, "cannot map memory for the figure workers: %s", strerror(errno));
		return -1;
	}
	atomic_store(next, 0);
	struct pool p = {xcalloc(n + 1, sizeof(struct job)), n, next, dir, style};
	for (size_t i = 0; i < n; i++) {
		p.jobs[i].chart = charts[i];
		p.jobs[i].caption = captions[i];
	}
	size_t nw = jobs > 1 ? (size_t)jobs - 1 : 0;
	if (nw > n)
		nw = n;
	struct worker *w = xcalloc(nw + 1, sizeof(*w));
	size_t started = 0;
	while (started < nw) {
		FILE *f = tmpfile();
		if (!f)
			break;
		pid_t pid = fork();
		if (pid < 0) {
			fclose(f);
			break;
		}
		if (pid == 0)
			child(&p, f);
		w[started++] = (struct worker){pid, f};
	}
	work(&p, NULL, NULL);
	int ret = 0, failed = 0;
	for (size_t t = 0; t < started; t++) {
		int st;
		while (waitpid(w[t].pid, &st, 0) < 0 && errno == EINTR)
			;
		int lost = read_back(&p, w[t].results) < 0;
		fclose(w[t].results);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || lost) {
			if (WIFSIGNALED(st))
				diag_error(dir, "a process drawing figures was killed by signal %d", WTERMSIG(st));
			else
				diag_error(dir, "a process drawing figures failed (exit %d)%s",
					   WIFEXITED(st) ? WEXITSTATUS(st) : -1, lost ? ", its results cut short" : "");
			ret = -1;
		}
	}
	free(w);
	munmap((void *)next, sizeof(*next));
	/* In figure order: every message up to the first failed figure, as one process would have left them. */
	for (size_t i = 0; i < n; i++) {
		struct job *j = &p.jobs[i];
		for (size_t m = 0; m < j->nmsgs; m++) {
			if (!failed)
				diag_replay(j->msgs[m].level, j->msgs[m].text);
			free(j->msgs[m].text);
		}
		free(j->msgs);
		/* A figure no process finished (its worker died) fails the build as a failed one does. */
		if (j->failed || !j->done)
			failed = 1;
	}
	if (failed)
		ret = -1;
	free(p.jobs);
	return ret;
}
