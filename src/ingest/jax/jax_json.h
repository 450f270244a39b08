/*
 * jax_json.h: the C face of the simdjson walk over a JAX profiler trace
 * (jax_json.cpp).
 *
 * jax.profiler writes Chrome trace JSON (`<host>.trace.json.gz`, and with
 * create_perfetto_trace=True `perfetto_trace.json.gz`, the same events):
 * {"displayTimeUnit": "ns", "traceEvents": [...]}, metadata events ("ph":
 * "M": process_name, thread_name) first, then complete events ("ph": "X")
 * whose args are strings. The walk knows JSON and that layout, nothing of
 * what the events mean: jax.c does that. It goes over traceEvents twice,
 * the metadata events in the first pass and every other event in the
 * second, so that a reader knows each process and thread before their
 * events whatever the order in the file.
 *
 * All pointers in the structs are valid only during the callback.
 */
#ifndef PERFSTUDY_JAX_JSON_H
#define PERFSTUDY_JAX_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One member of an event's "args": a string's unescaped text, else the value's raw JSON text. */
struct jj_arg {
	const char *key;   /* unescaped, NUL-terminated */
	const char *value; /* NUL-terminated */
	int is_string;
};

struct jj_event {
	size_t offset;     /* byte offset of the event object in the JSON text */
	const char *ph;    /* NULL when absent or not a string */
	const char *name;  /* NULL when absent or not a string */
	int has_pid, has_tid; /* present and an int64 */
	int64_t pid, tid;
	/* raw number text in microseconds (not NUL-terminated); p NULL when absent */
	const char *ts, *dur;
	size_t ts_n, dur_n;
	int ts_bad, dur_bad; /* present but not a number */
	size_t nargs;
	const struct jj_arg *args;
};

struct jj_error {
	size_t offset;     /* byte offset where the problem was found */
	char message[200]; /* what was expected */
	char detail[200];  /* simdjson's reason, or empty */
};

/* pass 1: metadata events ("ph": "M") only; pass 2: all others. Non-zero stops the walk. */
typedef int (*jj_event_fn)(void *ctx, int pass, const struct jj_event *ev);

/*
 * Walks the JSON document in data[0..len) (followed by at least 64 bytes of
 * padding). Returns 0; 1 when on_event returned non-zero (stopped); 2 when
 * the root object has no "traceEvents" array; -1 on malformed JSON, with
 * *err filled.
 */
int jj_parse(const char *data, size_t len, jj_event_fn on_event, void *ctx, struct jj_error *err);

#ifdef __cplusplus
}
#endif

#endif
