/*
 * inputs_tables.h: the contracts of the inputs family's tables, which
 * later analyses read back (util/table.h: columns listed once, as an enum
 * and the schema the maker passes to table_new): interconnect.csv and
 * phase_report.csv (inputs.c) and system.csv (system.c).
 */
#ifndef PERFSTUDY_INPUTS_TABLES_H
#define PERFSTUDY_INPUTS_TABLES_H

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

/* phase_report.csv's columns, in order (inputs.c). */
#define PHASE_REPORT_COLUMNS(X)         \
	X(PHR_RUN, "run", text)         \
	X(PHR_SOURCE, "source", text)   \
	X(PHR_ACTION, "action", text)   \
	X(PHR_CALLS, "calls", int)      \
	X(PHR_MEAN_US, "mean_us", us)   \
	X(PHR_TOTAL_US, "total_us", us) \
	X(PHR_PERCENT, "percent", real)
enum phase_report_col { PHASE_REPORT_COLUMNS(TABLE_COL_ENUM) PHR_NCOLS };

#endif
