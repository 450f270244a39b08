/*
 * kineto_cut.c: the windows of kineto_stream.c cut on a thread of their
 * own, and parsed by the calling thread, or by it and parse helpers, in
 * the order a single thread would (kineto_stream_int.h).
 */
#include "ingest/kineto/kineto_stream_int.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cleanup.h"
#include "util/diag.h"
#include "util/timing.h"
#include "util/xalloc.h"

/*
 * The cutter: with a core to spare (source_stream_spare_core), a thread of
 * its own reads (inflates), scans and cuts the windows, and the calling
 * thread only parses them, in order, from a ring of copies. The cutter's
 * messages (a read error, a corrupt gzip) are held with the next window, or
 * with the end, and given out by the calling thread just before it, where
 * reading in one thread would have given them; the stores and messages are
 * the same either way (tests/e2e/t_perf.sh compares them). One 113 MB
 * .json.gz: the parsing thread, the build's longest, loses inflating,
 * scanning and reading (bench/RESULTS.md).
 *
 * Parse helpers (source_stream_parse_helpers, more cores to spare): then
 * the windows are parsed by the calling thread and the helpers at once,
 * each into the window's list of events (copies of the strings that do not
 * point into the window's bytes, which stay until the window is given out),
 * and the calling thread alone gives the lists out, in the windows' order,
 * to the caller's on_event: the calls, and so the rows and messages, are
 * the same as parsing in one thread; only simdjson's walk runs in parallel.
 */
#define CUT_SLOTS 3       /* without helpers */
#define CUT_SLOTS_MAX 16  /* with them: two a parsing thread, and one */

struct cut_msg {
	enum diag_level level;
	char *text;
};

/* A string arena whose blocks never move, so that events may point into it. */
struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	char data[];
};

/* The events of one window, parsed by a helper or the calling thread, to be given out. */
struct ev_list {
	struct kj_event *evs;
	size_t n, cap;
	struct arena_block *blocks, *cur; /* blocks are kept from window to window */
	const char *lo, *hi;              /* the window's bytes: strings there are not copied */
};

struct cut_win {
	char *buf;            /* a buffer of the framer's: the window at buf[start..start+len), then ']' and padding */
	size_t start, len, cap, base; /* cap: as the framer's (bytes before FRAME_PAD); base: file offset of buf[0] */
	int closed;
	int last;             /* the array never ended (kstream_parse_bytes) */
	int end;              /* no window: the cutter is done, with result */
	int result;
	struct cut_msg *msgs; /* the cutter's messages before this */
	size_t nmsgs;
	/* with helpers */
	int parsed;           /* the list is complete, with parse_r */
	int parse_r;          /* kstream_parse_bytes' result */
	struct kj_error err;  /* its error when parse_r < 0 */
	struct ev_list list;
};

struct cutter {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct framer *f;
	struct cut_win slots[CUT_SLOTS_MAX]; /* a ring: [head, tail) queued, [head] given out next */
	size_t nslots;
	uint64_t head, tail;
	uint64_t claim;                      /* with helpers: [head, claim) parsed or being parsed */
	int cancel;                          /* the parser stopped: the cutter and helpers stop too */
	struct cut_msg *msgs;                /* held for the next window */
	size_t nmsgs, msgcap;
	pthread_t *helpers;
	int nhelpers;
};

static void cut_capture(void *ctx, enum diag_level level, const char *text)
{
	struct cutter *c = ctx;
	c->msgs = xgrow(c->msgs, &c->msgcap, c->nmsgs + 1, sizeof(*c->msgs));
	c->msgs[c->nmsgs++] = (struct cut_msg){level, xstrdup(text)};
}

/*
 * Queues the window c->f->buf[start..start+n) (or, end set, the end, with
 * result); 1 when the parser stopped. Called in the cutter.
 */
int kstream_cut_push(struct cutter *c, size_t start, size_t n, int closed, int last, int end, int result)
{
	pthread_mutex_lock(&c->mu);
	while (c->tail - c->head == c->nslots && !c->cancel)
		pthread_cond_wait(&c->cv, &c->mu);
	int cancel = c->cancel;
	pthread_mutex_unlock(&c->mu);
	if (cancel)
		return 1;
	struct cut_win *w = &c->slots[c->tail % c->nslots];
	if (!end) {
		/*
		 * The framer's buffer, window and all, goes to the slot, and the slot's
		 * (a window already given out) to the framer, with the bytes the framer
		 * reads next copied to the same places: from the window's end, or its
		 * ']' (the tail's first byte). No copy of the window (one 113 MB
		 * trace: 113 MB of copying less on the cutter).
		 */
		struct framer *f = c->f;
		size_t from = closed && n ? start + n - 1 : start + n;
		char *nb = w->buf;
		size_t ncap = w->cap;
		if (!nb || ncap < f->cap) {
			free(nb);
			ncap = f->cap;
			nb = xmalloc(ncap + FRAME_PAD);
		}
		memcpy(nb + from, f->buf + from, f->len - from + SOURCE_PADDING);
		w->buf = f->buf;
		w->cap = f->cap;
		w->start = start;
		w->base = f->base;
		f->buf = nb;
		f->cap = ncap;
	}
	w->len = n;
	w->closed = closed;
	w->last = last;
	w->end = end;
	w->result = result;
	w->parsed = 0;
	w->msgs = c->msgs;
	w->nmsgs = c->nmsgs;
	c->msgs = NULL;
	c->nmsgs = c->msgcap = 0;
	pthread_mutex_lock(&c->mu);
	c->tail++;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	return 0;
}

/* A copy of s[0..n) and a NUL in the list's arena. */
static const char *arena_copy(struct ev_list *l, const char *s, size_t n)
{
	struct arena_block *b = l->cur;
	while (b && b->cap - b->used < n + 1) {
		b = b->next;
		if (b)
			b->used = 0;
	}
	if (!b) {
		size_t cap = n + 1 > 65536 ? n + 1 : 65536;
		b = xmalloc(sizeof(*b) + cap);
		b->used = 0;
		b->cap = cap;
		b->next = NULL;
		if (l->cur) {
			/* After the current block, before the ones kept from earlier windows. */
			b->next = l->cur->next;
			l->cur->next = b;
		} else {
			b->next = l->blocks;
			l->blocks = b;
		}
	}
	l->cur = b;
	char *d = b->data + b->used;
	memcpy(d, s, n);
	d[n] = '\0';
	b->used += n + 1;
	return d;
}

/* A string of an event kept: pointing into the window, or copied. */
static void keep_str(struct ev_list *l, struct kj_str *s)
{
	if (!s->p || (s->p >= l->lo && s->p < l->hi))
		return;
	s->p = s->n == 1 && s->p[0] == 'X' ? "X" : arena_copy(l, s->p, s->n);
}

/* kj_event_fn of a helper: the event, with its strings, into the window's list. */
static int list_event(void *ctx, const struct kj_event *ev)
{
	struct ev_list *l = ctx;
	if (l->n == l->cap)
		l->evs = xgrow(l->evs, &l->cap, l->n + 1, sizeof(*l->evs));
	struct kj_event *e = &l->evs[l->n++];
	*e = *ev;
	keep_str(l, &e->ph);
	keep_str(l, &e->cat);
	keep_str(l, &e->name);
	keep_str(l, &e->ts);
	keep_str(l, &e->dur);
	keep_str(l, &e->collective);
	keep_str(l, &e->dtype);
	keep_str(l, &e->process_group);
	keep_str(l, &e->dims);
	keep_str(l, &e->types);
	keep_str(l, &e->concrete);
	return 0;
}

static void list_free(struct ev_list *l)
{
	free(l->evs);
	for (struct arena_block *b = l->blocks, *nx; b; b = nx) {
		nx = b->next;
		free(b);
	}
}

/* Parses window w into its list, with parser p. Outside the lock; w is this thread's until parsed is set. */
static void parse_into_list(struct cutter *c, struct cut_win *w, struct kj_parser *p)
{
	struct ev_list *l = &w->list;
	l->n = 0;
	l->cur = l->blocks;
	if (l->cur)
		l->cur->used = 0;
	l->lo = w->buf;
	l->hi = w->buf + w->cap + FRAME_PAD;
	memset(&w->err, 0, sizeof(w->err));
	struct parse_to to = {p, list_event, l, &w->err};
	w->parse_r = kstream_parse_bytes(c->f, &to, w->buf, w->start, w->start + w->len, w->closed, w->last, w->base);
}

/*
 * The next window to parse, claimed (with the lock held); NULL when there is
 * none queued. The end is never claimed: it has no bytes.
 */
static struct cut_win *cut_claim(struct cutter *c)
{
	if (c->cancel || c->claim == c->tail)
		return NULL;
	struct cut_win *w = &c->slots[c->claim % c->nslots];
	if (w->end)
		return NULL;
	c->claim++;
	return w;
}

static void *helper_main(void *arg)
{
	struct cutter *c = arg;
	struct kj_parser *p = kstream_thread_parser();
	pthread_mutex_lock(&c->mu);
	for (;;) {
		struct cut_win *w = cut_claim(c);
		if (!w) {
			if (c->cancel) /* the calling thread is done (at the end too) or stopped */
				break;
			pthread_cond_wait(&c->cv, &c->mu);
			continue;
		}
		pthread_mutex_unlock(&c->mu);
		parse_into_list(c, w, p);
		pthread_mutex_lock(&c->mu);
		w->parsed = 1;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	return NULL;
}

/* Gives a parsed window's events out to the caller's on_event; what kstream_parse_bytes returned, or 1 when on_event stopped. */
static int give_out(struct framer *f, struct cut_win *w)
{
	struct timing_span sp;
	timing_span_begin(&sp);
	int r = 0;
	for (size_t i = 0; i < w->list.n && !r; i++)
		r = f->on_event(f->ctx, &w->list.evs[i]) ? 1 : 0;
	timing_span_end(&sp, TIME_PARSE);
	if (r)
		return r;
	if (w->parse_r < 0)
		*f->err = w->err;
	return w->parse_r;
}

static void *cut_main(void *arg)
{
	struct cutter *c = arg;
	diag_divert(cut_capture, c);
	int r = kstream_run(c->f);
	diag_divert(NULL, NULL);
	kstream_cut_push(c, 0, 0, 0, 0, 1, r); /* nothing when the parser stopped */
	return NULL;
}

/*
 * Parses the cutter's windows in order until its end or a stop; returns what
 * kstream_run() would have. With helpers, this thread parses what they have not
 * claimed while it waits for the next window's list.
 */
static int cut_parse(struct framer *f, struct cutter *c)
{
	int r = 0;
	pthread_mutex_lock(&c->mu);
	for (;;) {
		struct cut_win *w = &c->slots[c->head % c->nslots];
		int ready = c->head < c->tail && (w->end || !c->nhelpers || w->parsed);
		if (!ready) {
			struct cut_win *mine = c->nhelpers ? cut_claim(c) : NULL;
			if (mine) {
				pthread_mutex_unlock(&c->mu);
				parse_into_list(c, mine, f->parser);
				pthread_mutex_lock(&c->mu);
				mine->parsed = 1;
				pthread_cond_broadcast(&c->cv);
			} else {
				pthread_cond_wait(&c->cv, &c->mu);
			}
			continue;
		}
		pthread_mutex_unlock(&c->mu);
		for (size_t i = 0; i < w->nmsgs; i++) {
			diag_replay(w->msgs[i].level, w->msgs[i].text);
			free(w->msgs[i].text);
		}
		free(w->msgs);
		w->msgs = NULL;
		w->nmsgs = 0;
		int end = w->end;
		if (end) {
			r = w->result;
		} else if (c->nhelpers) {
			r = give_out(f, w);
		} else {
			struct parse_to to = kstream_framer_to(f);
			r = kstream_parse_bytes(f, &to, w->buf, w->start, w->start + w->len, w->closed, w->last, w->base);
		}
		pthread_mutex_lock(&c->mu);
		c->head++;
		if (c->claim < c->head)
			c->claim = c->head;
		/* Done, or stopped: the cutter stops (if it has not), the helpers too. */
		if (end || r)
			c->cancel = 1;
		pthread_cond_broadcast(&c->cv);
		if (end || r)
			break;
	}
	pthread_mutex_unlock(&c->mu);
	return r;
}

/* kstream_run(), with the reading and cutting on a thread of its own; -3 when no thread could start. */
int kstream_run_cut(struct framer *f, int nhelpers)
{
	struct cutter *c = xcalloc(1, sizeof(*c));
	c->f = f;
	c->nslots = nhelpers ? 2 * (size_t)(nhelpers + 1) + 1 : CUT_SLOTS;
	if (c->nslots > CUT_SLOTS_MAX)
		c->nslots = CUT_SLOTS_MAX;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	f->cut = c;
	int r = -3;
	if (cleanup_thread(&c->thread, cut_main, c) == 0) {
		if (nhelpers) {
			c->helpers = xcalloc((size_t)nhelpers, sizeof(*c->helpers));
			pthread_mutex_lock(&c->mu);
			for (int i = 0; i < nhelpers; i++) {
				if (cleanup_thread(&c->helpers[i], helper_main, c) != 0)
					break; /* fewer helpers */
				c->nhelpers++;
			}
			pthread_mutex_unlock(&c->mu);
		}
		r = cut_parse(f, c);
		pthread_join(c->thread, NULL);
		for (int i = 0; i < c->nhelpers; i++)
			pthread_join(c->helpers[i], NULL);
	}
	f->cut = NULL;
	for (size_t i = 0; i < c->nslots; i++) {
		for (size_t k = 0; k < c->slots[i].nmsgs; k++)
			free(c->slots[i].msgs[k].text);
		free(c->slots[i].msgs);
		free(c->slots[i].buf);
		list_free(&c->slots[i].list);
	}
	/* Held for a window that never came (the parser stopped first): dropped, as reading would have stopped. */
	for (size_t k = 0; k < c->nmsgs; k++)
		free(c->msgs[k].text);
	free(c->msgs);
	free(c->helpers);
	pthread_mutex_destroy(&c->mu);
	pthread_cond_destroy(&c->cv);
	free(c);
	return r;
}
