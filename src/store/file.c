/*
 * file.c: SQLite files other than the build's store, opened through the
 * same door (store.h): a shard database of `ingest --shard` (written, then
 * read by `merge`), the previous build's store (its site_files), another
 * output directory's store read by `perfstudy diff`, a built site's store
 * read by `perfstudy whatif`. Each is a struct
 * store without the build's schema and statements, so that store_prepare,
 * store_step and store_exec report its failures naming its path and the
 * statement's purpose, and no code outside src/store/ calls SQLite.
 */
#include "store/store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/diag.h"
#include "util/sqlguard.h"
#include "util/xalloc.h"

/* A store of path's database opened with flags; *out NULL and -1 when SQLite could not (why in *why, owned by the caller). */
static int open_file(const char *file, const char *name, int flags, struct store **out, char **why)
{
	struct store *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(name);
	s->ops_sorted = 1;
	*out = NULL;
	*why = NULL;
	if (sqlite3_open_v2(file, &s->db, flags, NULL) != SQLITE_OK) {
		*why = xstrdup(s->db ? sqlite3_errmsg(s->db) : "out of memory");
		store_close(s);
		return -1;
	}
	store_count_work(s->db);
	*out = s;
	return 0;
}

int store_open_read(const char *path, int quiet, struct store **out)
{
	char *why;
	if (open_file(path, path, SQLITE_OPEN_READONLY, out, &why) < 0) {
		if (!quiet)
			diag_error(path, "cannot open: %s", why);
		free(why);
		return -1;
	}
	return 0;
}

int store_create_shard(const char *file, const char *name, struct store **out)
{
	char *why;
	if (open_file(file, name, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, out, &why) < 0) {
		diag_syserror(name, "cannot create shard database: %s", why);
		free(why);
		return -1;
	}
	if (store_exec(*out, store_shard_schema, "create the shard tables") < 0) {
		store_close(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

int store_guard(struct store *s, uint64_t bytes)
{
	if (sqlguard_apply(s->db, bytes) < 0) {
		diag_error(s->path, "sqlite: cannot set up the connection: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	s->guarded = 1;
	return 0;
}

int store_readable(struct store *s)
{
	sqlite3_stmt *q = NULL;
	/* SQLite opens lazily: the first read of the schema says whether the file is a database at all. */
	int rc = sqlite3_prepare_v2(s->db, "SELECT count(*) FROM sqlite_master", -1, &q, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(q) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(s->db);
	sqlite3_finalize(q);
	return rc == SQLITE_OK ? 0 : rc == SQLITE_NOTADB ? 1 : -1;
}

const char *store_not_plain(struct store *s, const char *table)
{
	return sqlguard_not_plain(s->db, table);
}

int store_has_table(struct store *s, const char *table)
{
	return sqlguard_schema_says(s->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1", table);
}

int store_check_previous(const char *path, char **why)
{
	/* The views the store's schema makes (schema.c); nothing reads them through an attached store. */
	static const char *const own_views[] = {"steps", "gpu_activities"};
	struct stat st;
	struct store *s = NULL;
	sqlite3_stmt *q = NULL;
	*why = NULL;
	if (stat(path, &st) < 0) {
		*why = xasprintf("cannot read it: %s", strerror(errno));
		return -1;
	}
	if (open_file(path, path, SQLITE_OPEN_READONLY, &s, why) < 0)
		return -1;
	if (sqlguard_apply(s->db, (uint64_t)st.st_size) < 0 ||
	    sqlite3_prepare_v2(s->db, "SELECT type, name FROM sqlite_master WHERE type IN ('table', 'view', 'trigger')",
			       -1, &q, NULL) != SQLITE_OK) {
		*why = xasprintf("not a readable SQLite database: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	int rc = SQLITE_DONE;
	while (!*why && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(q, 0), *name = (const char *)sqlite3_column_text(q, 1);
		if (!type || !name)
			continue;
		if (!strcmp(type, "view")) {
			int own = 0;
			for (size_t i = 0; i < sizeof(own_views) / sizeof(own_views[0]); i++)
				own |= !strcmp(name, own_views[i]);
			if (!own)
				*why = xasprintf("'%s' is a view, not a plain table (a view runs the file's own SQL)", name);
		} else if (!strcmp(type, "trigger")) {
			*why = xasprintf("'%s' is a trigger (a perfstudy store has none)", name);
		} else {
			char *copy = xstrdup(name);
			const char *k = sqlguard_not_plain(s->db, copy);
			if (k)
				*why = xasprintf("table '%s' is %s, not a plain table (it runs the file's own SQL)", copy, k);
			free(copy);
		}
	}
	if (!*why && rc != SQLITE_DONE)
		*why = sqlguard_over_budget(s->db)
			       ? xstrdup("its schema could not be read within the bounds of a file perfstudy did not write")
			       : xasprintf("not a readable SQLite database: %s", sqlite3_errmsg(s->db));
out:
	sqlite3_finalize(q);
	store_close(s);
	return *why ? -1 : 0;
}

int store_open_site(const char *path, struct store **out)
{
	struct stat st;
	char *why = NULL;
	sqlite3_stmt *q = NULL;
	*out = NULL;
	if (stat(path, &st) < 0) {
		diag_syserror(path, "cannot read it: %s", strerror(errno));
		return -1;
	}
	if (store_check_previous(path, &why) < 0) {
		diag_error(path, "refused: %s", why);
		free(why);
		return -1;
	}
	struct store *s = NULL;
	if (store_open_read(path, 0, &s) < 0 || store_guard(s, (uint64_t)st.st_size) < 0)
		goto fail;
	if (sqlite3_prepare_v2(s->db, "SELECT name, sql FROM sqlite_master WHERE type = 'view'", -1, &q, NULL) !=
	    SQLITE_OK) {
		store_fail(s, "read the schema");
		goto fail;
	}
	int rc;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(q, 0), *sql = (const char *)sqlite3_column_text(q, 1);
		if (!name || !store_own_view(name, sql)) {
			diag_error(path, "refused: view '%s' is not the one a perfstudy store holds (a view runs the "
					 "file's own SQL)", name ? name : "");
			goto fail;
		}
	}
	if (rc != SQLITE_DONE) {
		store_fail(s, "read the schema");
		goto fail;
	}
	sqlite3_finalize(q);
	/* every view is the schema's own: the queries that read through them run perfstudy's SQL */
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_ENABLE_VIEW, 1, (int *)NULL);
	if (store_add_temp_views(s) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	sqlite3_finalize(q);
	store_close(s);
	return -1;
}
