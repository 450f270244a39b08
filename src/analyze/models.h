/*
 * models.h: helpers shared by the model analyses (models.c, flops.c).
 *
 * models_est_model() turns a manifest model into the estimate module's
 * description; models_flops_figures() builds the charts of flops.c from its
 * tables (chart models only; figures.c style, no cairo).
 */
#ifndef PERFSTUDY_MODELS_H
#define PERFSTUDY_MODELS_H

#include "analysis.h"
#include "estimate.h"

void models_est_model(const struct manifest_model *m, struct est_model *out);
/* Appends batch vs FLOPs, batch vs DRAM bytes and estimated vs measured figures when they can be drawn. */
void models_flops_figures(const struct table *flops, const struct table *ratio, struct analysis_result *out);

#endif
