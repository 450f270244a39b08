/* basic_strategy.h: runs.csv's strategy and strategy_source (basic_strategy.c). */
#ifndef PERFSTUDY_BASIC_STRATEGY_H
#define PERFSTUDY_BASIC_STRATEGY_H

#include "analyze/analysis.h"

/*
 * Fills runs' strategy where the manifest gives none, from the run's traces'
 * annotations or its training logs, and strategy_source for every run with
 * one; notes where they disagree. Returns 0, or -1 after diag.
 */
int basic_strategies(struct store *s, const char *exp, struct table *runs, struct analysis_result *out);

#endif
