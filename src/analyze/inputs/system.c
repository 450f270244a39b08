/*
 * system.c: the machine and its software (system.csv), as the hardware and
 * software tables of the studies give them (paper 003 Tables I and III,
 * paper 002 Table 4).
 *
 * Each item comes from the inputs where they say it, else from the
 * manifest's `hardware` and `software` keys:
 *   GPU model, memory, SMs, compute capability, memory bandwidth: the
 *     traces' device properties (Kineto deviceProperties, Nsight Systems'
 *     device table), else nvidia-smi -q -x;
 *   GPUs: the GPUs of the nvidia-smi file (else the manifest's); GPUs the
 *     traces use: the distinct device ids their device properties name;
 *   links between GPUs: the pairs of nvidia-smi topo -m per link type;
 *   driver and CUDA: nvidia-smi's driver_version and cuda_version, else
 *     CUDA from the Kineto traces' cuda_driver_version (the CUDA version
 *     the driver supports, as nvidia-smi's);
 *   CUDA runtime and NCCL: the Kineto traces' cuda_runtime_version and
 *     distributedInfo.nccl_version (the versions the program ran with);
 *   everything else (CPU, host memory, storage, NIC, copy bandwidths,
 *     other package versions): the manifest only.
 * Where the manifest gives an item an input also says, the input's value
 * is shown and a note names both when they differ.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/analysis.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "analyze/inputs/inputs_tables.h"

/* The items in the order of the table; key is the manifest's hardware key (or software name). */
static const struct {
	const char *key, *label;
} items[] = {
	{"system", "system"},
	{"gpu", "GPU model"},
	{"gpus", "GPUs"},
	{"gpus_seen", "GPUs the traces use"},
	{"gpu_memory_gb", "GPU memory (GB)"},
	{"sm_count", "streaming multiprocessors per GPU"},
	{"compute_capability", "compute capability"},
	{"gpu_memory_bandwidth_gbs", "GPU memory bandwidth (GB/s)"},
	{"nodes", "nodes"},
	{"gpus_per_node", "GPUs per node"},
	{"interconnect", "interconnect"},
	{"gpu_links", "links between GPUs (nvidia-smi topo -m)"},
	{"nvlinks_per_gpu", "NVLinks per GPU"},
	{"cpu", "CPU model"},
	{"cpu_sockets", "CPU sockets"},
	{"cpu_cores", "CPU cores"},
	{"host_memory_gb", "host memory (GB)"},
	{"storage", "storage"},
	{"nic", "NIC"},
	{"nics_per_node", "NICs per node"},
	{"nic_gbps", "NIC bandwidth per node (Gbit/s)"},
	{"pinned_copy_gbs", "pinned memory copy bandwidth (GB/s)"},
	{"pageable_copy_gbs", "pageable memory copy bandwidth (GB/s)"},
	{"p2p_gbs", "P2P bandwidth (GB/s)"},
	{"driver", "driver"}, /* the first software item */
	{"cuda", "CUDA"},
	{"cuda_runtime", "CUDA runtime"},
	{"nccl", "NCCL"},
};
#define NITEMS (sizeof(items) / sizeof(items[0]))
#define FIRST_SOFTWARE (NITEMS - 4)

/* What the inputs say, per item; NULL where they say nothing. */
struct said {
	char *value[NITEMS];
	const char *source[NITEMS];
};

static int item_index(const char *key)
{
	for (size_t i = 0; i < NITEMS; i++)
		if (!strcasecmp(items[i].key, key))
			return (int)i;
	return -1;
}

static void say(struct said *s, const char *key, const char *source, char *value)
{
	int i = item_index(key);
	if (i < 0 || s->value[i] || !value || !*value) {
		free(value);
		return;
	}
	s->value[i] = value;
	s->source[i] = source;
}

/* Distinct values of column 0 of sql (bound to the experiment), joined with "; ", or NULL. */
static char *distinct(struct store *s, const char *exp, const char *sql)
{
	struct store_stmt *st = store_query(s, "system: hardware and software", sql, exp);
	if (!st)
		return NULL;
	struct buf b;
	buf_init(&b);
	while (store_next(st) > 0)
		if (store_column_type(st, 0) != STORE_NULL)
			buf_printf(&b, "%s%s", b.len ? "; " : "", (const char *)store_column_text(st, 0));
	store_finalize(st);
	if (!b.len) {
		buf_release(&b);
		return NULL;
	}
	return b.data;
}

#define TRACE_SOFTWARE " FROM trace_software v JOIN run_traces t ON t.id = v.trace_id" \
		       " WHERE t.experiment = ?1"
#define TRACE_DEVICES " FROM devices d JOIN run_traces t ON t.id = d.trace_id" \
		      " WHERE t.experiment = ?1"

static void from_inputs(struct store *store, const char *exp, struct said *s)
{
	static const char tr[] = "traces (device properties)", smi[] = "nvidia-smi -q -x", topo[] = "nvidia-smi topo -m";
	say(s, "gpu", tr, distinct(store, exp, "SELECT DISTINCT d.name" TRACE_DEVICES " ORDER BY d.name"));
	say(s, "gpu_memory_gb", tr,
	    distinct(store, exp, "SELECT DISTINCT printf('%.1f', d.total_mem / 1e9)" TRACE_DEVICES " AND d.total_mem > 0"));
	say(s, "sm_count", tr, distinct(store, exp, "SELECT DISTINCT d.sm_count" TRACE_DEVICES " AND d.sm_count > 0"));
	say(s, "compute_capability", tr, distinct(store, exp, "SELECT DISTINCT d.cc" TRACE_DEVICES));
	say(s, "gpu_memory_bandwidth_gbs", tr,
	    distinct(store, exp, "SELECT DISTINCT printf('%.0f', d.mem_bandwidth / 1e9)" TRACE_DEVICES
			      " AND d.mem_bandwidth > 0"));
	say(s, "gpu", smi, distinct(store, exp, "SELECT DISTINCT product FROM gpu_hardware WHERE experiment = ?1"));
	say(s, "gpu_memory_gb", smi,
	    distinct(store, exp, "SELECT DISTINCT printf('%.1f', memory_mib * 1048576 / 1e9) FROM gpu_hardware"
			      " WHERE experiment = ?1 AND memory_mib > 0"));
	say(s, "gpus", smi,
	    distinct(store, exp, "SELECT max(n) FROM (SELECT count(*) AS n FROM gpu_hardware WHERE experiment = ?1"
			      " GROUP BY path)"));
	say(s, "gpus_seen", tr, distinct(store, exp, "SELECT count(DISTINCT d.device)" TRACE_DEVICES " AND d.device >= 0"));
	say(s, "gpu_links", topo,
	    distinct(store, exp, "SELECT link || ' between ' || count(DISTINCT min(a, b) || ' ' || max(a, b)) || ' pairs'"
			      " FROM gpu_links"
			      " WHERE experiment = ?1 AND a LIKE 'GPU%' AND b LIKE 'GPU%' AND link <> 'X'"
			      " GROUP BY link ORDER BY link"));
	say(s, "driver", smi, distinct(store, exp, "SELECT DISTINCT driver FROM gpu_hardware WHERE experiment = ?1"));
	say(s, "cuda", smi, distinct(store, exp, "SELECT DISTINCT cuda FROM gpu_hardware WHERE experiment = ?1"));
	say(s, "cuda", "traces (cuda_driver_version)",
	    distinct(store, exp, "SELECT DISTINCT v.value" TRACE_SOFTWARE " AND v.item = 'cuda_driver' ORDER BY v.value"));
	say(s, "cuda_runtime", "traces (cuda_runtime_version)",
	    distinct(store, exp, "SELECT DISTINCT v.value" TRACE_SOFTWARE " AND v.item = 'cuda_runtime' ORDER BY v.value"));
	say(s, "nccl", "traces (distributedInfo.nccl_version)",
	    distinct(store, exp, "SELECT DISTINCT v.value" TRACE_SOFTWARE " AND v.item = 'nccl' ORDER BY v.value"));
}

static void add(struct table *t, const char *kind, const char *item, const char *value, const char *source)
{
	size_t row = table_add_row(t);
	table_set_text(t, row, 0, kind);
	table_set_text(t, row, 1, item);
	table_set_text(t, row, 2, value);
	table_set_text(t, row, 3, source);
}

/* The manifest's value for item key (a hardware key or a software name), or NULL. */
static const char *typed(const struct manifest *m, const char *key)
{
	if (!strcmp(key, "interconnect"))
		return m->hardware.interconnect;
	for (size_t i = 0; i < m->hardware.nfacts; i++)
		if (!strcmp(m->hardware.facts[i].key, key))
			return m->hardware.facts[i].value;
	for (size_t i = 0; i < m->nsoftware; i++)
		if (!strcasecmp(m->software[i].key, key))
			return m->software[i].value;
	return NULL;
}

static int analysis_system(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	const struct manifest *m = ctx->manifest;
	struct said s = {0};
	from_inputs(ctx->store, ctx->experiment, &s);
	struct table *t = table_new("system", "The machine and its software",
				    TABLE_SCHEMA(SYSTEM_COLUMNS));
	for (size_t i = 0; i < NITEMS; i++) {
		const char *mine = m ? typed(m, items[i].key) : NULL;
		const char *kind = i >= FIRST_SOFTWARE ? "software" : "hardware";
		if (s.value[i]) {
			add(t, kind, items[i].label, s.value[i], s.source[i]);
			if (mine && strcmp(mine, s.value[i]))
				result_add_note(out, "system.csv: the manifest says %s '%s', %s says '%s'; the table shows "
						"the input's", items[i].key, mine, s.source[i], s.value[i]);
		} else if (mine) {
			add(t, kind, items[i].label, mine, "manifest");
		}
		free(s.value[i]);
	}
	for (size_t i = 0; m && i < m->nsoftware; i++)
		if (item_index(m->software[i].key) < 0)
			add(t, "software", m->software[i].key, m->software[i].value, "manifest");
	if (!t->nrows) {
		table_free(t);
		return 0;
	}
	result_add_table(out, t);
	result_add_method(out, "system.csv",
		"The machine and its software, one row per item, each from the inputs where they say it, else from "
		"the manifest's hardware and software keys (source names which). GPU model, memory (10^9 bytes), "
		"streaming multiprocessors, compute capability and memory bandwidth: the traces' device properties "
		"(Kineto deviceProperties, Nsight Systems), else nvidia-smi -q -x (product_name, fb_memory_usage "
		"total); GPUs: the GPUs of the nvidia-smi file, else the manifest's; GPUs the traces use: the distinct "
		"device ids of the traces' device properties (a machine may have more); links "
		"between GPUs: the pairs of GPUs of nvidia-smi topo -m per link type; driver and CUDA: nvidia-smi's "
		"driver_version and cuda_version, else CUDA from the Kineto traces' cuda_driver_version (the CUDA "
		"version the driver supports); CUDA runtime and NCCL: the Kineto traces' cuda_runtime_version and "
		"distributedInfo.nccl_version, the versions the profiled program ran with (CUDA's integer form "
		"1000 major + 10 minor: 13000 is 13.0). CPU, sockets, cores, host memory, storage, NIC, copy "
		"bandwidths (pinned, pageable, P2P, as a bandwidth test measured them) and other package versions "
		"come from the manifest only. Several distinct values are joined with '; '. Where the manifest and an input "
		"disagree, the input's value is shown and a note says so.");
	return 0;
}

const struct analysis_def analysis_def_system = {
	.name = "system",
	.run = analysis_system,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("system"),
};
