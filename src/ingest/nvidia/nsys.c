/*
 * nsys.c: the reader for Nsight Systems SQLite exports (`nsys export
 * --type sqlite`, schema 2.x of nsys 2022 to 3.x of nsys 2024 and later).
 *
 * What is read, and from where:
 *   CUPTI_ACTIVITY_KIND_KERNEL    kernels; the name is StringIds[demangledName]
 *                                 (the full demangled signature, as Kineto
 *                                 names kernels), else StringIds[shortName]
 *   CUPTI_ACTIVITY_KIND_MEMCPY    copies; copyKind is CUPTI's memcpy kind
 *                                 (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...), kinds
 *                                 past 10 by ENUM_CUDA_MEMCPY_OPER's label
 *   CUPTI_ACTIVITY_KIND_MEMSET    sets
 *   CUPTI_ACTIVITY_KIND_RUNTIME   CUDA runtime calls (names through StringIds)
 *   NVTX_EVENTS                   push/pop and start/end ranges (eventType 59,
 *                                 60) as host annotations, named by `text` or
 *                                 StringIds[textId]; ProfilerStep#N counts as
 *                                 a step like Kineto's
 *   TARGET_INFO_GPU               devices: name, memory, SMs, compute
 *                                 capability, memory bandwidth
 *   TARGET_INFO_SESSION_START_TIME  epoch offset (times are ns from the
 *                                 session start)
 * A table that is absent means no such events: nsys 2024's lazy export
 * writes only the tables it has rows for. A table that is present must have
 * the columns read (else exit 1 naming the table and column), and times
 * must be integers. Times are already integer nanoseconds.
 *
 * nsys records no rank: a file is one rank, its position among the run's
 * files (or the manifest's order). A file whose GPU activities come from
 * more than one process (an MPI job profiled into one report) is still read
 * as one rank, with a warning.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/sqlitedb.h"

#define NVTX_PUSHPOP_RANGE 59
#define NVTX_STARTEND_RANGE 60

/* An nsys export has StringIds and at least one of its own tables. */
static int nsys_detect_source(const struct source *src)
{
	static const char *const own[] = {"TARGET_INFO_GPU", "CUPTI_ACTIVITY_KIND_KERNEL", "EXPORT_META_DATA",
					  "META_DATA_EXPORT", "TARGET_INFO_SESSION_START_TIME", NULL};
	return sdb_detect_tables(src, "StringIds", own);
}

/* start, end of the current row (columns 0 and 1, rowid in 2); 1: use, 0: skipped, -1: error. */
static int row_times(struct sdb_reader *c, const char *table, sqlite3_stmt *st, int64_t *start, int64_t *dur)
{
	int64_t end, rowid = sqlite3_column_int64(st, 2);
	if (sdb_int(c->src, table, st, 0, 0, start) < 0 || sdb_int(c->src, table, st, 1, 0, &end) < 0)
		return -1;
	if (end < *start) {
		sdb_skip_row(c, table, rowid, "'end' before 'start'");
		return 0;
	}
	if (*start < 0) {
		sdb_skip_row(c, table, rowid, "negative 'start'");
		return 0;
	}
	*dur = end - *start;
	return 1;
}

static int kernel_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	int64_t start, dur, dev, stream, corr;
	int use = row_times(c, T, st, &start, &dur);
	if (use < 0 || sdb_int(c->src, T, st, 3, 1, &dev) < 0 || sdb_int(c->src, T, st, 4, 1, &stream) < 0 ||
	    sdb_int(c->src, T, st, 5, 1, &corr) < 0)
		return -1;
	if (!use)
		return 0;
	const char *name = sdb_text(c, st, 6);
	if (!name) {
		sdb_skip_row(c, T, sqlite3_column_int64(st, 2), "kernel name not in StringIds");
		return 0;
	}
	struct gpu_activity a = {
		.kind = ACT_KERNEL,
		.name = name,
		.start_ns = start,
		.dur_ns = dur,
		.device = dev >= 0 && dev <= INT32_MAX ? (int)dev : -1,
		.stream = stream,
		.correlation = corr,
		.bytes = -1,
	};
	return sdb_activity(c, &a);
}

static int read_kernels(struct sdb_reader *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_KERNEL";
	static const char *const cols[] = {"start", "end", "deviceId", "streamId", NULL};
	int have = sdb_table(c, T, cols);
	if (have <= 0)
		return have;
	int demangled = sdb_has_column(c->db, T, "demangledName"), shortn = sdb_has_column(c->db, T, "shortName");
	if (!demangled && !shortn) {
		sdb_error(c->src, T, "no column 'demangledName' or 'shortName' (not a profiler export this reader knows)");
		return -1;
	}
	struct buf sql;
	buf_init(&sql);
	buf_printf(&sql, "SELECT k.start, k.end, k.rowid, k.deviceId, k.streamId, %s, coalesce(%s, %s) FROM %s k%s%s",
		   sdb_has_column(c->db, T, "correlationId") ? "k.correlationId" : "NULL",
		   demangled ? "d.value" : "NULL", shortn ? "s.value" : "NULL", T,
		   demangled ? " LEFT JOIN StringIds d ON d.id = k.demangledName" : "",
		   shortn ? " LEFT JOIN StringIds s ON s.id = k.shortName" : "");
	int ret = sdb_each_row(c, T, sql.data, kernel_row, NULL);
	buf_release(&sql);
	return ret;
}

/* Memcpy kind past CUPTI's first eleven: the export's own label, e.g. "Unified Host-to-Device". */
static const char *copy_kind_label(struct sdb_reader *c, int64_t kind, struct buf *out)
{
	const char *k = cupti_copy_kind(kind);
	if (k)
		return k;
	buf_reset(out);
	if (sdb_has_table(c->db, "ENUM_CUDA_MEMCPY_OPER")) {
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(c->db, "SELECT coalesce(label, name) FROM ENUM_CUDA_MEMCPY_OPER WHERE id = ?1", -1,
				       &st, NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, kind);
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
				buf_adds(out, (const char *)sqlite3_column_text(st, 0));
			sqlite3_finalize(st);
		}
	}
	if (!out->len)
		buf_printf(out, "kind %" PRId64, kind);
	return out->data;
}

/* A copy or set row's state: which, and the buffers its names are built in. */
struct copy_rows {
	int is_set;
	struct buf name, label;
};

static int copy_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	struct copy_rows *cr = arg;
	int is_set = cr->is_set;
	int64_t start, dur, dev, stream, corr, bytes, kind = -1, k1, k2;
	int use = row_times(c, T, st, &start, &dur);
	if (use < 0 || sdb_int(c->src, T, st, 3, 1, &dev) < 0 || sdb_int(c->src, T, st, 4, 1, &stream) < 0 ||
	    sdb_int(c->src, T, st, 5, 1, &corr) < 0 || sdb_int(c->src, T, st, 6, 1, &bytes) < 0 ||
	    (!is_set && sdb_int(c->src, T, st, 7, 0, &kind) < 0) || sdb_int(c->src, T, st, 8, 1, &k1) < 0 ||
	    sdb_int(c->src, T, st, 9, 1, &k2) < 0)
		return -1;
	if (!use)
		return 0;
	const char *ck = is_set ? NULL : copy_kind_label(c, kind, &cr->label);
	buf_reset(&cr->name);
	if (is_set)
		cupti_memset_name(&cr->name, k1);
	else
		cupti_memcpy_name(&cr->name, ck, k1, k2);
	struct gpu_activity a = {
		.kind = is_set ? ACT_MEMSET : ACT_MEMCPY,
		.name = cr->name.data,
		.start_ns = start,
		.dur_ns = dur,
		.device = dev >= 0 && dev <= INT32_MAX ? (int)dev : -1,
		.stream = stream,
		.correlation = corr,
		.bytes = bytes,
		.copy_kind = ck,
	};
	return sdb_activity(c, &a);
}

/* Memcpy (is_set 0) or memset (1) rows. */
static int read_copies(struct sdb_reader *c, int is_set)
{
	const char *T = is_set ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
	static const char *const cpy_cols[] = {"start", "end", "deviceId", "streamId", "bytes", "copyKind", NULL};
	static const char *const set_cols[] = {"start", "end", "deviceId", "streamId", "bytes", NULL};
	int have = sdb_table(c, T, is_set ? set_cols : cpy_cols);
	if (have <= 0)
		return have;
	struct copy_rows cr = {.is_set = is_set};
	struct buf sql;
	buf_init(&sql);
	buf_init(&cr.name);
	buf_init(&cr.label);
	buf_printf(&sql, "SELECT start, end, rowid, deviceId, streamId, %s, bytes, %s, %s, %s FROM %s",
		   sdb_has_column(c->db, T, "correlationId") ? "correlationId" : "NULL",
		   is_set ? "NULL" : "copyKind",
		   is_set ? (sdb_has_column(c->db, T, "memKind") ? "memKind" : "NULL")
			  : (sdb_has_column(c->db, T, "srcKind") ? "srcKind" : "NULL"),
		   !is_set && sdb_has_column(c->db, T, "dstKind") ? "dstKind" : "NULL", T);
	int ret = sdb_each_row(c, T, sql.data, copy_row, &cr);
	buf_release(&sql);
	buf_release(&cr.name);
	buf_release(&cr.label);
	return ret;
}

/* The thread id inside nsys's serialized globalTid (pid and tid in 24-bit fields). */
static int64_t tid_of(int64_t global_tid)
{
	return global_tid < 0 ? -1 : global_tid % 0x1000000;
}

static int runtime_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	int64_t start, dur, corr, gtid;
	int use = row_times(c, T, st, &start, &dur);
	if (use < 0 || sdb_int(c->src, T, st, 3, 1, &corr) < 0 || sdb_int(c->src, T, st, 4, 1, &gtid) < 0)
		return -1;
	const char *name = sdb_text(c, st, 5);
	if (!use)
		return 0;
	if (!name) {
		sdb_skip_row(c, T, sqlite3_column_int64(st, 2), "runtime call name not in StringIds");
		return 0;
	}
	struct runtime_call r = {
		.name = name,
		.start_ns = start,
		.dur_ns = dur,
		.correlation = corr,
		.tid = tid_of(gtid),
	};
	c->counts->runtime++;
	return c->sink->runtime && c->sink->runtime(c->sink->ctx, &r) ? -1 : 0;
}

static int read_runtime(struct sdb_reader *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_RUNTIME";
	static const char *const cols[] = {"start", "end", "nameId", NULL};
	int have = sdb_table(c, T, cols);
	if (have <= 0)
		return have;
	struct buf sql;
	buf_init(&sql);
	buf_printf(&sql, "SELECT r.start, r.end, r.rowid, %s, %s, s.value FROM %s r LEFT JOIN StringIds s ON s.id = r.nameId",
		   sdb_has_column(c->db, T, "correlationId") ? "r.correlationId" : "NULL",
		   sdb_has_column(c->db, T, "globalTid") ? "r.globalTid" : "NULL", T);
	int ret = sdb_each_row(c, T, sql.data, runtime_row, NULL);
	buf_release(&sql);
	return ret;
}

static int nvtx_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	int64_t start, dur, gtid;
	int use = row_times(c, T, st, &start, &dur);
	if (use < 0 || sdb_int(c->src, T, st, 3, 1, &gtid) < 0)
		return -1;
	const char *name = sdb_text(c, st, 4);
	if (!use || !name || !*name)
		return 0; /* an unnamed range says nothing a report can show */
	struct annotation an = {
		.name = name,
		.start_ns = start,
		.dur_ns = dur,
		.on_gpu = 0,
		.tid = tid_of(gtid),
	};
	return sdb_annotation(c, &an);
}

/* NVTX ranges; marks, domain and thread names (other eventTypes) are not ranges and are left out. */
static int read_nvtx(struct sdb_reader *c)
{
	static const char T[] = "NVTX_EVENTS";
	static const char *const cols[] = {"start", "end", "eventType", NULL};
	int have = sdb_table(c, T, cols);
	if (have <= 0)
		return have;
	int text = sdb_has_column(c->db, T, "text"), text_id = sdb_has_column(c->db, T, "textId");
	struct buf sql;
	buf_init(&sql);
	buf_printf(&sql, "SELECT n.start, n.end, n.rowid, %s, coalesce(%s, %s) FROM %s n%s"
		   " WHERE n.eventType IN (%d, %d) AND n.end IS NOT NULL",
		   sdb_has_column(c->db, T, "globalTid") ? "n.globalTid" : "NULL", text ? "n.text" : "NULL",
		   text_id ? "s.value" : "NULL", T, text_id ? " LEFT JOIN StringIds s ON s.id = n.textId" : "",
		   NVTX_PUSHPOP_RANGE, NVTX_STARTEND_RANGE);
	int ret = sdb_each_row(c, T, sql.data, nvtx_row, NULL);
	buf_release(&sql);
	return ret;
}

static const char *col_or_null(struct sdb_reader *c, const char *table, const char *col)
{
	return sdb_has_column(c->db, table, col) ? col : "NULL";
}

/* Devices and the epoch offset, then the sink's info callback. */
static int read_info(struct sdb_reader *c)
{
	static const char T[] = "TARGET_INFO_GPU";
	static const char *const cols[] = {"id", NULL};
	int64_t epoch = -1;
	if (sdb_has_table(c->db, "TARGET_INFO_SESSION_START_TIME") &&
	    sdb_has_column(c->db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs") &&
	    sdb_query_int(c->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", &epoch) < 0)
		epoch = -1;
	struct buf sql;
	buf_init(&sql);
	buf_printf(&sql, "SELECT id, %s, %s, %s, %s, %s, %s FROM %s ORDER BY id", col_or_null(c, T, "name"),
		   col_or_null(c, T, "totalMemory"), col_or_null(c, T, "smCount"), col_or_null(c, T, "computeMajor"),
		   col_or_null(c, T, "computeMinor"), col_or_null(c, T, "memoryBandwidth"), T);
	int ret = sdb_send_info(c, "nsys", T, cols, sql.data, 1, epoch);
	buf_release(&sql);
	return ret;
}

/* Processes whose GPU work the file holds (kernel, memcpy and memset globalPid). */
static void warn_processes(struct sdb_reader *c)
{
	static const char *const tables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
					     "CUPTI_ACTIVITY_KIND_MEMSET"};
	struct buf sql;
	buf_init(&sql);
	for (size_t i = 0; i < 3; i++) {
		if (!sdb_has_table(c->db, tables[i]) || !sdb_has_column(c->db, tables[i], "globalPid"))
			continue;
		buf_printf(&sql, "%sSELECT globalPid FROM %s", sql.len ? " UNION " : "", tables[i]);
	}
	if (sql.len) {
		char *q = xasprintf("SELECT count(*) FROM (%s)", sql.data);
		int64_t n;
		if (sdb_query_int(c->db, q, &n) == 0 && n > 1)
			diag_warning(c->src->path, "GPU activities of %lld processes; read as one rank (nsys records no rank)",
				     (long long)n);
		free(q);
	}
	buf_release(&sql);
}

static int nsys_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct sdb_reader c = {.src = src, .sink = sink, .counts = counts, .id_name = "rowid"};
	static const char *const string_cols[] = {"id", "value", NULL};
	if (sdb_reader_open(&c, "StringIds", string_cols) < 0)
		return -1;
	int ret = -1;
	if (read_kernels(&c) == 0 && read_copies(&c, 0) == 0 && read_copies(&c, 1) == 0 && read_runtime(&c) == 0 &&
	    read_nvtx(&c) == 0) {
		warn_processes(&c);
		sdb_skipped_total(&c);
		ret = read_info(&c);
	}
	return sdb_reader_close(&c, ret);
}

const struct reader nsys_reader = {
	.name = "nsys",
	.detect = sdb_magic,
	.detect_source = nsys_detect_source,
	.read = nsys_read,
	.rank_suffixes = (const char *const[]){".sqlite", NULL},
};
