/*
 * published.c: numbers typed into the manifest from a published study
 * whose raw output is gone: a run's 'measured' values (absolute, or
 * relative to a reference) and 'published' estimates.
 */
#include "manifest/manifest_int.h"

#include <stdint.h>

/*
 * A run's typed-in measurements (a published table), absolute or, for a
 * study that prints only ratios, relative to a reference (time_x ...).
 */
void mf_get_measured(struct ctx *c, struct manifest_measured *ms, const struct ynode *key,
	const struct ynode *map)
{
	static const char *const keys[] = {
		"iteration_ms", "samples_per_s", "tflops_per_gpu", "memory_gb", "time_x", "comm_time_x",
		"params", "oom", "comm_pct", "relative_to",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]), NNUMS = 6 };
	const struct ynode *seen[NKEYS] = {0};
	double *nums[NNUMS] = {&ms->iteration_ms, &ms->samples_per_s, &ms->tflops_per_gpu, &ms->memory_gb,
			       &ms->time_x, &ms->comm_time_x};
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int f = mf_field_index(c, map, i, keys, NKEYS, seen);
		if (f >= 0 && f < NNUMS)
			mf_get_posnum(c, k, v, nums[f]);
		else if (f == 6)
			mf_get_int(c, k, v, 1, INT64_MAX, &ms->params);
		else if (f == 7)
			mf_get_bool(c, k, v, &ms->oom);
		else if (f == 8 && mf_get_posnum(c, k, v, &ms->comm_pct) > 0 && ms->comm_pct > 100)
			mf_err_at(c, v, "'comm_pct' is a percentage of the training time, at most 100, got %s", v->value);
		else if (f == 9 && mf_get_string(c, k, v, &ms->relative_to) > 0 && !ms->relative_to[0])
			mf_err_at(c, v, "'relative_to' must not be empty");
	}
	if ((ms->time_x > 0 || ms->comm_time_x > 0) && !ms->relative_to)
		mf_err_at(c, map, "'time_x' and 'comm_time_x' are multiples of a reference: name it in 'relative_to'");
}

/* A study's own estimates for a run. */
void mf_get_published(struct ctx *c, struct manifest_published *pb, const struct ynode *key,
	const struct ynode *map)
{
	static const char *const keys[] = {"params", "flops_tflop", "activation_gb", "model_size_mb", "batches"};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	const struct ynode *seen[NKEYS] = {0};
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (mf_field_index(c, map, i, keys, NKEYS, seen)) {
		case 0:
			mf_get_int(c, k, v, 1, INT64_MAX, &pb->params);
			break;
		case 1:
			mf_get_posnum(c, k, v, &pb->flops_tflop);
			break;
		case 2:
			mf_get_posnum(c, k, v, &pb->activation_gb);
			break;
		case 3:
			mf_get_posnum(c, k, v, &pb->model_size_mb);
			break;
		case 4:
			mf_get_int(c, k, v, 1, INT64_MAX, &pb->batches);
			break;
		}
	}
}
