/*
 * basic_strategy.c: runs.csv's strategy and strategy_source (perfstudy
 * issue #57 item 7), filled right after basic_runs.c makes the table, so that
 * every later analysis (scaling, the strategy figures, the layout) reads
 * the same strategy.
 *
 * Per run: the manifest's strategy where it gives one (strategy_source
 * "manifest"); else the one the run's traces and training logs say:
 *   trace: <annotation>  the host annotations the wrappers record, the
 *                     first rule that applies:
 *     Optimizer.step#ZeroRedundancyOptimizer.step  zero1 (PyTorch's
 *                     ZeroRedundancyOptimizer shards the optimizer state);
 *     FSDP::pre_forward (FSDP2)  zero3 when the run has more FSDP::all_gather
 *                     ranges (not all_gather_copy_*) than FSDP::pre_forward
 *                     ones: the parameters are gathered again in backward
 *                     (reshard_after_forward); else zero2;
 *     FullyShardedDataParallel.forward  fsdp (FSDP1, whose default full
 *                     sharding is ZeRO-3);
 *     DistributedDataParallel.forward   ddp;
 *   training log (<file>): strategy S  the strategy a training log of the
 *                     run names (trace_software 'strategy': the line "params
 *                     N world W strategy S" trainlog.c reads), where all
 *                     its logs that name one name the same.
 * A run on one GPU (gpus 1, at most one rank) whose traces show a wrapper
 * is "single": with one rank no wrapper shards or reduces anything (PyTorch's
 * FSDP switches itself to NO_SHARD at world size 1, FSDP2 gathers nothing,
 * NCCL launches no kernel), and FSDP2's stage cannot be told from it;
 * strategy_source names the wrapper's annotation. A run on one GPU whose
 * one rank's traces show no wrapper and whose logs name no strategy is
 * "single" too (strategy_source "one GPU, no wrapper in its traces"); one with no
 * traced rank (ncu reports only) stays empty: nothing shows its wrapper.
 * FSDP1's annotations do
 * not say its sharding strategy: FULL_SHARD (ZeRO-3), its default, is
 * assumed and strategy_source says so. Both were found on a recording made
 * after the rule (experiments/gpu1-wrappers).
 * Where both say one, the trace's is taken: strategy_source gives the
 * trace's clause first, then "; training log (<file>): strategy S" where
 * the log agrees (the same name, or the same ZeRO stage: fsdp and zero3),
 * or "; the training log (<file>) says S" and a note where it does not.
 * The first clause of strategy_source (up to "; ") is the one the value
 * rests on; run_layout.c gives it as layout_source.
 */
#include <inttypes.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/lib/layout.h"
#include "analyze/time/basic_int.h"
#include "store/store.h"
#include "util/buf.h"
#include "analyze/time/time_tables.h"

/*
 * The strategy the run's wrappers' annotations say (see the file's
 * comment) into *strategy (static text, NULL: none) and its source into
 * src ("trace: <annotation>"). Returns 0, or -1 after diag.
 */
static int from_trace(struct store *s, const char *exp, const char *run, const char **strategy, struct buf *src)
{
	*strategy = NULL;
	struct store_stmt *st = store_query(s, "runs: the wrappers' annotations",
					    "SELECT n.name, count(*)"
					    " FROM annotations a JOIN names n ON n.id = a.name_id"
					    " JOIN run_traces t ON t.id = a.trace_id"
					    " WHERE t.experiment = ?1 AND t.run = ?2 AND a.on_gpu = 0 AND (n.name IN"
					    " ('Optimizer.step#ZeroRedundancyOptimizer.step',"
					    " 'FullyShardedDataParallel.forward', 'DistributedDataParallel.forward')"
					    " OR n.name GLOB 'FSDP::pre_forward*'"
					    " OR (n.name GLOB 'FSDP::all_gather*'"
					    " AND n.name NOT GLOB 'FSDP::all_gather_copy*'))"
					    " GROUP BY n.name ORDER BY n.name", exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	int64_t zro = 0, fsdp1 = 0, ddp = 0, pre = 0, gather = 0;
	int rc;
	while ((rc = store_next(st)) > 0) {
		const char *n = (const char *)store_column_text(st, 0);
		int64_t c = store_column_int64(st, 1);
		if (!n)
			continue;
		if (!strcmp(n, "Optimizer.step#ZeroRedundancyOptimizer.step"))
			zro += c;
		else if (!strcmp(n, "FullyShardedDataParallel.forward"))
			fsdp1 += c;
		else if (!strcmp(n, "DistributedDataParallel.forward"))
			ddp += c;
		else if (!strncmp(n, "FSDP::pre_forward", 17))
			pre += c;
		else
			gather += c;
	}
	store_finalize(st);
	if (rc < 0)
		return -1;
	buf_reset(src);
	if (zro) {
		*strategy = "zero1";
		buf_adds(src, "trace: Optimizer.step#ZeroRedundancyOptimizer.step");
	} else if (pre) {
		*strategy = gather > pre ? "zero3" : "zero2";
		buf_printf(src, "trace: FSDP::pre_forward, %" PRId64 " FSDP::all_gather for %" PRId64 " FSDP::pre_forward (%s)",
			   gather, pre, gather > pre ? "gathered again in backward" : "not gathered again in backward");
	} else if (fsdp1) {
		*strategy = "fsdp";
		buf_adds(src, "trace: FullyShardedDataParallel.forward (its sharding strategy is not in the annotations: "
			      "FULL_SHARD, FSDP's default, assumed)");
	} else if (ddp) {
		*strategy = "ddp";
		buf_adds(src, "trace: DistributedDataParallel.forward");
	}
	return 0;
}

/*
 * The strategies the run's training logs name (trace_software 'strategy'),
 * distinct, in file order, joined with ", " into names, and the first such
 * log's file name (its path after the last '/') into file. Returns how many
 * distinct ones, or -1 after diag.
 */
static int from_logs(struct store *s, const char *exp, const char *run, struct buf *names, struct buf *file)
{
	struct store_stmt *st = store_query(s, "runs: the strategy the training logs name",
					    "SELECT v.value, min(t.path)"
					    " FROM trace_software v JOIN run_traces t ON t.id = v.trace_id"
					    " WHERE t.experiment = ?1 AND t.run = ?2 AND v.item = 'strategy'"
					    " GROUP BY v.value ORDER BY min(t.file_index), v.value", exp);
	if (!st)
		return -1;
	store_bind_text(st, 2, run);
	buf_reset(names);
	buf_reset(file);
	int rc, n = 0;
	while ((rc = store_next(st)) > 0) {
		const char *v = (const char *)store_column_text(st, 0), *p = (const char *)store_column_text(st, 1);
		if (!v)
			continue;
		buf_printf(names, "%s%s", n ? ", " : "", v);
		if (!n && p) {
			const char *slash = strrchr(p, '/');
			buf_adds(file, slash ? slash + 1 : p);
		}
		n++;
	}
	store_finalize(st);
	return rc < 0 ? -1 : n;
}

/* Whether run row r of runs.csv ran on one GPU: gpus 1 and at most one rank, or gpus not given and one rank. */
static int one_gpu(const struct table *runs, size_t r)
{
	double g = table_num(runs, r, RUNS_GPUS), n = table_num(runs, r, RUNS_RANKS);
	return g == g ? g == 1 && !(n > 1) : n == 1;
}

/* Whether run row r ran on one GPU whose trace was read: one_gpu() and exactly one rank. */
static int one_traced_gpu(const struct table *runs, size_t r)
{
	return one_gpu(runs, r) && table_num(runs, r, RUNS_RANKS) == 1;
}

/* The annotation a from_trace() source names ("trace: NAME ..." or "trace: NAME, ..."), in a static buffer. */
static const char *annotation_of(const char *src)
{
	static char name[128];
	const char *p = src + 7; /* after "trace: " */
	size_t n = strcspn(p, " ,");
	if (n >= sizeof(name))
		n = sizeof(name) - 1;
	memcpy(name, p, n);
	name[n] = 0;
	return name;
}

/* Whether strategies a and b are one: the same name, or the same shown name ("fsdp" and "zero3": ZeRO-3). */
static int same_strategy(const char *a, const char *b)
{
	char sa[64], sb[64];
	layout_strategy_shown(NULL, a, sa, sizeof(sa));
	layout_strategy_shown(NULL, b, sb, sizeof(sb));
	return !strcmp(a, b) || !strcmp(sa, sb);
}

int basic_strategies(struct store *s, const char *exp, struct table *runs, struct analysis_result *out)
{
	if (!runs)
		return 0;
	int cst = RUNS_STRATEGY, csrc = RUNS_STRATEGY_SOURCE;
	struct buf tsrc, logs, file, src;
	buf_init(&tsrc);
	buf_init(&logs);
	buf_init(&file);
	buf_init(&src);
	int ret = 0;
	for (size_t r = 0; r < runs->nrows && ret == 0; r++) {
		const char *run = table_text(runs, r, RUNS_RUN), *given = table_text(runs, r, cst);
		if (given && *given) {
			table_set_text(runs, r, (size_t)csrc, "manifest");
			continue;
		}
		const char *traced;
		int nlog;
		if (from_trace(s, exp, run, &traced, &tsrc) < 0 || (nlog = from_logs(s, exp, run, &logs, &file)) < 0) {
			ret = -1;
			break;
		}
		if (nlog > 1)
			result_add_note(out, "runs.csv strategy of run %s: its training logs name several strategies (%s): none is "
					"taken from them.", run, logs.data);
		const char *logged = nlog == 1 ? logs.data : NULL;
		buf_reset(&src);
		if (traced) {
			buf_adds(&src, tsrc.data);
			if (logged && same_strategy(traced, logged))
				buf_printf(&src, "; training log (%s): strategy %s", file.data, logged);
			else if (logged) {
				buf_printf(&src, "; the training log (%s) says %s", file.data, logged);
				result_add_note(out, "runs.csv strategy of run %s: its traces' annotations say strategy %s (%s), its "
						"training log (%s) says %s: runs.csv takes the traces'.", run, traced,
						tsrc.data + 7, file.data, logged);
			}
		} else if (logged) {
			buf_printf(&src, "training log (%s): strategy %s", file.data, logged);
		}
		if (traced && one_gpu(runs, r)) {
			/* one rank: the wrapper shards and reduces nothing (see the file's comment) */
			buf_reset(&src);
			buf_printf(&src, "trace: %s on one GPU: the wrapper has one rank, nothing is sharded or reduced "
				   "across ranks", annotation_of(tsrc.data));
			if (logged)
				buf_printf(&src, "; the training log (%s) says %s", file.data, logged);
			traced = "single";
		}
		if (traced || logged) {
			table_set_text(runs, r, (size_t)cst, traced ? traced : logged);
			table_set_text(runs, r, (size_t)csrc, src.data);
		} else if (one_traced_gpu(runs, r)) {
			/* one traced rank, no wrapper, no log: a plain 1-GPU run */
			table_set_text(runs, r, (size_t)cst, "single");
			table_set_text(runs, r, (size_t)csrc, "one GPU, no wrapper in its traces");
		}
	}
	buf_release(&tsrc);
	buf_release(&logs);
	buf_release(&file);
	buf_release(&src);
	return ret;
}
