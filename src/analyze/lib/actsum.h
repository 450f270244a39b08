/*
 * actsum.h: calls, total, min and max duration of the GPU activities of a
 * set of traces, per (kind, name id).
 *
 * What `SELECT kind, name_id, count(*), sum(dur_ns), min(dur_ns),
 * max(dur_ns) ... GROUP BY kind, name_id` gives, without the GROUP BY:
 * SQLite sorts every row for it (64 ranks of 100 MB: 2.1M rows, 1.5 s),
 * where this walks each trace's rows once into arrays indexed by name id
 * (the store numbers names 1, 2, ...).
 */
#ifndef PERFSTUDY_ACTSUM_H
#define PERFSTUDY_ACTSUM_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"
#include "store/store.h"

struct act_sum {
	int64_t calls, total_ns, min_ns, max_ns; /* calls 0: no activity */
};

struct act_sums {
	size_t cap;              /* name ids below cap have room */
	struct act_sum *sums[4]; /* [kind (ACT_KERNEL..ACT_MEMSET)][name id]; sums[0] unused */
	size_t n, cap_keys;
	int64_t *keys;           /* act_key of every entry with calls */
	struct store_stmt *rows[2];   /* every kind, kernels only */
	struct store_stmt *group;     /* act_sums_group's lookup */
};

/* An entry's key: ordered by name id, then kind. */
static inline int64_t act_key(int64_t name_id, enum activity_kind kind)
{
	return name_id * 4 + (int64_t)kind;
}
static inline int64_t act_key_name(int64_t key)
{
	return key / 4;
}
static inline enum activity_kind act_key_kind(int64_t key)
{
	return (enum activity_kind)(key % 4);
}

/* The store's text of a kind: "kernel", "memcpy", "memset". */
const char *act_kind_name(enum activity_kind kind);

void act_sums_init(struct act_sums *a);
/*
 * Adds the activities of trace trace_id (of every kind, or the kernels
 * only) to a. Returns 0, or -1 after diag: the store's error, or a total
 * beyond int64 (where SQLite's sum() fails with "integer overflow").
 */
int act_sums_add_trace(struct act_sums *a, struct store *s, int64_t trace_id, int kernels_only);
/*
 * Adds the traces whose ids are the first column of ids (its parameters
 * bound by the caller; reset here). Returns 0, or -1 after diag.
 */
int act_sums_add_traces(struct act_sums *a, struct store *s, struct store_stmt *ids, int kernels_only);
/*
 * The group of key's (kind, name) in experiment exp (activity_groups):
 * 1 with *grp set (valid until the next call), 0 when it has none, -1
 * after diag.
 */
int act_sums_group(struct act_sums *a, struct store *s, const char *exp, int64_t key, const char **grp);
/* The entry of key (act_key). */
const struct act_sum *act_sums_get(const struct act_sums *a, int64_t key);
/* Sorts a->keys (name id, then kind), so that a->keys[0..n) lists the entries in that order. */
void act_sums_sort(struct act_sums *a);
/* Empties the sums; the memory and statements stay for the next set of traces. */
void act_sums_clear(struct act_sums *a);
void act_sums_release(struct act_sums *a);

#endif
