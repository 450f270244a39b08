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
 * (static) run function and, at its end, its descriptor
 * analysis_def_<name> (struct analysis_def below: the tables it reads and
 * makes), and one line X(<name>) in the registry's list in analysis.c,
 * where it is to run. The result owns everything appended to it.
 */
#ifndef PERFSTUDY_ANALYSIS_H
#define PERFSTUDY_ANALYSIS_H

#include <stddef.h>

#include "manifest/manifest.h"
#include "store/store.h"
#include "analyze/lib/classify.h"
#include "util/table.h"

struct chart; /* chart/chart.h: the figures an analysis hands on */
struct buf;  /* util/buf.h */
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

/*
 * The ranks of the notes folded into one as they came (result_add_note):
 * a note that says the same of another rank as the note before it
 * (notes_same_but_rank) is kept as that rank's number only, 8 bytes where
 * 16,384 ranks' notes were 250 bytes each; the page lists them as the one
 * note and its near-copies in order (report.c).
 */
struct note_ranks {
	size_t n, cap;
	long *v;
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
	/*
	 * more[i] (NULL while no note was folded): notes[i] is followed by
	 * itself with its rank (notes_rank_at) replaced by each of more[i].v.
	 */
	struct note_ranks *more;
	const struct analysis_def *current; /* the analysis running, whose needs[] result_table checks */
};

/*
 * An analysis's descriptor, defined at the end of its own file as
 *   const struct analysis_def analysis_def_<name> = {
 *   	.name = "<name>", .run = analysis_<name>,
 *   	.needs = ANALYSIS_NONE, .makes = ANALYSIS_TABLES("<table>", ...),
 *   	.figures = ANALYSIS_NAMES("<figure>", "<prefix>_*"),
 *   };
 * and listed once in the registry (analysis.c). An analysis reads the store
 * and the tables of the analyses before it; it declares both lists, and the
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
/* A descriptor's needs or makes: a list of table names, or none; its figures: a list of names. */
#define ANALYSIS_TABLES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ANALYSIS_NONE ((const char *const[]){NULL})
#define ANALYSIS_NAMES(...) ((const char *const[]){__VA_ARGS__, NULL})

struct analysis_def {
	const char *name;
	/* Returns 0, or -1 after diag (a failure of the store, not of the data). */
	int (*run)(const struct analysis_ctx *ctx, struct analysis_result *out);
	const char *const *needs;
	const char *const *makes;
	/*
	 * The figures it may add (result_add_figure refuses any other), each
	 * a chart name or a prefix ending in '*' ("step_timeline_*": one per
	 * run); NULL: none.
	 */
	const char *const *figures;
	enum analysis_when when;
};

/* The registry, in the order its analyses run; sets *n. */
const struct analysis_def *const *analysis_registry(size_t *n);

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
 * Where a note names a rank (" rank N"), the place of N and its length in
 * note; 0 when it names none. Notes that differ only there say one thing
 * of several ranks (notes_same_but_rank: 1 when a and b do).
 */
int notes_rank_at(const char *note, size_t *at, size_t *len);
int notes_same_but_rank(const char *a, const char *b);
/* Into out (reset): note with its rank (notes_rank_at) replaced by rank. */
void notes_with_rank(const char *note, long rank, struct buf *out);
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

#endif
