/*
 * pytorch_other.c: PyTorch profiler outputs that are not timelines, so that
 * `perfstudy inspect` can name them instead of calling them unknown, and a
 * build can say why they add nothing.
 *
 * pytorch-et: a PyTorch Execution Trace (ExecutionTraceObserver, the Chakra
 *   ET JSON: {"schema": "1.0.1", "pid": ..., "nodes": [...]}). Its nodes are
 *   operators with inputs, shapes and parent links, but no durations and no
 *   GPU activity; the Kineto trace taken beside it holds the timing.
 * memory-timeline: `profile.export_memory_timeline()` output, the raw list
 *   of [time_ns, action, bytes, category] records (or its [times, sizes]
 *   form): memory by category over time, with no kernels or steps.
 *
 * Both readers check the file's shape and count its records, then set
 * counts->unused to a one-line description; they emit nothing to the sink.
 */
#include <string.h>

#include "ingest/ingest.h"
#include "ingest/source.h"
#include "util/diag.h"

static size_t skip_ws(const char *p, size_t n, size_t i)
{
	while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
		i++;
	return i;
}

/* A JSON object whose first key is "schema" and that has "nodes" but no "traceEvents" up front. */
static int et_detect(const char *head, size_t n)
{
	size_t i = skip_ws(head, n, 0);
	if (i >= n || head[i] != '{')
		return 0;
	i = skip_ws(head, n, i + 1);
	if (n - i < 8 || memcmp(head + i, "\"schema\"", 8))
		return 0;
	i = skip_ws(head, n, i + 8);
	return i < n && head[i] == ':' && source_find(head, n, "\"nodes\"") && !source_find(head, n, "\"traceEvents\"");
}

static int et_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	(void)sink;
	/* Nodes are counted by their "rf_id" key, which only operator nodes carry. */
	const char *p = src->data, *e = src->data + src->len;
	int64_t nodes = 0;
	while ((p = source_find(p, (size_t)(e - p), "\"rf_id\"")) != NULL) {
		nodes++;
		p += 7;
	}
	counts->events = nodes;
	counts->unused = "PyTorch execution trace (Chakra ET): an operator graph with shapes but no timing or GPU "
			 "activity; read the Kineto trace taken with it";
	return 0;
}

static int memtl_detect(const char *head, size_t n)
{
	size_t i = skip_ws(head, n, 0);
	if (i >= n || head[i] != '[')
		return 0;
	i = skip_ws(head, n, i + 1);
	if (i >= n || head[i] != '[')
		return 0;
	i = skip_ws(head, n, i + 1);
	return i < n && (head[i] == '-' || (head[i] >= '0' && head[i] <= '9'));
}

/* Checks that the file is nested arrays of integers and counts the inner arrays. */
static int memtl_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	(void)sink;
	int depth = 0;
	int64_t records = 0;
	for (size_t i = 0; i < src->len; i++) {
		char c = src->data[i];
		if (c == '[') {
			if (++depth > 3)
				goto bad;
			if (depth == 2)
				records++;
		} else if (c == ']') {
			if (--depth < 0)
				goto bad;
		} else if (!(c == ',' || c == '-' || c == '.' || c == ' ' || c == '\n' || c == '\r' || c == '\t' ||
			     (c >= '0' && c <= '9') || c == 'e' || c == 'E' || c == '+')) {
			diag_error(src->path, "malformed memory timeline at byte %zu: expected numbers in nested arrays, "
				   "found '%c'", i, c);
			return -1;
		}
		continue;
bad:
		diag_error(src->path, "malformed memory timeline at byte %zu: unbalanced or too deeply nested '%c'", i, c);
		return -1;
	}
	if (depth) {
		diag_error(src->path, "truncated memory timeline: %d arrays left open at byte %zu", depth, src->len);
		return -1;
	}
	counts->events = records;
	counts->unused = "PyTorch memory timeline (export_memory_timeline): bytes by category over time, with no "
			 "kernels or steps to place them in";
	return 0;
}

const struct reader pytorch_et_reader = {
	.name = "pytorch-et",
	.detect = et_detect,
	.read = et_read,
};

const struct reader memory_timeline_reader = {
	.name = "memory-timeline",
	.detect = memtl_detect,
	.read = memtl_read,
};
