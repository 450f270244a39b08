/*
 * main.c: perfstudy's entry point: finds the subcommand in a table and runs it.
 *
 * The pipeline itself lives in the stages under src/ (manifest, ingest,
 * store, analyze, chart, report); cmd_*.c tie them together.
 */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "util/diag.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	void (*usage)(void);
	const char *summary;
};

static const struct command commands[] = {
	{"build", cmd_build, usage_build, "read traces or manifests, write the store, figures and HTML report"},
	{"inspect", cmd_inspect, usage_inspect, "say what each file is and what it holds"},
	{"ingest", cmd_ingest, usage_ingest, "read one shard of a build's traces into a shard database"},
	{"merge", cmd_merge, usage_merge, "build from shard databases, as build would from the traces"},
	{"diff", cmd_diff, usage_diff, "what changed between two builds' outputs; exit 4 past a threshold"},
	{"whatif", cmd_whatif, usage_whatif, "a run's steps replayed under your changes, into whatif.csv"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: perfstudy <command> [options] [args]\n"
		   "       perfstudy --version | --help | help <command>\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nexit codes: 0 ok, 1 bad input, 2 usage, 3 I/O or system error;\n"
		   "diff: 4 when a change beyond the noise crosses a threshold\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
#ifdef M_MMAP_THRESHOLD
	/*
	 * Blocks of 1 MiB and more (a rank's event arrays, loaded and freed by
	 * every analysis) are mapped and unmapped, never left as holes in the
	 * heap: glibc's default raises this threshold as such blocks are freed,
	 * and 64 ranks of 100 MB then peaked at 214 MiB instead of 91 MiB.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
	/*
	 * Past a file size limit (ulimit -f) a write fails with EFBIG instead of
	 * killing the process: the write's error names the file and the build
	 * removes its DIR.tmp.<pid> and DIR.lock, as for a full disk.
	 */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("perfstudy %s\n", PERFSTUDY_VERSION);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(cmd, "help")) {
		if (argc < 3) {
			usage(stdout);
			return EXIT_OK;
		}
		const struct command *c = find(argv[2]);
		if (!c) {
			diag_line(stderr, "perfstudy: error: unknown command '%s'", argv[2]);
			return EXIT_USAGE;
		}
		c->usage();
		return EXIT_OK;
	}
	const struct command *c = find(cmd);
	if (!c) {
		diag_line(stderr, "perfstudy: error: unknown command '%s' (see perfstudy --help)", cmd);
		return EXIT_USAGE;
	}
	return c->run(argc - 1, argv + 1);
}
