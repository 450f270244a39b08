/*
 * comparisons.c: the manifest's 'comparisons': one metric across runs of
 * this and other experiments ("experiment/run"), a baseline and labels per
 * system. Runs of other experiments are checked by the build, which has
 * every manifest.
 */
#include "manifest/manifest_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/*
 * A run reference of 'comparisons': "run" or "experiment/run". Returns 0
 * and fills *ref, or -1 after reporting.
 */
static int get_ref(struct ctx *c, const struct ynode *v, struct manifest_ref *ref)
{
	if (v->bad)
		return -1;
	if (v->kind != Y_SCALAR || v->null || !v->value[0]) {
		mf_err_got(c, v, "a run id or 'experiment/run' in 'comparisons'");
		return -1;
	}
	const char *slash = strchr(v->value, '/');
	char *exp = slash ? xstrndup(v->value, (size_t)(slash - v->value)) : NULL;
	const char *run = slash ? slash + 1 : v->value;
	mf_lowercase(exp);
	if ((exp && !mf_valid_id(exp, "_-")) || !mf_valid_id(run, "._-")) {
		mf_err_at(c, v, "invalid run reference '%s': expected a run id or 'experiment/run'", v->value);
		free(exp);
		return -1;
	}
	ref->exp = exp;
	ref->run = xstrdup(run);
	ref->line = v->line;
	ref->col = v->col;
	return 0;
}

static void get_comparison(struct ctx *c, const struct ynode *map, struct manifest_comparison *cp)
{
	static const char *const keys[] = {"id", "title", "metric", "runs", "baseline", "stack_by", "systems"};
	const struct ynode *seen[7] = {0}, *base = NULL;
	cp->line = map->line;
	cp->col = map->col;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (mf_field_index(c, map, i, keys, 7, seen)) {
		case 0:
			if (mf_get_string(c, k, v, &cp->id) > 0 && !mf_valid_id(cp->id, "_-")) {
				mf_err_at(c, v, "invalid comparison id '%s': use letters, digits, '_' and '-'", cp->id);
				free(cp->id);
				cp->id = NULL;
			}
			mf_lowercase(cp->id);
			break;
		case 1:
			mf_get_string(c, k, v, &cp->title);
			break;
		case 2: {
			char *metric = NULL;
			if (mf_get_string(c, k, v, &metric) <= 0)
				break;
			const char *dot = strchr(metric, '.');
			char *table = dot ? xstrndup(metric, (size_t)(dot - metric)) : NULL;
			if (!dot || !mf_valid_id(table, "_") || !mf_valid_id(dot + 1, "_")) {
				mf_err_at(c, v, "expected 'table.column' for 'metric', e.g. 'throughput.samples_per_s', got '%s'",
					metric);
				free(table);
			} else {
				cp->table = table;
				cp->column = xstrdup(dot + 1);
			}
			free(metric);
			break;
		}
		case 3:
			if (!mf_present(v))
				break;
			if (v->kind != Y_SEQUENCE || !v->n) {
				mf_err_type(c, k, v, "a non-empty list of runs");
				break;
			}
			cp->runs = xcalloc(v->n, sizeof(*cp->runs));
			for (size_t j = 0; j < v->n; j++) {
				if (get_ref(c, v->items[j], &cp->runs[cp->nruns]) < 0)
					continue;
				for (size_t q = 0; q < cp->nruns; q++)
					if (!strcmp(cp->runs[q].run, cp->runs[cp->nruns].run) &&
					    !strcmp(cp->runs[q].exp ? cp->runs[q].exp : "", cp->runs[cp->nruns].exp ? cp->runs[cp->nruns].exp : ""))
						mf_err_at(c, v->items[j], "run '%s' is twice in the comparison's 'runs'", v->items[j]->value);
				cp->nruns++;
			}
			break;
		case 4:
			if (mf_present(v) && v->kind != Y_SCALAR)
				mf_err_type(c, k, v, "a run of the comparison's 'runs'");
			else if (mf_present(v))
				base = v;
			break;
		case 5:
			if (mf_get_string(c, k, v, &cp->stack_by) > 0 && !mf_valid_id(cp->stack_by, "_")) {
				mf_err_at(c, v, "expected a column name for 'stack_by', got '%s'", cp->stack_by);
				free(cp->stack_by);
				cp->stack_by = NULL;
			}
			break;
		case 6:
			if (mf_want_mapping(c, k, v) <= 0)
				break;
			cp->system_exp = xcalloc(v->n / 2 + 1, sizeof(char *));
			cp->system_label = xcalloc(v->n / 2 + 1, sizeof(char *));
			for (size_t j = 0; j < v->n; j += 2) {
				const struct ynode *sk = v->items[j], *sv = v->items[j + 1];
				if (sk->kind != Y_SCALAR || !mf_valid_id(sk->value, "_-")) {
					mf_err_got(c, sk, "an experiment id in 'systems'");
					continue;
				}
				char *label = NULL;
				if (mf_get_string(c, sk, sv, &label) <= 0)
					continue;
				cp->system_exp[cp->nsystems] = xstrdup(sk->value);
				mf_lowercase(cp->system_exp[cp->nsystems]);
				cp->system_label[cp->nsystems++] = label;
			}
			break;
		}
	}
	mf_require(c, map, seen[0], "id");
	mf_require(c, map, seen[2], "metric");
	mf_require(c, map, seen[3], "runs");
	if (base) {
		struct manifest_ref b = {0};
		if (get_ref(c, base, &b) == 0) {
			size_t j = 0;
			while (j < cp->nruns && (strcmp(cp->runs[j].run, b.run) ||
						 strcmp(cp->runs[j].exp ? cp->runs[j].exp : "", b.exp ? b.exp : "")))
				j++;
			if (j == cp->nruns)
				mf_err_at(c, base, "'baseline' '%s' is not one of the comparison's 'runs'", base->value);
			else
				cp->baseline = j;
		}
		free(b.exp);
		free(b.run);
	}
}

/* 'comparisons': a list of comparisons; runs of this manifest are checked once all runs are read. */
void mf_get_comparisons(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (!mf_present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		mf_err_type(c, key, v, "a list of comparisons");
		return;
	}
	m->comparisons = xcalloc(v->n + 1, sizeof(*m->comparisons));
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			mf_err_type(c, key, it, "a mapping for a comparison");
			continue;
		}
		struct manifest_comparison *cp = &m->comparisons[m->ncomparisons++];
		get_comparison(c, it, cp);
		for (size_t j = 0; cp->id && j + 1 < m->ncomparisons; j++)
			if (m->comparisons[j].id && !strcmp(m->comparisons[j].id, cp->id))
				mf_err_at(c, it, "duplicate comparison id '%s' (first at %d:%d)", cp->id, m->comparisons[j].line,
				       m->comparisons[j].col);
	}
}

/* Reports references to runs of this manifest that it does not have. */
void mf_check_comparison_runs(struct ctx *c)
{
	struct manifest *m = c->m;
	for (size_t i = 0; i < m->ncomparisons; i++)
		for (size_t j = 0; j < m->comparisons[i].nruns; j++) {
			const struct manifest_ref *r = &m->comparisons[i].runs[j];
			if (r->exp)
				continue; /* another experiment's: checked by the build, which has every manifest */
			if (mf_run_index(m, r->run) == m->nruns)
				mf_report_at(c, r->line, r->col, "unknown run '%s' in 'comparisons'", r->run);
		}
}
