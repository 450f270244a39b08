/*
 * manifest_int.h: what the files of src/manifest share, private to them.
 *
 * A manifest is read in two passes (yaml.c, then the rest): libyaml's events
 * become a tree of struct ynode that keeps every node's line and column, and
 * the checker walks that tree key by key in document order, so errors come
 * out in the order the user reads the file. A syntax error stops the first
 * pass (libyaml cannot resume); every other error is reported through
 * mf_err_at() and the walk goes on, so one run of perfstudy shows as many
 * problems as possible.
 *
 * Where the walk lives:
 *   manifest.c    the top-level keys, cross-checks once all are read, load and free
 *   yaml.c        first pass: libyaml events into the ynode tree
 *   fields.c      reporting errors; turning nodes into strings, numbers, words; key checks
 *   paths.c       trace and input paths: resolving, globbing, staying inside the directory
 *   runs.c        'runs' and 'model'
 *   published.c   a run's typed-in numbers from a published table ('measured', 'published')
 *   hardware.c    'hardware' and 'software', and manifest_hardware_number()
 *   sections.c    'figures', 'classify', 'phases', 'compare', 'thresholds',
 *                 'memory_batches', 'parallel_comm', 'series'
 *   comparisons.c 'comparisons' across experiments
 *
 * Every mf_get_* reads one key's value node into the manifest (or into the
 * struct it is given) and reports what is wrong with it; the ones that return
 * int return 1 when they set the value, 0 when the value is empty (or was
 * already reported), -1 after reporting an error.
 */
#ifndef PERFSTUDY_MANIFEST_INT_H
#define PERFSTUDY_MANIFEST_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest/manifest.h"
#include "util/buf.h"

enum ynode_kind { Y_SCALAR, Y_MAPPING, Y_SEQUENCE };

/* One YAML node with where it starts in the file. */
struct ynode {
	enum ynode_kind kind;
	int line, col;    /* 1-based */
	int null;         /* a plain scalar meaning "no value": empty, ~, null */
	int bad;          /* already reported (an alias): checks skip it quietly */
	char *value;      /* scalars: the text, NUL-terminated */
	size_t n, cap;    /* sequences: items; mappings: key, value, key, value ... */
	struct ynode **items;
};

/* The state of one manifest_load(). */
struct ctx {
	const char *path;
	size_t errors;
	struct manifest *m;
	size_t prefix_len; /* length of m->dir plus '/' as prepended to relative paths */
	struct manifest_model *own; /* each run's own 'model' keys, merged at the end */
	const struct ynode **baselines; /* each run's 'scaling_baseline' value, checked at the end */
};

/* yaml.c */

/*
 * Reads the single document of the manifest text. Returns its root node
 * (free it with mf_ynode_free()), or NULL after reporting a syntax error or
 * an empty file.
 */
struct ynode *mf_load_tree(struct ctx *c, const char *text, size_t len);
void mf_ynode_free(struct ynode *n);

/* fields.c: reporting. Each report counts one error in c->errors. */

/* Reports "path:line:col: error: ..." (line 0: just the path); sys: an I/O or system error. */
void mf_report(struct ctx *c, int line, int col, int sys, const char *fmt, va_list ap);
/* Reports an error at node n (NULL: at the file). */
void mf_err_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void mf_report_at(struct ctx *c, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Like mf_err_at() for a failed system call. */
void mf_syserr_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Returns b's bytes (caller frees) and releases b. */
char *mf_take(struct buf *b);

/* fields.c: nodes into values. */

/* Returns how node n is named in "got ..." (caller frees). */
char *mf_describe(const struct ynode *n);
/* Reports "expected <what> for '<key>', got ..." at v. */
void mf_err_type(struct ctx *c, const struct ynode *key, const struct ynode *v, const char *what);
/* Reports "expected <expected>, got <what n is>" at n. */
void mf_err_got(struct ctx *c, const struct ynode *n, const char *expected);
/* Returns 1 when v holds a value, 0 when it is empty or already reported. */
int mf_present(const struct ynode *v);
/* A string into *out (replacing and freeing what was there; caller frees). */
int mf_get_string(struct ctx *c, const struct ynode *key, const struct ynode *v, char **out);
/* An integer in [min, max]. */
int mf_get_int(struct ctx *c, const struct ynode *key, const struct ynode *v, int64_t min,
	int64_t max, int64_t *out);
/* An integer in [1, INT_MAX]. */
int mf_get_posint(struct ctx *c, const struct ynode *key, const struct ynode *v, int *out);
/* A finite number greater than 0. */
int mf_get_posnum(struct ctx *c, const struct ynode *key, const struct ynode *v, double *out);
/* A finite number of any sign. */
int mf_get_real(struct ctx *c, const struct ynode *key, const struct ynode *v, double *out);
/* true or false, as 1 or 0. */
int mf_get_bool(struct ctx *c, const struct ynode *key, const struct ynode *v, int *out);
/* Returns 1 when v is a mapping, 0 when empty, -1 after reporting it is not. */
int mf_want_mapping(struct ctx *c, const struct ynode *key, const struct ynode *v);
/* One of names[n] into *out (caller frees); an unknown word gets a suggestion. */
void mf_get_word(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const char *const *names, size_t n, char **out);
/* One of words[n], stored as its index plus base in *out. */
void mf_get_choice(struct ctx *c, const struct ynode *k, const struct ynode *v,
	const char *const *words, size_t n, int base, int *out);
/* Returns the name of names[n] closest to s within edit distance 2, or NULL. */
const char *mf_suggest(const char *s, const char *const *names, size_t n);
/*
 * Returns the index in names of the key of the pair at items[i] of mapping
 * map, or -1 after reporting an unknown, duplicate or non-scalar key. seen[]
 * (one slot per name, NULL at first) remembers keys met so far.
 */
int mf_field_index(struct ctx *c, const struct ynode *map, size_t i,
	const char *const *names, size_t n, const struct ynode **seen);
/*
 * For a mapping of free-form keys (names of packages, phases): the first
 * key before items[i] (a scalar key) that is the same, or NULL.
 */
const struct ynode *mf_earlier_key(const struct ynode *map, size_t i);
/*
 * Reports a required key that is absent (at the mapping's start) or has an
 * empty value (at the key). key is the key node from mf_field_index's seen[].
 */
void mf_require(struct ctx *c, const struct ynode *map, const struct ynode *key, const char *name);
/* Returns 1 when s is non-empty and only letters, digits and characters of extra. */
int mf_valid_id(const char *s, const char *extra);
/* Lowercases s in place (NULL: nothing). */
void mf_lowercase(char *s);

/* paths.c */

/* Returns path p as seen from the working directory (caller frees). */
char *mf_resolve(const struct ctx *c, const char *p);
/* Non-zero when relative path p leaves the directory it is relative to. */
int mf_climbs_out(const char *p);
/* Reads 'traces' or 'inputs' (key) into *files, sorted and without duplicates. */
void mf_get_traces(struct ctx *c, char ***files, size_t *nfiles, const struct ynode *key,
	const struct ynode *v);

/* runs.c */

void mf_get_model(struct ctx *c, struct manifest_model *mm, const struct ynode *key,
	const struct ynode *map);
void mf_get_runs(struct ctx *c, const struct ynode *key, const struct ynode *v);
/* 'whatif' (questions.c): its run nodes into *nodes, checked against the runs once all are read. */
void mf_get_whatif(struct ctx *c, const struct ynode *key, const struct ynode *v, const struct ynode ***nodes);
/* Fills a run's model: the manifest's defaults def, then the run's own keys; takes own's strings. */
void mf_merge_model(struct manifest_model *dst, const struct manifest_model *def,
	struct manifest_model *own);
/*
 * Returns the index of the (first) run with this id, or m->nruns when there
 * is none; constant time, through m->run_ids (made by mf_get_runs).
 */
size_t mf_run_index(const struct manifest *m, const char *id);
/* Frees m->run_ids. */
void mf_run_ids_free(struct manifest *m);

/* published.c */

void mf_get_measured(struct ctx *c, struct manifest_measured *ms, const struct ynode *key,
	const struct ynode *map);
void mf_get_published(struct ctx *c, struct manifest_published *pb, const struct ynode *key,
	const struct ynode *map);

/* hardware.c */

void mf_get_hardware(struct ctx *c, const struct ynode *key, const struct ynode *map);
void mf_get_software(struct ctx *c, const struct ynode *key, const struct ynode *map);

/* sections.c */

void mf_get_figures(struct ctx *c, const struct ynode *key, const struct ynode *map);
void mf_get_classify(struct ctx *c, const struct ynode *key, const struct ynode *v);
void mf_get_phases(struct ctx *c, const struct ynode *key, const struct ynode *v);
/* *nodes (caller frees) gets the run id nodes of the pairs, checked once all runs are read. */
void mf_get_compare(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const struct ynode ***nodes);
void mf_get_thresholds(struct ctx *c, const struct ynode *key, const struct ynode *map);
void mf_get_memory_batches(struct ctx *c, const struct ynode *key, const struct ynode *v);
void mf_get_parallel_comm(struct ctx *c, const struct ynode *key, const struct ynode *map);
/* Returns the 'run' value node of the 'parallel_comm' mapping whose key node is key, or NULL. */
const struct ynode *mf_pc_run_node(const struct ynode *root, const struct ynode *key);
/* Checks 'parallel_comm' against the rest of the manifest, once the runs and hardware are read. */
void mf_check_parallel_comm(struct ctx *c, const struct ynode *run_node);
/* *nodes (caller frees, *nnodes of them) gets every series' run id nodes, checked later. */
void mf_get_series(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const struct ynode ***nodes, size_t *nnodes);

/* comparisons.c */

void mf_get_comparisons(struct ctx *c, const struct ynode *key, const struct ynode *v);
/* Reports references of 'comparisons' to runs of this manifest that it does not have. */
void mf_check_comparison_runs(struct ctx *c);

#endif
