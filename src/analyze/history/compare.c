/*
 * compare.c: two runs side by side, per kernel and per group (compare.csv).
 *
 * The pairs are the manifest's `compare` ([a, b]: a is the reference);
 * without it, each run against a baseline: the first run (manifest order)
 * of the same model, or, for the first run of a model, the experiment's
 * first run. A run's time for a name is the summed duration of its GPU
 * activities of that name (kernels, memcpys and memsets alike) over all of
 * its ranks' trace files, divided by the number of ProfilerStep ranges of
 * all its ranks, so runs with different GPU and step counts compare as
 * "time per GPU and step" (divided by the number of ranks where the run has
 * no steps, with a note). Rounded to the nearest ns, halves up. A group's
 * time is the same over the activities of the group (the experiment's
 * classification). diff = b - a; ratio = b / a (empty when a is 0). Rows
 * per pair: the groups, then the names, each sorted by |diff| descending.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/pairs.h"
#include "analyze/lib/actsum.h"
#include "analyze/analysis.h"
#include "analyze/history/history.h"
#include "chart/chart.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

struct item {
	char *name, *group;
	int64_t ns; /* summed over the run's trace files */
};

struct run_items {
	char *run, *model;
	int64_t denom; /* steps of all ranks, else ranks */
	int steps;     /* 1: denom counts steps */
	size_t n;
	struct item *it; /* sorted by name */
};

/* Items ordered by name, then kind (as ORDER BY name, kind: bytes, then 'kernel' < 'memcpy' < 'memset'). */
struct keyed {
	struct item it;
	enum activity_kind kind;
};

static int cmp_keyed(const void *pa, const void *pb)
{
	const struct keyed *x = pa, *y = pb;
	int c = strcmp(x->it.name, y->it.name);
	return c ? c : (int)x->kind - (int)y->kind;
}

/*
 * Run run_id's items: its activities summed per (name, kind) over its
 * trace files (actsum.h: no GROUP BY sorting every row, 64 ranks of 100 MB:
 * 1.0 s), each named and grouped once, sorted by name. Returns 0, or -1
 * after diag.
 */
static int items_load(struct store *s, const char *exp, int64_t run_id, struct act_sums *a, struct store_stmt *traces,
		      struct store_stmt *name, struct run_items *r)
{
	store_bind_int64(traces, 1, run_id);
	if (act_sums_add_traces(a, s, traces, 0) < 0)
		return -1;
	struct keyed *k = xcalloc(a->n ? a->n : 1, sizeof(*k));
	size_t n = 0;
	int ret = 0;
	for (size_t i = 0; i < a->n && !ret; i++) {
		const char *grp = NULL;
		store_bind_int64(name, 1, act_key_name(a->keys[i]));
		int got = store_next(name); /* every name id is in names */
		if (got <= 0) {
			if (got == 0)
				store_fail(s, "compare: a kernel's name");
			ret = -1;
		} else if (act_sums_group(a, s, exp, a->keys[i], &grp) < 0) {
			ret = -1;
		} else {
			k[n].it.name = xstrdup((const char *)store_column_text(name, 0));
			k[n].it.group = xstrdup(grp ? grp : "other");
			k[n].it.ns = act_sums_get(a, a->keys[i])->total_ns;
			k[n++].kind = act_key_kind(a->keys[i]);
		}
		store_reset(name);
	}
	act_sums_clear(a);
	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_keyed);
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		/* A memcpy and a kernel of one name (never seen) would share a row: the first kind's group. */
		if (r->n && !strcmp(r->it[r->n - 1].name, k[i].it.name)) {
			r->it[r->n - 1].ns += k[i].it.ns;
			free(k[i].it.name);
			free(k[i].it.group);
			continue;
		}
		r->it = xgrow(r->it, &cap, r->n + 1, sizeof(*r->it));
		r->it[r->n++] = k[i].it;
	}
	free(k);
	return ret;
}

static int run_load(struct store *s, const char *exp, struct run_items **out, size_t *nout)
{
	struct store_stmt *st = NULL, *traces = NULL, *name = NULL;
	struct act_sums a;
	act_sums_init(&a);
	int ret = -1, said = 0;
	*out = NULL;
	*nout = 0;
	if (store_prepare(s, "compare: runs", "SELECT r.run, coalesce(r.model, ''), r.id,"
			       " (SELECT count(*) FROM steps s JOIN traces t ON t.id = s.trace_id WHERE t.run_id = r.id),"
			       " (SELECT count(DISTINCT rank) FROM traces t WHERE t.run_id = r.id)"
			       " FROM runs r WHERE r.experiment = ?1 ORDER BY r.position", &st) < 0 ||
	    store_prepare(s, "compare: runs",
			"SELECT id FROM traces WHERE run_id = ?1 ORDER BY id", &traces) < 0 ||
	    store_prepare(s, "compare: runs", "SELECT name FROM names WHERE id = ?1", &name) < 0) {
		said = 1;
		goto out;
	}
	store_bind_text(st, 1, exp);
	size_t cap = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		*out = xgrow(*out, &cap, *nout + 1, sizeof(**out));
		struct run_items *r = &(*out)[(*nout)++];
		memset(r, 0, sizeof(*r));
		r->run = xstrdup((const char *)store_column_text(st, 0));
		r->model = xstrdup((const char *)store_column_text(st, 1));
		int64_t steps = store_column_int64(st, 3), ranks = store_column_int64(st, 4);
		r->steps = steps > 0;
		r->denom = steps > 0 ? steps : ranks > 0 ? ranks : 1;
		if (items_load(s, exp, store_column_int64(st, 2), &a, traces, name, r) < 0) {
			said = 1;
			goto out;
		}
	}
	if (rc == 0)
		ret = 0;
	else
		said = 1; /* store_next said why */
out:
	if (ret < 0 && !said)
		store_fail(s, "compare: runs");
	act_sums_release(&a);
	store_finalize(st);
	store_finalize(traces);
	store_finalize(name);
	return ret;
}

static void run_items_free(struct run_items *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < r[i].n; j++) {
			free(r[i].it[j].name);
			free(r[i].it[j].group);
		}
		free(r[i].it);
		free(r[i].run);
		free(r[i].model);
	}
	free(r);
}

/* total / denom rounded to the nearest integer, halves up (total, denom >= 0). */
static int64_t per(int64_t total, int64_t denom)
{
	return (total / denom) + ((total % denom) * 2 >= denom);
}

struct row {
	const char *name, *group;
	int64_t a, b;
};

static int cmp_row(const void *pa, const void *pb)
{
	const struct row *x = pa, *y = pb;
	int64_t dx = x->b - x->a, dy = y->b - y->a;
	dx = dx < 0 ? -dx : dx;
	dy = dy < 0 ? -dy : dy;
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void emit(struct table *t, const char *ra, const char *rb, const char *level, struct row *rows, size_t n)
{
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_row);
	for (size_t i = 0; i < n; i++) {
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, ra);
		table_set_text(t, row, 1, rb);
		table_set_text(t, row, 2, level);
		table_set_text(t, row, 3, rows[i].name);
		table_set_text(t, row, 4, rows[i].group);
		table_set_ns(t, row, 5, rows[i].a);
		table_set_ns(t, row, 6, rows[i].b);
		table_set_ns(t, row, 7, rows[i].b - rows[i].a);
		if (rows[i].a > 0)
			table_set_real(t, row, 8, (double)rows[i].b / (double)rows[i].a);
	}
}

/* Appends the rows and the figure of one pair. */
static void compare_pair(struct analysis_result *out, struct table *t, const struct run_items *a,
			 const struct run_items *b, const struct classifier *cls, size_t index)
{
	struct row *rows = xcalloc(a->n + b->n + 1, sizeof(*rows));
	size_t n = 0, i = 0, j = 0;
	/* Merge the two name-sorted lists. */
	while (i < a->n || j < b->n) {
		int c = i == a->n ? 1 : j == b->n ? -1 : strcmp(a->it[i].name, b->it[j].name);
		struct row *r = &rows[n++];
		r->name = c <= 0 ? a->it[i].name : b->it[j].name;
		r->group = c <= 0 ? a->it[i].group : b->it[j].group;
		r->a = c <= 0 ? per(a->it[i++].ns, a->denom) : 0;
		r->b = c >= 0 ? per(b->it[j++].ns, b->denom) : 0;
	}
	/* Groups: in the classification's order, plus any other group met. */
	const char *const *gnames;
	size_t ng = classifier_groups(cls, &gnames), cap_g = 0, ngr = 0;
	struct row *groups = NULL;
	for (size_t g = 0; g < ng; g++) {
		groups = xgrow(groups, &cap_g, ngr + 1, sizeof(*groups));
		groups[ngr++] = (struct row){gnames[g], "", 0, 0};
	}
	for (size_t x = 0; x < n; x++) {
		size_t g = 0;
		while (g < ngr && strcmp(groups[g].name, rows[x].group))
			g++;
		if (g == ngr) {
			groups = xgrow(groups, &cap_g, ngr + 1, sizeof(*groups));
			groups[ngr++] = (struct row){rows[x].group, "", 0, 0};
		}
	}
	/* Group times from the raw sums, rounded once. */
	for (size_t g = 0; g < ngr; g++) {
		int64_t sa = 0, sb = 0;
		for (size_t x = 0; x < a->n; x++)
			if (!strcmp(a->it[x].group, groups[g].name))
				sa += a->it[x].ns;
		for (size_t x = 0; x < b->n; x++)
			if (!strcmp(b->it[x].group, groups[g].name))
				sb += b->it[x].ns;
		groups[g].a = per(sa, a->denom);
		groups[g].b = per(sb, b->denom);
		groups[g].group = groups[g].name;
	}
	struct buf name, cap;
	buf_init(&name);
	buf_init(&cap);
	buf_printf(&name, "compare_%zu", index + 1);
	buf_printf(&cap, "%s against %s", b->run, a->run);
	/* Runs without ProfilerStep ranges (nvprof files) are divided by their ranks only: say which. */
	const char *axis = a->steps && b->steps	  ? "time per GPU and step (ms)"
			   : !a->steps && !b->steps ? "time per GPU, whole profile (ms)"
						    : "time per GPU, per step or whole profile (ms)";
	struct chart *c = chart_new(CHART_GROUPED_BAR, name.data, cap.data, axis);
	chart_set_x_axis(c, "kernel group", CHART_SCALE_LINEAR);
	size_t sa = chart_add_series(c, a->run), sb = chart_add_series(c, b->run);
	for (size_t g = 0; g < ngr; g++) {
		if (!groups[g].a && !groups[g].b)
			continue;
		char *shown = chart_display_name(groups[g].name); /* as the keys of other figures: "memory mgmt" */
		size_t cat = chart_add_category(c, shown);
		free(shown);
		chart_set_category_key(c, cat, groups[g].name);
		chart_set(c, cat, sa, (double)groups[g].a / 1e6);
		chart_set(c, cat, sb, (double)groups[g].b / 1e6);
	}
	emit(t, a->run, b->run, "group", groups, ngr);
	emit(t, a->run, b->run, "kernel", rows, n);
	buf_reset(&cap);
	if (a->steps && b->steps)
		buf_adds(&cap, "GPU time per GPU and step by kernel group: ");
	else if (!a->steps && !b->steps)
		buf_adds(&cap, "GPU time per GPU by kernel group, summed over the whole profile (these traces "
			       "have no steps): ");
	else
		buf_printf(&cap, "GPU time per GPU by kernel group, per step for %s and summed over the whole "
			   "profile for %s (its traces have no steps): ", a->steps ? a->run : b->run,
			   a->steps ? b->run : a->run);
	buf_printf(&cap, "%s (first bar) against %s; the per-kernel differences, largest first, are in compare.csv.",
		   a->run, b->run);
	result_add_figure(out, c, cap.data);
	buf_release(&name);
	buf_release(&cap);
	free(groups);
	free(rows);
}

static int analysis_compare(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct run_items *r;
	size_t nr;
	if (run_load(ctx->store, ctx->experiment, &r, &nr) < 0)
		return -1;
	struct table *t = table_new("compare", "Two runs compared, per group and per kernel, sorted by the change",
				    TABLE_SCHEMA(COMPARE_COLUMNS));
	const char **names = xcalloc(nr + 1, sizeof(*names)), **models = xcalloc(nr + 1, sizeof(*models));
	for (size_t i = 0; i < nr; i++) {
		names[i] = r[i].run;
		models[i] = r[i].model;
	}
	size_t(*pairs)[2];
	size_t npairs = compare_pairs(ctx->manifest, names, models, nr, &pairs);
	free(names);
	free(models);
	for (size_t p = 0; p < npairs; p++)
		compare_pair(out, t, &r[pairs[p][0]], &r[pairs[p][1]], ctx->cls, p);
	for (size_t i = 0; i < nr; i++)
		if (!r[i].steps)
			result_add_note(out, "compare.csv: run %s has no ProfilerStep ranges, so its times are per rank "
					"over the whole trace, not per step", r[i].run);
	if (!npairs)
		result_add_note(out, "compare.csv: the experiment has one run, so there is nothing to compare");
	result_add_table(out, t);
	result_add_method(out, "compare.csv",
			  "Pairs of runs (a, b): the manifest's compare list, else each run against the first run of "
			  "the same model in manifest order, or, for the first run of a model, against the experiment's "
			  "first run. A run's time for a name is the summed duration of its GPU activities of that name "
			  "(kernels, memcpys, memsets) over all of its ranks' trace files divided by the number of "
			  "ProfilerStep ranges of all its ranks (time per GPU and step; divided by the number of ranks "
			  "when it has no steps), rounded to the nearest ns; a group's time is the same over the "
			  "activities of the group. diff_us = b - a, ratio = b / a (empty when a is 0). For each pair the "
			  "group rows come first, then the kernel rows, each sorted by |diff| from the largest.");
	free(pairs);
	run_items_free(r, nr);
	return 0;
}

const struct analysis_def analysis_def_compare = {
	.name = "compare",
	.run = analysis_compare,
	.needs = ANALYSIS_TABLES("store.activity_groups"),
	.makes = ANALYSIS_TABLES("compare"),
	.figures = ANALYSIS_NAMES("compare_*"),
};
