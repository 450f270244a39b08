/*
 * models.h: helpers shared by the model analyses (models.c, flops.c), and
 * the contracts of the models' tables that others read back (util/table.h:
 * columns listed once): scaling.csv (scaling.c), utilization.csv and
 * memory_by_batch.csv (models.c), published.csv (models_published.c).
 *
 * models_est_model() turns a manifest model into the estimate module's
 * description (flops.c's figures are built in flops.c, with
 * src/chart/figures_xy.c).
 */
#ifndef PERFSTUDY_MODELS_H
#define PERFSTUDY_MODELS_H

#include "analyze/analysis.h"
#include "analyze/models/estimate.h"
#include "util/table.h"

void models_est_model(const struct manifest_model *m, struct est_model *out);
/* Whose count estimates.csv's params is, in words: "formula", "megatron mlm+nsp", "huggingface BertForMaskedLM"... */
const char *models_params_method(const struct est_model *em);
/* 1 when the manifest gives the model's layers, hidden size and sequence length. */
int models_has_model(const struct manifest_model *m);
/* published.csv: the manifest's published estimates beside perfstudy's (models_published.c). */
void models_published(const struct analysis_ctx *ctx, struct analysis_result *out);
/* throughput.csv, throughput_scaling.csv and relative.csv: numbers typed in from a study (models_typed.c). */
void models_throughput(const struct analysis_ctx *ctx, struct analysis_result *out);
void models_relative(const struct analysis_ctx *ctx, struct analysis_result *out);
/* hardware.csv: the GPUs of nvidia-smi -q -x (models_hardware.c); 0, or -1 after diag. */
int models_hardware(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Bytes per gradient element: the manifest's grad_bytes, else 4 for fp32/tf32, 8 for fp64, else 2. */
int models_grad_bytes(const struct manifest_run *r);


/* scaling.csv's columns, in order. */
#define SCALING_COLUMNS(X)                                          \
	X(SCL_RUN, "run", text)                                     \
	X(SCL_GPUS, "gpus", int)                                    \
	X(SCL_STRATEGY, "strategy", text)                           \
	X(SCL_STEP_US, "step_us", us)                               \
	X(SCL_SAMPLES_PER_S, "samples_per_s", real)                 \
	X(SCL_COMM_US, "comm_us", us)                               \
	X(SCL_COMM_SHARE, "comm_share", frac)                       \
	X(SCL_BASELINE, "baseline", text)                           \
	X(SCL_SPEEDUP, "speedup", real)                             \
	X(SCL_EFFICIENCY, "efficiency", real)                       \
	X(SCL_PREDICTION_BASE, "prediction_base", text)             \
	X(SCL_COMM_EFFICIENCY, "comm_efficiency", real)             \
	X(SCL_PREDICTED_SPEEDUP, "predicted_speedup", real)         \
	X(SCL_LOG_STEP_US, "log_step_us", us)                       \
	X(SCL_LOG_SPEEDUP, "log_speedup", real)                     \
	X(SCL_LOG_EFFICIENCY, "log_efficiency", real)               \
	X(SCL_PAST_LINEAR, "past_linear", int)                      \
	X(SCL_LOG_PREDICTED_SPEEDUP, "log_predicted_speedup", real) \
	X(SCL_STRATEGY_LABEL, "strategy_label", text)               \
	X(SCL_STEP_SAMPLES, "step_samples", int)
enum scaling_col { SCALING_COLUMNS(TABLE_COL_ENUM) SCL_NCOLS };

/* estimates.csv's columns, in order (models.c makes it and reads it back for the utilization figures). */
#define ESTIMATES_COLUMNS(X)                                               \
	X(EST_RUN, "run", text)                                            \
	X(EST_MODEL, "model", text)                                        \
	X(EST_PARAMS, "params", int)                                       \
	X(EST_PARAMS_12LD2, "params_12ld2", int)                           \
	X(EST_GLOBAL_BATCH, "global_batch", int)                           \
	X(EST_FLOPS_PER_STEP, "flops_per_step", real)                      \
	X(EST_ACTIVATION_BYTES_PER_GPU, "activation_bytes_per_gpu", real)  \
	X(EST_MODEL_STATE_BYTES_PER_GPU, "model_state_bytes_per_gpu", real) \
	X(EST_MEMORY_BYTES_PER_GPU, "memory_bytes_per_gpu", real)          \
	X(EST_GPU_MEMORY_BYTES, "gpu_memory_bytes", int)                   \
	X(EST_EXCEEDS_GPU_MEMORY, "exceeds_gpu_memory", text)              \
	X(EST_ZERO, "zero", int)                                           \
	X(EST_COMM_BYTES_PER_GPU, "comm_bytes_per_gpu", real)              \
	X(EST_PARAMS_METHOD, "params_method", text)                        \
	X(EST_PARAMS_LAYERS, "params_layers", int)                         \
	X(EST_VOCAB_USED, "vocab_used", int)                               \
	X(EST_VOCAB_SOURCE, "vocab_source", text)
enum estimates_col { ESTIMATES_COLUMNS(TABLE_COL_ENUM) EST_NCOLS };

/* utilization.csv's columns, in order. */
#define UTILIZATION_COLUMNS(X)                                         \
	X(UT_RUN, "run", text)                                         \
	X(UT_GPUS, "gpus", int)                                        \
	X(UT_GLOBAL_BATCH, "global_batch", int)                        \
	X(UT_STEP_US, "step_us", real)                                 \
	X(UT_STEP_SOURCE, "step_source", text)                         \
	X(UT_FLOPS_PER_STEP, "flops_per_step", real)                   \
	X(UT_ACHIEVED_TFLOPS_PER_GPU, "achieved_tflops_per_gpu", real) \
	X(UT_LOGGED_TFLOPS_PER_GPU, "logged_tflops_per_gpu", real)     \
	X(UT_GPU, "gpu", text)                                         \
	X(UT_PRECISION, "precision", text)                             \
	X(UT_PEAK_TFLOPS, "peak_tflops", real)                         \
	X(UT_PEAK_SOURCE, "peak_source", text)                         \
	X(UT_MFU, "mfu", frac)
enum utilization_col { UTILIZATION_COLUMNS(TABLE_COL_ENUM) UT_NCOLS };

/* memory_by_batch.csv's columns, in order. */
#define MEMORY_BY_BATCH_COLUMNS(X)                            \
	X(MBB_RUN, "run", text)                               \
	X(MBB_MODEL, "model", text)                           \
	X(MBB_BATCH, "batch", int)                            \
	X(MBB_ACTIVATION_BYTES, "activation_bytes", real)     \
	X(MBB_MODEL_STATE_BYTES, "model_state_bytes", real)   \
	X(MBB_TOTAL_BYTES, "total_bytes", real)               \
	X(MBB_GPU_MEMORY_BYTES, "gpu_memory_bytes", int)      \
	X(MBB_EXCEEDS_GPU_MEMORY, "exceeds_gpu_memory", text)
enum memory_by_batch_col { MEMORY_BY_BATCH_COLUMNS(TABLE_COL_ENUM) MBB_NCOLS };

/* published.csv's columns, in order. */
#define PUBLISHED_COLUMNS(X)                                  \
	X(PUB_RUN, "run", text)                               \
	X(PUB_QUANTITY, "quantity", text)                     \
	X(PUB_PUBLISHED, "published", real)                   \
	X(PUB_PERFSTUDY, "perfstudy", real)                   \
	X(PUB_RATIO, "ratio", real)                           \
	X(PUB_SOURCE_DISCREPANCY, "source_discrepancy", text) \
	X(PUB_NOTE, "note", text)
enum published_col { PUBLISHED_COLUMNS(TABLE_COL_ENUM) PUB_NCOLS };

#endif
