/*
 * floor.c: the work no build of a plain Kineto trace can leave out, each
 * part timed alone on this machine (bench/run.sh adds the bare parse of
 * bench/bare.cpp and prints the least wall time any build could take).
 * Built by the top-level Makefile (`make bench`) against perfstudy's objects.
 *
 *   floor FILE STORE
 *
 * sha     the SHA-256 of FILE, which the report's provenance lists (issue 6),
 *         with perfstudy's own src/util/sha256.c over the bytes in memory:
 *         one core, as the hash of one stream cannot be split
 *   read    FILE read out of the page cache in pieces of 256 KiB, as
 *         perfstudy's read-ahead does
 *   store   the rows STORE holds for its traces (activities, launches,
 *         cpu_ops, annotations), read into memory first, then inserted into
 *         a fresh database with the same tables by SQLite alone: 32 rows a
 *         statement, one transaction, journal and sync off, as perfstudy
 *         stores them; no name lookups, no checks of perfstudy's
 *   walk    perfstudy's own simdjson walk (kineto_json.cpp) with the
 *         categories of kineto.c, over the file's events cut beforehand into
 *         windows of 1 MiB, one warm parser, events handed to a callback
 *         that does nothing: the parse as perfstudy does it, reading every
 *         field the store keeps, without cutting, recording or storing.
 *         The bare parse reads four fields; this is what a build must read
 *
 * Each is the best of ROUNDS runs, in seconds. Prints one line of key=value.
 */
#define _GNU_SOURCE /* memmem */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest/kineto/kineto_stream.h"
#include "util/sha256.h"
#include "util/xalloc.h"

#define ROUNDS 7
#define PIECE (256u << 10)
#define PER_STMT 32

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "floor: %s: %s\n", what, detail);
	exit(1);
}

static double time_read(const char *path, unsigned char **all, size_t *size)
{
	unsigned char *piece = xmalloc(PIECE);
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		int fd = open(path, O_RDONLY);
		if (fd < 0)
			die(path, "cannot open");
		double t = now();
		ssize_t n;
		size_t total = 0;
		while ((n = read(fd, piece, PIECE)) > 0)
			total += (size_t)n;
		t = now() - t;
		close(fd);
		if (n < 0)
			die(path, "cannot read");
		if (t < best)
			best = t;
		*size = total;
	}
	free(piece);
	/* The whole file in memory for the hash. */
	*all = xmalloc(*size ? *size : 1);
	FILE *f = fopen(path, "rb");
	if (!f || fread(*all, 1, *size, f) != *size)
		die(path, "cannot read");
	fclose(f);
	return best;
}

static double time_sha(const unsigned char *p, size_t n, char hex[65])
{
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		struct sha256 s;
		double t = now();
		sha256_init(&s);
		sha256_update(&s, p, n);
		sha256_final_hex(&s, hex);
		t = now() - t;
		if (t < best)
			best = t;
	}
	return best;
}

/* One table's rows in memory: each value an int64, a text, or NULL. */
struct table {
	const char *name;
	char *schema;
	int ncol;
	size_t nrow;
	int *type;        /* SQLITE_INTEGER, SQLITE_TEXT or SQLITE_NULL */
	long long *ival;
	char **text;
};

static const char *tables[] = {"activities", "launches", "cpu_ops", "annotations"};
#define NTAB (sizeof(tables) / sizeof(tables[0]))

static void load(sqlite3 *db, struct table *t)
{
	sqlite3_stmt *st;
	char q[256];
	snprintf(q, sizeof(q), "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = '%s'", t->name);
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW)
		die(t->name, "no such table in the store");
	t->schema = xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	snprintf(q, sizeof(q), "SELECT * FROM \"%s\" ORDER BY rowid", t->name);
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		die(t->name, sqlite3_errmsg(db));
	t->ncol = sqlite3_column_count(st);
	size_t cap = 1024;
	t->type = xmalloc(cap * (size_t)t->ncol * sizeof(int));
	t->ival = xmalloc(cap * (size_t)t->ncol * sizeof(long long));
	t->text = xmalloc(cap * (size_t)t->ncol * sizeof(char *));
	while (sqlite3_step(st) == SQLITE_ROW) {
		if (t->nrow == cap) {
			cap *= 2;
			t->type = xrealloc(t->type, cap * (size_t)t->ncol * sizeof(int));
			t->ival = xrealloc(t->ival, cap * (size_t)t->ncol * sizeof(long long));
			t->text = xrealloc(t->text, cap * (size_t)t->ncol * sizeof(char *));
		}
		for (int c = 0; c < t->ncol; c++) {
			size_t k = t->nrow * (size_t)t->ncol + (size_t)c;
			int ty = sqlite3_column_type(st, c);
			t->type[k] = ty == SQLITE_TEXT ? SQLITE_TEXT : ty == SQLITE_NULL ? SQLITE_NULL : SQLITE_INTEGER;
			t->ival[k] = sqlite3_column_int64(st, c);
			t->text[k] = ty == SQLITE_TEXT ? xstrdup((const char *)sqlite3_column_text(st, c)) : NULL;
		}
		t->nrow++;
	}
	sqlite3_finalize(st);
}

static sqlite3_stmt *insert_stmt(sqlite3 *db, const struct table *t, int rows)
{
	size_t cap = 64 + (size_t)rows * ((size_t)t->ncol * 2 + 3);
	char *q = xmalloc(cap);
	size_t o = (size_t)snprintf(q, cap, "INSERT INTO \"%s\" VALUES", t->name);
	for (int r = 0; r < rows; r++) {
		o += (size_t)snprintf(q + o, cap - o, "%s(", r ? "," : "");
		for (int c = 0; c < t->ncol; c++)
			o += (size_t)snprintf(q + o, cap - o, "%s?", c ? "," : "");
		o += (size_t)snprintf(q + o, cap - o, ")");
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		die(t->name, sqlite3_errmsg(db));
	free(q);
	return st;
}

static void insert_rows(sqlite3 *db, sqlite3_stmt *st, const struct table *t, size_t from, int rows)
{
	for (int i = 0; i < rows; i++)
		for (int c = 0; c < t->ncol; c++) {
			size_t k = (from + (size_t)i) * (size_t)t->ncol + (size_t)c;
			int p = i * t->ncol + c + 1;
			if (t->type[k] == SQLITE_NULL)
				sqlite3_bind_null(st, p);
			else if (t->type[k] == SQLITE_TEXT)
				sqlite3_bind_text(st, p, t->text[k], -1, SQLITE_STATIC);
			else
				sqlite3_bind_int64(st, p, t->ival[k]);
		}
	if (sqlite3_step(st) != SQLITE_DONE)
		die(t->name, sqlite3_errmsg(db));
	sqlite3_reset(st);
}

static double time_store(const char *store, size_t *rows)
{
	sqlite3 *src;
	if (sqlite3_open_v2(store, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		die(store, "cannot open");
	struct table t[NTAB];
	memset(t, 0, sizeof(t));
	*rows = 0;
	for (size_t i = 0; i < NTAB; i++) {
		t[i].name = tables[i];
		load(src, &t[i]);
		*rows += t[i].nrow;
	}
	sqlite3_close(src);
	char dbpath[] = "/tmp/perfstudy-floor-XXXXXX";
	int fd = mkstemp(dbpath);
	if (fd < 0)
		die(dbpath, "cannot create");
	close(fd);
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		unlink(dbpath);
		sqlite3 *db;
		if (sqlite3_open(dbpath, &db) != SQLITE_OK)
			die(dbpath, "cannot open");
		if (sqlite3_exec(db, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
				 "CREATE TABLE traces(id INTEGER PRIMARY KEY);"
				 "CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);",
				 NULL, NULL, NULL) != SQLITE_OK)
			die(dbpath, sqlite3_errmsg(db));
		for (size_t i = 0; i < NTAB; i++)
			if (sqlite3_exec(db, t[i].schema, NULL, NULL, NULL) != SQLITE_OK)
				die(t[i].name, sqlite3_errmsg(db));
		double t0 = now();
		sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
		for (size_t i = 0; i < NTAB; i++) {
			sqlite3_stmt *many = insert_stmt(db, &t[i], PER_STMT), *one = insert_stmt(db, &t[i], 1);
			size_t k = 0;
			for (; k + PER_STMT <= t[i].nrow; k += PER_STMT)
				insert_rows(db, many, &t[i], k, PER_STMT);
			for (; k < t[i].nrow; k++)
				insert_rows(db, one, &t[i], k, 1);
			sqlite3_finalize(many);
			sqlite3_finalize(one);
		}
		if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
			die(dbpath, sqlite3_errmsg(db));
		double el = now() - t0;
		sqlite3_close(db);
		if (el < best)
			best = el;
	}
	unlink(dbpath);
	return best;
}

/* A JSON array of whole events and its length, '[' and ']' in place of the separators around it. */
struct window {
	char *p;
	size_t n;
};

/* Appends a window of the len bytes at from (a '[' or ',' and whole elements), padded for simdjson. */
static void add_window(struct window **w, size_t *nw, size_t *cap, const char *from, size_t len)
{
	if (*nw == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*w = xrealloc(*w, *cap * sizeof(**w));
	}
	char *b = xmalloc(len + 1 + 64);
	memcpy(b, from, len);
	b[0] = '[';
	b[len] = ']';
	memset(b + len + 1, ' ', 64);
	(*w)[*nw].p = b;
	(*w)[(*nw)++].n = len + 1;
}

static int ignore_event(void *ctx, const struct kj_event *ev)
{
	(void)ev;
	++*(size_t *)ctx;
	return 0;
}

/*
 * Cuts the events of the traceEvents array of p[0..n) into windows of about
 * 1 MiB of whole events (a byte-by-byte scan of strings and brackets, not
 * timed), then times kj_parse_events over them. Returns the best time, or a
 * negative number when the file has no such array.
 */
static double time_walk(const unsigned char *text, size_t n, size_t *events)
{
	const char *p = (const char *)text;
	const char *key = memmem(p, n, "\"traceEvents\"", 13);
	const char *open = key ? memchr(key, '[', n - (size_t)(key - p)) : NULL;
	if (!open)
		return -1;
	struct window *w = NULL;
	size_t nw = 0, cap = 0, start = (size_t)(open - p), done = start;
	int depth = 0, in_str = 0, esc = 0;
	for (size_t i = start + 1; i < n; i++) {
		char c = p[i];
		if (in_str) {
			if (esc)
				esc = 0;
			else if (c == '\\')
				esc = 1;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"') {
			in_str = 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth-- == 0)
				break; /* the array's end */
			if (depth == 0) {
				done = i + 1; /* an element ends */
				if (done - start >= (1u << 20)) {
					add_window(&w, &nw, &cap, p + start, done - start);
					start = done;
				}
			}
		}
	}
	if (done > start) /* the last window: from the ',' or '[' at start to the last element */
		add_window(&w, &nw, &cap, p + start, done - start);
	struct kj_parser *kp = kj_parser_new(3u << 19);
	double best = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		*events = 0;
		double t = now();
		for (size_t k = 0; k < nw; k++) {
			struct kj_error err;
			if (kj_parse_events(kp, w[k].p, w[k].n, 0, ignore_event, kineto_cat_class, events, &err) != 0)
				die("walk", err.message);
		}
		t = now() - t;
		if (t < best)
			best = t;
	}
	kj_parser_free(kp);
	for (size_t k = 0; k < nw; k++)
		free(w[k].p);
	free(w);
	return best;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: floor FILE STORE\n");
		return 2;
	}
	unsigned char *all;
	size_t size, rows;
	char hex[65];
	double rd = time_read(argv[1], &all, &size);
	double sha = time_sha(all, size, hex);
	size_t events = 0;
	double walk = time_walk(all, size, &events);
	free(all);
	double store = time_store(argv[2], &rows);
	printf("bytes=%zu sha_s=%.4f sha_mbs=%.0f read_s=%.4f store_s=%.4f rows=%zu sha256=%s", size, sha,
	       size / sha / 1e6, rd, store, rows, hex);
	if (walk >= 0)
		printf(" walk_s=%.4f walk_events=%zu", walk, events);
	printf("\n");
	return 0;
}
