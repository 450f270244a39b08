/*
 * trace_json.c: the merged trace's JSON text (trace_export_int.h): numbers,
 * escaped strings, event heads, table rows as objects, deflated by ISA-L's igzip as
 * it is written; and the rows of each run in the experiment's result
 * tables, found once per table, and by rank.
 */
#include "report/trace_export_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/buf.h"
#include "util/search.h"
#include "util/xalloc.h"

/*
 * ISA-L's igzip level 1 (its hash tables and a token buffer in level_buf),
 * gzip header and trailer: the same JSON as zlib's level 1 gave, deflated
 * in a quarter to a sixth of its CPU time into a file 7 % smaller (26 MB
 * of JSON, the example's largest run: 0.02 s instead of 0.08-0.13 s;
 * docs/performance.md).
 */
#define TX_LEVEL 1
#define TX_LEVEL_BUF ISAL_DEF_LVL1_DEFAULT

void tx_out_start(struct tx_out *o, FILE *f)
{
	o->f = f;
	o->zbuf = xmalloc(TX_CHUNK);
	o->level_buf = xmalloc(TX_LEVEL_BUF);
	isal_deflate_init(&o->z);
	o->z.level = TX_LEVEL;
	o->z.level_buf = o->level_buf;
	o->z.level_buf_size = TX_LEVEL_BUF;
	o->z.gzip_flag = IGZIP_GZIP;
	o->z.flush = NO_FLUSH;
}

void tx_out_end(struct tx_out *o)
{
	free(o->zbuf);
	free(o->level_buf);
	o->zbuf = o->level_buf = NULL;
}

/* Deflates what o->b holds into o->f (trace_export_int.h). */
void tx_out_pump(struct tx_out *o, int finish)
{
	if (o->failed)
		return;
	o->z.next_in = (uint8_t *)o->b.data;
	o->z.avail_in = (uint32_t)o->b.len;
	o->z.end_of_stream = finish != 0;
	do {
		o->z.next_out = o->zbuf;
		o->z.avail_out = TX_CHUNK;
		if (isal_deflate(&o->z) != COMP_OK) {
			o->failed = 1;
			o->err = EIO;
			return;
		}
		size_t have = TX_CHUNK - o->z.avail_out;
		if (have && fwrite(o->zbuf, 1, have, o->f) != have) {
			o->failed = 1;
			o->err = errno ? errno : EIO;
			return;
		}
		o->gz_bytes += (int64_t)have;
	} while (o->z.avail_out == 0 || o->z.avail_in || (finish && o->z.internal_state.state != ZSTATE_END));
	o->json_bytes += (int64_t)o->b.len;
	buf_reset(&o->b);
}

/* Deflates what is gathered once there is a chunk of it. */
static void out_maybe(struct tx_out *o)
{
	if (o->b.len >= TX_CHUNK)
		tx_out_pump(o, 0);
}

/* Starts the next element of traceEvents. */
void tx_out_next(struct tx_out *o)
{
	out_maybe(o);
	if (o->nevents++)
		buf_add(&o->b, ",\n", 2);
}

/* Appends v in decimal. */
void tx_put_i64(struct buf *b, int64_t v)
{
	char tmp[24];
	size_t n = 0;
	uint64_t a = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		tmp[n++] = (char)('0' + a % 10);
		a /= 10;
	} while (a);
	if (v < 0)
		buf_addc(b, '-');
	while (n)
		buf_addc(b, tmp[--n]);
}

/* Appends ns as microseconds with three decimals, exactly. */
void tx_put_us(struct buf *b, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
	if (ns < 0)
		buf_addc(b, '-');
	tx_put_i64(b, (int64_t)(a / 1000));
	char d[4] = {'.', (char)('0' + a % 1000 / 100), (char)('0' + a % 100 / 10), (char)('0' + a % 10)};
	buf_add(b, d, 4);
}

/* json_add_escaped (util/json.h), the one JSON string writer, quoted; past max bytes it is cut and ends in "…". */
void tx_put_str(struct buf *b, const char *str, size_t n, size_t max)
{
	buf_addc(b, '"');
	json_add_escaped(b, str, n > max ? max : n);
	if (n > max)
		buf_adds(b, "\xe2\x80\xa6");
	buf_addc(b, '"');
}

/* tx_put_str of a NUL-terminated string, cut at TX_NAME_MAX. */
void tx_put_cstr(struct buf *b, const char *s)
{
	tx_put_str(b, s, strlen(s), TX_NAME_MAX);
}

static int cmp_seg(const void *pa, const void *pb)
{
	const struct seg *a = pa, *b = pb;
	int c = strcmp(a->run, b->run);
	return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

/* Finds table name and its segments of rows by run, sorted by run for tx_tab_rows. */
void tx_tab_open(struct tx_tab *x, const struct table *const *tables, size_t n, const char *name, int crun)
{
	memset(x, 0, sizeof(*x));
	x->t = report_table(tables, n, name);
	x->crun = x->t ? crun : -1;
	if (x->crun < 0) {
		x->t = NULL;
		return;
	}
	size_t cap = 0;
	for (size_t r = 0; r < x->t->nrows; r++) {
		const struct cell *c = table_cell(x->t, r, (size_t)x->crun);
		const char *run = c->null ? "" : c->v.text; /* pooled: valid until the table is freed */
		if (x->nsegs && !strcmp(x->segs[x->nsegs - 1].run, run)) {
			x->segs[x->nsegs - 1].end = r + 1;
			continue;
		}
		x->segs = xgrow(x->segs, &cap, x->nsegs + 1, sizeof(*x->segs));
		x->segs[x->nsegs++] = (struct seg){run, r, r + 1};
	}
	if (x->nsegs > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
		qsort(x->segs, x->nsegs, sizeof(*x->segs), cmp_seg);
}

/* lower_bound's predicate: the segment's run sorts before the key (the run, a string). */
static int seg_before(const void *elem, const void *key)
{
	return strcmp(((const struct seg *)elem)->run, key) < 0;
}

/* The rows of run in x, in the table's order: *rows (caller frees), returns their count. */
size_t tx_tab_rows(const struct tx_tab *x, const char *run, size_t **rows)
{
	*rows = NULL;
	if (!x->t)
		return 0;
	size_t n = 0, cap = 0;
	size_t lo = lower_bound(x->segs, x->nsegs, sizeof(*x->segs), run, seg_before);
	for (size_t s = lo; s < x->nsegs && !strcmp(x->segs[s].run, run); s++)
		for (size_t r = x->segs[s].first; r < x->segs[s].end; r++) {
			*rows = xgrow(*rows, &cap, n + 1, sizeof(**rows));
			(*rows)[n++] = r;
		}
	return n;
}

/* A cell's integer, dflt when it is empty or col < 0. */
int64_t tx_cell_i(const struct table *t, size_t row, int col, int64_t dflt)
{
	if (col < 0)
		return dflt;
	const struct cell *c = table_cell(t, row, (size_t)col);
	return c->null ? dflt : c->v.i;
}

/* A cell's text, "" when it is empty or col < 0 (the table owns it). */
const char *tx_cell_s(const struct table *t, size_t row, int col)
{
	if (col < 0)
		return "";
	const struct cell *c = table_cell(t, row, (size_t)col);
	return c->null ? "" : c->v.text;
}

/* Appends a row as a JSON object: every non-empty cell under its column's name, times in us. */
void tx_put_row(struct buf *b, const struct table *t, size_t row)
{
	buf_addc(b, '{');
	int any = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		const struct cell *x = table_cell(t, row, c);
		if (x->null)
			continue;
		double f = x->v.f;
		if ((t->cols[c].type == COL_FRAC || t->cols[c].type == COL_REAL) && !isfinite(f))
			continue;
		if (any++)
			buf_addc(b, ',');
		tx_put_cstr(b, t->cols[c].name);
		buf_addc(b, ':');
		switch (t->cols[c].type) {
		case COL_TEXT:
			tx_put_cstr(b, x->v.text);
			break;
		case COL_INT:
			tx_put_i64(b, x->v.i);
			break;
		case COL_US:
			tx_put_us(b, x->v.i);
			break;
		default:
			buf_printf(b, "%.9g", f);
			break;
		}
	}
	buf_addc(b, '}');
}

/* Starts an event: {"ph":..,"cat":..,"pid":..,"tid":..,"ts":.. (the caller closes it). */
void tx_ev_head(struct tx_out *o, const char *ph, const char *cat, size_t pid, int tid, int64_t ts_ns)
{
	tx_out_next(o);
	struct buf *b = &o->b;
	buf_adds(b, "{\"ph\":\"");
	buf_adds(b, ph);
	buf_adds(b, "\",\"cat\":\"");
	buf_adds(b, cat);
	buf_adds(b, "\",\"pid\":");
	tx_put_i64(b, (int64_t)pid);
	buf_adds(b, ",\"tid\":");
	tx_put_i64(b, tid);
	buf_adds(b, ",\"ts\":");
	tx_put_us(b, ts_ns);
}

/* Adds an event's "dur". */
void tx_ev_dur(struct tx_out *o, int64_t dur_ns)
{
	buf_adds(&o->b, ",\"dur\":");
	tx_put_us(&o->b, dur_ns);
}

/* A metadata event: {"ph":"M","name":name,"pid":..,"tid":..,"args":{"name"|"sort_index"|"labels": ...}}. */
void tx_ev_meta(struct tx_out *o, const char *name, size_t pid, int tid, const char *text, int64_t num)
{
	tx_out_next(o);
	struct buf *b = &o->b;
	buf_adds(b, "{\"ph\":\"M\",\"name\":\"");
	buf_adds(b, name);
	buf_adds(b, "\",\"pid\":");
	tx_put_i64(b, (int64_t)pid);
	buf_adds(b, ",\"tid\":");
	tx_put_i64(b, tid);
	if (text) {
		buf_adds(b, strcmp(name, "process_labels") ? ",\"args\":{\"name\":" : ",\"args\":{\"labels\":");
		tx_put_cstr(b, text);
	} else {
		buf_adds(b, ",\"args\":{\"sort_index\":");
		tx_put_i64(b, num);
	}
	buf_adds(b, "}}");
}

static int cmp_rrow(const void *pa, const void *pb)
{
	const struct rrow *a = pa, *b = pb;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * The rows of run in x with their ranks (column crank, its contract's enum),
 * sorted by rank, then row, into *out (caller frees); returns the count.
 */
size_t tx_rows_by_rank(const struct tx_tab *x, int crank, const char *run, struct rrow **out)
{
	size_t *rows, n = tx_tab_rows(x, run, &rows);
	int c = x->t ? crank : -1;
	*out = xcalloc(n + 1, sizeof(**out));
	for (size_t i = 0; i < n; i++)
		(*out)[i] = (struct rrow){tx_cell_i(x->t, rows[i], c, INT64_MIN), rows[i]};
	free(rows);
	if (n > 1) /* qsort's array may be NULL when empty: not even a 0-length call */
		qsort(*out, n, sizeof(**out), cmp_rrow);
	return n;
}
