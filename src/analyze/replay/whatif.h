/*
 * whatif.h: `perfstudy whatif`'s question to the replay (issue #52, "your
 * own question"): one run of a built site's store replayed, step by step,
 * as profiled and under changes the user writes, both at the run's
 * calibrated host factor (replay_calibrate.c).
 *
 * Reads the store (opened by store_open_site); produces a struct
 * whatif_result that the caller owns (whatif_result_release). The CSV and
 * the summary line are the caller's (cli/cmd_whatif.c).
 *
 * A change, in the model of replay.h (several apply together; factors of
 * the same activity or of the host multiply):
 *   collectives=X      collective and point-to-point kernels (NCCL, RCCL)
 *                      take X times their duration; where the run's ranks
 *                      are replayed together, X times their wait-free
 *                      transfer (the wait for the last rank stays modelled);
 *                      else the measured time, any wait for other ranks in it
 *   kernels:PATTERN=X  kernels whose name matches the fnmatch(3) PATTERN
 *                      (the store's name table) take X times their duration
 *   roofline:OP=F      each row of op_roofline.csv whose operator matches
 *                      the fnmatch(3) pattern OP runs at the fraction F (0 <
 *                      F <= 1) of its roofline: the kernels its calls claim
 *                      take min(1, R / (F G)) times their duration, R the
 *                      roofline's time of the row's calls (the device's
 *                      datasheet peaks, not the manifest's hardware.peaks),
 *                      G their measured GPU time (op_roofline_whatif)
 *   host=X             the host's time between and in its runtime calls,
 *                      already scaled by the calibrated factor, times X
 *                      (the stretches no operator covers stay as measured)
 *   gaps=0             the host stretches of 1 ms or more that no operator
 *                      covers, on any thread, taken out (a sleep, untraced
 *                      Python)
 *   data-loading=0     the host time inside enumerate(DataLoader)... ranges
 *                      (the operators the store keeps for the data loader)
 *                      between two runtime calls taken out; the calls made
 *                      inside such a range keep their cost
 *   syncs=0            every call the model found waiting for the GPU (a
 *                      cuda*Synchronize, a blocking copy such as .item(),
 *                      a pageable copy, cudaFree) returns without waiting;
 *                      the GPU work itself stays
 *   rank=R:median      rank R's compute kernels at the median duration of
 *                      the same kernel on the other ranks (those most do
 *                      not run dropped): ranks replayed together only
 * X is a number from 0 to 1000 (0: the work takes no time); host=X needs X > 0.
 */
#ifndef PERFSTUDY_WHATIF_H
#define PERFSTUDY_WHATIF_H

#include <stddef.h>
#include <stdint.h>

#include "manifest/whatif_change.h"
#include "store/store.h"
#include "util/table.h"

struct whatif_step {
	int64_t number;                      /* N of ProfilerStep#N */
	int64_t measured, replayed, whatif;  /* ns */
	int64_t replayed_fast, whatif_fast;  /* the same two at the bottom of the host factors' range (ns) */
};

struct whatif_result {
	char *experiment, *run;
	size_t ranks;          /* ranks replayed */
	int joint;             /* 1: replayed together, their collectives joined */
	double host_factor;    /* the calibrated factor; NAN where each rank has its own */
	double host_factor_lo; /* the bottom of the range of factors the log allows (replay_calibrate.c); NAN as above */
	int64_t log_median;    /* the training log's unprofiled median the factor is calibrated to (ns); 0: none */
	struct whatif_step *steps;
	size_t nsteps;
};

/* whatif_run's return when the command line does not fit the store (a usage error). */
#define WHATIF_USAGE (-2)

/*
 * Replays run (a run id of the store at db, or EXPERIMENT/RUN) under the
 * n changes into *out. Returns 0; -1 after diag when the store cannot be
 * read or the run has no replayable step; WHATIF_USAGE after diag when
 * the run is not one of the store's (the message lists them), a rank of
 * rank=R:median is not one of the run's, or its ranks cannot be replayed
 * together.
 */
int whatif_run(struct store *s, const char *db, const char *run, const struct whatif_change *c, size_t n,
	       struct whatif_result *out);
void whatif_result_release(struct whatif_result *r);

/*
 * whatif.csv, the one table both `perfstudy whatif` and the manifest's
 * whatif entries (the analysis whatif_manifest) write: per step with a time
 * on every replay, then a mean row: run, change (as written), step,
 * measured_us, replayed_us and whatif_us (at the calibrated factor),
 * saving_us = replayed_us - whatif_us, host_factor, host_factor_lo and
 * saving_fast_host_us, the saving with every rank's host at the bottom of
 * the range of factors its log allows (a GPU-bound run's log cannot tell
 * the host's speed: the saving at the top, where f is, is the least it
 * allows, and this the most).
 */
#define WHATIF_COLUMNS(X)                                     \
	X(WIF_RUN, "run", text)                               \
	X(WIF_CHANGE, "change", text)                         \
	X(WIF_STEP, "step", text)                             \
	X(WIF_MEASURED_US, "measured_us", us)                 \
	X(WIF_REPLAYED_US, "replayed_us", us)                 \
	X(WIF_WHATIF_US, "whatif_us", us)                     \
	X(WIF_SAVING_US, "saving_us", us)                     \
	X(WIF_HOST_FACTOR, "host_factor", real)               \
	X(WIF_HOST_FACTOR_LO, "host_factor_lo", real)         \
	X(WIF_SAVING_FAST_HOST_US, "saving_fast_host_us", us)
enum whatif_col { WHATIF_COLUMNS(TABLE_COL_ENUM) WIF_NCOLS };
struct table;
/* Adds r's rows under change to t (WHATIF_COLUMNS) and sets mean[0..5) to the mean row's measured, replayed, whatif, replayed_fast, whatif_fast (ns). */
void whatif_table_add(struct table *t, const struct whatif_result *r, const char *change, double *mean);

#endif
