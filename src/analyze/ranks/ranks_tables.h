/*
 * ranks_tables.h: the contracts of the ranks family's tables that other
 * analyses, the report and the charts read back (util/table.h: columns
 * listed once, as an enum and the schema the maker passes to table_new):
 * ranks.csv (ranks.c), critical_path.csv, critical_path_steps.csv,
 * critical_path_across.csv and the internal critical_path_hops
 * (critical_path_steps.c), collective_waits.csv, clock_offsets.csv,
 * stragglers.csv, straggler_ranks.csv and the internal exposed_waits and
 * straggler_windows (crossrank_waits.c), rank_spread.csv (rank_spread.c),
 * straggler_causes.csv (straggler_causes.c), collective_busbw.csv
 * (collective_busbw.c), allreduce_busbw.csv (busbw.c) and collectives.csv
 * (collectives.c). Internal tables (util/table.h) go to the figures
 * and the merged trace only: no CSV.
 */
#ifndef PERFSTUDY_RANKS_TABLES_H
#define PERFSTUDY_RANKS_TABLES_H

#include "util/table.h"

/* ranks.csv's columns, in order. */
#define RANKS_COLUMNS(X)                 \
	X(RANKS_RUN, "run", text)        \
	X(RANKS_STEP, "step", int)       \
	X(RANKS_RANK, "rank", int)       \
	X(RANKS_STEP_US, "step_us", us)  \
	X(RANKS_IDLE_US, "idle_us", us)  \
	X(RANKS_COMM_US, "comm_us", us)  \
	X(RANKS_SLOWEST, "slowest", int)
enum ranks_col { RANKS_COLUMNS(TABLE_COL_ENUM) RANKS_NCOLS };

/* collective_waits.csv's columns, in order. */
#define COLLECTIVE_WAITS_COLUMNS(X)                  \
	X(CW_RUN, "run", text)                       \
	X(CW_STEP, "step", int)                      \
	X(CW_COMMUNICATOR, "communicator", text)     \
	X(CW_COLLECTIVE, "collective", int)          \
	X(CW_NAME, "name", text)                     \
	X(CW_DTYPE, "dtype", text)                   \
	X(CW_BYTES, "bytes", int)                    \
	X(CW_RANKS, "ranks", int)                    \
	X(CW_RANK, "rank", int)                      \
	X(CW_MATCHED, "matched", int)                \
	X(CW_START_US, "start_us", us)               \
	X(CW_END_US, "end_us", us)                   \
	X(CW_ARRIVAL_US, "arrival_us", us)           \
	X(CW_KERNEL_US, "kernel_us", us)             \
	X(CW_LAST_ARRIVAL_US, "last_arrival_us", us) \
	X(CW_LAST_RANK, "last_rank", int)            \
	X(CW_WAIT_US, "wait_us", us)                 \
	X(CW_TRANSFER_US, "transfer_us", us)         \
	X(CW_ALGBW_GB_PER_S, "algbw_gb_per_s", real) \
	X(CW_BUSBW_GB_PER_S, "busbw_gb_per_s", real) \
	X(CW_EXPOSED_WAIT_US, "exposed_wait_us", us)
enum collective_waits_col { COLLECTIVE_WAITS_COLUMNS(TABLE_COL_ENUM) CW_NCOLS };

/*
 * exposed_waits' columns, in order: an internal table (table.h: no CSV),
 * the pieces of each matched collective's exposed wait (collective_waits.csv's
 * exposed_wait_us: they sum to it), which the merged trace draws. One row
 * per piece, the rows of a rank together, ranks in order, each rank's by
 * its kernel's start (then the operation's order in collective_waits.csv),
 * then the piece's start; start_us, end_us on the rank's own clock;
 * last_rank: the rank it waited for.
 */
#define EXPOSED_WAITS_COLUMNS(X)                 \
	X(EW_RUN, "run", text)                   \
	X(EW_STEP, "step", int)                  \
	X(EW_RANK, "rank", int)                  \
	X(EW_COMMUNICATOR, "communicator", text) \
	X(EW_COLLECTIVE, "collective", int)      \
	X(EW_LAST_RANK, "last_rank", int)        \
	X(EW_START_US, "start_us", us)           \
	X(EW_END_US, "end_us", us)
enum exposed_waits_col { EXPOSED_WAITS_COLUMNS(TABLE_COL_ENUM) EW_NCOLS };

/*
 * straggler_windows' columns, in order: an internal table (table.h: no
 * CSV), the windows in which other ranks waited for a rank, which the
 * merged trace draws. One row per row of stragglers.csv whose
 * caused_wait_us > 0, in its order (communicator and collective are its
 * key there); rank: the one that arrived last (stragglers.csv's
 * last_rank); first_arrival_us, last_arrival_us: the window, on the
 * reference clock as collective_waits.csv's arrival_us.
 */
#define STRAGGLER_WINDOWS_COLUMNS(X)                     \
	X(SW_RUN, "run", text)                           \
	X(SW_STEP, "step", int)                          \
	X(SW_RANK, "rank", int)                          \
	X(SW_COMMUNICATOR, "communicator", text)         \
	X(SW_COLLECTIVE, "collective", int)              \
	X(SW_FIRST_ARRIVAL_US, "first_arrival_us", us)   \
	X(SW_LAST_ARRIVAL_US, "last_arrival_us", us)     \
	X(SW_CAUSED_WAIT_US, "caused_wait_us", us)
enum straggler_windows_col { STRAGGLER_WINDOWS_COLUMNS(TABLE_COL_ENUM) SW_NCOLS };

/* clock_offsets.csv's columns, in order. */
#define CLOCK_OFFSETS_COLUMNS(X)                    \
	X(CO_RUN, "run", text)                      \
	X(CO_RANK, "rank", int)                     \
	X(CO_REFERENCE_RANK, "reference_rank", int) \
	X(CO_COLLECTIVES, "collectives", int)       \
	X(CO_OFFSET_US, "offset_us", us)            \
	X(CO_RESIDUAL_US, "residual_us", us)
enum clock_offsets_col { CLOCK_OFFSETS_COLUMNS(TABLE_COL_ENUM) CO_NCOLS };

/* straggler_ranks.csv's columns, in order. */
#define STRAGGLER_RANKS_COLUMNS(X)                                                   \
	X(SR_RUN, "run", text)                                                       \
	X(SR_RANK, "rank", int)                                                      \
	X(SR_STEPS, "steps", int)                                                    \
	X(SR_COLLECTIVES_LAST, "collectives_last", int)                              \
	X(SR_STEPS_LAST, "steps_last", int)                                          \
	X(SR_LAST_IN_STEPS, "last_in_steps", text)                                   \
	X(SR_CAUSED_WAIT_US, "caused_wait_us", us)                                   \
	X(SR_CAUSED_WAIT_PER_STEP_US, "caused_wait_per_step_us", us)                 \
	X(SR_WAITED_US, "waited_us", us)                                             \
	X(SR_WAITED_PER_STEP_US, "waited_per_step_us", us)                           \
	X(SR_TRANSFER_US, "transfer_us", us)                                         \
	X(SR_TRANSFER_PER_STEP_US, "transfer_per_step_us", us)                       \
	X(SR_COMPUTE_US, "compute_us", us)                                           \
	X(SR_COMPUTE_PER_STEP_US, "compute_per_step_us", us)                         \
	X(SR_EXPOSED_WAIT_US, "exposed_wait_us", us)                                 \
	X(SR_EXPOSED_WAIT_PER_STEP_US, "exposed_wait_per_step_us", us)               \
	X(SR_STEP_PER_STEP_US, "step_per_step_us", us)                               \
	X(SR_BUSY_PER_STEP_US, "busy_per_step_us", us)                               \
	X(SR_EXPOSED_COMM_PER_STEP_US, "exposed_comm_per_step_us", us)               \
	X(SR_IDLE_PER_STEP_US, "idle_per_step_us", us)                               \
	X(SR_WINDOWS, "windows", int)                                                \
	X(SR_WINDOW_UNION_US, "window_union_us", us)                                 \
	X(SR_WINDOW_COMPUTE_US, "window_compute_us", us)                             \
	X(SR_WINDOW_MEMORY_US, "window_memory_us", us)                               \
	X(SR_WINDOW_COMMUNICATION_US, "window_communication_us", us)                 \
	X(SR_WINDOW_IDLE_HOST_IN_OP_US, "window_idle_host_in_op_us", us)             \
	X(SR_WINDOW_IDLE_HOST_BETWEEN_OPS_US, "window_idle_host_between_ops_us", us)
enum straggler_ranks_col { STRAGGLER_RANKS_COLUMNS(TABLE_COL_ENUM) SR_NCOLS };

/* straggler_causes.csv's columns, in order. */
#define STRAGGLER_CAUSES_COLUMNS(X)                        \
	X(SC_RUN, "run", text)                             \
	X(SC_RANK, "rank", int)                            \
	X(SC_WHERE, "where", text)                         \
	X(SC_REGION, "region", text)                       \
	X(SC_NAME, "name", text)                           \
	X(SC_EXCESS_US_PER_STEP, "excess_us_per_step", us) \
	X(SC_CALLS, "calls", int)                          \
	X(SC_OTHER_CALLS, "other_calls", real)             \
	X(SC_US_PER_STEP, "us_per_step", us)               \
	X(SC_OTHER_US_PER_STEP, "other_us_per_step", us)   \
	X(SC_MECHANISM, "mechanism", text)                 \
	X(SC_BYTES_PER_STEP, "bytes_per_step", int)        \
	X(SC_GB_PER_S, "gb_per_s", real)                   \
	X(SC_PINNED_GB_PER_S, "pinned_gb_per_s", real)     \
	X(SC_SHAPES, "shapes", text)
enum straggler_causes_col { STRAGGLER_CAUSES_COLUMNS(TABLE_COL_ENUM) SC_NCOLS };

/* collective_busbw.csv's columns, in order. */
#define COLLECTIVE_BUSBW_COLUMNS(X)                                 \
	X(CBW_RUN, "run", text)                                     \
	X(CBW_GPUS, "gpus", int)                                    \
	X(CBW_STRATEGY, "strategy", text)                           \
	X(CBW_COLLECTIVE, "collective", text)                       \
	X(CBW_KERNELS, "kernels", int)                              \
	X(CBW_BYTES, "bytes", int)                                  \
	X(CBW_TRANSFER_US, "transfer_us", us)                       \
	X(CBW_WAIT_US, "wait_us", us)                               \
	X(CBW_BUSBW_GB_PER_S, "busbw_gb_per_s", real)               \
	X(CBW_KERNEL_BUSBW_GB_PER_S, "kernel_busbw_gb_per_s", real) \
	X(CBW_BASELINE, "baseline", text)                           \
	X(CBW_EFFICIENCY, "efficiency", real)                       \
	X(CBW_STRATEGY_LABEL, "strategy_label", text)
enum collective_busbw_col { COLLECTIVE_BUSBW_COLUMNS(TABLE_COL_ENUM) CBW_NCOLS };

/*
 * critical_path.csv's columns, in order: a column per category of
 * critical_path_int.h's enum cp_cat, in its order, between the key and the
 * wait (critical_path_steps.c's cat_cols names them).
 */
#define CRITICAL_PATH_COLUMNS(X)                          \
	X(CPATH_RUN, "run", text)                         \
	X(CPATH_RANK, "rank", int)                        \
	X(CPATH_STEP, "step", int)                        \
	X(CPATH_STEP_US, "step_us", us)                   \
	X(CPATH_COMPUTE_US, "compute_us", us)             \
	X(CPATH_COMMUNICATION_US, "communication_us", us) \
	X(CPATH_MEMORY_US, "memory_us", us)               \
	X(CPATH_HOST_US, "host_us", us)                   \
	X(CPATH_IDLE_US, "idle_us", us)                   \
	X(CPATH_WAIT_US, "wait_us", us)                   \
	X(CPATH_WAIT_RANK, "wait_rank", int)              \
	X(CPATH_BOUND, "bound", text)                     \
	X(CPATH_HOST_OUTSIDE_OPS_US, "host_outside_ops_us", us)
enum critical_path_col { CRITICAL_PATH_COLUMNS(TABLE_COL_ENUM) CPATH_NCOLS };

/* stragglers.csv's columns, in order: the window split of crossrank_waits.c's W_* last. */
#define STRAGGLERS_COLUMNS(X)                                           \
	X(STG_RUN, "run", text)                                         \
	X(STG_STEP, "step", int)                                        \
	X(STG_COMMUNICATOR, "communicator", text)                       \
	X(STG_COLLECTIVE, "collective", int)                            \
	X(STG_NAME, "name", text)                                       \
	X(STG_RANKS, "ranks", int)                                      \
	X(STG_LAST_RANK, "last_rank", int)                              \
	X(STG_LATE_US, "late_us", us)                                   \
	X(STG_SPREAD_US, "spread_us", us)                               \
	X(STG_CAUSED_WAIT_US, "caused_wait_us", us)                     \
	X(STG_COMPUTE_US, "compute_us", us)                             \
	X(STG_MEMORY_US, "memory_us", us)                               \
	X(STG_COMMUNICATION_US, "communication_us", us)                 \
	X(STG_IDLE_HOST_IN_OP_US, "idle_host_in_op_us", us)             \
	X(STG_IDLE_HOST_BETWEEN_OPS_US, "idle_host_between_ops_us", us)
enum stragglers_col { STRAGGLERS_COLUMNS(TABLE_COL_ENUM) STG_NCOLS };

/* critical_path_steps.csv's columns, in order: the categories as in critical_path.csv. */
#define CRITICAL_PATH_STEPS_COLUMNS(X)                  \
	X(CPS_RUN, "run", text)                         \
	X(CPS_STEP, "step", int)                        \
	X(CPS_RANKS, "ranks", int)                      \
	X(CPS_STEP_US, "step_us", us)                   \
	X(CPS_CRITICAL_RANK, "critical_rank", int)      \
	X(CPS_COMPUTE_US, "compute_us", us)             \
	X(CPS_COMMUNICATION_US, "communication_us", us) \
	X(CPS_MEMORY_US, "memory_us", us)               \
	X(CPS_HOST_US, "host_us", us)                   \
	X(CPS_IDLE_US, "idle_us", us)                   \
	X(CPS_WAIT_US, "wait_us", us)                   \
	X(CPS_MAX_WAIT_RANK, "max_wait_rank", int)      \
	X(CPS_MAX_WAIT_US, "max_wait_us", us)           \
	X(CPS_WAITED_FOR_RANK, "waited_for_rank", int)
enum critical_path_steps_col { CRITICAL_PATH_STEPS_COLUMNS(TABLE_COL_ENUM) CPS_NCOLS };

/* critical_path_across.csv's columns, in order: the categories as in critical_path.csv. */
#define CRITICAL_PATH_ACROSS_COLUMNS(X)                 \
	X(CPA_RUN, "run", text)                         \
	X(CPA_STEP, "step", int)                        \
	X(CPA_END_RANK, "end_rank", int)                \
	X(CPA_PATH_US, "path_us", us)                   \
	X(CPA_COMPUTE_US, "compute_us", us)             \
	X(CPA_COMMUNICATION_US, "communication_us", us) \
	X(CPA_MEMORY_US, "memory_us", us)               \
	X(CPA_HOST_US, "host_us", us)                   \
	X(CPA_IDLE_US, "idle_us", us)                   \
	X(CPA_WAIT_US, "wait_us", us)                   \
	X(CPA_RANKS_ON_PATH, "ranks_on_path", int)      \
	X(CPA_PATH_BY_RANK, "path_by_rank", text)       \
	X(CPA_MOST_RANK, "most_rank", int)              \
	X(CPA_MOST_RANK_US, "most_rank_us", us)         \
	X(CPA_CUT, "cut", int)
enum critical_path_across_col { CRITICAL_PATH_ACROSS_COLUMNS(TABLE_COL_ENUM) CPA_NCOLS };

/* critical_path_hops' columns, in order: an internal table (table.h: no CSV), for step_timeline's figure. */
#define CRITICAL_PATH_HOPS_COLUMNS(X) \
	X(CPH_RUN, "run", text)       \
	X(CPH_STEP, "step", int)      \
	X(CPH_SEG, "seg", int)        \
	X(CPH_RANK, "rank", int)      \
	X(CPH_FROM_US, "from_us", us) \
	X(CPH_TO_US, "to_us", us)
enum critical_path_hops_col { CRITICAL_PATH_HOPS_COLUMNS(TABLE_COL_ENUM) CPH_NCOLS };

/* rank_spread.csv's columns, in order. */
#define RANK_SPREAD_COLUMNS(X)                                     \
	X(RS_RUN, "run", text)                                     \
	X(RS_RANK, "rank", int)                                    \
	X(RS_STEPS, "steps", int)                                  \
	X(RS_STEP_MEDIAN_US, "step_median_us", us)                 \
	X(RS_EXPOSED_WAIT_MEDIAN_US, "exposed_wait_median_us", us) \
	X(RS_OWN_MEDIAN_US, "own_median_us", us)                   \
	X(RS_POSITION, "position", int)                            \
	X(RS_ROLE, "role", text)                                   \
	X(RS_DRAWN, "drawn", int)
enum rank_spread_col { RANK_SPREAD_COLUMNS(TABLE_COL_ENUM) RS_NCOLS };

/* allreduce_busbw.csv's columns, in order (busbw.c). */
#define ALLREDUCE_BUSBW_COLUMNS(X)                                      \
	X(ABW_GPUS, "gpus", int)                                        \
	X(ABW_MESSAGE_BYTES, "message_bytes", int)                      \
	X(ABW_CALLS, "calls", int)                                      \
	X(ABW_TIME_US, "time_us", us)                                   \
	X(ABW_ALGBW_GB_PER_S, "algbw_gb_per_s", real)                   \
	X(ABW_BUSBW_GB_PER_S, "busbw_gb_per_s", real)                   \
	X(ABW_RUNS, "runs", text)                                       \
	X(ABW_MATCHED_CALLS, "matched_calls", int)                      \
	X(ABW_TRANSFER_US, "transfer_us", us)                           \
	X(ABW_TRANSFER_BUSBW_GB_PER_S, "transfer_busbw_gb_per_s", real)
enum allreduce_busbw_col { ALLREDUCE_BUSBW_COLUMNS(TABLE_COL_ENUM) ABW_NCOLS };

/* collectives.csv's columns, in order (collectives.c). */
#define COLLECTIVES_COLUMNS(X)                         \
	X(COLS_RUN, "run", text)                       \
	X(COLS_RANK, "rank", int)                      \
	X(COLS_COLLECTIVE, "collective", text)         \
	X(COLS_CALLS, "calls", int)                    \
	X(COLS_TIME_US, "time_us", us)                 \
	X(COLS_BYTES, "bytes", int)                    \
	X(COLS_ALGBW_GB_PER_S, "algbw_gb_per_s", real) \
	X(COLS_BUSBW_GB_PER_S, "busbw_gb_per_s", real)
enum collectives_col { COLLECTIVES_COLUMNS(TABLE_COL_ENUM) COLS_NCOLS };

#endif
