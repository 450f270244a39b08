/*
 * nvvp.c: the reader for nvprof's own output file (`nvprof -o FILE.nvvp`),
 * a SQLite database of CUPTI activity records (its Version table says 8 or
 * so); and the catch-all for SQLite files that are neither this nor an
 * Nsight Systems export.
 *
 *   CUPTI_ACTIVITY_KIND_KERNEL, _CONCURRENT_KERNEL   kernels; the name is
 *          StringTable[name], demangled when it is a mangled C++ symbol
 *   CUPTI_ACTIVITY_KIND_MEMCPY, _MEMCPY2             copies (copyKind: 1 HtoD,
 *          2 DtoH, 8 DtoD, 10 PtoP, ...), named as Kineto names them
 *   CUPTI_ACTIVITY_KIND_MEMSET                        sets
 *   CUPTI_ACTIVITY_KIND_MARKER                        NVTX start/end pairs as
 *          host annotations
 *   CUPTI_ACTIVITY_KIND_DEVICE                        devices (memory bandwidth
 *          is stored in KB/s: times 1000 to bytes/s)
 * Runtime calls are stored by callback id only (no names) and are not read.
 * Times are integer ns of CUPTI's clock. An absent table means no such
 * events; a present one must have the columns read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/demangle.h"
#include "ingest/ingest.h"
#include "ingest/sqlitedb.h"

struct vctx {
	const struct source *src;
	sqlite3 *db;
	const struct ingest_sink *sink;
	struct ingest_counts *counts;
	int64_t warned;
};

static int nvvp_detect(const char *head, size_t n)
{
	return sdb_magic(head, n);
}

static int nvvp_detect_source(const struct source *src)
{
	sqlite3 *db;
	if (sdb_open(src, 1, &db) < 0)
		return 0;
	int r = sdb_has_table(db, "StringTable") &&
		(sdb_has_table(db, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL") || sdb_has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL") ||
		 sdb_has_table(db, "CUPTI_ACTIVITY_KIND_DEVICE"));
	sqlite3_close(db);
	return r;
}

static void warn_skip(struct vctx *c, const char *table, int64_t rowid, const char *what)
{
	c->counts->skipped++;
	if (c->warned++ < 5) {
		char where[512];
		snprintf(where, sizeof(where), "%s: table '%s', _id_ %" PRId64, c->src->path, table, rowid);
		diag_warning(where, "skipped row: %s", what);
	}
}

/*
 * Reads one activity table with the query's columns: start, end, _id_,
 * deviceId, streamId, correlationId, bytes, copyKind, srcKind, dstKind,
 * name; unused ones are NULL.
 */
static int read_table(struct vctx *c, const char *T, enum activity_kind kind, const char *const *cols, const char *sql)
{
	if (!sdb_has_table(c->db, T))
		return 0;
	if (sdb_require_columns(c->src, c->db, T, cols) < 0)
		return -1;
	sqlite3_stmt *st;
	if (sdb_prepare(c->src, c->db, T, sql, &st) < 0)
		return -1;
	struct buf name;
	buf_init(&name);
	int ret = -1, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->counts->events++;
		int64_t v[10];
		for (int i = 0; i < 10; i++)
			if (sdb_int(c->src, T, st, i, i >= 3, &v[i]) < 0)
				goto out;
		if (v[1] < v[0] || v[0] < 0) {
			warn_skip(c, T, v[2], v[1] < v[0] ? "'end' before 'start'" : "negative 'start'");
			continue;
		}
		const char *ck = NULL;
		buf_reset(&name);
		if (kind == ACT_KERNEL) {
			const char *raw = (const char *)sqlite3_column_text(st, 10);
			if (!raw) {
				warn_skip(c, T, v[2], "kernel name not in StringTable");
				continue;
			}
			char *d = demangle(raw);
			buf_adds(&name, d ? d : raw);
			free(d);
		} else if (kind == ACT_MEMCPY) {
			ck = cupti_copy_kind(v[7]);
			cupti_memcpy_name(&name, ck, v[8], v[9]);
		} else {
			cupti_memset_name(&name, v[8]);
		}
		struct gpu_activity a = {
			.kind = kind,
			.name = name.data,
			.start_ns = v[0],
			.dur_ns = v[1] - v[0],
			.device = v[3] >= 0 && v[3] <= INT32_MAX ? (int)v[3] : -1,
			.stream = v[4],
			.correlation = v[5],
			.bytes = v[6],
			.copy_kind = ck,
		};
		if (kind == ACT_KERNEL)
			c->counts->kernels++;
		else if (kind == ACT_MEMCPY)
			c->counts->memcpys++;
		else
			c->counts->memsets++;
		if (c->sink->activity && c->sink->activity(c->sink->ctx, &a))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		sdb_error(c->src, T, "%s", sqlite3_errmsg(c->db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	buf_release(&name);
	return ret;
}

static int read_activities(struct vctx *c)
{
	static const char *const kcols[] = {"start", "end", "deviceId", "streamId", "correlationId", "name", NULL};
	static const char *const mcols[] = {"start", "end", "deviceId", "streamId", "correlationId", "bytes",
					    "copyKind", "srcKind", "dstKind", NULL};
	static const char *const scols[] = {"start", "end", "deviceId", "streamId", "correlationId", "bytes", NULL};
	static const char ksql[] = "SELECT k.start, k.end, k._id_, k.deviceId, k.streamId, k.correlationId, NULL, NULL, NULL,"
				   " NULL, s.value FROM %s k LEFT JOIN StringTable s ON s._id_ = k.name";
	static const char *const ktables[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"};
	for (size_t i = 0; i < 2; i++) {
		char *sql = xasprintf(ksql, ktables[i]);
		int r = read_table(c, ktables[i], ACT_KERNEL, kcols, sql);
		free(sql);
		if (r < 0)
			return -1;
	}
	static const char *const mtables[] = {"CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMCPY2"};
	for (size_t i = 0; i < 2; i++) {
		char *sql = xasprintf("SELECT start, end, _id_, deviceId, streamId, correlationId, bytes, copyKind, srcKind,"
				      " dstKind, NULL FROM %s", mtables[i]);
		int r = read_table(c, mtables[i], ACT_MEMCPY, mcols, sql);
		free(sql);
		if (r < 0)
			return -1;
	}
	const char *S = "CUPTI_ACTIVITY_KIND_MEMSET";
	char *sql = xasprintf("SELECT start, end, _id_, deviceId, streamId, correlationId, bytes, NULL, %s, NULL, NULL"
			      " FROM %s", sdb_has_table(c->db, S) && sdb_has_column(c->db, S, "memoryKind") ? "memoryKind" : "NULL", S);
	int r = read_table(c, S, ACT_MEMSET, scols, sql);
	free(sql);
	return r;
}

/* NVTX ranges: a start marker (flags & 2) and the end marker (flags & 4) with the same id. */
static int read_markers(struct vctx *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_MARKER";
	static const char *const cols[] = {"flags", "timestamp", "id", "name", NULL};
	if (!sdb_has_table(c->db, T))
		return 0;
	if (sdb_require_columns(c->src, c->db, T, cols) < 0)
		return -1;
	sqlite3_stmt *st;
	if (sdb_prepare(c->src, c->db, T,
			"SELECT s.timestamp, e.timestamp, s._id_, n.value FROM CUPTI_ACTIVITY_KIND_MARKER s"
			" JOIN CUPTI_ACTIVITY_KIND_MARKER e ON e.id = s.id AND (e.flags & 4) != 0"
			" LEFT JOIN StringTable n ON n._id_ = s.name WHERE (s.flags & 2) != 0 ORDER BY s._id_",
			&st) < 0)
		return -1;
	int ret = -1, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		c->counts->events++;
		int64_t start, end;
		if (sdb_int(c->src, T, st, 0, 0, &start) < 0 || sdb_int(c->src, T, st, 1, 0, &end) < 0)
			goto out;
		const char *name = (const char *)sqlite3_column_text(st, 3);
		if (end < start) {
			warn_skip(c, T, sqlite3_column_int64(st, 2), "range ends before it starts");
			continue;
		}
		if (!name || !*name)
			continue;
		struct annotation an = {.name = name, .start_ns = start, .dur_ns = end - start, .tid = -1};
		c->counts->annotations++;
		if (!strncmp(name, "ProfilerStep#", 13))
			c->counts->steps++;
		if (c->sink->annotation && c->sink->annotation(c->sink->ctx, &an))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		sdb_error(c->src, T, "%s", sqlite3_errmsg(c->db));
		goto out;
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	return ret;
}

static int read_info(struct vctx *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_DEVICE";
	struct device_info *devs = NULL;
	size_t n = 0, cap = 0;
	int ret = -1;
	sqlite3_stmt *st = NULL;
	if (sdb_has_table(c->db, T)) {
		static const char *const cols[] = {"id", "name", "globalMemorySize", "numMultiprocessors",
						   "computeCapabilityMajor", "computeCapabilityMinor",
						   "globalMemoryBandwidth", NULL};
		if (sdb_require_columns(c->src, c->db, T, cols) < 0 ||
		    sdb_prepare(c->src, c->db, T,
				"SELECT d.id, s.value, d.globalMemorySize, d.numMultiprocessors, d.computeCapabilityMajor,"
				" d.computeCapabilityMinor, d.globalMemoryBandwidth FROM CUPTI_ACTIVITY_KIND_DEVICE d"
				" LEFT JOIN StringTable s ON s._id_ = d.name ORDER BY d.id",
				&st) < 0)
			return -1;
		while (sqlite3_step(st) == SQLITE_ROW) {
			int64_t v[7];
			for (int i = 0; i < 7; i++)
				if (i != 1 && sdb_int(c->src, T, st, i, i > 0, &v[i]) < 0)
					goto out;
			if (n == cap) {
				cap = cap ? 2 * cap : 4;
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
				/* CUpti_ActivityDevice.globalMemoryBandwidth is in KB/s */
				.mem_bandwidth = v[6] > 0 && v[6] <= INT64_MAX / 1000 ? v[6] * 1000 : 0,
			};
			n++;
		}
	}
	struct trace_info info = {
		.format = "nvvp",
		.rank = -1,
		.world_size = -1,
		.epoch_offset_ns = -1,
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

static int nvvp_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct vctx c = {.src = src, .sink = sink, .counts = counts};
	if (sdb_open(src, 0, &c.db) < 0)
		return -1;
	int ret = -1;
	if (read_activities(&c) < 0 || read_markers(&c) < 0)
		goto out;
	if (counts->skipped > 5)
		diag_warning(src->path, "skipped %" PRId64 " malformed rows in all", counts->skipped);
	ret = read_info(&c);
out:
	sqlite3_close(c.db);
	return ret;
}

const struct reader nvvp_reader = {
	.name = "nvvp",
	.detect = nvvp_detect,
	.detect_source = nvvp_detect_source,
	.read = nvvp_read,
};

/* Any other SQLite database: say what it is not, naming the tables looked for. */
static int other_sqlite_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	(void)sink;
	(void)counts;
	sqlite3 *db;
	if (sdb_open(src, 0, &db) < 0)
		return -1;
	sqlite3_close(db);
	diag_error(src->path, "a SQLite database but not a profiler export: no table 'StringIds' with nsys tables"
			      " (Nsight Systems) and no table 'StringTable' with CUPTI_ACTIVITY_KIND_* tables (nvprof)");
	return -1;
}

const struct reader sqlite_other_reader = {
	.name = "sqlite",
	.detect = nvvp_detect,
	.read = other_sqlite_read,
};
