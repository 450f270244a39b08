/*
 * trace_counters.c: the merged trace's counter tracks (trace_export_int.h):
 * per rank and GPU, the caching allocator's allocated and reserved bytes,
 * from the allocator's events the store keeps (memory_events, read back
 * by store_mem_decode, as memory_steps.c reads them).
 *
 * One counter "memory: GPU D" per device of the rank's events, each a "C"
 * event {"allocated_bytes": the event's Total Allocated, "reserved_bytes":
 * its Total Reserved where the trace records it} at the event's time,
 * written where either value changes (the allocator's totals after the
 * event, as memory_steps.c reads them: the value holds until the next),
 * before the run's cut like every other event. Bound: the rank's share of
 * the export's events (max_events / ranks, at least 2) per rank; a rank
 * with more changes keeps, of each run of k consecutive changes (k the
 * fewest that fit), the lowest and the highest allocated bytes in their
 * order of time, so that the peaks stay (a rank of several devices: two
 * more per device at most); the process "perfstudy analysis" is then
 * labelled with how many of how many were written.
 */
#include "report/trace_export_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/diag.h"
#include "util/xalloc.h"

struct mev {
	struct store_mem_event e;
	size_t seq; /* its place among the rank's rows: ties of time keep it */
};

/* By device, then time, then place. */
static int cmp_mev(const void *pa, const void *pb)
{
	const struct mev *a = pa, *b = pb;
	if (a->e.device != b->e.device)
		return a->e.device < b->e.device ? -1 : 1;
	if (a->e.ts_ns != b->e.ts_ns)
		return a->e.ts_ns < b->e.ts_ns ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Reads rank ri's allocator events into *out (caller frees): their count, or -1 after diag. */
static long long read_events(struct tx_run *x, size_t ri, struct mev **out)
{
	struct store_stmt *st;
	*out = NULL;
	if (store_prepare(x->s, "export a rank's memory counters",
			  "SELECT m.events, m.data FROM traces t CROSS JOIN memory_events m ON m.trace_id = t.id"
			  " WHERE t.run_id = ?1 AND t.rank = ?2 ORDER BY t.id, m.chunk", &st) < 0)
		return -1;
	store_bind_int64(st, 1, x->run_db_id);
	store_bind_int(st, 2, x->ranks[ri].rank);
	struct store_mem_event *tmp = NULL;
	size_t n = 0, cap = 0, tcap = 0;
	int rc;
	long long ret = -1;
	while ((rc = store_next(st)) > 0) {
		int64_t m = store_column_int64(st, 0);
		const void *data = store_column_blob(st, 1);
		size_t len = (size_t)store_column_bytes(st, 1);
		if (m < 0 || m > (1 << 20)) {
			diag_error(NULL, "trace export: run %s rank %d: memory_events rows not as perfstudy stores them", x->run,
				   x->ranks[ri].rank);
			goto out;
		}
		tmp = xgrow(tmp, &tcap, (size_t)m + 1, sizeof(*tmp));
		if (store_mem_decode(data ? data : "", len, (size_t)m, tmp) < 0) {
			diag_error(NULL, "trace export: run %s rank %d: memory_events rows not as perfstudy stores them", x->run,
				   x->ranks[ri].rank);
			goto out;
		}
		*out = xgrow(*out, &cap, n + (size_t)m + 1, sizeof(**out));
		for (int64_t i = 0; i < m; i++, n++)
			(*out)[n] = (struct mev){tmp[i], n};
	}
	if (rc < 0)
		goto out;
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_mev);
	ret = (long long)n;
out:
	x->vm_steps += store_vm_steps(st);
	store_finalize(st);
	free(tmp);
	if (ret < 0) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

static void write_counter(struct tx_run *x, size_t ri, const struct store_mem_event *e)
{
	const struct tx_rank *r = &x->ranks[ri];
	char name[48];
	snprintf(name, sizeof(name), "memory: GPU %d", e->device);
	tx_ev_head(&x->o, "C", "memory", ri + 1, 0, e->ts_ns - r->off - x->base);
	buf_adds(&x->o.b, ",\"name\":");
	tx_put_cstr(&x->o.b, name);
	buf_adds(&x->o.b, ",\"args\":{\"allocated_bytes\":");
	tx_put_i64(&x->o.b, e->total_allocated);
	if (e->total_reserved >= 0) {
		buf_adds(&x->o.b, ",\"reserved_bytes\":");
		tx_put_i64(&x->o.b, e->total_reserved);
	}
	buf_adds(&x->o.b, "}}");
}

/* Writes rank ri's memory counters (the file's comment); 0, or -1 after diag. */
int tx_write_counters(struct tx_run *x, size_t ri, int64_t max_events)
{
	struct tx_rank *r = &x->ranks[ri];
	struct mev *v;
	long long got = read_events(x, ri, &v);
	if (got < 0)
		return -1;
	size_t n = (size_t)got, nc = 0;
	/* the changes: events before the cut whose totals differ from their device's last */
	for (size_t i = 0; i < n; i++) {
		const struct store_mem_event *e = &v[i].e, *p = nc ? &v[nc - 1].e : NULL;
		if (e->ts_ns - r->off >= x->cut)
			continue;
		if (p && p->device == e->device && p->total_allocated == e->total_allocated &&
		    p->total_reserved == e->total_reserved)
			continue;
		v[nc++] = v[i];
	}
	int64_t share = max_events / (int64_t)x->nranks;
	size_t cap = share > 2 ? (size_t)share : 2;
	r->counters_all += (int64_t)nc;
	if (nc <= cap) {
		for (size_t i = 0; i < nc; i++)
			write_counter(x, ri, &v[i].e);
		r->counters += (int64_t)nc;
		free(v);
		return 0;
	}
	/* runs of k changes (of one device), each its lowest and highest allocated in order of time */
	size_t k = (nc + cap / 2 - 1) / (cap / 2);
	for (size_t a = 0; a < nc;) {
		size_t b = a, lo = a, hi = a;
		while (b < nc && b - a < k && v[b].e.device == v[a].e.device) {
			if (v[b].e.total_allocated < v[lo].e.total_allocated)
				lo = b;
			if (v[b].e.total_allocated > v[hi].e.total_allocated)
				hi = b;
			b++;
		}
		write_counter(x, ri, &v[lo < hi ? lo : hi].e);
		r->counters++;
		if (lo != hi) {
			write_counter(x, ri, &v[lo < hi ? hi : lo].e);
			r->counters++;
		}
		a = b;
	}
	free(v);
	return 0;
}
