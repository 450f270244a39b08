/*
 * models_published.c: published.csv, a study's own estimates (the
 * manifest's 'published') beside perfstudy's for the same model and
 * batch, with the ratio; nothing is tuned to match. Where the quantity is
 * the study's own formula and its printed value is not that formula's
 * value rounded, the row says the study disagrees with itself.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/models/estimate.h"
#include "analyze/models/models.h"
#include "util/buf.h"
#include "util/xalloc.h"

/*
 * Whether a published value pub, printed with one decimal as the studies
 * print them, can be the rounding of what the study's own formula gives
 * (ours): |pub - ours| <= 0.05 plus a relative 10^-9 for the arithmetic.
 */
static int printed_matches(double pub, double ours)
{
	return fabs(pub - ours) <= 0.05 + 1e-9 * fabs(ours);
}

/* A study's own estimates beside perfstudy's. */
void models_published(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *man = ctx->manifest;
	struct table *t = table_new("published", "Published estimates beside perfstudy's, per run",
				    TABLE_SCHEMA(PUBLISHED_COLUMNS));
	/* The paper's own formulas (flops_tflop, activation_gb) that disagree with its own table. */
	struct buf bad[2];
	double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0};
	buf_init(&bad[0]);
	buf_init(&bad[1]);
	for (size_t i = 0; man && i < man->nruns; i++) {
		const struct manifest_run *r = &man->runs[i];
		const struct manifest_published *pb = &r->published;
		struct est_model em;
		models_est_model(&r->model, &em);
		double b = r->batch > 0 ? r->batch : 1;
		double whole = (double)est_params_as(&em, layout_tp(r)), simple = (double)est_params_simple(&em);
		struct {
			const char *what;
			double pub, ours;
			int own_formula; /* -1: not the study's formula; else index into bad[] */
		} q[] = {
			{"params", (double)pb->params, whole, -1},
			{"params_12ld2", (double)pb->params, simple, -1},
			{"flops_tflop", pb->flops_tflop,
			 models_has_model(&r->model) ? est_train_flops(&em, b, RECOMP_NONE, 0) / 1e12 : 0, 0},
			{"activation_gb", pb->activation_gb, est_activation_bytes(&em, b, 1, RECOMP_NONE) / 1e9, 1},
			/* 4 bytes (fp32) a parameter, as Lightning's "estimated model params size" counts */
			{"model_size_mb", pb->model_size_mb, whole * 4 / 1e6, -1},
			/* a count of the study's data set: nothing to estimate it from */
			{"batches", (double)pb->batches, 0, -1},
		};
		for (size_t k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
			if (q[k].pub <= 0)
				continue;
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, r->id);
			table_set_text(t, row, 1, q[k].what);
			table_set_real(t, row, 2, q[k].pub);
			if (q[k].ours <= 0)
				continue;
			double ratio = q[k].pub / q[k].ours;
			table_set_real(t, row, 3, q[k].ours);
			table_set_real(t, row, 4, q[k].ours / q[k].pub);
			/*
			 * 12ld^2 is the layers' weight matrices only: where the model's
			 * whole count is far from it, the study's count (of the whole
			 * model) is not what it approximates (issue #54 item 10).
			 */
			if (!strcmp(q[k].what, "params_12ld2") && whole > 0 && fabs(whole / simple - 1) > 0.1) {
				char *note = xasprintf("unlike counts: 12ld^2 is the layers' weight matrices only; the "
						       "whole model with its embeddings and heads is %.2fx it",
						       whole / simple);
				table_set_text(t, row, 6, note);
				free(note);
			}
			int f = q[k].own_formula;
			if (f < 0 || printed_matches(q[k].pub, q[k].ours))
				continue;
			char *why = xasprintf("the study's own formula gives %.3f, it prints %.1f (x%.2f)", q[k].ours,
					      q[k].pub, ratio);
			table_set_text(t, row, 5, why);
			free(why);
			buf_printf(&bad[f], "%s%s %.1f vs %.3f", bad[f].len ? "; " : "", r->id, q[k].pub, q[k].ours);
			lo[f] = fmin(lo[f], ratio);
			hi[f] = fmax(hi[f], ratio);
		}
	}
	static const char *const what[] = {"training FLOPs per step (TFLOP), b(72sd^2 + 12s^2d)l",
					   "activation memory (GB), b(34sd + 5as^2)l bytes"};
	for (int f = 0; f < 2; f++) {
		if (bad[f].len)
			result_add_note(out, "published.csv: discrepancy in the source: the %s the study prints is "
					"%.2f-%.2fx what its own formula %s gives for the same model and batch (printed "
					"vs formula: %s). perfstudy shows the formula's value and does not adjust it.",
					f ? "activation memory" : "FLOPs", lo[f], hi[f], what[f], bad[f].data);
		buf_release(&bad[f]);
	}
	if (!t->nrows) {
		table_free(t);
		return;
	}
	result_add_table(out, t);
	result_add_method(out, "published.csv",
		"Each number the manifest's 'published' gives for a run, beside perfstudy's estimate of the same "
		"quantity for the run's model and batch b (1 when not given), and perfstudy / published. params: "
		"the count of estimates.csv (params_method there) and 12ld^2. flops_tflop: b(72sd^2 + 12s^2d)l / "
		"10^12 (Cheng et al.; no logit layer, no recomputation; 72 = 3 passes x 24). activation_gb: "
		"b(34sd + 5as^2)l / 10^9 bytes. The estimates are not adjusted to match; a ratio far from 1 says the "
		"study used another formula or other settings. model_size_mb: the parameters' size in 10^6 bytes at 4 "
		"bytes (fp32) a parameter, as PyTorch Lightning's \"estimated model params size\" counts it, from "
		"estimates.csv's params. batches: the batches of the study's data set, typed in; perfstudy has "
		"nothing to estimate them from. source_discrepancy: where the quantity is the "
		"study's own formula (flops_tflop, activation_gb) and its printed value (one decimal) is not the "
		"formula's value rounded, i.e. differs by more than 0.05: the study disagrees with itself. note: "
		"on params_12ld2, where the model's whole count is more than 1.1x or less than 0.9x 12ld^2: 12ld^2 "
		"counts the layers' weight matrices only, so its ratio to a study's whole-model count compares "
		"unlike counts.");
}
