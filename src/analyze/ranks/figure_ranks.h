/*
 * figure_ranks.h: trimming the figures with a bar per rank to the ranks
 * rank_spread.csv draws (figure_ranks.c).
 */
#ifndef PERFSTUDY_FIGURE_RANKS_H
#define PERFSTUDY_FIGURE_RANKS_H

#include <stddef.h>

#include "analyze/analysis.h"

/*
 * Keeps, in each figure of out with a bar per rank, the ranks that
 * rank_spread.csv (already in out) marks drawn, and says so in the
 * figure's caption; a figure trimmed before is left as it is. Returns the
 * figures trimmed now.
 */
size_t figure_ranks_trim(struct analysis_result *out);

#endif
