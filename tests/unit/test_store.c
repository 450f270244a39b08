/*
 * test_store.c: the store's query API (store.h). Rows go in and come back
 * through store_prepare / store_step / store_step_done; every failure (bad
 * SQL, a constraint, a missing table) returns -1 with exactly one error
 * whose text names the database file and the statement's purpose; the
 * probes (store_probe_text, store_file_meta, store_attach) fail quietly.
 * The sink refuses an event whose end (start + duration) is beyond int64
 * (issue 43: a forged shard's start near INT64_MAX overflowed there).
 * store_query binds the experiment and store_rows_to_table copies rows by
 * the table's column types, NULL left empty, a failure naming the purpose.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ingest/source.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/table.h"
#include "util/xalloc.h"

/* What diag said while diverted: one line per message. */
static struct buf said;

static void keep(void *ctx, enum diag_level level, const char *text)
{
	(void)ctx;
	buf_printf(&said, "%d %s\n", (int)level, text);
}

/* Runs the checks on a store at path; dir holds it. */
static void test_api(const char *dir)
{
	char *path = xasprintf("%s/perfstudy.db", dir);
	struct store *s;
	CHECK_INT(store_open(path, &s), 0);
	CHECK_STR(store_path(s), path);

	/* A row in through the API, and back. */
	CHECK_INT(store_exec(s, "CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER NOT NULL)", "make t"), 0);
	struct store_stmt *st;
	CHECK_INT(store_prepare(s, "insert into t", "INSERT INTO t VALUES(?1, ?2)", &st), 0);
	store_bind_text(st, 1, "a");
	store_bind_int(st, 2, 7);
	CHECK_INT(store_step_done(s, st, "insert into t"), 0);
	/* store_step_done cleared the bindings: v NULL breaks NOT NULL. */
	store_bind_text(st, 1, "b");
	diag_reset();
	buf_reset(&said);
	diag_divert(keep, NULL);
	CHECK_INT(store_step_done(s, st, "insert into t"), -1);
	/* store_next names the purpose st was prepared for. */
	store_bind_text(st, 1, "c");
	CHECK_INT(store_next(st), -1);
	store_reset(st);
	diag_divert(NULL, NULL);
	store_finalize(st);
	char *want = xasprintf("2 %s: error: sqlite: insert into t: NOT NULL constraint failed: t.v\n"
			       "2 %s: error: sqlite: insert into t: NOT NULL constraint failed: t.v\n", path, path);
	CHECK_STR(said.data, want);
	free(want);

	CHECK_INT(store_prepare(s, "read t", "SELECT k, v FROM t ORDER BY k", &st), 0);
	CHECK_INT(store_step(s, st, "read t"), 1);
	CHECK_STR((const char *)store_column_text(st, 0), "a");
	CHECK_INT(store_column_int(st, 1), 7);
	CHECK_INT(store_column_type(st, 1), STORE_INTEGER);
	CHECK_INT(store_step(s, st, "read t"), 0);
	store_finalize(st);

	/* A statement that cannot be prepared: one error naming file and purpose, *st NULL. */
	buf_reset(&said);
	diag_divert(keep, NULL);
	st = (struct store_stmt *)&said;
	CHECK_INT(store_prepare(s, "check ranks", "SELECT * FROM no_such_table", &st), -1);
	CHECK(st == NULL);
	CHECK_INT(store_exec(s, "DROP TABLE no_such_table", "drop a table"), -1);
	diag_divert(NULL, NULL);
	want = xasprintf("2 %s: error: sqlite: check ranks: no such table: no_such_table\n"
			 "2 %s: error: sqlite: drop a table: no such table: no_such_table\n", path, path);
	CHECK_STR(said.data, want);
	free(want);

	/* Probes say nothing. */
	buf_reset(&said);
	diag_divert(keep, NULL);
	char *v = store_probe_text(s, "SELECT v FROM no_such_table");
	CHECK(v == NULL);
	v = store_probe_text(s, "SELECT value FROM meta WHERE key = 'schema_version'");
	CHECK_STR(v, "1");
	free(v);
	CHECK_INT(store_attach(s, "/nonexistent/dir/x.db", "prev"), -1);
	store_detach(s, "prev");
	diag_divert(NULL, NULL);
	CHECK_INT(said.len, 0);
	CHECK_INT(store_close(s), 0);

	/* The meta table of a store file, read without opening the store. */
	v = store_file_meta(path, "schema_version");
	CHECK_STR(v, "1");
	free(v);
	CHECK(store_file_meta(path, "no such key") == NULL);
	char *missing = xasprintf("%s/none.db", dir);
	CHECK(store_file_meta(missing, "schema_version") == NULL);
	free(missing);
	free(path);
}

/*
 * The sink's events: a start and a duration within ingest.h's bounds are
 * stored (the largest of each included); past them refused with one input
 * error naming the trace, the event and what is outside (issue #51 item 10:
 * +-9e15 us and 4.6e18 ns steps overflowed in the analyses).
 */
static void test_sink_span(const char *dir)
{
	char *path = xasprintf("%s/span.db", dir);
	struct store *s;
	CHECK_INT(store_open(path, &s), 0);
	CHECK_INT(store_add_experiment(s, "e", "e", "e.yaml", "", "default"), 0);
	struct store_run r = {.experiment = "e", .run = "r", .label = "r"};
	int64_t run = store_add_run(s, &r);
	CHECK(run > 0);
	int64_t trace = store_add_trace(s, run, "t.json", 0);
	CHECK(trace > 0);
	struct ingest_sink sink;
	store_sink(s, trace, &sink);
	/* 3 * 2^60 = 3458764513820540928, 2^52 = 4503599627370496, -2^60 = -1152921504606846976 */
	struct gpu_activity a = {.kind = ACT_KERNEL, .name = "k", .start_ns = 3458764513820540928LL,
				 .dur_ns = 4503599627370496LL, .device = 0, .stream = 7, .bytes = -1, .correlation = -1};
	struct gpu_activity a0 = a;
	a0.start_ns = -1152921504606846976LL;
	struct runtime_call rc = {.name = "cudaLaunchKernel", .start_ns = 3458764513820540929LL, .dur_ns = 6};
	struct runtime_call rc0 = {.name = "cudaLaunchKernel", .start_ns = -1152921504606846977LL, .dur_ns = 6};
	struct annotation an = {.name = "ProfilerStep#1", .start_ns = INT64_MIN, .dur_ns = -1};
	struct cpu_op op = {.name = "aten::mm", .start_ns = 1, .dur_ns = 4503599627370497LL};
	diag_reset();
	buf_reset(&said);
	diag_divert(keep, NULL);
	CHECK_INT(sink.activity(sink.ctx, &a), 0); /* the latest start and the longest duration */
	CHECK_INT(sink.activity(sink.ctx, &a0), 0); /* the earliest start */
	CHECK_INT(sink.runtime(sink.ctx, &rc), -1);
	CHECK_INT(sink.runtime(sink.ctx, &rc0), -1);
	CHECK_INT(sink.annotation(sink.ctx, &an), -1);
	CHECK_INT(sink.cpu_op(sink.ctx, &op), -1);
	diag_divert(NULL, NULL);
	CHECK_STR(said.data,
		"1 t.json: error: runtime call 'cudaLaunchKernel': start 3458764513820540929 ns, duration 6 ns: "
		"a start outside -2^60 to 3 * 2^60 ns (the years 1933 to 2079); refused\n"
		"1 t.json: error: runtime call 'cudaLaunchKernel': start -1152921504606846977 ns, duration 6 ns: "
		"a start outside -2^60 to 3 * 2^60 ns (the years 1933 to 2079); refused\n"
		"1 t.json: error: annotation 'ProfilerStep#1': start -9223372036854775808 ns, duration -1 ns: "
		"a negative duration; refused\n"
		"1 t.json: error: operator 'aten::mm': start 1 ns, duration 4503599627370497 ns: "
		"a duration over 2^52 ns (52 days); refused\n");
	CHECK_INT(store_close(s), 0);
	free(path);
}

/*
 * The allocator events (store/memevents.c): a GPU's, in order of time
 * (file order among equal times), read back by store_mem_decode exactly,
 * across chunks' ends (4096 events a row), with the extremes the ingest lets
 * through (times at the span's ends, addresses up to INT64_MAX, totals
 * and bytes at +-2^50) and fields not recorded; the host's, another
 * device type's and those out of 0..2^50 are not kept.
 */
struct mem_in {
	struct memory_event m;
	size_t i; /* its place in the file */
};

static int cmp_mem(const void *pa, const void *pb)
{
	const struct mem_in *a = pa, *b = pb;
	if (a->m.ts_ns != b->m.ts_ns)
		return a->m.ts_ns < b->m.ts_ns ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

static void test_mem_events(const char *dir)
{
	char *path = xasprintf("%s/mem.db", dir);
	struct store *s;
	CHECK_INT(store_open(path, &s), 0);
	CHECK_INT(store_add_experiment(s, "e", "e", "e.yaml", "", "default"), 0);
	struct store_run r = {.experiment = "e", .run = "r", .label = "r"};
	int64_t run = store_add_run(s, &r);
	int64_t trace = store_add_trace(s, run, "t.json", 0);
	CHECK(trace > 0);
	struct ingest_sink sink;
	store_sink(s, trace, &sink);
	enum { N = 20000 };
	const int64_t P = (int64_t)1 << 50;
	struct memory_event *in = xcalloc(N, sizeof(*in));
	struct mem_in *want = xcalloc(N, sizeof(*want));
	size_t nwant = 0;
	uint64_t x = 55;
	for (size_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		struct memory_event *m = &in[i];
		*m = (struct memory_event){.ts_ns = 1700000000000000000LL + (int64_t)(x >> 40) % 1000,
					   .bytes = (int64_t)(x >> 20) % 100000 - 50000, .addr = (int64_t)(x >> 17),
					   .total_allocated = (int64_t)(x >> 30), .total_reserved = (int64_t)(x >> 29),
					   .device = (int)(x >> 61), .device_type = 1, .tid = (int64_t)(x >> 33)};
		switch (i % 13) {
		case 1: m->ts_ns = -((int64_t)1 << 60); break;
		case 2: m->ts_ns = 3 * ((int64_t)1 << 60); break;
		case 3: m->addr = INT64_MAX; m->bytes = P; m->total_allocated = P; break;
		case 4: m->addr = -1; m->tid = -1; m->total_reserved = -1; m->bytes = -P; m->total_allocated = 0; break;
		case 5: m->device_type = 0; m->device = -1; break; /* the host's: not kept */
		case 6: m->device = -1; break;
		case 7: m->total_allocated = P + 1; break;
		case 8: m->total_reserved = P + 1; break;
		case 9: m->bytes = -P - 1; break;
		case 10: m->device = 1000000; m->addr = 0; break;
		}
		CHECK_INT(sink.memory(sink.ctx, m), 0);
		if (m->device_type == 1 && m->device >= 0 && m->total_allocated >= 0 && m->total_allocated <= P &&
		    m->bytes >= -P && m->bytes <= P && m->total_reserved <= P)
			want[nwant++] = (struct mem_in){*m, i};
	}
	qsort(want, nwant, sizeof(*want), cmp_mem);
	struct source_meta meta = {.size = 1};
	struct ingest_counts counts = {0};
	CHECK_INT(store_finish_trace(s, trace, "kineto", &meta, &counts), 0);
	struct store_stmt *st = store_query(s, "mem", "SELECT events, data FROM memory_events ORDER BY chunk", NULL);
	struct store_mem_event *got = xcalloc(N, sizeof(*got)), *spare = xcalloc(4096, sizeof(*spare));
	size_t n = 0, rows = 0;
	while (st && store_next(st) > 0) {
		size_t m = (size_t)store_column_int64(st, 0);
		CHECK(n + m <= N && m <= 4096);
		if (n + m > N || m > 4096)
			break;
		CHECK_INT(store_mem_decode(store_column_blob(st, 1), (size_t)store_column_bytes(st, 1), m, got + n), 0);
		/* a blob cut short is not m events */
		CHECK_INT(store_mem_decode(store_column_blob(st, 1), (size_t)store_column_bytes(st, 1) - 1, m, spare), -1);
		n += m;
		rows++;
	}
	store_finalize(st);
	CHECK(nwant > 2 * 4096);
	CHECK_INT(rows, (nwant + 4095) / 4096);
	CHECK_INT(n, nwant);
	size_t same = 0;
	for (size_t i = 0; i < n && i < nwant; i++) {
		const struct memory_event *w = &want[i].m;
		const struct store_mem_event *g = &got[i];
		same += g->ts_ns == w->ts_ns && g->bytes == w->bytes && g->addr == (w->addr >= 0 ? w->addr : -1) &&
			g->total_allocated == w->total_allocated &&
			g->total_reserved == (w->total_reserved >= 0 ? w->total_reserved : -1) &&
			g->tid == (w->tid >= 0 ? w->tid : -1) && g->device == w->device;
	}
	CHECK_INT(same, nwant);
	free(in);
	free(want);
	free(got);
	free(spare);
	CHECK_INT(store_close(s), 0);
	free(path);
}

/* The query idiom: the experiment bound as ?1, rows into a typed table. */
static void test_query_table(const char *dir)
{
	char *path = xasprintf("%s/query.db", dir);
	struct store *s;
	CHECK_INT(store_open(path, &s), 0);
	CHECK_INT(store_exec(s, "CREATE TABLE q(exp TEXT, name TEXT, n INTEGER, ns INTEGER, f REAL);"
			     "INSERT INTO q VALUES('a', 'x', 3, 1500, 0.25), ('a', NULL, NULL, 2000, NULL),"
			     " ('b', 'y', 1, 1, 1.0)", "make q"), 0);
	struct store_stmt *st = store_query(s, "read q", "SELECT name, n, ns, f FROM q WHERE exp = ?1 ORDER BY rowid", "a");
	CHECK(st != NULL);
	struct table *t = table_new("q", "q", "name:text,n:int,t_us:us,f:frac");
	CHECK_INT(store_rows_to_table(st, t), 0);
	CHECK_INT(t->nrows, 2);
	CHECK_STR(table_text(t, 0, 0), "x");
	CHECK_INT(table_cell(t, 0, 1)->v.i, 3);
	CHECK_INT(table_cell(t, 0, 2)->v.i, 1500); /* integer ns: 1.5 us */
	CHECK(table_num(t, 0, 3) == 0.25);
	CHECK(table_cell(t, 1, 0)->null && table_cell(t, 1, 1)->null && table_cell(t, 1, 3)->null);
	CHECK_INT(table_cell(t, 1, 2)->v.i, 2000);
	table_free(t);

	/* A failure while stepping names the purpose the statement was prepared for; one that cannot be prepared too. */
	diag_reset();
	buf_reset(&said);
	diag_divert(keep, NULL);
	st = store_query(s, "overflow", "SELECT abs(-9223372036854775807 - 1)", NULL);
	CHECK(st != NULL);
	t = table_new("o", "o", "v:int");
	CHECK_INT(store_rows_to_table(st, t), -1);
	table_free(t);
	CHECK(store_query(s, "read r", "SELECT * FROM r WHERE exp = ?1", "a") == NULL);
	diag_divert(NULL, NULL);
	char *want = xasprintf("2 %s: error: sqlite: overflow: integer overflow\n"
			       "2 %s: error: sqlite: read r: no such table: r\n", path, path);
	CHECK_STR(said.data, want);
	free(want);
	CHECK_INT(store_close(s), 0);
	free(path);
}

/* An experiment's runs with their ranks (the merged traces' processes): run order, ranks in order, once each. */
static void test_ranked_runs(const char *dir)
{
	char *path = xasprintf("%s/ranked.db", dir);
	struct store *s;
	CHECK_INT(store_open(path, &s), 0);
	CHECK_INT(store_add_experiment(s, "e", "e", "e.yaml", "", "default"), 0);
	CHECK_INT(store_add_experiment(s, "f", "f", "f.yaml", "", "default"), 0);
	struct store_run late = {.experiment = "e", .run = "late", .label = "late", .position = 1};
	struct store_run early = {.experiment = "e", .run = "early", .label = "early", .position = 0};
	struct store_run other = {.experiment = "f", .run = "other", .label = "other", .position = 0};
	int64_t rl = store_add_run(s, &late), re = store_add_run(s, &early), ro = store_add_run(s, &other);
	CHECK(rl > 0 && re > 0 && ro > 0);
	/* late: files at positions 2, 0, 1 (their ranks until a trace says), early: one file */
	CHECK(store_add_trace(s, rl, "l2.json", 2) > 0);
	CHECK(store_add_trace(s, rl, "l0.json", 0) > 0);
	CHECK(store_add_trace(s, rl, "l1.json", 1) > 0);
	CHECK(store_add_trace(s, re, "e0.json", 0) > 0);
	CHECK(store_add_trace(s, ro, "o0.json", 0) > 0);
	struct store_ranked_run *runs;
	size_t n;
	CHECK_INT(store_ranked_runs(s, "e", &runs, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(runs[0].run, "early");
		CHECK(runs[0].run_id == re && runs[0].nranks == 1 && runs[0].ranks[0] == 0);
		CHECK_STR(runs[1].run, "late");
		CHECK(runs[1].run_id == rl && runs[1].nranks == 3);
		for (size_t i = 0; i < runs[1].nranks && i < 3; i++)
			CHECK_INT(runs[1].ranks[i], (int)i);
	}
	store_ranked_runs_free(runs, n);
	CHECK_INT(store_ranked_runs(s, "none", &runs, &n), 0);
	CHECK_INT(n, 0);
	store_ranked_runs_free(runs, n);
	CHECK_INT(store_close(s), 0);
	free(path);
}

int main(void)
{
	char tmpl[] = "/tmp/test_store.XXXXXX";
	char *dir = mkdtemp(tmpl);
	if (!dir) {
		perror("mkdtemp");
		return 1;
	}
	buf_init(&said);
	test_api(dir);
	test_sink_span(dir);
	test_query_table(dir);
	test_ranked_runs(dir);
	test_mem_events(dir);
	buf_release(&said);
	diag_reset();
	fs_remove_tree(dir);
	return check_result("test_store");
}
