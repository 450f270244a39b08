/*
 * stream.h: an input file's uncompressed bytes, read in pieces.
 *
 * The streaming counterpart of source.h, for readers that never need the
 * whole file at once (Kineto JSON, parsed in windows): memory stays bounded
 * whatever the trace size. A plain file is read with read(2) straight into
 * the caller's buffer, or, when source_stream_readahead() is on and the
 * file has STREAM_AHEAD_MIN bytes or more, read and hashed ahead by a
 * thread of its own into 4 slots of 256 KiB (SHA-256 costs about a third of
 * the parse: on a free core it costs no wall time). A gzip file's bytes are
 * read the same way (by the thread, or here into 256 KiB at a time) and
 * inflated in pieces into the caller's buffer by ISA-L's igzip, 3-4x
 * faster than zlib here;
 * a file igzip rejects (corrupt, truncated, trailing bytes) is inflated
 * again by zlib, whose messages name the place. The SHA-256 of the bytes
 * on disk is computed on the way; source_stream_meta() is complete once
 * the stream is at its end.
 *
 * The caller owns the struct: source_stream_open() then ..._close().
 */
#ifndef PERFSTUDY_STREAM_H
#define PERFSTUDY_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <zlib.h>

#include "util/sha256.h"
#include "ingest/source.h"

struct readahead;
struct inflate_state;

#define STREAM_AHEAD_MIN (8u << 20)

struct source_stream {
	const char *path;
	int fd;
	struct source_meta meta;
	struct sha256 sha;
	int eof;            /* no more uncompressed bytes */
	uint64_t out_total; /* uncompressed bytes handed out so far */
	/* gzip */
	unsigned char *zbuf; /* compressed bytes [zoff, zoff + zlen) of the file, the inflater at zpos */
	size_t zlen, zpos;
	uint64_t zoff;
	int zsrc_done;       /* the file's end was read (the first pass) */
	uint64_t zreplay, zreplay_end; /* zlib's second pass (isal_fallback) reads these bytes again */
	struct inflate_state *isal; /* igzip; NULL once zlib took over, or not gzip */
	uint64_t isal_out;          /* bytes igzip handed out */
	z_stream z;
	int zinit;
	uint64_t z_out;             /* bytes zlib inflated (some dropped after igzip) */
	/* the file read and hashed by a thread (NULL: read here) */
	struct readahead *ra;
	int spare_core;             /* source_stream_readahead()'s cores when opened, if large enough; else 0 */
	/* the first bytes, read ahead for format detection */
	char head[4096];
	size_t head_len, head_off;
	/* whitespace dropped before head (source_stream_head), given back first by reads */
	uint64_t ws_len, ws_newlines, ws_tail, ws_off;
};

/*
 * The cores to spare for each stream opened from now on (default 0): with
 * one or more, plain files of STREAM_AHEAD_MIN bytes or more are read with
 * a thread of their own, and readers may use threads besides (worth it
 * only when cores are free: parallel.c gives what --jobs leaves over the
 * traces read at once, at least 1 when traces < --jobs).
 * PERFSTUDY_NO_READAHEAD=1 in the environment keeps it off (benchmarks).
 */
void source_stream_readahead(int spare);
/*
 * Whether a reader of s may use a thread of its own besides (kineto_cut.c
 * cuts windows on one): the stream was opened with source_stream_readahead()
 * on and has STREAM_AHEAD_MIN bytes or more on disk (1 MiB for gzip), and
 * PERFSTUDY_NO_READAHEAD is not set.
 */
int source_stream_spare_core(const struct source_stream *s);
/*
 * How many threads may parse beside the reader's own (kineto_cut.c's
 * parse helpers): the spare cores but the first (the cutter's), at most
 * STREAM_HELPERS_MAX; 0 when none is spare. PERFSTUDY_PARSE_HELPERS=N
 * overrides the count where a core is spare (tests, benchmarks).
 */
#define STREAM_HELPERS_MAX 7
int source_stream_parse_helpers(const struct source_stream *s);
/* Returns 0, or -1 after diag (system error for I/O, input error for corrupt gzip). */
int source_stream_open(struct source_stream *s, const char *path);
/* Up to n uncompressed bytes into p; returns the count, 0 at the end, -1 after diag. */
ssize_t source_stream_read(struct source_stream *s, char *p, size_t n);
/*
 * The first min(4096, size) uncompressed bytes, without consuming them;
 * returns their count or -1 after diag. Leading whitespace is skipped
 * first, whatever its length (a JSON trace after 4 KB of blanks was "not a
 * Kineto JSON trace"; a gzip bomb of blanks was held whole): it is read and
 * dropped in bounded memory, and the reads that follow give it back, as
 * spaces and as many newlines (so that lines and columns stay the same).
 * *skipped (may be NULL) is how many bytes of it there were. A file of
 * whitespace alone has 0 bytes of head and is at its end.
 */
ssize_t source_stream_head(struct source_stream *s, const char **p, uint64_t *skipped);
/* Size and SHA-256; complete once a read returned 0. */
const struct source_meta *source_stream_meta(struct source_stream *s);
void source_stream_close(struct source_stream *s);

#endif
