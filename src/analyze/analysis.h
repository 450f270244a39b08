/*
 * analysis.h: what every analysis reads and what it hands to the report.
 *
 * An analysis is one function in the registry (analysis.c): it reads the
 * store for one experiment and appends tables (written as data/<name>.csv
 * and HTML tables), chart models (drawn as figures/<name>.{svg,pdf,png}),
 * Methods definitions (each formula in words) and notes (what could not be
 * computed for which run, and why) to an analysis_result. Analyses run in
 * registry order; a later one may read the aggregates an earlier one wrote
 * into the store.
 *
 * Adding an analysis: one new file src/analyze/<family>/<name>.c with its
 * run function, one entry in the registry declaring the tables it reads
 * and makes. The result owns everything appended to it.
 */
#ifndef PERFSTUDY_ANALYSIS_H
#define PERFSTUDY_ANALYSIS_H

#include <stddef.h>

#include "manifest/manifest.h"
#include "store/store.h"
#include "analyze/lib/classify.h"
#include "util/table.h"

struct chart; /* chart/chart.h: the figures an analysis hands on */
struct chart_colour;

struct crossexp_exp; /* history/crossexp.h: the build's experiments */

struct analysis_ctx {
	struct store *store;
	const char *experiment;          /* experiment id in the store */
	const struct classifier *cls;
	const struct manifest *manifest; /* NULL for a build from directories */
	int top_n;                       /* kernels in top-kernel figures */
	int64_t built_at;                /* the time the build records in its history (history.h) */
	/* For the analyses across experiments (ANALYSIS_ACROSS): every experiment, and which one this is. */
	const struct crossexp_exp *exps;
	size_t nexps, self;
};

struct analysis_figure {
	struct chart *chart;
	char *caption;
};

struct analysis_method {
	char *term; /* "groups.csv", "step breakdown", ... */
	char *text;
};

struct analysis_result {
	struct table *runs; /* the run table, shown first */
	size_t ntables, cap_tables;
	struct table **tables;
	size_t nfigures, cap_figures;
	struct analysis_figure *figures;
	size_t nmethods, cap_methods;
	struct analysis_method *methods;
	size_t nnotes, cap_notes;
	char **notes;
	const struct analysis_def *current; /* the analysis running, whose needs[] result_table checks */
};

/*
 * One entry of the registry (analysis.c). An analysis reads the store and
 * the tables of the analyses before it; it declares both lists, and the
 * registry's order must satisfy them (tests/unit/test_registry.c):
 *   needs  the result tables it reads (result_table refuses any other),
 *          each made by an earlier entry; ANALYSIS_ANY_TABLE: tables named
 *          at run time (sanity reads every table, crossexp the ones the
 *          manifest's comparisons name);
 *   makes  the result tables it may add (result_add_table refuses any
 *          other); no two entries make the same table.
 * Both lists end with NULL. An entry's file is src/analyze/<family>/<name>.c.
 */
enum analysis_when {
	ANALYSIS_EXPERIMENT, /* once per experiment, in registry order */
	ANALYSIS_ACROSS,     /* once per experiment after every experiment is analysed (ctx->exps) */
};

#define ANALYSIS_ANY_TABLE "*"

struct analysis_def {
	const char *name;
	/* Returns 0, or -1 after diag (a failure of the store, not of the data). */
	int (*run)(const struct analysis_ctx *ctx, struct analysis_result *out);
	const char *const *needs;
	const char *const *makes;
	enum analysis_when when;
};

/* The registry, in the order its analyses run; sets *n. */
const struct analysis_def *analysis_registry(size_t *n);

/*
 * The series names of the analyses that keep one colour in every figure
 * (colours.c), for chart_style's colours; sets *n. A static array.
 */
const struct chart_colour *analysis_colours(size_t *n);

/* Runs every ANALYSIS_EXPERIMENT analysis into out (cleared first); returns 0 or -1 after diag. */
int analyze_experiment(const struct analysis_ctx *ctx, struct analysis_result *out);
/*
 * Runs every ANALYSIS_ACROSS analysis of experiment ctx->self into out (its
 * own, already analysed); ctx->exps must be set. Returns 0 or -1 after diag.
 */
int analyze_across(const struct analysis_ctx *ctx, struct analysis_result *out);
void analysis_result_release(struct analysis_result *r);

/* Appenders; the result takes ownership of t and c, and copies the strings. */
void result_add_table(struct analysis_result *r, struct table *t);
void result_add_figure(struct analysis_result *r, struct chart *c, const char *caption);
void result_add_method(struct analysis_result *r, const char *term, const char *text);
void result_add_note(struct analysis_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * The table of that name, or NULL. While an analysis of the registry runs,
 * a name outside its needs[] and makes[] is a programming error: it is
 * reported and perfstudy aborts, so that a misspelt or undeclared table
 * fails every test that reaches it instead of quietly emptying a result.
 */
struct table *result_table(const struct analysis_result *r, const char *name);
/*
 * Removes t (a table of r, from result_table) and frees it: a table one
 * analysis hands to a later one only (critical_path_hops), never written.
 */
void result_drop_table(struct analysis_result *r, struct table *t);

/* The analyses, each in its own file. */
int analysis_basic(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_profiler_overhead(const struct analysis_ctx *ctx, struct analysis_result *out);
/*
 * From res's profiler_overhead.csv (the analysis runs early): run's median
 * unprofiled log iteration in ns, and its overhead; 0 where there is none.
 */
int64_t profiler_unprofiled_ns(const struct analysis_result *res, const char *run);
double profiler_overhead_of(const struct analysis_result *res, const char *run);
/* How many unprofiled iterations of the run's training log profiler_overhead.csv counts (0: none). */
int64_t profiler_unprofiled_count(const struct analysis_result *res, const char *run);
/*
 * The same median read from the store, without the analysis (`perfstudy
 * whatif`): *median_ns (0: no unprofiled iteration) and *count of run of
 * experiment exp. Returns 0, or -1 after diag.
 */
int profiler_unprofiled_median(struct store *s, const char *exp, const char *run, int64_t *median_ns,
			       int64_t *count);
/* The training's step-to-step noise (profiler_overhead.csv unprofiled_sigma_us) in ns; 0 when unknown. */
int64_t profiler_noise_ns(const struct analysis_result *res, const char *run);
int analysis_models(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_flops(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Consistency of the inputs: empty traces, missing ranks, disagreeing clocks (checks.c). */
int analysis_checks(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_temporal(const struct analysis_ctx *ctx, struct analysis_result *out);
/* HTA's idle time breakdown and kernel launch statistics (hta_idle.c). */
int analysis_hta_idle(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Bus bandwidth and its efficiency per collective type and run (collective_busbw.c). */
int analysis_collective_busbw(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Time to train a fixed number of samples, from training logs (time_to_train.c). */
int analysis_time_to_train(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_strategy_scaling(const struct analysis_ctx *ctx, struct analysis_result *out);
/* GPU idle time and host wait per step and rank, all streams as one (gpu_idle.c). */
int analysis_gpu_idle(const struct analysis_ctx *ctx, struct analysis_result *out);
/* TraceLens's GPU timeline per rank over the whole trace (gpu_timeline.c). */
int analysis_gpu_timeline(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Warnings for shares over 100 % in any table (sanity.c). */
int analysis_sanity(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Where the extra time of a run over its baseline goes (step_diff.c). */
int analysis_step_diff(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_step_breakdown(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_memops(const struct analysis_ctx *ctx, struct analysis_result *out);
/* memory/memory_steps.c: the caching allocator's memory per step, phase and rank (issue 41). */
int analysis_memory_steps(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_collectives(const struct analysis_ctx *ctx, struct analysis_result *out);
/* collectives.c: bytes of a Kineto NCCL dtype ("Float", "BFloat16", ...; 0 unknown); canonical type names. */
int collective_dtype_size(const char *dtype);
struct buf;
void collective_canonical(const char *raw, struct buf *out);
/*
 * The elements a communication kernel of canonical type moves, from its
 * In and Out msg nelems (<= 0: unknown): a SendRecv (a fused send and recv,
 * in what it sends, out what it receives) both, any other the larger.
 */
int64_t collective_message_nelems(const char *type, int64_t in, int64_t out);
/* NCCL's bus bandwidth factor busbw / algbw of a canonical type on n ranks (nccl-tests PERFORMANCE.md); 0 if n <= 0. */
double collective_bus_factor(const char *type, int64_t n);
/* AllReduce bus bandwidth by GPU count and message size (busbw.c). */
int analysis_busbw(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Measured communication bytes per GPU and step beside the estimate (comm_volume.c). */
int analysis_comm_volume(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Estimated communication time of every TP x PP x DP split at several bandwidths (parallel_comm.c). */
int analysis_parallel_comm(const struct analysis_ctx *ctx, struct analysis_result *out);
/* nvidia-smi topo -m links (interconnect.csv) and profiler phase reports (phase_report.csv), inputs.c. */
int analysis_inputs(const struct analysis_ctx *ctx, struct analysis_result *out);
/* A profiler report's actions mapped to the phases (phase_report_phases.csv), report_phases.c. */
int analysis_report_phases(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Two runs per phase (compare_phases.csv), compare_phases.c; after phases and report_phases. */
int analysis_compare_phases(const struct analysis_ctx *ctx, struct analysis_result *out);
/* The machine and its software as the inputs and the manifest say (system.csv), system.c. */
int analysis_system(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_ranks(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_phases(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_dispatch(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Compute-kernel time per kernel type and intra-op dispatch per host operator, paper 002's Table 6 (dispatch_ops.c). */
int analysis_dispatch_ops(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Speedup across runs, measured and predicted by Cheng et al.'s model, from dispatch.csv (scaling.c). */
int analysis_scaling(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Collectives matched across ranks: waits, clock offsets, stragglers (crossrank.c). */
int analysis_crossrank(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Each stage's bubble in a pipeline-parallel run against its schedule's (pipeline_stages.c). */
int analysis_pipeline_stages(const struct analysis_ctx *ctx, struct analysis_result *out);
/* runs.csv's parallel layout, schedule and micro-batches: the manifest's, else the traces' (run_layout.c). */
int analysis_run_layout(const struct analysis_ctx *ctx, struct analysis_result *out);
/* GPipe against 1F1B runs of one model: step time, bubble against (p - 1) / (m + p - 1) (pipeline_schedules.c). */
int analysis_pipeline_schedules(const struct analysis_ctx *ctx, struct analysis_result *out);
/* What each rank that made the others wait did more than they did, per region and name (straggler_causes.c). */
int analysis_straggler_causes(const struct analysis_ctx *ctx, struct analysis_result *out);
/*
 * The side that made rank late (straggler_causes.c): *busy its GPU's extra
 * compute time and *idle its GPU's extra idle time per step against the
 * median of the run's other ranks (us; NAN where straggler_ranks.csv or
 * ranks.csv lack them). busy > idle: GPU-bound, else host-bound.
 */
void straggler_side(const struct analysis_result *res, const char *run, int rank, double *busy, double *idle);
/* The median step of each run, one lane per drawn rank on the aligned clock (step_timeline.c). */
int analysis_step_timeline(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Figures with a bar per rank keep the ranks rank_spread.csv draws, in runs of many ranks (figure_ranks.c). */
int analysis_figure_ranks(const struct analysis_ctx *ctx, struct analysis_result *out);
/*
 * Every rank of a run in one distribution (rank_spread.csv), and the
 * per-rank top-kernel figures of the ranks that matter only (rank_spread.c).
 */
int analysis_rank_spread(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Each rank's profiled steps replayed from their dependency graph, and each fix priced by replay (replay/replay.c). */
int analysis_replay(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_whatif_manifest(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Critical path of each step, per rank and across ranks (critical_path.c). */
int analysis_critical_path(const struct analysis_ctx *ctx, struct analysis_result *out);
int analysis_compare(const struct analysis_ctx *ctx, struct analysis_result *out);
/* Statements generated from the other analyses' tables, shown first on the page (findings.c). */
int analysis_findings(const struct analysis_ctx *ctx, struct analysis_result *out);
/* The experiment's state recorded into the build history, and its history tables (history/history.c). */
int analysis_history(const struct analysis_ctx *ctx, struct analysis_result *out);
/* The manifest's comparisons across experiments (history/crossexp.c); ANALYSIS_ACROSS. */
int analysis_crossexp(const struct analysis_ctx *ctx, struct analysis_result *out);
/* published.csv's figures: a study's own numbers beside perfstudy's estimates (published_figures.c). */
int analysis_published_figures(const struct analysis_ctx *ctx, struct analysis_result *out);
/*
 * compare.c: the pairs of runs to compare, as indexes into runs[] and
 * models[] ("" for none), nr runs in manifest order; *pairs is allocated
 * (caller frees). Returns how many.
 */
size_t compare_pairs(const struct manifest *m, const char *const *runs, const char *const *models, size_t nr,
		     size_t (**pairs)[2]);
/* Step time distributions per run (step_stats.csv) and the test between compared runs (step_compare.csv). */
int analysis_step_stats(const struct analysis_ctx *ctx, struct analysis_result *out);

#endif
