/*
 * phases.h: the named phases of a training step (phases.c), shared with the
 * analyses that map other inputs to the same phases (report_phases.c).
 */
#ifndef PERFSTUDY_PHASES_H
#define PERFSTUDY_PHASES_H

#include <stddef.h>

struct manifest;

/* A phase: its name and the annotation (or profiler action) names that count as it. */
struct phase {
	const char *name;
	size_t nnames;
	const char *const *names;
};

/*
 * The default phases (get_train_batch, forward, backward, optimizer_step)
 * with the manifest's `phases` applied (m may be NULL); *n set; the caller
 * frees the array (the names belong to the defaults or the manifest).
 */
struct phase *phase_list(const struct manifest *m, size_t *n);
/* '*' matches any run of characters (also none); everything else itself. */
int wild_match(const char *pat, const char *s);

#endif
