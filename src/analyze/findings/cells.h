/*
 * cells.h: reading the result tables' cells for the findings' rules
 * (findings.c, findings_why.c, findings_memory.c): numbers as doubles (COL_US in
 * microseconds) and texts, read by util/table.h's table_num and table_text, and
 * columns by name.
 */
#ifndef PERFSTUDY_CELLS_H
#define PERFSTUDY_CELLS_H
#include <math.h>
#include "analyze/analysis.h"

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

static inline int col(const struct table *t, const char *name)
{
	return t ? table_col_index(t, name) : -1;
}
#endif
