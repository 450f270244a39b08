/*
 * hstate.c: one build's state read back from a store's history tables
 * (store.h: hstate_load, hstate_find_run), for analyze/history/'s change
 * table and `perfstudy diff` (cli/diff.c); history.c beside it writes the
 * history.
 */
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* ---- one build's state ---- */

void hstate_release(struct hstate *st)
{
	for (size_t i = 0; i < st->nruns; i++) {
		struct hstate_run *r = &st->runs[i];
		for (size_t j = 0; j < r->ninputs; j++) {
			free(r->paths[j]);
			free(r->sha256[j]);
			free(r->formats[j]);
		}
		for (size_t j = 0; j < r->nnumbers; j++)
			free(r->metrics[j]);
		free(r->paths);
		free(r->sha256);
		free(r->sizes);
		free(r->ranks);
		free(r->formats);
		free(r->metrics);
		free(r->values);
		free(r->steps);
		free(r->log);
		for (size_t j = 0; j < r->nparts; j++) {
			free(r->part_kinds[j]);
			free(r->part_names[j]);
		}
		free(r->part_kinds);
		free(r->part_names);
		free(r->part_values);
		free(r->run);
	}
	free(st->runs);
	memset(st, 0, sizeof(*st));
}

/*
 * The runs are sorted by id (strcmp, after loading: a store's own ORDER BY
 * may follow a column's collation, and `diff` reads stores it did not
 * write), so a run is found by binary search: a linear search per run and
 * per row made diff quadratic in runs (20,000 runs: 21.7 s). Of equal ids
 * (a damaged store) the first.
 */
struct hstate_run *hstate_find_run(const struct hstate *st, const char *run)
{
	size_t lo = 0, hi = st->nruns;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(st->runs[mid].run, run) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->nruns && !strcmp(st->runs[lo].run, run) ? &st->runs[lo] : NULL;
}

static struct hstate_run *find_run(const struct hstate *st, const char *run)
{
	return hstate_find_run(st, run);
}

static int cmp_run(const void *pa, const void *pb)
{
	const struct hstate_run *a = pa, *b = pb;
	return strcmp(a->run, b->run);
}

size_t hstate_find_str(char *const *v, size_t n, const char *s)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid], s) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo], s) ? lo : n;
}

struct keyed {
	const char *key;
	size_t at;
};

/* By key, equal keys in their order (qsort need not be stable). */
static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *a = pa, *b = pb;
	int c = strcmp(a->key, b->key);
	return c ? c : a->at < b->at ? -1 : a->at > b->at;
}

/* The order that sorts keys[0..n) by strcmp, equal keys kept in order: a new array. */
static size_t *sort_order(char *const *keys, size_t n)
{
	struct keyed *k = xmalloc(n * sizeof(*k));
	for (size_t i = 0; i < n; i++)
		k[i] = (struct keyed){keys[i], i};
	qsort(k, n, sizeof(*k), cmp_keyed);
	size_t *o = xmalloc(n * sizeof(*o));
	for (size_t i = 0; i < n; i++)
		o[i] = k[i].at;
	free(k);
	return o;
}

/* Puts the n elements of size bytes at *v in order o. */
static void permute(void *v, size_t n, size_t size, const size_t *o)
{
	char *src = v, *dst = xmalloc(n * size);
	for (size_t i = 0; i < n; i++)
		memcpy(dst + i * size, src + o[i] * size, size);
	memcpy(src, dst, n * size);
	free(dst);
}

/*
 * A run's inputs by path and numbers by metric (strcmp, equal ones in
 * their order), for find_str: the change table looked each up by a linear
 * search, quadratic in a run's inputs or numbers.
 */
static void sort_run(struct hstate_run *r)
{
	if (r->ninputs > 1) {
		size_t *o = sort_order(r->paths, r->ninputs);
		permute(r->paths, r->ninputs, sizeof(*r->paths), o);
		permute(r->sha256, r->ninputs, sizeof(*r->sha256), o);
		permute(r->sizes, r->ninputs, sizeof(*r->sizes), o);
		permute(r->ranks, r->ninputs, sizeof(*r->ranks), o);
		permute(r->formats, r->ninputs, sizeof(*r->formats), o);
		free(o);
	}
	if (r->nnumbers > 1) {
		size_t *o = sort_order(r->metrics, r->nnumbers);
		permute(r->metrics, r->nnumbers, sizeof(*r->metrics), o);
		permute(r->values, r->nnumbers, sizeof(*r->values), o);
		free(o);
	}
}

static const char *col_text(struct store_stmt *q, int c)
{
	const unsigned char *t = store_column_text(q, c);
	return t ? (const char *)t : "";
}

/*
 * Runs a query of (run, ...) rows over one build; calls row() for each,
 * which returns -1 after diag to stop (a value no perfstudy writes: the
 * store was damaged or crafted, and `diff` reads stores it did not write).
 */
static int each_row(struct store *s, const char *what, const char *sql, const char *exp, int64_t build,
		    struct hstate *st, int (*row)(struct hstate_run *r, struct store_stmt *q, const char *where))
{
	struct store_stmt *q = store_query(s, what, sql, exp);
	if (!q)
		return -1;
	store_bind_int64(q, 2, build);
	int rc;
	while ((rc = store_next(q)) > 0) {
		struct hstate_run *r = find_run(st, col_text(q, 0));
		if (r && row(r, q, store_path(s)) < 0) {
			store_finalize(q);
			return -1;
		}
	}
	store_finalize(q);
	return rc;
}

/* An input: path, size, SHA-256, rank (NULL, or a store before it: HSTATE_NO_RANK) and format ('' unknown). */
static int add_input(struct hstate_run *r, struct store_stmt *q, const char *where)
{
	(void)where;
	r->paths = xrealloc(r->paths, (r->ninputs + 1) * sizeof(*r->paths));
	r->sha256 = xrealloc(r->sha256, (r->ninputs + 1) * sizeof(*r->sha256));
	r->sizes = xrealloc(r->sizes, (r->ninputs + 1) * sizeof(*r->sizes));
	r->ranks = xrealloc(r->ranks, (r->ninputs + 1) * sizeof(*r->ranks));
	r->formats = xrealloc(r->formats, (r->ninputs + 1) * sizeof(*r->formats));
	r->paths[r->ninputs] = xstrdup(col_text(q, 1));
	r->sizes[r->ninputs] = store_column_int64(q, 2);
	r->ranks[r->ninputs] = store_column_type(q, 4) == STORE_INTEGER ? store_column_int64(q, 4) : HSTATE_NO_RANK;
	r->formats[r->ninputs] = xstrdup(col_text(q, 5));
	r->sha256[r->ninputs++] = xstrdup(col_text(q, 3));
	return 0;
}

/* Whether s's table <prefix>inputs has the columns rank and format (a store written before them has not). */
static int inputs_ranked(struct store *s, const char *prefix)
{
	char *sql = xasprintf("SELECT rank, format FROM %sinputs LIMIT 0", prefix);
	struct store_stmt *q;
	int has = store_prepare_quiet(s, sql, &q) == 0;
	store_finalize(q);
	free(sql);
	return has;
}

/*
 * A metric's value: a number, or NULL (no value: left out). Text such as
 * 'NaNx' was read as 0 (store_column_double), a change that never was.
 */
static int add_number(struct hstate_run *r, struct store_stmt *q, const char *where)
{
	int type = store_column_type(q, 2);
	if (type == STORE_NULL)
		return 0;
	double v = store_column_double(q, 2);
	if ((type != STORE_INTEGER && type != STORE_FLOAT) || !isfinite(v)) {
		diag_error(where, "table 'history_numbers', run '%s', metric '%s': value '%.40s' is not a number",
			   r->run, col_text(q, 1), type == STORE_BLOB ? "(a blob)" : col_text(q, 2));
		return -1;
	}
	r->metrics = xrealloc(r->metrics, (r->nnumbers + 1) * sizeof(*r->metrics));
	r->values = xrealloc(r->values, (r->nnumbers + 1) * sizeof(*r->values));
	r->metrics[r->nnumbers] = xstrdup(col_text(q, 1));
	r->values[r->nnumbers++] = v;
	return 0;
}

/* A step time sample: source 'log' (an unprofiled iteration of a training log) or 'steps' (a profiled step). */
static int add_step(struct hstate_run *r, struct store_stmt *q, const char *where)
{
	if (store_column_type(q, 2) != STORE_INTEGER || store_column_int64(q, 2) < 0) {
		diag_error(where, "table 'history_steps', run '%s': dur_ns '%.40s' is not a whole number of nanoseconds "
				  "at least 0", r->run, store_column_type(q, 2) == STORE_BLOB ? "(a blob)" : col_text(q, 2));
		return -1;
	}
	if (!strcmp(col_text(q, 1), "log")) {
		r->log = xgrow(r->log, &r->cap_log, r->nlog + 1, sizeof(*r->log));
		r->log[r->nlog++] = store_column_int64(q, 2);
		return 0;
	}
	r->steps = xgrow(r->steps, &r->cap_steps, r->nsteps + 1, sizeof(*r->steps));
	r->steps[r->nsteps++] = store_column_int64(q, 2);
	return 0;
}

/* A part of the run's step (parts.c): kind, name, value; a value that is no number is refused. */
static int add_part(struct hstate_run *r, struct store_stmt *q, const char *where)
{
	int type = store_column_type(q, 3);
	double v = store_column_double(q, 3);
	if ((type != STORE_INTEGER && type != STORE_FLOAT) || !isfinite(v)) {
		diag_error(where, "table 'history_parts', run '%s', %s '%s': value '%.40s' is not a number", r->run,
			   col_text(q, 1), col_text(q, 2), type == STORE_BLOB ? "(a blob)" : col_text(q, 3));
		return -1;
	}
	/* past the kernel rows a build writes: summed into one row '(other kernels)' (a warning follows) */
	if (!strcmp(col_text(q, 1), "kernel") && ++r->nkernel_rows > HISTORY_MAX_KERNEL_ROWS) {
		if (r->other_kernels) {
			r->part_values[r->other_kernels - 1] += v;
			return 0;
		}
		r->other_kernels = r->nparts + 1;
	}
	/* grown by doubling: one row more each time copied the arrays per row (quadratic under ASan's realloc) */
	if (r->nparts == r->cap_parts) {
		r->cap_parts = r->cap_parts ? 2 * r->cap_parts : 16;
		r->part_kinds = xrealloc(r->part_kinds, r->cap_parts * sizeof(*r->part_kinds));
		r->part_names = xrealloc(r->part_names, r->cap_parts * sizeof(*r->part_names));
		r->part_values = xrealloc(r->part_values, r->cap_parts * sizeof(*r->part_values));
	}
	r->part_kinds[r->nparts] = xstrdup(col_text(q, 1));
	r->part_names[r->nparts] = xstrdup(r->other_kernels == r->nparts + 1 ? "(other kernels)" : col_text(q, 2));
	r->part_values[r->nparts++] = v;
	return 0;
}

int hstate_load(struct store *s, const char *prefix, const char *exp, int64_t build, struct hstate *st)
{
	memset(st, 0, sizeof(*st));
	st->build = build;
	struct buf sql;
	buf_init(&sql);
	struct store_stmt *q = NULL;
	int ret = -1;
	buf_printf(&sql, "SELECT built_at FROM %sbuilds WHERE experiment = ?1 AND build = ?2", prefix);
	q = store_query(s, "history: load a build", sql.data, exp);
	if (!q)
		goto out;
	store_bind_int64(q, 2, build);
	int rc = store_next(q);
	if (rc > 0)
		st->built_at = store_column_int64(q, 0);
	store_finalize(q);
	if (rc < 0)
		goto out;
	buf_reset(&sql);
	buf_printf(&sql, "SELECT run FROM %sruns WHERE experiment = ?1 AND build = ?2 ORDER BY run", prefix);
	q = store_query(s, "history: load a build's runs", sql.data, exp);
	if (!q)
		goto out;
	store_bind_int64(q, 2, build);
	size_t cap = 0;
	while ((rc = store_next(q)) > 0) {
		st->runs = xgrow(st->runs, &cap, st->nruns + 1, sizeof(*st->runs));
		memset(&st->runs[st->nruns], 0, sizeof(*st->runs));
		st->runs[st->nruns++].run = xstrdup(col_text(q, 0));
	}
	store_finalize(q);
	if (rc < 0)
		goto out;
	if (st->nruns > 1) /* every row is a bare id yet: equal ids are alike, whatever their order */
		qsort(st->runs, st->nruns, sizeof(*st->runs), cmp_run);
	buf_reset(&sql);
	buf_printf(&sql, "SELECT run, path, size, sha256, %s FROM %sinputs WHERE experiment = ?1 AND build = ?2"
		   " ORDER BY run, path", inputs_ranked(s, prefix) ? "rank, format" : "NULL, NULL", prefix);
	if (each_row(s, "history: load a build's inputs", sql.data, exp, build, st, add_input) < 0)
		goto out;
	buf_reset(&sql);
	buf_printf(&sql, "SELECT run, metric, value FROM %snumbers WHERE experiment = ?1 AND build = ?2"
		   " ORDER BY run, metric", prefix);
	if (each_row(s, "history: load a build's numbers", sql.data, exp, build, st, add_number) < 0)
		goto out;
	buf_reset(&sql);
	buf_printf(&sql, "SELECT run, source, dur_ns FROM %ssteps WHERE experiment = ?1 AND build = ?2"
		   " ORDER BY run, source, dur_ns", prefix);
	if (each_row(s, "history: load a build's steps", sql.data, exp, build, st, add_step) < 0)
		goto out;
	/* a store written before history_parts existed has none: no parts to explain with */
	if (strcmp(prefix, "history_") || store_has_table(s, "history_parts")) {
		buf_reset(&sql);
		buf_printf(&sql, "SELECT run, kind, name, value FROM %sparts WHERE experiment = ?1 AND build = ?2"
			   " ORDER BY run, kind, name", prefix);
		if (each_row(s, "history: load a build's parts", sql.data, exp, build, st, add_part) < 0)
			goto out;
		size_t over = 0, first = 0;
		for (size_t i = st->nruns; i-- > 0;)
			if (st->runs[i].other_kernels) {
				over++;
				first = i;
			}
		if (over == 1)
			diag_warning(store_path(s), "table '%sparts', experiment '%s', run '%s': more than %d kernel rows, "
				     "more than a build writes; the rest summed as one '(other kernels)'", prefix, exp,
				     st->runs[first].run, HISTORY_MAX_KERNEL_ROWS);
		else if (over)
			diag_warning(store_path(s), "table '%sparts', experiment '%s': %zu runs ('%s' the first) with more "
				     "than %d kernel rows, more than a build writes; the rest of each summed as one "
				     "'(other kernels)'", prefix, exp, over, st->runs[first].run, HISTORY_MAX_KERNEL_ROWS);
	}
	for (size_t i = 0; i < st->nruns; i++)
		sort_run(&st->runs[i]);
	buf_release(&sql);
	return 0;
out:
	buf_release(&sql);
	hstate_release(st);
	return ret;
}
