/*
 * chart.c: the chart model of chart.h, free of cairo.
 *
 * Analyses fill a chart in whatever order suits them: all categories first
 * and series later, or the other way round. values[] is kept dense and
 * row-major (cat * nseries + series) at every step, so a reader of the
 * struct never sees a stale layout.
 */
#include "chart/chart.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

struct chart *chart_new(const struct chart_kind *kind, const char *name, const char *title,
			const char *value_label)
{
	struct chart *c = xcalloc(1, sizeof(*c));
	c->kind = kind;
	c->name = xstrdup(name ? name : "");
	c->title = xstrdup(title ? title : "");
	c->value_label = xstrdup(value_label ? value_label : "");
	return c;
}

void chart_free(struct chart *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ncat; i++)
		free(c->categories[i]);
	for (size_t i = 0; i < c->nseries; i++)
		free(c->series[i]);
	for (size_t i = 0; i < c->ncat; i++) {
		free(c->cat_keys[i]);
		free(c->cat_tips[i]);
	}
	free(c->cat_keys);
	free(c->cat_tips);
	free(c->marked);
	free(c->point_size);
	free(c->x_values);
	free(c->x_label);
	for (size_t i = 0; i < c->nrefs; i++)
		free(c->refs[i].label);
	free(c->refs);
	for (size_t i = 0; i < c->nbands; i++)
		free(c->bands[i].key);
	free(c->bands);
	free(c->like);
	free(c->note);
	free(c->spread);
	for (size_t i = 0; i < c->nspans; i++) {
		free(c->spans[i].key);
		free(c->spans[i].tip);
	}
	free(c->spans);
	free(c->path);
	free(c->path_label);
	free(c->categories);
	free(c->series);
	free(c->values);
	free(c->filled);
	free(c->name);
	free(c->title);
	free(c->value_label);
	free(c);
}

/*
 * Every per-category array holds cap_cat rows, grown together by doubling:
 * a chart of 20,000 ranks adds 20,000 categories, and growing each array
 * by one row would copy it every time (quadratic where realloc cannot
 * extend in place, as under AddressSanitizer).
 */
static void grow_rows(struct chart *c, size_t need)
{
	if (need <= c->cap_cat)
		return;
	size_t cap = c->cap_cat;
	c->categories = xgrow(c->categories, &cap, need, sizeof(*c->categories));
	c->cat_keys = xreallocarray(c->cat_keys, cap, sizeof(*c->cat_keys));
	c->cat_tips = xreallocarray(c->cat_tips, cap, sizeof(*c->cat_tips));
	c->x_values = xreallocarray(c->x_values, cap, sizeof(*c->x_values));
	if (c->marked)
		c->marked = xreallocarray(c->marked, cap, 1);
	if (c->point_size)
		c->point_size = xreallocarray(c->point_size, cap, sizeof(*c->point_size));
	if (c->spread)
		c->spread = xreallocarray(c->spread, cap, 4 * sizeof(*c->spread));
	if (c->nseries) {
		c->values = xreallocarray(c->values, cap, c->nseries * sizeof(*c->values));
		c->filled = xreallocarray(c->filled, cap, c->nseries);
	}
	c->cap_cat = cap;
}

size_t chart_add_category(struct chart *c, const char *label)
{
	/* A new category is a new row at the end: the old rows keep their place. */
	grow_rows(c, c->ncat + 1);
	c->categories[c->ncat] = xstrdup(label ? label : "");
	c->cat_keys[c->ncat] = NULL;
	c->cat_tips[c->ncat] = NULL;
	if (c->marked)
		c->marked[c->ncat] = 0;
	if (c->point_size)
		c->point_size[c->ncat] = 1;
	c->x_values[c->ncat] = NAN;
	if (c->spread)
		for (int k = 0; k < 4; k++)
			c->spread[c->ncat * 4 + (size_t)k] = NAN;
	for (size_t s = 0; s < c->nseries; s++) {
		c->values[c->ncat * c->nseries + s] = 0;
		c->filled[c->ncat * c->nseries + s] = 0;
	}
	return c->ncat++;
}

/*
 * Cuts every per-category array to the chart's categories: a figure of
 * 16,384 ranks trimmed to the 11 drawn (figure_ranks.c) kept its arrays
 * for 32,768 rows, 1 to 3 MB each, until it was drawn.
 */
static void fit_rows(struct chart *c)
{
	size_t cap = c->ncat ? c->ncat : 1;
	if (cap >= c->cap_cat)
		return;
	c->categories = xreallocarray(c->categories, cap, sizeof(*c->categories));
	c->cat_keys = xreallocarray(c->cat_keys, cap, sizeof(*c->cat_keys));
	c->cat_tips = xreallocarray(c->cat_tips, cap, sizeof(*c->cat_tips));
	c->x_values = xreallocarray(c->x_values, cap, sizeof(*c->x_values));
	if (c->marked)
		c->marked = xreallocarray(c->marked, cap, 1);
	if (c->spread)
		c->spread = xreallocarray(c->spread, cap, 4 * sizeof(*c->spread));
	if (c->nseries) {
		c->values = xreallocarray(c->values, cap, c->nseries * sizeof(*c->values));
		c->filled = xreallocarray(c->filled, cap, c->nseries);
	}
	c->cap_cat = cap;
}

void chart_keep_categories(struct chart *c, const unsigned char *keep)
{
	size_t k = 0;
	for (size_t i = 0; i < c->ncat; i++) {
		if (!keep[i]) {
			free(c->categories[i]);
			free(c->cat_keys[i]);
			free(c->cat_tips[i]);
			continue;
		}
		c->categories[k] = c->categories[i];
		c->cat_keys[k] = c->cat_keys[i];
		c->cat_tips[k] = c->cat_tips[i];
		c->x_values[k] = c->x_values[i];
		if (c->point_size)
			c->point_size[k] = c->point_size[i];
		if (c->spread)
			memmove(&c->spread[k * 4], &c->spread[i * 4], 4 * sizeof(*c->spread));
		if (c->nseries) {
			memmove(&c->values[k * c->nseries], &c->values[i * c->nseries], c->nseries * sizeof(*c->values));
			memmove(&c->filled[k * c->nseries], &c->filled[i * c->nseries], c->nseries);
		}
		k++;
	}
	c->ncat = k;
	fit_rows(c);
}

size_t chart_add_series(struct chart *c, const char *label)
{
	/* A new series widens every row, so the rows are copied to their new stride. */
	c->series = xgrow(c->series, &c->cap_series, c->nseries + 1, sizeof(*c->series));
	c->series[c->nseries] = xstrdup(label ? label : "");
	if (c->ncat) {
		size_t ns = c->nseries + 1;
		double *v = xcalloc(c->cap_cat * ns, sizeof(*v));
		unsigned char *f = xcalloc(c->cap_cat * ns, 1);
		for (size_t i = 0; i < c->ncat; i++)
			for (size_t s = 0; s < c->nseries; s++) {
				v[i * ns + s] = c->values[i * c->nseries + s];
				f[i * ns + s] = c->filled[i * c->nseries + s];
			}
		free(c->values);
		free(c->filled);
		c->values = v;
		c->filled = f;
	}
	return c->nseries++;
}

/*
 * One value per cell: a second chart_set of a cell keeps the first and
 * counts a collision (NaN, no value, leaves a cell open) (two runs drawn as one bar: ZeRO-1's over DDP's in
 * time_to_train, issue #54), which result_add_figure refuses to draw.
 */
void chart_set(struct chart *c, size_t cat, size_t series, double v)
{
	assert(cat < c->ncat && series < c->nseries);
	size_t i = cat * c->nseries + series;
	if (isnan(v) && !c->filled[i]) {
		c->values[i] = v; /* no value yet (a sparse chart's blank): the cell stays open */
		return;
	}
	if (c->filled[i]) {
		if (c->values[i] == v)
			return; /* the same value again (a shared baseline point) */
		if (!c->collisions++) {
			c->collision_cat = cat;
			c->collision_series = series;
		}
		return;
	}
	c->values[i] = v;
	c->filled[i] = 1;
}

void chart_add(struct chart *c, size_t cat, size_t series, double v)
{
	assert(cat < c->ncat && series < c->nseries);
	c->values[cat * c->nseries + series] += v;
	c->filled[cat * c->nseries + series] = 1;
}

void chart_update(struct chart *c, size_t cat, size_t series, double v)
{
	assert(cat < c->ncat && series < c->nseries);
	c->values[cat * c->nseries + series] = v;
	c->filled[cat * c->nseries + series] = 1;
}

double chart_get(const struct chart *c, size_t cat, size_t series)
{
	assert(cat < c->ncat && series < c->nseries);
	return c->values[cat * c->nseries + series];
}

void chart_set_category_key(struct chart *c, size_t cat, const char *key)
{
	assert(cat < c->ncat);
	free(c->cat_keys[cat]);
	c->cat_keys[cat] = key ? xstrdup(key) : NULL;
}

void chart_set_category_tip(struct chart *c, size_t cat, const char *tip)
{
	assert(cat < c->ncat);
	free(c->cat_tips[cat]);
	c->cat_tips[cat] = tip ? xstrdup(tip) : NULL;
}

void chart_mark_category(struct chart *c, size_t cat)
{
	assert(cat < c->ncat);
	if (!c->marked)
		c->marked = xcalloc(c->cap_cat, 1);
	c->marked[cat] = 1;
}

void chart_set_point_size(struct chart *c, size_t cat, double size)
{
	assert(cat < c->ncat);
	if (!c->point_size) {
		c->point_size = xreallocarray(NULL, c->cap_cat, sizeof(*c->point_size));
		for (size_t i = 0; i < c->cap_cat; i++)
			c->point_size[i] = 1;
	}
	c->point_size[cat] = size > 0 && isfinite(size) ? size : 1;
}

void chart_set_x(struct chart *c, size_t cat, double x)
{
	assert(cat < c->ncat);
	c->x_values[cat] = x;
}

void chart_set_x_axis(struct chart *c, const char *label, enum chart_scale scale)
{
	free(c->x_label);
	c->x_label = label ? xstrdup(label) : NULL;
	c->x_scale = scale;
}

void chart_set_spread(struct chart *c, size_t cat, double range_lo, double range_hi, double ci_lo, double ci_hi)
{
	assert(cat < c->ncat);
	if (!c->spread) {
		c->spread = xreallocarray(NULL, c->cap_cat, 4 * sizeof(*c->spread));
		for (size_t i = 0; i < c->cap_cat * 4; i++)
			c->spread[i] = NAN;
	}
	double *v = &c->spread[cat * 4];
	v[0] = range_lo;
	v[1] = range_hi;
	v[2] = ci_lo;
	v[3] = ci_hi;
}

void chart_add_refline(struct chart *c, const char *label, double slope, double intercept, int dashed)
{
	c->refs = xgrow(c->refs, &c->cap_refs, c->nrefs + 1, sizeof(*c->refs));
	c->refs[c->nrefs++] = (struct chart_refline){xstrdup(label ? label : ""), slope, intercept, dashed};
}

void chart_add_band(struct chart *c, double x0, double x1, const char *key)
{
	c->bands = xgrow(c->bands, &c->cap_bands, c->nbands + 1, sizeof(*c->bands));
	c->bands[c->nbands++] = (struct chart_band){x0, x1, xstrdup(key ? key : "")};
}

void chart_series_like(struct chart *c, size_t s, size_t like)
{
	if (s >= c->nlike) {
		c->like = xrealloc(c->like, (s + 1) * sizeof(*c->like));
		memset(c->like + c->nlike, 0, (s + 1 - c->nlike) * sizeof(*c->like));
		c->nlike = s + 1;
	}
	c->like[s] = like + 1;
}

void chart_set_note(struct chart *c, const char *note)
{
	free(c->note);
	c->note = note ? xstrdup(note) : NULL;
}

static int scale_ok(enum chart_scale sc, double v)
{
	return isfinite(v) && (sc == CHART_SCALE_LINEAR || v > 0);
}

int chart_xy_drawable(const struct chart *c, size_t cat, size_t series)
{
	assert(cat < c->ncat && series < c->nseries);
	return scale_ok(c->x_scale, c->x_values[cat]) && scale_ok(c->y_scale, c->values[cat * c->nseries + series]);
}

size_t chart_xy_skipped(const struct chart *c)
{
	size_t n = 0;
	for (size_t i = 0; i < c->ncat; i++)
		for (size_t s = 0; s < c->nseries; s++)
			n += !chart_xy_drawable(c, i, s) && !(c->sparse && isnan(c->values[i * c->nseries + s]));
	return n;
}

int chart_size_preset(const char *name, double *w, double *h)
{
	static const struct {
		const char *name;
		double w, h;
	} presets[] = {
		{"single", 3.5, 2.6},   /* one column of a two-column paper */
		{"double", 7.0, 3.5},   /* the full text width */
		{"slide", 10.0, 5.625}, /* 16:9 */
	};
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		if (!strcmp(name, presets[i].name)) {
			*w = presets[i].w;
			*h = presets[i].h;
			return 0;
		}
	}
	return -1;
}

/*
 * Appends s escaped for LaTeX text mode: the ten special characters become
 * commands, control characters spaces; UTF-8 passes through (LaTeX reads
 * UTF-8 since 2018).
 */
static void latex_escape(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '\\':
			buf_adds(b, "\\textbackslash{}");
			break;
		case '{':
		case '}':
		case '$':
		case '&':
		case '#':
		case '%':
		case '_':
			buf_addc(b, '\\');
			buf_addc(b, (char)*p);
			break;
		case '^':
			buf_adds(b, "\\textasciicircum{}");
			break;
		case '~':
			buf_adds(b, "\\textasciitilde{}");
			break;
		case '<':
			buf_adds(b, "\\textless{}");
			break;
		case '>':
			buf_adds(b, "\\textgreater{}");
			break;
		default:
			buf_addc(b, *p < 0x20 || *p == 0x7f ? ' ' : (char)*p);
		}
	}
}

void chart_size(const struct chart_style *style, double *w_in, double *h_in)
{
	/* Default: a full text width in a two-column paper. */
	double w = 7.0, h = 3.5;
	if (style && style->width_in > 0 && isfinite(style->width_in))
		w = style->width_in;
	if (style && style->height_in > 0 && isfinite(style->height_in))
		h = style->height_in;
	*w_in = w;
	*h_in = h;
}

int chart_write_latex(const struct chart *c, const char *dir, const char *caption,
		      const struct chart_style *style)
{
	double w, h;
	chart_size(style, &w, &h);
	const char *env = w > 3.5 + 1e-9 ? "figure*" : "figure";
	struct buf b;
	buf_init(&b);
	/* The name is [a-z0-9_-] (chart_write checks it), safe in a file name and a label. */
	buf_printf(&b, "%% %s: generated by perfstudy; \\input{} it or copy it into your paper.\n"
		       "%% The PDF is included at its natural size (%.3g x %.3g in), the size its text was set for.\n"
		       "\\begin{%s}[tbp]\n"
		       "  \\centering\n"
		       "  \\includegraphics{figures/%s.pdf}\n"
		       "  \\caption{",
		   c->name, w, h, env, c->name);
	latex_escape(&b, caption ? caption : "");
	buf_printf(&b, "}\n  \\label{fig:%s}\n\\end{%s}\n", c->name, env);
	char *path = xasprintf("%s/%s.tex", dir, c->name);
	int rc = fs_write_file(path, b.data, b.len);
	free(path);
	buf_release(&b);
	return rc;
}

/* A UTF-8 continuation byte never starts a character, so cuts skip over them. */
static int is_cont(unsigned char ch)
{
	return (ch & 0xc0) == 0x80;
}

char *chart_shorten_middle(const char *s, size_t max_chars)
{
	static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
	size_t len = strlen(s), nchars = 0;

	for (size_t i = 0; i < len; i++)
		nchars += !is_cont((unsigned char)s[i]);
	if (nchars <= max_chars)
		return xstrdup(s);
	if (max_chars == 0)
		return xstrdup("");

	/* The head gets the odd character: a name's start usually tells more. */
	size_t keep = max_chars - 1;
	size_t head_chars = (keep + 1) / 2, tail_chars = keep - head_chars;

	size_t head = 0;
	for (size_t n = 0; head < len; head++) {
		if (!is_cont((unsigned char)s[head]) && n++ == head_chars)
			break;
	}
	size_t tail = len;
	for (size_t n = 0; n < tail_chars && tail > head;) {
		tail--;
		if (!is_cont((unsigned char)s[tail]))
			n++;
	}

	char *out = xmalloc(head + sizeof(ellipsis) + (len - tail));
	memcpy(out, s, head);
	memcpy(out + head, ellipsis, sizeof(ellipsis) - 1);
	memcpy(out + head + sizeof(ellipsis) - 1, s + tail, len - tail);
	out[head + sizeof(ellipsis) - 1 + len - tail] = '\0';
	return out;
}

void chart_add_span(struct chart *c, size_t lane, size_t row, double x0, double x1, const char *key,
		    const char *tip, int mark)
{
	c->spans = xgrow(c->spans, &c->cap_spans, c->nspans + 1, sizeof(*c->spans));
	c->spans[c->nspans++] = (struct chart_span){lane, row, x0, x1, xstrdup(key ? key : ""),
						    tip ? xstrdup(tip) : NULL, mark};
}

void chart_add_path_point(struct chart *c, size_t lane, double x)
{
	c->path = xgrow(c->path, &c->cap_path, c->npath + 1, sizeof(*c->path));
	c->path[c->npath++] = (struct chart_path_point){lane, x};
}

void chart_set_path_label(struct chart *c, const char *label)
{
	free(c->path_label);
	c->path_label = xstrdup(label);
}

int chart_is_empty(const struct chart *c)
{
	for (size_t i = 0; i < c->ncat; i++)
		for (size_t j = 0; j < c->nseries; j++) {
			double v = chart_get(c, i, j);
			if (v == v && v != 0)
				return 0;
		}
	return 1;
}

char *chart_display_name(const char *name)
{
	/* Names of perfstudy's own tables whose words a reader should not have to guess. */
	static const struct {
		const char *code, *shown;
	} words[] = {
		{"cpu_other", "other host operators"},
		{"cuda_runtime", "CUDA runtime"},
		{"get_train_batch", "get batch"},
	};
	if (!name)
		return xstrdup("");
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(name, words[i].code))
			return xstrdup(words[i].shown);
	/* Only a snake_case name ("data_loading") is a code name; "dram__bytes.sum" is a metric's own. */
	int snake = name[0] >= 'a' && name[0] <= 'z';
	for (const char *p = name; *p && snake; p++)
		snake = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || (*p == '_' && p[1] && p[1] != '_');
	char *s = xstrdup(name);
	for (char *p = s; *p && snake; p++)
		if (*p == '_')
			*p = ' ';
	return s;
}

/*
 * The run of ids[] that s names: s is the id, or the id and a space and
 * more; the longest such id, so "a-b r0" is run "a-b", not "a". Returns its
 * index, or n.
 */
static size_t run_of(const char *s, const char *const *ids, size_t n)
{
	size_t best = n, best_len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = ids[i] ? strlen(ids[i]) : 0;
		if (l && l > best_len && !strncmp(s, ids[i], l) && (s[l] == '\0' || s[l] == ' '))
			best = i, best_len = l;
	}
	return best;
}

/* Replaces *s's leading ids[i] by labels[i]; returns 1 when s named a run (labelled or not). */
static int relabel(char **s, const char *const *ids, const char *const *labels, size_t n)
{
	size_t i = run_of(*s, ids, n);
	if (i == n)
		return 0;
	if (labels && labels[i] && labels[i][0]) {
		char *t = xasprintf("%s%s", labels[i], *s + strlen(ids[i]));
		free(*s);
		*s = t;
	}
	return 1;
}

/* See chart.h: s ends in " r" and digits, a rank after a run. */
int chart_rank_label(const char *s, size_t *run_len, long long *rank)
{
	size_t l = strlen(s), d = l;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	if (!(d < l && l - d <= 18 && d >= 2 && s[d - 1] == 'r' && s[d - 2] == ' '))
		return 0; /* at most 18 digits: the rank fits a long long */
	if (run_len)
		*run_len = d - 2;
	if (rank)
		*rank = strtoll(s + d, NULL, 10);
	return 1;
}

/* A character that can be part of a run id ([A-Za-z0-9._-]). */
static int id_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
	       ch == '_' || ch == '-';
}

/* Replaces every run id in text that stands alone (no id character either side) by its label. */
static void relabel_text(char **text, const char *const *ids, const char *const *labels, size_t n)
{
	struct buf b;
	buf_init(&b);
	const char *p = *text;
	int changed = 0;
	while (*p) {
		size_t best = n, best_len = 0;
		if (p == *text || !id_char(p[-1]))
			for (size_t i = 0; i < n; i++) {
				size_t l = ids[i] ? strlen(ids[i]) : 0;
				if (l > best_len && labels[i] && labels[i][0] && !strncmp(p, ids[i], l) && !id_char(p[l]))
					best = i, best_len = l;
			}
		if (best < n) {
			buf_adds(&b, labels[best]);
			p += best_len;
			changed = 1;
		} else {
			buf_addc(&b, *p++);
		}
	}
	if (changed) {
		free(*text);
		*text = buf_detach(&b);
	} else {
		buf_release(&b);
	}
}

void chart_use_run_labels(struct chart *c, const char *const *ids, const char *const *labels, size_t n)
{
	if (labels)
		relabel_text(&c->title, ids, labels, n);
	size_t runs = 0, ranked = 0;
	for (size_t i = 0; i < c->ncat; i++) {
		ranked += chart_rank_label(c->categories[i], NULL, NULL);
		runs += relabel(&c->categories[i], ids, labels, n);
	}
	for (size_t s = 0; s < c->nseries; s++)
		relabel(&c->series[s], ids, labels, n);
	if (c->ncat && runs == c->ncat && !c->x_label && !c->kind->points)
		c->x_label = xstrdup(ranked == c->ncat ? "run, rank" : "run");
}
