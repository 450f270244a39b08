/* fuzz_common.c: the checking sink and the in-memory reader call of fuzz.h. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

static void fail(const char *what)
{
	fprintf(stderr, "fuzz: invariant violated: %s\n", what);
	abort();
}

/* Touching every byte makes ASan catch a string that runs off its buffer. */
static void check_str(const char *s, int may_be_null)
{
	if (!s) {
		if (!may_be_null)
			fail("NULL string");
		return;
	}
	volatile size_t n = strlen(s);
	(void)n;
}

static void check_time(int64_t start, int64_t dur)
{
	if (dur < 0)
		fail("negative duration");
	if (start > INT64_MAX - dur)
		fail("start + duration beyond int64");
}

static int on_info(void *ctx, const struct trace_info *info)
{
	(void)ctx;
	check_str(info->format, 0);
	check_str(info->strategy, 1);
	if (info->rank < -1 || info->world_size < -1 || info->world_size == 0)
		fail("rank or world size out of range");
	if (info->ndevices && !info->devices)
		fail("devices missing");
	for (size_t i = 0; i < info->ndevices; i++) {
		check_str(info->devices[i].name, 1);
		if (info->devices[i].total_mem < -1 || info->devices[i].sm_count < -1)
			fail("device value out of range");
	}
	return 0;
}

static int on_activity(void *ctx, const struct gpu_activity *a)
{
	(void)ctx;
	if (a->kind != ACT_KERNEL && a->kind != ACT_MEMCPY && a->kind != ACT_MEMSET)
		fail("unknown activity kind");
	check_str(a->name, 0);
	check_str(a->copy_kind, 1);
	check_time(a->start_ns, a->dur_ns);
	if (a->device < -1 || a->bytes < -1)
		fail("activity value out of range");
	return 0;
}

static int on_runtime(void *ctx, const struct runtime_call *r)
{
	(void)ctx;
	check_str(r->name, 0);
	check_time(r->start_ns, r->dur_ns);
	return 0;
}

static int on_annotation(void *ctx, const struct annotation *a)
{
	(void)ctx;
	check_str(a->name, 0);
	check_time(a->start_ns, a->dur_ns);
	return 0;
}

void fuzz_check_sink(struct ingest_sink *sink)
{
	memset(sink, 0, sizeof(*sink));
	sink->info = on_info;
	sink->activity = on_activity;
	sink->runtime = on_runtime;
	sink->annotation = on_annotation;
}

void fuzz_read(const struct reader *r, const uint8_t *data, size_t size, int force)
{
	diag_set_quiet(1);
	struct source src;
	memset(&src, 0, sizeof(src));
	src.path = "fuzz-input";
	/* An exact-size copy plus the padding source_load() guarantees, so ASan sees overreads. */
	src.data = xmalloc(size + SOURCE_PADDING);
	if (size)
		memcpy(src.data, data, size);
	memset(src.data + size, 0, SOURCE_PADDING);
	src.len = size;
	src.meta.size = (int64_t)size;
	size_t head = size < 4096 ? size : 4096;
	if (force || (r->detect(src.data, head) && (!r->detect_source || r->detect_source(&src)))) {
		struct ingest_sink sink;
		struct ingest_counts counts;
		memset(&counts, 0, sizeof(counts));
		fuzz_check_sink(&sink);
		r->read(&src, &sink, &counts);
		if (counts.skipped < 0 || counts.kernels < 0)
			fail("negative count");
	}
	free(src.data);
	diag_reset();
}

const struct reader *fuzz_reader(const char *name)
{
	size_t n;
	const struct reader *const *rs = ingest_readers(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rs[i]->name, name))
			return rs[i];
	fprintf(stderr, "fuzz: no reader named '%s'\n", name);
	abort();
}
