/*
 * draw_hbar.c: the kind CHART_HBAR (chart_kind_hbar), one horizontal bar
 * per category (series 0), coloured by the category's key.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* The widest line of a label of one or two lines. */
static double label_width(cairo_t *cr, char *s)
{
	char *nl = strchr(s, '\n');
	if (!nl)
		return text_width(cr, s);
	*nl = '\0';
	double w1 = text_width(cr, s), w2 = text_width(cr, nl + 1);
	*nl = '\n';
	return fmax(w1, w2);
}

/*
 * Each bar's label: whole when it fits; in two lines split at the space
 * nearest the middle (after a comma if one is near) when rows are tall
 * enough and both lines fit; else shortened with the others (fit_labels:
 * whole words, the shared part first, every label different).
 */
static void hbar_labels(cairo_t *cr, const struct text *t, size_t nc, double max_w, int two_lines, char **label)
{
	char **fit = fit_labels(cr, (const char *const *)t->cats, nc, max_w, 2 * MAX_LABEL_CHARS);
	for (size_t i = 0; i < nc; i++) {
		const char *full = t->cats[i], *split = NULL;
		if (two_lines && strcmp(fit[i], full)) {
			/* After a comma near the middle (one far from it makes one line too long), else any space. */
			long half = (long)strlen(full) / 2;
			split = middle_space(full, 1);
			if (!split || labs((long)(split - full) - half) > half / 2)
				split = middle_space(full, 0);
		}
		if (split) {
			char *l1 = xstrndup(full, (size_t)(split - full));
			const char *l2 = split + 1;
			if (strlen(l1) <= MAX_LABEL_CHARS && strlen(l2) <= MAX_LABEL_CHARS &&
			    text_width(cr, l1) <= max_w && text_width(cr, l2) <= max_w) {
				label[i] = xasprintf("%s\n%s", l1, l2);
				free(fit[i]);
				fit[i] = NULL;
			}
			free(l1);
		}
		if (!label[i]) {
			label[i] = fit[i];
			fit[i] = NULL;
		}
	}
	free_labels(fit, nc);
}

static void draw_hbar(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	size_t nc = c->ncat, ns = c->nseries;
	struct axis a;
	struct box b;
	char **label = xcalloc(nc, sizeof(*label));
	char **vtext = xcalloc(nc, sizeof(*vtext));

	double lo = 0, hi = 0, minpos = INFINITY;
	for (size_t i = 0; i < nc; i++) {
		double v = finite_or_0(c->values[i * ns]);
		lo = fmin(lo, v);
		hi = fmax(hi, v);
		if (v > 0)
			minpos = fmin(minpos, v);
		double slo = INFINITY, shi = -INFINITY;
		spread_extent(c, i, &slo, &shi);
		if (shi >= slo) {
			hi = fmax(hi, shi);
			if (slo > 0)
				minpos = fmin(minpos, slo);
		}
	}
	/* A log axis when asked for or wide apart (want_log); bars on it need positive values. */
	int use_log = want_log(lo, hi, minpos);
	if (use_log)
		axis_log(&a, minpos, hi);
	else
		axis_nice(&a, lo, hi);

	/* Bars coloured by their key (a kernel's group) get a key of those keys. */
	struct key k;
	size_t *bar_colour = xcalloc(nc, sizeof(*bar_colour));
	char **lnames = xcalloc(nc, sizeof(*lnames));
	size_t *lcolours = xcalloc(nc, sizeof(*lcolours));
	size_t nkeys = 0;
	for (size_t i = 0; i < nc; i++) {
		bar_colour[i] = c->cat_keys[i] ? colour_of(c->cat_keys[i], 0) : look.series_colour[0];
		if (!c->cat_keys[i])
			continue;
		size_t k = 0;
		while (k < nkeys && lcolours[k] != bar_colour[i])
			k++;
		if (k == nkeys) {
			/* Insert in palette order, so every figure lists the groups alike. */
			size_t at = nkeys;
			while (at > 0 && lcolours[at - 1] > bar_colour[i]) {
				lcolours[at] = lcolours[at - 1];
				lnames[at] = lnames[at - 1];
				at--;
			}
			lcolours[at] = bar_colour[i];
			char *shown = chart_display_name(c->cat_keys[i]);
			lnames[at] = clean_text(shown);
			free(shown);
			nkeys++;
		}
	}
	key_init(&k, w);
	legend_layout(cr, &k.lg, lnames, lcolours, nkeys, w, h - 2 * PAD - 30);
	key_measure(&k);

	/* Room for the printed values beside the bar ends, on either side of 0. */
	set_font(cr, TICK_PT, 0);
	double pos_pad = 0, neg_pad = 0;
	for (size_t i = 0; i < nc; i++) {
		double v = finite_or_0(c->values[i * ns]);
		vtext[i] = value_text(v);
		double tw = text_width(cr, vtext[i]) + GAP;
		if (v < 0)
			neg_pad = fmax(neg_pad, tw);
		else
			pos_pad = fmax(pos_pad, tw);
	}
	double tick_h = line_height(cr);
	char *s_lo = axis_label(&a, axis_tick(&a, 0));
	char *s_hi = axis_label(&a, axis_tick(&a, a.nticks - 1));
	double tw_lo = text_width(cr, s_lo), tw_hi = text_width(cr, s_hi);
	free(s_lo);
	free(s_hi);

	b.y0 = title_bottom(cr, t, w);
	double key_h = key_room_below(&k);
	b.y1 = h - PAD - tick_h - GAP - TICK_LEN - key_h;
	if (t->value_label[0]) {
		set_font(cr, AXIS_PT, 0);
		b.y1 -= line_height(cr) + GAP;
	}

	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	double label_w = 0;
	hbar_labels(cr, t, nc, 0.45 * w, (b.y1 - b.y0) / (double)nc >= 2.1 * lh, label);
	for (size_t i = 0; i < nc; i++)
		label_w = fmax(label_w, label_width(cr, label[i]));
	/* The category axis title ("kernel", "run"), rotated left of the bars' labels. */
	char *cat_title = clean_text(c->x_label ? c->x_label : "");
	set_font(cr, AXIS_PT, 0);
	double cat_title_w = cat_title[0] ? line_height(cr) + GAP : 0;
	b.x0 = fmax(PAD + cat_title_w + label_w + 2 * GAP, PAD + tw_lo / 2 - neg_pad);
	b.x1 = w - PAD - fmax(0, tw_hi / 2 - pos_pad) - key_room_right(&k);
	double d0 = b.x0 + neg_pad, d1 = b.x1 - pos_pad; /* where lo and hi fall */
	double x_zero = a.log ? d0 : d0 + axis_frac(&a, 0) * (d1 - d0);

	draw_title(cr, t, w, b.x0, b.x1);

	/* Tick labels that would touch their neighbours: label every k-th tick only. */
	set_font(cr, TICK_PT, 0);
	double widest_tick = 0;
	for (size_t i = 0; i < a.nticks; i++) {
		char *s = axis_label(&a, axis_tick(&a, i));
		widest_tick = fmax(widest_tick, text_width(cr, s));
		free(s);
	}
	double spacing = a.nticks > 1 ? (d1 - d0) / (double)(a.nticks - 1) : d1 - d0;
	size_t tick_every = spacing >= widest_tick + 2 * GAP ? 1
			    : (size_t)ceil((widest_tick + 2 * GAP) / fmax(spacing, 1e-9));
	for (size_t i = 0; i < a.nticks; i++) {
		double v = axis_tick(&a, i);
		double x = d0 + axis_frac(&a, v) * (d1 - d0);
		grid_tick_x(cr, &b, x);
		if (i % tick_every)
			continue;
		char *s = axis_label(&a, v);
		show_text(cr, s, x, b.y1 + TICK_LEN + GAP, 0.5, 0);
		free(s);
	}

	double row = (b.y1 - b.y0) / (double)nc;
	size_t every = row >= lh ? 1 : (size_t)ceil(lh / row);
	double bar_h = fmin(row * 0.7, 18);
	for (size_t i = 0; i < nc; i++) {
		double v = finite_or_0(c->values[i * ns]);
		double cy = b.y0 + ((double)i + 0.5) * row;
		double xv = d0 + axis_frac(&a, v) * (d1 - d0);
		fill_rect(cr, fmin(x_zero, xv), cy - bar_h / 2, fabs(xv - x_zero), bar_h, bar_colour[i]);
		double text_x = xv;
		if (c->spread) {
			double p[4];
			for (int k = 0; k < 4; k++) {
				double sv = c->spread[i * 4 + (size_t)k];
				p[k] = isfinite(sv) ? d0 + axis_frac(&a, sv) * (d1 - d0) : NAN;
				if (isfinite(p[k]) && v >= 0)
					text_x = fmax(text_x, p[k]);
			}
			draw_spread(cr, 0, cy, fmin(bar_h / 4, 4), p);
		}
		char *full = clean_text(c->cat_tips[i] ? c->cat_tips[i] : c->categories[i]);
		add_label_tip(PAD, cy - row / 2, fmax(x_zero, xv) - PAD, row,
			      xasprintf("%s\n%s: %s", full, t->value_label, vtext[i]), i % every ? NULL : label[i],
			      t->cats[i]);
		free(full);
		if (i % every)
			continue;
		set_font(cr, LABEL_PT, 0);
		set_grey(cr, 0);
		char *nl = strchr(label[i], '\n');
		if (nl) {
			*nl = '\0';
			show_text(cr, label[i], b.x0 - 2 * GAP, cy, 1, 1);
			show_text(cr, nl + 1, b.x0 - 2 * GAP, cy, 1, 0);
			*nl = '\n';
		} else {
			show_text(cr, label[i], b.x0 - 2 * GAP, cy, 1, 0.5);
		}
		set_font(cr, TICK_PT, 0);
		set_grey(cr, 0.25);
		show_text(cr, vtext[i], v < 0 ? xv - GAP : text_x + GAP, cy, v < 0, 0.5);
	}

	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, d0, b.y1);
	cairo_line_to(cr, d1, b.y1);
	cairo_move_to(cr, x_zero, b.y0);
	cairo_line_to(cr, x_zero, b.y1);
	cairo_stroke(cr);

	key_draw(cr, &k, k.below ? PAD : w - PAD - k.width, k.below ? h - PAD - k.height : b.y0);
	key_release(&k);
	for (size_t i = 0; i < nkeys; i++)
		free(lnames[i]);
	free(lnames);
	free(lcolours);
	free(bar_colour);

	if (t->value_label[0]) {
		set_font(cr, AXIS_PT, 0);
		char *vl = value_title(t, &a);
		draw_x_title(cr, vl, d0, d1, h - PAD - key_h - line_height(cr), w);
		free(vl);
	}
	if (cat_title[0])
		draw_y_title(cr, cat_title, &b, PAD, 1); /* the category axis, at the figure's left edge */
	free(cat_title);

	for (size_t i = 0; i < nc; i++) {
		free(label[i]);
		free(vtext[i]);
	}
	free(label);
	free(vtext);
}

static const struct chart_drawing drawing = {draw_hbar};
const struct chart_kind chart_kind_hbar = {.name = "horizontal bar", .drawing = &drawing};
