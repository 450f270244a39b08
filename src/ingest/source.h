/*
 * source.h: an input file's bytes in memory.
 *
 * source_load() reads a file whole; a gzip file (by its magic bytes) is
 * inflated, members concatenated. The bytes are followed by 64 zero bytes of
 * padding, which simdjson needs. While reading it computes the file's size
 * and SHA-256 (of the bytes on disk) for the store and the report's
 * Provenance. The caller owns the source and frees it with source_release().
 * source_find() searches such bytes, which need not end in a NUL;
 * source_line_col() names a place in them as an editor does.
 */
#ifndef PERFSTUDY_SOURCE_H
#define PERFSTUDY_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#define SOURCE_PADDING 64

struct source_meta {
	int64_t size;     /* bytes on disk */
	char sha256[65];  /* of the bytes on disk */
	int gzip;         /* the file was gzip-compressed */
};

struct source {
	const char *path;
	char *data;   /* uncompressed bytes + SOURCE_PADDING zeros */
	size_t len;   /* uncompressed length, padding not counted */
	struct source_meta meta;
};

/* Returns 0, or -1 after diag (system error for I/O, input error for corrupt gzip). */
int source_load(struct source *src, const char *path);
void source_release(struct source *src);
/*
 * Returns where needle first occurs in the n bytes at p, or NULL: readers
 * sniff headers and search lines that are not NUL-terminated.
 */
const char *source_find(const char *p, size_t n, const char *needle);
/*
 * The line and column (1-based, the column in bytes) of offset at in the n
 * bytes at p, into *line and *col: where a reader's message points.
 */
void source_line_col(const char *p, size_t n, size_t at, size_t *line, size_t *col);

#endif
