/*
 * file.c: SQLite files other than the build's store, opened through the
 * same door (store.h): a shard database of `ingest --shard` (written, then
 * read by `merge`), the previous build's store (its site_files), another
 * output directory's store read by `perfstudy diff`. Each is a struct
 * store without the build's schema and statements, so that store_prepare,
 * store_step and store_exec report its failures naming its path and the
 * statement's purpose, and no code outside src/store/ calls SQLite.
 */
#include "store/store_int.h"

#include <stdlib.h>

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
