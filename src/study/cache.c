/*
 * study/cache.c: copying unchanged traces' rows from the previous build's
 * store, see study/cache.h.
 *
 * The old store is ATTACHed to the new one as "prev", so copying a trace is
 * a few INSERT ... SELECT statements inside SQLite, far faster than
 * inflating and parsing the JSON again. Which tables to copy is read from
 * the schema (every table with a trace_id column), so a table a new reader
 * adds is carried over without a change here.
 */
#include "study/cache.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/xalloc.h"

#ifndef PERFSTUDY_VERSION
#define PERFSTUDY_VERSION "unknown"
#endif

struct build_cache {
	struct store_stmt *lookup;   /* prev trace by path: id, size, sha256, mtime_ns, file_id */
	struct store_stmt *copy_row; /* main.traces row from prev.traces */
	struct store_stmt *fix_rank; /* a rank taken from the file's position follows its new position */
	struct store_stmt *warnings; /* prev.trace_warnings of a trace */
	size_t ncopy;
	struct store_stmt **copy;    /* one INSERT ... SELECT per table with a trace_id column */
};

/* Appends name as an SQL identifier, in double quotes. */
static void add_ident(struct buf *b, const char *name)
{
	buf_addc(b, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"')
			buf_addc(b, '"');
		buf_addc(b, *p);
	}
	buf_addc(b, '"');
}

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
	struct store_stmt *st;
	if (store_prepare(s, "build id", "INSERT OR REPLACE INTO meta VALUES('build_id', ?1)", &st) < 0)
		return -1;
	store_bind_text(st, 1, build_id());
	int rc = store_step_done(s, st, "build id");
	store_finalize(st);
	return rc;
}

/* Returns NULL when prev can be reused, else why not (a static string). */
static const char *check_prev(struct store *s)
{
	char *prev_id = store_probe_text(s, "SELECT value FROM prev.meta WHERE key = 'build_id'");
	int same = prev_id && !strcmp(prev_id, build_id());
	free(prev_id);
	if (!same)
		return "it was written by another perfstudy build";
	/* Every table and view of the new store must be in the old one, defined alike. */
	char *n = store_probe_text(s, "SELECT count(*) FROM main.sqlite_master m WHERE NOT EXISTS"
				" (SELECT 1 FROM prev.sqlite_master p WHERE p.type = m.type AND"
				"  p.name = m.name AND p.sql IS m.sql)");
	same = n && !strcmp(n, "0");
	free(n);
	return same ? NULL : "its schema differs";
}

/*
 * Prepares the copy of one table's rows of a trace (?2 in prev) to the new
 * trace (?1): the same columns, trace_id replaced. Sets *has to whether
 * the table has a trace_id column at all.
 */
static int prepare_copy(struct store *s, const char *table, int *has, struct store_stmt **out)
{
	struct buf cols, sel, sql;
	buf_init(&cols);
	buf_init(&sel);
	buf_init(&sql);
	*has = 0;
	*out = NULL;
	int rc = -1;
	struct store_stmt *info;
	buf_adds(&sql, "SELECT name FROM pragma_table_info(?1, 'main')");
	if (store_prepare(s, "list columns", sql.data, &info) < 0)
		goto out;
	store_bind_text(info, 1, table);
	int more;
	while ((more = store_step(s, info, "list columns")) > 0) {
		const char *col = (const char *)store_column_text(info, 0);
		if (cols.len) {
			buf_addc(&cols, ',');
			buf_addc(&sel, ',');
		}
		add_ident(&cols, col);
		if (!strcmp(col, "trace_id")) {
			*has = 1;
			buf_adds(&sel, "?1");
		} else {
			add_ident(&sel, col);
		}
	}
	store_finalize(info);
	if (more < 0)
		goto out;
	rc = 0;
	if (*has) {
		buf_reset(&sql);
		buf_adds(&sql, "INSERT INTO main.");
		add_ident(&sql, table);
		buf_printf(&sql, "(%s) SELECT %s FROM prev.", cols.data, sel.data);
		add_ident(&sql, table);
		buf_adds(&sql, " WHERE trace_id = ?2 ORDER BY rowid");
		rc = store_prepare(s, "prepare the copy of a trace's rows", sql.data, out);
	}
out:
	buf_release(&cols);
	buf_release(&sel);
	buf_release(&sql);
	return rc;
}

/* The UPDATE that gives a new traces row everything the old one recorded. */
static int prepare_row_copy(struct store *s, struct store_stmt **out)
{
	struct buf cols, sql;
	buf_init(&cols);
	buf_init(&sql);
	struct store_stmt *info;
	int rc = -1;
	if (store_prepare(s, "list columns", "SELECT name FROM pragma_table_info('traces', 'main')", &info) < 0)
		goto out;
	int more;
	while ((more = store_step(s, info, "list columns")) > 0) {
		const char *col = (const char *)store_column_text(info, 0);
		if (!strcmp(col, "id") || !strcmp(col, "run_id") || !strcmp(col, "path") ||
		    !strcmp(col, "file_index"))
			continue;
		if (cols.len)
			buf_addc(&cols, ',');
		add_ident(&cols, col);
	}
	store_finalize(info);
	if (more < 0)
		goto out;
	buf_printf(&sql, "UPDATE main.traces SET (%s) = (SELECT %s FROM prev.traces WHERE id = ?2) WHERE id = ?1",
		   cols.data, cols.data);
	rc = store_prepare(s, "prepare the copy of a traces row", sql.data, out);
out:
	buf_release(&cols);
	buf_release(&sql);
	return rc;
}

void cache_close(struct build_cache *c, struct store *s)
{
	if (!c)
		return;
	store_finalize(c->lookup);
	store_finalize(c->copy_row);
	store_finalize(c->fix_rank);
	store_finalize(c->warnings);
	for (size_t i = 0; i < c->ncopy; i++)
		store_finalize(c->copy[i]);
	free(c->copy);
	free(c);
	store_detach(s, "prev");
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
	const char *why = check_prev(s);
	if (why) {
		if (!quiet)
			diag_line(stderr, "perfstudy: %s: not reused: %s; reading every trace", prev_db, why);
		store_detach(s, "prev");
		return 0;
	}
	struct build_cache *c = xcalloc(1, sizeof(*c));
	/* Interned names keep their ids, so copied rows need no translation. */
	if (store_exec(s, "INSERT INTO main.names SELECT * FROM prev.names", "copy names") < 0 ||
	    store_reload_names(s) < 0 ||
	    store_prepare(s, "look up a previous trace", "SELECT t.id, t.size, t.sha256, f.mtime_ns, f.file_id FROM prev.traces t"
		       " LEFT JOIN prev.trace_files f ON f.trace_id = t.id"
		       " WHERE t.path = ?1 AND t.sha256 IS NOT NULL AND t.part_of IS NULL"
		       /* A file split by device (store_split_devices) is read again: its rows are in several traces. */
		       " AND NOT EXISTS (SELECT 1 FROM prev.traces p WHERE p.part_of = t.id) ORDER BY t.id LIMIT 1",
		       &c->lookup) < 0 ||
	    prepare_row_copy(s, &c->copy_row) < 0 ||
	    store_prepare(s, "prepare the copy of a trace", "UPDATE main.traces SET rank = file_index WHERE id = ?1 AND NOT rank_from_trace",
		    &c->fix_rank) < 0 ||
	    store_prepare(s, "look up previous warnings", "SELECT message FROM prev.trace_warnings WHERE trace_id = ?1 ORDER BY rowid",
		    &c->warnings) < 0)
		goto fail;
	struct store_stmt *tables;
	if (store_prepare(s, "list tables", "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name NOT IN"
			  " ('traces', 'trace_files', 'trace_warnings') ORDER BY name", &tables) < 0)
		goto fail;
	size_t cap = 0;
	int more;
	while ((more = store_step(s, tables, "list tables")) > 0) {
		int has;
		struct store_stmt *copy;
		if (prepare_copy(s, (const char *)store_column_text(tables, 0), &has, &copy) < 0) {
			store_finalize(tables);
			goto fail;
		}
		if (!has)
			continue;
		c->copy = xgrow(c->copy, &cap, c->ncopy + 1, sizeof(*c->copy));
		c->copy[c->ncopy++] = copy;
	}
	store_finalize(tables);
	if (more < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	cache_close(c, s);
	return -1;
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

/* Reports the warnings the old build met in trace old_id again, as diag warnings. */
static void replay_warnings(struct build_cache *c, int64_t old_id)
{
	store_bind_int64(c->warnings, 1, old_id);
	while (store_step_rc(c->warnings) == STORE_ROW) {
		char *m = xstrdup((const char *)store_column_text(c->warnings, 0));
		char *sep = strstr(m, ": warning: ");
		if (sep) {
			*sep = '\0';
			diag_warning(m, "%s", sep + 11);
		} else {
			diag_warning(NULL, "%s", m);
		}
		free(m);
	}
	store_reset(c->warnings);
}

/* 1 when path is as the previous build read it (*old_id: its id there), else 0. */
static int unchanged(struct build_cache *c, const char *path, int64_t *old_id_out)
{
	struct stat st;
	if (!c || stat(path, &st))
		return 0; /* reading it will say what is wrong */
	store_bind_text_copy(c->lookup, 1, path);
	int found = store_step_rc(c->lookup) == STORE_ROW;
	int64_t old_id = 0, size = -1, mtime = -1;
	char sha[65] = "", old_file[48] = "", now_file[48];
	if (found) {
		old_id = store_column_int64(c->lookup, 0);
		size = store_column_int64(c->lookup, 1);
		snprintf(sha, sizeof(sha), "%s", (const char *)store_column_text(c->lookup, 2));
		if (store_column_type(c->lookup, 3) != STORE_NULL)
			mtime = store_column_int64(c->lookup, 3);
		if (store_column_type(c->lookup, 4) != STORE_NULL)
			snprintf(old_file, sizeof(old_file), "%s", (const char *)store_column_text(c->lookup, 4));
	}
	store_reset(c->lookup);
	if (!found || size != (int64_t)st.st_size)
		return 0;
	file_id(&st, now_file);
	if (mtime != mtime_ns(&st) || strcmp(old_file, now_file)) {
		/* Touched, copied, or another file (a link retargeted): the content decides. */
		char hex[65];
		if (hash_file(path, hex) < 0 || strcmp(hex, sha))
			return 0;
	}
	*old_id_out = old_id;
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
	store_bind_int64(c->copy_row, 1, id);
	store_bind_int64(c->copy_row, 2, old_id);
	if (store_step_done(s, c->copy_row, "copy trace") < 0)
		return -1;
	store_bind_int64(c->fix_rank, 1, id);
	if (store_step_done(s, c->fix_rank, "copy trace") < 0)
		return -1;
	for (size_t i = 0; i < c->ncopy; i++) {
		store_bind_int64(c->copy[i], 1, id);
		store_bind_int64(c->copy[i], 2, old_id);
		if (store_step_done(s, c->copy[i], "copy trace rows") < 0)
			return -1;
	}
	replay_warnings(c, old_id);
	*trace_id = id;
	return 1;
}

int cache_record_trace(struct store *s, int64_t trace_id, const char *path, size_t warn_mark)
{
	struct stat st;
	struct store_stmt *ins;
	int rc = 0;
	if (stat(path, &st) == 0) {
		if (store_prepare(s, "record trace", "INSERT OR REPLACE INTO trace_files VALUES(?1, ?2, ?3)", &ins) < 0)
			return -1;
		char id[48];
		file_id(&st, id);
		store_bind_int64(ins, 1, trace_id);
		store_bind_int64(ins, 2, mtime_ns(&st));
		store_bind_text_copy(ins, 3, id);
		rc = store_step_done(s, ins, "record trace");
		store_finalize(ins);
		if (rc < 0)
			return -1;
	}
	if (warn_mark >= diag_warning_count())
		return 0;
	if (store_prepare(s, "record warning", "INSERT INTO trace_warnings VALUES(?1, ?2)", &ins) < 0)
		return -1;
	for (size_t i = warn_mark; rc == 0 && i < diag_warning_count(); i++) {
		store_bind_int64(ins, 1, trace_id);
		store_bind_text(ins, 2, diag_warning_text(i));
		rc = store_step_done(s, ins, "record warning");
	}
	store_finalize(ins);
	return rc;
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

/* 1 when every file site_files lists is in outdir with its size; 0 otherwise or without site_files. */
static int site_intact(const char *prev_db, const char *outdir, int quiet)
{
	struct store *db = NULL;
	struct store_stmt *st = NULL;
	int intact = 0;
	/* No store, or one without site_files: not up to date, and no error. */
	struct stat dbst;
	if (stat(prev_db, &dbst) < 0 || store_open_read(prev_db, 1, &db) < 0 ||
	    store_guard(db, (uint64_t)dbst.st_size) < 0 ||
	    store_prepare_quiet(db, "SELECT path, size FROM site_files", &st) < 0)
		goto out;
	/*
	 * The store is the last file a build writes (the swap renames, which
	 * keeps times): a site file changed since is newer than it. Sizes catch
	 * the rest; the store records no time, so two builds write its same bytes.
	 */
	int rc;
	intact = 1;
	while (intact && (rc = store_step_rc(st)) == STORE_ROW) {
		const char *rel = (const char *)store_column_text(st, 0);
		struct stat sb;
		char *p = rel ? xasprintf("%s/%s", outdir, rel) : NULL;
		intact = p && lstat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == store_column_int64(st, 1) &&
			 (sb.st_mtim.tv_sec < dbst.st_mtim.tv_sec ||
			  (sb.st_mtim.tv_sec == dbst.st_mtim.tv_sec && sb.st_mtim.tv_nsec <= dbst.st_mtim.tv_nsec));
		if (!intact && p && !quiet) {
			char *esc = diag_escape(p);
			fprintf(stderr, "perfstudy: %s is missing or changed since the last build: building again\n", esc);
			free(esc);
		}
		free(p);
	}
	if (intact && rc != STORE_DONE)
		intact = 0;
out:
	store_finalize(st);
	store_close(db);
	return intact;
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

/* Inserts the regular files under dir/rel (rel "" at the top) into site_files with st; 0 or -1. */
static int record_tree(struct store *s, struct store_stmt *st, const char *dir, const char *rel)
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
			ret = record_tree(s, st, dir, sub);
		} else if (lstat(full, &sb) == 0 && S_ISREG(sb.st_mode)) {
			store_bind_text_copy(st, 1, sub);
			store_bind_int64(st, 2, (int64_t)sb.st_size);
			ret = store_step_done(s, st, "record the site's files");
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
	struct store_stmt *st;
	if (store_add_site_files(s) < 0 ||
	    store_prepare(s, "record the site's files", "INSERT OR REPLACE INTO site_files VALUES(?1, ?2)", &st) < 0)
		return -1;
	int rc = record_tree(s, st, dir, "");
	store_finalize(st);
	return rc;
}

int cache_set_fingerprint(struct store *s, const char *fingerprint)
{
	struct store_stmt *st;
	if (store_prepare(s, "record fingerprint", "INSERT OR REPLACE INTO meta VALUES('fingerprint', ?1)", &st) < 0)
		return -1;
	store_bind_text(st, 1, fingerprint);
	int rc = store_step_done(s, st, "record fingerprint");
	store_finalize(st);
	return rc;
}
