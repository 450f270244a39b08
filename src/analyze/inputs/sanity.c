/*
 * sanity.c: impossible shares flagged (issue 28, point 6). A share of time
 * (a COL_FRAC column: a part over its whole) over 100 % cannot be: the
 * likely cause is times that overlap added up (streams or ranks summed),
 * or a part and a whole taken from different steps. Each such column gets
 * one warning note naming the table, the column, how many rows and the
 * largest value with its row's run; nothing is changed. Runs after every
 * analysis but findings, so that it sees their tables. (Efficiency over
 * 100 % is scaling.c's own warning: it has more to say about its cause.)
 */
#include <string.h>

#include "analyze/analysis.h"

#define SHARE_MAX 1.000001 /* over 100 %, beyond the rounding of a ratio */

static int analysis_sanity(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	(void)ctx;
	for (size_t i = 0; i < out->ntables; i++) {
		const struct table *t = out->tables[i];
		if (t->internal) /* never shown: not the page's to warn about */
			continue;
		int crun = table_col_index(t, "run");
		for (size_t c = 0; c < t->ncols; c++) {
			if (t->cols[c].type != COL_FRAC)
				continue;
			size_t n = 0, worst = 0;
			double max = 0;
			for (size_t r = 0; r < t->nrows; r++) {
				const struct cell *x = table_cell(t, r, c);
				if (x->null || !(x->v.f > SHARE_MAX))
					continue;
				if (!n++ || x->v.f > max)
					max = x->v.f, worst = r;
			}
			if (!n)
				continue;
			const struct cell *run = crun >= 0 ? table_cell(t, worst, (size_t)crun) : NULL;
			result_add_note(out, "%s.csv: warning: %s is over 100 %% in %zu row%s (up to %.1f %%%s%s), which "
					"cannot be: the likely cause is times that overlap added up (streams or ranks summed) "
					"or a part and its whole taken from different steps",
					t->name, t->cols[c].name, n, n > 1 ? "s" : "", 100 * max, run && !run->null ? ", run " : "",
					run && !run->null ? run->v.text : "");
		}
	}
	return 0;
}

const struct analysis_def analysis_def_sanity = {
	.name = "sanity",
	.run = analysis_sanity,
	.needs = ANALYSIS_TABLES(ANALYSIS_ANY_TABLE),
	.makes = ANALYSIS_NONE,
};
