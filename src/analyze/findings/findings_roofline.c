/*
 * findings_roofline.c: the op-roofline rule of findings.csv (issue 56):
 * the operators that lose the most time against their roofline, named with
 * their shapes.
 *
 * Definition. op_roofline_top.csv (op_roofline.c) ranks a run's operators
 * and shapes by lost_us_per_step, the GPU time per step beyond the
 * roofline's, calls_per_step x max(flops / the dtype's dense peak, bytes /
 * the memory bandwidth). Its first ROOF_EACH rows whose lost_share (of
 * that rank's mean step) is at least ROOF_LOST_MIN are each a finding:
 * "aten::mm [8192,768] x [768,50257] bf16 on rank 0: 9.6 % of its
 * roofline, 6.70 ms per step ...". value: peak_share. No saving: what the
 * step would gain if the operator ran at its roofline is the replay's to
 * price, and it prices no operator, so none is stated.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/findings/findings_int.h"
#include "analyze/findings/findings_rules.h"
#include "analyze/models/op_roofline.h"

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
 * out), "x" between a matrix product's two matrices, ", " otherwise.
 */
static void shape_words(struct buf *b, const char *op, const char *shapes)
{
	int mm = !strcmp(op, "aten::mm") || !strcmp(op, "aten::bmm") || !strcmp(op, "aten::_scaled_mm");
	int n = 0, depth = 0;
	const char *start = shapes;
	for (const char *p = shapes; p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		if (*p && (*p != ',' || depth))
			continue;
		if (p - start > 2) {
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

void findings_rule_roofline(struct findings *f, const struct analysis_result *res, const char *run)
{
	const struct table *t = result_table(res, "op_roofline_top");
	int crun = col(t, ORT_RUN);
	int said = 0;
	for (size_t r = 0; t && crun >= 0 && r < t->nrows && said < ROOF_EACH; r++) {
		const char *rr = text(t, r, ORT_RUN), *op = text(t, r, ORT_OP), *bound = text(t, r, ORT_BOUND);
		double share = num(t, r, ORT_LOST_SHARE), peak = num(t, r, ORT_PEAK_SHARE);
		if (!rr || strcmp(rr, run) || !op || !(share >= ROOF_LOST_MIN) || isnan(peak))
			continue;
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
				  "priced: the replay does not run an operator at its roofline, and kernels beside it may "
				  "hide what it would gain",
			   100 * peak, bound ? bound : "?", time_words(gpu, g), time_words(roof, o), time_words(lost, l),
			   100 * share);
		findings_add(f, run, rank, peak,
			     "table-op_roofline_top",
			     findings_rulef(f, "op-roofline: op_roofline_top.csv lost_us_per_step at least %.0f %% of the "
					       "rank's step (lost_share), the first %d per run",
					    100 * ROOF_LOST_MIN, ROOF_EACH));
		said++;
	}
}
