/*
 * history.c: the build history's SQL (store.h; analyze/history/history.c
 * decides what a build's state is and what changed, hstate.c reads a
 * state back). The previous store's history carried over, this build's
 * state staged in temp.h_<name> (its runs, inputs and step times copied
 * inside SQLite, its numbers and parts a row at a time), the last build
 * staged, a new build recorded or an unchanged one kept, and the
 * manifests' thresholds. The staging tables themselves, and their copy
 * into main.history_<name>, are schema.c's.
 */
#include "store/store_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/diag.h"
#include "util/xalloc.h"

int store_history_open(struct store *s, const char *prev_db, int quiet)
{
	if (store_history_stage(s) < 0)
		return -1;
	struct stat st;
	if (!prev_db || stat(prev_db, &st) || !S_ISREG(st.st_mode))
		return 0;
	char *unsafe;
	if (store_check_previous(prev_db, &unsafe) < 0) {
		if (!quiet)
			diag_line(stderr, "perfstudy: %s: build history not carried over: %s", prev_db, unsafe);
		free(unsafe);
		return 0;
	}
	if (store_attach(s, prev_db, "hprev") < 0) {
		if (!quiet)
			diag_line(stderr, "perfstudy: %s: build history not carried over: %s", prev_db, store_errmsg(s));
		return 0;
	}
	char *found = store_probe_text(s, "SELECT 1 FROM hprev.sqlite_master WHERE type = 'table'"
					  " AND name = 'history_builds'");
	const char *why = found ? store_history_carry(s, "hprev") : NULL;
	free(found);
	if (why && !quiet)
		diag_line(stderr, "perfstudy: %s: build history not carried over: %s", prev_db, why);
	store_detach(s, "hprev");
	return 0;
}

int store_history_stage_build(struct store *s, const char *exp, int64_t build, const char *unprofiled)
{
	char *log_steps = xasprintf("INSERT INTO temp.h_steps SELECT ?1, ?2, t.run, 'log', i.elapsed_ns FROM iterations i"
				    " JOIN run_traces t ON t.id = i.trace_id WHERE t.experiment = ?1 AND %s", unprofiled);
	const char *const copies[] = {
		"INSERT INTO temp.h_runs SELECT ?1, ?2, run FROM runs WHERE experiment = ?1",
		"INSERT INTO temp.h_inputs SELECT ?1, ?2, t.run, t.path, t.size, t.sha256, t.rank, t.format FROM run_traces t"
		" WHERE t.experiment = ?1",
		/* one sample per profiled step: the slowest rank's */
		"INSERT INTO temp.h_steps SELECT ?1, ?2, t.run, 'steps', max(s.dur_ns) FROM steps s"
		" JOIN run_traces t ON t.id = s.trace_id WHERE t.experiment = ?1 GROUP BY t.run, s.step",
		/* the unprofiled iterations of the run's training log */
		log_steps,
	};
	int ret = 0;
	for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]) && !ret; i++) {
		struct store_stmt *q = store_query(s, "history: stage this build", copies[i], exp);
		if (!q) {
			ret = -1;
			break;
		}
		store_bind_int64(q, 2, build);
		int rc = store_step_done(s, q, "history: stage this build");
		store_finalize(q);
		if (rc < 0)
			ret = -1;
	}
	free(log_steps);
	return ret;
}

struct store_stmt *store_history_numbers(struct store *s, const char *exp, int64_t build)
{
	struct store_stmt *ins = store_query(s, "history: stage this build's numbers",
			"INSERT INTO temp.h_numbers VALUES(?1, ?2, ?3, ?4, ?5)", exp);
	if (ins)
		store_bind_int64(ins, 2, build);
	return ins;
}

int store_history_put_number(struct store_stmt *ins, const char *run, const char *metric, double v)
{
	if (!isfinite(v))
		return 0;
	store_bind_text_copy(ins, 3, run);
	store_bind_text(ins, 4, metric);
	store_bind_double(ins, 5, v);
	int rc = store_step_rc(ins);
	store_reset(ins);
	return rc == STORE_DONE ? 0 : -1;
}

struct store_stmt *store_history_parts(struct store *s)
{
	struct store_stmt *ins;
	if (store_prepare(s, "history: stage this build's parts", "INSERT INTO temp.h_parts VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
			  &ins) < 0)
		return NULL;
	return ins;
}

int store_history_put_part(struct store *s, struct store_stmt *ins, const char *exp, int64_t build, const char *run,
			   const char *kind, const char *name, double value)
{
	store_bind_text(ins, 1, exp);
	store_bind_int64(ins, 2, build);
	store_bind_text(ins, 3, run);
	store_bind_text(ins, 4, kind);
	store_bind_text_copy(ins, 5, name);
	store_bind_double(ins, 6, value);
	int rc = store_step_done(s, ins, "history: stage this build's parts");
	store_reset(ins);
	return rc;
}

int store_history_last_build(struct store *s, const char *exp, int64_t *build, char digest[65])
{
	struct store_stmt *q;
	*build = 0;
	digest[0] = '\0';
	q = store_query(s, "history: the last build",
			"SELECT build, state_sha256 FROM temp.h_builds WHERE experiment = ?1"
			" ORDER BY build DESC LIMIT 1", exp);
	if (!q)
		return -1;
	int rc = store_next(q);
	if (rc > 0) {
		*build = store_column_int64(q, 0);
		const unsigned char *d = store_column_text(q, 1);
		snprintf(digest, 65, "%s", d ? (const char *)d : "");
	}
	store_finalize(q);
	return rc < 0 ? -1 : 0;
}

int store_history_add_build(struct store *s, const char *exp, int64_t build, int64_t built_at, const char *version,
			    const char *digest)
{
	struct store_stmt *q = store_query(s, "history: record this build",
			"INSERT INTO temp.h_builds VALUES(?1, ?2, ?3, ?4, ?5)", exp);
	if (!q)
		return -1;
	store_bind_int64(q, 2, build);
	store_bind_int64(q, 3, built_at);
	store_bind_text(q, 4, version);
	store_bind_text(q, 5, digest);
	int rc = store_step_done(s, q, "history: record this build");
	store_finalize(q);
	return rc;
}

int store_history_adopt_parts(struct store *s, const char *exp, int64_t build)
{
	static const char *const sql[] = {
		"UPDATE temp.h_parts SET build = ?2 WHERE experiment = ?1 AND build = ?2 + 1 AND NOT EXISTS"
		" (SELECT 1 FROM temp.h_parts WHERE experiment = ?1 AND build = ?2)",
		/* the inputs' rank and format, which a store before them lacks (outside the digest) */
		"UPDATE temp.h_inputs SET (rank, format) = (SELECT n.rank, n.format FROM temp.h_inputs AS n"
		" WHERE n.experiment = ?1 AND n.build = ?2 + 1 AND n.run = h_inputs.run AND n.path = h_inputs.path"
		" LIMIT 1) WHERE experiment = ?1 AND build = ?2 AND rank IS NULL AND format IS NULL",
	};
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]); i++) {
		struct store_stmt *q = store_query(s, "history: keep the parts", sql[i], exp);
		if (!q)
			return -1;
		store_bind_int64(q, 2, build);
		int rc = store_step_done(s, q, "history: keep the parts");
		store_finalize(q);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int store_history_put_threshold(struct store *s, struct store_stmt **q, const char *exp, const char *metric,
				double value)
{
	if (!*q && store_prepare(s, "write the history thresholds",
				 "INSERT INTO main.history_thresholds VALUES(?1, ?2, ?3)", q) < 0)
		return -1;
	store_bind_text(*q, 1, exp);
	store_bind_text(*q, 2, metric);
	store_bind_double(*q, 3, value);
	return store_step_done(s, *q, "write the history thresholds");
}
