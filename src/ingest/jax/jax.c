/*
 * jax.c: the reader for the trace JSON that jax.profiler writes
 * (`plugins/profile/<run>/<host>.trace.json.gz` and, with
 * create_perfetto_trace=True, `perfetto_trace.json.gz`: the same events).
 *
 * jax_json.cpp walks the JSON; this file maps processes and threads, and
 * jax_model.c decides what each event means. Metadata events name the
 * processes: "/device:GPU:N" is GPU N, whose threads named "Stream #..."
 * are its CUDA streams; "/host:CPU" is the host. A complete event ("ph":
 * "X") on a GPU stream is an activity of device N (so a file of several
 * GPUs is split into one rank per device, as a PyTorch process driving
 * several GPUs is); on the host, a step range or a launch (jax_int.h).
 * Events of other processes or threads (a TPU, derived "XLA Ops" lines)
 * are counted and not kept. "ts" and "dur" are microseconds as decimal
 * text, turned into integer nanoseconds exactly (parse_us_to_ns); the
 * trace's clock starts at the profile's start (no epoch).
 *
 * The file is read whole (not in windows like Kineto's): JAX writes a few
 * megabytes per device and step.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/json_error.h"
#include "ingest/jax/jax_int.h"
#include "ingest/jax/jax_json.h"

enum proc_kind { PROC_OTHER = -2, PROC_HOST = -1 }; /* else the GPU's number */

/* A process's or thread's name as pass 1 met it: seq is its place among the metadata events (the last one wins). */
struct proc {
	int64_t pid;
	int kind;
	size_t seq;
};

struct thread {
	int64_t pid, tid;
	int is_stream;
	size_t seq;
};

struct jctx {
	const struct source *src;
	struct jax_model model;
	struct proc *procs;
	size_t nprocs, cap_procs;
	struct thread *threads;
	size_t nthreads, cap_threads;
	size_t nmeta; /* metadata events so far, for seq */
	int sorted;
	struct jax_kv *kv; /* an event's args for jax_model, reused */
	size_t cap_kv;
	int64_t warned;
	int failed;
};

static const char *arg_of(const struct jj_event *ev, const char *key)
{
	for (size_t i = 0; i < ev->nargs; i++)
		if (!strcmp(ev->args[i].key, key))
			return ev->args[i].value;
	return NULL;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* By pid and tid, then in file order, so that each thread's last name ends its run. */
static int cmp_thread_seq(const void *a, const void *b)
{
	const struct thread *x = a, *y = b;
	int c = cmp_thread(a, b);
	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_proc(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_proc_seq(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;
	int c = cmp_proc(a, b);
	return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void warn_skip(struct jctx *j, const struct jj_event *ev, const char *what)
{
	j->model.counts->skipped++;
	if (j->warned++ < 5) {
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s: byte %zu", j->src->path, ev->offset);
		diag_warning(b.data, "skipped event '%.80s': %s", ev->name ? ev->name : "", what);
		buf_release(&b);
	}
}

/*
 * Pass 1: process_name and thread_name, each kept in file order. A later
 * name of the same process or thread replaces the earlier: index_meta
 * keeps the last. (A search of the names so far per name made 200,000
 * thread names take 24 s.)
 */
static void on_meta(struct jctx *j, const struct jj_event *ev)
{
	const char *label = arg_of(ev, "name");
	if (!ev->name || !label || !ev->has_pid)
		return;
	size_t seq = j->nmeta++;
	if (!strcmp(ev->name, "process_name")) {
		int kind = jax_gpu_number(label);
		if (kind < 0)
			kind = jax_is_host(label) ? PROC_HOST : PROC_OTHER;
		j->procs = xgrow(j->procs, &j->cap_procs, j->nprocs + 1, sizeof(*j->procs));
		j->procs[j->nprocs++] = (struct proc){.pid = ev->pid, .kind = kind, .seq = seq};
	} else if (!strcmp(ev->name, "thread_name") && ev->has_tid) {
		j->threads = xgrow(j->threads, &j->cap_threads, j->nthreads + 1, sizeof(*j->threads));
		j->threads[j->nthreads++] =
			(struct thread){.pid = ev->pid, .tid = ev->tid, .is_stream = jax_is_stream(label), .seq = seq};
	}
}

/*
 * The n entries of size sz at v, sorted by key then file order (cmp_seq),
 * reduced to the last of each key (same: cmp without the order); returns
 * how many are left.
 */
static size_t keep_last(void *v, size_t n, size_t sz, int (*cmp_seq)(const void *, const void *),
			int (*same)(const void *, const void *))
{
	char *a = v;
	if (!n) /* qsort's array may not be NULL, even when empty */
		return 0;
	qsort(a, n, sz, cmp_seq);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && !same(a + i * sz, a + (i + 1) * sz))
			continue; /* a later name of the same key follows */
		if (k != i)
			memcpy(a + k * sz, a + i * sz, sz);
		k++;
	}
	return k;
}

/* After pass 1: processes and threads sorted by key for bsearch, one (the last named) per key. */
static void index_meta(struct jctx *j)
{
	j->nprocs = keep_last(j->procs, j->nprocs, sizeof(*j->procs), cmp_proc_seq, cmp_proc);
	j->nthreads = keep_last(j->threads, j->nthreads, sizeof(*j->threads), cmp_thread_seq, cmp_thread);
}

static int proc_kind(const struct jctx *j, int64_t pid)
{
	struct proc key = {.pid = pid};
	if (!j->nprocs) /* bsearch's array may not be NULL, even when empty */
		return PROC_OTHER;
	const struct proc *p = bsearch(&key, j->procs, j->nprocs, sizeof(*j->procs), cmp_proc);
	return p ? p->kind : PROC_OTHER;
}

/* A thread of a GPU process is a stream unless a thread_name says otherwise (derived lines: "XLA Ops", ...). */
static int is_stream(const struct jctx *j, int64_t pid, int64_t tid)
{
	struct thread key = {.pid = pid, .tid = tid};
	if (!j->nthreads) /* bsearch's array may not be NULL, even when empty */
		return 1;
	const struct thread *t = bsearch(&key, j->threads, j->nthreads, sizeof(*j->threads), cmp_thread);
	return t ? t->is_stream : 1;
}

static int on_event(void *ctx, int pass, const struct jj_event *ev)
{
	struct jctx *j = ctx;
	j->model.counts->events++;
	if (pass == 1) {
		on_meta(j, ev);
		return 0;
	}
	if (!j->sorted) {
		index_meta(j);
		j->sorted = 1;
	}
	if (!ev->ph || strcmp(ev->ph, "X") || !ev->has_pid)
		return 0;
	int kind = proc_kind(j, ev->pid);
	if (kind == PROC_OTHER || (kind >= 0 && (!ev->has_tid || !is_stream(j, ev->pid, ev->tid))))
		return 0;
	int64_t ts, dur;
	if (!ev->ts || ev->ts_bad || parse_us_to_ns(ev->ts, ev->ts_n, &ts) < 0) {
		warn_skip(j, ev, ev->ts || ev->ts_bad ? "'ts' is not a representable number" : "no 'ts'");
		return 0;
	}
	if (!ev->dur || ev->dur_bad || parse_us_to_ns(ev->dur, ev->dur_n, &dur) < 0) {
		warn_skip(j, ev, ev->dur || ev->dur_bad ? "'dur' is not a representable number" : "no 'dur'");
		return 0;
	}
	if (dur < 0) {
		warn_skip(j, ev, "negative 'dur'");
		return 0;
	}
	const char *outside = ingest_span_problem(ts, dur);
	if (outside) {
		warn_skip(j, ev, outside);
		return 0;
	}
	j->kv = xgrow(j->kv, &j->cap_kv, ev->nargs + 1, sizeof(*j->kv));
	for (size_t i = 0; i < ev->nargs; i++)
		j->kv[i] = (struct jax_kv){.key = ev->args[i].key, .value = ev->args[i].value};
	struct jax_event je = {
		.name = ev->name, .start_ns = ts, .dur_ns = dur, .tid = ev->has_tid ? ev->tid : -1, .args = j->kv,
		.nargs = ev->nargs,
	};
	int r = kind >= 0 ? jax_gpu_event(&j->model, kind, &je) : jax_host_event(&j->model, &je);
	if (r) {
		j->failed = 1;
		return 1;
	}
	return 0;
}

/*
 * A JSON object whose first events name a JAX process: "process_name"
 * with "/device:..." or "/host:...", which Kineto never writes (its
 * processes are "python 1234" and "GPU 0"). JAX writes the metadata first,
 * so it is in the first 4 KiB.
 */
static int jax_detect(const char *head, size_t n)
{
	size_t i = 0;
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i >= n || head[i] != '{')
		return 0;
	return source_find(head, n, "\"process_name\"") &&
	       (source_find(head, n, "\"/device:") || source_find(head, n, "\"/host:"));
}

static int jax_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct jctx j = {.src = src, .model = {.sink = sink, .counts = counts}};
	struct jj_error err;
	int ret = -1;
	int r = jj_parse(src->data, src->len, on_event, &j, &err);
	if (r < 0) {
		json_report_error(src, 0, err.offset, err.message, err.detail);
		goto out;
	}
	if (r == 2) {
		diag_error(src->path, "not a JAX trace: no 'traceEvents' array");
		goto out;
	}
	if (r == 1 || j.failed)
		goto out;
	if (counts->skipped > 5)
		diag_warning(src->path, "skipped %" PRId64 " malformed events in all", counts->skipped);
	counts->devices = jax_device_count(&j.model);
	struct trace_info info = {.format = "jax-trace", .rank = -1, .world_size = -1, .epoch_offset_ns = -1};
	ret = sink->info && sink->info(sink->ctx, &info) ? -1 : 0;
out:
	free(j.procs);
	free(j.threads);
	free(j.kv);
	return ret;
}

const struct reader jax_trace_reader = {
	.name = "jax-trace",
	.detect = jax_detect,
	.read = jax_read,
	.rank_suffixes = NULL,
};
