/*
 * kineto_stream.c: cuts a Kineto trace into windows of whole events (see
 * kineto_stream.h); the framer and its three phases over the bytes of the
 * file:
 *   prefix  byte by byte (it is a few kB) until the '[' of the top-level
 *           "traceEvents" key; the bytes go to the header text
 *   events  the elements of the array, found by kineto_scan.c; an element
 *           ends where the bracket depth comes back to 0, the array where
 *           it goes below
 *   tail    from the array's ']' to the end: header text again
 * A window runs from the start of the array or the ',' after an element to
 * the end of the last whole element; its first byte is set to '[' and the
 * byte after it to ']' while simdjson parses it, and restored after.
 * Everything simdjson checks (syntax, UTF-8) it still checks, per window.
 * With a core to spare the reading and cutting run on a thread of their
 * own (kineto_cut.c); the header text is parsed at the end.
 */
#include "ingest/kineto/kineto_stream_int.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * Parses buf[start..end) as a window; end is one past the last element (or
 * the ']'); base is the file offset of buf[0]. buf[end] must be writable.
 * last: the array never ended, parsed for simdjson's message, else -1.
 */
int kstream_parse_bytes(const struct framer *f, const struct parse_to *to, char *buf, size_t start, size_t end,
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
struct parse_to kstream_framer_to(const struct framer *f)
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

struct kj_parser *kstream_thread_parser(void)
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
 * A window of buf[start..end): parsed here, or queued for the parsing thread
 * (0 then, or 1 when that thread stopped). last: the array never ended.
 */
static int parse_window(struct framer *f, size_t start, size_t end, int closed, int last)
{
	if (f->cut)
		return kstream_cut_push(f->cut, start, end - start, closed, last, 0, 0);
	struct parse_to to = kstream_framer_to(f);
	return kstream_parse_bytes(f, &to, f->buf, start, end, closed, last, f->base);
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

/*
 * The rest of the buffer, buf[pos..len), to the header text, then the next
 * bytes read at buf[0]: 0 to go on, 1 at the end of the file, -2 after diag
 * (the header outgrew HEADER_MAX, or reading failed).
 */
static int head_take_rest(struct framer *f, size_t pos)
{
	head_add(f, f->buf + pos, f->len - pos);
	if (f->head_len > HEADER_MAX) {
		diag_error(f->src->path,
			   "more than %u MiB of JSON outside 'traceEvents' (by byte %zu); refused to bound memory",
			   HEADER_MAX >> 20, f->base + f->len);
		return -2;
	}
	if (f->eof)
		return 1;
	f->base += f->len;
	f->len = 0;
	return fill(f) < 0 ? -2 : 0;
}

int kstream_run(struct framer *f)
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
				int h = head_take_rest(f, pos);
				if (h)
					return h < 0 ? h : 0;
				pos = 0;
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
			kstream_scan_events(f);
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
		int h = head_take_rest(f, pos);
		if (h)
			return h < 0 ? h : 0;
		pos = 0;
	}
}

/* A header offset as a file offset. */
static size_t head_to_file(const struct framer *f, size_t off)
{
	if (f->phase == PH_PREFIX || off < f->head_prefix)
		return f->head_from + off;
	return f->tail_from + (off - f->head_prefix);
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
	f.parser = kstream_thread_parser();
	f.window = window_size();
	f.isa = kstream_pick_isa();
	memset(meta, 0, sizeof(*meta));
	meta->rank = meta->world_size = meta->base_time_ns = meta->cuda_runtime = meta->cuda_driver = -1;
	int r = -3;
	if (source_stream_spare_core(src) && !getenv("PERFSTUDY_NO_CUTTER"))
		r = kstream_run_cut(&f, source_stream_parse_helpers(src));
	if (r == -3)
		r = kstream_run(&f);
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

