/*
 * runs.c: the manifest's 'runs' and 'model': each run's keys, its own
 * model merged over the manifest's, and the run id lookup the later checks
 * use.
 */
#include "manifest/manifest_int.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const char *const model_keys[] = {
	"name", "layers", "hidden", "heads", "ffn", "seq", "vocab", "arch", "precision",
	"framework", "objective", "vocab_multiple", "flops_method",
};
#define NMODEL_KEYS (sizeof(model_keys) / sizeof(model_keys[0]))
static const char *const arch_words[] = {"gpt", "bert", "encoder-lm"};
static const char *const precision_words[] = {"fp32", "tf32", "fp16", "bf16", "fp8", "fp64"};
static const char *const framework_words[] = {"megatron", "huggingface"};
static const char *const objective_words[] = {"none", "mlm", "mlm+nsp"};
static const char *const flops_method_words[] = {"perfstudy", "paper001"};

void mf_get_model(struct ctx *c, struct manifest_model *mm, const struct ynode *key,
	const struct ynode *map)
{
	const struct ynode *seen[NMODEL_KEYS] = {0};
	int64_t *ints[] = {
		NULL, &mm->layers, &mm->hidden, &mm->heads, &mm->ffn, &mm->seq, &mm->vocab, NULL, NULL,
		NULL, NULL, &mm->vocab_multiple, NULL,
	};
	if (mf_want_mapping(c, key, map) <= 0)
		return;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		int f = mf_field_index(c, map, i, model_keys, NMODEL_KEYS, seen);
		if (f == 0)
			mf_get_string(c, k, v, &mm->name);
		else if (f == 7)
			mf_get_word(c, k, v, arch_words, 3, &mm->arch);
		else if (f == 8)
			mf_get_word(c, k, v, precision_words, 6, &mm->precision);
		else if (f == 9)
			mf_get_word(c, k, v, framework_words, 2, &mm->framework);
		else if (f == 10)
			mf_get_word(c, k, v, objective_words, 3, &mm->objective);
		else if (f == 12)
			mf_get_word(c, k, v, flops_method_words, 2, &mm->flops_method);
		else if (f > 0)
			mf_get_int(c, k, v, 1, INT64_MAX, ints[f]);
	}
}

static const char *const recompute_words[] = {"none", "selective", "full"};
static const char *const profiled_words[] = {"forward", "forward+backward"};
/* A pipeline's schedule (pipeline_stages.csv), overriding the one inferred from the trace. */
static const char *const schedule_words[] = {"gpipe", "1f1b"};

/*
 * The ranks of one model replica, tensor_parallel x pipeline_parallel,
 * must fit the run: at most its gpus when given, else at most INT_MAX.
 * Each factor alone is within INT_MAX, their product is not: 65536 x 65536
 * wrapped to 0 in layout_replica_ranks(), and the scaling analysis divided
 * by it. Checked here, once, so that every analysis can divide by it.
 */
static void check_replica(struct ctx *c, const struct manifest_run *r, const struct ynode *tp_v,
	const struct ynode *pp_v)
{
	int64_t tp = r->tensor_parallel > 0 ? r->tensor_parallel : 1;
	int64_t pp = r->pipeline_parallel > 0 ? r->pipeline_parallel : 1;
	int64_t mp = tp * pp; /* each at most INT_MAX: no overflow in 64 bits */
	const struct ynode *at = r->pipeline_parallel > 0 ? pp_v : tp_v;
	if (!at || (!r->tensor_parallel && !r->pipeline_parallel))
		return;
	if (r->gpus > 0 && mp > r->gpus)
		mf_err_at(c, at,
			"'tensor_parallel' x 'pipeline_parallel' is %lld GPUs per model replica, more than the run's 'gpus' (%d)",
			(long long)mp, r->gpus);
	else if (mp > INT_MAX)
		mf_err_at(c, at, "'tensor_parallel' x 'pipeline_parallel' is %lld GPUs per model replica, more than %d",
			(long long)mp, INT_MAX);
}

/*
 * 'profiler_steps: N' or 'profiler_steps: [LO, HI]': the ProfilerStep
 * numbers torch.profiler recorded (its steps count from 0, so
 * schedule(wait=2, warmup=2, active=1) records step 4), for a run kept as
 * a training log alone. Each in 0 .. 1e9, LO <= HI.
 */
static void get_profiler_steps(struct ctx *c, const struct ynode *k, const struct ynode *v,
	struct manifest_run *r)
{
	int64_t lo, hi;
	if (v->kind == Y_SEQUENCE) {
		if (v->n != 2) {
			mf_err_at(c, v, "'profiler_steps' must be one step N or two, [LO, HI], got %zu items", v->n);
			return;
		}
		if (mf_get_int(c, k, v->items[0], 0, 1000000000, &lo) <= 0 ||
		    mf_get_int(c, k, v->items[1], 0, 1000000000, &hi) <= 0)
			return;
		if (hi < lo) {
			mf_err_at(c, v->items[1], "'profiler_steps' [LO, HI] needs LO <= HI, got [%lld, %lld]",
				(long long)lo, (long long)hi);
			return;
		}
	} else {
		if (mf_get_int(c, k, v, 0, 1000000000, &lo) <= 0)
			return;
		hi = lo;
	}
	r->has_profiler_steps = 1;
	r->profiler_lo = lo;
	r->profiler_hi = hi;
}

static void get_run(struct ctx *c, const struct ynode *map, struct manifest_run *r,
	struct manifest_model *own, const struct ynode **id_node)
{
	static const char *const keys[] = {
		"id", "label", "gpus", "batch", "strategy", "model", "traces",
		"inputs", "recompute", "zero", "tensor_parallel", "profiled", "grad_bytes",
		"measured", "published", "scaling_baseline", "pipeline_parallel", "schedule", "microbatches",
		"profiler_steps",
	};
	const struct ynode *seen[20] = {0}, *tp_v = NULL, *pp_v = NULL;
	int64_t x;
	r->line = map->line;
	r->col = map->col;
	r->zero = -1;
	for (size_t i = 0; i < map->n; i += 2) {
		const struct ynode *k = map->items[i], *v = map->items[i + 1];
		switch (mf_field_index(c, map, i, keys, 20, seen)) {
		case 0:
			if (mf_get_string(c, k, v, &r->id) <= 0)
				break;
			if (!mf_valid_id(r->id, "._-")) {
				mf_err_at(c, v, "invalid run id '%s': use letters, digits, '.', '_' and '-'",
					r->id);
				free(r->id);
				r->id = NULL;
			} else {
				*id_node = v;
			}
			break;
		case 1:
			mf_get_string(c, k, v, &r->label);
			break;
		case 2:
			mf_get_posint(c, k, v, &r->gpus);
			break;
		case 3:
			mf_get_posint(c, k, v, &r->batch);
			break;
		case 4:
			mf_get_string(c, k, v, &r->strategy);
			break;
		case 5:
			mf_get_model(c, own, k, v);
			break;
		case 6:
			mf_get_traces(c, &r->traces, &r->ntraces, k, v);
			break;
		case 7:
			mf_get_traces(c, &r->inputs, &r->ninputs, k, v);
			break;
		case 8:
			mf_get_choice(c, k, v, recompute_words, 3, 0, &r->recompute);
			break;
		case 9:
			if (mf_get_int(c, k, v, 0, 3, &x) > 0)
				r->zero = (int)x;
			break;
		case 10:
			mf_get_posint(c, k, v, &r->tensor_parallel);
			tp_v = v;
			break;
		case 11:
			mf_get_choice(c, k, v, profiled_words, 2, 1, &r->profiled);
			break;
		case 12:
			if (mf_get_int(c, k, v, 1, 8, &x) > 0)
				r->grad_bytes = (int)x;
			break;
		case 13:
			mf_get_measured(c, &r->measured, k, v);
			break;
		case 14:
			mf_get_published(c, &r->published, k, v);
			break;
		case 15:
			if (mf_get_string(c, k, v, &r->scaling_baseline) > 0)
				c->baselines[r - c->m->runs] = v;
			break;
		case 16:
			mf_get_posint(c, k, v, &r->pipeline_parallel);
			pp_v = v;
			break;
		case 17:
			mf_get_choice(c, k, v, schedule_words, 2, 1, &r->schedule);
			break;
		case 18:
			mf_get_posint(c, k, v, &r->microbatches);
			break;
		case 19:
			get_profiler_steps(c, k, v, r);
			break;
		}
	}
	mf_require(c, map, seen[0], "id");
	check_replica(c, r, tp_v, pp_v);
	/* A run is traces, other inputs, or numbers typed in from a published study. */
	if (!seen[7] && !seen[13] && !seen[14])
		mf_require(c, map, seen[6], "traces");
}

/*
 * Fills a run's model: the manifest's defaults, then the run's own keys.
 * Takes own's name.
 */
void mf_merge_model(struct manifest_model *dst, const struct manifest_model *def,
	struct manifest_model *own)
{
	dst->name = own->name ? own->name : def->name ? xstrdup(def->name) : NULL;
	own->name = NULL;
	dst->layers = own->layers ? own->layers : def->layers;
	dst->hidden = own->hidden ? own->hidden : def->hidden;
	dst->heads = own->heads ? own->heads : def->heads;
	dst->ffn = own->ffn ? own->ffn : def->ffn;
	dst->seq = own->seq ? own->seq : def->seq;
	dst->vocab = own->vocab ? own->vocab : def->vocab;
	dst->arch = own->arch ? own->arch : def->arch ? xstrdup(def->arch) : NULL;
	own->arch = NULL;
	dst->precision = own->precision ? own->precision : def->precision ? xstrdup(def->precision) : NULL;
	own->precision = NULL;
	dst->framework = own->framework ? own->framework : def->framework ? xstrdup(def->framework) : NULL;
	own->framework = NULL;
	dst->objective = own->objective ? own->objective : def->objective ? xstrdup(def->objective) : NULL;
	own->objective = NULL;
	dst->vocab_multiple = own->vocab_multiple ? own->vocab_multiple : def->vocab_multiple;
	dst->flops_method = own->flops_method ? own->flops_method : def->flops_method ? xstrdup(def->flops_method) : NULL;
	own->flops_method = NULL;
}

/*
 * Runs by id, a hash table with open addressing: slot k holds a run's
 * index plus one (0: empty), at most half the slots are used. Checking for
 * duplicate ids compared each run with every earlier one, and each lookup
 * ('compare', 'series', 'scaling_baseline') scanned the runs: 100,000 runs
 * took 21.7 s; now the manifest is checked in time linear in its runs.
 */
struct mf_run_ids {
	size_t cap; /* a power of two */
	size_t *slot;
};

static size_t id_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)h;
}

/* The slot of id in t: where its run is, or the empty slot where it would go. */
static size_t *id_slot(const struct mf_run_ids *t, const struct manifest *m, const char *id)
{
	size_t k = id_hash(id) & (t->cap - 1);
	while (t->slot[k] && strcmp(m->runs[t->slot[k] - 1].id, id))
		k = (k + 1) & (t->cap - 1);
	return &t->slot[k];
}

static struct mf_run_ids *run_ids_new(size_t nruns)
{
	struct mf_run_ids *t = xcalloc(1, sizeof(*t));
	t->cap = 16;
	while (t->cap < 2 * nruns)
		t->cap *= 2;
	t->slot = xcalloc(t->cap, sizeof(*t->slot));
	return t;
}

void mf_run_ids_free(struct manifest *m)
{
	if (!m->run_ids)
		return;
	free(m->run_ids->slot);
	free(m->run_ids);
	m->run_ids = NULL;
}

void mf_get_runs(struct ctx *c, const struct ynode *key, const struct ynode *v)
{
	struct manifest *m = c->m;
	if (!mf_present(v))
		return;
	if (v->kind != Y_SEQUENCE) {
		mf_err_type(c, key, v, "a list of runs");
		return;
	}
	if (!v->n) {
		mf_err_at(c, v, "'runs' must not be empty");
		return;
	}
	m->runs = xcalloc(v->n, sizeof(*m->runs));
	c->own = xcalloc(v->n, sizeof(*c->own));
	c->baselines = xcalloc(v->n, sizeof(*c->baselines));
	const struct ynode **ids = xcalloc(v->n, sizeof(*ids));
	mf_run_ids_free(m);
	m->run_ids = run_ids_new(v->n);
	for (size_t i = 0; i < v->n; i++) {
		const struct ynode *it = v->items[i];
		struct manifest_run *r = &m->runs[m->nruns++];
		if (it->bad)
			continue;
		if (it->kind != Y_MAPPING) {
			mf_err_got(c, it, "a mapping for a run");
			continue;
		}
		get_run(c, it, r, &c->own[i], &ids[i]);
		if (!ids[i] || !r->id)
			continue;
		size_t *slot = id_slot(m->run_ids, m, r->id);
		if (*slot) {
			size_t j = *slot - 1;
			mf_err_at(c, ids[i], "duplicate run id '%s' (first at %d:%d)", r->id, ids[j]->line, ids[j]->col);
		} else {
			*slot = i + 1;
		}
	}
	free(ids);
}

/* The index of the run with this id, or m->nruns when there is none. */
size_t mf_run_index(const struct manifest *m, const char *id)
{
	if (m->run_ids) {
		size_t k = *id_slot(m->run_ids, m, id);
		return k ? k - 1 : m->nruns;
	}
	size_t j = 0;
	while (j < m->nruns && (!m->runs[j].id || strcmp(m->runs[j].id, id)))
		j++;
	return j;
}
