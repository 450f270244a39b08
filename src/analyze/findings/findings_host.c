/*
 * findings_host.c: the rules of findings.csv on a GPU that waits for its
 * host (findings.c applies them after the straggler's rules, on the rank
 * views it gathers):
 *   host-bound  a rank whose GPU is idle at least IDLE_MIN of the step, at
 *               least HOST_MIN of that idle time waiting for the host, and
 *               whose critical path is at least HOST_MIN host operators and
 *               launches; more than HOST_BOUND_EACH such ranks in a run:
 *               one statement for the run, with ranges.
 *   gpu-idle    a one-rank run not host-bound whose GPU is idle at least
 *               IDLE_MIN of its span (temporal.csv).
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/findings/findings_int.h"
#include "analyze/findings/findings_replay.h"
#include "analyze/findings/findings_rules.h"
#include "util/buf.h"

/*
 * host-bound: the rank's GPU is idle at least IDLE_MIN of the step and at
 * least HOST_MIN of its critical path is host work: the GPU waits for the
 * host. An idle GPU alone (waiting for another rank, for data) or a host
 * path alone (a host running ahead of a busy GPU) is not enough.
 */
int findings_is_host_bound(const struct rank_view *v)
{
	return !(isnan(v->idle) || isnan(v->host) || v->idle < IDLE_MIN || v->host < HOST_MIN ||
		 (!isnan(v->host_wait) && v->host_wait < HOST_MIN));
}

/*
 * "N % of the step's critical path is host operators and kernel launches",
 * split where part of it is host time outside every operator and runtime
 * call (critical_path.csv host_outside_ops_us: nothing recorded on the
 * thread), which is no operator (issue #57: a time.sleep between steps read
 * as "100 % host operators").
 */
static void host_words(struct buf *b, double host, double outside, double gap, double step)
{
	static const char what[] = "no operator or runtime call recorded on its thread: a sleep, Python, I/O, a "
				   "lock, the data loader or a wait for another thread";
	double ops = isnan(outside) ? host : host - outside;
	if (isnan(outside) || 100 * outside < 1) /* under 1 %: not said */
		buf_printf(b, "%.0f %% of the step's critical path is host operators and kernel launches", 100 * host);
	else if (100 * ops < 1)
		buf_printf(b, "%.0f %% of the step's critical path is host time outside every operator (%s)",
			   100 * host, what);
	else
		buf_printf(b, "%.0f %% of the step's critical path is host time: %.0f %% in host operators and kernel "
			      "launches, %.0f %% outside every operator (%s)",
			   100 * host, 100 * ops, 100 * outside, what);
	/*
	 * the replay's host_gap fix takes out only the stretches of 1 ms or
	 * more that no operator on any thread covers: how much of this that is
	 */
	if (isnan(outside) || 100 * outside < 1 || isnan(gap))
		return;
	buf_adds(b, "; of that, ");
	if (gap > 0) {
		findings_time_words(b, gap);
		buf_adds(b, " per step");
		if (step > 0)
			buf_printf(b, " (%.*f %% of the step)", 100 * gap / step < 9.95 ? 1 : 0, 100 * gap / step);
		buf_adds(b, " lies in");
	} else {
		buf_adds(b, "nothing lies in");
	}
	buf_adds(b, " stretches of 1 ms or more that no operator on any thread covers, the only host time the "
		    "replay's fix for it takes out (replay_fixes.csv gap_us_per_step); the rest is shorter stretches "
		    "between operators or a wait for another thread's operators");
}

/* The host-bound rule's text, then more (printf format) after it. */
#define HOST_BOUND_RULE                                                                                    \
	"host-bound: gpu_idle.csv idle_share at least %.2f (ranks.csv idle_us / step_us without it), "      \
	"critical_path.csv host_us / step_us at least %.2f and gpu_idle.csv host_wait_share at least %.2f, " \
	"each pooled over the rank's whole steps (idle_time_steps.csv whole = 1); host time outside every "  \
	"operator (critical_path.csv host_outside_ops_us) said apart"

int findings_rule_host_bound(struct findings *f, const char *run, const struct rank_view *v, int straggler)
{
	if (!findings_is_host_bound(v))
		return 0;
	buf_printf(&f->s, "%s rank %d is host-bound: its GPU is idle %.0f %% of the step, and ", run, v->rank,
		   100 * v->idle);
	host_words(&f->s, v->host, v->host_outside, v->gap_us, v->step_us);
	if (!isnan(v->host_wait))
		buf_printf(&f->s, "; %.0f %% of its GPU's idle time (no kernel, copy or memset on any stream) is "
				  "spent waiting for the host to launch work",
			   100 * v->host_wait);
	if (straggler)
		buf_adds(&f->s, ", so the other ranks wait for its host");
	findings_add(f, run, v->rank, v->idle, "table-gpu_idle", findings_rulef(f, HOST_BOUND_RULE, IDLE_MIN, HOST_MIN, HOST_MIN));
	return 1;
}

/* "44 %" or "44-45 %": a range of shares as the page rounds them. */
static void pct_range(struct buf *b, double lo, double hi)
{
	if (round(100 * lo) == round(100 * hi))
		buf_printf(b, "%.0f %%", 100 * lo);
	else
		buf_printf(b, "%.0f-%.0f %%", 100 * lo, 100 * hi);
}

/* The smallest and largest of the k-th share (0 idle, 1 host, 2 host_wait, 3 host_outside) of the host-bound ranks. */
static void share_range(const struct rank_view *v, size_t n, int k, double *lo, double *hi)
{
	*lo = INFINITY;
	*hi = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		double x = k == 0 ? v[i].idle : k == 1 ? v[i].host : k == 2 ? v[i].host_wait : v[i].host_outside;
		if (!findings_is_host_bound(&v[i]) || isnan(x))
			continue;
		*lo = x < *lo ? x : *lo;
		*hi = x > *hi ? x : *hi;
	}
}

/*
 * host-bound over many ranks: where more than HOST_BOUND_EACH ranks of a
 * run are host-bound, one statement for the run, with how many and the
 * range of each share, instead of one line per rank (a run of 1000 ranks
 * filled the page's top with 1000 near-copies); rank: the rank idle longest
 * (the lowest of ties), value: its idle share.
 */
void findings_rule_host_bound_many(struct findings *f, const char *run, const struct rank_view *v, size_t n,
				   size_t nbound)
{
	size_t most = n;
	for (size_t i = 0; i < n; i++)
		if (findings_is_host_bound(&v[i]) && (most == n || v[i].idle > v[most].idle ||
					     (v[i].idle == v[most].idle && v[i].rank < v[most].rank)))
			most = i;
	double lo, hi;
	share_range(v, n, 0, &lo, &hi);
	buf_printf(&f->s, "%s: %zu of its %zu ranks are host-bound: their GPUs are idle ", run, nbound, n);
	pct_range(&f->s, lo, hi);
	buf_adds(&f->s, " of the step, and ");
	share_range(v, n, 1, &lo, &hi);
	pct_range(&f->s, lo, hi);
	buf_adds(&f->s, " of the step's critical path is host operators and kernel launches");
	share_range(v, n, 3, &lo, &hi);
	if (lo <= hi && 100 * hi >= 1) {
		buf_adds(&f->s, " or host time outside every operator (no operator or runtime call recorded on the "
				"thread: a sleep, Python, I/O, a lock, the data loader or a wait for another thread), the "
				"latter ");
		pct_range(&f->s, lo, hi);
		buf_adds(&f->s, " of the step");
	}
	share_range(v, n, 2, &lo, &hi);
	if (lo <= hi) {
		buf_adds(&f->s, "; ");
		pct_range(&f->s, lo, hi);
		buf_adds(&f->s, " of their GPUs' idle time (no kernel, copy or memset on any stream) is spent waiting "
				"for the host to launch work");
	}
	buf_printf(&f->s, "; rank %d idles most (ranks.csv, gpu_idle.csv name each)", v[most].rank);
	findings_add(f, run, v[most].rank, v[most].idle, "table-gpu_idle",
	    findings_rulef(f, HOST_BOUND_RULE "; more than %d ranks of a run: one statement with the range of each share",
		  IDLE_MIN, HOST_MIN, HOST_MIN, HOST_BOUND_EACH));
}

void findings_rule_gpu_idle(struct findings *f, const struct analysis_result *res, const char *run)
{
	const struct table *tp = result_table(res, "temporal");
	struct rank_mean *m;
	size_t n = tp ? findings_rank_means(tp, &temporal_keys, run, TEMPORAL_IDLE_US, TEMPORAL_SPAN_US, NULL, &m) : 0;
	for (size_t i = 0; i < n; i++) {
		double share = m[i].a / m[i].b;
		if (share < IDLE_MIN)
			continue;
		buf_printf(&f->s, "%s rank %d: the GPU is idle %.0f %% of the profiled span", run, m[i].rank,
			   100 * share);
		findings_add(f, run, m[i].rank, share, "table-temporal",
		    findings_rulef(f, "gpu-idle: temporal.csv idle_us / span_us at least %.2f", IDLE_MIN));
	}
	if (n)
		free(m);
}
