/*
 * sections.c: the manifest's smaller top-level keys: 'figures',
 * 'classify' (a preset or rules, regexes compiled to check them),
 * 'phases', 'compare', 'thresholds', 'memory_batches', 'parallel_comm' and
 * 'series'. Run ids they name are checked by manifest.c once every run
 * is read.
 */
#include "manifest/manifest_int.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const char *const figure_sizes[] = {"single", "double", "slide"};
#define NFIGURE_SIZES (sizeof(figure_sizes) / sizeof(figure_sizes[0]))

void mf_get_figures(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {"top_n", "width_in", "height_in", "size", "font",
		"font_size", "hatching", "log_scale"};
	static const char *const log_words[] = {"auto", "true", "false"};
	const struct ynode *seen[8] = {0};
	struct manifest *m = c->m;
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int64_t x;
		char *w = NULL;
		switch (mf_field_index(c, map, i, keys, 8, seen)) {
		case 0:
			if (mf_get_int(c, k, v, 1, 50, &x) > 0)
				m->figures.top_n = (int)x;
			break;
		case 1:
			mf_get_posnum(c, k, v, &m->figures.width_in);
			break;
		case 2:
			mf_get_posnum(c, k, v, &m->figures.height_in);
			break;
		case 3:
			mf_get_word(c, k, v, figure_sizes, NFIGURE_SIZES, &m->figures.size);
			break;
		case 4:
			if (mf_get_string(c, k, v, &m->figures.font) > 0 && !m->figures.font[0]) {
				mf_err_at(c, v, "'font' must not be empty");
			}
			break;
		case 5: {
			/* Print text below 7 pt is unreadable; above 24 pt nothing fits. */
			double pt = 0;
			if (mf_get_posnum(c, k, v, &pt) > 0) {
				if (pt < 7 || pt > 24)
					mf_err_at(c, v, "'font_size' must be between 7 and 24 (points), got %s", v->value);
				else
					m->figures.font_size = pt;
			}
			break;
		}
		case 6:
			mf_get_bool(c, k, v, &m->figures.hatching);
			break;
		case 7:
			mf_get_word(c, k, v, log_words, 3, &w);
			if (w)
				m->figures.log_scale = !strcmp(w, "auto") ? -1 : !strcmp(w, "true");
			free(w);
			break;
		}
	}
}

static const char *const presets[] = {"default", "payoungkhamdee2021"};
#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

static void get_preset(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	char *p = NULL;
	if (mf_get_string(c, key, v, &p) <= 0)
		return;
	for (size_t i = 0; i < NPRESETS; i++) {
		if (!strcmp(p, presets[i])) {
			free(c->m->classify_preset);
			c->m->classify_preset = p;
			return;
		}
	}
	const char *s = mf_suggest(p, presets, NPRESETS);
	if (s)
		mf_err_at(c, v, "unknown classify preset '%s' (did you mean '%s'?)", p, s);
	else
		mf_err_at(c, v, "unknown classify preset '%s' (expected 'default' or 'payoungkhamdee2021')",
			p);
	free(p);
}

static void get_rule(struct ctx *c, const struct ynode *map)
{
	static const char *const keys[] = {"group", "contains", "regex", "ignore_case"};
	const struct ynode *seen[4] = {0};
	struct manifest_rule rule = {0};
	const struct ynode *regex_node = NULL;
	size_t errors = c->errors;

	if (map->bad)
		return;
	if (map->kind != Y_MAPPING) {
		mf_err_got(c, map, "a mapping for a classify rule");
		return;
	}
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (mf_field_index(c, map, i, keys, 4, seen)) {
		case 0:
			mf_get_string(c, k, v, &rule.group);
			break;
		case 1:
		case 2:
			if (seen[1] && seen[2]) {
				mf_err_at(c, k, "a rule has either 'contains' or 'regex', not both");
				break;
			}
			if (mf_get_string(c, k, v, &rule.pattern) > 0) {
				rule.is_regex = !strcmp(k->value, "regex");
				if (rule.is_regex)
					regex_node = v;
			}
			break;
		case 3:
			mf_get_bool(c, k, v, &rule.ignore_case);
			break;
		}
	}
	mf_require(c, map, seen[0], "group");
	if (rule.group && !rule.group[0])
		mf_err_at(c, seen[0], "'group' must not be empty");
	if (!seen[1] && !seen[2])
		mf_err_at(c, map, "missing required key 'contains' or 'regex'");
	else if (!(seen[1] && seen[2]))
		mf_require(c, map, seen[1] ? seen[1] : seen[2], seen[1] ? "contains" : "regex");
	if (regex_node) {
		regex_t re;
		int rc = regcomp(&re, rule.pattern,
			REG_EXTENDED | REG_NOSUB | (rule.ignore_case ? REG_ICASE : 0));
		if (rc) {
			char msg[256];
			regerror(rc, &re, msg, sizeof(msg));
			mf_err_at(c, regex_node, "invalid regex '%s': %s", rule.pattern, msg);
		} else {
			regfree(&re);
		}
	}
	if (c->errors != errors) {
		free(rule.group);
		free(rule.pattern);
		return;
	}
	struct manifest *m = c->m;
	m->rules = xrealloc(m->rules, (m->nrules + 1) * sizeof(*m->rules));
	m->rules[m->nrules++] = rule;
}

void mf_get_classify(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	static const char *const keys[] = {"preset", "rules"};
	const struct ynode *seen[2] = {0};
	if (!mf_present(v))
		return;
	if (v->kind == Y_SCALAR) {
		get_preset(c, key, v);
		return;
	}
	if (v->kind != Y_MAPPING) {
		mf_err_type(c, key, v, "a preset name or a mapping");
		return;
	}
	for (size_t i = 0; i < v->n; i += 2) {
		const struct ynode *k = v->items[i], *val = v->items[i + 1];
		switch (mf_field_index(c, v, i, keys, 2, seen)) {
		case 0:
			get_preset(c, k, val);
			break;
		case 1:
			if (!mf_present(val))
				break;
			if (val->kind != Y_SEQUENCE) {
				mf_err_type(c, k, val, "a list of rules");
				break;
			}
			if (!val->n)
				mf_err_at(c, val, "'rules' must not be empty");
			for (size_t j = 0; j < val->n; j++)
				get_rule(c, val->items[j]);
			break;
		}
	}
	if (seen[0] && seen[1])
		mf_err_at(c, seen[1], "'classify' takes either 'preset' or 'rules', not both");
	else if (!seen[0] && !seen[1])
		mf_err_at(c, v, "missing required key 'preset' or 'rules'");
	else
		mf_require(c, v, seen[0] ? seen[0] : seen[1], seen[0] ? "preset" : "rules");
}

/*
 * 'phases': a mapping of phase name to a list of annotation names (or one
 * name). Names are kept as written; '*' is interpreted by the analysis.
 */
void mf_get_phases(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (mf_want_mapping(c, key, v) <= 0)
		return;
	m->phases = xcalloc(v->n / 2 + 1, sizeof(*m->phases));
	for (size_t i = 0; i < v->n; i += 2) {
		const struct ynode *k = v->items[i], *val = v->items[i + 1];
		if (k->bad)
			continue;
		if (k->kind != Y_SCALAR || !mf_valid_id(k->value, "_.-")) {
			mf_err_got(c, k, "a phase name of letters, digits, '_', '.' and '-'");
			continue;
		}
		const struct ynode *first = mf_earlier_key(v, i);
		if (first)
			mf_err_at(c, k, "duplicate phase '%s' (first at %d:%d)", k->value, first->line, first->col);
		if (first || !mf_present(val))
			continue;
		if (val->kind == Y_MAPPING) {
			mf_err_type(c, k, val, "an annotation name or a list of them");
			continue;
		}
		struct manifest_phase ph = {.name = xstrdup(k->value)};
		size_t n = val->kind == Y_SEQUENCE ? val->n : 1;
		ph.names = xcalloc(n + 1, sizeof(*ph.names));
		for (size_t j = 0; j < n; j++) {
			const struct ynode *it = val->kind == Y_SEQUENCE ? val->items[j] : val;
			if (it->bad)
				continue;
			if (it->kind != Y_SCALAR || it->null || !it->value[0]) {
				mf_err_type(c, k, it, "an annotation name or a list of them");
				continue;
			}
			ph.names[ph.nnames++] = xstrdup(it->value);
		}
		m->phases[m->nphases++] = ph;
	}
}

/* 'compare': a list of [run, run] pairs; the ids are checked once all runs are read. */
void mf_get_compare(struct ctx *c, const struct ynode *key, const struct ynode *v,
	const struct ynode ***nodes)
{
	struct manifest *m = c->m;
	if (!mf_present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		mf_err_type(c, key, v, "a list of [run, run] pairs");
		return;
	}
	m->compare = xcalloc(v->n + 1, sizeof(*m->compare));
	*nodes = xcalloc(2 * v->n + 1, sizeof(**nodes));
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_SEQUENCE || it->n != 2 || it->items[0]->kind != Y_SCALAR ||
			it->items[1]->kind != Y_SCALAR || it->items[0]->null || it->items[1]->null) {
			mf_err_got(c, it, "a pair of run ids like [a, b] in 'compare'");
			continue;
		}
		if (!strcmp(it->items[0]->value, it->items[1]->value)) {
			mf_err_at(c, it, "'compare' pairs two different runs, got '%s' twice", it->items[0]->value);
			continue;
		}
		(*nodes)[2 * m->ncompare] = it->items[0];
		(*nodes)[2 * m->ncompare + 1] = it->items[1];
		m->compare[m->ncompare].a = xstrdup(it->items[0]->value);
		m->compare[m->ncompare].b = xstrdup(it->items[1]->value);
		m->ncompare++;
	}
}

/* 'thresholds': step_time_pct (> 0) and mfu_pp (< 0). */
void mf_get_thresholds(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {"step_time_pct", "mfu_pp"};
	const struct ynode *seen[2] = {0};
	struct manifest *m = c->m;
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		double x = 0;
		switch (mf_field_index(c, map, i, keys, 2, seen)) {
		case 0:
			if (mf_get_real(c, k, v, &x) > 0) {
				if (x > 0)
					m->thresholds.step_time_pct = x;
				else
					mf_err_at(c, v, "'step_time_pct' must be greater than 0 (a rise in percent), got %s",
					       v->value);
			}
			break;
		case 1:
			if (mf_get_real(c, k, v, &x) > 0) {
				if (x < 0)
					m->thresholds.mfu_pp = x;
				else
					mf_err_at(c, v, "'mfu_pp' must be less than 0 (a fall in percentage points), got %s",
					       v->value);
			}
			break;
		}
	}
}

/* 'memory_batches': a non-empty list of per-GPU batch sizes (integers > 0), ascending, each once. */
void mf_get_memory_batches(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (!mf_present(v))
		return;
	if (v->kind != Y_SEQUENCE || !v->n) {
		mf_err_type(c, key, v, "a non-empty list of batch sizes, e.g. [1, 2, 4, 8]");
		return;
	}
	m->memory_batches = xcalloc(v->n + 1, sizeof(*m->memory_batches));
	for (size_t i = 0; i < v->n; i++) {
		int b = 0;
		if (mf_get_posint(c, key, v->items[i], &b) <= 0)
			continue;
		if (m->nmemory_batches && b <= m->memory_batches[m->nmemory_batches - 1]) {
			mf_err_at(c, v->items[i], "'memory_batches' must be ascending, each batch once: %d after %d", b,
			       m->memory_batches[m->nmemory_batches - 1]);
			continue;
		}
		m->memory_batches[m->nmemory_batches++] = b;
	}
}

/* 'bandwidths' of 'parallel_comm': label -> inter-node GB/s (> 0), in the file's order. */
static void get_bandwidths(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	struct manifest *m = c->m;
	if (!mf_present(map))
		return;
	if (map->kind != Y_MAPPING || !map->n) {
		mf_err_type(c, key, map, "a mapping of labels to inter-node GB/s, e.g. { P0: 5, P1: 12.5 }");
		return;
	}
	m->parallel_comm.bandwidth_labels = xcalloc(map->n / 2 + 1, sizeof(char *));
	m->parallel_comm.bandwidth_gbs = xcalloc(map->n / 2 + 1, sizeof(double));
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		double x = 0;
		if (k->kind != Y_SCALAR || k->null || !k->value[0]) {
			mf_err_got(c, k, "a bandwidth label in 'bandwidths'");
			continue;
		}
		for (size_t j = 0; j < m->parallel_comm.nbandwidths; j++)
			if (!strcmp(m->parallel_comm.bandwidth_labels[j], k->value))
				mf_err_at(c, k, "duplicate bandwidth '%s' in 'bandwidths'", k->value);
		if (mf_get_posnum(c, k, v, &x) <= 0)
			continue;
		size_t n = m->parallel_comm.nbandwidths++;
		m->parallel_comm.bandwidth_labels[n] = xstrdup(k->value);
		m->parallel_comm.bandwidth_gbs[n] = x;
	}
}

/* 'parallel_comm': run, gpus, gpus_per_node, intra_node_gbs, zero, bandwidths, global_batch; the run is checked later. */
void mf_get_parallel_comm(struct ctx *c, const struct ynode *key, const struct ynode *map)
{
	static const char *const keys[] = {
		"run", "gpus", "gpus_per_node", "intra_node_gbs", "zero", "bandwidths", "global_batch",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	const struct ynode *seen[NKEYS] = {0};
	struct manifest *m = c->m;
	int64_t x;
	m->parallel_comm.zero = -1;
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	m->parallel_comm.line = map->line;
	m->parallel_comm.col = map->col;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (mf_field_index(c, map, i, keys, NKEYS, seen)) {
		case 0:
			mf_get_string(c, k, v, &m->parallel_comm.run);
			break;
		case 1:
			mf_get_posint(c, k, v, &m->parallel_comm.gpus);
			break;
		case 2:
			mf_get_posint(c, k, v, &m->parallel_comm.gpus_per_node);
			break;
		case 3:
			mf_get_posnum(c, k, v, &m->parallel_comm.intra_node_gbs);
			break;
		case 4:
			if (mf_get_int(c, k, v, 0, 3, &x) > 0)
				m->parallel_comm.zero = (int)x;
			break;
		case 5:
			get_bandwidths(c, k, v);
			break;
		case 6:
			mf_get_posint(c, k, v, &m->parallel_comm.global_batch);
			break;
		}
	}
	mf_require(c, map, seen[0], "run");
	mf_require(c, map, seen[1], "gpus");
	mf_require(c, map, seen[5], "bandwidths");
}

/* The 'run' value node of the 'parallel_comm' mapping whose key node is key, or NULL. */
const struct ynode *mf_pc_run_node(const struct ynode *root, const struct ynode *key)
{
	for (size_t i = 0; i < root->n; i += 2) {
		const struct ynode *map = root->items[i + 1];
		if (root->items[i] != key || map->kind != Y_MAPPING)
			continue;
		for (size_t j = 0; j < map->n; j += 2)
			if (map->items[j]->kind == Y_SCALAR && !strcmp(map->items[j]->value, "run"))
				return map->items[j + 1];
	}
	return NULL;
}

/* 'parallel_comm' against the rest of the manifest, once the runs and hardware are read. */
void mf_check_parallel_comm(struct ctx *c, const struct ynode *run_node)
{
	struct manifest *m = c->m;
	const char *run = m->parallel_comm.run;
	if (!run || !run_node)
		return;
	size_t i = mf_run_index(m, run);
	if (i == m->nruns) {
		mf_err_at(c, run_node, "unknown run '%s' in 'parallel_comm'", run);
		return;
	}
	const struct manifest_model *mm = &m->runs[i].model;
	if (!mm->layers || !mm->hidden || !mm->seq || !m->runs[i].batch)
		mf_err_at(c, run_node, "run '%s' of 'parallel_comm' needs the model's layers, hidden and seq and "
		       "the run's batch", run);
	int per_node = m->parallel_comm.gpus_per_node ? m->parallel_comm.gpus_per_node
						      : (int)manifest_hardware_number(m, "gpus_per_node");
	if (!per_node)
		mf_report_at(c, m->parallel_comm.line, m->parallel_comm.col,
			  "'parallel_comm' needs 'gpus_per_node' (or hardware.gpus_per_node)");
	m->parallel_comm.gpus_per_node = per_node;
}

/*
 * 'series': a list of {name, runs: [run, ...]}; the run ids are checked
 * once all runs are read (nodes collects them, one per series run).
 */
void mf_get_series(struct ctx *c, const struct ynode *key, const struct ynode *v, const struct ynode ***nodes,
		       size_t *nnodes)
{
	static const char *const keys[] = {"name", "runs"};
	struct manifest *m = c->m;
	if (!mf_present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		mf_err_type(c, key, v, "a list of {name: ..., runs: [run, ...]}");
		return;
	}
	m->series = xcalloc(v->n + 1, sizeof(*m->series));
	size_t cap = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			mf_err_got(c, it, "a series like {name: nightly, runs: [a, b]} in 'series'");
			continue;
		}
		const struct ynode *seen[2] = {0};
		struct manifest_series se = {0};
		const struct ynode *name_node = NULL;
		for (size_t j = 0; j < it->n; j += 2) {
			const struct ynode *k = it->items[j], *val = it->items[j + 1];
			switch (mf_field_index(c, it, j, keys, 2, seen)) {
			case 0:
				if (mf_get_string(c, k, val, &se.name) > 0) {
					name_node = val;
					if (!mf_valid_id(se.name, "_.-"))
						mf_err_at(c, val, "a series name is letters, digits, '_', '.' and '-', got '%s'",
						       se.name);
				}
				break;
			case 1:
				if (!mf_present(val))
					break;
				if (val->kind != Y_SEQUENCE) {
					mf_err_type(c, k, val, "a non-empty list of run ids");
					break;
				}
				if (!val->n) {
					mf_err_at(c, val, "a series needs at least one run in 'runs', got an empty list");
					break;
				}
				se.runs = xcalloc(val->n + 1, sizeof(*se.runs));
				for (size_t r = 0; r < val->n; r++) {
					const struct ynode *id = val->items[r];
					if (id->bad)
						continue;
					if (id->kind != Y_SCALAR || id->null) {
						mf_err_type(c, k, id, "a run id");
						continue;
					}
					int dup = 0;
					for (size_t q = 0; q < se.nruns && !dup; q++)
						dup = !strcmp(se.runs[q], id->value);
					if (dup) {
						mf_err_at(c, id, "run '%s' is in series '%s' twice", id->value,
						       se.name ? se.name : "?");
						continue;
					}
					*nodes = xgrow(*nodes, &cap, *nnodes + 1, sizeof(**nodes));
					(*nodes)[(*nnodes)++] = id;
					se.runs[se.nruns++] = xstrdup(id->value);
				}
				break;
			}
		}
		mf_require(c, it, seen[0], "name");
		mf_require(c, it, seen[1], "runs");
		for (size_t j = 0; name_node && j < m->nseries; j++)
			if (m->series[j].name && !strcmp(m->series[j].name, se.name))
				mf_err_at(c, name_node, "duplicate series '%s'", se.name);
		m->series[m->nseries++] = se;
	}
}
