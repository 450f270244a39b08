/*
 * inputs.c: tables of the machine and profiler files given beside the
 * traces.
 *
 *   interconnect.csv: the links of `nvidia-smi topo -m` (the manifest's
 *                     hardware.topology or a run input), one row per pair of
 *                     devices, with what the link type means.
 *   phase_report.csv: the actions of PyTorch Lightning profiler reports
 *                     given as run inputs (SimpleProfiler rows,
 *                     AdvancedProfiler totals), as the report printed them.
 */
#include <string.h>

#include "analyze/analysis.h"
#include "util/diag.h"
#include "analyze/inputs/inputs_tables.h"

/* nvidia-smi's own legend for the link types of topo -m. */
static const char *link_meaning(const char *link)
{
	static const struct {
		const char *code, *meaning;
	} legend[] = {
		{"SYS", "PCIe and the SMP interconnect between NUMA nodes (QPI/UPI)"},
		{"NODE", "PCIe and the interconnect between PCIe host bridges within a NUMA node"},
		{"PHB", "PCIe and a PCIe host bridge (typically the CPU)"},
		{"PXB", "several PCIe bridges, not the PCIe host bridge"},
		{"PIX", "at most one PCIe bridge"},
		{"X", "self"},
	};
	for (size_t i = 0; i < sizeof(legend) / sizeof(legend[0]); i++)
		if (!strcmp(link, legend[i].code))
			return legend[i].meaning;
	if (!strncmp(link, "NV", 2) && link[2] >= '1' && link[2] <= '9')
		return "a bonded set of NVLinks (NV# = # links)";
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int interconnect(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "inputs: gpu links",
					    "SELECT a, b, link, cpu_affinity, numa_affinity, path FROM gpu_links"
					    " WHERE experiment = ?1 ORDER BY rowid", ctx->experiment);
	if (!st)
		return -1;
	struct table *t = table_new("interconnect", "How the devices are connected (nvidia-smi topo -m)",
				    TABLE_SCHEMA(INTERCONNECT_COLUMNS));
	int rc;
	while ((rc = store_next(st)) > 0) {
		size_t row = table_add_row(t);
		for (int c = 0; c < 6; c++) {
			const char *v = (const char *)store_column_text(st, c);
			if (!v)
				continue;
			size_t col = c < 3 ? (size_t)c : (size_t)c + 1;
			table_set_text(t, row, col, c == 5 ? base_name(v) : v);
			if (c == 2 && link_meaning(v))
				table_set_text(t, row, 3, link_meaning(v));
		}
	}
	store_finalize(st);
	if (rc < 0 || !t->nrows) {
		table_free(t);
		return rc;
	}
	result_add_table(out, t);
	result_add_method(out, "interconnect.csv",
		"One row per pair of devices of each nvidia-smi topo -m matrix (the manifest's hardware.topology or a "
		"run input), the row device first, with the cell as printed and nvidia-smi's legend: NV# a bonded set "
		"of # NVLinks, PIX at most one PCIe bridge, PXB several PCIe bridges, PHB a PCIe host bridge, NODE the "
		"interconnect between host bridges of one NUMA node, SYS the SMP interconnect between NUMA nodes; "
		"cpu_affinity and numa_affinity are the row device's.");
	return 0;
}

static int phase_report(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "inputs: phase times",
					    "SELECT t.run, t.path, p.action, p.calls, p.mean_ns, p.total_ns, p.percent"
					    " FROM phase_times p JOIN run_traces t ON t.id = p.trace_id"
					    " WHERE t.experiment = ?1 ORDER BY t.position, t.file_index, p.rowid",
					    ctx->experiment);
	if (!st)
		return -1;
	struct table *t = table_new("phase_report", "Phases as the framework's profiler reported them",
				    TABLE_SCHEMA(PHASE_REPORT_COLUMNS));
	int rc;
	while ((rc = store_next(st)) > 0) {
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, (const char *)store_column_text(st, 0));
		table_set_text(t, row, 1, base_name((const char *)store_column_text(st, 1)));
		if (store_column_type(st, 2) != STORE_NULL)
			table_set_text(t, row, 2, (const char *)store_column_text(st, 2));
		if (store_column_type(st, 3) != STORE_NULL)
			table_set_int(t, row, 3, store_column_int64(st, 3));
		if (store_column_type(st, 4) != STORE_NULL)
			table_set_ns(t, row, 4, store_column_int64(st, 4));
		if (store_column_type(st, 5) != STORE_NULL)
			table_set_ns(t, row, 5, store_column_int64(st, 5));
		if (store_column_type(st, 6) != STORE_NULL)
			table_set_real(t, row, 6, store_column_double(st, 6));
	}
	store_finalize(st);
	if (rc < 0 || !t->nrows) {
		table_free(t);
		return rc;
	}
	result_add_table(out, t);
	result_add_method(out, "phase_report.csv",
		"The actions of each PyTorch Lightning profiler report given as a run input, in the report's order, "
		"as printed: SimpleProfiler rows (Action, Num calls, Mean duration and Total time in seconds, turned "
		"into integer ns and shown in us, Percentage; the 'Total' row included, its mean empty), and for the "
		"AdvancedProfiler each 'Profile stats for: ACTION' block with the total of its cProfile line 'N "
		"function calls in T seconds'. These are the framework's host-side timings, not GPU time: they are "
		"shown beside, not merged with, phases.csv.");
	return 0;
}

static int analysis_inputs(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	if (interconnect(ctx, out) < 0)
		return -1;
	return phase_report(ctx, out);
}

const struct analysis_def analysis_def_inputs = {
	.name = "inputs",
	.run = analysis_inputs,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("interconnect", "phase_report"),
};
