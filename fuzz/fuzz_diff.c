/*
 * fuzz_diff.c: `perfstudy diff` on stores it did not write. The bytes are
 * an output directory's perfstudy.db (a CI artifact, a colleague's store):
 * written as OLD/perfstudy.db and as NEW/perfstudy.db, the new one with its
 * step times 10 % longer and its numbers and parts 10 % larger (UPDATEs
 * under the SQLite guard, util/sqlguard.h, on its plain history tables, so
 * that a mutation reaches the change table, the verdicts and the
 * contributors, not only the loading), then compared by history_diff as
 * cmd_diff does, with both JSON files written. A crash, a hang (the guard's
 * step budget bounds SQLite) or a sanitizer's report is a finding. What
 * diff prints goes to /dev/null.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "cli/diff.h"
#include "fuzz.h"
#include "util/diag.h"
#include "util/sqlguard.h"

/* The harness's directory (DIR/old, DIR/new, the JSON files), removed at exit. */
static char dir[64];
static char oldp[96], newp[96], json[96], bench[96];

static void cleanup(void)
{
	char p[128];
	unlink(json);
	unlink(bench);
	for (int i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s/perfstudy.db", i ? newp : oldp);
		unlink(p);
		rmdir(i ? newp : oldp);
	}
	rmdir(dir);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
}

/* The new store: its samples and values moved, where its history tables are plain. */
static void move_new(const char *path, size_t size)
{
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK || sqlguard_apply(db, size) < 0)
		goto out;
	static const char *const tables[] = {"history_steps", "history_numbers", "history_parts"};
	static const char *const sql[] = {
		"UPDATE history_steps SET dur_ns = dur_ns + dur_ns / 10 WHERE typeof(dur_ns) = 'integer'",
		"UPDATE history_numbers SET value = value * 1.1 WHERE typeof(value) IN ('integer', 'real')",
		"UPDATE history_parts SET value = value * 1.1 WHERE typeof(value) IN ('integer', 'real')",
	};
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (sqlguard_plain_table(db, tables[i]))
			sqlite3_exec(db, sql[i], NULL, NULL, NULL); /* SQLite's errors are a mutation's, not ours */
out:
	sqlite3_close(db);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	diag_set_quiet(1);
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/fuzz-diff.%ld", tmp && *tmp ? tmp : "/tmp", (long)getpid());
		snprintf(oldp, sizeof(oldp), "%s/old", dir);
		snprintf(newp, sizeof(newp), "%s/new", dir);
		snprintf(json, sizeof(json), "%s/diff.json", dir);
		snprintf(bench, sizeof(bench), "%s/bench.json", dir);
		if ((mkdir(dir, 0700) && access(dir, W_OK)) || (mkdir(oldp, 0700) && access(oldp, W_OK)) ||
		    (mkdir(newp, 0700) && access(newp, W_OK))) {
			perror(dir);
			abort();
		}
		atexit(cleanup);
	}
	char a[128], b[128];
	snprintf(a, sizeof(a), "%s/perfstudy.db", oldp);
	snprintf(b, sizeof(b), "%s/perfstudy.db", newp);
	write_file(a, data, size);
	write_file(b, data, size);
	move_new(b, size);
	/* diff prints a line per change: to /dev/null, stdout restored after */
	fflush(stdout);
	int saved = dup(1), null = open("/dev/null", O_WRONLY);
	if (saved < 0 || null < 0 || dup2(null, 1) < 0)
		abort();
	close(null);
	struct history_diff_opts o = {0, json, bench, 0, NULL, NULL};
	size_t crossed;
	history_diff(oldp, newp, &o, &crossed);
	fflush(stdout);
	if (dup2(saved, 1) < 0)
		abort();
	close(saved);
	unlink(a);
	unlink(b);
	unlink(json);
	unlink(bench);
	diag_reset();
	return 0;
}
