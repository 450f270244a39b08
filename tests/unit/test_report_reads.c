/*
 * test_report_reads.c: what the report takes from the analyses' tables.
 * An internal table (util/table.h: handed to the merged trace only) is
 * neither written as data/<name>.csv nor shown on the page; the mechanism
 * codes of straggler_causes.csv are read by their maker's enum
 * (straggler_causes.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/ranks/straggler_causes.h"
#include "check.h"
#include "report/report.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/table.h"
#include "util/xalloc.h"

/*
 * straggler_causes.csv's mechanism codes are read by their enum (the top
 * of the page, the findings): each code maps to its own enum and has
 * words; other text maps to none.
 */
static void test_mechanisms(void)
{
	static const char *const codes[] = {"pageable_copy", "copy", "host_sync", "host_outside_ops", "uneven_data",
					    "slower_gpu", "extra_work", "more_calls", "different_kernel",
					    "slower_kernels", "slower_host"};
	CHECK_INT((int)(sizeof(codes) / sizeof(codes[0])), NSMECH);
	for (int i = 0; i < NSMECH && i < (int)(sizeof(codes) / sizeof(codes[0])); i++) {
		CHECK_INT((int)straggler_mechanism(codes[i]), i);
		CHECK(straggler_mechanism_words(codes[i]) != NULL);
	}
	CHECK_INT((int)straggler_mechanism("pageable"), NSMECH);
	CHECK_INT((int)straggler_mechanism(NULL), NSMECH);
	CHECK(straggler_mechanism_words("pageable") == NULL);
}

/* An internal table (table.h) is handed to the report but neither written as CSV nor shown. */
static void test_internal(void)
{
	struct table *runs = table_new("runs", "Runs", "run:text");
	struct table *shown = table_new("shown_parts", "Shown parts", "run:text,total_us:us");
	struct table *hidden = table_new("hidden_parts", "Hidden parts", "run:text,total_us:us");
	hidden->internal = 1;
	struct table *ts[] = {shown, hidden};
	for (int i = 0; i < 2; i++) {
		size_t r = table_add_row(ts[i]);
		table_set_text(ts[i], r, 0, "r1");
		table_set_ns(ts[i], r, 1, 1500);
	}
	const struct table *tables[] = {hidden, shown};
	struct report_experiment e = {.id = "inner", .title = "Inner", .classification = "h200", .runs = runs,
				      .ntables = 2, .tables = tables, .methods_rules = ""};
	char tmpl_d[] = "/tmp/test_report_i_XXXXXX";
	char *d = mkdtemp(tmpl_d);
	CHECK(d != NULL);
	if (d) {
		CHECK_INT(report_write_experiment(d, &e), 0);
		char *csv = xasprintf("%s/inner/data/shown_parts.csv", d), *hcsv = xasprintf("%s/inner/data/hidden_parts.csv", d);
		char *path = xasprintf("%s/inner/index.html", d);
		CHECK(access(csv, F_OK) == 0);
		CHECK(access(hcsv, F_OK) != 0);
		char *page = check_slurp(path, NULL);
		CHECK(page != NULL);
		if (page) {
			CHECK(strstr(page, "shown_parts") != NULL);
			CHECK(strstr(page, "hidden_parts") == NULL);
			CHECK(strstr(page, "Hidden parts") == NULL);
		}
		free(page);
		free(path);
		free(hcsv);
		free(csv);
		fs_remove_tree(d);
	}
	table_free(runs);
	table_free(shown);
	table_free(hidden);
}

int main(void)
{
	test_internal();
	test_mechanisms();
	return check_result("test_report_reads");
}
