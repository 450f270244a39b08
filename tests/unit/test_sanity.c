/*
 * test_sanity.c: sanity.c flags a share over 100 % once per column, with
 * its table, column, row count, largest value and that row's run; shares of
 * exactly 100 %, null cells and internal tables are not flagged.
 */
#include <string.h>

#include "analyze/analysis.h"
#include "check.h"

int main(void)
{
	struct analysis_result res;
	memset(&res, 0, sizeof(res));
	struct table *t = table_new("parts", "parts of a step", "run:text,rank:int,share:frac,other:frac");
	const char *runs[] = {"a", "b", "c", "d"};
	const double share[] = {0.5, 1.0, 1.37, 1.02}, other[] = {0.1, 0.2, 0.3, 1.0};
	for (int i = 0; i < 4; i++) {
		size_t r = table_add_row(t);
		table_set_text(t, r, 0, runs[i]);
		table_set_int(t, r, 1, 0);
		table_set_real(t, r, 2, share[i]);
		table_set_real(t, r, 3, other[i]);
	}
	table_add_row(t); /* all null */
	result_add_table(&res, t);
	/* an internal table (table.h) is never shown: no warning about it */
	struct table *in = table_new("parts_inside", "parts handed to the trace", "run:text,share:frac");
	in->internal = 1;
	size_t ir = table_add_row(in);
	table_set_text(in, ir, 0, "e");
	table_set_real(in, ir, 1, 2.5);
	result_add_table(&res, in);
	struct analysis_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	size_t n;
	const struct analysis_def *const *reg = analysis_registry(&n), *sanity = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(reg[i]->name, "sanity"))
			sanity = reg[i];
	CHECK(sanity != NULL);
	if (!sanity)
		return check_result("test_sanity");
	CHECK_INT(sanity->run(&ctx, &res), 0);
	CHECK_INT(res.nnotes, 1);
	if (res.nnotes == 1) {
		CHECK(strstr(res.notes[0], "parts.csv: warning: share is over 100 % in 2 rows (up to 137.0 %, run c)") != NULL);
		CHECK(strstr(res.notes[0], "overlap") != NULL);
	}
	analysis_result_release(&res);
	return check_result("test_sanity");
}
