/*
 * history_inputs.c: the change table's rows of a run's inputs (history.h:
 * history_input_rows), for a build's changes.csv and `perfstudy diff`.
 *
 * An input of the same path in both builds is the same input: a row
 * 're-read' when its SHA-256 differs. The others are matched by what they
 * are, not where they lie, so that the same run built from another folder
 * (a rerun, a copy, a CI checkout) is not a list of every trace added and
 * removed: an old and a new input of one run, rank and format (traces.rank,
 * traces.format; an input that is no rank's, a training log, has none) are
 * one input moved when each is the only one of its kind on its side, else
 * those of one file name are; where either side was read from a store
 * written before history_inputs had rank and format, by file name alone.
 * The moved inputs make one row 'inputs moved', their common directory old
 * and new, how many and how many with another SHA-256; the rest stay
 * 'input added' and 'input removed'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/history/history.h"
#include "util/xalloc.h"

/* An input with no input of its path on the other side. */
struct cand {
	int64_t rank;
	const char *format, *base, *path;
	size_t at;   /* its place in its run's inputs */
	size_t pair; /* the other side's input it is matched with, or SIZE_MAX */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* By rank, format, file name and path: the kinds in one order on both sides, each by name. */
static int cmp_kind(const struct cand *a, const struct cand *b)
{
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	return strcmp(a->format, b->format);
}

static int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	int c = cmp_kind(a, b);
	if (!c)
		c = strcmp(a->base, b->base);
	return c ? c : strcmp(a->path, b->path);
}

/*
 * r's inputs without one of their path in other, sorted by cmp_cand; their
 * number in *n. With legacy, every one of no rank and no format, so that
 * they are matched by file name alone.
 */
static struct cand *unmatched(const struct hstate_run *r, const struct hstate_run *other, int legacy, size_t *n)
{
	struct cand *c = xmalloc((r->ninputs + 1) * sizeof(*c));
	*n = 0;
	for (size_t i = 0; i < r->ninputs; i++)
		if (hstate_find_str(other->paths, other->ninputs, r->paths[i]) == other->ninputs)
			c[(*n)++] = (struct cand){legacy ? HSTATE_NO_RANK : r->ranks[i], legacy ? "" : r->formats[i],
						  base_name(r->paths[i]), r->paths[i], i, SIZE_MAX};
	if (*n > 1)
		qsort(c, *n, sizeof(*c), cmp_cand);
	return c;
}

/* Whether r has an input of no format: read from a store written before history_inputs had one. */
static int has_legacy(const struct hstate_run *r)
{
	for (size_t i = 0; i < r->ninputs; i++)
		if (!r->formats[i][0])
			return 1;
	return 0;
}

/* The length of the directory of p (up to its last '/'), 0 when it has none. */
static size_t dir_len(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? (size_t)(s - p) : 0;
}

/* The directory every moved input of c lies below ("/" or "." when they share none). */
static char *common_dir(const struct cand *c, size_t n)
{
	const char *first = NULL;
	size_t len = 0;
	for (size_t i = 0; i < n; i++) {
		if (c[i].pair == SIZE_MAX)
			continue;
		const char *p = c[i].path;
		size_t dl = dir_len(p), m = 0;
		if (!first) {
			first = p;
			len = dl;
			continue;
		}
		while (m < len && m < dl && first[m] == p[m])
			m++;
		/* a common prefix ending inside a name ("runs/a1" of "runs/a1/x" and "runs/a2/x") backs up to a '/' */
		if (!((m == len || first[m] == '/') && (m == dl || p[m] == '/')))
			while (m > 0 && first[m] != '/')
				m--;
		len = m;
	}
	if (!first || !len)
		return xstrdup(first && first[0] == '/' ? "/" : ".");
	return xasprintf("%.*s", (int)len, first);
}

void history_input_rows(struct table *t, const struct hstate_run *a, const struct hstate_run *b)
{
	char oh[13], nh[13];
	for (size_t i = 0; i < b->ninputs; i++) {
		size_t j = hstate_find_str(a->paths, a->ninputs, b->paths[i]);
		if (j < a->ninputs && strcmp(a->sha256[j], b->sha256[i])) {
			snprintf(oh, sizeof(oh), "%s", a->sha256[j]);
			snprintf(nh, sizeof(nh), "%s", b->sha256[i]);
			history_change_row(t, "re-read", b->run, b->paths[i], oh, nh);
		}
	}
	size_t no, nn, moved = 0, other = 0;
	int by_name = 0, legacy = has_legacy(a) || has_legacy(b);
	struct cand *co = unmatched(a, b, legacy, &no), *cn = unmatched(b, a, legacy, &nn);
	/* walk the kinds of both sides in their common order */
	for (size_t i = 0, j = 0; i < no && j < nn;) {
		int c = cmp_kind(&co[i], &cn[j]);
		size_t ie = i, je = j;
		while (ie < no && !cmp_kind(&co[ie], &co[i]))
			ie++;
		while (je < nn && !cmp_kind(&cn[je], &cn[j]))
			je++;
		if (c < 0) {
			i = ie;
			continue;
		}
		if (c > 0) {
			j = je;
			continue;
		}
		if (ie - i == 1 && je - j == 1) {
			co[i].pair = j;
			cn[j].pair = i;
		} else {
			/* several of one kind: those of one file name, in their order */
			for (size_t x = i, y = j; x < ie && y < je;) {
				int d = strcmp(co[x].base, cn[y].base);
				if (d < 0) {
					x++;
				} else if (d > 0) {
					y++;
				} else {
					co[x].pair = y;
					cn[y++].pair = x++;
					by_name = 1;
				}
			}
		}
		i = ie;
		j = je;
	}
	for (size_t i = 0; i < no; i++)
		if (co[i].pair != SIZE_MAX) {
			moved++;
			other += strcmp(a->sha256[co[i].at], b->sha256[cn[co[i].pair].at]) != 0;
		}
	if (moved) {
		char *od = common_dir(co, no), *nd = common_dir(cn, nn), *item;
		const char *how = legacy ? "by file name" : by_name ? "by rank, format and file name" : "by rank and format";
		if (other)
			item = xasprintf("%zu input%s, matched %s; %zu of them with another SHA-256", moved,
					 moved == 1 ? "" : "s", how, other);
		else
			item = xasprintf("%zu input%s, matched %s; the same SHA-256", moved, moved == 1 ? "" : "s", how);
		history_change_row(t, "inputs moved", b->run, item, od, nd);
		free(item);
		free(od);
		free(nd);
	}
	/* the rest, each in its side's order of paths */
	char *left = xcalloc(b->ninputs + a->ninputs + 1, 1);
	for (size_t j = 0; j < nn; j++)
		left[cn[j].at] = cn[j].pair == SIZE_MAX;
	for (size_t i = 0; i < no; i++)
		left[b->ninputs + co[i].at] = co[i].pair == SIZE_MAX;
	for (size_t i = 0; i < b->ninputs; i++)
		if (left[i]) {
			snprintf(nh, sizeof(nh), "%s", b->sha256[i]);
			history_change_row(t, "input added", b->run, b->paths[i], NULL, nh);
		}
	for (size_t i = 0; i < a->ninputs; i++)
		if (left[b->ninputs + i]) {
			snprintf(oh, sizeof(oh), "%s", a->sha256[i]);
			history_change_row(t, "input removed", b->run, a->paths[i], oh, NULL);
		}
	free(left);
	free(co);
	free(cn);
}
