/*
 * trace_export.h: the merged trace of each run, for Perfetto and
 * chrome://tracing: <site>/<experiment>/traces/<run>.trace.json.gz.
 *
 * It reads the run's events from the store (kernels, copies, memsets,
 * runtime and driver calls, host operators, host and GPU annotations, the
 * ProfilerStep#N ranges among them) and the experiment's result tables
 * (clock_offsets, collective_waits, stragglers, straggler_ranks,
 * critical_path, critical_path_across, findings, and exposed_waits and
 * straggler_windows, internal tables: util/table.h), and writes Chrome
 * trace-event JSON, gzipped, with one process per rank, every time moved
 * onto the run's reference clock by clock_offsets.csv (an offset beyond
 * its residual; trace_tracks.c's tx_clock_applied), and tracks that
 * perfstudy adds: waits inside collectives and their exposed parts,
 * straggler windows, the critical path of each step, and a marker per
 * finding. The JSON is written as it is read (a window of it in memory);
 * each file goes through <file>.tmp, renamed into place when whole, inside
 * the build's temporary directory like every other file of the site.
 * trace_export.c's opening comment defines the file; TRACE_EXPORT_METHOD
 * is the page's Methods entry.
 */
#ifndef PERFSTUDY_TRACE_EXPORT_H
#define PERFSTUDY_TRACE_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "store/store.h"

/* The Methods entry of the merged traces (term and text), shown on a page that links one. */
extern const char trace_export_term[];
extern const char trace_export_method[];
/* Added to it where a run was not written (the size rule); a printf format of the limit (long long). */
extern const char trace_export_skip_method[];

/*
 * Writes the merged trace of every run of experiment exp that has a
 * rank's trace into <site>/<exp>/traces/, from the store s and the
 * experiment's tables (tables[0 .. ntables), any order; those missing add
 * no track). *out gets one entry per file in run order (the caller frees
 * them with trace_export_free), *n their count. Returns 0, or -1 after
 * diag (a store or write failure; a run too large is cut, never refused).
 */
int trace_export_experiment(struct store *s, const char *site, const char *exp, const struct table *const *tables,
			    size_t ntables, struct report_trace **out, size_t *n);
void trace_export_free(struct report_trace *t, size_t n);
/*
 * The result tables the export reads (sets *n): each must be in the
 * report's report_reads (report_table refuses others) and made by an
 * analysis (tests/unit/test_registry.c).
 */
const char *const *trace_export_read_tables(size_t *n);

#endif
