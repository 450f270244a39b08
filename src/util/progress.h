/*
 * progress.h: how far a build's reading has come, on stderr.
 *
 * On a terminal, one line redrawn in place: a bar, bytes read of the total,
 * the rate and the time left, updated as each trace is done. Elsewhere (a
 * log, a CI job) one plain line per trace, so the log reads in order:
 *   perfstudy: reading traces/rank0.json.gz (1.2 MB)
 *   perfstudy: traces/rank1.json.gz: unchanged, reused
 * Quiet prints nothing. Reused traces count as done but not towards the rate.
 */
#ifndef PERFSTUDY_PROGRESS_H
#define PERFSTUDY_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

struct progress {
	int mode;             /* 0 quiet, 1 lines, 2 a bar redrawn on a terminal */
	int64_t total, done;  /* bytes of all traces, and of those done */
	int64_t read;         /* bytes actually read (not reused) */
	size_t nfiles, nread, nreused;
	double t0;            /* when reading began (seconds, monotonic) */
};

/* quiet: print nothing; otherwise a bar when stderr is a terminal, else lines. */
void progress_init(struct progress *p, int quiet, int64_t total_bytes, size_t nfiles);
/* Before reading a trace of size bytes. */
void progress_reading(struct progress *p, const char *path, int64_t size);
/* After reading it. */
void progress_read(struct progress *p, int64_t size);
/* A trace whose rows were reused from the previous build. */
void progress_reused(struct progress *p, const char *path, int64_t size);
/* Clears the bar and prints the tally: "perfstudy: 8 traces: 2 read (1.2 MB), 6 unchanged". */
void progress_finish(struct progress *p);

#endif
