/*
 * published_figures.c: figures of published.csv (models.c), for studies typed
 * in from a paper's model table, which have no traces: per quantity, the
 * paper's number beside perfstudy's estimate for each run (paper 002's
 * parameters, training FLOPs per step and activation memory per model).
 * The numbers and their definitions are published.csv's; these only draw them.
 */
#include <string.h>

#include "analyze/analysis.h"
#include "chart/figures.h"
#include "analyze/models/models.h"

static int analysis_published_figures(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	(void)ctx;
	const struct table *t = result_table(out, "published");
	if (!t)
		return 0;
	static const struct {
		const char *quantity, *name, *title, *label, *caption;
		double scale;
	} figs[] = {
		{"params", "published_params", "Parameters: published and perfstudy's estimate",
		 "parameters (10^9)",
		 "Parameters of each model in billions (10^9): the study's own number (dark) beside perfstudy's "
		 "estimate in the general form (light); published.csv has both and their ratio.",
		 1e-9},
		{"flops_tflop", "published_flops", "Training FLOPs per step: published and perfstudy's estimate",
		 "FLOPs per step (10^12)",
		 "Training FLOPs per step in TFLOP (10^12) at the run's batch (1 when not given): the study's own "
		 "number (dark) beside perfstudy's b(72sd^2 + 12s^2d)l (light); published.csv has their ratio.",
		 1},
		{"activation_gb", "published_activations",
		 "Activation memory: published and perfstudy's estimate", "activation memory (GB)",
		 "Activation memory in GB (10^9 bytes) at the run's batch: the study's own number (dark) beside "
		 "perfstudy's b(34sd + 5as^2)l bytes (light); where they differ by far, published.csv's ratio "
		 "shows by how much.",
		 1},
	};
	/* Parameters in millions when no model reaches 10^9 (paper 003's 109 M, not 0.109 x 10^9). */
	int qcol = PUB_QUANTITY, pcol = PUB_PUBLISHED,
	    ocol = PUB_PERFSTUDY;
	double most = 0;
	for (size_t r = 0; qcol >= 0 && pcol >= 0 && ocol >= 0 && r < t->nrows; r++) {
		const struct cell *q = table_cell(t, r, (size_t)qcol);
		if (q->null || strcmp(q->v.text, "params"))
			continue;
		for (int k = 0; k < 2; k++) {
			const struct cell *v = table_cell(t, r, (size_t)(k ? ocol : pcol));
			if (!v->null && v->v.f > most)
				most = v->v.f;
		}
	}
	int millions = most > 0 && most < 1e9;
	static const struct published_cols pcols = {PUB_RUN, PUB_QUANTITY, PUB_PUBLISHED, PUB_PERFSTUDY};
	for (size_t i = 0; i < sizeof(figs) / sizeof(figs[0]); i++) {
		int params_m = millions && !strcmp(figs[i].quantity, "params");
		struct chart *c = figure_published(t, &pcols, figs[i].quantity, params_m ? 1e-6 : figs[i].scale,
						   figs[i].name, figs[i].title,
						   params_m ? "parameters (10^6)" : figs[i].label);
		if (c) {
			chart_set_x_axis(c, "model", CHART_SCALE_LINEAR);
			result_add_figure(out, c,
					  params_m ? "Parameters of each model in millions (10^6): the study's own number "
						     "(dark) beside perfstudy's estimate in the general form (light); "
						     "published.csv has both and their ratio."
						   : figs[i].caption);
		}
	}
	return 0;
}

const struct analysis_def analysis_def_published_figures = {
	.name = "published_figures",
	.run = analysis_published_figures,
	.needs = ANALYSIS_TABLES("published"),
	.makes = ANALYSIS_NONE,
	.figures = ANALYSIS_NAMES("published_params", "published_flops",
		"published_activations"),
};
