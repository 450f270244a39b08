/*
 * batch.h: a trace's events recorded as bytes, to be replayed into a sink
 * later, in the same order.
 *
 * Reading a trace (inflate, parse) and storing it (SQLite inserts) can run
 * in different threads, or on different machines (perfstudy ingest --shard
 * writes the bytes to a shard database, perfstudy merge replays them):
 * what reaches the store is the same sequence of sink calls either way, so
 * the database is the same. The recording sink copies every event, with
 * its strings, into chunks of about 256 kB; a record never spans chunks, so
 * each chunk replays on its own. Diagnostics met while reading are recorded
 * in place (batch_diag, a diag_divert target) and replayed between the
 * events they came with; the last record holds what ingest_file returned.
 *
 * The bytes are the structs of ingest.h as this binary lays them out, with
 * string pointers replaced by offsets: only the same perfstudy binary may
 * replay them (shard databases carry its build id).
 */
#ifndef PERFSTUDY_BATCH_H
#define PERFSTUDY_BATCH_H

#include <stddef.h>

#include "util/diag.h"
#include "ingest/ingest.h"

/* A run of whole records; data is owned by whoever holds the chunk. */
struct batch_chunk {
	char *data;
	size_t len, cap;
};

struct batch_writer {
	/*
	 * Takes a full chunk (ownership of c->data moves; c is left empty).
	 * Returns 0, or -1 to stop reading (the consumer failed or gave up).
	 */
	int (*flush)(void *ctx, struct batch_chunk *c);
	void *ctx;
	struct batch_chunk cur;
	int stopped; /* a flush returned -1: every later record is refused */
};

/* Frees a chunk (keeps its memory for the next chunk of a writer, any thread's); c is left empty. */
void batch_chunk_free(struct batch_chunk *c);
/* Frees the chunks kept by batch_chunk_free (once no writer or reader runs). */
void batch_pool_release(void);

void batch_writer_init(struct batch_writer *w, int (*flush)(void *ctx, struct batch_chunk *c), void *ctx);
/* Frees the chunk being filled. */
void batch_writer_release(struct batch_writer *w);
/* A sink recording into w, with a callback wherever `like` has one (NULL: everywhere). */
void batch_sink(struct batch_writer *w, const struct ingest_sink *like, struct ingest_sink *out);
/* Records a diagnostic; ctx is the writer (see diag_divert). */
void batch_diag(void *ctx, enum diag_level level, const char *text);
/*
 * Records what ingest_file returned and flushes the last chunk. Returns 0,
 * or -1 when the consumer stopped.
 */
int batch_end(struct batch_writer *w, int result, const struct ingest_counts *counts, const char *format,
	      const struct source_meta *meta);

/* What the end record says. format is the reader's static name, or NULL. */
struct batch_result {
	int result;
	struct ingest_counts counts;
	const char *format;
	struct source_meta meta;
};

/*
 * Replays the records of data[0..len) into sink, diagnostics through
 * diag_replay. Returns 0 when more chunks follow, 1 after the end record
 * (*res filled), -1 when a sink callback failed or the bytes are not whole
 * records (reported with where, e.g. the shard's path).
 */
int batch_replay(const char *data, size_t len, const struct ingest_sink *sink, struct batch_result *res,
		 const char *where);

#endif
