/* timing.c: per-stage wall-clock accounting and the analyses' work counts (see timing.h). */
#include "util/timing.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Nanoseconds per stage; atomic because reader threads add to them. */
static _Atomic long long stage_ns[TIME_NSTAGES];

static const char *const stage_names[TIME_NSTAGES] = {"read", "parse", "store", "index", "ingest", "analyze", "render", "chart"};

double timing_thread_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double timing_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void timing_add(enum timing_stage s, double secs)
{
	atomic_fetch_add(&stage_ns[s], (long long)(secs * 1e9));
}

/* Seconds this thread added with timing_add_nested, for its spans. */
static _Thread_local double nested_secs;

void timing_span_begin(struct timing_span *sp)
{
	sp->t0 = timing_now();
	sp->nested0 = nested_secs;
}

void timing_span_end(struct timing_span *sp, enum timing_stage s)
{
	timing_add(s, timing_now() - sp->t0 - (nested_secs - sp->nested0));
}

void timing_add_nested(enum timing_stage s, double secs)
{
	timing_add(s, secs);
	nested_secs += secs;
}

int timing_enabled(void)
{
	const char *e = getenv("PERFSTUDY_TIMING");
	return e && *e && strcmp(e, "0");
}

_Thread_local long long work_count[WORK_NKINDS];

int counting_enabled(void)
{
	const char *e = getenv("PERFSTUDY_COUNTS");
	return e && *e && strcmp(e, "0");
}

void timing_print(double total)
{
	if (!timing_enabled())
		return;
	for (int i = 0; i < TIME_NSTAGES; i++)
		fprintf(stderr, "perfstudy: timing: %s %.3f s\n", stage_names[i], (double)atomic_load(&stage_ns[i]) * 1e-9);
	fprintf(stderr, "perfstudy: timing: total %.3f s\n", total);
}

double timing_get(enum timing_stage s)
{
	return (double)atomic_load(&stage_ns[s]) * 1e-9;
}
