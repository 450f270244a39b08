/*
 * findings_memory.c: the memory rules of findings.csv, from memory_ranks.csv
 * (analyze/memory/memory_steps.c defines its columns):
 *   memory-growth     a rank with grows = 1: the bytes it keeps per step
 *                     (allocations never freed), the phase they were made
 *                     in, how much its allocated memory at the step's end
 *                     rises against the noise, how many steps the rate
 *                     rests on, the steps until the device is full at
 *                     that rate as a range (steps_to_full_reserved to
 *                     steps_to_full: the reserved or only the allocated
 *                     memory counted as taken; the CUDA context and NCCL's
 *                     buffers, not in the trace, make it fewer still), and
 *                     what it keeps: the operator, its parent, the shape
 *                     or bytes and the count per step of memory_kept.csv's
 *                     row that repeats every step (memory_kept_words).
 *                     Where its peak is more than MEM_IMBALANCE above the
 *                     run's lowest, the finding says so: the imbalance is
 *                     the growth's (issue #57 item 5).
 *   memory-imbalance  a run whose ranks' peaks (peak_allocated_bytes)
 *                     differ by more than MEM_IMBALANCE of the lowest: the
 *                     ranks above the lowest by more than that are named,
 *                     but not a rank that grows (grows = 1), whose excess
 *                     its growth finding states; none left, no finding.
 *   memory-strategy   two runs of different strategies (runs.csv strategy,
 *                     as layout_strategy_shown names it), the same model
 *                     (runs.csv model; both empty counts, said so) and the
 *                     same number of GPUs (more than one), both with
 *                     allocator events: each run's peak memory per GPU is
 *                     the largest peak_allocated_bytes of its ranks that do
 *                     not grow (grows != 1: a leak is a bug of one rank,
 *                     not a cost of the strategy; the growing ranks are
 *                     named as left out), in bytes, shown in GiB. Stated
 *                     at the later run of runs.csv against the first
 *                     earlier run of another strategy (a sweep of four
 *                     strategies gives three statements, not six), with
 *                     how many ranks and profiled steps each rests on.
 */
#include "analyze/findings/findings_memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "analyze/findings/cells.h"
#include "analyze/lib/layout.h"
#include "analyze/memory/memory_steps_kept.h"
#include "analyze/time/time_tables.h"

#define MEM_IMBALANCE 0.10 /* peaks differing by more than this share of the lowest */
#define MEM_NAMED 8        /* ranks named one by one in an imbalance finding; more are counted */

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * MIB)

/* The lowest peak_allocated_bytes of run's ranks into *lo (INFINITY: none) and its rank into *lo_rank; the count. */
static long lowest_peak(const struct table *t, const char *run, double *lo, long *lo_rank)
{
	int crun = col(t, MR_RUN), crank = col(t, MR_RANK), cpeak = col(t, MR_PEAK_ALLOCATED_BYTES);
	long n = 0;
	*lo = INFINITY;
	*lo_rank = -1;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		double p = num(t, r, cpeak);
		if (!rr || strcmp(rr, run) || isnan(p))
			continue;
		n++;
		if (p < *lo) {
			*lo = p;
			*lo_rank = (long)num(t, r, crank);
		}
	}
	return n;
}

static void growth(const struct table *t, const struct table *kept, size_t r, const char *run, memory_finding_fn emit,
		   void *ctx, struct buf *b, struct buf *rule)
{
	int rank = (int)num(t, r, col(t, MR_RANK));
	double per = num(t, r, col(t, MR_KEPT_BYTES_PER_STEP)), change = num(t, r, col(t, MR_END_CHANGE_BYTES_PER_STEP));
	double noise = num(t, r, col(t, MR_NOISE_BYTES)), steps = num(t, r, col(t, MR_RATE_STEPS));
	double full = num(t, r, col(t, MR_STEPS_TO_FULL)), dev = num(t, r, col(t, MR_DEVICE_BYTES));
	double full_res = num(t, r, col(t, MR_STEPS_TO_FULL_RESERVED));
	const char *where = text(t, r, col(t, MR_KEPT_REGION));
	buf_reset(b);
	buf_printf(b, "%s rank %d: memory grows: it keeps %.1f MiB (%.0f bytes) per step that it never frees: "
		   "memory it allocated in %s stays allocated to the end of the trace, and its allocated memory at the "
		   "end of a step rises by %.1f MiB per step, more than the noise (%.1f MiB). The rate rests on %.0f "
		   "step%s (the profiled steps but the last)", run, rank, per / MIB, per, where && where[0] ? where : "no phase", change / MIB,
		   noise / MIB, steps, steps == 1 ? "" : "s");
	if (!isnan(full) && !isnan(dev)) {
		if (!isnan(full_res) && full_res < full)
			buf_printf(b, "; at that rate the device's %.1f GiB is full after %.0f to %.0f more steps (%.0f "
				   "counting the memory the allocator has reserved as taken, %.0f counting only its peak "
				   "allocated memory), sooner still by the CUDA context and any NCCL buffers, which are "
				   "outside the allocator and not in the trace", dev / GIB, full_res, full, full_res, full);
		else
			buf_printf(b, "; at that rate its peak no longer fits in the device's %.1f GiB after %.0f more "
				   "steps, sooner by the CUDA context and any NCCL buffers, which are outside the allocator "
				   "and not in the trace", dev / GIB, full);
	}
	double lo, peak = num(t, r, col(t, MR_PEAK_ALLOCATED_BYTES));
	long lo_rank;
	if (lowest_peak(t, run, &lo, &lo_rank) >= 2 && lo > 0 && peak > lo * (1 + MEM_IMBALANCE))
		buf_printf(b, ". Its peak (%.2f GiB) is %.0f %% above the run's lowest (rank %ld, %.2f GiB): as it is the "
			   "rank that grows, the growth, not uneven data or extra work, is the first suspect for that "
			   "difference", peak / GIB, 100 * (peak - lo) / lo, lo_rank, lo / GIB);
	buf_adds(b, ". What it keeps: ");
	if (!memory_kept_words(kept, run, rank, b))
		buf_adds(b, "no allocation named (memory_kept.csv has no row of the rank)");
	buf_adds(b, ". A tensor kept across steps (appended to a list, held by a cache or by the autograd graph of "
		    "a kept loss) is the usual cause.");
	buf_reset(rule);
	buf_printf(rule, "memory-growth: memory_ranks.csv grows = 1 (kept_bytes_per_step and "
		   "end_change_bytes_per_step above noise_bytes)");
	emit(ctx, run, rank, per, "table-memory_ranks", rule->data, b->data);
}

static void imbalance(const struct table *t, const char *run, memory_finding_fn emit, void *ctx, struct buf *b,
		      struct buf *rule)
{
	int crun = col(t, MR_RUN), crank = col(t, MR_RANK), cpeak = col(t, MR_PEAK_ALLOCATED_BYTES), cgrow = col(t, MR_GROWS);
	double lo, hi = -INFINITY;
	long lo_rank;
	long n = lowest_peak(t, run, &lo, &lo_rank);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		double p = num(t, r, cpeak);
		if (rr && !strcmp(rr, run) && !isnan(p) && num(t, r, cgrow) != 1) /* a growing rank: its growth finding */
			hi = fmax(hi, p);
	}
	if (n < 2 || !(lo > 0) || hi <= lo * (1 + MEM_IMBALANCE))
		return;
	buf_reset(b);
	buf_printf(b, "%s: the ranks' memory peaks differ by %.0f %%: rank %ld peaks at %.2f GiB; above it by more "
		   "than %.0f %%:", run, 100 * (hi - lo) / lo, lo_rank, lo / GIB, 100 * MEM_IMBALANCE);
	long named = 0, more = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		double p = num(t, r, cpeak);
		if (!rr || strcmp(rr, run) || isnan(p) || p <= lo * (1 + MEM_IMBALANCE) || num(t, r, cgrow) == 1)
			continue;
		if (named++ < MEM_NAMED)
			buf_printf(b, "%s rank %.0f (%.2f GiB, +%.0f %%)", named > 1 ? "," : "", num(t, r, crank), p / GIB,
				   100 * (p - lo) / lo);
		else
			more++;
	}
	if (more)
		buf_printf(b, " and %ld more", more);
	buf_adds(b, ". Uneven data, or a rank that does more (logging, evaluation, a larger shard), is the usual cause; "
		    "the run's batch size is bounded by the highest.");
	buf_reset(rule);
	buf_printf(rule, "memory-imbalance: memory_ranks.csv peak_allocated_bytes more than %.0f %% above the run's "
		   "lowest", 100 * MEM_IMBALANCE);
	emit(ctx, run, -1, (hi - lo) / lo, "table-memory_ranks", rule->data, b->data);
}

/* A run's memory on the ranks that do not grow, and the growing ones left out (memory-strategy). */
struct run_mem {
	double peak;              /* the largest peak_allocated_bytes of its ranks that do not grow; NAN: none */
	long ranks, steps;        /* those ranks, and the most profiled steps of one */
	long grown, grown_rank;   /* the ranks left out as growing, and the first of them */
	double grown_peak;        /* the largest peak of those */
};

static void run_mem_of(const struct table *t, const char *run, struct run_mem *m)
{
	int crun = col(t, MR_RUN), crank = col(t, MR_RANK), cpeak = col(t, MR_PEAK_ALLOCATED_BYTES), cgrow = col(t, MR_GROWS);
	int csteps = col(t, MR_STEPS);
	*m = (struct run_mem){NAN, 0, 0, 0, -1, NAN};
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		double p = num(t, r, cpeak);
		if (!rr || strcmp(rr, run) || isnan(p))
			continue;
		if (num(t, r, cgrow) == 1) {
			if (!m->grown++)
				m->grown_rank = (long)num(t, r, crank);
			m->grown_peak = isnan(m->grown_peak) ? p : fmax(m->grown_peak, p);
			continue;
		}
		m->ranks++;
		m->peak = isnan(m->peak) ? p : fmax(m->peak, p);
		if (num(t, r, csteps) > m->steps)
			m->steps = (long)num(t, r, csteps);
	}
}

static const struct manifest_run *man_run(const struct manifest *mf, const char *run)
{
	for (size_t i = 0; mf && i < mf->nruns; i++)
		if (mf->runs[i].id && !strcmp(mf->runs[i].id, run))
			return &mf->runs[i];
	return NULL;
}

static void left_out(struct buf *b, const char *run, const struct run_mem *m)
{
	if (!m->grown)
		return;
	buf_printf(b, " Left out of %s: rank %ld%s, whose memory grows every step (its peak %.2f GiB; its memory-growth "
		   "finding).", run, m->grown_rank, m->grown > 1 ? " and the others that grow" : "", m->grown_peak / GIB);
}

static void strategies(const struct analysis_result *res, const struct manifest *mf, const struct table *t,
		       const char *run, memory_finding_fn emit, void *ctx, struct buf *b, struct buf *rule)
{
	const struct table *rt = result_table(res, "runs");
	int crun = col(rt, RUNS_RUN), cg = col(rt, RUNS_GPUS), cm = col(rt, RUNS_MODEL), cs = col(rt, RUNS_STRATEGY);
	if (!rt || crun < 0 || cg < 0 || cm < 0 || cs < 0)
		return;
	size_t me = rt->nrows;
	for (size_t i = 0; i < rt->nrows && me == rt->nrows; i++)
		if (text(rt, i, crun) && !strcmp(text(rt, i, crun), run))
			me = i;
	if (me == rt->nrows || !(num(rt, me, cg) > 1))
		return;
	struct run_mem a;
	run_mem_of(t, run, &a);
	if (!a.ranks)
		return;
	char sa[64], sb[64];
	layout_strategy_shown(man_run(mf, run), text(rt, me, cs), sa, sizeof(sa));
	const char *model = text(rt, me, cm);
	for (size_t q = 0; q < me; q++) {
		const char *other = text(rt, q, crun), *om = text(rt, q, cm);
		if (!other || num(rt, q, cg) != num(rt, me, cg) || strcmp(model ? model : "", om ? om : ""))
			continue;
		layout_strategy_shown(man_run(mf, other), text(rt, q, cs), sb, sizeof(sb));
		if (!*sa || !*sb || !strcmp(sa, sb))
			continue;
		struct run_mem o;
		run_mem_of(t, other, &o);
		if (!o.ranks || !(o.peak > 0))
			continue;
		double d = a.peak - o.peak;
		buf_reset(b);
		buf_printf(b, "%s (%s) against %s (%s), ", run, sa, other, sb);
		if (model && *model)
			buf_printf(b, "both %s", model);
		else
			buf_adds(b, "neither naming its model (runs.csv model empty: the same model is assumed)");
		buf_printf(b, ", on %.0f GPUs each: the most memory a GPU held in a profiled step, over the ranks that do "
			   "not grow, is %.2f GiB against %.2f GiB: %.2f GiB (%.1f %%) %s with %s than with %s.",
			   num(rt, me, cg), a.peak / GIB, o.peak / GIB, fabs(d) / GIB, 100 * fabs(d) / o.peak,
			   d < 0 ? "less" : "more", sa, sb);
		left_out(b, run, &a);
		left_out(b, other, &o);
		buf_printf(b, " From the allocator's events in the traces (memory_ranks.csv peak_allocated_bytes): %ld "
			   "and %ld ranks of the %.0f GPUs each, %ld and %ld profiled steps a rank.", a.ranks, o.ranks,
			   num(rt, me, cg), a.steps, o.steps);
		buf_reset(rule);
		buf_adds(rule, "memory-strategy: two runs of different strategies, the same model and GPUs: "
			       "memory_ranks.csv peak_allocated_bytes, largest over the ranks with grows != 1");
		emit(ctx, run, -1, d / o.peak, "table-memory_ranks", rule->data, b->data);
		return; /* against the first earlier run of another strategy only */
	}
}

void findings_memory(const struct analysis_result *res, const struct manifest *mf, const char *run,
		     memory_finding_fn emit, void *ctx)
{
	const struct table *t = result_table(res, "memory_ranks");
	int crun = col(t, MR_RUN), cgrow = col(t, MR_GROWS);
	if (!t || crun < 0 || cgrow < 0)
		return;
	struct buf b, rule;
	buf_init(&b);
	buf_init(&rule);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		if (rr && !strcmp(rr, run) && num(t, r, cgrow) == 1)
			growth(t, result_table(res, "memory_kept"), r, run, emit, ctx, &b, &rule);
	}
	imbalance(t, run, emit, ctx, &b, &rule);
	strategies(res, mf, t, run, emit, ctx, &b, &rule);
	buf_release(&b);
	buf_release(&rule);
}
