/*
 * json.h: the one JSON string writer of perfstudy. Every JSON file it
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
#ifndef PERFSTUDY_JSON_H
#define PERFSTUDY_JSON_H

#include <stddef.h>

struct buf;

/* Appends s (n bytes, any bytes, NULs too) to b escaped as above, without the quotes. */
void json_add_escaped(struct buf *b, const char *s, size_t n);
/* Appends s (NUL-terminated; NULL as "") to b as a quoted JSON string, escaped as above. */
void json_add_str(struct buf *b, const char *s);

#endif
