/*
 * test_chart.c: the chart model, the middle-shortening of labels, and the
 * files chart_write() leaves behind (formats, sizes, escaping, determinism,
 * failures that keep the previous figure).
 */
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <string.h>

#include "analyze/analysis.h"
#include "chart/chart.h"
#include "chart/chart_draw.h"
#include "chart/png.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "check.h"

static char *slurp_in(const char *dir, const char *file, size_t *len)
{
	char *path = xasprintf("%s/%s", dir, file);
	char *s = check_slurp(path, len);
	free(path);
	return s;
}

static int contains(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(hay + i, needle, n))
			return 1;
	return 0;
}

/* Checks that figure name's files with these extensions have the same bytes in d1 and d2. */
static void check_same_files(const char *d1, const char *d2, const char *name, const char *const *exts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *f = xasprintf("%s.%s", name, exts[i]);
		size_t l1, l2;
		char *a = slurp_in(d1, f, &l1), *b = slurp_in(d2, f, &l2);
		int same = a && b && l1 == l2 && !memcmp(a, b, l1);
		CHECK(same);
		if (!same)
			fprintf(stderr, "  %s differs between %s and %s\n", f, d1, d2);
		free(a);
		free(b);
		free(f);
	}
}

static const char *const fig_exts[] = {"svg", "pdf", "png", "tex"};

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void remove_tree(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		if (unlink(p))
			remove_tree(p);
		free(p);
	}
	closedir(d);
	rmdir(dir);
}

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *t = xasprintf("%s/test_chart.XXXXXX", base && base[0] ? base : "/tmp");
	if (!mkdtemp(t)) {
		perror(t);
		exit(1);
	}
	return t;
}

/* Number of UTF-8 characters in s, or -1 if s is not valid UTF-8. */
static long utf8_chars(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	long n = 0;
	while (*p) {
		size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3
			   : (*p & 0xf8) == 0xf0 ? 4 : 0;
		if (!len)
			return -1;
		for (size_t i = 1; i < len; i++)
			if ((p[i] & 0xc0) != 0x80)
				return -1;
		p += len;
		n++;
	}
	return n;
}

static void test_model_growth(void)
{
	struct chart *c = chart_new(CHART_STACKED_BAR, "m", "t", "v");

	CHECK_INT(chart_add_category(c, "a"), 0);
	CHECK_INT(chart_add_category(c, "b"), 1);
	CHECK(c->values == NULL || c->nseries == 0);
	CHECK_INT(chart_add_series(c, "s0"), 0);
	chart_set(c, 0, 0, 1.5);
	chart_set(c, 1, 0, 2.5);

	/* A series added after the categories widens every row. */
	CHECK_INT(chart_add_series(c, "s1"), 1);
	CHECK(chart_get(c, 0, 0) == 1.5);
	CHECK(chart_get(c, 1, 0) == 2.5);
	CHECK(chart_get(c, 0, 1) == 0);
	CHECK(chart_get(c, 1, 1) == 0);
	chart_set(c, 0, 1, 10);
	chart_set(c, 1, 1, 20);

	/* Rows added later start at 0 and leave the others alone. */
	CHECK_INT(chart_add_category(c, "c"), 2);
	CHECK(chart_get(c, 2, 0) == 0 && chart_get(c, 2, 1) == 0);
	chart_set(c, 2, 1, 30);
	CHECK_INT(chart_add_series(c, "s2"), 2);
	CHECK(chart_get(c, 0, 0) == 1.5 && chart_get(c, 0, 1) == 10 && chart_get(c, 0, 2) == 0);
	CHECK(chart_get(c, 1, 0) == 2.5 && chart_get(c, 1, 1) == 20 && chart_get(c, 1, 2) == 0);
	CHECK(chart_get(c, 2, 0) == 0 && chart_get(c, 2, 1) == 30 && chart_get(c, 2, 2) == 0);
	/* The documented layout: row-major by category. */
	CHECK(c->values[1 * 3 + 1] == 20);
	CHECK(c->values[2 * 3 + 1] == 30);

	/* Many of each, interleaved; each new cell gets cat * 1000 + series. */
	for (int i = 0; i < 40; i++) {
		char *l = xasprintf("x%d", i);
		if (i % 2) {
			size_t s = chart_add_series(c, l);
			for (size_t cat = 0; cat < c->ncat; cat++)
				chart_set(c, cat, s, (double)(cat * 1000 + s));
		} else {
			size_t cat = chart_add_category(c, l);
			for (size_t s = 0; s < c->nseries; s++)
				chart_set(c, cat, s, (double)(cat * 1000 + s));
		}
		free(l);
	}
	CHECK_INT(c->ncat, 23);
	CHECK_INT(c->nseries, 23);
	int ok = 1;
	for (size_t cat = 0; cat < c->ncat; cat++)
		for (size_t s = 0; s < c->nseries; s++)
			if ((cat >= 3 || s >= 3) && chart_get(c, cat, s) != (double)(cat * 1000 + s))
				ok = 0;
	CHECK(ok);
	CHECK(chart_get(c, 1, 1) == 20);
	CHECK_STR(c->categories[2], "c");
	CHECK_STR(c->series[2], "s2");
	chart_free(c);
	chart_free(NULL);
}

/*
 * One value per cell (issue #54 item 2): a second chart_set keeps the first
 * and counts a collision; the same value again, NaN (no value yet) first,
 * chart_add and chart_update are not collisions; the filled cells follow
 * the rows and columns as they move.
 */
static void test_one_value(void)
{
	struct chart *c = chart_new(CHART_GROUPED_BAR, "one", "t", "v");
	chart_add_category(c, "a");
	chart_add_series(c, "s0");
	chart_add_category(c, "b");
	chart_set(c, 0, 0, NAN);
	chart_set(c, 0, 0, 1);
	chart_set(c, 0, 0, 1);
	CHECK_INT(c->collisions, 0);
	chart_set(c, 1, 0, 2);
	chart_set(c, 1, 0, 3);
	CHECK_INT(c->collisions, 1);
	CHECK(chart_get(c, 1, 0) == 2);
	CHECK_INT(c->collision_cat, 1);
	CHECK_INT(c->collision_series, 0);
	/* a column added later: the filled cells keep their place */
	chart_add_series(c, "s1");
	chart_set(c, 1, 0, 4);
	CHECK_INT(c->collisions, 2);
	CHECK_INT(c->collision_cat, 1); /* the first collision's cell */
	chart_set(c, 1, 1, 5);
	CHECK_INT(c->collisions, 2);
	chart_add(c, 0, 1, 1.5);
	chart_add(c, 0, 1, 1.5);
	CHECK(chart_get(c, 0, 1) == 3);
	chart_update(c, 0, 1, 7);
	CHECK(chart_get(c, 0, 1) == 7);
	chart_set(c, 0, 1, 8); /* filled by chart_add and chart_update */
	CHECK_INT(c->collisions, 3);
	/* rows dropped and added: the kept row's cells stay filled, a new row's open */
	unsigned char keep[2] = {0, 1};
	chart_keep_categories(c, keep);
	chart_set(c, 0, 1, 9); /* was b's (1, 1) = 5 */
	CHECK_INT(c->collisions, 4);
	size_t n = chart_add_category(c, "c");
	chart_set(c, n, 0, 10);
	chart_set(c, n, 1, 11);
	CHECK_INT(c->collisions, 4);
	for (int i = 0; i < 100; i++) { /* grown by doubling: still one value per cell */
		char l[16];
		snprintf(l, sizeof(l), "r%d", i);
		size_t k = chart_add_category(c, l);
		chart_set(c, k, 1, i);
	}
	CHECK_INT(c->collisions, 4);
	CHECK(chart_get(c, n, 1) == 11 && chart_get(c, c->ncat - 1, 1) == 99);
	chart_free(c);
}

/* The "<run> r<rank>" categories that figure_ranks.c and the run labels read, worked by hand. */
static void test_rank_label(void)
{
	size_t len = 0;
	long long rank = -1;
	CHECK(chart_rank_label("gpt2 4gpu r12", &len, &rank));
	CHECK_INT(len, 9); /* "gpt2 4gpu" */
	CHECK_INT(rank, 12);
	CHECK(chart_rank_label(" r0", &len, &rank) && len == 0 && rank == 0);
	CHECK(!chart_rank_label("run r", NULL, NULL));      /* no digits */
	CHECK(!chart_rank_label("run-r3", NULL, NULL));     /* no space before r */
	CHECK(!chart_rank_label("run r3 (log)", NULL, NULL)); /* not at the end */
	CHECK(!chart_rank_label("r3", NULL, NULL));
	CHECK(!chart_rank_label("run r1234567890123456789", NULL, NULL)); /* 19 digits: beyond a rank */
}

static void test_shorten(void)
{
	static const struct {
		const char *in;
		size_t max;
		const char *want;
	} cases[] = {
		{"abcdef", 10, "abcdef"},
		{"abcdef", 6, "abcdef"},
		{"abcdefghij", 5, "ab\xe2\x80\xa6ij"},
		{"abcdefghij", 4, "ab\xe2\x80\xa6j"},
		{"abcdefghij", 2, "a\xe2\x80\xa6"},
		{"abc", 1, "\xe2\x80\xa6"},
		{"abc", 0, ""},
		{"", 0, ""},
		/* é is two bytes, 日本語 three each: cuts fall between characters. */
		{"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4, "\xc3\xa9\xc3\xa9\xe2\x80\xa6\xc3\xa9"},
		{"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac", 3,
		 "\xe6\x97\xa5\xe2\x80\xa6\xe6\x9c\xac"},
		{"a\xf0\x9f\x98\x80" "bcd\xf0\x9f\x98\x80", 4, "a\xf0\x9f\x98\x80\xe2\x80\xa6\xf0\x9f\x98\x80"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = chart_shorten_middle(cases[i].in, cases[i].max);
		CHECK_STR(s, cases[i].want);
		free(s);
	}

	/* Every length of a mixed string gives valid UTF-8 of exactly that length. */
	const char *mixed = "void \xc3\xa9\xe6\x97\xa5<\xf0\x9f\x98\x80, \xe6\x9c\xac>(int\xc3\xa9)";
	long n = utf8_chars(mixed);
	CHECK(n == 19);
	int ok = 1;
	for (long max = 0; max <= n + 2; max++) {
		char *s = chart_shorten_middle(mixed, (size_t)max);
		if (utf8_chars(s) != (max < n ? max : n))
			ok = 0;
		free(s);
	}
	CHECK(ok);

	const char *kernel = "void at::native::vectorized_elementwise_kernel<4, "
			     "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int, "
			     "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul>)";
	char *s = chart_shorten_middle(kernel, 45);
	CHECK_INT(utf8_chars(s), 45);
	/* 44 characters around the ellipsis: 22 from each end. */
	CHECK_STR(s, "void at::native::vecto\xe2\x80\xa6" "td::array<char*, 3ul>)");
	free(s);
}

static struct chart *sample_stacked(const char *name)
{
	static const char *const groups[] = {"matrix-mul", "attention", "communication",
					     "memory", "elementwise", "other"};
	struct chart *c = chart_new(CHART_STACKED_BAR, name, "GPU time by kernel group",
				    "share of GPU time");
	for (int i = 0; i < 4; i++) {
		char *l = xasprintf("gpt2 %dgpu r0", 1 << i);
		chart_add_category(c, l);
		free(l);
	}
	for (size_t s = 0; s < 6; s++)
		chart_add_series(c, groups[s]);
	for (size_t i = 0; i < 4; i++)
		for (size_t s = 0; s < 6; s++)
			chart_set(c, i, s, (double)(s + 1 + i) / 60.0);
	return c;
}

/* PNG: 8-byte signature, then the IHDR chunk with big-endian width and height. */
static void check_png(const char *buf, size_t len, uint32_t want_w, uint32_t want_h)
{
	const unsigned char *p = (const unsigned char *)buf;
	CHECK(len > 24);
	if (len <= 24)
		return;
	CHECK(!memcmp(p, "\x89PNG\r\n\x1a\n", 8));
	CHECK(!memcmp(p + 12, "IHDR", 4));
	uint32_t w = (uint32_t)p[16] << 24 | (uint32_t)p[17] << 16 | (uint32_t)p[18] << 8 | p[19];
	uint32_t h = (uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 | (uint32_t)p[22] << 8 | p[23];
	CHECK_INT(w, want_w);
	CHECK_INT(h, want_h);
}

static void test_write_formats(void)
{
	char *dir = make_tmpdir();
	struct chart *c = sample_stacked("shares");
	size_t len;
	char *s;

	CHECK_INT(chart_write(c, dir, NULL), 0);
	CHECK_INT(count_entries(dir), 3); /* no .tmp left behind */

	s = slurp_in(dir, "shares.png", &len);
	CHECK(s != NULL);
	if (s)
		check_png(s, len, 7 * 300, 1050); /* 7 in x 3.5 in at 300 dpi */
	free(s);
	s = slurp_in(dir, "shares.pdf", &len);
	CHECK(s && len > 5 && !memcmp(s, "%PDF-", 5));
	CHECK(s && contains(s, len, "%%EOF"));
	free(s);
	s = slurp_in(dir, "shares.svg", &len);
	CHECK(s && len > 5 && !memcmp(s, "<?xml", 5));
	CHECK(s && contains(s, len, "</svg>"));
	CHECK(s && contains(s, len, "width=\"504pt\"") && contains(s, len, "height=\"252pt\""));
	free(s);

	/* A style: 3.5 in x 2 in at 100 dpi. */
	struct chart_style st = {.width_in = 3.5, .height_in = 2, .dpi = 100};
	CHECK_INT(chart_write(c, dir, &st), 0);
	s = slurp_in(dir, "shares.png", &len);
	if (s)
		check_png(s, len, 350, 200);
	free(s);

	chart_free(c);
	remove_tree(dir);
	free(dir);
}

static void test_escaping_and_odd_text(void)
{
	char *dir = make_tmpdir();
	struct chart *c = chart_new(CHART_HBAR, "esc", "a & b <c>", "time (ms) <&>");
	size_t len;

	chart_add_series(c, "time");
	chart_add_category(c, "<script>alert(1)</script>");
	chart_add_category(c, "bad \xff\xfe utf-8 \xed\xa0\x80 and \xef\xbf\xbe \x01\n tab\t");
	chart_add_category(c, "truncated \xe6\x97");
	chart_set(c, 0, 0, 3);
	chart_set(c, 1, 0, -1.25);
	chart_set(c, 2, 0, NAN);
	CHECK_INT(chart_write(c, dir, NULL), 0);
	char *s = slurp_in(dir, "esc.svg", &len);
	CHECK(s != NULL);
	CHECK(s && !contains(s, len, "<script"));
	CHECK(s && !contains(s, len, "<c>"));
	free(s);

	/* The same labels on the other kind of chart, as series and categories. */
	struct chart *d = chart_new(CHART_STACKED_BAR, "esc2", "<script>x</script>", "");
	chart_add_category(d, "<script>alert(1)</script>");
	chart_add_series(d, "<script>s</script>");
	chart_add_series(d, "\xc0\xaf overlong");
	chart_set(d, 0, 0, 1);
	chart_set(d, 0, 1, 2);
	CHECK_INT(chart_write(d, dir, NULL), 0);
	s = slurp_in(dir, "esc2.svg", &len);
	CHECK(s && !contains(s, len, "<script"));
	free(s);
	CHECK_INT(count_entries(dir), 6);

	chart_free(c);
	chart_free(d);
	remove_tree(dir);
	free(dir);
}

/*
 * The same bytes twice, also with another figure written in between on the
 * same thread: a PNG's memory is kept from one figure to the next (png.h),
 * here a larger one (150 dpi, 10 x 6 in, hatched bars: its pixels more
 * and different) then "det" again at the default size. The kept pixels are
 * not cleared (draw_chart paints every one white first): nothing of the
 * earlier figure may show.
 */
static void test_deterministic(void)
{
	char *d1 = make_tmpdir(), *d2 = make_tmpdir(), *d3 = make_tmpdir();
	struct chart *c = sample_stacked("det"), *other = sample_stacked("other");
	struct chart_style big = {.width_in = 10, .height_in = 6, .dpi = 150, .hatching = 1};

	CHECK_INT(chart_write(c, d1, NULL), 0);
	CHECK_INT(chart_write(other, d3, &big), 0);
	CHECK_INT(chart_write(c, d2, NULL), 0);
	check_same_files(d1, d2, "det", fig_exts, 3);
	chart_render_release();
	CHECK_INT(chart_write(c, d3, NULL), 0);
	check_same_files(d1, d3, "det", fig_exts, 3);
	chart_free(c);
	chart_free(other);
	remove_tree(d1);
	remove_tree(d2);
	remove_tree(d3);
	free(d1);
	free(d2);
	free(d3);
}

/*
 * Grouped bars (negative values too) and lines (a missing point, a dashed
 * reference): every format written, tooltips per bar and per point, the
 * same bytes twice, and a line chart with nothing but its reference.
 */
static void test_grouped_and_line(void)
{
	char *d1 = make_tmpdir(), *d2 = make_tmpdir();
	struct chart *g = chart_new(CHART_GROUPED_BAR, "grouped", "Grouped", "time (ms)");
	size_t a = chart_add_category(g, "gemm"), b = chart_add_category(g, "nccl");
	size_t s1 = chart_add_series(g, "run-a"), s2 = chart_add_series(g, "run-b");
	chart_add_series(g, "run-c");
	chart_set(g, a, s1, 3);
	chart_set(g, a, s2, 4.5);
	chart_set(g, b, s2, -1);
	struct chart *l = chart_new(CHART_LINE, "line", "Speedup", "speedup");
	for (int i = 0; i < 3; i++)
		chart_add_category(l, i == 0 ? "1 GPU" : i == 1 ? "2 GPUs" : "4 GPUs");
	size_t m = chart_add_series(l, "GPT-2"), ideal = chart_add_series(l, "ideal");
	chart_set(l, 0, m, 1);
	chart_set(l, 1, m, NAN);
	chart_set(l, 2, m, 3.1);
	for (size_t i = 0; i < 3; i++)
		chart_set(l, i, ideal, (double)(1 << i));
	l->ref_series = ideal + 1;
	size_t len;
	CHECK_INT(chart_write(g, d1, NULL), 0);
	CHECK_INT(chart_write(l, d1, NULL), 0);
	CHECK_INT(chart_write(l, d2, NULL), 0);
	CHECK_INT(count_entries(d1), 6);
	char *sv = slurp_in(d1, "grouped.svg", &len);
	CHECK(sv && contains(sv, len, "gemm, run-b: "));
	CHECK(sv && contains(sv, len, "nccl, run-b: "));
	CHECK(sv && !contains(sv, len, "nccl, run-a: ")); /* a zero draws no bar */
	free(sv);
	sv = slurp_in(d1, "line.svg", &len);
	CHECK(sv && contains(sv, len, "4 GPUs, GPT-2: "));
	CHECK(sv && !contains(sv, len, "2 GPUs, GPT-2: ")); /* NaN: no point */
	CHECK(sv && !contains(sv, len, "GPUs, ideal: "));   /* the reference has no points */
	free(sv);
	check_same_files(d1, d2, "line", fig_exts, 3);
	char *png = slurp_in(d1, "line.png", &len);
	if (png)
		check_png(png, len, 7 * 300, 1050);
	free(png);
	/* Only the reference line: drawn, no key. */
	struct chart *r = chart_new(CHART_LINE, "ref", "Ref", "speedup");
	chart_add_category(r, "1");
	chart_set(r, 0, chart_add_series(r, "ideal"), 1);
	r->ref_series = 1;
	CHECK_INT(chart_write(r, d2, NULL), 0);
	chart_free(r);
	chart_free(g);
	chart_free(l);
	remove_tree(d1);
	remove_tree(d2);
	free(d1);
	free(d2);
}

/*
 * CHART_XY: real x values on a log-2 axis, a scatter with a fitted line
 * and y = x, points that cannot be drawn (NaN, inf, <= 0 on a log axis)
 * skipped and counted, labels escaped, the same bytes twice, both layouts
 * (key beside and under the plot), and nothing drawable: "no data".
 */
static struct chart *sample_xy(const char *name)
{
	static const double batch[] = {16, 32, 64, 128, 256};
	struct chart *c = chart_new(CHART_XY, name, "FLOPs by batch <size>", "FLOPs (GFLOP)");
	chart_set_x_axis(c, "batch size", CHART_SCALE_LOG2);
	c->y_scale = CHART_SCALE_LOG2;
	size_t m = chart_add_series(c, "measured"), e = chart_add_series(c, "estimated");
	for (size_t i = 0; i < 5; i++) {
		char *l = xasprintf("b%g", batch[i]);
		size_t k = chart_add_category(c, l);
		free(l);
		chart_set_x(c, k, batch[i]);
		chart_set(c, k, m, batch[i] * 0.0196);
		chart_set(c, k, e, batch[i] * 0.0178);
	}
	return c;
}

/*
 * CHART_XY markers sized by a quantity (chart_set_point_size): a larger
 * marker draws other bytes; a size follows its category through
 * chart_keep_categories, and a new category's is the usual 1.
 */
static void test_point_size(void)
{
	char *d1 = make_tmpdir(), *d2 = make_tmpdir();
	size_t l1 = 0, l2 = 0;
	struct chart *a = sample_xy("p"), *b = sample_xy("p");
	a->markers_only = b->markers_only = 1;
	CHECK(b->point_size == NULL);
	chart_set_point_size(b, 0, 4);
	CHECK_INT(chart_write(a, d1, NULL), 0);
	CHECK_INT(chart_write(b, d2, NULL), 0);
	char *s1 = slurp_in(d1, "p.svg", &l1), *s2 = slurp_in(d2, "p.svg", &l2);
	CHECK(s1 && s2 && (l1 != l2 || memcmp(s1, s2, l1)));
	free(s1);
	free(s2);
	CHECK(b->point_size[0] == 4 && b->point_size[1] == 1 && b->point_size[4] == 1);
	chart_set_point_size(b, 2, 3);
	chart_set_point_size(b, 3, NAN); /* not a size: the usual one */
	CHECK(b->point_size[3] == 1);
	unsigned char keep[5] = {0, 1, 1, 0, 1};
	chart_keep_categories(b, keep);
	CHECK(b->ncat == 3 && b->point_size[0] == 1 && b->point_size[1] == 3 && b->point_size[2] == 1);
	size_t k = chart_add_category(b, "new");
	CHECK(b->point_size[k] == 1);
	chart_free(a);
	chart_free(b);
	remove_tree(d1);
	remove_tree(d2);
	free(d1);
	free(d2);
}

static void test_xy(void)
{
	char *d1 = make_tmpdir(), *d2 = make_tmpdir();
	size_t len;

	/* The model: x starts as NaN, skipped points are counted per (category, series). */
	struct chart *c = sample_xy("xy");
	CHECK(c->x_values[0] == 16 && c->x_values[4] == 256);
	CHECK_INT(chart_xy_skipped(c), 0);
	CHECK_INT(chart_write(c, d1, NULL), 0);
	CHECK_INT(chart_write(c, d2, NULL), 0);
	check_same_files(d1, d2, "xy", fig_exts, 3);
	char *png = slurp_in(d1, "xy.png", &len);
	if (png)
		check_png(png, len, 7 * 300, 1050);
	free(png);
	char *sv = slurp_in(d1, "xy.svg", &len);
	/* 16 x 0.0196 = 0.3136, three decimals below 1; a whole x as it is. */
	CHECK(sv && contains(sv, len, "b16, measured: x = 16, y = 0.314"));
	CHECK(sv && contains(sv, len, "b256, estimated: x = 256, y = 4.56"));
	CHECK(sv && !contains(sv, len, "<size>") && contains(sv, len, "&lt;size&gt;"));
	free(sv);

	/* NaN, inf and a value <= 0 on the log axis are not drawn, and counted. */
	chart_update(c, 1, 0, NAN);
	chart_update(c, 2, 1, INFINITY);
	chart_update(c, 3, 0, 0);
	size_t k = chart_add_category(c, "no x");
	chart_set(c, k, 0, 1);
	chart_set(c, k, 1, 1);
	CHECK_INT(chart_xy_drawable(c, 0, 0), 1);
	CHECK_INT(chart_xy_drawable(c, 1, 0), 0);
	CHECK_INT(chart_xy_drawable(c, 3, 0), 0);
	CHECK_INT(chart_xy_skipped(c), 5);
	c->y_scale = CHART_SCALE_LINEAR; /* 0 is a value on a linear axis */
	CHECK_INT(chart_xy_skipped(c), 4);
	c->y_scale = CHART_SCALE_LOG2;
	CHECK_INT(chart_write(c, d1, NULL), 0);
	sv = slurp_in(d1, "xy.svg", &len);
	CHECK(sv && contains(sv, len, "b16, measured: "));
	CHECK(sv && !contains(sv, len, "b32, measured: "));
	CHECK(sv && !contains(sv, len, "b64, estimated: "));
	CHECK(sv && !contains(sv, len, "b128, measured: "));
	CHECK(sv && !contains(sv, len, "no x, "));
	CHECK(sv && !contains(sv, len, "nan") && !contains(sv, len, "inf"));
	free(sv);
	chart_free(c);

	/* A scatter with a fitted line and y = x, hostile labels everywhere, one column wide. */
	struct chart *s = chart_new(CHART_XY, "scatter", "<script>t</script>", "measured <y> (GFLOP)");
	chart_set_x_axis(s, "estimated <x> & more", CHART_SCALE_LINEAR);
	s->markers_only = 1;
	s->label_points = 1;
	s->from_zero = 1;
	size_t r = chart_add_series(s, "<b>runs</b>");
	static const double ex[] = {0.28, 0.57, 1.14, 2.28, 4.55}, me[] = {0.31, 0.64, 1.25, 2.51, 4.90};
	for (size_t i = 0; i < 5; i++) {
		char *l = xasprintf("<script>p%zu</script>", i);
		size_t q = chart_add_category(s, l);
		free(l);
		chart_set_x(s, q, ex[i]);
		chart_set(s, q, r, me[i]);
	}
	chart_add_refline(s, "least <squares>", 1.074, 0.028, 0);
	chart_add_refline(s, "y = x", 1, 0, 1);
	chart_add_refline(s, "not finite", NAN, 0, 1);
	chart_set_note(s, "slope 1.074\nR\xc2\xb2 = 0.99986 <&>\n\xff bad byte");
	CHECK_INT(s->nrefs, 3);
	struct chart_style narrow = {.width_in = 3.5, .height_in = 2.6};
	CHECK_INT(chart_write(s, d1, &narrow), 0);
	png = slurp_in(d1, "scatter.png", &len);
	if (png)
		check_png(png, len, 1050, 780);
	free(png);
	sv = slurp_in(d1, "scatter.svg", &len);
	CHECK(sv && !contains(sv, len, "<script") && !contains(sv, len, "<b>") && !contains(sv, len, "<y>"));
	CHECK(sv && contains(sv, len, "&lt;script&gt;p4&lt;/script&gt;, &lt;b&gt;runs&lt;/b&gt;: x = 4.55, y = 4.90"));
	free(sv);
	CHECK_INT(chart_write(s, d2, NULL), 0); /* the wide layout, key beside the plot */
	chart_free(s);

	/* Nothing drawable, and a log axis over less than two powers (a linear axis instead). */
	struct chart *n = chart_new(CHART_XY, "none", "none", "y");
	chart_set(n, chart_add_category(n, "a"), chart_add_series(n, "s"), 1);
	CHECK_INT(chart_xy_skipped(n), 1); /* x never set */
	CHECK_INT(chart_write(n, d1, NULL), 0);
	chart_set_x(n, 0, 30);
	chart_set(n, chart_add_category(n, "b"), 0, 1.1);
	chart_set_x(n, 1, 31);
	n->x_scale = n->y_scale = CHART_SCALE_LOG10;
	CHECK_INT(chart_xy_skipped(n), 0);
	CHECK_INT(chart_write(n, d1, NULL), 0);
	chart_free(n);

	remove_tree(d1);
	remove_tree(d2);
	free(d1);
	free(d2);
}

static void test_empty(void)
{
	char *dir = make_tmpdir();
	struct chart *c = chart_new(CHART_STACKED_BAR, "empty", "nothing here", "share");
	size_t len;

	CHECK_INT(chart_write(c, dir, NULL), 0);
	char *s = slurp_in(dir, "empty.png", &len);
	if (s)
		check_png(s, len, 2100, 1050);
	free(s);
	s = slurp_in(dir, "empty.pdf", &len);
	CHECK(s && len > 5 && !memcmp(s, "%PDF-", 5));
	free(s);

	/* Categories but no series: still "no data", for both kinds. */
	chart_add_category(c, "a");
	c->kind = CHART_HBAR;
	CHECK_INT(chart_write(c, dir, NULL), 0);
	CHECK_INT(count_entries(dir), 3);
	chart_free(c);
	remove_tree(dir);
	free(dir);
}

/*
 * CHART_TIMELINE: lanes and rows of bars, a hatched mark, a path across
 * lanes; a bar or point whose x is not finite is skipped, not drawn as
 * NaN (cairo's error state); a timeline without a bar or point is "no data".
 */
static void test_timeline(void)
{
	char *dir = make_tmpdir();
	struct chart *c = chart_new(CHART_TIMELINE, "tl", "step 5 <on> every rank", "rank");
	chart_set_x_axis(c, "time (ms)", CHART_SCALE_LINEAR);
	chart_set_path_label(c, "critical path");
	chart_add_series(c, "host");
	chart_add_series(c, "collectives");
	chart_add_category(c, "rank 0");
	chart_add_category(c, "rank 1");
	chart_add_span(c, 0, 0, 0, 4, "forward", "rank 0, forward", 0);
	chart_add_span(c, 0, 1, 3, 9, "communication", NULL, 0);
	chart_add_span(c, 0, 1, 3, 7, "waiting for another rank", "rank 0 waits \x01 <b>", 1);
	chart_add_span(c, 1, 1, NAN, 9, "communication", NULL, 0);
	chart_add_span(c, 1, 1, 7, 9, "communication", NULL, 0);
	chart_set(c, 0, 0, 4);
	chart_add_path_point(c, 0, 9.5);
	chart_add_path_point(c, 0, 7);
	chart_add_path_point(c, 1, 7);
	chart_add_path_point(c, 1, INFINITY);
	chart_add_path_point(c, 1, 0);
	CHECK_INT(chart_write(c, dir, NULL), 0);
	size_t len;
	char *s = slurp_in(dir, "tl.svg", &len);
	CHECK(s && strstr(s, "data-label=\"rank 0\"") && strstr(s, "data-label=\"rank 1\""));
	CHECK(s && strstr(s, "<title>critical path on rank 1: 0.000 to 7.000</title>"));
	CHECK(s && strstr(s, "&lt;b&gt;") && !strstr(s, "<b>"));
	CHECK(s && strstr(s, "<title>key: waiting for another rank</title>"));
	free(s);
	chart_free(c);
	c = chart_new(CHART_TIMELINE, "tl_empty", "nothing", "rank");
	chart_add_series(c, "host");
	chart_add_category(c, "rank 0");
	CHECK_INT(chart_write(c, dir, NULL), 0);
	chart_free(c);
	remove_tree(dir);
	free(dir);
}

static void test_failures(void)
{
	char *dir = make_tmpdir();
	struct chart *c = sample_stacked("keep");
	size_t len0, len1;

	diag_reset();
	char *missing = xasprintf("%s/no/such/dir", dir);
	fprintf(stderr, "test_chart: three errors expected below\n");
	CHECK_INT(chart_write(c, missing, NULL), -1);
	CHECK_INT(diag_error_count(), 1);
	CHECK_INT(diag_exit_code(), EXIT_SYSTEM);
	free(missing);

	/*
	 * A failed write keeps the previous figure, byte for byte, and leaves
	 * no temporary file: past a file size limit (as root no permission
	 * stops a write; each temporary name is fresh, so none can be blocked).
	 */
	CHECK_INT(chart_write(c, dir, NULL), 0);
	char *before = slurp_in(dir, "keep.svg", &len0);
	chart_set(c, 0, 0, 5);
	struct rlimit old_limit, small = {1, 1};
	void (*old_xfsz)(int) = signal(SIGXFSZ, SIG_IGN);
	CHECK(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
	small.rlim_max = old_limit.rlim_max;
	CHECK(setrlimit(RLIMIT_FSIZE, &small) == 0);
	CHECK_INT(chart_write(c, dir, NULL), -1);
	CHECK(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
	signal(SIGXFSZ, old_xfsz);
	char *after = slurp_in(dir, "keep.svg", &len1);
	CHECK(before && after && len0 == len1 && !memcmp(before, after, len0));
	CHECK_INT(count_entries(dir), 3); /* keep.svg, keep.pdf, keep.png: no temporary left */
	free(before);
	free(after);

	/* A name that would leave dir. */
	free(c->name);
	c->name = xstrdup("../x");
	CHECK_INT(chart_write(c, dir, NULL), -1);
	CHECK_INT(diag_error_count(), 3);
	diag_reset();

	chart_free(c);
	remove_tree(dir);
	free(dir);
}

/* Reads a PNG out of memory for cairo (libpng's decoder, not ours). */
struct png_reader {
	const unsigned char *p;
	size_t n, off;
};

static cairo_status_t read_png(void *closure, unsigned char *data, unsigned int len)
{
	struct png_reader *r = closure;
	if (r->n - r->off < len)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(data, r->p + r->off, len);
	r->off += len;
	return CAIRO_STATUS_SUCCESS;
}

/*
 * png.c's encoder: an image with flat areas, repeated rows, a gradient,
 * antialiased text and odd sizes (1 x 1, a width that is no multiple of 4)
 * decodes through libpng (cairo's PNG reader) to the same pixels, and
 * says its resolution in pHYs (300 dpi = 11811 pixels per metre).
 */
static void test_png(void)
{
	static const int sizes[][2] = {{1, 1}, {3, 5}, {301, 127}, {2100, 1050}};
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int w = sizes[k][0], h = sizes[k][1];
		cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
		cairo_t *cr = cairo_create(img);
		cairo_set_source_rgb(cr, 1, 1, 1);
		cairo_paint(cr);
		cairo_pattern_t *g = cairo_pattern_create_linear(0, 0, w, h);
		cairo_pattern_add_color_stop_rgb(g, 0, 0.1, 0.5, 0.9);
		cairo_pattern_add_color_stop_rgb(g, 1, 0.9, 0.2, 0.1);
		cairo_set_source(cr, g);
		cairo_rectangle(cr, w / 4.0, h / 3.0, w / 2.0, h / 3.0);
		cairo_fill(cr);
		cairo_pattern_destroy(g);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_move_to(cr, 2, h - 2);
		cairo_set_font_size(cr, h / 4.0 + 1);
		cairo_show_text(cr, "ncclKernel_AllReduce 42%");
		cairo_destroy(cr);
		cairo_surface_flush(img);

		struct buf png;
		buf_init(&png);
		CHECK(png_encode_rgb24(cairo_image_surface_get_data(img), w, h, cairo_image_surface_get_stride(img), 300,
				       &png) == 0);
		CHECK(png.len > 8 && !memcmp(png.data, "\x89PNG\r\n\x1a\n", 8));
		static const unsigned char phys[] = {'p', 'H', 'Y', 's', 0, 0, 0x2e, 0x23, 0, 0, 0x2e, 0x23, 1};
		int has_phys = 0;
		for (size_t i = 0; i + sizeof(phys) <= png.len && !has_phys; i++)
			has_phys = !memcmp(png.data + i, phys, sizeof(phys));
		CHECK(has_phys);
		struct png_reader r = {(const unsigned char *)png.data, png.len, 0};
		cairo_surface_t *back = cairo_image_surface_create_from_png_stream(read_png, &r);
		CHECK(cairo_surface_status(back) == CAIRO_STATUS_SUCCESS);
		if (cairo_surface_status(back) == CAIRO_STATUS_SUCCESS) {
			CHECK(cairo_image_surface_get_width(back) == w && cairo_image_surface_get_height(back) == h);
			CHECK(cairo_image_surface_get_format(back) == CAIRO_FORMAT_RGB24);
			int same = 1;
			const unsigned char *a = cairo_image_surface_get_data(img), *b = cairo_image_surface_get_data(back);
			for (int y = 0; y < h && same; y++)
				for (int x = 0; x < w && same; x++) {
					uint32_t pa, pb;
					memcpy(&pa, a + y * cairo_image_surface_get_stride(img) + 4 * x, 4);
					memcpy(&pb, b + y * cairo_image_surface_get_stride(back) + 4 * x, 4);
					same = (pa & 0xffffff) == (pb & 0xffffff);
				}
			CHECK(same);
		}
		cairo_surface_destroy(back);
		cairo_surface_destroy(img);
		buf_release(&png);
	}
}

/*
 * chart_write_many on 1 and 3 threads: the same files, byte for byte; a bad
 * figure among good ones fails the call with exactly its one error.
 */
static void test_write_many(void)
{
	char *d1 = make_tmpdir(), *d3 = make_tmpdir();
	struct chart *cs[5];
	const char *caps[5] = {"a", "b", "c", "d", "e"};
	static const char *const names[5] = {"m0", "m1", "m2", "m3", "m4"};
	for (int i = 0; i < 5; i++) {
		cs[i] = sample_stacked(names[i]);
		chart_set(cs[i], 0, 0, 1 + i);
	}
	diag_reset();
	CHECK_INT(chart_write_many((const struct chart *const *)cs, caps, 5, d1, NULL, 1), 0);
	CHECK_INT(chart_write_many((const struct chart *const *)cs, caps, 5, d3, NULL, 3), 0);
	CHECK_INT(diag_error_count(), 0);
	for (int i = 0; i < 5; i++)
		check_same_files(d1, d3, names[i], fig_exts, 4);
	free(cs[2]->name);
	cs[2]->name = xstrdup("../bad");
	fprintf(stderr, "test_chart: one error expected below\n");
	CHECK_INT(chart_write_many((const struct chart *const *)cs, caps, 5, d3, NULL, 3), -1);
	CHECK_INT(diag_error_count(), 1);
	diag_reset();
	for (int i = 0; i < 5; i++)
		chart_free(cs[i]);
	remove_tree(d1);
	remove_tree(d3);
	free(d1);
	free(d3);
}

/*
 * Colours: a series named like a kernel group keeps the group's colour, and
 * the others take the colours left, so no two series of a chart share one.
 * The step breakdown's eight parts with the default groups' order: by hand,
 * communication keeps green (group 2) and other vermillion (group 5);
 * compute, memcpy, memset, cuda_runtime, data_loading and cpu_other take
 * orange, sky blue, yellow, blue, reddish purple and black, in that order.
 * Before, memset (position 2) shared green and data_loading (5) vermillion,
 * and yellow was not drawn at all.
 */
static void test_series_colours(void)
{
	static const char *const groups[] = {"matrix-mul", "attention", "communication", "memory", "elementwise",
					     "other"};
	static const char *const parts[] = {"compute", "memcpy", "memset", "communication", "cuda_runtime",
					    "data_loading", "cpu_other", "other"};
	/* The Okabe-Ito colours as cairo's SVG writes them, black left out (text is black too). */
	static const char *const colours[] = {
		"rgb(90.196078%,62.352941%,0%)", "rgb(33.72549%,70.588235%,91.372549%)",
		"rgb(0%,61.960784%,45.098039%)", "rgb(94.117647%,89.411765%,25.882353%)",
		"rgb(0%,44.705882%,69.803922%)", "rgb(83.529412%,36.862745%,0%)",
		"rgb(80%,47.45098%,65.490196%)"};
	char *d = make_tmpdir();
	struct chart *c = chart_new(CHART_STACKED_BAR, "parts", "Step time by part", "ms");
	size_t cat = chart_add_category(c, "run r0");
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		chart_set(c, cat, chart_add_series(c, parts[i]), 1.0);
	struct chart_style st = {.width_in = 7, .height_in = 3.5, .dpi = 300, .groups = groups,
				 .ngroups = sizeof(groups) / sizeof(groups[0])};
	CHECK_INT(chart_write(c, d, &st), 0);
	size_t len;
	char *svg = slurp_in(d, "parts.svg", &len);
	CHECK(svg != NULL);
	for (size_t i = 0; svg && i < sizeof(colours) / sizeof(colours[0]); i++) {
		CHECK(contains(svg, len, colours[i]));
		if (!contains(svg, len, colours[i]))
			fprintf(stderr, "  parts.svg: no fill %s\n", colours[i]);
	}
	free(svg);
	chart_free(c);
	remove_tree(d);
	free(d);
}

/* Writes c into a new directory under style st and returns its SVG (caller frees both). */
static char *svg_of(const struct chart *c, const struct chart_style *st, size_t *len, char **dir)
{
	*dir = make_tmpdir();
	CHECK_INT(chart_write(c, *dir, st), 0);
	char *f = xasprintf("%s.svg", c->name);
	char *svg = slurp_in(*dir, f, len);
	free(f);
	CHECK(svg != NULL);
	return svg;
}

static void drop_dir(char *dir)
{
	remove_tree(dir);
	free(dir);
}

/*
 * Grouped bars take a log axis when the manifest asks for one, or by
 * default when the positive bars span more than 100x (an 11 us HtoD copy
 * beside a 1.9 ms DtoD one: 1.9 / 0.011 = 173x); never when told so. The
 * value axis title says which (its tooltip "y axis: ..."). Before, grouped
 * bars were always linear and log_scale was read for HBAR only.
 */
static void test_log_bars(void)
{
	struct chart *c = chart_new(CHART_GROUPED_BAR, "memops", "Memory operations", "time (ms)");
	size_t cat = chart_add_category(c, "run r0");
	chart_set(c, cat, chart_add_series(c, "HtoD"), 0.011);
	chart_set(c, cat, chart_add_series(c, "DtoD"), 1.9);
	struct chart_style st = {0};
	size_t len;
	char *dir;
	char *svg = svg_of(c, &st, &len, &dir);
	CHECK(svg && contains(svg, len, "y axis: time (ms), log scale"));
	free(svg);
	drop_dir(dir);
	st.log_scale = -1; /* the manifest's log_scale: false */
	svg = svg_of(c, &st, &len, &dir);
	CHECK(svg && contains(svg, len, "y axis: time (ms)<"));
	CHECK(svg && !contains(svg, len, "log scale"));
	free(svg);
	drop_dir(dir);
	/* 50x: linear by default, log when asked (log_scale: true). */
	chart_update(c, cat, 0, 1.9 / 50);
	st.log_scale = 0;
	svg = svg_of(c, &st, &len, &dir);
	CHECK(svg && !contains(svg, len, "log scale"));
	free(svg);
	drop_dir(dir);
	st.log_scale = 1;
	svg = svg_of(c, &st, &len, &dir);
	CHECK(svg && contains(svg, len, "y axis: time (ms), log scale"));
	free(svg);
	drop_dir(dir);
	chart_free(c);
}

/*
 * The manifest's labels replace run ids on bars, in keys and titles; a
 * chart whose categories are all runs gets an x axis title, "run, rank"
 * when they are ranks. Ids are matched whole: "a" does not relabel "a-b".
 */
static void test_run_labels(void)
{
	static const char *const ids[] = {"a", "a-b", "c"};
	static const char *const labels[] = {"Run A, 1 GPU", NULL, ""};
	struct chart *c = chart_new(CHART_STACKED_BAR, "s", "a-b against a", "ms");
	chart_add_category(c, "a r0");
	chart_add_category(c, "a-b r1");
	chart_add_category(c, "c r2");
	chart_add_series(c, "a");
	chart_use_run_labels(c, ids, labels, 3);
	CHECK_STR(c->categories[0], "Run A, 1 GPU r0");
	CHECK_STR(c->categories[1], "a-b r1"); /* no label: the id stays */
	CHECK_STR(c->categories[2], "c r2");   /* an empty label too */
	CHECK_STR(c->series[0], "Run A, 1 GPU");
	CHECK_STR(c->title, "a-b against Run A, 1 GPU");
	CHECK(c->x_label && !strcmp(c->x_label, "run, rank"));
	chart_free(c);
	c = chart_new(CHART_HBAR, "h", "t", "ms");
	chart_add_category(c, "a (log)");
	chart_add_category(c, "c");
	chart_use_run_labels(c, ids, labels, 3);
	CHECK_STR(c->categories[0], "Run A, 1 GPU (log)");
	CHECK(c->x_label && !strcmp(c->x_label, "run"));
	chart_free(c);
	/* Display names: snake_case words get spaces; a metric's own name stays as it is. */
	static const char *const shown[][2] = {{"optimizer_step", "optimizer step"},
					       {"cuda_runtime", "CUDA runtime"},
					       {"dram__bytes.sum", "dram__bytes.sum"},
					       {"HtoD", "HtoD"},
					       {"intra-op dispatch", "intra-op dispatch"}};
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		char *d = chart_display_name(shown[i][0]);
		CHECK_STR(d, shown[i][1]);
		free(d);
	}
	/* A category that is no run: no title is made up. */
	c = chart_new(CHART_GROUPED_BAR, "g", "t", "ms");
	chart_add_category(c, "gemm");
	chart_add_category(c, "a");
	chart_use_run_labels(c, ids, labels, 3);
	CHECK(c->x_label == NULL);
	chart_free(c);
	/* An x-y chart's categories are points: its x axis is a quantity, never "run". */
	c = chart_new(CHART_XY, "x", "t", "ms");
	chart_add_category(c, "a");
	chart_add_category(c, "c");
	chart_use_run_labels(c, ids, labels, 3);
	CHECK_STR(c->categories[0], "Run A, 1 GPU");
	CHECK(c->x_label == NULL);
	chart_free(c);
}

/*
 * Each kind's own file holds all of it (chart.h): a name, a drawing, and
 * the properties the rest of chart/ asks instead of naming kinds. Lines:
 * the line and x-y charts; points at real x: x-y only.
 */
static void test_kinds(void)
{
	static const struct {
		const struct chart_kind *kind;
		int lines, points;
	} want[] = {
		{CHART_STACKED_BAR, 0, 0}, {CHART_HBAR, 0, 0}, {CHART_GROUPED_BAR, 0, 0},
		{CHART_LINE, 1, 0},        {CHART_XY, 1, 1},
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct chart_kind *k = want[i].kind;
		CHECK(k->name && k->name[0]);
		CHECK(k->drawing && k->drawing->draw);
		CHECK_INT(k->lines, want[i].lines);
		CHECK_INT(k->points, want[i].points);
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(k->name, want[j].kind->name) && k->drawing != want[j].kind->drawing);
	}
}

/*
 * Bar charts draw their x axis title (the rank layout's too); keys show
 * the display names (tooltips "key: ..."), never cpu_other or
 * get_train_batch; a series too small to see anywhere (under 0.5 % of the
 * axis: 0.2 of a 100 axis) leaves the key for the note under it.
 */
static void test_titles_and_keys(void)
{
	struct chart *c = chart_new(CHART_STACKED_BAR, "parts", "Step time by part", "ms");
	c->x_label = xstrdup("run, rank");
	size_t r0 = chart_add_category(c, "GPT-2, 2 GPUs r0"), r1 = chart_add_category(c, "GPT-2, 2 GPUs r1");
	size_t cpu = chart_add_series(c, "cpu_other"), batch = chart_add_series(c, "get_train_batch");
	size_t dl = chart_add_series(c, "data_loading"), tiny = chart_add_series(c, "memset");
	for (size_t i = r0; i <= r1; i++) {
		chart_set(c, i, cpu, 60);
		chart_set(c, i, batch, 20);
		chart_set(c, i, dl, 20);
		chart_set(c, i, tiny, 0.2);
	}
	size_t len;
	char *dir;
	char *svg = svg_of(c, NULL, &len, &dir);
	CHECK(svg && contains(svg, len, "x axis: run, rank"));
	CHECK(svg && contains(svg, len, "y axis: ms"));
	CHECK(svg && contains(svg, len, "key: other host operators"));
	CHECK(svg && contains(svg, len, "key: get batch"));
	CHECK(svg && contains(svg, len, "key: data loading"));
	CHECK(svg && !contains(svg, len, "cpu_other"));
	CHECK(svg && !contains(svg, len, "get_train_batch"));
	CHECK(svg && !contains(svg, len, "key: memset"));
	CHECK(svg && contains(svg, len, "too small to see"));
	CHECK(svg && contains(svg, len, "of the axis): memset<"));
	/* The run is named once, under its ranks; each bar's tooltip still has it all. */
	CHECK(svg && contains(svg, len, "<title>GPT-2, 2 GPUs</title>"));
	CHECK(svg && contains(svg, len, "GPT-2, 2 GPUs r1, other host operators: 60"));
	free(svg);
	drop_dir(dir);
	chart_free(c);
}

/* The fills of an SVG that are a palette colour (Okabe-Ito as cairo writes them, black left out). */
static const char *const okabe_ito[] = {
	"rgb(90.196078%,62.352941%,0%)", "rgb(33.72549%,70.588235%,91.372549%)", "rgb(0%,61.960784%,45.098039%)",
	"rgb(94.117647%,89.411765%,25.882353%)", "rgb(0%,44.705882%,69.803922%)", "rgb(83.529412%,36.862745%,0%)",
	"rgb(80%,47.45098%,65.490196%)"};

/*
 * Copy kinds keep their colour whichever others a study has: DtoH is blue
 * and DtoD reddish purple with or without HtoD (before, the first kind
 * present took orange, the next sky blue), through the analyses' fixed
 * colours in the style (analyze/lib/colours.c). Runs are greys (here 25 % and
 * 75 %, the two ends of the bars' ramp), never a palette colour, which
 * means a kernel group elsewhere; so is one series of plain bars. Lines
 * never take yellow.
 */
static void test_fixed_colours(void)
{
	struct chart *c = chart_new(CHART_GROUPED_BAR, "kinds", "Copies", "ms");
	size_t cat = chart_add_category(c, "r r0");
	chart_set(c, cat, chart_add_series(c, "DtoH"), 1);
	chart_set(c, cat, chart_add_series(c, "DtoD"), 2);
	struct chart_style fixed = {0};
	fixed.colours = analysis_colours(&fixed.ncolours);
	size_t len;
	char *dir;
	char *svg = svg_of(c, &fixed, &len, &dir);
	CHECK(svg && contains(svg, len, okabe_ito[4]));  /* DtoH: blue */
	CHECK(svg && contains(svg, len, okabe_ito[6]));  /* DtoD: reddish purple */
	CHECK(svg && !contains(svg, len, okabe_ito[0])); /* not orange */
	CHECK(svg && !contains(svg, len, okabe_ito[1])); /* nor sky blue */
	free(svg);
	drop_dir(dir);
	chart_free(c);

	static const char *const groups[] = {"matrix-mul", "attention"};
	static const char *const runs[] = {"run-a", "run-b"}, *const labels[] = {"Run A", "Run B"};
	struct chart_style st = {.groups = groups, .ngroups = 2, .runs = runs, .run_labels = labels, .nruns = 2};
	c = chart_new(CHART_GROUPED_BAR, "cmp", "Run B against Run A", "ms");
	cat = chart_add_category(c, "matrix-mul");
	chart_set_category_key(c, cat, "matrix-mul");
	chart_set(c, cat, chart_add_series(c, "Run A"), 1);
	chart_set(c, cat, chart_add_series(c, "run-b"), 2);
	svg = svg_of(c, &st, &len, &dir);
	for (size_t i = 0; svg && i < sizeof(okabe_ito) / sizeof(okabe_ito[0]); i++)
		CHECK(!contains(svg, len, okabe_ito[i]));
	CHECK(svg && contains(svg, len, "rgb(25%,25%,25%)"));
	CHECK(svg && contains(svg, len, "rgb(75%,75%,75%)"));
	free(svg);
	drop_dir(dir);
	chart_free(c);

	c = chart_new(CHART_HBAR, "plain", "Step time", "ms");
	chart_add_series(c, "step time");
	chart_set(c, chart_add_category(c, "run-a"), 0, 3);
	svg = svg_of(c, &st, &len, &dir);
	for (size_t i = 0; svg && i < sizeof(okabe_ito) / sizeof(okabe_ito[0]); i++)
		CHECK(!contains(svg, len, okabe_ito[i]));
	free(svg);
	drop_dir(dir);
	chart_free(c);

	c = chart_new(CHART_XY, "lines", "Lines", "y");
	chart_set_x_axis(c, "x", CHART_SCALE_LINEAR);
	for (int s = 0; s < 5; s++) {
		char *name = xasprintf("series %d", s);
		chart_add_series(c, name);
		free(name);
	}
	for (int i = 0; i < 2; i++) {
		size_t k = chart_add_category(c, i ? "b" : "a");
		chart_set_x(c, k, i + 1);
		for (size_t s = 0; s < 5; s++)
			chart_set(c, k, s, (double)(s + i));
	}
	svg = svg_of(c, NULL, &len, &dir);
	CHECK(svg && !contains(svg, len, okabe_ito[3])); /* no yellow line */
	CHECK(svg && contains(svg, len, okabe_ito[5]));  /* the fifth line takes vermillion */
	free(svg);
	drop_dir(dir);
	chart_free(c);
}

/*
 * The scaling figure's drawing: GPU counts on a log-2 axis (1, 2, 4 evenly
 * apart, so the ideal y = x is straight and has no kink), the ideal listed
 * in the key, not written into the title band; a sparse line's missing
 * GPU count is no "point not drawn".
 */
static void test_scaling_axis(void)
{
	struct chart *c = chart_new(CHART_XY, "scaling", "Speedup against GPUs", "speedup");
	chart_set_x_axis(c, "GPUs", CHART_SCALE_LOG2);
	c->y_scale = CHART_SCALE_LOG2;
	c->entity_series = 1;
	c->sparse = 1;
	size_t a = chart_add_series(c, "GPT-2, ddp"), b = chart_add_series(c, "BERT, ddp");
	for (int i = 0; i < 3; i++) {
		char *l = xasprintf("%d GPUs", 1 << i);
		size_t k = chart_add_category(c, l);
		free(l);
		chart_set_x(c, k, 1 << i);
		chart_set(c, k, a, i == 0 ? 1 : i == 1 ? 1.6 : 3.2);
		chart_set(c, k, b, i == 1 ? NAN : i == 0 ? 1 : 1.5);
	}
	chart_add_refline(c, "ideal", 1, 0, 1);
	CHECK_INT(chart_xy_skipped(c), 0);
	size_t len;
	char *dir;
	char *svg = svg_of(c, NULL, &len, &dir);
	CHECK(svg && contains(svg, len, "key: ideal"));
	CHECK(svg && contains(svg, len, "x axis: GPUs, log scale"));
	CHECK(svg && !contains(svg, len, "not drawn"));
	for (size_t i = 0; svg && i < sizeof(okabe_ito) / sizeof(okabe_ito[0]); i++)
		CHECK(!contains(svg, len, okabe_ito[i]));
	free(svg);
	drop_dir(dir);
	chart_free(c);
}

/* Whether label is full with whole-word runs replaced by ellipses (each cut at a word boundary of full). */
static int cut_between_words(const char *label, const char *full)
{
	static const char ell[] = "\xe2\x80\xa6";
	size_t pos = 0, flen = strlen(full);
	const char *p = label;
	for (int first = 1;; first = 0) {
		const char *e = strstr(p, ell);
		size_t plen = e ? (size_t)(e - p) : strlen(p);
		size_t start;
		if (first) {
			if (strncmp(full, p, plen))
				return 0;
			start = 0;
		} else if (!e) {
			if (plen > flen || flen - plen < pos || strncmp(full + flen - plen, p, plen))
				return 0;
			start = flen - plen;
		} else {
			char *part = xstrndup(p, plen);
			const char *f = strstr(full + pos, part);
			free(part);
			if (!f)
				return 0;
			start = (size_t)(f - full);
		}
		if (!first && !label_boundary(full, start))
			return 0;
		if (e && !label_boundary(full, start + plen))
			return 0;
		pos = start + plen;
		if (!e)
			return 1;
		p = e + sizeof(ell) - 1;
	}
}

static void test_fit_labels(void)
{
	cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10);
	cairo_t *cr = cairo_create(img);
	set_font(cr, LABEL_PT, 0);

	/* Paper 004's runs (experiments/megatron-004/study.yaml) as utilization.csv labels them. */
	static const char *const runs[] = {
		"24 layers, d 1024, 8 GPUs (manifest)",
		"54 layers, d 1920, 20 heads, 2 model-parallel ranks (manifest)",
		"72 layers, d 3072, 32 heads, 8 model-parallel ranks (manifest)",
		"72 layers, d 3072, 8 heads, 8 model-parallel ranks (manifest)",
		"72 layers, d 3072, 32 heads, 8 model-parallel ranks, TORCH_DDP (manifest)",
		"72 layers, d 3072, 8 heads, 8 model-parallel ranks, TORCH_DDP (manifest)",
	};
	size_t n = sizeof(runs) / sizeof(runs[0]);
	/* As wide as the 62-character line: the TORCH_DDP lines must lose words. */
	double max_w = text_width(cr, runs[2]);
	char **lab = fit_labels(cr, runs, n, max_w, 90);
	for (size_t i = 0; i < n; i++) {
		CHECK(text_width(cr, lab[i]) <= max_w);
		CHECK(cut_between_words(lab[i], runs[i]));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(lab[i], lab[j]) != 0);
	}
	CHECK_STR(lab[2], runs[2]);
	/* What tells the runs apart stays: the heads and TORCH_DDP. */
	CHECK(strstr(lab[4], "32 heads") && strstr(lab[4], "TORCH_DDP"));
	CHECK(strstr(lab[5], "8 heads") && strstr(lab[5], "TORCH_DDP"));
	free_labels(lab, n);

	/* The 45-character limit alone: "8 m…ks, batch 2" cut words; now only whole words go. */
	lab = fit_labels(cr, runs, n, 1e9, 45);
	for (size_t i = 0; i < n; i++) {
		CHECK(cut_between_words(lab[i], runs[i]));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(lab[i], lab[j]) != 0);
	}
	free_labels(lab, n);

	/* Two kernels that differ only in the middle: a cut in the middle gave both one label. */
	static const char *const kernels[] = {
		"vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
		"at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >",
		"vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
		"at::native::binary_internal::DivFunctor<float> >, std::array<char*, 2ul> >",
		"ncclDevKernel_AllReduce_Sum_f32_RING_LL",
	};
	n = 3;
	char *mid = chart_shorten_middle(kernels[0], 45), *mid2 = chart_shorten_middle(kernels[1], 45);
	CHECK_STR(mid, mid2); /* the old way: the same label */
	free(mid);
	free(mid2);
	lab = fit_labels(cr, kernels, n, 1e9, 45);
	CHECK(strcmp(lab[0], lab[1]) != 0);
	CHECK(strstr(lab[0], "MulFunctor") != NULL);
	CHECK(strstr(lab[1], "DivFunctor") != NULL);
	CHECK_STR(lab[2], kernels[2]);
	for (size_t i = 0; i < n; i++)
		CHECK(cut_between_words(lab[i], kernels[i]));
	free_labels(lab, n);

	/* Word boundaries: between a letter or digit and anything else, at the ends, never inside a character. */
	CHECK(label_boundary("ab cd", 2) && label_boundary("ab cd", 3) && !label_boundary("ab cd", 1));
	CHECK(label_boundary("a::b", 1) && !label_boundary("model", 2) && label_boundary("x", 0));
	CHECK(!label_boundary("\xc3\xa9\xc3\xa9", 1));

	cairo_destroy(cr);
	cairo_surface_destroy(img);
}

int main(void)
{
	test_model_growth();
	test_one_value();
	test_rank_label();
	test_shorten();
	test_fit_labels();
	test_write_formats();
	test_escaping_and_odd_text();
	test_deterministic();
	test_grouped_and_line();
	test_xy();
	test_point_size();
	test_empty();
	test_timeline();
	test_failures();
	test_png();
	test_write_many();
	test_series_colours();
	test_log_bars();
	test_run_labels();
	test_kinds();
	test_titles_and_keys();
	test_fixed_colours();
	test_scaling_axis();
	return check_result("test_chart");
}
