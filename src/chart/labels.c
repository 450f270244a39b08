/*
 * labels.c: a set of category labels shortened together. A label that does
 * not fit loses whole words, one at a time, each replaced by an ellipsis
 * (neighbours share one, and a word beside one gone goes more readily):
 * first the words that most of the other labels also have ("layers,",
 * "(manifest)", "at::native::"), which tell nothing apart, the first word
 * last but one, and never, while another word can go, a word that tells
 * it from the label most like it. A word is what lies between
 * spaces; in a label without spaces or one that is code ("::", "<"), a
 * run of letters and digits with the punctuation after it. Only a label whose last word alone does not fit is
 * cut inside a word (fit_text).
 */
#include "chart/chart_draw.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */

static int wordy(unsigned char ch)
{
	return ch >= 0x80 || (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

int label_boundary(const char *s, size_t i)
{
	size_t n = strlen(s);
	if (i == 0 || i >= n)
		return 1;
	if (((unsigned char)s[i] & 0xc0) == 0x80)
		return 0; /* inside a UTF-8 character */
	return !wordy((unsigned char)s[i - 1]) || !wordy((unsigned char)s[i]);
}

static size_t nchars(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* A label cut into words: word k is s[at[k], at[k + 1]), spaces included at its end. */
struct words {
	size_t n;
	size_t *at;
};

static void split_words(const char *s, struct words *w)
{
	size_t len = strlen(s);
	/* Code (a kernel's "ns::f<T, U>") is cut at its punctuation, prose at its spaces. */
	int spaces = strchr(s, ' ') && !strstr(s, "::") && !strchr(s, '<');
	w->at = xcalloc(len + 2, sizeof(*w->at));
	w->n = 0;
	w->at[0] = 0;
	for (size_t i = 1; i < len; i++) {
		int start = spaces ? s[i - 1] == ' ' && s[i] != ' '
				   : wordy((unsigned char)s[i]) && !wordy((unsigned char)s[i - 1]);
		if (start)
			w->at[++w->n] = i;
	}
	w->at[++w->n] = len;
}

/* Whether word k of s (its text up to trailing spaces) is a word of t. */
static int has_word(const char *s, const struct words *ws, size_t k, const char *t, const struct words *wt)
{
	size_t a = ws->at[k], b = ws->at[k + 1];
	while (b > a && s[b - 1] == ' ')
		b--;
	for (size_t j = 0; j < wt->n; j++) {
		size_t c = wt->at[j], d = wt->at[j + 1];
		while (d > c && t[d - 1] == ' ')
			d--;
		if (d - c == b - a && !memcmp(s + a, t + c, b - a))
			return 1;
	}
	return 0;
}

/* s with the words marked gone replaced by an ellipsis per run of them (keeping the space before the next). */
static char *assemble(const char *s, const struct words *w, const char *gone)
{
	size_t len = strlen(s);
	char *out = xmalloc(len + sizeof(ellipsis) * (w->n + 1) + 1), *o = out;
	for (size_t k = 0; k < w->n; k++) {
		if (!gone[k]) {
			memcpy(o, s + w->at[k], w->at[k + 1] - w->at[k]);
			o += w->at[k + 1] - w->at[k];
			continue;
		}
		if (k == 0 || !gone[k - 1]) {
			memcpy(o, ellipsis, sizeof(ellipsis) - 1);
			o += sizeof(ellipsis) - 1;
		}
		/* The last word of a run gone keeps its trailing spaces: "a … b". */
		if (k + 1 == w->n || !gone[k + 1])
			for (size_t i = w->at[k + 1]; i > w->at[k] && s[i - 1] == ' '; i--)
				*o++ = ' ';
	}
	*o = '\0';
	return out;
}

static int fits(cairo_t *cr, const char *s, double max_w, size_t max_chars)
{
	return nchars(s) <= max_chars && text_width(cr, s) <= max_w;
}

static int taken(char *const *out, size_t n, size_t self, const char *const *cats, const char *s)
{
	for (size_t j = 0; j < n; j++)
		if (j != self && out[j] && !strcmp(out[j], s) && strcmp(cats[j], cats[self]))
			return 1;
	return 0;
}

/*
 * cats[i] shortened word by word: the word that the fewest other labels
 * lack goes first (then the longer, then the later); words of cats[i]
 * that label `like` lacks (when like < n) go only when nothing else is
 * left. NULL when even one word does not fit.
 */
static char *drop_words(cairo_t *cr, const char *const *cats, const struct words *ws, size_t n, size_t i,
			size_t like, double max_w, size_t max_chars)
{
	const char *s = cats[i];
	const struct words *w = &ws[i];
	size_t *cost = xcalloc(w->n + 1, sizeof(*cost));
	char *gone = xcalloc(w->n + 1, 1);
	for (size_t k = 0; k < w->n; k++) {
		for (size_t j = 0; j < n; j++)
			if (j != i && !has_word(s, w, k, cats[j], &ws[j]))
				cost[k]++;
		if (like < n && !has_word(s, w, k, cats[like], &ws[like]))
			cost[k] += 2 * n + 2;
		if (k == 0)
			cost[k] += n; /* the head names the thing: kept while the rest can go */
	}
	char *res = NULL;
	for (size_t left = w->n; left > 1; left--) {
		/* A word beside one gone adds no ellipsis: fewer, longer cuts read better than many. */
		size_t pick = w->n, pick_cost = 0;
		for (size_t k = 0; k < w->n; k++) {
			if (gone[k])
				continue;
			size_t lk = w->at[k + 1] - w->at[k];
			size_t ck = cost[k] + ((k > 0 && gone[k - 1]) || (k + 1 < w->n && gone[k + 1]) ? 0 : n / 3 + 1);
			if (pick == w->n || ck < pick_cost ||
			    (ck == pick_cost && lk >= w->at[pick + 1] - w->at[pick])) {
				pick = k;
				pick_cost = ck;
			}
		}
		gone[pick] = 1;
		char *cand = assemble(s, w, gone);
		if (fits(cr, cand, max_w, max_chars)) {
			res = cand;
			break;
		}
		free(cand);
	}
	free(cost);
	free(gone);
	return res;
}

/* The other label that shares the most words with cats[i] (n when there is none): what it must stay unlike. */
static size_t nearest(const char *const *cats, const struct words *ws, size_t n, size_t i)
{
	size_t best = n, best_shared = 0;
	for (size_t j = 0; j < n; j++) {
		if (j == i || !strcmp(cats[i], cats[j]))
			continue;
		size_t shared = 0;
		for (size_t k = 0; k < ws[i].n; k++)
			shared += (size_t)has_word(cats[i], &ws[i], k, cats[j], &ws[j]);
		if (shared > best_shared) {
			best = j;
			best_shared = shared;
		}
	}
	return best;
}

char **fit_labels(cairo_t *cr, const char *const *all, size_t n, double max_w, size_t max_chars)
{
	/* Words are weighed over at most CHART_TEXT_MAX characters a label (chart_draw.h). */
	char **capped = xcalloc(n ? n : 1, sizeof(*capped));
	for (size_t i = 0; i < n; i++)
		capped[i] = chart_shorten_middle(all[i], CHART_TEXT_MAX);
	const char *const *cats = (const char *const *)capped;
	char **out = xcalloc(n ? n : 1, sizeof(*out));
	struct words *ws = xcalloc(n ? n : 1, sizeof(*ws));
	for (size_t i = 0; i < n; i++)
		split_words(cats[i], &ws[i]);
	for (size_t i = 0; i < n; i++)
		if (fits(cr, cats[i], max_w, max_chars))
			out[i] = xstrdup(cats[i]);
	for (size_t i = 0; i < n; i++)
		if (!out[i])
			out[i] = drop_words(cr, cats, ws, n, i, nearest(cats, ws, n, i), max_w, max_chars);
	/* Two names cut to one label: cut the later again, keeping the words that tell it from the other. */
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < n && out[i]; j++) {
			if (j == i || !out[j] || strcmp(out[i], out[j]) || !strcmp(cats[i], cats[j]))
				continue;
			char *again = drop_words(cr, cats, ws, n, i, j, max_w, max_chars);
			if (again && !taken(out, n, i, cats, again)) {
				free(out[i]);
				out[i] = again;
			} else {
				free(again);
			}
			break;
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!out[i])
			out[i] = fit_text(cr, cats[i], max_w, max_chars);
		free(ws[i].at);
	}
	free(ws);
	for (size_t i = 0; i < n; i++)
		free(capped[i]);
	free(capped);
	return out;
}

void free_labels(char **labels, size_t n)
{
	if (!labels)
		return;
	for (size_t i = 0; i < n; i++)
		free(labels[i]);
	free(labels);
}
