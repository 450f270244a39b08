/*
 * parallel.c: worker threads reading traces ahead of the store (see
 * parallel.h).
 *
 * One mutex guards every queue; the condition variables are "a batch or
 * an end arrived" (the store thread waits on it) and "room freed" (the
 * workers wait on it). Workers claim traces in input order, so the trace
 * being stored has always been claimed, and its worker never waits on the
 * budget of the traces ahead: the store thread drains it, so nothing can
 * deadlock. A failing trace or a failed store stops the feed: the workers
 * see `cancel` at their next batch and their queued batches are dropped
 * unread, messages included.
 */
#include "ingest/parallel.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "ingest/stream.h"
#include "util/cleanup.h"
#include "util/diag.h"
#include "util/timing.h"
#include "util/xalloc.h"

/*
 * Queued batch bytes: of one trace, and of the traces after the one being
 * stored together. At least 8 MB and 32 MB; with large traces, each 40 % of
 * the largest file, so that the store's budget (1.2x the largest trace plus
 * 64 MB, issue 7) still holds and the workers are not held back by a queue
 * far smaller than a trace's batches: 8 ranks of 100 MB read 15-20 % faster
 * with --jobs 2 than under the fixed 8 MB / 32 MB.
 */
#define TRACE_LIMIT_MIN ((size_t)8 << 20)
#define AHEAD_LIMIT_MIN ((size_t)32 << 20)

struct slot {
	struct batch_chunk *q; /* queued batches, q[head..n) */
	size_t n, head, cap;
	size_t bytes;
	int skip, done;
};

struct trace_feed {
	const char *const *paths;
	size_t n;
	int jobs;
	struct slot *slots;
	feed_source_fn source;
	void *src;
	struct ingest_sink like;
	const struct ingest_sink *plike; /* &like, or NULL: record every kind */

	pthread_t *threads;
	int nthreads;
	pthread_mutex_t mu;
	pthread_cond_t data, room;
	size_t next;    /* the next trace a worker claims */
	size_t current; /* the trace being stored; SIZE_MAX before the first */
	size_t ahead;   /* queued bytes of traces after current */
	size_t trace_limit, ahead_limit;
	int cancel;
};

int feed_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

struct trace_feed *feed_new(const char *const *paths, size_t n, int jobs)
{
	struct trace_feed *f = xcalloc(1, sizeof(*f));
	f->paths = paths;
	f->n = n;
	f->jobs = jobs < 1 ? 1 : jobs;
	f->slots = xcalloc(n + 1, sizeof(*f->slots));
	f->current = SIZE_MAX;
	off_t largest = 0;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (stat(paths[i], &st) == 0 && st.st_size > largest)
			largest = st.st_size;
	}
	size_t part = (size_t)((double)largest * 0.4);
	f->trace_limit = part > TRACE_LIMIT_MIN ? part : TRACE_LIMIT_MIN;
	f->ahead_limit = part > AHEAD_LIMIT_MIN ? part : AHEAD_LIMIT_MIN;
	return f;
}

void feed_skip(struct trace_feed *f, size_t i)
{
	f->slots[i].skip = 1;
}

int feed_skipped(const struct trace_feed *f, size_t i)
{
	return f->slots[i].skip;
}

int feed_threads(const struct trace_feed *f)
{
	return f->nthreads;
}

void feed_use_source(struct trace_feed *f, feed_source_fn source, void *src)
{
	f->source = source;
	f->src = src;
}

/* A worker's trace: where its batches go. */
struct push_ctx {
	struct trace_feed *f;
	size_t i;
};

static int over_limit(struct trace_feed *f, size_t i)
{
	if (f->slots[i].bytes >= f->trace_limit)
		return 1;
	return i != f->current && f->ahead >= f->ahead_limit;
}

/*
 * The bytes a queued batch holds in memory: its chunk's size, not what it
 * uses. A trace of one kernel fills 500 bytes of a 256 KiB chunk; counted
 * by use, 32 MB of queue let 64,000 such traces be read ahead, 16 GB (689
 * MB seen, under valgrind, at 10,000 one-kernel traces).
 */
static size_t held(const struct batch_chunk *c)
{
	return c->cap > c->len ? c->cap : c->len;
}

/* batch_writer flush of a worker: queues the batch, waiting for room. */
static int push(void *ctx, struct batch_chunk *c)
{
	struct push_ctx *p = ctx;
	struct trace_feed *f = p->f;
	struct slot *s = &f->slots[p->i];
	pthread_mutex_lock(&f->mu);
	while (!f->cancel && over_limit(f, p->i))
		pthread_cond_wait(&f->room, &f->mu);
	if (f->cancel) {
		pthread_mutex_unlock(&f->mu);
		return -1;
	}
	s->q = xgrow(s->q, &s->cap, s->n + 1, sizeof(*s->q));
	s->q[s->n++] = *c;
	s->bytes += held(c);
	if (p->i != f->current)
		f->ahead += held(c);
	memset(c, 0, sizeof(*c));
	pthread_cond_broadcast(&f->data);
	pthread_mutex_unlock(&f->mu);
	return 0;
}

/* Reads trace i into batches through w; diagnostics go into the batches too. */
static void record_trace(struct trace_feed *f, size_t i, struct batch_writer *w)
{
	struct ingest_sink rec;
	struct ingest_counts counts;
	struct source_meta meta;
	const char *format = NULL;
	memset(&counts, 0, sizeof(counts));
	memset(&meta, 0, sizeof(meta));
	batch_sink(w, f->plike, &rec);
	diag_divert(batch_diag, w);
	int r = ingest_file(f->paths[i], &rec, &counts, &format, &meta);
	diag_divert(NULL, NULL);
	batch_end(w, r, &counts, format, &meta);
	diag_divert(NULL, NULL); /* the last flush may have turned it on again */
}

/*
 * Readers give way to the store thread: every trace passes through it, and
 * with more threads than cores it would otherwise wait for a core while the
 * readers fill the queues, then store the last traces alone after they are
 * done. 16 ranks of 31 MB, --jobs 2, two cores, 8 runs each: ingest median
 * 1.13 -> 1.04 s, spread 1.03-1.58 -> 1.02-1.21 s; one trace: no change.
 * Linux applies nice per thread; elsewhere this does nothing.
 */
static void lower_priority(void)
{
#ifdef SYS_gettid
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	if (nice == -1 && errno)
		return;
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), nice + 10 > 19 ? 19 : nice + 10);
#endif
}

static void *worker(void *arg)
{
	struct trace_feed *f = arg;
	lower_priority();
	pthread_mutex_lock(&f->mu);
	for (;;) {
		while (f->next < f->n && f->slots[f->next].skip)
			f->next++;
		if (f->cancel || f->next >= f->n)
			break;
		size_t i = f->next++;
		pthread_cond_broadcast(&f->data); /* the store thread may be waiting for the claim */
		pthread_mutex_unlock(&f->mu);
		struct push_ctx pc = {f, i};
		struct batch_writer w;
		batch_writer_init(&w, push, &pc);
		record_trace(f, i, &w);
		batch_writer_release(&w);
		pthread_mutex_lock(&f->mu);
		f->slots[i].done = 1;
		pthread_cond_broadcast(&f->data);
	}
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

void feed_start(struct trace_feed *f, const struct ingest_sink *like)
{
	if (like) {
		f->like = *like;
		f->plike = &f->like;
	}
	source_stream_readahead(0);
	if (f->jobs < 2 || f->source)
		return;
	size_t todo = 0;
	for (size_t i = 0; i < f->n; i++)
		todo += !f->slots[i].skip;
	int nt = todo < (size_t)f->jobs ? (int)todo : f->jobs;
	if (nt < 1)
		return;
	/*
	 * Fewer traces than cores: what is left is shared among the traces read at
	 * once, for reading and hashing ahead, cutting windows and parsing them.
	 */
	int spare = nt < f->jobs ? (f->jobs - nt) / nt : 0;
	source_stream_readahead(nt < f->jobs && spare < 1 ? 1 : spare);
	/* libxml2 (nvidia-smi files) must be set up once before threads use it. */
	xmlInitParser();
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->data, NULL);
	pthread_cond_init(&f->room, NULL);
	f->threads = xcalloc((size_t)nt, sizeof(*f->threads));
	for (int t = 0; t < nt; t++) {
		if (cleanup_thread(&f->threads[t], worker, f) != 0)
			break; /* fewer workers; the store thread reads what none claims */
		f->nthreads++;
	}
}

/* Where the batches of one trace are going: a sink (build) or a function (shard). */
struct consumer {
	const struct ingest_sink *sink;
	int (*fn)(void *ctx, const char *data, size_t len);
	void *ctx;
	const char *path;
	struct batch_writer *w; /* reading in this thread: the batches being written */
	struct batch_result res;
	int ended;
	int failed;
};

/* Replays a batch (or passes it on); -1 stops. Time spent here is the store's. */
static int consume(struct consumer *c, const char *data, size_t len)
{
	static const struct ingest_sink none;
	double t0 = timing_now();
	int r = 0;
	if (c->fn && c->fn(c->ctx, data, len) < 0)
		r = -1;
	if (!r) {
		r = batch_replay(data, len, c->fn ? &none : c->sink, &c->res, c->path);
		if (r == 1)
			c->ended = 1;
	}
	timing_add_nested(TIME_STORE, timing_now() - t0);
	if (r < 0)
		c->failed = 1;
	return r < 0 ? -1 : 0;
}

/* batch_writer flush without threads: consumed at once, in this thread. */
static int consume_now(void *ctx, struct batch_chunk *ch)
{
	struct consumer *c = ctx;
	/* The store's own messages must print, not go into the batch being flushed. */
	diag_divert(NULL, NULL);
	int r = consume(c, ch->data, ch->len);
	diag_divert(batch_diag, c->w);
	return r;
}

static int consume_shard(void *ctx, const char *data, size_t len)
{
	return consume(ctx, data, len);
}

/* Takes trace i's batches from the workers' queue as they come. */
static void consume_queued(struct trace_feed *f, size_t i, struct consumer *c)
{
	struct slot *s = &f->slots[i];
	pthread_mutex_lock(&f->mu);
	f->current = i;
	f->ahead -= s->bytes;
	pthread_cond_broadcast(&f->room);
	for (;;) {
		while (s->head == s->n && !s->done)
			pthread_cond_wait(&f->data, &f->mu);
		if (s->head == s->n)
			break;
		struct batch_chunk ch = s->q[s->head++];
		s->bytes -= held(&ch);
		pthread_cond_broadcast(&f->room);
		pthread_mutex_unlock(&f->mu);
		int r = consume(c, ch.data, ch.len);
		batch_chunk_free(&ch);
		pthread_mutex_lock(&f->mu);
		if (r < 0 || c->ended)
			break;
	}
	if (c->failed)
		f->cancel = 1; /* the build stops here: no use reading on */
	pthread_cond_broadcast(&f->room);
	pthread_mutex_unlock(&f->mu);
}

/* Trace i through consumer c, from wherever its batches come. */
static int take(struct trace_feed *f, size_t i, struct consumer *c)
{
	memset(&c->res, 0, sizeof(c->res));
	c->path = f->paths[i];
	int claimed = 0;
	if (f->nthreads) {
		pthread_mutex_lock(&f->mu);
		/*
		 * A worker will claim trace i: the traces before it are stored, so
		 * every worker is done with them or about to be. Reading it here
		 * instead would serialize parse and store (a single trace was read
		 * this way whenever this thread got here before the worker started).
		 */
		while (!f->slots[i].skip && i >= f->next && !f->cancel)
			pthread_cond_wait(&f->data, &f->mu);
		/* A skipped trace is read here if it is taken after all (it changed meanwhile). */
		claimed = !f->slots[i].skip && i < f->next;
		if (!f->slots[i].skip && i >= f->next)
			f->next = i + 1; /* cancelled: read here */
		pthread_mutex_unlock(&f->mu);
	}
	if (f->source) {
		if (f->source(f->src, i, consume_shard, c) < 0)
			c->failed = 1;
	} else if (claimed) {
		consume_queued(f, i, c);
	} else {
		struct batch_writer w;
		batch_writer_init(&w, consume_now, c);
		c->w = &w;
		record_trace(f, i, &w);
		batch_writer_release(&w);
	}
	if (c->failed)
		return -1;
	if (!c->ended) {
		diag_syserror(c->path, "reading stopped before the end of the trace");
		return -1;
	}
	return c->res.result;
}

int feed_take(struct trace_feed *f, size_t i, const struct ingest_sink *sink, struct ingest_counts *counts,
	      const char **format, struct source_meta *meta)
{
	struct consumer c;
	memset(&c, 0, sizeof(c));
	c.sink = sink;
	int r = take(f, i, &c);
	*counts = c.res.counts;
	if (format)
		*format = c.res.format;
	if (meta)
		*meta = c.res.meta;
	return r;
}

int feed_take_batches(struct trace_feed *f, size_t i, int (*fn)(void *ctx, const char *data, size_t len),
		      void *ctx)
{
	struct consumer c;
	memset(&c, 0, sizeof(c));
	c.fn = fn;
	c.ctx = ctx;
	return take(f, i, &c);
}

void feed_free(struct trace_feed *f)
{
	if (!f)
		return;
	if (f->nthreads) {
		pthread_mutex_lock(&f->mu);
		f->cancel = 1;
		pthread_cond_broadcast(&f->room);
		pthread_mutex_unlock(&f->mu);
		for (int t = 0; t < f->nthreads; t++)
			pthread_join(f->threads[t], NULL);
	}
	if (f->threads) {
		pthread_mutex_destroy(&f->mu);
		pthread_cond_destroy(&f->data);
		pthread_cond_destroy(&f->room);
	}
	for (size_t i = 0; i < f->n; i++) {
		for (size_t k = f->slots[i].head; k < f->slots[i].n; k++)
			batch_chunk_free(&f->slots[i].q[k]);
		free(f->slots[i].q);
	}
	free(f->slots);
	free(f->threads);
	free(f);
	batch_pool_release();
}
