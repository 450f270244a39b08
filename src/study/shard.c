/*
 * study/shard.c: shard databases, written by `perfstudy ingest --shard I/N` and
 * replayed by `perfstudy merge` (see shard.h).
 *
 * Writing: the traces of the shard go through a trace feed (parallel.h)
 * with --jobs workers; each batch it hands over becomes one row of
 * shard_batches, inside one transaction into a temporary file renamed at
 * the end. Reading: each shard is opened read-only; a trace's batches are
 * read back in order and replayed by the feed into the store. Both go
 * through the store's door (store.h: store_create_shard, whose tables are
 * in store/schema.c, store_open_read, and the store_shard_* functions of
 * store/shard.c, which hold the SQL), so that a failure names the shard
 * and what the statement was for.
 */
#include "study/shard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "study/cache.h"
#include "ingest/parallel.h"
#include "util/cleanup.h"
#include "util/diag.h"
#include "util/progress.h"
#include "util/sha256.h"
#include "util/xalloc.h"

#define SHARD_FORMAT "perfstudy shard 1"

/* The inputs a shard was cut from: SHA-256 of the trace paths in order, one per line. */
static void inputs_id(const char *const *paths, size_t n, char hex[65])
{
	struct sha256 h;
	sha256_init(&h);
	for (size_t i = 0; i < n; i++) {
		sha256_update(&h, paths[i], strlen(paths[i]));
		sha256_update(&h, "\n", 1);
	}
	sha256_final_hex(&h, hex);
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

struct shard_writer {
	struct store *db;
	int64_t position, seq;
};

static int write_batch(void *ctx, const char *data, size_t len)
{
	struct shard_writer *w = ctx;
	return store_shard_put_batch(w->db, w->position, w->seq++, data, len);
}

/* 1 when path is a file whose SQLite header carries the shard application_id (STORE_SHARD_APP_ID). */
static int shard_header(const char *path)
{
	unsigned char h[72];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t got = fread(h, 1, sizeof(h), f);
	fclose(f);
	uint32_t id = got == sizeof(h) ? (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71] : 0;
	return got == sizeof(h) && !memcmp(h, "SQLite format 3", 16) && id == STORE_SHARD_APP_ID;
}

/*
 * The temporary files OUT.tmp.<pid> that an ingest killed with SIGKILL left
 * (no handler runs then): removed when <pid> is no running process and the
 * file's header says it is a perfstudy shard (STORE_SHARD_APP_ID), so that
 * a user's own OUT.tmp.2024 is never touched; each removal is said.
 */
static void sweep_stale_tmp(const char *out, int quiet)
{
	char *dir = xstrdup(out), *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : out;
	if (slash)
		*slash = 0;
	DIR *d = opendir(slash ? (*dir ? dir : "/") : ".");
	size_t blen = strlen(base);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		const char *n = e->d_name, *p = n + blen + 5;
		if (strncmp(n, base, blen) || strncmp(n + blen, ".tmp.", 5) || !*p || strspn(p, "0123456789") != strlen(p) ||
		    strlen(p) > 9)
			continue;
		long pid = strtol(p, NULL, 10);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		char *path = slash ? xasprintf("%s/%s", *dir ? dir : "", n) : xstrdup(n);
		struct stat st;
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && shard_header(path) && unlink(path) == 0 && !quiet)
			diag_line(stderr, "perfstudy: removed %s, left by an ingest that was killed (process %ld)", path, pid);
		free(path);
	}
	if (d)
		closedir(d);
	free(dir);
}

/*
 * Creates OUT.tmp.<pid> exclusively (O_EXCL, no link followed), empty, for
 * SQLite to fill. One of that name may exist when pids repeat: it is
 * removed only when it is a perfstudy shard or empty (a killed ingest's
 * leftover);
 * anything else is the user's, and the ingest stops naming it. Returns 0,
 * or -1 after diag.
 */
static int create_tmp(const char *tmp)
{
	for (int tries = 0; tries < 2; tries++) {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST) {
			diag_syserror(tmp, "cannot create the shard database: %s", strerror(errno));
			return -1;
		}
		struct stat st;
		if (tries || lstat(tmp, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_size && !shard_header(tmp)) ||
		    unlink(tmp) < 0)
			break;
	}
	diag_error(tmp, "exists and is not a perfstudy shard: ingest writes its temporary database under this "
			"name; move it away and ingest again");
	return -1;
}

int shard_write(const char *out, const char *const *paths, size_t n, int shard, int nshards, int jobs, int quiet)
{
	char *tmp = xasprintf("%s.tmp.%ld", out, (long)getpid());
	sweep_stale_tmp(out, quiet);
	struct shard_writer w = {0};
	struct trace_feed *feed = NULL;
	int ret = -1, made = 0;
	if (create_tmp(tmp) < 0)
		goto out;
	made = 1;
	/* A signal or running out of memory removes tmp, as a build's DIR.tmp.<pid> (cleanup.h). */
	cleanup_arm(tmp);
	if (store_create_shard(tmp, out, &w.db) < 0 || store_shard_begin(w.db) < 0)
		goto out;
	char hex[65], num[3][32];
	inputs_id(paths, n, hex);
	snprintf(num[0], sizeof(num[0]), "%d", shard);
	snprintf(num[1], sizeof(num[1]), "%d", nshards);
	snprintf(num[2], sizeof(num[2]), "%zu", n);
	const char *meta[][2] = {{"format", SHARD_FORMAT}, {"build_id", cache_build_id()}, {"shard", num[0]},
				 {"shards", num[1]}, {"traces", num[2]}, {"inputs", hex}};
	for (size_t k = 0; k < sizeof(meta) / sizeof(meta[0]); k++)
		if (store_shard_put_meta(w.db, meta[k][0], meta[k][1]) < 0)
			goto out;

	feed = feed_new(paths, n, jobs);
	int64_t total = 0;
	size_t mine = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		if ((int)(i % (size_t)nshards) != shard) {
			feed_skip(feed, i);
			continue;
		}
		mine++;
		if (stat(paths[i], &sb) == 0)
			total += sb.st_size;
	}
	feed_start(feed, NULL);
	struct progress prog;
	progress_init(&prog, quiet, total, mine);
	for (size_t i = (size_t)shard; i < n; i += (size_t)nshards) {
		struct stat sb;
		/* The size and time before reading: a file changed while read is then seen as changed. */
		int have = stat(paths[i], &sb) == 0;
		progress_reading(&prog, paths[i], have ? sb.st_size : 0);
		w.position = (int64_t)i;
		w.seq = 0;
		if (feed_take_batches(feed, i, write_batch, &w) < 0)
			goto out;
		progress_read(&prog, have ? sb.st_size : 0);
		if (store_shard_put_trace(w.db, (int64_t)i, paths[i], have, have ? sb.st_size : 0,
					  have ? mtime_ns(&sb) : 0) < 0)
			goto out;
	}
	progress_finish(&prog);
	if (store_shard_index(w.db) < 0)
		goto out;
	int rc = store_close(w.db);
	w.db = NULL;
	if (rc < 0)
		goto out;
	cleanup_hold(1);
	if (rename(tmp, out) < 0) {
		cleanup_hold(0);
		diag_syserror(out, "cannot rename %s to it: %s", tmp, strerror(errno));
		goto out;
	}
	cleanup_disarm();
	cleanup_hold(0);
	ret = 0;
out:
	feed_free(feed);
	store_close(w.db);
	if (ret < 0 && made)
		unlink(tmp);
	cleanup_disarm();
	free(tmp);
	return ret;
}

/*
 * A shard opened read-only and bounded as any SQLite file perfstudy did not
 * open itself (util/sqlguard.h: limits and a step budget for its size), so
 * that a forged shard (a recursive view as shard_meta) fails instead of
 * hanging merge; NULL when SQLite cannot open it.
 */
static struct store *open_ro(const char *path)
{
	struct store *db;
	struct stat sb;
	if (store_open_read(path, 1, &db) < 0)
		return NULL;
	if (store_guard(db, stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0) < 0) {
		store_close(db);
		return NULL;
	}
	return db;
}

/* The shard's tables that are not plain tables (a view runs the file's own SQL): NULL, or the first, with what it is. */
static const char *shard_not_plain(struct store *db, const char **table)
{
	static const char *const tables[] = {"shard_meta", "shard_traces", "shard_batches"};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		const char *kind = store_not_plain(db, tables[i]);
		if (kind) {
			*table = tables[i];
			return kind;
		}
	}
	return NULL;
}

int shard_is_shard(const char *path)
{
	char head[16];
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	size_t got = fread(head, 1, sizeof(head), f);
	fclose(f);
	if (got != sizeof(head) || memcmp(head, "SQLite format 3", 16))
		return 0;
	struct store *db = open_ro(path);
	if (!db)
		return 0;
	/* A shard_meta that is not a plain table claims to be a shard: merge refuses it, naming the table. */
	const char *table;
	if (shard_not_plain(db, &table) && !strcmp(table, "shard_meta")) {
		store_close(db);
		return 1;
	}
	char *fmt = store_shard_meta(db, "format");
	int yes = fmt && !strncmp(fmt, "perfstudy shard ", 16);
	free(fmt);
	store_close(db);
	return yes;
}

struct shard_db {
	const char *path;
	struct store *db;
};

struct shard_set {
	size_t nshards;
	struct shard_db *by_index; /* shard I at [I] */
	const char *const *paths;
	size_t n;
};

void shard_set_free(struct shard_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nshards; i++)
		store_close(s->by_index[i].db);
	free(s->by_index);
	free(s);
}

/* Parses a decimal meta value; -1 when absent or not a number. */
static long meta_num(struct store *db, const char *key)
{
	char *v = store_shard_meta(db, key), *end = NULL;
	long r = v ? strtol(v, &end, 10) : -1;
	if (!v || end == v || *end)
		r = -1;
	free(v);
	return r;
}

int shard_set_open(const char *const *dbs, size_t ndbs, const char *const *paths, size_t n,
		   struct shard_set **out)
{
	struct shard_set *s = xcalloc(1, sizeof(*s));
	s->paths = paths;
	s->n = n;
	char want[65];
	inputs_id(paths, n, want);
	*out = NULL;
	for (size_t k = 0; k < ndbs; k++) {
		const char *path = dbs[k];
		struct store *db = open_ro(path);
		const char *table, *kind = db ? shard_not_plain(db, &table) : NULL;
		if (kind) {
			diag_error(path, "table '%s': is %s, not a plain table; refused (a perfstudy shard has only plain "
					 "tables, and a view runs the file's own SQL)", table, kind);
			store_close(db);
			goto fail;
		}
		char *fmt = db ? store_shard_meta(db, "format") : NULL;
		if (!fmt || strcmp(fmt, SHARD_FORMAT)) {
			diag_error(path, "not a shard database of this perfstudy (expected '%s')", SHARD_FORMAT);
			free(fmt);
			store_close(db);
			goto fail;
		}
		free(fmt);
		char *bid = store_shard_meta(db, "build_id"), *inputs = store_shard_meta(db, "inputs");
		long shard = meta_num(db, "shard"), nshards = meta_num(db, "shards"), traces = meta_num(db, "traces");
		const char *why = NULL;
		if (!bid || strcmp(bid, cache_build_id()))
			why = "was written by another perfstudy build; run the shards again with this one";
		else if (!inputs || strcmp(inputs, want) || traces != (long)n)
			why = "was cut from other inputs than these (the same INPUT arguments, from the same directory, are needed)";
		else if (nshards < 1 || shard < 0 || shard >= nshards || (s->nshards && (size_t)nshards != s->nshards))
			why = "does not belong to the same set of shards as the others";
		free(bid);
		free(inputs);
		/*
		 * Every shard of the set must be given, and a set has no more shards than
		 * traces: a count past both is forged, and allocating for it (a shard
		 * claiming 2,000,000,000) ran out of memory instead of naming the shard.
		 */
		if (!why && (size_t)nshards > ndbs && (size_t)nshards > n) {
			diag_error(path, "table 'shard_meta', key 'shards': %ld shards, more than the %zu traces and the %zu "
					 "shard database%s given; refused (a damaged or forged shard)",
				   nshards, n, ndbs, ndbs == 1 ? "" : "s");
			store_close(db);
			goto fail;
		}
		if (!why && !s->nshards) {
			s->nshards = (size_t)nshards;
			s->by_index = xcalloc(s->nshards, sizeof(*s->by_index));
		}
		if (!why && s->by_index[shard].db)
			why = "repeats a shard given before";
		if (why) {
			diag_error(path, "shard %s", why);
			store_close(db);
			goto fail;
		}
		struct shard_db *d = &s->by_index[shard];
		d->path = path;
		d->db = db;
		if (store_shard_prepare_read(db) < 0)
			goto fail;
	}
	if (!s->nshards) {
		diag_error("perfstudy", "no shard database given");
		goto fail;
	}
	for (size_t i = 0; i < s->nshards; i++)
		if (!s->by_index[i].db) {
			diag_error("perfstudy", "shard %zu/%zu is missing (run perfstudy ingest --shard %zu/%zu)", i,
				   s->nshards, i, s->nshards);
			goto fail;
		}
	*out = s;
	return 0;
fail:
	shard_set_free(s);
	return -1;
}

int shard_set_batches(void *set, size_t i, int (*fn)(void *ctx, const char *data, size_t len), void *ctx)
{
	struct shard_set *s = set;
	struct shard_db *d = &s->by_index[i % s->nshards];
	const char *path = s->paths[i];
	struct store_shard_trace t;
	int ret = -1;
	if (!store_shard_trace(d->db, (int64_t)i, &t)) {
		diag_error(d->path, "shard holds no trace '%s' at position %zu", path, i);
		return -1;
	}
	/* Prevents a NULL or non-text path (a damaged or forged shard) reaching strcmp. */
	if (!t.path) {
		diag_error(d->path, "table shard_traces, row position %zu: path is not text, expected '%s'; "
				    "the shard is damaged: run perfstudy ingest --shard %zu/%zu again",
			   i, path, i % s->nshards, s->nshards);
		goto out;
	}
	if (strcmp(t.path, path)) {
		diag_error(d->path, "shard holds no trace '%s' at position %zu", path, i);
		goto out;
	}
	struct stat st;
	if (stat(path, &st) < 0) {
		diag_syserror(path, "cannot stat: %s", strerror(errno));
		goto out;
	}
	if (!t.known || t.size != st.st_size || t.mtime_ns != mtime_ns(&st)) {
		diag_error(path, "changed since shard %zu/%zu read it (%s); run that shard again", i % s->nshards,
			   s->nshards, d->path);
		goto out;
	}
	ret = store_shard_batches(d->db, (int64_t)i, fn, ctx);
out:
	free(t.path);
	return ret;
}

/*
 * The checks of a trace's events that the readers make while parsing, made
 * again on the events of a shard: merge replays what a shard says without
 * parsing, so a damaged or forged shard could otherwise store negative
 * durations or kinds no reader produces. A bad event is blamed on the
 * shard (its path, table and row), not on the trace, which is not read.
 */
#define CHECK_AT "table shard_batches, rows of position %zu (trace '%s'), event %" PRId64 ": "
#define CHECK_AGAIN "; the shard is damaged: run perfstudy ingest --shard %zu/%zu again"

/* "what 'name' why (v)", or "what has no name" when name is NULL; returns -1. */
static int check_fail(struct shard_check *c, const char *what, const char *name, const char *why, int64_t v)
{
	size_t shard = c->position % c->nshards;
	if (name)
		diag_error(c->shard, CHECK_AT "%s '%s' %s (%" PRId64 ")" CHECK_AGAIN, c->position, c->trace,
			   c->events, what, name, why, v, shard, c->nshards);
	else
		diag_error(c->shard, CHECK_AT "%s has no name" CHECK_AGAIN, c->position, c->trace, c->events, what,
			   shard, c->nshards);
	return -1;
}

#define FORWARD(cb, type, check)                                             \
	static int check_##cb(void *ctx, const type *v)                      \
	{                                                                    \
		struct shard_check *c = ctx;                                 \
		c->events++;                                                 \
		check;                                                       \
		return c->inner->cb(c->inner->ctx, v);                       \
	}
/*
 * A span as the readers make it, of a named event (the store looks the
 * name up: a NULL one crashed merge): a duration from 0, a start and a
 * duration within ingest.h's bounds (the readers skip an event outside
 * them). A shard's start near INT64_MAX overflowed in the store's sink and
 * the rank loads.
 */
static int check_span(struct shard_check *c, const char *what, const char *name, int64_t start, int64_t dur)
{
	if (!name)
		return check_fail(c, what, NULL, NULL, 0);
	if (dur < 0)
		return check_fail(c, what, name, "has a negative duration in ns", dur);
	if (start < INGEST_MIN_NS || start > INGEST_MAX_NS)
		return check_fail(c, what, name, "starts outside -2^60 to 3 * 2^60 ns (ingest.h): start in ns", start);
	if (dur > INGEST_MAX_DUR_NS)
		return check_fail(c, what, name, "lasts over 2^52 ns (ingest.h): duration in ns", dur);
	return 0;
}

/*
 * Prevents what no reader produces from entering the store from a shard:
 * an event without a name, a span check_span refuses, a kind out of
 * range, a device, size in bytes, rank or world size below -1 (unknown),
 * a world size of 0, a device's memory or SM count below -1: each what the
 * readers never give (fuzz.h's checking sink says the same). Rank and device
 * numbers up to INT32_MAX are what the readers take, and the analyses
 * index ranks by their position among those present, never by number.
 */
FORWARD(activity, struct gpu_activity,
	if (check_span(c, "GPU activity", v->name, v->start_ns, v->dur_ns) < 0)
		return -1;
	if (v->kind != ACT_KERNEL && v->kind != ACT_MEMCPY && v->kind != ACT_MEMSET)
		return check_fail(c, "GPU activity", v->name, "has no valid kind", (int64_t)v->kind);
	if (v->device < -1)
		return check_fail(c, "GPU activity", v->name, "has a device below -1 (unknown)", v->device);
	if (v->bytes < -1)
		return check_fail(c, "GPU activity", v->name, "has a size in bytes below -1 (unknown)", v->bytes))
FORWARD(runtime, struct runtime_call,
	if (check_span(c, "runtime call", v->name, v->start_ns, v->dur_ns) < 0)
		return -1)
FORWARD(annotation, struct annotation,
	if (check_span(c, "annotation", v->name, v->start_ns, v->dur_ns) < 0)
		return -1)
FORWARD(cpu_op, struct cpu_op,
	if (check_span(c, "operator", v->name, v->start_ns, v->dur_ns) < 0)
		return -1)
FORWARD(info, struct trace_info,
	if (!v->format)
		return check_fail(c, "trace info", NULL, NULL, 0);
	if (v->rank < -1)
		return check_fail(c, "trace info", v->format, "has a rank below -1 (unknown)", v->rank);
	if (v->world_size < -1 || v->world_size == 0)
		return check_fail(c, "trace info", v->format, "has a world size neither -1 (unknown) nor from 1",
				  v->world_size);
	for (size_t i = 0; i < v->ndevices; i++)
		if (v->devices[i].total_mem < -1 || v->devices[i].sm_count < -1)
			return check_fail(c, "trace info", v->format, "has a device memory or SM count below -1 (unknown)",
					  (int64_t)i))
FORWARD(metrics, struct kernel_metrics,
	if (!v->name)
		return check_fail(c, "kernel metrics", NULL, NULL, 0))
FORWARD(iteration, struct log_iteration, (void)0)
FORWARD(phase, struct phase_time, (void)0)
FORWARD(hardware, struct gpu_hardware, (void)0)
FORWARD(summary, struct summary_row,
	if (!v->name)
		return check_fail(c, "summary row", NULL, NULL, 0))
FORWARD(link, struct gpu_link, (void)0)
FORWARD(memory, struct memory_event,
	if (v->device < -1)
		return check_fail(c, "allocator event", "[memory]", "has a device below -1 (unknown)", v->device);
	if (v->device_type < -1)
		return check_fail(c, "allocator event", "[memory]", "has a device type below -1 (unknown)", v->device_type))
#undef FORWARD
#undef CHECK_AT
#undef CHECK_AGAIN

void shard_check_sink(const struct shard_set *s, size_t i, const struct ingest_sink *inner, struct shard_check *c,
		      struct ingest_sink *out)
{
	*c = (struct shard_check){.inner = inner, .shard = s->by_index[i % s->nshards].path, .trace = s->paths[i],
				  .position = i, .nshards = s->nshards};
	*out = (struct ingest_sink){.ctx = c};
#define SET(cb) out->cb = inner->cb ? check_##cb : NULL
	SET(info);
	SET(activity);
	SET(runtime);
	SET(annotation);
	SET(metrics);
	SET(iteration);
	SET(phase);
	SET(hardware);
	SET(summary);
	SET(cpu_op);
	SET(link);
	SET(memory);
#undef SET
}
