/*
 * batch.c: recording sink calls as bytes and replaying them (see batch.h).
 *
 * A record is a header (tag, payload length: two uint32) and a payload:
 * the event's struct as laid out in memory, each string pointer replaced by
 * 1 + the offset of the string in the payload (0: NULL), then the strings
 * with their NULs. Trace info carries its devices after the struct. Replay
 * copies the struct out (records are not aligned) and points the strings
 * into the chunk, checking every offset, so damaged bytes are an error,
 * not a crash.
 */
#include "ingest/batch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define CHUNK_SIZE (256u << 10)

/*
 * Chunks of CHUNK_SIZE given back are kept for the next ones, up to
 * POOL_MAX (16 MiB), until batch_pool_release. With --jobs a worker writes
 * a chunk and the store thread frees it, and glibc gave each freed chunk at
 * the top of the worker's arena back to the system, to fault its pages in
 * again for the next one: 16 ranks x 20 MB, --jobs 2, a build's page faults
 * 123-125k -> 110-115k, and the reading's CPU now that of --jobs 1. The
 * pool holds only chunks that were in use, so it adds nothing to the peak.
 */
#define POOL_MAX 64
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static char *pool[POOL_MAX];
static size_t npool;

static char *chunk_get(size_t cap)
{
	char *p = NULL;
	if (cap == CHUNK_SIZE) {
		pthread_mutex_lock(&pool_mu);
		if (npool)
			p = pool[--npool];
		pthread_mutex_unlock(&pool_mu);
	}
	return p ? p : xmalloc(cap);
}

void batch_chunk_free(struct batch_chunk *c)
{
	char *p = c->data;
	if (p && c->cap == CHUNK_SIZE) {
		pthread_mutex_lock(&pool_mu);
		if (npool < POOL_MAX) {
			pool[npool++] = p;
			p = NULL;
		}
		pthread_mutex_unlock(&pool_mu);
	}
	free(p);
	memset(c, 0, sizeof(*c));
}

void batch_pool_release(void)
{
	pthread_mutex_lock(&pool_mu);
	while (npool)
		free(pool[--npool]);
	pthread_mutex_unlock(&pool_mu);
}

enum tag {
	T_ACTIVITY = 1, T_CPU_OP, T_RUNTIME, T_ANNOTATION, T_INFO, T_METRICS, T_ITERATION, T_PHASE,
	T_HARDWARE, T_SUMMARY, T_DIAG, T_END, T_MEMORY,
};

_Static_assert(sizeof(uintptr_t) == sizeof(const char *), "string slots hold an offset");

/* Where the string pointers of each struct are. */
static const size_t act_strs[] = {offsetof(struct gpu_activity, name), offsetof(struct gpu_activity, copy_kind),
				  offsetof(struct gpu_activity, collective), offsetof(struct gpu_activity, dtype),
				  offsetof(struct gpu_activity, process_group)};
static const size_t cpu_strs[] = {offsetof(struct cpu_op, name), offsetof(struct cpu_op, dims),
				  offsetof(struct cpu_op, types), offsetof(struct cpu_op, concrete)};
static const size_t rt_strs[] = {offsetof(struct runtime_call, name)};
static const size_t ann_strs[] = {offsetof(struct annotation, name)};
static const size_t met_strs[] = {offsetof(struct kernel_metrics, name), offsetof(struct kernel_metrics, block),
				  offsetof(struct kernel_metrics, grid)};
static const size_t phase_strs[] = {offsetof(struct phase_time, action)};
static const size_t hw_strs[] = {offsetof(struct gpu_hardware, dtd), offsetof(struct gpu_hardware, product),
				 offsetof(struct gpu_hardware, uuid), offsetof(struct gpu_hardware, pci_bus),
				 offsetof(struct gpu_hardware, driver), offsetof(struct gpu_hardware, cuda)};
static const size_t sum_strs[] = {offsetof(struct summary_row, name), offsetof(struct summary_row, copy_kind)};
static const size_t info_strs[] = {offsetof(struct trace_info, format), offsetof(struct trace_info, nccl_version),
				   offsetof(struct trace_info, strategy)};
static const size_t dev_strs[] = {offsetof(struct device_info, name)};
#define N(a) (sizeof(a) / sizeof((a)[0]))

void batch_writer_init(struct batch_writer *w, int (*flush)(void *ctx, struct batch_chunk *c), void *ctx)
{
	memset(w, 0, sizeof(*w));
	w->flush = flush;
	w->ctx = ctx;
}

void batch_writer_release(struct batch_writer *w)
{
	batch_chunk_free(&w->cur);
}

static int flush_chunk(struct batch_writer *w)
{
	if (w->stopped)
		return -1;
	if (!w->cur.len)
		return 0;
	if (w->flush(w->ctx, &w->cur) < 0)
		w->stopped = 1;
	batch_chunk_free(&w->cur); /* nothing when the consumer took it */
	return w->stopped ? -1 : 0;
}

/* Room for a record of payload n at the end of the current chunk; NULL when stopped. */
static char *reserve(struct batch_writer *w, uint32_t tag, size_t n)
{
	size_t need = 8 + n;
	if (w->cur.data && w->cur.len + need > w->cur.cap && flush_chunk(w) < 0)
		return NULL;
	if (w->stopped)
		return NULL;
	if (!w->cur.data) {
		w->cur.cap = need > CHUNK_SIZE ? need : CHUNK_SIZE;
		w->cur.data = chunk_get(w->cur.cap);
		w->cur.len = 0;
	}
	char *r = w->cur.data + w->cur.len;
	uint32_t h[2] = {tag, (uint32_t)n};
	memcpy(r, h, 8);
	w->cur.len += need;
	return r + 8;
}

static size_t strs_size(const void *obj, const size_t *offs, size_t n)
{
	size_t t = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s;
		memcpy(&s, (const char *)obj + offs[i], sizeof(s));
		if (s)
			t += strlen(s) + 1;
	}
	return t;
}

/*
 * Copies obj (size bytes) to payload + at, its strings to payload + *tail
 * on, the slots holding their offsets. Returns nothing: the room was counted.
 */
static void put_obj(char *payload, size_t at, size_t *tail, const void *obj, size_t size, const size_t *offs,
		    size_t n)
{
	memcpy(payload + at, obj, size);
	for (size_t i = 0; i < n; i++) {
		const char *s;
		memcpy(&s, (const char *)obj + offs[i], sizeof(s));
		uintptr_t v = 0;
		if (s) {
			size_t len = strlen(s) + 1;
			memcpy(payload + *tail, s, len);
			v = (uintptr_t)*tail + 1;
			*tail += len;
		}
		memcpy(payload + at + offs[i], &v, sizeof(v));
	}
}

static int put(struct batch_writer *w, uint32_t tag, const void *obj, size_t size, const size_t *offs, size_t n)
{
	size_t total = size + strs_size(obj, offs, n);
	char *p = reserve(w, tag, total);
	if (!p)
		return -1;
	size_t tail = size;
	put_obj(p, 0, &tail, obj, size, offs, n);
	return 0;
}

/*
 * A record holds the struct's bytes, padding included: CLEAN copies it and
 * zeroes the padding (GCC 11 and later), so that the same trace gives the
 * same bytes in a shard database, and no bytes of the writer's stack go into
 * it. Elsewhere the padding is copied as it is (replay never reads it).
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11
#define CLEAN(type, obj) type clean_ = *(obj); __builtin_clear_padding(&clean_)
#else
#define CLEAN(type, obj) type clean_ = *(obj)
#endif

static int rec_activity(void *ctx, const struct gpu_activity *a)
{
	CLEAN(struct gpu_activity, a);
	return put(ctx, T_ACTIVITY, &clean_, sizeof(clean_), act_strs, N(act_strs));
}
static int rec_cpu_op(void *ctx, const struct cpu_op *o)
{
	CLEAN(struct cpu_op, o);
	return put(ctx, T_CPU_OP, &clean_, sizeof(clean_), cpu_strs, N(cpu_strs));
}
static int rec_memory(void *ctx, const struct memory_event *m)
{
	CLEAN(struct memory_event, m);
	return put(ctx, T_MEMORY, &clean_, sizeof(clean_), NULL, 0);
}
static int rec_runtime(void *ctx, const struct runtime_call *r)
{
	CLEAN(struct runtime_call, r);
	return put(ctx, T_RUNTIME, &clean_, sizeof(clean_), rt_strs, N(rt_strs));
}
static int rec_annotation(void *ctx, const struct annotation *a)
{
	CLEAN(struct annotation, a);
	return put(ctx, T_ANNOTATION, &clean_, sizeof(clean_), ann_strs, N(ann_strs));
}
static int rec_metrics(void *ctx, const struct kernel_metrics *m)
{
	CLEAN(struct kernel_metrics, m);
	return put(ctx, T_METRICS, &clean_, sizeof(clean_), met_strs, N(met_strs));
}
static int rec_iteration(void *ctx, const struct log_iteration *it)
{
	CLEAN(struct log_iteration, it);
	return put(ctx, T_ITERATION, &clean_, sizeof(clean_), NULL, 0);
}
static int rec_phase(void *ctx, const struct phase_time *p)
{
	CLEAN(struct phase_time, p);
	return put(ctx, T_PHASE, &clean_, sizeof(clean_), phase_strs, N(phase_strs));
}
static int rec_hardware(void *ctx, const struct gpu_hardware *g)
{
	CLEAN(struct gpu_hardware, g);
	return put(ctx, T_HARDWARE, &clean_, sizeof(clean_), hw_strs, N(hw_strs));
}
static int rec_summary(void *ctx, const struct summary_row *s)
{
	CLEAN(struct summary_row, s);
	return put(ctx, T_SUMMARY, &clean_, sizeof(clean_), sum_strs, N(sum_strs));
}

/* Trace info: the struct, its devices, then all strings. */
static int rec_info(void *ctx, const struct trace_info *info)
{
	struct batch_writer *w = ctx;
	size_t fixed = sizeof(*info) + info->ndevices * sizeof(struct device_info);
	size_t total = fixed + strs_size(info, info_strs, N(info_strs));
	for (size_t i = 0; i < info->ndevices; i++)
		total += strs_size(&info->devices[i], dev_strs, N(dev_strs));
	char *p = reserve(w, T_INFO, total);
	if (!p)
		return -1;
	size_t tail = fixed;
	{
		CLEAN(struct trace_info, info);
		clean_.devices = NULL; /* they follow the struct; replay points to them */
		put_obj(p, 0, &tail, &clean_, sizeof(clean_), info_strs, N(info_strs));
	}
	for (size_t i = 0; i < info->ndevices; i++) {
		CLEAN(struct device_info, &info->devices[i]);
		put_obj(p, sizeof(*info) + i * sizeof(struct device_info), &tail, &clean_, sizeof(clean_), dev_strs,
			N(dev_strs));
	}
	return 0;
}

void batch_sink(struct batch_writer *w, const struct ingest_sink *like, struct ingest_sink *out)
{
	memset(out, 0, sizeof(*out));
	out->ctx = w;
	/* The same callbacks as the real sink: a reader may skip what nobody keeps. */
	out->info = !like || like->info ? rec_info : NULL;
	out->activity = !like || like->activity ? rec_activity : NULL;
	out->runtime = !like || like->runtime ? rec_runtime : NULL;
	out->annotation = !like || like->annotation ? rec_annotation : NULL;
	out->metrics = !like || like->metrics ? rec_metrics : NULL;
	out->iteration = !like || like->iteration ? rec_iteration : NULL;
	out->phase = !like || like->phase ? rec_phase : NULL;
	out->hardware = !like || like->hardware ? rec_hardware : NULL;
	out->summary = !like || like->summary ? rec_summary : NULL;
	out->cpu_op = !like || like->cpu_op ? rec_cpu_op : NULL;
	out->memory = !like || like->memory ? rec_memory : NULL;
}

void batch_diag(void *ctx, enum diag_level level, const char *text)
{
	struct batch_writer *w = ctx;
	size_t n = strlen(text) + 1;
	char *p = reserve(w, T_DIAG, 4 + n);
	if (!p)
		return;
	int32_t l = (int32_t)level;
	memcpy(p, &l, 4);
	memcpy(p + 4, text, n);
}

/* The end record: result, counts, meta, then the format name (empty: none). */
int batch_end(struct batch_writer *w, int result, const struct ingest_counts *counts, const char *format,
	      const struct source_meta *meta)
{
	const char *f = format ? format : "";
	size_t n = strlen(f) + 1;
	size_t fixed = 4 + sizeof(*counts) + sizeof(*meta);
	char *p = reserve(w, T_END, fixed + n);
	if (!p)
		return -1;
	int32_t r = result;
	memcpy(p, &r, 4);
	{
		CLEAN(struct ingest_counts, counts);
		memcpy(p + 4, &clean_, sizeof(clean_));
	}
	{
		CLEAN(struct source_meta, meta);
		memcpy(p + 4 + sizeof(*counts), &clean_, sizeof(clean_));
	}
	memcpy(p + fixed, f, n);
	return flush_chunk(w);
}

/* Points the string slots of obj (copied out of payload[0..len)) into the payload; -1 when one is bad. */
static int fix_strs(void *obj, const size_t *offs, size_t n, const char *payload, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		uintptr_t v;
		memcpy(&v, (char *)obj + offs[i], sizeof(v));
		const char *s = NULL;
		if (v) {
			if (v - 1 >= len || !memchr(payload + v - 1, '\0', len - (v - 1)))
				return -1;
			s = payload + v - 1;
		}
		memcpy((char *)obj + offs[i], &s, sizeof(s));
	}
	return 0;
}

/* The reader's static name for a recorded format name; NULL when none matches. */
static const char *reader_name(const char *name)
{
	size_t n;
	const struct reader *const *r = ingest_readers(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i]->name, name))
			return r[i]->name;
	return NULL;
}

/* Replays one record; 0, 1 after the end record, -1 when the sink failed, -2 when the record is bad. */
static int replay_one(uint32_t tag, const char *p, size_t len, const struct ingest_sink *sink,
		      struct batch_result *res)
{
#define ONE(type, strs, cb)                                                         \
	do {                                                                        \
		type v;                                                             \
		if (len < sizeof(v))                                                \
			return -2;                                                  \
		memcpy(&v, p, sizeof(v));                                           \
		if (fix_strs(&v, strs, N(strs), p, len) < 0)                        \
			return -2;                                                  \
		return sink->cb && sink->cb(sink->ctx, &v) < 0 ? -1 : 0;            \
	} while (0)
	switch (tag) {
	case T_ACTIVITY:
		ONE(struct gpu_activity, act_strs, activity);
	case T_CPU_OP:
		ONE(struct cpu_op, cpu_strs, cpu_op);
	case T_RUNTIME:
		ONE(struct runtime_call, rt_strs, runtime);
	case T_ANNOTATION:
		ONE(struct annotation, ann_strs, annotation);
	case T_METRICS:
		ONE(struct kernel_metrics, met_strs, metrics);
	case T_PHASE:
		ONE(struct phase_time, phase_strs, phase);
	case T_HARDWARE:
		ONE(struct gpu_hardware, hw_strs, hardware);
	case T_SUMMARY:
		ONE(struct summary_row, sum_strs, summary);
	case T_MEMORY: {
		struct memory_event v;
		if (len < sizeof(v))
			return -2;
		memcpy(&v, p, sizeof(v));
		return sink->memory && sink->memory(sink->ctx, &v) < 0 ? -1 : 0;
	}
	case T_ITERATION: {
		struct log_iteration v;
		if (len < sizeof(v))
			return -2;
		memcpy(&v, p, sizeof(v));
		return sink->iteration && sink->iteration(sink->ctx, &v) < 0 ? -1 : 0;
	}
	case T_INFO: {
		struct trace_info v;
		if (len < sizeof(v))
			return -2;
		memcpy(&v, p, sizeof(v));
		if (fix_strs(&v, info_strs, N(info_strs), p, len) < 0 ||
		    v.ndevices > (len - sizeof(v)) / sizeof(struct device_info))
			return -2;
		struct device_info *devs = xcalloc(v.ndevices + 1, sizeof(*devs));
		int r = 0;
		for (size_t i = 0; i < v.ndevices && !r; i++) {
			memcpy(&devs[i], p + sizeof(v) + i * sizeof(*devs), sizeof(*devs));
			if (fix_strs(&devs[i], dev_strs, N(dev_strs), p, len) < 0)
				r = -2;
		}
		v.devices = devs;
		if (!r && sink->info && sink->info(sink->ctx, &v) < 0)
			r = -1;
		free(devs);
		return r;
	}
	case T_DIAG: {
		int32_t l;
		if (len < 5 || p[len - 1] != '\0')
			return -2;
		memcpy(&l, p, 4);
		diag_replay(l == DIAG_WARNING ? DIAG_WARNING : l == DIAG_SYSERROR ? DIAG_SYSERROR : DIAG_ERROR, p + 4);
		return 0;
	}
	case T_END: {
		size_t fixed = 4 + sizeof(res->counts) + sizeof(res->meta);
		if (len <= fixed || p[len - 1] != '\0')
			return -2;
		int32_t r;
		memcpy(&r, p, 4);
		res->result = r;
		memcpy(&res->counts, p + 4, sizeof(res->counts));
		memcpy(&res->meta, p + 4 + sizeof(res->counts), sizeof(res->meta));
		res->meta.sha256[sizeof(res->meta.sha256) - 1] = '\0';
		res->format = p[fixed] ? reader_name(p + fixed) : NULL;
		return 1;
	}
	default:
		return -2;
	}
#undef ONE
}

int batch_replay(const char *data, size_t len, const struct ingest_sink *sink, struct batch_result *res,
		 const char *where)
{
	size_t at = 0;
	while (at < len) {
		uint32_t h[2];
		if (len - at < 8)
			goto bad;
		memcpy(h, data + at, 8);
		if (h[1] > len - at - 8)
			goto bad;
		int r = replay_one(h[0], data + at + 8, h[1], sink, res);
		if (r == -2)
			goto bad;
		if (r < 0)
			return -1;
		at += 8 + (size_t)h[1];
		if (r == 1) {
			if (at != len)
				goto bad; /* nothing may follow the end */
			return 1;
		}
	}
	return 0;
bad:
	diag_error(where, "damaged event batch at byte %zu of a chunk", at);
	return -1;
}
