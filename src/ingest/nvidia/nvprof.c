/*
 * nvprof.c: the reader for nvprof's CSV output,
 *   nvprof --print-gpu-trace --csv      one row per kernel, memcpy, memset
 *   nvprof --print-gpu-summary --csv    one row per name: totals, no timeline
 * (the .nvvp file that `nvprof -o` writes is read by nvvp.c).
 *
 * The file opens with nvprof's own "==PID== ..." lines; then each table is a
 * header row and a units row saying, per column and per run, what the
 * numbers are in: s, ms, us or ns for times, B, KB, MB or GB for sizes
 * (nvprof's KB is 1024 B), GB/s for throughput, % for Time(%). Times are
 * turned into integer ns exactly from the decimal text (parse_decimal_scaled);
 * sizes are rounded to the nearest byte (nvprof prints MB with 6 decimals,
 * so a size is exact only to about a byte).
 *
 * Names: "[CUDA memcpy HtoD]" (also DtoH, DtoD, PtoP, HtoA, ...) is a memcpy
 * with that copy kind, named "Memcpy HtoD (Pageable -> Device)" from the
 * SrcMemType and DstMemType columns as Kineto names it; "[CUDA memset]" is a
 * memset; other bracketed rows ("[Unified Memory Memcpy HtoD]", page faults)
 * are unified-memory events, not GPU work the application launched, and are
 * left out (nvprof's own summary lists them apart from GPU activities too);
 * every other name is a kernel. Device is "NAME (ID)".
 *
 * Summary rows (Type "GPU activities"; "API calls" rows are left out) go to
 * the sink's summary callback: the analyses use them for group fractions and
 * top kernels of a rank that has no timeline.
 *
 * Sections other than these two tables ("Unified Memory profiling result",
 * API trace) are skipped. A value that is not a number, a unit not known,
 * a row with the wrong number of fields: exit 1 naming FILE:LINE and the
 * column.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/csv_read.h"
#include "ingest/ingest.h"

enum table_kind { TBL_NONE, TBL_TRACE, TBL_SUMMARY };

/* Columns the reader uses; -1 when the header lacks one. */
enum col {
	C_START, C_DURATION, C_SIZE, C_SRC_MEM, C_DST_MEM, C_DEVICE, C_STREAM, C_NAME, C_CORR,
	C_TYPE, C_PCT, C_TIME, C_CALLS, C_AVG, C_MIN, C_MAX, NCOLS
};
static const char *const col_names[NCOLS] = {
	"Start", "Duration", "Size", "SrcMemType", "DstMemType", "Device", "Stream", "Name", "Correlation_ID",
	"Type", "Time(%)", "Time", "Calls", "Avg", "Min", "Max",
};

struct device_seen {
	int id;
	char *name;
};

struct pctx {
	const struct source *src;
	const struct ingest_sink *sink;
	struct ingest_counts *counts;
	enum table_kind table;
	int need_units;
	size_t nfields;
	int col[NCOLS];
	int time_scale[NCOLS]; /* power of ten to ns for time columns */
	int size_shift;        /* power of 1024 to bytes for Size */
	struct device_seen *devs;
	size_t ndevs;
	int64_t warned;
};

/* A known table header: 1 trace, 2 summary, 0 none. */
static enum table_kind header_kind(const struct csv_record *rec)
{
	if (rec->n >= 2 && !strcmp(rec->fields[0], "Start") && !strcmp(rec->fields[1], "Duration"))
		return csv_find(rec, "Name") >= 0 && csv_find(rec, "Device") >= 0 ? TBL_TRACE : TBL_NONE;
	if (csv_find(rec, "Time(%)") >= 0 && csv_find(rec, "Calls") >= 0 && csv_find(rec, "Name") >= 0)
		return TBL_SUMMARY;
	return TBL_NONE;
}

static int nvprof_detect(const char *head, size_t n)
{
	/* Past nvprof's "==PID==" lines, the first line is one of its table headers. */
	size_t i = 0;
	while (i + 2 <= n && head[i] == '=' && head[i + 1] == '=') {
		/* A CR alone ends a line too, so that a CR-only file is ours and nvprof_read says what is wrong. */
		while (i < n && head[i] != '\n' && head[i] != '\r')
			i++;
		if (i + 1 < n && head[i] == '\r' && head[i + 1] == '\n')
			i++;
		i++;
	}
	if (i >= n)
		return 0;
	static const char *const heads[] = {"\"Start\",\"Duration\",", "\"Type\",\"Time(%)\",", "\"Time(%)\",\"Time\","};
	for (size_t k = 0; k < sizeof(heads) / sizeof(heads[0]); k++) {
		size_t m = strlen(heads[k]);
		if (n - i >= m && !memcmp(head + i, heads[k], m))
			return 1;
	}
	return 0;
}

static void where(const struct pctx *c, int line, struct buf *b)
{
	buf_reset(b);
	buf_printf(b, "%s:%d", c->src->path, line);
}

static int bad_value(const struct pctx *c, int line, enum col col, const char *text, const char *what)
{
	struct buf b;
	buf_init(&b);
	where(c, line, &b);
	diag_error(b.data, "column '%s': %s, got '%.60s'", col_names[col], what, text);
	buf_release(&b);
	return -1;
}

static int time_unit(const char *u)
{
	return !strcmp(u, "s") ? 9 : !strcmp(u, "ms") ? 6 : !strcmp(u, "us") ? 3 : !strcmp(u, "ns") ? 0 : -1;
}

static int size_unit(const char *u)
{
	return !strcmp(u, "B") ? 0 : !strcmp(u, "KB") ? 1 : !strcmp(u, "MB") ? 2 : !strcmp(u, "GB") ? 3 : -1;
}

static int set_header(struct pctx *c, const struct csv_record *rec, enum table_kind kind)
{
	c->table = kind;
	c->need_units = 1;
	c->nfields = rec->n;
	for (int i = 0; i < NCOLS; i++)
		c->col[i] = csv_find(rec, col_names[i]);
	static const enum col trace_req[] = {C_START, C_DURATION, C_NAME};
	static const enum col sum_req[] = {C_TIME, C_CALLS, C_NAME};
	const enum col *req = kind == TBL_TRACE ? trace_req : sum_req;
	for (int i = 0; i < 3; i++)
		if (c->col[req[i]] < 0) {
			struct buf b;
			buf_init(&b);
			where(c, rec->line, &b);
			diag_error(b.data, "nvprof header without a '%s' column", col_names[req[i]]);
			buf_release(&b);
			return -1;
		}
	return 0;
}

/* The units row under a header: every time column gets its scale, Size its multiple. */
static int set_units(struct pctx *c, const struct csv_record *rec)
{
	static const enum col times[] = {C_START, C_DURATION, C_TIME, C_AVG, C_MIN, C_MAX};
	c->need_units = 0;
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++) {
		int k = c->col[times[i]];
		if (k < 0)
			continue;
		const char *u = (size_t)k < rec->n ? rec->fields[k] : "";
		if ((c->time_scale[times[i]] = time_unit(u)) < 0)
			return bad_value(c, rec->line, times[i], u, "expected a time unit (s, ms, us or ns) in the units row");
	}
	c->size_shift = 0;
	if (c->col[C_SIZE] >= 0) {
		const char *u = (size_t)c->col[C_SIZE] < rec->n ? rec->fields[c->col[C_SIZE]] : "";
		if ((c->size_shift = size_unit(u)) < 0)
			return bad_value(c, rec->line, C_SIZE, u, "expected a size unit (B, KB, MB or GB) in the units row");
	}
	return 0;
}

static const char *field(const struct pctx *c, const struct csv_record *rec, enum col col)
{
	int k = c->col[col];
	return k >= 0 && (size_t)k < rec->n ? rec->fields[k] : "";
}

/* A time column to ns: 0, 1 when empty (v = -1), -1 after diag. */
static int get_time(const struct pctx *c, const struct csv_record *rec, enum col col, int64_t *v)
{
	const char *t = field(c, rec, col);
	*v = -1;
	if (!*t)
		return 1;
	if (parse_decimal_scaled(t, strlen(t), c->time_scale[col], v) < 0 || *v < 0)
		return bad_value(c, rec->line, col, t, "expected a non-negative number");
	return 0;
}

static int get_int(const struct pctx *c, const struct csv_record *rec, enum col col, int64_t *v)
{
	const char *t = field(c, rec, col);
	*v = -1;
	if (!*t)
		return 1;
	if (parse_decimal_scaled(t, strlen(t), 0, v) < 0 || *v < 0)
		return bad_value(c, rec->line, col, t, "expected a non-negative integer");
	return 0;
}

/*
 * Size in bytes: the decimal text times 1024^shift, rounded to the nearest
 * byte. The text is read exactly in millionths (nvprof prints 6 decimals).
 */
static int get_bytes(const struct pctx *c, const struct csv_record *rec, int64_t *v)
{
	const char *t = field(c, rec, C_SIZE);
	*v = -1;
	if (!*t)
		return 1;
	int64_t micro;
	if (parse_decimal_scaled(t, strlen(t), 6, &micro) < 0 || micro < 0)
		return bad_value(c, rec->line, C_SIZE, t, "expected a non-negative number");
	unsigned __int128 b = (unsigned __int128)micro << (10 * c->size_shift);
	b = (b + 500000) / 1000000;
	if (b > INT64_MAX)
		return bad_value(c, rec->line, C_SIZE, t, "size beyond 2^63 bytes");
	*v = (int64_t)b;
	return 0;
}

/* "TITAN Xp (0)" -> 0, remembered with its name for the trace's devices. */
static int device_of(struct pctx *c, const char *text)
{
	size_t n = strlen(text);
	if (n < 4 || text[n - 1] != ')')
		return -1;
	size_t open = n - 1;
	while (open > 0 && text[open] != '(')
		open--;
	if (text[open] != '(' || open + 1 >= n - 1)
		return -1;
	int64_t id;
	if (parse_decimal_scaled(text + open + 1, n - 2 - open, 0, &id) < 0 || id < 0 || id > INT32_MAX)
		return -1;
	for (size_t i = 0; i < c->ndevs; i++)
		if (c->devs[i].id == id)
			return (int)id;
	c->devs = xrealloc(c->devs, (c->ndevs + 1) * sizeof(*c->devs));
	size_t end = open;
	while (end > 0 && text[end - 1] == ' ')
		end--;
	c->devs[c->ndevs].id = (int)id;
	c->devs[c->ndevs].name = xstrndup(text, end);
	c->ndevs++;
	return (int)id;
}

/* What a Name says: kernel, memcpy (with *copy_kind), memset, or 0 for the rows left out. */
static enum activity_kind kind_of_name(const char *name, char copy_kind[8])
{
	copy_kind[0] = '\0';
	if (!strncmp(name, "[CUDA memcpy ", 13)) {
		const char *k = name + 13;
		size_t n = strlen(k);
		if (n >= 2 && n <= 7 && k[n - 1] == ']') {
			memcpy(copy_kind, k, n - 1);
			copy_kind[n - 1] = '\0';
		}
		return ACT_MEMCPY;
	}
	if (!strcmp(name, "[CUDA memset]"))
		return ACT_MEMSET;
	if (name[0] == '[')
		return 0;
	return ACT_KERNEL;
}

static void activity_name(struct buf *out, enum activity_kind kind, const char *name, const char *ck,
			  const char *src_mem, const char *dst_mem)
{
	buf_reset(out);
	if (kind == ACT_MEMCPY) {
		buf_printf(out, "Memcpy %s", *ck ? ck : "Unknown");
		if (*src_mem && *dst_mem)
			buf_printf(out, " (%s -> %s)", src_mem, dst_mem);
	} else if (kind == ACT_MEMSET) {
		/* nvprof puts a memset's memory type in SrcMemType. */
		const char *m = *src_mem ? src_mem : dst_mem;
		if (*m)
			buf_printf(out, "Memset (%s)", m);
		else
			buf_adds(out, "Memset");
	} else {
		buf_adds(out, name);
	}
}

static int trace_row(struct pctx *c, const struct csv_record *rec, struct buf *name)
{
	c->counts->events++;
	if (rec->n != c->nfields) {
		struct buf b;
		buf_init(&b);
		where(c, rec->line, &b);
		diag_error(b.data, "expected %zu fields as in the header, got %zu", c->nfields, rec->n);
		buf_release(&b);
		return -1;
	}
	char ck[8];
	enum activity_kind kind = kind_of_name(field(c, rec, C_NAME), ck);
	if (!kind)
		return 0;
	int64_t start, dur, bytes = -1, stream, corr;
	if (get_time(c, rec, C_START, &start) != 0 || get_time(c, rec, C_DURATION, &dur) < 0 ||
	    get_int(c, rec, C_STREAM, &stream) < 0 || get_int(c, rec, C_CORR, &corr) < 0 ||
	    (kind != ACT_KERNEL && get_bytes(c, rec, &bytes) < 0)) {
		if (field(c, rec, C_START)[0])
			return -1;
		return bad_value(c, rec->line, C_START, "", "expected a start time");
	}
	if (dur < 0) {
		c->counts->skipped++;
		if (c->warned++ < 5) {
			struct buf b;
			buf_init(&b);
			where(c, rec->line, &b);
			diag_warning(b.data, "skipped row '%.80s': no duration", field(c, rec, C_NAME));
			buf_release(&b);
		}
		return 0;
	}
	if (start > INT64_MAX - dur)
		return bad_value(c, rec->line, C_DURATION, field(c, rec, C_DURATION), "start + duration beyond int64 ns");
	activity_name(name, kind, field(c, rec, C_NAME), ck, field(c, rec, C_SRC_MEM), field(c, rec, C_DST_MEM));
	struct gpu_activity a = {
		.kind = kind,
		.name = name->data,
		.start_ns = start,
		.dur_ns = dur,
		.device = device_of(c, field(c, rec, C_DEVICE)),
		.stream = stream,
		.correlation = corr,
		.bytes = bytes,
		.copy_kind = kind == ACT_MEMCPY && ck[0] ? ck : NULL,
	};
	if (kind == ACT_KERNEL)
		c->counts->kernels++;
	else if (kind == ACT_MEMCPY)
		c->counts->memcpys++;
	else
		c->counts->memsets++;
	return c->sink->activity && c->sink->activity(c->sink->ctx, &a) ? -1 : 0;
}

static int summary_row(struct pctx *c, const struct csv_record *rec, struct buf *name)
{
	c->counts->events++;
	/* nvprof 9+ has a Type column; only its GPU rows are GPU work. */
	if (c->col[C_TYPE] >= 0 && strcmp(field(c, rec, C_TYPE), "GPU activities"))
		return 0;
	char ck[8];
	enum activity_kind kind = kind_of_name(field(c, rec, C_NAME), ck);
	if (!kind)
		return 0;
	int64_t total, calls, avg, mn, mx;
	if (get_time(c, rec, C_TIME, &total) < 0 || get_int(c, rec, C_CALLS, &calls) < 0 ||
	    get_time(c, rec, C_AVG, &avg) < 0 || get_time(c, rec, C_MIN, &mn) < 0 || get_time(c, rec, C_MAX, &mx) < 0)
		return -1;
	if (total < 0 || calls < 0)
		return bad_value(c, rec->line, total < 0 ? C_TIME : C_CALLS, "", "expected a value");
	double pct = -1;
	const char *p = field(c, rec, C_PCT);
	if (*p) {
		char *end;
		pct = strtod(p, &end);
		if (*end || pct < 0 || pct > 100.0001)
			return bad_value(c, rec->line, C_PCT, p, "expected a percentage");
	}
	activity_name(name, kind, field(c, rec, C_NAME), ck, "", "");
	struct summary_row s = {
		.kind = kind,
		.name = name->data,
		.copy_kind = kind == ACT_MEMCPY && ck[0] ? ck : NULL,
		.calls = calls,
		.total_ns = total,
		.min_ns = mn,
		.max_ns = mx,
		.avg_ns = avg,
		.time_pct = pct,
	};
	c->counts->summaries++;
	return c->sink->summary && c->sink->summary(c->sink->ctx, &s) ? -1 : 0;
}

static int nvprof_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct pctx c = {.src = src, .sink = sink, .counts = counts};
	struct csv_reader r;
	struct csv_record rec;
	struct buf name;
	memset(&rec, 0, sizeof(rec));
	buf_init(&name);
	csv_init(&r, src->data, src->len, "==");
	int ret = -1, rc, tables = 0;
	/*
	 * Lines ended by CR alone (old Mac line ends, or a botched conversion)
	 * made one long line of the file, said to be "not a Kineto JSON trace";
	 * say what it is instead.
	 */
	if (src->len && memchr(src->data, '\r', src->len) && !memchr(src->data, '\n', src->len)) {
		diag_error(src->path, "lines end in CR alone, not LF or CRLF (convert them, e.g. tr '\\r' '\\n')");
		goto out;
	}
	while ((rc = csv_next(&r, &rec)) == 1) {
		enum table_kind k = header_kind(&rec);
		if (k != TBL_NONE) {
			if (set_header(&c, &rec, k) < 0)
				goto out;
			tables++;
			continue;
		}
		if (c.table == TBL_NONE)
			continue;
		if (c.need_units) {
			if (set_units(&c, &rec) < 0)
				goto out;
			continue;
		}
		/* Another section's header ends a summary ("Device","Count",... of unified memory). */
		if (c.table == TBL_SUMMARY && c.col[C_TYPE] >= 0 && rec.n && !strcmp(rec.fields[0], "Device")) {
			c.table = TBL_NONE;
			continue;
		}
		if ((c.table == TBL_TRACE ? trace_row(&c, &rec, &name) : summary_row(&c, &rec, &name)) < 0)
			goto out;
	}
	if (rc < 0) {
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s:%d:%d", src->path, r.err_line, r.err_col);
		diag_error(b.data, "malformed CSV at byte %zu: %s", r.err_offset, r.err_msg);
		buf_release(&b);
		goto out;
	}
	if (!tables) {
		diag_error(src->path, "nvprof output without a GPU trace or GPU summary table");
		goto out;
	}
	if (counts->skipped > 5)
		diag_warning(src->path, "skipped %" PRId64 " rows without a duration in all", counts->skipped);
	struct device_info *devs = xcalloc(c.ndevs ? c.ndevs : 1, sizeof(*devs));
	for (size_t i = 0; i < c.ndevs; i++)
		devs[i] = (struct device_info){.id = c.devs[i].id, .name = c.devs[i].name, .total_mem = -1,
					       .sm_count = -1, .cc_major = -1, .cc_minor = -1};
	struct trace_info info = {
		.format = "nvprof",
		.rank = -1,
		.world_size = -1,
		.epoch_offset_ns = -1,
		.ndevices = c.ndevs,
		.devices = devs,
	};
	ret = sink->info && sink->info(sink->ctx, &info) ? -1 : 0;
	free(devs);
out:
	for (size_t i = 0; i < c.ndevs; i++)
		free(c.devs[i].name);
	free(c.devs);
	csv_record_release(&rec);
	buf_release(&name);
	return ret;
}

const struct reader nvprof_reader = {
	.name = "nvprof",
	.detect = nvprof_detect,
	.read = nvprof_read,
	.rank_suffixes = (const char *const[]){".csv", NULL},
};
