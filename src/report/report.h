/*
 * report.h: the static HTML site.
 *
 * The build command hands the report a description of each experiment: its
 * tables (analysis output), its figures (already drawn by chart_write into
 * <site>/<id>/figures/), and provenance. The report writes, through the
 * templates in templates/ (embedded into the binary at build time) and the
 * CSS in assets/:
 *   <site>/index.html                 every experiment, linking to its page
 *   <site>/assets/style.css
 *   <site>/<id>/index.html            what to fix first, key numbers, findings (report_top.c),
 *                                     run table, figures with captions, tables, Methods, Provenance
 *   <site>/<id>/data/<table>.csv      every table, one CSV each (but internal ones, table.h)
 * Every string that came from an input is escaped (HTML by the template
 * engine, CSV by csv_write_table). The report owns nothing it is given.
 */
#ifndef PERFSTUDY_REPORT_H
#define PERFSTUDY_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/table.h"

struct note_ranks; /* analyze/analysis.h */

struct report_figure {
	const char *name;    /* file stem in figures/ */
	const char *caption; /* one or two sentences, plain text */
};

/* One definition in the Methods section: what a table or figure means. */
struct report_method {
	const char *term; /* e.g. "groups.csv" */
	const char *text; /* the definition, plain text */
};

struct report_input {
	const char *path; /* as given by the user or manifest */
	int64_t size;     /* bytes */
	const char *sha256; /* 64 hex digits */
};

/*
 * A run's merged trace (trace_export.h): the file, relative to the
 * experiment's folder, and what it holds.
 */
struct report_trace {
	char *run;
	char *file;      /* "traces/<run>.trace.json.gz" */
	int ranks;
	int64_t events;  /* the run's events in the store */
	int64_t kept;    /* those written (all, unless the run was cut) */
	int64_t bytes;   /* the file's size */
	int64_t skipped_over; /* > 0: not written, its events over this limit (file NULL) */
};

struct report_experiment {
	const char *id;          /* folder name, [a-z0-9_-] */
	const char *title;
	const char *description; /* may be NULL */
	const char *classification; /* preset name or "manifest rules" */
	const char *newest_trace_date; /* "YYYY-MM-DD" or NULL */
	const char *headline;    /* one line for the index, may be NULL */
	int gpus_max;
	const char *gpus_source; /* where gpus_max came from when no run records its GPUs; NULL: the runs */
	int untraced;            /* no run has a trace: the numbers are the published tables' (the manifest's) */
	const char *models;      /* comma-separated model names, may be NULL */
	const struct table *runs; /* shown first; also written as data/runs.csv */
	size_t ntables;
	const struct table *const *tables; /* each shown and written as data/<name>.csv, unless internal */
	size_t nfigures;
	const struct report_figure *figures;
	size_t nmethods;
	const struct report_method *methods; /* definitions, in order, shown in Methods */
	const char *methods_rules; /* the classification rules, plain text, shown in Methods */
	size_t nnotes;
	const char *const *notes; /* what could not be computed and why, shown above the tables */
	/*
	 * NULL, or per note the ranks of its near-copies folded into it as the
	 * analyses made them (analysis.h: struct note_ranks), listed after it.
	 */
	const struct note_ranks *notes_more;
	size_t ninputs;
	const struct report_input *inputs;
	const char *manifest_text; /* the manifest as written, or NULL for a directory build */
	size_t nwarnings;
	const char *const *warnings;
	size_t ntraces;
	const struct report_trace *traces; /* the runs' merged traces, linked from Runs and the findings */
};

/* The order of an experiment page's tables, by name (report.c); sets *n. */
const char *const *report_page_tables(size_t *n);
/*
 * The tables the report reads (report.c's report_reads; sets *n), and one
 * of them among tables by name, or NULL; a name not listed is a
 * programming error, reported and fatal.
 */
const char *const *report_read_tables(size_t *n);
const struct table *report_table(const struct table *const *tables, size_t n, const char *name);
/* Writes <site>/<id>/index.html and its CSVs. Returns 0, or -1 after diag. */
int report_write_experiment(const char *site, const struct report_experiment *e);
/* Writes <site>/index.html and <site>/assets/. Returns 0, or -1 after diag. */
int report_write_index(const char *site, const struct report_experiment *const *e, size_t n);

/*
 * Writes t as CSV to f: header row, RFC 4180 quoting, and text cells that
 * start with '=', '+', '-', '@' (or tab/CR) prefixed with a single quote so a
 * spreadsheet shows them as text. Returns 0 or -1 on a write error.
 */
int csv_write_table(FILE *f, const struct table *t);

#endif
