/* table.c: the analysis tables of table.h. */
#include "util/table.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/scratch.h"
#include "util/timing.h"
#include "util/xalloc.h"

/*
 * The rows of a long table that left memory (table.h). The file holds rows
 * [0, t->first) as their cells' bytes, row-major: text cells hold pointers
 * into the table's string pool, which stays in memory, so the file is only
 * ever read back by this process. Blocks of block_rows rows (TABLE_BLOCK_ROWS) are read
 * back into a few buffers, the least recently used one reused (written back
 * first when a table_set_* changed it).
 */
enum { SPILL_BLOCKS = 4 };

struct spill_block {
	size_t no; /* block number, SIZE_MAX when empty */
	int dirty;
	uint64_t used; /* the spill's clock when last used */
	struct cell *cells;
};

struct table_spill {
	struct scratch file;
	uint64_t clock;
	struct spill_block blocks[SPILL_BLOCKS];
	struct cell ring[TABLE_CELL_RING];
	unsigned ring_next;
};

/*
 * Rows a table keeps in memory before its older half goes out, and rows
 * read back at a time: TABLE_WINDOW_ROWS and TABLE_BLOCK_ROWS, or for the
 * tests PERFSTUDY_TABLE_WINDOW_ROWS (an even number; 2 sends every row out
 * but the last and reads back one at a time; 0 keeps every row in memory)
 * with blocks of at most half of it.
 */
static size_t window_rows = TABLE_WINDOW_ROWS, block_rows = TABLE_BLOCK_ROWS;
static pthread_once_t window_once = PTHREAD_ONCE_INIT;

static void window_init(void)
{
	const char *e = getenv("PERFSTUDY_TABLE_WINDOW_ROWS");
	if (!e || !*e)
		return;
	unsigned long long v = strtoull(e, NULL, 10);
	if (v == 0) {
		window_rows = SIZE_MAX;
	} else if (v % 2 == 0 && v <= (1u << 30)) {
		window_rows = (size_t)v;
		while (block_rows > 1 && (window_rows / 2) % block_rows)
			block_rows /= 2;
	}
}

static struct table_spill *spill_open(const struct table *t)
{
	struct table_spill *sp = xcalloc(1, sizeof(*sp));
	sp->file = (struct scratch)SCRATCH_INIT;
	for (size_t b = 0; b < SPILL_BLOCKS; b++) {
		sp->blocks[b].no = SIZE_MAX;
		sp->blocks[b].cells = xcalloc((size_t)block_rows * t->ncols, sizeof(struct cell));
	}
	return sp;
}

static size_t row_bytes(const struct table *t)
{
	return t->ncols * sizeof(struct cell);
}

/* The oldest half of the rows in memory go to the file. */
static void spill_out(struct table *t)
{
	if (!t->spill)
		t->spill = spill_open(t);
	size_t h = window_rows / 2;
	scratch_write(&t->spill->file, t->cells, h * row_bytes(t), (off_t)(t->first * row_bytes(t)));
	memmove(t->cells, t->cells + h * t->ncols, (t->nrows - t->first - h) * row_bytes(t));
	t->first += h;
}

/* The block holding spilled row, read back if need be. */
static struct spill_block *spill_block_of(const struct table *t, size_t row)
{
	struct table_spill *sp = t->spill;
	size_t no = row / block_rows;
	struct spill_block *victim = &sp->blocks[0];
	sp->clock++;
	for (size_t b = 0; b < SPILL_BLOCKS; b++) {
		struct spill_block *k = &sp->blocks[b];
		if (k->no == no) {
			k->used = sp->clock;
			return k;
		}
		if (k->used < victim->used)
			victim = k;
	}
	size_t bytes = (size_t)block_rows * row_bytes(t);
	if (victim->dirty)
		scratch_write(&sp->file, victim->cells, bytes, (off_t)(victim->no * bytes));
	scratch_read(&sp->file, victim->cells, bytes, (off_t)(no * bytes));
	victim->no = no;
	victim->dirty = 0;
	victim->used = sp->clock;
	return victim;
}

static enum col_type parse_type(const char *s, size_t n)
{
	if (n == 3 && !memcmp(s, "int", 3))
		return COL_INT;
	if (n == 2 && !memcmp(s, "us", 2))
		return COL_US;
	if (n == 4 && !memcmp(s, "frac", 4))
		return COL_FRAC;
	if (n == 4 && !memcmp(s, "real", 4))
		return COL_REAL;
	return COL_TEXT;
}

struct table *table_new(const char *name, const char *title, const char *cols)
{
	struct table *t = xcalloc(1, sizeof(*t));
	t->name = xstrdup(name);
	t->title = xstrdup(title);
	size_t cap = 0;
	const char *p = cols;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		size_t nlen = colon ? (size_t)(colon - p) : len;
		t->cols = xgrow(t->cols, &cap, t->ncols + 1, sizeof(*t->cols));
		t->cols[t->ncols].name = xstrndup(p, nlen);
		t->cols[t->ncols].type = colon ? parse_type(colon + 1, len - nlen - 1) : COL_TEXT;
		t->ncols++;
		p += len;
		if (*p == ',')
			p++;
	}
	return t;
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->pool_cap; i++)
		free(t->pool[i]);
	free(t->pool);
	for (size_t c = 0; c < t->ncols; c++)
		free(t->cols[c].name);
	free(t->cols);
	if (t->spill) {
		scratch_close(&t->spill->file);
		for (size_t b = 0; b < SPILL_BLOCKS; b++)
			free(t->spill->blocks[b].cells);
		free(t->spill);
	}
	free(t->cells);
	free(t->name);
	free(t->title);
	free(t);
}

size_t table_add_row(struct table *t)
{
	pthread_once(&window_once, window_init);
	if (t->nrows - t->first >= window_rows && t->ncols)
		spill_out(t);
	t->cells = xgrow(t->cells, &t->cap, (t->nrows - t->first + 1) * t->ncols, sizeof(*t->cells));
	struct cell *row = t->cells + (t->nrows - t->first) * t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		memset(&row[c], 0, sizeof(row[c]));
		row[c].null = 1;
	}
	return t->nrows++;
}

/* The cell, where it can be changed: in memory, or in a block read back (then marked changed). */
static struct cell *cell_at(struct table *t, size_t row, size_t col)
{
	if (row >= t->first)
		return &t->cells[(row - t->first) * t->ncols + col];
	struct spill_block *k = spill_block_of(t, row);
	k->dirty = 1;
	return &k->cells[(row % block_rows) * t->ncols + col];
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 14695981039346656037u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

/* The table's one copy of s. */
static char *pooled(struct table *t, const char *s)
{
	if ((t->npool + 1) * 2 > t->pool_cap) {
		size_t cap = t->pool_cap ? t->pool_cap * 2 : 16;
		char **p = xcalloc(cap, sizeof(*p));
		for (size_t i = 0; i < t->pool_cap; i++) {
			if (!t->pool[i])
				continue;
			size_t j = (size_t)str_hash(t->pool[i]) & (cap - 1);
			while (p[j])
				j = (j + 1) & (cap - 1);
			p[j] = t->pool[i];
		}
		free(t->pool);
		t->pool = p;
		t->pool_cap = cap;
	}
	size_t j = (size_t)str_hash(s) & (t->pool_cap - 1);
	while (t->pool[j] && strcmp(t->pool[j], s))
		j = (j + 1) & (t->pool_cap - 1);
	if (!t->pool[j]) {
		t->pool[j] = xstrdup(s);
		t->npool++;
	}
	return t->pool[j];
}

void table_set_text(struct table *t, size_t row, size_t col, const char *s)
{
	struct cell *c = cell_at(t, row, col);
	c->v.text = pooled(t, s); /* a text it held stays in the pool */
	c->null = 0;
}

void table_set_int(struct table *t, size_t row, size_t col, int64_t v)
{
	struct cell *c = cell_at(t, row, col);
	c->v.i = v;
	c->null = 0;
}

void table_set_ns(struct table *t, size_t row, size_t col, int64_t ns)
{
	table_set_int(t, row, col, ns);
}

void table_set_real(struct table *t, size_t row, size_t col, double v)
{
	struct cell *c = cell_at(t, row, col);
	c->v.f = v;
	c->null = 0;
}

const struct cell *table_cell(const struct table *t, size_t row, size_t col)
{
	work_add(WORK_CELLS, 1); /* PERFSTUDY_COUNTS */
	if (row >= t->first)
		return &t->cells[(row - t->first) * t->ncols + col];
	struct table_spill *sp = t->spill;
	struct cell *c = &sp->ring[sp->ring_next++ % TABLE_CELL_RING];
	*c = spill_block_of(t, row)->cells[(row % block_rows) * t->ncols + col];
	return c;
}

int table_col_index(const struct table *t, const char *name)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (!strcmp(t->cols[c].name, name))
			return (int)c;
	return -1;
}

double table_num(const struct table *t, size_t row, int col)
{
	if (!t || col < 0 || (size_t)col >= t->ncols)
		return NAN;
	const struct cell *c = table_cell(t, row, (size_t)col);
	if (c->null)
		return NAN;
	switch (t->cols[col].type) {
	case COL_INT:
		return (double)c->v.i;
	case COL_US:
		return (double)c->v.i / 1000.0;
	case COL_FRAC:
	case COL_REAL:
		return c->v.f;
	case COL_TEXT:
		break;
	}
	return NAN;
}

const char *table_text(const struct table *t, size_t row, int col)
{
	/* The type first: a number column's cell is not read at all. */
	if (!t || col < 0 || (size_t)col >= t->ncols || t->cols[col].type != COL_TEXT)
		return NULL;
	const struct cell *c = table_cell(t, row, (size_t)col);
	return c->null ? NULL : c->v.text;
}

void format_ns_as_us(int64_t ns, struct buf *out)
{
	/* Integer arithmetic: 1234567 ns -> "1234.567", never a rounding step. */
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	buf_printf(out, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "", mag / 1000, mag % 1000);
}

void table_format_cell(const struct table *t, size_t row, size_t col, struct buf *out)
{
	const struct cell *c = table_cell(t, row, col);
	if (c->null)
		return;
	switch (t->cols[col].type) {
	case COL_TEXT:
		buf_adds(out, c->v.text);
		break;
	case COL_INT:
		buf_printf(out, "%" PRId64, c->v.i);
		break;
	case COL_US:
		format_ns_as_us(c->v.i, out);
		break;
	case COL_FRAC:
		buf_printf(out, "%.6f", c->v.f);
		break;
	case COL_REAL:
		buf_printf(out, "%.6g", c->v.f);
		break;
	}
}
