/*
 * trace_export.c: the merged trace of each run (trace_export.h),
 * <site>/<experiment>/traces/<run>.trace.json.gz.
 *
 * The file is Chrome trace-event JSON ({"traceEvents": [...]}, complete
 * events "X", instants "i", counters "C", metadata "M"), gzipped by ISA-L's igzip, which Perfetto
 * and chrome://tracing open. Each rank is a process (pid = its position
 * among the run's ranks + 1, named "rank N"); one more process, "perfstudy
 * analysis", holds the run's own tracks. Its threads (lanes):
 *   host thread T       the rank's annotations (user_annotation, with the
 *                       ProfilerStep#N ranges), host operators (cpu_op: the
 *                       store keeps each thread's outermost ones and the
 *                       DataLoader ranges) and runtime and driver calls
 *                       (cuda_runtime, cuda_driver) of host thread T
 *   GPU D stream S      its kernels, memcpys and memsets (kernel, gpu_memcpy,
 *                       gpu_memset; args: device, stream, correlation, bytes,
 *                       copy kind as stored)
 *   GPU annotations S   the GPU ranges of stream S (gpu_user_annotation)
 *   waits inside collectives   each matched collective's wait for the last
 *                       rank (collective_waits.csv: [arrival, last arrival),
 *                       the row in args)
 *   exposed waits       the parts of those waits in which no other kernel,
 *                       copy or memset of the rank ran (exposed_wait_us's
 *                       pieces: the rows of exposed_waits, an internal
 *                       table of crossrank_waits.c)
 *   straggler windows   each collective this rank arrived last in while
 *                       another rank waited: [first arrival, its arrival]
 *                       (the rows of straggler_windows, an internal table
 *                       of crossrank_waits.c; stragglers.csv's row in args)
 *   critical path       each step's ProfilerStep range, named by its bound,
 *                       critical_path.csv's row in args
 *   findings            one instant per finding of this rank (findings.csv's
 *                       row in args), at the start of its first step
 *   memory: GPU D       a counter of the allocator's allocated and reserved
 *                       bytes (trace_counters.c)
 * and in "perfstudy analysis": the critical path across ranks of each step
 * (critical_path_across.csv: [end of the step on end_rank - path_us, that
 * end]) and the run's findings that name no rank. Slices of an added
 * track that would overlap in part go on further lanes of the track
 * (tx_spill_place), "perfstudy: <track> (2)" and on.
 *
 * Time: "ts" and "dur" are microseconds with three decimals (exact ns);
 * ts = (time on the rank's own clock - the rank's clock offset - time_base_ns)
 * / 1000, the offset clock_offsets.csv's where it exceeds its residual, else
 * 0 (tx_clock_applied, trace_tracks.c: one within its residual cannot be
 * told from one clock), time_base_ns (in otherData) the run's earliest
 * event so moved, so that a double holds every ts to the nanosecond. The
 * tables' times on the reference clock (waits, straggler windows) are
 * drawn beside the rank's events: + its table offset - the one applied.
 *
 * Bound: at most TX_MAX_EVENTS of the run's stored events (each rank
 * TX_MAX_EVENTS / ranks, at least 1): where a rank has more, only events starting
 * before the earliest such rank's cut (on the reference clock) are kept,
 * the same window for every rank, and otherData.cut_at_us says where
 * (the rows past it are filtered in the query, cut_sql, not handed over);
 * names longer than TX_NAME_MAX bytes are cut (ending in "…"); past
 * TX_MAX_JSON bytes of JSON the run's remaining input events are left out
 * (the labels of the process "perfstudy analysis" say how many). The
 * added tracks and markers are always written. Strings are JSON-escaped:
 * quotes, backslashes, control bytes, DEL, U+2028 and U+2029 as \uXXXX,
 * bytes that are not UTF-8 as U+FFFD, a NUL as \u0000.
 */
#include "report/trace_export.h"
#include "report/trace_export_int.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/search.h"
#include "util/timing.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/intmap.h"
#include "util/xalloc.h"

#ifndef PERFSTUDY_VERSION
#define PERFSTUDY_VERSION "unknown"
#endif

/*
 * The bounds. A million events is about 200 MB of JSON (15 MB gzipped),
 * what Perfetto's UI opens in a browser tab; the bundled example's largest
 * run has 350,000. PERFSTUDY_TRACE_MAX_EVENTS lowers it (tests).
 * The size rule, TX_EXPORT_MAX (PERFSTUDY_TRACE_EXPORT_MAX): trace_method.c.
 */
#define TX_MAX_EVENTS 1000000
#define TX_EXPORT_MAX 500000
#define TX_MAX_JSON (1024LL * 1024 * 1024)
static const char *const added_lanes[] = {NULL, "waits inside collectives", "exposed waits", "straggler windows",
					  "critical path", "findings"};

static const char *const tab_names[NTAB] = {"clock_offsets", "collective_waits", "stragglers", "straggler_ranks",
					    "critical_path", "critical_path_across", "findings", "exposed_waits",
					    "straggler_windows"};
/* Their run columns (ranks_tables.h, findings_tables.h). */
static const int tab_runs[NTAB] = {CO_RUN, CW_RUN, STG_RUN, SR_RUN, CPATH_RUN, CPA_RUN, FND_RUN, EW_RUN, SW_RUN};

const char *const *trace_export_read_tables(size_t *n)
{
	*n = NTAB;
	return tab_names;
}

/* lower_bound's predicate: the tx_rank's number is below the key's (int). */
static int rank_before(const void *elem, const void *key)
{
	return ((const struct tx_rank *)elem)->rank < *(const int *)key;
}

/* The index of rank number rank among x's ranks (sorted), or SIZE_MAX. */
size_t tx_rank_index(const struct tx_run *x, int rank)
{
	size_t lo = lower_bound(x->ranks, x->nranks, sizeof(*x->ranks), &rank, rank_before);
	return lo < x->nranks && x->ranks[lo].rank == rank ? lo : SIZE_MAX;
}

/* The lane (thread id) of an input event of the current rank. */
static int lane_of(struct tx_run *x, int kind, int64_t a, int64_t b)
{
	uint64_t h = ((uint64_t)a * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)b * 0xc2b2ae3d27d4eb4fULL) ^ (uint64_t)kind;
	int64_t key = (int64_t)(h & 0x7fffffffffffffffULL);
	size_t i = intmap_get(&x->lane_map, key);
	if (i != SIZE_MAX && x->lanes[i].kind == kind && x->lanes[i].a == a && x->lanes[i].b == b)
		return LANE_INPUT + (int)i;
	if (i != SIZE_MAX) /* two lanes of one hash: the rare case, looked for in the list */
		for (i = 0; i < x->nlanes; i++)
			if (x->lanes[i].kind == kind && x->lanes[i].a == a && x->lanes[i].b == b)
				return LANE_INPUT + (int)i;
	x->lanes = xgrow(x->lanes, &x->cap_lanes, x->nlanes + 1, sizeof(*x->lanes));
	x->lanes[x->nlanes] = (struct lane){kind, a, b};
	intmap_index(&x->lane_map, key, x->nlanes);
	return LANE_INPUT + (int)x->nlanes++;
}

/* Starts a complete or instant event: {"ph":..,"cat":..,"pid":..,"tid":..,"ts":.. */

/* ---- the run's stored events, one statement per table, rows in rank order ---- */

enum { SRC_ANNOT, SRC_CPU, SRC_LAUNCH, SRC_ACT, NSRC };

/*
 * Each rank's rows in the order they were stored (rt.id, x.rowid), the
 * order of the index on trace_id (<table>_by_trace; store/schema.c): no
 * sort. The order is spelled out because the index on (trace_id,
 * start_ns) would hand them over by start.
 */
#define RUN_ROWS(x) " FROM traces rt JOIN " x " x ON x.trace_id = rt.id JOIN names n ON n.id = x.name_id" \
		    " WHERE rt.run_id = ?1 AND rt.rank IS NOT NULL ORDER BY rt.rank, rt.id, x.rowid"

static const char *const src_sql[NSRC] = {
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.tid, x.on_gpu, NULL, NULL, NULL" RUN_ROWS("annotations"),
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.tid, x.external_id, NULL, NULL, NULL" RUN_ROWS("cpu_ops"),
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.tid, x.correlation, x.driver, NULL, NULL" RUN_ROWS("launches"),
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.device, x.stream, x.correlation, x.bytes, x.kind || ' ' ||"
	" coalesce(x.copy_kind, '')" RUN_ROWS("activities"),
};

/*
 * The same rows for one rank when the run is cut (?2 its rank): only those
 * the export needs, so that the rows past the cut stay in SQLite (the
 * cost follows what is written): those starting before ?3 (the cut on the
 * rank's own clock; <table>_by_start, on (trace_id, start_ns), finds them
 * without visiting the others), and the host ProfilerStep#N ranges (a finding's
 * marker stands at the first step), which the annotations after the cut
 * are searched for. Sorted as stored (RUN_ROWS): the rows written only
 * ("+x.rowid": an order the index on trace_id gives would make SQLite
 * take it and walk the rank's rows).
 */
#define RANK_FROM(x) " FROM traces rt JOIN " x " x ON x.trace_id = rt.id JOIN names n ON n.id = x.name_id" \
		     " WHERE rt.run_id = ?1 AND rt.rank = ?2 AND "
#define RANK_ORDER " ORDER BY rt.id, +x.rowid"
#define ANNOT_COLS "SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.tid, x.on_gpu, NULL, NULL, NULL, rt.id, +x.rowid"

static const char *const cut_sql[NSRC] = {
	ANNOT_COLS RANK_FROM("annotations") "x.start_ns < ?3 UNION ALL " ANNOT_COLS RANK_FROM("annotations")
	"x.start_ns >= ?3 AND coalesce(x.on_gpu, 0) = 0 AND +n.name GLOB 'ProfilerStep#[0-9]*' ORDER BY 10, 11",
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.tid, x.external_id, NULL, NULL, NULL" RANK_FROM("cpu_ops")
	"x.start_ns < ?3" RANK_ORDER,
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.tid, x.correlation, x.driver, NULL, NULL" RANK_FROM("launches")
	"x.start_ns < ?3" RANK_ORDER,
	"SELECT rt.rank, x.start_ns, x.dur_ns, n.name, x.device, x.stream, x.correlation, x.bytes, x.kind || ' ' ||"
	" coalesce(x.copy_kind, '')" RANK_FROM("activities") "x.start_ns < ?3" RANK_ORDER,
};

static int64_t col_or(struct store_stmt *st, int i, int64_t dflt)
{
	return store_column_type(st, i) == STORE_NULL ? dflt : store_column_int64(st, i);
}

/* A ProfilerStep#N host range: N, or -1 (the store's steps view: N is the digits after '#'). */
static int64_t step_of(const char *name, size_t n)
{
	if (n <= 13 || memcmp(name, "ProfilerStep#", 13) || name[13] < '0' || name[13] > '9')
		return -1;
	return strtoll(name + 13, NULL, 10);
}

/* Writes the current row of source src of rank r (index ri). */
static void write_row(struct tx_run *x, size_t ri, int src, struct store_stmt *st)
{
	struct tx_rank *r = &x->ranks[ri];
	struct tx_out *o = &x->o;
	int64_t start = store_column_int64(st, 1), dur = store_column_int64(st, 2);
	const char *name = (const char *)store_column_text(st, 3);
	size_t nlen = (size_t)store_column_bytes(st, 3);
	if (!name)
		name = "", nlen = 0;
	if (src == SRC_ANNOT && !col_or(st, 5, 0)) {
		int64_t step = step_of(name, nlen);
		if (step >= 0) {
			r->steps = xgrow(r->steps, &r->cap_steps, r->nsteps + 1, sizeof(*r->steps));
			r->steps[r->nsteps++] = (struct step_range){step, start, start + dur};
		}
	}
	if (start - r->off >= x->cut)
		return;
	if (o->json_bytes + (int64_t)o->b.len > x->max_json) {
		x->dropped_bytes++;
		return;
	}
	const char *cat;
	int lane;
	switch (src) {
	case SRC_ANNOT: {
		int gpu = col_or(st, 5, 0) != 0;
		cat = gpu ? "gpu_user_annotation" : "user_annotation";
		lane = lane_of(x, gpu ? 2 : 0, col_or(st, 4, -1), 0);
		break;
	}
	case SRC_CPU:
		cat = "cpu_op";
		lane = lane_of(x, 0, col_or(st, 4, -1), 0);
		break;
	case SRC_LAUNCH:
		cat = col_or(st, 6, 0) ? "cuda_driver" : "cuda_runtime";
		lane = lane_of(x, 0, col_or(st, 4, -1), 0);
		break;
	default: {
		const char *k = (const char *)store_column_text(st, 8);
		cat = k && k[0] == 'k' ? "kernel" : k && !strncmp(k, "memcpy", 6) ? "gpu_memcpy" : "gpu_memset";
		lane = lane_of(x, 1, col_or(st, 4, -1), col_or(st, 5, -1));
		break;
	}
	}
	tx_ev_head(o, "X", cat, ri + 1, lane, start - r->off - x->base);
	tx_ev_dur(o, dur);
	buf_adds(&o->b, ",\"name\":");
	tx_put_str(&o->b, name, nlen, TX_NAME_MAX);
	buf_adds(&o->b, ",\"args\":{");
	int any = 0;
	if (nlen > TX_NAME_MAX) {
		buf_adds(&o->b, "\"name_bytes\":");
		tx_put_i64(&o->b, (int64_t)nlen);
		any++;
	}
	const char *keys[3];
	int cols[3], nk = 0;
	if (src == SRC_CPU) {
		keys[nk] = "External id", cols[nk++] = 5;
	} else if (src == SRC_LAUNCH) {
		keys[nk] = "correlation", cols[nk++] = 5;
	} else if (src == SRC_ACT) {
		keys[nk] = "device", cols[nk++] = 4;
		keys[nk] = "stream", cols[nk++] = 5;
		keys[nk] = "correlation", cols[nk++] = 6;
	}
	for (int k = 0; k < nk; k++) {
		if (store_column_type(st, cols[k]) == STORE_NULL || ((src == SRC_ACT || src == SRC_CPU) && cols[k] >= 5 &&
									 store_column_int64(st, cols[k]) < 0))
			continue;
		buf_adds(&o->b, any++ ? ",\"" : "\"");
		buf_adds(&o->b, keys[k]);
		buf_adds(&o->b, "\":");
		tx_put_i64(&o->b, store_column_int64(st, cols[k]));
	}
	if (src == SRC_ACT && col_or(st, 7, -1) >= 0) {
		buf_adds(&o->b, any++ ? ",\"bytes\":" : "\"bytes\":");
		tx_put_i64(&o->b, store_column_int64(st, 7));
	}
	const char *ck = src == SRC_ACT ? (const char *)store_column_text(st, 8) : NULL;
	ck = ck ? strchr(ck, ' ') : NULL;
	if (ck && ck[1]) {
		buf_adds(&o->b, any++ ? ",\"copy kind\":" : "\"copy kind\":");
		tx_put_cstr(&o->b, ck + 1);
	}
	buf_adds(&o->b, "}}");
	r->kept++;
}

/*
 * The run's clock offsets (clock_offsets.csv), its events per rank and
 * their earliest start (one query per table for the whole run), the time
 * base, and the cut when the run has more than max_events. Returns 0 or -1
 * after diag.
 */
static int run_plan(struct tx_run *x, const struct tx_tab *tabs, int64_t max_events)
{
	const struct tx_tab *to = &tabs[T_OFFS];
	size_t *rows, n = tx_tab_rows(to, x->run, &rows);
	for (size_t i = 0; i < n; i++) {
		const struct table *t = to->t;
		size_t ri = tx_rank_index(x, (int)tx_cell_i(t, rows[i], CO_RANK, -1));
		int coff = CO_OFFSET_US;
		if (ri == SIZE_MAX || coff < 0 || table_cell(t, rows[i], (size_t)coff)->null)
			continue;
		x->ranks[ri].has_off = 1;
		x->ranks[ri].est = tx_cell_i(t, rows[i], coff, 0);
		x->ranks[ri].resid = tx_cell_i(t, rows[i], CO_RESIDUAL_US, 0);
		x->ranks[ri].off = tx_clock_applied(x->ranks[ri].est, x->ranks[ri].resid);
	}
	free(rows);
	static const char *const tabs_sql[NSRC] = {"annotations", "cpu_ops", "launches", "activities"};
	int64_t total = 0;
	for (int k = 0; k < NSRC; k++) {
		/* per trace: a count over the index (its entries, not the rows), the first start from its first entry */
		char *sql = xasprintf("SELECT rt.rank, (SELECT count(*) FROM %s x WHERE x.trace_id = rt.id), (SELECT"
				      " min(x.start_ns) FROM %s x WHERE x.trace_id = rt.id) FROM traces rt"
				      " WHERE rt.run_id = ?1 AND rt.rank IS NOT NULL", tabs_sql[k], tabs_sql[k]);
		struct store_stmt *st;
		int rc = store_prepare(x->s, "count a run's events", sql, &st);
		free(sql);
		if (rc < 0)
			return -1;
		store_bind_int64(st, 1, x->run_db_id);
		while ((rc = store_next(st)) > 0) {
			size_t ri = tx_rank_index(x, store_column_int(st, 0));
			if (ri == SIZE_MAX)
				continue;
			int64_t c = store_column_int64(st, 1), first = store_column_int64(st, 2);
			x->ranks[ri].nstored += c;
			total += c;
			if (c && first < x->ranks[ri].first)
				x->ranks[ri].first = first;
		}
		x->vm_steps += store_vm_steps(st);
		store_finalize(st);
		if (rc < 0)
			return -1;
	}
	x->base = INT64_MAX;
	for (size_t i = 0; i < x->nranks; i++)
		if (x->ranks[i].first != INT64_MAX && x->ranks[i].first - x->ranks[i].off < x->base)
			x->base = x->ranks[i].first - x->ranks[i].off;
	if (x->base == INT64_MAX)
		x->base = 0;
	x->cut = INT64_MAX;
	if (x->export_max > 0 && total > x->export_max) {
		x->skipped = 1; /* not written: the size rule */
		return 0;
	}
	if (total <= max_events)
		return 0;
	/* Each rank's share; a rank over it sets the cut at its share's last event. */
	int64_t q = max_events / (int64_t)x->nranks > 0 ? max_events / (int64_t)x->nranks : 1;
	/*
	 * The start of the share's last event: a rank of one trace (the usual)
	 * merges its four tables' rows in the index's order and stops there;
	 * a rank of several traces sorts its rows.
	 */
	struct store_stmt *st[3] = {0};
#define RANK_START(t) "SELECT x.start_ns AS s FROM traces rt JOIN " t " x ON x.trace_id = rt.id" \
		      " WHERE rt.run_id = ?1 AND rt.rank = ?2"
#define TRACE_START(t) "SELECT start_ns AS s FROM " t " WHERE trace_id = ?1"
	int ret = -1;
	if (store_prepare(x->s, "cut a run's trace",
			  "SELECT s FROM (" RANK_START("annotations") " UNION ALL " RANK_START("cpu_ops") " UNION ALL "
			  RANK_START("launches") " UNION ALL " RANK_START("activities") ") ORDER BY s LIMIT 1 OFFSET ?3", &st[0]) < 0 ||
	    store_prepare(x->s, "cut a run's trace", TRACE_START("annotations") " UNION ALL " TRACE_START("cpu_ops")
			  " UNION ALL " TRACE_START("launches") " UNION ALL " TRACE_START("activities")
			  " ORDER BY s LIMIT 1 OFFSET ?2", &st[1]) < 0 ||
	    store_prepare(x->s, "cut a run's trace", "SELECT id FROM traces WHERE run_id = ?1 AND rank = ?2 LIMIT 2",
			  &st[2]) < 0)
		goto out;
#undef RANK_START
#undef TRACE_START
	for (size_t i = 0; i < x->nranks; i++) {
		if (x->ranks[i].nstored <= q)
			continue;
		int64_t trace = -1;
		int n = 0, rc;
		store_reset(st[2]);
		store_bind_int64(st[2], 1, x->run_db_id);
		store_bind_int(st[2], 2, x->ranks[i].rank);
		while ((rc = store_next(st[2])) > 0)
			trace = store_column_int64(st[2], 0), n++;
		if (rc < 0)
			goto out;
		struct store_stmt *q1 = st[n == 1];
		store_reset(q1);
		if (n == 1) {
			store_bind_int64(q1, 1, trace);
			store_bind_int64(q1, 2, q);
		} else {
			store_bind_int64(q1, 1, x->run_db_id);
			store_bind_int(q1, 2, x->ranks[i].rank);
			store_bind_int64(q1, 3, q);
		}
		if ((rc = store_next(q1)) < 0)
			goto out;
		if (rc > 0 && store_column_int64(q1, 0) - x->ranks[i].off < x->cut)
			x->cut = store_column_int64(q1, 0) - x->ranks[i].off;
	}
	ret = 0;
out:
	for (int k = 0; k < 3; k++) {
		if (st[k])
			x->vm_steps += store_vm_steps(st[k]);
		store_finalize(st[k]);
	}
	return ret;
}

/* The run's stored events where the store holds no other trace, from the tables' pages (run_plan's counts
 * scan a table of one trace: 0.17 s CPU at 628,000 events); -1: other traces are there; -2 after diag. */
static int64_t rows_if_alone(struct tx_run *x)
{
	struct store_stmt *st;
	if (store_prepare(x->s, "count a run's events", "SELECT (SELECT count(*) FROM traces WHERE run_id IS NOT ?1"
			  " OR rank IS NULL), (SELECT count(*) FROM annotations), (SELECT count(*) FROM cpu_ops),"
			  " (SELECT count(*) FROM launches), (SELECT count(*) FROM activities)", &st) < 0)
		return -2;
	store_bind_int64(st, 1, x->run_db_id);
	int64_t n = -1;
	int rc = store_next(st);
	if (rc < 0)
		n = -2;
	else if (rc > 0)
		n = store_column_int64(st, 0) ? -1 : store_column_int64(st, 1) + store_column_int64(st, 2) +
			store_column_int64(st, 3) + store_column_int64(st, 4);
	x->vm_steps += store_vm_steps(st);
	store_finalize(st);
	return n;
}

/*
 * Reads and writes rank ri's rows of a cut run through the statements of
 * cut_sql (st): the rows starting before the cut and the ProfilerStep#N
 * ranges. write_row skips what it needs but does not write, as for an
 * uncut run, so that the file is the one the whole run's rows give.
 * Returns 0 or -1 after diag.
 */
static int read_rank(struct tx_run *x, size_t ri, struct store_stmt **st)
{
	struct tx_rank *r = &x->ranks[ri];
	int64_t lim = x->cut + r->off;
	for (int k = 0; k < NSRC; k++) {
		int rc;
		store_reset(st[k]);
		store_bind_int64(st[k], 1, x->run_db_id);
		store_bind_int(st[k], 2, r->rank);
		store_bind_int64(st[k], 3, lim);
		while ((rc = store_next(st[k])) > 0) {
			x->rows_read++;
			write_row(x, ri, k, st[k]);
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

/*
 * Writes the merged trace of one run (its ranks in rank order, ranks[0 ..
 * nranks)) into dir/<run>.trace.json.gz through a fresh temporary file, from the store
 * and the tables; fills info. Returns 0 or -1 after diag.
 */
static int export_run(struct store *s, const char *dir, const char *run, int64_t run_db_id, const int *ranks,
		      size_t nranks, const struct tx_tab *tabs, const char *exp, int64_t max_events, int64_t export_max,
		      struct report_trace *info)
{
	struct tx_run x = {0};
	x.s = s;
	x.run = run;
	x.run_db_id = run_db_id;
	x.nranks = nranks;
	x.max_json = TX_MAX_JSON;
	x.export_max = export_max;
	x.ranks = xcalloc(nranks, sizeof(*x.ranks));
	for (size_t i = 0; i < nranks; i++) {
		x.ranks[i].rank = ranks[i];
		x.ranks[i].first = INT64_MAX;
	}
	/* the file's name: the run id where it is [a-z0-9-], else a stem unique per id (fs.h): ids may hold '/' */
	char *file = fs_figure_name("", run, ".trace.json.gz");
	char *path = xasprintf("%s/%s", dir, file), *tmp = NULL;
	struct store_stmt *st[NSRC] = {0};
	int have[NSRC] = {0};
	struct wrow *w = NULL;
	struct tx_window *wins = NULL;
	struct rrow *crit = NULL, *fnd = NULL, *sr = NULL, *ex = NULL;
	size_t nw = 0, nwins = 0;
	int ret = -1;
	buf_init(&x.o.b);
	double t0 = timing_now(), c0 = timing_thread_cpu();
	int64_t stored = export_max > 0 ? rows_if_alone(&x) : -1;
	if (stored < -1)
		goto out;
	if (export_max > 0 && stored > export_max) {
		x.skipped = 1; /* over the size rule, told without run_plan's counts */
	} else {
		if (run_plan(&x, tabs, max_events) < 0)
			goto out;
		stored = 0;
		for (size_t i = 0; i < nranks; i++)
			stored += x.ranks[i].nstored;
	}
	if (x.skipped) {
		info->run = xstrdup(run);
		info->ranks = (int)nranks;
		info->events = stored;
		info->skipped_over = export_max;
		ret = 0;
		if (timing_enabled())
			fprintf(stderr, "perfstudy: timing: trace export %s %.3f s CPU, not written: %" PRId64 " events\n",
				run, timing_thread_cpu() - c0, stored);
		goto out;
	}
	if (fs_mkdirs(dir) < 0) /* here, not before: a study whose every run is over the size rule has no traces/ */
		goto out;
	x.o.f = fs_create_tmp(path, &tmp);
	if (!x.o.f)
		goto out;
	tx_out_start(&x.o, x.o.f);
	struct buf *b = &x.o.b;
	buf_adds(b, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"perfstudy " PERFSTUDY_VERSION
		    "\",\"experiment\":");
	tx_put_cstr(b, exp);
	buf_adds(b, ",\"run\":");
	tx_put_cstr(b, run);
	buf_adds(b, ",\"time_base_ns\":");
	tx_put_i64(b, x.base);
	buf_adds(b, ",\"clock\":\"ts = (event time on its rank's clock - the rank's clock offset - time_base_ns) / 1000;"
		    " offsets from clock_offsets.csv where larger than their residual, else 0\",\"clock_offsets_ns\":{");
	for (size_t i = 0; i < nranks; i++) {
		buf_printf(b, "%s\"%d\":", i ? "," : "", x.ranks[i].rank);
		tx_put_i64(b, x.ranks[i].off);
	}
	buf_adds(b, "},\"clock_offsets_estimated_ns\":{");
	for (size_t i = 0, k = 0; i < nranks; i++)
		if (x.ranks[i].has_off) {
			buf_printf(b, "%s\"%d\":", k++ ? "," : "", x.ranks[i].rank);
			tx_put_i64(b, x.ranks[i].est);
		}
	buf_adds(b, "},\"clock_residuals_ns\":{");
	for (size_t i = 0, k = 0; i < nranks; i++)
		if (x.ranks[i].has_off) {
			buf_printf(b, "%s\"%d\":", k++ ? "," : "", x.ranks[i].rank);
			tx_put_i64(b, x.ranks[i].resid);
		}
	buf_adds(b, "},\"events_in_store\":");
	tx_put_i64(b, stored);
	buf_adds(b, ",\"events_in_store_by_rank\":{");
	for (size_t i = 0; i < nranks; i++) {
		buf_printf(b, "%s\"%d\":", i ? "," : "", x.ranks[i].rank);
		tx_put_i64(b, x.ranks[i].nstored);
	}
	buf_addc(b, '}');
	if (x.cut != INT64_MAX) {
		buf_adds(b, ",\"cut_at_us\":");
		tx_put_us(b, x.cut - x.base);
	}
	buf_adds(b, "},\"traceEvents\":[\n");

	/* uncut: one statement per table for the run; cut: one per table, stepped per rank (read_rank) */
	for (int k = 0; k < NSRC; k++) {
		if (store_prepare(s, "export a run's events", x.cut == INT64_MAX ? src_sql[k] : cut_sql[k], &st[k]) < 0)
			goto out;
		store_bind_int64(st[k], 1, run_db_id);
		if (x.cut == INT64_MAX && (have[k] = store_next(st[k])) < 0)
			goto out;
	}
	w = tx_collect_waits(&x, &tabs[T_WAITS], &nw);
	wins = tx_collect_windows(&x, &tabs[T_WINDOWS], &tabs[T_STRAG], &nwins);
	size_t wi = 0, wn = 0;
	/* the rows of each rank, walked along with the ranks (a search of the run's rows per rank was quadratic) */
	size_t ncrit = tx_rows_by_rank(&tabs[T_CRIT], CPATH_RANK, run, &crit),
	       nfnd = tx_rows_by_rank(&tabs[T_FINDINGS], FND_RANK, run, &fnd);
	size_t nsr = tx_rows_by_rank(&tabs[T_STRAG_RANKS], SR_RANK, run, &sr), ci = 0, fi = 0, si = 0;
	size_t nex = tx_rows_by_rank(&tabs[T_EXPOSED], EW_RANK, run, &ex), ei = 0;
	const struct table *tc = tabs[T_CRIT].t, *tf = tabs[T_FINDINGS].t, *tsr = tabs[T_STRAG_RANKS].t;
	for (size_t ri = 0; ri < nranks; ri++) {
		struct tx_rank *r = &x.ranks[ri];
		char name[64];
		snprintf(name, sizeof(name), "rank %d", r->rank);
		tx_ev_meta(&x.o, "process_name", ri + 1, 0, name, 0);
		tx_ev_meta(&x.o, "process_sort_index", ri + 1, 0, NULL, (int64_t)ri + 1);
		x.nlanes = 0;
		intmap_free(&x.lane_map);
		size_t w0 = wi;
		while (wi < nw && w[wi].ri == ri)
			wi++;
		if (x.cut != INT64_MAX && read_rank(&x, ri, st) < 0)
			goto out;
		for (int k = 0; x.cut == INT64_MAX && k < NSRC; k++)
			while (have[k] > 0 && store_column_int(st[k], 0) <= r->rank) {
				x.rows_read++;
				if (store_column_int(st[k], 0) == r->rank)
					write_row(&x, ri, k, st[k]);
				if ((have[k] = store_next(st[k])) < 0)
					goto out;
			}
		tx_sort_steps(r);
		unsigned used = 0;
		size_t n0 = wn;
		while (wn < nwins && wins[wn].last_rank == r->rank)
			wn++;
		while (ei < nex && ex[ei].rank < r->rank)
			ei++;
		size_t e0 = ei;
		while (ei < nex && ex[ei].rank == r->rank)
			ei++;
		/* (no offset on a NULL array: a run without waits or host operators) */
		tx_write_rank_tracks(&x, ri, tabs, w ? w + w0 : NULL, wi - w0, ex + e0, ei - e0, wins ? wins + n0 : NULL,
				     wn - n0, &used);
		if (tx_write_counters(&x, ri, max_events) < 0)
			goto out;
		if (tx_write_crit(&x, ri, tc, crit, ncrit, &ci))
			used |= 1u << LANE_CRIT;
		for (; fi < nfnd && fnd[fi].rank <= r->rank; fi++)
			if (fnd[fi].rank == r->rank) {
				tx_write_finding(&x, tf, fnd[fi].row, ri + 1, LANE_FINDINGS, tx_marker_ts(&x, r));
				used |= 1u << LANE_FINDINGS;
			}
		for (; si < nsr && sr[si].rank <= r->rank; si++) {
			int64_t windows = tx_cell_i(tsr, sr[si].row, SR_WINDOWS, 0);
			if (sr[si].rank != r->rank || windows <= 0)
				continue;
			struct buf lb;
			buf_init(&lb);
			buf_printf(&lb, "straggler: other ranks waited for it in %" PRId64 " collectives, %.3f ms in all", windows,
				   (double)tx_cell_i(tsr, sr[si].row, SR_CAUSED_WAIT_US, 0) / 1e6);
			tx_ev_meta(&x.o, "process_labels", ri + 1, 0, lb.data, 0);
			buf_release(&lb);
		}
		for (int l = LANE_WAITS; l < LANE_INPUT; l++)
			if (used & (1u << l)) {
				char *ln = xasprintf("perfstudy: %s", added_lanes[l]);
				tx_ev_meta(&x.o, "thread_name", ri + 1, l, ln, 0);
				tx_ev_meta(&x.o, "thread_sort_index", ri + 1, l, NULL, l);
				free(ln);
			}
		for (size_t l = 0; l < x.nlanes; l++) {
			const struct lane *ln = &x.lanes[l];
			if (ln->kind == 0)
				snprintf(name, sizeof(name), "host thread %" PRId64, ln->a);
			else if (ln->kind == 1)
				snprintf(name, sizeof(name), "GPU %" PRId64 " stream %" PRId64, ln->a, ln->b);
			else
				snprintf(name, sizeof(name), "GPU annotations, stream %" PRId64, ln->a);
			tx_ev_meta(&x.o, "thread_name", ri + 1, LANE_INPUT + (int)l, name, 0);
			tx_ev_meta(&x.o, "thread_sort_index", ri + 1, LANE_INPUT + (int)l, NULL, LANE_INPUT + (int64_t)l);
		}
		info->kept += r->kept;
	}
	/* the run's own process: the critical path across ranks, the findings of no rank, what was cut */
	size_t apid = nranks + 1;
	tx_ev_meta(&x.o, "process_name", apid, 0, "perfstudy analysis", 0);
	tx_ev_meta(&x.o, "process_sort_index", apid, 0, NULL, (int64_t)apid);
	unsigned used = tx_write_across(&x, &tabs[T_ACROSS], apid) ? 1 : 0;
	for (size_t i = 0; i < nfnd; i++) {
		int64_t rk = fnd[i].rank;
		if (rk >= INT32_MIN && rk <= INT32_MAX && tx_rank_index(&x, (int)rk) != SIZE_MAX)
			continue;
		tx_write_finding(&x, tf, fnd[i].row, apid, 2, tx_marker_ts(&x, &x.ranks[0]));
		used |= 2;
	}
	if (used & 1)
		tx_ev_meta(&x.o, "thread_name", apid, 1, "perfstudy: critical path across ranks", 0);
	if (used & 2)
		tx_ev_meta(&x.o, "thread_name", apid, 2, "perfstudy: findings of the run", 0);
	int64_t nctr = 0, nctr_all = 0;
	for (size_t i = 0; i < nranks; i++)
		nctr += x.ranks[i].counters, nctr_all += x.ranks[i].counters_all;
	if (nctr < nctr_all) {
		char *lb = xasprintf("memory counters: %" PRId64 " of %" PRId64 " changes written (at most %" PRId64
				     " a rank: each run's lowest and highest)", nctr, nctr_all, max_events / (int64_t)nranks);
		tx_ev_meta(&x.o, "process_labels", apid, 0, lb, 0);
		free(lb);
	}
	if (x.cut != INT64_MAX || x.dropped_bytes) {
		struct buf lb;
		buf_init(&lb);
		if (x.cut != INT64_MAX)
			buf_printf(&lb, "cut: only events starting before %.3f ms are kept (%" PRId64 " of %" PRId64
				   " stored; at most %" PRId64 " per run)", (double)(x.cut - x.base) / 1e6, info->kept, stored,
				   max_events);
		if (x.dropped_bytes)
			buf_printf(&lb, "%s%" PRId64 " events left out past %lld MiB of JSON", lb.len ? "; " : "",
				   x.dropped_bytes, (long long)(TX_MAX_JSON >> 20));
		tx_ev_meta(&x.o, "process_labels", apid, 0, lb.data, 0);
		buf_release(&lb);
	}
	buf_adds(b, "\n]}\n");
	tx_out_pump(&x.o, 1);
	FILE *f = x.o.f;
	x.o.f = NULL; /* closed (and tmp removed on failure) by fs_commit_tmp */
	if (fs_commit_tmp(f, tmp, path, x.o.failed ? x.o.err : 0) < 0)
		goto out;
	info->run = xstrdup(run);
	info->file = xasprintf("traces/%s", file);
	info->ranks = (int)nranks;
	info->events = stored;
	info->bytes = x.o.gz_bytes;
	ret = 0;
	/* PERFSTUDY_TIMING: the export's cost and what it read (rows handed over, SQLite's VM steps) for what it wrote */
	if (timing_enabled()) {
		long long vm = x.vm_steps;
		for (int k = 0; k < NSRC; k++)
			vm += store_vm_steps(st[k]);
		fprintf(stderr, "perfstudy: timing: trace export %s %.3f s, %.3f s CPU, %" PRId64 " of %" PRId64
			" events written, %" PRId64 " rows read, %lld VM steps\n", run, timing_now() - t0,
			timing_thread_cpu() - c0, info->kept, stored, x.rows_read, vm);
	}
out:
	if (x.o.f) {
		fclose(x.o.f);
		remove(tmp);
	}
	for (int k = 0; k < NSRC; k++)
		store_finalize(st[k]);
	for (size_t i = 0; i < nranks; i++)
		free(x.ranks[i].steps);
	free(x.ranks);
	tx_out_end(&x.o);
	buf_release(&x.o.b);
	free(x.lanes);
	intmap_free(&x.lane_map);
	free(crit);
	free(fnd);
	free(sr);
	free(ex);
	free(w);
	free(wins);
	free(file);
	free(path);
	free(tmp);
	return ret;
}

int trace_export_experiment(struct store *s, const char *site, const char *exp, const struct table *const *tables,
			    size_t ntables, struct report_trace **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	struct store_ranked_run *runs;
	size_t nruns;
	if (store_ranked_runs(s, exp, &runs, &nruns) < 0)
		return -1;
	int64_t max_events = TX_MAX_EVENTS;
	const char *env = getenv("PERFSTUDY_TRACE_MAX_EVENTS");
	if (env && atoll(env) > 0)
		max_events = atoll(env);
	int64_t export_max = TX_EXPORT_MAX;
	env = getenv("PERFSTUDY_TRACE_EXPORT_MAX");
	if (env && *env && atoll(env) >= 0)
		export_max = atoll(env);
	struct tx_tab tabs[NTAB];
	for (int k = 0; k < NTAB; k++)
		tx_tab_open(&tabs[k], tables, ntables, tab_names[k], tab_runs[k]);
	char *dir = xasprintf("%s/%s/traces", site, exp);
	int ret = -1;
	size_t cap = 0;
	for (size_t k = 0; k < nruns; k++) {
		const struct store_ranked_run *r = &runs[k];
		*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
		memset(&(*out)[*n], 0, sizeof(**out));
		if (export_run(s, dir, r->run, r->run_id, r->ranks, r->nranks, tabs, exp, max_events, export_max,
			       &(*out)[*n]) < 0)
			goto out;
		(*n)++;
	}
	ret = 0;
out:
	for (int k = 0; k < NTAB; k++)
		free(tabs[k].segs);
	free(dir);
	store_ranked_runs_free(runs, nruns);
	if (ret < 0) {
		trace_export_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void trace_export_free(struct report_trace *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++) {
		free(t[i].run);
		free(t[i].file);
	}
	free(t);
}
