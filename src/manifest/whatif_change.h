/*
 * whatif_change.h: the grammar of a what-if CHANGE (issue #52), shared by
 * `perfstudy whatif` (cli/cmd_whatif.c, analyze/replay/whatif.c, which
 * says what each change does in the replay) and the manifest's `whatif`
 * entries (manifest/questions.c), which it checks with file:line:col
 * errors before any trace is read; it sits in manifest/ so that both the
 * manifest and the analyses can include it.
 */
#ifndef PERFSTUDY_WHATIF_CHANGE_H
#define PERFSTUDY_WHATIF_CHANGE_H

#include <stdint.h>

enum whatif_kind { WI_COLLECTIVES, WI_KERNELS, WI_HOST, WI_GAPS, WI_DATA_LOADING, WI_SYNCS, WI_RANK_MEDIAN, WI_ROOFLINE };

#define WHATIF_MAX_FACTOR 1000.0

struct whatif_change {
	int kind;            /* enum whatif_kind */
	double factor;       /* WI_COLLECTIVES, WI_KERNELS, WI_HOST; WI_ROOFLINE: the fraction of the roofline */
	char *pattern;       /* WI_KERNELS, WI_ROOFLINE: the fnmatch pattern; owned */
	int64_t rank;        /* WI_RANK_MEDIAN */
	const char *arg;     /* the argument as written; not owned */
	int position;        /* its position among the command's arguments */
};

/*
 * Parses arg, the position-th argument, into *c. Returns 0, or -1 with
 * *why set to what was expected there (the caller frees it).
 */
int whatif_parse(const char *arg, int position, struct whatif_change *c, char **why);
void whatif_change_release(struct whatif_change *c);

#endif
