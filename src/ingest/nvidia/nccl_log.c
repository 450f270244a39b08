/*
 * nccl_log.c: NCCL's log (NCCL_DEBUG=INFO) given as a run input, as a
 * console prints it:
 *
 *   host:2320:2320 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via NET/Socket/0
 *
 * Recognised by a line with " NCCL INFO " in the first bytes, after the
 * training-log readers (a console log whose first bytes hold iteration
 * lines is read as the training log, its NCCL lines too: see below). The
 * file must have at least one such line. Nothing of it goes into the
 * store: the nccl-path finding (analyze/findings/findings_nccl.c) reads
 * the channel lines ("NCCL INFO Channel ... via T") of every run input
 * itself; the counts say how many lines it has (events) and how many of
 * them name a channel's transport (links).
 */
#include <string.h>

#include "ingest/ingest.h"
#include "ingest/source.h"
#include "util/diag.h"

static int nccl_detect(const char *head, size_t n)
{
	return source_find(head, n, " NCCL INFO ") != NULL;
}

static int nccl_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	size_t pos = 0;
	while (pos < src->len) {
		const char *p = src->data + pos, *e = memchr(p, '\n', src->len - pos);
		size_t n = e ? (size_t)(e - p) : src->len - pos;
		pos += n + (e != NULL);
		if (!source_find(p, n, " NCCL INFO "))
			continue;
		counts->events++;
		if (source_find(p, n, "NCCL INFO Channel") && source_find(p, n, " via "))
			counts->links++;
	}
	if (!counts->events) {
		diag_error(src->path, "line 1: expected NCCL's log (lines with ' NCCL INFO ')");
		return -1;
	}
	struct trace_info info = {.format = "nccl-log", .rank = -1, .world_size = -1, .epoch_offset_ns = -1};
	return sink->info && sink->info(sink->ctx, &info) < 0 ? -1 : 0;
}

const struct reader nccl_log_reader = {
	.name = "nccl-log",
	.detect = nccl_detect,
	.read = nccl_read,
};
