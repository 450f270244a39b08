/*
 * cli/cmd_diff.c: perfstudy diff OLD_DIR NEW_DIR, what changed between two
 * builds' outputs, for CI pipelines.
 *
 * The comparison is history_diff (cli/diff.c): per experiment,
 * the latest build each store records, the rows of changes.csv printed one
 * per line (a run's step time as one statement, with where a change beyond
 * the noise went: history_explain.c), and with --json / --benchmark-json
 * the same as JSON files. Exit status: 0 when no
 * run regressed, 4 when one did (EXIT_THRESHOLD: its step time slower by
 * the rule of verdict.h, with the minimum effect of NEW_DIR's
 * thresholds.step_time_pct or 5 %, or its mfu down past
 * thresholds.mfu_pp), 1 when a store cannot be used, 2 on a bad command
 * line, an output that is one of the inputs or a --pair OLD=NEW that fits
 * no experiment, 3 when a JSON file cannot be written.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/xalloc.h"

void usage_diff(void)
{
	printf("usage: perfstudy diff [-q] [--json FILE] [--benchmark-json FILE]\n"
	       "                      [--pair OLD=NEW]... OLD_DIR NEW_DIR\n"
	       "\n"
	       "Compares the latest build recorded in OLD_DIR/perfstudy.db with the one in\n"
	       "NEW_DIR/perfstudy.db, experiment by experiment: runs added and removed, inputs\n"
	       "re-read (another SHA-256), one line per run on its step time, and the other\n"
	       "numbers that moved. A run's step time is judged on the unprofiled iterations\n"
	       "of its training log (else one sample per profiled step, the slowest rank's)\n"
	       "and said in words: 'same (within noise)' when the noise explains the change\n"
	       "(the 95 %% intervals overlap and Mann-Whitney p >= 0.05, or no test is possible),\n"
	       "else 'slower by 2.7 %% (beyond noise, under the 5 %% threshold)' or 'faster\n"
	       "by ...'; the threshold is NEW_DIR's manifest thresholds.step_time_pct, else 5 %%.\n"
	       "Slower beyond the noise and over the threshold is a REGRESSION ('slower by\n"
	       "204 %%: REGRESSION'), as is mfu down past thresholds.mfu_pp beyond its noise.\n"
	       "Every other number gets its own test. For each run whose step time changed\n"
	       "beyond the noise, the largest contributors to the change of its profiled step\n"
	       "(mean over ranks) per kernel group, kernel, region and rank, in ms per step,\n"
	       "which with the idle part add up to it (docs/cli.md defines the parts); a\n"
	       "rank's line gives its own step's change, then its share (its step / the ranks).\n"
	       "Inputs at another path are matched by run, rank and format: 'inputs moved'.\n"
	       "\n"
	       "  -q, --quiet              print only the regressions\n"
	       "      --json FILE          write the verdicts and every contributor as JSON\n"
	       "      --benchmark-json FILE\n"
	       "                           write each run's step time in github-action-benchmark's\n"
	       "                           customSmallerIsBetter format\n"
	       "      --pair OLD=NEW       compare run OLD of OLD_DIR with run NEW of NEW_DIR\n"
	       "                           as one run named NEW (a run built under another\n"
	       "                           name); repeatable\n"
	       "  -h, --help               this help\n"
	       "\n"
	       "exit codes: 0 no regression, 4 a regression, 1 a store cannot be read or has\n"
	       "no build history, 2 usage (also: an output FILE that is one of the stores, a\n"
	       "--pair that fits no experiment),\n"
	       "3 a JSON file cannot be written\n");
}

/*
 * An output is never one of the inputs: --json or --benchmark-json naming
 * OLD_DIR/perfstudy.db (by another path, a hard or symbolic link), its
 * journal or write-ahead log, or the other output, is a usage error before
 * anything is read or written. Compared by device and inode, not by name.
 * Returns 0, or -1 after saying which.
 */
static int outputs_not_inputs(const char *old_dir, const char *new_dir, const struct history_diff_opts *o)
{
	static const char *const parts[] = {"perfstudy.db", "perfstudy.db-journal", "perfstudy.db-wal",
					    "perfstudy.db-shm"};
	const char *outs[2] = {o->json, o->benchmark_json}, *dirs[2] = {old_dir, new_dir};
	for (int k = 0; k < 2; k++) {
		if (!outs[k])
			continue;
		for (int d = 0; d < 2; d++)
			for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
				char *in = xasprintf("%s/%s", dirs[d], parts[i]);
				int same = fs_same_file(outs[k], in);
				if (same)
					diag_error(outs[k], "the output is also an input (%s): refusing to overwrite it", in);
				free(in);
				if (same)
					return -1;
			}
	}
	if (o->json && o->benchmark_json &&
	    (!strcmp(o->json, o->benchmark_json) || fs_same_file(o->json, o->benchmark_json))) {
		diag_error(o->json, "--json and --benchmark-json name one file: each output needs its own");
		return -1;
	}
	return 0;
}

/*
 * --pair OLD=NEW (split at the first '='): both ids non-empty, and no run
 * paired twice on one side. Returns 0, or -1 after saying why.
 */
static int add_pair(struct history_diff_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg || !eq[1]) {
		diag_line(stderr, "perfstudy diff: error: --pair '%s': expected OLD=NEW, a run id of OLD_DIR and one of "
			  "NEW_DIR (see perfstudy diff --help)", arg);
		return -1;
	}
	char *old = xasprintf("%.*s", (int)(eq - arg), arg), *new = xstrdup(eq + 1);
	for (size_t i = 0; i < o->npairs; i++)
		if (!strcmp(o->pair_old[i], old) || !strcmp(o->pair_new[i], new)) {
			diag_line(stderr, "perfstudy diff: error: --pair '%s': run '%s' is paired twice (with --pair '%s=%s')",
				  arg, !strcmp(o->pair_old[i], old) ? old : new, o->pair_old[i], o->pair_new[i]);
			free(old);
			free(new);
			return -1;
		}
	o->pair_old = xrealloc(o->pair_old, (o->npairs + 1) * sizeof(*o->pair_old));
	o->pair_new = xrealloc(o->pair_new, (o->npairs + 1) * sizeof(*o->pair_new));
	o->pair_old[o->npairs] = old;
	o->pair_new[o->npairs++] = new;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{"quiet", no_argument, NULL, 'q'},
		{"json", required_argument, NULL, 'j'},
		{"benchmark-json", required_argument, NULL, 'b'},
		{"pair", required_argument, NULL, 'p'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct history_diff_opts o = {0, NULL, NULL, 0, NULL, NULL};
	int c, ret = EXIT_USAGE;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o.quiet = 1;
			break;
		case 'j':
			o.json = optarg;
			break;
		case 'b':
			o.benchmark_json = optarg;
			break;
		case 'p':
			if (add_pair(&o, optarg) < 0)
				goto out;
			break;
		case 'h':
			usage_diff();
			ret = EXIT_OK;
			goto out;
		default:
			if (optopt == 'j' || optopt == 'b')
				diag_line(stderr, "perfstudy diff: error: option '%s' needs a FILE (see perfstudy diff --help)",
					  argv[optind - 1]);
			else if (optopt == 'p')
				diag_line(stderr, "perfstudy diff: error: option '%s' needs OLD=NEW, two run ids (see "
					  "perfstudy diff --help)", argv[optind - 1]);
			else
				diag_line(stderr, "perfstudy diff: error: unknown option '%s' (see perfstudy diff --help)",
					  argv[optind - 1]);
			goto out;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "perfstudy diff: error: expected OLD_DIR and NEW_DIR (see perfstudy diff --help)\n");
		goto out;
	}
	if (outputs_not_inputs(argv[optind], argv[optind + 1], &o) < 0)
		goto out;
	size_t crossed = 0;
	int rc = history_diff(argv[optind], argv[optind + 1], &o, &crossed);
	if (rc == -2)
		ret = EXIT_USAGE;
	else if (rc < 0)
		ret = diag_exit_code() == EXIT_SYSTEM ? EXIT_SYSTEM : EXIT_INPUT;
	else
		ret = crossed ? EXIT_THRESHOLD : EXIT_OK;
out:
	for (size_t i = 0; i < o.npairs; i++) {
		free(o.pair_old[i]);
		free(o.pair_new[i]);
	}
	free(o.pair_old);
	free(o.pair_new);
	return ret;
}
