/*
 * kt_bench.h - shared interface for the JSON-library comparison.
 *
 * Every bench program is main.c linked with one scan_<lib> file. The scanner
 * walks traceEvents of a Kineto trace already in memory, fills one kt_event
 * per event and hands it to kt_account(), which updates the checksum that all
 * programs print, so their results can be compared byte for byte.
 */
#ifndef KT_BENCH_H
#define KT_BENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of zeroed slack after the document (simdjson needs 64). */
#define KT_PAD 64

/* Which optional fields an event carried. */
enum {
	KT_HAS_TS = 1 << 0,
	KT_HAS_DUR = 1 << 1,
	KT_HAS_CORR = 1 << 2,
	KT_HAS_STREAM = 1 << 3,
	KT_HAS_DEVICE = 1 << 4,
	KT_HAS_BYTES = 1 << 5,
};

/* What perfstudy needs from one trace event; strings are not copied. */
struct kt_event {
	const char *cat, *name, *ph;
	size_t cat_len, name_len, ph_len;
	int64_t ts_ns, dur_ns;                  /* exact, from the decimal text */
	int64_t corr, stream, device, bytes;    /* from args, when present */
	unsigned has;
};

struct kt_sum {
	uint64_t events, kernels, kernel_dur_ns, x_events;
	uint64_t ts_ns, corr, stream, device, bytes, name_bytes; /* wrap mod 2^64 */
};

/* The one function each library file provides: 0 on success. */
int kt_scan(const char *json, size_t len, struct kt_sum *sum);

/* Library name and version, for the report. */
const char *kt_lib(void);

/* Decimal microseconds text ("4443677150109.176", "12", "-3.5") -> ns.
 * Digits beyond the third decimal are truncated; exponents are not expected
 * in Kineto output and make the value 0. */
int64_t kt_us_text_to_ns(const char *s, size_t n);

/* Integer text -> int64 (stops at the first non-digit). */
int64_t kt_int_text(const char *s, size_t n);

void kt_account(struct kt_sum *sum, const struct kt_event *ev);

#ifdef __cplusplus
}
#endif
#endif
