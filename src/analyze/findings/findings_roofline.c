/*
 * findings_roofline.c: the op-roofline rule of findings.csv (issue 56):
 * the operators that lose the most time against their roofline, named with
 * their shapes.
 *
 * Definition. op_roofline_top.csv (op_roofline.c) ranks a run's operators
 * and shapes by lost_us_per_step, the GPU time per step beyond the
 * roofline's, calls_per_step x max(flops / the dtype's dense peak, bytes /
 * the memory bandwidth). Of the rows of all the experiment's runs whose
 * lost_share (of that rank's mean step) is at least ROOF_LOST_MIN, the
 * largest shares are each a finding, every operator, shapes and dtype once
 * (at the run where its share is largest; the finding counts the other
 * runs), at most ROOF_EACH per run and ROOF_PAGE per experiment (a page),
 * the last stated saying how many more op_roofline_top.csv holds:
 * "aten::mm [8192,768] x [768,50257] bf16 on rank 0: 9.6 % of its
 * roofline, 6.70 ms per step ...". value: peak_share. No saving: what the
 * step would gain depends on what runs beside the operator; the finding
 * names the perfstudy whatif change (roofline:OP=1) that replays it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings/findings_int.h"
#include "analyze/findings/findings_rules.h"
#include "analyze/models/op_roofline.h"
#include "util/xalloc.h"

/* The dtype as a reader says it: bf16, fp16, fp32; else as the trace writes it. */
static const char *dtype_words(const char *t)
{
	if (!t)
		return "";
	if (!strcmp(t, "c10::BFloat16"))
		return "bf16";
	if (!strcmp(t, "c10::Half"))
		return "fp16";
	if (!strcmp(t, "float"))
		return "fp32";
	return t;
}

/*
 * The shapes as a reader says them: the inputs with a shape (the compact
 * "[8192,768],[768,50257]" split at its top-level commas, empty ones left
 * out), "x" between a matrix product's two matrices, ", " otherwise; a
 * list of tensors ("{T:E}") as "T tensors of E elements", the first only.
 */
static void shape_words(struct buf *b, const char *op, const char *shapes)
{
	int mm = !strcmp(op, "aten::mm") || !strcmp(op, "aten::bmm") || !strcmp(op, "aten::_scaled_mm");
	int n = 0, depth = 0, lists = 0;
	const char *start = shapes;
	for (const char *p = shapes; p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		unsigned long long lt, le;
		if (*start == '{' && sscanf(start, "{%llu:%llu}", &lt, &le) == 2) {
			/* a list of tensors ("{T:E}"): said once, the optimizer's other lists being alike */
			if (!lists++) {
				buf_adds(b, n++ ? ", " : " ");
				buf_printf(b, "%llu tensor%s of %llu elements", lt, lt == 1 ? "" : "s", le);
			}
		} else if (p - start > 2) {
			buf_adds(b, n ? (mm && n == 1 ? " x " : ", ") : " ");
			buf_printf(b, "%.*s", (int)(p - start), start);
			n++;
		}
		if (!*p)
			break;
		start = p + 1;
	}
}

/* A time of us microseconds as a reader says it: "6.63 ms", "3.97 us". */
static const char *time_words(double us, char out[32])
{
	if (us >= 1000)
		snprintf(out, 32, "%.3g ms", us / 1000);
	else
		snprintf(out, 32, "%.3g us", us);
	return out;
}

/* Rows a and b of op_roofline_top.csv are the same operator, shapes and dtype. */
static int same_op(const struct table *t, size_t a, size_t b)
{
	static const int c[] = {ORT_OP, ORT_SHAPES, ORT_DTYPE};
	for (int i = 0; i < 3; i++) {
		const char *x = text(t, a, c[i]), *y = text(t, b, c[i]);
		if (!x != !y || (x && strcmp(x, y)))
			return 0;
	}
	return 1;
}

/* A row of op_roofline_top.csv worth a finding, and what became of it. */
struct cand {
	size_t row;
	double share;
	long first; /* the candidate of the same operator, shapes and dtype with the largest share; -1: this one */
	int others; /* for a first: the other runs with it */
	int stated;
};

static int cmp_cand(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return a->row < b->row ? -1 : a->row > b->row;
}

/*
 * The experiment's choice: the rows of op_roofline_top.csv with lost_share
 * at least ROOF_LOST_MIN, largest share first; each operator, shapes and
 * dtype once, at the run where it loses the largest share; at most
 * ROOF_EACH per run and ROOF_PAGE in all. Into *out (caller frees), their
 * count; *left the operators, shapes and dtypes not stated.
 */
static size_t choose(const struct table *t, struct cand **out, size_t *left)
{
	size_t n = 0;
	struct cand *v = xmalloc((t->nrows + 1) * sizeof(*v));
	for (size_t r = 0; r < t->nrows; r++) {
		double share = num(t, r, ORT_LOST_SHARE), peak = num(t, r, ORT_PEAK_SHARE);
		if (text(t, r, ORT_RUN) && text(t, r, ORT_OP) && share >= ROOF_LOST_MIN && !isnan(peak))
			v[n++] = (struct cand){r, share, -1, 0, 0};
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_cand);
	size_t stated = 0;
	*left = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < i && v[i].first < 0; k++)
			if (v[k].first < 0 && same_op(t, v[k].row, v[i].row)) {
				v[i].first = (long)k;
				v[k].others++;
			}
		if (v[i].first >= 0)
			continue;
		size_t in_run = 0;
		for (size_t k = 0; k < i; k++)
			in_run += v[k].stated && !strcmp(text(t, v[k].row, ORT_RUN), text(t, v[i].row, ORT_RUN));
		if (stated < ROOF_PAGE && in_run < ROOF_EACH) {
			v[i].stated = 1;
			stated++;
		} else {
			(*left)++;
		}
	}
	*out = v;
	return n;
}

void findings_rule_roofline(struct findings *f, const struct analysis_result *res, const char *run)
{
	const struct table *t = result_table(res, "op_roofline_top");
	if (!t || col(t, ORT_RUN) < 0)
		return;
	struct cand *v;
	size_t left, n = choose(t, &v, &left), last = n;
	for (size_t i = 0; i < n; i++)
		last = v[i].stated ? i : last;
	for (size_t i = 0; i < n; i++) {
		size_t r = v[i].row;
		const char *rr = text(t, r, ORT_RUN), *op = text(t, r, ORT_OP), *bound = text(t, r, ORT_BOUND);
		if (!v[i].stated || strcmp(rr, run))
			continue;
		double share = v[i].share, peak = num(t, r, ORT_PEAK_SHARE);
		double ranks = num(t, r, ORT_RANKS), gpu = num(t, r, ORT_GPU_US_PER_STEP),
		       roof = num(t, r, ORT_ROOFLINE_US_PER_STEP), lost = num(t, r, ORT_LOST_US_PER_STEP);
		int rank = (int)num(t, r, ORT_RANK);
		buf_adds(&f->s, op);
		shape_words(&f->s, op, text(t, r, ORT_SHAPES) ? text(t, r, ORT_SHAPES) : "");
		buf_printf(&f->s, " %s", dtype_words(text(t, r, ORT_DTYPE)));
		if (ranks > 1)
			buf_printf(&f->s, " on rank %d (the most of the %.0f ranks that run it)", rank, ranks);
		char g[32], o[32], l[32];
		buf_printf(&f->s, ": %.1f %% of its roofline (%s-bound), %s per step on the GPU where the roofline "
				  "allows %s: %s per step lost, %.1f %% of the step (op_roofline_top.csv). Not "
				  "priced here, as kernels beside it may hide what it would gain: perfstudy whatif SITE %s "
				  "'roofline:%s=1' replays the run with its %s calls at their roofline",
			   100 * peak, bound ? bound : "?", time_words(gpu, g), time_words(roof, o), time_words(lost, l),
			   100 * share, run, op, op);
		if (v[i].others)
			buf_printf(&f->s, ". The same in %d other run%s of the experiment, at a smaller share of the step",
				   v[i].others, v[i].others == 1 ? "" : "s");
		if (i == last && left)
			buf_printf(&f->s, ". %zu more operator%s and shape%s of the experiment's runs lose%s at least %.0f "
					  "%% of a step, not stated here: op_roofline_top.csv",
				   left, left == 1 ? "" : "s", left == 1 ? "" : "s", left == 1 ? "s" : "", 100 * ROOF_LOST_MIN);
		findings_add(f, run, rank, peak,
			     "table-op_roofline_top",
			     findings_rulef(f, "op-roofline: op_roofline_top.csv lost_us_per_step at least %.0f %% of the "
					       "rank's step (lost_share), the first %d of the experiment, %d per run, each "
					       "operator and shapes once",
					    100 * ROOF_LOST_MIN, ROOF_PAGE, ROOF_EACH));
	}
	free(v);
}
