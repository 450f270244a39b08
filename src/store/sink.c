/*
 * sink.c: the ingest_sink of store.h. Each reader hands its normalized
 * events here (ingest.h); each becomes a row of its table, names interned.
 * Host operators are held until their nesting is known (only the outermost
 * are stored), and an experiment's own nvidia-smi file gets a sink of its
 * own that takes hardware and nothing else.
 */
#include "store/store_int.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

/*
 * 0 when each of the n strings (NULL: absent) is at most STORE_MAX_NAME
 * bytes; else -1 after an error naming the input and what the string was
 * (a 17 MiB Lightning action name, an nvidia-smi product name): names go
 * through store_name_id, which checks the same.
 */
static int texts_fit(const struct sink_ctx *c, const char *what, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = v[i] ? strlen(v[i]) : 0;
		if (len > STORE_MAX_NAME) {
			const struct store *s = c->s;
			diag_error(s->reading ? s->reading : c->path ? c->path : s->path,
				   "%s of %zu bytes, more than %d MiB (it begins '%.40s'); refused", what, len,
				   STORE_MAX_NAME >> 20, v[i]);
			return -1;
		}
	}
	return 0;
}
#define TEXTS_FIT(c, what, ...) \
	texts_fit((c), (what), (const char *const[]){__VA_ARGS__}, \
		  sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/*
 * 0 when an event's start and duration are within what perfstudy takes
 * (ingest_span_problem: a start from -2^60 to 3 * 2^60 ns, a duration from
 * 0 to 2^52 ns); else -1 after an error naming the input and the event.
 * The trace readers skip such events with a warning naming the byte (the
 * Kineto reader: "skipped event 'k': a start outside ..."), merge refuses
 * them in a shard (study/shard.c); this is the store's own guard for every
 * other reader, as every span stored is later loaded as start + dur and
 * subtracted from others (analyze/lib/rankdata.c).
 */
static int span_fits(const struct sink_ctx *c, const char *what, const char *name, int64_t start, int64_t dur)
{
	const char *outside = ingest_span_problem(start, dur);
	if (!outside)
		return 0;
	const struct store *s = c->s;
	diag_error(s->reading ? s->reading : c->path ? c->path : s->path,
		   "%s '%.200s': start %" PRId64 " ns, duration %" PRId64 " ns: %s; refused", what, name ? name : "",
		   start, dur, outside);
	return -1;
}

/*
 * A size past its bound (INGEST_MAX_NELEMS elements, INGEST_MAX_BYTES
 * bytes) is taken as unknown, with a warning naming the input, the event and
 * the field (at most 3 a trace): 2^62 elements made bytes overflow.
 */
static int64_t size_known(const struct sink_ctx *c, const char *name, const char *field, int64_t v, int64_t max)
{
	if (v <= max)
		return v;
	struct store *s = c->s;
	if (s->size_warned++ < 3)
		diag_warning(s->reading ? s->reading : c->path ? c->path : s->path,
			     "'%.80s': %s %" PRId64 " is more than %" PRId64 "; taken as unknown", name ? name : "", field,
			     v, max);
	return -1;
}

/*
 * Forgets the host operators held for a trace; the next come in order until
 * shown otherwise. Their memory goes back too: kept for the next trace, the
 * big trace's 15 MB of operators (and memsites.c's 30 MB) stayed in the
 * peak RSS through the analyses.
 */
void store_ops_reset(struct store *s)
{
	free(s->ops);
	s->ops = NULL;
	s->nops = s->opscap = 0;
	s->ops_sorted = 1;
	for (size_t i = 0; i < s->nthreads_cap; i++) {
		free(s->threads[i].group);
		memset(&s->threads[i], 0, sizeof(s->threads[i]));
	}
	s->nthreads = 0;
	store_memsites_reset(s);
	store_mem_reset(s);
}

void store_ops_release(struct store *s)
{
	store_memsites_release(s);
	store_mem_release(s);
	free(s->ops);
	for (size_t i = 0; i < s->nthreads_cap; i++)
		free(s->threads[i].group);
	free(s->threads);
}

/*
 * The software versions a trace names, as trace_software rows: 'nccl' as
 * written, 'cuda_runtime' and 'cuda_driver' from CUDA's integer form
 * 1000 major + 10 minor (13000 -> "13.0", 12040 -> "12.4"); and
 * 'strategy', the parallel strategy a training log names, as written, and
 * 'params', the parameter count it gives, in decimal.
 */
static int sink_software(struct store *s, int64_t trace_id, const struct trace_info *info)
{
	char ver[2][32], params[32];
	const char *item[5] = {"nccl", "cuda_runtime", "cuda_driver", "strategy", "params"};
	const char *value[5] = {info->nccl_version, NULL, NULL, info->strategy, NULL};
	int64_t cuda[2] = {info->cuda_runtime_version, info->cuda_driver_version};
	for (int k = 0; k < 2; k++)
		if (cuda[k] > 0) {
			snprintf(ver[k], sizeof(ver[k]), "%lld.%lld", (long long)(cuda[k] / 1000),
				 (long long)(cuda[k] % 1000 / 10));
			value[k + 1] = ver[k];
		}
	if (info->params > 0) {
		snprintf(params, sizeof(params), "%lld", (long long)info->params);
		value[4] = params;
	}
	if (!value[0] && !value[1] && !value[2] && !value[3] && !value[4])
		return 0;
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "prepare", "INSERT INTO trace_software VALUES(?1,?2,?3)", &st) < 0)
		return -1;
	int rc = 0;
	for (int k = 0; k < 5 && rc == 0; k++)
		if (value[k]) {
			sqlite3_bind_int64(st, 1, trace_id);
			sqlite3_bind_text(st, 2, item[k], -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 3, value[k], -1, SQLITE_TRANSIENT);
			rc = store_sql_step_done(s, st, "insert trace software");
		}
	sqlite3_finalize(st);
	return rc;
}

static int sink_info(void *ctx, const struct trace_info *info)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	if (store_sql_prepare_kept(s, "prepare", "UPDATE traces SET rank=coalesce(?2, rank), rank_from_trace=?2 IS NOT NULL,"
			       " world_size=?3, epoch_offset_ns=?4 WHERE id=?1", &s->upd_info) < 0)
		return -1;
	sqlite3_stmt *st = s->upd_info;
	sqlite3_bind_int64(st, 1, c->trace_id);
	bind_opt(st, 2, info->rank, info->rank >= 0);
	bind_opt(st, 3, info->world_size, info->world_size > 0);
	bind_opt(st, 4, info->epoch_offset_ns, info->epoch_offset_ns >= 0);
	int rc = store_sql_step_done(s, st, "update trace");
	if (rc < 0 || TEXTS_FIT(c, "an NCCL version", info->nccl_version) < 0 ||
	    TEXTS_FIT(c, "a strategy", info->strategy) < 0 ||
	    sink_software(s, c->trace_id, info) < 0)
		return -1;
	for (size_t i = 0; i < info->ndevices; i++) {
		const struct device_info *d = &info->devices[i];
		if (TEXTS_FIT(c, "a device name", d->name) < 0)
			return -1;
		char cc[32];
		snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
		sqlite3_bind_int64(s->ins_dev, 1, c->trace_id);
		sqlite3_bind_int(s->ins_dev, 2, d->id);
		bind_text_opt(s->ins_dev, 3, d->name);
		bind_opt(s->ins_dev, 4, d->total_mem, d->total_mem >= 0);
		bind_opt(s->ins_dev, 5, d->sm_count, d->sm_count >= 0);
		bind_text_opt(s->ins_dev, 6, d->cc_major >= 0 ? cc : NULL);
		bind_opt(s->ins_dev, 7, d->mem_bandwidth, d->mem_bandwidth > 0);
		if (store_sql_step_done(s, s->ins_dev, "insert device") < 0)
			return -1;
	}
	return 0;
}

static const char *kind_text(enum activity_kind k)
{
	return k == ACT_KERNEL ? "kernel" : k == ACT_MEMCPY ? "memcpy" : "memset";
}

static void extend(struct store *s, int64_t start, int64_t dur)
{
	if (start < s->first_ns)
		s->first_ns = start;
	if (start + dur > s->last_ns)
		s->last_ns = start + dur;
}

static int sink_activity(void *ctx, const struct gpu_activity *a)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	if (span_fits(c, "GPU activity", a->name, a->start_ns, a->dur_ns) < 0)
		return -1;
	int64_t name = store_name_id(s, a->name);
	if (name < 0)
		return -1;
	extend(s, a->start_ns, a->dur_ns);
	struct cell *row = row_buf_add(s, &s->act);
	if (!row)
		return -1;
	cell_int(&row[0], c->trace_id);
	cell_text(&row[1], kind_text(a->kind));
	cell_int(&row[2], name);
	cell_opt(&row[3], a->device, a->device >= 0);
	if (a->device >= 0 && s->dev_seen < 2 && (s->dev_seen == 0 || a->device != s->dev_first)) {
		s->dev_seen = s->dev_seen ? 2 : 1;
		s->dev_first = a->device;
	}
	cell_opt(&row[4], a->stream, a->stream >= 0);
	cell_int(&row[5], a->start_ns);
	cell_int(&row[6], a->dur_ns);
	int64_t bytes = size_known(c, a->name, "bytes", a->bytes, INGEST_MAX_BYTES);
	cell_opt(&row[7], bytes, bytes >= 0);
	cell_opt(&row[9], a->correlation, a->correlation >= 0);
	/* A copy kind too long for a cell is bound from where it is: the rows go in now, this one last. */
	if (cell_text(&row[8], a->copy_kind) < 0 && store_row_buf_flush(s, &s->act) < 0)
		return -1;
	if (!a->collective)
		return 0;
	if (TEXTS_FIT(c, "a collective's arguments", a->collective, a->dtype, a->process_group) < 0)
		return -1;
	/* The NCCL args of a communication kernel, keyed by its start and correlation. */
	if (!s->ins_coll && store_sql_prepare(s, "prepare", "INSERT INTO collectives VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)", &s->ins_coll) < 0)
		return -1;
	sqlite3_stmt *st = s->ins_coll;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, a->start_ns);
	bind_opt(st, 3, a->correlation, a->correlation >= 0);
	sqlite3_bind_text(st, 4, a->collective, -1, SQLITE_TRANSIENT);
	int64_t in = size_known(c, a->name, "'In msg nelems'", a->in_nelems, INGEST_MAX_NELEMS);
	int64_t out = size_known(c, a->name, "'Out msg nelems'", a->out_nelems, INGEST_MAX_NELEMS);
	bind_opt(st, 5, in, in > 0);
	bind_opt(st, 6, out, out > 0);
	bind_text_opt(st, 7, a->dtype);
	bind_opt(st, 8, a->group_size, a->group_size > 0);
	bind_text_opt(st, 9, a->process_group);
	bind_opt(st, 10, a->seq, a->has_seq);
	bind_opt(st, 11, a->peer, a->has_peer);
	return store_sql_step_rebind(s, st, "insert collective");
}

/*
 * Only the outermost host operators are stored (issue 7: store what the
 * analyses use): per thread, in order of start (longer first, then name
 * id), an operator ending no later than the thread's last stored operator
 * is inside it and left out; enumerate(DataLoader)... ranges are stored at
 * any depth. Every left-out operator lies inside a stored one of its
 * thread, so the union of the stored ranges is the union of all of them:
 * what step_breakdown (host time, data loading first) and dispatch
 * (top-level operators) use, with a quarter of the rows on Kineto traces.
 *
 * Kineto writes each thread's operators in order of start, so they are
 * decided as they come: a thread's operators of one start wait until a
 * later start shows up (they are sorted among themselves then), and the
 * trace's end decides the last ones. Should an operator start before the
 * last one of its thread, the rows stored so far are deleted and all the
 * trace's operators, which are held until its end anyway, are sorted and
 * decided at the end instead (flush_cpu_ops): the same rows either way.
 */
int store_cmp_op(const void *a, const void *b)
{
	const struct pending_op *x = a, *y = b;
	return store_cmp_op_key(x->tid, x->start, x->dur, x->name_id, y->tid, y->start, y->dur, y->name_id);
}

/*
 * Stores o unless it lies inside the thread's last stored operator (*end,
 * when *have_end); 1 when stored, 0 when not, -1 on error.
 */
static int decide_op(struct store *s, int64_t trace_id, const struct pending_op *o, int *have_end, int64_t *end)
{
	int inside = *have_end && o->start + o->dur <= *end;
	if (!inside) {
		*have_end = 1;
		*end = o->start + o->dur;
	} else if (!o->keep) {
		return 0;
	}
	struct cell *row = row_buf_add(s, &s->cpu);
	if (!row)
		return -1;
	cell_int(&row[0], trace_id);
	cell_int(&row[1], o->name_id);
	cell_opt(&row[2], o->tid, o->tid >= 0);
	cell_int(&row[3], o->start);
	cell_int(&row[4], o->dur);
	cell_opt(&row[5], o->external_id, o->external_id >= 0);
	cell_opt(&row[6], o->dims_id, o->dims_id >= 0);
	return 1;
}

static void ops_add(struct store *s, const struct pending_op *o)
{
	s->ops = xgrow(s->ops, &s->opscap, s->nops + 1, sizeof(*s->ops));
	s->ops[s->nops++] = *o;
}

/*
 * Decides a thread's operators of one start; those stored are kept in
 * store.ops, should later ones come out of order (see sink_cpu_op).
 */
static int decide_group(struct store *s, int64_t trace_id, struct op_thread *t)
{
	/* Insertion sort: operators sharing a start are a handful (a call and the ones it makes first). */
	for (size_t i = 1; i < t->ngroup; i++) {
		struct pending_op k = t->group[i];
		size_t j = i;
		for (; j > 0 && store_cmp_op(&t->group[j - 1], &k) > 0; j--)
			t->group[j] = t->group[j - 1];
		t->group[j] = k;
	}
	for (size_t i = 0; i < t->ngroup; i++) {
		int r = decide_op(s, trace_id, &t->group[i], &t->have_end, &t->end);
		if (r < 0)
			return -1;
		if (r)
			ops_add(s, &t->group[i]);
		else
			store_memsites_inner(s, &t->group[i]);
	}
	t->ngroup = 0;
	return 0;
}

/* The thread's state, added when new. */
static struct op_thread *op_thread(struct store *s, int64_t tid)
{
	if ((s->nthreads + 1) * 2 > s->nthreads_cap) {
		size_t cap = s->nthreads_cap ? s->nthreads_cap * 2 : 16;
		struct op_thread *t = xcalloc(cap, sizeof(*t));
		for (size_t i = 0; i < s->nthreads_cap; i++) {
			if (!s->threads[i].used)
				continue;
			size_t j = (size_t)((uint64_t)s->threads[i].tid * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
			while (t[j].used)
				j = (j + 1) & (cap - 1);
			t[j] = s->threads[i];
		}
		free(s->threads);
		s->threads = t;
		s->nthreads_cap = cap;
	}
	size_t j = (size_t)((uint64_t)tid * 0x9e3779b97f4a7c15ull >> 32) & (s->nthreads_cap - 1);
	while (s->threads[j].used && s->threads[j].tid != tid)
		j = (j + 1) & (s->nthreads_cap - 1);
	struct op_thread *t = &s->threads[j];
	if (!t->used) {
		t->used = 1;
		t->tid = tid;
		s->nthreads++;
	}
	return t;
}

static int sink_cpu_op(void *ctx, const struct cpu_op *op)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	if (span_fits(c, "operator", op->name, op->start_ns, op->dur_ns) < 0)
		return -1;
	unsigned flags;
	int64_t name = store_name_id_flags(s, op->name, &flags);
	if (name < 0)
		return -1;
	/*
	 * Dims with a list of tensors ("{T:E}", kineto_json.cpp take_dims) are
	 * kept for model_ops alone: cpu_ops and memory_ops hold tensors' shapes.
	 */
	int model = op->dims && (flags & NAME_MODEL_OP), lists = op->dims && strchr(op->dims, '{');
	const char *dtext = lists && !model ? NULL : op->dims;
	int64_t dims = dtext ? store_name_id(s, dtext) : -1;
	int64_t types = op->types ? store_name_id(s, op->types) : -1;
	int64_t concrete = op->concrete ? store_name_id(s, op->concrete) : -1;
	if ((dtext && dims < 0) || (op->types && types < 0) || (op->concrete && concrete < 0))
		return -1;
	struct pending_op po = {op->start_ns, op->dur_ns, op->tid, op->external_id, name, dims, types, concrete,
				(flags & NAME_LOADER) != 0};
	if (model && store_model_op_add(s, c->trace_id, &po) < 0)
		return -1;
	if (lists)
		po.dims_id = -1;
	if (!s->ops_sorted) {
		ops_add(s, &po);
		return 0;
	}
	struct op_thread *t = op_thread(s, op->tid);
	if (t->ngroup && op->start_ns < t->group_start) {
		/*
		 * Out of order: start again at the end, from the operators stored so
		 * far, those not decided yet and all that come. Those not stored can be
		 * left out: each lies inside one that comes before it in store_cmp_op's
		 * order, which is inside, or is, a stored one, so it would not be
		 * stored again, and leaves the ends that decide the others as they
		 * are. (Keeping every operator instead took 48 bytes each: 500 MB for
		 * a 4.5 GB trace, faulted in on the thread that stores.)
		 */
		for (size_t i = 0; i < s->nthreads_cap; i++) {
			struct op_thread *u = &s->threads[i];
			for (size_t k = 0; u->used && k < u->ngroup; k++)
				ops_add(s, &u->group[k]);
			u->ngroup = 0;
		}
		ops_add(s, &po);
		s->ops_sorted = 0;
		sqlite3_stmt *st;
		if (store_row_buf_flush(s, &s->cpu) < 0 || store_sql_prepare(s, "prepare", "DELETE FROM cpu_ops WHERE trace_id = ?1", &st) < 0)
			return -1;
		sqlite3_bind_int64(st, 1, c->trace_id);
		int rc = store_sql_step_done(s, st, "delete cpu ops");
		sqlite3_finalize(st);
		return rc;
	}
	if (t->ngroup && op->start_ns > t->group_start && decide_group(s, c->trace_id, t) < 0)
		return -1;
	if (!t->ngroup)
		t->group_start = op->start_ns;
	t->group = xgrow(t->group, &t->groupcap, t->ngroup + 1, sizeof(*t->group));
	t->group[t->ngroup++] = po;
	return 0;
}

/* At the end of a trace: decides the operators not decided yet (all of them when they came out of order). */
int store_flush_cpu_ops(struct store *s, int64_t trace_id)
{
	if (s->ops_sorted) {
		for (size_t i = 0; i < s->nthreads_cap; i++)
			if (s->threads[i].used && decide_group(s, trace_id, &s->threads[i]) < 0)
				return -1;
		int rc = store_memsites_flush(s, trace_id, s->reading ? s->reading : s->path);
		store_ops_reset(s);
		return rc;
	}
	qsort(s->ops, s->nops, sizeof(*s->ops), store_cmp_op);
	int64_t tid = 0, end = 0;
	int have_end = 0;
	for (size_t i = 0; i < s->nops; i++) {
		const struct pending_op *o = &s->ops[i];
		if (i == 0 || o->tid != tid) {
			tid = o->tid;
			have_end = 0;
		}
		if (decide_op(s, trace_id, o, &have_end, &end) < 0)
			return -1;
	}
	int rc = store_memsites_flush(s, trace_id, s->reading ? s->reading : s->path);
	store_ops_reset(s);
	return rc;
}

static int sink_runtime(void *ctx, const struct runtime_call *r)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	if (span_fits(c, "runtime call", r->name, r->start_ns, r->dur_ns) < 0)
		return -1;
	int64_t name = store_name_id(s, r->name);
	if (name < 0)
		return -1;
	struct cell *row = row_buf_add(s, &s->launch);
	if (!row)
		return -1;
	cell_int(&row[0], c->trace_id);
	cell_int(&row[1], name);
	cell_opt(&row[2], r->tid, r->tid >= 0);
	cell_int(&row[3], r->start_ns);
	cell_int(&row[4], r->dur_ns);
	cell_opt(&row[5], r->correlation, r->correlation >= 0);
	cell_int(&row[6], r->is_driver);
	return 0;
}

static int sink_annotation(void *ctx, const struct annotation *a)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	if (span_fits(c, "annotation", a->name, a->start_ns, a->dur_ns) < 0)
		return -1;
	int64_t name = store_name_id(s, a->name);
	if (name < 0)
		return -1;
	struct cell *row = row_buf_add(s, &s->annot);
	if (!row)
		return -1;
	cell_int(&row[0], c->trace_id);
	cell_int(&row[1], name);
	cell_int(&row[2], a->on_gpu);
	cell_opt(&row[3], a->tid, a->tid >= 0);
	cell_int(&row[4], a->start_ns);
	cell_int(&row[5], a->dur_ns);
	return 0;
}

static int sink_summary(void *ctx, const struct summary_row *r)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, r->name);
	if (name < 0 || TEXTS_FIT(c, "a copy kind", r->copy_kind) < 0)
		return -1;
	sqlite3_stmt *st = s->ins_sum;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_text(st, 2, kind_text(r->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, name);
	bind_text_opt(st, 4, r->copy_kind);
	sqlite3_bind_int64(st, 5, r->calls);
	sqlite3_bind_int64(st, 6, r->total_ns);
	bind_opt(st, 7, r->min_ns, r->min_ns >= 0);
	bind_opt(st, 8, r->max_ns, r->max_ns >= 0);
	bind_opt(st, 9, r->avg_ns, r->avg_ns >= 0);
	if (r->time_pct >= 0)
		sqlite3_bind_double(st, 10, r->time_pct);
	else
		sqlite3_bind_null(st, 10);
	return store_sql_step_done(s, st, "insert summary");
}

/* Inputs that are not per-rank traces: the rows say which trace file they came from. */

static int sink_metrics(void *ctx, const struct kernel_metrics *m)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	int64_t name = store_name_id(s, m->name);
	sqlite3_stmt *st;
	if (name < 0 || TEXTS_FIT(c, "a block or grid size", m->block, m->grid) < 0 || store_sql_prepare(s, "prepare", "INSERT INTO kernel_metrics VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, m->id);
	sqlite3_bind_int64(st, 3, name);
	bind_opt(st, 4, m->device, m->device >= 0);
	bind_text_opt(st, 5, m->block);
	bind_text_opt(st, 6, m->grid);
	bind_opt(st, 7, m->fp16_flops, m->fp16_flops >= 0);
	bind_opt(st, 8, m->fp32_flops, m->fp32_flops >= 0);
	bind_opt(st, 9, m->fp64_flops, m->fp64_flops >= 0);
	bind_opt(st, 10, m->dram_bytes, m->dram_bytes >= 0);
	bind_opt(st, 11, m->dur_ns, m->dur_ns >= 0);
	int rc = store_sql_step_done(s, st, "insert kernel metrics");
	sqlite3_finalize(st);
	return rc;
}

static int sink_iteration(void *ctx, const struct log_iteration *it)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (store_sql_prepare(s, "prepare", "INSERT INTO iterations VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	sqlite3_bind_int64(st, 2, it->iteration);
	bind_opt(st, 3, it->iterations, it->iterations >= 0);
	bind_opt(st, 4, it->consumed_samples, it->consumed_samples >= 0);
	bind_opt(st, 5, it->elapsed_ns, it->elapsed_ns >= 0);
	if (it->tflops_per_gpu >= 0)
		sqlite3_bind_double(st, 6, it->tflops_per_gpu);
	bind_opt(st, 7, it->global_batch, it->global_batch >= 0);
	if (it->has_loss)
		sqlite3_bind_double(st, 8, it->loss);
	bind_opt(st, 9, it->launcher_rank, it->launcher_rank >= 0);
	int rc = store_sql_step_done(s, st, "insert iteration");
	sqlite3_finalize(st);
	return rc;
}

static int sink_phase(void *ctx, const struct phase_time *p)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (TEXTS_FIT(c, "a phase name", p->action) < 0)
		return -1;
	if (store_sql_prepare(s, "prepare", "INSERT INTO phase_times VALUES(?1,?2,?3,?4,?5,?6)", &st) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, c->trace_id);
	bind_text_opt(st, 2, p->action);
	bind_opt(st, 3, p->calls, p->calls >= 0);
	bind_opt(st, 4, p->mean_ns, p->mean_ns >= 0);
	bind_opt(st, 5, p->total_ns, p->total_ns >= 0);
	if (p->percent >= 0)
		sqlite3_bind_double(st, 6, p->percent);
	int rc = store_sql_step_done(s, st, "insert phase time");
	sqlite3_finalize(st);
	return rc;
}

static int sink_hardware(void *ctx, const struct gpu_hardware *g)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (TEXTS_FIT(c, "an nvidia-smi value", g->dtd, g->product, g->uuid, g->pci_bus, g->driver, g->cuda) < 0)
		return -1;
	if (store_sql_prepare(s, "prepare", "INSERT INTO gpu_hardware VALUES(coalesce(?1, (SELECT experiment"
		       " FROM run_traces WHERE id = ?2)), ?2, coalesce(?3, (SELECT path FROM traces WHERE id = ?2)),"
		       " ?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19)", &st) < 0)
		return -1;
	bind_text_opt(st, 1, c->experiment);
	bind_opt(st, 2, c->trace_id, c->trace_id > 0);
	bind_text_opt(st, 3, c->path);
	sqlite3_bind_int(st, 4, g->index);
	bind_text_opt(st, 5, g->dtd);
	bind_text_opt(st, 6, g->product);
	bind_text_opt(st, 7, g->uuid);
	bind_text_opt(st, 8, g->pci_bus);
	bind_text_opt(st, 9, g->driver);
	bind_text_opt(st, 10, g->cuda);
	bind_opt(st, 11, g->memory_mib, g->memory_mib >= 0);
	bind_opt(st, 12, g->max_graphics_mhz, g->max_graphics_mhz >= 0);
	bind_opt(st, 13, g->max_sm_mhz, g->max_sm_mhz >= 0);
	bind_opt(st, 14, g->max_mem_mhz, g->max_mem_mhz >= 0);
	if (g->power_limit_w >= 0)
		sqlite3_bind_double(st, 15, g->power_limit_w);
	bind_opt(st, 16, g->pcie_gen_max, g->pcie_gen_max >= 0);
	bind_opt(st, 17, g->pcie_gen_cur, g->pcie_gen_cur >= 0);
	bind_opt(st, 18, g->pcie_width_max, g->pcie_width_max >= 0);
	bind_opt(st, 19, g->pcie_width_cur, g->pcie_width_cur >= 0);
	int rc = store_sql_step_done(s, st, "insert gpu hardware");
	sqlite3_finalize(st);
	return rc;
}

/* One pair of nvidia-smi topo -m, for the experiment like sink_hardware. */
static int sink_link(void *ctx, const struct gpu_link *l)
{
	struct sink_ctx *c = ctx;
	struct store *s = c->s;
	sqlite3_stmt *st;
	if (TEXTS_FIT(c, "a topology value", l->a, l->b, l->link, l->cpu_affinity, l->numa_affinity) < 0)
		return -1;
	if (store_sql_prepare(s, "prepare", "INSERT INTO gpu_links VALUES(coalesce(?1, (SELECT experiment"
		       " FROM run_traces WHERE id = ?2)), ?2, coalesce(?3, (SELECT path FROM traces WHERE id = ?2)),"
		       " ?4, ?5, ?6, ?7, ?8)", &st) < 0)
		return -1;
	bind_text_opt(st, 1, c->experiment);
	bind_opt(st, 2, c->trace_id, c->trace_id > 0);
	bind_text_opt(st, 3, c->path);
	bind_text_opt(st, 4, l->a);
	bind_text_opt(st, 5, l->b);
	bind_text_opt(st, 6, l->link);
	bind_text_opt(st, 7, l->cpu_affinity);
	bind_text_opt(st, 8, l->numa_affinity);
	int rc = store_sql_step_done(s, st, "insert gpu link");
	sqlite3_finalize(st);
	return rc;
}

/*
 * An allocator event: held to the trace's end for memory_events
 * (memevents.c); of a GPU allocation, its thread and time are kept to the
 * trace's end for memory_ops (memsites.c).
 */
static int sink_memory(void *ctx, const struct memory_event *m)
{
	struct sink_ctx *c = ctx;
	if (span_fits(c, "memory event", "[memory]", m->ts_ns, 0) < 0)
		return -1;
	store_mem_add(c->s, m);
	if (m->bytes > 0 && m->device_type == 1 && m->tid >= 0)
		store_memsites_alloc(c->s, m->tid, m->ts_ns);
	return 0;
}

static int reject_event(struct sink_ctx *c)
{
	diag_error(c->path, "expected an nvidia-smi -q -x file, found a trace");
	return -1;
}
static int reject_activity(void *ctx, const struct gpu_activity *a) { (void)a; return reject_event(ctx); }
static int reject_runtime(void *ctx, const struct runtime_call *r) { (void)r; return reject_event(ctx); }
static int reject_annotation(void *ctx, const struct annotation *a) { (void)a; return reject_event(ctx); }
static int reject_metrics(void *ctx, const struct kernel_metrics *m) { (void)m; return reject_event(ctx); }
static int reject_iteration(void *ctx, const struct log_iteration *i) { (void)i; return reject_event(ctx); }
static int reject_phase(void *ctx, const struct phase_time *p) { (void)p; return reject_event(ctx); }
static int ignore_info(void *ctx, const struct trace_info *i) { (void)ctx; (void)i; return 0; }

void store_sink_experiment(struct store *s, const char *experiment, const char *path, struct ingest_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	s->sink.s = s;
	s->sink.trace_id = 0;
	s->sink.experiment = experiment;
	s->sink.path = path;
	sink->ctx = &s->sink;
	sink->info = ignore_info;
	sink->activity = reject_activity;
	sink->runtime = reject_runtime;
	sink->annotation = reject_annotation;
	sink->metrics = reject_metrics;
	sink->iteration = reject_iteration;
	sink->phase = reject_phase;
	sink->hardware = sink_hardware;
	sink->link = sink_link;
}

void store_sink_kinds(struct ingest_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->metrics = sink_metrics;
	sink->iteration = sink_iteration;
	sink->phase = sink_phase;
	sink->hardware = sink_hardware;
	sink->link = sink_link;
	sink->info = sink_info;
	sink->activity = sink_activity;
	sink->runtime = sink_runtime;
	sink->annotation = sink_annotation;
	sink->cpu_op = sink_cpu_op;
	sink->summary = sink_summary;
	sink->memory = sink_memory;
}

void store_sink(struct store *s, int64_t trace_id, struct ingest_sink *sink)
{
	s->sink.experiment = NULL;
	s->sink.path = NULL;
	s->sink.s = s;
	s->sink.trace_id = trace_id;
	store_sink_kinds(sink);
	sink->ctx = &s->sink;
}
