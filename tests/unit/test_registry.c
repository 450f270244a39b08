/*
 * test_registry.c: the analysis registry (src/analyze/analysis.c) keeps
 * its declarations. Each entry's needs[] are made by an entry before it;
 * no two entries make one table; each entry's file is
 * src/analyze/<family>/<name>.c; every table an analysis's files look up
 * by name (result_table) or create (table_new) is declared in its entry;
 * the tables the report and the merged trace read are made by an entry;
 * result_table refuses, fatally, a table the running analysis did not
 * declare. Run from the repository root (make check does).
 */
#include <ctype.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analyze/analysis.h"
#include "chart/chart.h"
#include "report/report.h"
#include "report/trace_export.h"
#include "check.h"
#include "util/table.h"

static int listed(const char *const *list, const char *name)
{
	for (size_t i = 0; list[i]; i++)
		if (!strcmp(list[i], name) || !strcmp(list[i], ANALYSIS_ANY_TABLE))
			return 1;
	return 0;
}

/* The entry that makes table name, or -1. */
static long maker(const struct analysis_def *const *r, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; r[i]->makes[k]; k++)
			if (!strcmp(r[i]->makes[k], name))
				return (long)i;
	return -1;
}

static void test_order(const struct analysis_def *const *r, size_t n)
{
	CHECK(n >= 39);
	for (size_t i = 0; i < n; i++) {
		CHECK(r[i]->name && r[i]->run && r[i]->needs && r[i]->makes);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r[i]->name, r[j]->name))
				{
				fprintf(stderr, "registry: %s twice\n", r[i]->name);
				CHECK(0);
			}
		for (size_t k = 0; r[i]->makes[k]; k++) {
			long m = maker(r, n, r[i]->makes[k]);
			if (m != (long)i) {
				fprintf(stderr, "registry: table %s made by %s and %s\n", r[i]->makes[k], r[m]->name, r[i]->name);
				CHECK(0);
			}
		}
		for (size_t k = 0; r[i]->needs[k]; k++) {
			if (!strcmp(r[i]->needs[k], ANALYSIS_ANY_TABLE))
				continue;
			long m = maker(r, n, r[i]->needs[k]);
			/* An experiment's analyses run in order; those across experiments after all of them. */
			int before = m >= 0 && ((size_t)m < i || (r[i]->when == ANALYSIS_ACROSS && r[m]->when == ANALYSIS_EXPERIMENT)) &&
				     !(r[i]->when == ANALYSIS_EXPERIMENT && r[m]->when == ANALYSIS_ACROSS);
			if (!before) {
				fprintf(stderr, "registry: %s needs %s, which %s\n", r[i]->name, r[i]->needs[k],
					m < 0 ? "no entry makes" : "a later entry makes");
				CHECK(0);
			}
		}
	}
}

/* The entry a source file belongs to: its basename is the entry's name, or starts with it and '_'. */
static const struct analysis_def *entry_of(const struct analysis_def *const *r, size_t n, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base) - 2; /* without ".c" */
	const struct analysis_def *best = NULL;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(r[i]->name);
		if (l <= len && !strncmp(base, r[i]->name, l) && (l == len || base[l] == '_') &&
		    (!best || l > strlen(best->name)))
			best = r[i];
	}
	return best;
}

/*
 * Every string literal that is the argument after the first comma of a call
 * `call(` (result_table) or its first argument (table_new) in text; calls
 * with a computed name are passed over. Checks each against list.
 */
static size_t check_literals(const char *path, const char *text, const char *call, int first_arg,
			     const struct analysis_def *e, const char *const *list, const char *what)
{
	size_t found = 0;
	for (const char *p = strstr(text, call); p; p = strstr(p + 1, call)) {
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		const char *q = p + strlen(call);
		if (!first_arg) {
			int depth = 0;
			while (*q && !(depth == 0 && *q == ',') && !(depth == 0 && *q == ')')) {
				depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
				q++;
			}
			if (*q != ',')
				continue;
			q++;
		}
		while (*q == ' ' || *q == '\t' || *q == '\n')
			q++;
		if (*q != '"')
			continue;
		const char *end = strchr(q + 1, '"');
		char name[128];
		snprintf(name, sizeof(name), "%.*s", (int)(end - q - 1), q + 1);
		found++;
		if (!listed(list, name) && !(e && listed(e->makes, name))) {
			fprintf(stderr, "%s: %s \"%s\", not in entry %s's %s\n", path, call, name, e ? e->name : "(none)",
				what);
			CHECK(0);
		}
	}
	return found;
}

static void test_sources(const struct analysis_def *const *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char pattern[256];
		snprintf(pattern, sizeof(pattern), "src/analyze/*/%s.c", r[i]->name);
		glob_t g;
		int rc = glob(pattern, 0, NULL, &g);
		if (rc != 0 || g.gl_pathc != 1) {
			fprintf(stderr, "registry: entry %s has no file %s\n", r[i]->name, pattern);
			CHECK(0);
		}
		if (rc == 0)
			globfree(&g);
	}
	glob_t g;
	CHECK(glob("src/analyze/*/*.c", 0, NULL, &g) == 0);
	size_t lookups = 0, tables = 0;
	for (size_t f = 0; f < g.gl_pathc; f++) {
		const char *path = g.gl_pathv[f];
		char *text = check_slurp(path, NULL);
		CHECK(text != NULL);
		if (!text)
			continue;
		const struct analysis_def *e = entry_of(r, n, path);
		static const char *const none[] = {NULL};
		lookups += check_literals(path, text, "result_table(", 0, e, e ? e->needs : none, "needs[]");
		tables += check_literals(path, text, "table_new(", 1, NULL, e ? e->makes : none, "makes[]");
		free(text);
	}
	globfree(&g);
	/* The scan finds the look-ups and tables it is meant to (not a scan that matches nothing). */
	CHECK(lookups >= 25);
	CHECK(tables >= 60);
}

/* result_table inside a running analysis: declared names pass, others abort. */
static void test_refusal(const struct analysis_def *const *r, size_t n)
{
	const struct analysis_def *scaling = NULL;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i]->name, "scaling"))
			scaling = r[i];
	CHECK(scaling != NULL);
	if (!scaling)
		return;
	struct analysis_result res;
	memset(&res, 0, sizeof(res));
	result_add_table(&res, table_new("dispatch", "t", "run"));
	result_add_table(&res, table_new("findings", "t", "run"));
	res.current = scaling;
	CHECK(result_table(&res, "dispatch") != NULL); /* in scaling's needs */
	CHECK(result_table(&res, "scaling") == NULL);  /* its own, not made yet */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		/* "findings" is made, but scaling does not declare it. */
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		result_table(&res, "findings");
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		result_add_table(&res, table_new("not_declared", "t", "run"));
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	res.current = NULL;
	CHECK(result_table(&res, "findings") != NULL); /* outside an analysis: any table */
	analysis_result_release(&res);
}

/* The figure a running analysis adds must be in its descriptor's figures, by name or prefix. */
static int adds_figure(const struct analysis_def *a, const char *name)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		struct analysis_result res;
		memset(&res, 0, sizeof(res));
		res.current = a;
		result_add_figure(&res, chart_new(CHART_XY, name, "t", "y"), "c");
		_exit(res.nfigures == 1 ? 0 : 1);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void test_figures(const struct analysis_def *const *r, size_t n)
{
	const struct analysis_def *scaling = NULL, *timeline = NULL, *ranks = NULL;
	for (size_t i = 0; i < n; i++) {
		scaling = !strcmp(r[i]->name, "scaling") ? r[i] : scaling;
		timeline = !strcmp(r[i]->name, "step_timeline") ? r[i] : timeline;
		ranks = !strcmp(r[i]->name, "ranks") ? r[i] : ranks;
	}
	CHECK(scaling && timeline && ranks);
	if (!scaling || !timeline || !ranks)
		return;
	CHECK(adds_figure(scaling, "speedup_model"));
	CHECK(!adds_figure(scaling, "speedup_model_x")); /* a name, not a prefix */
	CHECK(!adds_figure(scaling, "step_timeline_a"));
	CHECK(adds_figure(timeline, "step_timeline_bert-1gpu"));
	CHECK(!adds_figure(timeline, "step_timelines"));
	CHECK(!adds_figure(ranks, "ranks"));              /* no figures declared */
}

/*
 * The page's order of tables is the report's (report_page_tables): every
 * name there is made by an analysis, once. A table not listed goes after
 * the listed ones, in the order it was added (a new analysis's, until the
 * report places it).
 */
static void test_page_order(const struct analysis_def *const *r, size_t n)
{
	size_t np;
	const char *const *page = report_page_tables(&np);
	CHECK(np >= 40);
	for (size_t j = 0; j < np; j++) {
		if (maker(r, n, page[j]) < 0) {
			fprintf(stderr, "registry: report.c's page_tables lists %s, which no analysis makes\n", page[j]);
			CHECK(0);
		}
		for (size_t k = 0; k < j; k++)
			CHECK(strcmp(page[j], page[k]) != 0);
	}
}

/* Each table the report reads (report_read_tables) is made by an analysis; report_table refuses others. */
static void test_report_reads(const struct analysis_def *const *r, size_t n)
{
	size_t nr;
	const char *const *reads = report_read_tables(&nr);
	CHECK(nr >= 10);
	for (size_t j = 0; j < nr; j++)
		if (maker(r, n, reads[j]) < 0) {
			fprintf(stderr, "registry: the report reads %s, which no analysis makes\n", reads[j]);
			CHECK(0);
		}
	struct table *t = table_new("scaling", "t", "run:text");
	const struct table *const tables[] = {t};
	CHECK(report_table(tables, 1, "scaling") == t);
	CHECK(report_table(tables, 1, "step_stats") == NULL); /* declared, absent */
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		report_table(tables, 1, "groups"); /* not declared */
		_exit(0);
	}
	int status = 0;
	waitpid(pid, &status, 0);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	table_free(t);
}

/*
 * The merged trace draws what the analyses made: each table it reads
 * (trace_export_read_tables) is declared among the report's reads and made
 * by an analysis; among them crossrank's exposed-wait pieces and straggler
 * windows, internal
 * tables (util/table.h) that the page does not place.
 */
static void test_trace_reads(const struct analysis_def *const *r, size_t n)
{
	size_t nt, nr, np;
	const char *const *tx = trace_export_read_tables(&nt), *const *reads = report_read_tables(&nr);
	const char *const *page = report_page_tables(&np);
	CHECK(nt >= 8);
	for (size_t j = 0; j < nt; j++) {
		size_t k = 0;
		while (k < nr && strcmp(reads[k], tx[j]))
			k++;
		if (k == nr || maker(r, n, tx[j]) < 0) {
			fprintf(stderr, "registry: the trace export reads %s, which %s\n", tx[j],
				k == nr ? "report.c's report_reads does not list" : "no analysis makes");
			CHECK(0);
		}
	}
	static const char *const internal[] = {"exposed_waits", "straggler_windows"};
	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++) {
		long m = maker(r, n, internal[i]);
		CHECK(m >= 0 && !strcmp(r[m]->name, "crossrank"));
		size_t j = 0;
		while (j < nt && strcmp(tx[j], internal[i]))
			j++;
		CHECK(j < nt);
		for (size_t k = 0; k < np; k++)
			CHECK(strcmp(page[k], internal[i]) != 0);
	}
}

int main(void)
{
	size_t n;
	const struct analysis_def *const *r = analysis_registry(&n);
	test_order(r, n);
	test_sources(r, n);
	test_refusal(r, n);
	test_figures(r, n);
	test_page_order(r, n);
	test_report_reads(r, n);
	test_trace_reads(r, n);
	return check_result("test_registry");
}
