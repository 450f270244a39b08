/*
 * cmd_inspect.c: `perfstudy inspect FILE...`, one line per file.
 *
 * Each file is read by the reader its content calls for, into a sink that
 * only counts. A file that cannot be read gets its one-line reason on
 * stderr and the others are still inspected; the exit code is the worst
 * seen.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "ingest/ingest.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

void usage_inspect(void)
{
	printf("usage: perfstudy inspect FILE...\n\n"
	       "Reads each FILE (format detected from its content; .gz inflated) and prints\n"
	       "  FILE: FORMAT, N ranks, K kernels, M memcpy, S memset, R runtime, A annotations,\n"
	       "  G gpu annotations, P steps, C cpu ops[, rank R of W][, DEVICE]\n"
	       "A file that is recognised but holds nothing perfstudy uses (a PyTorch execution\n"
	       "trace, a memory timeline) gets one line saying what it is, and counts as read.\n"
	       "A file that cannot be read gets one line on stderr saying why.\n"
	       "Exit: 0 all read, 1 some file is bad input, 3 I/O error.\n");
}

struct inspect_info {
	int rank, world;
	char device[128];
};

static int on_info(void *ctx, const struct trace_info *info)
{
	struct inspect_info *ii = ctx;
	ii->rank = info->rank;
	ii->world = info->world_size;
	if (info->ndevices)
		snprintf(ii->device, sizeof(ii->device), "%s", info->devices[0].name);
	return 0;
}

int cmd_inspect(int argc, char **argv)
{
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage_inspect();
		return EXIT_OK;
	}
	if (argc < 2) {
		fprintf(stderr, "perfstudy inspect: error: no file given\n");
		return EXIT_USAGE;
	}
	diag_set_quiet(1);
	for (int i = 1; i < argc; i++) {
		struct inspect_info ii = {.rank = -1, .world = -1};
		struct ingest_sink sink = {.ctx = &ii, .info = on_info};
		struct ingest_counts c;
		const char *format;
		if (ingest_file(argv[i], &sink, &c, &format, NULL) < 0)
			continue;
		if (c.unused) {
			/* Recognised, but nothing in it is used: say what it is; not an error. */
			char *esc = diag_escape(argv[i]);
			printf("%s: %s, %" PRId64 " records, nothing perfstudy uses: %s\n", esc, format, c.events,
			       c.unused);
			free(esc);
			continue;
		}
		struct buf line;
		buf_init(&line);
		/* a file of several GPUs (JAX) becomes one rank per GPU, as build splits it */
		buf_printf(&line, "%s: %s, %" PRId64 " ranks, %" PRId64 " kernels, %" PRId64 " memcpy, %" PRId64
			   " memset, %" PRId64 " runtime, %" PRId64 " annotations, %" PRId64
			   " gpu annotations, %" PRId64 " steps, %" PRId64 " cpu ops",
			   argv[i], format, c.devices > 1 ? c.devices : (int64_t)1, c.kernels, c.memcpys, c.memsets, c.runtime, c.annotations,
			   c.gpu_annotations, c.steps, c.cpu_ops);
		if (ii.rank >= 0) {
			buf_printf(&line, ", rank %d", ii.rank);
			if (ii.world > 0)
				buf_printf(&line, " of %d", ii.world);
		}
		if (ii.device[0])
			buf_printf(&line, ", %s", ii.device);
		if (c.metrics)
			buf_printf(&line, ", %" PRId64 " kernel metrics (no timeline)", c.metrics);
		if (c.iterations)
			buf_printf(&line, ", %" PRId64 " iterations", c.iterations);
		if (c.phases)
			buf_printf(&line, ", %" PRId64 " phases", c.phases);
		if (c.gpus)
			buf_printf(&line, ", %" PRId64 " gpus", c.gpus);
		if (c.links)
			buf_printf(&line, ", %" PRId64 " links", c.links);
		int other = c.metrics || c.iterations || c.phases || c.gpus || c.links;
		if (c.summaries)
			buf_printf(&line, ", %" PRId64 " summary rows (no timeline)", c.summaries);
		else if (!c.kernels && !c.memcpys && !c.memsets && !other)
			buf_adds(&line, ", no GPU activity");
		if (c.skipped)
			buf_printf(&line, ", %" PRId64 " malformed events skipped", c.skipped);
		/* names from the input (the file's, its device's) never reach the terminal raw */
		char *esc = diag_escape(line.data);
		puts(esc);
		free(esc);
		buf_release(&line);
	}
	return diag_exit_code();
}
