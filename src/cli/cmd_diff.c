/*
 * cli/cmd_diff.c: perfstudy diff OLD_DIR NEW_DIR, what changed between two
 * builds' outputs, for CI pipelines.
 *
 * The comparison is history_diff (analyze/history/history_diff.c): per experiment,
 * the latest build each store records, the rows of changes.csv printed one
 * per line (a run's step time as one statement). Exit status: 0 when no
 * run regressed, 4 when one did (EXIT_THRESHOLD: its step time slower by
 * the rule of verdict.h, with the minimum effect of NEW_DIR's
 * thresholds.step_time_pct or 5 %, or its mfu down past
 * thresholds.mfu_pp), 1 when a store cannot be used, 2 on a bad command
 * line.
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "analyze/history/history.h"
#include "util/diag.h"

void usage_diff(void)
{
	printf("usage: perfstudy diff [-q] OLD_DIR NEW_DIR\n"
	       "\n"
	       "Compares the latest build recorded in OLD_DIR/perfstudy.db with the one in\n"
	       "NEW_DIR/perfstudy.db, experiment by experiment: runs added and removed, inputs\n"
	       "re-read (another SHA-256), one line per run on its step time, and the other\n"
	       "numbers that moved. A run's step time is judged on the unprofiled iterations\n"
	       "of its training log (else one sample per profiled step, the slowest rank's):\n"
	       "'slower' or 'faster' when the median moved by at least the minimum effect\n"
	       "(NEW_DIR's manifest thresholds.step_time_pct, else 5 %%) and the noise does not\n"
	       "explain it (the 95 %% intervals do not overlap, or Mann-Whitney p < 0.05 where\n"
	       "the sample sizes allow a test), 'within noise' or 'same' otherwise. A slower\n"
	       "step time, or mfu down past thresholds.mfu_pp, is a REGRESSION.\n"
	       "\n"
	       "  -q, --quiet   print only the regressions\n"
	       "  -h, --help    this help\n"
	       "\n"
	       "exit codes: 0 no regression, 4 a regression, 1 a store cannot be read or has\n"
	       "no build history, 2 usage\n");
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
			diag_line(stderr, "perfstudy diff: error: unknown option '%s' (see perfstudy diff --help)",
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
