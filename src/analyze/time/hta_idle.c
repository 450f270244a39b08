/*
 * hta_idle.c: host-bound or GPU-bound (issue 21, section 4). Holistic Trace
 * Analysis's idle time breakdown (hta/analyzers/breakdown_analysis.py
 * get_idle_time_breakdown) and kernel launch statistics
 * (hta/analyzers/cuda_kernel_analysis.py cuda_kernel_launch_stats), on the
 * GPU events HTA keeps (hta.c), with HTA's numbers and exact ones as in
 * temporal.c.
 *
 * Idle time, per stream: its kernels, memcpys and memsets sorted by start;
 * the gap before each (but the first) is its start minus the end of the one
 * before it on the stream (negative when they overlap), and it is
 *   host wait   when the event's launching call started after the previous
 *               event ended (the host had not yet asked for it),
 *   kernel wait else, when the gap is under 30 us (HTA's
 *               consecutive_kernel_delay: the cost of back-to-back launches),
 *   other       else (waiting for another stream, an event, a copy ...).
 * (Per step, the GPU's idle time with all its streams as one, is gpu_idle.c's.)
 *
 * Launch statistics, per launch: the kernel, memcpy or memset and its host
 * call when that is cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync,
 * cudaMemsetAsync (or MTIA's runFunction), or HIP's calls of the same
 * meaning (hipLaunchKernel, hipExtLaunchKernel, hipModuleLaunchKernel and
 * hipExtModuleLaunchKernel, which hipBLASLt and Triton use, hipMemcpyAsync,
 * hipMemsetAsync: asynchronous, one GPU event each), which HTA does not
 * know (a documented difference on its MI250 trace); cpu_duration = the call's
 * duration, gpu_duration = the event's, launch_delay = event start - call
 * end, 0 when negative. Counts at HTA's cutoffs: cpu_duration > 50 us,
 * launch_delay > 100 us, short kernels (cpu_duration <= 50 us and
 * gpu_duration < cpu_duration: launching took longer than running).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/time/hta.h"
#include "analyze/time/time_tables.h"
#include "analyze/lib/rankdata.h"
#include "analyze/lib/stats.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

#define KERNEL_WAIT_NS 30000 /* HTA's consecutive_kernel_delay, 30 (us) */
#define RUNTIME_CUTOFF_NS 50000
#define LAUNCH_DELAY_CUTOFF_NS 100000
#define HOST_BOUND_SHARE 0.5 /* the statement: host-bound when host wait is half the stream's idle time */
#define IDLE_SHARE_MIN 0.10  /* ... and the stream idle a tenth of the span at least; else "GPU busy" */

enum { HOST_WAIT, KERNEL_WAIT, OTHER_WAIT, NWAIT };

struct stream_idle {
	int64_t stream, busy, compute; /* summed event time, and that of computation kernels */
	int64_t wait[NWAIT];
};

static int cmp_stream_start(const void *pa, const void *pb)
{
	const struct hta_ev *a = pa, *b = pb;
	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->act < b->act ? -1 : a->act > b->act;
}

/* The idle breakdown of every stream of r (streams sorted by id, *nstreams set; caller frees). */
static struct stream_idle *idle_of(const struct rank_data *d, const struct hta_rank *r, const struct launch_index *idx,
				   size_t *nstreams)
{
	struct hta_ev *ev = xmalloc((r->n ? r->n : 1) * sizeof(*ev));
	memcpy(ev, r->ev, r->n * sizeof(*ev));
	qsort(ev, r->n, sizeof(*ev), cmp_stream_start);
	struct stream_idle *s = xcalloc(r->n ? r->n : 1, sizeof(*s));
	size_t ns = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct hta_ev *e = &ev[i];
		int first = !ns || s[ns - 1].stream != e->stream;
		if (first)
			s[ns++].stream = e->stream;
		struct stream_idle *si = &s[ns - 1];
		si->busy += e->end - e->start;
		if (e->type == HTA_COMPUTE)
			si->compute += e->end - e->start;
		if (first)
			continue; /* the first event of a stream has no gap before it */
		int64_t prev_end = ev[i - 1].end, gap = e->start - prev_end;
		const struct rk_range *l = e->corr >= 0 ? rank_launch_of(d, idx, e->corr) : NULL;
		int w = l && hta_start(r, l->start) > prev_end ? HOST_WAIT : gap < KERNEL_WAIT_NS ? KERNEL_WAIT : OTHER_WAIT;
		si->wait[w] += gap;
	}
	free(ev);
	*nstreams = ns;
	return s;
}

struct launch_sum {
	int64_t n, over_cpu, over_delay, short_kernels;
	int64_t sum[3], median[3], max[3]; /* cpu_duration, gpu_duration, launch_delay */
};

/*
 * Moves the k-th smallest of v[0 .. n) to v[k], the smaller ones before it
 * and the others after (Hoare's selection, the middle of three as pivot):
 * linear on average, where sorting the whole rank's launches for their
 * median was 0.3 s of a 628,000-event trace's build.
 */
static void select_kth(int64_t *v, size_t n, size_t kk)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, k = (ptrdiff_t)kk;
	while (lo < hi) {
		int64_t a = v[lo], b = v[lo + (hi - lo) / 2], c = v[hi];
		int64_t p = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
		ptrdiff_t i = lo, j = hi;
		do {
			while (v[i] < p)
				i++;
			while (p < v[j])
				j--;
			if (i <= j) {
				int64_t t = v[i];
				v[i++] = v[j];
				v[j--] = t;
			}
		} while (i <= j);
		/* v[lo .. j] <= p <= v[i .. hi]; between them (if any) all equal p */
		if (j < k)
			lo = i;
		if (k < i)
			hi = j;
	}
}

/* pandas' median: the middle value, or the mean of the two middle ones (rounded to the ns). */
static int64_t median(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	select_kth(v, n, n / 2);
	if (n % 2)
		return v[n / 2];
	int64_t below = v[0]; /* the largest of v[0 .. n/2), all <= v[n/2] */
	for (size_t i = 1; i < n / 2; i++)
		if (v[i] > below)
			below = v[i];
	return (below + v[n / 2]) / 2;
}

/* launch_ids: the sorted correlations of the rank's launch calls HTA counts. */
static void launches_of(const struct rank_data *d, const struct hta_rank *r, const struct launch_index *idx,
			const int64_t *launch_ids, size_t nlaunch_ids, struct launch_sum *out)
{
	memset(out, 0, sizeof(*out));
	int64_t *v[3];
	for (int c = 0; c < 3; c++)
		v[c] = xmalloc((r->n ? r->n : 1) * sizeof(int64_t));
	for (size_t i = 0; i < r->n; i++) {
		const struct hta_ev *e = &r->ev[i];
		if (e->corr < 0 || !bsearch(&e->corr, launch_ids, nlaunch_ids, sizeof(*launch_ids), stats_cmp_i64))
			continue;
		const struct rk_range *l = rank_launch_of(d, idx, e->corr);
		if (!l)
			continue;
		int64_t cs = hta_start(r, l->start), ce = hta_end(r, l->start, l->end);
		int64_t x[3] = {ce - cs, e->end - e->start, e->start - ce};
		if (x[2] < 0)
			x[2] = 0;
		for (int c = 0; c < 3; c++) {
			v[c][out->n] = x[c];
			out->sum[c] += x[c];
			if (!out->n || x[c] > out->max[c])
				out->max[c] = x[c];
		}
		out->over_cpu += x[0] > RUNTIME_CUTOFF_NS;
		out->over_delay += x[2] > LAUNCH_DELAY_CUTOFF_NS;
		out->short_kernels += x[0] <= RUNTIME_CUTOFF_NS && x[1] < x[0];
		out->n++;
	}
	for (int c = 0; c < 3; c++) {
		out->median[c] = median(v[c], (size_t)out->n);
		free(v[c]);
	}
}

/*
 * The correlations of the calls HTA counts as launches, sorted, of the rank
 * bound as (run id, rank): prepared once for every rank (preparing it for
 * each took most of this analysis's time with 10,000 one-kernel ranks).
 */
#define LAUNCH_IDS_SQL                                                                                      \
	"SELECT DISTINCT x.correlation FROM traces rt JOIN launches x ON x.trace_id = rt.id"                \
	" JOIN names n ON n.id = x.name_id WHERE rt.run_id = ?1 AND rt.rank = ?2"                            \
	" AND x.correlation IS NOT NULL AND n.name IN ('cudaLaunchKernel', 'cudaLaunchKernelExC',"            \
	" 'cudaMemcpyAsync', 'cudaMemsetAsync', 'runFunction - job_prep_and_submit_for_execution',"          \
	" 'hipLaunchKernel', 'hipExtLaunchKernel', 'hipModuleLaunchKernel', 'hipExtModuleLaunchKernel',"      \
	" 'hipMemcpyAsync', 'hipMemsetAsync')"                                                               \
	" ORDER BY 1"

/* One rank's launch correlations from st (LAUNCH_IDS_SQL; left reset); caller frees; NULL after diag. */
static int64_t *launch_ids_of(struct store_stmt *st, const struct rank_key *k, size_t *n)
{
	*n = 0;
	rank_bind(st, k);
	size_t cap = 0;
	int64_t *ids = NULL;
	int rc;
	while ((rc = store_next(st)) > 0) {
		ids = xgrow(ids, &cap, *n + 1, sizeof(*ids));
		ids[(*n)++] = store_column_int64(st, 0);
	}
	store_reset(st);
	if (rc < 0) {
		free(ids);
		return NULL;
	}
	return ids ? ids : xmalloc(sizeof(*ids));
}

static void set_launch(struct table *t, size_t row, size_t col, const struct launch_sum *l)
{
	table_set_int(t, row, col++, l->n);
	for (int c = 0; c < 3; c++) {
		table_set_ns(t, row, col++, l->sum[c]);
		table_set_ns(t, row, col++, l->median[c]);
		table_set_ns(t, row, col++, l->max[c]);
	}
	table_set_int(t, row, col++, l->over_cpu);
	table_set_int(t, row, col++, l->over_delay);
	table_set_int(t, row, col, l->short_kernels);
}

/* What rank_rows reads besides the rank (the store, the prepared launch list) and the tables it fills. */
struct tables {
	const struct analysis_ctx *ctx;
	struct store_stmt *launch_ids;
	struct table *idle, *launch;
};

/*
 * One rank's rows, an hta_for_each_rank visitor (arg: the tables); none
 * for a rank without GPU events. Of the exact breakdown, the compute stream (the most
 * computation kernel time) carries the statement: "GPU busy" when it is idle
 * less than a tenth of the rank's span (temporal.csv, exact), else
 * "host-bound" when host wait is at least half of its idle time, else "not
 * host-bound".
 */
static int rank_rows(const struct rank_key *key, const struct rank_data *d, const struct hta_rank *hr,
		     const struct hta_rank *he, int filter, void *arg)
{
	struct tables *t = arg;
	(void)filter;
	if (!he->n)
		return 0;
	size_t nids;
	int64_t *ids = launch_ids_of(t->launch_ids, key, &nids);
	if (!ids)
		return -1;
	struct launch_index *idx = rank_launch_index(d);
	size_t nh, ne;
	struct stream_idle *sh = idle_of(d, hr, idx, &nh), *se = idle_of(d, he, idx, &ne);
	/* The rounded and the exact events are the same events (hta.c), so the same streams. */
	for (size_t i = 0; i < ne && i < nh; i++) {
		size_t row = table_add_row(t->idle);
		table_set_text(t->idle, row, 0, key->run);
		table_set_int(t->idle, row, 1, key->rank);
		table_set_int(t->idle, row, 2, se[i].stream);
		for (int w = 0; w < NWAIT; w++) {
			table_set_ns(t->idle, row, 3 + w, sh[i].wait[w]);
			table_set_ns(t->idle, row, 6 + w, se[i].wait[w]);
		}
	}
	struct launch_sum lh, le;
	launches_of(d, hr, idx, ids, nids, &lh);
	launches_of(d, he, idx, ids, nids, &le);
	size_t row = table_add_row(t->launch);
	table_set_text(t->launch, row, 0, key->run);
	table_set_int(t->launch, row, 1, key->rank);
	set_launch(t->launch, row, 2, &lh);
	set_launch(t->launch, row, 15, &le);
	/* The compute stream: the most computation kernel time (the most event time when none computes). */
	const struct stream_idle *main = NULL;
	for (size_t i = 0; i < ne; i++)
		if (!main || se[i].compute > main->compute || (se[i].compute == main->compute && se[i].busy > main->busy))
			main = &se[i];
	struct hta_temporal x;
	hta_temporal_of(he, &x);
	int64_t idle = main ? main->wait[HOST_WAIT] + main->wait[KERNEL_WAIT] + main->wait[OTHER_WAIT] : 0;
	if (main && idle > 0 && x.span > 0) {
		double share = (double)main->wait[HOST_WAIT] / (double)idle, idle_share = (double)idle / (double)x.span;
		table_set_int(t->launch, row, 28, main->stream);
		table_set_real(t->launch, row, 29, idle_share);
		table_set_real(t->launch, row, 30, share);
		char text[200];
		snprintf(text, sizeof(text), "%s: stream %" PRId64 " idle %.0f %% of the span; %.0f %% of that host wait",
			 idle_share < IDLE_SHARE_MIN	 ? "GPU busy"
			 : share >= HOST_BOUND_SHARE ? "host-bound"
						     : "not host-bound",
			 main->stream, 100 * idle_share, 100 * share);
		table_set_text(t->launch, row, 31, text);
	}
	free(sh);
	free(se);
	rank_launch_index_release(d, idx);
	free(ids);
	return 0;
}

static int analysis_hta_idle(const struct analysis_ctx *ctx, struct analysis_result *out)
{
	struct tables t = {
		ctx,
		NULL,
		table_new("idle_time", "GPU idle time per stream by cause, as Holistic Trace Analysis computes it",
			  TABLE_SCHEMA(IDLE_TIME_COLUMNS)),
		table_new("launch_stats", "Kernel launch statistics per rank, as HTA computes them",
			  TABLE_SCHEMA(LAUNCH_STATS_COLUMNS)),
	};
	int ret = -1;
	if (store_prepare(ctx->store, "list launches", LAUNCH_IDS_SQL, &t.launch_ids) < 0)
		goto out;
	if (hta_for_each_rank(ctx->store, ctx->experiment, rank_rows, &t) < 0)
		goto out;
	result_add_table(out, t.idle);
	result_add_table(out, t.launch);
	t.idle = t.launch = NULL;
	result_add_method(
		out, "idle_time.csv",
		"As Holistic Trace Analysis's get_idle_time_breakdown, per rank and CUDA stream, on the GPU events of "
		"temporal.csv: the stream's kernels, memcpys and memsets by start; the gap before each (but the first) "
		"is its start minus the end of the one before it on the stream (negative where they overlap). A gap is "
		"host wait when the event's launching call started after the previous event ended (the host had not "
		"asked for it yet), kernel wait when shorter than 30 us otherwise (HTA's consecutive_kernel_delay), "
		"and other otherwise (waiting on another stream, an event, the host). HTA's numbers (whole "
		"microseconds on a trace with fractional ones, as temporal.csv) and exact_ ones. The streams run "
		"side by side, so their idle times do not add up to the GPU's.");
	result_add_method(
		out, "launch_stats.csv",
		"As HTA's get_cuda_kernel_launch_stats, per rank, on the GPU events of temporal.csv: each kernel, "
		"memcpy or memset whose host call (same correlation id) is cudaLaunchKernel, cudaLaunchKernelExC, "
		"cudaMemcpyAsync or cudaMemsetAsync (not the driver's cuLaunchKernel, as in HTA), or on ROCm "
		"hipLaunchKernel, hipExtLaunchKernel, hipModuleLaunchKernel, hipExtModuleLaunchKernel, hipMemcpyAsync "
		"or hipMemsetAsync (HTA counts none of them); cpu_duration = the "
		"call's duration, gpu_duration = the event's, launch_delay = event start - call end (0 when "
		"negative); their sums, medians and maxima; counts at HTA's cutoffs: cpu_duration over 50 us, "
		"launch_delay over 100 us, short kernels (cpu_duration at most 50 us and gpu_duration under "
		"cpu_duration). compute_stream: the stream with the most computation kernel time; idle_share: its "
		"idle time (exact idle_time.csv, all three causes) over the rank's span (exact temporal.csv); "
		"host_wait_share: its host wait over its idle time; statement: 'GPU busy' when idle_share is under "
		"0.1, else 'host-bound' when host_wait_share is at least 0.5 (the GPU mostly waited for the host to "
		"launch the next kernel), else 'not host-bound'.");
	ret = 0;
out:
	store_finalize(t.launch_ids);
	table_free(t.idle);
	table_free(t.launch);
	return ret;
}

const struct analysis_def analysis_def_hta_idle = {
	.name = "hta_idle",
	.run = analysis_hta_idle,
	.needs = ANALYSIS_NONE,
	.makes = ANALYSIS_TABLES("idle_time", "launch_stats"),
};
