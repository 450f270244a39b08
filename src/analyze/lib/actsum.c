/*
 * actsum.c: per-(kind, name) sums of GPU activities (see actsum.h).
 *
 * Definitions, as the SQL they replace: calls = count(*), total_ns =
 * sum(dur_ns), min_ns = min(dur_ns), max_ns = max(dur_ns) over the
 * activities rows of the traces added, per (kind, name_id). All in
 * nanoseconds, integers, exact.
 */
#include "analyze/lib/actsum.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

const char *act_kind_name(enum activity_kind kind)
{
	return kind == ACT_KERNEL ? "kernel" : kind == ACT_MEMCPY ? "memcpy" : "memset";
}

void act_sums_init(struct act_sums *a)
{
	memset(a, 0, sizeof(*a));
}

/* Room for name id id in every kind's array. */
static void reserve(struct act_sums *a, int64_t id)
{
	if ((size_t)id < a->cap)
		return;
	size_t cap = a->cap ? a->cap : 1024;
	while (cap <= (size_t)id)
		cap *= 2;
	for (int k = ACT_KERNEL; k <= ACT_MEMSET; k++) {
		a->sums[k] = xrealloc(a->sums[k], cap * sizeof(*a->sums[k]));
		memset(a->sums[k] + a->cap, 0, (cap - a->cap) * sizeof(*a->sums[k]));
	}
	a->cap = cap;
}

int act_sums_add_trace(struct act_sums *a, struct store *s, int64_t trace_id, int kernels_only)
{
	struct store_stmt **st = &a->rows[kernels_only ? 1 : 0];
	if (!*st && store_prepare(s, "activity sums: a trace's activities",
			kernels_only ? "SELECT 'kernel', name_id, dur_ns FROM activities"
				       " WHERE trace_id = ?1 AND kind = 'kernel'"
				     : "SELECT kind, name_id, dur_ns FROM activities WHERE trace_id = ?1",
			st) < 0)
		return -1;
	store_bind_int64(*st, 1, trace_id);
	int rc;
	while ((rc = store_next(*st)) > 0) {
		const char *k = (const char *)store_column_text(*st, 0);
		/* The schema's CHECK allows these three only. */
		enum activity_kind kind = k[0] == 'k' ? ACT_KERNEL : k[3] == 'c' ? ACT_MEMCPY : ACT_MEMSET;
		int64_t id = store_column_int64(*st, 1), dur = store_column_int64(*st, 2);
		if (id < 0) /* name ids are positive; a damaged store's are not used as an index */
			continue;
		reserve(a, id);
		struct act_sum *e = &a->sums[kind][id];
		if (!e->calls) {
			a->keys = xgrow(a->keys, &a->cap_keys, a->n + 1, sizeof(*a->keys));
			a->keys[a->n++] = act_key(id, kind);
			e->min_ns = e->max_ns = dur;
		}
		e->calls++;
		if (__builtin_add_overflow(e->total_ns, dur, &e->total_ns)) {
			store_reset(*st);
			diag_syserror(store_path(s), "sqlite: actsum: sum of durations: integer overflow");
			return -1;
		}
		if (dur < e->min_ns)
			e->min_ns = dur;
		if (dur > e->max_ns)
			e->max_ns = dur;
	}
	store_reset(*st);
	return rc;
}

int act_sums_add_traces(struct act_sums *a, struct store *s, struct store_stmt *ids, int kernels_only)
{
	int rc;
	while ((rc = store_next(ids)) > 0)
		if (act_sums_add_trace(a, s, store_column_int64(ids, 0), kernels_only) < 0) {
			store_reset(ids);
			return -1;
		}
	store_reset(ids);
	return rc;
}

int act_sums_group(struct act_sums *a, struct store *s, const char *exp, int64_t key, const char **grp)
{
	if (!a->group && store_prepare(s, "activity sums: a name's group", "SELECT grp FROM activity_groups"
					    " WHERE experiment = ?1 AND kind = ?2 AND name_id = ?3", &a->group) < 0)
		return -1;
	store_reset(a->group);
	store_bind_text(a->group, 1, exp);
	store_bind_text(a->group, 2, act_kind_name(act_key_kind(key)));
	store_bind_int64(a->group, 3, act_key_name(key));
	int rc = store_next(a->group);
	if (rc > 0)
		*grp = (const char *)store_column_text(a->group, 0);
	return rc;
}

const struct act_sum *act_sums_get(const struct act_sums *a, int64_t key)
{
	return &a->sums[act_key_kind(key)][act_key_name(key)];
}

static int cmp_key(const void *pa, const void *pb)
{
	int64_t x = *(const int64_t *)pa, y = *(const int64_t *)pb;
	return (x > y) - (x < y);
}

void act_sums_sort(struct act_sums *a)
{
	if (a->n > 1)
		qsort(a->keys, a->n, sizeof(*a->keys), cmp_key);
}

void act_sums_clear(struct act_sums *a)
{
	for (size_t i = 0; i < a->n; i++)
		memset(&a->sums[act_key_kind(a->keys[i])][act_key_name(a->keys[i])], 0, sizeof(struct act_sum));
	a->n = 0;
}

void act_sums_release(struct act_sums *a)
{
	for (int k = 0; k < 4; k++)
		free(a->sums[k]);
	free(a->keys);
	store_finalize(a->rows[0]);
	store_finalize(a->rows[1]);
	store_finalize(a->group);
	memset(a, 0, sizeof(*a));
}
