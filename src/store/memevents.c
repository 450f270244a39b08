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
 */
#include "store/store_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/intmap.h"
#include "util/xalloc.h"

/* Events in one memory_events row: 4096 events, about 60 kB. */
#define MEM_CHUNK 4096

struct mem_pending {
	struct store_mem_event e;
	size_t seq; /* its place in the trace */
};

void store_mem_reset(struct store *s)
{
	s->nmev = 0;
}

void store_mem_release(struct store *s)
{
	free(s->mev);
	s->mev = NULL;
	s->nmev = s->mevcap = 0;
}

static int in_bytes(int64_t v, int64_t lo)
{
	return v >= lo && v <= STORE_MEM_MAX;
}

void store_mem_add(struct store *s, const struct memory_event *m)
{
	if (m->device_type != 1 || m->device < 0 || !in_bytes(m->total_allocated, 0) ||
	    !in_bytes(m->bytes, -STORE_MEM_MAX) || (m->total_reserved >= 0 && !in_bytes(m->total_reserved, 0)))
		return;
	s->mev = xgrow(s->mev, &s->mevcap, s->nmev + 1, sizeof(*s->mev));
	struct mem_pending *p = &s->mev[s->nmev];
	p->e = (struct store_mem_event){m->ts_ns, m->bytes, m->addr >= 0 ? m->addr : -1, m->total_allocated,
					m->total_reserved >= 0 ? m->total_reserved : -1, m->tid >= 0 ? m->tid : -1,
					m->device};
	p->seq = s->nmev++;
}

static int cmp_pending(const void *pa, const void *pb)
{
	const struct mem_pending *a = pa, *b = pb;
	if (a->e.ts_ns != b->e.ts_ns)
		return a->e.ts_ns < b->e.ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
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

/* The row of chunk number chunk: the n events p[0..n), in order, encoded into b. */
static int put_chunk(struct store *s, int64_t trace_id, int64_t chunk, const struct mem_pending *const *p, size_t n,
		     struct buf *b)
{
	int64_t ts = 0, addr = 0, tot = 0, rsv = 0;
	buf_reset(b);
	for (size_t i = 0; i < n; i++) {
		const struct store_mem_event *e = &p[i]->e;
		unsigned char t[7 * 10]; /* an event's at most 7 varints, one buf_add */
		size_t k = put_varint(t, (uint64_t)e->device << 3 | (e->total_reserved >= 0) << 2 |
						 (e->addr >= 0) << 1 | (e->tid >= 0));
		if (e->tid >= 0)
			k += put_varint(t + k, (uint64_t)e->tid);
		k += put_diff(t + k, e->ts_ns, ts);
		k += put_diff(t + k, e->bytes, 0);
		if (e->addr >= 0) {
			k += put_diff(t + k, e->addr, addr);
			addr = e->addr;
		}
		k += put_diff(t + k, e->total_allocated, (int64_t)((uint64_t)tot + (uint64_t)e->bytes));
		if (e->total_reserved >= 0) {
			k += put_diff(t + k, e->total_reserved, rsv);
			rsv = e->total_reserved;
		}
		buf_add(b, t, k);
		ts = e->ts_ns;
		tot = e->total_allocated;
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

/* A run of held events already in cmp_pending's order: mev[at..end). */
struct mem_run {
	size_t at, end;
};

/* Restores the heap of runs (the run whose next event comes first on top) below h[i]. */
static void sift_down(const struct mem_pending *mev, struct mem_run *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		if (l < n && cmp_pending(&mev[h[l].at], &mev[h[m].at]) < 0)
			m = l;
		if (l + 1 < n && cmp_pending(&mev[h[l + 1].at], &mev[h[m].at]) < 0)
			m = l + 1;
		if (m == i)
			return;
		struct mem_run t = h[i];
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
 * qsort of the 64-byte events cost more than the encoding. cmp_pending
 * is a total order (seq breaks ties), so the order is the sort's.
 */
int store_mem_flush(struct store *s, int64_t trace_id)
{
	struct live_set live = {0};
	if (!s->nmev) {
		live_done(s, &live);
		return 0;
	}
	struct mem_run *runs = NULL;
	size_t nruns = 0, runcap = 0;
	for (size_t i = 0; i < s->nmev;) {
		size_t j = i + 1;
		while (j < s->nmev && cmp_pending(&s->mev[j - 1], &s->mev[j]) < 0)
			j++;
		runs = xgrow(runs, &runcap, nruns + 1, sizeof(*runs));
		runs[nruns++] = (struct mem_run){i, j};
		i = j;
	}
	for (size_t i = nruns / 2; i-- > 0;)
		sift_down(s->mev, runs, nruns, i);
	const struct mem_pending **chunk = xmalloc(MEM_CHUNK * sizeof(*chunk));
	struct buf b;
	buf_init(&b);
	int rc = 0;
	size_t n = 0;
	int64_t row = 0;
	while (nruns && rc == 0) {
		live_event(&live, &s->mev[runs[0].at].e);
		chunk[n++] = &s->mev[runs[0].at++];
		if (runs[0].at == runs[0].end)
			runs[0] = runs[--nruns];
		sift_down(s->mev, runs, nruns, 0);
		if (n == MEM_CHUNK || !nruns) {
			rc = put_chunk(s, trace_id, row++, chunk, n, &b);
			n = 0;
		}
	}
	buf_release(&b);
	free(chunk);
	free(runs);
	live_done(s, &live);
	store_mem_release(s); /* the next trace may have none: its memory back now */
	return rc;
}

/* ---- reading ---- */

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

int store_mem_decode(const void *data, size_t len, size_t n, struct store_mem_event *out)
{
	const unsigned char *p = data, *end = p + len;
	int64_t ts = 0, addr = 0, tot = 0, rsv = 0;
	for (size_t i = 0; i < n; i++) {
		struct store_mem_event *e = &out[i];
		uint64_t head, tid = 0;
		if (get_varint(&p, end, &head) < 0 || head >> 3 > INT32_MAX || ((head & 1) && get_varint(&p, end, &tid) < 0))
			return -1;
		e->device = (int)(head >> 3);
		e->tid = head & 1 ? (int64_t)tid : -1;
		if (get_diff(&p, end, ts, &e->ts_ns) < 0 || get_diff(&p, end, 0, &e->bytes) < 0)
			return -1;
		e->addr = -1;
		if ((head & 2) && get_diff(&p, end, addr, &e->addr) < 0)
			return -1;
		if (head & 2)
			addr = e->addr;
		if (get_diff(&p, end, (int64_t)((uint64_t)tot + (uint64_t)e->bytes), &e->total_allocated) < 0)
			return -1;
		e->total_reserved = -1;
		if ((head & 4) && get_diff(&p, end, rsv, &e->total_reserved) < 0)
			return -1;
		if (head & 4)
			rsv = e->total_reserved;
		ts = e->ts_ns;
		tot = e->total_allocated;
	}
	return p == end ? 0 : -1;
}
