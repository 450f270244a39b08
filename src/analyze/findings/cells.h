/*
 * cells.h: reading the result tables' cells for the findings' rules
 * (findings.c, findings_why.c, findings_memory.c): numbers as doubles (COL_US in
 * microseconds) and texts, read by util/table.h's table_num and table_text, and
 * columns by the enums of the tables' contracts (util/table.h), whose
 * headers it includes for the rules.
 */
#ifndef PERFSTUDY_CELLS_H
#define PERFSTUDY_CELLS_H
#include <math.h>
#include "analyze/analysis.h"
#include "analyze/findings/findings_tables.h"
#include "analyze/inputs/inputs_tables.h"
#include "analyze/memory/memory_steps_kept.h"
#include "analyze/models/models.h"
#include "analyze/pipeline/pipeline_tables.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/replay/replay.h"
#include "analyze/time/time_tables.h"

/*
 * The rules' short names for util/table.h's readers: num is table_num (a
 * number, COL_US in microseconds; NAN when null or absent), text is
 * table_text (NULL when null, absent or not text).
 */
static inline double num(const struct table *t, size_t row, int col)
{
	return table_num(t, row, col);
}

static inline const char *text(const struct table *t, size_t row, int col)
{
	return table_text(t, row, col);
}

/*
 * Column c of a table another analysis made, c from its contract's enum in
 * the maker's header (e.g. ranks_tables.h's RANKS_STEP_US), or -1 when the
 * table is absent (NULL): so the rules' "col < 0: say nothing" still holds
 * for a missing table, and a renamed column fails to compile.
 */
static inline int col(const struct table *t, int c)
{
	return t ? c : -1;
}

/* The key columns of a per-rank table (findings.c's rank_means): its run, rank and step (-1: none). */
struct rank_keys {
	int run, rank, step;
};
#endif
