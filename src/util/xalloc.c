/* xalloc.c: the allocation wrappers of xalloc.h. */
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/diag.h"

/* The calling thread's context, and the main thread's for threads that set none. */
static _Thread_local char context[XALLOC_CONTEXT_MAX];
static char main_context[XALLOC_CONTEXT_MAX];
static void (*volatile on_oom)(void);

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

/* Says "perfstudy: error: <what>" and the context, runs the hook, exits 3. */
static void fatal_io(const char *what) __attribute__((noreturn));
static void fatal_io(const char *what)
{
	say("perfstudy: error: ");
	say(what);
	const char *ctx = context[0] ? context : main_context;
	if (ctx[0]) {
		say(" while ");
		say(ctx);
	}
	say("\n");
	void (*fn)(void) = on_oom;
	on_oom = NULL;
	if (fn)
		fn();
	_exit(3);
}

/* No stdio and no allocation: there is no memory left. */
static void oom(void)
{
	fatal_io("out of memory");
}

void xalloc_fatal(const char *what)
{
	fatal_io(what);
}

void xalloc_die(void)
{
	oom();
	_exit(3); /* not reached: for the noreturn attribute */
}

void xalloc_on_oom(void (*fn)(void))
{
	on_oom = fn;
}

/* Only the main thread writes main_context: the others read it once, when memory runs out. */
static int is_main_thread(void)
{
#ifdef SYS_gettid
	return syscall(SYS_gettid) == getpid();
#else
	return 1;
#endif
}

void xalloc_context(const char *what, const char *name, char saved[XALLOC_CONTEXT_MAX])
{
	if (saved)
		memcpy(saved, context, XALLOC_CONTEXT_MAX);
	char *esc = name ? diag_escape(name) : NULL;
	if (esc)
		snprintf(context, sizeof(context), "%s '%s'", what, esc);
	else
		snprintf(context, sizeof(context), "%s", what);
	free(esc);
	if (is_main_thread())
		memcpy(main_context, context, sizeof(context));
}

void xalloc_context_restore(const char saved[XALLOC_CONTEXT_MAX])
{
	memcpy(context, saved, XALLOC_CONTEXT_MAX);
	context[XALLOC_CONTEXT_MAX - 1] = '\0';
	if (is_main_thread())
		memcpy(main_context, context, sizeof(context));
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xreallocarray(void *p, size_t count, size_t size)
{
	if (size && count > ((size_t)-1) / size)
		oom();
	return xrealloc(p, count * size);
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap;
	if (need <= c)
		return p;
	if (c < 16)
		c = 16;
	while (c < need)
		c *= 2;
	if (c > ((size_t)-1) / size)
		oom();
	*cap = c;
	return xrealloc(p, c * size);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom();
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
