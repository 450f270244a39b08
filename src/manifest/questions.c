/*
 * questions.c: the manifest's 'whatif' key, questions to the replay
 * (issue #52): a list of {run: ID, change: CHANGE or [CHANGE, ...]}, each
 * CHANGE in `perfstudy whatif`'s grammar (whatif_change.h) and checked by
 * the same parser, with the error at the change's line and column. The
 * run is checked against the runs once every run is read (manifest.c).
 */
#include <stdlib.h>
#include <string.h>

#include "manifest/manifest_int.h"
#include "manifest/whatif_change.h"
#include "util/buf.h"
#include "util/xalloc.h"

/* One CHANGE node into q; 0, or -1 after reporting it. */
static int one_change(struct ctx *c, const struct ynode *key, const struct ynode *v, struct manifest_whatif *q,
		      size_t *cap)
{
	if (v->bad)
		return -1;
	if (v->kind != Y_SCALAR || v->null) {
		mf_err_type(c, key, v, "a change like 'collectives=0.5' or a list of them");
		return -1;
	}
	struct whatif_change wc;
	char *why;
	int rc = whatif_parse(v->value, (int)q->nchanges + 1, &wc, &why);
	whatif_change_release(&wc);
	if (rc < 0) {
		mf_err_at(c, v, "change '%s' in 'whatif': %s", v->value, why);
		free(why);
		return -1;
	}
	q->changes = xgrow(q->changes, cap, q->nchanges + 1, sizeof(*q->changes));
	q->changes[q->nchanges++] = xstrdup(v->value);
	return 0;
}

void mf_get_whatif(struct ctx *c, const struct ynode *key, const struct ynode *v, const struct ynode ***nodes)
{
	static const char *const keys[] = {"run", "change"};
	struct manifest *m = c->m;
	if (!mf_present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		mf_err_type(c, key, v, "a list of {run: ..., change: ...}");
		return;
	}
	m->whatif = xcalloc(v->n + 1, sizeof(*m->whatif));
	*nodes = xcalloc(v->n + 1, sizeof(**nodes));
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			mf_err_got(c, it, "a question like {run: a, change: collectives=0.5} in 'whatif'");
			continue;
		}
		const struct ynode *seen[2] = {0}, *run_node = NULL;
		struct manifest_whatif q = {.line = it->line, .col = it->col};
		size_t cap = 0;
		int bad = 0;
		for (size_t j = 0; j < it->n; j += 2) {
			const struct ynode *k = it->items[j], *val = it->items[j + 1];
			switch (mf_field_index(c, it, j, keys, 2, seen)) {
			case 0:
				if (mf_get_string(c, k, val, &q.run) > 0)
					run_node = val;
				break;
			case 1:
				if (!mf_present(val))
					break;
				if (val->kind == Y_SEQUENCE) {
					if (!val->n)
						mf_err_at(c, val, "a question needs at least one change, got an empty list");
					for (size_t r = 0; r < val->n; r++)
						bad |= one_change(c, k, val->items[r], &q, &cap) < 0;
				} else {
					bad |= one_change(c, k, val, &q, &cap) < 0;
				}
				break;
			}
		}
		mf_require(c, it, seen[0], "run");
		mf_require(c, it, seen[1], "change");
		struct buf b;
		buf_init(&b);
		for (size_t j = 0; j < q.nchanges; j++)
			buf_printf(&b, "%s%s", j ? " " : "", q.changes[j]);
		q.change = buf_detach(&b);
		(*nodes)[m->nwhatif] = run_node;
		m->whatif[m->nwhatif++] = q;
		(void)bad;
	}
}
