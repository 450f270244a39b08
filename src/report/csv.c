/*
 * csv.c: csv_write_table of report.h.
 *
 * RFC 4180 with "\n" line ends: a field holding a comma, a double quote, CR
 * or LF is quoted and its quotes doubled. Kernel and annotation names come
 * straight from traces, so a text cell that a spreadsheet would run as a
 * formula (leading '=', '+', '-', '@', tab or CR) gets a leading single
 * quote. Numbers are written as table_format_cell prints them and never
 * prefixed: "-1.500" must stay a number.
 */
#include "report/report.h"

#include <string.h>

#include "util/buf.h"

static int looks_like_formula(const char *s)
{
	return s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
}

/* Appends s to line as one field; text fields are neutralized. */
static void add_field(struct buf *line, const char *s, int text)
{
	int quote = strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		buf_addc(line, '"');
	if (text && looks_like_formula(s))
		buf_addc(line, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			buf_addc(line, '"');
		buf_addc(line, *p);
	}
	if (quote)
		buf_addc(line, '"');
}

int csv_write_table(FILE *f, const struct table *t)
{
	struct buf line, cell;
	buf_init(&line);
	buf_init(&cell);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			buf_addc(&line, ',');
		add_field(&line, t->cols[c].name, 1);
	}
	buf_addc(&line, '\n');
	fwrite(line.data, 1, line.len, f);
	for (size_t r = 0; r < t->nrows; r++) {
		buf_reset(&line);
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				buf_addc(&line, ',');
			buf_reset(&cell);
			table_format_cell(t, r, c, &cell);
			add_field(&line, cell.data, t->cols[c].type == COL_TEXT);
		}
		buf_addc(&line, '\n');
		fwrite(line.data, 1, line.len, f);
	}
	buf_release(&line);
	buf_release(&cell);
	/* fwrite errors are sticky, so one check at the end sees them all. */
	return ferror(f) ? -1 : 0;
}
