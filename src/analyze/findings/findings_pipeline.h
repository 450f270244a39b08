/*
 * findings_pipeline.h: the pipeline rule of findings.csv
 * (findings_pipeline.c), from pipeline_stages.csv: a stage whose bubble
 * exceeds its schedule's by more than the noise.
 */
#ifndef PERFSTUDY_FINDINGS_PIPELINE_H
#define PERFSTUDY_FINDINGS_PIPELINE_H
#include "analyze/analysis.h"

/*
 * Takes one finding: its run, rank, number, price (us per step), evidence
 * anchor, rule text and statement.
 */
typedef void (*pipeline_finding_fn)(void *ctx, const char *run, int rank, double value, double saving_us,
				    const char *evidence, const char *rule, const char *text);
/* Calls emit for each pipeline of run with a stage over its schedule's bubble; nothing without pipeline_stages.csv. */
void findings_pipeline(const struct analysis_result *res, const char *run, pipeline_finding_fn emit, void *ctx);
/* Whether run has rows in pipeline_stages.csv: the comm-skew rule is not applied to it. */
int findings_pipeline_has(const struct analysis_result *res, const char *run);
/*
 * Whether rank of run is a pipeline stage whose GPU idle time the
 * pipeline explains, so that the host-bound rule is not applied to it:
 * its excess_share is not above the pipeline-bubble rule's noise (or,
 * under PP_MIN_STEPS steps, unknown: its idle time is the schedule's
 * bubble), or another stage of its pipeline is the slowest with
 * imbalance above PP_IMBALANCE (it waits for that stage).
 */
int findings_pipeline_idle_explained(const struct analysis_result *res, const char *run, int rank);
#endif
