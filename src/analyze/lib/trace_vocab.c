/*
 * trace_vocab.c: a model's vocabulary read from its traces' shapes, for a
 * run whose manifest gives none (perfstudy issue 54).
 *
 * Definition. The logit layer is the matrix product of the last hidden
 * states (width d, the manifest's hidden) with a weight [V, d]. Among the
 * run's outermost aten::linear operators whose "Input Dims" (record_shapes)
 * are an input whose last dimension is d and a weight [n, d], the vocabulary
 * is the largest n wider than every matrix of a layer (n > 3d, the fused
 * Q/K/V projection, and n > f, the feed-forward width); none such: unknown
 * (0); f not given is 4d. The rank is the lowest one that runs it (a
 * pipeline's last stage).
 * A trace without shapes gives none.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/layout.h"
#include "store/store.h"

/*
 * Parses one bracketed group of "Input Dims" text ("[4,1024,1024]") at *p
 * into v (at most cap numbers); advances *p past it and a following ','.
 * Returns the count, or -1 when *p is not a group.
 */
static int dims_group(const char **p, int64_t *v, int cap)
{
	const char *s = *p;
	if (*s != '[')
		return -1;
	s++;
	int n = 0;
	while (*s && *s != ']') {
		char *end;
		long long x = strtoll(s, &end, 10);
		if (end == s)
			return -1;
		if (n < cap)
			v[n] = x;
		n++;
		s = end;
		if (*s == ',')
			s++;
	}
	if (*s != ']')
		return -1;
	s++;
	if (*s == ',')
		s++;
	*p = s;
	return n;
}

int64_t layout_trace_vocab(struct store *s, const char *exp, const char *run, int64_t d, int64_t f, int *rank)
{
	*rank = -1;
	if (d <= 0)
		return 0;
	struct store_stmt *st = store_query(s, "models: the shapes of a run's aten::linear",
					    "SELECT t.rank, dn.name FROM cpu_ops c JOIN names n ON n.id = c.name_id"
					    " JOIN names dn ON dn.id = c.dims_id JOIN run_traces t ON t.id = c.trace_id"
					    " WHERE t.experiment = ?1 AND t.run = ?2"
					    " AND n.name = 'aten::linear' GROUP BY t.rank, dn.name ORDER BY t.rank",
					    exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	if (f <= 0)
		f = 4 * d; /* the manifest's default ffn */
	int64_t best = 0, floor = 3 * d > f ? 3 * d : f;
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *p = (const char *)store_column_text(st, 1);
		int64_t in[8], w[8];
		int nin = p ? dims_group(&p, in, 8) : -1;
		int nw = nin > 0 ? dims_group(&p, w, 8) : -1;
		if (nin < 1 || nin > 8 || nw != 2 || in[nin - 1] != d || w[1] != d || w[0] <= floor)
			continue;
		if (w[0] > best) {
			best = w[0];
			*rank = store_column_int(st, 0);
		}
	}
	store_finalize(st);
	return rc < 0 ? -1 : best;
}
