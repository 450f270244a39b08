/*
 * text.c: text on a figure. Any string from an input made safe for cairo
 * (clean_text), measured rather than guessed (text_width, line_height),
 * shortened in the middle or wrapped to fit, and the title, axis titles and
 * "no data" placed with it.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

static void add_utf8(struct buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	buf_add(b, u, n);
}

/*
 * Returns a copy of s that cairo accepts. cairo refuses a whole string, and
 * puts the context into an error state, when it holds a byte sequence that
 * is not valid UTF-8 or that encodes a surrogate or a noncharacter; a trace
 * can hold any bytes in a kernel name, so each bad byte becomes U+FFFD.
 * Control characters become spaces: the toy text API draws one line.
 */
char *clean_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	struct buf b;

	buf_init(&b);
	while (*p) {
		unsigned long cp, min;
		size_t n, i;

		if (*p < 0x80) {
			buf_addc(&b, (*p < 0x20 || *p == 0x7f) ? ' ' : (char)*p);
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf) {
			n = 2, min = 0x80, cp = *p & 0x1f;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 3, min = 0x800, cp = *p & 0x0f;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 4, min = 0x10000, cp = *p & 0x07;
		} else {
			add_utf8(&b, 0xfffd);
			p++;
			continue;
		}
		for (i = 1; i < n && (p[i] & 0xc0) == 0x80; i++)
			cp = (cp << 6) | (p[i] & 0x3f);
		if (i < n || cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe) {
			add_utf8(&b, 0xfffd);
			p++;
			continue;
		}
		if (cp < 0xa0)
			buf_addc(&b, ' '); /* C1 controls */
		else
			buf_add(&b, p, n);
		p += n;
	}
	return b.data; /* the bytes move to the caller; b is not used again */
}

/* Selects the chart's font at size (scaled by the style), never below MIN_PT. */
void set_font(cairo_t *cr, double size, int bold)
{
	cairo_select_font_face(cr, look.font ? look.font : FONT, CAIRO_FONT_SLANT_NORMAL,
			       bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, fmax(MIN_PT, size * (look.scale > 0 ? look.scale : 1)));
}

double text_width(cairo_t *cr, const char *s)
{
	cairo_text_extents_t te;
	cairo_text_extents(cr, s, &te);
	return te.x_advance;
}

/* Ascent plus descent of the current font: the height every line reserves. */
double line_height(cairo_t *cr)
{
	cairo_font_extents_t fe;
	cairo_font_extents(cr, &fe);
	return fe.ascent + fe.descent;
}

/*
 * Returns a new string: s shortened in the middle to at most max_chars
 * (and CHART_TEXT_MAX) characters and max_w points in the current font; ""
 * if not even the ellipsis fits. The longest that fits is found by binary
 * search: the width grows with the characters kept.
 */
char *fit_text(cairo_t *cr, const char *s, double max_w, size_t max_chars)
{
	size_t n = 0;
	for (const char *p = s; *p; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	if (n > max_chars)
		n = max_chars;
	if (n > CHART_TEXT_MAX)
		n = CHART_TEXT_MAX;
	char *best = NULL;
	size_t lo = 1, hi = n; /* the answer is in [lo, hi], or there is none */
	while (lo <= hi) {
		size_t mid = lo + (hi - lo) / 2;
		char *t = chart_shorten_middle(s, mid);
		if (text_width(cr, t) <= max_w) {
			free(best);
			best = t;
			lo = mid + 1;
		} else {
			free(t);
			hi = mid - 1;
		}
	}
	return best ? best : xstrdup("");
}

/* A copy of s, or when it has more than CHART_TEXT_MAX characters a copy shortened to that in the middle; the caller frees. */
static char *capped(const char *s)
{
	return chart_shorten_middle(s, CHART_TEXT_MAX);
}

/*
 * Draws s with its anchor at (x, y): halign 0 puts the left end there, 1
 * the right end; valign 0 the top of the line box, 1 its bottom.
 */
void show_text(cairo_t *cr, const char *s, double x, double y, double halign,
		      double valign)
{
	cairo_font_extents_t fe;
	cairo_font_extents(cr, &fe);
	cairo_move_to(cr, x - halign * text_width(cr, s),
		      y + fe.ascent - valign * (fe.ascent + fe.descent));
	cairo_show_text(cr, s);
}

/*
 * Draws s rotated by angle radians counter-clockwise, with the middle of its
 * line box at (x, y): its right end when right is set, else its centre.
 */
void show_rotated(cairo_t *cr, const char *s, double x, double y, double angle, int right)
{
	cairo_font_extents_t fe;
	cairo_font_extents(cr, &fe);
	double w = text_width(cr, s);
	cairo_save(cr);
	cairo_translate(cr, x, y);
	cairo_rotate(cr, -angle);
	cairo_move_to(cr, right ? -w : -w / 2, (fe.ascent - fe.descent) / 2);
	cairo_show_text(cr, s);
	cairo_restore(cr);
}

/*
 * Splits a title too wide for w into two lines at the last space that lets
 * the first fit; the second is shortened in the middle if it still does not.
 * *l2 is NULL when one line does. Both are the caller's.
 */
static void title_lines(cairo_t *cr, const struct text *t, double w, char **l1, char **l2)
{
	set_font(cr, TITLE_PT, 1);
	double avail = w - 2 * PAD;
	*l2 = NULL;
	/* One measurement per space from the end: at most CHART_TEXT_MAX of them. */
	char *title = capped(t->title);
	if (text_width(cr, title) <= avail) {
		*l1 = title;
		return;
	}
	size_t n = strlen(title);
	for (size_t i = n; i-- > 1;) {
		if (title[i] != ' ')
			continue;
		char *head = xstrndup(title, i);
		if (text_width(cr, head) <= avail) {
			*l1 = head;
			*l2 = fit_text(cr, title + i + 1, avail, (size_t)-1);
			free(title);
			return;
		}
		free(head);
	}
	*l1 = fit_text(cr, title, avail, (size_t)-1);
	free(title);
}

/* Returns the y below which the plot may start: the title's block, drawn later. */
double title_bottom(cairo_t *cr, const struct text *t, double w)
{
	if (!t->title[0])
		return PAD;
	char *l1, *l2;
	title_lines(cr, t, w, &l1, &l2);
	double lines = l2 ? 2 : 1;
	free(l1);
	free(l2);
	set_font(cr, TITLE_PT, 1);
	return PAD + lines * line_height(cr) + 2 * GAP;
}

/* Draws the title centred over [x0, x1] if it fits there, else over the figure. */
void draw_title(cairo_t *cr, const struct text *t, double w, double x0, double x1)
{
	if (!t->title[0])
		return;
	char *l[2];
	title_lines(cr, t, w, &l[0], &l[1]);
	set_font(cr, TITLE_PT, 1);
	double lh = line_height(cr);
	set_grey(cr, 0);
	for (int i = 0; i < 2 && l[i]; i++) {
		double tw = text_width(cr, l[i]);
		double cx = (x0 + x1) / 2;
		if (cx - tw / 2 < PAD || cx + tw / 2 > w - PAD)
			cx = w / 2;
		show_text(cr, l[i], cx, PAD + i * lh, 0.5, 0);
		free(l[i]);
	}
}

void draw_no_data(cairo_t *cr, const struct text *t, double w, double h)
{
	draw_title(cr, t, w, 0, w);
	double top = title_bottom(cr, t, w);
	set_font(cr, NODATA_PT, 0);
	set_grey(cr, 0.4);
	show_text(cr, "no data", w / 2, (top + h - PAD) / 2, 0.5, 0.5);
}

/*
 * An axis title shortened to max_w by whole words (fit_labels), its unit
 * in parentheses at the end ("(ms, utilization.csv)") kept whole.
 */
static char *fit_title(cairo_t *cr, const char *label, double max_w)
{
	if (text_width(cr, label) <= max_w)
		return xstrdup(label);
	const char *unit = strrchr(label, '(');
	size_t n = strlen(label);
	if (!unit || unit == label || unit[-1] != ' ' || label[n - 1] != ')')
		unit = label + n;
	char *head = xstrndup(label, (size_t)(unit - label));
	const char *const one[] = {head};
	char **fit = fit_labels(cr, one, 1, max_w - text_width(cr, unit), (size_t)-1);
	char *s = fit[0][0] ? xasprintf("%s%s", fit[0], unit) : fit_text(cr, label, max_w, (size_t)-1);
	free_labels(fit, 1);
	free(head);
	return s;
}

/*
 * The lines of a y axis title along a plot len points tall, at most
 * max_lines (1 or 2): the title whole where it fits on one; else on two,
 * split before its unit in parentheses at the end where both then fit, else
 * at the space that leaves the longer of the two shortest, each
 * then shortened by whole words only where it still does not fit (so
 * "bus bandwidth (GB/s), log scale" beside a short plot is two whole lines,
 * not "bus ... (GB/s), log scale"). Sets the axis font. Returns how many;
 * the lines are the caller's.
 */
static size_t y_title_split(cairo_t *cr, const char *label, double len, size_t max_lines, char *line[2])
{
	set_font(cr, AXIS_PT, 0);
	line[1] = NULL;
	if (max_lines < 2 || text_width(cr, label) <= len) {
		line[0] = fit_title(cr, label, len);
		return 1;
	}
	size_t n = strlen(label), best = 0;
	double best_w = INFINITY;
	/* Before the unit in parentheses at the end ("(ms, utilization.csv)") where both lines then fit. */
	const char *unit = strrchr(label, '(');
	if (unit && unit > label + 1 && unit[-1] == ' ' && label[n - 1] == ')') {
		char *head = xstrndup(label, (size_t)(unit - label) - 1);
		if (text_width(cr, head) <= len && text_width(cr, unit) <= len) {
			best = (size_t)(unit - label) - 1;
			best_w = 0; /* taken: no split below is tried */
		}
		free(head);
	}
	/* Else at the most even split: one pair of measurements per space (an axis title is short). */
	for (size_t i = 1; best_w > 0 && i + 1 < n && i < CHART_TEXT_MAX; i++) {
		if (label[i] != ' ')
			continue;
		char *head = xstrndup(label, i);
		double wmax = fmax(text_width(cr, head), text_width(cr, label + i + 1));
		free(head);
		if (wmax < best_w) {
			best_w = wmax;
			best = i;
		}
	}
	if (best_w == INFINITY) {
		line[0] = fit_title(cr, label, len);
		return 1;
	}
	char *head = xstrndup(label, best);
	line[0] = fit_title(cr, head, len);
	line[1] = fit_title(cr, label + best + 1, len);
	free(head);
	return 2;
}

size_t y_title_lines(cairo_t *cr, const char *label, double len)
{
	char *line[2];
	size_t n = y_title_split(cr, label, len, 2, line);
	free(line[0]);
	free(line[1]);
	return n;
}

/*
 * Draws a y axis title rotated, its first line starting at x_left (a
 * second, where max_lines allows one and the title needs it, beside it on
 * the right), centred on the plot's height; its tooltip says "y axis: ...".
 */
void draw_y_title(cairo_t *cr, const char *label, const struct box *b, double x_left, size_t max_lines)
{
	char *line[2];
	size_t n = y_title_split(cr, label, b->y1 - b->y0, max_lines, line);
	double lh = line_height(cr), y = (b->y0 + b->y1) / 2, tw = 0;
	set_grey(cr, 0);
	for (size_t i = 0; i < n; i++) {
		tw = fmax(tw, text_width(cr, line[i]));
		show_rotated(cr, line[i], x_left + ((double)i + 0.5) * lh, y, M_PI / 2, 0);
		free(line[i]);
	}
	add_tip(x_left, y - tw / 2, (double)n * lh, tw, xasprintf("y axis: %s", label));
}

/*
 * Draws the value axis label rotated, centred on the plot's height, just
 * left of the tick labels, whose widest is tick_w wide: on two lines where
 * one does not fit the plot's height (y_title_lines; the layout leaves the
 * room for them).
 */
void draw_value_label_left(cairo_t *cr, const char *label, const struct box *b, double tick_w)
{
	if (!label[0])
		return;
	size_t n = y_title_lines(cr, label, b->y1 - b->y0);
	draw_y_title(cr, label, b, b->x0 - TICK_LEN - GAP - tick_w - 2 * GAP - (double)n * line_height(cr), 2);
}

/*
 * Draws an axis title centred under the plot [x0, x1] (kept inside the
 * figure of width w) with its top at y; its tooltip says "x axis: ...".
 */
void draw_x_title(cairo_t *cr, const char *label, double x0, double x1, double y, double w)
{
	set_font(cr, AXIS_PT, 0);
	char *s = fit_title(cr, label, w - 2 * PAD);
	double tw = text_width(cr, s), cx = fmin(fmax((x0 + x1) / 2, PAD + tw / 2), w - PAD - tw / 2);
	set_grey(cr, 0);
	show_text(cr, s, cx, y, 0.5, 0);
	add_tip(cx - tw / 2, y, tw, line_height(cr), xasprintf("x axis: %s", label));
	free(s);
}

/*
 * Splits text into lines of at most max_w points in the current font,
 * breaking at spaces; a word wider than a line is shortened. Returns the
 * number of lines and sets *out (caller frees each and the array).
 */
size_t wrap_text(cairo_t *cr, const char *text, double max_w, char ***out)
{
	size_t n = 0;
	char **lines = NULL;
	struct buf cur;
	buf_init(&cur);
	char *whole = capped(text); /* at most CHART_TEXT_MAX characters: a few lines, never thousands */
	const char *p = whole;
	while (*p) {
		const char *sp = strchr(p, ' ');
		size_t wl = sp ? (size_t)(sp - p) : strlen(p);
		size_t keep = cur.len;
		if (cur.len)
			buf_addc(&cur, ' ');
		buf_add(&cur, p, wl);
		if (keep && text_width(cr, cur.data) > max_w) {
			/* The word starts the next line. */
			lines = xrealloc(lines, (n + 1) * sizeof(*lines));
			lines[n++] = xstrndup(cur.data, keep);
			buf_reset(&cur);
			buf_add(&cur, p, wl);
		}
		p += wl;
		while (*p == ' ')
			p++;
	}
	if (cur.len) {
		lines = xrealloc(lines, (n + 1) * sizeof(*lines));
		lines[n++] = xstrdup(cur.data);
	}
	buf_release(&cur);
	free(whole);
	for (size_t i = 0; i < n; i++) {
		char *f = fit_text(cr, lines[i], max_w, (size_t)-1);
		free(lines[i]);
		lines[i] = f;
	}
	*out = lines;
	return n;
}

/*
 * Where a label breaks into two lines: its space nearest the middle (the
 * first of two as near), or with after_comma its nearest space after a
 * comma ("GPT-2 124M," / "2 GPUs, DDP"). Returns a pointer into s, or
 * NULL when s has no such space.
 */
const char *middle_space(const char *s, int after_comma)
{
	long half = (long)strlen(s) / 2;
	const char *best = NULL;
	for (const char *q = strchr(s, ' '); q; q = strchr(q + 1, ' '))
		if ((!after_comma || (q > s && q[-1] == ',')) &&
		    (!best || labs((long)(q - s) - half) < labs((long)(best - s) - half)))
			best = q;
	return best;
}
