/* diag.c: error and warning reporting, see diag.h. */
#include "util/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/buf.h"
#include "util/xalloc.h"

static size_t n_errors;
static int system_failed;
static char **warnings;
static size_t n_warnings, cap_warnings;
static int quiet;

/* The calling thread's diversion (diag_divert), and the errors it ever took. */
static _Thread_local void (*divert_fn)(void *, enum diag_level, const char *);
static _Thread_local void *divert_ctx;
static _Thread_local size_t divert_errors;

/* Hands m to the diversion when there is one (and frees it); returns 1 then. */
static int diverted(enum diag_level level, char *m)
{
	if (!divert_fn)
		return 0;
	if (level != DIAG_WARNING)
		divert_errors++;
	divert_fn(divert_ctx, level, m);
	free(m);
	return 1;
}

/* Length of the valid UTF-8 sequence of 2-4 bytes at s (RFC 3629), with its code point; 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, unsigned *cp)
{
	unsigned c = s[0];
	size_t n;
	unsigned v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the NUL */
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* Appends s to b escaped as diag.h says. */
static void escape_into(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		const unsigned char *q = p;
		/* A run of printable ASCII as it is. */
		while (*q >= 0x20 && *q < 0x7f)
			q++;
		if (q > p)
			buf_add(b, p, (size_t)(q - p));
		p = q;
		if (!*p)
			break;
		unsigned cp;
		size_t n;
		if (*p == '\n') {
			buf_adds(b, "\\n");
			p++;
		} else if (*p == '\r') {
			buf_adds(b, "\\r");
			p++;
		} else if (*p == '\t') {
			buf_adds(b, "\\t");
			p++;
		} else if (*p < 0x80) {
			buf_printf(b, "\\x%02x", *p); /* other C0, DEL */
			p++;
		} else if ((n = utf8_seq(p, &cp)) == 0) {
			buf_printf(b, "\\x%02x", *p);
			p++;
		} else if (cp <= 0x9f) {
			buf_printf(b, "\\u%04x", cp); /* C1 */
			p += n;
		} else {
			buf_add(b, p, n);
			p += n;
		}
	}
}

void diag_line(FILE *f, const char *fmt, ...)
{
	struct buf raw, out;
	buf_init(&raw);
	buf_init(&out);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&raw, fmt, ap);
	va_end(ap);
	escape_into(&out, raw.data ? raw.data : "");
	buf_addc(&out, '\n');
	fwrite(out.data, 1, out.len, f);
	buf_release(&raw);
	buf_release(&out);
}

char *diag_escape(const char *s)
{
	struct buf b;
	buf_init(&b);
	escape_into(&b, s);
	return buf_detach(&b);
}

static char *format(const char *where, const char *level, const char *fmt, va_list ap)
{
	struct buf b;
	buf_init(&b);
	escape_into(&b, where ? where : "perfstudy");
	buf_printf(&b, ": %s: ", level);
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n > 0) {
		char *msg = xmalloc((size_t)n + 1);
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		escape_into(&b, msg);
		free(msg);
	}
	return buf_detach(&b);
}

/* Reports m (and takes it): to the diversion, or on stderr, counted; a warning is also kept. */
static void report(enum diag_level level, char *m)
{
	if (diverted(level, m))
		return;
	if (level == DIAG_WARNING) {
		if (!quiet)
			fprintf(stderr, "%s\n", m);
		warnings = xgrow(warnings, &cap_warnings, n_warnings + 1, sizeof(*warnings));
		warnings[n_warnings++] = m;
		return;
	}
	fprintf(stderr, "%s\n", m);
	free(m);
	n_errors++;
	if (level == DIAG_SYSERROR)
		system_failed = 1;
}

/* Formats the message of level for where and reports it. */
static void vreport(enum diag_level level, const char *where, const char *fmt, va_list ap)
{
	report(level, format(where, level == DIAG_WARNING ? "warning" : "error", fmt, ap));
}

void diag_error(const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(DIAG_ERROR, where, fmt, ap);
	va_end(ap);
}

void diag_syserror(const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(DIAG_SYSERROR, where, fmt, ap);
	va_end(ap);
}

void diag_warning(const char *where, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vreport(DIAG_WARNING, where, fmt, ap);
	va_end(ap);
}

size_t diag_error_count(void)
{
	return divert_fn ? divert_errors : n_errors;
}

int diag_exit_code(void)
{
	if (system_failed)
		return EXIT_SYSTEM;
	return n_errors ? EXIT_INPUT : EXIT_OK;
}

size_t diag_warning_count(void)
{
	return n_warnings;
}

const char *diag_warning_text(size_t i)
{
	return i < n_warnings ? warnings[i] : NULL;
}

void diag_set_quiet(int q)
{
	quiet = q;
}

void diag_reset(void)
{
	for (size_t i = 0; i < n_warnings; i++)
		free(warnings[i]);
	free(warnings);
	warnings = NULL;
	n_warnings = cap_warnings = 0;
	n_errors = 0;
	system_failed = 0;
}

void diag_divert(void (*fn)(void *ctx, enum diag_level level, const char *text), void *ctx)
{
	divert_fn = fn;
	divert_ctx = ctx;
}

void diag_replay(enum diag_level level, const char *text)
{
	if (divert_fn) {
		/* Diverted as the message itself would be in this thread. */
		if (level != DIAG_WARNING)
			divert_errors++;
		divert_fn(divert_ctx, level, text);
		return;
	}
	report(level, xstrdup(text));
}
