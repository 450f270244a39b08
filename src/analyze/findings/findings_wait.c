/*
 * findings_wait.c: the findings of a straggler (findings.c's rules waiting,
 * cause and straggler-windows, and the price they state first): the rank
 * the others waited for longest in a run's matched collectives, what it did
 * more than the others, and what its GPU did while they waited; without
 * matched collectives, comm-skew: the ranks' shares of the step inside
 * collectives; straggler-unpriced: a straggler the price's noise rules
 * leave unstated, said with the waits and why it has no saving.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings/findings_int.h"
#include "analyze/findings/findings_clock.h"
#include "analyze/findings/findings_rules.h"
#include "analyze/findings/findings_why.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/ranks/straggler_causes.h"
#include "analyze/time/profiler_overhead.h"
#include "util/buf.h"
#include "util/intmap.h"
#include "util/xalloc.h"

/*
 * straggler-windows: what the straggler's GPU did in the windows that made
 * another rank wait (straggler_ranks.csv: the union of the windows from
 * the first rank's arrival to its own in the collectives it arrived last
 * in with some rank waiting, each instant once), as shares of that union.
 */
static void rule_straggler_windows(struct findings *f, const struct analysis_result *res, const char *run,
				   int straggler)
{
	static const int parts[] = {SR_WINDOW_COMPUTE_US, SR_WINDOW_MEMORY_US, SR_WINDOW_COMMUNICATION_US,
				    SR_WINDOW_IDLE_HOST_IN_OP_US, SR_WINDOW_IDLE_HOST_BETWEEN_OPS_US};
	const struct table *st = result_table(res, "straggler_ranks");
	int crun = col(st, SR_RUN), crank = col(st, SR_RANK), cn = col(st, SR_WINDOWS), cu = col(st, SR_WINDOW_UNION_US),
	    cs = col(st, SR_STEPS), cp[5];
	if (!st || crun < 0 || crank < 0 || cn < 0 || cu < 0 || cs < 0)
		return;
	for (int k = 0; k < 5; k++)
		if ((cp[k] = col(st, parts[k])) < 0)
			return;
	for (size_t r = 0; r < st->nrows; r++) {
		const char *rr = text(st, r, crun);
		if (!rr || strcmp(rr, run) || num(st, r, crank) != straggler)
			continue;
		double nwin = num(st, r, cn), tot = num(st, r, cu), steps = num(st, r, cs), sum[5];
		if (isnan(nwin) || nwin <= 0 || isnan(tot) || tot <= 0)
			return;
		for (int k = 0; k < 5; k++)
			sum[k] = isnan(num(st, r, cp[k])) ? 0 : num(st, r, cp[k]);
		double idle = (sum[3] + sum[4]) / tot;
		buf_printf(&f->s,
			   "%s rank %d, in the %.0f window%s in which another rank waited for it (each from the first "
			   "rank's arrival to its own; %.1f ms",
			   run, straggler, nwin, nwin == 1 ? "" : "s", tot / 1000);
		if (steps > 0)
			buf_printf(&f->s, ", %.1f ms per step", tot / 1000 / steps);
		buf_printf(&f->s,
			   ", overlapping windows counted once): its GPU was idle %.0f %% of that time (%.0f %% with "
			   "its host inside an operator, %.0f %% between operators), computing %.0f %%, copying %.0f %%, "
			   "in other collectives %.0f %%",
			   100 * idle, 100 * sum[3] / tot, 100 * sum[4] / tot, 100 * sum[0] / tot, 100 * sum[1] / tot,
			   100 * sum[2] / tot);
		findings_add(f, run, straggler, idle, "table-straggler_ranks",
		    "straggler-windows: straggler_ranks.csv's windows of the named rank (those in which another rank "
		    "waited for it, their union, each instant once); value: the idle share of that union");
		return;
	}
}

/* The price in words: the replay's (findings_replay_price) where there is one, else the collectives'. */
static void saving_words(struct findings *f, const struct analysis_result *res, const char *run, int straggler,
			 double saving)
{
	if (f->rp.what)
		findings_replay_words(&f->s, &f->rp, saving);
	else
		why_saving_words(&f->s, res, run, straggler, saving, f->overhead);
}

/*
 * cause: what the straggler does more than the other ranks
 * (straggler_causes.csv, its first row: the side that made it late, the
 * largest excess), in words, with the range of the other ranks' waits for
 * it per step, exposed (xmin .. xmax ms) and in all (wmin .. wmax ms).
 */
static void rule_cause(struct findings *f, const struct analysis_result *res, const char *run, int straggler,
		       double xmin, double xmax, double wmin, double wmax, double saving)
{
	const struct table *t = result_table(res, "straggler_causes");
	int crun = col(t, SC_RUN), crank = col(t, SC_RANK), cw = col(t, SC_WHERE), creg = col(t, SC_REGION),
	    cn = col(t, SC_NAME), ce = col(t, SC_EXCESS_US_PER_STEP), cm = col(t, SC_US_PER_STEP),
	    co = col(t, SC_OTHER_US_PER_STEP), cc = col(t, SC_CALLS), coc = col(t, SC_OTHER_CALLS);
	if (!t || crun < 0 || crank < 0 || cw < 0 || creg < 0 || cn < 0 || ce < 0 || cm < 0 || co < 0 || cc < 0 ||
	    coc < 0)
		return;
	long first = -1;
	for (size_t r = 0; r < t->nrows && first < 0; r++)
		if (text(t, r, crun) && !strcmp(text(t, r, crun), run) && num(t, r, crank) == straggler)
			first = (long)r;
	if (first < 0 || num(t, (size_t)first, ce) / 1000 < CAUSE_MIN_MS)
		return;
	const char *where = text(t, (size_t)first, cw), *region = text(t, (size_t)first, creg);
	const char *fname = text(t, (size_t)first, cn);
	if (fname && !strcmp(fname, "(outside operators)"))
		fname = NULL; /* host time outside operators: said as the region's, not as an operator's */
	long reg = fname && *fname ? why_region_row(t, run, straggler, where, region) : first;
	long name = fname && *fname ? first : why_top_name_row(t, run, straggler, where, region);
	long lead = reg >= 0 ? reg : first;
	double busy, idle;
	straggler_side(res, run, straggler, &busy, &idle);
	int gpu = !strcmp(where, "gpu");
	buf_printf(&f->s, "%s rank %d: ", run, straggler);
	if (!isnan(saving)) {
		buf_printf(&f->s, "fixing it would shorten the step by ");
		saving_words(f, res, run, straggler, saving);
		buf_printf(&f->s, "; ");
	}
	if (why_mechanism(&f->s, res, run, straggler))
		buf_printf(&f->s, ". ");
	char rw[320];
	buf_printf(&f->s, "It spends %.1f ms more per step than the median rank on its %s %s (%.1f vs %.1f ms)",
		   num(t, (size_t)lead, ce) / 1000, gpu ? "GPU" : "host", why_region_words(region, rw, sizeof(rw)),
		   num(t, (size_t)lead, cm) / 1000, num(t, (size_t)lead, co) / 1000);
	if (name >= 0 && num(t, (size_t)name, ce) / 1000 >= CAUSE_MIN_MS) {
		double oc = num(t, (size_t)name, coc);
		buf_printf(&f->s, ", %.1f ms of it in %s %s (%.0f calls", num(t, (size_t)name, ce) / 1000,
			   gpu ? "kernel" : "operator", text(t, (size_t)name, cn), num(t, (size_t)name, cc));
		if (oc == 0)
			buf_printf(&f->s, ", run only on rank %d)", straggler);
		else
			buf_printf(&f->s, " vs %.0f)", oc);
	}
	if (wmax > 0) {
		/*
		 * "so the others wait" only where the excess named could make the
		 * wait: at least half of the largest exposed wait. Else the sum of
		 * the rank's excess over every region of that side is given, and
		 * where even that falls short the wait is said to be more than the
		 * named excess explains (the rank is slower throughout).
		 */
		double lead_ms = num(t, (size_t)lead, ce) / 1000, side_ms = why_side_excess(t, run, straggler, where) / 1000;
		int one = wmin == wmax; /* a single waiting rank */
		if (lead_ms >= CAUSE_LEAD_SHARE * xmax)
			buf_printf(&f->s, ", so the other rank%s wait%s for it ", one ? "" : "s", one ? "s" : "");
		else
			buf_printf(&f->s, "; over all its regions its %s spends %.1f ms more per step than the median rank's, "
				   "and the other rank%s wait%s for it ", gpu ? "GPU" : "host", side_ms, one ? "" : "s",
				   one ? "s" : "");
		if (one)
			buf_printf(&f->s, "%.1f ms per step with nothing else to do (%.1f ms inside collectives)", xmax, wmax);
		else
			buf_printf(&f->s, "%.1f-%.1f ms per step with nothing else to do (%.1f-%.1f ms inside collectives)",
				   xmin, xmax, wmin, wmax);
		if (lead_ms < CAUSE_LEAD_SHARE * xmax && side_ms < CAUSE_LEAD_SHARE * xmax)
			buf_printf(&f->s, ", more than its extra %s time accounts for", gpu ? "GPU" : "host");
	}
	if (!isnan(busy) && !isnan(idle))
		buf_printf(&f->s, gpu ? "; its GPU computes %.1f ms more per step than the median rank's"
				      : "; its GPU idles %.1f ms more per step than the median rank's, waiting for its host",
			   (gpu ? busy : idle) / 1000);
	/*
	 * Extra GPU work of a rank late for its host: its largest gpu region row
	 * and kernel there. Its GPU waits for the host most of the step
	 * (gpu_idle.csv), so that work can run in those gaps: it likely hides
	 * behind the host-bound step. Said with the idle share it rests on.
	 */
	for (size_t r = 0; !gpu && r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *w = text(t, r, cw), *n = text(t, r, cn);
		if (!rr || strcmp(rr, run) || num(t, r, crank) != straggler || !w || strcmp(w, "gpu") || (n && *n))
			continue;
		const struct table *gi = result_table(res, "gpu_idle");
		struct rank_mean *m = NULL;
		size_t nm = gi ? findings_rank_means(gi, &gi_keys, run, GI_IDLE_US, GI_STEP_US, NULL, &m) : 0;
		if (nm)
			qsort(m, nm, sizeof(*m), findings_cmp_rank_mean);
		double idle_share = findings_ratio_of(m, nm, straggler);
		free(m);
		if (num(t, r, ce) / 1000 >= CAUSE_MIN_MS && !isnan(idle_share) && idle_share >= IDLE_MIN) {
			const char *reg2 = text(t, r, creg);
			long k = why_top_name_row(t, run, straggler, "gpu", reg2);
			/* the region in words: "outside every phase", never the raw key (issue #57) */
			buf_printf(&f->s, "; its GPU also spends %.1f ms more per step %s", num(t, r, ce) / 1000,
				   why_region_words(reg2, rw, sizeof(rw)));
			if (k >= 0 && num(t, (size_t)k, ce) / 1000 >= CAUSE_MIN_MS) {
				buf_printf(&f->s, ", %.1f ms of it in kernel %s (%.0f calls", num(t, (size_t)k, ce) / 1000,
					   text(t, (size_t)k, cn), num(t, (size_t)k, cc));
				if (num(t, (size_t)k, coc) == 0)
					buf_printf(&f->s, ", run only on rank %d)", straggler);
				else
					buf_printf(&f->s, " vs %.0f)", num(t, (size_t)k, coc));
			}
			buf_printf(&f->s, ", which likely hides behind its host-bound step: its GPU is idle %.0f %% of the "
				   "step, waiting for its host", 100 * idle_share);
		}
		break;
	}
	f->saving = saving;
	findings_add(f, run, straggler, num(t, (size_t)lead, ce) / 1000, "table-straggler_causes",
	    findings_rulef(f, "cause: the straggler's first row in straggler_causes.csv (the side that made it late, then the "
		     "largest excess per step over the median of the other ranks), with its largest operator or "
		     "kernel in that region, when at least %g ms per step; value: the excess in ms per step",
		  CAUSE_MIN_MS));
}

/* Why the waiting rule left a straggler that others waited for unpriced (findings_rule_waiting). */
struct unpriced {
	size_t waiters;        /* ranks that waited for it at least WAIT_MIN of their step */
	size_t others;         /* the run's other ranks (0: not known) */
	double saving, noise;  /* us per step, as the price rules had them */
	double added;          /* what the profiler added per step, us; 0 unknown */
	const char *mech;      /* its mechanism code where it has no specific one, else NULL */
	int below_noise, profiler, replay_none;
	size_t steps;          /* its profiled steps, where too few */
};

/* The saving in words, with where it comes from: the replay's or the collectives'. */
static void unpriced_saving(struct findings *f, double saving)
{
	buf_adds(&f->s, "about ");
	findings_time_words(&f->s, saving);
	buf_adds(&f->s, f->rp.what ? " per step (from the replay of its ranks together, replay_fixes.csv)"
				   : " per step (from the others' exposed waits at its collectives)");
}

/*
 * straggler-unpriced: a straggler the others waited for at least WAIT_MIN
 * of their step whose saving the price rules leave unstated (below the
 * noise, no specific mechanism and less than the profiler added, too few
 * steps, or the replay finding nothing beyond its noise) is still said:
 * the ranks' waits for it, measured in the trace, and which rule kept its
 * saving off the page, with no saving (issue #57: a straggler seen and
 * dropped without a word).
 */
static void rule_unpriced(struct findings *f, const struct analysis_result *res, const char *run, int straggler,
			  const char *who, double top, const struct unpriced *u, const struct clock_wait *w)
{
	/* "the other ranks" only where every other rank waited: one of three is "another rank" */
	int all = !u->others || u->waiters >= u->others;
	char held[48];
	if (all)
		snprintf(held, sizeof(held), "the other rank%s", u->waiters == 1 ? "" : "s");
	else if (u->waiters == 1)
		snprintf(held, sizeof(held), "another rank");
	else
		snprintf(held, sizeof(held), "%zu other ranks", u->waiters);
	buf_printf(&f->s, "%s: rank %d held %s back, but no saving is stated for it: inside matched "
		   "collectives %s waited for it per step (exposed, their GPU doing nothing else, first): %s", run,
		   straggler, held,
		   all ? (u->waiters == 1 ? "the other rank" : "the others") : (u->waiters == 1 ? "that rank" : "they"), who);
	/* where a clock is off, how far the waits can be trusted (as the waiting finding says it) */
	findings_clock_words(&f->s, res, run, straggler, w, u->waiters);
	buf_adds(&f->s, ". No saving, because ");
	int n = 0;
	if (u->below_noise) {
		buf_adds(&f->s, "fixing it would save ");
		unpriced_saving(f, u->saving);
		buf_adds(&f->s, ", within the run's noise of ");
		findings_time_words(&f->s, u->noise);
		n++;
	}
	if (u->replay_none) {
		buf_printf(&f->s, "%sreplaying its ranks together without its causes shortens the step by no more than "
			   "the replay's noise of ", n++ ? "; and " : "");
		findings_time_words(&f->s, u->noise);
	}
	if (u->mech) {
		const char *w = straggler_mechanism_words(u->mech);
		buf_printf(&f->s, "%sit has no single cause (straggler_causes.csv: %s)", n++ ? "; and " : "",
			   w ? w : u->mech);
		if (u->profiler) {
			buf_adds(&f->s, " and fixing it would save ");
			unpriced_saving(f, u->saving);
			buf_adds(&f->s, ", less than the ");
			findings_time_words(&f->s, u->added);
			buf_printf(&f->s, " per step the profiler added (its factor %.2fx over the training log's "
				   "unprofiled steps): the straggling may be the profiler's own", f->overhead);
		}
		if (u->steps && u->steps < MIN_SAMPLES)
			buf_printf(&f->s, "%s it rests on %zu profiled step%s, too few (fewer than %d) to tell a rank slower "
				   "throughout from the ranks' step-to-step noise", u->profiler ? "; and" : ", and",
				   u->steps, u->steps == 1 ? "" : "s", MIN_SAMPLES);
		buf_adds(&f->s, ". Confirm on an unprofiled run, or profile more steps");
	}
	f->saving = NAN;
	findings_add(f, run, straggler, top, "table-collective_waits",
	    findings_rulef(f, "straggler-unpriced: the rank the waiting rule names (others waited for it at least %.0f %% "
		     "of their step) where the price's noise rules leave its saving unstated: the others' waits for it "
		     "and the rule that left it unpriced, with no saving; value: the largest share", 100 * WAIT_MIN));
}

/* Waiting of rank a for rank b, summed over the run's matched collectives (collective_waits.csv). */
struct wait_pair {
	int waiter, last;
	double wait_us, exposed_us;
	size_t count; /* the collectives of the waits */
};

/*
 * waiting: from collective_waits.csv (matched collectives): per rank, the
 * time it waited inside collectives for each other rank (last arrival -
 * its own arrival), per step (summed wait / the rank's ProfilerStep count
 * in ranks.csv) and as a share of its mean step. The rank waited for the
 * most in total is the straggler; every rank that waited for it at least
 * WAIT_MIN of its step is named. What the straggler's GPU did in the
 * windows before its late arrivals comes from stragglers.csv. Returns the
 * straggler's rank, -1 when nobody waited that much, -2 when the run has
 * no matched collectives (the caller falls back to comm-skew).
 */
int findings_rule_waiting(struct findings *f, const struct analysis_result *res, const char *run)
{
	const struct table *cw = result_table(res, "collective_waits"), *rk = result_table(res, "ranks");
	int crun = col(cw, CW_RUN), crank = col(cw, CW_RANK), clast = col(cw, CW_LAST_RANK), cwait = col(cw, CW_WAIT_US),
	    cm = col(cw, CW_MATCHED), cx = col(cw, CW_EXPOSED_WAIT_US), cstep = col(cw, CW_STEP);
	if (!cw || !rk || crun < 0 || crank < 0 || clast < 0 || cwait < 0 || cm < 0 || cstep < 0)
		return -2;
	struct wait_pair *wp = NULL;
	size_t n = 0, cap = 0, matched = 0;
	struct intmap pairs = {0};
	for (size_t r = 0; r < cw->nrows; r++) {
		const char *rr = text(cw, r, crun);
		if (!rr || strcmp(rr, run) || num(cw, r, cm) != 1)
			continue;
		matched++;
		if (isnan(num(cw, r, cstep)))
			continue; /* launched outside the profiled steps: not part of a step's wait */
		double w = num(cw, r, cwait);
		int a = (int)num(cw, r, crank), b = (int)num(cw, r, clast);
		if (isnan(w) || w <= 0 || a == b)
			continue;
		size_t i = intmap_index(&pairs, (int64_t)((uint64_t)(uint32_t)a << 32 | (uint32_t)b), n);
		if (i == n) {
			wp = xgrow(wp, &cap, n + 1, sizeof(*wp));
			wp[n++] = (struct wait_pair){.waiter = a, .last = b};
		}
		wp[i].wait_us += w;
		wp[i].count++;
		double x = num(cw, r, cx);
		wp[i].exposed_us += isnan(x) ? 0 : x;
	}
	intmap_free(&pairs);
	if (!matched) {
		free(wp);
		return -2;
	}
	/* the straggler: the rank the others waited for longest in total (the first such pair's on a tie) */
	int straggler = -1;
	double most = 0;
	struct intmap lasts = {0};
	double *tot = n ? xcalloc(n, sizeof(*tot)) : NULL;
	size_t nlast = 0;
	size_t *of = n ? xcalloc(n, sizeof(*of)) : NULL;
	for (size_t i = 0; i < n; i++) {
		of[i] = intmap_index(&lasts, wp[i].last, nlast);
		if (of[i] == nlast)
			nlast++;
		tot[of[i]] += wp[i].wait_us;
	}
	for (size_t i = 0; i < n; i++)
		if (tot[of[i]] > most) {
			most = tot[of[i]];
			straggler = wp[i].last;
		}
	intmap_free(&lasts);
	free(tot);
	free(of);
	/* each rank's mean step (ranks.csv step_us) and its step count, sorted by rank */
	struct rank_mean *steps_of = NULL;
	size_t nsteps_of = findings_rank_means(rk, &ranks_keys, run, RANKS_STEP_US, -1, NULL, &steps_of);
	if (nsteps_of)
		qsort(steps_of, nsteps_of, sizeof(*steps_of), findings_cmp_rank_mean);
	struct buf who;
	buf_init(&who);
	size_t named = 0;
	struct clock_wait *named_w = xcalloc(n + 1, sizeof(*named_w));
	double top = 0, wmin = INFINITY, wmax = 0, xmin = INFINITY, xmax = 0;
	for (size_t i = 0; straggler >= 0 && i < n; i++) {
		if (wp[i].last != straggler)
			continue;
		const struct rank_mean *ms = findings_rank_mean_find(steps_of, nsteps_of, wp[i].waiter);
		size_t steps = ms ? ms->n : 0;
		double step = ms ? ms->a / ms->b : NAN;
		if (!steps || isnan(step) || step <= 0)
			continue;
		double per_step = wp[i].wait_us / steps, share = per_step / step;
		if (per_step / 1000 < wmin)
			wmin = per_step / 1000;
		if (per_step / 1000 > wmax)
			wmax = per_step / 1000;
		double exposed = wp[i].exposed_us / steps / 1000;
		xmin = exposed < xmin ? exposed : xmin;
		xmax = exposed > xmax ? exposed : xmax;
		if (share < WAIT_MIN)
			continue;
		buf_printf(&who, "%srank %d %.1f ms exposed (%.1f ms in all, %.0f %% of its step)", named ? ", " : "",
			   wp[i].waiter, wp[i].exposed_us / steps / 1000, per_step / 1000, 100 * share);
		named_w[named] = (struct clock_wait){wp[i].waiter, per_step, (double)wp[i].count / (double)steps};
		named++;
		if (share > top)
			top = share;
	}
	/*
	 * The price and the noise: the saving (findings_why.c) on the training's steps,
	 * and nothing said where it does not exceed the run's natural spread,
	 * the larger of NOISE_K times the training's step-to-step noise
	 * (profiler_overhead.csv unprofiled_sigma_us), the saving any other rank
	 * would give (the ranks' natural straggling) and CAUSE_MIN_MS.
	 */
	double noise = 0, saving = named ? why_saving(res, run, straggler, &noise) : NAN;
	if (f->overhead > 0) {
		saving /= f->overhead;
		noise /= f->overhead;
	}
	double sigma = (double)profiler_noise_ns(res, run) / 1000, step = 0;
	if (NOISE_K * sigma > noise)
		noise = NOISE_K * sigma;
	const struct rank_mean *sm = findings_rank_mean_find(steps_of, nsteps_of, straggler);
	if (sm && sm->b > 0)
		step = sm->a / sm->b / (f->overhead > 0 ? f->overhead : 1);
	if (SAVING_MIN * step > noise)
		noise = SAVING_MIN * step;
	/* Where the run's ranks were replayed together, the replay prices the straggler instead. */
	f->rp.what = NULL;
	if (named && findings_replay_price(res, run, straggler, &f->rp)) {
		saving = f->rp.stated ? f->rp.saving : NAN;
		noise = f->rp.noise;
	}
	/* why a straggler the others waited for is left unpriced, for straggler-unpriced */
	struct unpriced why = {.waiters = named, .others = nsteps_of ? nsteps_of - 1 : 0, .saving = saving,
			       .noise = noise};
	if (!isnan(saving) && saving < noise) {
		named = 0;
		why.below_noise = 1;
	}
	/*
	 * The profiler's own cost is uneven across ranks (host-bound ones pay
	 * most): a straggler with no specific mechanism (slower_host,
	 * slower_kernels: slower throughout) whose saving is less than what the
	 * profiler added per step (profiler_overhead.csv: (overhead - 1) x the
	 * training's step) may be the profiler's making, and is not stated;
	 * nor one seen in fewer than MIN_SAMPLES profiled steps: so few cannot
	 * tell a rank slower throughout from the ranks' step-to-step noise.
	 */
	double log_step = (double)profiler_unprofiled_ns(res, run) / 1000;
	const char *mech = named ? why_rank_mechanism(res, run, straggler) : NULL;
	enum straggler_mech mk = straggler_mechanism(mech);
	why.added = f->overhead > 1 && log_step > 0 ? (f->overhead - 1) * log_step : 0;
	if ((mk == SM_SLOWER_HOST || mk == SM_SLOWER_KERNELS) &&
	    ((why.added > 0 && saving < why.added) || !sm || sm->n < MIN_SAMPLES)) {
		named = 0;
		why.mech = mech;
		why.profiler = why.added > 0 && saving < why.added;
		why.steps = sm ? sm->n : 0;
	}
	if (f->rp.what && isnan(saving)) {
		named = 0; /* the replay says the rank's fixes save nothing beyond its noise */
		why.replay_none = 1;
	}
	if (!named && why.waiters)
		rule_unpriced(f, res, run, straggler, who.data, top, &why, named_w);
	if (named) {
		buf_printf(&f->s, "%s: ", run);
		if (!isnan(saving)) {
			buf_printf(&f->s, "if rank %d arrived with the others the step would be shorter by ", straggler);
			saving_words(f, res, run, straggler, saving);
			if (f->rp.what) {
				buf_adds(&f->s, ", above the replay's noise of ");
				findings_time_words(&f->s, noise);
				buf_adds(&f->s, "; ");
			} else {
				buf_printf(&f->s, ", above the run's noise of %.1f ms; ", noise / 1000);
			}
		}
		buf_printf(&f->s, "inside matched collectives the other ranks wait for rank %d per step, exposed "
			   "(their GPU doing nothing else) first: %s", straggler, who.data);
		findings_clock_words(&f->s, res, run, straggler, named_w, named);
		f->saving = saving;
		findings_add(f, run, straggler, top, "table-collective_waits",
		    findings_rulef(f, "waiting: per rank, its waits inside matched collectives for the rank that arrived last "
			     "(collective_waits.csv exposed_wait_us and wait_us of the collectives launched in a step, "
			     "summed per pair of ranks, over its steps in ranks.csv); the rank waited for longest in "
			     "total is named with every rank that waited for it at least %.0f %% of its mean step; "
			     "value: the largest share",
			  100 * WAIT_MIN));
		rule_cause(f, res, run, straggler, xmin, xmax, wmin, wmax, saving);
		rule_straggler_windows(f, res, run, straggler);
	}
	f->rp.what = NULL;
	buf_release(&who);
	free(named_w);
	free(wp);
	free(steps_of);
	return named ? straggler : -1;
}

/*
 * comm-skew: the ranks that spend at least SKEW_MIN more of their step
 * inside collectives than the rank with the least wait for that rank.
 * Returns the index of the rank waited for, or -1.
 */
long findings_rule_comm_skew(struct findings *f, const char *run, const struct rank_view *v, size_t n)
{
	if (n < 2)
		return -1;
	size_t hi = 0, lo = 0;
	for (size_t i = 1; i < n; i++) {
		if (v[i].comm > v[hi].comm)
			hi = i;
		if (v[i].comm < v[lo].comm)
			lo = i;
	}
	if (v[hi].comm - v[lo].comm < SKEW_MIN)
		return -1;
	struct buf others;
	buf_init(&others);
	size_t nw = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i].comm - v[lo].comm >= SKEW_MIN) {
			buf_printf(&others, "%s%d (%.0f %%)", nw ? ", " : "", v[i].rank, 100 * v[i].comm);
			nw++;
		}
	buf_printf(&f->s,
		   "%s: rank%s %s spend%s that share of the step inside collective kernels, rank %d %.0f %%: "
		   "up to %.0f %% of the step is spent waiting inside the collectives for rank %d",
		   run, nw > 1 ? "s" : "", others.data, nw > 1 ? "" : "s", v[lo].rank, 100 * v[lo].comm,
		   100 * (v[hi].comm - v[lo].comm), v[lo].rank);
	findings_add(f, run, v[lo].rank, v[hi].comm - v[lo].comm, "table-ranks",
	    findings_rulef(f, "comm-skew: the ranks' mean shares of the step inside collective kernels (ranks.csv comm_us / "
		     "step_us) differ by at least %.0f percentage points", 100 * SKEW_MIN));
	buf_release(&others);
	return (long)lo;
}
