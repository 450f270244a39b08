/*
 * test_report.c: the report module: CSV quoting and formula neutralization,
 * the template shim, and a whole site written from hostile names.
 *
 * Every expected CSV line below is written out by hand from RFC 4180 and
 * the rules in report.h. The site checks look for escaping (no live
 * "<script>alert" anywhere, "&lt;script&gt;" present), for the files the
 * report promises, and for byte-identical output across two writes.
 *
 * Usage: test_report [SITE]. With SITE, the example site is also left there
 * (figures included as placeholders) for tests/e2e/browser_check.sh.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/table.h"
#include "report/report.h"
#include "report/tmpl.h"
#include "analyze/models/models.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/time/step_stats.h"
#include "analyze/time/time_tables.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

#include "check.h"

/* Writes t to memory and returns the CSV (caller frees). */
static char *csv_of(const struct table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return xstrdup("(open_memstream failed)");
	int rc = csv_write_table(f, t);
	fclose(f);
	CHECK_INT(rc, 0);
	return text;
}

static const struct {
	const char *text; /* a text cell */
	const char *want; /* its CSV field */
} text_cases[] = {
	{ "plain", "plain" },
	{ "=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\"" },
	{ "=1+2", "'=1+2" },
	{ "+cmd", "'+cmd" },
	{ "-2", "'-2" },
	{ "@SUM(A1)", "'@SUM(A1)" },
	{ "\tx", "'\tx" },
	{ "\rx", "\"'\rx\"" },
	{ "a,b", "\"a,b\"" },
	{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
	{ "line1\nline2", "\"line1\nline2\"" },
	{ "cr\r\nlf", "\"cr\r\nlf\"" },
	{ "void k<float, 4>(\"x\")", "\"void k<float, 4>(\"\"x\"\")\"" },
	{ "a=b", "a=b" },
	{ "'quoted'", "'quoted'" },
	{ "", "" },
};

static void test_csv_text(void)
{
	for (size_t i = 0; i < sizeof(text_cases) / sizeof(text_cases[0]); i++) {
		struct table *t = table_new("t", "T", "name:text");
		table_set_text(t, table_add_row(t), 0, text_cases[i].text);
		char *want = xasprintf("name\n%s\n", text_cases[i].want);
		char *got = csv_of(t);
		CHECK_STR(got, want);
		free(got);
		free(want);
		table_free(t);
	}
}

static void test_csv_numbers(void)
{
	/* Negative numbers are numbers: never prefixed, never quoted. */
	struct table *t = table_new("n", "N", "name:text,calls:int,total_us:us,fraction:frac,ratio:real");
	size_t r = table_add_row(t);
	table_set_text(t, r, 0, "-neg");
	table_set_int(t, r, 1, -5);
	table_set_ns(t, r, 2, -1500);
	table_set_real(t, r, 3, -0.25);
	table_set_real(t, r, 4, -1e-7);
	r = table_add_row(t);
	table_set_text(t, r, 0, "k");
	table_set_int(t, r, 1, 3);
	table_set_ns(t, r, 2, 1234567);
	table_set_real(t, r, 3, 0.5);
	table_set_real(t, r, 4, 2.5);
	r = table_add_row(t); /* all null: empty fields */
	char *got = csv_of(t);
	CHECK_STR(got, "name,calls,total_us,fraction,ratio\n"
		       "'-neg,-5,-1.500,-0.250000,-1e-07\n"
		       "k,3,1234.567,0.500000,2.5\n"
		       ",,,,\n");
	free(got);
	table_free(t);
}

static void test_cell_readers(void)
{
	/*
	 * table_num and table_text, what the report and the findings read cells
	 * with: us cells in us (1500 ns is 1.5), a missing table, a column of -1,
	 * a null cell or the other type say NAN / NULL.
	 */
	struct table *t = table_new("c", "C", "name:text,calls:int,total_us:us,fraction:frac");
	size_t r = table_add_row(t);
	table_set_text(t, r, 0, "a");
	table_set_int(t, r, 1, -5);
	table_set_ns(t, r, 2, 1500);
	table_set_real(t, r, 3, 0.25);
	size_t empty = table_add_row(t);
	CHECK(table_num(t, r, 1) == -5);
	CHECK(table_num(t, r, 2) == 1.5);
	CHECK(table_num(t, r, 3) == 0.25);
	CHECK(isnan(table_num(t, r, 0)));
	CHECK(isnan(table_num(t, r, -1)));
	CHECK(isnan(table_num(t, empty, 2)));
	CHECK(isnan(table_num(NULL, 0, 0)));
	CHECK_STR(table_text(t, r, 0), "a");
	CHECK(table_text(t, r, 1) == NULL);
	CHECK(table_text(t, r, -1) == NULL);
	CHECK(table_text(t, empty, 0) == NULL);
	CHECK(table_text(NULL, 0, 0) == NULL);
	table_free(t);
}

static void test_csv_header(void)
{
	/* Header names follow the text rules too. */
	struct table *t = table_new("h", "H", "=x:text,a b:int");
	char *got = csv_of(t);
	CHECK_STR(got, "'=x,a b\n");
	free(got);
	table_free(t);
}

static int write_error_fill(FILE *f)
{
	/* A read-only stream: fwrite fails and sets the error flag. */
	struct table *t = table_new("t", "T", "a:int");
	table_set_int(t, table_add_row(t), 0, 1);
	int rc = csv_write_table(f, t);
	table_free(t);
	return rc;
}

static void test_csv_write_error(void)
{
	FILE *f = fopen("/dev/null", "r");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(write_error_fill(f), -1);
	fclose(f);
}

/* Silences stderr around a case whose error message is expected. */
static int stderr_off(void)
{
	fflush(stderr);
	int saved = dup(2);
	int null = open("/dev/null", O_WRONLY);
	if (null >= 0) {
		dup2(null, 2);
		close(null);
	}
	return saved;
}

static void stderr_on(int saved)
{
	fflush(stderr);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
}

static void test_tmpl(void)
{
	struct tmpl_dict *d = tmpl_dict_new();
	tmpl_set(d, "V", "<b>&\"'</b>");
	tmpl_set(d, "NULLV", NULL);
	tmpl_set_int(d, "N", -42);
	tmpl_set(tmpl_add_section(d, "S"), "X", "one");
	tmpl_set(tmpl_add_section(d, "S"), "X", "two");
	tmpl_show_section(d, "SHOWN");
	struct buf out;
	buf_init(&out);
	int rc = tmpl_expand("t.tpl",
			     "{{%AUTOESCAPE context=\"HTML\"}}\n"
			     "<p title=\"{{V}}\">{{V}}</p>[{{NULLV}}]{{N}}\n"
			     "{{#S}}\n<i>{{X}}</i>\n{{/S}}\n"
			     "{{#SHOWN}}yes{{/SHOWN}}{{#HIDDEN}}no{{/HIDDEN}}\n"
			     "<a href=\"{{V}}\">x</a>\n",
			     d, &out);
	CHECK_INT(rc, 0);
	CHECK_STR(out.data, "<p title=\"&lt;b&gt;&amp;&quot;&#39;&lt;/b&gt;\">"
			    "&lt;b&gt;&amp;&quot;&#39;&lt;/b&gt;</p>[]-42\n"
			    "<i>one</i>\n<i>two</i>\n"
			    "yes\n"
			    "<a href=\"&lt;b&gt;&amp;&quot;&#39;&lt;/b&gt;\">x</a>\n");

	/* A URL attribute refuses a javascript: URL outright. */
	struct tmpl_dict *j = tmpl_dict_new();
	tmpl_set(j, "U", "javascript:alert(1)");
	buf_reset(&out);
	rc = tmpl_expand("j.tpl", "{{%AUTOESCAPE context=\"HTML\"}}\n<a href=\"{{U}}\">x</a>", j, &out);
	CHECK_INT(rc, 0);
	CHECK_STR(out.data, "<a href=\"#\">x</a>");
	tmpl_dict_free(j);

	/* A broken template fails cleanly (ctemplate logs its own line too). */
	buf_reset(&out);
	size_t errors = diag_error_count();
	int saved = stderr_off();
	rc = tmpl_expand("bad.tpl", "{{#OPEN}} never closed", d, &out);
	stderr_on(saved);
	CHECK_INT(rc, -1);
	CHECK_INT(diag_error_count(), errors + 1);
	CHECK_INT(out.len, 0);
	diag_reset();
	buf_release(&out);
	tmpl_dict_free(d);
}

/* A minimal SVG standing in for the chart module's output. */
static const char placeholder_svg[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"240\" viewBox=\"0 0 640 240\">"
	"<rect width=\"640\" height=\"240\" fill=\"#fff\"/>"
	"<rect x=\"60\" y=\"40\" width=\"120\" height=\"160\" fill=\"#1f5fbf\"/>"
	"<rect x=\"240\" y=\"90\" width=\"120\" height=\"110\" fill=\"#e07b39\"/>"
	"<rect x=\"420\" y=\"140\" width=\"120\" height=\"60\" fill=\"#3a9e5c\"/>"
	"<line x1=\"40\" y1=\"200\" x2=\"600\" y2=\"200\" stroke=\"#333\"/>"
	"</svg>\n";

struct fixture {
	struct table *runs, *kernels, *groups, *steps, *wide;
	const struct table *tables[4];
	struct report_figure figures[2];
	struct report_input inputs[2];
	const char *warnings[2];
	struct report_experiment exp, plain;
};

static void fixture_init(struct fixture *fx)
{
	memset(fx, 0, sizeof(*fx));
	struct table *t;
	size_t r;

	t = fx->runs = table_new("runs", "Runs", "run:text,model:text,gpus:int,batch:int,steps:int,trace:text");
	const char *run_names[] = { "bs32-1gpu", "bs32-2gpu", "bs64-<b>4gpu</b>" };
	for (int i = 0; i < 3; i++) {
		r = table_add_row(t);
		table_set_text(t, r, 0, run_names[i]);
		table_set_text(t, r, 1, "resnet50");
		table_set_int(t, r, 2, 1 << i);
		table_set_int(t, r, 3, i == 2 ? 64 : 32);
		table_set_int(t, r, 4, 20);
		table_set_text(t, r, 5, "traces/run.json.gz");
	}

	t = fx->kernels = table_new("kernels", "Kernels by total time",
				    "name:text,calls:int,total_us:us,mean_us:us,min_us:us,max_us:us");
	const char *names[] = {
		"<script>alert(1)</script>",
		"a&b \"q\"",
		"=HYPERLINK(\"http://x\")",
		"void gemm<float, 128>(Params, int)",
		"ncclKernel_AllReduce_RING_LL_Sum_float",
	};
	for (int i = 0; i < 5; i++) {
		r = table_add_row(t);
		table_set_text(t, r, 0, names[i]);
		table_set_int(t, r, 1, 10 * (i + 1));
		table_set_ns(t, r, 2, 1234567 * (5 - i));
		table_set_ns(t, r, 3, 123457 * (5 - i));
		table_set_ns(t, r, 4, 1000 + i);
		table_set_ns(t, r, 5, 999999);
	}
	r = table_add_row(t); /* a row with null cells */
	table_set_text(t, r, 0, "memset (null stats)");

	t = fx->groups = table_new("groups", "Time per group", "run:text,rank:int,group:text,total_us:us,fraction:frac");
	const char *groups[] = { "gemm", "attention", "communication", "memcpy" };
	const double frac[] = { 0.5, 0.25, 0.125, 0.125 };
	for (int i = 0; i < 4; i++) {
		r = table_add_row(t);
		table_set_text(t, r, 0, "bs32-1gpu");
		table_set_int(t, r, 1, 0);
		table_set_text(t, r, 2, groups[i]);
		table_set_ns(t, r, 3, (int64_t)(8000000 * frac[i]));
		table_set_real(t, r, 4, frac[i]);
	}

	t = fx->steps = table_new("steps", "Step durations", "run:text,rank:int,step:int,duration_us:us");
	for (int i = 0; i < 3; i++) {
		r = table_add_row(t);
		table_set_text(t, r, 0, "bs32-1gpu");
		table_set_int(t, r, 1, 0);
		table_set_int(t, r, 2, i);
		table_set_ns(t, r, 3, 51234567 - 1000 * i);
	}

	/* Wide enough to need the scrolling wrapper. */
	t = fx->wide = table_new("wide", "A wide table",
				 "run:text,c01_us:us,c02_us:us,c03_us:us,c04_us:us,c05_us:us,c06_us:us,"
				 "c07_us:us,c08_us:us,c09_us:us,c10_us:us,c11_us:us,c12_us:us,c13_us:us,"
				 "c14_us:us,c15_us:us,c16_us:us,mem_bytes:int");
	for (int i = 0; i < 2; i++) {
		r = table_add_row(t);
		table_set_text(t, r, 0, i ? "bs32-2gpu" : "bs32-1gpu");
		for (size_t c = 1; c + 1 < t->ncols; c++)
			table_set_ns(t, r, c, 987654321 + (int64_t)c * 1000 + i);
		table_set_int(t, r, t->ncols - 1, 81920000000LL);
	}

	fx->tables[0] = fx->kernels;
	fx->tables[1] = fx->groups;
	fx->tables[2] = fx->steps;
	fx->tables[3] = fx->wide;
	fx->figures[0] = (struct report_figure){ "group_share",
		"Share of GPU time per group for <script>alert(1)</script> and a&b \"q\"." };
	fx->figures[1] = (struct report_figure){ "step_time", "Median step time per run, in µs." };
	fx->inputs[0] = (struct report_input){ "traces/<script>alert(1)</script>.json.gz", 123456789,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" };
	fx->inputs[1] = (struct report_input){ "traces/rank1.json", 42,
		"2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae" };
	fx->warnings[0] = "traces/rank1.json: warning: 3 events without 'dur' skipped";
	fx->warnings[1] = "kernel '<script>alert(1)</script>' matched no rule";

	struct report_experiment *e = &fx->exp;
	e->id = "h200-scaling";
	e->title = "Scaling a&b \"q\" <script>alert(1)</script>";
	e->description = "How step time changes from 1 to 4 GPUs. <script>alert(1)</script>";
	e->classification = "manifest rules";
	e->newest_trace_date = "2024-05-17";
	e->headline = "4 GPUs: 3.1x faster than 1 <script>alert(1)</script>";
	e->gpus_max = 4;
	e->models = "resnet50, a&b";
	e->runs = fx->runs;
	e->ntables = 4;
	e->tables = fx->tables;
	e->nfigures = 2;
	e->figures = fx->figures;
	e->methods_rules = "gemm: /gemm|<script>alert(1)</script>/\ncommunication: /^nccl/\nother: *";
	static const struct report_method methods[] = {
		{"steps.csv", "The duration of each ProfilerStep#N range."},
		{"x<y>.csv", "a <b>bold</b> claim & more"},
	};
	e->nmethods = 2;
	e->methods = methods;
	static const char *const notes[] = {"run <i>x</i>: no timeline"};
	e->nnotes = 1;
	e->notes = notes;
	e->ninputs = 2;
	e->inputs = fx->inputs;
	e->manifest_text = "title: \"a&b\"\nruns:\n  - name: <script>alert(1)</script>\n    trace: traces/x.json\n";
	e->nwarnings = 2;
	e->warnings = fx->warnings;

	/* A second experiment with every optional field missing. */
	struct report_experiment *p = &fx->plain;
	p->id = "plain";
	p->title = "Plain directory build";
	p->classification = "h200";
	p->gpus_max = 1;
	p->runs = fx->runs;
	p->methods_rules = "other: *";
}

static void fixture_release(struct fixture *fx)
{
	table_free(fx->runs);
	table_free(fx->kernels);
	table_free(fx->groups);
	table_free(fx->steps);
	table_free(fx->wide);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *const site_files[] = {
	"index.html",
	"assets/style.css",
	"assets/sort.js",
	"h200-scaling/index.html",
	"h200-scaling/data/runs.csv",
	"h200-scaling/data/kernels.csv",
	"h200-scaling/data/groups.csv",
	"h200-scaling/data/steps.csv",
	"h200-scaling/data/wide.csv",
	"plain/index.html",
	"plain/data/runs.csv",
};
#define NSITE (sizeof(site_files) / sizeof(site_files[0]))

static int write_site(const char *site, struct fixture *fx)
{
	/* The caller (build) draws figures; stand in for it. */
	const char *ids[] = { "h200-scaling", "plain" };
	for (int i = 0; i < 2; i++) {
		char *dir = xasprintf("%s/%s", site, ids[i]);
		char *figs = xasprintf("%s/figures", dir);
		mkdir(site, 0777);
		mkdir(dir, 0777);
		mkdir(figs, 0777);
		for (size_t k = 0; i == 0 && k < 2; k++) {
			char *path = xasprintf("%s/%s.svg", figs, fx->figures[k].name);
			FILE *f = fopen(path, "w");
			if (f) {
				fputs(placeholder_svg, f);
				fclose(f);
			}
			free(path);
		}
		free(figs);
		free(dir);
	}
	const struct report_experiment *list[] = { &fx->exp, &fx->plain };
	int rc = report_write_experiment(site, &fx->exp);
	rc |= report_write_experiment(site, &fx->plain);
	rc |= report_write_index(site, list, 2);
	return rc;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void check_page(const char *site, const char *rel)
{
	char *path = xasprintf("%s/%s", site, rel);
	char *html = check_slurp(path, NULL);
	CHECK(html != NULL);
	if (html) {
		CHECK(strstr(html, "<script>alert") == NULL);
		CHECK(strstr(html, "<b>4gpu") == NULL);
		/* The only script element is the local sort.js. */
		CHECK_INT(count(html, "<script"), strstr(rel, "/") ? 1 : 0);
		/* Relative links only: nothing fetched from elsewhere. */
		CHECK(strstr(html, "=\"http") == NULL);
		CHECK(strstr(html, "=\"//") == NULL);
	}
	free(html);
	free(path);
}

static void test_site(void)
{
	struct fixture fx;
	fixture_init(&fx);
	char tmpl_a[] = "/tmp/test_report_a_XXXXXX";
	char tmpl_b[] = "/tmp/test_report_b_XXXXXX";
	char *a = mkdtemp(tmpl_a);
	char *b = mkdtemp(tmpl_b);
	CHECK(a && b);
	if (!a || !b)
		goto out;
	char *site_a = xasprintf("%s/site", a);
	char *site_b = xasprintf("%s/site", b);
	CHECK_INT(write_site(site_a, &fx), 0);

	char *first[NSITE];
	size_t first_len[NSITE];
	for (size_t i = 0; i < NSITE; i++) {
		char *path = xasprintf("%s/%s", site_a, site_files[i]);
		first[i] = check_slurp(path, &first_len[i]);
		if (!first[i])
			fprintf(stderr, "missing: %s\n", path);
		CHECK(first[i] != NULL);
		free(path);
	}

	check_page(site_a, "index.html");
	check_page(site_a, "h200-scaling/index.html");
	check_page(site_a, "plain/index.html");

	const char *index = first[0] ? first[0] : "";
	const char *page = first[3] ? first[3] : "";
	const char *plain = first[9] ? first[9] : "";
	CHECK(strstr(index, "&lt;script&gt;") != NULL);
	CHECK(strstr(index, "<a href=\"h200-scaling/index.html\">") != NULL);
	CHECK(strstr(index, "<a href=\"plain/index.html\">") != NULL);
	CHECK(strstr(index, "href=\"assets/style.css\"") != NULL);
	CHECK(strstr(index, "2024-05-17") != NULL);
	CHECK(strstr(index, "Scaling a&amp;b &quot;q&quot;") != NULL);
	CHECK(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
	CHECK(strstr(page, "<td class=\"text\">a&amp;b &quot;q&quot;</td>") != NULL);
	CHECK(strstr(page, "href=\"../index.html\"") != NULL);
	CHECK(strstr(page, "href=\"../assets/style.css\"") != NULL);
	CHECK(strstr(page, "<img src=\"figures/step_time.svg\" alt=\"Median step time per run, in µs.\"") != NULL);
	CHECK(strstr(page, "<figcaption>") != NULL);
	CHECK(strstr(page, "href=\"figures/group_share.pdf\"") != NULL);
	CHECK(strstr(page, "href=\"figures/group_share.png\"") != NULL);
	CHECK(strstr(page, "href=\"data/kernels.csv\"") != NULL);
	CHECK(strstr(page, "href=\"data/runs.csv\"") != NULL);
	CHECK(strstr(page, "<div class=\"table-wrap\">") != NULL);
	CHECK(strstr(page, "<span class=\"unit\">(µs)</span>") != NULL);
	CHECK(strstr(page, "<th scope=\"col\" class=\"num us\" title=\"CSV column total_us\">total") != NULL);
	CHECK(strstr(page, "<td class=\"num\">1234.567</td>") != NULL);
	CHECK(strstr(page, "<td class=\"num\">6172.835</td>") != NULL);
	CHECK(strstr(page, "<td class=\"num\">0.125000</td>") != NULL);
	CHECK(strstr(page, "<td class=\"num\"></td>") != NULL);
	CHECK(strstr(page, "id=\"methods\"") != NULL);
	CHECK(strstr(page, "id=\"provenance\"") != NULL);
	CHECK(strstr(page, "ProfilerStep#N") != NULL);
	CHECK(strstr(page, "<dt><code>x&lt;y&gt;.csv</code></dt>") != NULL);
	CHECK(strstr(page, "a &lt;b&gt;bold&lt;/b&gt; claim &amp; more") != NULL);
	CHECK(strstr(page, "<li>run &lt;i&gt;x&lt;/i&gt;: no timeline</li>") != NULL);
	/* <pre> keeps the rules' and the manifest's line breaks. */
	CHECK(strstr(page, "gemm: /gemm|&lt;script&gt;alert(1)&lt;/script&gt;/\ncommunication: /^nccl/\n") != NULL);
	CHECK(strstr(page, "runs:\n  - name: &lt;script&gt;") != NULL);
	CHECK(strstr(page, "<td class=\"num\">123456789</td>") != NULL);
	CHECK(strstr(page, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") != NULL);
#ifdef PERFSTUDY_VERSION
	CHECK(strstr(page, "Built by perfstudy " PERFSTUDY_VERSION " ") != NULL);
#else
	CHECK(strstr(page, "Built by perfstudy ") != NULL);
#endif
	CHECK(strstr(page, "3 events without &#39;dur&#39; skipped") != NULL);
	CHECK(strstr(plain, "without a manifest") != NULL);
	CHECK(strstr(plain, "<p>None.</p>") != NULL);
	CHECK(strstr(plain, "id=\"figures\"") == NULL);

	const char *kcsv = first[5] ? first[5] : "";
	CHECK_STR(kcsv, "name,calls,total_us,mean_us,min_us,max_us\n"
			"<script>alert(1)</script>,10,6172.835,617.285,1.000,999.999\n"
			"\"a&b \"\"q\"\"\",20,4938.268,493.828,1.001,999.999\n"
			"\"'=HYPERLINK(\"\"http://x\"\")\",30,3703.701,370.371,1.002,999.999\n"
			"\"void gemm<float, 128>(Params, int)\",40,2469.134,246.914,1.003,999.999\n"
			"ncclKernel_AllReduce_RING_LL_Sum_float,50,1234.567,123.457,1.004,999.999\n"
			"memset (null stats),,,,,\n");

	/* Writing again over the same site, and into a fresh one, gives the same bytes. */
	CHECK_INT(write_site(site_a, &fx), 0);
	CHECK_INT(write_site(site_b, &fx), 0);
	for (size_t i = 0; i < NSITE; i++) {
		for (int k = 0; k < 2; k++) {
			char *path = xasprintf("%s/%s", k ? site_b : site_a, site_files[i]);
			size_t len = 0;
			char *again = check_slurp(path, &len);
			int same = again && first[i] && len == first_len[i] && !memcmp(again, first[i], len);
			if (!same)
				fprintf(stderr, "differs: %s\n", path);
			CHECK(same);
			free(again);
			free(path);
		}
		free(first[i]);
	}
	/* No temporary files are left behind. */
	char *tmpdir = xasprintf("%s/h200-scaling", site_a);
	DIR *td = opendir(tmpdir);
	CHECK(td != NULL);
	for (struct dirent *e; td && (e = readdir(td));)
		CHECK(!strstr(e->d_name, ".tmp"));
	if (td)
		closedir(td);
	free(tmpdir);

	free(site_a);
	free(site_b);
out:
	if (a)
		remove_tree(a);
	if (b)
		remove_tree(b);
	fixture_release(&fx);
}

/*
 * The top of the page (report_top.c): "What to fix first" from findings.csv's
 * savings (a straggler's waiting and cause findings one line, linking to the
 * cause; 8 lines, then "and N more"), each run's key numbers with their
 * sample counts, the timeline figure only where one exists, the findings
 * folded with the anchors the lines link to, and every input string
 * escaped. Then an experiment whose findings state no saving.
 */
static void test_top(void)
{
	struct table *runs = table_new("runs", "Runs", "run:text");
	struct table *f = table_new("findings", "Findings",
				    "run:text,rank:int,finding:text,value:real,evidence:text,rule:text,saving_us_per_step:us");
	/* the tables as their makers make them: the report reads them by their contracts */
	struct table *sc = table_new("straggler_causes", "Causes", TABLE_SCHEMA(STRAGGLER_CAUSES_COLUMNS));
	struct table *ss = table_new("step_stats", "Steps", TABLE_SCHEMA(STEP_STATS_COLUMNS));
	struct table *po = table_new("profiler_overhead", "Overhead", TABLE_SCHEMA(PROFILER_OVERHEAD_COLUMNS));
	struct table *sp = table_new("scaling", "Scaling", TABLE_SCHEMA(SCALING_COLUMNS));
	char name[64];
	size_t r;
	/* r0 .. r9, r0 named like markup; each rank 1 a straggler saving 10 - i ms */
	for (int i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), i ? "r%d" : "r<i>0</i>", i);
		table_set_text(runs, table_add_row(runs), 0, name);
		const char *ev[] = {"table-collective_waits", "table-straggler_causes"};
		for (int k = 0; k < 2; k++) {
			r = table_add_row(f);
			table_set_text(f, r, 0, name);
			table_set_int(f, r, 1, 1);
			char *text = xasprintf("%s rank 1: fixing it would shorten the step by about %d.0 ms per step (50 %% "
					       "of <b>it</b>); why: more", name, 10 - i);
			table_set_text(f, r, 2, text);
			free(text);
			table_set_real(f, r, 3, 0.5);
			table_set_text(f, r, 4, ev[k]);
			table_set_text(f, r, 5, k ? "cause: the <first> row" : "waiting: per rank");
			table_set_ns(f, r, 6, (int64_t)(10 - i) * 1000000);
		}
		r = table_add_row(sc);
		table_set_text(sc, r, SC_RUN, name);
		table_set_int(sc, r, SC_RANK, 1);
		table_set_text(sc, r, SC_WHERE, "host");
		table_set_text(sc, r, SC_REGION, "forward");
		table_set_ns(sc, r, SC_EXCESS_US_PER_STEP, 5000000);
		table_set_text(sc, r, SC_MECHANISM, i ? "copy" : "host_sync");
		r = table_add_row(sc);
		table_set_text(sc, r, SC_RUN, name);
		table_set_int(sc, r, SC_RANK, 1);
		table_set_text(sc, r, SC_WHERE, "host");
		table_set_text(sc, r, SC_REGION, "forward");
		table_set_text(sc, r, SC_NAME, "<script>alert(7)</script>");
		table_set_ns(sc, r, SC_EXCESS_US_PER_STEP, 4000000);
		table_set_text(sc, r, SC_MECHANISM, "host_sync");
		r = table_add_row(ss);
		table_set_text(ss, r, SS_RUN, name);
		table_set_int(ss, r, SS_RANKS, 2);
		table_set_int(ss, r, SS_STEPS, i ? 3 : 7);
		table_set_ns(ss, r, SS_MEDIAN_US, 45678901);
		r = table_add_row(po);
		table_set_text(po, r, PO_RUN, name);
		table_set_int(po, r, PO_UNPROFILED, 23);
		table_set_ns(po, r, PO_UNPROFILED_MEDIAN_US, 33700000);
		r = table_add_row(sp);
		table_set_text(sp, r, SCL_RUN, name);
		table_set_int(sp, r, SCL_GPUS, i ? 4 : 1);
		table_set_text(sp, r, SCL_BASELINE, "r<i>0</i>");
		table_set_real(sp, r, SCL_SPEEDUP, i ? 3.1 : 1);
		table_set_real(sp, r, SCL_EFFICIENCY, i ? 0.78 : 1);
		if (i > 1) {
			table_set_real(sp, r, SCL_LOG_SPEEDUP, 3.5);
			table_set_real(sp, r, SCL_LOG_EFFICIENCY, 0.88);
		}
	}
	/* a finding without a saving */
	r = table_add_row(f);
	table_set_text(f, r, 0, "r1");
	table_set_text(f, r, 2, "r1 is host-bound: its GPU idles (long); more");
	table_set_text(f, r, 4, "table-gpu_idle");
	table_set_text(f, r, 5, "host-bound: x");
	const struct table *tables[] = {f, sc, ss, po, sp};
	static const struct report_figure figs[] = {{"step_timeline_r2", "One step <b>of</b> r2."}, {"other", "x"}};
	struct report_experiment e = {.id = "top", .title = "Top", .classification = "h200", .runs = runs,
				      .ntables = 5, .tables = tables, .nfigures = 2, .figures = figs, .methods_rules = ""};
	char tmpl_d[] = "/tmp/test_report_t_XXXXXX";
	char *d = mkdtemp(tmpl_d);
	CHECK(d != NULL);
	if (!d)
		goto out;
	CHECK_INT(report_write_experiment(d, &e), 0);
	char *path = xasprintf("%s/top/index.html", d);
	char *page = check_slurp(path, NULL);
	CHECK(page != NULL);
	if (page) {
		CHECK(strstr(page, "<script>alert") == NULL);
		CHECK(strstr(page, "<i>0") == NULL);
		CHECK(strstr(page, "<b>it") == NULL);
		/* the first line: markup escaped, the synchronising call named, linking to the cause finding (row 2) */
		CHECK(strstr(page, "<li><a href=\"#finding-2\"><span class=\"run\">r&lt;i&gt;0&lt;/i&gt;</span> &middot; rank 1 "
				   "&middot; host synchronisation (&lt;script&gt;alert(7)&lt;/script&gt;) &middot; "
				   "<strong>saves 10.0 ms/step</strong></a></li>") != NULL);
		CHECK(strstr(page, "<li><a href=\"#finding-16\"><span class=\"run\">r7</span> &middot; rank 1 &middot; "
				   "copies &middot; <strong>saves 3.0 ms/step</strong></a></li>") != NULL);
		CHECK(strstr(page, "#finding-18\"><span") == NULL); /* the 9th cause: counted, not listed */
		CHECK(strstr(page, "<p class=\"more\"><a href=\"#findings\">and 2 more</a></p>") != NULL);
		CHECK_INT(count(page, "<details class=\"finding\">"), 21);
		CHECK(strstr(page, "<details class=\"finding\" open") == NULL);
		CHECK(strstr(page, "<p id=\"finding-21\">r1 is host-bound") != NULL);
		/* summaries: the first clause; the line's cause added to the finding it links to */
		CHECK(strstr(page, "<summary>r1 rank 1: fixing it would shorten the step by about 9.0 ms per step; why: "
				   "copies</summary>") != NULL);
		CHECK(strstr(page, "<summary>r1 rank 1: fixing it would shorten the step by about 9.0 ms per step</summary>") !=
		      NULL);
		CHECK(strstr(page, "<summary>r1 is host-bound: its GPU idles</summary>") != NULL);
		/* key numbers: counts, "only" under 5, the source of the speedup, the baseline */
		CHECK(strstr(page, "<td class=\"num\">33.7 ms <span class=\"n\">23 iterations</span></td><td class=\"num\">"
				   "45.7 ms <span class=\"n\">7 steps</span></td><td class=\"num speedup\"><span class=\"n\">baseline"
				   "</span></td>") != NULL);
		CHECK(strstr(page, "45.7 ms <span class=\"n few\">only 3 steps</span></td><td class=\"num speedup\">3.10x <span "
				   "class=\"n\">vs r&lt;i&gt;0&lt;/i&gt;, 78 % of 4x; profiled steps</span>") != NULL);
		CHECK(strstr(page, "3.50x <span class=\"n\">vs r&lt;i&gt;0&lt;/i&gt;, 88 % of 4x; training logs</span>") != NULL);
		CHECK(strstr(page, "<a href=\"#finding-4\">rank 1: copies, saves 9.0 ms/step</a>") != NULL);
		/* the timeline figure: r2's, in the key numbers, and no other */
		CHECK_INT(count(page, "<figure class=\"timeline\""), 1);
		CHECK(strstr(page, "<figure class=\"timeline\" id=\"key-step_timeline_r2\">") != NULL);
		CHECK(strstr(page, "One step &lt;b&gt;of&lt;/b&gt; r2.") != NULL);
	}
	free(page);
	/* no saving: one line says so; no key numbers without a step or log */
	struct table *g = table_new("findings", "Findings", "run:text,rank:int,finding:text,value:real,evidence:text,rule:text,"
								 "saving_us_per_step:us");
	r = table_add_row(g);
	table_set_text(g, r, 0, "r1");
	table_set_text(g, r, 2, "r1 trains at 2x");
	table_set_text(g, r, 4, "table-scaling");
	table_set_text(g, r, 5, "scaling: x");
	const struct table *only[] = {g};
	struct report_experiment q = {.id = "quiet", .title = "Quiet", .classification = "h200", .runs = runs,
				      .ntables = 1, .tables = only, .methods_rules = ""};
	CHECK_INT(report_write_experiment(d, &q), 0);
	char *qpath = xasprintf("%s/quiet/index.html", d);
	char *qpage = check_slurp(qpath, NULL);
	CHECK(qpage != NULL);
	if (qpage) {
		CHECK(strstr(qpage, "<p class=\"fix-none\">No cause worth fixing found: ") != NULL);
		CHECK(strstr(qpage, "<ol class=\"fix-list\">") == NULL);
		CHECK(strstr(qpage, "id=\"key\"") == NULL);
		CHECK(strstr(qpage, "<summary>r1 trains at 2x</summary>") != NULL);
	}
	free(qpage);
	free(qpath);
	table_free(g);
	free(path);
	remove_tree(d);
out:
	table_free(runs);
	table_free(f);
	table_free(sc);
	table_free(ss);
	table_free(po);
	table_free(sp);
}

static void test_errors(void)
{
	/* A site under a regular file cannot be made: -1, a system error, no crash. */
	char tmpl_d[] = "/tmp/test_report_e_XXXXXX";
	char *d = mkdtemp(tmpl_d);
	CHECK(d != NULL);
	if (!d)
		return;
	char *file = xasprintf("%s/file", d);
	FILE *f = fopen(file, "w");
	if (f)
		fclose(f);
	char *site = xasprintf("%s/site", file);

	struct table *runs = table_new("runs", "Runs", "run:text");
	struct report_experiment e = { .id = "x", .title = "X", .classification = "h200",
				       .runs = runs, .methods_rules = "" };
	const struct report_experiment *list[] = { &e };
	int saved = stderr_off();
	int rc1 = report_write_experiment(site, &e);
	int rc2 = report_write_index(site, list, 1);
	struct report_experiment bad = e;
	bad.id = "../escape";
	int rc3 = report_write_experiment(d, &bad);
	stderr_on(saved);
	CHECK_INT(rc1, -1);
	CHECK_INT(rc2, -1);
	CHECK_INT(rc3, -1);
	CHECK_INT(diag_error_count(), 3);
	CHECK_INT(diag_exit_code(), EXIT_SYSTEM);
	CHECK(access(site, F_OK) != 0);
	diag_reset();
	table_free(runs);
	free(site);
	free(file);
	remove_tree(d);
}

int main(int argc, char **argv)
{
	diag_set_quiet(1);
	test_csv_text();
	test_csv_numbers();
	test_cell_readers();
	test_csv_header();
	test_csv_write_error();
	test_tmpl();
	test_site();
	test_top();
	test_errors();
	if (argc > 1) {
		/* Leave the example site for a look in a browser. */
		struct fixture fx;
		fixture_init(&fx);
		if (write_site(argv[1], &fx))
			check_failures++;
		fixture_release(&fx);
	}
	return check_result("test_report");
}
