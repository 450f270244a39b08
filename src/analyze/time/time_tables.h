/*
 * time_tables.h: the contracts of the time family's tables, which other
 * analyses, the report and the charts read back (util/table.h: columns
 * listed once, as an enum and the schema the maker passes to table_new):
 * runs.csv, rank_devices.csv and steps.csv (basic_runs.c), kernels.csv and
 * top_kernels.csv (basic_kernels.c), groups.csv and group_totals.csv
 * (basic_groups.c), idle_time.csv and launch_stats.csv (hta_idle.c),
 * idle_time_steps.csv and gpu_idle.csv (gpu_idle.c),
 * temporal.csv, overlap.csv and kernel_types.csv (temporal.c),
 * profiler_overhead.csv (profiler_overhead.c), gpu_timeline.csv
 * (gpu_timeline.c), dispatch.csv (dispatch.c), dispatch_ops.csv
 * (dispatch_ops.c), memops.csv (memops.c), step_breakdown.csv
 * (step_breakdown.c). step_stats.csv and step_compare.csv are step_stats.h's.
 */
#ifndef PERFSTUDY_TIME_TABLES_H
#define PERFSTUDY_TIME_TABLES_H

#include "util/table.h"

/* runs.csv's columns, in order. */
#define RUNS_COLUMNS(X)                                     \
	X(RUNS_RUN, "run", text)                            \
	X(RUNS_LABEL, "label", text)                        \
	X(RUNS_GPUS, "gpus", int)                           \
	X(RUNS_RANKS, "ranks", int)                         \
	X(RUNS_MODEL, "model", text)                        \
	X(RUNS_BATCH, "batch", int)                         \
	X(RUNS_STRATEGY, "strategy", text)                  \
	X(RUNS_DEVICE, "device", text)                      \
	X(RUNS_KERNELS, "kernels", int)                     \
	X(RUNS_MEAN_STEP_US, "mean_step_us", us)            \
	X(RUNS_DATA_PARALLEL, "data_parallel", int)         \
	X(RUNS_TENSOR_PARALLEL, "tensor_parallel", int)     \
	X(RUNS_PIPELINE_PARALLEL, "pipeline_parallel", int) \
	X(RUNS_LAYOUT_SOURCE, "layout_source", text)        \
	X(RUNS_SCHEDULE, "schedule", text)                  \
	X(RUNS_MICROBATCHES, "microbatches", int)           \
	X(RUNS_SCHEDULE_SOURCE, "schedule_source", text)    \
	X(RUNS_STRATEGY_SOURCE, "strategy_source", text)    \
	X(RUNS_MODEL_SOURCE, "model_source", text)          \
	X(RUNS_BATCH_SOURCE, "batch_source", text)
enum runs_col { RUNS_COLUMNS(TABLE_COL_ENUM) RUNS_NCOLS };

/* idle_time_steps.csv's columns, in order. */
#define IDLE_TIME_STEPS_COLUMNS(X)                      \
	X(ITS_RUN, "run", text)                         \
	X(ITS_RANK, "rank", int)                        \
	X(ITS_STEP, "step", int)                        \
	X(ITS_STEP_US, "step_us", us)                   \
	X(ITS_IDLE_US, "idle_us", us)                   \
	X(ITS_HOST_WAIT_US, "host_wait_us", us)         \
	X(ITS_KERNEL_WAIT_US, "kernel_wait_us", us)     \
	X(ITS_OTHER_US, "other_us", us)                 \
	X(ITS_HOST_WAIT_SHARE, "host_wait_share", frac) \
	X(ITS_WHOLE, "whole", int)
enum idle_time_steps_col { IDLE_TIME_STEPS_COLUMNS(TABLE_COL_ENUM) ITS_NCOLS };

/* gpu_idle.csv's columns, in order. */
#define GPU_IDLE_COLUMNS(X)                            \
	X(GI_RUN, "run", text)                         \
	X(GI_RANK, "rank", int)                        \
	X(GI_STEPS, "steps", int)                      \
	X(GI_STEPS_LEFT_OUT, "steps_left_out", int)    \
	X(GI_STEP_US, "step_us", us)                   \
	X(GI_IDLE_US, "idle_us", us)                   \
	X(GI_HOST_WAIT_US, "host_wait_us", us)         \
	X(GI_KERNEL_WAIT_US, "kernel_wait_us", us)     \
	X(GI_OTHER_US, "other_us", us)                 \
	X(GI_IDLE_SHARE, "idle_share", frac)           \
	X(GI_HOST_WAIT_SHARE, "host_wait_share", frac)
enum gpu_idle_col { GPU_IDLE_COLUMNS(TABLE_COL_ENUM) GI_NCOLS };

/* temporal.csv's columns, in order. */
#define TEMPORAL_COLUMNS(X)                                          \
	X(TEMPORAL_RUN, "run", text)                                 \
	X(TEMPORAL_RANK, "rank", int)                                \
	X(TEMPORAL_SPAN_US, "span_us", us)                           \
	X(TEMPORAL_IDLE_US, "idle_us", us)                           \
	X(TEMPORAL_COMPUTE_US, "compute_us", us)                     \
	X(TEMPORAL_NON_COMPUTE_US, "non_compute_us", us)             \
	X(TEMPORAL_EXACT_SPAN_US, "exact_span_us", us)               \
	X(TEMPORAL_EXACT_IDLE_US, "exact_idle_us", us)               \
	X(TEMPORAL_EXACT_COMPUTE_US, "exact_compute_us", us)         \
	X(TEMPORAL_EXACT_NON_COMPUTE_US, "exact_non_compute_us", us)
enum temporal_col { TEMPORAL_COLUMNS(TABLE_COL_ENUM) TEMPORAL_NCOLS };

/* profiler_overhead.csv's columns, in order. */
#define PROFILER_OVERHEAD_COLUMNS(X)                               \
	X(PO_RUN, "run", text)                                     \
	X(PO_PROFILED_STEPS, "profiled_steps", int)                \
	X(PO_STEP_MEDIAN_US, "step_median_us", us)                 \
	X(PO_LOG_PROFILED, "log_profiled", int)                    \
	X(PO_LOG_PROFILED_MEDIAN_US, "log_profiled_median_us", us) \
	X(PO_UNPROFILED, "unprofiled", int)                        \
	X(PO_UNPROFILED_MEDIAN_US, "unprofiled_median_us", us)     \
	X(PO_OVERHEAD, "overhead", real)                           \
	X(PO_UNPROFILED_SIGMA_US, "unprofiled_sigma_us", us)
enum profiler_overhead_col { PROFILER_OVERHEAD_COLUMNS(TABLE_COL_ENUM) PO_NCOLS };

/* kernels.csv's columns, in order. */
#define KERNELS_COLUMNS(X)              \
	X(KRN_RUN, "run", text)         \
	X(KRN_RANK, "rank", int)        \
	X(KRN_NAME, "name", text)       \
	X(KRN_GROUP, "group", text)     \
	X(KRN_CALLS, "calls", int)      \
	X(KRN_TOTAL_US, "total_us", us) \
	X(KRN_MEAN_US, "mean_us", us)   \
	X(KRN_MIN_US, "min_us", us)     \
	X(KRN_MAX_US, "max_us", us)
enum kernels_col { KERNELS_COLUMNS(TABLE_COL_ENUM) KRN_NCOLS };

/* step_breakdown.csv's columns, in order (step_breakdown.c; strategy_scaling.c reads it). */
#define STEP_BREAKDOWN_COLUMNS(X)       \
	X(SBD_RUN, "run", text)         \
	X(SBD_RANK, "rank", int)        \
	X(SBD_STEP, "step", int)        \
	X(SBD_PART, "part", text)       \
	X(SBD_TIME_US, "time_us", us)
enum step_breakdown_col { STEP_BREAKDOWN_COLUMNS(TABLE_COL_ENUM) SBD_NCOLS };

/* groups.csv's columns, in order. */
#define GROUPS_COLUMNS(X)                 \
	X(GRP_RUN, "run", text)           \
	X(GRP_RANK, "rank", int)          \
	X(GRP_GROUP, "group", text)       \
	X(GRP_TIME_US, "time_us", us)     \
	X(GRP_FRACTION, "fraction", frac)
enum groups_col { GROUPS_COLUMNS(TABLE_COL_ENUM) GRP_NCOLS };

/* gpu_timeline.csv's columns, in order (gpu_timeline.c). */
#define GPU_TIMELINE_COLUMNS(X)                          \
	X(GT_RUN, "run", text)                           \
	X(GT_RANK, "rank", int)                          \
	X(GT_COMPUTATION_US, "computation_us", us)       \
	X(GT_EXPOSED_COMM_US, "exposed_comm_us", us)     \
	X(GT_EXPOSED_MEMCPY_US, "exposed_memcpy_us", us) \
	X(GT_BUSY_US, "busy_us", us)                     \
	X(GT_IDLE_US, "idle_us", us)                     \
	X(GT_TOTAL_US, "total_us", us)                   \
	X(GT_TOTAL_COMM_US, "total_comm_us", us)         \
	X(GT_TOTAL_MEMCPY_US, "total_memcpy_us", us)
enum gpu_timeline_col { GPU_TIMELINE_COLUMNS(TABLE_COL_ENUM) GT_NCOLS };

/* dispatch.csv's columns, in order (dispatch.c). */
#define DISPATCH_COLUMNS(X)                   \
	X(DSP_RUN, "run", text)               \
	X(DSP_RANK, "rank", int)              \
	X(DSP_STEP, "step", int)              \
	X(DSP_STEP_US, "step_us", us)         \
	X(DSP_COMM_US, "comm_us", us)         \
	X(DSP_COMPUTE_US, "compute_us", us)   \
	X(DSP_MEMORY_US, "memory_us", us)     \
	X(DSP_IDLE_US, "idle_us", us)         \
	X(DSP_INTRA_OP_US, "intra_op_us", us) \
	X(DSP_INTER_OP_US, "inter_op_us", us)
enum dispatch_col { DISPATCH_COLUMNS(TABLE_COL_ENUM) DSP_NCOLS };

/* overlap.csv's columns, in order (temporal.c). */
#define OVERLAP_COLUMNS(X)                                           \
	X(OV_RUN, "run", text)                                       \
	X(OV_RANK, "rank", int)                                      \
	X(OV_COMM_US, "comm_us", us)                                 \
	X(OV_OVERLAP_US, "overlap_us", us)                           \
	X(OV_OVERLAP_FRACTION, "overlap_fraction", frac)             \
	X(OV_EXACT_COMM_US, "exact_comm_us", us)                     \
	X(OV_EXACT_OVERLAP_US, "exact_overlap_us", us)               \
	X(OV_EXACT_OVERLAP_FRACTION, "exact_overlap_fraction", frac)
enum overlap_col { OVERLAP_COLUMNS(TABLE_COL_ENUM) OV_NCOLS };

/* kernel_types.csv's columns, in order (temporal.c). */
#define KERNEL_TYPES_COLUMNS(X)                       \
	X(KTY_RUN, "run", text)                       \
	X(KTY_KERNEL_TYPE, "kernel_type", text)       \
	X(KTY_TIME_US, "time_us", us)                 \
	X(KTY_FRACTION, "fraction", frac)             \
	X(KTY_EXACT_TIME_US, "exact_time_us", us)     \
	X(KTY_EXACT_FRACTION, "exact_fraction", frac)
enum kernel_types_col { KERNEL_TYPES_COLUMNS(TABLE_COL_ENUM) KTY_NCOLS };

/* memops.csv's columns, in order (memops.c). */
#define MEMOPS_COLUMNS(X)                \
	X(MO_RUN, "run", text)           \
	X(MO_RANK, "rank", int)          \
	X(MO_KIND, "kind", text)         \
	X(MO_COUNT, "count", int)        \
	X(MO_BYTES, "bytes", int)        \
	X(MO_TIME_US, "time_us", us)     \
	X(MO_GB_PER_S, "gb_per_s", real)
enum memops_col { MEMOPS_COLUMNS(TABLE_COL_ENUM) MO_NCOLS };

/* dispatch_ops.csv's columns, in order (dispatch_ops.c). */
#define DISPATCH_OPS_COLUMNS(X)      \
	X(DO_RUN, "run", text)       \
	X(DO_PART, "part", text)     \
	X(DO_NAME, "name", text)     \
	X(DO_TIME_US, "time_us", us) \
	X(DO_SHARE, "share", frac)
enum dispatch_ops_col { DISPATCH_OPS_COLUMNS(TABLE_COL_ENUM) DO_NCOLS };

/* steps.csv's columns, in order (basic_runs.c). */
#define STEPS_COLUMNS(X)              \
	X(STP_RUN, "run", text)       \
	X(STP_RANK, "rank", int)      \
	X(STP_STEP, "step", int)      \
	X(STP_STEP_US, "step_us", us)
enum steps_col { STEPS_COLUMNS(TABLE_COL_ENUM) STP_NCOLS };

/* rank_devices.csv's columns, in order (basic_runs.c). */
#define RANK_DEVICES_COLUMNS(X)                         \
	X(RDEV_RUN, "run", text)                        \
	X(RDEV_RANK, "rank", int)                       \
	X(RDEV_DEVICE, "device", int)                   \
	X(RDEV_DEVICE_NAME, "device_name", text)        \
	X(RDEV_FILE, "file", text)                      \
	X(RDEV_DEVICES_IN_FILE, "devices_in_file", int)
enum rank_devices_col { RANK_DEVICES_COLUMNS(TABLE_COL_ENUM) RDEV_NCOLS };

/* top_kernels.csv's columns, in order (basic_kernels.c). */
#define TOP_KERNELS_COLUMNS(X)           \
	X(TOPK_RUN, "run", text)         \
	X(TOPK_PLACE, "place", int)      \
	X(TOPK_RANK, "rank", int)        \
	X(TOPK_DEVICE, "device", text)   \
	X(TOPK_NAME, "name", text)       \
	X(TOPK_GROUP, "group", text)     \
	X(TOPK_CALLS, "calls", int)      \
	X(TOPK_TOTAL_US, "total_us", us)
enum top_kernels_col { TOP_KERNELS_COLUMNS(TABLE_COL_ENUM) TOPK_NCOLS };

/* group_totals.csv's columns, in order (basic_groups.c). */
#define GROUP_TOTALS_COLUMNS(X)            \
	X(GTOT_RUN, "run", text)           \
	X(GTOT_GPUS, "gpus", int)          \
	X(GTOT_GROUP, "group", text)       \
	X(GTOT_TIME_US, "time_us", us)     \
	X(GTOT_FRACTION, "fraction", frac)
enum group_totals_col { GROUP_TOTALS_COLUMNS(TABLE_COL_ENUM) GTOT_NCOLS };

/* idle_time.csv's columns, in order (hta_idle.c). */
#define IDLE_TIME_COLUMNS(X)                                    \
	X(IDT_RUN, "run", text)                                 \
	X(IDT_RANK, "rank", int)                                \
	X(IDT_STREAM, "stream", int)                            \
	X(IDT_HOST_WAIT_US, "host_wait_us", us)                 \
	X(IDT_KERNEL_WAIT_US, "kernel_wait_us", us)             \
	X(IDT_OTHER_US, "other_us", us)                         \
	X(IDT_EXACT_HOST_WAIT_US, "exact_host_wait_us", us)     \
	X(IDT_EXACT_KERNEL_WAIT_US, "exact_kernel_wait_us", us) \
	X(IDT_EXACT_OTHER_US, "exact_other_us", us)
enum idle_time_col { IDLE_TIME_COLUMNS(TABLE_COL_ENUM) IDT_NCOLS };

/* launch_stats.csv's columns, in order (hta_idle.c): each statistic plain, then exact_. */
#define LAUNCH_STATS_COLUMNS(X)                                                    \
	X(LST_RUN, "run", text)                                                    \
	X(LST_RANK, "rank", int)                                                   \
	X(LST_LAUNCHES, "launches", int)                                           \
	X(LST_CPU_DURATION_SUM_US, "cpu_duration_sum_us", us)                      \
	X(LST_CPU_DURATION_MEDIAN_US, "cpu_duration_median_us", us)                \
	X(LST_CPU_DURATION_MAX_US, "cpu_duration_max_us", us)                      \
	X(LST_GPU_DURATION_SUM_US, "gpu_duration_sum_us", us)                      \
	X(LST_GPU_DURATION_MEDIAN_US, "gpu_duration_median_us", us)                \
	X(LST_GPU_DURATION_MAX_US, "gpu_duration_max_us", us)                      \
	X(LST_LAUNCH_DELAY_SUM_US, "launch_delay_sum_us", us)                      \
	X(LST_LAUNCH_DELAY_MEDIAN_US, "launch_delay_median_us", us)                \
	X(LST_LAUNCH_DELAY_MAX_US, "launch_delay_max_us", us)                      \
	X(LST_CPU_DURATION_OVER_50US, "cpu_duration_over_50us", int)               \
	X(LST_LAUNCH_DELAY_OVER_100US, "launch_delay_over_100us", int)             \
	X(LST_SHORT_KERNELS, "short_kernels", int)                                 \
	X(LST_EXACT_LAUNCHES, "exact_launches", int)                               \
	X(LST_EXACT_CPU_DURATION_SUM_US, "exact_cpu_duration_sum_us", us)          \
	X(LST_EXACT_CPU_DURATION_MEDIAN_US, "exact_cpu_duration_median_us", us)    \
	X(LST_EXACT_CPU_DURATION_MAX_US, "exact_cpu_duration_max_us", us)          \
	X(LST_EXACT_GPU_DURATION_SUM_US, "exact_gpu_duration_sum_us", us)          \
	X(LST_EXACT_GPU_DURATION_MEDIAN_US, "exact_gpu_duration_median_us", us)    \
	X(LST_EXACT_GPU_DURATION_MAX_US, "exact_gpu_duration_max_us", us)          \
	X(LST_EXACT_LAUNCH_DELAY_SUM_US, "exact_launch_delay_sum_us", us)          \
	X(LST_EXACT_LAUNCH_DELAY_MEDIAN_US, "exact_launch_delay_median_us", us)    \
	X(LST_EXACT_LAUNCH_DELAY_MAX_US, "exact_launch_delay_max_us", us)          \
	X(LST_EXACT_CPU_DURATION_OVER_50US, "exact_cpu_duration_over_50us", int)   \
	X(LST_EXACT_LAUNCH_DELAY_OVER_100US, "exact_launch_delay_over_100us", int) \
	X(LST_EXACT_SHORT_KERNELS, "exact_short_kernels", int)                     \
	X(LST_COMPUTE_STREAM, "compute_stream", int)                               \
	X(LST_IDLE_SHARE, "idle_share", frac)                                      \
	X(LST_HOST_WAIT_SHARE, "host_wait_share", frac)                            \
	X(LST_STATEMENT, "statement", text)
enum launch_stats_col { LAUNCH_STATS_COLUMNS(TABLE_COL_ENUM) LST_NCOLS };

#endif
