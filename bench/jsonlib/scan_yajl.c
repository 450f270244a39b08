/*
 * scan_yajl.c - kt_scan() with yajl 2 callbacks (SAX style, no tree).
 *
 * Setting the yajl_number callback makes yajl hand over every number as its
 * source text, so ts/dur become exact integer nanoseconds. Nesting depth
 * tells which object a key belongs to:
 *   1 top-level object, 2 traceEvents array, 3 an event, 4 its args.
 * yajl parses incrementally, so the same code can be fed inflate chunks.
 */
#include "kt_bench.h"

#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_version.h>

enum field { F_NONE, F_EVENTS, F_CAT, F_NAME, F_PH, F_TS, F_DUR, F_ARGS,
	     F_CORR, F_STREAM, F_DEVICE, F_BYTES };

struct state {
	int depth;        /* open maps and arrays */
	int in_events;    /* inside the traceEvents array (which sits at depth 2) */
	int in_args;      /* inside the current event's args (depth 4) */
	enum field field; /* what the next value at this depth is */
	struct kt_event ev;
	struct kt_sum *sum;
};

#define KEY(s, n, lit) ((n) == sizeof(lit) - 1 && memcmp((s), (lit), (n)) == 0)

static int on_key(void *ctx, const unsigned char *k, size_t n)
{
	struct state *st = ctx;
	const char *s = (const char *)k;

	st->field = F_NONE;
	if (st->depth == 1 && KEY(s, n, "traceEvents"))
		st->field = F_EVENTS;
	else if (st->depth == 3 && st->in_events) {
		if (KEY(s, n, "cat")) st->field = F_CAT;
		else if (KEY(s, n, "name")) st->field = F_NAME;
		else if (KEY(s, n, "ph")) st->field = F_PH;
		else if (KEY(s, n, "ts")) st->field = F_TS;
		else if (KEY(s, n, "dur")) st->field = F_DUR;
		else if (KEY(s, n, "args")) st->field = F_ARGS;
	} else if (st->depth == 4 && st->in_args) {
		if (KEY(s, n, "correlation")) st->field = F_CORR;
		else if (KEY(s, n, "stream")) st->field = F_STREAM;
		else if (KEY(s, n, "device")) st->field = F_DEVICE;
		else if (KEY(s, n, "bytes")) st->field = F_BYTES;
	}
	return 1;
}

static int on_string(void *ctx, const unsigned char *v, size_t n)
{
	struct state *st = ctx;
	const char *s = (const char *)v;

	/* Pointers are only valid during the callback; perfstudy would copy
	 * them here. The checksum only needs cat, ph and the name length. */
	switch (st->field) {
	case F_CAT:
		st->ev.cat_len = n;
		st->ev.cat = KEY(s, n, "kernel") ? "kernel" : "";
		break;
	case F_PH:
		st->ev.ph_len = n;
		st->ev.ph = n == 1 && s[0] == 'X' ? "X" : "";
		break;
	case F_NAME:
		st->ev.name_len = n;
		break;
	default:
		break;
	}
	st->field = F_NONE;
	return 1;
}

static int on_number(void *ctx, const char *s, size_t n)
{
	struct state *st = ctx;
	struct kt_event *ev = &st->ev;

	switch (st->field) {
	case F_TS: ev->ts_ns = kt_us_text_to_ns(s, n); ev->has |= KT_HAS_TS; break;
	case F_DUR: ev->dur_ns = kt_us_text_to_ns(s, n); ev->has |= KT_HAS_DUR; break;
	case F_CORR: ev->corr = kt_int_text(s, n); ev->has |= KT_HAS_CORR; break;
	case F_STREAM: ev->stream = kt_int_text(s, n); ev->has |= KT_HAS_STREAM; break;
	case F_DEVICE: ev->device = kt_int_text(s, n); ev->has |= KT_HAS_DEVICE; break;
	case F_BYTES: ev->bytes = kt_int_text(s, n); ev->has |= KT_HAS_BYTES; break;
	default: break;
	}
	st->field = F_NONE;
	return 1;
}

static int on_other(void *ctx) /* null */
{
	((struct state *)ctx)->field = F_NONE;
	return 1;
}

static int on_bool(void *ctx, int b)
{
	(void)b;
	return on_other(ctx);
}

static int on_start_map(void *ctx)
{
	struct state *st = ctx;

	if (st->depth == 2 && st->in_events)
		memset(&st->ev, 0, sizeof st->ev); /* a new event */
	else if (st->depth == 3 && st->in_events && st->field == F_ARGS)
		st->in_args = 1;
	st->depth++;
	st->field = F_NONE;
	return 1;
}

static int on_end_map(void *ctx)
{
	struct state *st = ctx;

	st->depth--;
	if (st->depth == 3)
		st->in_args = 0;
	else if (st->depth == 2 && st->in_events)
		kt_account(st->sum, &st->ev);
	return 1;
}

static int on_start_array(void *ctx)
{
	struct state *st = ctx;

	if (st->depth == 1 && st->field == F_EVENTS)
		st->in_events = 1;
	st->depth++;
	st->field = F_NONE;
	return 1;
}

static int on_end_array(void *ctx)
{
	struct state *st = ctx;

	st->depth--;
	if (st->depth == 1)
		st->in_events = 0;
	return 1;
}

static const yajl_callbacks callbacks = {
	on_other, on_bool, NULL, NULL, on_number, on_string,
	on_start_map, on_key, on_end_map, on_start_array, on_end_array,
};

int kt_scan(const char *json, size_t len, struct kt_sum *sum)
{
	struct state st;
	yajl_handle h;
	yajl_status s;

	memset(&st, 0, sizeof st);
	st.sum = sum;
	h = yajl_alloc(&callbacks, NULL, &st);
	s = yajl_parse(h, (const unsigned char *)json, len);
	if (s == yajl_status_ok)
		s = yajl_complete_parse(h);
	yajl_free(h);
	return s == yajl_status_ok ? 0 : 1;
}

const char *kt_lib(void)
{
	static char buf[32];
	int v = yajl_version();

	snprintf(buf, sizeof buf, "yajl-%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
	return buf;
}
