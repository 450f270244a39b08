/*
 * memory_chart.h: the figure memory_timeline_<run> of memory_steps.c, built
 * as the ranks' allocator events stream by, in bounded memory: per drawn
 * rank MEMFIG_POINTS buckets over its profiled steps, each keeping the
 * largest and the last allocated and reserved bytes of its events.
 */
#ifndef PERFSTUDY_MEMORY_CHART_H
#define PERFSTUDY_MEMORY_CHART_H

#include <stddef.h>
#include <stdint.h>

struct analysis_result;
struct ivset;
struct phase;

#define MEMFIG_RANKS 8    /* ranks drawn per run: the first ones with events, in rank order */
#define MEMFIG_POINTS 300 /* points per line */

struct memfig_rank {
	int rank;
	int64_t span;                     /* ns from its first profiled step's start to its last step's end */
	double *amax, *alast, *rmax, *rlast; /* MEMFIG_POINTS each: bytes */
	unsigned char *has;
};

struct memory_fig {
	struct memfig_rank r[MEMFIG_RANKS];
	size_t n;
	int cur;                          /* index of the rank being read, -1: not drawn */
	size_t ranks;                     /* ranks with events in the run */
	struct memfig_band { double x0, x1; const char *key; } *bands; /* of the first drawn rank, ms */
	size_t nbands, capb;
};

/* Starts a run's figure (f zeroed or finished before). */
void memory_fig_start(struct memory_fig *f);
/* Starts a rank with events, whose profiled steps span span_ns; drawn when one of the first MEMFIG_RANKS. */
void memory_fig_rank(struct memory_fig *f, int rank, int64_t span_ns);
/* The allocator's state from t_ns after its first step's start on (the current rank). */
void memory_fig_point(struct memory_fig *f, int64_t t_ns, int64_t allocated, int64_t reserved);
/* The phases' host time of the first drawn rank (nph sets, normal) between lo and hi, shaded. */
void memory_fig_regions(struct memory_fig *f, const struct ivset *host, const struct phase *ph, size_t nph,
			int64_t lo, int64_t hi);
/* Adds the figure of run to out (nothing without a drawn rank) and frees what f holds. */
void memory_fig_finish(struct memory_fig *f, struct analysis_result *out, const char *run);

#endif
