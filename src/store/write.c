/*
 * write.c: the rows that say what a build read: experiments, runs, traces
 * (and a run's other inputs), what each trace held once read, and the split
 * of a file that drives several devices into one traces row per device.
 */
#include "store/store_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/xalloc.h"

int store_add_experiment(struct store *s, const char *id, const char *title, const char *source_path,
			 const char *manifest_text, const char *classification)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "prepare", "INSERT INTO experiments VALUES(?1,?2,?3,?4,?5)", &st) < 0)
		return -1;
	bind_text_opt(st, 1, id);
	bind_text_opt(st, 2, title);
	bind_text_opt(st, 3, source_path);
	bind_text_opt(st, 4, manifest_text);
	bind_text_opt(st, 5, classification);
	int r = store_sql_step_done(s, st, "insert experiment");
	sqlite3_finalize(st);
	return r;
}

int64_t store_add_run(struct store *s, const struct store_run *r)
{
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "prepare", "INSERT INTO runs(experiment, run, label, position, gpus, batch, strategy, model,"
		       " layers, hidden, heads, ffn, seq, vocab, profiler_lo, profiler_hi)"
		       " VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16)",
		    &st) < 0)
		return -1;
	bind_text_opt(st, 1, r->experiment);
	bind_text_opt(st, 2, r->run);
	bind_text_opt(st, 3, r->label ? r->label : r->run);
	sqlite3_bind_int(st, 4, r->position);
	bind_opt(st, 5, r->gpus, r->gpus > 0);
	bind_opt(st, 6, r->batch, r->batch > 0);
	bind_text_opt(st, 7, r->strategy);
	bind_text_opt(st, 8, r->model);
	bind_opt(st, 9, r->layers, r->layers > 0);
	bind_opt(st, 10, r->hidden, r->hidden > 0);
	bind_opt(st, 11, r->heads, r->heads > 0);
	bind_opt(st, 12, r->ffn, r->ffn > 0);
	bind_opt(st, 13, r->seq, r->seq > 0);
	bind_opt(st, 14, r->vocab, r->vocab > 0);
	bind_opt(st, 15, r->profiler_lo, r->has_profiler_steps);
	bind_opt(st, 16, r->profiler_hi, r->has_profiler_steps);
	int rc = store_sql_step_done(s, st, "insert run");
	sqlite3_finalize(st);
	return rc < 0 ? -1 : sqlite3_last_insert_rowid(s->db);
}

int64_t store_add_trace(struct store *s, int64_t run_id, const char *path, int file_index)
{
	if (store_sql_prepare_kept(s, "prepare", "INSERT INTO traces(run_id, path, file_index, rank, rank_from_trace)"
			       " VALUES(?1,?2,?3,?3,0)", &s->ins_trace) < 0)
		return -1;
	sqlite3_stmt *st = s->ins_trace;
	sqlite3_bind_int64(st, 1, run_id);
	bind_text_opt(st, 2, path);
	sqlite3_bind_int(st, 3, file_index);
	free(s->reading);
	s->reading = path ? xstrdup(path) : NULL;
	int rc = store_sql_step_done(s, st, "insert trace");
	s->first_ns = INT64_MAX;
	s->last_ns = INT64_MIN;
	s->dev_seen = 0;
	s->size_warned = 0;
	store_ops_reset(s);
	return rc < 0 ? -1 : sqlite3_last_insert_rowid(s->db);
}

int store_finish_trace(struct store *s, int64_t trace_id, const char *format,
		       const struct source_meta *meta, const struct ingest_counts *counts)
{
	/* the allocator events first: store_flush_cpu_ops forgets the trace's held state */
	if (store_mem_flush(s, trace_id) < 0 || store_flush_cpu_ops(s, trace_id) < 0 || store_rows_flush(s) < 0)
		return -1;
	if (store_sql_prepare_kept(s, "prepare", "UPDATE traces SET format=?2, size=?3, sha256=?4, events=?5, skipped=?6,"
			       " first_ns=?7, last_ns=?8 WHERE id=?1", &s->upd_trace) < 0)
		return -1;
	sqlite3_stmt *st = s->upd_trace;
	sqlite3_bind_int64(st, 1, trace_id);
	bind_text_opt(st, 2, format);
	sqlite3_bind_int64(st, 3, meta->size);
	bind_text_opt(st, 4, meta->sha256);
	sqlite3_bind_int64(st, 5, counts->events);
	sqlite3_bind_int64(st, 6, counts->skipped);
	bind_opt(st, 7, s->first_ns, s->first_ns != INT64_MAX);
	bind_opt(st, 8, s->last_ns, s->last_ns != INT64_MIN);
	int rc = store_sql_step_done(s, st, "update trace");
	free(s->reading);
	s->reading = NULL;
	return rc;
}

/*
 * One device's share of a trace file that drives several (see
 * store_split_devices): a new traces row, part_of the file's first row,
 * takes that device's activities and what belongs to them. The SQL runs in
 * this order, each statement with ?1 the file's row, ?2 the new row, ?3 the
 * device, the activities moved last (the others find theirs through them).
 */
static const char *const split_sql[] = {
	/* A copy of the file's row: same clock, path and file index; the file's own counts stay on its row. */
	"INSERT INTO traces(run_id, path, size, sha256, format, file_index, rank, rank_from_trace,"
	" first_ns, last_ns, epoch_offset_ns, device, part_of) SELECT run_id, path, size, sha256, format,"
	" file_index, rank, 0, first_ns, last_ns, epoch_offset_ns, ?3, id FROM traces WHERE id = ?1",
	/* NCCL args, keyed by their kernel's start and correlation. */
	"UPDATE collectives SET trace_id = ?2 WHERE trace_id = ?1 AND EXISTS (SELECT 1 FROM activities a"
	" WHERE a.trace_id = ?1 AND a.device = ?3 AND a.start_ns = collectives.start_ns"
	" AND a.correlation IS collectives.correlation)",
	/* A runtime call goes with the activity it launched (same correlation). */
	"UPDATE launches SET trace_id = ?2 WHERE trace_id = ?1 AND correlation IN (SELECT correlation"
	" FROM activities WHERE trace_id = ?1 AND device = ?3 AND correlation IS NOT NULL)",
	/* A GPU range goes with the device whose streams it is on, when no other device uses that stream id. */
	"UPDATE annotations SET trace_id = ?2 WHERE trace_id = ?1 AND on_gpu = 1"
	" AND tid IN (SELECT stream FROM activities WHERE trace_id = ?1 AND device = ?3)"
	" AND tid NOT IN (SELECT stream FROM activities WHERE trace_id = ?1 AND device != ?3 AND stream IS NOT NULL)",
	/* The host's ranges (ProfilerStep#N, forward, ...) hold for every device the process drives. */
	"INSERT INTO annotations SELECT ?2, name_id, on_gpu, tid, start_ns, dur_ns FROM annotations"
	" WHERE trace_id = ?1 AND on_gpu = 0 ORDER BY rowid",
	"UPDATE devices SET trace_id = ?2 WHERE trace_id = ?1 AND device = ?3",
	"UPDATE activities SET trace_id = ?2 WHERE trace_id = ?1 AND device = ?3",
};

int store_split_devices(struct store *s, int64_t trace_id, int *ndevices)
{
	*ndevices = 0;
	if (store_rows_flush(s) < 0)
		return -1;
	int64_t *devs = NULL;
	size_t n = 0, cap = 0;
	int rc = SQLITE_DONE;
	/*
	 * The devices were seen as the activities were stored: a file of one
	 * device (nearly all) needs no query. Asking SQLite instead, before the
	 * trace_id indexes exist, read the whole table once a trace: quadratic
	 * in the ranks (78 % of ingest at 1024 thin ranks).
	 */
	if (s->dev_seen == 1) {
		devs = xgrow(devs, &cap, 1, sizeof(*devs));
		devs[n++] = s->dev_first;
	} else if (s->dev_seen == 2) {
		sqlite3_stmt *st;
		if (store_sql_prepare(s, "prepare", "SELECT DISTINCT device FROM activities WHERE trace_id = ?1 AND device IS NOT NULL"
			       " ORDER BY device", &st) < 0)
			return -1;
		sqlite3_bind_int64(st, 1, trace_id);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			devs = xgrow(devs, &cap, n + 1, sizeof(*devs));
			devs[n++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
	}
	sqlite3_stmt *st;
	int ret = rc == SQLITE_DONE ? 0 : store_fail(s, "list devices");
	/*
	 * The file's row keeps its first device; a process's world size counts
	 * processes, not the devices each drives, so a split file records none.
	 */
	if (ret == 0 && n > 0 &&
	    store_sql_prepare_kept(s, "prepare", "UPDATE traces SET device = ?2, world_size = CASE WHEN ?3 > 1 THEN NULL"
			       " ELSE world_size END, rank_from_trace = CASE WHEN ?3 > 1 THEN 0 ELSE rank_from_trace END"
			       " WHERE id = ?1", &s->upd_device) == 0) {
		st = s->upd_device;
		sqlite3_bind_int64(st, 1, trace_id);
		sqlite3_bind_int64(st, 2, devs[0]);
		sqlite3_bind_int64(st, 3, (int64_t)n);
		ret = store_sql_step_done(s, st, "set trace device");
	} else if (ret == 0 && n > 0) {
		ret = -1;
	}
	for (size_t d = 1; ret == 0 && d < n; d++) {
		int64_t piece = 0;
		for (size_t k = 0; ret == 0 && k < sizeof(split_sql) / sizeof(split_sql[0]); k++) {
			if (store_sql_prepare(s, "prepare", split_sql[k], &st) < 0) {
				ret = -1;
				break;
			}
			/* Each statement's largest parameter is ?3, so all three bind. */
			sqlite3_bind_int64(st, 1, trace_id);
			sqlite3_bind_int64(st, 2, piece);
			sqlite3_bind_int64(st, 3, devs[d]);
			ret = store_sql_step_done(s, st, "split trace by device");
			sqlite3_finalize(st);
			if (k == 0)
				piece = sqlite3_last_insert_rowid(s->db);
		}
	}
	free(devs);
	if (ret == 0)
		*ndevices = (int)n;
	return ret;
}

int store_number_device_ranks(struct store *s, int64_t run_id)
{
	sqlite3_stmt *sel, *upd;
	/* Ranks before: the file's (every share of a file has it); then the device. */
	if (store_sql_prepare(s, "prepare", "SELECT id FROM traces WHERE run_id = ?1 AND rank IS NOT NULL"
		       " AND EXISTS (SELECT 1 FROM traces p WHERE p.run_id = ?1 AND p.part_of IS NOT NULL)"
		       " ORDER BY rank, device, id", &sel) < 0)
		return -1;
	if (store_sql_prepare(s, "prepare", "UPDATE traces SET rank = ?2, rank_from_trace = 0 WHERE id = ?1", &upd) < 0) {
		sqlite3_finalize(sel);
		return -1;
	}
	sqlite3_bind_int64(sel, 1, run_id);
	int rc, ret = 0, rank = 0;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		ids = xgrow(ids, &cap, n + 1, sizeof(*ids));
		ids[n++] = sqlite3_column_int64(sel, 0);
	}
	if (rc != SQLITE_DONE)
		ret = store_fail(s, "number ranks");
	sqlite3_finalize(sel);
	for (size_t i = 0; ret == 0 && i < n; i++, rank++) {
		sqlite3_bind_int64(upd, 1, ids[i]);
		sqlite3_bind_int(upd, 2, rank);
		ret = store_sql_step_done(s, upd, "number ranks");
	}
	sqlite3_finalize(upd);
	free(ids);
	return ret;
}

int64_t store_add_input(struct store *s, int64_t run_id, const char *path, int file_index)
{
	int64_t id = store_add_trace(s, run_id, path, file_index);
	if (id > 0) {
		char sql[96];
		snprintf(sql, sizeof(sql), "UPDATE traces SET rank = NULL, rank_from_trace = NULL WHERE id = %lld", (long long)id);
		if (store_exec(s, sql, "mark input") < 0)
			return -1;
	}
	return id;
}

