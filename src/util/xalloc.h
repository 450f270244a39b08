/*
 * xalloc.h: allocation that cannot fail.
 *
 * perfstudy treats running out of memory as fatal: each wrapper prints
 * "perfstudy: out of memory" and exits with code 3, so ordinary code needs no
 * NULL checks after allocating. Everything returned is owned by the caller and
 * released with free().
 */
#ifndef PERFSTUDY_XALLOC_H
#define PERFSTUDY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows an array of count elements of size bytes to hold at least need. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string owned by the caller. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
