/*
 * render.c: the chart's output. draw_chart() cleans the chart's text, picks
 * the series' colours and hands the chart to the draw function of its kind
 * (c->kind->drawing); open_surface() picks the SVG, PDF or PNG surface,
 * so every figure comes in every format from the same drawing;
 * chart_write() writes the three files, each through a temporary file and
 * a rename (fs_write_file_as). The only file of chart/ that knows surfaces.
 */
#include "chart/chart_draw.h"
#include "chart/png.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

/*
 * cairo 1.16 stamps each PDF with the time it was made; a fixed date keeps
 * two builds of the same study byte-identical. cairo writes no other time or
 * random ID into the PDF or PNG; the SVG's one varying id is handled by
 * svg_pin_surface_id().
 */
#define PDF_DATE "2000-01-01T00:00:00Z"

enum fmt { FMT_SVG, FMT_PDF, FMT_PNG };
static const char *const fmt_ext[] = {"svg", "pdf", "png"};

/*
 * The look of the chart this thread is drawing (chart_draw.h): set by
 * draw_chart() and chart_write(), read by every helper.
 */
_Thread_local struct look look;

void add_label_tip(double x, double y, double w, double h, char *text, const char *label, const char *name)
{
	if (!look.want_tips || w <= 0 || h <= 0) {
		free(text);
		return;
	}
	look.tips = xgrow(look.tips, &look.cap_tips, look.ntips + 1, sizeof(*look.tips));
	look.tips[look.ntips++] = (struct tip){x, y, w, h, text, label ? xstrdup(label) : NULL,
							 label && name ? xstrdup(name) : NULL};
}

void add_tip(double x, double y, double w, double h, char *text)
{
	add_label_tip(x, y, w, h, text, NULL, NULL);
}

/* Draws c onto cr, whose user space is w x h points. */
static void draw_chart(cairo_t *cr, const struct chart *c, double w, double h)
{
	struct text t;
	cairo_font_options_t *fo = cairo_font_options_create();

	/*
	 * Unhinted metrics make text measure the same on every surface, so the
	 * PNG, PDF and SVG share one layout.
	 */
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);

	t.title = clean_text(c->title);
	t.value_label = clean_text(c->value_label);
	t.cats = xcalloc(c->ncat, sizeof(*t.cats));
	t.series = xcalloc(c->nseries, sizeof(*t.series));
	for (size_t i = 0; i < c->ncat; i++)
		t.cats[i] = clean_text(c->categories[i]);
	for (size_t i = 0; i < c->nseries; i++) {
		char *shown = chart_display_name(c->series[i]);
		t.series[i] = clean_text(shown);
		free(shown);
	}
	look.lines = c->kind->lines;
	look.series_colour = series_colours(c);

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);

	if (!c->ncat || !c->nseries)
		draw_no_data(cr, &t, w, h);
	else
		c->kind->drawing->draw(cr, c, &t, w, h);

	for (size_t i = 0; i < c->ncat; i++)
		free(t.cats[i]);
	for (size_t i = 0; i < c->nseries; i++)
		free(t.series[i]);
	free(t.cats);
	free(t.series);
	free(t.title);
	free(t.value_label);
	free(look.series_colour);
	look.series_colour = NULL;
}

/*
 * Every surface writes into memory: a figure is at most a few hundred kB,
 * the file is then written in one place, and a drawing that fails never
 * touches the disk.
 */
static cairo_status_t sink_write(void *closure, const unsigned char *data, unsigned int len)
{
	buf_add(closure, data, len);
	return CAIRO_STATUS_SUCCESS;
}

/* The PNG buffers of this thread, kept from figure to figure (png.h); chart_render_release frees them. */
static _Thread_local struct png_scratch png_scratch;

void chart_render_release(void)
{
	png_scratch_release(&png_scratch);
}

/*
 * Returns the surface that fmt draws on, w x h points (PNG: pixels at dpi);
 * SVG and PDF stream into out as they are drawn, a PNG only when written.
 * The caller checks cairo_surface_status() and destroys it.
 */
static cairo_surface_t *open_surface(enum fmt fmt, struct buf *out, const char *title, double w,
				     double h, double dpi)
{
	cairo_surface_t *s;

	switch (fmt) {
	case FMT_SVG:
		s = cairo_svg_surface_create_for_stream(sink_write, out, w, h);
		cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
		/* Sized in pt, so the figure prints at its real size. */
		cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PT);
		break;
	case FMT_PDF:
		s = cairo_pdf_surface_create_for_stream(sink_write, out, w, h);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE, PDF_DATE);
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "perfstudy");
		if (title[0])
			cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, title);
		break;
	case FMT_PNG:
	default: {
		/*
		 * Opaque white background: RGB24 keeps the PNG free of an alpha
		 * channel. The pixels are the thread's png_scratch, as the last
		 * figure left them: draw_chart paints every pixel white first.
		 */
		int pw = (int)lround(w / 72 * dpi), ph = (int)lround(h / 72 * dpi);
		int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, pw);
		if (pw <= 0 || ph <= 0 || pw > 32767 || ph > 32767 || stride <= 0) {
			/* Beyond cairo's image sizes: its own surface, in its error state. */
			s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, pw, ph);
			break;
		}
		size_t n = (size_t)ph * (size_t)stride;
		unsigned char *px = png_scratch_take(&png_scratch.pixels, &png_scratch.pixels_cap, n);
		s = cairo_image_surface_create_for_data(px, CAIRO_FORMAT_RGB24, pw, ph, stride);
		break;
	}
	}
	return s;
}

/*
 * cairo names the SVG's page group after a process-wide surface counter,
 * "surface1" for the first surface a process makes and "surface35" for a
 * later one; nothing refers to the id, so it is pinned to keep the bytes of
 * a figure independent of what was drawn before it.
 */
static void svg_pin_surface_id(struct buf *svg)
{
	static const char key[] = "<g id=\"surface";
	char *p = strstr(svg->data, key);
	if (!p)
		return;
	char *digits = p + sizeof(key) - 1, *end = digits;
	while (*end >= '0' && *end <= '9')
		end++;
	if (end == digits || end[0] != '"')
		return;
	size_t tail = svg->len - (size_t)(end - svg->data);
	*digits = '1';
	memmove(digits + 1, end, tail + 1);
	svg->len -= (size_t)(end - digits) - 1;
}

/* Appends s to b escaped for XML text and attribute values. */
static void xml_escape(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			buf_adds(b, "&amp;");
			break;
		case '<':
			buf_adds(b, "&lt;");
			break;
		case '>':
			buf_adds(b, "&gt;");
			break;
		case '"':
			buf_adds(b, "&quot;");
			break;
		case '\'':
			buf_adds(b, "&#39;");
			break;
		default:
			buf_addc(b, *s);
		}
	}
}

/* The SVG's text and its title, for svg_write_titled: what fs_write_file_by's fill is given. */
struct titled {
	const struct buf *svg;
	char *title;
	struct buf out; /* the bytes not yet written */
};

/* Writes what t->out holds to f once it holds at least least bytes; 0, or -1 when the write failed. */
static int flush_at(struct titled *t, FILE *f, size_t least)
{
	if (t->out.len < least || !t->out.len)
		return 0;
	int ok = fwrite(t->out.data, 1, t->out.len, f) == t->out.len;
	buf_reset(&t->out);
	return ok ? 0 : -1;
}

/* Writes n bytes of the SVG's own text from p, after what t->out holds; 0 or -1. */
static int put_svg(struct titled *t, FILE *f, const char *p, size_t n)
{
	if (flush_at(t, f, 0) < 0)
		return -1;
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

/*
 * cairo's SVG surface cannot write <title> elements, so they are added to
 * its text here: the chart's title as the document's <title> right after
 * the <svg> start tag, and before </svg> one transparent rectangle per
 * tooltip (a bar, a label) whose <title> browsers show on hover, with the
 * full kernel name the drawn label shortened. Every text went through
 * clean_text() (valid UTF-8, no control characters, which XML 1.0 refuses)
 * and is escaped here, so a name from a trace cannot become markup. The
 * text goes to the file 64 KiB at a time (fs_write_file_by's fill): a
 * figure of a bar per rank has a tooltip each (16,384 ranks: 147,462
 * rectangles, 6.5 MB, which a second copy in memory took 8 MiB for).
 */
static int svg_write_titled(FILE *f, void *ctx)
{
	struct titled *t = ctx;
	const struct buf *svg = t->svg;
	char *open = strstr(svg->data, "<svg");
	char *open_end = open ? strchr(open, '>') : NULL;
	char *close = open_end ? strstr(open_end, "</svg>") : NULL;
	if (!close)
		return put_svg(t, f, svg->data, svg->len);
	enum { SVG_FLUSH = 64 * 1024 };
	struct buf *out = &t->out;
	if (put_svg(t, f, svg->data, (size_t)(open_end + 1 - svg->data)) < 0)
		return -1;
	if (t->title[0]) {
		buf_adds(out, "\n<title>");
		xml_escape(out, t->title);
		buf_adds(out, "</title>");
	}
	if (put_svg(t, f, open_end + 1, (size_t)(close - open_end - 1)) < 0)
		return -1;
	if (look.ntips) {
		buf_adds(out, "<g fill=\"#fff\" fill-opacity=\"0\">\n");
		for (size_t i = 0; i < look.ntips; i++) {
			const struct tip *tp = &look.tips[i];
			buf_printf(out, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"",
				   tp->x, tp->y, tp->w, tp->h);
			if (tp->label) {
				/* The label as drawn (a line break as a space) and the name it shortens, for checks that read the SVG. */
				buf_adds(out, " data-label=\"");
				for (const char *q = tp->label; *q; q++) {
					char one[2] = {*q == '\n' ? ' ' : *q, '\0'};
					xml_escape(out, one);
				}
				buf_adds(out, "\"");
			}
			if (tp->name) {
				buf_adds(out, " data-name=\"");
				xml_escape(out, tp->name);
				buf_adds(out, "\"");
			}
			buf_adds(out, "><title>");
			xml_escape(out, tp->text);
			buf_adds(out, "</title></rect>\n");
			if (flush_at(t, f, SVG_FLUSH) < 0)
				return -1;
		}
		buf_adds(out, "</g>\n");
	}
	return put_svg(t, f, close, svg->len - (size_t)(close - svg->data));
}

static void tips_release(void)
{
	for (size_t i = 0; i < look.ntips; i++) {
		free(look.tips[i].text);
		free(look.tips[i].label);
		free(look.tips[i].name);
	}
	free(look.tips);
	look.tips = NULL;
	look.ntips = look.cap_tips = 0;
}

/* Draws c into out in fmt; returns cairo's status. */
static cairo_status_t render(const struct chart *c, enum fmt fmt, double w, double h, double dpi,
			     struct buf *out)
{
	char *title = clean_text(c->title);
	cairo_surface_t *surface = open_surface(fmt, out, title, w, h, dpi);
	cairo_status_t st = cairo_surface_status(surface);

	if (!st) {
		cairo_t *cr = cairo_create(surface);
		if (fmt == FMT_PNG)
			cairo_scale(cr, dpi / 72, dpi / 72);
		draw_chart(cr, c, w, h);
		st = cairo_status(cr);
		cairo_destroy(cr);
	}
	if (!st) {
		if (fmt == FMT_PNG) {
			cairo_surface_flush(surface);
			st = png_encode_rgb24_with(&png_scratch, cairo_image_surface_get_data(surface),
						   cairo_image_surface_get_width(surface),
					      cairo_image_surface_get_height(surface),
					      cairo_image_surface_get_stride(surface), dpi, out) < 0
				     ? CAIRO_STATUS_NO_MEMORY
				     : CAIRO_STATUS_SUCCESS;
		} else {
			cairo_surface_finish(surface);
			st = cairo_surface_status(surface);
		}
	}
	cairo_surface_destroy(surface);
	free(title);
	return st;
}

static int write_one(const struct chart *c, const char *dir, enum fmt fmt, double w, double h,
		     double dpi)
{
	char *path = xasprintf("%s/%s.%s", dir, c->name, fmt_ext[fmt]);
	struct buf out;
	int ret = -1;

	buf_init(&out);
	look.want_tips = fmt == FMT_SVG;
	cairo_status_t st = render(c, fmt, w, h, dpi, &out);
	look.want_tips = 0;
	if (st) {
		diag_syserror(path, "cannot write figure: %s", cairo_status_to_string(st));
		tips_release();
		goto out;
	}
	if (fmt == FMT_SVG) {
		svg_pin_surface_id(&out);
		struct titled t = {.svg = &out, .title = clean_text(c->title)};
		buf_init(&t.out);
		ret = fs_write_file_by(path, "figure", svg_write_titled, &t);
		buf_release(&t.out);
		free(t.title);
		tips_release();
	} else {
		ret = fs_write_file_as(path, out.data, out.len, "figure");
	}
out:
	buf_release(&out);
	free(path);
	return ret;
}

static int valid_name(const char *s)
{
	if (!s[0])
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return 0;
	return 1;
}

static double or_default(double v, double def)
{
	return isfinite(v) && v > 0 ? v : def;
}

int chart_write(const struct chart *c, const char *dir, const struct chart_style *style)
{
	if (!valid_name(c->name)) {
		diag_error(NULL, "invalid figure name '%s': use [a-z0-9_-]", c->name);
		return -1;
	}
	double w, h;
	chart_size(style, &w, &h);
	w *= 72;
	h *= 72;
	double dpi = or_default(style ? style->dpi : 0, DEFAULT_DPI);
	memset(&look, 0, sizeof(look));
	look.style = style;
	if (style) {
		look.font = style->font && style->font[0] ? style->font : NULL;
		look.scale = or_default(style->font_size, BASE_PT) / BASE_PT;
		look.hatching = style->hatching;
		look.log_scale = style->log_scale;
	}
	for (enum fmt f = FMT_SVG; f <= FMT_PNG; f++)
		if (write_one(c, dir, f, w, h, dpi))
			return -1;
	return 0;
}
