/*
 * trace_export_int.h: what the files of the merged trace share (trace_export.h):
 * trace_export.c reads the run's events and writes the file; trace_json.c
 * writes JSON text through ISA-L's igzip and finds the result tables' rows of a run;
 * trace_tracks.c writes the tracks perfstudy adds, trace_counters.c the memory
 * counters. Only these include it.
 */
#ifndef PERFSTUDY_TRACE_EXPORT_INT_H
#define PERFSTUDY_TRACE_EXPORT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <isa-l/igzip_lib.h>

#include "analyze/findings/findings_tables.h"
#include "analyze/ranks/ranks_tables.h"
#include "store/store.h"
#include "util/buf.h"
#include "util/intmap.h"
#include "util/table.h"

/* Names longer than this many bytes are cut (ending in "…"). */
#define TX_NAME_MAX 16384
/* JSON gathered before it is deflated, and deflate's output buffer. */
#define TX_CHUNK (256 * 1024)

/* The output: JSON text gathered in b, deflated (gzip) into f. */
struct tx_out {
	FILE *f;
	struct isal_zstream z;
	unsigned char *level_buf; /* igzip's hash tables and tokens for its level */
	struct buf b;
	unsigned char *zbuf;
	int64_t json_bytes; /* deflated so far */
	int64_t gz_bytes;   /* written to f so far */
	int failed, err;
	size_t nevents;     /* traceEvents written, for the separators */
};

/* Starts deflating into f (o zeroed, b initialized). */
void tx_out_start(struct tx_out *o, FILE *f);
/* Deflates what b holds (finish: 1 at the end, the gzip trailer written); a failure sets failed and err. */
void tx_out_pump(struct tx_out *o, int finish);
/* Frees what tx_out_start took (not f, not b). */
void tx_out_end(struct tx_out *o);
/* Starts the next element of traceEvents (a separator after the first), deflating a full chunk first. */
void tx_out_next(struct tx_out *o);
/* Appends v in decimal; ns as microseconds with three decimals, exactly. */
void tx_put_i64(struct buf *b, int64_t v);
void tx_put_us(struct buf *b, int64_t ns);
/*
 * Appends s (n bytes, any bytes) as a JSON string escaped by util/buf.h's json_add_escaped
 * one writer (bytes that are not UTF-8 as \ufffd); past max bytes it is
 * cut and ends in "…".
 * tx_put_cstr: a NUL-terminated s, max TX_NAME_MAX.
 */
void tx_put_str(struct buf *b, const char *s, size_t n, size_t max);
void tx_put_cstr(struct buf *b, const char *s);
/* Appends a table row as a JSON object: every non-empty cell under its column's name, times in us. */
void tx_put_row(struct buf *b, const struct table *t, size_t row);
/*
 * Event heads: tx_ev_head starts {"ph":..,"cat":..,"pid":..,"tid":..,"ts":..
 * (the caller closes it), tx_ev_dur adds "dur"; tx_ev_meta writes a whole
 * metadata event (name: process_name, thread_name, process_labels with
 * text; process_sort_index, thread_sort_index with num).
 */
void tx_ev_head(struct tx_out *o, const char *ph, const char *cat, size_t pid, int tid, int64_t ts_ns);
void tx_ev_dur(struct tx_out *o, int64_t dur_ns);
void tx_ev_meta(struct tx_out *o, const char *name, size_t pid, int tid, const char *text, int64_t num);

/* A table's rows of one run, found once: its rows in runs, each run's rows contiguous or not. */
struct seg {
	const char *run;
	size_t first, end;
};

struct tx_tab {
	const struct table *t;
	int crun;
	struct seg *segs;
	size_t nsegs;
};

/*
 * Finds table name among tables and the segments of its rows by run, crun
 * its run column (its contract's enum) (x->t NULL: none).
 */
void tx_tab_open(struct tx_tab *x, const struct table *const *tables, size_t n, const char *name, int crun);
/* The rows of run in x, in the table's order: *rows (caller frees), returns their count. */
size_t tx_tab_rows(const struct tx_tab *x, const char *run, size_t **rows);
/* A row of a table with its rank (INT64_MIN: none). */
struct rrow {
	int64_t rank;
	size_t row;
};

/*
 * The rows of run in x with their ranks (column crank), sorted by rank,
 * then row, into *out (caller frees): their count.
 */
size_t tx_rows_by_rank(const struct tx_tab *x, int crank, const char *run, struct rrow **out);

/* A cell's integer (dflt when null or col < 0) and text ("" then). */
int64_t tx_cell_i(const struct table *t, size_t row, int col, int64_t dflt);
const char *tx_cell_s(const struct table *t, size_t row, int col);

/* The result tables the export reads (trace_export.c's tab_names). */
enum { T_OFFS, T_WAITS, T_STRAG, T_STRAG_RANKS, T_CRIT, T_ACROSS, T_FINDINGS, T_EXPOSED, T_WINDOWS, NTAB };

/* The lanes (thread ids) of a rank's process: those perfstudy adds, then the input's. */
enum { LANE_WAITS = 1, LANE_EXPOSED, LANE_WINDOWS, LANE_CRIT, LANE_FINDINGS, LANE_INPUT };

struct lane {
	int kind; /* 0 host thread, 1 GPU stream, 2 GPU annotations */
	int64_t a, b;
};

struct step_range {
	int64_t step, start, end; /* own clock */
};

struct tx_rank {
	int rank;
	/*
	 * off: the offset applied to the rank's events (tx_clock_applied:
	 * clock_offsets.csv's where it exceeds its residual, else 0); est:
	 * clock_offsets.csv's own, on which the tables' reference-clock times
	 * stand (a wait's arrival, a window's), so that such a time t is
	 * drawn at t + est - off, beside the rank's events.
	 */
	int64_t off, est, resid;
	int has_off;
	int64_t nstored, first; /* events in the store; the earliest start (own clock), INT64_MAX none */
	int64_t kept;
	int64_t counters, counters_all; /* memory counter events written, and the changes before the cut */
	struct step_range *steps;
	size_t nsteps, cap_steps;
};

/* A row of collective_waits.csv, by rank. */
struct wrow {
	size_t ri, row;
	int64_t start, arrival, wait;
	int last_rank;
};

/* A row of straggler_windows: a window in which others waited for last_rank (reference clock). */
struct tx_window {
	int last_rank;
	int64_t first_arrival, last_arrival;
	size_t row, strag_row; /* its row, and its row of stragglers.csv (SIZE_MAX: none) */
};

struct tx_run {
	struct store *s;
	const char *run;
	int64_t run_db_id;
	struct tx_rank *ranks;
	size_t nranks;
	int64_t base, cut; /* reference clock; cut INT64_MAX: none */
	int64_t max_json, dropped_bytes;
	struct tx_out o;
	struct lane *lanes;
	size_t nlanes, cap_lanes;
	struct intmap lane_map;
	int64_t rows_read, vm_steps; /* the export queries' rows handed over, SQLite's VM steps (PERFSTUDY_TIMING) */
	int64_t export_max; /* a run with more stored events is not written (0: every run is) */
	int skipped;        /* set by run_plan: this run is over export_max */
};

/* The offset the export applies of a rank's clock_offsets.csv row (trace_export.c's rule). */
int64_t tx_clock_applied(int64_t offset, int64_t residual);

/* The index of rank number rank among x's ranks, or SIZE_MAX. */
size_t tx_rank_index(const struct tx_run *x, int rank);

/*
 * trace_tracks.c. The lanes of an added track whose slices overlap: each
 * slice, in order of start, on the first lane free by then (tx_spill_place
 * returns its index k), lane 0 the track's own tid (first), lane k > 0 tid
 * more + k - 1 (tx_spill_tid), named "perfstudy: <name> (k + 1)" by
 * tx_spill_names; so no two slices of one thread overlap.
 */
struct tx_spill {
	int64_t *end; /* each lane's last end */
	size_t n, cap;
};
size_t tx_spill_place(struct tx_spill *s, int64_t start, int64_t end);
int tx_spill_tid(int first, int more, size_t k);
void tx_spill_names(struct tx_run *x, const struct tx_spill *s, size_t pid, int more, const char *name, int sort);

/*
 * The critical path across ranks of each step on lane 1 of process pid
 * (its lanes spilled from tid 3): the slices written.
 */
size_t tx_write_across(struct tx_run *x, const struct tx_tab *ta, size_t pid);

/* Each step's critical path of rank ri (critical_path.csv's rows by rank from crit[*ci]): the slices written. */
size_t tx_write_crit(struct tx_run *x, size_t ri, const struct table *tc, const struct rrow *crit, size_t ncrit,
		     size_t *ci);

/* trace_counters.c. Rank ri's memory counters (allocated, reserved bytes per GPU): 0, or -1 after diag. */
int tx_write_counters(struct tx_run *x, size_t ri, int64_t max_events);

/* The rows of collective_waits.csv of the run by rank. */
struct wrow *tx_collect_waits(struct tx_run *x, const struct tx_tab *tw, size_t *nw);
/*
 * The run's straggler windows (straggler_windows, tw), each paired with its
 * row of stragglers.csv (ts), sorted by the rank waited for, then first arrival.
 */
struct tx_window *tx_collect_windows(struct tx_run *x, const struct tx_tab *tw, const struct tx_tab *ts, size_t *nwins);
/* Orders r's step ranges for tx_step_range_of; call once its events are read. */
void tx_sort_steps(struct tx_rank *r);
/* The range of step of rank r (binary search), or NULL. */
const struct step_range *tx_step_range_of(const struct tx_rank *r, int64_t step);
/* Where a rank's findings stand: the start of its first step, else its first event (ts, from the base). */
int64_t tx_marker_ts(const struct tx_run *x, const struct tx_rank *r);
/* One finding as an instant on lane tid of process pid, findings.csv's row in args. */
void tx_write_finding(struct tx_run *x, const struct table *t, size_t row, size_t pid, int tid, int64_t ts);
/* A slice of an added track, a table's row in args (t NULL: none). */
void tx_write_slice(struct tx_run *x, size_t pid, int tid, int64_t ts, int64_t dur, const char *name,
		    const struct table *t, size_t row);
/*
 * The waits, their exposed parts and the straggler windows of rank ri (its
 * waits w, its rows ex of exposed_waits, its windows wins); sets the bits
 * of the lanes it used in used.
 */
void tx_write_rank_tracks(struct tx_run *x, size_t ri, const struct tx_tab *tabs, const struct wrow *w, size_t nw,
			  const struct rrow *ex, size_t nex, const struct tx_window *wins, size_t nwins, unsigned *used);

#endif
