/*
 * study/shard.h: reading a study on many machines, `perfstudy ingest
 * --shard I/N` and `perfstudy merge`.
 *
 * A shard database holds the event batches (src/ingest/batch.h) of the
 * traces whose position in the build's input order, mod N, is I: what a
 * reader handed its sink, diagnostics included, not yet stored. Merging
 * replays every trace's batches into one store in input order, so the
 * store, the report and the messages are those of a single build; only the
 * SQLite inserts run again, the reading (inflate, hash, parse) does not.
 * A shard records which binary wrote it (build id), the list of inputs it
 * was cut from (a SHA-256 of the trace paths in order), and each trace's
 * size and modification time; merge refuses shards that do not fit.
 *
 * Schema: shard_meta(key, value), shard_traces(position, path, size,
 * mtime_ns), shard_batches(position, seq, data).
 */
#ifndef PERFSTUDY_STUDY_SHARD_H
#define PERFSTUDY_STUDY_SHARD_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

/*
 * Reads the traces paths[i] with i % nshards == shard with jobs threads
 * and writes them to the shard database out (through out.tmp.<pid>, so a
 * failure leaves nothing). Progress on stderr unless quiet. Returns 0, or
 * -1 after diag.
 */
int shard_write(const char *out, const char *const *paths, size_t n, int shard, int nshards, int jobs, int quiet);

/* 1 when path is a shard database (by its content), else 0. */
int shard_is_shard(const char *path);

struct shard_set;

/*
 * Opens shard databases for a build of paths[0..n): they must come from
 * this binary and these inputs and be one complete set (every I of N once).
 * Returns 0, or -1 after diag.
 */
int shard_set_open(const char *const *dbs, size_t ndbs, const char *const *paths, size_t n,
		   struct shard_set **out);
/*
 * The feed_source_fn of a set (src/ingest/parallel.h): trace i's batches to
 * fn, after checking that the file is still as the shard read it.
 */
int shard_set_batches(void *set, size_t i, int (*fn)(void *ctx, const char *data, size_t len), void *ctx);
void shard_set_free(struct shard_set *s);

/*
 * A sink in front of inner for trace i of a set: it checks each event as
 * the readers check what they parse (durations, kinds) and passes it on,
 * or reports the shard's path, table and row and fails. c holds its state
 * and must outlive out.
 */
struct shard_check {
	const struct ingest_sink *inner;
	const char *shard, *trace;
	size_t position, nshards;
	int64_t events;
};
void shard_check_sink(const struct shard_set *s, size_t i, const struct ingest_sink *inner, struct shard_check *c,
		      struct ingest_sink *out);

#endif
