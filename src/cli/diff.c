/*
 * cli/diff.c: `perfstudy diff`'s comparison (diff.h): the
 * history tables of two output directories' stores, the latest build of
 * each experiment on either side, compared as the change table of a build
 * compares it with the one before: one statement per run on its step time
 * (verdict.h), a slower one a regression.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/diff.h"
#include "analyze/history/history.h"
#include "analyze/lib/stats.h"
#include "analyze/lib/verdict.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/diag.h"
#include "util/buf.h"
#include "util/xalloc.h"

/*
 * The tables diff reads. A store given to diff may come from anywhere (a
 * CI artifact): each must be a plain table, since a view, a virtual table
 * or a generated column runs the file's own SQL, which can be made never
 * to end (a recursive view hung diff), and the connection is bounded as
 * util/sqlguard.h says for profiler exports (limits, no views or triggers,
 * a budget of SQLite steps: 100 million plus 64 per byte of the file); a
 * real store's history takes a few steps per row.
 */
static const char *const history_tables[] = {"history_builds", "history_runs", "history_inputs", "history_numbers",
					      "history_steps", "history_thresholds", "history_parts", NULL};

/*
 * Opens DIR/perfstudy.db read-only with the limits above; NULL after diag
 * when it is missing, not a SQLite database, not a perfstudy store, or
 * has no history.
 */
static struct store *open_store(const char *dir)
{
	char *path = xasprintf("%s/perfstudy.db", dir);
	struct stat st;
	struct store *s = NULL;
	if (stat(path, &st) || !S_ISREG(st.st_mode)) {
		diag_error(dir, "no perfstudy.db here: not a perfstudy output directory");
		goto fail;
	}
	if (store_open_read(path, 0, &s) < 0 || store_guard(s, (uint64_t)st.st_size) < 0)
		goto fail;
	int rc = store_readable(s);
	if (rc > 0) {
		diag_error(path, "not a SQLite database (a perfstudy store is one: a build writes it as "
				 "DIR/perfstudy.db)");
		goto fail;
	}
	if (rc < 0) {
		diag_error(path, "damaged SQLite database: %s", store_errmsg(s));
		goto fail;
	}
	for (size_t i = 0; history_tables[i]; i++) {
		const char *kind = store_not_plain(s, history_tables[i]);
		if (kind) {
			diag_error(path, "table '%s': is %s, not a plain table; refused (a perfstudy store has only "
					 "plain tables, and a view runs the file's own SQL)", history_tables[i], kind);
			goto fail;
		}
	}
	if (!store_has_table(s, "history_builds")) {
		if (store_has_table(s, "gpu_activities"))
			diag_error(path, "no build history (table 'history_builds'): written by a perfstudy before "
					 "'diff' existed; build it again with this perfstudy");
		else
			diag_error(path, "a SQLite database but not a perfstudy store (no table 'history_builds' "
					 "or 'gpu_activities')");
		goto fail;
	}
	free(path);
	return s;
fail:
	store_close(s);
	free(path);
	return NULL;
}

/* The latest build of exp in s, 0 when it has none. */
static int64_t latest(struct store *s, const char *exp)
{
	struct store_stmt *q;
	int64_t b = 0;
	q = store_query(s, "diff: the latest build", "SELECT max(build) FROM history_builds WHERE experiment = ?1", exp);
	if (!q)
		return 0;
	if (store_step_rc(q) == STORE_ROW)
		b = store_column_int64(q, 0);
	store_finalize(q);
	return b;
}

static void limits(struct store *s, const char *exp, struct history_limits *lim)
{
	struct store_stmt *q;
	memset(lim, 0, sizeof(*lim));
	q = store_query(s, "diff: thresholds", "SELECT metric, value FROM history_thresholds WHERE experiment = ?1", exp);
	if (!q)
		return;
	while (store_step_rc(q) == STORE_ROW) {
		const char *m = (const char *)store_column_text(q, 0);
		if (m && !strcmp(m, "step_time_pct"))
			lim->step_time_pct = store_column_double(q, 1);
		else if (m && !strcmp(m, "mfu_pp"))
			lim->mfu_pp = store_column_double(q, 1);
	}
	store_finalize(q);
}

/* What history_diff gathers for the JSON files while it prints. */
struct diff_out {
	const struct history_diff_opts *o;
	struct buf json, bench;
	size_t nexp, nbench;
};

/* A table cell as JSON: null, a number or a string. */
static void json_cell(struct buf *b, const struct table *t, size_t r, size_t c)
{
	const struct cell *x = table_cell(t, r, c);
	if (x->null)
		buf_adds(b, "null");
	else if (t->cols[c].type == COL_REAL)
		history_json_num(b, x->v.f);
	else
		json_add_str(b, x->v.text);
}

/*
 * The step time of run r of b against a, one line and one JSON object:
 * "exp: run: step 166.6 -> 171.1 ms (+2.67 %, ..., p = 1.35e-08): slower by
 * 2.7 % (beyond noise, under the 5 % threshold)", then, when the change is
 * beyond the noise, where it went (history_explain.c).
 */
static void step_line(struct diff_out *d, const char *exp, const struct table *t, size_t r, const struct hstate *a,
		      const struct hstate *b, const struct history_limits *lim, int quiet, size_t *nruns)
{
	const char *run = table_cell(t, r, CHG_RUN)->v.text;
	int crossed = !table_cell(t, r, CHG_THRESHOLD_CROSSED)->null;
	const struct hstate_run *ra = hstate_find_run(a, run), *rb = hstate_find_run(b, run);
	struct judgement j;
	int use_log = 0, same = 0, judged = ra && rb && history_step_judge(ra, rb, lim, &j, &use_log, &same) == 0;
	struct explain e;
	int explained = judged && j.beyond && history_explain(ra, rb, &e) == 0;
	if (!quiet || crossed) {
		struct buf line;
		buf_init(&line);
		buf_printf(&line, "%s: %s: step %s -> %s ms (%+.2f %%, ", exp, run, table_cell(t, r, CHG_OLD)->v.text,
			   table_cell(t, r, CHG_NEW)->v.text, table_cell(t, r, CHG_DIFF_PCT)->v.f);
		for (const char *p = table_cell(t, r, CHG_ITEM)->v.text; *p; p++)
			buf_addc(&line, *p == ';' ? ',' : *p);
		if (!table_cell(t, r, CHG_P_VALUE)->null)
			buf_printf(&line, ", p = %.3g", table_cell(t, r, CHG_P_VALUE)->v.f);
		buf_printf(&line, "): %s", table_cell(t, r, CHG_VERDICT)->v.text);
		if (crossed)
			buf_printf(&line, ": REGRESSION (%s)", table_cell(t, r, CHG_THRESHOLD_CROSSED)->v.text);
		diag_line(stdout, "%s", line.data);
		buf_release(&line);
		if (judged && j.beyond && !explained)
			diag_line(stdout, "%s: %s: no parts of the step recorded in %s build to say where the time went "
				  "(no ProfilerStep ranges, or a store written by a perfstudy before them: build it "
				  "again)", exp, run, ra->nparts ? "the new" : "the old");
		else if (explained)
			history_explain_print(exp, run, &e);
	}
	if (d->o->json) {
		buf_adds(&d->json, (*nruns)++ ? ", " : "");
		buf_adds(&d->json, "{\"run\": ");
		json_add_str(&d->json, run);
		buf_adds(&d->json, ", \"old_ms\": ");
		history_json_num(&d->json, judged ? (double)j.a.median_ns / 1e6 : NAN);
		buf_adds(&d->json, ", \"new_ms\": ");
		history_json_num(&d->json, judged ? (double)j.b.median_ns / 1e6 : NAN);
		buf_adds(&d->json, ", \"change_pct\": ");
		json_cell(&d->json, t, r, 5);
		buf_adds(&d->json, ", \"samples\": ");
		json_cell(&d->json, t, r, 2);
		buf_adds(&d->json, ", \"p_value\": ");
		json_cell(&d->json, t, r, 6);
		buf_printf(&d->json, ", \"test\": \"%s\", \"noise\": \"%s\", \"threshold_pct\": ",
			   judged && j.testable ? "mann-whitney" : "95 % intervals", judged && j.beyond ? "beyond" : "within");
		history_json_num(&d->json, history_min_effect(lim) * 100);
		buf_printf(&d->json, ", \"over_threshold\": %s, \"regression\": %s, \"verdict\": ",
			   judged && fabs(j.change) >= history_min_effect(lim) ? "true" : "false", crossed ? "true" : "false");
		json_cell(&d->json, t, r, 7);
		buf_adds(&d->json, ", \"contributors\": ");
		if (explained)
			history_explain_json(&d->json, &e);
		else
			buf_adds(&d->json, "null");
		buf_adds(&d->json, "}");
	}
	if (explained)
		history_explain_release(&e);
}

/*
 * One line per row of the change table: "exp: run: change item old -> new
 * (...)"; the step time rows through step_line. The JSON gets every row.
 */
static void print_changes(struct diff_out *d, const char *exp, const struct table *t, const struct hstate *a,
			  const struct hstate *b, const struct history_limits *lim, int quiet)
{
	struct buf line;
	buf_init(&line);
	size_t nruns = 0;
	if (d->o->json)
		buf_adds(&d->json, ", \"step_times\": [");
	for (size_t r = 0; r < t->nrows; r++) {
		int crossed = !table_cell(t, r, CHG_THRESHOLD_CROSSED)->null;
		if (!strcmp(table_cell(t, r, CHG_CHANGE)->v.text, "step time")) {
			step_line(d, exp, t, r, a, b, lim, quiet, &nruns);
			continue;
		}
		if (quiet && !crossed)
			continue;
		buf_reset(&line);
		if (!strcmp(table_cell(t, r, CHG_CHANGE)->v.text, "inputs moved")) {
			/* "exp: run: inputs moved: OLD_DIR -> NEW_DIR (5 inputs, matched by rank and format; ...)" */
			diag_line(stdout, "%s: %s: inputs moved: %s -> %s (%s)", exp, table_cell(t, r, CHG_RUN)->v.text,
				  table_cell(t, r, CHG_OLD)->v.text, table_cell(t, r, CHG_NEW)->v.text, table_cell(t, r, CHG_ITEM)->v.text);
			continue;
		}
		int moved = !strcmp(table_cell(t, r, CHG_CHANGE)->v.text, "moved");
		buf_printf(&line, "%s: %s: %s", exp, table_cell(t, r, CHG_RUN)->v.text, moved ? "" : table_cell(t, r, CHG_CHANGE)->v.text);
		for (size_t c = CHG_ITEM; c <= CHG_NEW; c++) {
			const struct cell *x = table_cell(t, r, c);
			if (!x->null && x->v.text[0])
				buf_printf(&line, "%s%s", c == CHG_NEW && !table_cell(t, r, CHG_OLD)->null ? " -> " : moved && c == CHG_ITEM ? "" : " ",
					   x->v.text);
		}
		if (!table_cell(t, r, CHG_DIFF_PCT)->null || !table_cell(t, r, CHG_P_VALUE)->null) {
			buf_adds(&line, " (");
			if (!table_cell(t, r, CHG_DIFF_PCT)->null)
				buf_printf(&line, "%+.2f %%%s", table_cell(t, r, CHG_DIFF_PCT)->v.f, table_cell(t, r, CHG_P_VALUE)->null ? "" : ", ");
			if (!table_cell(t, r, CHG_P_VALUE)->null)
				buf_printf(&line, "p = %.3g", table_cell(t, r, CHG_P_VALUE)->v.f);
			buf_adds(&line, ")");
		}
		if (!table_cell(t, r, CHG_VERDICT)->null)
			buf_printf(&line, ": %s", table_cell(t, r, CHG_VERDICT)->v.text);
		if (crossed)
			buf_printf(&line, ": REGRESSION (%s)", table_cell(t, r, CHG_THRESHOLD_CROSSED)->v.text);
		diag_line(stdout, "%s", line.data);
	}
	if (d->o->json) {
		buf_adds(&d->json, "], \"changes\": [");
		static const char *const keys[] = {"change", "run", "item", "old", "new", "diff_pct", "p_value",
						   "verdict", "threshold_crossed"};
		for (size_t r = 0; r < t->nrows; r++) {
			buf_adds(&d->json, r ? ", {" : "{");
			for (size_t c = 0; c < 9; c++) {
				buf_printf(&d->json, "%s\"%s\": ", c ? ", " : "", keys[c]);
				json_cell(&d->json, t, r, c);
			}
			buf_adds(&d->json, "}");
		}
		buf_adds(&d->json, "]");
	}
	buf_release(&line);
}

/*
 * Runs of b whose step samples are those of a, which the change table
 * leaves out: "exp: run: step 0.101 ms, the same samples: same (within
 * noise)", so that every run compared gets a verdict.
 */
static void same_lines(const char *exp, const struct hstate *a, const struct hstate *b, const struct history_limits *lim)
{
	for (size_t i = 0; i < b->nruns; i++) {
		const struct hstate_run *ra = hstate_find_run(a, b->runs[i].run);
		struct judgement j;
		int use_log, same;
		if (ra && history_step_judge(ra, &b->runs[i], lim, &j, &use_log, &same) == 0 && same)
			diag_line(stdout, "%s: %s: step %.4g ms, the same %zu %s as before: same (within noise)", exp,
				  b->runs[i].run, (double)j.b.median_ns / 1e6, use_log ? b->runs[i].nlog : b->runs[i].nsteps,
				  use_log ? "unprofiled iterations of the training log" : "profiled steps");
	}
}

/*
 * github-action-benchmark's customSmallerIsBetter entries: per run of b
 * with step samples, its median step time in ms and, as range, the
 * larger distance from the median to an end of its 95 % interval.
 */
static void bench_entries(struct diff_out *d, const char *exp, const struct hstate *b)
{
	for (size_t i = 0; i < b->nruns; i++) {
		const struct hstate_run *r = &b->runs[i];
		int use_log = r->nlog > 0;
		size_t n = use_log ? r->nlog : r->nsteps;
		if (!n)
			continue;
		int64_t *v = xmalloc(n * sizeof(*v));
		memcpy(v, use_log ? r->log : r->steps, n * sizeof(*v));
		struct step_dist sd;
		stats_dist(v, n, &sd);
		free(v);
		char *name = xasprintf("%s/%s step time", exp, r->run);
		buf_adds(&d->bench, d->nbench++ ? ",\n  {\"name\": " : "\n  {\"name\": ");
		json_add_str(&d->bench, name);
		free(name);
		buf_adds(&d->bench, ", \"unit\": \"ms\", \"value\": ");
		history_json_num(&d->bench, (double)sd.median_ns / 1e6);
		int64_t half = sd.ci_hi_ns - sd.median_ns > sd.median_ns - sd.ci_lo_ns ? sd.ci_hi_ns - sd.median_ns
										       : sd.median_ns - sd.ci_lo_ns;
		char *range = xasprintf("± %.4g", (double)half / 1e6);
		buf_adds(&d->bench, ", \"range\": ");
		json_add_str(&d->bench, range);
		free(range);
		char *extra = xasprintf("median of %zu %s; range: to the far end of its 95 %% interval", n,
					use_log ? "unprofiled iterations of the training log" : "profiled steps (slowest rank)");
		buf_adds(&d->bench, ", \"extra\": ");
		json_add_str(&d->bench, extra);
		free(extra);
		buf_adds(&d->bench, "}");
	}
}

/* Whether build `build` of exp in s has run `run`. */
static int has_run(struct store *s, const char *exp, int64_t build, const char *run)
{
	struct store_stmt *q;
	int has = 0;
	q = store_query(s, "diff: --pair", "SELECT 1 FROM history_runs WHERE experiment = ?1 AND build = ?2 AND run = ?3", exp);
	if (!q)
		return 0;
	store_bind_int64(q, 2, build);
	store_bind_text(q, 3, run);
	has = store_step_rc(q) == STORE_ROW;
	store_finalize(q);
	return has;
}

/*
 * Each --pair fits an experiment: its latest build in OLD_DIR has the old
 * run and in NEW_DIR the new one. Returns 0, or -1 after saying which
 * pair fits none.
 */
static int pairs_fit(struct store *odb, struct store *ndb, const char *old_dir, const char *new_dir,
		     const struct history_diff_opts *o)
{
	for (size_t p = 0; p < o->npairs; p++) {
		struct store_stmt *q;
		int fits = 0;
		if (store_prepare(ndb, "diff: list experiments",
				"SELECT DISTINCT experiment FROM history_builds ORDER BY experiment", &q) < 0)
			return -1;
		while (!fits && store_step_rc(q) == STORE_ROW) {
			const char *exp = (const char *)store_column_text(q, 0);
			int64_t ob = exp ? latest(odb, exp) : 0;
			fits = ob && has_run(ndb, exp, latest(ndb, exp), o->pair_new[p]) &&
			       has_run(odb, exp, ob, o->pair_old[p]);
		}
		store_finalize(q);
		if (!fits) {
			diag_line(stderr, "perfstudy diff: error: --pair '%s=%s': no experiment has run '%s' in the latest "
				  "build of %s/perfstudy.db and run '%s' in that of %s/perfstudy.db", o->pair_old[p],
				  o->pair_new[p], o->pair_old[p], old_dir, o->pair_new[p], new_dir);
			return -1;
		}
	}
	return 0;
}

static int cmp_hrun(const void *pa, const void *pb)
{
	const struct hstate_run *a = pa, *b = pb;
	return strcmp(a->run, b->run);
}

/*
 * Renames each run of the old build a that a --pair names, and that the
 * new build b has the pair's new run of, to the new run's name, so that
 * the change table compares the two as one run; prints (unless quiet) and
 * adds to the JSON which were. Returns 0, or -1 after diag when a renamed
 * run meets one of a's own of that name.
 */
static int apply_pairs(struct diff_out *d, const char *old_dir, const char *exp, struct hstate *a,
		       const struct hstate *b, int quiet)
{
	const struct history_diff_opts *o = d->o;
	size_t n = 0;
	if (d->o->json)
		buf_adds(&d->json, ", \"pairs\": [");
	for (size_t p = 0; p < o->npairs; p++) {
		struct hstate_run *r = hstate_find_run(a, o->pair_old[p]);
		if (!r || !hstate_find_run(b, o->pair_new[p]) || !strcmp(o->pair_old[p], o->pair_new[p]))
			continue;
		if (!quiet)
			diag_line(stdout, "%s: %s: compared with run %s of %s (--pair %s=%s)", exp, o->pair_new[p],
				  o->pair_old[p], old_dir, o->pair_old[p], o->pair_new[p]);
		if (d->o->json) {
			buf_adds(&d->json, n ? ", {\"old_run\": " : "{\"old_run\": ");
			json_add_str(&d->json, o->pair_old[p]);
			buf_adds(&d->json, ", \"new_run\": ");
			json_add_str(&d->json, o->pair_new[p]);
			buf_adds(&d->json, "}");
		}
		n++;
	}
	if (d->o->json)
		buf_adds(&d->json, "]");
	if (!n)
		return 0;
	/* all at once, by the runs' sorted order: a pair's new name may be another pair's old one */
	char **to = xcalloc(a->nruns + 1, sizeof(*to));
	for (size_t p = 0; p < o->npairs; p++) {
		struct hstate_run *r = hstate_find_run(a, o->pair_old[p]);
		if (r && hstate_find_run(b, o->pair_new[p]))
			to[r - a->runs] = o->pair_new[p];
	}
	for (size_t i = 0; i < a->nruns; i++)
		if (to[i]) {
			free(a->runs[i].run);
			a->runs[i].run = xstrdup(to[i]);
		}
	free(to);
	qsort(a->runs, a->nruns, sizeof(*a->runs), cmp_hrun);
	for (size_t i = 1; i < a->nruns; i++)
		if (!strcmp(a->runs[i - 1].run, a->runs[i].run)) {
			diag_line(stderr, "perfstudy diff: error: --pair: %s/perfstudy.db, experiment '%s': two runs "
				  "would be compared as run '%s' (one of that name and one paired with it); pair "
				  "that one too, or leave the pair out", old_dir, exp, a->runs[i].run);
			return -1;
		}
	return 0;
}

/*
 * Runs removed and runs added in one experiment: perhaps one run under two
 * names (two builds from folders of other names): say how to compare them.
 */
static void pair_hint(const char *exp, const struct table *t)
{
	size_t added = 0, removed = 0;
	const char *na = NULL, *nr = NULL;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *c = table_cell(t, r, CHG_CHANGE)->v.text;
		if (!strcmp(c, "run added")) {
			added++;
			na = table_cell(t, r, CHG_RUN)->v.text;
		} else if (!strcmp(c, "run removed")) {
			removed++;
			nr = table_cell(t, r, CHG_RUN)->v.text;
		}
	}
	if (added == 1 && removed == 1)
		diag_line(stdout, "%s: run %s removed and run %s added: if they are one run under two names, compare "
			  "them with --pair %s=%s", exp, nr, na, nr, na);
	else if (added && removed)
		diag_line(stdout, "%s: %zu runs removed and %zu added: to compare a removed run with an added one, give "
			  "--pair OLD=NEW (as often as needed)", exp, removed, added);
}

int history_diff(const char *old_dir, const char *new_dir, const struct history_diff_opts *o, size_t *crossed)
{
	struct store *odb = open_store(old_dir), *ndb = odb ? open_store(new_dir) : NULL;
	if (!odb || !ndb) {
		store_close(odb);
		return -1;
	}
	if (pairs_fit(odb, ndb, old_dir, new_dir, o) < 0) {
		store_close(odb);
		store_close(ndb);
		return -2;
	}
	int quiet = o->quiet;
	struct diff_out d = {o, {0}, {0}, 0, 0};
	buf_init(&d.json);
	buf_init(&d.bench);
	buf_adds(&d.json, "{\"old\": ");
	json_add_str(&d.json, old_dir);
	buf_adds(&d.json, ", \"new\": ");
	json_add_str(&d.json, new_dir);
	buf_adds(&d.json, ", \"experiments\": [");
	buf_adds(&d.bench, "[");
	size_t nchanges = 0;
	int ret = 0;
	*crossed = 0;
	/* Every experiment either side records, by id. */
	struct store_stmt *q;
	if (store_prepare(ndb, "diff: list experiments",
			"SELECT DISTINCT experiment FROM history_builds ORDER BY experiment", &q) < 0)
		ret = -1;
	while (q && store_step_rc(q) == STORE_ROW) {
		const char *exp = (const char *)store_column_text(q, 0);
		struct hstate a = {0}, b;
		int64_t ob = latest(odb, exp);
		if ((ob && hstate_load(odb, "history_", exp, ob, &a) < 0) ||
		    hstate_load(ndb, "history_", exp, latest(ndb, exp), &b) < 0) {
			hstate_release(&a);
			ret = -1;
			break;
		}
		if (!ob && !quiet)
			diag_line(stdout, "%s: experiment added", exp);
		buf_adds(&d.json, d.nexp++ ? ", {\"experiment\": " : "{\"experiment\": ");
		json_add_str(&d.json, exp);
		if (apply_pairs(&d, old_dir, exp, &a, &b, quiet) < 0) {
			hstate_release(&a);
			hstate_release(&b);
			ret = -2;
			break;
		}
		struct history_limits lim;
		limits(ndb, exp, &lim);
		size_t n = 0;
		struct table *t = history_changes(&a, &b, &lim, &n);
		*crossed += n;
		nchanges += t->nrows;
		buf_printf(&d.json, ", \"status\": \"%s\", \"regressions\": %zu", ob ? "compared" : "added", n);
		print_changes(&d, exp, t, &a, &b, &lim, quiet);
		buf_adds(&d.json, "}");
		if (!quiet) {
			pair_hint(exp, t);
			same_lines(exp, &a, &b, &lim);
		}
		bench_entries(&d, exp, &b);
		table_free(t);
		hstate_release(&a);
		hstate_release(&b);
	}
	store_finalize(q);
	if (ret == 0 && store_prepare(odb, "diff: list experiments",
				      "SELECT DISTINCT experiment FROM history_builds ORDER BY experiment", &q) == 0) {
		while (store_step_rc(q) == STORE_ROW)
			if (!latest(ndb, (const char *)store_column_text(q, 0))) {
				if (!quiet)
					diag_line(stdout, "%s: experiment removed", (const char *)store_column_text(q, 0));
				buf_adds(&d.json, d.nexp++ ? ", {\"experiment\": " : "{\"experiment\": ");
				json_add_str(&d.json, (const char *)store_column_text(q, 0));
				buf_adds(&d.json, ", \"pairs\": [], \"status\": \"removed\", \"regressions\": 0, \"step_times\": [], \"changes\": []}");
				nchanges++;
			}
		store_finalize(q);
	}
	if (ret == 0 && !quiet)
		printf("perfstudy diff: %zu change%s, %zu regression%s\n", nchanges, nchanges == 1 ? "" : "s",
		       *crossed, *crossed == 1 ? "" : "s");
	buf_printf(&d.json, "], \"changes\": %zu, \"regressions\": %zu}\n", nchanges, *crossed);
	buf_adds(&d.bench, "\n]\n");
	if (ret == 0 && o->json && fs_write_file_as(o->json, d.json.data, d.json.len, "the JSON of the diff") < 0)
		ret = -1;
	if (ret == 0 && o->benchmark_json &&
	    fs_write_file_as(o->benchmark_json, d.bench.data, d.bench.len, "the benchmark JSON of the diff") < 0)
		ret = -1;
	buf_release(&d.json);
	buf_release(&d.bench);
	store_close(odb);
	store_close(ndb);
	return ret;
}
