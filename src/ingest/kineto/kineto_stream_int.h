/*
 * kineto_stream_int.h: what the three files of the windowed Kineto parse
 * share (kineto_stream.h is the API): the framer, the state of one trace
 * being cut into windows, and the functions each file gives the others.
 *
 *   kineto_stream.c  the framer: reading, the text outside 'traceEvents',
 *                    windows parsed in this thread, kj_stream_parse
 *   kineto_scan.c    the scan of the events for where elements end (SIMD)
 *   kineto_cut.c     the cutter thread and the parse helpers
 */
#ifndef PERFSTUDY_KINETO_STREAM_INT_H
#define PERFSTUDY_KINETO_STREAM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/kineto/kineto_stream.h"

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

/*
 * The vectors a block's masks are made in (kineto_scan.c): kj_stream_parse
 * picks one of the scan loops once (kstream_pick_isa). PERFSTUDY_SIMD=sse2
 * or avx2 caps the choice, so that tests run every loop the CPU can.
 */
enum isa { ISA_PORTABLE, ISA_SSE2, ISA_AVX2, ISA_AVX512 };

/* Who parses a window: a parser, the events' callback and where an error goes. */
struct parse_to {
	struct kj_parser *parser;
	kj_event_fn on_event;
	void *ctx;
	struct kj_error *err;
};

/* Picks the scan loop once a trace (kineto_scan.c): the widest this CPU runs, capped by PERFSTUDY_SIMD. */
enum isa kstream_pick_isa(void);
/*
 * Scans the events phase from f->scan (kineto_scan.c), moving f->boundary
 * to after the last whole element and f->array_end to the array's ']'.
 */
void kstream_scan_events(struct framer *f);

/*
 * Parses buf[start..end) as a window with to's parser and callback
 * (kineto_stream.c); returns what kj_parse_events does, -1 too when last.
 */
int kstream_parse_bytes(const struct framer *f, const struct parse_to *to, char *buf, size_t start, size_t end,
			int closed, int last, size_t base);
/* The framer's own parser and callback. */
struct parse_to kstream_framer_to(const struct framer *f);
/* This thread's parser, made on first use and kept until the thread ends (the caller does not free it). */
struct kj_parser *kstream_thread_parser(void);
/*
 * Reads, scans and cuts the whole stream in this thread, each window to
 * parse_window (kineto_stream.c): 0, 1 when on_event stopped, -1 on
 * malformed JSON, -2 after diag.
 */
int kstream_run(struct framer *f);

/*
 * Queues a window, or the end with result, for the parsing thread
 * (kineto_cut.c); 1 when the parser stopped. Called in the cutter.
 */
int kstream_cut_push(struct cutter *c, size_t start, size_t n, int closed, int last, int end, int result);
/*
 * kstream_run with the reading and cutting on a thread of its own and
 * nhelpers parse helpers (kineto_cut.c); -3 when no thread could start.
 */
int kstream_run_cut(struct framer *f, int nhelpers);

#endif
