/* buf.c: the growable buffer of buf.h. */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void buf_init(struct buf *b)
{
	b->cap = 64;
	b->data = xmalloc(b->cap);
	b->data[0] = '\0';
	b->len = 0;
}

void buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->data[0] = '\0';
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	b->data = xgrow(b->data, &b->cap, b->len + n + 1, 1);
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	b->data = xgrow(b->data, &b->cap, b->len + (size_t)n + 1, 1);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

char *buf_detach(struct buf *b)
{
	char *p = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
