/*
 * pipeline_balance.c: a pipeline's bubble beside its split (perfstudy
 * issue 54). With stages of unequal work, GPipe and 1F1B alike idle the
 * faster stages while the slowest works: the bubble beyond the schedule's
 * (p - 1) / (m + p - 1) then measures the split of the layers, not the
 * schedule. The bubble figure says so where pipeline_stages.csv's
 * imbalance (the slowest stage's compute over the stages' mean) exceeds
 * PP_SPLIT_IMBALANCE (findings_pipeline.c names the slowest stage as the
 * cause above the same 1.10), naming the slowest stage and, where its rank
 * runs the logit layer (trace_vocab.c: an aten::linear of weight [V, d]
 * wider than any layer's matrix), that it holds the model's head (and the
 * loss that follows it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/layout.h"
#include "analyze/pipeline/pipeline_balance.h"
#include "util/xalloc.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/ranks/ranks_tables.h"

int pipeline_balance_words(struct store *s, const char *exp, const char *run, const struct table *t, int64_t hidden,
			   int64_t ffn, char **caption, char **note)
{
	*caption = *note = NULL;
	int crun = PS_RUN, crank = PS_RANK, cst = PS_STAGE;
	int cstages = PS_STAGES, ccomp = PS_COMPUTE_US;
	int cimb = PS_IMBALANCE;
	double imb = NAN, best = -1;
	int64_t rank = -1, stage = -1, stages = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(table_cell(t, r, (size_t)crun)->v.text, run))
			continue;
		const struct cell *c = table_cell(t, r, (size_t)ccomp), *i = table_cell(t, r, (size_t)cimb);
		if (!i->null && (isnan(imb) || i->v.f > imb))
			imb = i->v.f;
		if (!c->null && (double)c->v.i > best) {
			best = (double)c->v.i;
			rank = table_cell(t, r, (size_t)crank)->v.i;
			stage = table_cell(t, r, (size_t)cst)->v.i;
			stages = table_cell(t, r, (size_t)cstages)->v.i;
		}
	}
	if (isnan(imb) || imb <= PP_SPLIT_IMBALANCE || rank < 0)
		return 0;
	int head_rank = -1;
	int64_t V = layout_trace_vocab(s, exp, run, hidden, ffn, &head_rank);
	if (V < 0)
		return -1;
	int head = V > 0 && head_rank == rank;
	char *holds = head ? xasprintf(", which holds the logit layer (a [%lld, %lld] matrix product),",
				       (long long)V, (long long)hidden)
			   : xstrdup("");
	*caption = xasprintf(" The stages are unequal: stage %lld of %lld (rank %lld)%s computes %.2fx the "
			     "stages' mean (imbalance), so the others wait for it whatever the schedule: the measured "
			     "bubble beyond the schedule's reflects the split of the work between stages, not GPipe "
			     "against 1F1B.", (long long)stage, (long long)stages, (long long)rank, holds, imb);
	*note = xasprintf("stage %lld%s computes %.2fx the stages' mean: the split, not the schedule, makes the bubble",
			  (long long)stage, head ? " (the head)" : "", imb);
	free(holds);
	return 0;
}
