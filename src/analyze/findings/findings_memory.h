/*
 * findings_memory.h: the memory rules of findings.csv (findings_memory.c),
 * from memory_ranks.csv: a rank whose memory grows from step to step, and
 * ranks whose peaks differ by more than MEM_IMBALANCE, and runs of two
 * strategies compared on their ranks that do not grow.
 */
#ifndef PERFSTUDY_FINDINGS_MEMORY_H
#define PERFSTUDY_FINDINGS_MEMORY_H
#include "analyze/analysis.h"

/* Takes one finding: its run, rank (-1: the run), number, evidence anchor, rule text and statement. */
typedef void (*memory_finding_fn)(void *ctx, const char *run, int rank, double value, const char *evidence,
				  const char *rule, const char *text);
/*
 * Calls emit for each memory finding of run, growth first, then imbalance,
 * then its comparisons with earlier runs of other strategies (mf names the
 * runs' strategies; may be NULL); nothing without memory_ranks.csv.
 */
void findings_memory(const struct analysis_result *res, const struct manifest *mf, const char *run,
		     memory_finding_fn emit, void *ctx);
#endif
