/*
 * buf.h: a growable byte buffer, always NUL-terminated.
 *
 * Used instead of strcat/sprintf wherever text is assembled. A struct buf is
 * embedded by its user: buf_init() before use, buf_release() frees the bytes.
 * buf_detach() hands the bytes to the caller and leaves the buffer released
 * (buf_init it again to reuse it; buf_release on it is harmless).
 */
#ifndef PERFSTUDY_BUF_H
#define PERFSTUDY_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data; /* NUL-terminated; never NULL after buf_init */
	size_t len;
	size_t cap;
};

void buf_init(struct buf *b);
void buf_release(struct buf *b);
void buf_reset(struct buf *b);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_adds(struct buf *b, const char *s);
void buf_addc(struct buf *b, char c);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* buf_printf with a va_list (ap is used up). */
void buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Returns the bytes (caller frees) and leaves b released. */
char *buf_detach(struct buf *b);

/*
 * The one JSON string writer of perfstudy (json_add_*). Every JSON file it
 * writes (the merged traces, `diff --json` and `--benchmark-json`) takes
 * its strings from here, so that any bytes at all (names and paths from
 * the inputs, a run directory `run\xff`) become valid JSON, the same way
 * everywhere: '"' and '\' escaped; \n, \t, \r as such; other control bytes
 * and DEL as \u00XX; U+2028 and U+2029 as \u2028 and \u2029 (line ends to
 * older JavaScript); each byte that does not start a valid UTF-8 sequence
 * (RFC 3629: no overlong form, no surrogate, nothing past U+10FFFF) as
 * \ufffd, the replacement character; valid UTF-8 as it is. (diff's JSON
 * copied such bytes raw: python's json module refused both files.)
 */
/* Appends s (n bytes, any bytes, NULs too) to b escaped as above, without the quotes. */
void json_add_escaped(struct buf *b, const char *s, size_t n);
/* Appends s (NUL-terminated; NULL as "") to b as a quoted JSON string, escaped as above. */
void json_add_str(struct buf *b, const char *s);

#endif
