/*
 * findings_rules.h: the findings' rules' thresholds, named once: the rule
 * texts of findings.csv and its Methods (findings_methods.c) print these
 * values (never a copy of them), and docs/output.md is generated from the
 * Methods (tools/output_tables.py).
 */
#ifndef PERFSTUDY_FINDINGS_RULES_H
#define PERFSTUDY_FINDINGS_RULES_H

#define SKEW_MIN 0.20        /* collective share of the step, max - min over ranks */
#define IDLE_MIN 0.20        /* GPU idle share of the step (host-bound) or span (gpu-idle) */
#define HOST_MIN 0.50        /* host share of the critical path, and host wait share of the idle time */
#define WAIT_MIN 0.10        /* a rank's wait for the straggler, share of its step */
#define HOST_BOUND_EACH 4    /* host-bound ranks of a run stated one by one; more: one statement */
#define CAUSE_MIN_MS 1.0     /* the smallest excess (ms per step) worth naming: less is the ranks' natural spread */
#define CAUSE_LEAD_SHARE 0.5 /* "so the others wait": the excess named is this share of the largest exposed wait */
#define OVERHEAD_SAY 1.10    /* a profiler slowdown worth a note beside each finding */
#define SCALING_SPLIT 0.10   /* profiled and logged speedups differing by more than this share of the logged one */
#define MIN_SAMPLES 5         /* profiled steps a straggler with no specific mechanism needs */
#define NOISE_K 2.0          /* a straggler's saving must exceed this many times the training's step noise */
#define SAVING_MIN 0.02      /* ... and this share of the step */
#define ROOF_LOST_MIN 0.05   /* an operator's time lost against its roofline worth a finding, share of the step */
#define ROOF_EACH 3          /* ... the most such operators stated per run */
#define ROOF_PAGE 5          /* ... and per experiment (its page); the rest are in op_roofline_top.csv */

struct buf;

/* A share as the Methods say it: "half" for 0.5, else "N %" (into out, which it returns). */
const char *findings_share_words(double share, char out[16]);
/* Appends findings.csv's Methods text (its rules, thresholds and price) to m. */
void findings_methods(struct buf *m);

#endif
