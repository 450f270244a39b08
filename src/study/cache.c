/*
 * study/cache.c: copying unchanged traces' rows from the previous build's
 * store, see study/cache.h: which traces are unchanged (size, time, file
 * identity, content) and what is said about it. The SQL, the old store
 * attached and the copy inside SQLite, is store/cache.c's.
 */
#include "study/cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/diag.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/xalloc.h"

#ifndef PERFSTUDY_VERSION
#define PERFSTUDY_VERSION "unknown"
#endif

struct build_cache {
	struct store_prev *prev;
};

/* SHA-256 of a whole file as 64 hex digits; 0, or -1 when it cannot be read. */
static int hash_file(const char *path, char hex[65])
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	struct sha256 h;
	sha256_init(&h);
	char *chunk = xmalloc(1 << 16);
	size_t n;
	while ((n = fread(chunk, 1, 1 << 16, f)) > 0)
		sha256_update(&h, chunk, n);
	int bad = ferror(f);
	fclose(f);
	free(chunk);
	if (bad)
		return -1;
	sha256_final_hex(&h, hex);
	return 0;
}

/*
 * The identity of this perfstudy: the SHA-256 of its own executable, so a
 * rebuilt binary (a fixed reader, a changed schema) never reuses rows that
 * an older one wrote. Without /proc, only the version.
 */
static const char *build_id(void)
{
	static char id[80];
	if (!id[0]) {
		char hex[65];
		if (hash_file("/proc/self/exe", hex) == 0)
			snprintf(id, sizeof(id), "%s", hex);
		else
			snprintf(id, sizeof(id), "version %s", PERFSTUDY_VERSION);
	}
	return id;
}

int cache_prepare_store(struct store *s)
{
	if (store_add_cache_tables(s) < 0)
		return -1;
	return store_set_meta(s, "build_id", build_id(), "build id");
}

void cache_close(struct build_cache *c, struct store *s)
{
	(void)s;
	if (!c)
		return;
	store_prev_close(c->prev);
	free(c);
}

int cache_open(struct store *s, const char *prev_db, int quiet, struct build_cache **out)
{
	*out = NULL;
	struct stat st;
	if (stat(prev_db, &st) || !S_ISREG(st.st_mode))
		return 0;
	char *unsafe;
	if (store_check_previous(prev_db, &unsafe) < 0) {
		if (!quiet)
			diag_line(stderr, "perfstudy: %s: not reused: %s; reading every trace", prev_db, unsafe);
		free(unsafe);
		return 0;
	}
	if (store_attach(s, prev_db, "prev") < 0) {
		if (!quiet)
			diag_line(stderr, "perfstudy: %s: not reused: %s", prev_db, store_errmsg(s));
		return 0;
	}
	const char *why = store_prev_check(s, build_id());
	if (why) {
		if (!quiet)
			diag_line(stderr, "perfstudy: %s: not reused: %s; reading every trace", prev_db, why);
		store_detach(s, "prev");
		return 0;
	}
	struct store_prev *prev;
	if (store_prev_open(s, &prev) < 0)
		return -1;
	struct build_cache *c = xcalloc(1, sizeof(*c));
	c->prev = prev;
	*out = c;
	return 0;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/*
 * The identity of the file a path resolves to, "device:inode": a symbolic
 * link retargeted to another file of the same size and time must not pass
 * for the file the previous build read.
 */
static void file_id(const struct stat *st, char out[48])
{
	snprintf(out, 48, "%llu:%llu", (unsigned long long)st->st_dev, (unsigned long long)st->st_ino);
}

/* Reports a warning the old build met in a trace again, as a diag warning. */
static void replay_warning(void *ctx, const char *message)
{
	(void)ctx;
	char *m = xstrdup(message);
	char *sep = strstr(m, ": warning: ");
	if (sep) {
		*sep = '\0';
		diag_warning(m, "%s", sep + 11);
	} else {
		diag_warning(NULL, "%s", m);
	}
	free(m);
}

/* 1 when path is as the previous build read it (*old_id: its id there), else 0. */
static int unchanged(struct build_cache *c, const char *path, int64_t *old_id_out)
{
	struct stat st;
	if (!c || stat(path, &st))
		return 0; /* reading it will say what is wrong */
	struct store_prev_trace old;
	if (!store_prev_lookup(c->prev, path, &old) || old.size != (int64_t)st.st_size)
		return 0;
	char now_file[48];
	file_id(&st, now_file);
	if (old.mtime_ns != mtime_ns(&st) || strcmp(old.file_id, now_file)) {
		/* Touched, copied, or another file (a link retargeted): the content decides. */
		char hex[65];
		if (hash_file(path, hex) < 0 || strcmp(hex, old.sha256))
			return 0;
	}
	*old_id_out = old.id;
	return 1;
}

int cache_trace_unchanged(struct build_cache *c, const char *path)
{
	int64_t old_id;
	return unchanged(c, path, &old_id);
}

const char *cache_build_id(void)
{
	return build_id();
}

int cache_reuse_trace(struct build_cache *c, struct store *s, int64_t run_id, const char *path,
		      int index, int64_t *trace_id)
{
	int64_t old_id;
	if (!unchanged(c, path, &old_id))
		return 0;
	int64_t id = store_add_trace(s, run_id, path, index);
	if (id < 0)
		return -1;
	if (store_prev_copy_trace(c->prev, id, old_id) < 0)
		return -1;
	store_prev_warnings(c->prev, old_id, replay_warning, NULL);
	*trace_id = id;
	return 1;
}

int cache_record_trace(struct store *s, int64_t trace_id, const char *path, size_t warn_mark)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		char id[48];
		file_id(&st, id);
		if (store_record_trace_file(s, trace_id, mtime_ns(&st), id) < 0)
			return -1;
	}
	return store_record_trace_warnings(s, trace_id, warn_mark);
}

char *cache_fingerprint(const char *what)
{
	struct sha256 h;
	char hex[65];
	sha256_init(&h);
	sha256_update(&h, build_id(), strlen(build_id()));
	sha256_update(&h, "\n", 1);
	sha256_update(&h, what, strlen(what));
	sha256_final_hex(&h, hex);
	return xstrdup(hex);
}

struct site_check {
	const char *outdir;
	struct stat dbst;
	int quiet, intact;
};

/* Whether one file of the previous site is as the build wrote it; stops the walk (1) when not. */
static int site_file_intact(void *ctx, const char *rel, int64_t size)
{
	struct site_check *c = ctx;
	struct stat sb;
	char *p = rel ? xasprintf("%s/%s", c->outdir, rel) : NULL;
	c->intact = p && lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == size &&
		    (sb.st_mtim.tv_sec < c->dbst.st_mtim.tv_sec ||
		     (sb.st_mtim.tv_sec == c->dbst.st_mtim.tv_sec && sb.st_mtim.tv_nsec <= c->dbst.st_mtim.tv_nsec));
	if (!c->intact && p && !c->quiet) {
		char *esc = diag_escape(p);
		fprintf(stderr, "perfstudy: %s is missing or changed since the last build: building again\n", esc);
		free(esc);
	}
	free(p);
	return !c->intact;
}

/* 1 when every file site_files lists is in outdir with its size; 0 otherwise or without site_files. */
static int site_intact(const char *prev_db, const char *outdir, int quiet)
{
	struct store *db = NULL;
	struct site_check c = {.outdir = outdir, .quiet = quiet};
	/* No store, or one without site_files: not up to date, and no error. */
	if (stat(prev_db, &c.dbst) < 0 || store_open_read(prev_db, 1, &db) < 0 ||
	    store_guard(db, (uint64_t)c.dbst.st_size) < 0)
		goto out;
	/*
	 * The store is the last file a build writes (the swap renames, which
	 * keeps times): a site file changed since is newer than it. Sizes catch
	 * the rest; the store records no time, so two builds write its same bytes.
	 */
	c.intact = 1;
	if (store_site_files(db, site_file_intact, &c) < 0)
		c.intact = 0;
out:
	store_close(db);
	return c.intact;
}

int cache_up_to_date(const char *prev_db, const char *fingerprint, const char *outdir, int quiet)
{
	/* A store not safe to read is not up to date; cache_open says why. */
	char *unsafe;
	if (store_check_previous(prev_db, &unsafe) < 0) {
		free(unsafe);
		return 0;
	}
	char *v = store_file_meta(prev_db, "fingerprint");
	int same = v && !strcmp(v, fingerprint);
	free(v);
	/* The previous output must also be whole: a figure or page deleted since is written again. */
	return same && site_intact(prev_db, outdir, quiet);
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Inserts the regular files under dir/rel (rel "" at the top) into site_files; 0 or -1. */
static int record_tree(struct store *s, const char *dir, const char *rel)
{
	char *path = *rel ? xasprintf("%s/%s", dir, rel) : xstrdup(dir);
	DIR *d = opendir(path);
	int ret = 0;
	if (!d) {
		diag_syserror(path, "cannot open directory: %s", strerror(errno));
		free(path);
		return -1;
	}
	/* In name order, so that two builds of the same inputs write the same store bytes. */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		/* The store is rewritten by every build; it is not part of what the shortcut checks. */
		if (!*rel && !strncmp(e->d_name, "perfstudy.db", 12))
			continue;
		/* The partial mark of DIR.tmp.<pid> (fs.h) is gone once the site is in place. */
		if (!*rel && !strcmp(e->d_name, FS_PARTIAL_MARK))
			continue;
		names = xgrow(names, &cap, n + 1, sizeof(*names));
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n) /* qsort's array may not be NULL, even when empty */
		qsort(names, n, sizeof(*names), cmp_name);
	for (size_t i = 0; ret == 0 && i < n; i++) {
		char *sub = *rel ? xasprintf("%s/%s", rel, names[i]) : xstrdup(names[i]);
		char *full = xasprintf("%s/%s", dir, sub);
		struct stat sb;
		if (lstat(full, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			ret = record_tree(s, dir, sub);
		} else if (lstat(full, &sb) == 0 && S_ISREG(sb.st_mode)) {
			ret = store_add_site_file(s, sub, (int64_t)sb.st_size);
		}
		free(full);
		free(sub);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(path);
	return ret;
}

int cache_record_site(struct store *s, const char *dir)
{
	if (store_add_site_files(s) < 0)
		return -1;
	return record_tree(s, dir, "");
}

int cache_set_fingerprint(struct store *s, const char *fingerprint)
{
	return store_set_meta(s, "fingerprint", fingerprint, "record fingerprint");
}
