/*
 * xalloc.h: allocation that cannot fail.
 *
 * perfstudy treats running out of memory as fatal: each wrapper prints
 * "perfstudy: error: out of memory while <what the thread was doing>", runs
 * the hook set by xalloc_on_oom (the build removes its DIR.tmp.<pid>) and
 * exits with code 3, so ordinary code needs no NULL checks after
 * allocating. Everything returned is owned by the caller and released with
 * free().
 */
#ifndef PERFSTUDY_XALLOC_H
#define PERFSTUDY_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc to count elements of size bytes; an overflowing product is out of memory. */
void *xreallocarray(void *p, size_t count, size_t size);
/* Grows an array of count elements of size bytes to hold at least need. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a new string owned by the caller. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));


/*
 * What the calling thread is doing, for the out-of-memory message:
 * xalloc_context("reading", path, saved) records "reading 'path'" (escaped
 * as diag escapes, cut at XALLOC_CONTEXT_MAX bytes) and copies the previous
 * text into saved (may be NULL); xalloc_context_restore(saved) puts it back.
 * name may be NULL ("analyzing").
 */
#define XALLOC_CONTEXT_MAX 512
void xalloc_context(const char *what, const char *name, char saved[XALLOC_CONTEXT_MAX]);
void xalloc_context_restore(const char saved[XALLOC_CONTEXT_MAX]);
/*
 * fn runs once, in the thread that ran out of memory, after the message and
 * before the exit; it must not allocate (cleanup.c removes the build's
 * temporary directory with system calls only). NULL removes it.
 */
void xalloc_on_oom(void (*fn)(void));
/* The out-of-memory exit itself, for the C++ allocation failures (new_handler). */
void xalloc_die(void) __attribute__((noreturn));
/*
 * The same exit for a failure of perfstudy's own scratch space (a full
 * disk under the spilled table rows of table.c): "perfstudy: error: <what>"
 * and the context, the hook, exit 3. what must be a ready string: nothing
 * is allocated on this path.
 */
void xalloc_fatal(const char *what) __attribute__((noreturn));

#endif
