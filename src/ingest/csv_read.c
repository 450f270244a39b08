/*
 * csv_read.c: the CSV record reader of csv_read.h.
 *
 * Each field is scanned once to bound its size (the raw bytes up to the next
 * unquoted ',' or LF) and then copied unquoted into the record's store,
 * which is reused from record to record.
 */
#include "ingest/csv_read.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"
#include "ingest/source.h"

void csv_init(struct csv_reader *r, const char *data, size_t len, const char *skip_prefix)
{
	memset(r, 0, sizeof(*r));
	r->data = data;
	r->len = len;
	r->line = 1;
	r->skip_prefix = skip_prefix;
	/* A UTF-8 byte order mark is not part of the first field. */
	if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3))
		r->pos = 3;
}

void csv_record_release(struct csv_record *rec)
{
	free(rec->fields);
	free(rec->store);
	memset(rec, 0, sizeof(*rec));
}

static void fail(struct csv_reader *r, size_t at, const char *msg)
{
	size_t line, col;
	source_line_col(r->data, r->len, at, &line, &col);
	r->err_line = (int)line;
	r->err_col = (int)col;
	r->err_offset = at;
	r->err_msg = msg;
}

/* Skips to the start of the next line. */
static void skip_line(struct csv_reader *r)
{
	while (r->pos < r->len && r->data[r->pos] != '\n')
		r->pos++;
	if (r->pos < r->len)
		r->pos++;
	r->line++;
}

/*
 * Stores byte c of a field at w; returns the next w. A NUL byte is stored as
 * U+2400 SYMBOL FOR NULL: fields are NUL-terminated strings, so a NUL inside
 * a kernel name cut it short and "gemm\0_fp16" and "gemm\0_fp32" became one
 * kernel "gemm". It stays visible and distinct instead (docs/formats.md).
 */
static size_t put_byte(struct csv_record *rec, size_t w, char c)
{
	if (c) {
		rec->store[w++] = c;
		return w;
	}
	memcpy(rec->store + w, "\xE2\x90\x80", 3);
	return w + 3;
}

int csv_next(struct csv_reader *r, struct csv_record *rec)
{
	const char *d = r->data;
	size_t n = r->len;
	for (;;) {
		if (r->pos >= n)
			return 0;
		if (d[r->pos] == '\n' || (d[r->pos] == '\r' && r->pos + 1 < n && d[r->pos + 1] == '\n')) {
			skip_line(r);
			continue;
		}
		size_t pl = r->skip_prefix ? strlen(r->skip_prefix) : 0;
		if (pl && n - r->pos >= pl && !memcmp(d + r->pos, r->skip_prefix, pl)) {
			skip_line(r);
			r->skipped++;
			continue;
		}
		break;
	}
	rec->line = r->line;
	rec->offset = r->pos;
	rec->n = 0;
	size_t w = 0, p = r->pos;
	int lines = 0;
	for (;;) {
		/* One field starting at p: its bytes are at most the raw span up to the next unquoted ',' or LF. */
		size_t q = p, nuls = 0;
		int inq = 0;
		while (q < n && (inq || (d[q] != ',' && d[q] != '\n'))) {
			if (d[q] == '"')
				inq = !inq;
			nuls += d[q] == '\0';
			q++;
		}
		/*
		 * A field is at most CSV_MAX_FIELD raw bytes, as a Kineto event or a
		 * SQLite string is: a longer one (a 20 MiB kernel name) is refused
		 * here, at its line and column, rather than stored.
		 */
		if (q - p > CSV_MAX_FIELD) {
			fail(r, p, "a field longer than 16 MiB; refused");
			return -1;
		}
		/* Each NUL byte grows by two (put_byte). */
		size_t need = w + (q - p) + 2 * nuls + 1;
		if (rec->cap_store < need) {
			rec->cap_store = 2 * need;
			rec->store = xrealloc(rec->store, rec->cap_store);
		}
		size_t fstart = w;
		if (p < n && d[p] == '"') {
			size_t open = p++;
			for (;;) {
				if (p >= n) {
					fail(r, open, "unterminated quoted field");
					return -1;
				}
				if (d[p] == '"') {
					if (p + 1 < n && d[p + 1] == '"') {
						rec->store[w++] = '"';
						p += 2;
						continue;
					}
					p++;
					break;
				}
				if (d[p] == '\n')
					lines++;
				w = put_byte(rec, w, d[p++]);
			}
			if (p < n && d[p] != ',' && d[p] != '\n' && !(d[p] == '\r' && (p + 1 == n || d[p + 1] == '\n'))) {
				fail(r, p, "expected ',' or the end of the line after a closing quote");
				return -1;
			}
		} else {
			while (p < n && d[p] != ',' && d[p] != '\n' && !(d[p] == '\r' && (p + 1 == n || d[p + 1] == '\n')))
				w = put_byte(rec, w, d[p++]);
		}
		rec->store[w++] = '\0';
		rec->fields = xgrow(rec->fields, &rec->cap_fields, rec->n + 1, sizeof(*rec->fields));
		/* An offset until the store stops moving; made a pointer below. */
		rec->fields[rec->n++] = (char *)(uintptr_t)fstart;
		if (p < n && d[p] == ',') {
			p++;
			continue;
		}
		if (p < n && d[p] == '\r')
			p++;
		if (p < n && d[p] == '\n')
			p++;
		break;
	}
	for (size_t i = 0; i < rec->n; i++)
		rec->fields[i] = rec->store + (uintptr_t)rec->fields[i];
	r->pos = p;
	r->line += 1 + lines;
	return 1;
}

int csv_find(const struct csv_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->n; i++)
		if (!strcmp(rec->fields[i], name))
			return (int)i;
	return -1;
}
