/*
 * table.h: the tables that analyses produce.
 *
 * A table is what one analysis hands on to the report: named, typed columns
 * and rows of cells. The report writes each one as data/<name>.csv and as an
 * HTML table (all but an internal one, below); charts are built from them.
 * Times are stored as integer nanoseconds (COL_US) and always shown in
 * microseconds with three decimals, so no precision is lost between the
 * trace and the CSV.
 *
 * A table owns its strings (copied in table_set_text, each distinct one
 * once: cells with the same text share it; never write into one) and is freed with
 * table_free().
 *
 * A long table does not stay in memory: once it holds TABLE_WINDOW_ROWS rows
 * in memory, its older rows go to a temporary file (util/scratch.h) and are
 * read back a block at a time, so that a study of a thousand
 * ranks holds a few blocks of each per-step table, not its millions of cells
 * (issue 32). Every access goes through the functions below; a pointer that
 * table_cell returns stays valid until TABLE_CELL_RING - 1 more table_cell
 * calls on that table or the next table_add_row, whichever comes first (the
 * cells of a row that is not in memory are copied into a ring). Strings stay
 * in memory (each distinct one once).
 */
#ifndef PERFSTUDY_TABLE_H
#define PERFSTUDY_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

enum col_type {
	COL_TEXT, /* a string from an input or from perfstudy */
	COL_INT,  /* a count, a rank, a step number */
	COL_US,   /* a time held in integer ns, shown in us as "%lld.%03lld" */
	COL_FRAC, /* a fraction in 0..1, shown with 6 decimals */
	COL_REAL, /* any other real number, shown with %.6g */
};

struct table_col {
	char *name; /* CSV header, e.g. "total_us" */
	enum col_type type;
};

struct cell {
	int null; /* an empty CSV field */
	union {
		char *text;
		int64_t i;
		double f;
	} v;
};

enum {
	TABLE_WINDOW_ROWS = 1024, /* rows kept in memory for appending; half go out at a time */
	TABLE_BLOCK_ROWS = 256,   /* rows read back at a time */
	TABLE_CELL_RING = 64,
};

struct table_spill; /* table.c: the file and the blocks read back */

struct table {
	char *name;  /* file stem: data/<name>.csv */
	char *title; /* caption in the report */
	/*
	 * Non-zero: a table handed from an analysis to the report's drawing
	 * (the merged trace's tracks) and to nothing else: not written as
	 * CSV, not shown on the page nor in docs/output.md, not scanned by
	 * sanity, not compared across experiments. Its maker sets it after
	 * table_new; its contract is in the maker's header as any table's.
	 */
	int internal;
	size_t ncols;
	struct table_col *cols;
	size_t nrows, cap;
	/*
	 * Rows [0, first) are in the spill file, rows [first, nrows) in cells
	 * (row-major, (nrows - first) * ncols); first is 0 until the table is long.
	 */
	size_t first;
	struct cell *cells;
	struct table_spill *spill;
	/*
	 * The table's strings, each kept once (a run's name is on every row of
	 * a per-step table: 2.6 million copies at 1024 ranks); text cells point
	 * into it, and table_free frees it. Open addressing, pool_cap a power of two.
	 */
	char **pool;
	size_t npool, pool_cap;
};

/*
 * Every table an analysis makes has a typed contract in its maker's
 * header, or in its maker's file when no other code reads it
 * (tests/e2e/t_contracts.sh checks it, and that docs/output.md lists the
 * same columns): its columns listed once, as an X-macro
 *
 *   #define STEP_STATS_COLUMNS(X) X(SS_RUN, "run", text) X(SS_RANKS, "ranks", int) ...
 *   enum step_stats_col { STEP_STATS_COLUMNS(TABLE_COL_ENUM) SS_NCOLS };
 *
 * and the maker calls table_new(name, title, TABLE_SCHEMA(STEP_STATS_COLUMNS)),
 * so the schema string and the enum cannot disagree; readers use the enum
 * (table_num(t, row, SS_MEDIAN_US)), and a renamed column fails to compile.
 * TABLE_COL_ENUM gives the id, TABLE_COL_SCHEMA ",name:type" (type one of
 * text, int, us, frac, real), TABLE_SCHEMA the whole "name:type,..." string
 * (a string literal without its leading comma).
 */
#define TABLE_COL_ENUM(id, name, type) id,
#define TABLE_COL_SCHEMA(id, name, type) "," name ":" #type
#define TABLE_SCHEMA(LIST) (LIST(TABLE_COL_SCHEMA) + 1)

/* A new empty table; cols is "name:type,name:type", type one of text,int,us,frac,real. */
struct table *table_new(const char *name, const char *title, const char *cols);
void table_free(struct table *t);
/* Appends a row of null cells and returns its index. */
size_t table_add_row(struct table *t);
void table_set_text(struct table *t, size_t row, size_t col, const char *s);
void table_set_int(struct table *t, size_t row, size_t col, int64_t v);
void table_set_ns(struct table *t, size_t row, size_t col, int64_t ns);
void table_set_real(struct table *t, size_t row, size_t col, double v);
const struct cell *table_cell(const struct table *t, size_t row, size_t col);
/* Column index by name, or -1. */
int table_col_index(const struct table *t, const char *name);
/*
 * Cell (row, col) as a number: COL_US in microseconds (its ns / 1000), COL_INT
 * and COL_FRAC/COL_REAL as they are; NAN when t is NULL, col < 0 or past
 * t's columns, the cell null or the column text. How the analyses and the report read numbers back.
 */
double table_num(const struct table *t, size_t row, int col);
/*
 * Cell (row, col)'s text, or NULL when t is NULL, col < 0 or past t's
 * columns, the column not COL_TEXT or the cell null. The string is the table's (table.h: never write
 * into it), valid until the table is freed.
 */
const char *table_text(const struct table *t, size_t row, int col);
/* Appends the cell's canonical text (what the CSV holds, unquoted) to out. */
void table_format_cell(const struct table *t, size_t row, size_t col, struct buf *out);
/* Formats integer nanoseconds as microseconds with three decimals ("-0.001" style for negatives). */
void format_ns_as_us(int64_t ns, struct buf *out);

#endif
