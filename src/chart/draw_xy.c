/*
 * draw_xy.c: the kind CHART_XY (chart_kind_xy), points at real x values on
 * linear or log axes, with reference lines and point labels.
 */
#include "chart/chart_draw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/xalloc.h"

/*
 * CHART_XY axes. A linear axis takes axis_nice()'s round ticks; a log axis
 * ticks at every power of its base (every k-th when more than eight) and
 * runs a little past the outermost points, so no marker sits on the frame.
 */
#define XY_MAX_TICKS 24

struct xyaxis {
	double lo, hi; /* values at the two ends */
	enum chart_scale scale;
	size_t nticks;
	double ticks[XY_MAX_TICKS];
	struct axis lin; /* a linear axis's ticks and their format */
};

static double xy_t(enum chart_scale sc, double v)
{
	return sc == CHART_SCALE_LOG2 ? log2(v) : sc == CHART_SCALE_LOG10 ? log10(v) : v;
}

static double xy_inv(enum chart_scale sc, double t)
{
	return sc == CHART_SCALE_LOG2 ? exp2(t) : sc == CHART_SCALE_LOG10 ? pow(10, t) : t;
}

/* Whether an axis of scale sc can place v: finite, and positive on a log axis. */
static int xy_ok(enum chart_scale sc, double v)
{
	return isfinite(v) && (sc == CHART_SCALE_LINEAR || v > 0);
}

/* Where v falls on the axis, 0 at lo and 1 at hi. */
static double xy_frac(const struct xyaxis *a, double v)
{
	double t0 = xy_t(a->scale, a->lo), t1 = xy_t(a->scale, a->hi);
	return (xy_t(a->scale, v) - t0) / (t1 - t0);
}

static void xy_axis_make(struct xyaxis *a, double lo, double hi, enum chart_scale sc, int from_zero)
{
	memset(a, 0, sizeof(*a));
	a->scale = sc;
	if (sc != CHART_SCALE_LINEAR) {
		double base = sc == CHART_SCALE_LOG2 ? 2 : 10;
		double t0 = xy_t(sc, lo), t1 = xy_t(sc, hi);
		if (!(t1 > t0)) {
			t0 -= 0.5;
			t1 += 0.5;
		}
		double pad = 0.06 * (t1 - t0);
		t0 -= pad;
		t1 += pad;
		/* Every point between two ticks: out to the powers around the lowest and the highest (0.5 under 0.70). */
		t0 = fmin(t0, floor(xy_t(sc, lo) + 1e-9));
		t1 = fmax(t1, ceil(xy_t(sc, hi) - 1e-9));
		int e0 = (int)ceil(t0 - 1e-9), e1 = (int)floor(t1 + 1e-9), every = 1;
		while ((e1 - e0) / every + 1 > 8)
			every++;
		for (int e = e0; e <= e1 && a->nticks < XY_MAX_TICKS; e++)
			if (e % every == 0)
				a->ticks[a->nticks++] = pow(base, e);
		if (a->nticks >= 2) {
			a->lo = xy_inv(sc, t0);
			a->hi = xy_inv(sc, t1);
			return;
		}
		/* Fewer than two powers in range: a linear axis over the same values reads better. */
		a->scale = CHART_SCALE_LINEAR;
		a->nticks = 0;
	}
	/* A little room past the outermost points, except at a 0 the axis starts from. */
	double room = 0.03 * (hi > lo ? hi - lo : fmax(fabs(hi), 1));
	if (from_zero) {
		lo = fmin(lo, 0);
		hi = fmax(hi, 0);
	}
	if (lo != 0 || !from_zero)
		lo -= room;
	if (hi != 0 || !from_zero)
		hi += room;
	axis_nice(&a->lin, lo, hi);
	a->lo = a->lin.lo;
	a->hi = a->lin.hi;
	for (size_t i = 0; i < a->lin.nticks && a->nticks < XY_MAX_TICKS; i++)
		a->ticks[a->nticks++] = axis_tick(&a->lin, i);
}

/* The tick label of v, owned by the caller: a log axis's powers as plain numbers (0.5, 16, 1e+09). */
static char *xy_tick_label(const struct xyaxis *a, double v)
{
	if (a->scale == CHART_SCALE_LINEAR)
		return axis_label(&a->lin, v);
	/* A log 10 axis past 10^6 or below 10^-3 as powers of ten, not "1e+07". */
	if (a->scale == CHART_SCALE_LOG10 && v > 0 && (v >= 1e6 || v < 1e-3))
		return power_of_ten((int)lround(log10(v)));
	return xasprintf("%.6g", v);
}

static double xy_widest_tick(cairo_t *cr, const struct xyaxis *a)
{
	double w = 0;
	for (size_t i = 0; i < a->nticks; i++) {
		char *s = xy_tick_label(a, a->ticks[i]);
		w = fmax(w, text_width(cr, s));
		free(s);
	}
	return w;
}

/* A point's coordinate for its tooltip: whole numbers (batch sizes) as they are, else value_text(). */
static char *xy_value_text(double v)
{
	if (v == floor(v) && fabs(v) < 1e7)
		return xasprintf("%s%.0f", minus(v), fabs(v));
	return value_text(v);
}

/*
 * Whether a reference line of c passes through rectangle r of plot b:
 * sampled at r's two ends and middle (the lines are straight, or on log
 * axes monotonic curves, so that is near enough for placing a label).
 */
static int xy_refs_cross(const struct chart *c, const struct xyaxis *ax, const struct xyaxis *ay,
			 const struct box *b, const struct box *r)
{
	double pw = b->x1 - b->x0, ph = b->y1 - b->y0;
	double t0 = xy_t(ax->scale, ax->lo), t1 = xy_t(ax->scale, ax->hi);
	for (size_t i = 0; i < c->nrefs; i++) {
		const struct chart_refline *rl = &c->refs[i];
		if (!isfinite(rl->slope) || !isfinite(rl->intercept))
			continue;
		double lo = INFINITY, hi = -INFINITY;
		for (int k = 0; k < 3; k++) {
			double px = r->x0 + (r->x1 - r->x0) * k / 2;
			double x = xy_inv(ax->scale, t0 + (t1 - t0) * (px - b->x0) / pw), y = rl->slope * x + rl->intercept;
			if (!xy_ok(ay->scale, y))
				continue;
			double py = b->y1 - xy_frac(ay, y) * ph;
			lo = fmin(lo, py);
			hi = fmax(hi, py);
		}
		if (lo <= r->y1 && hi >= r->y0)
			return 1;
	}
	return 0;
}

/* An axis label with ", log scale" when the axis is one; owned by the caller. */
static char *xy_axis_title(const char *label, const struct xyaxis *a)
{
	char *l = clean_text(label);
	if (a->scale == CHART_SCALE_LINEAR || !l[0])
		return l;
	char *s = xasprintf("%s, log scale", l);
	free(l);
	return s;
}

/* Where point labels may go: inside the plot b, off the boxes already taken. */
struct label_room {
	const struct chart *c;
	const struct xyaxis *ax, *ay;
	struct box b;
	struct box *busy; /* markers and labels placed so far */
	size_t nbusy;
};

/*
 * Draws a point's label lab beside its marker at (px, py) in the first place
 * that stays in the plot and covers no marker or label: corners first
 * (up-left, up-right, down-right, down-left), then above, below, left,
 * right; first a place off the reference lines too, failing that one that
 * only crosses them. Returns 0 when there is none (nothing drawn).
 */
static int place_point_label(cairo_t *cr, const char *lab, double px, double py, struct label_room *pl)
{
	double lw = text_width(cr, lab), lh = line_height(cr);
	static const double dx[] = {-1, 0, 0, -1, -0.5, -0.5, -1, 0};
	static const double dy[] = {-1, -1, 0, 0, -1, 0, -0.5, -0.5};
	size_t nk = sizeof(dx) / sizeof(dx[0]);
	for (size_t kk = 0; kk < 2 * nk; kk++) {
		size_t k = kk % nk;
		double ox = dx[k] == -0.5 ? 0 : dx[k] < 0 ? -4 : 4;
		double oy = dy[k] == -0.5 ? 0 : dy[k] < 0 ? -(k < 4 ? 2 : 4) : (k < 4 ? 2 : 4);
		struct box r = {px + ox + dx[k] * lw, py + oy + dy[k] * lh, 0, 0};
		r.x1 = r.x0 + lw;
		r.y1 = r.y0 + lh;
		int ok = r.x0 >= pl->b.x0 + 1 && r.x1 <= pl->b.x1 && r.y0 >= pl->b.y0 && r.y1 <= pl->b.y1 - 1;
		for (size_t j = 0; ok && j < pl->nbusy; j++)
			ok = r.x1 <= pl->busy[j].x0 || r.x0 >= pl->busy[j].x1 || r.y1 <= pl->busy[j].y0 ||
			     r.y0 >= pl->busy[j].y1;
		if (ok && kk < nk)
			ok = !xy_refs_cross(pl->c, pl->ax, pl->ay, &pl->b, &r);
		if (!ok)
			continue;
		pl->busy[pl->nbusy++] = r;
		show_text(cr, lab, r.x0, r.y0, 0, 0);
		return 1;
	}
	return 0;
}

/*
 * CHART_XY: points at real x values, one line (or markers only) per series,
 * reference lines y = a x + b across the plot under the data, a key beside
 * the plot (under it when narrow) with the chart's note below the key.
 */
/* Whether series s is drawn like another (chart_series_like): dashed, in its colour, out of the key. */
static int xy_like(const struct chart *c, size_t s)
{
	return s < c->nlike && c->like[s];
}

static void draw_xy(cairo_t *cr, const struct chart *c, const struct text *t, double w, double h)
{
	size_t nc = c->ncat, ns = c->nseries;
	enum chart_scale xsc = c->x_scale, ysc = c->y_scale;
	double xlo = INFINITY, xhi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
	size_t skipped = chart_xy_skipped(c);

	for (size_t i = 0; i < nc; i++)
		for (size_t s = 0; s < ns; s++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s))
				continue;
			xlo = fmin(xlo, x), xhi = fmax(xhi, x);
			ylo = fmin(ylo, y), yhi = fmax(yhi, y);
		}
	if (!(xlo <= xhi)) {
		draw_no_data(cr, t, w, h);
		return;
	}
	struct xyaxis ax, ay;
	xy_axis_make(&ax, xlo, xhi, xsc, c->from_zero);
	/* The reference lines stay inside the plot over the x axis's range. */
	for (size_t r = 0; r < c->nrefs; r++)
		for (int end = 0; end < 2; end++) {
			double y = c->refs[r].slope * (end ? ax.hi : ax.lo) + c->refs[r].intercept;
			if (xy_ok(ysc, y) && isfinite(c->refs[r].slope) && isfinite(c->refs[r].intercept))
				ylo = fmin(ylo, y), yhi = fmax(yhi, y);
		}
	xy_axis_make(&ay, ylo, yhi, ysc, c->from_zero);

	/* The key: series, then reference lines; the note and the skipped points under it. */
	size_t nkey = 0;
	char **names = xcalloc(ns + c->nrefs + 1, sizeof(*names));
	size_t *colours = xcalloc(ns + c->nrefs + 1, sizeof(*colours));
	int *swatch = xcalloc(ns + c->nrefs + 1, sizeof(*swatch));
	size_t *shape = xcalloc(ns + c->nrefs + 1, sizeof(*shape));
	size_t nkeys_cap = ns + c->nrefs + c->nbands + 1;
	names = xrealloc(names, nkeys_cap * sizeof(*names));
	colours = xrealloc(colours, nkeys_cap * sizeof(*colours));
	swatch = xrealloc(swatch, nkeys_cap * sizeof(*swatch));
	shape = xrealloc(shape, nkeys_cap * sizeof(*shape));
	for (size_t s = 0; s < ns; s++) {
		if (xy_like(c, s))
			continue; /* drawn dashed in another series' colour: the caption says what */
		names[nkey] = xstrdup(t->series[s]);
		colours[nkey] = look.series_colour[s];
		swatch[nkey] = c->markers_only ? SWATCH_MARK : SWATCH_LINE;
		shape[nkey] = s;
		nkey++;
	}
	for (size_t i = 0; i < c->nbands; i++) {
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(c->bands[j].key, c->bands[i].key);
		if (seen)
			continue;
		names[nkey] = chart_display_name(c->bands[i].key);
		colours[nkey] = colour_of(c->bands[i].key, 7);
		swatch[nkey] = SWATCH_BOX;
		shape[nkey] = 0;
		nkey++;
	}
	for (size_t r = 0; r < c->nrefs; r++) {
		if (!isfinite(c->refs[r].slope) || !isfinite(c->refs[r].intercept))
			continue; /* not drawn, so not listed */
		names[nkey] = clean_text(c->refs[r].label);
		swatch[nkey++] = c->refs[r].dashed ? SWATCH_DASH : SWATCH_SOLID;
	}
	struct key k;
	set_font(cr, TICK_PT, 0);
	double tick_h = line_height(cr);
	double top = fmax(title_bottom(cr, t, w), PAD + tick_h / 2);
	key_init(&k, w);
	legend_layout_sw(cr, &k.lg, names, colours, nkey, w, h - top - PAD - 40, 2 * SWATCH, 0);
	if (k.lg.n) {
		k.lg.swatch = swatch;
		k.lg.shape = shape;
		swatch = NULL;
		shape = NULL;
	}
	int below = k.below;
	struct buf nb;
	buf_init(&nb);
	if (c->note)
		buf_adds(&nb, c->note);
	if (skipped)
		buf_printf(&nb, "%s%zu point%s not drawn:\n%s", nb.len ? "\n" : "", skipped, skipped == 1 ? "" : "s",
			   xsc == CHART_SCALE_LINEAR && ysc == CHART_SCALE_LINEAR ? "not finite"
										: "not finite, or \xe2\x89\xa4 0 on a log axis");
	key_note_lines(cr, &k, nb.data, below ? w - 2 * PAD : fmax(0.32 * w, k.lg.width));
	buf_release(&nb);
	key_measure(&k);

	char *xl = xy_axis_title(c->x_label ? c->x_label : "", &ax);
	char *yl = xy_axis_title(t->value_label, &ay);
	set_font(cr, AXIS_PT, 0);
	double axis_lh = line_height(cr);

	struct box b;
	b.y0 = top;
	b.y1 = h - PAD - key_room_below(&k) - (xl[0] ? axis_lh + GAP : 0) - tick_h - GAP -
	       TICK_LEN;
	set_font(cr, TICK_PT, 0);
	double ytick_w = xy_widest_tick(cr, &ay);
	char *first = xy_tick_label(&ax, ax.ticks[0]), *last = xy_tick_label(&ax, ax.ticks[ax.nticks - 1]);
	double first_w = text_width(cr, first), last_w = text_width(cr, last);
	free(first);
	free(last);
	/* the y axis's title: one line, or two where one is longer than the plot is tall (draw_value_label_left) */
	double ytitle_w = yl[0] ? (double)y_title_lines(cr, yl, b.y1 - b.y0) * axis_lh + 2 * GAP : 0;
	set_font(cr, TICK_PT, 0);
	b.x0 = PAD + ytitle_w + ytick_w + GAP + TICK_LEN;
	b.x0 = fmax(b.x0, PAD + first_w / 2);
	b.x1 = w - PAD - key_room_right(&k);
	if (!(key_shown(&k) && !below))
		b.x1 -= last_w / 2;

	draw_title(cr, t, w, b.x0, b.x1);

	/* Grid and ticks: y left, x below; x labels thinned when they would touch. */
	double pw = b.x1 - b.x0, ph = b.y1 - b.y0;
	set_font(cr, TICK_PT, 0);
	for (size_t i = 0; i < ay.nticks; i++) {
		double y = b.y1 - xy_frac(&ay, ay.ticks[i]) * ph;
		grid_tick_y(cr, &b, y);
		char *s = xy_tick_label(&ay, ay.ticks[i]);
		show_text(cr, s, b.x0 - TICK_LEN - GAP, y, 1, 0.5);
		free(s);
	}
	double xtick_w = xy_widest_tick(cr, &ax);
	double spacing = ax.nticks > 1 ? fabs(xy_frac(&ax, ax.ticks[1]) - xy_frac(&ax, ax.ticks[0])) * pw : pw;
	size_t every = spacing >= xtick_w + 2 * GAP ? 1 : (size_t)ceil((xtick_w + 2 * GAP) / fmax(spacing, 1e-9));
	for (size_t i = 0; i < ax.nticks; i++) {
		double x = b.x0 + xy_frac(&ax, ax.ticks[i]) * pw;
		grid_tick_x(cr, &b, x);
		if (i % every)
			continue;
		char *s = xy_tick_label(&ax, ax.ticks[i]);
		show_text(cr, s, x, b.y1 + TICK_LEN + GAP, 0.5, 0);
		free(s);
	}

	/* Reference lines under the data, sampled along the axis so they bend correctly on log axes. */
	cairo_save(cr);
	cairo_rectangle(cr, b.x0, b.y0, pw, ph);
	cairo_clip(cr);
	/* Bands under everything: pale, so that the grid and the lines show through. */
	for (size_t i = 0; i < c->nbands && ax.scale == CHART_SCALE_LINEAR; i++) {
		double x0 = b.x0 + xy_frac(&ax, c->bands[i].x0) * pw, x1 = b.x0 + xy_frac(&ax, c->bands[i].x1) * pw;
		if (!(x1 > x0))
			continue;
		cairo_save(cr);
		cairo_rectangle(cr, x0, b.y0, x1 - x0, ph);
		cairo_clip(cr);
		set_colour(cr, colour_of(c->bands[i].key, 7));
		cairo_paint_with_alpha(cr, 0.18);
		cairo_restore(cr);
	}
	for (size_t r = 0; r < c->nrefs; r++) {
		const struct chart_refline *rl = &c->refs[r];
		if (!isfinite(rl->slope) || !isfinite(rl->intercept))
			continue;
		set_ref_line(cr, rl->dashed);
		double t0 = xy_t(ax.scale, ax.lo), t1 = xy_t(ax.scale, ax.hi);
		int open = 0, steps = ax.scale == CHART_SCALE_LINEAR && ay.scale == CHART_SCALE_LINEAR ? 1 : 96;
		for (int k = 0; k <= steps; k++) {
			double x = xy_inv(ax.scale, t0 + (t1 - t0) * k / steps), y = rl->slope * x + rl->intercept;
			if (!xy_ok(ay.scale, y)) {
				open = 0;
				continue;
			}
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			/* Far outside the plot cairo's fixed point would overflow; the clip hides the rest. */
			py = fmin(fmax(py, b.y0 - 4 * ph), b.y1 + 4 * ph);
			line_point(cr, &open, px, py);
		}
		cairo_stroke(cr);
	}
	cairo_set_dash(cr, NULL, 0, 0);
	cairo_restore(cr);

	/*
	 * The series: lines through their drawable points in category order,
	 * then markers and tooltips. Point labels go where they touch no marker
	 * and no other label, or are left out; the tooltip still names the point.
	 */
	struct label_room pl = {c, &ax, &ay, b, xcalloc(nc * ns * 2 + 1, sizeof(*pl.busy)), 0};
	for (size_t s = 0; s < ns; s++)
		for (size_t i = 0; i < nc; i++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s) || (c->marked && !c->marked[i]))
				continue;
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			pl.busy[pl.nbusy++] = (struct box){px - 3, py - 3, px + 3, py + 3};
		}
	for (size_t s = 0; s < ns; s++) {
		cairo_save(cr);
		set_colour(cr, look.series_colour[s]);
		cairo_set_line_width(cr, 1.2);
		if (xy_like(c, s))
			cairo_set_dash(cr, (const double[]){3, 2}, 2, 0);
		int open = 0;
		for (size_t i = 0; i < nc && !c->markers_only; i++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s)) {
				/* A sparse series runs on past an x it has no point at. */
				open = open && c->sparse && isnan(y);
				continue;
			}
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			line_point(cr, &open, px, py);
		}
		cairo_stroke(cr);
		cairo_set_dash(cr, NULL, 0, 0);
		for (size_t i = 0; i < nc; i++) {
			double x = c->x_values[i], y = c->values[i * ns + s];
			if (!chart_xy_drawable(c, i, s))
				continue;
			double px = b.x0 + xy_frac(&ax, x) * pw, py = b.y1 - xy_frac(&ay, y) * ph;
			set_colour(cr, look.series_colour[s]);
			if (!c->marked || c->marked[i])
				marker_sized(cr, px, py, s, c->point_size ? c->point_size[i] : 1);
			char *xt = xy_value_text(x), *yt = xy_value_text(y);
			/* A point without a label (only some are named) still says in its tooltip what it is. */
			char *who = c->cat_tips && c->cat_tips[i] ? clean_text(c->cat_tips[i]) : NULL;
			add_tip(px - 3, py - 3, 6, 6,
				xasprintf("%s, %s: x = %s, y = %s", who ? who : t->cats[i], t->series[s], xt, yt));
			free(who);
			free(xt);
			free(yt);
			if (s || !c->label_points || !t->cats[i][0])
				continue;
			set_font(cr, LABEL_PT, 0);
			set_grey(cr, 0.2);
			/* The whole label where it fits (a run's GPU count is near its end), else a shorter one. */
			char *lab = fit_text(cr, t->cats[i], 0.45 * pw, MAX_LABEL_CHARS);
			if (!place_point_label(cr, lab, px, py, &pl)) {
				free(lab);
				lab = fit_text(cr, t->cats[i], 0.2 * pw, MAX_LABEL_CHARS);
				place_point_label(cr, lab, px, py, &pl);
			}
			free(lab);
		}
		cairo_restore(cr);
	}

	free(pl.busy);

	/* The frame's left and bottom edges. */
	set_grey(cr, 0.2);
	cairo_set_line_width(cr, 0.6);
	cairo_move_to(cr, b.x0, b.y0 - 0.3);
	cairo_line_to(cr, b.x0, b.y1 + 0.3);
	cairo_move_to(cr, b.x0 - 0.3, b.y1);
	cairo_line_to(cr, b.x1, b.y1);
	cairo_stroke(cr);

	/* Axis labels. */
	set_font(cr, AXIS_PT, 0);
	set_grey(cr, 0);
	if (xl[0])
		draw_x_title(cr, xl, b.x0, b.x1, b.y1 + TICK_LEN + GAP + tick_h + GAP, w);
	draw_value_label_left(cr, yl, &b, ytick_w);

	/* The key and the note. */
	key_draw(cr, &k, below ? PAD : b.x1 + LEGEND_GAP, below ? h - PAD - k.height : b.y0);
	key_release(&k);
	for (size_t i = 0; i < nkey; i++)
		free(names[i]);
	free(names);
	free(colours);
	free(swatch);
	free(shape);
	free(xl);
	free(yl);
}

/* Lines and markers at real x values: the x axis is a quantity, never "run". */
static const struct chart_drawing drawing = {draw_xy};
const struct chart_kind chart_kind_xy = {.name = "x-y", .lines = 1, .points = 1, .drawing = &drawing};
