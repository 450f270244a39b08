/*
 * report_top.c: the top of an experiment's page (report_top.h), a page read
 * in a minute: first what to fix, ranked by what fixing it saves per step
 * (findings.csv saving_us_per_step, already in that order); then each run's
 * key numbers, with the source and sample count of each, and its timeline
 * figure where one was drawn; then the findings themselves, each folded to
 * its first clause, the full statement, its evidence and its rule inside.
 *
 * Everything here is read from the tables the analyses made; nothing is
 * computed anew but the choice of words. The lines are plain text set into
 * the dictionary, escaped by the template.
 */
#include "report/report_top.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/findings/findings_tables.h"
#include "analyze/memory/memory_steps_kept.h"
#include "analyze/ranks/straggler_causes.h"
#include "analyze/models/models.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/replay/replay.h"
#include "analyze/time/step_stats.h"
#include "analyze/time/time_tables.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* At most this many lines under "What to fix first"; the rest are counted ("and N more"). */
#define FIX_LINES 8
/* A number resting on fewer samples than this says how many. */
#define FEW_SAMPLES 5
/* A finding's summary (its first clause) longer than this many bytes is cut at a space. */
#define SUMMARY_MAX 160
/* The figure of a run's step across its ranks (drawn by its own analysis; absent before it). */
#define TIMELINE_FIGURE "step_timeline_"

/* e's table named name, or NULL (report_table: one the report declares it reads). */
static const struct table *table_of(const struct report_experiment *e, const char *name)
{
	return report_table(e->tables, e->ntables, name);
}

/* The first row of t whose column crun (its run column, by its contract's enum) is run, or -1. */
static long run_row(const struct table *t, int crun, const char *run)
{
	int c = t ? crun : -1;
	for (size_t r = 0; c >= 0 && r < t->nrows; r++) {
		const char *v = table_text(t, r, c);
		if (v && !strcmp(v, run))
			return (long)r;
	}
	return -1;
}

/* A time in us as the findings say it: "39.3 ms", "850 µs". */
static void time_words(struct buf *b, double us)
{
	if (us >= 1000)
		buf_printf(b, "%.1f ms", us / 1000);
	else
		buf_printf(b, "%.0f µs", us);
}

/* The anchor of findings.csv's row r: the list and the key numbers link to it. */
static void finding_anchor(struct buf *b, size_t r)
{
	buf_printf(b, "finding-%zu", r + 1);
}

/*
 * Of straggler_causes.csv's rows of run and rank, the one with the largest
 * excess among those with an empty name (region == 1) or with a name and
 * mechanism mech (region == 0); -1 when none. The rank's mechanism is its
 * region rows' (straggler_causes.c); a named row shows what it is.
 */
static long cause_row(const struct table *t, const char *run, long rank, int region, const char *mech)
{
	int crun = SC_RUN, crank = SC_RANK, cn = SC_NAME,
	    cm = SC_MECHANISM, ce = SC_EXCESS_US_PER_STEP;
	long best = -1;
	double top = 0;
	for (size_t r = 0; crun >= 0 && crank >= 0 && cn >= 0 && cm >= 0 && ce >= 0 && r < t->nrows; r++) {
		const char *rr = table_text(t, r, crun), *n = table_text(t, r, cn), *m = table_text(t, r, cm);
		int named = n && *n;
		if (!rr || strcmp(rr, run) || table_num(t, r, crank) != (double)rank || named == region || !m ||
		    (mech && strcmp(m, mech)))
			continue;
		double x = table_num(t, r, ce);
		if (best < 0 || x > top) {
			best = (long)r;
			top = x;
		}
	}
	return best;
}

/*
 * What fixing a finding of run (and rank, -1 none) is about, in a few words:
 * a pipeline bubble's own cause (its finding, text, blames the slowest
 * stage or the sends and receives: the stage's kernels that no other stage
 * runs are its layers, not extra work); else the rank's mechanism
 * (straggler_causes.csv) where it has one, else, for a rank the others
 * wait for, its lateness; else the rule's name (the rule text up to its
 * first ':'). Appended to b.
 */
static void fix_words(struct buf *b, const struct report_experiment *e, const char *run, long rank, const char *rule,
		      const char *text)
{
	if (rule && !strncmp(rule, "pipeline-bubble:", 16)) {
		buf_adds(b, text && strstr(text, "Fix: move layers off stage") ? "unbalanced pipeline stages"
									     : "pipeline bubble beyond the schedule's");
		return;
	}
	const struct table *t = table_of(e, "straggler_causes");
	long r = t && rank >= 0 ? cause_row(t, run, rank, 1, NULL) : -1;
	const char *mech = r >= 0 ? table_text(t, (size_t)r, SC_MECHANISM) : NULL;
	if (mech) {
		const char *words = straggler_mechanism_words(mech); /* NULL: shown as it is */
		long x = cause_row(t, run, rank, 0, mech);
		const char *name = x >= 0 ? table_text(t, (size_t)x, SC_NAME) : NULL;
		/* the copy's direction, and the synchronising call, where the row names them */
		enum straggler_mech mk = straggler_mechanism(mech);
		if (mk == SM_PAGEABLE_COPY && name && strstr(name, "HtoD"))
			buf_adds(b, "pageable host-to-device copy");
		else if (mk == SM_PAGEABLE_COPY && name && strstr(name, "DtoH"))
			buf_adds(b, "pageable device-to-host copy");
		else if (words)
			buf_adds(b, words);
		else
			for (const char *p = mech; *p; p++)
				buf_addc(b, *p == '_' ? ' ' : *p);
		if (mk == SM_HOST_SYNC && name && strlen(name) <= 40)
			buf_printf(b, " (%s)", name);
		return;
	}
	/* a fix the replay priced: its mechanism's words, which the rule carries in parentheses */
	if (rule && !strncmp(rule, "replay (", 8) && strchr(rule, ')')) {
		buf_add(b, rule + 8, (size_t)(strchr(rule, ')') - (rule + 8)));
		return;
	}
	/* the NCCL path: the replay's assumption, replay_fixes.csv nccl_path's where (add_nccl_path says it) */
	const struct table *fx = rule && !strncmp(rule, "nccl-path", 9) ? table_of(e, "replay_fixes") : NULL;
	for (size_t r = 0; fx && r < fx->nrows; r++) {
		const char *rr = table_text(fx, r, RF_RUN);
		const char *m = table_text(fx, r, RF_MECHANISM);
		const char *w = table_text(fx, r, RF_WHERE);
		if (rr && !strcmp(rr, run) && m && !strcmp(m, "nccl_path") && w && *w) {
			buf_printf(b, "collectives off NVLink (%s)", w);
			return;
		}
	}
	if (rank >= 0 && rule && !strncmp(rule, "waiting:", 8)) {
		buf_adds(b, "late at collectives, the others wait");
		return;
	}
	const char *colon = rule ? strchr(rule, ':') : NULL;
	if (colon)
		buf_add(b, rule, (size_t)(colon - rule));
	else
		buf_adds(b, "finding");
}

/* One line of "What to fix first": one cause, linking to its finding. */
struct fix_line {
	size_t row; /* findings.csv's row it links to */
	const char *run;
	long rank;      /* -1: the finding names no rank */
	int64_t saving; /* ns per step */
	char *what;     /* fix_words, owned */
	char *when;     /* a leak's: when the device is full (owned), NULL for a saving */
};

/*
 * A leak (memory_ranks.csv grows = 1, its memory-growth finding): what it
 * keeps (and, from memory_kept.csv, which operator allocates it) and when the device is full at that rate, in steps and, with the
 * training log's median step (profiler_overhead.csv), in seconds. Appended
 * to what and when; 0 where memory_ranks.csv has no such row.
 */
static int leak_words(const struct report_experiment *e, const char *run, long rank, struct buf *what, struct buf *when)
{
	const struct table *t = table_of(e, "memory_ranks");
	int crun = t ? MR_RUN : -1, crank = t ? MR_RANK : -1;
	for (size_t r = 0; crun >= 0 && r < t->nrows; r++) {
		const char *rr = table_text(t, r, crun);
		if (!rr || strcmp(rr, run) || table_num(t, r, crank) != (double)rank)
			continue;
		double per = table_num(t, r, MR_KEPT_BYTES_PER_STEP);
		double full = table_num(t, r, MR_STEPS_TO_FULL);
		const char *where = table_text(t, r, MR_KEPT_REGION);
		buf_printf(what, "memory leak: %.1f MiB kept per step%s%s", per / (1024.0 * 1024.0),
			   where && *where ? " in " : "", where && *where ? where : "");
		struct buf k;
		buf_init(&k);
		if (memory_kept_words(table_of(e, "memory_kept"), run, rank, &k))
			buf_printf(what, ", %s", k.data);
		buf_release(&k);
		if (isnan(full)) {
			buf_adds(when, "memory grows every step");
			return 1;
		}
		/* a range: the reserved memory counted as taken, or only the allocated (memory_steps.c) */
		double lo = table_num(t, r, MR_STEPS_TO_FULL_RESERVED);
		int range = !isnan(lo) && lo < full;
		if (range)
			buf_printf(when, "device full in %.0f-%.0f steps", lo, full);
		else
			buf_printf(when, "device full in %.0f steps", full);
		const struct table *o = table_of(e, "profiler_overhead");
		long orow = o ? run_row(o, PO_RUN, run) : -1;
		double step_us = orow >= 0 ? table_num(o, (size_t)orow, PO_UNPROFILED_MEDIAN_US) : NAN;
		if (step_us > 0 && range)
			buf_printf(when, " (%.0f-%.0f s at the training's %.1f ms step)", lo * step_us / 1e6, full * step_us / 1e6,
				   step_us / 1000);
		else if (step_us > 0)
			buf_printf(when, " (%.0f s at the training's %.1f ms step)", full * step_us / 1e6, step_us / 1000);
		buf_adds(when, ", sooner by the CUDA context and any NCCL buffers (not in the trace)");
		return 1;
	}
	return 0;
}

/*
 * The lines: first each leak (a memory-growth finding, leak_words), then
 * findings.csv's rows with a saving, in its order (largest saving first). The findings of one run and rank with the same saving
 * (a straggler's waiting and cause findings: one fix) are one line, linking
 * to the cause finding, which names the mechanism and the fix. Returns the
 * count; *out is the caller's to free (fix_lines_free).
 */
static size_t fix_lines(const struct report_experiment *e, const struct table *f, struct fix_line **out)
{
	int crun = FND_RUN, crank = FND_RANK, cs = FND_SAVING_US_PER_STEP,
	    cev = FND_EVIDENCE, crule = FND_RULE;
	struct fix_line *l = NULL;
	size_t n = 0, cap = 0;
	struct buf w, when;
	buf_init(&w);
	buf_init(&when);
	/* leaks first: a device that fills stops the training, whatever a step costs */
	for (size_t r = 0; crun >= 0 && crule >= 0 && r < f->nrows; r++) {
		const char *run = table_text(f, r, crun), *rule = table_text(f, r, crule);
		double rk = table_num(f, r, crank);
		if (!run || !rule || strncmp(rule, "memory-growth:", 14) || isnan(rk))
			continue;
		buf_reset(&w);
		buf_reset(&when);
		if (!leak_words(e, run, (long)rk, &w, &when))
			continue;
		l = xgrow(l, &cap, n + 1, sizeof(*l));
		l[n++] = (struct fix_line){r, run, (long)rk, 0, xstrdup(w.data), xstrdup(when.data)};
	}
	size_t leaks = n;
	for (size_t r = 0; crun >= 0 && cs >= 0 && r < f->nrows; r++) {
		const struct cell *s = table_cell(f, r, (size_t)cs);
		const char *run = table_text(f, r, crun);
		if (s->null || !run)
			continue;
		int64_t saving = s->v.i;
		double rk = table_num(f, r, crank);
		long rank = isnan(rk) ? -1 : (long)rk;
		const char *ev = table_text(f, r, cev);
		size_t i = leaks;
		while (i < n && !(rank >= 0 && l[i].rank == rank && l[i].saving == saving && !strcmp(l[i].run, run)))
			i++;
		if (i < n) {
			if (ev && !strcmp(ev, "table-straggler_causes"))
				l[i].row = r;
			continue;
		}
		buf_reset(&w);
		fix_words(&w, e, run, rank, table_text(f, r, crule), table_text(f, r, FND_FINDING));
		l = xgrow(l, &cap, n + 1, sizeof(*l));
		l[n++] = (struct fix_line){r, run, rank, saving, xstrdup(w.data), NULL};
	}
	buf_release(&w);
	buf_release(&when);
	*out = l;
	return n;
}

static void fix_lines_free(struct fix_line *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].what);
		free(l[i].when);
	}
	free(l);
}

/* Sets a line's RUN, RANK, WHAT, SAVING and ANCHOR in x. */
static void set_fix_line(struct tmpl_dict *x, const struct fix_line *l)
{
	struct buf v;
	buf_init(&v);
	tmpl_set(x, "RUN", l->run);
	if (l->rank >= 0)
		tmpl_set_int(tmpl_add_section(x, "RANK"), "N", l->rank);
	tmpl_set(x, "WHAT", l->what);
	if (l->when) {
		tmpl_set(tmpl_add_section(x, "FULL"), "WHEN", l->when);
	} else {
		time_words(&v, (double)l->saving / 1000);
		tmpl_set(tmpl_add_section(x, "SAVES"), "SAVING", v.data);
	}
	buf_reset(&v);
	finding_anchor(&v, l->row);
	tmpl_set(x, "ANCHOR", v.data);
	buf_release(&v);
}

/*
 * Beside "No cause worth fixing found", where findings.csv has rows: how
 * many findings the page states and their rules' names (findings.csv rule
 * up to its first ':'), first seen first, so that the line does not read as
 * if the page found nothing: "The 14 findings below (scaling, host-bound)
 * describe the runs; none prices a fix."
 */
static void fix_none_findings(struct tmpl_dict *sec, const struct table *t)
{
	int cr = t ? FND_RULE : -1;
	if (cr < 0 || !t->nrows)
		return;
	struct buf rules, one;
	buf_init(&rules);
	buf_init(&one);
	for (size_t r = 0; r < t->nrows; r++) {
		const char *rule = table_text(t, r, cr), *colon = rule ? strchr(rule, ':') : NULL;
		if (!colon || colon == rule)
			continue;
		buf_reset(&one);
		buf_printf(&one, "%.*s", (int)(colon - rule), rule);
		/* already named: as a whole item of the ", "-joined list */
		const char *p = rules.data ? rules.data : "";
		int seen = 0;
		for (const char *q = strstr(p, one.data); q && !seen; q = strstr(q + 1, one.data))
			seen = (q == p || q[-1] == ' ') && (q[one.len] == ',' || q[one.len] == 0);
		if (!seen)
			buf_printf(&rules, "%s%s", rules.len ? ", " : "", one.data);
	}
	struct tmpl_dict *x = tmpl_add_section(sec, "FIX_NONE_FINDINGS");
	tmpl_set_int(x, "N", (long long)t->nrows);
	tmpl_set(x, "S", t->nrows == 1 ? "" : "s");
	tmpl_set(x, "VERB", t->nrows == 1 ? "describes the run" : "describe the runs");
	if (rules.len)
		tmpl_set(tmpl_add_section(x, "RULES"), "LIST", rules.data);
	buf_release(&rules);
	buf_release(&one);
}

/*
 * Under "What to fix first": the stragglers seen but left unpriced
 * (findings.csv rule straggler-unpriced), "bert-4gpu-ddp rank 3, ...", so
 * that a straggler the noise rules keep off the list is not missing from
 * the top of the page (issue #57); each line's finding says why.
 */
static void set_unpriced(struct tmpl_dict *sec, const struct table *t)
{
	static const char rule[] = "straggler-unpriced:";
	struct buf list;
	buf_init(&list);
	for (size_t r = 0; t && r < t->nrows; r++) {
		const char *ru = table_text(t, r, FND_RULE), *run = table_text(t, r, FND_RUN);
		double rank = table_num(t, r, FND_RANK);
		if (!ru || !run || strncmp(ru, rule, sizeof(rule) - 1) || isnan(rank))
			continue;
		buf_printf(&list, "%s%s rank %.0f", list.len ? ", " : "", run, rank);
	}
	if (list.len)
		tmpl_set(tmpl_add_section(sec, "UNPRICED"), "LIST", list.data);
	buf_release(&list);
}

/*
 * Under "What to fix first": each rank with two or more stated fixes
 * (replay_fixes.csv saving_all_causes_us set), what fixing them all saves
 * in one replay beside their sum, "item rank 0: its 2 fixes at once save
 * 16.5 ms/step, not their sum 31.5 ms", so that overlapping lines are not
 * added (issue #52); not where they all lie in one place (saving_same_place_us
 * the same), which their one finding says.
 */
static void set_together(struct tmpl_dict *sec, const struct table *t)
{
	struct buf list;
	buf_init(&list);
	for (size_t r = 0; t && r < t->nrows;) {
		const char *run = table_text(t, r, RF_RUN);
		double rank = table_num(t, r, RF_RANK), all = NAN, sum = 0;
		size_t e = r, k = 0, placed = 0;
		for (; e < t->nrows && run && table_text(t, e, RF_RUN) && !strcmp(table_text(t, e, RF_RUN), run) &&
		       table_num(t, e, RF_RANK) == rank;
		     e++)
			if (table_num(t, e, RF_STATED) == 1 && !isnan(table_num(t, e, RF_SAVING_ALL_CAUSES_US))) {
				all = table_num(t, e, RF_SAVING_ALL_CAUSES_US);
				sum += table_num(t, e, RF_SAVING_US_PER_STEP);
				placed += table_num(t, e, RF_SAVING_SAME_PLACE_US) == all;
				k++;
			}
		if (e == r)
			e = r + 1; /* a row without run or rank: on its own */
		/* all of them in one place: their finding is already one, at that saving */
		if (k >= 2 && placed < k) {
			buf_printf(&list, "%s%s rank %.0f: its %zu fixes at once save ", list.len ? "; " : "", run, rank, k);
			time_words(&list, all);
			buf_adds(&list, "/step, not their sum ");
			time_words(&list, sum);
		}
		r = e;
	}
	if (list.len)
		tmpl_set(tmpl_add_section(sec, "TOGETHER"), "LIST", list.data);
	buf_release(&list);
}

/*
 * "What to fix first": the first FIX_LINES lines, then how many more; or,
 * where no finding has a saving, the one line that says so. Shown where
 * the experiment has findings or profiled steps to judge.
 */
static void set_fix(struct tmpl_dict *d, const struct report_experiment *e, const struct fix_line *l, size_t n)
{
	if (!table_of(e, "findings") && !table_of(e, "step_stats"))
		return;
	struct tmpl_dict *sec = tmpl_add_section(d, "FIX");
	set_unpriced(sec, table_of(e, "findings"));
	if (!n) {
		tmpl_show_section(sec, "FIX_NONE");
		fix_none_findings(sec, table_of(e, "findings"));
		return;
	}
	struct tmpl_dict *lines = tmpl_add_section(sec, "FIX_LINES");
	for (size_t i = 0; i < n && i < FIX_LINES; i++)
		set_fix_line(tmpl_add_section(lines, "LINE"), &l[i]);
	set_together(lines, table_of(e, "replay_fixes"));
	if (n > FIX_LINES)
		tmpl_set_int(tmpl_add_section(lines, "MORE"), "N", (long long)(n - FIX_LINES));
}

/* A median and its sample count into x: MS, N, and FEW where there are fewer than FEW_SAMPLES. */
static void set_median(struct tmpl_dict *x, double us, double count)
{
	struct buf v;
	buf_init(&v);
	time_words(&v, us);
	tmpl_set(x, "MS", v.data);
	tmpl_set_int(x, "N", (long long)count);
	if (count < FEW_SAMPLES)
		tmpl_show_section(x, "FEW");
	if (count != 1)
		tmpl_show_section(x, "PLURAL");
	buf_release(&v);
}

/* The figure named TIMELINE_FIGURE<run's file-name stem> (fs_figure_name), or -1. */
static long timeline_of(const struct report_experiment *e, const char *run)
{
	char *name = fs_figure_name(TIMELINE_FIGURE, run, NULL);
	long hit = -1;
	for (size_t i = 0; i < e->nfigures && hit < 0; i++)
		if (!strcmp(e->figures[i].name, name))
			hit = (long)i;
	free(name);
	return hit;
}

/*
 * Key numbers, one row per run of runs.csv: the training log's unprofiled
 * median step (profiler_overhead.csv), the trace's median step
 * (step_stats.csv), the speedup over the baseline (scaling.csv: the logs'
 * where both runs have one, else the profiled steps'; against a baseline
 * of as many GPUs, the ratio of the step times instead of an efficiency),
 * the run's first
 * line of "What to fix first"; then each run's timeline figure. A column
 * no run has a number for is left out; the block, when none has any.
 * Where a run's trace step is under STEP_ASYNC_SHARE of its GPU-side period,
 * a column gives that period (step_stats.csv gpu_period_median_us) and a
 * note under the table names those runs and says which number is the
 * training's step (issue #57).
 */
static void set_key(struct tmpl_dict *d, const struct report_experiment *e, const struct fix_line *l, size_t n)
{
	const struct table *runs = e->runs, *po = table_of(e, "profiler_overhead"), *ss = table_of(e, "step_stats"),
			   *sc = table_of(e, "scaling");
	int crun = runs ? RUNS_RUN : -1;
	int cpn = po ? PO_UNPROFILED : -1, cpm = po ? PO_UNPROFILED_MEDIAN_US : -1;
	int csn = ss ? SS_STEPS : -1, csm = ss ? SS_MEDIAN_US : -1;
	int cgn = ss ? SS_GPU_PERIODS : -1, cgm = ss ? SS_GPU_PERIOD_MEDIAN_US : -1;
	int cb = sc ? SCL_BASELINE : -1, cg = sc ? SCL_GPUS : -1,
	    csp = sc ? SCL_SPEEDUP : -1, cse = sc ? SCL_EFFICIENCY : -1,
	    cls = sc ? SCL_LOG_SPEEDUP : -1, cle = sc ? SCL_LOG_EFFICIENCY : -1;
	if (crun < 0)
		return;
	/* which columns any run fills */
	int any_log = 0, any_trace = 0, any_speedup = 0;
	struct buf async;
	buf_init(&async);
	for (size_t r = 0; r < runs->nrows; r++) {
		const char *run = table_text(runs, r, crun);
		long p = run && po ? run_row(po, PO_RUN, run) : -1, s = run && ss ? run_row(ss, SS_RUN, run) : -1,
		     k = run && sc ? run_row(sc, SCL_RUN, run) : -1;
		any_log |= p >= 0 && !isnan(table_num(po, (size_t)p, cpm)) && table_num(po, (size_t)p, cpn) > 0;
		any_trace |= s >= 0 && !isnan(table_num(ss, (size_t)s, csm)) && table_num(ss, (size_t)s, csn) > 0;
		any_speedup |= k >= 0 && !isnan(table_num(sc, (size_t)k, csp));
		double host = s >= 0 ? table_num(ss, (size_t)s, csm) : NAN, gpu = s >= 0 ? table_num(ss, (size_t)s, cgm) : NAN;
		if (s >= 0 && table_num(ss, (size_t)s, cgn) > 0 && host < STEP_ASYNC_SHARE * gpu) {
			buf_printf(&async, "%s%s (", async.len ? ", " : "", run);
			time_words(&async, host);
			buf_adds(&async, " against ");
			time_words(&async, gpu);
			buf_adds(&async, ")");
		}
	}
	if (!any_log && !any_trace) {
		buf_release(&async);
		return;
	}
	struct tmpl_dict *sec = tmpl_add_section(d, "KEY");
	if (any_log)
		tmpl_show_section(sec, "KLOG");
	if (any_speedup)
		tmpl_show_section(sec, "KSPEEDUP");
	if (any_trace)
		tmpl_show_section(sec, "KTRACE");
	if (async.len) {
		tmpl_show_section(sec, "KGPU");
		struct tmpl_dict *x = tmpl_add_section(sec, "KASYNC");
		tmpl_set(x, "RUNS", async.data);
		if (any_log)
			tmpl_show_section(x, "KLOG");
		else
			tmpl_show_section(x, "NOLOG");
	}
	struct buf v;
	buf_init(&v);
	for (size_t r = 0; r < runs->nrows; r++) {
		const char *run = table_text(runs, r, crun);
		if (!run)
			continue;
		struct tmpl_dict *row = tmpl_add_section(sec, "KROW");
		tmpl_set(row, "RUN", run);
		long p = po ? run_row(po, PO_RUN, run) : -1, s = ss ? run_row(ss, SS_RUN, run) : -1,
		     k = sc ? run_row(sc, SCL_RUN, run) : -1;
		if (any_log) {
			struct tmpl_dict *c = tmpl_add_section(row, "KLOG");
			if (p >= 0 && !isnan(table_num(po, (size_t)p, cpm)) && table_num(po, (size_t)p, cpn) > 0)
				set_median(tmpl_add_section(c, "VAL"), table_num(po, (size_t)p, cpm), table_num(po, (size_t)p, cpn));
			else
				tmpl_show_section(c, "NONE");
		}
		if (any_trace) {
			struct tmpl_dict *c = tmpl_add_section(row, "KTRACE");
			if (s >= 0 && !isnan(table_num(ss, (size_t)s, csm)) && table_num(ss, (size_t)s, csn) > 0)
				set_median(tmpl_add_section(c, "VAL"), table_num(ss, (size_t)s, csm), table_num(ss, (size_t)s, csn));
			else
				tmpl_show_section(c, "NONE");
		}
		if (async.len) {
			struct tmpl_dict *c = tmpl_add_section(row, "KGPU");
			if (s >= 0 && table_num(ss, (size_t)s, cgn) > 0)
				set_median(tmpl_add_section(c, "VAL"), table_num(ss, (size_t)s, cgm), table_num(ss, (size_t)s, cgn));
			else
				tmpl_show_section(c, "NONE");
		}
		if (any_speedup) {
			struct tmpl_dict *c = tmpl_add_section(row, "KSPEEDUP");
			const char *base = k >= 0 ? table_text(sc, (size_t)k, cb) : NULL;
			double ls = k >= 0 ? table_num(sc, (size_t)k, cls) : NAN, sp = k >= 0 ? table_num(sc, (size_t)k, csp) : NAN;
			int log = !isnan(ls);
			double x = log ? ls : sp, eff = k >= 0 ? table_num(sc, (size_t)k, log ? cle : cse) : NAN;
			if (base && !strcmp(base, run)) {
				tmpl_show_section(c, "BASE");
			} else if (base && !isnan(x)) {
				struct tmpl_dict *val = tmpl_add_section(c, "VAL");
				buf_reset(&v);
				buf_printf(&v, "%.2fx", x);
				tmpl_set(val, "X", v.data);
				tmpl_set(val, "BASELINE", base);
				tmpl_set(val, "SOURCE", log ? "training logs" : "profiled steps");
				long bg = run_row(sc, SCL_RUN, base);
				double ratio = bg >= 0 ? table_num(sc, (size_t)k, cg) / table_num(sc, (size_t)bg, cg) : NAN;
				int cst = log ? SCL_LOG_STEP_US : SCL_STEP_US;
				double step = table_num(sc, (size_t)k, cst), bstep = bg >= 0 ? table_num(sc, (size_t)bg, cst) : NAN;
				if (ratio == 1) {
					/* as many GPUs as the baseline: no scaling to measure, the step times' ratio instead */
					if (!isnan(step) && bstep > 0) {
						buf_reset(&v);
						buf_printf(&v, "%.2fx", step / bstep);
						struct tmpl_dict *st = tmpl_add_section(val, "STEP");
						tmpl_set(st, "TEXT", v.data);
						tmpl_set(st, "BASELINE", base);
					}
				} else if (!isnan(eff) && !isnan(ratio)) {
					buf_reset(&v);
					buf_printf(&v, "%.0f %% of %gx", 100 * eff, ratio);
					tmpl_set(tmpl_add_section(val, "EFF"), "TEXT", v.data);
				}
			} else {
				tmpl_show_section(c, "NONE");
			}
		}
		size_t i = 0;
		while (i < n && strcmp(l[i].run, run))
			i++;
		if (i < n)
			set_fix_line(tmpl_add_section(row, "CAUSE"), &l[i]);
		else
			tmpl_show_section(row, "CAUSE_NONE");
	}
	for (size_t r = 0; r < runs->nrows; r++) {
		const char *run = table_text(runs, r, crun);
		long fig = run ? timeline_of(e, run) : -1;
		if (fig < 0)
			continue;
		struct tmpl_dict *x = tmpl_add_section(sec, "KFIG");
		tmpl_set(x, "RUN", run);
		tmpl_set(x, "FIG_NAME", e->figures[fig].name);
		tmpl_set(x, "FIG_CAPTION", e->figures[fig].caption);
		tmpl_set_int(x, "FIG_NUMBER", fig + 1);
	}
	buf_release(&v);
	buf_release(&async);
}

/*
 * A finding's summary: its first clause, up to the first "; " or " (" after
 * the run's name (which may hold either), a " (rank N)" aside, cut at a
 * space with "…" past SUMMARY_MAX bytes. Appended to b.
 */
static void finding_summary(struct buf *b, const char *text, const char *run)
{
	size_t skip = run && !strncmp(text, run, strlen(run)) ? strlen(run) : 0;
	size_t end = strlen(text);
	const char *a = strstr(text + skip, "; "), *p = strstr(text + skip, " (");
	/* "pipeline stage 1 of 2 (rank 1) computes ...": a rank named in passing does not end the clause */
	while (p && !strncmp(p, " (rank ", 7) && p[7] >= '0' && p[7] <= '9' && p[7 + strspn(p + 7, "0123456789")] == ')')
		p = strstr(p + 7, " (");
	if (a && (size_t)(a - text) < end)
		end = (size_t)(a - text);
	if (p && (size_t)(p - text) < end)
		end = (size_t)(p - text);
	if (end > SUMMARY_MAX) {
		size_t cut = SUMMARY_MAX;
		while (cut > skip && text[cut] != ' ')
			cut--;
		/* not after a number whose unit the cut would drop ("idles 84.0 …") */
		for (size_t w = cut; cut > skip && w > skip; cut = w) {
			w = cut - 1;
			while (w > skip && text[w] != ' ')
				w--;
			if (!(text[w + 1] >= '0' && text[w + 1] <= '9'))
				break;
		}
		if (cut > skip) {
			buf_add(b, text, cut);
			buf_adds(b, " …");
			return;
		}
	}
	buf_add(b, text, end);
}

/* qsort order of merged traces by run. */
static int cmp_trace_run(const void *pa, const void *pb)
{
	const struct report_trace *a = *(const struct report_trace *const *)pa, *b = *(const struct report_trace *const *)pb;
	return strcmp(a->run, b->run);
}

/*
 * The merged trace of run among e's sorted by run (by_run, n of them), when
 * it holds several ranks: a finding of that run that names a rank is a
 * cross-rank finding and links it. NULL otherwise (or where the size
 * rule left the file out).
 */
static const struct report_trace *multi_rank_trace(const struct report_trace *const *by_run, size_t n, const char *run)
{
	struct report_trace key = {.run = (char *)run};
	const struct report_trace *kp = &key;
	const struct report_trace *const *hit = n ? bsearch(&kp, by_run, n, sizeof(*by_run), cmp_trace_run) : NULL;
	return hit && (*hit)->ranks > 1 && (*hit)->file ? *hit : NULL;
}

/*
 * The findings (findings.c), folded: one <details> each, its summary the
 * statement's first clause (with the saving, where it has one), and inside
 * the whole statement, with a link to the table or figure that carries its
 * evidence (the anchor "table-<name>" or "figure-<name>" the page gives it),
 * the run's merged trace for a finding that names a rank, and the rule
 * that made it. The finding a line of "What to fix first" links to (of l,
 * n) adds that line's words to its summary ("; why: ..."). Grouped by run, the runs in the order of their first
 * finding (findings.csv is ordered by saving across runs), each run's
 * findings in the table's order. The anchor finding-<row + 1> is the one
 * the list above links to.
 */
static void set_findings(struct tmpl_dict *d, const struct table *t, const struct report_experiment *e,
			 const struct fix_line *l, size_t n)
{
	int crun = FND_RUN, cf = FND_FINDING, ce = FND_EVIDENCE,
	    cr = FND_RULE, crank = FND_RANK, cs = FND_SAVING_US_PER_STEP;
	if (crun < 0 || cf < 0 || ce < 0 || cr < 0 || !t->nrows)
		return;
	struct tmpl_dict *sec = tmpl_add_section(d, "FINDINGS");
	const struct report_trace **by_run = xcalloc(e->ntraces + 1, sizeof(*by_run));
	for (size_t i = 0; i < e->ntraces; i++)
		by_run[i] = &e->traces[i];
	if (e->ntraces > 1)
		qsort(by_run, e->ntraces, sizeof(*by_run), cmp_trace_run);
	/* the runs in the order of their first finding */
	const char **runs = xcalloc(t->nrows, sizeof(*runs));
	size_t nruns = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *run = table_text(t, r, crun);
		size_t i = 0;
		while (run && i < nruns && strcmp(runs[i], run))
			i++;
		if (run && i == nruns)
			runs[nruns++] = run;
	}
	struct buf v;
	buf_init(&v);
	for (size_t k = 0; k < nruns; k++) {
		struct tmpl_dict *frun = tmpl_add_section(sec, "FRUN");
		tmpl_set(frun, "RUN", runs[k]);
		const struct report_trace *tr = multi_rank_trace(by_run, e->ntraces, runs[k]);
		for (size_t r = 0; r < t->nrows; r++) {
			const char *run = table_text(t, r, crun), *text = table_text(t, r, cf);
			if (!run || strcmp(run, runs[k]))
				continue;
			struct tmpl_dict *f = tmpl_add_section(frun, "FINDING");
			buf_reset(&v);
			finding_anchor(&v, r);
			tmpl_set(f, "ANCHOR", v.data);
			/* the saving, where the first clause does not say it; the cause of a line, where it is one */
			buf_reset(&v);
			finding_summary(&v, text ? text : "", run);
			double saving = table_num(t, r, cs);
			struct buf s;
			buf_init(&s);
			if (!isnan(saving))
				time_words(&s, saving);
			if (s.len && !strstr(v.data, s.data))
				tmpl_set(tmpl_add_section(f, "SAVES"), "SAVING", s.data);
			buf_release(&s);
			for (size_t i = 0; i < n; i++)
				if (l[i].row == r)
					buf_printf(&v, "; why: %s", l[i].what);
			tmpl_set(f, "SUMMARY", v.data);
			const int cols[] = {cf, ce, cr};
			const char *keys[] = {"TEXT", "EVIDENCE", "RULE"};
			for (int c = 0; c < 3; c++) {
				buf_reset(&v);
				table_format_cell(t, r, (size_t)cols[c], &v);
				tmpl_set(f, keys[c], v.data);
			}
			if (tr && crank >= 0 && !table_cell(t, r, (size_t)crank)->null)
				tmpl_set(tmpl_add_section(f, "TRACE"), "FILE", tr->file);
		}
	}
	free(runs);
	free(by_run);
	buf_release(&v);
}

void report_top(struct tmpl_dict *d, const struct report_experiment *e)
{
	const struct table *f = table_of(e, "findings");
	struct fix_line *l = NULL;
	size_t n = f ? fix_lines(e, f, &l) : 0;
	set_fix(d, e, l, n);
	set_key(d, e, l, n);
	if (f)
		set_findings(d, f, e, l, n);
	fix_lines_free(l, n);
}
