/*
 * memory_steps_kept.h: memory_kept.csv of memory_steps.c, what a rank keeps from
 * step to step, by the host operator that allocated it (memory_steps_kept.c).
 * memory_steps.c hands over the kept allocations it found in its one pass
 * over a rank's events; memory_steps_kept.c names their operators from the
 * store's memory_ops and annotations and adds the rows. The findings and
 * the report read the table by the columns below. The contracts of
 * memory_steps.c's other tables are here too: memory_ranks.csv,
 * memory_steps.csv and memory_regions.csv (util/table.h).
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

/*
 * memory_kept.csv's columns, in order: its contract (util/table.h), read by
 * the findings and the report.
 *   op         the nearest operator around the allocation that is not the allocator's own
 *   parent     the operator around that one, else the innermost host range, else empty
 *   shape      "8192x50257" where the operators' inputs give it, else empty
 *   dtype      "bf16" where the operators' input types give it, with the shape; else empty
 *   element_bytes  bytes an element, with the shape
 *   bytes      of one allocation
 *   allocations  kept, in the steps the rate rests on
 *   per_step   allocations / rate_steps
 *   steps_seen  of those steps, how many kept one
 *   rate_steps  the profiled steps but the last
 *   every_step  1 when steps_seen = rate_steps
 */
#define MEMORY_KEPT_COLUMNS(X)                                  \
	X(MK_RUN, "run", text)                                  \
	X(MK_RANK, "rank", int)                                 \
	X(MK_OP, "op", text)                                    \
	X(MK_PARENT, "parent", text)                            \
	X(MK_SHAPE, "shape", text)                              \
	X(MK_DTYPE, "dtype", text)                              \
	X(MK_ELEMENT_BYTES, "element_bytes", int)               \
	X(MK_BYTES, "bytes", int)                               \
	X(MK_ALLOCATIONS, "allocations", int)                   \
	X(MK_PER_STEP, "per_step", real)                        \
	X(MK_STEPS_SEEN, "steps_seen", int)                     \
	X(MK_RATE_STEPS, "rate_steps", int)                     \
	X(MK_KEPT_BYTES_PER_STEP, "kept_bytes_per_step", int)   \
	X(MK_EVERY_STEP, "every_step", int)
enum memory_kept_col { MEMORY_KEPT_COLUMNS(TABLE_COL_ENUM) MK_NCOLS };

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

/* memory_steps.csv's columns, in order (memory_steps.c). */
#define MEMORY_STEPS_COLUMNS(X)                                   \
	X(MS_RUN, "run", text)                                    \
	X(MS_RANK, "rank", int)                                   \
	X(MS_STEP, "step", int)                                   \
	X(MS_EVENTS, "events", int)                               \
	X(MS_START_ALLOCATED_BYTES, "start_allocated_bytes", int) \
	X(MS_PEAK_ALLOCATED_BYTES, "peak_allocated_bytes", int)   \
	X(MS_PEAK_AT_US, "peak_at_us", us)                        \
	X(MS_PEAK_REGION, "peak_region", text)                    \
	X(MS_END_ALLOCATED_BYTES, "end_allocated_bytes", int)     \
	X(MS_PEAK_RESERVED_BYTES, "peak_reserved_bytes", int)
enum memory_steps_col { MEMORY_STEPS_COLUMNS(TABLE_COL_ENUM) MS_NCOLS };

/* memory_regions.csv's columns, in order (memory_steps.c). */
#define MEMORY_REGIONS_COLUMNS(X)                                   \
	X(MREG_RUN, "run", text)                                    \
	X(MREG_RANK, "rank", int)                                   \
	X(MREG_STEP, "step", int)                                   \
	X(MREG_REGION, "region", text)                              \
	X(MREG_START_ALLOCATED_BYTES, "start_allocated_bytes", int) \
	X(MREG_END_ALLOCATED_BYTES, "end_allocated_bytes", int)     \
	X(MREG_PEAK_ALLOCATED_BYTES, "peak_allocated_bytes", int)
enum memory_regions_col { MEMORY_REGIONS_COLUMNS(TABLE_COL_ENUM) MREG_NCOLS };

#endif
