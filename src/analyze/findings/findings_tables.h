/*
 * findings_tables.h: the contract of findings.csv (findings.c), which the
 * report and the merged traces read back (util/table.h: columns listed
 * once, as an enum and the schema the maker passes to table_new).
 */
#ifndef PERFSTUDY_FINDINGS_TABLES_H
#define PERFSTUDY_FINDINGS_TABLES_H

#include "util/table.h"

/* findings.csv's columns, in order. */
#define FINDINGS_COLUMNS(X)                                 \
	X(FND_RUN, "run", text)                             \
	X(FND_RANK, "rank", int)                            \
	X(FND_FINDING, "finding", text)                     \
	X(FND_VALUE, "value", real)                         \
	X(FND_EVIDENCE, "evidence", text)                   \
	X(FND_RULE, "rule", text)                           \
	X(FND_SAVING_US_PER_STEP, "saving_us_per_step", us)
enum findings_col { FINDINGS_COLUMNS(TABLE_COL_ENUM) FND_NCOLS };

#endif
