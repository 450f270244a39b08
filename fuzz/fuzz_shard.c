/*
 * fuzz_shard.c: a shard database (`perfstudy ingest --shard I/N -o`) on any
 * bytes, opened and replayed as `perfstudy merge` does (study/shard.c):
 * shard_is_shard, shard_set_open, then each trace's batches through the
 * merge's checking sink (shard_check_sink) into fuzz.h's checking sink,
 * which aborts on any event no reader could produce. So an event that
 * passes merge's checks but would break the store or the analyses (an end
 * past int64, a negative duration, a rank below -1) is a crash.
 *
 * The bytes are written to a temporary file, since merge opens shards by
 * path. A shard names the binary that wrote it (its SHA-256), the inputs it
 * was cut from and each trace's size and time, none of which a mutation
 * gets right: when the file is a shard, its identity is made this
 * harness's before merge opens it (shard_meta's build_id, shards, shard
 * and inputs; each trace's path, size and time, onto an empty file made
 * here), under the SQLite guard (util/sqlguard.h), so that what a mutation
 * changed in the rows and the batches is what merge reads.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "fuzz.h"
#include "ingest/batch.h"
#include "study/cache.h"
#include "study/shard.h"
#include "util/diag.h"
#include "util/sha256.h"
#include "util/sqlguard.h"

#define MAX_TRACES 16 /* traces a shard may list here: the seeds have one to three */

/* The empty file every trace of the shard is made to be (merge only stats it), removed at exit. */
static char trace_path[64];

static void remove_trace(void)
{
	unlink(trace_path);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
}

/* Runs sql (bound ?1 text, ?2 and ?3 integers when given) on db; SQLite's errors are a mutation's, not ours. */
static void run(sqlite3 *db, const char *sql, const char *text, int64_t a, int64_t b)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	if (text)
		sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, a);
	sqlite3_bind_int64(st, 3, b);
	while (sqlite3_step(st) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
}

/*
 * Makes the shard at path this harness's: n traces (from shard_meta's
 * 'traces', at most MAX_TRACES), all trace_path. Returns n, or -1 when the
 * file is not one to go on with.
 */
static int adopt(const char *path, size_t size)
{
	sqlite3 *db;
	int n = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK || sqlguard_apply(db, size) < 0)
		goto out;
	static const char *const tables[] = {"shard_meta", "shard_traces", "shard_batches"};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (!sqlguard_plain_table(db, tables[i]))
			goto out; /* merge refuses it: shard_set_open runs on the file as it is */
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT CAST(value AS INTEGER) FROM shard_meta WHERE key = 'traces'", -1, &st,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (n < 1 || n > MAX_TRACES) {
		n = -1;
		goto out;
	}
	struct stat sb;
	if (stat(trace_path, &sb) < 0)
		abort();
	struct sha256 h;
	char hex[65];
	sha256_init(&h);
	for (int i = 0; i < n; i++) {
		sha256_update(&h, trace_path, strlen(trace_path));
		sha256_update(&h, "\n", 1);
	}
	sha256_final_hex(&h, hex);
	char num[24];
	snprintf(num, sizeof(num), "%d", n);
	run(db, "UPDATE shard_meta SET value = ?1 WHERE key = 'build_id'", cache_build_id(), 0, 0);
	run(db, "UPDATE shard_meta SET value = ?1 WHERE key = 'inputs'", hex, 0, 0);
	run(db, "UPDATE shard_meta SET value = ?1 WHERE key = 'traces'", num, 0, 0);
	run(db, "UPDATE shard_meta SET value = ?1 WHERE key = 'shard'", "0", 0, 0);
	run(db, "UPDATE shard_meta SET value = ?1 WHERE key = 'shards'", "1", 0, 0);
	run(db, "UPDATE shard_traces SET path = ?1, size = ?2, mtime_ns = ?3", trace_path, (int64_t)sb.st_size,
	    (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec);
out:
	sqlite3_close(db);
	return n;
}

/* A host operator's span, which fuzz.h's sink does not look at. */
static int on_cpu_op(void *ctx, const struct cpu_op *op)
{
	(void)ctx;
	if (!op->name || op->dur_ns < 0 || op->start_ns > INT64_MAX - op->dur_ns) {
		fprintf(stderr, "fuzz: invariant violated: operator span\n");
		abort();
	}
	return 0;
}

struct replay {
	const struct ingest_sink *sink;
	const char *where;
	struct batch_result res;
};

static int replay(void *ctx, const char *data, size_t len)
{
	struct replay *r = ctx;
	return batch_replay(data, len, r->sink, &r->res, r->where) < 0 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag_set_quiet(1);
	if (!trace_path[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(trace_path, sizeof(trace_path), "%s/fuzz-shard-trace.%ld", tmp && *tmp ? tmp : "/tmp",
			 (long)getpid());
		write_file(trace_path, NULL, 0);
		atexit(remove_trace);
	}
	char path[80];
	snprintf(path, sizeof(path), "%s.db", trace_path);
	write_file(path, data, size);
	const char *paths[MAX_TRACES];
	int n;
	if (shard_is_shard(path) && (n = adopt(path, size)) > 0) {
		for (int i = 0; i < n; i++)
			paths[i] = trace_path;
		const char *dbs[1] = {path};
		struct shard_set *set;
		if (shard_set_open(dbs, 1, paths, (size_t)n, &set) == 0) {
			struct ingest_sink inner, checked;
			fuzz_check_sink(&inner);
			inner.cpu_op = on_cpu_op;
			for (int i = 0; i < n; i++) {
				struct shard_check check;
				shard_check_sink(set, (size_t)i, &inner, &check, &checked);
				struct replay r = {&checked, path, {0}};
				if (shard_set_batches(set, (size_t)i, replay, &r) < 0)
					break;
			}
			shard_set_free(set);
		}
	}
	unlink(path);
	batch_pool_release();
	diag_reset();
	return 0;
}
