/*
 * findings_pipeline.c: the pipeline-bubble rule of findings.csv, from
 * pipeline_stages.csv (analyze/pipeline/pipeline_stages.c defines its
 * columns). Per pipeline of a run with at least PP_MIN_STEPS profiled
 * steps, the stages whose median excess_share (bubble_share -
 * formula_bubble_share) exceeds the noise, max(PP_EXCESS_MIN, PP_NOISE_K x
 * bubble_sigma); of those, the one with the largest excess_share x span_us
 * per step (bubble beyond the schedule's) is stated, with how many others
 * exceed too. The likely cause: the slowest stage where imbalance exceeds
 * PP_IMBALANCE (the others wait for it), else the stated stage's send and
 * recv time. The price: with a slowest stage to blame, what balancing the
 * stages' compute at their mean would save, no more than the excess: in a
 * GPipe or 1F1B schedule of m micro-batches, stage s taking t_s per
 * micro-batch, the span is about sum_s t_s + (m - 1) max_s t_s (the fill,
 * then the slowest stage sets the pace), and balanced p t + (m - 1) t with
 * t the mean, so the saving is (m - 1) (t_max - t) = (m - 1) / m x (the
 * slowest stage's compute per step - the mean's), the fill and drain
 * counted once; else the excess itself, excess_share x span_us.
 *
 * It also keeps three rules of findings.c off pipelines, whose stages
 * idle, wait and communicate unevenly by design: comm-skew and waiting are
 * not applied to a run with pipeline stages (the end stages send and
 * receive to one neighbour, the middle ones to two; a stage waits in its
 * recv for the one before it, which runs other layers, so "like the other
 * ranks" is no fix), and host-bound not to a stage whose idle time the
 * pipeline explains (findings_pipeline_idle_explained).
 */
#include "analyze/findings/findings_pipeline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "analyze/findings/cells.h"
#include "analyze/pipeline/pipeline_balance.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/replay/replay.h"
#include "analyze/ranks/ranks_tables.h"

#define PP_MIN_STEPS 3      /* fewer steps: their spread is unknown, nothing is stated */
#define PP_EXCESS_MIN 0.02  /* an excess under 2 % of the span is not stated */
#define PP_NOISE_K 3.0      /* times the robust sigma of the per-step bubble shares */
/* the slowest stage named as the cause above this: the bubble figure's and the replay's pipeline_balance threshold */
#define PP_IMBALANCE PP_SPLIT_IMBALANCE

struct pp_cols {
	int run, rank, pipe, stage, stages, sched, m, steps, span, compute, bubble, formula, excess, sigma, imb, p2p;
};

static int is_pipe(const struct table *t, const struct pp_cols *c, size_t r, const char *run, double pipe)
{
	const char *rr = text(t, r, c->run);
	return rr && !strcmp(rr, run) && num(t, r, c->pipe) == pipe;
}

/* The noise an excess_share must exceed in row r: max(PP_EXCESS_MIN, PP_NOISE_K x bubble_sigma). */
static double pp_noise(const struct table *t, const struct pp_cols *c, size_t r)
{
	double sig = num(t, r, c->sigma);
	return fmax(PP_EXCESS_MIN, PP_NOISE_K * (isnan(sig) ? 0 : sig));
}

/* replay_fixes.csv's pipeline_balance row of a run (replay/replay_run.c), us. */
struct pp_replay {
	double saving, step, noise;
	int stated, found;
	char move[160]; /* the whole-layer move its where names ("move 1 layer from stage 1 to stage 0: 4+4 -> 5+3"), "" none */
};

/* The pipeline_balance row of run into *p; 0 where there is none (its ranks were not replayed together). */
static int replay_of(const struct analysis_result *res, const char *run, struct pp_replay *p)
{
	const struct table *t = result_table(res, "replay_fixes");
	int crun = col(t, RF_RUN), cm = col(t, RF_MECHANISM);
	for (size_t r = 0; t && crun >= 0 && cm >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun), *m = text(t, r, cm);
		if (!rr || strcmp(rr, run) || !m || strcmp(m, "pipeline_balance"))
			continue;
		*p = (struct pp_replay){num(t, r, col(t, RF_SAVING_US_PER_STEP)), num(t, r, col(t, RF_STEP_US)),
					num(t, r, col(t, RF_NOISE_US)), num(t, r, col(t, RF_STATED)) > 0, 1, ""};
		/* replay_run.c's where leads with the move, up to its second ':' */
		const char *w = text(t, r, col(t, RF_WHERE)), *e = w && !strncmp(w, "move ", 5) ? strchr(w, ':') : NULL;
		e = e ? strchr(e + 1, ':') : NULL;
		if (e && (size_t)(e - w) < sizeof(p->move))
			snprintf(p->move, sizeof(p->move), "%.*s", (int)(e - w), w);
		return 1;
	}
	return 0;
}

/* The statement of one pipeline (its rows carry pipe); nothing when no stage exceeds the noise. */
static void one_pipe(const struct analysis_result *res, const struct table *t, const struct pp_cols *c, const char *run, double pipe,
		     pipeline_finding_fn emit, void *ctx, struct buf *b, struct buf *rule)
{
	long best = -1, slow = -1, over = 0;
	double price = -INFINITY, most = -INFINITY;
	for (size_t r = 0; r < t->nrows; r++) {
		if (!is_pipe(t, c, r, run, pipe))
			continue;
		double comp = num(t, r, c->compute);
		if (!isnan(comp) && comp > most) {
			most = comp;
			slow = (long)r;
		}
		double ex = num(t, r, c->excess), span = num(t, r, c->span);
		if (num(t, r, c->steps) < PP_MIN_STEPS || isnan(ex) || isnan(span))
			continue;
		if (!(ex > pp_noise(t, c, r)))
			continue;
		over++;
		if (ex * span > price) {
			price = ex * span;
			best = (long)r;
		}
	}
	if (best < 0)
		return;
	size_t r = (size_t)best;
	const char *sched = text(t, r, c->sched);
	double ex = num(t, r, c->excess), span = num(t, r, c->span), imb = num(t, r, c->imb);
	/*
	 * With a slowest stage to blame, the statement leads with it and is that
	 * stage's rank's: the fix is there (What to fix first names the rank),
	 * the bubble it causes is the evidence.
	 */
	int blame = !isnan(imb) && imb > PP_IMBALANCE && slow >= 0;
	size_t who = blame ? (size_t)slow : r;
	double m = num(t, r, c->m), saving = ex * span, balanced = NAN;
	struct pp_replay rp = {NAN, NAN, NAN, 0, 0, ""};
	if (blame && m >= 1) {
		balanced = (m - 1) / m * most * (1 - 1 / imb);
		saving = fmin(saving, balanced);
	}
	/* the replay's price, where the run's ranks were replayed together; the formula only where not */
	if (blame && replay_of(res, run, &rp))
		saving = rp.stated ? rp.saving : NAN;
	buf_reset(b);
	if (blame)
		buf_printf(b, "%s: pipeline stage %.0f of %.0f (rank %.0f) computes %.2fx the mean of the stages, %s: ",
			   run, num(t, who, c->stage), num(t, who, c->stages), num(t, who, c->rank), imb,
			   rp.found && !rp.stated ? "yet the replay finds the step held elsewhere"
						  : "and the others wait for it");
	else
		buf_printf(b, "%s: ", run);
	buf_printf(b, "pipeline stage %.0f of %.0f (rank %.0f) idles %.1f %% of the pipeline's span per step, "
		   "%s's schedule %.1f %% ((p - 1) / (m + p - 1) with m = %.0f micro-batches): %.1f %% of the span, "
		   "%.2f ms per step, is bubble beyond the schedule's, over %.0f profiled steps",
		   num(t, r, c->stage), num(t, r, c->stages), num(t, r, c->rank), 100 * num(t, r, c->bubble),
		   sched ? sched : "the", 100 * num(t, r, c->formula), num(t, r, c->m), 100 * ex, ex * span / 1000,
		   num(t, r, c->steps));
	if (over > 1)
		buf_printf(b, " (%ld stages of this pipeline exceed it; this one costs the most)", over);
	if (blame && rp.found && rp.stated && rp.move[0])
		buf_printf(b, ". Fix: move layers off stage %.0f by whole layers (%s): replayed with each stage's "
			      "compute after that move (replay_fixes.csv pipeline_balance: the ranks together, waiting for each other and "
			      "for their hosts), the step would take %.2f ms less than its %.2f ms. The schedule's "
			      "formula, (m - 1) / m x (%.2f ms - the mean's %.2f ms), would say %.2f ms",
			   num(t, who, c->stage), rp.move, rp.saving / 1000, rp.step / 1000, most / 1000, most / imb / 1000,
			   fmin(ex * span, balanced) / 1000);
	else if (blame && rp.found && rp.stated)
		buf_printf(b, ". Fix: move layers off stage %.0f: replayed with every stage's compute at the stages' "
			      "mean (replay_fixes.csv pipeline_balance: the ranks together, waiting for each other and "
			      "for their hosts), the step would take %.2f ms less than its %.2f ms; whole layers can "
			      "only come near the mean. The schedule's formula, (m - 1) / m x (%.2f ms - the mean's "
			      "%.2f ms), would say %.2f ms",
			   num(t, who, c->stage), rp.saving / 1000, rp.step / 1000, most / 1000, most / imb / 1000,
			   fmin(ex * span, balanced) / 1000);
	else if (blame && rp.found)
		buf_printf(b, ". Moving layers off stage %.0f would not shorten the step: replayed with %s%s%s "
			      "(replay_fixes.csv pipeline_balance: the ranks "
			      "together, waiting for each other and for their hosts), it changes by %+.2f ms of its "
			      "%.2f ms, within the replay's noise of %.2f ms: something else holds the step (the "
			      "critical path says what). The schedule's formula, (m - 1) / m x (%.2f ms - the mean's "
			      "%.2f ms), would say %.2f ms, as if the stages' compute alone set the step",
			   num(t, who, c->stage),
			   rp.move[0] ? "the stages' compute after the move by whole layers (" : "every stage's compute at the stages' mean",
			   rp.move, rp.move[0] ? ")" : "", -rp.saving / 1000, rp.step / 1000, rp.noise / 1000, most / 1000,
			   most / imb / 1000, fmin(ex * span, balanced) / 1000);
	else if (blame)
		buf_printf(b, ". Fix: move layers off stage %.0f: with the stages' compute balanced at their mean, the "
			      "step would be about %.2f ms shorter ((m - 1) / m x (%.2f ms - the mean's %.2f ms), the slowest "
			      "stage's compute per step against the mean's%s; by the schedule's formula, not the replay: the "
			      "ranks were not replayed together, or their replay together was off the measured steps by "
			      "more than 3 %%)",
			   num(t, who, c->stage), saving / 1000, most / 1000, most / imb / 1000,
			   saving < balanced ? "; no more than the bubble beyond the schedule's" : "");
	else
		buf_printf(b, ". Likely cause: the stages' sends and receives: this stage spends %.2f ms per step in "
			      "send and recv kernels (waiting and transfer)",
			   num(t, r, c->p2p) / 1000);
	buf_adds(b, ".");
	buf_reset(rule);
	buf_printf(rule, "pipeline-bubble: pipeline_stages.csv excess_share > max(%.2f, %.0f x bubble_sigma) with "
		   "steps >= %d; cause: the slowest stage where imbalance > %.2f, else p2p_us",
		   PP_EXCESS_MIN, PP_NOISE_K, PP_MIN_STEPS, PP_IMBALANCE);
	emit(ctx, run, (int)num(t, who, c->rank), ex, saving, "table-pipeline_stages", rule->data, b->data);
}

/* The columns of t (pipeline_stages.csv). */
static void pp_cols_of(const struct table *t, struct pp_cols *cp)
{
	struct pp_cols c = {
		col(t, PS_RUN), col(t, PS_RANK), col(t, PS_PIPELINE), col(t, PS_STAGE), col(t, PS_STAGES),
		col(t, PS_SCHEDULE), col(t, PS_MICROBATCHES), col(t, PS_STEPS), col(t, PS_SPAN_US), col(t, PS_COMPUTE_US),
		col(t, PS_BUBBLE_SHARE), col(t, PS_FORMULA_BUBBLE_SHARE), col(t, PS_EXCESS_SHARE), col(t, PS_BUBBLE_SIGMA),
		col(t, PS_IMBALANCE), col(t, PS_P2P_US),
	};
	*cp = c;
}

int findings_pipeline_has(const struct analysis_result *res, const char *run)
{
	const struct table *t = result_table(res, "pipeline_stages");
	int crun = t ? col(t, PS_RUN) : -1;
	for (size_t r = 0; crun >= 0 && r < t->nrows; r++) {
		const char *rr = text(t, r, crun);
		if (rr && !strcmp(rr, run))
			return 1;
	}
	return 0;
}

int findings_pipeline_idle_explained(const struct analysis_result *res, const char *run, int rank)
{
	const struct table *t = result_table(res, "pipeline_stages");
	if (!t)
		return 0;
	struct pp_cols c;
	pp_cols_of(t, &c);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, c.run);
		if (!rr || strcmp(rr, run) || num(t, r, c.rank) != rank)
			continue;
		double ex = num(t, r, c.excess), comp = num(t, r, c.compute), imb = num(t, r, c.imb);
		if (num(t, r, c.steps) < PP_MIN_STEPS || isnan(ex) || !(ex > pp_noise(t, &c, r)))
			return 1;
		/* a slower stage of its pipeline, above PP_IMBALANCE: it waits for that one */
		for (size_t q = 0; !isnan(imb) && imb > PP_IMBALANCE && q < t->nrows; q++)
			if (is_pipe(t, &c, q, run, num(t, r, c.pipe)) && num(t, q, c.compute) > comp)
				return 1;
		return 0;
	}
	return 0;
}

void findings_pipeline(const struct analysis_result *res, const char *run, pipeline_finding_fn emit, void *ctx)
{
	const struct table *t = result_table(res, "pipeline_stages");
	if (!t)
		return;
	struct pp_cols c;
	pp_cols_of(t, &c);
	struct buf b, rule;
	buf_init(&b);
	buf_init(&rule);
	double last = NAN;
	/* a pipeline's rows are together: one statement each */
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rr = text(t, r, c.run);
		double pipe = num(t, r, c.pipe);
		if (!rr || strcmp(rr, run) || pipe == last)
			continue;
		last = pipe;
		one_pipe(res, t, &c, run, pipe, emit, ctx, &b, &rule);
	}
	buf_release(&b);
	buf_release(&rule);
}
