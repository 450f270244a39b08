/*
 * cmd_shard.c: `perfstudy ingest --shard I/N` and `perfstudy merge`, a
 * build cut in two stages so that the reading can run on many machines
 * (a Slurm array job: docs/cli.md, `ingest` and `merge`).
 *
 * Both take build's options and INPUTs and run cmd_build's pipeline in a
 * mode (cli.h): ingest plans the build as build would, reads the traces
 * whose position mod N is I into a shard database (src/shard.h) and stops;
 * merge plans it again and builds the site, replaying each trace's events
 * from the shards instead of reading the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "study/shard.h"
#include "util/diag.h"
#include "util/xalloc.h"

void usage_ingest(void)
{
	printf("usage: perfstudy ingest --shard I/N [-o SHARD.db] [--jobs N] [-q] INPUT...\n\n"
	       "Reads the traces of the build of INPUT... (manifests or trace directories,\n"
	       "as for perfstudy build) whose position in the build's order, mod N, is I,\n"
	       "into the shard database SHARD.db (default: perfstudy-shard-I-of-N.db).\n"
	       "perfstudy merge then builds the site from all N shards.\n\n"
	       "  --shard I/N          this shard: 0 <= I < N\n"
	       "  -o, --output FILE    the shard database to write (replaced atomically)\n"
	       "  -j, --jobs N         read N traces at once (default: the number of cores)\n"
	       "  -q, --quiet          no progress or warnings on stderr\n"
	       "  -h, --help           this help\n\n"
	       "Exit: 0 ok, 1 bad input, 2 usage, 3 I/O or system error.\n");
}

void usage_merge(void)
{
	printf("usage: perfstudy merge [-o DIR] [--classify PRESET] [-q] SHARD.db... INPUT...\n\n"
	       "Builds DIR exactly as perfstudy build INPUT... would, with every trace's\n"
	       "events taken from the shard databases written by perfstudy ingest --shard\n"
	       "I/N for I = 0..N-1 (recognised by their content, in any order). Run it\n"
	       "from the same directory with the same INPUT arguments as the shards; a\n"
	       "trace changed since its shard read it is an error.\n\n"
	       "  -o, --output DIR     output directory (default: out); replaced atomically\n"
	       "  --classify PRESET    kernel classification: default, payoungkhamdee2021\n"
	       "  -q, --quiet          no progress or warnings on stderr\n"
	       "  -h, --help           this help\n\n"
	       "Exit: 0 ok, 1 bad input, 2 usage, 3 I/O or system error.\n");
}

static int wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return 1;
	return 0;
}

/* Options of build that take a separate value: the value is not an input. */
static int takes_value(const char *a)
{
	return !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--classify") || !strcmp(a, "-j") ||
	       !strcmp(a, "--jobs");
}

/* Parses "I/N"; 0, or -1 when it is not two integers with 0 <= I < N. */
static int parse_shard(const char *s, int *shard, int *n)
{
	char *end;
	long i = strtol(s, &end, 10);
	if (end == s || *end != '/')
		return -1;
	const char *p = end + 1;
	long k = strtol(p, &end, 10);
	if (end == p || *end || i < 0 || k < 1 || i >= k || k > 1000000)
		return -1;
	*shard = (int)i;
	*n = (int)k;
	return 0;
}

int cmd_ingest(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		usage_ingest();
		return EXIT_OK;
	}
	struct build_mode mode = {0};
	char **args = xcalloc((size_t)argc + 3, sizeof(*args));
	int n = 0, have_out = 0, have_shard = 0, ret;
	char *def_out = NULL;
	args[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *v = NULL;
		if (!strcmp(argv[i], "--shard")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "perfstudy ingest: error: --shard needs a value I/N\n");
				ret = EXIT_USAGE;
				goto out;
			}
			v = argv[++i];
		} else if (!strncmp(argv[i], "--shard=", 8)) {
			v = argv[i] + 8;
		}
		if (v) {
			if (parse_shard(v, &mode.shard, &mode.nshards) < 0) {
				diag_line(stderr, "perfstudy ingest: error: --shard expects I/N with 0 <= I < N, got '%s'", v);
				ret = EXIT_USAGE;
				goto out;
			}
			have_shard = 1;
			continue;
		}
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output") || !strncmp(argv[i], "--output=", 9) ||
		    (!strncmp(argv[i], "-o", 2) && argv[i][2]))
			have_out = 1;
		args[n++] = argv[i];
	}
	if (!have_shard) {
		fprintf(stderr, "perfstudy ingest: error: --shard I/N is required (see perfstudy ingest --help)\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (!have_out) {
		def_out = xasprintf("perfstudy-shard-%d-of-%d.db", mode.shard, mode.nshards);
		/* Options first: getopt stops at nothing, but keep the inputs last anyway. */
		memmove(args + 3, args + 1, (size_t)(n - 1) * sizeof(*args));
		args[1] = (char *)"-o";
		args[2] = def_out;
		n += 2;
	}
	ret = cmd_build_mode(n, args, &mode);
out:
	free(def_out);
	free(args);
	return ret;
}

int cmd_merge(int argc, char **argv)
{
	if (wants_help(argc, argv)) {
		usage_merge();
		return EXIT_OK;
	}
	char **args = xcalloc((size_t)argc + 1, sizeof(*args));
	const char **shards = xcalloc((size_t)argc + 1, sizeof(*shards));
	int n = 0, ret;
	size_t ns = 0;
	args[n++] = argv[0];
	for (int i = 1; i < argc; i++) {
		if (takes_value(argv[i]) && i + 1 < argc) {
			args[n++] = argv[i++];
			args[n++] = argv[i];
		} else if (argv[i][0] != '-' && shard_is_shard(argv[i])) {
			shards[ns++] = argv[i];
		} else {
			args[n++] = argv[i];
		}
	}
	if (!ns) {
		fprintf(stderr, "perfstudy merge: error: no shard database given (see perfstudy merge --help)\n");
		ret = EXIT_USAGE;
	} else {
		struct build_mode mode = {.merge = shards, .nmerge = ns};
		ret = cmd_build_mode(n, args, &mode);
	}
	free(shards);
	free(args);
	return ret;
}
