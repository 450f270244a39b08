/*
 * test_manifest.c: manifest_load on valid studies and on a table of bad ones.
 *
 * Everything happens in a fresh mkdtemp directory holding small dummy trace
 * files, which becomes the working directory so that error messages read
 * "m.yaml:L:C: error: ..." and can be pinned byte for byte. The line and
 * column in every expected message were counted by hand from the case's text.
 * diag writes to stderr, so each load runs with file descriptor 2 sent to a
 * file that is read back afterwards.
 */
#include "manifest/manifest.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* Files and directories made here, removed in reverse order at the end. */
static char *made[64];
static size_t nmade;

static void remember(const char *path)
{
	if (nmade < sizeof(made) / sizeof(made[0]))
		made[nmade++] = xstrdup(path);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	remember(path);
}

static void mkd(const char *path)
{
	if (mkdir(path, 0700)) {
		perror(path);
		exit(1);
	}
	remember(path);
}

/* Runs manifest_load(path) with stderr captured; returns what was written (caller frees). */
static char *load(const char *path, struct manifest **m, int *rc)
{
	fflush(stderr);
	int saved = dup(2);
	int fd = open("stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (saved < 0 || fd < 0) {
		perror("stderr.txt");
		exit(1);
	}
	dup2(fd, 2);
	close(fd);
	diag_reset();
	*rc = manifest_load(path, m);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	char *s = check_slurp("stderr.txt", NULL);
	return s ? s : calloc(1, 1); /* nothing said: an empty text */
}

/* A run line that is valid in the working directory. */
#define RUNS "runs: [{id: a, traces: traces/a/rank0.json}]\n"

struct bad_case {
	const char *name;
	const char *yaml; /* written to m.yaml */
	const char *want; /* stderr, exactly */
};

static const struct bad_case bad_cases[] = {
	{"typo key",
		"title: x\n"
		"rnus:\n"
		"  - id: a\n"
		"    traces: traces/a/rank0.json\n",
		"m.yaml:2:1: error: unknown key 'rnus' (did you mean 'runs'?)\n"
		"m.yaml:1:1: error: missing required key 'runs'\n"},
	{"typo key in a run",
		"title: x\n"
		"runs: [{id: a, trace: traces/a/rank0.json}]\n",
		"m.yaml:2:16: error: unknown key 'trace' (did you mean 'traces'?)\n"
		"m.yaml:2:8: error: missing required key 'traces'\n"},
	{"unknown key, nothing close",
		"title: x\n" RUNS "colour: red\n",
		"m.yaml:3:1: error: unknown key 'colour'\n"},
	{"wrong types",
		"title: x\n"
		"model:\n"
		"  layers: abc\n"
		"hardware: h200\n" RUNS,
		"m.yaml:3:11: error: expected an integer for 'layers', got 'abc'\n"
		"m.yaml:4:11: error: expected a mapping for 'hardware', got 'h200'\n"},
	{"integers out of range",
		"title: x\n"
		"runs: [{id: a, gpus: 0, batch: 1.5, traces: traces/a/rank0.json}]\n"
		"model: {heads: -3, seq: 99999999999999999999}\n",
		"m.yaml:2:22: error: 'gpus' must be at least 1, got 0\n"
		"m.yaml:2:32: error: expected an integer for 'batch', got '1.5'\n"
		"m.yaml:3:16: error: 'heads' must be at least 1, got -3\n"
		"m.yaml:3:25: error: 'seq' must be at most 9223372036854775807, got 99999999999999999999\n"},
	{"numbers",
		"title: x\n" RUNS
		"hardware: {peak_tflops: nan}\n"
		"figures: {top_n: 51, width_in: 0}\n",
		"m.yaml:3:25: error: expected a finite number for 'peak_tflops', got 'nan'\n"
		"m.yaml:4:18: error: 'top_n' must be between 1 and 50, got 51\n"
		"m.yaml:4:32: error: 'width_in' must be greater than 0, got 0\n"},
	{"figure settings",
		"title: x\n" RUNS
		"figures: {size: singel, font_size: 6.5, hatching: yes, log_scale: maybe, font: \"\"}\n",
		"m.yaml:3:17: error: unknown value 'singel' for 'size' (did you mean 'single'?)\n"
		"m.yaml:3:36: error: 'font_size' must be between 7 and 24 (points), got 6.5\n"
		"m.yaml:3:51: error: expected true or false for 'hatching', got 'yes'\n"
		"m.yaml:3:67: error: unknown value 'maybe' for 'log_scale' (expected one of auto, true, false)\n"
		"m.yaml:3:80: error: 'font' must not be empty\n"},
	{"missing title",
		RUNS,
		"m.yaml:1:1: error: missing required key 'title'\n"},
	{"empty title",
		"title:\n" RUNS,
		"m.yaml:1:1: error: missing value for 'title'\n"},
	{"duplicate key",
		"title: x\n"
		"title: y\n" RUNS,
		"m.yaml:2:1: error: duplicate key 'title' (first at 1:1)\n"},
	{"missing trace file",
		"title: x\n"
		"runs:\n"
		"  - id: a\n"
		"    traces: traces/a/rank9.json\n",
		"m.yaml:4:13: error: no file matches 'traces/a/rank9.json'\n"},
	{"glob matching nothing",
		"title: x\n"
		"runs:\n"
		"  - id: a\n"
		"    traces:\n"
		"      - traces/a/rank0.json\n"
		"      - \"traces/c/*.json\"\n",
		"m.yaml:6:9: error: no file matches 'traces/c/*.json'\n"},
	{"directory as trace",
		"title: x\n"
		"runs:\n"
		"  - id: a\n"
		"    traces: traces/dir\n",
		"m.yaml:4:13: error: 'traces/dir' is a directory, expected a trace file\n"},
	{"run without traces",
		"title: x\n"
		"runs:\n"
		"  - id: a\n"
		"    gpus: 2\n",
		"m.yaml:3:5: error: missing required key 'traces'\n"},
	{"duplicate run id",
		"title: x\n"
		"runs:\n"
		"  - id: a\n"
		"    traces: traces/a/rank0.json\n"
		"  - id: a\n"
		"    traces: traces/a/rank1.json\n",
		"m.yaml:5:9: error: duplicate run id 'a' (first at 3:9)\n"},
	{"bad run id",
		"title: x\n"
		"runs: [{id: a/b, traces: traces/a/rank0.json}]\n",
		"m.yaml:2:13: error: invalid run id 'a/b': use letters, digits, '.', '_' and '-'\n"},
	{"bad experiment id",
		"id: Big Study\n"
		"title: x\n" RUNS,
		"m.yaml:1:5: error: invalid experiment id 'Big Study': use letters, digits, '_' and '-'\n"},
	{"nvidia_smi missing",
		"title: x\n" RUNS
		"hardware:\n"
		"  nvidia_smi: smi-missing.xml\n",
		"m.yaml:4:15: error: 'smi-missing.xml' does not exist\n"},
	{"bad regex",
		"title: x\n" RUNS
		"classify:\n"
		"  rules:\n"
		"    - group: attn\n"
		"      regex: \"fmha(\"\n",
		"m.yaml:6:14: error: invalid regex 'fmha(': Unmatched ( or \\(\n"},
	{"rule without group",
		"title: x\n" RUNS
		"classify: {rules: [{contains: gemm, ignore_case: yes}]}\n",
		"m.yaml:3:50: error: expected true or false for 'ignore_case', got 'yes'\n"
		"m.yaml:3:20: error: missing required key 'group'\n"},
	{"bad preset name",
		"title: x\n" RUNS
		"classify: defualt\n",
		"m.yaml:3:11: error: unknown classify preset 'defualt' (did you mean 'default'?)\n"},
	{"bad preset in a mapping",
		"title: x\n" RUNS
		"classify: {preset: nvidia}\n",
		"m.yaml:3:20: error: unknown classify preset 'nvidia' (expected 'default' or 'payoungkhamdee2021')\n"},
	{"alias",
		"title: &t x\n"
		"runs: [{id: *t, traces: traces/a/rank0.json}]\n",
		"m.yaml:2:13: error: alias '*t' is not supported, repeat the value instead\n"},
	{"yaml tab",
		"title: x\n"
		"runs:\n"
		"\t- id: a\n",
		"m.yaml:3:1: error: found character that cannot start any token (while scanning for the next token at 3:1)\n"},
	{"yaml unclosed bracket",
		"title: x\n"
		"runs: [{id: a, traces: traces/a/rank0.json}\n",
		"m.yaml:3:1: error: did not find expected ',' or ']' (while parsing a flow sequence at 2:7)\n"},
	{"bad utf-8",
		"title: x\xff\n" RUNS,
		"m.yaml:1:9: error: invalid leading UTF-8 octet\n"},
	{"two documents",
		"title: x\n" RUNS
		"---\n"
		"title: y\n",
		"m.yaml:3:1: error: expected one YAML document, found a second one\n"},
	{"empty file",
		"",
		"m.yaml:1:1: error: empty manifest, expected a mapping with 'title' and 'runs'\n"},
	{"comments only",
		"# nothing yet\n",
		"m.yaml:1:1: error: empty manifest, expected a mapping with 'title' and 'runs'\n"},
	{"not a mapping",
		"- title: x\n",
		"m.yaml:1:1: error: expected a mapping at the top of the manifest, got a sequence\n"},
	{"version 2",
		"version: 2\n"
		"title: x\n" RUNS,
		"m.yaml:1:10: error: unsupported manifest version 2 (expected 1)\n"},
	{"model and run estimate keys",
		"title: x\n"
		"model: {arch: gtp, precision: int8}\n"
		"runs: [{id: a, traces: traces/a/rank0.json, recompute: some, zero: 4, profiled: backward}]\n",
		"m.yaml:2:15: error: unknown value 'gtp' for 'arch' (did you mean 'gpt'?)\n"
		"m.yaml:2:31: error: unknown value 'int8' for 'precision' (expected one of fp32, tf32, fp16, bf16, fp8, fp64)\n"
		"m.yaml:3:56: error: unknown value 'some' for 'recompute' (did you mean 'none'?)\n"
		"m.yaml:3:68: error: 'zero' must be between 0 and 3, got 4\n"
		"m.yaml:3:81: error: unknown value 'backward' for 'profiled' (expected one of forward, forward+backward)\n"},
	{"framework keys",
		"title: x\n"
		"model: {framework: megatorn, objective: nsp, vocab_multiple: 0, flops_method: mac}\n"
		"runs: [{id: a, traces: traces/a/rank0.json}]\n",
		"m.yaml:2:20: error: unknown value 'megatorn' for 'framework' (did you mean 'megatron'?)\n"
		"m.yaml:2:41: error: unknown value 'nsp' for 'objective' (expected one of none, mlm, mlm+nsp)\n"
		"m.yaml:2:62: error: 'vocab_multiple' must be at least 1, got 0\n"
		"m.yaml:2:79: error: unknown value 'mac' for 'flops_method' (expected one of perfstudy, paper001)\n"},
	{"typed-in values",
		"title: x\n"
		"runs:\n"
		"  - id: a\n"
		"    measured: {iteration_ms: 0, sample_per_s: 3, oom: 1}\n"
		"    published: {params: 1.5}\n",
		"m.yaml:4:30: error: 'iteration_ms' must be greater than 0, got 0\n"
		"m.yaml:4:33: error: unknown key 'sample_per_s' (did you mean 'samples_per_s'?)\n"
		"m.yaml:4:55: error: expected true or false for 'oom', got '1'\n"
		"m.yaml:5:25: error: expected an integer for 'params', got '1.5'\n"},
	{"phases and compare",
		"title: x\n" RUNS
		"phases: {fwd: {a: 1}, bad name: x, fwd: y}\n"
		"compare: [[a, zz], [a], [a, a]]\n",
		"m.yaml:3:15: error: expected an annotation name or a list of them for 'fwd', got a mapping\n"
		"m.yaml:3:23: error: expected a phase name of letters, digits, '_', '.' and '-', got 'bad name'\n"
		"m.yaml:3:36: error: duplicate phase 'fwd' (first at 3:10)\n"
		"m.yaml:4:20: error: expected a pair of run ids like [a, b] in 'compare', got a sequence\n"
		"m.yaml:4:25: error: 'compare' pairs two different runs, got 'a' twice\n"
		"m.yaml:4:15: error: unknown run 'zz' in 'compare'\n"},
	{"series and thresholds",
		"title: x\n" RUNS
		"series: [{name: s, runs: [a, zz, a]}, {name: bad name, runs: []}, {name: s, runs: [a]}, x]\n"
		"thresholds: {step_time_pct: 0, mfu_pp: 1, mfu: -2}\n",
		"m.yaml:3:34: error: run 'a' is in series 's' twice\n"
		"m.yaml:3:46: error: a series name is letters, digits, '_', '.' and '-', got 'bad name'\n"
		"m.yaml:3:62: error: a series needs at least one run in 'runs', got an empty list\n"
		"m.yaml:3:74: error: duplicate series 's'\n"
		"m.yaml:3:89: error: expected a series like {name: nightly, runs: [a, b]} in 'series', got 'x'\n"
		"m.yaml:4:29: error: 'step_time_pct' must be greater than 0 (a rise in percent), got 0\n"
		"m.yaml:4:40: error: 'mfu_pp' must be less than 0 (a fall in percentage points), got 1\n"
		"m.yaml:4:43: error: unknown key 'mfu'\n"
		"m.yaml:3:30: error: unknown run 'zz' in 'series'\n"},
	{"inputs matching nothing",
		"title: x\n"
		"runs: [{id: a, inputs: [logs/*.log]}]\n",
		"m.yaml:2:25: error: no file matches 'logs/*.log'\n"},
	{"directory as input",
		"title: x\n"
		"runs: [{id: a, inputs: traces/dir}]\n",
		"m.yaml:2:24: error: 'traces/dir' is a directory, expected an input file\n"},
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *bc = &bad_cases[i];
		struct manifest *m = (struct manifest *)1;
		int rc;
		FILE *f = fopen("m.yaml", "wb");
		fputs(bc->yaml, f);
		fclose(f);
		char *err = load("m.yaml", &m, &rc);
		if (strcmp(err, bc->want))
			fprintf(stderr, "case '%s':\n", bc->name);
		CHECK_STR(err, bc->want);
		CHECK_INT(rc, -1);
		CHECK(m == NULL);
		CHECK_INT(diag_exit_code(), EXIT_INPUT);
		free(err);
	}
	remember("m.yaml");
}

static void test_cannot_open(void)
{
	struct manifest *m;
	int rc;
	char *err = load("nope.yaml", &m, &rc);
	CHECK_STR(err, "nope.yaml: error: cannot open: No such file or directory\n");
	CHECK_INT(rc, -1);
	CHECK(m == NULL);
	CHECK_INT(diag_exit_code(), EXIT_SYSTEM);
	free(err);
}

/*
 * The full manifest sits in a directory whose name holds glob characters, so
 * the prefix added to each pattern must be escaped. 'model' comes after
 * 'runs' on purpose: runs inherit it all the same.
 */
static const char full_yaml[] =
	"version: 1\n"                                  /* 1 */
	"title: Test study\n"                           /* 2 */
	"description: >\n"                              /* 3 */
	"  Two runs,\n"                                 /* 4 */
	"  one model.\n"                                /* 5 */
	"hardware:\n"                                   /* 6 */
	"  nvidia_smi: smi.xml\n"                       /* 7 */
	"  interconnect: NVLink\n"                      /* 8 */
	"  peak_tflops: 989.5\n"                        /* 9 */
	"runs:\n"                                       /* 10 */
	"  - id: r1\n"                                  /* 11: run at 11:5 */
	"    label: Run one\n"                          /* 12 */
	"    gpus: 2\n"                                 /* 13 */
	"    batch: 8\n"                                /* 14 */
	"    strategy: ddp\n"                           /* 15 */
	"    model: {name: small, layers: 6, vocab: 1000}\n" /* 16 */
	"    traces: traces/a/rank*.json\n"             /* 17 */
	"  - id: r2\n"                                  /* 18: run at 18:5 */
	"    traces: [traces/b/rank0.json, \"traces/a/rank1.json\", traces/*/rank0.json]\n"
	"model:\n"
	"  name: base\n"
	"  layers: 12\n"
	"  hidden: 768\n"
	"  heads: 12\n"
	"  ffn: 3072\n"
	"  seq: 1024\n"
	"  vocab: 50257\n"
	"classify:\n"
	"  rules:\n"
	"    - {group: gemm, contains: gemm, ignore_case: true}\n"
	"    - {group: attn, regex: \"flash|fmha\"}\n"
	"figures: {top_n: 5, width_in: 6.5, height_in: 4, size: slide, font: DejaVu Serif,\n"
	"  font_size: 9.5, hatching: true, log_scale: false}\n";

static void test_full(void)
{
	struct manifest *m = NULL;
	int rc;
	mkd("x[1]");
	mkd("x[1]/traces");
	mkd("x[1]/traces/a");
	mkd("x[1]/traces/b");
	mkd("x[1]/traces/dir");
	put("x[1]/traces/a/rank1.json", "{}");
	put("x[1]/traces/a/rank0.json", "{}");
	put("x[1]/traces/b/rank0.json", "{}");
	put("x[1]/smi.xml", "<nvidia_smi_log/>");
	put("x[1]/Study-One.yaml", full_yaml);

	char *err = load("x[1]/Study-One.yaml", &m, &rc);
	CHECK_STR(err, "");
	free(err);
	CHECK_INT(rc, 0);
	if (!m)
		return;
	CHECK_STR(m->path, "x[1]/Study-One.yaml");
	CHECK_STR(m->dir, "x[1]");
	CHECK_STR(m->id, "study-one");
	CHECK_STR(m->text, full_yaml);
	CHECK_STR(m->title, "Test study");
	CHECK_STR(m->description, "Two runs, one model.\n");
	CHECK_STR(m->hardware.nvidia_smi, "x[1]/smi.xml");
	CHECK_STR(m->hardware.interconnect, "NVLink");
	CHECK(m->hardware.peak_tflops == 989.5);

	CHECK_STR(m->model.name, "base");
	CHECK_INT(m->model.layers, 12);
	CHECK_INT(m->model.hidden, 768);
	CHECK_INT(m->model.heads, 12);
	CHECK_INT(m->model.ffn, 3072);
	CHECK_INT(m->model.seq, 1024);
	CHECK_INT(m->model.vocab, 50257);

	CHECK_INT(m->nruns, 2);
	if (m->nruns == 2) {
		const struct manifest_run *r = &m->runs[0];
		CHECK_STR(r->id, "r1");
		CHECK_STR(r->label, "Run one");
		CHECK_INT(r->gpus, 2);
		CHECK_INT(r->batch, 8);
		CHECK_STR(r->strategy, "ddp");
		CHECK_INT(r->line, 11);
		CHECK_INT(r->col, 5);
		/* The run's own keys win; the others come from the manifest's model. */
		CHECK_STR(r->model.name, "small");
		CHECK_INT(r->model.layers, 6);
		CHECK_INT(r->model.hidden, 768);
		CHECK_INT(r->model.heads, 12);
		CHECK_INT(r->model.ffn, 3072);
		CHECK_INT(r->model.seq, 1024);
		CHECK_INT(r->model.vocab, 1000);
		CHECK_INT(r->ntraces, 2);
		if (r->ntraces == 2) {
			CHECK_STR(r->traces[0], "x[1]/traces/a/rank0.json");
			CHECK_STR(r->traces[1], "x[1]/traces/a/rank1.json");
		}

		r = &m->runs[1];
		CHECK_STR(r->id, "r2");
		CHECK_STR(r->label, "r2");
		CHECK_INT(r->gpus, 0);
		CHECK_INT(r->batch, 0);
		CHECK(r->strategy == NULL);
		CHECK_INT(r->line, 18);
		CHECK_INT(r->col, 5);
		CHECK_STR(r->model.name, "base");
		CHECK_INT(r->model.layers, 12);
		CHECK_INT(r->model.vocab, 50257);
		/* Three patterns, four matches, one duplicate; sorted. */
		CHECK_INT(r->ntraces, 3);
		if (r->ntraces == 3) {
			CHECK_STR(r->traces[0], "x[1]/traces/a/rank0.json");
			CHECK_STR(r->traces[1], "x[1]/traces/a/rank1.json");
			CHECK_STR(r->traces[2], "x[1]/traces/b/rank0.json");
		}
	}

	CHECK(m->classify_preset == NULL);
	CHECK_INT(m->nrules, 2);
	if (m->nrules == 2) {
		CHECK_STR(m->rules[0].group, "gemm");
		CHECK_STR(m->rules[0].pattern, "gemm");
		CHECK_INT(m->rules[0].is_regex, 0);
		CHECK_INT(m->rules[0].ignore_case, 1);
		CHECK_STR(m->rules[1].group, "attn");
		CHECK_STR(m->rules[1].pattern, "flash|fmha");
		CHECK_INT(m->rules[1].is_regex, 1);
		CHECK_INT(m->rules[1].ignore_case, 0);
	}
	CHECK_INT(m->figures.top_n, 5);
	CHECK(m->figures.width_in == 6.5);
	CHECK(m->figures.height_in == 4.0);
	CHECK_STR(m->figures.size, "slide");
	CHECK_STR(m->figures.font, "DejaVu Serif");
	CHECK(m->figures.font_size == 9.5);
	CHECK_INT(m->figures.hatching, 1);
	CHECK_INT(m->figures.log_scale, 0);
	manifest_free(m);
}

/* Only the required keys: every default shows. */
static void test_minimal(void)
{
	struct manifest *m = NULL;
	int rc;
	static const char yaml[] =
		"title: Minimal\n"
		"runs:\n"
		"  - id: only\n"
		"    traces: traces/a/rank0.json\n";
	put("minimal.yml", yaml);
	char *err = load("minimal.yml", &m, &rc);
	CHECK_STR(err, "");
	free(err);
	CHECK_INT(rc, 0);
	if (!m)
		return;
	CHECK_STR(m->id, "minimal");
	CHECK_STR(m->dir, ".");
	CHECK_STR(m->text, yaml);
	CHECK(m->description == NULL);
	CHECK(m->hardware.nvidia_smi == NULL);
	CHECK(m->hardware.interconnect == NULL);
	CHECK(m->hardware.peak_tflops == 0);
	CHECK(m->model.name == NULL);
	CHECK_INT(m->model.layers, 0);
	CHECK_STR(m->classify_preset, "default");
	CHECK_INT(m->nrules, 0);
	CHECK_INT(m->figures.top_n, 10);
	CHECK(m->figures.width_in == 0);
	CHECK(m->figures.height_in == 0);
	CHECK(m->figures.size == NULL);
	CHECK(m->figures.font == NULL);
	CHECK(m->figures.font_size == 0);
	CHECK_INT(m->figures.hatching, 0);
	CHECK_INT(m->figures.log_scale, -1);
	CHECK_INT(m->nruns, 1);
	if (m->nruns == 1) {
		const struct manifest_run *r = &m->runs[0];
		CHECK_STR(r->label, "only");
		CHECK(r->model.name == NULL);
		CHECK_INT(r->model.vocab, 0);
		CHECK_INT(r->ntraces, 1);
		if (r->ntraces == 1)
			CHECK_STR(r->traces[0], "traces/a/rank0.json");
	}
	manifest_free(m);
}

/* Runs with other inputs or typed-in numbers instead of traces, and the estimate keys. */
static void test_typed_in(void)
{
	struct manifest *m = NULL;
	int rc;
	put("typed.yaml",
		"title: T\n"
		"hardware: {system: IDK, cpu_cores: 64, host_memory_gb: 376.5, p2p_gbs: 80.5}\n"
		"software: {PyTorch Lightning: 1.3.8, CUDA: \"11.10\"}\n"
		"model: {layers: 24, hidden: 1024, arch: bert, precision: fp16, framework: megatron, vocab_multiple: 64}\n"
		"runs:\n"
		"  - id: typed\n"
		"    gpus: 16\n"
		"    batch: 8\n"
		"    recompute: full\n"
		"    zero: 0\n"
		"    tensor_parallel: 2\n"
		"    grad_bytes: 2\n"
		"    model: {precision: bf16, objective: mlm, flops_method: paper001}\n"
		"    measured: {iteration_ms: 2697, samples_per_s: 23.73, tflops_per_gpu: 1e1, memory_gb: 31.2,\n"
		"               params: 2488688640, oom: false}\n"
		"    published: {params: 125000000, flops_tflop: 0.6, activation_gb: 2.4}\n"
		"  - id: ncu\n"
		"    profiled: forward+backward\n"
		"    inputs: [traces/a/rank1.json, \"traces/a/*.json\"]\n");
	char *err = load("typed.yaml", &m, &rc);
	CHECK_STR(err, "");
	free(err);
	CHECK_INT(rc, 0);
	if (!m)
		return;
	CHECK_INT(m->hardware.nfacts, 4);
	if (m->hardware.nfacts == 4) {
		CHECK_STR(m->hardware.facts[0].key, "system");
		CHECK_STR(m->hardware.facts[0].value, "IDK");
		CHECK_STR(m->hardware.facts[2].key, "host_memory_gb");
		CHECK_STR(m->hardware.facts[2].value, "376.5");
		CHECK_STR(m->hardware.facts[3].value, "80.5");
	}
	CHECK_INT(m->nsoftware, 2);
	if (m->nsoftware == 2) {
		CHECK_STR(m->software[0].key, "PyTorch Lightning");
		CHECK_STR(m->software[0].value, "1.3.8");
		CHECK_STR(m->software[1].value, "11.10"); /* as written, not the number 11.1 */
	}
	CHECK_INT(m->nruns, 2);
	if (m->nruns == 2) {
		const struct manifest_run *r = &m->runs[0];
		CHECK_INT(r->ntraces, 0);
		CHECK_INT(r->ninputs, 0);
		CHECK_STR(r->model.arch, "bert");
		CHECK_STR(r->model.precision, "bf16");
		CHECK_STR(r->model.framework, "megatron");
		CHECK_STR(r->model.objective, "mlm");
		CHECK_INT(r->model.vocab_multiple, 64);
		CHECK_STR(r->model.flops_method, "paper001");
		CHECK_INT(r->recompute, 2);
		CHECK_INT(r->zero, 0);
		CHECK_INT(r->tensor_parallel, 2);
		CHECK_INT(r->grad_bytes, 2);
		CHECK_INT(r->profiled, 0);
		CHECK(r->measured.iteration_ms == 2697);
		CHECK(r->measured.samples_per_s == 23.73);
		CHECK(r->measured.tflops_per_gpu == 10);
		CHECK(r->measured.memory_gb == 31.2);
		CHECK_INT(r->measured.params, 2488688640);
		CHECK_INT(r->measured.oom, 0);
		CHECK_INT(r->published.params, 125000000);
		CHECK(r->published.flops_tflop == 0.6);
		CHECK(r->published.activation_gb == 2.4);
		r = &m->runs[1];
		CHECK_STR(r->model.precision, "fp16");
		CHECK_STR(r->model.framework, "megatron");
		CHECK(r->model.objective == NULL);
		CHECK(r->model.flops_method == NULL);
		CHECK_INT(r->model.vocab_multiple, 64);
		CHECK_INT(r->zero, -1);
		CHECK_INT(r->recompute, 0);
		CHECK_INT(r->profiled, 2);
		CHECK_INT(r->ntraces, 0);
		CHECK_INT(r->ninputs, 2);
		if (r->ninputs == 2) {
			CHECK_STR(r->inputs[0], "traces/a/rank0.json");
			CHECK_STR(r->inputs[1], "traces/a/rank1.json");
		}
	}
	manifest_free(m);
}

/* An explicit id is lowercased; a preset can be given as a mapping. */
static void test_id_and_preset(void)
{
	struct manifest *m = NULL;
	int rc;
	put("third.yaml",
		"id: My-Study\n"
		"title: T\n"
		"classify: {preset: payoungkhamdee2021}\n"
		"runs: [{id: x.y_z-1, traces: [traces/a/rank1.json, traces/a/rank1.json]}]\n");
	char *err = load("third.yaml", &m, &rc);
	CHECK_STR(err, "");
	free(err);
	CHECK_INT(rc, 0);
	if (!m)
		return;
	CHECK_STR(m->id, "my-study");
	CHECK_STR(m->classify_preset, "payoungkhamdee2021");
	CHECK_INT(m->nruns, 1);
	if (m->nruns == 1) {
		CHECK_STR(m->runs[0].id, "x.y_z-1");
		CHECK_INT(m->runs[0].ntraces, 1);
	}
	manifest_free(m);
}

/* 'phases' keeps the file's order and its names as written; 'compare' its pairs. */
static void test_phases_compare(void)
{
	struct manifest *m = NULL;
	int rc;
	put("ph.yaml",
		"title: T\n"
		"compare: [[b, a]]\n"
		"phases:\n"
		"  forward: [model_forward, \"[LightningModule]*.training_step\"]\n"
		"  optimizer_step: step\n"
		"  backward: []\n"
		"  loss:\n"
		"runs: [{id: a, traces: traces/a/rank0.json}, {id: b, traces: traces/a/rank1.json}]\n");
	char *err = load("ph.yaml", &m, &rc);
	CHECK_STR(err, "");
	free(err);
	CHECK_INT(rc, 0);
	if (!m)
		return;
	CHECK_INT(m->nphases, 3);
	if (m->nphases == 3) {
		CHECK_STR(m->phases[0].name, "forward");
		CHECK_INT(m->phases[0].nnames, 2);
		if (m->phases[0].nnames == 2) {
			CHECK_STR(m->phases[0].names[0], "model_forward");
			CHECK_STR(m->phases[0].names[1], "[LightningModule]*.training_step");
		}
		CHECK_STR(m->phases[1].name, "optimizer_step");
		CHECK_INT(m->phases[1].nnames, 1);
		if (m->phases[1].nnames == 1)
			CHECK_STR(m->phases[1].names[0], "step");
		CHECK_STR(m->phases[2].name, "backward");
		CHECK_INT(m->phases[2].nnames, 0);
	}
	CHECK_INT(m->ncompare, 1);
	if (m->ncompare == 1) {
		CHECK_STR(m->compare[0].a, "b");
		CHECK_STR(m->compare[0].b, "a");
	}
	manifest_free(m);
}

/* 'series' keeps its runs in the order given; 'thresholds' its two numbers. */
static void test_series_thresholds(void)
{
	struct manifest *m = NULL;
	int rc;
	put("se.yaml",
		"title: T\n"
		"series:\n"
		"  - {name: nightly, runs: [b, a]}\n"
		"  - {name: one.more, runs: [a]}\n"
		"thresholds: {step_time_pct: 5, mfu_pp: -2.5}\n"
		"runs: [{id: a, traces: traces/a/rank0.json}, {id: b, traces: traces/a/rank1.json}]\n");
	char *err = load("se.yaml", &m, &rc);
	CHECK_STR(err, "");
	free(err);
	CHECK_INT(rc, 0);
	if (!m)
		return;
	CHECK_INT(m->nseries, 2);
	if (m->nseries == 2) {
		CHECK_STR(m->series[0].name, "nightly");
		CHECK_INT(m->series[0].nruns, 2);
		if (m->series[0].nruns == 2) {
			CHECK_STR(m->series[0].runs[0], "b");
			CHECK_STR(m->series[0].runs[1], "a");
		}
		CHECK_STR(m->series[1].name, "one.more");
	}
	CHECK(m->thresholds.step_time_pct == 5);
	CHECK(m->thresholds.mfu_pp == -2.5);
	manifest_free(m);
}

int main(void)
{
	char tmpl[] = "/tmp/test_manifest.XXXXXX";
	char *dir = mkdtemp(tmpl);
	char *old = getcwd(NULL, 0);
	if (!dir || !old || chdir(dir)) {
		perror("test_manifest: temporary directory");
		return 1;
	}
	remember("stderr.txt");
	mkd("traces");
	mkd("traces/a");
	mkd("traces/dir");
	put("traces/a/rank0.json", "{}");
	put("traces/a/rank1.json", "{}");

	test_full();
	test_minimal();
	test_id_and_preset();
	test_typed_in();
	test_phases_compare();
	test_series_thresholds();
	test_bad();
	test_cannot_open();

	while (nmade > 0) {
		nmade--;
		remove(made[nmade]);
		free(made[nmade]);
	}
	diag_reset();
	if (chdir(old) || rmdir(dir))
		perror(dir);
	free(old);
	return check_result("test_manifest");
}
