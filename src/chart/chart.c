/*
 * chart.c: the chart model of chart.h, free of cairo.
 *
 * Analyses fill a chart in whatever order suits them: all categories first
 * and series later, or the other way round. values[] is kept dense and
 * row-major (cat * nseries + series) at every step, so a reader of the
 * struct never sees a stale layout.
 */
#include "chart.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "../util/xalloc.h"

struct chart *chart_new(enum chart_kind kind, const char *name, const char *title,
			const char *value_label)
{
	struct chart *c = xcalloc(1, sizeof(*c));
	c->kind = kind;
	c->name = xstrdup(name ? name : "");
	c->title = xstrdup(title ? title : "");
	c->value_label = xstrdup(value_label ? value_label : "");
	return c;
}

void chart_free(struct chart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ncat; i++)
		free(c->categories[i]);
	for (size_t i = 0; i < c->nseries; i++)
		free(c->series[i]);
	free(c->categories);
	free(c->series);
	free(c->values);
	free(c->name);
	free(c->title);
	free(c->value_label);
	free(c);
}

size_t chart_add_category(struct chart *c, const char *label)
{
	/* A new category is a new row at the end: the old rows keep their place. */
	c->categories = xgrow(c->categories, &c->cap_cat, c->ncat + 1, sizeof(*c->categories));
	c->categories[c->ncat] = xstrdup(label ? label : "");
	if (c->nseries) {
		c->values = xrealloc(c->values, (c->ncat + 1) * c->nseries * sizeof(*c->values));
		for (size_t s = 0; s < c->nseries; s++)
			c->values[c->ncat * c->nseries + s] = 0;
	}
	return c->ncat++;
}

size_t chart_add_series(struct chart *c, const char *label)
{
	/* A new series widens every row, so the rows are copied to their new stride. */
	c->series = xgrow(c->series, &c->cap_series, c->nseries + 1, sizeof(*c->series));
	c->series[c->nseries] = xstrdup(label ? label : "");
	if (c->ncat) {
		size_t ns = c->nseries + 1;
		double *v = xcalloc(c->ncat * ns, sizeof(*v));
		for (size_t i = 0; i < c->ncat; i++)
			for (size_t s = 0; s < c->nseries; s++)
				v[i * ns + s] = c->values[i * c->nseries + s];
		free(c->values);
		c->values = v;
	}
	return c->nseries++;
}

void chart_set(struct chart *c, size_t cat, size_t series, double v)
{
	assert(cat < c->ncat && series < c->nseries);
	c->values[cat * c->nseries + series] = v;
}

double chart_get(const struct chart *c, size_t cat, size_t series)
{
	assert(cat < c->ncat && series < c->nseries);
	return c->values[cat * c->nseries + series];
}

/* A UTF-8 continuation byte never starts a character, so cuts skip over them. */
static int is_cont(unsigned char ch)
{
	return (ch & 0xc0) == 0x80;
}

char *chart_shorten_middle(const char *s, size_t max_chars)
{
	static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
	size_t len = strlen(s), nchars = 0;

	for (size_t i = 0; i < len; i++)
		nchars += !is_cont((unsigned char)s[i]);
	if (nchars <= max_chars)
		return xstrdup(s);
	if (max_chars == 0)
		return xstrdup("");

	/* The head gets the odd character: a name's start usually tells more. */
	size_t keep = max_chars - 1;
	size_t head_chars = (keep + 1) / 2, tail_chars = keep - head_chars;

	size_t head = 0;
	for (size_t n = 0; head < len; head++) {
		if (!is_cont((unsigned char)s[head]) && n++ == head_chars)
			break;
	}
	size_t tail = len;
	for (size_t n = 0; n < tail_chars && tail > head;) {
		tail--;
		if (!is_cont((unsigned char)s[tail]))
			n++;
	}

	char *out = xmalloc(head + sizeof(ellipsis) + (len - tail));
	memcpy(out, s, head);
	memcpy(out + head, ellipsis, sizeof(ellipsis) - 1);
	memcpy(out + head + sizeof(ellipsis) - 1, s + tail, len - tail);
	out[head + sizeof(ellipsis) - 1 + len - tail] = '\0';
	return out;
}
