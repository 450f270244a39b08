/*
 * classify.h: kernel classification, names into groups.
 *
 * A classifier is an ordered list of rules; the first rule that matches an
 * activity decides its group, and an activity no rule matches is "other".
 * Memcpy and memset activities go to the classifier's memory group before
 * any name rule is tried (in presets; manifest rules see memcpy/memset
 * names like "Memcpy HtoD (Pageable -> Device)" as any other name).
 *
 * Presets: "default" (today's kernels) and "payoungkhamdee2021" (the
 * grouping of "Profiling Transformer-Based Model", 2021, reproduced
 * exactly). classifier_describe() gives the rules as text for the report's
 * Methods section. A classifier owns its compiled rules; free it with
 * classifier_free().
 */
#ifndef PERFSTUDY_CLASSIFY_H
#define PERFSTUDY_CLASSIFY_H

#include <stddef.h>

#include "ingest/ingest.h"

struct classify_rule {
	const char *group;
	const char *pattern;
	int is_regex;    /* POSIX extended regular expression, else substring */
	int ignore_case;
};

struct classifier;

/* The preset of that name, or NULL when there is none. */
struct classifier *classifier_preset(const char *name);
/* Custom rules (copied); NULL after diag when a regex does not compile. */
struct classifier *classifier_rules(const struct classify_rule *rules, size_t n);
void classifier_free(struct classifier *c);

/* The group of an activity; a string owned by the classifier. */
const char *classify(const struct classifier *c, enum activity_kind kind, const char *name);
/* Group names in display order (every group a rule can give, then "other"). */
size_t classifier_groups(const struct classifier *c, const char *const **groups);
/* "default", "payoungkhamdee2021" or "manifest rules". */
const char *classifier_name(const struct classifier *c);
/* The rules as plain text, one per line, for Methods; owned by the classifier. */
const char *classifier_describe(const struct classifier *c);

#endif
