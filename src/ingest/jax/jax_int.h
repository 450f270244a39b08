/*
 * jax_int.h: what the events of a JAX (XLA) profile mean, shared by the
 * two readers of one: jax.c (the trace JSON jax.profiler writes) and
 * xplane.c (the XSpace protobuf it is made from).
 *
 * Both see the same things: planes or processes "/device:GPU:N" whose lines
 * or threads are CUDA streams, a "/host:CPU" one whose threads are host
 * threads, events with a name, a start, a duration and string-valued
 * arguments (XStats). jax_model turns them into the sink's activities,
 * runtime calls and annotations, in the same way for both files.
 */
#ifndef PERFSTUDY_JAX_INT_H
#define PERFSTUDY_JAX_INT_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

struct jax_kv {
	const char *key, *value; /* NUL-terminated */
};

struct jax_event {
	const char *name;
	int64_t start_ns, dur_ns;
	int64_t tid; /* stream (GPU) or host thread */
	const struct jax_kv *args;
	size_t nargs;
};

struct jax_model {
	const struct ingest_sink *sink;
	struct ingest_counts *counts;
	uint64_t devices_seen[4]; /* bit d: a GPU activity on device d (d < 256) */
};

/*
 * The number N of a process or plane named "/device:GPU:N" (N from 0 to
 * 255, perhaps followed by a blank and a description), or -1 for any
 * other name.
 */
int jax_gpu_number(const char *name);

/* Whether a process or plane named name is the host's ("/host:CPU"). */
int jax_is_host(const char *name);

/* Whether a thread or line of a GPU process named name is a CUDA stream ("Stream #N(...)"). */
int jax_is_stream(const char *name);

/* An event on a stream of GPU device: a kernel, memcpy or memset into the sink. Returns 0, or -1 (sink said stop). */
int jax_gpu_event(struct jax_model *m, int device, const struct jax_event *ev);

/*
 * An event of the host: a step (one with a "step_num" argument, from
 * jax.profiler.StepTraceAnnotation) becomes the annotation ProfilerStep#N;
 * one with "correlation_id" (CUPTI's record of a launch) a runtime call;
 * the others are only counted. Returns 0, or -1 (sink said stop).
 */
int jax_host_event(struct jax_model *m, const struct jax_event *ev);

/* How many distinct GPU devices had activities. */
int jax_device_count(const struct jax_model *m);

#endif
