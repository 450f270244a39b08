/*
 * rocpd.c: the reader for rocprofv3's default output (ROCm 7 and later), a
 * SQLite database in the "rocpd" schema (ROCprofiler-SDK's
 * rocpd_tables.sql, schema_version 3). rocprofv3 names each data table
 * after the session, rocpd_kernel_dispatch_<uuid> and so on, and adds
 * views without the suffix; only the tables are read (a view runs the
 * file's own SQL: sqlitedb.h), those of each uuid in turn.
 *
 *   rocpd_kernel_dispatch     kernels: start, end (ns), the GPU (agent_id ->
 *                             rocpd_info_agent.type_index, the GPU's ordinal),
 *                             the HIP stream (stream_id), the name
 *                             (kernel_id -> rocpd_info_kernel_symbol
 *                             .display_name, else its kernel_name
 *                             demangled), the correlation id (event_id ->
 *                             rocpd_event.correlation_id)
 *   rocpd_memory_copy         copies: name_id -> rocpd_string
 *                             (MEMORY_COPY_HOST_TO_DEVICE, ...) gives the
 *                             kind, HtoD, DtoH, DtoD (PtoP between two GPUs),
 *                             HtoH; size in bytes; the GPU is the
 *                             destination's, else the source's
 *   rocpd_region              host calls: the category (event_id ->
 *                             rocpd_event.category_id -> rocpd_string)
 *                             HIP_* are runtime calls, HSA_* driver calls,
 *                             MARKER_* (roctx ranges) host annotations,
 *                             other categories are not read; the name
 *                             (name_id), the thread (tid -> rocpd_info_thread
 *                             .tid), the correlation id
 *   rocpd_info_agent          the GPUs (type 'GPU'): ordinal and product name
 * Not read: PMC counters, samples, memory allocations, scratch memory, and
 * the per-process split of a database merged from several processes (one
 * file is one rank, split by GPU like other multi-device files). Times are
 * the profiler's integer ns; the epoch offset is not recorded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/demangle.h"
#include "ingest/ingest.h"
#include "ingest/sqlitedb.h"

/*
 * The names of sqlite_master's plain tables that start with prefix, in
 * order (a new array of new strings): every session's, however many (each
 * costs a few queries, within the connection's step budget; the first 64
 * were read and the rest dropped without a word).
 */
static char **tables_like(sqlite3 *db, const char *prefix, size_t *n)
{
	*n = 0;
	size_t cap = 0;
	sqlite3_stmt *st;
	char **out = xgrow(NULL, &cap, 1, sizeof(*out));
	if (sqlite3_prepare_v2(db,
			       "SELECT name FROM sqlite_master WHERE type = 'table' AND (name = ?1 OR"
			       " substr(name, 1, length(?1) + 1) = ?1 || '_') ORDER BY name",
			       -1, &st, NULL) != SQLITE_OK)
		return out;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		out = xgrow(out, &cap, *n + 1, sizeof(*out));
		out[(*n)++] = xstrdup((const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return out;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A rocpd file has rocpd_string and kernel dispatch, memory copy or region tables (with or without a uuid). */
static int rocpd_detect_source(const struct source *src)
{
	sqlite3 *db;
	if (sdb_open(src, 1, &db) < 0)
		return 0;
	static const char *const own[] = {"rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_region", NULL};
	size_t n;
	char **v = tables_like(db, "rocpd_string", &n);
	int r = n > 0;
	free_names(v, n);
	int any = 0;
	for (size_t i = 0; r && own[i] && !any; i++) {
		v = tables_like(db, own[i], &n);
		any = n > 0;
		free_names(v, n);
	}
	sqlite3_close(db);
	return r && any;
}

/* One session's table names: base + suffix ("" or "_<uuid>"). */
struct session {
	const char *suffix;
	char *string, *agent, *symbol, *event, *thread;
	int has_event, has_thread;
	struct buf name;
	uint64_t *seen; /* the GPUs with activities, bits 0-255 (inspect's ranks) */
};

static void saw_device(struct session *s, int64_t device)
{
	if (device >= 0 && device < 256)
		s->seen[device / 64] |= (uint64_t)1 << (device % 64);
}

static char *tname(const char *base, const char *suffix)
{
	return xasprintf("%s%s", base, suffix);
}

/* The copy kind of a rocpd copy name; NULL when it is none of the four. */
static const char *copy_kind_of(const char *name, int between_gpus)
{
	if (!name)
		return NULL;
	if (strstr(name, "HOST_TO_DEVICE"))
		return "HtoD";
	if (strstr(name, "DEVICE_TO_HOST"))
		return "DtoH";
	if (strstr(name, "DEVICE_TO_DEVICE"))
		return between_gpus ? "PtoP" : "DtoD";
	if (strstr(name, "HOST_TO_HOST"))
		return "HtoH";
	return NULL;
}

/* Columns: start, end, id, device, stream, correlation, display_name, kernel_name. */
static int kernel_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	struct session *s = arg;
	int64_t v[6];
	int use = sdb_activity_ints(c, T, st, 6, v);
	if (use <= 0)
		return use;
	buf_reset(&s->name);
	const char *shown = sdb_text(c, st, 6);
	if (shown && *shown) {
		buf_adds(&s->name, shown);
	} else {
		const char *raw = sdb_text(c, st, 7);
		if (!raw || !*raw) {
			sdb_skip_row(c, T, v[2], "kernel_id not in the kernel symbol table");
			return 0;
		}
		char *d = demangle(raw);
		buf_adds(&s->name, d ? d : raw);
		free(d);
	}
	struct gpu_activity a = sdb_row_activity(ACT_KERNEL, s->name.data, v);
	saw_device(s, a.device);
	return sdb_activity(c, &a);
}

/* Columns: start, end, id, device, stream, correlation, size, between GPUs, name. */
static int copy_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	struct session *s = arg;
	int64_t v[8];
	int use = sdb_activity_ints(c, T, st, 8, v);
	if (use <= 0)
		return use;
	if (v[6] < 0 && sqlite3_column_type(st, 6) != SQLITE_NULL) {
		sdb_skip_row(c, T, v[2], "negative 'size'");
		return 0;
	}
	const char *ck = copy_kind_of(sdb_text(c, st, 8), v[7] == 1);
	buf_reset(&s->name);
	cupti_memcpy_name(&s->name, ck, -1, -1);
	struct gpu_activity a = sdb_row_activity(ACT_MEMCPY, s->name.data, v);
	a.bytes = v[6];
	a.copy_kind = ck;
	saw_device(s, a.device);
	return sdb_activity(c, &a);
}

/* Columns: start, end, id, correlation, tid, name, category. */
static int region_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	struct session *s = arg;
	int64_t v[5];
	for (int i = 0; i < 5; i++)
		if (sdb_int(c->src, T, st, i, i >= 3, &v[i]) < 0)
			return -1;
	const char *cat = sdb_text(c, st, 6);
	if (!cat)
		return 0;
	int runtime = !strncmp(cat, "HIP_", 4), driver = !strncmp(cat, "HSA_", 4);
	int marker = !strncmp(cat, "MARKER_", 7);
	if (!runtime && !driver && !marker)
		return 0;
	/* as sdb_activity_ints: then end - start cannot overflow (INT64_MIN to INT64_MAX did) */
	if (v[1] < v[0] || v[0] < 0) {
		sdb_skip_row(c, T, v[2], v[1] < v[0] ? "'end' before 'start'" : "negative 'start'");
		return 0;
	}
	const char *name = sdb_text(c, st, 5);
	if (!name || !*name) {
		sdb_skip_row(c, T, v[2], "name_id not in the string table");
		return 0;
	}
	buf_reset(&s->name);
	buf_adds(&s->name, name);
	if (marker) {
		struct annotation an = {.name = s->name.data, .start_ns = v[0], .dur_ns = v[1] - v[0], .tid = v[4]};
		return sdb_annotation(c, &an);
	}
	struct runtime_call r = {
		.name = s->name.data,
		.start_ns = v[0],
		.dur_ns = v[1] - v[0],
		.correlation = v[3],
		.tid = v[4],
		.is_driver = driver,
	};
	c->counts->runtime++;
	return c->sink->runtime && c->sink->runtime(c->sink->ctx, &r) ? -1 : 0;
}

/* The correlation column and join of a data table aliased x. */
static void event_join(struct buf *sql, const struct session *s)
{
	if (s->has_event)
		buf_printf(sql, " LEFT JOIN \"%s\" e ON e.id = x.event_id", s->event);
}

static int read_session(struct sdb_reader *c, struct session *s)
{
	static const char *const string_cols[] = {"id", "string", NULL};
	static const char *const agent_cols[] = {"id", "type", "type_index", "product_name", "name", NULL};
	static const char *const symbol_cols[] = {"id", "kernel_name", "display_name", NULL};
	static const char *const event_cols[] = {"id", "category_id", "correlation_id", NULL};
	static const char *const thread_cols[] = {"id", "tid", NULL};
	static const char *const kcols[] = {"id", "start", "end", "agent_id", "kernel_id", "stream_id", "event_id", NULL};
	static const char *const mcols[] = {"id",	    "start",	    "end",    "name_id", "size",
					    "dst_agent_id", "src_agent_id", "stream_id", "event_id", NULL};
	static const char *const rcols[] = {"id", "start", "end", "name_id", "tid", "event_id", NULL};
	int ret = -1;
	char *K = tname("rocpd_kernel_dispatch", s->suffix), *M = tname("rocpd_memory_copy", s->suffix);
	char *R = tname("rocpd_region", s->suffix);
	struct buf sql;
	buf_init(&sql);
	int h;
	if (sdb_table(c, s->string, string_cols) <= 0 || sdb_table(c, s->agent, agent_cols) < 0 ||
	    (h = sdb_table(c, s->event, event_cols)) < 0)
		goto out;
	s->has_event = h;
	if ((h = sdb_table(c, s->thread, thread_cols)) < 0)
		goto out;
	s->has_thread = h;
	int have_agent = sdb_has_table(c->db, s->agent);
	if ((h = sdb_table(c, K, kcols)) < 0)
		goto out;
	if (h) {
		if (sdb_table(c, s->symbol, symbol_cols) <= 0) {
			if (!sdb_has_table(c->db, s->symbol))
				sdb_error(c->src, s->symbol, "absent, but %s names kernels by it", K);
			goto out;
		}
		buf_reset(&sql);
		buf_printf(&sql, "SELECT x.start, x.\"end\", x.id, %s, x.stream_id, %s, k.display_name, k.kernel_name"
				 " FROM \"%s\" x LEFT JOIN \"%s\" k ON k.id = x.kernel_id",
			   have_agent ? "a.type_index" : "NULL", s->has_event ? "e.correlation_id" : "NULL", K, s->symbol);
		if (have_agent)
			buf_printf(&sql, " LEFT JOIN \"%s\" a ON a.id = x.agent_id", s->agent);
		event_join(&sql, s);
		if (sdb_each_row(c, K, sql.data, kernel_row, s) < 0)
			goto out;
	}
	if ((h = sdb_table(c, M, mcols)) < 0)
		goto out;
	if (h) {
		buf_reset(&sql);
		if (have_agent)
			buf_printf(&sql,
				   "SELECT x.start, x.\"end\", x.id, CASE WHEN d.type = 'GPU' THEN d.type_index"
				   " WHEN g.type = 'GPU' THEN g.type_index END, x.stream_id, %s, x.size,"
				   " d.type = 'GPU' AND g.type = 'GPU' AND d.id != g.id, n.string FROM \"%s\" x"
				   " LEFT JOIN \"%s\" n ON n.id = x.name_id LEFT JOIN \"%s\" d ON d.id = x.dst_agent_id"
				   " LEFT JOIN \"%s\" g ON g.id = x.src_agent_id",
				   s->has_event ? "e.correlation_id" : "NULL", M, s->string, s->agent, s->agent);
		else
			buf_printf(&sql,
				   "SELECT x.start, x.\"end\", x.id, NULL, x.stream_id, %s, x.size, NULL, n.string"
				   " FROM \"%s\" x LEFT JOIN \"%s\" n ON n.id = x.name_id",
				   s->has_event ? "e.correlation_id" : "NULL", M, s->string);
		event_join(&sql, s);
		if (sdb_each_row(c, M, sql.data, copy_row, s) < 0)
			goto out;
	}
	if ((h = sdb_table(c, R, rcols)) < 0)
		goto out;
	if (h && s->has_event) {
		buf_reset(&sql);
		buf_printf(&sql,
			   "SELECT x.start, x.\"end\", x.id, e.correlation_id, %s, n.string, c.string FROM \"%s\" x"
			   " LEFT JOIN \"%s\" n ON n.id = x.name_id LEFT JOIN \"%s\" e ON e.id = x.event_id"
			   " LEFT JOIN \"%s\" c ON c.id = e.category_id",
			   s->has_thread ? "t.tid" : "NULL", R, s->string, s->event, s->string);
		if (s->has_thread)
			buf_printf(&sql, " LEFT JOIN \"%s\" t ON t.id = x.tid", s->thread);
		if (sdb_each_row(c, R, sql.data, region_row, s) < 0)
			goto out;
	}
	ret = 0;
out:
	buf_release(&sql);
	free(K);
	free(M);
	free(R);
	return ret;
}

/* A GPU of a session's agent table: type_index and name (NULL: none). */
struct agent_row {
	int64_t index;
	char *name;
};

/* Columns: type_index, name; the row appended to the agent_list arg. */
struct agent_list {
	struct agent_row *v;
	size_t n, cap;
};

static int agent_row(struct sdb_reader *c, const char *T, sqlite3_stmt *st, void *arg)
{
	struct agent_list *l = arg;
	int64_t index;
	if (sdb_int(c->src, T, st, 0, 0, &index) < 0)
		return -1;
	const char *name = sdb_text(c, st, 1);
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct agent_row){index, name ? xstrdup(name) : NULL};
	return 0;
}

/* By type_index, then name (none first, then bytes): SQLite's order of the rows a UNION keeps. */
static int cmp_agent(const void *pa, const void *pb)
{
	const struct agent_row *a = pa, *b = pb;
	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (!a->name || !b->name)
		return !b->name - !a->name;
	return strcmp(a->name, b->name);
}

/*
 * The GPUs of every session's agent table (once each: the same type_index
 * and name in two sessions is one GPU), then the sink's info callback. One
 * query per session: a UNION of them all was refused past 8 sessions by the
 * SQLite guard's limit on compound SELECTs (sqlguard.c).
 */
static int read_info(struct sdb_reader *c, char **agents, size_t n)
{
	struct agent_list l = {NULL, 0, 0};
	struct device_info *devs = NULL;
	size_t ndevs = 0;
	struct buf sql;
	buf_init(&sql);
	int ret = -1;
	int64_t events = c->counts->events; /* sdb_each_row counts rows as events; agents are none */
	for (size_t i = 0; i < n; i++) {
		if (!sdb_has_table(c->db, agents[i]))
			continue;
		buf_reset(&sql);
		buf_printf(&sql, "SELECT type_index, COALESCE(product_name, name) FROM \"%s\" WHERE type = 'GPU'",
			   agents[i]);
		if (sdb_each_row(c, agents[i], sql.data, agent_row, &l) < 0)
			goto out;
	}
	c->counts->events = events;
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), cmp_agent);
	devs = xcalloc(l.n ? l.n : 1, sizeof(*devs));
	for (size_t i = 0; i < l.n; i++) {
		if (i > 0 && !cmp_agent(&l.v[i], &l.v[i - 1]))
			continue;
		devs[ndevs] = (struct device_info){
			.id = l.v[i].index >= 0 && l.v[i].index <= INT32_MAX ? (int)l.v[i].index : (int)ndevs,
			.name = l.v[i].name ? l.v[i].name : "",
			.total_mem = -1,
			.sm_count = -1,
			.cc_major = -1,
			.cc_minor = -1,
		};
		ndevs++;
	}
	struct trace_info info = {
		.format = "rocpd",
		.rank = -1,
		.world_size = -1,
		.epoch_offset_ns = -1,
		.ndevices = ndevs,
		.devices = ndevs ? devs : NULL,
	};
	ret = c->sink->info && c->sink->info(c->sink->ctx, &info) ? -1 : 0;
out:
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i].name);
	free(l.v);
	free(devs);
	buf_release(&sql);
	return ret;
}

static int rocpd_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct sdb_reader c = {.src = src, .sink = sink, .counts = counts, .id_name = "id"};
	if (sdb_open(src, 0, &c.db) < 0)
		return -1;
	int ret = -1;
	size_t n;
	char **strings = tables_like(c.db, "rocpd_string", &n);
	char **agents = xcalloc(n + 1, sizeof(*agents));
	uint64_t seen[4] = {0};
	if (!n)
		sdb_error(src, "rocpd_string", "absent: not a rocpd database");
	for (size_t i = 0; i < n; i++) {
		struct session s = {.suffix = strings[i] + strlen("rocpd_string"), .seen = seen};
		s.string = strings[i];
		s.agent = agents[i] = tname("rocpd_info_agent", s.suffix);
		s.symbol = tname("rocpd_info_kernel_symbol", s.suffix);
		s.event = tname("rocpd_event", s.suffix);
		s.thread = tname("rocpd_info_thread", s.suffix);
		buf_init(&s.name);
		int r = read_session(&c, &s);
		buf_release(&s.name);
		free(s.symbol);
		free(s.event);
		free(s.thread);
		if (r < 0)
			goto out;
	}
	if (!n)
		goto out;
	sdb_skipped_total(&c);
	for (int i = 0; i < 4; i++)
		counts->devices += __builtin_popcountll(seen[i]);
	ret = read_info(&c, agents, n);
out:
	for (size_t i = 0; i < n; i++)
		free(agents[i]);
	free(agents);
	free_names(strings, n);
	return sdb_reader_close(&c, ret);
}

const struct reader rocpd_reader = {
	.name = "rocpd",
	.detect = sdb_magic,
	.detect_source = rocpd_detect_source,
	.read = rocpd_read,
	.rank_suffixes = (const char *const[]){"_results.db", NULL},
};
