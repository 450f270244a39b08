/* figures.c: chart models from analysis tables, see figures.h. */
#include "chart/figures.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

struct chart *figure_group_fractions(const struct table *groups, const struct group_cols *k,
				     const char *const *group_order, size_t ngroups)
{
	struct chart *c = chart_new(CHART_STACKED_BAR, "group_fractions",
				    "GPU time by kernel group", "share of GPU time");
	for (size_t g = 0; g < ngroups; g++)
		chart_add_series(c, group_order[g]);
	int crun = k->run, crank = k->rank;
	int cgroup = k->group, cfrac = k->fraction;
	struct buf label, last;
	buf_init(&label);
	buf_init(&last);
	size_t cat = 0;
	for (size_t r = 0; r < groups->nrows; r++) {
		buf_reset(&label);
		buf_printf(&label, "%s r%" PRId64, table_cell(groups, r, (size_t)crun)->v.text,
			   table_cell(groups, r, (size_t)crank)->v.i);
		if (!c->ncat || strcmp(label.data, last.data)) {
			cat = chart_add_category(c, label.data);
			buf_reset(&last);
			buf_adds(&last, label.data);
		}
		const struct cell *f = table_cell(groups, r, (size_t)cfrac);
		const char *g = table_cell(groups, r, (size_t)cgroup)->v.text;
		for (size_t s = 0; s < ngroups; s++)
			if (!strcmp(group_order[s], g) && !f->null)
				chart_set(c, cat, s, f->v.f);
	}
	buf_release(&label);
	buf_release(&last);
	return c;
}

/*
 * A kernel's label for a chart: "void ns::kernel<T>(args)" becomes
 * "kernel<T>": the return type, the argument list and namespace qualifiers
 * outside template brackets say nothing that tells kernels apart, and
 * the renderer shortens what is left in the middle. Full names stay in
 * kernels.csv and the HTML table.
 */
char *kernel_label(const char *name)
{
	size_t n = strlen(name);
	const char *p = name;
	if (!strncmp(p, "void ", 5))
		p += 5, n -= 5;
	/* Drop a trailing top-level argument list. */
	if (n && p[n - 1] == ')') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			if (p[i] == ')')
				depth++;
			else if (p[i] == '(' && --depth == 0) {
				if (i > 0)
					n = i;
				break;
			}
		}
	}
	/* Keep what follows the last "::" outside <...> and (...). */
	size_t start = 0;
	int depth = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		if (p[i] == '<' || p[i] == '(')
			depth++;
		else if ((p[i] == '>' || p[i] == ')') && depth > 0)
			depth--;
		else if (depth == 0 && p[i] == ':' && p[i + 1] == ':')
			start = i + 2;
	}
	if (start >= n)
		start = 0;
	return xstrndup(p + start, n - start);
}

struct chart *figure_top_kernels(const struct table *kernels, const struct kernel_cols *k, const char *run,
				 int64_t rank, int top_n, const char *name, const size_t *rows, size_t nrows)
{
	char *title = xasprintf("Top %d kernels by total time: %s, rank %" PRId64, top_n, run, rank);
	struct chart *c = chart_new(CHART_HBAR, name, title, "total time (ms)");
	free(title);
	chart_add_series(c, "total");
	chart_set_x_axis(c, "kernel", CHART_SCALE_LINEAR);
	int crun = k->run, crank = k->rank;
	int cname = k->name, ctotal = k->total_us;
	int cgroup = k->group;
	int n = 0;
	/* kernels.csv is sorted by total time within (run, rank). */
	size_t end = rows ? nrows : kernels->nrows;
	for (size_t i = 0; i < end && n < top_n; i++) {
		size_t r = rows ? rows[i] : i;
		if (strcmp(table_cell(kernels, r, (size_t)crun)->v.text, run) ||
		    table_cell(kernels, r, (size_t)crank)->v.i != rank)
			continue;
		const char *full = table_cell(kernels, r, (size_t)cname)->v.text;
		char *label = kernel_label(full);
		size_t cat = chart_add_category(c, label);
		free(label);
		/* The bar takes its group's colour; the SVG tooltip shows the whole name. */
		chart_set_category_tip(c, cat, full);
		if (cgroup >= 0 && !table_cell(kernels, r, (size_t)cgroup)->null)
			chart_set_category_key(c, cat, table_cell(kernels, r, (size_t)cgroup)->v.text);
		chart_set(c, cat, 0, (double)table_cell(kernels, r, (size_t)ctotal)->v.i / 1e6);
		n++;
	}
	return c;
}

struct chart *figure_published(const struct table *published, const struct published_cols *k, const char *quantity,
			       double scale, const char *name, const char *title, const char *value_label)
{
	int crun = k->run, cq = k->quantity;
	int cpub = k->published, cours = k->perfstudy;
	if (crun < 0 || cq < 0 || cpub < 0 || cours < 0)
		return NULL;
	struct chart *c = chart_new(CHART_GROUPED_BAR, name, title, value_label);
	c->entity_series = 1;
	size_t sp = chart_add_series(c, "published"), so = chart_add_series(c, "perfstudy");
	for (size_t r = 0; r < published->nrows; r++) {
		if (strcmp(table_cell(published, r, (size_t)cq)->v.text, quantity))
			continue;
		const struct cell *p = table_cell(published, r, (size_t)cpub), *o = table_cell(published, r, (size_t)cours);
		size_t cat = chart_add_category(c, table_cell(published, r, (size_t)crun)->v.text);
		/* An estimate perfstudy cannot make (a model without its shape) is no bar. */
		chart_set(c, cat, sp, p->null ? 0 : p->v.f * scale);
		chart_set(c, cat, so, o->null ? 0 : o->v.f * scale);
	}
	if (!c->ncat) {
		chart_free(c);
		return NULL;
	}
	return c;
}
