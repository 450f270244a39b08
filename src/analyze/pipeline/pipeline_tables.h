/*
 * pipeline_tables.h: the contracts of the pipeline family's tables that
 * other analyses read back (util/table.h: columns listed once, as an enum
 * and the schema the maker passes to table_new): pipeline_stages.csv
 * (pipeline_stages.c) and pipeline_schedules.csv (pipeline_schedules.c).
 */
#ifndef PERFSTUDY_PIPELINE_TABLES_H
#define PERFSTUDY_PIPELINE_TABLES_H

#include "util/table.h"

/* pipeline_stages.csv's columns, in order. */
#define PIPELINE_STAGES_COLUMNS(X)                               \
	X(PS_RUN, "run", text)                                   \
	X(PS_RANK, "rank", int)                                  \
	X(PS_PIPELINE, "pipeline", int)                          \
	X(PS_STAGE, "stage", int)                                \
	X(PS_STAGES, "stages", int)                              \
	X(PS_SCHEDULE, "schedule", text)                         \
	X(PS_SCHEDULE_SOURCE, "schedule_source", text)           \
	X(PS_MICROBATCHES, "microbatches", int)                  \
	X(PS_MICROBATCHES_SOURCE, "microbatches_source", text)   \
	X(PS_STEPS, "steps", int)                                \
	X(PS_SPAN_US, "span_us", us)                             \
	X(PS_COMPUTE_US, "compute_us", us)                       \
	X(PS_BUBBLE_SHARE, "bubble_share", frac)                 \
	X(PS_FORMULA_BUBBLE_SHARE, "formula_bubble_share", frac) \
	X(PS_EXCESS_SHARE, "excess_share", real)                 \
	X(PS_BUBBLE_SIGMA, "bubble_sigma", real)                 \
	X(PS_IMBALANCE, "imbalance", real)                       \
	X(PS_P2P_US, "p2p_us", us)                               \
	X(PS_P2P_BYTES, "p2p_bytes", int)
enum pipeline_stages_col { PIPELINE_STAGES_COLUMNS(TABLE_COL_ENUM) PS_NCOLS };

/* pipeline_schedules.csv's columns, in order. */
#define PIPELINE_SCHEDULES_COLUMNS(X)                              \
	X(PSCH_RUN, "run", text)                                   \
	X(PSCH_PAIR, "pair", text)                                 \
	X(PSCH_SCHEDULE, "schedule", text)                         \
	X(PSCH_STAGES, "stages", int)                              \
	X(PSCH_MICROBATCHES, "microbatches", int)                  \
	X(PSCH_STEP_US, "step_us", us)                             \
	X(PSCH_STEP_SOURCE, "step_source", text)                   \
	X(PSCH_STEP_SAMPLES, "step_samples", int)                  \
	X(PSCH_STEP_VS_PAIR, "step_vs_pair", real)                 \
	X(PSCH_BUBBLE_SHARE, "bubble_share", frac)                 \
	X(PSCH_BUSIEST_BUBBLE_SHARE, "busiest_bubble_share", frac) \
	X(PSCH_FORMULA_BUBBLE_SHARE, "formula_bubble_share", frac) \
	X(PSCH_EXCESS_SHARE, "excess_share", real)                 \
	X(PSCH_BUSIEST_EXCESS_SHARE, "busiest_excess_share", real) \
	X(PSCH_IMBALANCE, "imbalance", real)
enum pipeline_schedules_col { PIPELINE_SCHEDULES_COLUMNS(TABLE_COL_ENUM) PSCH_NCOLS };

#endif
