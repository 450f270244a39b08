/* progress.c: progress of a build's reading on stderr, see progress.h. */
#include "util/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/diag.h"

#define BAR_WIDTH 24

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Sizes as people read them: 512 B, 3.4 kB, 1.2 MB, 2.0 GB (powers of 1000). */
static void human(char *out, size_t n, double bytes)
{
	static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
	size_t u = 0;
	while (bytes >= 1000 && u < 4) {
		bytes /= 1000;
		u++;
	}
	if (u == 0)
		snprintf(out, n, "%.0f B", bytes);
	else
		snprintf(out, n, "%.1f %s", bytes, unit[u]);
}

void progress_init(struct progress *p, int quiet, int64_t total_bytes, size_t nfiles)
{
	p->mode = quiet ? 0 : isatty(STDERR_FILENO) ? 2 : 1;
	p->total = total_bytes;
	p->done = p->read = 0;
	p->nfiles = nfiles;
	p->nread = p->nreused = 0;
	p->t0 = now();
}

static void draw_bar(struct progress *p, const char *what)
{
	double frac = p->total > 0 ? (double)p->done / (double)p->total : 1;
	if (frac > 1)
		frac = 1;
	int fill = (int)(frac * BAR_WIDTH + 0.5);
	char bar[BAR_WIDTH + 1];
	for (int i = 0; i < BAR_WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[BAR_WIDTH] = '\0';
	char done[32], total[32], rate[48] = "", eta[48] = "";
	human(done, sizeof(done), (double)p->done);
	human(total, sizeof(total), (double)p->total);
	double secs = now() - p->t0;
	if (p->read > 0 && secs > 0.05) {
		double r = (double)p->read / secs;
		char per[32];
		human(per, sizeof(per), r);
		snprintf(rate, sizeof(rate), "%s/s", per);
		double left = (double)(p->total - p->done) / r;
		snprintf(eta, sizeof(eta), "ETA %d:%02d", (int)left / 60, (int)left % 60);
	}
	/* The file's name last, cut to its last 30 bytes so the line stays on one row; escaped as diag does. */
	char *name = diag_escape(what);
	size_t wl = strlen(name);
	fprintf(stderr, "\r[%s] %3d%%  %s of %s  %s  %s  %s%s\033[K", bar, (int)(frac * 100), done, total,
		rate, eta, wl > 30 ? "..." : "", wl > 30 ? name + wl - 30 : name);
	fflush(stderr);
	free(name);
}

void progress_reading(struct progress *p, const char *path, int64_t size)
{
	char sz[32];
	human(sz, sizeof(sz), (double)size);
	if (p->mode == 1) {
		/* A file's name may hold a newline or an escape: never a forged line (diag.h). */
		char *e = diag_escape(path);
		fprintf(stderr, "perfstudy: reading %s (%s)\n", e, sz);
		free(e);
	} else if (p->mode == 2)
		draw_bar(p, path);
}

void progress_read(struct progress *p, int64_t size)
{
	p->done += size;
	p->read += size;
	p->nread++;
	if (p->mode == 2)
		draw_bar(p, "");
}

void progress_reused(struct progress *p, const char *path, int64_t size)
{
	p->done += size;
	p->nreused++;
	if (p->mode == 1) {
		char *e = diag_escape(path);
		fprintf(stderr, "perfstudy: %s: unchanged, reused\n", e);
		free(e);
	} else if (p->mode == 2)
		draw_bar(p, path);
}

void progress_finish(struct progress *p)
{
	if (p->mode == 0)
		return;
	if (p->mode == 2)
		fputs("\r\033[K", stderr);
	char sz[32];
	human(sz, sizeof(sz), (double)p->read);
	fprintf(stderr, "perfstudy: %zu trace%s: %zu read (%s), %zu unchanged\n", p->nfiles,
		p->nfiles == 1 ? "" : "s", p->nread, sz, p->nreused);
}
