/*
 * timing.h: where a build's time goes, for `make bench` and for users.
 *
 * With PERFSTUDY_TIMING=1 in the environment, `perfstudy build` prints one
 * line per stage on stderr at the end:
 *   perfstudy: timing: read 0.412 s
 * Stages: read (file I/O, inflating, hashing), parse (JSON), store (SQLite
 * inserts), index (the store's indexes and statistics after reading), ingest (wall time of reading every trace into the store, which
 * contains the three before and whatever overlapped), analyze, render
 * (charts and report), chart (the figures alone, part of render), total. Reading with several threads adds their
 * times, so read + parse + store can exceed ingest. Each analysis gets a
 * line of its own, its wall time and its CPU time (the thread's: the
 * hostile-input tests compare it between an input and one twice as large):
 *   perfstudy: timing: analysis default step_timeline 0.004 s, 0.003 s CPU
 * and each run's merged trace (report/trace_export.c) one more, with the
 * events it wrote, the rows its queries handed over and their SQLite VM steps:
 *   perfstudy: timing: trace export <run> 0.079 s, 0.079 s CPU, 58368 of
 *   58368 events written, 58368 rows read, 1026100 VM steps
 */
#ifndef PERFSTUDY_TIMING_H
#define PERFSTUDY_TIMING_H

enum timing_stage { TIME_READ, TIME_PARSE, TIME_STORE, TIME_INDEX, TIME_INGEST, TIME_ANALYZE, TIME_RENDER, TIME_CHART, TIME_NSTAGES };

/* Seconds on a monotonic clock. */
double timing_now(void);
/* The calling thread's CPU seconds (user + system). */
double timing_thread_cpu(void);
/* Adds secs to a stage (thread-safe). */
void timing_add(enum timing_stage s, double secs);
/* Seconds added to a stage so far. */
double timing_get(enum timing_stage s);
/*
 * A timed section of a stage that may call into another: time the thread
 * adds with timing_add_nested() between timing_span_begin() and
 * timing_span_end() (store inserts made from inside a parse callback) is
 * not counted twice, so "parse" means parsing alone.
 */
struct timing_span {
	double t0, nested0;
};
void timing_span_begin(struct timing_span *sp);
void timing_span_end(struct timing_span *sp, enum timing_stage s);
/* Like timing_add, and taken off the calling thread's open spans. */
void timing_add_nested(enum timing_stage s, double secs);
/* Non-zero when PERFSTUDY_TIMING is set to something other than 0. */
int timing_enabled(void);
/* Prints the stages on stderr when enabled; total is the command's wall time. */
void timing_print(double total);

/*
 * PERFSTUDY_COUNTS=1: the work of each analysis counted, not timed (a
 * count does not move with the machine's load), one line each on stderr:
 *   perfstudy: counts: analysis default collectives 41216 VM steps,
 *   3072 rows, 0 cells, 0 scanned
 * VM steps: SQLite's virtual-machine instructions, every statement of the
 * store's connection (its progress handler, in units of
 * WORK_VM_EVERY, installed only while counting); rows: the rows the query
 * API (store_next) handed over; cells: the cells of the analyses' tables
 * read (table_cell); scanned: the entries a search of an array passed
 * over, counted where an analysis searches one. Each is the calling
 * thread's (an experiment's analyses run on one thread). tests/e2e/
 * t_rank_work.sh doubles the ranks of a generated run and checks that
 * no count grows by more than about twice.
 */
enum work_kind { WORK_VM_STEPS, WORK_ROWS, WORK_CELLS, WORK_SCANNED, WORK_NKINDS };
#define WORK_VM_EVERY 16
extern _Thread_local long long work_count[WORK_NKINDS];
/* Non-zero when PERFSTUDY_COUNTS is set to something other than 0. */
int counting_enabled(void);
/* Adds n to the calling thread's count of kind k. */
static inline void work_add(enum work_kind k, long long n)
{
	work_count[k] += n;
}

#endif
