/*
 * op_roofline.h: what op_roofline.c (the analysis, op_roofline.csv) and
 * op_roofline_model.c (FLOPs and bytes of one operator call from its
 * recorded shapes, and the devices' peaks) share.
 */
#ifndef PERFSTUDY_OP_ROOFLINE_H
#define PERFSTUDY_OP_ROOFLINE_H

#include <stdint.h>

#include "util/table.h"

/*
 * op_roofline_top.csv (op_roofline.c), which the op-roofline finding
 * reads: per run, the operators and shapes that lose the most time against
 * their roofline, each once, at the rank where it loses the most.
 */
#define OP_ROOFLINE_TOP_COLUMNS(X)                         \
	X(ORT_RUN, "run", text)                            \
	X(ORT_ORDER, "order", int)                         \
	X(ORT_RANK, "rank", int)                           \
	X(ORT_RANKS, "ranks", int)                         \
	X(ORT_OP, "op", text)                              \
	X(ORT_SHAPES, "shapes", text)                      \
	X(ORT_DTYPE, "dtype", text)                        \
	X(ORT_GPU_US_PER_STEP, "gpu_us_per_step", real)    \
	X(ORT_ROOFLINE_US_PER_STEP, "roofline_us_per_step", real) \
	X(ORT_LOST_US_PER_STEP, "lost_us_per_step", real)  \
	X(ORT_STEP_US, "step_us", real)                    \
	X(ORT_LOST_SHARE, "lost_share", frac)              \
	X(ORT_PEAK_SHARE, "peak_share", frac)              \
	X(ORT_BOUND, "bound", text)
enum op_roofline_top_col { OP_ROOFLINE_TOP_COLUMNS(TABLE_COL_ENUM) ORT_NCOLS };

/* The most rows of op_roofline_top.csv per run. */
#define OP_ROOFLINE_TOP_N 10
#define OP_ROOFLINE_TOP_N_TEXT "10"

/* One call's work as the model prices it. */
struct op_cost {
	double flops, bytes;
	const char *family; /* "gemm", "sdpa_fwd", "sdpa_bwd", "optimizer", ... */
	const char *dtype;  /* the type of the first matrix input, as the trace writes it ("c10::BFloat16") */
};

/*
 * FLOPs and bytes of one call of operator name with the compact "Input
 * Dims", "Input type" and "Concrete Inputs" texts of model_ops (types and
 * concrete may be NULL): 1 with *c filled, 0 when the model does not
 * price this operator or these shapes. c->dtype points into a static
 * string or is NULL.
 */
int op_roofline_cost(const char *name, const char *dims, const char *types, const char *concrete,
		     struct op_cost *c);

/* 1 when operator name's own kernels are ATen's ("void at::native::..."): norms, elementwise; else 0. */
int op_roofline_aten_kernels(const char *name);

/* One model_ops call of a rank (op_roofline_calls.c). */
struct mop {
	int64_t tid, start, end, name, dims, types, concrete; /* names ids, -1 when absent */
	int64_t parent; /* the index of the innermost call around it on its thread, -1 none */
	int64_t gpu_ns; /* the time of the kernels it claims */
	int in_step;    /* it starts inside a ProfilerStep#N range (every call when the rank has none) */
};

/* A kernel claimed by a call: its index in rank_data's acts, the call's index. */
struct op_roofline_claim {
	size_t act;
	long call;
};

struct store;
struct rank_key;
struct rank_data;
/*
 * Rank k's model_ops calls (d: the rank loaded) into *out, sorted by
 * thread, start, longer first, each with the GPU time of the kernels it
 * claims; with kept non-NULL, each claimed kernel into *kept. An
 * optimizer's concrete inputs are left out (concrete -1), so that its
 * calls group by shapes. Returns 0 (*nout 0: none), or -1 after diag.
 */
int op_roofline_calls(struct store *s, const struct rank_key *k, const struct rank_data *d, struct mop **out,
		      size_t *nout, struct op_roofline_claim **kept, size_t *nkept);

/* A kernel's factor under the what-if roofline:OP=F: the activity's start (ns) and name id. */
/* qsort order of pointers to struct mop: by operator, dims, types and concrete inputs, one row a run of equals. */
int op_roofline_cmp_row(const void *pa, const void *pb);

struct op_roofline_scale {
	int64_t start, name_id;
	double scale;
};

/*
 * The what-if change roofline:PATTERN=F (analyze/replay/whatif.c) on rank
 * k: for each row of op_roofline.csv the rank would have (an operator,
 * its shapes, types and concrete inputs, over the calls that start in a
 * step) whose operator name matches the fnmatch PATTERN and that has a
 * roofline time R (the device's datasheet peaks) for its GPU time G, the
 * kernels its calls claim take min(1, R / (F G)) times their time: the
 * row then runs at the fraction F (0 < F <= 1) of its roofline, or as
 * measured where it already does better. Into *out, sorted by start and
 * name (only factors below 1), *rows the rows matched. 0, or -1 after diag.
 */
int op_roofline_whatif(struct store *s, const struct rank_key *k, const struct rank_data *d, const char *pattern,
		       double frac, struct op_roofline_scale **out, size_t *nout, size_t *rows);

/* A device's dense peaks (FLOP/s by dtype, bytes/s of HBM) and where they come from. */
struct device_peaks {
	const char *match;  /* a substring of the device name ("H200") */
	double bf16, fp16, tf32, fp32, hbm;
	const char *source; /* the vendor's document */
};

/* The peaks of device name (as deviceProperties or nvidia-smi writes it), or NULL when unknown. */
const struct device_peaks *op_roofline_peaks(const char *device);

/* The dense peak FLOP/s of dtype (the trace's "Input type" text) on p; 0 when unknown. */
/* *pk: the peaks of rank k's first named device (NULL where not in the table); -1 after diag. */
int op_roofline_rank_peaks(struct store *s, const struct rank_key *k, const struct device_peaks **pk);

double op_roofline_peak_flops(const struct device_peaks *p, const char *dtype);

#endif
