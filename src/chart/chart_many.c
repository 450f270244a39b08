/*
 * chart_many.c: writing a report's figures on several threads (see chart.h).
 *
 * Each figure is independent (its own cairo surfaces and files; the drawing
 * state in chart_draw.h's look is per thread), so threads take the next figure
 * in turn. What a figure reports (diag) is kept with it and replayed in
 * figure order afterwards, so messages and the first failure are those of
 * a one-thread run; the files are the same bytes whatever the thread count
 * (tests/e2e/t_parallel.sh compares --jobs 1 and 4).
 */
#include "chart/chart.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

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
	struct message *msgs;
	size_t nmsgs, cap;
};

struct pool {
	struct job *jobs;
	size_t n;
	_Atomic size_t next;
	const char *dir;
	const struct chart_style *style;
};

static void keep(void *ctx, enum diag_level level, const char *text)
{
	struct job *j = ctx;
	j->msgs = xgrow(j->msgs, &j->cap, j->nmsgs + 1, sizeof(*j->msgs));
	j->msgs[j->nmsgs++] = (struct message){level, xstrdup(text)};
}

static void *work(void *arg)
{
	struct pool *p = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n) {
			chart_render_release();
			return NULL;
		}
		struct job *j = &p->jobs[i];
		diag_divert(keep, j);
		j->failed = chart_write(j->chart, p->dir, p->style) < 0 ||
			    chart_write_latex(j->chart, p->dir, j->caption, p->style) < 0;
		diag_divert(NULL, NULL);
	}
}

int chart_write_many(const struct chart *const *charts, const char *const *captions, size_t n, const char *dir,
		     const struct chart_style *style, int jobs)
{
	struct pool p = {xcalloc(n + 1, sizeof(struct job)), n, 0, dir, style};
	for (size_t i = 0; i < n; i++) {
		p.jobs[i].chart = charts[i];
		p.jobs[i].caption = captions[i];
	}
	size_t nt = jobs > 1 ? (size_t)jobs - 1 : 0;
	if (nt > n)
		nt = n;
	pthread_t *threads = xcalloc(nt + 1, sizeof(*threads));
	size_t started = 0;
	while (started < nt && pthread_create(&threads[started], NULL, work, &p) == 0)
		started++;
	work(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(threads[t], NULL);
	free(threads);
	/* In figure order: every message up to the first failed figure, as one thread would have left them. */
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		struct job *j = &p.jobs[i];
		for (size_t m = 0; m < j->nmsgs; m++) {
			if (ret == 0)
				diag_replay(j->msgs[m].level, j->msgs[m].text);
			free(j->msgs[m].text);
		}
		free(j->msgs);
		if (j->failed)
			ret = -1;
	}
	free(p.jobs);
	return ret;
}
