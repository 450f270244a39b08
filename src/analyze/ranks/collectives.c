/*
 * collectives.c: NCCL collectives per type (collectives.csv).
 *
 * Per run, rank and collective type: calls and summed kernel time of the
 * communication kernels; message bytes where the trace records them
 * (Kineto's "In msg nelems"/"Out msg nelems" and "dtype" kernel args): per
 * call max(in, out) elements x the dtype's size, the size nccl-tests calls
 * S; algorithm bandwidth algbw = sum S / sum time; bus bandwidth busbw =
 * algbw x 2(n-1)/n for AllReduce, x (n-1)/n for AllGather and ReduceScatter,
 * x 1 otherwise, n the group size (NCCL's nccl-tests PERFORMANCE.md). The
 * type is the "Collective name" arg, else the kernel name's
 * (ncclDevKernel_AllReduce_Sum_bf16_RING_LL -> AllReduce; NCCL 2.4-2.7's
 * ncclReduceRingLLKernel_sum_f32 -> Reduce).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analyze/analysis.h"
#include "analyze/ranks/ranks_tables.h"
#include "analyze/ranks/collectives.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/intmap.h"
#include "util/timing.h"
#include "util/xalloc.h"

int collective_dtype_size(const char *t)
{
	static const struct {
		const char *name;
		int size;
	} sizes[] = {{"Float", 4}, {"float", 4}, {"Double", 8}, {"double", 8}, {"Half", 2}, {"BFloat16", 2},
		     {"bf16", 2}, {"Long", 8}, {"Int", 4}, {"Short", 2}, {"Char", 1}, {"Byte", 1}, {"Bool", 1},
		     {"float16", 2}, {"bfloat16", 2}, {"float32", 4}, {"int64", 8}, {"int32", 4}, {"uint8", 1}};
	for (size_t i = 0; t && i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (!strcmp(t, sizes[i].name))
			return sizes[i].size;
	return 0;
}

int64_t collective_message_nelems(const char *type, int64_t in, int64_t out)
{
	in = in > 0 ? in : 0;
	out = out > 0 ? out : 0;
	/* (within ingest.h's 2^48 elements each: no overflow) */
	if (!strcmp(type, "SendRecv"))
		return in + out;
	return in > out ? in : out;
}

/* "allreduce"/"all_reduce"/"AllReduce" -> "AllReduce"; others keep their text. */
void collective_canonical(const char *raw, struct buf *out)
{
	static const char *const known[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
					    "SendRecv", "Send", "Recv", "AllToAll", "Barrier"};
	char flat[64];
	size_t n = 0;
	for (const char *p = raw; *p && n + 1 < sizeof(flat); p++)
		if (*p != '_')
			flat[n++] = *p;
	flat[n] = '\0';
	/* "_allgather_base", "all_to_all" ... */
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcasecmp(flat, known[i]) || (strlen(flat) == strlen(known[i]) + 4 &&
						    !strncasecmp(flat, known[i], strlen(known[i])) &&
						    !strcasecmp(flat + strlen(known[i]), "base"))) {
			buf_adds(out, known[i]);
			return;
		}
	buf_adds(out, raw);
}

/*
 * The collective of a communication kernel from its name: NCCL 2.4-2.7's
 * nccl<Collective><Algorithm><Protocol>Kernel_<op>_<type>
 * (ncclReduceRingLLKernel_sum_f32, paper 000's traces) says it before
 * "Kernel"; later ones after it (ncclKernel_AllReduce_RING_LL_Sum_float,
 * ncclDevKernel_AllReduce_Sum_bf16_RING_LL).
 */
static void type_from_kernel(const char *name, struct buf *out)
{
	static const char *const before[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce",
					     "SendRecv", "AllToAll"};
	const char *k = strstr(name, "Kernel_");
	for (size_t i = 0; k && !strncmp(name, "nccl", 4) && i < sizeof(before) / sizeof(before[0]); i++)
		if (!strncmp(name + 4, before[i], strlen(before[i])) && name + 4 + strlen(before[i]) <= k) {
			buf_adds(out, before[i]);
			return;
		}
	const char *p = strstr(name, "Kernel_");
	if (!p) {
		buf_adds(out, "other");
		return;
	}
	p += 7;
	size_t n = strcspn(p, "_(<");
	char tmp[64];
	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, p, n);
	tmp[n] = '\0';
	collective_canonical(tmp, out);
}

double collective_bus_factor(const char *type, int64_t n)
{
	if (n <= 0)
		return 0;
	if (!strcmp(type, "AllReduce"))
		return 2.0 * (double)(n - 1) / (double)n;
	if (!strcmp(type, "AllGather") || !strcmp(type, "ReduceScatter"))
		return (double)(n - 1) / (double)n;
	return 1.0;
}

/*
 * temp.comm_names: the ids of the names the default classification puts in
 * the communication group, each name classified once, so that the query
 * below sorts and returns the communication kernels only (classifying and
 * sorting every kernel of a 1 GB trace took most of this analysis).
 */
static int comm_names(struct store *s, struct classifier *cls)
{
	struct store_stmt *names = NULL, *ins = NULL;
	if (store_exec(s, "CREATE TEMP TABLE IF NOT EXISTS comm_names(id INTEGER PRIMARY KEY);"
			  " DELETE FROM temp.comm_names;", "list communication kernels") < 0)
		return -1;
	if (store_prepare(s, "collectives: list communication kernels",
			"SELECT id, name FROM names", &names) < 0 ||
	    store_prepare(s, "collectives: list communication kernels",
			"INSERT INTO temp.comm_names VALUES(?1)", &ins) < 0) {
		store_finalize(names);
		return -1;
	}
	int rc;
	while ((rc = store_next(names)) > 0) {
		if (strcmp(classify(cls, ACT_KERNEL, (const char *)store_column_text(names, 1)), "communication"))
			continue;
		store_bind_int64(ins, 1, store_column_int64(names, 0));
		if (store_exec_stmt(ins) < 0) {
			rc = -1;
			break;
		}
	}
	store_finalize(names);
	store_finalize(ins);
	return rc;
}

static int analysis_collectives(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct store *s = ctx->store;
	struct table *t = table_new("collectives", "NCCL collectives per run, rank and type",
				    TABLE_SCHEMA(COLLECTIVES_COLUMNS));
	struct classifier *cls = classifier_preset("default");
	struct store_stmt *st;
	/* Communication kernels with their args where recorded (same trace, start and correlation). */
	if (comm_names(s, cls) < 0) {
		table_free(t);
		classifier_free(cls);
		return -1;
	}
	st = store_query(s, "collectives: communication kernels",
			 "SELECT t.run, t.rank, n.name, a.dur_ns, c.collective, c.in_nelems, c.out_nelems,"
			 " c.dtype, coalesce(c.group_size, t.world_size) FROM activities a"
			 " JOIN run_traces t ON t.id = a.trace_id"
			 " JOIN names n ON n.id = a.name_id"
			 " LEFT JOIN collectives c ON c.trace_id = a.trace_id AND c.start_ns = a.start_ns"
			 "  AND c.correlation IS a.correlation"
			 " WHERE t.experiment = ?1 AND a.kind = 'kernel'"
			 " AND a.name_id IN (SELECT id FROM temp.comm_names)"
			 " ORDER BY t.position, t.rank, a.start_ns", ctx->experiment);
	if (!st) {
		table_free(t);
		classifier_free(cls);
		return -1;
	}
	/*
	 * The (run, rank, type) aggregates in the order first seen; those of
	 * one rank chained (next, from the map's entry of the rank), so that
	 * each row compares the few of its rank, not every rank's.
	 */
	struct agg {
		char *run, *type;
		int64_t rank, calls, time, bytes, bytes_time, group;
		size_t next; /* the next aggregate of the same rank, SIZE_MAX: none */
	} *ag = NULL;
	size_t nag = 0, cap = 0, *head = NULL, nhead = 0, cap_head = 0;
	struct intmap byrank = {0};
	struct buf type;
	buf_init(&type);
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *name = (const char *)store_column_text(st, 2);
		const char *run = (const char *)store_column_text(st, 0);
		int64_t rank = store_column_int64(st, 1), dur = store_column_int64(st, 3);
		buf_reset(&type);
		if (store_column_type(st, 4) != STORE_NULL)
			collective_canonical((const char *)store_column_text(st, 4), &type);
		else
			type_from_kernel(name, &type);
		size_t h = intmap_index(&byrank, rank, nhead), i, last = SIZE_MAX;
		if (h == nhead) {
			head = xgrow(head, &cap_head, nhead + 1, sizeof(*head));
			head[nhead++] = SIZE_MAX;
		}
		long long scanned = 0;
		for (i = head[h]; i != SIZE_MAX; last = i, i = ag[i].next, scanned++)
			if (!strcmp(ag[i].run, run) && !strcmp(ag[i].type, type.data))
				break;
		work_add(WORK_SCANNED, scanned); /* PERFSTUDY_COUNTS */
		if (i == SIZE_MAX) { /* a new one, at its chain's end */
			ag = xgrow(ag, &cap, nag + 1, sizeof(*ag));
			memset(&ag[nag], 0, sizeof(*ag));
			ag[nag].run = xstrdup(run);
			ag[nag].type = xstrdup(type.data);
			ag[nag].rank = rank;
			ag[nag].next = SIZE_MAX;
			if (last == SIZE_MAX)
				head[h] = nag;
			else
				ag[last].next = nag;
			i = nag++;
		}
		ag[i].calls++;
		ag[i].time += dur;
		int64_t in = store_column_int64(st, 5), outn = store_column_int64(st, 6);
		int sz = collective_dtype_size((const char *)store_column_text(st, 7));
		if ((in > 0 || outn > 0) && sz > 0) {
			ag[i].bytes += collective_message_nelems(type.data, in, outn) * sz;
			ag[i].bytes_time += dur;
		}
		if (store_column_type(st, 8) != STORE_NULL)
			ag[i].group = store_column_int64(st, 8);
	}
	int ret = rc;
	store_finalize(st);
	for (size_t i = 0; i < nag; i++) {
		size_t row = table_add_row(t);
		table_set_text(t, row, 0, ag[i].run);
		table_set_int(t, row, 1, ag[i].rank);
		table_set_text(t, row, 2, ag[i].type);
		table_set_int(t, row, 3, ag[i].calls);
		table_set_ns(t, row, 4, ag[i].time);
		if (ag[i].bytes_time > 0) {
			table_set_int(t, row, 5, ag[i].bytes);
			double algbw = (double)ag[i].bytes / (double)ag[i].bytes_time;
			table_set_real(t, row, 6, algbw);
			if (ag[i].group > 0)
				table_set_real(t, row, 7, algbw * collective_bus_factor(ag[i].type, ag[i].group));
		} else {
			result_add_note(out, "collectives.csv: run %s rank %lld: %s kernels record no message size, "
					"so bytes and bandwidths are empty", ag[i].run, (long long)ag[i].rank, ag[i].type);
		}
		free(ag[i].run);
		free(ag[i].type);
	}
	free(ag);
	free(head);
	intmap_free(&byrank);
	buf_release(&type);
	classifier_free(cls);
	if (ret < 0) {
		table_free(t);
		return -1;
	}
	result_add_table(out, t);
	result_add_method(out, "collectives.csv",
			  "Per run, rank and collective type, over the communication-group kernels of the default "
			  "classification: calls and summed kernel time; bytes = sum over calls of max(In msg nelems, "
			  "Out msg nelems) x the dtype's size (the kernel args Kineto records; nccl-tests' S), for a "
			  "SendRecv (a send and a recv fused in one kernel) In + Out: what it sends and what it receives; "
			  "algbw = bytes / time of the calls that record a size (bytes per ns = GB/s); busbw = algbw "
			  "x 2(n-1)/n for AllReduce, x (n-1)/n for AllGather and ReduceScatter, x 1 otherwise, n the "
			  "group size (NCCL nccl-tests, doc/PERFORMANCE.md). The type is the 'Collective name' arg, "
			  "else the word after 'Kernel_' in the kernel name, or for NCCL 2.4-2.7 names "
			  "(ncclReduceRingLLKernel_sum_f32) the collective before 'Kernel'.");
	return 0;
}

const struct analysis_def analysis_def_collectives = {
	.name = "collectives",
	.run = analysis_collectives,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("collectives"),
};
