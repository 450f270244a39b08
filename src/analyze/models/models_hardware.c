/*
 * models_hardware.c: hardware.csv, the GPUs nvidia-smi -q -x describes
 * (models.c runs it).
 */
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/models/models.h"

/* The GPUs that nvidia-smi -q -x describes. */
int models_hardware(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store_stmt *st = store_query(ctx->store, "models: gpu hardware",
					    "SELECT gpu, product, memory_mib, driver, cuda, max_sm_mhz, max_mem_mhz,"
					    " power_limit_w, pcie_gen_max, pcie_width_max, pcie_gen_cur,"
					    " pcie_width_cur, pci_bus, dtd, path FROM gpu_hardware"
					    " WHERE experiment = ?1 ORDER BY path, gpu", ctx->experiment);
	if (!st)
		return -1;
	struct table *t = table_new("hardware", "GPUs as nvidia-smi -q -x describes them",
				    TABLE_SCHEMA(HARDWARE_COLUMNS));
	static const enum col_type types[] = {COL_INT, COL_TEXT, COL_INT, COL_TEXT, COL_TEXT, COL_INT, COL_INT,
					      COL_REAL, COL_INT, COL_INT, COL_INT, COL_INT, COL_TEXT, COL_TEXT, COL_TEXT};
	int rc;
	while ((rc = store_next(st)) > 0) {
		size_t row = table_add_row(t);
		for (int c = 0; c < 15; c++) {
			if (store_column_type(st, c) == STORE_NULL)
				continue;
			if (types[c] == COL_TEXT) {
				const char *s = (const char *)store_column_text(st, c);
				if (c == 14 && strrchr(s, '/'))
					s = strrchr(s, '/') + 1;
				table_set_text(t, row, (size_t)c, s);
			} else if (types[c] == COL_REAL) {
				table_set_real(t, row, (size_t)c, store_column_double(st, c));
			} else {
				table_set_int(t, row, (size_t)c, store_column_int64(st, c));
			}
		}
	}
	store_finalize(st);
	if (rc < 0 || !t->nrows) {
		table_free(t);
		return rc;
	}
	result_add_table(out, t);
	result_add_method(out, "hardware.csv",
		"One row per <gpu> of each nvidia-smi -q -x file (the manifest's hardware.nvidia_smi and any run "
		"input): product_name, fb_memory_usage/total, the log's driver_version and cuda_version, "
		"max_clocks (SM and memory), the power limit (gpu_power_readings/current_power_limit, or "
		"power_readings/power_limit before DTD v12), the PCIe link generation and width (maximum and "
		"current), pci_bus_id and the DOCTYPE's DTD. Empty where the file says N/A.");
	return 0;
}
