/*
 * ingest.h: the one interface every input format is read through.
 *
 * ingest_file() loads a file (inflating gzip transparently), detects its
 * format from the content, never the name, and hands the matching reader's
 * normalized events to a sink: GPU activities (kernels, memcpys, memsets),
 * runtime launches and annotations in file order, then the trace metadata
 * once (a Kineto file may hold it after its events). All times are integer nanoseconds on the trace's own clock.
 *
 * Strings in the events point into the reader's buffers and are valid only
 * during the callback; a sink copies what it keeps. A sink callback returns
 * 0 to go on or -1 to stop (after reporting through diag).
 *
 * Adding a format means one new reader file and one entry in the table in
 * ingest.c.
 */
#ifndef PERFSTUDY_INGEST_H
#define PERFSTUDY_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/source.h"
#include "ingest/stream.h"

enum activity_kind { ACT_KERNEL = 1, ACT_MEMCPY = 2, ACT_MEMSET = 3 };

struct gpu_activity {
	enum activity_kind kind;
	const char *name;
	int64_t start_ns, dur_ns;
	int device;          /* -1: unknown */
	int64_t stream;      /* -1: unknown */
	int64_t correlation; /* links to the launching runtime call; -1: none */
	int64_t bytes;       /* memcpy/memset size; -1: unknown */
	const char *copy_kind; /* "HtoD", "DtoH", "DtoD", "PtoP", ...; NULL for kernels */
	/*
	 * NCCL kernels: what the trace records of the collective (Kineto's
	 * "Collective name", "In msg nelems", "Out msg nelems", "dtype",
	 * "Group size" args). collective NULL: not recorded; counts 0: unknown.
	 */
	const char *collective, *dtype;
	int64_t in_nelems, out_nelems, group_size;
	/* its communicator ("Process Group Name", else "Process Group Description"; NULL: not recorded) */
	const char *process_group;
	int has_seq; /* "Seq" recorded: seq is the collective's number on its communicator */
	int64_t seq;
	/* a point-to-point op's peer, a global rank ("Dst Rank" of a send, "Src Rank" of a recv); has_peer 0: none */
	int has_peer;
	int64_t peer;
};

/* A host-side operator (Kineto cpu_op: aten::mm, ...), for dispatch analysis. */
struct cpu_op {
	const char *name;
	int64_t start_ns, dur_ns;
	int64_t tid;
	int64_t external_id; /* -1: none */
	const char *dims;    /* "Input Dims" as compact text, "[36,1024],[50257,1024]"; NULL when absent */
	/* "Input type" and "Concrete Inputs" as compact text, "c10::BFloat16,float,,Scalar", "[8388608],15,,False" */
	const char *types, *concrete; /* NULL when absent */
};

/* A host-side CUDA runtime or driver call (cudaLaunchKernel, cuLaunchKernelEx, ...). */
struct runtime_call {
	const char *name;
	int64_t start_ns, dur_ns;
	int64_t correlation;
	int64_t tid;
	int is_driver;
};

/* A named range: ProfilerStep#N, forward, backward, ... on the host or on a GPU stream. */
struct annotation {
	const char *name;
	int64_t start_ns, dur_ns;
	int on_gpu;
	int64_t tid; /* host thread, or GPU stream */
};

/*
 * One allocation or free of a caching allocator (Kineto's "[memory]"
 * instant events of a trace recorded with profile_memory=True): bytes
 * (negative for a free), the block's address, and the allocator's totals
 * on that device just after it. device_type is the trace's own number
 * (Kineto: 0 CPU, 1 CUDA); device -1: the host.
 */
struct memory_event {
	int64_t ts_ns;
	int64_t bytes, addr;                  /* addr -1: not recorded */
	int64_t total_allocated, total_reserved; /* -1: not recorded */
	int device, device_type;              /* -1: not recorded */
	int64_t tid;                          /* -1: not recorded */
};

struct device_info {
	int id;
	const char *name;
	int64_t total_mem; /* bytes; -1 unknown */
	int sm_count;      /* -1 unknown */
	int cc_major, cc_minor;
	int64_t mem_bandwidth; /* bytes per second; 0 unknown */
};

struct trace_info {
	const char *format;   /* reader name, e.g. "kineto" */
	int rank;             /* -1: not recorded */
	int world_size;       /* -1: not recorded */
	int64_t epoch_offset_ns; /* add to a time to get Unix epoch ns; -1: unknown */
	/* Software the trace names (Kineto's distributedInfo.nccl_version, cuda_*_version); NULL / 0: not recorded. */
	const char *nccl_version;
	/*
	 * The parallel strategy a training log names (the line "params N world
	 * W strategy S" of the corpus's generator: "ddp", "zero1", "fsdp", ...);
	 * NULL: not named.
	 */
	const char *strategy;
	/* The model's parameter count the same line gives as N; 0: not given. */
	int64_t params;
	int64_t cuda_runtime_version, cuda_driver_version; /* CUDA's integer form: 1000 major + 10 minor */
	size_t ndevices;
	const struct device_info *devices;
};

/* Counts of what a reader saw, for `perfstudy inspect` and warnings. */
struct ingest_counts {
	int64_t events, kernels, memcpys, memsets, runtime, annotations, gpu_annotations, cpu_ops;
	int64_t steps;   /* ProfilerStep#N annotations */
	int64_t skipped; /* events dropped as malformed (each warned about) */
	int64_t metrics, iterations, phases, gpus; /* ncu launches, log iterations, phase rows, nvidia-smi GPUs */
	int64_t summaries; /* summary rows (nvprof --print-gpu-summary) */
	int64_t links;     /* device pairs of an nvidia-smi topo -m matrix */
	int64_t devices;   /* GPUs with activities, where one file holds several (JAX, rocpd); 0: not counted */
	int64_t memory;    /* allocator events (Kineto "[memory]") */
	/*
	 * Set by a reader whose format is recognised but holds nothing
	 * perfstudy uses (a PyTorch execution trace, a memory timeline): what
	 * the file is and why it is not used, one line (static string).
	 */
	const char *unused;
};

/*
 * One row of a profiler's own per-name summary (nvprof --print-gpu-summary):
 * no timeline, only totals. The analyses use summary rows for a rank that
 * has no GPU activities.
 */
struct summary_row {
	enum activity_kind kind;
	const char *name;
	const char *copy_kind; /* memcpy: "HtoD", ...; else NULL */
	int64_t calls;
	int64_t total_ns, min_ns, max_ns, avg_ns; /* -1: not given */
	double time_pct;                          /* the profiler's Time(%); < 0: not given */
};

/*
 * One kernel launch measured by Nsight Compute (ncu --csv, details page).
 * ncu serializes and replays launches, so there is no timeline: only
 * per-launch counters. FLOPs of a precision are add + mul + 2 * fma thread
 * instructions executed (predicated on).
 */
struct kernel_metrics {
	int64_t id;                /* the profiler's launch ID */
	const char *name;
	int device;                /* -1: unknown */
	const char *block, *grid;  /* "(64, 1, 1)"; NULL: not given */
	int64_t fp16_flops, fp32_flops, fp64_flops; /* -1: not measured */
	int64_t dram_bytes;        /* dram__bytes.sum; -1: not measured */
	int64_t dur_ns;            /* gpu__time_duration.sum; -1: not measured */
};

/* One iteration line of a training log (Megatron-LM's training_log). */
struct log_iteration {
	int64_t iteration, iterations; /* "iteration N/ M"; iterations -1: not given */
	int64_t consumed_samples;      /* -1: not given */
	int64_t elapsed_ns;            /* elapsed time per iteration; -1: not given */
	double tflops_per_gpu;         /* throughput per GPU as logged; < 0: not given */
	int64_t global_batch;          /* -1: not given */
	double loss;                   /* lm loss; has_loss 0: not given */
	int has_loss;
	int launcher_rank;             /* N of a "[defaultN]:" prefix; -1: none */
};

/* One action of a profiler's phase summary (PyTorch Lightning SimpleProfiler). */
struct phase_time {
	const char *action;
	int64_t calls;             /* -1: not given */
	int64_t mean_ns, total_ns; /* -1: not given */
	double percent;            /* share of the total as printed; < 0: not given */
};

/* One GPU as nvidia-smi -q -x describes it; strings NULL and numbers -1 when absent. */
struct gpu_hardware {
	int index;                 /* position in the file */
	const char *dtd;           /* "nvsmi_device_v12.dtd", or NULL */
	const char *product, *uuid, *pci_bus, *driver, *cuda;
	int64_t memory_mib;        /* FB memory total */
	int64_t max_graphics_mhz, max_sm_mhz, max_mem_mhz;
	double power_limit_w;      /* < 0: not given */
	int pcie_gen_max, pcie_gen_cur, pcie_width_max, pcie_width_cur;
};

/*
 * One cell of `nvidia-smi topo -m`: how devices a and b ("GPU0", "NIC1")
 * are connected ("NV18", "SYS", "PIX", ...), each unordered pair once.
 */
struct gpu_link {
	const char *a, *b, *link;
	const char *cpu_affinity, *numa_affinity; /* of a, as printed; NULL: not given */
};

struct ingest_sink {
	void *ctx;
	int (*info)(void *ctx, const struct trace_info *info);
	int (*activity)(void *ctx, const struct gpu_activity *a);
	int (*runtime)(void *ctx, const struct runtime_call *r);
	int (*annotation)(void *ctx, const struct annotation *a);
	/* Measurements that are not a timeline; each may be NULL (not kept). */
	int (*metrics)(void *ctx, const struct kernel_metrics *m);
	int (*iteration)(void *ctx, const struct log_iteration *it);
	int (*phase)(void *ctx, const struct phase_time *p);
	int (*hardware)(void *ctx, const struct gpu_hardware *g);
	int (*summary)(void *ctx, const struct summary_row *s); /* may be NULL */
	int (*cpu_op)(void *ctx, const struct cpu_op *op); /* may be NULL */
	int (*link)(void *ctx, const struct gpu_link *l);  /* may be NULL */
	int (*memory)(void *ctx, const struct memory_event *m); /* may be NULL */
};

struct reader {
	const char *name;
	/* Non-zero when the first bytes (after inflating) look like this format. */
	int (*detect)(const char *head, size_t n);
	/*
	 * Optional; when set, it is asked after detect() says yes, with the
	 * whole source: for formats the first bytes cannot tell apart (SQLite
	 * files: Nsight Systems export or nvprof .nvvp).
	 */
	int (*detect_source)(const struct source *src);
	/* Reads the whole source into the sink; returns 0 or -1 after diag. */
	int (*read)(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts);
	/*
	 * Optional: the same from a stream, in bounded memory (large traces).
	 * Used instead of read when set and detect_source is not.
	 */
	int (*read_stream)(struct source_stream *src, const struct ingest_sink *sink, struct ingest_counts *counts);
	/*
	 * Optional, NULL-terminated: the file name endings that make a file in a
	 * directory given as a run one of its ranks (perfstudy build DIR); the
	 * content still decides the format.
	 */
	const char *const *rank_suffixes;
};

/* Whether a file named name inside a run's directory is one of its ranks: a reader's rank_suffixes. */
int ingest_is_rank_file(const char *name);
/* The endings of ingest_is_rank_file as "*.json, *.json.gz, ...", each once, in the readers' order (caller frees). */
char *ingest_rank_file_patterns(void);

/*
 * Reads path with the reader its content calls for. *format (static string)
 * is set when a reader was found. Returns 0, or -1 after reporting through
 * diag: unreadable file (system), unknown format or corrupt content (input).
 * meta, when not NULL, receives the file's size and SHA-256.
 */
int ingest_file(const char *path, const struct ingest_sink *sink, struct ingest_counts *counts,
		const char **format, struct source_meta *meta);

/* The reader table, for tests and `perfstudy inspect`. */
const struct reader *const *ingest_readers(size_t *n);

/*
 * The times and sizes perfstudy takes from any input (issue #51 item 10):
 * a start from INGEST_MIN_NS to INGEST_MAX_NS (-2^60 to 3 * 2^60 ns: the
 * years 1933 to 2079 as Unix time, or any clock's offset within them), a
 * duration from 0 to INGEST_MAX_DUR_NS (2^52 ns: 52 days), a message of at
 * most INGEST_MAX_NELEMS elements (2^48) and a copy of at most
 * INGEST_MAX_BYTES bytes (2^56: 64 PiB). Within them an event's end, the
 * difference of any two times and the sum of any two never leave int64;
 * the same values at +-9e15 us, 2^62 elements or 4.6e18 ns steps
 * overflowed in the analyses (wrong numbers, negative step times). The
 * trace readers skip an event outside them with a warning naming the file
 * and the byte; the store's sink refuses one from any other reader.
 */
#define INGEST_MIN_NS (-((int64_t)1 << 60))
#define INGEST_MAX_NS (3 * ((int64_t)1 << 60))
#define INGEST_MAX_DUR_NS ((int64_t)1 << 52)
#define INGEST_MAX_NELEMS ((int64_t)1 << 48)
#define INGEST_MAX_BYTES ((int64_t)1 << 56)
/* NULL when start and dur (ns) are within the bounds above, else what is wrong, in a few words. */
const char *ingest_span_problem(int64_t start, int64_t dur);

/*
 * Parses a JSON decimal number text (e.g. "4443677150109.176", "1.5e3",
 * "-0.25") given in microseconds into integer nanoseconds, rounding half away
 * from zero. Exact for up to 19 significant digits. Returns 0, or -1 when the
 * text is not a number or the value does not fit in int64.
 */
int parse_us_to_ns(const char *s, size_t n, int64_t *ns);

/*
 * The same for any unit: the decimal text times 10^scale_pow10, rounded half
 * away from zero to an integer (scale 9: seconds to ns; 0: ns to ns; -3: ns
 * to us). Returns 0, or -1 when the text is not a number or does not fit.
 */
int parse_decimal_scaled(const char *s, size_t n, int scale_pow10, int64_t *out);

#endif
