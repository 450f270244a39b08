/*
 * whatif_manifest.c: the manifest's questions to the replay (key 'whatif',
 * manifest/questions.c; issue #52 item 6), answered by the code of
 * `perfstudy whatif` (whatif.c) over the build's own store and written as
 * whatif.csv, shown with the experiment's tables.
 *
 * whatif.csv (whatif.h WHATIF_COLUMNS), per question in the manifest's
 * order: its run's profiled steps, each measured (the replay's definition
 * of a step), replayed unchanged at the host factor calibrated to the
 * run's training log (replay_calibrate.c: the top of the range of factors
 * the log allows; 1 without a log) and replayed under the question's
 * changes at that factor, then a mean row; saving_us = replayed_us -
 * whatif_us; saving_fast_host_us the same saving with the host at the
 * bottom of that range (host_factor_lo). A question that cannot be
 * answered (rank=R:median on a run whose ranks are not replayed together,
 * a run without a replayable step) is not a row: a warning at its line in
 * the manifest says why, as `perfstudy whatif` would have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/replay/replay.h"
#include "analyze/replay/whatif.h"
#include "manifest/manifest.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/table.h"
#include "util/xalloc.h"

/* What whatif_run said about one question, kept to be said again at its line. */
struct said {
	size_t n, cap;
	char **text;
	int failed;
};

static void keep(void *ctx, enum diag_level level, const char *text)
{
	struct said *s = ctx;
	s->failed |= level != DIAG_WARNING;
	s->text = xgrow(s->text, &s->cap, s->n + 1, sizeof(*s->text));
	s->text[s->n++] = xstrdup(text);
}

static int analysis_whatif_manifest(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *mf = ctx->manifest;
	if (!mf || !mf->nwhatif)
		return 0;
	struct table *t = table_new("whatif", "The manifest's questions: each run's steps replayed under its changes",
				    TABLE_SCHEMA(WHATIF_COLUMNS));
	size_t answered = 0;
	for (size_t i = 0; i < mf->nwhatif; i++) {
		const struct manifest_whatif *q = &mf->whatif[i];
		struct whatif_change *ch = xcalloc(q->nchanges + 1, sizeof(*ch));
		size_t n = 0;
		for (size_t j = 0; j < q->nchanges; j++) {
			char *why = NULL;
			if (whatif_parse(q->changes[j], (int)j + 1, &ch[n], &why) == 0)
				n++;
			free(why); /* the manifest checked every change */
		}
		char *where = xasprintf("%s:%d:%d", mf->path, q->line, q->col);
		char *run = xasprintf("%s/%s", ctx->experiment, q->run);
		struct said s = {0};
		struct whatif_result r = {0};
		diag_divert(keep, &s);
		int rc = n ? whatif_run(ctx->store, where, run, ch, n, &r) : -1;
		diag_divert(NULL, NULL);
		if (rc == 0 && r.nsteps) {
			double mean[5];
			whatif_table_add(t, &r, q->change, mean);
			answered++;
		}
		/* whatif_run's messages name the question's place ("where"): said again as warnings */
		for (size_t k = 0; k < s.n; k++) {
			const char *what = s.text[k];
			size_t wl = strlen(where);
			if (!strncmp(what, where, wl) && !strncmp(what + wl, ": warning: ", 11))
				what += wl + 11;
			else if (!strncmp(what, where, wl) && !strncmp(what + wl, ": error: ", 9))
				what += wl + 9;
			diag_warning(where, "whatif question (run %s: %s)%s: %s", q->run, q->change,
				     rc == 0 ? "" : " not answered", what);
			free(s.text[k]);
		}
		free(s.text);
		whatif_result_release(&r);
		for (size_t j = 0; j < n; j++)
			whatif_change_release(&ch[j]);
		free(ch);
		free(where);
		free(run);
	}
	if (!answered) {
		table_free(t);
		return 0;
	}
	result_add_table(out, t);
	struct buf b;
	buf_init(&b);
	buf_printf(&b,
		   "The manifest's questions (whatif): each asks what a run's step would be under changes, answered "
		   "as perfstudy whatif answers them (docs/cli.md), from the replay of replay_steps.csv. Per question "
		   "(change: its changes as written), each profiled step of the run with a time on every replay, then "
		   "a mean row: measured_us, the step on the trace; replayed_us, the unchanged graph replayed at the "
		   "host factor calibrated to the run's training log (host_factor, replay_calibration.csv's rule: the "
		   "top of the range of factors whose replay reproduces the log's median within %.0f %%; 1 without a "
		   "log); whatif_us, the graph replayed under the changes at that factor; saving_us = replayed_us - "
		   "whatif_us (negative: slower); host_factor_lo, the bottom of that range, and saving_fast_host_us, "
		   "the saving with the host there (a GPU-bound run's log cannot tell the host's speed: saving_us is "
		   "the least it allows, saving_fast_host_us the most). The changes: collectives=X, collective and "
		   "point-to-point kernels take X times their time (ranks replayed together: X times their wait-free "
		   "transfer); kernels:PATTERN=X, kernels whose name matches the fnmatch pattern take X times their "
		   "duration; roofline:OP=F, each row of op_roofline.csv whose operator matches the fnmatch pattern "
		   "at the fraction F (0 < F <= 1) of its roofline, its kernels taking min(1, roofline time / (F x "
		   "GPU time)) times their duration (the device's datasheet peaks); host=X, the host's time between and in its runtime calls times X (stretches no operator "
		   "covers aside); gaps=0, host stretches of 1 ms or more that no operator covers taken out; "
		   "data-loading=0, the host time inside enumerate(DataLoader) ranges between two runtime calls taken "
		   "out; syncs=0, every call that waited for the GPU returns without waiting; rank=R:median, rank R's "
		   "compute kernels at the median duration of the same kernel on the other ranks (ranks replayed "
		   "together only). Several changes apply together. Not modelled: the GPU's own contention, host "
		   "threads waiting for each other outside the runtime calls, clocks of different hosts.",
		   100 * RP_F_TOL);
	result_add_method(out, "whatif.csv", b.data);
	buf_release(&b);
	return 0;
}

const struct analysis_def analysis_def_whatif_manifest = {
	.name = "whatif_manifest",
	.run = analysis_whatif_manifest,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("whatif"),
};
