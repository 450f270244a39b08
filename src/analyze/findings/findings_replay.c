/* findings_replay.c: the replay's findings and prices (findings_replay.h). */
#include "analyze/findings/findings_replay.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze/findings/cells.h"
#include "analyze/replay/replay.h"
#include "analyze/replay/replay_mech.h"
#include "util/buf.h"

void findings_time_words(struct buf *b, double us)
{
	if (us >= 1000 || us <= -1000)
		buf_printf(b, "%.1f ms", us / 1000);
	else
		buf_printf(b, "%.0f us", us);
}

/*
 * replay_fixes.csv's where in words that say it is a phase (a host
 * annotation's range), not an operator: "backward" -> "in the backward
 * phase", "after optimizer_step" -> "after the optimizer_step phase",
 * "FSDP::post_backward_reduce (transformer.h.9)" -> "in the
 * FSDP::post_backward_reduce phase (transformer.h.9)", "outside every
 * annotation" -> "outside every annotated phase"; another run's ("against
 * <run>, ...") and anything else as it is.
 */
static void where_words(struct buf *b, const char *where)
{
	if (!where || !*where) {
		buf_adds(b, "?");
		return;
	}
	if (!strcmp(where, "outside every annotation")) {
		buf_adds(b, "outside every annotated phase");
		return;
	}
	if (!strncmp(where, "against ", 8)) {
		buf_adds(b, where);
		return;
	}
	int after = !strncmp(where, "after ", 6);
	const char *name = after ? where + 6 : where, *paren = strstr(name, " (");
	size_t len = paren ? (size_t)(paren - name) : strlen(name);
	buf_printf(b, "%s the %.*s phase%s", after ? "after" : "in", (int)len, name, paren ? paren : "");
}

/* Whether row r of t (a stated row with saving_same_place_us) shares its place with a stated row before it. */
static int place_seen(const struct table *t, size_t r, int crun, int cstated, int cwhere, int cplace)
{
	const char *run = text(t, r, crun), *where = text(t, r, cwhere);
	for (size_t q = 0; q < r; q++) {
		const char *rq = text(t, q, crun), *wq = text(t, q, cwhere);
		if (rq && wq && where && !strcmp(rq, run) && !strcmp(wq, where) && table_num(t, q, cstated) > 0 &&
		    !isnan(table_num(t, q, cplace)))
			return 1;
	}
	return 0;
}

/*
 * The finding of the stated fixes of run that lie in row r's place
 * (replay_fixes.csv saving_same_place_us set on each, replay.c): one cause,
 * priced by removing them together, each part's own saving beside it,
 * largest first, into b and rule.
 */
static double same_place_words(const struct table *t, size_t r, const char *run, struct buf *b, struct buf *rule)
{
	int crun = col(t, RF_RUN), cstated = col(t, RF_STATED), csave = col(t, RF_SAVING_US_PER_STEP),
	    cwhere = col(t, RF_WHERE), cmech = col(t, RF_MECHANISM), cper = col(t, RF_PER_STEP),
	    cplace = col(t, RF_SAVING_SAME_PLACE_US), cstep = col(t, RF_STEP_US);
	const char *where = text(t, r, cwhere);
	size_t part[NMECH], n = 0;
	for (size_t q = r; q < t->nrows && n < NMECH; q++) {
		const char *rq = text(t, q, crun), *wq = text(t, q, cwhere);
		if (!rq || !wq || strcmp(rq, run) || strcmp(wq, where) || !(table_num(t, q, cstated) > 0) ||
		    isnan(table_num(t, q, cplace)) || !rp_mechanism(text(t, q, cmech)))
			continue;
		size_t at = n++;
		for (; at > 0 && table_num(t, part[at - 1], csave) < table_num(t, q, csave); at--)
			part[at] = part[at - 1];
		part[at] = q;
	}
	const struct rp_mechanism *m[NMECH];
	for (size_t i = 0; i < n; i++)
		m[i] = rp_mechanism(text(t, part[i], cmech));
	double save = table_num(t, r, cplace), step = table_num(t, r, cstep);
	buf_printf(b, "%s: ", run);
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s", i ? (i + 1 == n ? " and " : ", ") : "", m[i]->what);
	buf_adds(b, ", in one place (");
	where_words(b, where);
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%.3g", i ? " and " : ", ", table_num(t, part[i], cper));
	buf_adds(b, " per step): removing them together saves ");
	findings_time_words(b, save);
	buf_printf(b, " per step, %.0f %% of the ", 100 * save / step);
	findings_time_words(b, step);
	buf_adds(b, " replayed step (each alone: ");
	for (size_t i = 0; i < n; i++) {
		buf_adds(b, i ? ", " : "");
		findings_time_words(b, table_num(t, part[i], csave));
	}
	buf_adds(b, ", which overlap: with one removed the other still holds the step, as the host work after a "
		    "wait does; replayed without them: ");
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s", i ? "; " : "", m[i]->removed);
	buf_adds(b, "; replay_fixes.csv saving_same_place_us). Fix: ");
	for (size_t i = 0; i < n; i++)
		buf_printf(b, "%s%s", i ? "; and " : "", m[i]->fix);
	buf_adds(rule, "replay (");
	for (size_t i = 0; i < n; i++)
		buf_printf(rule, "%s%s", i ? " and " : "", m[i]->words);
	buf_adds(rule, "): ");
	for (size_t i = 0; i < n; i++)
		buf_printf(rule, "%s%s", i ? "+" : "", m[i]->id);
	buf_adds(rule, ", priced by replaying the step without them together (replay_fixes.csv saving_same_place_us)");
	return save;
}

int findings_replay(const struct analysis_result *res, const char *run, replay_finding_fn emit, void *ctx)
{
	const struct table *t = result_table(res, "replay_fixes");
	int crun = col(t, RF_RUN), cstated = col(t, RF_STATED), csave = col(t, RF_SAVING_US_PER_STEP), cstep = col(t, RF_STEP_US),
	    cwhere = col(t, RF_WHERE), cmin = col(t, RF_SAVING_MIN_US), cmax = col(t, RF_SAVING_MAX_US),
	    cmech = col(t, RF_MECHANISM), cper = col(t, RF_PER_STEP), cfast = col(t, RF_SAVING_FAST_HOST_US),
	    cnoise = col(t, RF_NOISE_US), cplace = col(t, RF_SAVING_SAME_PLACE_US);
	struct buf b, rule;
	buf_init(&b);
	buf_init(&rule);
	int n = 0;
	for (size_t r = 0; t && crun >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		if (!rr || strcmp(rr, run) || !(table_num(t, r, cstated) > 0))
			continue;
		double save = table_num(t, r, csave), step = table_num(t, r, cstep);
		const char *where = text(t, r, cwhere);
		const struct rp_mechanism *mech = rp_mechanism(text(t, r, cmech));
		if (!mech)
			continue;
		buf_reset(&b);
		buf_reset(&rule);
		if (cplace >= 0 && !isnan(table_num(t, r, cplace))) {
			/* one cause with the stated fixes of its place: said once, at the first */
			if (place_seen(t, r, crun, cstated, cwhere, cplace))
				continue;
			double together = same_place_words(t, r, run, &b, &rule);
			emit(ctx, run, together / step, together, rule.data, b.data);
			n++;
			continue;
		}
		buf_printf(&b, "%s: %s (", run, mech->what);
		where_words(&b, where);
		buf_printf(&b, ", %.3g per step): removing them saves ", table_num(t, r, cper));
		findings_time_words(&b, save);
		buf_printf(&b, " per step, %.0f %% of the ", 100 * save / step);
		findings_time_words(&b, step);
		buf_adds(&b, " replayed step (");
		findings_time_words(&b, table_num(t, r, cmin));
		buf_adds(&b, " to ");
		findings_time_words(&b, table_num(t, r, cmax));
		buf_printf(&b, " over the profiled steps; replayed without them: %s)", mech->removed);
		/*
		 * a GPU-bound run's log cannot tell the host's speed: the saving is
		 * the least it allows. Said where the fastest host's saving is
		 * beyond the noise, or where the fix was told from the noise only
		 * at that end (replay.c; the saving within the noise at the top),
		 * and beyond what a log that pins the host factor leaves (2 RP_F_TOL)
		 */
		double fast = cfast >= 0 ? table_num(t, r, cfast) : save, noise = table_num(t, r, cnoise);
		if (fast - save > noise || (save <= noise && fast - save > 2 * RP_F_TOL * step)) {
			buf_adds(&b, "; the least the training log allows, which cannot tell the host's speed here: with the "
				     "fastest host it allows, ");
			findings_time_words(&b, fast);
			buf_adds(&b, " (replay_fixes.csv saving_fast_host_us)");
		}
		buf_printf(&b, ". Fix: %s", mech->fix);
		buf_reset(&rule);
		buf_printf(&rule, "replay (%s): %s, priced by replaying the step without it (replay_fixes.csv)", mech->words,
			   mech->id);
		emit(ctx, run, save / step, save, rule.data, b.data);
		n++;
	}
	buf_release(&b);
	buf_release(&rule);
	return n;
}

int findings_replay_price(const struct analysis_result *res, const char *run, int rank, struct replay_price *p)
{
	const struct table *t = result_table(res, "replay_fixes");
	int crun = col(t, RF_RUN), crank = col(t, RF_RANK), csave = col(t, RF_SAVING_US_PER_STEP), cnoise = col(t, RF_NOISE_US),
	    cst = col(t, RF_STATED), crep = col(t, RF_REPLAYED), cmech = col(t, RF_MECHANISM), cstep = col(t, RF_STEP_US),
	    cwhere = col(t, RF_WHERE);
	long best = -1;
	for (size_t r = 0; t && crun >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *rep = text(t, r, crep);
		if (!rr || strcmp(rr, run) || table_num(t, r, crank) != rank || !rep || strcmp(rep, "together"))
			continue;
		if (best < 0 || table_num(t, r, csave) > table_num(t, (size_t)best, csave))
			best = (long)r;
	}
	const struct rp_mechanism *mech = best >= 0 ? rp_mechanism(text(t, (size_t)best, cmech)) : NULL;
	memset(p, 0, sizeof(*p));
	if (!mech)
		return 0;
	p->saving = table_num(t, (size_t)best, csave);
	p->noise = table_num(t, (size_t)best, cnoise);
	p->step = table_num(t, (size_t)best, cstep);
	p->stated = table_num(t, (size_t)best, cst) > 0;
	p->what = mech->what;
	p->removed = mech->removed;
	/* work beyond another run's: which run, as replay_fixes.csv's where says */
	if (!strcmp(mech->id, "extra_gpu_work"))
		p->where = text(t, (size_t)best, cwhere);
	return 1;
}

int findings_replay_gaps(const struct analysis_result *res, const char *run, int rank, double *gap_us)
{
	const struct table *t = result_table(res, "replay_fixes");
	int crun = col(t, RF_RUN), crank = col(t, RF_RANK), cmech = col(t, RF_MECHANISM), cgap = col(t, RF_GAP_US_PER_STEP);
	int any = 0, gap_seen = 0;
	*gap_us = 0;
	for (size_t r = 0; t && crun >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *mech = text(t, r, cmech);
		if (!rr || strcmp(rr, run) || table_num(t, r, crank) != rank)
			continue;
		if (mech && !strcmp(mech, "host_gap") && !gap_seen) {
			gap_seen = 1;
			*gap_us = table_num(t, r, cgap);
		}
		any = 1;
	}
	return any;
}

void findings_replay_words(struct buf *b, const struct replay_price *p, double saving)
{
	buf_adds(b, "about ");
	findings_time_words(b, saving);
	buf_printf(b, " per step, %.0f %% of the ", 100 * saving / p->step);
	findings_time_words(b, p->step);
	buf_printf(b, " step of the run's ranks replayed together, from that replay with its %s (%s%s%s: replay_fixes.csv)",
		   p->what, p->removed ? p->removed : "", p->where ? "; " : "", p->where ? p->where : "");
}
