/*
 * kineto_json.h: the C face of the simdjson shim (kineto_json.cpp).
 *
 * simdjson is a C++ library; this one small C++ file walks a Kineto
 * Chrome-trace document with simdjson's on-demand API and hands each event
 * to C as flat fields. It knows JSON and the Kineto layout, nothing of what
 * the events mean: kineto.c does that. Numbers for ts/dur are passed as their
 * raw JSON text so that no precision is lost (see parse_us_to_ns).
 *
 * All pointers in the structs are valid only during the callback.
 */
#ifndef PERFSTUDY_KINETO_JSON_H
#define PERFSTUDY_KINETO_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct kj_str {
	const char *p; /* unescaped and NUL-terminated (ts, dur: raw, not terminated); NULL when absent */
	size_t n;
};

/*
 * What the reader wants of an event, from its "cat" (kj_cat_fn): 0 nothing
 * more (the shim stops reading the event there; on_event still gets it,
 * for counting), else a class of the caller's from 1 to 255, plus
 * KJ_ONLY_EXTERNAL_ID when "External id", "Input Dims", "Input type" and
 * "Concrete Inputs" are the only ones of its args used (the others are then
 * skipped unread once all four were found; not for an event named record_param_comms, or not named
 * before its args, whose args are all read). The
 * shortcuts only apply when "ph" and "cat" come before the fields they
 * spare, as Kineto writes them; events in any other order are read whole.
 * An event whose "ph" is neither "X" nor "i" (an instant: the allocator's
 * "[memory]" events) is not read further either.
 */
typedef int (*kj_cat_fn)(const char *cat, size_t n);
#define KJ_ONLY_EXTERNAL_ID 0x100

struct kj_event {
	size_t offset; /* byte offset of the event object in the JSON text */
	struct kj_str ph, cat, name; /* cat: its text may be unterminated (only n counts) */
	int cls;               /* kj_cat_fn of cat (its low 8 bits); 0 when cat is absent or not wanted */
	struct kj_str ts, dur; /* raw number text in microseconds; p NULL when absent */
	int ts_bad, dur_bad;   /* present but not a number */
	int64_t tid;           /* -1 when absent or not an integer */
	/* args: has_* says whether the integer was present */
	int has_device, has_stream, has_correlation, has_bytes, has_external_id;
	const char *bad_int; /* the first of device, stream, correlation, Dst Rank, Src Rank present but not an int64 */
	int64_t device, stream, correlation, bytes, external_id;
	/* NCCL args of communication kernels; p NULL / 0 when absent */
	struct kj_str collective, dtype;
	int64_t in_nelems, out_nelems, group_size;
	/* the communicator: "Process Group Name", else "Process Group Description" */
	struct kj_str process_group;
	int pg_from_name;      /* process_group holds the name (a description does not replace it) */
	int has_seq;           /* "Seq": the collective's sequence number on its communicator */
	int64_t seq;
	int has_dst, has_src;  /* "Dst Rank" (a send's peer), "Src Rank" (a recv's): global ranks */
	int64_t dst, src;
	/*
	 * The allocator's args of a "[memory]" instant event: "Total Allocated",
	 * "Total Reserved", "Bytes", "Addr", "Device Id", "Device Type"; each
	 * has_* says whether the integer was present.
	 */
	int has_total_alloc, has_total_reserved, has_mem_bytes, has_addr, has_dev_id, has_dev_type;
	int64_t total_alloc, total_reserved, mem_bytes, addr, dev_id, dev_type;
	/* an operator's "Input Dims" as compact text, "[36,1024],[50257,1024]" (see take_dims); p NULL when absent */
	struct kj_str dims;
	/*
	 * an operator's "Input type" and "Concrete Inputs" as compact text,
	 * "c10::BFloat16,float,,Scalar", "[8388608],15,,False" (see
	 * take_strings); p NULL when absent
	 */
	struct kj_str types, concrete;
};

struct kj_device {
	int64_t id;
	struct kj_str name;
	int64_t total_mem, num_sms, cc_major, cc_minor; /* -1 when absent */
};

struct kj_meta {
	int has_distributed;
	int64_t rank, world_size; /* -1 when absent */
	int rank_bad, world_size_bad; /* present but not an int64 */
	int64_t base_time_ns;     /* baseTimeNanoseconds, -1 when absent */
	const char *nccl_version; /* distributedInfo.nccl_version (a string), NULL when absent; valid until kj_meta_release */
	int64_t cuda_runtime, cuda_driver; /* cuda_runtime_version, cuda_driver_version (13000 = 13.0), -1 when absent */
	size_t ndevices;
	const struct kj_device *devices;
	int has_trace_events;
	void *priv; /* the shim's storage behind devices */
};

struct kj_error {
	size_t offset;     /* byte offset where the problem was found */
	char message[200]; /* what was expected */
	char detail[200];  /* simdjson's reason, or empty */
};

typedef int (*kj_event_fn)(void *ctx, const struct kj_event *ev);

/*
 * Parses the Kineto document in data[0..len) (followed by at least 64 bytes
 * of padding). Calls on_event for each element of traceEvents, in order, and
 * fills *meta at the end (device strings stay valid until kj_meta_release).
 * Returns 0; 1 when on_event returned non-zero (stopped); -1 on malformed
 * JSON or a document that is not a Kineto trace, with *err filled.
 */
int kj_parse(const char *data, size_t len, kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx,
	     struct kj_meta *meta, struct kj_error *err);
void kj_meta_release(struct kj_meta *meta);

/*
 * Windowed reading (kineto_stream.c): a kj_parser keeps simdjson's buffers
 * from one window to the next. kj_parse_events() parses data[0..len), a JSON
 * array of traceEvents elements followed by at least 64 readable bytes,
 * and calls on_event for each; offsets in events and errors are base plus
 * the position in data. Returns like kj_parse.
 */
struct kj_parser;
/* capacity: simdjson's buffers made for windows of that many bytes at once (0: as windows come). */
struct kj_parser *kj_parser_new(size_t capacity);
void kj_parser_free(struct kj_parser *p);
int kj_parse_events(struct kj_parser *p, const char *data, size_t len, size_t base,
		    kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx, struct kj_error *err);

/*
 * Whether events are read from their text where kineto_args.h can (1, the
 * default), or each through simdjson alone (0): for tests/unit's
 * test_kineto_text, which checks that both give the same events and errors.
 */
extern int kj_text_read;

#ifdef __cplusplus
}
#endif

#endif
