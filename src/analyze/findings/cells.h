/*
 * cells.h: reading the result tables' cells for the findings' rules
 * (findings.c, findings_why.c): numbers as doubles (COL_US in microseconds), texts,
 * columns by name.
 */
#ifndef PERFSTUDY_CELLS_H
#define PERFSTUDY_CELLS_H
#include <math.h>
#include "analyze/analysis.h"

/* A numeric cell as a double (COL_US in microseconds); NAN when null or absent. */
static inline double num(const struct table *t, size_t row, int col)
{
	if (col < 0)
		return NAN;
	const struct cell *c = table_cell(t, row, (size_t)col);
	if (c->null)
		return NAN;
	switch (t->cols[col].type) {
	case COL_INT:
		return (double)c->v.i;
	case COL_US:
		return (double)c->v.i / 1000.0;
	case COL_FRAC:
	case COL_REAL:
		return c->v.f;
	case COL_TEXT:
		break;
	}
	return NAN;
}

static inline const char *text(const struct table *t, size_t row, int col)
{
	if (col < 0)
		return NULL;
	const struct cell *c = table_cell(t, row, (size_t)col);
	return c->null || t->cols[col].type != COL_TEXT ? NULL : c->v.text;
}

static inline int col(const struct table *t, const char *name)
{
	return t ? table_col_index(t, name) : -1;
}
#endif
