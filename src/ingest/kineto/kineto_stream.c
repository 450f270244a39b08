/*
 * kineto_stream.c: cuts a Kineto trace into windows of whole events (see
 * kineto_stream.h).
 *
 * Three phases over the bytes of the file:
 *   prefix  byte by byte (it is a few kB) until the '[' of the top-level
 *           "traceEvents" key; the bytes go to the header text
 *   events  64 bytes at a time: masks of quotes, backslashes and brackets
 *           (one loop per vector width: AVX-512, AVX2, SSE2, portable C),
 *           the in-string mask by a prefix XOR of the unescaped quotes, then
 *           a depth count over the brackets outside strings. An element ends
 *           where the depth comes back to 0; the array where it goes below
 *   tail    from the array's ']' to the end: header text again
 * A window runs from the start of the array or the ',' after an element to
 * the end of the last whole element; its first byte is set to '[' and the
 * byte after it to ']' while simdjson parses it, and restored after.
 * Everything simdjson checks (syntax, UTF-8) it still checks, per window.
 */
#include "ingest/kineto/kineto_stream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86_SCAN 1
#endif

#include <pthread.h>

#include "util/diag.h"
#include "util/timing.h"
#include "util/xalloc.h"

/* 1 MiB: the window and simdjson's indexes stay in L2; 8-16% faster than 16 MiB (bench/RESULTS.md). */
#define WINDOW_DEFAULT (1u << 20)

/*
 * The window size; PERFSTUDY_WINDOW_BYTES (at least 64) overrides it so
 * that tests can cut small traces into many windows.
 */
static size_t window_size(void)
{
	const char *e = getenv("PERFSTUDY_WINDOW_BYTES");
	long long v = e ? atoll(e) : 0;
	return v >= 64 ? (size_t)v : WINDOW_DEFAULT;
}

enum phase { PH_PREFIX, PH_EVENTS, PH_TAIL };

/* After a buffer's cap bytes: the ']' written after a window, then SOURCE_PADDING bytes simdjson may read. */
#define FRAME_PAD (1 + SOURCE_PADDING)

struct framer {
	struct source_stream *src;
	struct kj_parser *parser;
	kj_event_fn on_event;
	kj_cat_fn cat_fn;
	void *ctx;
	struct kj_error *err;
	struct cutter *cut; /* windows go to this thread's queue instead of being parsed here; NULL: parsed here */

	char *buf;    /* cap + SOURCE_PADDING bytes */
	size_t cap, len;
	size_t base;  /* file offset of buf[0] */
	int eof;

	enum phase phase;
	/* prefix */
	int depth, in_str, esc, expect_key, in_key, key_ok, value_pending, te_key;
	size_t keylen;
	char key[16];
	/* events: positions in buf */
	size_t window;
	size_t ev_start, scan;
	int ev_depth;
	uint64_t str_carry, esc_carry;
	int isa;          /* enum isa: the scan loop */
	size_t boundary; /* after the last whole element; 0: none */
	size_t array_end; /* position of the array's ']'; SIZE_MAX: not yet */

	/* header text: prefix, then tail */
	char *head;
	size_t head_len, head_cap, head_prefix; /* head_prefix: bytes that came from the prefix */
	size_t head_from;  /* file offset of the first prefix byte (after a BOM) */
	size_t tail_from;  /* file offset of the array's ']' */
};

static void head_add(struct framer *f, const char *p, size_t n)
{
	if (f->head_len + n + SOURCE_PADDING > f->head_cap)
		f->head = xgrow(f->head, &f->head_cap, f->head_len + n + SOURCE_PADDING, 1);
	memcpy(f->head + f->head_len, p, n);
	f->head_len += n;
}

/* Scans buf[from..len) in the prefix phase; returns the position of the events' '[' or SIZE_MAX. */
static size_t scan_prefix(struct framer *f, size_t from)
{
	for (size_t i = from; i < f->len; i++) {
		char c = f->buf[i];
		if (f->in_str) {
			if (f->esc) {
				f->esc = 0;
				f->key_ok = 0;
			} else if (c == '\\') {
				f->esc = 1;
			} else if (c == '"') {
				f->in_str = 0;
				if (f->in_key)
					f->te_key = f->key_ok && f->keylen == 11 && !memcmp(f->key, "traceEvents", 11);
				f->in_key = 0;
			} else if (f->in_key) {
				if (f->keylen < sizeof(f->key))
					f->key[f->keylen++] = c;
				else
					f->key_ok = 0;
			}
			continue;
		}
		if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
			continue;
		if (f->depth == 1 && f->value_pending) {
			f->value_pending = 0;
			if (c == '[' && f->te_key)
				return i;
		}
		switch (c) {
		case '"':
			f->in_str = 1;
			if (f->depth == 1 && f->expect_key) {
				f->in_key = 1;
				f->key_ok = 1;
				f->keylen = 0;
				f->expect_key = 0;
			}
			break;
		case '{':
		case '[':
			f->depth++;
			if (f->depth == 1 && c == '{')
				f->expect_key = 1;
			break;
		case '}':
		case ']':
			f->depth--;
			break;
		case ',':
			if (f->depth == 1)
				f->expect_key = 1;
			break;
		case ':':
			if (f->depth == 1)
				f->value_pending = 1;
			break;
		default:
			break;
		}
	}
	return SIZE_MAX;
}

/* Bit i set where p[i] == c, for 64 bytes. */
struct masks {
	uint64_t quote, bslash, open, close;
};

/*
 * The masks of one block, in the widest vectors the CPU has: kj_stream_parse
 * picks one of the scan loops below once (pick_isa). PERFSTUDY_SIMD=sse2 or
 * avx2 caps the choice, so that tests run every loop the CPU can.
 */
enum isa { ISA_PORTABLE, ISA_SSE2, ISA_AVX2, ISA_AVX512 };

static inline void masks_portable(const char *p, struct masks *m)
{
	m->quote = m->bslash = m->open = m->close = 0;
	for (int i = 0; i < 64; i++) {
		uint64_t bit = (uint64_t)1 << i;
		char c = p[i];
		if (c == '"')
			m->quote |= bit;
		else if (c == '\\')
			m->bslash |= bit;
		else if (c == '{' || c == '[')
			m->open |= bit;
		else if (c == '}' || c == ']')
			m->close |= bit;
	}
}

/*
 * The scan state a loop keeps in registers: depth, carries of escape and
 * string from the previous block, the last element end and the array end.
 */
struct scan_state {
	int depth;
	uint64_t str_carry, esc_carry;
	size_t boundary, array_end;
};

static inline void state_load(const struct framer *f, struct scan_state *st)
{
	st->depth = f->ev_depth;
	st->str_carry = f->str_carry;
	st->esc_carry = f->esc_carry;
	st->boundary = f->boundary;
	st->array_end = f->array_end;
}

static inline void state_store(struct framer *f, const struct scan_state *st)
{
	f->ev_depth = st->depth;
	f->str_carry = st->str_carry;
	f->esc_carry = st->esc_carry;
	f->boundary = st->boundary;
	f->array_end = st->array_end;
}

/* Prefix XOR: bit i of the result is the XOR of bits 0..i of x. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/*
 * One block's masks applied at buf[at]: the escaped bytes, the in-string
 * mask (prefix XOR of the unescaped quotes, xor_fn), then the brackets
 * outside strings in order. An element ends where the depth comes back to
 * 0; the array where a bracket closes at depth 0. Inlined into each loop.
 */
#define BLOCK_WALK(st, m, at, xor_fn)                                                                                  \
	do {                                                                                                           \
		uint64_t escaped_ = 0;                                                                                 \
		if ((m).bslash | (st).esc_carry) {                                                                     \
			/* Rare in traces: a backslash escapes the next byte unless itself escaped. */               \
			uint64_t carry_ = (st).esc_carry;                                                              \
			for (int i_ = 0; i_ < 64; i_++) {                                                              \
				uint64_t bit_ = (uint64_t)1 << i_;                                                     \
				if (carry_) {                                                                          \
					escaped_ |= bit_;                                                              \
					carry_ = 0;                                                                    \
				} else if ((m).bslash & bit_) {                                                        \
					carry_ = 1;                                                                    \
				}                                                                                      \
			}                                                                                              \
			(st).esc_carry = carry_;                                                                       \
		}                                                                                                      \
		uint64_t in_str_ = xor_fn((m).quote & ~escaped_) ^ (st).str_carry;                                     \
		(st).str_carry = (uint64_t)0 - (in_str_ >> 63);                                                        \
		uint64_t open_ = (m).open & ~in_str_, brackets_ = ((m).open | (m).close) & ~in_str_;                   \
		while (brackets_) {                                                                                    \
			int i_ = __builtin_ctzll(brackets_);                                                           \
			brackets_ &= brackets_ - 1;                                                                    \
			if (open_ >> i_ & 1) {                                                                         \
				(st).depth++;                                                                          \
			} else if ((st).depth == 0) {                                                                  \
				(st).array_end = (at) + (size_t)i_;                                                    \
				break;                                                                                 \
			} else if (--(st).depth == 0) {                                                                \
				(st).boundary = (at) + (size_t)i_ + 1;                                                 \
			}                                                                                              \
		}                                                                                                      \
	} while (0)

/* Whether a scan loop goes on with another whole block at scan. */
static inline int scan_more(const struct framer *f, const struct scan_state *st, size_t scan)
{
	return st->array_end == SIZE_MAX && scan + 64 <= f->len &&
	       (scan - f->ev_start < f->window || st->boundary <= f->ev_start + 1);
}

/*
 * A scan loop: whole blocks while scan_more, the masks of each by masks_fn
 * (inlined: the loop is compiled for the masks' instruction set, attr).
 */
#define SCAN_LOOP(name, attr, masks_fn, xor_fn)                                                                        \
	attr static void name(struct framer *f)                                                                        \
	{                                                                                                              \
		struct scan_state st;                                                                                  \
		size_t scan = f->scan;                                                                                 \
		state_load(f, &st);                                                                                    \
		while (scan_more(f, &st, scan)) {                                                                      \
			struct masks m;                                                                                \
			masks_fn(f->buf + scan, &m);                                                                   \
			BLOCK_WALK(st, m, scan, xor_fn);                                                               \
			scan += 64;                                                                                    \
		}                                                                                                      \
		state_store(f, &st);                                                                                   \
		f->scan = scan;                                                                                        \
	}

SCAN_LOOP(scan_portable, , masks_portable, prefix_xor)

#ifdef HAVE_X86_SCAN
static inline void masks_sse2(const char *p, struct masks *m)
{
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	const __m128i o1 = _mm_set1_epi8('{'), o2 = _mm_set1_epi8('[');
	const __m128i c1 = _mm_set1_epi8('}'), c2 = _mm_set1_epi8(']');
	m->quote = m->bslash = m->open = m->close = 0;
	for (int k = 0; k < 4; k++) { /* unrolled: constant shifts */
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		m->quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) << 16 * k;
		m->bslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, b)) << 16 * k;
		m->open |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, o1), _mm_cmpeq_epi8(v, o2)))
			   << 16 * k;
		m->close |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, c1), _mm_cmpeq_epi8(v, c2)))
			    << 16 * k;
	}
}

/* Prefix XOR by a carry-less multiply with all ones, as simdjson does. */
__attribute__((target("pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t x)
{
	return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0));
}

/* Bits of the two 32-byte halves' byte masks. */
#define AVX2_BITS(lo, hi) ((uint64_t)(uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32)

__attribute__((target("avx2"))) static inline void masks_avx2(const char *p, struct masks *m)
{
	const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\');
	const __m256i o1 = _mm256_set1_epi8('{'), o2 = _mm256_set1_epi8('[');
	const __m256i c1 = _mm256_set1_epi8('}'), c2 = _mm256_set1_epi8(']');
	__m256i lo = _mm256_loadu_si256((const __m256i *)p), hi = _mm256_loadu_si256((const __m256i *)(p + 32));
	m->quote = AVX2_BITS(_mm256_cmpeq_epi8(lo, q), _mm256_cmpeq_epi8(hi, q));
	m->bslash = AVX2_BITS(_mm256_cmpeq_epi8(lo, b), _mm256_cmpeq_epi8(hi, b));
	m->open = AVX2_BITS(_mm256_or_si256(_mm256_cmpeq_epi8(lo, o1), _mm256_cmpeq_epi8(lo, o2)),
			    _mm256_or_si256(_mm256_cmpeq_epi8(hi, o1), _mm256_cmpeq_epi8(hi, o2)));
	m->close = AVX2_BITS(_mm256_or_si256(_mm256_cmpeq_epi8(lo, c1), _mm256_cmpeq_epi8(lo, c2)),
			     _mm256_or_si256(_mm256_cmpeq_epi8(hi, c1), _mm256_cmpeq_epi8(hi, c2)));
}

__attribute__((target("avx512bw"))) static inline void masks_avx512(const char *p, struct masks *m)
{
	__m512i v = _mm512_loadu_si512((const void *)p);
	m->quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
	m->bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
	m->open = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('{')) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('['));
	m->close = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('}')) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(']'));
}

SCAN_LOOP(scan_sse2, , masks_sse2, prefix_xor)
SCAN_LOOP(scan_avx2, __attribute__((target("avx2,pclmul"))), masks_avx2, prefix_xor_clmul)
SCAN_LOOP(scan_avx512, __attribute__((target("avx512bw,pclmul"))), masks_avx512, prefix_xor_clmul)
#endif

/* The widest scan loop this CPU runs, capped by PERFSTUDY_SIMD (portable, sse2, avx2). */
static enum isa pick_isa(void)
{
	enum isa cap = ISA_AVX512;
	const char *e = getenv("PERFSTUDY_SIMD");
	if (e && !strcmp(e, "portable"))
		cap = ISA_PORTABLE;
	else if (e && !strcmp(e, "sse2"))
		cap = ISA_SSE2;
	else if (e && !strcmp(e, "avx2"))
		cap = ISA_AVX2;
#ifdef HAVE_X86_SCAN
	__builtin_cpu_init();
	int clmul = __builtin_cpu_supports("pclmul");
	enum isa have = clmul && __builtin_cpu_supports("avx512bw") ? ISA_AVX512
			: clmul && __builtin_cpu_supports("avx2")   ? ISA_AVX2
								    : ISA_SSE2;
#else
	enum isa have = ISA_PORTABLE;
#endif
	return have < cap ? have : cap;
}

/*
 * Scans the events phase in whole blocks (a partial one only at the end of
 * the file) until the array ends, the buffer is used up, or a window's
 * worth is scanned and holds a whole element.
 */
static void scan_events(struct framer *f)
{
	switch (f->isa) {
#ifdef HAVE_X86_SCAN
	case ISA_AVX512:
		scan_avx512(f);
		break;
	case ISA_AVX2:
		scan_avx2(f);
		break;
	case ISA_SSE2:
		scan_sse2(f);
		break;
#endif
	default:
		scan_portable(f);
		break;
	}
	if (f->array_end == SIZE_MAX && f->eof && f->scan < f->len && f->scan + 64 > f->len) {
		char blk[64];
		memset(blk, ' ', sizeof(blk));
		memcpy(blk, f->buf + f->scan, f->len - f->scan);
		struct masks m;
		struct scan_state st;
		masks_portable(blk, &m);
		state_load(f, &st);
		BLOCK_WALK(st, m, f->scan, prefix_xor);
		state_store(f, &st);
		f->scan = f->len;
	}
}

/* Who parses a window: a parser, the events' callback and where an error goes. */
struct parse_to {
	struct kj_parser *parser;
	kj_event_fn on_event;
	void *ctx;
	struct kj_error *err;
};

/*
 * Parses buf[start..end) as a window; end is one past the last element (or
 * the ']'); base is the file offset of buf[0]. buf[end] must be writable.
 * last: the array never ended, parsed for simdjson's message, else -1.
 */
static int parse_bytes(const struct framer *f, const struct parse_to *to, char *buf, size_t start, size_t end,
		       int closed, int last, size_t base)
{
	size_t i = start;
	while (i < end && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
		i++;
	if (i == end)
		return last ? -1 : 0;
	char first = buf[i];
	if (first == ']' && closed && i + 1 == end)
		return last ? -1 : 0;
	if (first == ',')
		buf[i] = '[';
	char after = 0;
	if (!closed) {
		after = buf[end];
		buf[end] = ']';
	}
	struct timing_span sp;
	timing_span_begin(&sp);
	int r = kj_parse_events(to->parser, buf + i, end + (closed ? 0 : 1) - i, base + i, to->on_event, f->cat_fn,
				to->ctx, to->err);
	timing_span_end(&sp, TIME_PARSE);
	buf[i] = first;
	if (!closed)
		buf[end] = after;
	return last && r == 0 ? -1 : r;
}

/* The framer's own parser and callback. */
static struct parse_to framer_to(const struct framer *f)
{
	return (struct parse_to){f->parser, f->on_event, f->ctx, f->err};
}

/*
 * One parser a thread, kept from trace to trace: simdjson's buffers for a
 * window (5 bytes per byte of it) are above malloc's mapping threshold, so a
 * parser a trace mapped and faulted them in again for every trace (16 ranks:
 * 20k page faults). Freed when the thread ends; the main thread's stays
 * reachable until exit.
 */
static pthread_key_t parser_key;
static pthread_once_t parser_once = PTHREAD_ONCE_INIT;

static void parser_key_free(void *p)
{
	kj_parser_free(p);
}

static void parser_key_make(void)
{
	if (pthread_key_create(&parser_key, parser_key_free) != 0) {
		fputs("perfstudy: error: cannot create a thread key\n", stderr);
		exit(3);
	}
}

static struct kj_parser *thread_parser(void)
{
	pthread_once(&parser_once, parser_key_make);
	struct kj_parser *p = pthread_getspecific(parser_key);
	if (!p) {
		/* Room for a window and a long last event: a window a little larger than the last grew the buffers each time. */
		p = kj_parser_new(window_size() + window_size() / 2);
		pthread_setspecific(parser_key, p);
	}
	return p;
}

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
	int last;             /* the array never ended (parse_bytes) */
	int end;              /* no window: the cutter is done, with result */
	int result;
	struct cut_msg *msgs; /* the cutter's messages before this */
	size_t nmsgs;
	/* with helpers */
	int parsed;           /* the list is complete, with parse_r */
	int parse_r;          /* parse_bytes' result */
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
static int cut_push(struct cutter *c, size_t start, size_t n, int closed, int last, int end, int result)
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
	w->parse_r = parse_bytes(c->f, &to, w->buf, w->start, w->start + w->len, w->closed, w->last, w->base);
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
	struct kj_parser *p = thread_parser();
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

/* Gives a parsed window's events out to the caller's on_event; what parse_bytes returned, or 1 when on_event stopped. */
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

/*
 * A window of buf[start..end): parsed here, or queued for the parsing thread
 * (0 then, or 1 when that thread stopped). last: the array never ended.
 */
static int parse_window(struct framer *f, size_t start, size_t end, int closed, int last)
{
	if (f->cut)
		return cut_push(f->cut, start, end - start, closed, last, 0, 0);
	struct parse_to to = framer_to(f);
	return parse_bytes(f, &to, f->buf, start, end, closed, last, f->base);
}

/* Reads more bytes at buf[len..cap); grows buf when it is full. */
static int fill(struct framer *f)
{
	if (f->len == f->cap) {
		size_t cap = f->cap * 2;
		f->buf = xrealloc(f->buf, cap + FRAME_PAD);
		f->cap = cap;
	}
	ssize_t r = source_stream_read(f->src, f->buf + f->len, f->cap - f->len);
	if (r < 0)
		return -1;
	f->len += (size_t)r;
	if (f->len < f->cap)
		f->eof = 1;
	memset(f->buf + f->len, 0, SOURCE_PADDING);
	return 0;
}

/* Drops buf[0..keep) after it was parsed or copied. */
static void shift(struct framer *f, size_t keep)
{
	memmove(f->buf, f->buf + keep, f->len - keep);
	f->len -= keep;
	f->base += keep;
	f->scan -= keep;
	f->ev_start -= keep;
	if (f->boundary)
		f->boundary = f->boundary > keep ? f->boundary - keep : 0;
}

/*
 * What one piece of the text may hold, so that memory stays bounded
 * whatever the file: the header (the text before and after 'traceEvents',
 * kept whole for the parse at the end) and one element of 'traceEvents'
 * (kept whole until it ends). Real traces hold a few KB in each; a gzip bomb
 * of blanks inside an event, before 'traceEvents' or after its ']' grew them
 * to the whole inflated file (10 GiB of blanks: 10.5 GB of memory).
 */
#define HEADER_MAX (16u << 20)
#define ELEMENT_MAX (16u << 20)

/* -2 after diag when the header outgrew HEADER_MAX; else 0. */
static int header_bounded(struct framer *f)
{
	if (f->head_len <= HEADER_MAX)
		return 0;
	diag_error(f->src->path, "more than %u MiB of JSON outside 'traceEvents' (by byte %zu); refused to bound memory",
		   HEADER_MAX >> 20, f->base + f->len);
	return -2;
}

static int run(struct framer *f)
{
	f->cap = f->window;
	f->buf = xmalloc(f->cap + FRAME_PAD);
	if (fill(f) < 0)
		return -2;
	size_t pos = 0;
	if (f->len >= 3 && (unsigned char)f->buf[0] == 0xef && (unsigned char)f->buf[1] == 0xbb &&
	    (unsigned char)f->buf[2] == 0xbf)
		pos = 3; /* UTF-8 byte order mark */
	f->head_from = pos;
	for (;;) {
		if (f->phase == PH_PREFIX) {
			size_t at = scan_prefix(f, pos);
			if (at == SIZE_MAX) {
				head_add(f, f->buf + pos, f->len - pos);
				if (header_bounded(f))
					return -2;
				if (f->eof)
					return 0;
				f->base += f->len;
				pos = f->len = 0;
				if (fill(f) < 0)
					return -2;
				continue;
			}
			head_add(f, f->buf + pos, at + 1 - pos);
			f->head_prefix = f->head_len;
			f->phase = PH_EVENTS;
			f->ev_start = at;
			f->scan = at + 1;
			f->array_end = SIZE_MAX;
			f->boundary = 0;
		}
		if (f->phase == PH_EVENTS) {
			scan_events(f);
			if (f->array_end != SIZE_MAX) {
				int r = parse_window(f, f->ev_start, f->array_end + 1, 1, 0);
				if (r)
					return r;
				f->tail_from = f->base + f->array_end;
				f->phase = PH_TAIL;
				pos = f->array_end;
				continue;
			}
			if (f->boundary > f->ev_start + 1 && (f->scan - f->ev_start >= f->window || !f->eof)) {
				int r = parse_window(f, f->ev_start, f->boundary, 0, 0);
				if (r)
					return r;
				f->ev_start = f->boundary;
				continue;
			}
			if (f->eof) {
				/* The array never ends: let simdjson say where the text is broken. */
				int r = parse_window(f, f->ev_start, f->len, 1, 1);
				return r ? r : -1;
			}
			if (f->ev_start)
				shift(f, f->ev_start);
			if (f->len >= ELEMENT_MAX) {
				diag_error(f->src->path, "more than %u MiB in one element of 'traceEvents' from byte %zu"
					   " (an event this large, or blanks); refused to bound memory",
					   ELEMENT_MAX >> 20, f->base);
				return -2;
			}
			if (fill(f) < 0)
				return -2;
			continue;
		}
		/* PH_TAIL */
		head_add(f, f->buf + pos, f->len - pos);
		if (header_bounded(f))
			return -2;
		if (f->eof)
			return 0;
		f->base += f->len;
		f->len = 0;
		pos = 0;
		if (fill(f) < 0)
			return -2;
	}
}

/* A header offset as a file offset. */
static size_t head_to_file(const struct framer *f, size_t off)
{
	if (f->phase == PH_PREFIX || off < f->head_prefix)
		return f->head_from + off;
	return f->tail_from + (off - f->head_prefix);
}

static void *cut_main(void *arg)
{
	struct cutter *c = arg;
	diag_divert(cut_capture, c);
	int r = run(c->f);
	diag_divert(NULL, NULL);
	cut_push(c, 0, 0, 0, 0, 1, r); /* nothing when the parser stopped */
	return NULL;
}

/*
 * Parses the cutter's windows in order until its end or a stop; returns what
 * run() would have. With helpers, this thread parses what they have not
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
			struct parse_to to = framer_to(f);
			r = parse_bytes(f, &to, w->buf, w->start, w->start + w->len, w->closed, w->last, w->base);
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

/* run(), with the reading and cutting on a thread of its own; -3 when no thread could start. */
static int run_cut(struct framer *f, int nhelpers)
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
	if (pthread_create(&c->thread, NULL, cut_main, c) == 0) {
		if (nhelpers) {
			c->helpers = xcalloc((size_t)nhelpers, sizeof(*c->helpers));
			pthread_mutex_lock(&c->mu);
			for (int i = 0; i < nhelpers; i++) {
				if (pthread_create(&c->helpers[i], NULL, helper_main, c) != 0)
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

int kj_stream_parse(struct source_stream *src, kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx, struct kj_meta *meta,
		    struct kj_error *err)
{
	struct framer f;
	memset(&f, 0, sizeof(f));
	f.src = src;
	f.on_event = on_event;
	f.cat_fn = cat_fn;
	f.ctx = ctx;
	f.err = err;
	f.parser = thread_parser();
	f.window = window_size();
	f.isa = pick_isa();
	memset(meta, 0, sizeof(*meta));
	meta->rank = meta->world_size = meta->base_time_ns = meta->cuda_runtime = meta->cuda_driver = -1;
	int r = -3;
	if (source_stream_spare_core(src) && !getenv("PERFSTUDY_NO_CUTTER"))
		r = run_cut(&f, source_stream_parse_helpers(src));
	if (r == -3)
		r = run(&f);
	if (r == -1 && f.phase == PH_EVENTS && f.eof && f.array_end == SIZE_MAX && !err->message[0]) {
		err->offset = f.base + f.len;
		snprintf(err->message, sizeof(err->message), "malformed JSON");
		snprintf(err->detail, sizeof(err->detail), "the 'traceEvents' array is not closed");
	}
	free(f.buf);
	if (r == 0) {
		if (!f.head)
			head_add(&f, "", 0);
		memset(f.head + f.head_len, 0, SOURCE_PADDING);
		struct timing_span sp;
		timing_span_begin(&sp);
		r = kj_parse(f.head, f.head_len, on_event, cat_fn, ctx, meta, err);
		timing_span_end(&sp, TIME_PARSE);
		if (r < 0)
			err->offset = head_to_file(&f, err->offset);
		else if (f.phase != PH_PREFIX)
			meta->has_trace_events = 1;
	}
	free(f.head);
	return r;
}
