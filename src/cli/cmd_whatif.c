/*
 * cli/cmd_whatif.c: perfstudy whatif SITE RUN CHANGE... [-o FILE], a
 * question of the user's own to the replay (issue #52): what a run's step
 * would take with collectives twice as fast, data loading free, some
 * kernels at half their time, an operator at a fraction of its roofline,
 * or a rank like the median rank.
 *
 * The replay is analyze/replay/whatif.c's; here: the options, the store
 * of SITE opened read-only under the bounds of a file perfstudy did not
 * write (store_open_site), whatif.csv written through a fresh temporary
 * file and a rename (nothing when anything failed), and the one-line
 * summary. Exit status: 0; 1 when the store cannot be used or the run has
 * no replayable step; 2 on a bad command line (a CHANGE outside the
 * grammar, a run the store does not have, a rank the change cannot take,
 * an output that is the store); 3 when whatif.csv cannot be written.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "analyze/lib/rankdata.h"
#include "analyze/replay/replay.h"
#include "analyze/replay/whatif.h"
#include "report/report.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/table.h"
#include "util/xalloc.h"

void usage_whatif(void)
{
	printf("usage: perfstudy whatif SITE RUN CHANGE... [-o FILE]\n"
	       "\n"
	       "Replays RUN's profiled steps from the model of replay_steps.csv (a graph of\n"
	       "its runtime calls, GPU activities and their dependencies), as profiled and\n"
	       "with the CHANGEs, both at the host factor replay_calibration.csv calibrates\n"
	       "to the training log (computed again from the store, the same way; 1 without\n"
	       "a log). SITE is a built output directory (or its perfstudy.db), RUN one of\n"
	       "its runs (EXPERIMENT/RUN where two experiments share the id). Writes one row\n"
	       "per profiled step and a mean row to FILE, and prints one line:\n"
	       "  run r: 31.3 ms -> 24.1 ms per step (-7.2 ms, -23.0 %%), replayed over 3 steps\n"
	       "\n"
	       "CHANGE, several applying together (factors of one thing multiply):\n"
	       "  collectives=X      collective and send/recv kernels (NCCL, RCCL) take X times\n"
	       "                     their time: 0.5 is \"2x faster\"; with ranks replayed\n"
	       "                     together, X times the transfer past the last rank's start\n"
	       "  kernels:PATTERN=X  kernels whose name matches the fnmatch PATTERN (quote it:\n"
	       "                     'kernels:nvjet*=0.5') take X times their time; 0 drops them\n"
	       "  roofline:OP=F      each row of op_roofline.csv whose operator matches the\n"
	       "                     fnmatch OP ('roofline:aten::mm=0.8') at the fraction F\n"
	       "                     (0 < F <= 1) of its roofline: its kernels take at most\n"
	       "                     roofline time / F in all; those already faster stay\n"
	       "  host=X             host time between and in the runtime calls times X, on top\n"
	       "                     of the calibrated factor (X > 0)\n"
	       "  gaps=0             host stretches of 1 ms or more that no operator covers on\n"
	       "                     any thread taken out (a sleep, untraced Python)\n"
	       "  data-loading=0     host time inside enumerate(DataLoader) ranges taken out of\n"
	       "                     the gaps between runtime calls (calls inside keep their cost)\n"
	       "  syncs=0            every call found waiting for the GPU (cuda*Synchronize, a\n"
	       "                     blocking copy such as .item(), a pageable copy, cudaFree)\n"
	       "                     returns without waiting; the GPU work itself stays\n"
	       "  rank=R:median      rank R's compute kernels at the median of the other ranks'\n"
	       "                     durations of the same kernel (ranks replayed together)\n"
	       "X is a decimal number from 0 to 1000.\n"
	       "\n"
	       "A run of up to 64 ranks whose collectives match is replayed together, its\n"
	       "collectives joined, and its step is the job's (from the earliest start of a\n"
	       "step on any rank to that of the next); other ranks are replayed alone, the\n"
	       "step their slowest rank's. measured_us is the trace's step by the replay's\n"
	       "definition, replayed_us the unchanged replay at the calibrated factor,\n"
	       "whatif_us the replay under the changes, saving_us replayed - whatif. Not\n"
	       "modelled: GPU contention (a kernel made shorter does not speed up the ones\n"
	       "beside it), host threads waiting for each other outside their runtime calls,\n"
	       "what a change would do to the work itself (fewer kernels, other shapes).\n"
	       "\n"
	       "  -o, --output FILE  write the rows to FILE (default: whatif.csv)\n"
	       "  -h, --help         this help\n"
	       "\n"
	       "exit codes: 0 ok, 1 the store cannot be used or the run has no replayable step,\n"
	       "2 usage (a CHANGE outside the grammar, a run the site does not have, a rank the\n"
	       "change cannot take, an output FILE that is the store), 3 FILE cannot be written\n");
}

/* SITE's store: SITE itself when it is a file, else SITE/perfstudy.db. */
static char *site_db(const char *site)
{
	struct stat st;
	if (!stat(site, &st) && S_ISREG(st.st_mode))
		return xstrdup(site);
	return xasprintf("%s/perfstudy.db", site);
}

/* 1 (after saying so) when out is the store db, its journal or write-ahead log, by device and inode. */
static int output_is_input(const char *out, const char *db)
{
	static const char *const parts[] = {"", "-journal", "-wal", "-shm"};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char *in = xasprintf("%s%s", db, parts[i]);
		int same = fs_same_file(out, in);
		if (same)
			diag_error(out, "the output is also an input (%s): refusing to overwrite it", in);
		free(in);
		if (same)
			return 1;
	}
	return 0;
}

/* Writes the rows of r to path through a temporary file; 0, or -1 after diag. */
static int write_csv(const char *path, const struct whatif_result *r, const char *change, double *mean)
{
	struct table *t = table_new("whatif", "A run's steps replayed under a change", TABLE_SCHEMA(WHATIF_COLUMNS));
	whatif_table_add(t, r, change, mean);
	char *tmp;
	FILE *f = fs_create_tmp(path, &tmp);
	int ret = -1;
	if (f) {
		int err = csv_write_table(f, t) < 0 || ferror(f) ? (errno ? errno : EIO) : 0;
		ret = fs_commit_tmp(f, tmp, path, err);
		free(tmp);
	}
	table_free(t);
	return ret;
}

int cmd_whatif(int argc, char **argv)
{
	static const struct option opts[] = {
		{"output", required_argument, NULL, 'o'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *out = "whatif.csv";
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage_whatif();
			return EXIT_OK;
		default:
			if (optopt == 'o')
				diag_line(stderr, "perfstudy whatif: error: option '%s' needs a FILE (see perfstudy whatif "
						  "--help)", argv[optind - 1]);
			else
				diag_line(stderr, "perfstudy whatif: error: unknown option '%s' (see perfstudy whatif --help)",
					  argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (argc - optind < 3) {
		diag_line(stderr, "perfstudy whatif: error: expected SITE RUN CHANGE... (see perfstudy whatif --help)");
		return EXIT_USAGE;
	}
	const char *site = argv[optind], *run = argv[optind + 1];
	size_t n = (size_t)(argc - optind - 2);
	struct whatif_change *ch = xcalloc(n, sizeof(*ch));
	struct buf change;
	buf_init(&change);
	int ret = EXIT_OK;
	for (size_t i = 0; i < n && ret == EXIT_OK; i++) {
		char *why;
		int pos = (int)i + 3; /* SITE is argument 1, RUN 2 */
		if (whatif_parse(argv[optind + 2 + (int)i], pos, &ch[i], &why) < 0) {
			diag_line(stderr, "perfstudy whatif: error: argument %d '%s': %s (see perfstudy whatif --help)", pos,
				  argv[optind + 2 + (int)i], why);
			free(why);
			ret = EXIT_USAGE;
		}
		buf_printf(&change, "%s%s", i ? " " : "", argv[optind + 2 + (int)i]);
	}
	char *db = site_db(site);
	struct store *s = NULL;
	struct whatif_result r = {0};
	if (ret == EXIT_OK && output_is_input(out, db))
		ret = EXIT_USAGE;
	if (ret == EXIT_OK) {
		struct stat st;
		if (stat(db, &st) || !S_ISREG(st.st_mode)) {
			diag_error(site, "no perfstudy.db here: not a perfstudy output directory (perfstudy build -o writes one)");
			ret = EXIT_INPUT;
		} else if (store_open_site(db, &s) < 0) {
			ret = diag_exit_code() == EXIT_SYSTEM ? EXIT_SYSTEM : EXIT_INPUT;
		}
	}
	if (ret == EXIT_OK) {
		int rc = whatif_run(s, db, run, ch, n, &r);
		if (rc == WHATIF_USAGE)
			ret = EXIT_USAGE;
		else if (rc < 0)
			ret = diag_exit_code() == EXIT_SYSTEM ? EXIT_SYSTEM : EXIT_INPUT;
	}
	double mean[5];
	if (ret == EXIT_OK && write_csv(out, &r, change.data, mean) < 0)
		ret = EXIT_SYSTEM;
	if (ret == EXIT_OK) {
		double d = mean[2] - mean[1];
		char factor[64] = "";
		if (!isnan(r.host_factor))
			snprintf(factor, sizeof(factor), "host factor %.3g", r.host_factor);
		else
			snprintf(factor, sizeof(factor), "each rank at its own host factor");
		diag_line(stdout, "run %s: %.1f ms -> %.1f ms per step (%+.1f ms, %+.1f %%), replayed over %zu step%s "
				  "(%zu rank%s%s, %s%s)",
			  r.run, mean[1] / 1e6, mean[2] / 1e6, d / 1e6, mean[1] > 0 ? 100 * d / mean[1] : 0.0, r.nsteps,
			  r.nsteps == 1 ? "" : "s", r.ranks, r.ranks == 1 ? "" : "s",
			  r.ranks > 1 ? (r.joint ? " together" : " alone") : "", factor,
			  r.log_median > 0 ? ", calibrated to the training log" : ", no training log");
		/* a GPU-bound run's log cannot tell the host's speed: the change with the fastest host it allows */
		double dfast = mean[4] - mean[3];
		if (!isnan(r.host_factor_lo) && r.host_factor_lo < r.host_factor && fabs(dfast - d) >= 0.05e6)
			diag_line(stdout, "the training log allows host factors from %.3g to %.3g (its median within %.0f %%): "
					  "at %.3g, %+.1f ms per step",
				  r.host_factor_lo, r.host_factor, 100 * RP_F_TOL, r.host_factor_lo, dfast / 1e6);
	}
	whatif_result_release(&r);
	rank_cache_clear(); /* the statements kept: rank_data_load's (roofline:OP=F) and the replay's (rank_query_kept) */
	store_close(s);
	free(db);
	for (size_t i = 0; i < n; i++)
		whatif_change_release(&ch[i]);
	free(ch);
	buf_release(&change);
	return ret;
}
