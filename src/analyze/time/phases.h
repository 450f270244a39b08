/*
 * phases.h: the named phases of a training step (phases.c), shared with the
 * analyses that map other inputs to the same phases (report_phases.c) or
 * that attribute a rank's time to them (straggler_causes.c); and the
 * contracts of phases.csv and phase_report_phases.csv (util/table.h), which
 * compare_phases.c reads back.
 */
#ifndef PERFSTUDY_PHASES_H
#define PERFSTUDY_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "util/table.h"

struct manifest;
struct store;
struct ivset;
struct rank_data;

/* A phase: its name and the annotation (or profiler action) names that count as it. */
struct phase {
	const char *name;
	size_t nnames;
	const char *const *names;
};

/*
 * The default phases (get_train_batch, forward, backward, optimizer_step)
 * with the manifest's `phases` applied (m may be NULL); *n set; the caller
 * frees the array (the names belong to the defaults or the manifest).
 */
struct phase *phase_list(const struct manifest *m, size_t *n);
/* '*' matches any run of characters (also none); everything else itself. */
int wild_match(const char *pat, const char *s);

/* Name id -> phase index (-1: none), filled as names are looked up; one per experiment. */
struct phase_names {
	size_t n, cap;
	int64_t *ids;
	int *phase;
	size_t *slot, nslots; /* 1 + index into ids by hash of the id, at most half full */
};
/* The index in ph of the phase whose names match name id, or -1. */
int phase_of_name(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph, int64_t id);
void phase_names_release(struct phase_names *nm);
/*
 * A rank's host time per phase (phases.c's rule: per thread, every instant
 * inside matched annotation ranges belongs to the innermost one): host[p]
 * (nph sets, cleared, then normal) and calls[p] (ranges not nested in one
 * of the same phase) for each phase p.
 */
void phase_host_time(struct store *s, struct phase_names *nm, const struct phase *ph, size_t nph,
		     const struct rank_data *d, struct ivset *host, int64_t *calls);
/* The index of the phase whose host time (as phase_host_time gives it) holds t, or -1 (the first on ties). */
int phase_at(const struct ivset *host, size_t nph, int64_t t);

/* phases.csv's columns, in order. */
#define PHASES_COLUMNS(X)              \
	X(PHASES_RUN, "run", text)     \
	X(PHASES_RANK, "rank", int)    \
	X(PHASES_PHASE, "phase", text) \
	X(PHASES_CALLS, "calls", int)  \
	X(PHASES_CPU_US, "cpu_us", us) \
	X(PHASES_GPU_US, "gpu_us", us)
enum phases_col { PHASES_COLUMNS(TABLE_COL_ENUM) PHASES_NCOLS };

/* phase_report_phases.csv's columns, in order. */
#define PHASE_REPORT_PHASES_COLUMNS(X)        \
	X(RPP_RUN, "run", text)               \
	X(RPP_SOURCE, "source", text)         \
	X(RPP_PHASE, "phase", text)           \
	X(RPP_ACTION, "action", text)         \
	X(RPP_CALLS, "calls", int)            \
	X(RPP_REPORTED_US, "reported_us", us) \
	X(RPP_PHASE_US, "phase_us", us)       \
	X(RPP_SHARE, "share", frac)
enum phase_report_phases_col { PHASE_REPORT_PHASES_COLUMNS(TABLE_COL_ENUM) RPP_NCOLS };

#endif
