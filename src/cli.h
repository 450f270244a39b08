/*
 * cli.h: the subcommands. Each cmd_* parses its own options, runs, and
 * returns the process exit code (see diag.h: 0 ok, 1 bad input, 2 usage,
 * 3 I/O or system).
 */
#ifndef PERFSTUDY_CLI_H
#define PERFSTUDY_CLI_H

int cmd_build(int argc, char **argv);
int cmd_inspect(int argc, char **argv);

void usage_build(void);
void usage_inspect(void);

#endif
