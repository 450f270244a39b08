/*
 * hta.h: the GPU events Holistic Trace Analysis (HTA, Meta) analyses, chosen,
 * classified and timed as HTA does it (github.com/facebookresearch/
 * HolisticTraceAnalysis at f4d0062c382f42bd8a74838bcdad1916c7d5d2da), for the
 * HTA-compatible tables: temporal.csv and overlap.csv (temporal.c),
 * idle_time.csv and launch_stats.csv (hta_idle.c). tests/golden/hta/ holds
 * the real HTA's numbers on the bundled and HTA's own traces
 * (tools/hta_goldens.py); hta.c says, cause by cause, where perfstudy
 * follows HTA and where it cannot.
 *
 * Each table has two sets of columns: HTA's numbers (what HTA prints, its
 * rounding included) and exact ones (the same definitions on the times the
 * JSON gives). They differ only for traces whose timestamps carry fractions
 * of a microsecond, which HTA rounds (hta.c, cause 1).
 */
#ifndef PERFSTUDY_HTA_H
#define PERFSTUDY_HTA_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "analyze/lib/rankdata.h"

/* HTA's kernel types (hta/utils/utils.py get_kernel_type), by the kernel's name. */
enum hta_ktype { HTA_COMM, HTA_MEMORY, HTA_COMPUTE, HTA_OTHER };
enum hta_ktype hta_kernel_type(const char *name);

/* The kernel type of each name id of one store, looked up once (caller frees with hta_names_free). */
struct hta_names;
struct hta_names *hta_names_new(struct store *s);
void hta_names_free(struct hta_names *nm);
/* The type of a name id; -1 after diag when the store fails. */
int hta_type(struct hta_names *nm, int64_t name_id, enum hta_ktype *out);

/*
 * Whether HTA's step filter applies to a run: its ranks together have two or
 * more distinct names ProfilerStep#N, host or GPU side. Returns 0/1, or -1
 * after diag.
 */
int hta_run_filters(struct store *s, int64_t run_db_id);

/*
 * for_each_rank for the HTA analyses: visit(k, d, hr, he, filter, arg) for
 * every rank of the experiment in rank_keys order, with d the rank, hr and
 * he the GPU events HTA keeps of it with HTA's times and exact ones (freed
 * after the call), filter whether HTA's step filter applies to its run
 * (hta_run_filters). Stops at the first visit that returns non-zero.
 * Returns 0, or -1 after diag or when a visit returned < 0.
 */
struct hta_rank;
typedef int hta_visit_fn(const struct rank_key *k, const struct rank_data *d, const struct hta_rank *hr,
			 const struct hta_rank *he, int filter, void *arg);
int hta_for_each_rank(struct store *s, const char *exp, hta_visit_fn *visit, void *arg);

struct hta_ev {
	int64_t start, end;   /* ns; end < start is possible with HTA's rounding */
	int64_t stream, corr; /* corr -1: none */
	size_t act;           /* index into rank_data.acts */
	enum hta_ktype type;
};

struct hta_rank {
	int rounded;       /* times rounded as HTA rounds them (fractional-us trace, not exact mode) */
	int filtered;      /* HTA's step filter applied */
	int64_t last_step; /* start of the last ProfilerStep, ns (HTA-rounded when rounded); INT64_MIN: none */
	struct hta_ev *ev; /* the GPU events HTA keeps, sorted by start */
	size_t n;
};

/*
 * The GPU events HTA analyses on one rank. exact = 0: HTA's numbers (its
 * rounding when the trace's timestamps have fractions of a us); exact = 1:
 * the times the trace gives. filter: hta_run_filters of the rank's run.
 * Returns 0, or -1 after diag.
 */
int hta_rank_events(const struct rank_data *d, struct hta_names *nm, int filter, int exact, struct hta_rank *out);
void hta_rank_release(struct hta_rank *r);
/* The time HTA gives a host event of this rank: exact, or rounded as HTA rounds it (r->rounded). */
int64_t hta_start(const struct hta_rank *r, int64_t start_ns);
int64_t hta_end(const struct hta_rank *r, int64_t start_ns, int64_t end_ns);

/*
 * HTA's temporal breakdown, comm/comp overlap and kernel-type breakdown of
 * one rank's events (all ns). by_types[v]: the time during which the kernel
 * types of the bits of v run (1 computation, 2 communication, 4 memory), as
 * get_gpu_kernel_breakdown's first table ("COMPUTATION overlapping MEMORY").
 */
struct hta_temporal {
	int64_t span, idle, compute, comm, overlap;
	int64_t by_types[8];
};
void hta_temporal_of(const struct hta_rank *r, struct hta_temporal *out);

#endif
