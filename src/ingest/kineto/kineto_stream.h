/*
 * kineto_stream.h: a Kineto trace of any size, parsed in windows.
 *
 * simdjson parses one document of at most 4 GiB and needs about twice its
 * size in memory; traces reach 10 GB. kj_stream_parse() reads the file in
 * windows (1 MiB, more only for a longer event), cuts each after the last
 * whole element of traceEvents (a scan for strings, escapes and brackets,
 * 64 bytes at a time, in AVX-512, AVX2 or SSE2 as the CPU has them) and has
 * simdjson parse the window as an array. What
 * is not in traceEvents (deviceProperties, distributedInfo, ...) is kept as
 * text and parsed at the end as one small document, with the events array
 * emptied. Memory: the window, simdjson's index of it and that text.
 * When the stream has a core to spare (source_stream_spare_core), reading
 * and cutting run on a thread of their own and the caller's thread parses
 * copies of the windows (three queued at most); rows and messages are the
 * same either way.
 */
#ifndef PERFSTUDY_KINETO_STREAM_H
#define PERFSTUDY_KINETO_STREAM_H

#include "ingest/kineto/kineto_json.h"
#include "ingest/stream.h"

/*
 * kineto.c's kj_cat_fn: what perfstudy reads of each Kineto category (its
 * class, with KJ_ONLY_EXTERNAL_ID for host operators; 0 for the categories
 * no analysis uses). Also used by bench/floor.c to time the walk alone.
 */
int kineto_cat_class(const char *cat, size_t n);

/*
 * Like kj_parse on the whole file: on_event for each element of traceEvents
 * in order, *meta at the end. Offsets (events, *err) count from the start of
 * the file (uncompressed). Returns 0; 1 when on_event stopped; -1 on
 * malformed JSON with *err filled; -2 when reading failed (reported).
 */
int kj_stream_parse(struct source_stream *src, kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx, struct kj_meta *meta,
		    struct kj_error *err);

#endif
