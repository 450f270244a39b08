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

/* The JSON string writer (buf.h, json_add_*). */
/* The length of the UTF-8 sequence at s (n bytes left), or 0 when it is not one (RFC 3629). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0], lo = 0x80, hi = 0xbf;
	size_t len;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t k = 2; k < len; k++)
		if (s[k] < 0x80 || s[k] > 0xbf)
			return 0;
	return len;
}

void json_add_escaped(struct buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, from = 0;
	while (i < n) {
		unsigned c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			i++;
			continue;
		}
		buf_add(b, s + from, i - from);
		if (c == '"' || c == '\\') {
			char e[2] = {'\\', (char)c};
			buf_add(b, e, 2);
			i++;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			char e[2] = {'\\', c == '\n' ? 'n' : c == '\t' ? 't' : 'r'};
			buf_add(b, e, 2);
			i++;
		} else if (c < 0x80) {
			char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			buf_add(b, e, 6);
			i++;
		} else {
			size_t len = utf8_len(s + i, n - i);
			if (len == 3 && c == 0xe2 && s[i + 1] == 0x80 && (s[i + 2] == 0xa8 || s[i + 2] == 0xa9)) {
				buf_adds(b, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
				i += 3;
			} else if (len) {
				buf_add(b, s + i, len);
				i += len;
			} else {
				buf_adds(b, "\\ufffd");
				i++;
			}
		}
		from = i;
	}
	buf_add(b, s + from, i - from);
}

void json_add_str(struct buf *b, const char *s)
{
	buf_addc(b, '"');
	if (s)
		json_add_escaped(b, s, strlen(s));
	buf_addc(b, '"');
}
