/*
 * cli/cli.h: the subcommands (main.c's table). Each cmd_* parses its own options, runs, and
 * returns the process exit code (see diag.h: 0 ok, 1 bad input, 2 usage,
 * 3 I/O or system).
 */
#ifndef PERFSTUDY_CLI_H
#define PERFSTUDY_CLI_H

#include <stddef.h>

#include "study/build.h"

int cmd_build(int argc, char **argv);

/* A build in a mode of build.h's struct build_mode: `perfstudy ingest` and `perfstudy merge` (cmd_shard.c). */
int cmd_build_mode(int argc, char **argv, const struct build_mode *mode);
int cmd_ingest(int argc, char **argv);
int cmd_merge(int argc, char **argv);
void usage_ingest(void);
void usage_merge(void);
int cmd_inspect(int argc, char **argv);

void usage_build(void);
void usage_inspect(void);

/*
 * perfstudy diff OLD_DIR NEW_DIR (cmd_diff.c): exits EXIT_THRESHOLD when a
 * change beyond the noise crosses a threshold of the manifest.
 */
#define EXIT_THRESHOLD 4
int cmd_diff(int argc, char **argv);
void usage_diff(void);

/*
 * perfstudy whatif SITE RUN CHANGE... [-o FILE] (cmd_whatif.c): a run's
 * steps replayed under the user's changes into whatif.csv.
 */
int cmd_whatif(int argc, char **argv);
void usage_whatif(void);

#endif
