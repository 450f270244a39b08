/*
 * pairs.c: the pairs of runs an experiment compares (pairs.h), which
 * compare.csv and step_compare.csv both put side by side.
 */
#include "analyze/lib/pairs.h"

#include <string.h>

#include "util/xalloc.h"

/*
 * The pairs of runs compare.csv (and step_compare.csv) put side by side, as
 * indexes into runs[] (manifest order): the manifest's compare list, else
 * each run against the first run of the same model, or the first run.
 */
size_t compare_pairs(const struct manifest *m, const char *const *runs, const char *const *models, size_t nr,
		     size_t (**out)[2])
{
	size_t npairs = 0, (*pairs)[2] = xcalloc((m ? m->ncompare : 0) + nr + 1, sizeof(*pairs));
	if (m && m->ncompare) {
		for (size_t i = 0; i < m->ncompare; i++) {
			size_t a = nr, b = nr;
			for (size_t j = 0; j < nr; j++) {
				if (!strcmp(runs[j], m->compare[i].a))
					a = j;
				if (!strcmp(runs[j], m->compare[i].b))
					b = j;
			}
			if (a < nr && b < nr) {
				pairs[npairs][0] = a;
				pairs[npairs++][1] = b;
			}
		}
	} else {
		for (size_t i = 1; i < nr; i++) {
			size_t base = 0;
			for (size_t j = 0; j < i; j++)
				if (*models[i] && !strcmp(models[j], models[i])) {
					base = j;
					break;
				}
			pairs[npairs][0] = base;
			pairs[npairs++][1] = i;
		}
	}
	*out = pairs;
	return npairs;
}
