/*
 * json_error.c: where a JSON trace document is broken, and the one message
 * that says so (json_error.h).
 */
#include "ingest/json_error.h"

#include "util/buf.h"
#include "util/diag.h"

/* Where the first top-level value ends (one past its closing bracket), or len + 1 when it never does. */
static size_t value_end(const char *d, size_t len)
{
	int depth = 0, in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = d[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
		} else if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && --depth == 0) {
			return i + 1;
		}
	}
	return len + 1;
}

void json_report_error(const struct source *src, size_t skip, size_t offset, const char *message, const char *detail)
{
	const char *d = src->data + skip;
	size_t len = src->len - skip;
	if (offset == 0) {
		size_t e = value_end(d, len);
		if (e > len) {
			offset = len;
			message = "the document ends before its top-level object is closed";
			detail = "";
		} else {
			while (e < len && (d[e] == ' ' || d[e] == '\n' || d[e] == '\r' || d[e] == '\t'))
				e++;
			if (e < len) {
				offset = e;
				message = "unexpected content after the top-level object";
				detail = "";
			}
		}
	}
	size_t off = offset + skip, line, col;
	source_line_col(src->data, src->len, off, &line, &col);
	struct buf where;
	buf_init(&where);
	buf_printf(&where, "%s:%zu:%zu", src->path, line, col);
	diag_error(where.data, "%s at byte %zu%s%s%s", message, off, src->meta.gzip ? " of the uncompressed JSON" : "",
		   detail[0] ? ": " : "", detail);
	buf_release(&where);
}
