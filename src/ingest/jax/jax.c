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

struct proc {
	int64_t pid;
	int kind;
};

struct thread {
	int64_t pid, tid;
	int is_stream;
};

struct jctx {
	const struct source *src;
	struct jax_model model;
	struct proc *procs;
	size_t nprocs, cap_procs;
	struct thread *threads;
	size_t nthreads, cap_threads;
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

/* Pass 1: process_name and thread_name. A later name of the same process or thread replaces the earlier. */
static void on_meta(struct jctx *j, const struct jj_event *ev)
{
	const char *label = arg_of(ev, "name");
	if (!ev->name || !label || !ev->has_pid)
		return;
	if (!strcmp(ev->name, "process_name")) {
		int kind = jax_gpu_number(label);
		if (kind < 0)
			kind = jax_is_host(label) ? PROC_HOST : PROC_OTHER;
		for (size_t i = 0; i < j->nprocs; i++)
			if (j->procs[i].pid == ev->pid) {
				j->procs[i].kind = kind;
				return;
			}
		j->procs = xgrow(j->procs, &j->cap_procs, j->nprocs + 1, sizeof(*j->procs));
		j->procs[j->nprocs++] = (struct proc){.pid = ev->pid, .kind = kind};
	} else if (!strcmp(ev->name, "thread_name") && ev->has_tid) {
		for (size_t i = 0; i < j->nthreads; i++)
			if (j->threads[i].pid == ev->pid && j->threads[i].tid == ev->tid) {
				j->threads[i].is_stream = jax_is_stream(label);
				return;
			}
		j->threads = xgrow(j->threads, &j->cap_threads, j->nthreads + 1, sizeof(*j->threads));
		j->threads[j->nthreads++] = (struct thread){.pid = ev->pid, .tid = ev->tid, .is_stream = jax_is_stream(label)};
	}
}

static int proc_kind(const struct jctx *j, int64_t pid)
{
	for (size_t i = 0; i < j->nprocs; i++)
		if (j->procs[i].pid == pid)
			return j->procs[i].kind;
	return PROC_OTHER;
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
		if (j->nthreads)
			qsort(j->threads, j->nthreads, sizeof(*j->threads), cmp_thread);
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
	if (ts > INT64_MAX - dur) {
		warn_skip(j, ev, "'ts' + 'dur' beyond the int64 nanosecond range");
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
