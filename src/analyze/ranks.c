/*
 * ranks.c: ranks side by side (ranks.csv), and scaling across runs of the
 * same model (scaling.csv).
 *
 * ranks.csv, per run, step N and rank: the ProfilerStep#N host duration;
 * idle = the step range minus the union of the rank's GPU activities;
 * comm = the union of its communication kernels inside the step (the time
 * the rank spends in, or waiting inside, collectives); slowest = 1 on the
 * rank with the longest step. A note warns where the slowest rank's step
 * is more than 10% longer than the fastest's.
 *
 * scaling.csv, per run: step = the median of all its ranks' step
 * durations; samples/s = gpus x batch / step; against the run of the same
 * model with the fewest GPUs g: speedup = samples/s(n) / samples/s(g),
 * efficiency = speedup / (n / g). Communication efficiency
 * eff = t_comm(g) / t_comm(n) (mean communication union per step) and the
 * predicted speedup (r_comp + r_comm) / (r_comp + r_comm / eff) with r the
 * baseline's compute and communication shares of its step; empty where the
 * baseline has no communication (a 1-GPU baseline), with a note.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "intervals.h"
#include "rankdata.h"
#include "../util/buf.h"
#include "../util/diag.h"
#include "../util/xalloc.h"

struct run_sum {
	char *run, *model, *strategy;
	int64_t gpus, batch;
	int64_t *durs;
	size_t ndurs, cap;
	int64_t comm, comp, nsteps, steps_total;
};

static int run_info(struct store *s, const char *exp, struct run_sum **out, size_t *n)
{
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(store_db(s),
			       "SELECT r.run, r.model, coalesce(r.gpus, max(t.world_size), count(DISTINCT t.rank)), r.batch,"
			       " coalesce(r.strategy, '')"
			       " FROM runs r LEFT JOIN traces t ON t.run_id = r.id WHERE r.experiment = ?1"
			       " GROUP BY r.id ORDER BY r.position", -1, &st, NULL) != SQLITE_OK) {
		diag_syserror("perfstudy.db", "sqlite: %s", sqlite3_errmsg(store_db(s)));
		return -1;
	}
	sqlite3_bind_text(st, 1, exp, -1, SQLITE_STATIC);
	size_t cap = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
		struct run_sum *r = &(*out)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->run = xstrdup((const char *)sqlite3_column_text(st, 0));
		const char *m = (const char *)sqlite3_column_text(st, 1);
		r->model = xstrdup(m ? m : "");
		r->gpus = sqlite3_column_int64(st, 2);
		r->batch = sqlite3_column_int64(st, 3);
		r->strategy = xstrdup((const char *)sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return 0;
}

static int64_t median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), rank_cmp_i64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2] + 1) / 2;
}

/*
 * The scaling figure: x the distinct GPU counts, one line per model (per
 * model and strategy where a model's runs beyond its baseline have several
 * strategies) through the baseline's speedup 1 and its runs' speedups, and
 * the ideal n / g for the smallest baseline g. NULL when no run scales.
 */
static struct chart *scaling_chart(const struct run_sum *rs, size_t nr, const double *speedup,
				   struct run_sum *const *base)
{
	int64_t *ns = xcalloc(nr + 1, sizeof(*ns)), gmin = 0;
	size_t nn = 0, scaled = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!base[i])
			continue;
		if (base[i] != &rs[i])
			scaled++;
		size_t j = 0;
		while (j < nn && ns[j] != rs[i].gpus)
			j++;
		if (j == nn)
			ns[nn++] = rs[i].gpus;
		if (!gmin || base[i]->gpus < gmin)
			gmin = base[i]->gpus;
	}
	if (!scaled) {
		free(ns);
		return NULL;
	}
	qsort(ns, nn, sizeof(*ns), rank_cmp_i64);
	struct chart *c = chart_new(CHART_LINE, "scaling", "Speedup against GPUs", "speedup");
	char num[32];
	for (size_t j = 0; j < nn; j++) {
		snprintf(num, sizeof(num), "%lld GPU%s", (long long)ns[j], ns[j] == 1 ? "" : "s");
		chart_add_category(c, num);
	}
	struct buf label;
	buf_init(&label);
	for (size_t i = 0; i < nr; i++) {
		if (!base[i] || base[i] == &rs[i])
			continue;
		/* Several strategies beyond this model's baseline: one line each. */
		int several = 0;
		for (size_t k = 0; k < nr; k++)
			if (base[k] == base[i] && base[k] != &rs[k] && strcmp(rs[k].strategy, rs[i].strategy))
				several = 1;
		buf_reset(&label);
		buf_adds(&label, rs[i].model);
		if (several)
			buf_printf(&label, ", %s", *rs[i].strategy ? rs[i].strategy : rs[i].run);
		size_t s = 0;
		while (s < c->nseries && strcmp(c->series[s], label.data))
			s++;
		if (s == c->nseries) {
			s = chart_add_series(c, label.data);
			for (size_t j = 0; j < nn; j++)
				chart_set(c, j, s, ns[j] == base[i]->gpus ? 1.0 : NAN);
		}
		for (size_t j = 0; j < nn; j++)
			if (ns[j] == rs[i].gpus)
				chart_set(c, j, s, speedup[i]);
	}
	size_t ideal = chart_add_series(c, "ideal");
	for (size_t j = 0; j < nn; j++)
		chart_set(c, j, ideal, ns[j] >= gmin ? (double)ns[j] / (double)gmin : NAN);
	c->ref_series = ideal + 1;
	buf_release(&label);
	free(ns);
	return c;
}

static void scaling(struct analysis_result *out, struct run_sum *rs, size_t nr)
{
	struct table *t = table_new("scaling", "Scaling across runs of the same model",
				    "run:text,gpus:int,step_us:us,samples_per_s:real,speedup:real,efficiency:real,"
				    "comm_efficiency:real,predicted_speedup:real");
	int noted = 0;
	double *speedups = xcalloc(nr + 1, sizeof(*speedups));
	struct run_sum **bases = xcalloc(nr + 1, sizeof(*bases));
	for (size_t i = 0; i < nr; i++) {
		struct run_sum *r = &rs[i];
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, r->run);
		table_set_int(t, row, 1, r->gpus);
		if (!r->ndurs || r->batch <= 0) {
			result_add_note(out, "scaling.csv: run %s has %s, so its throughput is not computed", r->run,
					r->ndurs ? "no per-GPU batch in the manifest" : "no ProfilerStep ranges");
			continue;
		}
		int64_t med = median(r->durs, r->ndurs);
		table_set_ns(t, row, 2, med);
		double sps = (double)(r->gpus * r->batch) * 1e9 / (double)med;
		table_set_real(t, row, 3, sps);
		/* The baseline: same model, fewest GPUs, first in manifest order. */
		struct run_sum *b = NULL;
		for (size_t j = 0; j < nr; j++)
			if (!strcmp(rs[j].model, r->model) && rs[j].ndurs && rs[j].batch > 0 &&
			    (!b || rs[j].gpus < b->gpus))
				b = &rs[j];
		if (!b || !*r->model)
			continue;
		double bsps = (double)(b->gpus * b->batch) * 1e9 / (double)median(b->durs, b->ndurs);
		double speedup = sps / bsps, eff = speedup / ((double)r->gpus / (double)b->gpus);
		table_set_real(t, row, 4, speedup);
		table_set_real(t, row, 5, eff);
		speedups[i] = speedup;
		bases[i] = b;
		if (b == r)
			continue;
		if (b->comm > 0 && r->comm > 0) {
			double ce = ((double)b->comm / (double)b->nsteps) / ((double)r->comm / (double)r->nsteps);
			double rcomp = (double)b->comp / (double)b->steps_total, rcomm = (double)b->comm / (double)b->steps_total;
			table_set_real(t, row, 6, ce);
			table_set_real(t, row, 7, (rcomp + rcomm) / (rcomp + rcomm / ce));
		} else if (!noted++) {
			result_add_note(out, "scaling.csv: communication efficiency and the predicted speedup need "
					"communication in both runs; the baseline of %s (%s, %lld GPU) has none, so they "
					"are empty", r->run, b->run, (long long)b->gpus);
		}
	}
	result_add_table(out, t);
	struct chart *c = scaling_chart(rs, nr, speedups, bases);
	if (c)
		result_add_figure(out, c, "Measured speedup against the number of GPUs, per model (and strategy, where "
				  "a model has runs of several), each line starting at the model's run with the fewest "
				  "GPUs g; the dashed line is linear scaling, n / g.");
	free(speedups);
	free(bases);
	result_add_method(out, "scaling.csv",
			  "Per run: step_us = the median of all its ranks' ProfilerStep durations; samples_per_s = "
			  "gpus x per-GPU batch / step; against the run of the same model name with the fewest GPUs "
			  "g: speedup = samples_per_s(n) / samples_per_s(g), efficiency = speedup / (n / g); "
			  "comm_efficiency = t_comm(g) / t_comm(n), t_comm the mean union of communication kernels "
			  "per rank and step; predicted_speedup = (r_comp + r_comm) / (r_comp + r_comm / "
			  "comm_efficiency), r_comp and r_comm the baseline's union of compute and of communication "
			  "kernels as shares of its step time.");
}

int analysis_ranks(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct rank_key *keys;
	size_t nkeys, nr;
	struct run_sum *rs;
	if (rank_keys(ctx->store, ctx->experiment, &keys, &nkeys) < 0)
		return -1;
	if (run_info(ctx->store, ctx->experiment, &rs, &nr) < 0) {
		rank_keys_free(keys, nkeys);
		return -1;
	}
	struct classifier *cls = classifier_preset("default");
	struct table *t = table_new("ranks", "Ranks side by side, per step",
				    "run:text,step:int,rank:int,step_us:us,idle_us:us,comm_us:us,slowest:int");
	struct ivset all, comm;
	ivset_init(&all);
	ivset_init(&comm);
	int ret = -1;
	size_t first_row = 0;
	for (size_t k = 0; k < nkeys; k++) {
		struct rank_data d;
		if (rank_data_load(ctx->store, &keys[k], cls, &d) < 0)
			goto out;
		struct run_sum *r = NULL;
		for (size_t i = 0; i < nr; i++)
			if (!strcmp(rs[i].run, keys[k].run))
				r = &rs[i];
		ivset_clear(&all);
		ivset_clear(&comm);
		for (size_t i = 0; i < d.nacts; i++) {
			ivset_add(&all, d.acts[i].start, d.acts[i].end);
			if (d.acts[i].kind == ACT_KERNEL && d.acts[i].cls == RK_COMM)
				ivset_add(&comm, d.acts[i].start, d.acts[i].end);
		}
		ivset_normalize(&all);
		ivset_normalize(&comm);
		struct ivset comp;
		ivset_init(&comp);
		for (size_t i = 0; i < d.nacts; i++)
			if (d.acts[i].kind == ACT_KERNEL && d.acts[i].cls == RK_COMPUTE)
				ivset_add(&comp, d.acts[i].start, d.acts[i].end);
		ivset_normalize(&comp);
		for (size_t i = 0; i < d.nsteps; i++) {
			const struct rk_range *st = &d.steps[i];
			int64_t dur = st->end - st->start;
			int64_t busy = ivset_measure_within(&all, st->start, st->end);
			int64_t cm = ivset_measure_within(&comm, st->start, st->end);
			size_t row = table_add_row(t);
			table_set_text(t, row, 0, keys[k].run);
			table_set_int(t, row, 1, st->key);
			table_set_int(t, row, 2, keys[k].rank);
			table_set_ns(t, row, 3, dur);
			table_set_ns(t, row, 4, dur - busy);
			table_set_ns(t, row, 5, cm);
			if (r) {
				r->durs = xgrow(r->durs, &r->cap, r->ndurs + 1, sizeof(*r->durs));
				r->durs[r->ndurs++] = dur;
				r->steps_total += dur;
				r->comm += cm;
				r->comp += ivset_measure_within(&comp, st->start, st->end);
				r->nsteps++;
			}
		}
		ivset_release(&comp);
		rank_data_release(&d);
		(void)first_row;
	}
	/* Sort rows by run order, step, rank, then mark the slowest rank of each step. */
	for (size_t a = 0; a < t->nrows;) {
		size_t b = a;
		int64_t maxd = -1, mind = INT64_MAX;
		size_t slow = a;
		/* rows of one run come together; group by step within it */
		while (b < t->nrows && !strcmp(table_cell(t, b, 0)->v.text, table_cell(t, a, 0)->v.text))
			b++;
		for (size_t x = a; x < b; x++) {
			if (table_cell(t, x, 3)->null || table_cell(t, x, 6)->null == 0)
				continue;
			int64_t step = table_cell(t, x, 1)->v.i;
			maxd = -1;
			mind = INT64_MAX;
			slow = x;
			int nranks = 0;
			for (size_t y = a; y < b; y++) {
				if (table_cell(t, y, 1)->v.i != step)
					continue;
				int64_t dd = table_cell(t, y, 3)->v.i;
				nranks++;
				if (dd > maxd)
					maxd = dd, slow = y;
				if (dd < mind)
					mind = dd;
			}
			for (size_t y = a; y < b; y++)
				if (table_cell(t, y, 1)->v.i == step)
					table_set_int(t, y, 6, y == slow);
			if (nranks > 1 && (double)maxd > 1.1 * (double)mind)
				result_add_note(out, "ranks.csv: warning: in run %s, step %lld, rank %lld's step is %.1f%% "
						"longer than the fastest rank's", table_cell(t, slow, 0)->v.text,
						(long long)step, (long long)table_cell(t, slow, 2)->v.i,
						100.0 * ((double)maxd / (double)mind - 1));
		}
		a = b;
	}
	result_add_table(out, t);
	t = NULL;
	result_add_method(out, "ranks.csv",
			  "Per run, ProfilerStep#N and rank: step_us, the host step duration; idle_us, the step range "
			  "minus the union of the rank's GPU activities; comm_us, the union of its communication "
			  "kernels inside the step (time spent in or waiting inside collectives); slowest, 1 on the "
			  "rank with the longest step. The report warns where the slowest rank's step is more than "
			  "10% longer than the fastest rank's.");
	scaling(out, rs, nr);
	ret = 0;
out:
	for (size_t i = 0; i < nr; i++) {
		free(rs[i].run);
		free(rs[i].model);
		free(rs[i].strategy);
		free(rs[i].durs);
	}
	free(rs);
	ivset_release(&all);
	ivset_release(&comm);
	table_free(t);
	classifier_free(cls);
	rank_keys_free(keys, nkeys);
	return ret;
}
