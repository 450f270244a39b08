/*
 * report.c: the static site of report.h.
 *
 * This file only fills template dictionaries with plain text and writes
 * files; the markup lives in templates/ and the look in assets/, both
 * embedded in the binary, and ctemplate escapes every value (see tmpl.h).
 * Every file is written to a fresh "<path>.tmp.<pid>.<hex>" (fs_create_tmp)
 * and renamed into place, so a reader
 * never sees half a page. Nothing here depends on the clock or on the
 * environment: the same experiment gives the same bytes.
 */
#include "report/report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "analyze/analysis.h"
#include "analyze/time/time_tables.h"
#include "analyze/history/history.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"
#include "report/embedded.h"
#include "report/report_top.h"
#include "report/tmpl.h"
#include "report/trace_export.h"

#ifndef PERFSTUDY_VERSION
#define PERFSTUDY_VERSION "unknown"
#endif

static const struct embedded_file *embedded_find(const char *path)
{
	for (unsigned long i = 0; i < embedded_count; i++)
		if (!strcmp(embedded_files[i].path, path))
			return &embedded_files[i];
	return NULL;
}

/*
 * Folder and file names come from the experiment id and table names; they
 * are meant to be [a-z0-9_-], and anything that could climb out of the site
 * (a slash, a leading dot) is refused rather than written somewhere else.
 */
static int check_stem(const char *what, const char *s)
{
	int ok = s && s[0] != '\0' && s[0] != '.';
	for (const char *p = s; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		     (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.';
	if (!ok)
		diag_error(NULL, "%s '%s' is not a valid file name", what, s ? s : "");
	return ok ? 0 : -1;
}

/* Creates path and its missing parents, like mkdir -p. */
static int mkdir_p(const char *path)
{
	if (path[0] == '\0')
		return 0;
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		struct stat st;
		if (mkdir(p, 0777) && (errno != EEXIST || stat(p, &st) || !S_ISDIR(st.st_mode))) {
			if (errno == EEXIST)
				errno = ENOTDIR;
			diag_syserror(p, "cannot create directory: %s", strerror(errno));
			rc = -1;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

typedef int (*fill_fn)(FILE *f, const void *arg);

/*
 * Writes path through a fresh temporary file (fs_create_tmp): fill writes the bytes, then the file is
 * closed and renamed over path. Returns 0, or -1 after diag_syserror with
 * the temporary file removed.
 */
static int write_atomic(const char *path, fill_fn fill, const void *arg)
{
	char *tmp = NULL;
	int rc = -1;
	FILE *f = fs_create_tmp(path, &tmp);
	if (!f)
		goto out;
	errno = 0;
	int err = fill(f, arg) ? (errno ? errno : EIO) : 0;
	rc = fs_commit_tmp(f, tmp, path, err);
out:
	free(tmp);
	return rc;
}

struct bytes {
	const char *data;
	size_t len;
};

static int fill_bytes(FILE *f, const void *arg)
{
	const struct bytes *b = arg;
	return fwrite(b->data, 1, b->len, f) == b->len ? 0 : -1;
}

static int fill_csv(FILE *f, const void *arg)
{
	return csv_write_table(f, arg);
}

static int write_bytes(const char *path, const char *data, size_t len)
{
	struct bytes b = { data, len };
	return write_atomic(path, fill_bytes, &b);
}

static int write_csv(const char *dir, const struct table *t)
{
	if (check_stem("table name", t->name))
		return -1;
	char *path = xasprintf("%s/%s.csv", dir, t->name);
	int rc = write_atomic(path, fill_csv, t);
	free(path);
	return rc;
}

/* Expands templates/<name> with d and writes it to path. */
static int write_page(const char *path, const char *name, const struct tmpl_dict *d)
{
	char *tpath = xasprintf("templates/%s", name);
	const struct embedded_file *tpl = embedded_find(tpath);
	struct buf html;
	buf_init(&html);
	int rc = -1;
	if (!tpl) {
		diag_syserror(tpath, "internal error: template is not embedded");
		goto out;
	}
	if (tmpl_expand(tpath, tpl->data, d, &html))
		goto out;
	rc = write_bytes(path, html.data, html.len);
out:
	buf_release(&html);
	free(tpath);
	return rc;
}

/*
 * Shows section NAME with {{TEXT}} = value when value is non-empty, and
 * NAME_NONE otherwise, so the template words the missing case.
 */
static void set_optional(struct tmpl_dict *d, const char *name, const char *value)
{
	if (value && value[0]) {
		tmpl_set(tmpl_add_section(d, name), "TEXT", value);
	} else {
		char *none = xasprintf("%s_NONE", name);
		tmpl_show_section(d, none);
		free(none);
	}
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n > m && !memcmp(s + n - m, suffix, m);
}

/*
 * A step time is several statistics on one page (issue #54: scaling.csv's
 * 81.2 ms beside Key numbers' 83.6 ms for one run): the median of every
 * rank's profiled steps pooled, the median over steps of each step's
 * slowest rank, means, the training log's unprofiled iterations. Each
 * column that holds one says under its header which, and from what.
 */
static const struct {
	const char *table, *col, *def;
} step_defs[] = {
	{"scaling", "step_us", "trace, profiled: median of every rank's steps pooled (step samples)"},
	{"scaling", "log_step_us", "training log, unprofiled iterations: median"},
	{"step_stats", "median_us", "trace, profiled: median over steps (steps) of each step's slowest rank"},
	{"step_stats", "mean_us", "trace, profiled: mean over steps of each step's slowest rank"},
	{"profiler_overhead", "step_median_us", "trace, profiled: median over steps of each step's slowest rank"},
	{"profiler_overhead", "log_profiled_median_us", "training log, profiled iterations: median"},
	{"profiler_overhead", "unprofiled_median_us", "training log, unprofiled iterations: median"},
	{"runs", "mean_step_us", "trace, profiled: mean of every rank's steps"},
	{"strategy_scaling", "step_us", "trace, profiled: mean over steps of the ranks' mean"},
	{"pipeline_schedules", "step_us", "median; its source (step source) and samples (step samples) beside it"},
	{"rank_spread", "step_median_us", "trace, profiled: median over steps of this rank's"},
	{"step_diff", "step_us", "trace, profiled: mean over ranks of their mean per step"},
	{"step_diff", "baseline_step_us", "trace, profiled: mean over ranks of their mean per step"},
	{"utilization", "step_us", "median; its source (step source) beside it"},
};

/*
 * The header a reader sees: the CSV column name with its unit suffix moved
 * into the unit ("total_us" -> "total", "µs") and underscores as spaces,
 * and for a step time its statistic (step_defs). The CSV name stays in the
 * cell's title.
 */
static void set_column(struct tmpl_dict *col, const char *table, const struct table_col *tc)
{
	for (size_t i = 0; i < sizeof(step_defs) / sizeof(step_defs[0]); i++)
		if (!strcmp(step_defs[i].table, table) && !strcmp(step_defs[i].col, tc->name))
			tmpl_set(tmpl_add_section(col, "DEF"), "TEXT", step_defs[i].def);
	static const char *const class_of[] = {
		[COL_TEXT] = "text",
		[COL_INT] = "num int",
		[COL_US] = "num us",
		[COL_FRAC] = "num frac",
		[COL_REAL] = "num real",
	};
	const char *unit = NULL;
	size_t len = strlen(tc->name);
	if (tc->type == COL_US) {
		unit = "µs";
		if (has_suffix(tc->name, "_us"))
			len -= 3;
	} else if (tc->type == COL_FRAC) {
		unit = "0–1";
	} else if (has_suffix(tc->name, "_bytes")) {
		unit = "bytes";
		len -= 6;
	}
	char *label = xstrndup(tc->name, len);
	for (char *p = label; *p; p++)
		if (*p == '_')
			*p = ' ';
	tmpl_set(col, "COL_LABEL", label);
	tmpl_set(col, "COL_CSV", tc->name);
	tmpl_set(col, "COL_CLASS", class_of[tc->type]);
	if (unit)
		tmpl_set(tmpl_add_section(col, "UNIT"), "TEXT", unit);
	free(label);
}

/*
 * A page shows at most this many rows of a table, the first in the CSV's
 * order; the CSV beside it has them all (h200's collective_waits.csv has
 * 7,308 rows, which made its page 7 MB; at 100 rows a table the h200 page
 * reached the 1 MB t_example_figs allows once the replay's tables came).
 */
#define PAGE_ROWS 50

/*
 * runs.csv's layout on the page: its columns from data_parallel on (seven,
 * sources included) made one column, "dp 2, tp 1, pp 1" and ", GPipe,
 * m 4" where known, so that the runs table still fits the window; the CSV
 * keeps them apart. Into v; empty when the run has none.
 */
static void runs_layout_cell(const struct table *t, size_t r, size_t first, struct buf *v)
{
	static const int cols[] = {RUNS_DATA_PARALLEL, RUNS_TENSOR_PARALLEL, RUNS_PIPELINE_PARALLEL, RUNS_SCHEDULE,
				   RUNS_MICROBATCHES};
	static const char *const words[] = {"dp ", "tp ", "pp ", "", "m "};
	for (size_t k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
		int c = cols[k];
		if ((size_t)c < first || table_cell(t, r, (size_t)c)->null)
			continue;
		buf_adds(v, v->len ? ", " : "");
		buf_adds(v, words[k]);
		table_format_cell(t, r, (size_t)c, v);
	}
}

/* Fills one table's section: name, title, headers and the first max_rows rows' cells as the CSV has them. */
static void set_table(struct tmpl_dict *sec, const struct table *t, size_t max_rows)
{
	/* runs.csv as basic.c makes it (its contract's columns), not another table of that name */
	int lay = !strcmp(t->name, "runs") && t->ncols == RUNS_NCOLS ? RUNS_DATA_PARALLEL : -1;
	size_t ncols = lay >= 0 ? (size_t)lay : t->ncols;
	tmpl_set(sec, "TABLE_NAME", t->name);
	tmpl_set(sec, "TABLE_TITLE", t->title);
	tmpl_set_int(sec, "TABLE_ROWS", (long long)t->nrows);
	if (t->nrows != 1)
		tmpl_show_section(sec, "PLURAL");
	size_t shown = t->nrows < max_rows ? t->nrows : max_rows;
	if (shown < t->nrows)
		tmpl_set_int(tmpl_add_section(sec, "SHOWN"), "SHOWN_ROWS", (long long)shown);
	for (size_t c = 0; c < ncols; c++)
		set_column(tmpl_add_section(sec, "COL"), t->name, &t->cols[c]);
	if (lay >= 0) {
		struct table_col lc = {0};
		static char lname[] = "layout";
		lc.name = lname;
		lc.type = COL_TEXT;
		set_column(tmpl_add_section(sec, "COL"), t->name, &lc);
	}
	struct buf v;
	buf_init(&v);
	for (size_t r = 0; r < shown; r++) {
		struct tmpl_dict *row = tmpl_add_section(sec, "ROW");
		for (size_t c = 0; c < ncols; c++) {
			struct tmpl_dict *cell = tmpl_add_section(row, "CELL");
			buf_reset(&v);
			table_format_cell(t, r, c, &v);
			tmpl_set(cell, "CELL_VALUE", v.data);
			tmpl_set(cell, "CELL_CLASS", t->cols[c].type == COL_TEXT ? "text" : "num");
		}
		if (lay >= 0) {
			struct tmpl_dict *cell = tmpl_add_section(row, "CELL");
			buf_reset(&v);
			runs_layout_cell(t, r, (size_t)lay, &v);
			tmpl_set(cell, "CELL_VALUE", v.data);
			tmpl_set(cell, "CELL_CLASS", "text");
		}
	}
	buf_release(&v);
}

/* The change table (history.c's changes.csv) of e, or NULL on a first build. */
static const struct table *changes_of(const struct report_experiment *e)
{
	return report_table(e->tables, e->ntables, "changes");
}

/*
 * What changed since the build before, stated at the top of a page: one
 * sentence per run whose step time was judged (changes.csv's 'step time'
 * rows, regressions first), then how many other rows the table has. Adds
 * section `name` with CHANGE items (TEXT, CLASS) to d; nothing on a first
 * build or when nothing changed. Returns the number of regressions.
 */
static size_t set_changes(struct tmpl_dict *d, const char *name, const struct table *t)
{
	if (!t || !t->nrows || t->ncols != CHG_NCOLS)
		return 0;
	struct tmpl_dict *sec = tmpl_add_section(d, name);
	struct buf v;
	buf_init(&v);
	size_t others = 0, regressions = 0;
	/* pass 0: the regressions; pass 1: the other step-time verdicts; the rest only counted */
	for (int pass = 0; pass < 2; pass++)
		for (size_t r = 0; r < t->nrows; r++) {
			const char *change = table_cell(t, r, CHG_CHANGE)->v.text;
			int crossed = !table_cell(t, r, CHG_THRESHOLD_CROSSED)->null, step = !strcmp(change, "step time");
			if (pass == 0 ? !crossed : crossed || !step) {
				others += pass == 1 && !crossed && !step;
				continue;
			}
			buf_reset(&v);
			if (step)
				buf_printf(&v, "%s: step time %s -> %s ms (%+.2f %%), %s", table_cell(t, r, CHG_RUN)->v.text,
					   table_cell(t, r, CHG_OLD)->v.text, table_cell(t, r, CHG_NEW)->v.text, table_cell(t, r, CHG_DIFF_PCT)->v.f,
					   table_cell(t, r, CHG_VERDICT)->v.text);
			else
				buf_printf(&v, "%s: %s %s -> %s, %s", table_cell(t, r, CHG_RUN)->v.text, table_cell(t, r, CHG_ITEM)->v.text,
					   table_cell(t, r, CHG_OLD)->v.text, table_cell(t, r, CHG_NEW)->v.text, table_cell(t, r, CHG_VERDICT)->v.text);
			if (crossed) {
				buf_printf(&v, ": a regression (%s)", table_cell(t, r, CHG_THRESHOLD_CROSSED)->v.text);
				regressions++;
			}
			struct tmpl_dict *c = tmpl_add_section(sec, "CHANGE");
			tmpl_set(c, "TEXT", v.data);
			tmpl_set(c, "CLASS", crossed ? "regression" : "change");
		}
	if (others) {
		buf_reset(&v);
		buf_printf(&v, "%zu other change%s (runs or inputs added, removed or re-read; numbers that moved)", others,
			   others == 1 ? "" : "s");
		struct tmpl_dict *c = tmpl_add_section(sec, "CHANGE");
		tmpl_set(c, "TEXT", v.data);
		tmpl_set(c, "CLASS", "other");
	}
	buf_release(&v);
	return regressions;
}

/*
 * A place in the page's notes as the analyses made them: note g itself
 * (m 0), or its m-th near-copy folded into it (analysis.h: struct
 * note_ranks), the note with its rank replaced.
 */
struct note_at {
	size_t g, m;
};

static void note_next(const struct report_experiment *e, struct note_at *a)
{
	if (e->notes_more && a->m < e->notes_more[a->g].n) {
		a->m++;
	} else {
		a->g++;
		a->m = 0;
	}
}

/* The text of the note at a: the note itself, or written into b. */
static const char *note_text(const struct report_experiment *e, const struct note_at *a, struct buf *b)
{
	if (!a->m)
		return e->notes[a->g];
	notes_with_rank(e->notes[a->g], e->notes_more[a->g].v[a->m - 1], b);
	return b->data;
}

/* The rank the note at a names (notes_rank_at). */
static long note_rank(const struct report_experiment *e, const struct note_at *a)
{
	if (a->m)
		return e->notes_more[a->g].v[a->m - 1];
	size_t at, len;
	notes_rank_at(e->notes[a->g], &at, &len);
	return strtol(e->notes[a->g] + at, NULL, 10);
}

/*
 * The page's notes, where each run of 3 or more consecutive notes that say
 * the same of different ranks is one note: the first, and the others'
 * ranks ("likewise 255 more ranks: 1-255"; a run of 1000 ranks
 * listed 1000 near-copies).
 */
static void set_notes(struct tmpl_dict *d, const struct report_experiment *e)
{
	struct buf b, first, other;
	buf_init(&b);
	buf_init(&first);
	buf_init(&other);
	for (struct note_at i = {0, 0}; i.g < e->nnotes;) {
		const char *text = note_text(e, &i, &first);
		struct note_at j = i;
		size_t n = 1;
		for (note_next(e, &j); j.g < e->nnotes && notes_same_but_rank(text, note_text(e, &j, &other));
		     note_next(e, &j))
			n++;
		if (n < 3) {
			j = i;
			note_next(e, &j);
		}
		buf_reset(&b);
		buf_adds(&b, text);
		if (n >= 3) {
			buf_printf(&b, " (likewise %zu more ranks: ", n - 1);
			/* their ranks, consecutive ones as a range */
			struct note_at k = i;
			note_next(e, &k);
			for (int any = 0; k.g != j.g || k.m != j.m; any = 1) {
				long from = note_rank(e, &k), last = from;
				for (note_next(e, &k); (k.g != j.g || k.m != j.m) && note_rank(e, &k) == last + 1;
				     note_next(e, &k))
					last++;
				buf_printf(&b, any ? ", %ld" : "%ld", from);
				if (last > from)
					buf_printf(&b, "-%ld", last);
			}
			buf_adds(&b, ")");
		}
		tmpl_set(tmpl_add_section(d, "NOTE"), "TEXT", b.data);
		i = j;
	}
	buf_release(&b);
	buf_release(&first);
	buf_release(&other);
}

/* The runs' merged traces under Runs, and their Methods entry (trace_export.h). */
static void set_traces(struct tmpl_dict *d, const struct report_experiment *e)
{
	if (!e->ntraces)
		return;
	struct tmpl_dict *sec = tmpl_add_section(d, "TRACES");
	struct buf v;
	buf_init(&v);
	int64_t skipped_over = 0;
	for (size_t i = 0; i < e->ntraces; i++) {
		const struct report_trace *t = &e->traces[i];
		struct tmpl_dict *x = tmpl_add_section(sec, "TRACE");
		tmpl_set(x, "RUN", t->run);
		tmpl_set_int(x, "RANKS", t->ranks);
		if (t->ranks != 1)
			tmpl_show_section(x, "PLURAL");
		tmpl_set_int(x, "EVENTS", (long long)t->events);
		if (t->skipped_over > 0) {
			/* the size rule: no file, the line says why (Methods) */
			buf_reset(&v);
			buf_printf(&v, "not written: over %lld events in the store (Methods: size rule)",
				   (long long)t->skipped_over);
			tmpl_set(tmpl_add_section(x, "SKIPPED"), "TEXT", v.data);
			skipped_over = t->skipped_over;
			continue;
		}
		tmpl_set(tmpl_add_section(x, "WRITTEN"), "FILE", t->file);
		buf_reset(&v);
		if (t->bytes >= 1000000)
			buf_printf(&v, "%.1f MB", (double)t->bytes / 1e6);
		else
			buf_printf(&v, "%.0f kB", (double)t->bytes / 1e3 < 1 ? 1.0 : (double)t->bytes / 1e3);
		tmpl_set(x, "SIZE", v.data);
		if (t->kept < t->events) {
			buf_reset(&v);
			buf_printf(&v, "cut: %lld of the events kept (the first in time; Methods)", (long long)t->kept);
			tmpl_set(tmpl_add_section(x, "CUT"), "TEXT", v.data);
		}
	}
	struct tmpl_dict *m = tmpl_add_section(d, "METHOD");
	tmpl_set(m, "TERM", trace_export_term);
	buf_reset(&v);
	buf_adds(&v, trace_export_method);
	if (skipped_over > 0)
		buf_printf(&v, trace_export_skip_method, (long long)skipped_over);
	tmpl_set(m, "TEXT", v.data);
	buf_release(&v);
}

/*
 * The order of the page's tables, after the runs table (findings.csv is
 * shown at the top, report_top.c): the report's own, not the order in
 * which the analyses ran. Broadly the flow of a study: where GPU time goes
 * (groups and kernels first, the devices after), steps and their parts,
 * communication and the ranks, estimates and typed-in numbers beside the
 * measures, memory, the replay's prices, the build history, the
 * comparisons across experiments. A table not listed (a new analysis's,
 * until it is placed here) goes after these, in the order it was added;
 * tests/unit/test_registry.c checks that each name here is made.
 */
static const char *const page_tables[] = {
	"groups", "kernels", "steps", "rank_devices", "top_kernels", "group_totals", "step_stats",
	"step_compare", "profiler_overhead", "temporal", "overlap", "kernel_types", "idle_time",
	"launch_stats", "idle_time_steps", "gpu_idle", "gpu_timeline", "step_breakdown", "memops",
	"collectives", "allreduce_busbw", "ranks", "phases", "dispatch", "dispatch_ops", "scaling",
	"speedup_error", "compute_model", "time_to_train", "collective_waits", "clock_offsets", "stragglers",
	"straggler_ranks", "collective_busbw", "pipeline_stages", "pipeline_schedules", "straggler_causes",
	"rank_spread", "step_diff", "critical_path", "critical_path_steps", "critical_path_across", "compare",
	"hardware", "estimates", "utilization", "memory_by_batch", "published", "throughput",
	"throughput_scaling", "relative", "comm_volume", "comm_types", "parallel_comm", "interconnect",
	"phase_report", "system", "phase_report_phases", "compare_phases", "flops", "flops_ratio", "flops_fit",
	"memory_steps", "memory_regions", "memory_ranks", "memory_kept", "strategy_scaling", "replay_steps",
	"replay_calibration", "replay_fixes", "whatif", "changes", "series", "history", "comparisons",
};

const char *const *report_page_tables(size_t *n)
{
	*n = sizeof(page_tables) / sizeof(page_tables[0]);
	return page_tables;
}

/*
 * The analyses' tables the report itself reads, beyond showing them: the
 * top of the page (report_top.c), the build's changes, the merged traces'
 * added lanes (trace_export.c). report_table refuses any other, fatally,
 * as result_table refuses an analysis a table it does not declare; each
 * is made by an analysis (tests/unit/test_registry.c).
 */
static const char *const report_reads[] = {
	"findings", "memory_kept", "memory_ranks", "profiler_overhead", "replay_fixes", "scaling", "step_stats",
	"straggler_causes", "changes", "clock_offsets", "collective_waits", "stragglers", "straggler_ranks",
	"critical_path", "critical_path_across", "exposed_waits", "straggler_windows",
};

const char *const *report_read_tables(size_t *n)
{
	*n = sizeof(report_reads) / sizeof(report_reads[0]);
	return report_reads;
}

const struct table *report_table(const struct table *const *tables, size_t n, const char *name)
{
	size_t k = 0, nreads = sizeof(report_reads) / sizeof(report_reads[0]);
	while (k < nreads && strcmp(report_reads[k], name))
		k++;
	if (k == nreads) {
		fprintf(stderr, "perfstudy: internal error: the report reads table %s, which report.c's report_reads "
			"does not list\n", name);
		abort();
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tables[i]->name, name))
			return tables[i];
	return NULL;
}

/* Position of table name on the page (page_tables), or the count for a table not listed. */
static size_t page_rank(const char *name)
{
	size_t n = sizeof(page_tables) / sizeof(page_tables[0]);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(page_tables[i], name))
			return i;
	return n;
}

/*
 * The Newest trace and GPUs (max) facts of e: without any trace, that the
 * numbers are the published tables' (NEWEST_TABLE), not an unknown date;
 * GPUs with where they came from when no run records them.
 */
static void set_facts(struct tmpl_dict *d, const struct report_experiment *e)
{
	if (!e->newest_trace_date && e->untraced)
		tmpl_show_section(d, "NEWEST_TABLE");
	else
		set_optional(d, "NEWEST", e->newest_trace_date);
	if (e->gpus_max > 0 && e->gpus_source) {
		char *v = xasprintf("%d: %s", e->gpus_max, e->gpus_source);
		tmpl_set(d, "GPUS_MAX", v);
		free(v);
	} else if (e->gpus_max > 0) {
		tmpl_set_int(d, "GPUS_MAX", e->gpus_max);
	} else {
		tmpl_set(d, "GPUS_MAX", "not recorded");
	}
}

static void set_experiment(struct tmpl_dict *d, const struct report_experiment *e)
{
	set_changes(d, "CHANGES", changes_of(e));
	tmpl_set(d, "VERSION", PERFSTUDY_VERSION);
	tmpl_set(d, "TITLE", e->title);
	set_optional(d, "DESCRIPTION", e->description);
	set_facts(d, e);
	set_optional(d, "MODELS", e->models);
	tmpl_set(d, "CLASSIFICATION", e->classification);

	if (e->runs)
		set_table(tmpl_add_section(d, "RUNS"), e->runs, (size_t)-1);
	else
		tmpl_show_section(d, "RUNS_NONE");

	for (size_t i = 0; i < e->nfigures; i++) {
		struct tmpl_dict *fig = tmpl_add_section(d, "FIGURE");
		tmpl_set(fig, "FIG_NAME", e->figures[i].name);
		tmpl_set(fig, "FIG_CAPTION", e->figures[i].caption);
		tmpl_set_int(fig, "FIG_NUMBER", (long long)i + 1);
	}
	if (e->nfigures)
		tmpl_show_section(d, "FIGURES");

	/* findings.csv is shown at the top of the page (report_top.c), not as a table. */
	report_top(d, e);
	/* each table's place once, then the tables place by place (those of one place in the order added) */
	size_t nshown = 0, nrank = sizeof(page_tables) / sizeof(page_tables[0]);
	size_t *rank = xcalloc(e->ntables + 1, sizeof(*rank));
	for (size_t i = 0; i < e->ntables; i++)
		rank[i] = page_rank(e->tables[i]->name);
	for (size_t at = 0; at <= nrank; at++)
		for (size_t i = 0; i < e->ntables; i++) {
			if (rank[i] != at || !strcmp(e->tables[i]->name, "findings") || e->tables[i]->internal)
				continue;
			set_table(tmpl_add_section(d, "TABLE"), e->tables[i], PAGE_ROWS);
			nshown++;
		}
	free(rank);
	if (nshown)
		tmpl_show_section(d, "TABLES");

	for (size_t i = 0; i < e->nmethods; i++) {
		struct tmpl_dict *m = tmpl_add_section(d, "METHOD");
		tmpl_set(m, "TERM", e->methods[i].term);
		tmpl_set(m, "TEXT", e->methods[i].text);
	}
	set_traces(d, e);
	set_notes(d, e);
	if (e->nnotes)
		tmpl_show_section(d, "NOTES");
	tmpl_set(d, "RULES", e->methods_rules);

	for (size_t i = 0; i < e->ninputs; i++) {
		struct tmpl_dict *in = tmpl_add_section(d, "INPUT");
		tmpl_set(in, "PATH", e->inputs[i].path);
		tmpl_set_int(in, "SIZE", (long long)e->inputs[i].size);
		tmpl_set(in, "SHA256", e->inputs[i].sha256);
	}
	tmpl_show_section(d, e->ninputs ? "INPUTS" : "INPUTS_NONE");

	if (e->manifest_text)
		tmpl_set(tmpl_add_section(d, "MANIFEST"), "TEXT", e->manifest_text);
	else
		tmpl_show_section(d, "MANIFEST_NONE");

	for (size_t i = 0; i < e->nwarnings; i++)
		tmpl_set(tmpl_add_section(d, "WARNING"), "TEXT", e->warnings[i]);
	tmpl_show_section(d, e->nwarnings ? "WARNINGS" : "WARNINGS_NONE");
}

int report_write_experiment(const char *site, const struct report_experiment *e)
{
	if (check_stem("experiment id", e->id))
		return -1;
	char *dir = xasprintf("%s/%s", site, e->id);
	char *data = xasprintf("%s/data", dir);
	char *page = xasprintf("%s/index.html", dir);
	struct tmpl_dict *d = NULL;
	int rc = -1;
	if (mkdir_p(data))
		goto out;
	if (e->runs && write_csv(data, e->runs))
		goto out;
	for (size_t i = 0; i < e->ntables; i++)
		if (!e->tables[i]->internal && write_csv(data, e->tables[i]))
			goto out;
	d = tmpl_dict_new();
	set_experiment(d, e);
	rc = write_page(page, "experiment.tpl", d);
out:
	tmpl_dict_free(d);
	free(page);
	free(data);
	free(dir);
	return rc;
}

/* Writes every embedded assets/<file> to <site>/assets/<file>. */
static int write_assets(const char *site)
{
	char *dir = xasprintf("%s/assets", site);
	int rc = mkdir_p(dir);
	for (unsigned long i = 0; rc == 0 && i < embedded_count; i++) {
		const struct embedded_file *ef = &embedded_files[i];
		if (strncmp(ef->path, "assets/", 7))
			continue;
		char *path = xasprintf("%s/%s", site, ef->path);
		rc = write_bytes(path, ef->data, ef->size);
		free(path);
	}
	free(dir);
	return rc;
}

int report_write_index(const char *site, const struct report_experiment *const *e, size_t n)
{
	char *page = xasprintf("%s/index.html", site);
	struct tmpl_dict *d = NULL;
	int rc = -1;
	for (size_t i = 0; i < n; i++)
		if (check_stem("experiment id", e[i]->id))
			goto out;
	if (mkdir_p(site) || write_assets(site))
		goto out;
	d = tmpl_dict_new();
	tmpl_set(d, "VERSION", PERFSTUDY_VERSION);
	for (size_t i = 0; i < n; i++) {
		struct tmpl_dict *x = tmpl_add_section(d, "EXPERIMENT");
		tmpl_set(x, "ID", e[i]->id);
		tmpl_set(x, "TITLE", e[i]->title);
		set_optional(x, "HEADLINE", e[i]->headline);
		set_changes(x, "CHANGES", changes_of(e[i]));
		set_facts(x, e[i]);
		set_optional(x, "MODELS", e[i]->models);
	}
	tmpl_show_section(d, n ? "EXPERIMENTS" : "EXPERIMENTS_NONE");
	rc = write_page(page, "index.tpl", d);
out:
	tmpl_dict_free(d);
	free(page);
	return rc;
}
