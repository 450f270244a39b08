/*
 * pipeline_balance.h: what a pipeline run's bubble figure says of the
 * split of its work between stages (pipeline_balance.c).
 */
#ifndef PERFSTUDY_PIPELINE_BALANCE_H
#define PERFSTUDY_PIPELINE_BALANCE_H

#include "store/store.h"
#include "util/table.h"

/* Above this imbalance (slowest stage's compute over the mean) the split, not the schedule, makes the bubble. */
#define PP_SPLIT_IMBALANCE 1.10

/*
 * The words on run's bubble figure about its split, from its rows of
 * pipeline_stages.csv t: NULL when its imbalance is at most
 * PP_SPLIT_IMBALANCE; else the slowest stage, its factor over the mean,
 * and, where that stage's rank runs the logit layer (the widest
 * aten::linear weight [V, hidden] of the run's traces, trace_vocab.c),
 * that it holds the head. *note gets the short form drawn on the figure.
 * Both malloc'd; -1 after diag (the store), else 0.
 */
int pipeline_balance_words(struct store *s, const char *exp, const char *run, const struct table *t, int64_t hidden,
			   int64_t ffn, char **caption, char **note);

#endif
