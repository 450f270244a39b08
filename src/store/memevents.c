/*
 * memevents.c: the caching allocator's events (Kineto "[memory]") in the
 * store's memory_events table, compactly: a trace's events are held until
 * its end, put in order of time (file order among equal times), and stored
 * MEM_CHUNK to a row as one blob of varints, each field a difference from
 * the event before it in the chunk; and read back by store_mem_decode.
 *
 * Only the events memory_steps.c reads are kept: those of a GPU
 * (device_type 1, device id 0 or more) whose total allocated is within
 * [0, STORE_MEM_MAX], bytes within [-STORE_MEM_MAX, STORE_MEM_MAX] and
 * total reserved, when recorded, within [0, STORE_MEM_MAX]; the others
 * were never read (the query that read the one-row-per-event table left
 * them out).
 *
 * An event's fields, in this order (varint: 7 bits a byte, low first, the
 * high bit set on all but the last; zigzag: 2v for v >= 0, -2v - 1 else):
 *   head      varint: device << 3 | 4 (reserved recorded) | 2 (addr
 *             recorded) | 1 (tid recorded)
 *   tid       varint, when recorded
 *   ts        zigzag of ts_ns - the previous event's (the first: - 0)
 *   bytes     zigzag
 *   addr      zigzag of addr - the previous recorded addr's (0 at first),
 *             when recorded
 *   allocated zigzag of total_allocated - (the previous event's + bytes):
 *             0, one byte, when the allocator's totals add up
 *   reserved  zigzag of total_reserved - the previous recorded one's (0 at
 *             first), when recorded
 * Differences are taken modulo 2^64, so any int64 round-trips. A chunk
 * starts from zeros, so each row decodes alone.
 *
 * Held until the trace's end, the events are coded the same way as they
 * come: a run of events in order of time is one such stream (from zeros),
 * and an event earlier than the one before it starts the next run. A Kineto
 * trace's events come in order of time thread by thread, some hundred
 * runs; coded, an event takes about 15 bytes held instead of 64 (the big
 * benchmark trace's 380,000: 24 MB of page faults at the peak of its
 * ingest). At the end the runs are merged by time into the rows.
 */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/intmap.h"
#include "util/xalloc.h"

/* Events in one memory_events row: 4096 events, about 60 kB. */
#define MEM_CHUNK 4096

/* A run of held events: bytes [off, the next run's off or mevlen) of mevb, n events from the trace's seq-th. */
struct mem_hrun {
	size_t off, n, seq;
};

void store_mem_reset(struct store *s)
{
	s->nmev = s->mevlen = s->nmruns = 0;
}

void store_mem_release(struct store *s)
{
	free(s->mevb);
	free(s->mruns);
	s->mevb = NULL;
	s->mruns = NULL;
	s->nmev = s->mevlen = s->mevcap = s->nmruns = s->mrunscap = 0;
}

static int in_bytes(int64_t v, int64_t lo)
{
	return v >= lo && v <= STORE_MEM_MAX;
}

/* v as a varint at t; its length. */
static size_t put_varint(unsigned char *t, uint64_t v)
{
	size_t n = 0;
	while (v >= 0x80) {
		t[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (unsigned char)v;
	return n;
}

static size_t put_diff(unsigned char *t, int64_t v, int64_t prev)
{
	uint64_t d = (uint64_t)v - (uint64_t)prev;
	return put_varint(t, (d << 1) ^ (0 - (d >> 63)));
}

/* Event e coded at t (at most 7 varints: 70 bytes) after the state c, which it moves on; its length. */
static size_t code_event(unsigned char *t, const struct store_mem_event *e, struct mem_coder *c)
{
	size_t k = put_varint(t, (uint64_t)e->device << 3 | (e->total_reserved >= 0) << 2 | (e->addr >= 0) << 1 |
				     (e->tid >= 0));
	if (e->tid >= 0)
		k += put_varint(t + k, (uint64_t)e->tid);
	k += put_diff(t + k, e->ts_ns, c->ts);
	k += put_diff(t + k, e->bytes, 0);
	if (e->addr >= 0) {
		k += put_diff(t + k, e->addr, c->addr);
		c->addr = e->addr;
	}
	k += put_diff(t + k, e->total_allocated, (int64_t)((uint64_t)c->tot + (uint64_t)e->bytes));
	if (e->total_reserved >= 0) {
		k += put_diff(t + k, e->total_reserved, c->rsv);
		c->rsv = e->total_reserved;
	}
	c->ts = e->ts_ns;
	c->tot = e->total_allocated;
	return k;
}

static int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t r = 0;
	for (int sh = 0; sh < 64 && *p < end; sh += 7) {
		unsigned char c = *(*p)++;
		r |= (uint64_t)(c & 0x7f) << sh;
		if (!(c & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -1;
}

static int get_diff(const unsigned char **p, const unsigned char *end, int64_t prev, int64_t *v)
{
	uint64_t z;
	if (get_varint(p, end, &z) < 0)
		return -1;
	*v = (int64_t)((uint64_t)prev + ((z >> 1) ^ (0 - (z & 1))));
	return 0;
}

/* The event coded at *p (before end) after the state c into e, moving *p and c on; 0, or -1 when cut short. */
static int decode_event(const unsigned char **p, const unsigned char *end, struct mem_coder *c,
			struct store_mem_event *e)
{
	uint64_t head, tid = 0;
	if (get_varint(p, end, &head) < 0 || head >> 3 > INT32_MAX || ((head & 1) && get_varint(p, end, &tid) < 0))
		return -1;
	e->device = (int)(head >> 3);
	e->tid = head & 1 ? (int64_t)tid : -1;
	if (get_diff(p, end, c->ts, &e->ts_ns) < 0 || get_diff(p, end, 0, &e->bytes) < 0)
		return -1;
	e->addr = -1;
	if ((head & 2) && get_diff(p, end, c->addr, &e->addr) < 0)
		return -1;
	if (head & 2)
		c->addr = e->addr;
	if (get_diff(p, end, (int64_t)((uint64_t)c->tot + (uint64_t)e->bytes), &e->total_allocated) < 0)
		return -1;
	e->total_reserved = -1;
	if ((head & 4) && get_diff(p, end, c->rsv, &e->total_reserved) < 0)
		return -1;
	if (head & 4)
		c->rsv = e->total_reserved;
	c->ts = e->ts_ns;
	c->tot = e->total_allocated;
	return 0;
}

void store_mem_add(struct store *s, const struct memory_event *m)
{
	if (m->device_type != 1 || m->device < 0 || !in_bytes(m->total_allocated, 0) ||
	    !in_bytes(m->bytes, -STORE_MEM_MAX) || (m->total_reserved >= 0 && !in_bytes(m->total_reserved, 0)))
		return;
	struct store_mem_event e = {m->ts_ns, m->bytes, m->addr >= 0 ? m->addr : -1, m->total_allocated,
				    m->total_reserved >= 0 ? m->total_reserved : -1, m->tid >= 0 ? m->tid : -1,
				    m->device};
	if (!s->nmruns || e.ts_ns < s->mcode.ts) {
		/* earlier than the event before it: a new run, coded from zeros */
		s->mruns = xgrow(s->mruns, &s->mrunscap, s->nmruns + 1, sizeof(*s->mruns));
		s->mruns[s->nmruns++] = (struct mem_hrun){s->mevlen, 0, s->nmev};
		s->mcode = (struct mem_coder){0};
	}
	s->mevb = xgrow(s->mevb, &s->mevcap, s->mevlen + 70, 1);
	s->mevlen += code_event(s->mevb + s->mevlen, &e, &s->mcode);
	s->mruns[s->nmruns - 1].n++;
	s->nmev++;
}

/* The row of chunk number chunk: the n events ev[0..n), in order, coded into b. */
static int put_chunk(struct store *s, int64_t trace_id, int64_t chunk, const struct store_mem_event *ev, size_t n,
		     struct buf *b)
{
	struct mem_coder c = {0};
	buf_reset(b);
	for (size_t i = 0; i < n; i++) {
		unsigned char t[7 * 10]; /* an event's at most 7 varints, one buf_add */
		buf_add(b, t, code_event(t, &ev[i], &c));
	}
	if (store_sql_prepare_kept(s, "prepare", "INSERT INTO memory_events(trace_id, chunk, events, data)"
			       " VALUES(?1,?2,?3,?4)", &s->ins_mem) < 0)
		return -1;
	sqlite3_stmt *st = s->ins_mem;
	sqlite3_bind_int64(st, 1, trace_id);
	sqlite3_bind_int64(st, 2, chunk);
	sqlite3_bind_int64(st, 3, (int64_t)n);
	sqlite3_bind_blob(st, 4, b->data, (int)b->len, SQLITE_STATIC);
	return store_sql_step_done(s, st, "insert memory events");
}

/* A run being merged: where its next event is coded, its state, how many are left, and the current one, decoded. */
struct mem_cursor {
	const unsigned char *p, *end;
	struct mem_coder c;
	size_t left, next; /* next: the place in the trace of the event after e */
	struct store_mem_event e;
	size_t seq;        /* e's place in the trace */
};

/* Decodes the run's next event into k->e: 1, 0 when the run has none left, -1 when its bytes are cut short. */
static int cursor_next(struct mem_cursor *k)
{
	if (!k->left)
		return 0;
	k->left--;
	k->seq = k->next++;
	return decode_event(&k->p, k->end, &k->c, &k->e) < 0 ? -1 : 1;
}

/* Time, then place in the trace: the order of the rows (a total order). */
static int cursor_before(const struct mem_cursor *a, const struct mem_cursor *b)
{
	if (a->e.ts_ns != b->e.ts_ns)
		return a->e.ts_ns < b->e.ts_ns;
	return a->seq < b->seq;
}

/* Restores the heap of cursors (the one whose event comes first on top) below h[i]. */
static void sift_down(struct mem_cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && cursor_before(&h[l], &h[m]))
			m = l;
		if (l + 1 < n && cursor_before(&h[l + 1], &h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct mem_cursor t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

/*
 * The allocations that no later event undoes, found on the events' walk in
 * store order, for memsites.c (store_memsites_keep): an allocation (bytes
 * > 0, an address) stays live until an event of its device frees its
 * address or allocates it again. memory_steps.c reads the same events in
 * the same order and calls kept an allocation still live at the end (and
 * made in a step before the last), on its rank's first device only; so its
 * kept allocations are among these, whatever the steps and devices, and
 * memory_ops needs the operators around these alone. A (device, address)
 * is an entry: intmap finds an address's first, the others of the same
 * address (other devices; not in a real trace) follow its chain.
 */
struct addr_state {
	int64_t addr, tid, ts;
	int device, live;
	size_t next; /* the same address on another device, or SIZE_MAX */
};

struct live_set {
	struct intmap map;
	struct addr_state *v;
	size_t n, cap;
};

static void live_event(struct live_set *l, const struct store_mem_event *e)
{
	if (e->addr < 0 || !e->bytes)
		return;
	size_t i = intmap_get(&l->map, e->addr), last = SIZE_MAX;
	while (i != SIZE_MAX && l->v[i].device != e->device) {
		last = i;
		i = l->v[i].next;
	}
	if (i == SIZE_MAX) {
		if (e->bytes < 0)
			return; /* freed, never allocated here: allocated before the trace */
		l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
		i = l->n++;
		l->v[i] = (struct addr_state){.addr = e->addr, .device = e->device, .next = SIZE_MAX};
		if (last == SIZE_MAX)
			intmap_index(&l->map, e->addr, i);
		else
			l->v[last].next = i;
	}
	l->v[i].live = e->bytes > 0;
	l->v[i].tid = e->tid;
	l->v[i].ts = e->ts_ns;
}

/* The live set's allocations (their thread and time) to memsites.c; frees the set. */
static void live_done(struct store *s, struct live_set *l)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].live && l->v[i].tid >= 0)
			l->v[n++] = l->v[i];
	struct alloc_at *keep = xmalloc((n ? n : 1) * sizeof(*keep));
	for (size_t i = 0; i < n; i++)
		keep[i] = (struct alloc_at){l->v[i].tid, l->v[i].ts};
	store_memsites_keep(s, keep, n);
	free(keep);
	intmap_free(&l->map);
	free(l->v);
}

/*
 * The events go in by time, merged from the runs in which they were held,
 * not sorted: a trace's events come in order of time thread by thread,
 * some hundred runs (the big Kineto trace: 364k events, 323 runs), and
 * qsort of the 64-byte events cost more than the encoding. The merge's
 * order (time, then place in the trace) is a total order, so it is the
 * sort's.
 */
int store_mem_flush(struct store *s, int64_t trace_id)
{
	struct live_set live = {0};
	if (!s->nmev) {
		live_done(s, &live);
		return 0;
	}
	size_t nh = 0;
	struct mem_cursor *h = xmalloc(s->nmruns * sizeof(*h));
	int rc = 0;
	for (size_t r = 0; r < s->nmruns && rc == 0; r++) {
		const struct mem_hrun *run = &s->mruns[r];
		struct mem_cursor *k = &h[nh++];
		*k = (struct mem_cursor){.p = s->mevb + run->off,
					 .end = s->mevb + (r + 1 < s->nmruns ? s->mruns[r + 1].off : s->mevlen),
					 .left = run->n, .next = run->seq};
		if (cursor_next(k) < 1) /* a run holds one event at least */
			rc = store_fail(s, "decode the held memory events");
	}
	for (size_t i = nh / 2; i-- > 0;)
		sift_down(h, nh, i);
	struct store_mem_event *chunk = xmalloc(MEM_CHUNK * sizeof(*chunk));
	struct buf b;
	buf_init(&b);
	size_t n = 0;
	int64_t row = 0;
	while (nh && rc == 0) {
		live_event(&live, &h[0].e);
		chunk[n++] = h[0].e;
		int more = cursor_next(&h[0]);
		if (more < 0)
			rc = store_fail(s, "decode the held memory events");
		else if (!more)
			h[0] = h[--nh];
		sift_down(h, nh, 0);
		if (rc == 0 && (n == MEM_CHUNK || !nh)) {
			rc = put_chunk(s, trace_id, row++, chunk, n, &b);
			n = 0;
		}
	}
	buf_release(&b);
	free(chunk);
	free(h);
	live_done(s, &live);
	store_mem_release(s); /* the next trace may have none: its memory back now */
	return rc;
}

/* ---- reading ---- */

int store_mem_decode(const void *data, size_t len, size_t n, struct store_mem_event *out)
{
	const unsigned char *p = data, *end = p + len;
	struct mem_coder c = {0};
	for (size_t i = 0; i < n; i++)
		if (decode_event(&p, end, &c, &out[i]) < 0)
			return -1;
	return p == end ? 0 : -1;
}
