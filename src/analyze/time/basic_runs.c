/*
 * basic_runs.c: the basic analysis's runs, ranks and steps (basic.c runs
 * it):
 *
 *   runs:    one row per run: what the manifest says and what was read
 *            (its strategy: basic_strategy.c; its layout: run_layout.c;
 *            its model and batch, where the manifest gives none, from the
 *            training logs: basic_runs_from_logs).
 *   rank_devices: per run and rank, the device its activities are on and
 *            the file they come from (a file driving several devices is
 *            one rank per device: store_split_devices).
 *   steps:   per run, rank and ProfilerStep#N host range: its duration.
 *
 * and the notes on trace files without a GPU timeline and on files whose
 * activities are on several devices.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/basic_int.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include "analyze/time/time_tables.h"

/* A row of runs.csv: each column by its type, NULL left empty. */
static void runs_row(struct table *t, size_t row, struct store_stmt *st)
{
	for (int c = 0; c < 10; c++) {
		if (store_column_type(st, c) == STORE_NULL)
			continue;
		switch (t->cols[c].type) {
		case COL_TEXT:
			table_set_text(t, row, (size_t)c, (const char *)store_column_text(st, c));
			break;
		case COL_US: {
			/* mean of integer ns, rounded to the nearest ns */
			double v = store_column_double(st, c);
			table_set_ns(t, row, (size_t)c, (int64_t)(v + 0.5));
			break;
		}
		default:
			table_set_int(t, row, (size_t)c, store_column_int64(st, c));
		}
	}
}

int basic_build_runs(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("runs", "Runs",
				    TABLE_SCHEMA(RUNS_COLUMNS));
	struct store_stmt *st;
	/*
	 * gpus: the manifest's value, else the largest world_size a trace
	 * records, else the number of rank files; empty with none (a run of
	 * a published table, no trace: not 0 GPUs), and so ranks and kernels,
	 * which such a run did not measure as 0. The layout's columns
	 * (data_parallel ... schedule_source) stay empty here: run_layout.c
	 * fills them after pipeline_stages.csv.
	 */
	st = store_query(s, "build runs",
			 "SELECT r.run, r.label, coalesce(r.gpus, max(t.world_size), nullif(count(DISTINCT t.rank), 0)),"
			 " nullif(count(DISTINCT t.rank), 0), r.model, r.batch, r.strategy,"
			 " (SELECT d.name FROM devices d JOIN traces t2 ON t2.id = d.trace_id WHERE t2.run_id = r.id"
			 "   ORDER BY t2.rank, d.device LIMIT 1),"
			 " CASE WHEN count(t.id) > 0 THEN (SELECT count(*) FROM activities a JOIN traces t3"
			 "   ON t3.id = a.trace_id WHERE t3.run_id = r.id AND a.kind = 'kernel') END,"
			 " (SELECT avg(s.dur_ns) FROM steps s JOIN traces t4 ON t4.id = s.trace_id"
			 " WHERE t4.run_id = r.id)"
			 " FROM runs r LEFT JOIN traces t ON t.run_id = r.id WHERE r.experiment = ?1"
			 " GROUP BY r.id ORDER BY r.position", exp);
	return basic_table_rows(st, t, runs_row, out);
}

/* "53.6M params": n in 3 significant digits, with its SI prefix. */
static void params_words(struct buf *b, int64_t n)
{
	if (n >= 1000000000)
		buf_printf(b, "%.3gB params", (double)n / 1e9);
	else if (n >= 1000000)
		buf_printf(b, "%.3gM params", (double)n / 1e6);
	else
		buf_printf(b, "%" PRId64 " params", n);
}

/* The file name of path: after its last '/'. */
static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "";
}

int basic_runs_from_logs(struct store *s, const char *exp, struct table *runs)
{
	if (!runs)
		return 0;
	/*
	 * Per run: the parameter count its logs give (one value, else none),
	 * the first such log; the global batch its iterations give (one value),
	 * the first log with one.
	 */
	struct store_stmt *st = store_query(s, "runs: model and batch from the training logs",
					    "SELECT (SELECT CASE WHEN count(DISTINCT v.value) = 1 THEN min(v.value) END"
					    "   FROM trace_software v JOIN run_traces t ON t.id = v.trace_id"
					    "   WHERE t.experiment = ?1 AND t.run = ?2 AND v.item = 'params'),"
					    " (SELECT t.path FROM trace_software v JOIN run_traces t ON t.id = v.trace_id"
					    "   WHERE t.experiment = ?1 AND t.run = ?2 AND v.item = 'params'"
					    "   ORDER BY t.file_index, t.id LIMIT 1),"
					    " (SELECT CASE WHEN min(i.global_batch) = max(i.global_batch) THEN min(i.global_batch) END"
					    "   FROM iterations i JOIN run_traces t ON t.id = i.trace_id"
					    "   WHERE t.experiment = ?1 AND t.run = ?2 AND i.global_batch > 0),"
					    " (SELECT t.path FROM iterations i JOIN run_traces t ON t.id = i.trace_id"
					    "   WHERE t.experiment = ?1 AND t.run = ?2 AND i.global_batch > 0"
					    "   ORDER BY t.file_index, t.id LIMIT 1)", exp);
	if (!st)
		return -1;
	struct buf v, src;
	buf_init(&v);
	buf_init(&src);
	int rc = 0;
	for (size_t r = 0; r < runs->nrows && rc >= 0; r++) {
		const char *run = table_text(runs, r, RUNS_RUN), *model = table_text(runs, r, RUNS_MODEL);
		int has_batch = !table_cell(runs, r, RUNS_BATCH)->null;
		if (model && *model)
			table_set_text(runs, r, RUNS_MODEL_SOURCE, "manifest");
		if (has_batch)
			table_set_text(runs, r, RUNS_BATCH_SOURCE, "manifest");
		if ((model && *model) && has_batch)
			continue;
		store_reset(st);
		store_bind_text(st, 2, run);
		if ((rc = store_next(st)) <= 0)
			continue;
		const char *params = (const char *)store_column_text(st, 0);
		if (!(model && *model) && params && strtoll(params, NULL, 10) > 0) {
			buf_reset(&v);
			params_words(&v, strtoll(params, NULL, 10));
			buf_reset(&src);
			buf_printf(&src, "training log (%s): params %s", base_name((const char *)store_column_text(st, 1)),
				   params);
			table_set_text(runs, r, RUNS_MODEL, v.data);
			table_set_text(runs, r, RUNS_MODEL_SOURCE, src.data);
		}
		int64_t gb = store_column_type(st, 2) != STORE_NULL ? store_column_int64(st, 2) : 0,
			gpus = table_cell(runs, r, RUNS_GPUS)->null ? 0 : table_cell(runs, r, RUNS_GPUS)->v.i;
		if (!has_batch && gb > 0 && gpus > 0 && gb % gpus == 0) {
			buf_reset(&src);
			buf_printf(&src, "training log (%s): global batch size %" PRId64 " / %" PRId64 " GPU%s",
				   base_name((const char *)store_column_text(st, 3)), gb, gpus, gpus == 1 ? "" : "s");
			table_set_int(runs, r, RUNS_BATCH, gb / gpus);
			table_set_text(runs, r, RUNS_BATCH_SOURCE, src.data);
		}
	}
	store_finalize(st);
	buf_release(&v);
	buf_release(&src);
	return rc < 0 ? -1 : 0;
}

/* rank_devices: which device, of which file, each rank is. */
int basic_build_rank_devices(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("rank_devices", "The device each rank's GPU activities are on",
				    TABLE_SCHEMA(RANK_DEVICES_COLUMNS));
	struct store_stmt *st = store_query(s, "build rank devices",
					    "SELECT t.run, t.rank, t.device, " DEVICE_LABEL("t") ","
					    /*
					     * the file's first row and its other devices' rows: counted once
					     * for all (a count with an OR per row read the table per row, 3 s
					     * at 4096 ranks)
					     */
					    " t.path, 1 + coalesce(k.c, 0)"
					    " FROM run_traces t"
					    " LEFT JOIN (SELECT part_of AS f, count(*) AS c FROM traces"
					    " WHERE part_of IS NOT NULL GROUP BY part_of) k"
					    " ON k.f = coalesce(t.part_of, t.id) WHERE t.experiment = ?1"
					    " AND t.rank IS NOT NULL"
					    " ORDER BY t.position, t.rank, t.id", exp);
	return basic_typed_rows(st, t, out);
}

int basic_build_steps(struct store *s, const char *exp, struct table **out)
{
	struct table *t = table_new("steps", "Duration of each profiled training step (ProfilerStep#N, host side)",
				    TABLE_SCHEMA(STEPS_COLUMNS));
	struct store_stmt *st = store_query(s, "build steps",
					    "SELECT t.run, t.rank, s.step, s.dur_ns"
					    " FROM steps s JOIN run_traces t ON t.id = s.trace_id"
					    " WHERE t.experiment = ?1"
					    " ORDER BY t.position, t.rank, s.step, s.start_ns", exp);
	return basic_typed_rows(st, t, out);
}

/*
 * A note for each file whose activities are on several devices: which ranks
 * it became. One pass over the shares of every such file (the file's own
 * row and its part_of rows), in file order then device: an EXISTS over
 * part_of per trace, which no index serves, scanned `traces` once per
 * trace (10,000 one-kernel ranks: 11 s).
 */
int basic_add_device_notes(struct store *s, const char *exp, struct analysis_result *out)
{
	struct store_stmt *st = store_query(s, "add device notes",
					    "SELECT f.id, f.run, f.path, 'device ' || p.device || ' = rank ' || p.rank"
					    " FROM traces p JOIN run_traces f ON f.id = coalesce(p.part_of, p.id)"
					    " WHERE f.experiment = ?1 AND f.part_of IS NULL"
					    " AND f.id IN (SELECT part_of FROM traces WHERE part_of IS NOT NULL)"
					    " ORDER BY f.position, f.file_index, f.id, p.device, p.id", exp);
	if (!st)
		return -1;
	struct buf parts;
	buf_init(&parts);
	char *run = NULL, *path = NULL;
	int64_t file = -1;
	int rc;
	for (;;) {
		rc = store_next(st);
		int64_t id = rc > 0 ? store_column_int64(st, 0) : -1;
		if (file >= 0 && id != file) /* group_concat(x, '; ') of the file's shares, NULLs left out */
			result_add_note(out,
					"Run %s: %s holds GPU activities on several devices, one process driving them all; "
					"each device is a rank of its own here (%s). Host-side ranges are each device's; host "
					"operators and profiler summary rows stay with the first.",
					run, path, parts.len ? parts.data : "(null)");
		if (rc <= 0)
			break;
		if (id != file) {
			free(run);
			free(path);
			run = xstrdup((const char *)store_column_text(st, 1));
			path = xstrdup((const char *)store_column_text(st, 2));
			buf_reset(&parts);
			file = id;
		}
		if (store_column_type(st, 3) != STORE_NULL)
			buf_printf(&parts, "%s%s", parts.len ? "; " : "", (const char *)store_column_text(st, 3));
	}
	free(run);
	free(path);
	buf_release(&parts);
	store_finalize(st);
	return rc;
}

/*
 * Notes for trace files without a GPU timeline: a summary-only file
 * (nvprof --print-gpu-summary) feeds groups and kernels from its totals and
 * nothing else; a file with no GPU work at all (a CPU-only trace) feeds
 * nothing GPU-side.
 */
int basic_add_source_notes(struct store *s, const char *exp, struct analysis_result *out)
{
	struct store_stmt *st = store_query(s, "add source notes",
					    "SELECT t.run, t.rank, t.path, t.format,"
					    " (SELECT count(*) FROM summaries m WHERE m.trace_id = t.id)"
					    " FROM run_traces t WHERE t.experiment = ?1"
					    " AND t.rank IS NOT NULL AND t.id NOT IN (SELECT trace_id FROM activities)"
					    " ORDER BY t.position, t.rank, t.path", exp);
	if (!st)
		return -1;
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *run = (const char *)store_column_text(st, 0);
		int64_t rank = store_column_int64(st, 1);
		const char *path = (const char *)store_column_text(st, 2);
		const char *fmt = store_column_text(st, 3) ? (const char *)store_column_text(st, 3) : "?";
		if (store_column_int64(st, 4) > 0)
			result_add_note(out,
					"Run %s, rank %" PRId64 " (%s, %s) is a GPU summary without a timeline: groups and "
					"kernels come from its per-name totals; steps, mean step time and every analysis "
					"that needs individual GPU activities or their times (overlap, idle time, per-step "
					"breakdowns) cannot be computed for it.",
					run, rank, path, fmt);
		else
			result_add_note(out,
					"Run %s, rank %" PRId64 " (%s, %s) has no GPU activity (no kernel, memcpy or "
					"memset): a CPU-only trace or a profile of the host side; it adds nothing to the "
					"GPU tables and figures.",
					run, rank, path, fmt);
	}
	store_finalize(st);
	return rc;
}

void basic_method_runs(struct analysis_result *out)
{
	result_add_method(out, "runs.csv",
			  "One row per run. gpus: the manifest's value, else the largest world_size its traces "
			  "record, else its number of ranks, else empty (a run with no trace). ranks: as in rank_devices.csv; empty for a run with no "
			  "trace (a published table's), as are kernels. "
			  "model: the manifest's (model_source 'manifest'), else the parameter count N that the run's "
			  "training logs give in a line 'params N world W strategy S', where they all give the same, in 3 "
			  "significant digits ('53.6M params'; model_source 'training log (<file>): params N'); batch: "
			  "the manifest's batch per GPU (batch_source 'manifest'), else the 'global batch size' of the "
			  "run's training-log iterations, where they all give the same, over its gpus where that divides "
			  "exactly (batch_source 'training log (<file>): global batch size B / G GPUs'); else empty, and so"
			  " their sources. "
			  "kernels: kernel "
			  "launches read. mean_step_us: the mean duration of all ProfilerStep#N ranges of all its ranks. "
			  "data_parallel, tensor_parallel, pipeline_parallel: the run's layout, by the first rule that "
			  "applies (layout_source): 'manifest', its tensor_parallel and pipeline_parallel (1 where one "
			  "is not given) and data_parallel gpus / (tensor_parallel x pipeline_parallel); 'manifest "
			  "strategy', a strategy of ddp or a ZeRO stage: data_parallel gpus, the others 1; 'trace: "
			  "send/recv path', the pipelines pipeline_stages.csv finds in the ranks' point-to-point peers: "
			  "pipeline_parallel their stages, data_parallel their count, tensor_parallel gpus over both "
			  "where that divides exactly; 'trace: DistributedDataParallel.forward' (or "
			  "FullyShardedDataParallel.forward, or another annotation strategy_source names) or 'training "
			  "log (<file>): strategy S', the first clause of strategy_source of a strategy not the "
			  "manifest's that is ddp or a ZeRO stage (ahead of the send/recv path), or else the wrapper's "
			  "annotation in a rank's trace: data_parallel gpus, the others 1; 'one GPU': 1, 1, 1; else empty. schedule (GPipe, 1F1B) and microbatches: "
			  "the manifest's, else pipeline_stages.csv's, inferred from the sends and receives; "
			  "schedule_source says whose. strategy: the manifest's (strategy_source 'manifest'), else "
			  "inferred from the wrappers' host annotations in the run's traces, the first that applies "
			  "(strategy_source 'trace: ...' names the annotation): Optimizer.step#ZeroRedundancyOptimizer.step, "
			  "zero1; FSDP2's FSDP::pre_forward with more FSDP::all_gather ranges than FSDP::pre_forward ones "
			  "(the parameters gathered again in backward), zero3, else zero2; "
			  "FullyShardedDataParallel.forward, fsdp (FSDP's default full sharding, ZeRO-3, assumed: its "
			  "annotations do not say its sharding strategy); "
			  "DistributedDataParallel.forward, ddp; but single where the run ran on one GPU (gpus 1 and "
			  "at most one rank): with one rank no wrapper shards or reduces anything (strategy_source "
			  "names the annotation and 'on one GPU'); else the strategy S that the run's training logs name "
			  "in a line 'params N world W strategy S' (the bundled generator's last line; strategy_source "
			  "'training log (<file>): strategy S'), where those that name one all name the same; else "
			  "single where the run ran on one GPU and its one traced rank shows no wrapper (strategy_source "
			  "'one GPU, no wrapper in its traces'); else empty. Where the traces and a log both name one, the traces' is taken and strategy_source "
			  "adds '; training log (<file>): strategy S' where the log agrees (the same name or ZeRO stage: "
			  "fsdp and zero3 agree), '; the training log (<file>) says S' and a note where it does not. "
			  "Every analysis after this table (scaling, collective_busbw, time_to_train, the strategy "
			  "figures) and the page's Models fact take this strategy; the Models fact says where each "
			  "came from.");
	result_add_method(out, "ranks and devices (rank_devices.csv)",
			  "A rank is one device's GPU activities. A trace file whose activities are on one device "
			  "(one process per GPU: DDP, one Kineto file per rank) is one rank: the rank it records, "
			  "else its position among the run's files (a warning names each such file of a run of "
			  "several; a run of one file that records no rank, as a single-GPU Kineto trace without "
			  "distributedInfo, is rank 0 without one). A file whose activities are on several devices "
			  "(one process driving several GPUs, as nvprof recorded DataParallel training in paper 000) "
			  "is one rank per device: the run's ranks are then numbered 0, 1, ... in order of file, "
			  "then device id, and each keeps its device (rank_devices.csv). Each such rank has its "
			  "device's kernels, copies and memsets, the runtime calls that launched them (same "
			  "correlation id) and GPU ranges on its streams; the process's host ranges (ProfilerStep#N, "
			  "phases) are copied to each of its devices, its host operators and summary rows stay with "
			  "the first. Nothing is merged across devices. A run whose manifest gpus differs from the "
			  "ranks this gives is warned about at build time.");
}

void basic_method_steps(struct analysis_result *out)
{
	result_add_method(out, "steps.csv",
			  "The duration of each ProfilerStep#N annotation range on the host (the profiler's "
			  "step marker), per rank.");
}
