/*
 * findings_order.c: the findings in the order a reader acts on them (findings_order.h):
 * the largest saving per step first, across runs; findings without a
 * saving after them, each group in the order the rules made them.
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/findings/findings_order.h"

/* Largest saving first; findings without one after, each group in the order the rules made them. */
static int cmp_pending(const void *pa, const void *pb)
{
	const struct pending *a = pa, *b = pb;
	int ha = !isnan(a->saving), hb = !isnan(b->saving);
	if (ha != hb)
		return ha ? -1 : 1;
	if (ha && a->saving != b->saving)
		return a->saving > b->saving ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

void findings_flush(struct table *t, struct pending *p, size_t n)
{
	if (n > 1)
		qsort(p, n, sizeof(*p), cmp_pending);
	for (size_t i = 0; i < n; i++, p++) {
		size_t r = table_add_row(t);
		table_set_text(t, r, 0, p->run);
		if (p->rank >= 0)
			table_set_int(t, r, 1, p->rank);
		table_set_text(t, r, 2, p->text);
		table_set_real(t, r, 3, p->value);
		table_set_text(t, r, 4, p->evidence);
		table_set_text(t, r, 5, p->rule);
		if (!isnan(p->saving))
			table_set_ns(t, r, 6, (int64_t)llround(p->saving * 1000));
		free(p->run);
		free(p->text);
		free(p->evidence);
		free(p->rule);
	}
}

