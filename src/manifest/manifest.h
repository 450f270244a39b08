/*
 * manifest.h: the study manifest (YAML, version 1).
 *
 * manifest_load() reads one manifest with libyaml and checks it fully:
 * unknown keys, wrong types, missing required keys and trace paths/globs that
 * match no file are errors reported through diag as "file:line:col: error: ..."
 * (line and column 1-based). Trace paths are resolved relative to the
 * manifest's directory and globs are expanded (sorted). Every key is
 * documented in docs/manifest.md.
 *
 * The returned struct manifest owns all its strings and arrays; release it
 * with manifest_free().
 */
#ifndef PERFSTUDY_MANIFEST_H
#define PERFSTUDY_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

/* A transformer model description; 0 or NULL means "not given". */
struct manifest_model {
	char *name;
	int64_t layers, hidden, heads, ffn, seq, vocab;
	char *arch;      /* "gpt" or "bert", or NULL (gpt) */
	char *precision; /* "fp32", "tf32", "fp16", "bf16", "fp8", "fp64", or NULL */
	char *framework; /* whose parameter count: "megatron", "huggingface", or NULL (perfstudy's formula) */
	char *objective; /* BERT's heads: "none", "mlm", "mlm+nsp", or NULL (the framework's usual) */
	int64_t vocab_multiple; /* Megatron's --make-vocab-size-divisible-by; 0: 128 */
	char *flops_method; /* flops.csv's estimate: "perfstudy", "paper001", or NULL (perfstudy) */
};

/*
 * Numbers typed into the manifest for a run whose raw output is gone (a
 * published table): 0 means not given.
 */
struct manifest_measured {
	double iteration_ms;   /* time per iteration */
	double samples_per_s;  /* training throughput, all GPUs */
	double tflops_per_gpu; /* as the study reports it */
	double memory_gb;      /* memory used (cached) per GPU */
	int64_t params;        /* model size as the study reports it */
	int oom;               /* 1: the run ran out of memory */
	/*
	 * Values a study prints only relative to another system or run
	 * (paper 002's "Training Time 1x vs 2.45x"); 0: not given.
	 */
	double time_x;         /* training (iteration) time in multiples of the reference's */
	double comm_time_x;    /* communication time in multiples of the reference's */
	double comm_pct;       /* communication's share of the training time, percent */
	char *relative_to;     /* what time_x and comm_time_x are multiples of, e.g. "TG40" */
};

/* A study's own estimates for a run, shown beside perfstudy's; 0: not given. */
struct manifest_published {
	int64_t params;
	double flops_tflop;   /* training FLOPs per step, in 10^12 */
	double activation_gb; /* activation memory, in 10^9 bytes */
	double model_size_mb; /* the parameters' size, in 10^6 bytes (Lightning's "estimated params size") */
	int64_t batches;      /* batches of the training data set (an epoch), as the study counts them */
};

struct manifest_rule {
	char *group;
	char *pattern;
	int is_regex; /* 0: substring match; 1: POSIX extended regex */
	int ignore_case;
};

/*
 * A named phase of a training step (key 'phases'): the host annotation
 * names that count as it. In a name '*' matches any run of characters and
 * every other character only itself.
 */
struct manifest_phase {
	char *name;
	size_t nnames;
	char **names; /* no names: the study drops this default phase */
};

/* Two runs to compare (key 'compare'): ids of runs of this manifest. */
struct manifest_compare {
	char *a, *b;
};

/*
 * Runs shown as a trend (key 'series'): the same configuration on
 * successive dates or commits, in the order given.
 */
struct manifest_series {
	char *name;  /* [A-Za-z0-9._-]+, unique within the manifest */
	size_t nruns;
	char **runs; /* run ids of this manifest, in trend order, each once */
};

/*
 * A question to the replay (key 'whatif'): a run of this manifest under
 * changes in `perfstudy whatif`'s grammar (whatif_change.h), answered by
 * the analysis whatif_manifest into whatif.csv.
 */
struct manifest_whatif {
	char *run;       /* a run id of this manifest */
	size_t nchanges;
	char **changes;  /* each as written, checked by whatif_parse */
	char *change;    /* the changes space-separated (whatif.csv change) */
	int line, col;   /* where the entry starts */
};

/* A run named by a comparison: "run" of this manifest or "experiment/run" of another of the build. */
struct manifest_ref {
	char *exp; /* NULL: this manifest */
	char *run;
	int line, col; /* where it is written */
};

/*
 * A comparison across experiments (key 'comparisons'): one number per run
 * (or per value of stack_by) from a table of each run's experiment, the
 * ratios to the baseline, and a grouped (or stacked) bar figure.
 */
struct manifest_comparison {
	char *id;       /* [a-z0-9_-]+, unique; names the figure comparison_<id> */
	char *title;    /* NULL: from the metric */
	char *table, *column; /* metric 'table.column' */
	char *stack_by; /* a column of the table whose values are stacked segments, or NULL */
	size_t nruns;
	struct manifest_ref *runs;
	size_t baseline; /* index into runs */
	size_t nsystems;
	char **system_exp, **system_label; /* 'systems': experiment id -> label */
	int line, col;
};

struct manifest_run {
	char *id;       /* [A-Za-z0-9._-]+, unique within the manifest */
	char *label;    /* defaults to id */
	int gpus;       /* 0: from the traces */
	int batch;      /* per-GPU batch, 0: not given */
	char *strategy; /* "ddp", "zero1", "single", ... free text, may be NULL */
	struct manifest_model model; /* run's model: manifest defaults overridden by the run's own keys */
	size_t ntraces;
	char **traces;  /* resolved paths, sorted, no duplicates */
	size_t ninputs;
	char **inputs;  /* logs, Nsight Compute CSVs, nvidia-smi XML: resolved, sorted */
	int recompute;  /* activation recomputation: 0 none, 1 selective, 2 full */
	int zero;       /* ZeRO stage 0..3; -1: not given */
	int tensor_parallel; /* model-parallel ranks; 0: not given (1) */
	int pipeline_parallel; /* pipeline stages; 0: not given (1) */
	int schedule;     /* pipeline schedule (pipeline_stages.csv): 0 not given (inferred), 1 gpipe, 2 1f1b */
	int microbatches; /* micro-batches per step of a pipeline; 0: not given (inferred) */
	int profiled;   /* what Nsight Compute profiled: 0 not given, 1 forward, 2 forward+backward */
	int grad_bytes; /* bytes per gradient element in communication; 0: from precision */
	/*
	 * 'profiler_steps': the N of the ProfilerStep#N steps that torch.profiler
	 * recorded, for a run whose traces were not kept (a training log alone);
	 * has_profiler_steps 0: not given. The traces' own steps win where a run
	 * has them (src/analyze/lib/profiled.h).
	 */
	int has_profiler_steps;
	int64_t profiler_lo, profiler_hi;
	char *scaling_baseline; /* id of the run scaling.csv measures this one against, or NULL */
	struct manifest_measured measured;
	struct manifest_published published;
	int line, col;  /* where the run starts in the manifest */
};

/*
 * A fact about the machine or its software typed into the manifest: one of
 * hardware's descriptive keys (cpu, host_memory_gb, ...) or one entry of
 * 'software' (name: version), with the value as written.
 */
struct manifest_fact {
	char *key;
	char *value;
};

struct manifest {
	char *path;  /* as given */
	char *dir;   /* directory of the manifest */
	char *id;    /* experiment id: key 'id', else the file name without .yaml/.yml */
	char *text;  /* the manifest as written */
	char *title;
	char *description;
	/*
	 * 'invented': what of the inputs is made up (typed-in traces with filler
	 * kernels and start times), or NULL: the figures that rest on it say so.
	 */
	char *invented;
	struct {
		char *nvidia_smi;   /* resolved path of an `nvidia-smi -q -x` file, or NULL */
		char *topology;     /* resolved path of `nvidia-smi topo -m` output, or NULL */
		char *interconnect; /* free text, or NULL */
		double peak_tflops; /* 0: not given */
		/*
		 * 'peaks': the GPU's dense peaks by dtype, TFLOP/s, and its memory
		 * bandwidth, GB/s, replacing perfstudy's table of peaks in
		 * op_roofline.csv (analyze/models/op_roofline.c); 0: not given.
		 */
		struct manifest_peaks {
			double bf16, fp16, tf32, fp32, memory_gbs;
		} peaks;
		size_t nfacts;
		struct manifest_fact *facts; /* the descriptive keys (system, cpu, ...), in the file's order */
	} hardware;
	size_t nsoftware;
	struct manifest_fact *software; /* 'software': package name and version, in the file's order */
	struct manifest_model model; /* defaults for every run */
	size_t nruns;
	struct manifest_run *runs;
	struct mf_run_ids *run_ids; /* private to src/manifest: runs by id (runs.c) */
	char *classify_preset; /* preset name, or NULL when rules are given */
	size_t nrules;
	struct manifest_rule *rules;
	struct {
		int top_n;      /* kernels in top-kernel figures; default 10 */
		double width_in, height_in; /* 0: from size, else the renderer's default */
		char *size;     /* "single", "double" or "slide", or NULL */
		char *font;     /* font family, or NULL for the renderer's default */
		double font_size; /* base text size in pt (7..24), 0: default */
		int hatching;   /* 1: hatch series patterns too, for greyscale print */
		int log_scale;  /* -1 auto (default), 0 never, 1 always where values are positive */
	} figures;
	size_t nphases;
	struct manifest_phase *phases;   /* 'phases' in the file's order; none: the defaults */
	size_t ncompare;
	struct manifest_compare *compare; /* 'compare'; none: each run against the first */
	size_t nseries;
	struct manifest_series *series;   /* 'series' in the file's order */
	size_t nwhatif;
	struct manifest_whatif *whatif;   /* 'whatif' in the file's order */
	/*
	 * 'thresholds': what `perfstudy diff` and the change table call a
	 * regression, when the difference is also beyond the noise; 0: none.
	 */
	struct {
		double step_time_pct; /* > 0: median step time up by more than this many percent */
		double mfu_pp;        /* < 0: MFU down by more than -mfu_pp percentage points */
	} thresholds;
	size_t ncomparisons;
	struct manifest_comparison *comparisons; /* 'comparisons', across experiments */
	size_t nmemory_batches;
	int *memory_batches; /* 'memory_batches': per-GPU batches of memory_by_batch.csv, ascending; none: default */
	/*
	 * 'parallel_comm': the communication estimate of every (TP, PP, DP)
	 * split of gpus GPUs (parallel_comm.csv); run NULL: none.
	 */
	struct {
		char *run;             /* the run whose model, batch, precision and ZeRO stage are used */
		int gpus;              /* GPUs of every configuration */
		int global_batch;      /* samples per step over all replicas; 0: the run's batch x gpus */
		int gpus_per_node;     /* 0: hardware.gpus_per_node */
		double intra_node_gbs; /* GB/s inside a node; 0: hardware.p2p_gbs */
		int zero;              /* ZeRO stage; -1: the run's */
		size_t nbandwidths;
		char **bandwidth_labels; /* 'bandwidths' in the file's order: label -> inter-node GB/s */
		double *bandwidth_gbs;
		int line, col;         /* where 'parallel_comm' starts */
	} parallel_comm;
};

/* Returns 0 and sets *out, or returns -1 after reporting every error found. */
int manifest_load(const char *path, struct manifest **out);
void manifest_free(struct manifest *m);
/* The number hardware key name (gpus_per_node, p2p_gbs, ...) was given as; 0 when it was not. */
double manifest_hardware_number(const struct manifest *m, const char *name);

#endif
