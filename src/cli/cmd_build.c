/*
 * cli/cmd_build.c: `perfstudy build`: its options, usage and exit code.
 * The build itself is study/build.h's build_run (plan, read, analyze,
 * assemble); this file parses the command line into build_options.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/lib/classify.h"
#include "study/build.h"
#include "cli/cli.h"
#include "ingest/parallel.h"
#include "util/diag.h"

void usage_build(void)
{
	printf("usage: perfstudy build [-o DIR] [--classify PRESET] [--force] [--jobs N] [-q] INPUT...\n\n"
	       "Each INPUT is a manifest (.yaml/.yml) or a trace directory or file.\n"
	       "Each manifest is one experiment; all directories and files given are the\n"
	       "runs of one experiment named 'default'. A directory is one run whose\n"
	       "*.json, *.json.gz, *.sqlite (Nsight Systems), *.nvvp and *.csv (nvprof) files are\n"
	       "its ranks; its run id is its path relative\n"
	       "to the deepest common parent of all directories given.\n\n"
	       "  -o, --output DIR     output directory (default: out); replaced atomically\n"
	       "  --classify PRESET    kernel classification: default, payoungkhamdee2021\n"
	       "                       (overrides a manifest's classify setting)\n"
	       "  --force              read every trace again, even those unchanged since\n"
	       "                       the build in DIR (whose rows are otherwise reused)\n"
	       "  -j, --jobs N         read N traces and draw N figures at once (default:\n"
	       "                       the number of cores); the output is the same for any N\n"
	       "  -q, --quiet          no progress or warnings on stderr\n"
	       "  -h, --help           this help\n\n"
	       "Writes DIR/index.html, DIR/perfstudy.db, DIR/<experiment>/index.html,\n"
	       "DIR/<experiment>/data/*.csv and DIR/<experiment>/figures/*.{svg,pdf,png}.\n"
	       "Exit: 0 ok, 1 bad input, 2 usage, 3 I/O or system error.\n");
}

int cmd_build(int argc, char **argv)
{
	static const struct build_mode plain = {0};
	return cmd_build_mode(argc, argv, &plain);
}

/*
 * Why out cannot name an output, or NULL: the output is written beside it
 * as OUT.tmp.<pid> and renamed onto it, which a name ending in '.' or '..'
 * (`-o site/.`) or naming no file (``, `/`) cannot be: the rename failed
 * with exit 3 "Device or resource busy", a usage error in fact.
 */
static const char *bad_output(const char *out)
{
	size_t n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		n--;
	if (n == 0)
		return "names no file or directory";
	size_t start = n;
	while (start > 0 && out[start - 1] != '/')
		start--;
	if ((n - start == 1 && out[start] == '.') || (n - start == 2 && out[start] == '.' && out[start + 1] == '.'))
		return "ends in '.' or '..'; name the output itself (-o DIR, not -o DIR/.)";
	return NULL;
}

int cmd_build_mode(int argc, char **argv, const struct build_mode *mode)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"classify", required_argument, NULL, 'c'},
		{"quiet", no_argument, NULL, 'q'},
		{"force", no_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "out", *preset = NULL;
	int quiet = 0, force = 0, c, jobs = feed_default_jobs();
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:j:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'j': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v < 1 || v > 1024) {
				diag_line(stderr, "perfstudy %s: error: --jobs expects a number from 1 to 1024, got '%s'",
					argv[0], optarg);
				return EXIT_USAGE;
			}
			jobs = (int)v;
			break;
		}
		case 'c':
			preset = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			usage_build();
			return EXIT_OK;
		default:
			diag_line(stderr, "perfstudy build: error: unknown or incomplete option '%s' (see perfstudy build --help)",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "perfstudy build: error: no input given (see perfstudy build --help)\n");
		return EXIT_USAGE;
	}
	const char *why = bad_output(out);
	if (why) {
		diag_line(stderr, "perfstudy %s: error: -o '%s' %s", argv[0], out, why);
		return EXIT_USAGE;
	}
	if (preset) {
		struct classifier *probe = classifier_preset(preset);
		if (!probe) {
			diag_line(stderr, "perfstudy build: error: unknown classification preset '%s' "
					"(presets: default, payoungkhamdee2021)", preset);
			return EXIT_USAGE;
		}
		classifier_free(probe);
	}
	diag_set_quiet(quiet);
	struct build_options o = {
		.out = out,
		.preset = preset,
		.quiet = quiet,
		.force = force,
		.jobs = jobs,
		.inputs = argv + optind,
		.ninputs = (size_t)(argc - optind),
		.argc = argc,
		.argv = argv,
		.mode = mode,
	};
	build_run(&o);
	return diag_exit_code();
}
