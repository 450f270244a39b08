/*
 * report_top.h: the top of an experiment's page, for report.c (only it
 * includes this): "What to fix first" (one line per cause with a saving,
 * largest first), each run's key numbers with its timeline figure, and the
 * findings folded below them (report_top.c). Fills the template
 * dictionary of experiment.tpl from the experiment's tables; owns nothing
 * it is given, and every string it sets is plain text that the template
 * escapes.
 */
#ifndef PERFSTUDY_REPORT_TOP_H
#define PERFSTUDY_REPORT_TOP_H

#include "report/report.h"
#include "report/tmpl.h"

/*
 * Adds to d the sections FIX (what to fix first), KEY (key numbers and
 * timeline figures) and FINDINGS (each finding folded, with the anchor the
 * list links to), each only where e's tables give it something to show.
 */
void report_top(struct tmpl_dict *d, const struct report_experiment *e);

#endif
