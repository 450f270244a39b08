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
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/demangle.h"
#include "ingest/ingest.h"
#include "ingest/sqlitedb.h"

/* An nvprof file has StringTable and kernel or device tables. */
static int nvvp_detect_source(const struct source *src)
{
	static const char *const own[] = {"CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_KERNEL",
					  "CUPTI_ACTIVITY_KIND_DEVICE", NULL};
	return sdb_detect_tables(src, "StringTable", own);
}

/* An activity table's kind and the buffer its rows' names are built in. */
struct activity_rows {
	enum activity_kind kind;
	struct buf name;
};

/*
 * One row of an activity table, with the query's columns: start, end, _id_,
 * deviceId, streamId, correlationId, bytes, copyKind, srcKind, dstKind,
 * name; unused ones are NULL.
 */
static int activity_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	struct activity_rows *ar = arg;
	enum activity_kind kind = ar->kind;
	int64_t v[10];
	int use = sdb_activity_ints(c, T, st, 10, v);
	if (use <= 0)
		return use;
	const char *ck = NULL;
	buf_reset(&ar->name);
	if (kind == ACT_KERNEL) {
		const char *raw = sdb_text(c, st, 10);
		if (!raw) {
			sdb_skip_row(c, T, v[2], "kernel name not in StringTable");
			return 0;
		}
		char *d = demangle(raw);
		buf_adds(&ar->name, d ? d : raw);
		free(d);
	} else if (kind == ACT_MEMCPY) {
		ck = cupti_copy_kind(v[7]);
		cupti_memcpy_name(&ar->name, ck, v[8], v[9]);
	} else {
		cupti_memset_name(&ar->name, v[8]);
	}
	struct gpu_activity a = sdb_row_activity(kind, ar->name.data, v);
	a.bytes = v[6];
	a.copy_kind = ck;
	return sdb_activity(c, &a);
}

/* Reads activity table T of kind with sql (the columns of activity_row) when it exists with cols. */
static int read_table(struct sdb_reader *c, const char *T, enum activity_kind kind, const char *const *cols, const char *sql)
{
	int have = sdb_table(c, T, cols);
	if (have <= 0)
		return have;
	struct activity_rows ar = {.kind = kind};
	buf_init(&ar.name);
	int ret = sdb_each_row(c, T, sql, activity_row, &ar);
	buf_release(&ar.name);
	return ret;
}

static int read_activities(struct sdb_reader *c)
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

static int marker_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	int64_t start, end;
	if (sdb_int(c->src, T, st, 0, 0, &start) < 0 || sdb_int(c->src, T, st, 1, 0, &end) < 0)
		return -1;
	const char *name = sdb_text(c, st, 3);
	if (end < start) {
		sdb_skip_row(c, T, sqlite3_column_int64(st, 2), "range ends before it starts");
		return 0;
	}
	if (!name || !*name)
		return 0;
	struct annotation an = {.name = name, .start_ns = start, .dur_ns = end - start, .tid = -1};
	return sdb_annotation(c, &an);
}

/* NVTX ranges: a start marker (flags & 2) and the end marker (flags & 4) with the same id. */
static int read_markers(struct sdb_reader *c)
{
	static const char T[] = "CUPTI_ACTIVITY_KIND_MARKER";
	static const char *const cols[] = {"flags", "timestamp", "id", "name", NULL};
	int have = sdb_table(c, T, cols);
	if (have <= 0)
		return have;
	return sdb_each_row(c, T,
			    "SELECT s.timestamp, e.timestamp, s._id_, n.value FROM CUPTI_ACTIVITY_KIND_MARKER s"
			    " JOIN CUPTI_ACTIVITY_KIND_MARKER e ON e.id = s.id AND (e.flags & 4) != 0"
			    " LEFT JOIN StringTable n ON n._id_ = s.name WHERE (s.flags & 2) != 0 ORDER BY s._id_",
			    marker_row, NULL);
}

/* Devices (globalMemoryBandwidth is in KB/s), then the sink's info callback. */
static int read_info(struct sdb_reader *c)
{
	static const char *const cols[] = {"id", "name", "globalMemorySize", "numMultiprocessors",
					   "computeCapabilityMajor", "computeCapabilityMinor",
					   "globalMemoryBandwidth", NULL};
	return sdb_send_info(c, "nvvp", "CUPTI_ACTIVITY_KIND_DEVICE", cols,
			     "SELECT d.id, s.value, d.globalMemorySize, d.numMultiprocessors, d.computeCapabilityMajor,"
			     " d.computeCapabilityMinor, d.globalMemoryBandwidth FROM CUPTI_ACTIVITY_KIND_DEVICE d"
			     " LEFT JOIN StringTable s ON s._id_ = d.name ORDER BY d.id",
			     1000, -1);
}

static int nvvp_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct sdb_reader c = {.src = src, .sink = sink, .counts = counts, .id_name = "_id_"};
	static const char *const string_cols[] = {"_id_", "value", NULL};
	if (sdb_reader_open(&c, "StringTable", string_cols) < 0)
		return -1;
	int ret = -1;
	if (read_activities(&c) == 0 && read_markers(&c) == 0) {
		sdb_skipped_total(&c);
		ret = read_info(&c);
	}
	return sdb_reader_close(&c, ret);
}

const struct reader nvvp_reader = {
	.name = "nvvp",
	.detect = sdb_magic,
	.detect_source = nvvp_detect_source,
	.read = nvvp_read,
	.rank_suffixes = (const char *const[]){".nvvp", NULL},
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
			      " (Nsight Systems), no table 'StringTable' with CUPTI_ACTIVITY_KIND_* tables (nvprof) and no"
			      " rocpd_* tables (rocprofv3)");
	return -1;
}

const struct reader sqlite_other_reader = {
	.name = "sqlite",
	.detect = sdb_magic,
	.read = other_sqlite_read,
};
