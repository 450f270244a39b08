/*
 * cli/cmd_diff.c: perfstudy diff OLD_DIR NEW_DIR, what changed between two
 * builds' outputs, for CI pipelines.
 *
 * The comparison is history_diff (analyze/history_diff.c): per experiment,
 * the latest build each store records, the rows of changes.csv printed one
 * per line. Exit status: 0 when no threshold of NEW_DIR's manifest
 * ('thresholds', kept in history_thresholds) was crossed by a change beyond
 * the noise, 4 when one was (EXIT_THRESHOLD), 1 when a store cannot be
 * used, 2 on a bad command line.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "analyze/history.h"
#include "util/diag.h"

void usage_diff(void)
{
	printf("usage: perfstudy diff [-q] OLD_DIR NEW_DIR\n"
	       "\n"
	       "Compares the latest build recorded in OLD_DIR/perfstudy.db with the one in\n"
	       "NEW_DIR/perfstudy.db, experiment by experiment: runs added and removed, inputs\n"
	       "re-read (another SHA-256), numbers that moved, each with the Mann-Whitney test\n"
	       "of the run's step times ('change' when p < 0.05, else 'within noise').\n"
	       "A change beyond the noise that crosses a threshold of NEW_DIR's manifest\n"
	       "(thresholds: {step_time_pct: 5, mfu_pp: -2}) is marked THRESHOLD.\n"
	       "\n"
	       "  -q, --quiet   print only the threshold crossings\n"
	       "  -h, --help    this help\n"
	       "\n"
	       "exit codes: 0 no threshold crossed, 4 a threshold crossed, 1 a store cannot be\n"
	       "read or has no build history, 2 usage\n");
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int quiet = 0, c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage_diff();
			return EXIT_OK;
		default:
			fprintf(stderr, "perfstudy diff: error: unknown option '%s' (see perfstudy diff --help)\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "perfstudy diff: error: expected OLD_DIR and NEW_DIR (see perfstudy diff --help)\n");
		return EXIT_USAGE;
	}
	size_t crossed = 0;
	if (history_diff(argv[optind], argv[optind + 1], quiet, &crossed) < 0)
		return EXIT_INPUT;
	return crossed ? EXIT_THRESHOLD : EXIT_OK;
}
