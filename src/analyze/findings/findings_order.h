/*
 * findings_order.h: findings held until the rules are done, then written into
 * findings.csv ordered by their saving (findings_order.c).
 */
#ifndef PERFSTUDY_ORDER_H
#define PERFSTUDY_ORDER_H
#include <stddef.h>
#include "util/table.h"

/* A finding before the table is written: findings are ordered by their saving at the end. */
struct pending {
	char *run, *text, *evidence, *rule;
	int rank;
	double value, saving; /* saving: us per step, NAN when the rule gives none */
	size_t order;
};

/*
 * Writes p[0 .. n) into t (run, rank, finding, value, evidence, rule,
 * saving_us_per_step), largest saving first, and frees their strings (not p).
 */
void findings_flush(struct table *t, struct pending *p, size_t n);
#endif
