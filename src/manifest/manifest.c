/*
 * manifest.c: reads and checks a study manifest (see manifest.h and
 * docs/manifest.md): manifest_load() and manifest_free(), the top-level keys
 * and the checks that need the whole manifest read (run ids named by
 * 'compare', 'series', 'scaling_baseline' and 'parallel_comm').
 *
 * Two passes: yaml.c builds a tree of nodes with their line and column,
 * then check_root() walks it key by key; manifest_int.h says which file
 * reads which key.
 *
 * Aliases (*name) are rejected: a manifest is short enough to repeat a value,
 * and a per-run 'model' already overrides the shared one key by key. Anchors
 * alone are harmless and ignored. Tags are ignored too.
 */
#include "manifest/manifest_int.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

/* Sets m->id from 'id' (at node v) or else from the file name, lowercased. */
static void set_id(struct ctx *c, const struct ynode *v)
{
	struct manifest *m = c->m;
	int from_file = !m->id;
	if (from_file) {
		const char *base = strrchr(m->path, '/');
		base = base ? base + 1 : m->path;
		size_t n = strlen(base);
		if (n > 5 && !strcasecmp(base + n - 5, ".yaml"))
			n -= 5;
		else if (n > 4 && !strcasecmp(base + n - 4, ".yml"))
			n -= 4;
		m->id = xstrndup(base, n);
	}
	mf_lowercase(m->id);
	if (mf_valid_id(m->id, "_-"))
		return;
	if (from_file)
		mf_err_at(c, NULL,
			"cannot use the file name '%s' as the experiment id: set 'id' to lowercase letters, digits, '_' and '-'",
			m->id);
	else
		mf_err_at(c, v, "invalid experiment id '%s': use letters, digits, '_' and '-'", v->value);
}

/*
 * The second pass: every top-level key in the file's order, then the
 * checks that need every run read, then the runs' models and labels.
 */
static void check_root(struct ctx *c, const struct ynode *root)
{
	static const char *const keys[] = {
		"version", "id", "title", "description", "hardware", "model", "runs",
		"classify", "figures", "phases", "compare", "software", "series", "thresholds", "comparisons",
		"memory_batches", "parallel_comm", "invented", "whatif",
	};
	enum { NKEYS = sizeof(keys) / sizeof(keys[0]) };
	const struct ynode *seen[NKEYS] = {0};
	const struct ynode *id_node = NULL;
	const struct ynode **compare_nodes = NULL, **series_nodes = NULL, **whatif_nodes = NULL;
	size_t nseries_nodes = 0;
	struct manifest *m = c->m;

	if (root->bad)
		return;
	if (root->kind != Y_MAPPING) {
		mf_err_got(c, root, "a mapping at the top of the manifest");
		return;
	}
	for (size_t i = 0; i < root->n; i += 2) {
		const struct ynode *k = root->items[i], *v = root->items[i + 1];
		int64_t x;
		switch (mf_field_index(c, root, i, keys, NKEYS, seen)) {
		case 0:
			if (mf_get_int(c, k, v, INT64_MIN, INT64_MAX, &x) > 0 && x != 1)
				mf_err_at(c, v, "unsupported manifest version %lld (expected 1)", (long long)x);
			break;
		case 1:
			if (mf_get_string(c, k, v, &m->id) > 0)
				id_node = v;
			break;
		case 2:
			if (mf_get_string(c, k, v, &m->title) > 0 && !m->title[0])
				mf_err_at(c, v, "'title' must not be empty");
			break;
		case 3:
			mf_get_string(c, k, v, &m->description);
			break;
		case 4:
			mf_get_hardware(c, k, v);
			break;
		case 5:
			mf_get_model(c, &m->model, k, v);
			break;
		case 6:
			mf_get_runs(c, k, v);
			break;
		case 7:
			mf_get_classify(c, k, v);
			break;
		case 8:
			mf_get_figures(c, k, v);
			break;
		case 9:
			mf_get_phases(c, k, v);
			break;
		case 10:
			mf_get_compare(c, k, v, &compare_nodes);
			break;
		case 11:
			mf_get_software(c, k, v);
			break;
		case 12:
			mf_get_series(c, k, v, &series_nodes, &nseries_nodes);
			break;
		case 13:
			mf_get_thresholds(c, k, v);
			break;
		case 14:
			mf_get_comparisons(c, k, v);
			break;
		case 15:
			mf_get_memory_batches(c, k, v);
			break;
		case 16:
			mf_get_parallel_comm(c, k, v);
			break;
		case 17:
			if (mf_get_string(c, k, v, &m->invented) > 0 && !m->invented[0])
				mf_err_at(c, v, "'invented' must not be empty");
			break;
		case 18:
			mf_get_whatif(c, k, v, &whatif_nodes);
			break;
		}
	}
	mf_require(c, root, seen[2], "title");
	mf_require(c, root, seen[6], "runs");
	for (size_t i = 0; i < 2 * m->ncompare; i++)
		if (mf_run_index(m, compare_nodes[i]->value) == m->nruns)
			mf_err_at(c, compare_nodes[i], "unknown run '%s' in 'compare'", compare_nodes[i]->value);
	free(compare_nodes);
	mf_check_comparison_runs(c);
	for (size_t i = 0; c->baselines && i < m->nruns; i++) {
		const struct manifest_run *r = &m->runs[i];
		if (!c->baselines[i] || !r->id)
			continue;
		size_t j = mf_run_index(m, r->scaling_baseline);
		if (j == m->nruns)
			mf_err_at(c, c->baselines[i], "unknown run '%s' in 'scaling_baseline'", r->scaling_baseline);
		else if (j == i)
			mf_err_at(c, c->baselines[i], "run '%s' is its own 'scaling_baseline'", r->id);
	}
	for (size_t i = 0; i < nseries_nodes; i++)
		if (mf_run_index(m, series_nodes[i]->value) == m->nruns)
			mf_err_at(c, series_nodes[i], "unknown run '%s' in 'series'", series_nodes[i]->value);
	free(series_nodes);
	for (size_t i = 0; i < m->nwhatif; i++)
		if (whatif_nodes[i] && mf_run_index(m, whatif_nodes[i]->value) == m->nruns)
			mf_err_at(c, whatif_nodes[i], "unknown run '%s' in 'whatif'", whatif_nodes[i]->value);
	free(whatif_nodes);
	/* The manifest's model may come after 'runs', so runs inherit it only now. */
	for (size_t i = 0; i < m->nruns; i++) {
		struct manifest_run *r = &m->runs[i];
		mf_merge_model(&r->model, &m->model, &c->own[i]);
		if (!r->label && r->id)
			r->label = xstrdup(r->id);
	}
	if (seen[16])
		mf_check_parallel_comm(c, mf_pc_run_node(root, seen[16]));
	set_id(c, id_node);
}

/*
 * The largest manifest read: 100,000 runs of a few lines each take about
 * 10 MB, so 64 MiB is far beyond any real study yet bounds the memory a
 * hostile or mistaken file (a huge log named .yaml) can take.
 */
#define MANIFEST_MAX_BYTES (64u << 20)

/*
 * Reads the whole file at path; returns NULL after reporting why not. Only a
 * regular file is read (fs_open_regular): /dev/zero or /dev/urandom named
 * as a manifest would be read without end, a FIFO would block.
 */
static char *read_file(struct ctx *c, size_t *len)
{
	long long size;
	int fd = fs_open_regular(c->path, "a manifest", &size);
	if (fd < 0) {
		c->errors++;
		return NULL;
	}
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			diag_syserror(c->path, "cannot read: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		/* The size from fstat is not trusted: the file may grow as it is read. */
		if (b.len + (size_t)n > MANIFEST_MAX_BYTES) {
			diag_error(c->path, "manifest larger than %u MiB, expected a study manifest",
				   MANIFEST_MAX_BYTES >> 20);
			goto fail;
		}
		buf_add(&b, chunk, (size_t)n);
	}
	close(fd);
	*len = b.len;
	return mf_take(&b);
fail:
	c->errors++;
	buf_release(&b);
	close(fd);
	return NULL;
}

int manifest_load(const char *path, struct manifest **out)
{
	struct ctx c = {.path = path};
	struct manifest *m = xcalloc(1, sizeof(*m));
	struct ynode *root = NULL;
	size_t len = 0;

	*out = NULL;
	c.m = m;
	m->path = xstrdup(path);
	char *tmp = xstrdup(path);
	m->dir = xstrdup(dirname(tmp));
	free(tmp);
	size_t dl = strlen(m->dir);
	if (!strcmp(m->dir, "."))
		c.prefix_len = 0;
	else if (dl && m->dir[dl - 1] == '/')
		c.prefix_len = dl;
	else
		c.prefix_len = dl + 1;
	m->figures.top_n = 10;
	m->figures.log_scale = -1;

	m->text = read_file(&c, &len);
	if (!m->text)
		goto out;
	root = mf_load_tree(&c, m->text, len);
	if (!root)
		goto out;
	check_root(&c, root);
	if (!m->classify_preset && !m->nrules && !c.errors)
		m->classify_preset = xstrdup("default");
out:
	mf_ynode_free(root);
	free(c.own);
	free(c.baselines);
	if (c.errors) {
		manifest_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

static void facts_free(struct manifest_fact *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].key);
		free(f[i].value);
	}
	free(f);
}

static void model_release(struct manifest_model *mm)
{
	free(mm->name);
	free(mm->arch);
	free(mm->precision);
	free(mm->framework);
	free(mm->objective);
	free(mm->flops_method);
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	mf_run_ids_free(m);
	for (size_t i = 0; i < m->nruns; i++) {
		struct manifest_run *r = &m->runs[i];
		free(r->id);
		free(r->label);
		free(r->strategy);
		free(r->scaling_baseline);
		free(r->measured.relative_to);
		model_release(&r->model);
		for (size_t j = 0; j < r->ntraces; j++)
			free(r->traces[j]);
		free(r->traces);
		for (size_t j = 0; j < r->ninputs; j++)
			free(r->inputs[j]);
		free(r->inputs);
	}
	free(m->runs);
	for (size_t i = 0; i < m->nrules; i++) {
		free(m->rules[i].group);
		free(m->rules[i].pattern);
	}
	free(m->rules);
	for (size_t i = 0; i < m->nphases; i++) {
		for (size_t j = 0; j < m->phases[i].nnames; j++)
			free(m->phases[i].names[j]);
		free(m->phases[i].names);
		free(m->phases[i].name);
	}
	free(m->phases);
	for (size_t i = 0; i < m->ncompare; i++) {
		free(m->compare[i].a);
		free(m->compare[i].b);
	}
	free(m->compare);
	for (size_t i = 0; i < m->nseries; i++) {
		for (size_t j = 0; j < m->series[i].nruns; j++)
			free(m->series[i].runs[j]);
		free(m->series[i].runs);
		free(m->series[i].name);
	}
	free(m->series);
	for (size_t i = 0; i < m->nwhatif; i++) {
		for (size_t j = 0; j < m->whatif[i].nchanges; j++)
			free(m->whatif[i].changes[j]);
		free(m->whatif[i].changes);
		free(m->whatif[i].change);
		free(m->whatif[i].run);
	}
	free(m->whatif);
	for (size_t i = 0; i < m->ncomparisons; i++) {
		struct manifest_comparison *cp = &m->comparisons[i];
		for (size_t j = 0; j < cp->nruns; j++) {
			free(cp->runs[j].exp);
			free(cp->runs[j].run);
		}
		free(cp->runs);
		for (size_t j = 0; j < cp->nsystems; j++) {
			free(cp->system_exp[j]);
			free(cp->system_label[j]);
		}
		free(cp->system_exp);
		free(cp->system_label);
		free(cp->id);
		free(cp->title);
		free(cp->table);
		free(cp->column);
		free(cp->stack_by);
	}
	free(m->comparisons);
	free(m->memory_batches);
	for (size_t i = 0; i < m->parallel_comm.nbandwidths; i++)
		free(m->parallel_comm.bandwidth_labels[i]);
	free(m->parallel_comm.bandwidth_labels);
	free(m->parallel_comm.bandwidth_gbs);
	free(m->parallel_comm.run);
	free(m->classify_preset);
	free(m->figures.size);
	free(m->figures.font);
	model_release(&m->model);
	facts_free(m->hardware.facts, m->hardware.nfacts);
	facts_free(m->software, m->nsoftware);
	free(m->hardware.nvidia_smi);
	free(m->hardware.topology);
	free(m->hardware.interconnect);
	free(m->title);
	free(m->description);
	free(m->invented);
	free(m->id);
	free(m->text);
	free(m->dir);
	free(m->path);
	free(m);
}
