/*
 * manifest.h: the study manifest (YAML, version 1).
 *
 * manifest_load() reads one manifest with libyaml and checks it fully:
 * unknown keys, wrong types, missing required keys and trace paths/globs that
 * match no file are errors reported through diag as "file:line:col: error: ..."
 * (line and column 1-based). Trace paths are resolved relative to the
 * manifest's directory and globs are expanded (sorted). Every key is
 * documented in the README's manifest reference.
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
};

struct manifest_rule {
	char *group;
	char *pattern;
	int is_regex; /* 0: substring match; 1: POSIX extended regex */
	int ignore_case;
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
	int line, col;  /* where the run starts in the manifest */
};

struct manifest {
	char *path;  /* as given */
	char *dir;   /* directory of the manifest */
	char *id;    /* experiment id: key 'id', else the file name without .yaml/.yml */
	char *text;  /* the manifest as written */
	char *title;
	char *description;
	struct {
		char *nvidia_smi;   /* resolved path of an `nvidia-smi -q -x` file, or NULL */
		char *interconnect; /* free text, or NULL */
		double peak_tflops; /* 0: not given */
	} hardware;
	struct manifest_model model; /* defaults for every run */
	size_t nruns;
	struct manifest_run *runs;
	char *classify_preset; /* preset name, or NULL when rules are given */
	size_t nrules;
	struct manifest_rule *rules;
	struct {
		int top_n;      /* kernels in top-kernel figures; default 10 */
		double width_in, height_in; /* 0: default */
	} figures;
};

/* Returns 0 and sets *out, or returns -1 after reporting every error found. */
int manifest_load(const char *path, struct manifest **out);
void manifest_free(struct manifest *m);

#endif
