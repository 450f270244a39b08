/*
 * catlabels.c: the category labels under a chart whose categories run along
 * the x axis (stacked and grouped bars, lines): flat, slanted or thinned to
 * fit, and ranks of one run grouped under the run's label.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void catlabels_release(struct catlabels *cl, size_t n)
{
	if (cl->text)
		for (size_t i = 0; i < n; i++)
			free(cl->text[i]);
	free(cl->text);
	cl->text = NULL;
	for (size_t g = 0; g < cl->ngroups; g++) {
		free(cl->group[g]);
		free(cl->group_full[g]);
		free(cl->group_line2[g]);
	}
	free(cl->first);
	free(cl->group);
	free(cl->group_full);
	free(cl->group_line2);
	free(cl->group_upright);
	cl->ngroups = 0;
	cl->first = NULL;
	cl->group = cl->group_full = cl->group_line2 = NULL;
	cl->group_upright = NULL;
}

/* One label shortened to max_w by whole words (fit_labels). */
static char *fit_words(cairo_t *cr, const char *s, double max_w)
{
	const char *const one[] = {s};
	char **fit = fit_labels(cr, one, 1, max_w, (size_t)-1);
	char *out = fit[0];
	fit[0] = NULL;
	free_labels(fit, 1);
	return out;
}

/* The length of s without a trailing " r<digits>" (a rank), or 0 when it has none. */
static size_t rank_prefix(const char *s)
{
	size_t l = strlen(s), d = l;
	while (d > 0 && s[d - 1] >= '0' && s[d - 1] <= '9')
		d--;
	return d < l && d >= 2 && s[d - 1] == 'r' && s[d - 2] == ' ' ? d - 2 : 0;
}

/*
 * Lays the labels out as runs and their ranks when every category is a
 * rank of a run and some run has several: returns 0 (nothing set) otherwise.
 */
static int catlabels_nested(cairo_t *cr, struct catlabels *cl, const struct text *t, size_t n, double slot,
			    double max_below)
{
	size_t ng = 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = rank_prefix(t->cats[i]);
		if (!p)
			return 0;
		if (!i || p != rank_prefix(t->cats[i - 1]) || strncmp(t->cats[i], t->cats[i - 1], p))
			ng++;
	}
	if (ng >= n)
		return 0;
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	cl->angle = 0;
	cl->every = 1;
	cl->left = 0;
	cl->text = xcalloc(n, sizeof(*cl->text));
	cl->first = xcalloc(ng + 1, sizeof(*cl->first));
	cl->group = xcalloc(ng, sizeof(*cl->group));
	cl->group_full = xcalloc(ng, sizeof(*cl->group_full));
	cl->group_line2 = xcalloc(ng, sizeof(*cl->group_line2));
	cl->group_upright = xcalloc(ng, sizeof(*cl->group_upright));
	double avail = max_below - 3 * GAP - lh, tallest = lh;
	size_t g = 0;
	for (size_t i = 0; i < n; i++) {
		size_t p = rank_prefix(t->cats[i]);
		cl->text[i] = fit_text(cr, t->cats[i] + p + 1, slot - GAP, MAX_LABEL_CHARS);
		if (i && p == rank_prefix(t->cats[i - 1]) && !strncmp(t->cats[i], t->cats[i - 1], p))
			continue;
		cl->first[g] = i;
		cl->group_full[g++] = xstrndup(t->cats[i], p);
	}
	cl->first[ng] = n;
	cl->ngroups = ng;
	for (g = 0; g < ng; g++) {
		double span = (double)(cl->first[g + 1] - cl->first[g]) * slot - GAP;
		const char *full = cl->group_full[g];
		if (text_width(cr, full) <= span) {
			cl->group[g] = xstrdup(full);
			continue;
		}
		/* Upright; in two lines split at the space nearest the middle when one is too long and two fit. */
		cl->group_upright[g] = 1;
		const char *split = NULL;
		if (text_width(cr, full) > avail && span >= 2 * lh) {
			/* After a comma if there is one, else at any space. */
			split = middle_space(full, 1);
			if (!split)
				split = middle_space(full, 0);
		}
		if (split) {
			char *head = xstrndup(full, (size_t)(split - full));
			cl->group[g] = fit_words(cr, head, avail);
			cl->group_line2[g] = fit_words(cr, split + 1, avail);
			free(head);
		} else {
			cl->group[g] = fit_words(cr, full, avail);
		}
		tallest = fmax(tallest, text_width(cr, cl->group[g]));
		if (cl->group_line2[g])
			tallest = fmax(tallest, text_width(cr, cl->group_line2[g]));
	}
	cl->group_h = tallest;
	cl->below = GAP + lh + 2 * GAP + tallest;
	return 1;
}

/* Draws the ranks' line and each run's label under it, with a rule under each run's ranks. */
static void catlabels_draw_nested(cairo_t *cr, const struct catlabels *cl, const struct box *b, double slot)
{
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr), y_rank = b->y1 + GAP, y_rule = y_rank + lh + GAP;
	for (size_t g = 0; g < cl->ngroups; g++) {
		double x0 = b->x0 + (double)cl->first[g] * slot, x1 = b->x0 + (double)cl->first[g + 1] * slot;
		set_grey(cr, 0);
		for (size_t i = cl->first[g]; i < cl->first[g + 1]; i++)
			show_text(cr, cl->text[i], b->x0 + ((double)i + 0.5) * slot, y_rank, 0.5, 0);
		set_grey(cr, 0.5);
		cairo_set_line_width(cr, 0.4);
		cairo_move_to(cr, x0 + GAP / 2, y_rule);
		cairo_line_to(cr, x1 - GAP / 2, y_rule);
		cairo_stroke(cr);
		set_grey(cr, 0);
		double cx = (x0 + x1) / 2, top = y_rule + GAP;
		if (!cl->group_upright[g]) {
			show_text(cr, cl->group[g], cx, top, 0.5, 0);
			add_label_tip(cx - text_width(cr, cl->group[g]) / 2, top, text_width(cr, cl->group[g]), lh,
				      xstrdup(cl->group_full[g]), cl->group[g], cl->group_full[g]);
			continue;
		}
		/* Upright lines read bottom to top, their ends under the rule. */
		double w1 = text_width(cr, cl->group[g]);
		if (cl->group_line2[g]) {
			double w2 = text_width(cr, cl->group_line2[g]);
			show_rotated(cr, cl->group[g], cx - lh / 2, top + w1 / 2, M_PI / 2, 0);
			show_rotated(cr, cl->group_line2[g], cx + lh / 2, top + w2 / 2, M_PI / 2, 0);
			w1 = fmax(w1, w2);
		} else {
			show_rotated(cr, cl->group[g], cx, top + w1 / 2, M_PI / 2, 0);
		}
		char *drawn = cl->group_line2[g] ? xasprintf("%s %s", cl->group[g], cl->group_line2[g])
						 : xstrdup(cl->group[g]);
		add_label_tip(x0, top, x1 - x0, w1, xstrdup(cl->group_full[g]), drawn, cl->group_full[g]);
		free(drawn);
	}
}

void catlabels_layout(cairo_t *cr, struct catlabels *cl, const struct text *t, size_t n,
			     double slot, double max_below)
{
	catlabels_release(cl, n);
	if (catlabels_nested(cr, cl, t, n, slot, max_below))
		return;
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	int flat = 1;

	cl->text = xcalloc(n, sizeof(*cl->text));
	for (size_t i = 0; i < n && flat; i++)
		if (text_width(cr, t->cats[i]) > slot - 2 * GAP ||
		    strlen(t->cats[i]) > MAX_LABEL_CHARS)
			flat = 0;
	cl->every = 1;
	if (flat) {
		cl->angle = 0;
		cl->below = GAP + lh;
	} else {
		/* Neighbouring slanted lines are slot * sin(angle) apart. */
		cl->angle = LABEL_ANGLE * M_PI / 180;
		if (slot * sin(cl->angle) < lh * 1.1) {
			cl->angle = M_PI / 2;
			cl->every = (size_t)ceil(lh * 1.1 / slot);
		}
	}
	double sa = sin(cl->angle), ca = cos(cl->angle);
	double max_w = flat ? slot - 2 * GAP : (max_below - GAP - lh * ca) / sa;
	double widest = 0, first = 0;
	char **fit = fit_labels(cr, (const char *const *)t->cats, n, max_w, MAX_LABEL_CHARS);
	for (size_t i = 0; i < n; i++) {
		if (i % cl->every) {
			cl->text[i] = xstrdup("");
			continue;
		}
		cl->text[i] = fit[i];
		fit[i] = NULL;
		double tw = text_width(cr, cl->text[i]);
		widest = fmax(widest, tw);
		if (i == 0)
			first = tw;
	}
	free_labels(fit, n);
	if (flat) {
		cl->left = first / 2;
	} else {
		cl->below = GAP + lh * ca + widest * sa;
		cl->left = first * ca + lh / 2 * sa;
	}
}

/* Draws the labels laid out by catlabels_layout under plot b, with each category's full name as its tooltip. */
void catlabels_draw(cairo_t *cr, const struct catlabels *cl, const struct text *t, const struct box *b, double slot,
		    size_t n)
{
	set_font(cr, LABEL_PT, 0);
	double lh = line_height(cr);
	set_grey(cr, 0);
	if (cl->ngroups)
		catlabels_draw_nested(cr, cl, b, slot);
	for (size_t i = 0; i < n && !cl->ngroups; i++) {
		double cx = b->x0 + ((double)i + 0.5) * slot;
		if (!cl->text[i][0])
			continue;
		double tw = text_width(cr, cl->text[i]);
		if (cl->angle == 0)
			add_label_tip(cx - tw / 2, b->y1 + GAP, tw, lh, xstrdup(t->cats[i]), cl->text[i],
				      t->cats[i]);
		else
			add_label_tip(cx - tw * cos(cl->angle), b->y1 + GAP, tw * cos(cl->angle),
				      tw * sin(cl->angle) + lh, xstrdup(t->cats[i]), cl->text[i], t->cats[i]);
		if (cl->angle == 0)
			show_text(cr, cl->text[i], cx, b->y1 + GAP, 0.5, 0);
		else
			show_rotated(cr, cl->text[i], cx, b->y1 + GAP + lh / 2 * cos(cl->angle), cl->angle, 1);
	}
}
