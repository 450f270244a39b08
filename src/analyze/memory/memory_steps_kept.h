/*
 * memory_steps_kept.h: memory_kept.csv of memory_steps.c, what a rank keeps from
 * step to step, by the host operator that allocated it (memory_steps_kept.c).
 * memory_steps.c hands over the kept allocations it found in its one pass
 * over a rank's events; memory_steps_kept.c names their operators from the
 * store's memory_ops and annotations and adds the rows. The findings and
 * the report read the table by the columns below.
 */
#ifndef PERFSTUDY_MEMORY_STEPS_KEPT_H
#define PERFSTUDY_MEMORY_STEPS_KEPT_H

#include <stddef.h>
#include <stdint.h>
#include "util/table.h"

struct buf;
struct rank_key;
struct store;
struct table;

/* memory_kept.csv's columns, in order (MEMORY_KEPT_COLUMNS names them). */
enum memory_kept_col {
	MK_RUN,
	MK_RANK,
	MK_OP,            /* the nearest operator around the allocation that is not the allocator's own */
	MK_PARENT,        /* the operator around that one, else the innermost host range, else empty */
	MK_SHAPE,         /* "8192x50257" where the operators' inputs give it, else empty */
	MK_DTYPE,         /* "bf16" where the operators' input types give it, with the shape; else empty */
	MK_ELEMENT_BYTES, /* bytes an element, with the shape */
	MK_BYTES,         /* of one allocation */
	MK_ALLOCATIONS,   /* kept, in the steps the rate rests on */
	MK_PER_STEP,      /* allocations / rate_steps */
	MK_STEPS_SEEN,    /* of those steps, how many kept one */
	MK_RATE_STEPS,    /* the profiled steps but the last */
	MK_KEPT_BYTES_PER_STEP,
	MK_EVERY_STEP,    /* 1 when steps_seen = rate_steps */
	MK_NCOLS
};
#define MEMORY_KEPT_COLUMNS                                                                                         \
	"run:text,rank:int,op:text,parent:text,shape:text,dtype:text,element_bytes:int,bytes:int,allocations:int," \
	"per_step:real,steps_seen:int,rate_steps:int,kept_bytes_per_step:int,every_step:int"

/* An allocation a rank kept: its thread, time, bytes and the index of its profiled step. */
struct kept_alloc {
	int64_t tid, ts, bytes;
	int64_t step;
};

/* A new memory_kept table (the caller's to add or free). */
struct table *memory_kept_table(void);
/*
 * Adds the rows of rank k to t from its n kept allocations (v, reordered)
 * in rate_steps steps. Returns 0, or -1 after diag (a store failure).
 */
int memory_kept_rank(struct store *s, const struct rank_key *k, struct kept_alloc *v, size_t n, int64_t rate_steps,
		     struct table *t);
/*
 * Appends to out what rank of run keeps, in words, from its row of t (a
 * memory_kept table) that repeats every step, else its largest: "1
 * allocation of 64.0 MiB (67108864 bytes) a step by aten::ones under
 * forward (33554432 bf16)". Returns 1, or 0 (nothing appended) when
 * t has no row of that rank.
 */
int memory_kept_words(const struct table *t, const char *run, long rank, struct buf *out);
/* The Methods text of memory_kept.csv (static). */
const char *memory_kept_method(void);

/* memory_ranks.csv's columns (memory_steps.c), in order: its contract (util/table.h), read by the findings and the report. */
#define MEMORY_RANKS_COLUMNS(X)                                           \
	X(MR_RUN, "run", text)                                            \
	X(MR_RANK, "rank", int)                                           \
	X(MR_DEVICE, "device", int)                                       \
	X(MR_STEPS, "steps", int)                                         \
	X(MR_PEAK_ALLOCATED_BYTES, "peak_allocated_bytes", int)           \
	X(MR_DEVICE_BYTES, "device_bytes", int)                           \
	X(MR_END_CHANGE_BYTES_PER_STEP, "end_change_bytes_per_step", int) \
	X(MR_KEPT_BYTES_PER_STEP, "kept_bytes_per_step", int)             \
	X(MR_KEPT_REGION, "kept_region", text)                            \
	X(MR_NOISE_BYTES, "noise_bytes", int)                             \
	X(MR_GROWS, "grows", int)                                         \
	X(MR_RATE_STEPS, "rate_steps", int)                               \
	X(MR_STEPS_TO_FULL, "steps_to_full", int)                         \
	X(MR_STEPS_TO_FULL_RESERVED, "steps_to_full_reserved", int)
enum memory_ranks_col { MEMORY_RANKS_COLUMNS(TABLE_COL_ENUM) MR_NCOLS };

#endif
