/*
 * findings_tables.h: the contracts of the findings family's tables that the
 * rules and the report read back (util/table.h: columns listed once, as an
 * enum and the schema the maker passes to table_new): interconnect.csv
 * (inputs.c), system.csv (system.c) and findings.csv (findings.c).
 */
#ifndef PERFSTUDY_FINDINGS_TABLES_H
#define PERFSTUDY_FINDINGS_TABLES_H

#include "util/table.h"

/* interconnect.csv's columns, in order. */
#define INTERCONNECT_COLUMNS(X)                    \
	X(IC_A, "a", text)                         \
	X(IC_B, "b", text)                         \
	X(IC_LINK, "link", text)                   \
	X(IC_MEANING, "meaning", text)             \
	X(IC_CPU_AFFINITY, "cpu_affinity", text)   \
	X(IC_NUMA_AFFINITY, "numa_affinity", text) \
	X(IC_SOURCE, "source", text)
enum interconnect_col { INTERCONNECT_COLUMNS(TABLE_COL_ENUM) IC_NCOLS };

/* system.csv's columns, in order. */
#define SYSTEM_COLUMNS(X)             \
	X(SYS_KIND, "kind", text)     \
	X(SYS_ITEM, "item", text)     \
	X(SYS_VALUE, "value", text)   \
	X(SYS_SOURCE, "source", text)
enum system_col { SYSTEM_COLUMNS(TABLE_COL_ENUM) SYS_NCOLS };

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
