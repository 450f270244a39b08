/*
 * study/cache.h: reruns that re-read only what changed.
 *
 * A build writes a fresh store in its temporary directory. When the output
 * directory already holds a store from a build by the same perfstudy binary
 * (meta 'build_id', the SHA-256 of the executable) with the same schema,
 * every trace whose path, size and modification time are as recorded there
 * (or, when only the time differs, whose SHA-256 is) is not read again: its
 * rows are copied from the old store into the new one. A table counts as
 * "what was read from a trace" when it has a trace_id column; everything
 * else (experiments, runs, and what analyses compute) is built afresh, so a
 * run removed from the manifest disappears and a changed classification
 * only re-runs the analyses. Warnings met while reading a trace are kept in
 * trace_warnings and reported again when its rows are reused.
 *
 * The cache owns nothing of the store; cache_close() detaches the old one.
 */
#ifndef PERFSTUDY_STUDY_CACHE_H
#define PERFSTUDY_STUDY_CACHE_H

#include <stdint.h>

#include "store/store.h"

struct build_cache;

/*
 * Adds the tables the cache needs (trace_files, trace_warnings) and the
 * build id to a fresh store. Returns 0 or -1 after diag.
 */
int cache_prepare_store(struct store *s);

/*
 * Attaches the previous store prev_db (a missing or unusable one is not an
 * error: *out is then NULL and, unless quiet, stderr says why it is not
 * reused) and copies its names. Call outside a transaction. Returns 0, or
 * -1 after diag.
 */
int cache_open(struct store *s, const char *prev_db, int quiet, struct build_cache **out);

/*
 * When path is unchanged since the previous build, adds it to run_id as
 * trace number index with all its rows copied, sets *trace_id and returns 1;
 * returns 0 when it must be read, -1 after diag. c may be NULL (returns 0).
 */
int cache_reuse_trace(struct build_cache *c, struct store *s, int64_t run_id, const char *path,
		      int index, int64_t *trace_id);

/*
 * 1 when cache_reuse_trace would reuse path (the check without the copy:
 * the parallel reader leaves such traces alone), else 0. c may be NULL.
 */
int cache_trace_unchanged(struct build_cache *c, const char *path);

/* The SHA-256 of this perfstudy executable (or its version without /proc); static. */
const char *cache_build_id(void);

/*
 * Records what the next build needs of a trace just read or reused: its
 * modification time, and the warnings diag recorded from number warn_mark
 * on. Returns 0 or -1 after diag.
 */
int cache_record_trace(struct store *s, int64_t trace_id, const char *path, size_t warn_mark);

void cache_close(struct build_cache *c, struct store *s);

/*
 * Whole-build short cut. A build's fingerprint is the SHA-256 of this
 * binary's identity and of `what` (the caller lists everything that decides
 * the output: options, manifest texts, every input's path, size and
 * modification time). cache_fingerprint returns it (64 hex digits, caller
 * frees); cache_up_to_date returns 1 when prev_db records the same
 * fingerprint (the previous output is what this build would write), else 0;
 * cache_set_fingerprint records it in a new store.
 */
char *cache_fingerprint(const char *what);
/*
 * Also 0 when a file the previous build wrote (site_files: every file of
 * the site but the store, with its size) is missing from outdir, has
 * another size or is newer than the store (edited since): it is written again (stderr says
 * which, unless quiet). A store
 * without site_files (an older perfstudy) is never up to date.
 */
int cache_up_to_date(const char *prev_db, const char *fingerprint, const char *outdir, int quiet);
/* Records every file under dir (the new site, the store itself left out) in site_files; 0 or -1 after diag. */
int cache_record_site(struct store *s, const char *dir);
int cache_set_fingerprint(struct store *s, const char *fingerprint);

#endif
