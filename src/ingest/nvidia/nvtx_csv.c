/*
 * nvtx_csv.c: the NVTX range table of `nsys stats` in CSV form
 * (`nsys stats --report nvtx_pushpop_trace --format csv`, older nsys
 * `nvtxpptrace`), for studies that kept the report but not the .nsys-rep.
 *
 * Columns (by name, any order): "Start (ns)" and "End (ns)" or "Duration
 * (ns)" (older: "Start:ts_ns", "End:ts_ns", "Duration:dur_ns"), "Name",
 * optional "TID", and the NVTX columns that tell this report from nsys's
 * other CSV reports ("RangeId", "RangeStack", "NameTree", "Lvl"). Each row
 * is one host annotation (on_gpu 0) on its thread, so the phases analysis
 * finds forward, backward, ... by name as it does for Nsight Systems'
 * NVTX_EVENTS; `ProfilerStep#N` ranges count as steps. Times are integer
 * ns on the session's clock. nsys's own lines before the header
 * ("Processing [...] with [...]", the report's title) are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/csv_read.h"
#include "ingest/ingest.h"
#include "ingest/source.h"
#include "util/diag.h"
#include "util/xalloc.h"

static const char *const start_cols[] = {"Start (ns)", "Start:ts_ns"};
static const char *const end_cols[] = {"End (ns)", "End:ts_ns"};
static const char *const dur_cols[] = {"Duration (ns)", "Duration:dur_ns"};

/* A header line: a start column, "Name" and an NVTX-only column. */
static int is_header(const char *p, size_t n)
{
	return (source_find(p, n, start_cols[0]) || source_find(p, n, start_cols[1])) && source_find(p, n, "Name") &&
	       (source_find(p, n, "RangeId") || source_find(p, n, "RangeStack") || source_find(p, n, "NameTree"));
}

/* Offset and 1-based line of the header line in the first n bytes, or -1. */
static long header_at(const char *head, size_t n, int *line)
{
	size_t i = 0;
	*line = 1;
	while (i < n) {
		const char *e = memchr(head + i, '\n', n - i);
		size_t len = e ? (size_t)(e - head - i) : n - i;
		if (is_header(head + i, len))
			return (long)i;
		if (!e)
			break;
		i += len + 1;
		++*line;
	}
	return -1;
}

static int nvtx_csv_detect(const char *head, size_t n)
{
	int line;
	return header_at(head, n, &line) >= 0;
}

static int column(const struct csv_record *h, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int c = csv_find(h, names[i]);
		if (c >= 0)
			return c;
	}
	return -1;
}

/* An error or warning at path:line. */
#define AT(fn, src, line, ...)                                         \
	do {                                                            \
		char *where_ = xasprintf("%s:%d", (src)->path, (line)); \
		fn(where_, __VA_ARGS__);                                \
		free(where_);                                           \
	} while (0)

static int parse_ns(const struct source *src, const struct csv_record *rec, int col, const char *what, int64_t *out)
{
	const char *v = rec->fields[col];
	if (parse_decimal_scaled(v, strlen(v), 0, out) < 0) {
		AT(diag_error, src, rec->line, "expected an integer number of ns for '%s', got '%s'", what, v);
		return -1;
	}
	return 0;
}

static int nvtx_csv_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct csv_reader r;
	struct csv_record h = {0}, rec = {0};
	int ret = -1, line;
	size_t head = src->len < 4096 ? src->len : 4096;
	long at = header_at(src->data, head, &line);
	csv_init(&r, src->data, src->len, NULL);
	if (at > (long)r.pos) { /* nsys's own lines before the header */
		r.pos = (size_t)at;
		r.line = line;
	}
	int rc = csv_next(&r, &h);
	if (rc <= 0)
		goto malformed;
	int c_start = column(&h, start_cols, 2), c_end = column(&h, end_cols, 2), c_dur = column(&h, dur_cols, 2);
	int c_name = csv_find(&h, "Name"), c_tid = csv_find(&h, "TID");
	if (c_start < 0 || c_name < 0 || (c_end < 0 && c_dur < 0)) {
		AT(diag_error, src, h.line, "NVTX range table without %s",
		   c_start < 0 ? "a 'Start (ns)' column" : c_name < 0 ? "a 'Name' column"
			   : "an 'End (ns)' or 'Duration (ns)' column");
		goto out;
	}
	while ((rc = csv_next(&r, &rec)) > 0) {
		if (rec.n != h.n) {
			AT(diag_error, src, rec.line, "%zu fields, expected %zu as in the header (line %d)", rec.n, h.n,
			   h.line);
			goto out;
		}
		counts->events++;
		struct annotation an = {.name = rec.fields[c_name], .on_gpu = 0, .tid = -1};
		int64_t end;
		if (parse_ns(src, &rec, c_start, h.fields[c_start], &an.start_ns) < 0)
			goto out;
		if (c_dur >= 0) {
			if (parse_ns(src, &rec, c_dur, h.fields[c_dur], &an.dur_ns) < 0)
				goto out;
		} else {
			if (parse_ns(src, &rec, c_end, h.fields[c_end], &end) < 0)
				goto out;
			an.dur_ns = end - an.start_ns;
		}
		if (c_tid >= 0 && rec.fields[c_tid][0] && parse_ns(src, &rec, c_tid, "TID", &an.tid) < 0)
			goto out;
		if (an.dur_ns < 0) {
			AT(diag_warning, src, rec.line, "range '%s' has a negative duration; skipped", an.name);
			counts->skipped++;
			continue;
		}
		if (!an.name[0])
			continue; /* an unnamed range says nothing a report can show */
		counts->annotations++;
		if (!strncmp(an.name, "ProfilerStep#", 13))
			counts->steps++;
		if (sink->annotation && sink->annotation(sink->ctx, &an) < 0)
			goto out;
	}
	if (rc < 0)
		goto malformed;
	struct trace_info info = {.format = "nsys-nvtx-csv", .rank = -1, .world_size = -1, .epoch_offset_ns = -1};
	ret = sink->info && sink->info(sink->ctx, &info) < 0 ? -1 : 0;
	goto out;
malformed:
	if (rc == 0)
		diag_error(src->path, "NVTX range table without a header row");
	else {
		char *where = xasprintf("%s:%d:%d", src->path, r.err_line, r.err_col);
		diag_error(where, "malformed CSV at byte %zu: %s", r.err_offset, r.err_msg);
		free(where);
	}
out:
	csv_record_release(&h);
	csv_record_release(&rec);
	return ret;
}

const struct reader nvtx_csv_reader = {
	.name = "nsys-nvtx-csv",
	.detect = nvtx_csv_detect,
	.read = nvtx_csv_read,
};
