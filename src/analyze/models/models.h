/*
 * models.h: helpers shared by the model analyses (models.c, flops.c), and
 * the contracts of the models' tables that others read back (util/table.h:
 * columns listed once): scaling.csv, compute_model.csv and
 * speedup_error.csv (scaling.c), estimates.csv, utilization.csv and
 * memory_by_batch.csv (models.c), published.csv (models_published.c),
 * hardware.csv (models_hardware.c), throughput.csv, throughput_scaling.csv
 * and relative.csv (models_typed.c), strategy_scaling.csv
 * (strategy_scaling.c), comm_volume.csv and comm_types.csv (comm_volume.c),
 * parallel_comm.csv (parallel_comm.c), time_to_train.csv (time_to_train.c),
 * flops.csv, flops_ratio.csv and flops_fit.csv (flops.c).
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

/* hardware.csv's columns, in order (models_hardware.c). */
#define HARDWARE_COLUMNS(X)                         \
	X(HW_GPU, "gpu", int)                       \
	X(HW_PRODUCT, "product", text)              \
	X(HW_MEMORY_MIB, "memory_mib", int)         \
	X(HW_DRIVER, "driver", text)                \
	X(HW_CUDA, "cuda", text)                    \
	X(HW_MAX_SM_MHZ, "max_sm_mhz", int)         \
	X(HW_MAX_MEM_MHZ, "max_mem_mhz", int)       \
	X(HW_POWER_LIMIT_W, "power_limit_w", real)  \
	X(HW_PCIE_GEN_MAX, "pcie_gen_max", int)     \
	X(HW_PCIE_WIDTH_MAX, "pcie_width_max", int) \
	X(HW_PCIE_GEN_CUR, "pcie_gen_cur", int)     \
	X(HW_PCIE_WIDTH_CUR, "pcie_width_cur", int) \
	X(HW_PCI_BUS, "pci_bus", text)              \
	X(HW_DTD, "dtd", text)                      \
	X(HW_SOURCE, "source", text)
enum hardware_col { HARDWARE_COLUMNS(TABLE_COL_ENUM) HW_NCOLS };

/* strategy_scaling.csv's columns, in order (strategy_scaling.c). */
#define STRATEGY_SCALING_COLUMNS(X)                              \
	X(STS_STRATEGY, "strategy", text)                        \
	X(STS_RUN, "run", text)                                  \
	X(STS_MODEL, "model", text)                              \
	X(STS_GPUS, "gpus", int)                                 \
	X(STS_STEPS, "steps", int)                               \
	X(STS_RANKS, "ranks", int)                               \
	X(STS_STEP_US, "step_us", us)                            \
	X(STS_COMPUTE_US, "compute_us", us)                      \
	X(STS_COMMUNICATION_US, "communication_us", us)          \
	X(STS_OTHER_US, "other_us", us)                          \
	X(STS_COMM_SHARE, "comm_share", frac)                    \
	X(STS_BASELINE, "baseline", text)                        \
	X(STS_SPEEDUP, "speedup", real)                          \
	X(STS_SPEEDUP_SOURCE, "speedup_source", text)            \
	X(STS_PEAK_ALLOCATED_BYTES, "peak_allocated_bytes", int)
enum strategy_scaling_col { STRATEGY_SCALING_COLUMNS(TABLE_COL_ENUM) STS_NCOLS };

/* comm_volume.csv's columns, in order (comm_volume.c). */
#define COMM_VOLUME_COLUMNS(X)                                        \
	X(CV_RUN, "run", text)                                        \
	X(CV_RANK, "rank", int)                                       \
	X(CV_GPUS, "gpus", int)                                       \
	X(CV_ZERO, "zero", int)                                       \
	X(CV_PARAMS, "params", int)                                   \
	X(CV_GRAD_DTYPE, "grad_dtype", text)                          \
	X(CV_GRAD_BYTES, "grad_bytes", int)                           \
	X(CV_ESTIMATED_BYTES_PER_GPU, "estimated_bytes_per_gpu", int) \
	X(CV_STEPS, "steps", int)                                     \
	X(CV_MESSAGE_BYTES_PER_STEP, "message_bytes_per_step", int)   \
	X(CV_MEASURED_BYTES_PER_GPU, "measured_bytes_per_gpu", int)   \
	X(CV_RATIO, "ratio", real)
enum comm_volume_col { COMM_VOLUME_COLUMNS(TABLE_COL_ENUM) CV_NCOLS };

/* comm_types.csv's columns, in order (comm_volume.c). */
#define COMM_TYPES_COLUMNS(X)                                         \
	X(CT_RUN, "run", text)                                        \
	X(CT_COLLECTIVE, "collective", text)                          \
	X(CT_GPUS, "gpus", int)                                       \
	X(CT_CALLS_PER_STEP, "calls_per_step", real)                  \
	X(CT_MESSAGE_BYTES_PER_STEP, "message_bytes_per_step", int)   \
	X(CT_MEASURED_BYTES_PER_GPU, "measured_bytes_per_gpu", int)   \
	X(CT_ESTIMATED_BYTES_PER_GPU, "estimated_bytes_per_gpu", int) \
	X(CT_RATIO, "ratio", real)                                    \
	X(CT_ESTIMATE, "estimate", text)
enum comm_types_col { COMM_TYPES_COLUMNS(TABLE_COL_ENUM) CT_NCOLS };

/* parallel_comm.csv's columns, in order (parallel_comm.c). */
#define PARALLEL_COMM_COLUMNS(X)                                    \
	X(PC_PLANE, "plane", text)                                  \
	X(PC_RUN, "run", text)                                      \
	X(PC_TP, "tp", int)                                         \
	X(PC_PP, "pp", int)                                         \
	X(PC_DP, "dp", int)                                         \
	X(PC_REPLICA_BATCH, "replica_batch", real)                  \
	X(PC_BANDWIDTH, "bandwidth", text)                          \
	X(PC_INTER_NODE_GBS, "inter_node_gbs", real)                \
	X(PC_INTRA_NODE_GBS, "intra_node_gbs", real)                \
	X(PC_TP_LINK, "tp_link", text)                              \
	X(PC_PP_LINK, "pp_link", text)                              \
	X(PC_DP_LINK, "dp_link", text)                              \
	X(PC_DP_ALLREDUCE_BYTES, "dp_allreduce_bytes", int)         \
	X(PC_DP_ALLGATHER_BYTES, "dp_allgather_bytes", int)         \
	X(PC_DP_REDUCESCATTER_BYTES, "dp_reducescatter_bytes", int) \
	X(PC_TP_ALLREDUCE_BYTES, "tp_allreduce_bytes", int)         \
	X(PC_PP_SENDRECV_BYTES, "pp_sendrecv_bytes", int)           \
	X(PC_DP_TIME_S, "dp_time_s", real)                          \
	X(PC_TP_TIME_S, "tp_time_s", real)                          \
	X(PC_PP_TIME_S, "pp_time_s", real)                          \
	X(PC_TIME_S, "time_s", real)                                \
	X(PC_CONSTRAINT, "constraint", text)
enum parallel_comm_col { PARALLEL_COMM_COLUMNS(TABLE_COL_ENUM) PC_NCOLS };

/* compute_model.csv's columns, in order (scaling.c). */
#define COMPUTE_MODEL_COLUMNS(X)                             \
	X(CM_RUN, "run", text)                               \
	X(CM_FLOPS_PER_GPU, "flops_per_gpu", real)           \
	X(CM_T_COMPUTE_US, "t_compute_us", us)               \
	X(CM_KERNEL_US, "kernel_us", us)                     \
	X(CM_K1, "k1", frac)                                 \
	X(CM_K2, "k2", frac)                                 \
	X(CM_TRANSFORMER_TFLOPS, "transformer_tflops", real) \
	X(CM_PREDICTION_BASE, "prediction_base", text)       \
	X(CM_T_COMPUTE_EST_US, "t_compute_est_us", us)
enum compute_model_col { COMPUTE_MODEL_COLUMNS(TABLE_COL_ENUM) CM_NCOLS };

/* speedup_error.csv's columns, in order (scaling.c). */
#define SPEEDUP_ERROR_COLUMNS(X)                     \
	X(SE_MODEL, "model", text)                   \
	X(SE_STRATEGY, "strategy", text)             \
	X(SE_STRATEGY_LABEL, "strategy_label", text) \
	X(SE_LOG_RUNS, "log_runs", int)              \
	X(SE_LOG_MSE, "log_mse", real)               \
	X(SE_RUNS, "runs", int)                      \
	X(SE_TRACE_MSE, "trace_mse", real)
enum speedup_error_col { SPEEDUP_ERROR_COLUMNS(TABLE_COL_ENUM) SE_NCOLS };

/* throughput.csv's columns, in order (models_typed.c). */
#define THROUGHPUT_COLUMNS(X)                                      \
	X(TP_RUN, "run", text)                                     \
	X(TP_GPUS, "gpus", int)                                    \
	X(TP_BATCH, "batch", int)                                  \
	X(TP_TENSOR_PARALLEL, "tensor_parallel", int)              \
	X(TP_STATUS, "status", text)                               \
	X(TP_ITERATION_MS, "iteration_ms", real)                   \
	X(TP_SAMPLES_PER_S, "samples_per_s", real)                 \
	X(TP_SAMPLES_PER_S_DERIVED, "samples_per_s_derived", real) \
	X(TP_MODEL_SIZE, "model_size", int)                        \
	X(TP_SIZE_X_SAMPLES_PER_S, "size_x_samples_per_s", real)   \
	X(TP_NORMALIZED, "normalized", real)                       \
	X(TP_MEMORY_GB, "memory_gb", real)                         \
	X(TP_PARAMS_ESTIMATED, "params_estimated", int)            \
	X(TP_PARAMS_DIFFERENCE, "params_difference", int)          \
	X(TP_PARAMS_METHOD, "params_method", text)
enum throughput_col { THROUGHPUT_COLUMNS(TABLE_COL_ENUM) TP_NCOLS };

/* throughput_scaling.csv's columns, in order (models_typed.c). */
#define THROUGHPUT_SCALING_COLUMNS(X)                         \
	X(TPS_FROM_RUN, "from_run", text)                     \
	X(TPS_TO_RUN, "to_run", text)                         \
	X(TPS_GPUS_FROM, "gpus_from", int)                    \
	X(TPS_GPUS_TO, "gpus_to", int)                        \
	X(TPS_SAMPLES_PER_S_FROM, "samples_per_s_from", real) \
	X(TPS_SAMPLES_PER_S_TO, "samples_per_s_to", real)     \
	X(TPS_SPEEDUP, "speedup", real)                       \
	X(TPS_EFFICIENCY, "efficiency", frac)
enum throughput_scaling_col { THROUGHPUT_SCALING_COLUMNS(TABLE_COL_ENUM) TPS_NCOLS };

/* relative.csv's columns, in order (models_typed.c). */
#define RELATIVE_COLUMNS(X)                           \
	X(REL_RUN, "run", text)                       \
	X(REL_RELATIVE_TO, "relative_to", text)       \
	X(REL_TIME_X, "time_x", real)                 \
	X(REL_COMM_TIME_X, "comm_time_x", real)       \
	X(REL_COMM_PCT, "comm_pct", real)             \
	X(REL_COMPUTE_PCT, "compute_pct", real)       \
	X(REL_COMM_SHARE_X, "comm_share_x", real)     \
	X(REL_TIME_SAVED_PCT, "time_saved_pct", real)
enum relative_col { RELATIVE_COLUMNS(TABLE_COL_ENUM) REL_NCOLS };

/* time_to_train.csv's columns, in order (time_to_train.c). */
#define TIME_TO_TRAIN_COLUMNS(X)                    \
	X(T2T_RUN, "run", text)                     \
	X(T2T_GPUS, "gpus", int)                    \
	X(T2T_BATCH, "batch", int)                  \
	X(T2T_SAMPLES, "samples", int)              \
	X(T2T_ITERATIONS, "iterations", int)        \
	X(T2T_WALL_S, "wall_s", real)               \
	X(T2T_FIRST_S, "first_s", real)             \
	X(T2T_AFTER_FIRST_S, "after_first_s", real) \
	X(T2T_STEADY_S, "steady_s", real)           \
	X(T2T_SPEEDUP, "speedup", real)             \
	X(T2T_WALL_SPEEDUP, "wall_speedup", real)
enum time_to_train_col { TIME_TO_TRAIN_COLUMNS(TABLE_COL_ENUM) T2T_NCOLS };

/* flops.csv's columns, in order (flops.c). */
#define FLOPS_COLUMNS(X)                              \
	X(FL_RUN, "run", text)                        \
	X(FL_BATCH, "batch", int)                     \
	X(FL_ESTIMATED_FLOPS, "estimated_flops", int) \
	X(FL_MEASURED_FLOPS, "measured_flops", int)   \
	X(FL_DRAM_BYTES, "dram_bytes", int)           \
	X(FL_KERNEL_US, "kernel_us", us)              \
	X(FL_METHOD, "method", text)                  \
	X(FL_ESTIMATED_MACS, "estimated_macs", int)   \
	X(FL_PERFSTUDY_FLOPS, "perfstudy_flops", int) \
	X(FL_PAPER001_FLOPS, "paper001_flops", int)
enum flops_col { FLOPS_COLUMNS(TABLE_COL_ENUM) FL_NCOLS };

/* flops_ratio.csv's columns, in order (flops.c). */
#define FLOPS_RATIO_COLUMNS(X)                                          \
	X(FLR_RUN, "run", text)                                         \
	X(FLR_BATCH, "batch", int)                                      \
	X(FLR_LAUNCHES, "launches", int)                                \
	X(FLR_MEASURED_OVER_ESTIMATED, "measured_over_estimated", real) \
	X(FLR_FLOPS_PER_DRAM_BYTE, "flops_per_dram_byte", real)         \
	X(FLR_ACHIEVED_TFLOPS, "achieved_tflops", real)
enum flops_ratio_col { FLOPS_RATIO_COLUMNS(TABLE_COL_ENUM) FLR_NCOLS };

/* flops_fit.csv's columns, in order (flops.c). */
#define FLOPS_FIT_COLUMNS(X)                \
	X(FLF_RUNS, "runs", int)            \
	X(FLF_SLOPE, "slope", real)         \
	X(FLF_INTERCEPT, "intercept", real) \
	X(FLF_R2, "r2", real)
enum flops_fit_col { FLOPS_FIT_COLUMNS(TABLE_COL_ENUM) FLF_NCOLS };

#endif
