/*
 * parallel.h: the traces of a build, read ahead by worker threads and
 * handed to the store one by one, in input order.
 *
 * `perfstudy build --jobs N` reads up to N traces at once: each worker
 * inflates and parses a trace into event batches (batch.h), and the one
 * thread that writes the store replays trace 0's batches, then trace 1's,
 * ... as they come. The store sees the same sink calls in the same order
 * whatever N is, so the database, the report and every message on stderr
 * are the same; a worker never prints (its diagnostics are batched in
 * place), so the first failing trace in input order is the one reported.
 * Memory stays bounded: a worker waits when its trace has 8 MB of batches
 * queued, or when traces after the one being stored hold 32 MB together
 * (each 40 % of the largest input file when that is more).
 * With N = 1 there is no thread: each batch is replayed as soon as it is
 * full. A feed can also take its batches from shard databases (src/shard.h).
 *
 * The feed borrows paths and the source; feed_free() stops the workers.
 */
#ifndef PERFSTUDY_PARALLEL_H
#define PERFSTUDY_PARALLEL_H

#include <stddef.h>

#include "ingest/batch.h"
#include "ingest/ingest.h"

struct trace_feed;

/* Hands each batch of a trace to fn in order; returns 0, or -1 after diag (or when fn returned -1). */
typedef int (*feed_batch_fn)(void *ctx, const char *data, size_t len);
/* A place batches were kept (shard databases): trace i's batches to fn. */
typedef int (*feed_source_fn)(void *src, size_t i, feed_batch_fn fn, void *ctx);

/* The default --jobs: the number of online cores. */
int feed_default_jobs(void);

/* A feed of paths[0..n) in input order, read with jobs (>= 1) threads. */
struct trace_feed *feed_new(const char *const *paths, size_t n, int jobs);
/* Before feed_start: trace i will not be taken (reused, or another shard's). */
void feed_skip(struct trace_feed *f, size_t i);
/* Whether trace i was skipped. */
int feed_skipped(const struct trace_feed *f, size_t i);
/* How many reading threads are running (0: traces are read in the calling thread). */
int feed_threads(const struct trace_feed *f);
/* Before feed_start: batches come from source (shard databases), not the files. */
void feed_use_source(struct trace_feed *f, feed_source_fn source, void *src);
/* Starts the workers; `like` says which sink callbacks to record (NULL: all). */
void feed_start(struct trace_feed *f, const struct ingest_sink *like);
/*
 * Hands trace i (increasing i, not skipped) to sink exactly as ingest_file
 * would: same calls, same messages, same return value and outputs.
 */
int feed_take(struct trace_feed *f, size_t i, const struct ingest_sink *sink, struct ingest_counts *counts,
	      const char **format, struct source_meta *meta);
/*
 * The same for writing a shard: fn gets each batch of trace i as it is
 * (fn returns 0 or -1 to stop), the trace's messages are reported, and
 * the return value is ingest_file's (-1 also when fn failed).
 */
int feed_take_batches(struct trace_feed *f, size_t i, feed_batch_fn fn, void *ctx);
void feed_free(struct trace_feed *f);

#endif
