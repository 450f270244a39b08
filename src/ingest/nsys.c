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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/sqlitedb.h"

#define NVTX_PUSHPOP_RANGE 59
#define NVTX_STARTEND_RANGE 60

struct nctx {
	const struct source *src;
	sqlite3 *db;
	const struct ingest_sink *sink;
	struct ingest_counts *counts;
	int64_t warned;
};

static int nsys_detect(const char *head, size_t n)
{
	return sdb_magic(head, n);
}

/* An nsys export has StringIds and at least one of its own tables. */
static int nsys_detect_source(const struct source *src)
{
	sqlite3 *db;
	if (sdb_open(src, 1, &db) < 0)
		return 0;
	int r = sdb_has_table(db, "StringIds") &&
		(sdb_has_table(db, "TARGET_INFO_GPU") || sdb_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL") ||
		 sdb_has_table(db, "EXPORT_META_DATA") || sdb_has_table(db, "META_DATA_EXPORT") ||
		 sdb_has_table(db, "TARGET_INFO_SESSION_START_TIME"));
	sqlite3_close(db);
	return r;
}

static void warn_skip(struct nctx *c, const char *table, int64_t rowid, const char *what)
{
	c->counts->skipped++;
	if (c->warned++ < 5) {
		char where[512];
		snprintf(where, sizeof(where), "%s: table '%s', rowid %" PRId64, c->src->path, table, rowid);
		diag_warning(where, "skipped row: %s", what);
	}
}

/* start, end of the current row (columns 0 and 1, rowid in 2); 1: use, 0: skipped, -1: error. */
static int row_times(struct nctx *c, const char *table, sqlite3_stmt *st, int64_t *start, int64_t *dur)
{
	int64_t end, rowid = sqlite3_column_int64(st, 2);
	if (sdb_int(c->src, table, st, 0, 0, start) < 0 || sdb_int(c->src, table, st, 1, 0, &end) < 0)
		return -1;
	if (end < *start) {
		warn_skip(c, table, rowid, "'end' before 'start'");
		return 0;
	}
	if (*start < 0) {
		warn_skip(c, table, rowid, "negative 'start'");
		return 0;
	}
	*dur = end - *start;
	return 1;
}

static int read_kernels(struct nctx *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_KERNEL";
	static const char *const cols[] = {"start", "end", "deviceId", "streamId", NULL};
	if (!sdb_has_table(c->db, T))
		return 0;
	if (sdb_require_columns(c->src, c->db, T, cols) < 0)
		return -1;
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
	sqlite3_stmt *st;
	int ret = sdb_prepare(c->src, c->db, T, sql.data, &st);
	buf_release(&sql);
	if (ret < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->counts->events++;
		int64_t start, dur, dev, stream, corr;
		int use = row_times(c, T, st, &start, &dur);
		if (use < 0 || sdb_int(c->src, T, st, 3, 1, &dev) < 0 || sdb_int(c->src, T, st, 4, 1, &stream) < 0 ||
		    sdb_int(c->src, T, st, 5, 1, &corr) < 0)
			goto fail;
		if (!use)
			continue;
		const char *name = (const char *)sqlite3_column_text(st, 6);
		if (!name) {
			warn_skip(c, T, sqlite3_column_int64(st, 2), "kernel name not in StringIds");
			continue;
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
		c->counts->kernels++;
		if (c->sink->activity && c->sink->activity(c->sink->ctx, &a))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		sdb_error(c->src, T, "%s", sqlite3_errmsg(c->db));
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

/* Memcpy kind past CUPTI's first eleven: the export's own label, e.g. "Unified Host-to-Device". */
static const char *copy_kind_label(struct nctx *c, int64_t kind, struct buf *out)
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

/* Memcpy (is_set 0) or memset (1) rows. */
static int read_copies(struct nctx *c, int is_set)
{
	const char *T = is_set ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
	static const char *const cpy_cols[] = {"start", "end", "deviceId", "streamId", "bytes", "copyKind", NULL};
	static const char *const set_cols[] = {"start", "end", "deviceId", "streamId", "bytes", NULL};
	if (!sdb_has_table(c->db, T))
		return 0;
	if (sdb_require_columns(c->src, c->db, T, is_set ? set_cols : cpy_cols) < 0)
		return -1;
	struct buf sql, name, label;
	buf_init(&sql);
	buf_init(&name);
	buf_init(&label);
	buf_printf(&sql, "SELECT start, end, rowid, deviceId, streamId, %s, bytes, %s, %s, %s FROM %s",
		   sdb_has_column(c->db, T, "correlationId") ? "correlationId" : "NULL",
		   is_set ? "NULL" : "copyKind",
		   is_set ? (sdb_has_column(c->db, T, "memKind") ? "memKind" : "NULL")
			  : (sdb_has_column(c->db, T, "srcKind") ? "srcKind" : "NULL"),
		   !is_set && sdb_has_column(c->db, T, "dstKind") ? "dstKind" : "NULL", T);
	sqlite3_stmt *st;
	int ret = sdb_prepare(c->src, c->db, T, sql.data, &st);
	buf_release(&sql);
	if (ret < 0)
		goto out;
	ret = -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->counts->events++;
		int64_t start, dur, dev, stream, corr, bytes, kind = -1, k1, k2;
		int use = row_times(c, T, st, &start, &dur);
		if (use < 0 || sdb_int(c->src, T, st, 3, 1, &dev) < 0 || sdb_int(c->src, T, st, 4, 1, &stream) < 0 ||
		    sdb_int(c->src, T, st, 5, 1, &corr) < 0 || sdb_int(c->src, T, st, 6, 1, &bytes) < 0 ||
		    (!is_set && sdb_int(c->src, T, st, 7, 0, &kind) < 0) || sdb_int(c->src, T, st, 8, 1, &k1) < 0 ||
		    sdb_int(c->src, T, st, 9, 1, &k2) < 0)
			goto done;
		if (!use)
			continue;
		const char *ck = is_set ? NULL : copy_kind_label(c, kind, &label);
		buf_reset(&name);
		if (is_set)
			cupti_memset_name(&name, k1);
		else
			cupti_memcpy_name(&name, ck, k1, k2);
		struct gpu_activity a = {
			.kind = is_set ? ACT_MEMSET : ACT_MEMCPY,
			.name = name.data,
			.start_ns = start,
			.dur_ns = dur,
			.device = dev >= 0 && dev <= INT32_MAX ? (int)dev : -1,
			.stream = stream,
			.correlation = corr,
			.bytes = bytes,
			.copy_kind = ck,
		};
		if (is_set)
			c->counts->memsets++;
		else
			c->counts->memcpys++;
		if (c->sink->activity && c->sink->activity(c->sink->ctx, &a))
			goto done;
	}
	if (rc != SQLITE_DONE) {
		sdb_error(c->src, T, "%s", sqlite3_errmsg(c->db));
		goto done;
	}
	ret = 0;
done:
	sqlite3_finalize(st);
out:
	buf_release(&name);
	buf_release(&label);
	return ret;
}

/* The thread id inside nsys's serialized globalTid (pid and tid in 24-bit fields). */
static int64_t tid_of(int64_t global_tid)
{
	return global_tid < 0 ? -1 : global_tid % 0x1000000;
}

static int read_runtime(struct nctx *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_RUNTIME";
	static const char *const cols[] = {"start", "end", "nameId", NULL};
	if (!sdb_has_table(c->db, T))
		return 0;
	if (sdb_require_columns(c->src, c->db, T, cols) < 0)
		return -1;
	struct buf sql;
	buf_init(&sql);
	buf_printf(&sql, "SELECT r.start, r.end, r.rowid, %s, %s, s.value FROM %s r LEFT JOIN StringIds s ON s.id = r.nameId",
		   sdb_has_column(c->db, T, "correlationId") ? "r.correlationId" : "NULL",
		   sdb_has_column(c->db, T, "globalTid") ? "r.globalTid" : "NULL", T);
	sqlite3_stmt *st;
	int ret = sdb_prepare(c->src, c->db, T, sql.data, &st);
	buf_release(&sql);
	if (ret < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->counts->events++;
		int64_t start, dur, corr, gtid;
		int use = row_times(c, T, st, &start, &dur);
		if (use < 0 || sdb_int(c->src, T, st, 3, 1, &corr) < 0 || sdb_int(c->src, T, st, 4, 1, &gtid) < 0)
			goto fail;
		const char *name = (const char *)sqlite3_column_text(st, 5);
		if (!use)
			continue;
		if (!name) {
			warn_skip(c, T, sqlite3_column_int64(st, 2), "runtime call name not in StringIds");
			continue;
		}
		struct runtime_call r = {
			.name = name,
			.start_ns = start,
			.dur_ns = dur,
			.correlation = corr,
			.tid = tid_of(gtid),
		};
		c->counts->runtime++;
		if (c->sink->runtime && c->sink->runtime(c->sink->ctx, &r))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		sdb_error(c->src, T, "%s", sqlite3_errmsg(c->db));
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

/* NVTX ranges; marks, domain and thread names (other eventTypes) are not ranges and are left out. */
static int read_nvtx(struct nctx *c)
{
	static const char T[] = "NVTX_EVENTS";
	static const char *const cols[] = {"start", "end", "eventType", NULL};
	if (!sdb_has_table(c->db, T))
		return 0;
	if (sdb_require_columns(c->src, c->db, T, cols) < 0)
		return -1;
	int text = sdb_has_column(c->db, T, "text"), text_id = sdb_has_column(c->db, T, "textId");
	struct buf sql;
	buf_init(&sql);
	buf_printf(&sql, "SELECT n.start, n.end, n.rowid, %s, coalesce(%s, %s) FROM %s n%s"
		   " WHERE n.eventType IN (%d, %d) AND n.end IS NOT NULL",
		   sdb_has_column(c->db, T, "globalTid") ? "n.globalTid" : "NULL", text ? "n.text" : "NULL",
		   text_id ? "s.value" : "NULL", T, text_id ? " LEFT JOIN StringIds s ON s.id = n.textId" : "",
		   NVTX_PUSHPOP_RANGE, NVTX_STARTEND_RANGE);
	sqlite3_stmt *st;
	int ret = sdb_prepare(c->src, c->db, T, sql.data, &st);
	buf_release(&sql);
	if (ret < 0)
		return -1;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->counts->events++;
		int64_t start, dur, gtid;
		int use = row_times(c, T, st, &start, &dur);
		if (use < 0 || sdb_int(c->src, T, st, 3, 1, &gtid) < 0)
			goto fail;
		const char *name = (const char *)sqlite3_column_text(st, 4);
		if (!use || !name || !*name)
			continue; /* an unnamed range says nothing a report can show */
		struct annotation an = {
			.name = name,
			.start_ns = start,
			.dur_ns = dur,
			.on_gpu = 0,
			.tid = tid_of(gtid),
		};
		c->counts->annotations++;
		if (!strncmp(name, "ProfilerStep#", 13))
			c->counts->steps++;
		if (c->sink->annotation && c->sink->annotation(c->sink->ctx, &an))
			goto fail;
	}
	if (rc != SQLITE_DONE) {
		sdb_error(c->src, T, "%s", sqlite3_errmsg(c->db));
		goto fail;
	}
	sqlite3_finalize(st);
	return 0;
fail:
	sqlite3_finalize(st);
	return -1;
}

static const char *col_or_null(struct nctx *c, const char *table, const char *col)
{
	return sdb_has_column(c->db, table, col) ? col : "NULL";
}

/* Devices and the epoch offset, then the sink's info callback. */
static int read_info(struct nctx *c)
{
	static const char T[] = "TARGET_INFO_GPU";
	struct device_info *devs = NULL;
	size_t n = 0, cap = 0;
	int ret = -1;
	sqlite3_stmt *st = NULL;
	if (sdb_has_table(c->db, T)) {
		static const char *const cols[] = {"id", NULL};
		if (sdb_require_columns(c->src, c->db, T, cols) < 0)
			return -1;
		struct buf sql;
		buf_init(&sql);
		buf_printf(&sql, "SELECT id, %s, %s, %s, %s, %s, %s FROM %s ORDER BY id", col_or_null(c, T, "name"),
			   col_or_null(c, T, "totalMemory"), col_or_null(c, T, "smCount"),
			   col_or_null(c, T, "computeMajor"), col_or_null(c, T, "computeMinor"),
			   col_or_null(c, T, "memoryBandwidth"), T);
		int r = sdb_prepare(c->src, c->db, T, sql.data, &st);
		buf_release(&sql);
		if (r < 0)
			return -1;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t v[7];
			for (int i = 0; i < 7; i++)
				if (i != 1 && sdb_int(c->src, T, st, i, i > 0, &v[i]) < 0)
					goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				devs = xrealloc(devs, cap * sizeof(*devs));
			}
			const char *name = (const char *)sqlite3_column_text(st, 1);
			devs[n] = (struct device_info){
				.id = v[0] >= 0 && v[0] <= INT32_MAX ? (int)v[0] : (int)n,
				.name = xstrdup(name ? name : ""),
				.total_mem = v[2],
				.sm_count = v[3] >= 0 && v[3] <= INT32_MAX ? (int)v[3] : -1,
				.cc_major = v[4] >= 0 && v[4] < 100 ? (int)v[4] : -1,
				.cc_minor = v[5] >= 0 && v[5] < 100 ? (int)v[5] : -1,
				.mem_bandwidth = v[6] > 0 ? v[6] : 0,
			};
			n++;
		}
		sqlite3_finalize(st);
		st = NULL;
	}
	int64_t epoch = -1;
	if (sdb_has_table(c->db, "TARGET_INFO_SESSION_START_TIME") &&
	    sdb_has_column(c->db, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs") &&
	    sqlite3_prepare_v2(c->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", -1, &st, NULL) ==
		    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
			epoch = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		st = NULL;
	}
	struct trace_info info = {
		.format = "nsys",
		.rank = -1,
		.world_size = -1,
		.epoch_offset_ns = epoch,
		.ndevices = n,
		.devices = devs,
	};
	ret = c->sink->info && c->sink->info(c->sink->ctx, &info) ? -1 : 0;
out:
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++)
		free((char *)devs[i].name);
	free(devs);
	return ret;
}

/* Processes whose GPU work the file holds (kernel, memcpy and memset globalPid). */
static void warn_processes(struct nctx *c)
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
		sqlite3_stmt *st;
		if (sqlite3_prepare_v2(c->db, q, -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 1)
				diag_warning(c->src->path,
					     "GPU activities of %lld processes; read as one rank (nsys records no rank)",
					     (long long)sqlite3_column_int64(st, 0));
			sqlite3_finalize(st);
		}
		free(q);
	}
	buf_release(&sql);
}

static int nsys_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct nctx c = {.src = src, .sink = sink, .counts = counts};
	if (sdb_open(src, 0, &c.db) < 0)
		return -1;
	int ret = -1;
	if (read_kernels(&c) < 0 || read_copies(&c, 0) < 0 || read_copies(&c, 1) < 0 || read_runtime(&c) < 0 ||
	    read_nvtx(&c) < 0)
		goto out;
	warn_processes(&c);
	if (counts->skipped > 5)
		diag_warning(src->path, "skipped %" PRId64 " malformed rows in all", counts->skipped);
	ret = read_info(&c);
out:
	sqlite3_close(c.db);
	return ret;
}

const struct reader nsys_reader = {
	.name = "nsys",
	.detect = nsys_detect,
	.detect_source = nsys_detect_source,
	.read = nsys_read,
};
