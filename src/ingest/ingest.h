/*
 * ingest.h: the one interface every input format is read through.
 *
 * ingest_file() loads a file (inflating gzip transparently), detects its
 * format from the content, never the name, and hands the matching reader's
 * normalized events to a sink: GPU activities (kernels, memcpys, memsets),
 * runtime launches and annotations in file order, then the trace metadata
 * once (a Kineto file may hold it after its events). All times are integer nanoseconds on the trace's own clock.
 *
 * Strings in the events point into the reader's buffers and are valid only
 * during the callback; a sink copies what it keeps. A sink callback returns
 * 0 to go on or -1 to stop (after reporting through diag).
 *
 * Adding a format means one new reader file and one entry in the table in
 * ingest.c.
 */
#ifndef PERFSTUDY_INGEST_H
#define PERFSTUDY_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "source.h"

enum activity_kind { ACT_KERNEL = 1, ACT_MEMCPY = 2, ACT_MEMSET = 3 };

struct gpu_activity {
	enum activity_kind kind;
	const char *name;
	int64_t start_ns, dur_ns;
	int device;          /* -1: unknown */
	int64_t stream;      /* -1: unknown */
	int64_t correlation; /* links to the launching runtime call; -1: none */
	int64_t bytes;       /* memcpy/memset size; -1: unknown */
	const char *copy_kind; /* "HtoD", "DtoH", "DtoD", "PtoP", ...; NULL for kernels */
};

/* A host-side CUDA runtime or driver call (cudaLaunchKernel, cuLaunchKernelEx, ...). */
struct runtime_call {
	const char *name;
	int64_t start_ns, dur_ns;
	int64_t correlation;
	int64_t tid;
	int is_driver;
};

/* A named range: ProfilerStep#N, forward, backward, ... on the host or on a GPU stream. */
struct annotation {
	const char *name;
	int64_t start_ns, dur_ns;
	int on_gpu;
	int64_t tid; /* host thread, or GPU stream */
};

struct device_info {
	int id;
	const char *name;
	int64_t total_mem; /* bytes; -1 unknown */
	int sm_count;      /* -1 unknown */
	int cc_major, cc_minor;
};

struct trace_info {
	const char *format;   /* reader name, e.g. "kineto" */
	int rank;             /* -1: not recorded */
	int world_size;       /* -1: not recorded */
	int64_t epoch_offset_ns; /* add to a time to get Unix epoch ns; -1: unknown */
	size_t ndevices;
	const struct device_info *devices;
};

/* Counts of what a reader saw, for `perfstudy inspect` and warnings. */
struct ingest_counts {
	int64_t events, kernels, memcpys, memsets, runtime, annotations, gpu_annotations, cpu_ops;
	int64_t steps;   /* ProfilerStep#N annotations */
	int64_t skipped; /* events dropped as malformed (each warned about) */
};

struct ingest_sink {
	void *ctx;
	int (*info)(void *ctx, const struct trace_info *info);
	int (*activity)(void *ctx, const struct gpu_activity *a);
	int (*runtime)(void *ctx, const struct runtime_call *r);
	int (*annotation)(void *ctx, const struct annotation *a);
};

struct reader {
	const char *name;
	/* Non-zero when the first bytes (after inflating) look like this format. */
	int (*detect)(const char *head, size_t n);
	/* Reads the whole source into the sink; returns 0 or -1 after diag. */
	int (*read)(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts);
};

/*
 * Reads path with the reader its content calls for. *format (static string)
 * is set when a reader was found. Returns 0, or -1 after reporting through
 * diag: unreadable file (system), unknown format or corrupt content (input).
 * meta, when not NULL, receives the file's size and SHA-256.
 */
int ingest_file(const char *path, const struct ingest_sink *sink, struct ingest_counts *counts,
		const char **format, struct source_meta *meta);

/* The reader table, for tests and `perfstudy inspect`. */
const struct reader *const *ingest_readers(size_t *n);

/*
 * Parses a JSON decimal number text (e.g. "4443677150109.176", "1.5e3",
 * "-0.25") given in microseconds into integer nanoseconds, rounding half away
 * from zero. Exact for up to 19 significant digits. Returns 0, or -1 when the
 * text is not a number or the value does not fit in int64.
 */
int parse_us_to_ns(const char *s, size_t n, int64_t *ns);

#endif
