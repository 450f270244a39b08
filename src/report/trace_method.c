/*
 * trace_method.c: the Methods entry of the merged traces
 * (trace_export.h): what the file holds and its bounds, in words, and the
 * sentence added where the size rule left a run's file out. The numbers
 * are trace_export.c's TX_MAX_EVENTS, TX_NAME_MAX and TX_MAX_JSON; the
 * size rule's limit is the page's (report.c prints it).
 *
 * The size rule: a run with more than TX_EXPORT_MAX (500,000) events in
 * the store gets no merged trace unless PERFSTUDY_TRACE_EXPORT_MAX says
 * otherwise (N: the limit is N events; 0: no limit). The export costs
 * about 1.4 us of CPU an event (0.87 s for the 628,222 events of
 * docs/performance.md's big trace, a quarter of what 479919f's whole
 * build of it cost); the example's largest run stores 139,111 (0.2 s),
 * its file 2.8 MB. Past 500,000 events the file is near 100 MB of JSON,
 * more than a browser tab opens comfortably. The page says which run was
 * not written and how to have it (report.c, trace_export_skip_method).
 */
#include "report/trace_export.h"

const char trace_export_term[] = "traces/<run>.trace.json.gz";
const char trace_export_method[] =
	"Per run with a rank's trace (<run>: the run id where it is lower-case letters, digits and '-' only, else "
	"those of it with every other byte '_' and 16 hex digits of its SHA-256), its events merged into one Chrome "
	"trace-event JSON file (gzip), which Perfetto "
	"(ui.perfetto.dev, Open trace file: the file is read in the browser, never uploaded) and chrome://tracing "
	"open: one process per rank ('rank N'), its host threads (annotations with the ProfilerStep#N ranges, host "
	"operators as the store keeps them: each thread's outermost and the DataLoader ranges; runtime and driver "
	"calls) and its GPU streams (kernels, memcpys, memsets; GPU annotations on a "
	"lane of their own), every event the store holds, each time moved onto the run's reference clock: ts = "
	"(own time - the rank's offset - time_base_ns) / 1000, the offset clock_offsets.csv's offset_us where it "
	"exceeds its residual_us, else 0 (an offset within the spread of the collectives' ends cannot be told from "
	"one clock, as ranks of one host have; the applied and estimated offsets in otherData), time_base_ns the "
	"run's earliest event so moved. Added tracks: per rank, its waits inside matched collectives "
	"([arrival, last arrival), collective_waits.csv's row in args) and their exposed parts (the wait minus every "
	"other kernel, copy and memset of the rank; they sum to exposed_wait_us), the windows in which another rank "
	"waited for it (stragglers.csv: first to last arrival), each step's critical path (critical_path.csv; the "
	"tables hold a path's parts, not its segments, so the slice spans the step, named by its bound) and its "
	"findings as instant markers (findings.csv's row in args); in the process 'perfstudy analysis', the "
	"critical path across ranks of each step (critical_path_across.csv, ending at the end of end_rank's step) "
	"and the run's other findings; per rank and GPU a counter 'memory: GPU D' of the allocator's allocated and "
	"reserved bytes after each of its events that changes them (a rank's share of the bound at most, else each "
	"run of changes' lowest and highest); slices of a track that would overlap in part go on the track's further "
	"lanes ('(2)', '(3)', ...). Not in the store, so not in the file: host operators inside another of their "
	"thread, flow arrows (ac2g, fwdbwd), the input's instant and counter events, the profiler's own 'Trace' "
	"span, Python function events, and the args the store does not keep (grid, block, registers, occupancy, "
	"NCCL args, shapes). Bound: 1,000,000 events per run (a rank's "
	"share: 1,000,000 / ranks); past it, events starting after the earliest rank's cut are left out, the cut in "
	"otherData.cut_at_us; names over 16 KiB are cut; 1 GiB of JSON at most.";
/* Added to the Methods entry where a run's merged trace was not written (%lld: the limit). */
const char trace_export_skip_method[] =
	" Size rule: a run with more than %lld events in the store gets no merged trace (the export costs about 1.4 "
	"microseconds of CPU an event, and a file of that many is more than a browser tab opens comfortably); the "
	"run's line under Merged traces says so. To have it, build again with PERFSTUDY_TRACE_EXPORT_MAX=0 in the "
	"environment (no limit; =N sets the limit to N events), with --force where nothing else changed.";
