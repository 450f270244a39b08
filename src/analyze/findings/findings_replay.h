/*
 * findings_replay.h: the replay's rules of findings.csv
 * (findings_replay.c), from replay_fixes.csv (analyze/replay/replay.c):
 *   replay   a one-rank run's fixes that replay_fixes.csv states, each
 *            with its saving from the step replayed without its cause;
 *   price    for a straggler of a run whose ranks were replayed together,
 *            the saving of its fix with the largest saving, which the
 *            waiting and cause findings (findings.c) state instead of the
 *            collectives' price.
 * The mechanisms' words come from replay.c's one table (rp_mechanism).
 */
#ifndef PERFSTUDY_FINDINGS_REPLAY_H
#define PERFSTUDY_FINDINGS_REPLAY_H

#include "analyze/analysis.h"

struct buf;

/* Takes one replay finding: its run, number (the saving's share of the step), saving (us per step), rule and statement. */
typedef void (*replay_finding_fn)(void *ctx, const char *run, double value, double saving_us, const char *rule,
				  const char *text);
/* Calls emit for each fix of run that replay_fixes.csv states; returns how many. */
int findings_replay(const struct analysis_result *res, const char *run, replay_finding_fn emit, void *ctx);

/* A straggler's price from the replay of its run's ranks together. */
struct replay_price {
	double saving, noise, step; /* us per step; step: the replayed step */
	int stated;                 /* beyond the replay's noise (replay_fixes.csv stated) */
	const char *what, *removed; /* the mechanism's words (rp_mechanism) */
	const char *where;          /* extra_gpu_work: replay_fixes.csv's where (the run compared with), else NULL */
};
/* Fills *p for rank of run and returns 1, or 0 where the run's ranks were not replayed together. */
int findings_replay_price(const struct analysis_result *res, const char *run, int rank, struct replay_price *p);
/*
 * Where rank of run was replayed (a row of replay_fixes.csv): its host_gap
 * row's gap_us_per_step into *gap_us (0 where it has none: no stretch to
 * take out), and returns 1; else 0.
 */
int findings_replay_gaps(const struct analysis_result *res, const char *run, int rank, double *gap_us);
/* The price of p in words: "about 4.3 ms per step, 11 % of the 39.4 ms step of ...". */
void findings_replay_words(struct buf *b, const struct replay_price *p, double saving);
/* A time in us in words: "39.3 ms", "850 us". */
void findings_time_words(struct buf *b, double us);

#endif
