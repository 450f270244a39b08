/*
 * cli/diff.h: `perfstudy diff`'s comparison (diff.c), beside its command
 * line (cmd_diff.c): two output directories' build histories read back
 * (store/hstate.c) and judged as the change table judges a
 * build against the one before (analyze/history/history.h).
 */
#ifndef PERFSTUDY_CLI_DIFF_H
#define PERFSTUDY_CLI_DIFF_H

#include <stddef.h>

/*
 * perfstudy diff: compares the latest build of each experiment recorded in
 * OLD_DIR/perfstudy.db and NEW_DIR/perfstudy.db, printing one line per
 * change on stdout (with quiet, only threshold crossings), the contributors
 * of each run whose step time changed beyond the noise, and a summary;
 * with o->json the same as JSON, with o->benchmark_json each run's step
 * time in github-action-benchmark's customSmallerIsBetter format;
 * *crossed: the thresholds crossed. A run of OLD_DIR that o pairs with
 * one of another name in NEW_DIR is compared as that run. Returns 0, -1
 * after diag (a store missing, unreadable or without history, a file not
 * written), or -2 after diag when a pair fits no experiment (a usage
 * error).
 */
struct history_diff_opts {
	int quiet;
	const char *json, *benchmark_json; /* files to write, or NULL */
	/* --pair OLD=NEW: old run pair_old[i] compared as new run pair_new[i] (each name once a side) */
	size_t npairs;
	char **pair_old, **pair_new;
};
int history_diff(const char *old_dir, const char *new_dir, const struct history_diff_opts *o, size_t *crossed);

#endif
