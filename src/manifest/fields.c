/*
 * fields.c: the manifest checker's vocabulary: reporting an error at a
 * node, turning a node into a string, an integer, a number, a boolean or
 * one of a list of words, and checking a mapping's keys (unknown keys get
 * a "did you mean" by edit distance, duplicate and missing keys are named).
 */
#include "manifest/manifest_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

/* Longest value quoted back in a message before it is cut short. */
#define MAX_QUOTE 40

void mf_report(struct ctx *c, int line, int col, int sys, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *msg = xmalloc(len > 0 ? (size_t)len + 1 : 1);
	msg[0] = '\0';
	if (len > 0)
		vsnprintf(msg, (size_t)len + 1, fmt, ap);
	char *where = line > 0 ? xasprintf("%s:%d:%d", c->path, line, col) : xstrdup(c->path);
	if (sys)
		diag_syserror(where, "%s", msg);
	else
		diag_error(where, "%s", msg);
	free(where);
	free(msg);
	c->errors++;
}

void mf_err_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mf_report(c, n ? n->line : 0, n ? n->col : 0, 0, fmt, ap);
	va_end(ap);
}

void mf_report_at(struct ctx *c, int line, int col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mf_report(c, line, col, 0, fmt, ap);
	va_end(ap);
}

void mf_syserr_at(struct ctx *c, const struct ynode *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	mf_report(c, n ? n->line : 0, n ? n->col : 0, 1, fmt, ap);
	va_end(ap);
}

/* Returns b's bytes (caller frees) and releases b. */
char *mf_take(struct buf *b)
{
	char *s = buf_detach(b);
	buf_release(b);
	return s;
}

/* Returns how node n is named in "got ..." (caller frees). */
char *mf_describe(const struct ynode *n)
{
	if (n->kind == Y_MAPPING)
		return xstrdup("a mapping");
	if (n->kind == Y_SEQUENCE)
		return xstrdup("a sequence");
	if (n->null)
		return xstrdup("an empty value");
	struct buf b;
	buf_init(&b);
	buf_addc(&b, '\'');
	size_t i;
	for (i = 0; i < MAX_QUOTE && n->value[i]; i++) {
		char ch = n->value[i];
		if (ch == '\n')
			buf_adds(&b, "\\n");
		else if (ch == '\t')
			buf_adds(&b, "\\t");
		else
			buf_addc(&b, ch);
	}
	if (n->value[i]) {
		/* Do not cut a UTF-8 sequence in half. */
		while (b.len > 1 && ((unsigned char)b.data[b.len - 1] & 0xC0) == 0x80)
			b.len--;
		if (b.len > 1 && (unsigned char)b.data[b.len - 1] >= 0xC0)
			b.len--;
		b.data[b.len] = '\0';
		buf_adds(&b, "...");
	}
	buf_addc(&b, '\'');
	return mf_take(&b);
}

void mf_err_type(struct ctx *c, const struct ynode *key, const struct ynode *v, const char *what)
{
	char *got = mf_describe(v);
	mf_err_at(c, v, "expected %s for '%s', got %s", what, key->value, got);
	free(got);
}

void mf_err_got(struct ctx *c, const struct ynode *n, const char *expected)
{
	char *got = mf_describe(n);
	mf_err_at(c, n, "expected %s, got %s", expected, got);
	free(got);
}

/* Returns 1 when v holds a value, 0 when it is empty or already reported. */
int mf_present(const struct ynode *v)
{
	return !v->bad && !(v->kind == Y_SCALAR && v->null);
}

int mf_get_string(struct ctx *c, const struct ynode *key, const struct ynode *v, char **out)
{
	if (!mf_present(v))
		return 0;
	if (v->kind != Y_SCALAR) {
		mf_err_type(c, key, v, "a string");
		return -1;
	}
	free(*out);
	*out = xstrdup(v->value);
	return 1;
}

/*
 * Reads an integer in [min, max] into *out. Returns 1 when set, 0 when v is
 * empty, -1 after an error.
 */
int mf_get_int(struct ctx *c, const struct ynode *key, const struct ynode *v, int64_t min,
	int64_t max, int64_t *out)
{
	if (!mf_present(v))
		return 0;
	if (v->kind != Y_SCALAR || !v->value[0] || isspace((unsigned char)v->value[0])) {
		mf_err_type(c, key, v, "an integer");
		return -1;
	}
	char *end;
	errno = 0;
	long long x = strtoll(v->value, &end, 10);
	if (*end) {
		mf_err_type(c, key, v, "an integer");
		return -1;
	}
	if (errno == ERANGE || x < min || x > max) {
		int too_big = x > 0 && (errno == ERANGE || x > max);
		if (max != INT64_MAX && max != INT_MAX && min != INT64_MIN)
			mf_err_at(c, v, "'%s' must be between %lld and %lld, got %s", key->value,
				(long long)min, (long long)max, v->value);
		else if (too_big)
			mf_err_at(c, v, "'%s' must be at most %lld, got %s", key->value, (long long)max,
				v->value);
		else
			mf_err_at(c, v, "'%s' must be at least %lld, got %s", key->value, (long long)min,
				v->value);
		return -1;
	}
	*out = x;
	return 1;
}

int mf_get_posint(struct ctx *c, const struct ynode *key, const struct ynode *v, int *out)
{
	int64_t x;
	int r = mf_get_int(c, key, v, 1, INT_MAX, &x);
	if (r > 0)
		*out = (int)x;
	return r;
}

/* Reads a finite number greater than 0. */
int mf_get_posnum(struct ctx *c, const struct ynode *key, const struct ynode *v, double *out)
{
	if (!mf_present(v))
		return 0;
	if (v->kind != Y_SCALAR || !v->value[0] || isspace((unsigned char)v->value[0])) {
		mf_err_type(c, key, v, "a number");
		return -1;
	}
	char *end;
	double x = strtod(v->value, &end);
	if (*end) {
		mf_err_type(c, key, v, "a number");
		return -1;
	}
	if (!isfinite(x)) {
		mf_err_type(c, key, v, "a finite number");
		return -1;
	}
	if (!(x > 0)) {
		mf_err_at(c, v, "'%s' must be greater than 0, got %s", key->value, v->value);
		return -1;
	}
	*out = x;
	return 1;
}

int mf_get_bool(struct ctx *c, const struct ynode *key, const struct ynode *v, int *out)
{
	if (!mf_present(v))
		return 0;
	if (v->kind == Y_SCALAR && !strcmp(v->value, "true")) {
		*out = 1;
		return 1;
	}
	if (v->kind == Y_SCALAR && !strcmp(v->value, "false")) {
		*out = 0;
		return 1;
	}
	mf_err_type(c, key, v, "true or false");
	return -1;
}

/* Returns 1 when v is a mapping, 0 when empty, -1 after reporting it is not. */
int mf_want_mapping(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	if (!mf_present(v))
		return 0;
	if (v->kind != Y_MAPPING) {
		mf_err_type(c, key, v, "a mapping");
		return -1;
	}
	return 1;
}

/* Optimal string alignment distance, or a large number for long strings. */
static size_t edit_distance(const char *a, const char *b)
{
	enum { MAXLEN = 32 };
	size_t la = strlen(a), lb = strlen(b);
	size_t rows[3][MAXLEN + 1];
	if (la > MAXLEN || lb > MAXLEN)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t d = prev[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (prev[j - 1] + cost < d)
				d = prev[j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
				prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
	}
	return rows[la % 3][lb];
}

/* Returns the name closest to s within edit distance 2, or NULL. */
const char *mf_suggest(const char *s, const char *const *names, size_t n)
{
	const char *best = NULL;
	size_t best_d = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(s, names[i]);
		if (d < best_d && d < strlen(s)) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

/*
 * Returns the index in names of the key of the pair at items[i] of mapping
 * map, or -1 after reporting an unknown, duplicate or non-scalar key. seen[]
 * (one slot per name, NULL at first) remembers keys met so far.
 */
int mf_field_index(struct ctx *c, const struct ynode *map, size_t i,
	const char *const *names, size_t n, const struct ynode **seen)
{
	const struct ynode *k = map->items[i];
	if (k->bad)
		return -1;
	if (k->kind != Y_SCALAR) {
		mf_err_got(c, k, "a key name");
		return -1;
	}
	for (size_t j = 0; j < n; j++) {
		if (strcmp(k->value, names[j]))
			continue;
		if (seen[j]) {
			mf_err_at(c, k, "duplicate key '%s' (first at %d:%d)", k->value, seen[j]->line,
				seen[j]->col);
			return -1;
		}
		seen[j] = k;
		return (int)j;
	}
	const char *s = mf_suggest(k->value, names, n);
	if (s)
		mf_err_at(c, k, "unknown key '%s' (did you mean '%s'?)", k->value, s);
	else
		mf_err_at(c, k, "unknown key '%s'", k->value);
	return -1;
}

const struct ynode *mf_earlier_key(const struct ynode *map, size_t i)
{
	for (size_t j = 0; j < i; j += 2)
		if (map->items[j]->kind == Y_SCALAR && !strcmp(map->items[j]->value, map->items[i]->value))
			return map->items[j];
	return NULL;
}

/*
 * Reports a required key that is absent (at the mapping's start) or has an
 * empty value (at the key). key is the key node from field_index's seen[].
 */
void mf_require(struct ctx *c, const struct ynode *map, const struct ynode *key, const char *name)
{
	if (!key) {
		mf_err_at(c, map, "missing required key '%s'", name);
		return;
	}
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *v = map->items[i + 1];
		if (map->items[i] == key && !mf_present(v) && !v->bad)
			mf_err_at(c, key, "missing value for '%s'", name);
	}
}

/* Reads one of names[n] into *out; an unknown word gets a suggestion. */
void mf_get_word(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const char *const *names, size_t n, char **out)
{
	char *p = NULL;
	if (mf_get_string(c, key, v, &p) <= 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(p, names[i])) {
			free(*out);
			*out = p;
			return;
		}
	}
	struct buf all;
	buf_init(&all);
	for (size_t i = 0; i < n; i++)
		buf_printf(&all, "%s%s", i ? ", " : "", names[i]);
	const char *s = mf_suggest(p, names, n);
	if (s)
		mf_err_at(c, v, "unknown value '%s' for '%s' (did you mean '%s'?)", p, key->value, s);
	else
		mf_err_at(c, v, "unknown value '%s' for '%s' (expected one of %s)", p, key->value, all.data);
	buf_release(&all);
	free(p);
}

int mf_valid_id(const char *s, const char *extra)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return 0;
	return 1;
}

/* Lowercases s in place (NULL: nothing). */
void mf_lowercase(char *s)
{
	for (; s && *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Reads one of words[n] and stores its index (plus base) in *out. */
void mf_get_choice(struct ctx *c, const struct ynode *k, const struct ynode *v,
	const char *const *words, size_t n, int base, int *out)
{
	char *w = NULL;
	mf_get_word(c, k, v, words, n, &w);
	for (size_t j = 0; w && j < n; j++)
		if (!strcmp(w, words[j]))
			*out = (int)j + base;
	free(w);
}

/* A finite number (any sign); 1 when set, 0 when empty, -1 after an error. */
int mf_get_real(struct ctx *c, const struct ynode *key, const struct ynode *v, double *out)
{
	if (!mf_present(v))
		return 0;
	char *end = NULL;
	double x = v->kind == Y_SCALAR && v->value[0] && !isspace((unsigned char)v->value[0]) ? strtod(v->value, &end) : NAN;
	if (!end || *end || !isfinite(x)) {
		mf_err_type(c, key, v, "a finite number");
		return -1;
	}
	*out = x;
	return 1;
}
