/*
 * classify.c: the classification presets and rule matching.
 *
 * Rules are data: each preset is a table of (group, pattern) pairs tried in
 * order. The "default" preset (default_tables: the default table between
 * XLA's and ROCm's) puts attention before matrix-mul because
 * cuDNN's fused attention kernels carry both words
 * ("cudnn_generated_fort_native_sdpa_sm90_flash_bprop_wgmma_..."), and
 * communication first because NCCL kernels are never compute.
 */
#include "analyze/lib/classify.h"

#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

struct crule {
	char *group;
	char *pattern;
	int is_regex, ignore_case;
	regex_t re;
};

/*
 * classify() is called once per event by some analyses; the answer for a
 * (kind, name) pair never changes, so it is remembered. The memo lives behind
 * a pointer so a const classifier can still fill it.
 */
struct memo_slot {
	char *name;
	uint64_t hash;
	int kind;
	const char *group;
};

struct memo {
	struct memo_slot *slots;
	size_t nslots, used;
};

struct classifier {
	struct memo *memo;
	char *name;
	char *memory_group; /* group of memcpy/memset activities, NULL for manifest rules */
	struct crule *rules;
	size_t nrules;
	const char **groups;
	size_t ngroups;
	char *description;
};

static const struct classify_rule default_rules[] = {
	{"communication", "nccl", 0, 1},
	{"attention", "flash", 0, 1},
	{"attention", "fmha", 0, 1},
	{"attention", "sdpa", 0, 1},
	{"attention", "attention", 0, 1},
	{"matrix-mul", "gemm", 0, 1},
	{"matrix-mul", "nvjet", 0, 1},
	{"matrix-mul", "xmma", 0, 1},
	{"matrix-mul", "wgmma", 0, 1},
	{"matrix-mul", "hmma", 0, 1},
	{"matrix-mul", "cutlass", 0, 1},
	{"matrix-mul", "cublas", 0, 1},
	{"memory", "copy_device_to_device", 0, 1},
	{"memory", "memcpy", 0, 1},
	{"memory", "memset", 0, 1},
	{"elementwise", "at::native", 0, 0},
	{"elementwise", "elementwise", 0, 1},
	{"elementwise", "reduce", 0, 1},
	{"elementwise", "softmax", 0, 1},
	{"elementwise", "norm", 0, 1},
	{"elementwise", "triton", 0, 1},
};

/*
 * XLA's kernel names (JAX, TensorFlow on GPUs), rows of the default preset
 * kept apart so that other vendors' tables (ROCm) sit beside them. XLA
 * names a kernel after the HLO it runs: fusions (fusion_651,
 * loop_add_fusion_11, input_reduce_fusion_15, input_transpose_fusion_5),
 * single instructions wrapped into a kernel (wrapped_convert,
 * wrapped_concatenate), Triton GEMM fusions (gemm_fusion_dot_326), cuBLAS
 * calls (nvjet_*, sm90_xmma_*, cutlass_*), NCCL collectives
 * (ncclDevKernel_AllReduce_*) and its own collective kernels and thunks
 * (all-reduce, all-gather, reduce-scatter, all-to-all,
 * collective-permute).
 *
 * xla_first_rules come before default_rules: "all-reduce" and
 * "reduce-scatter" hold "reduce", which the default table gives to
 * elementwise. xla_rules come after them: "gemm_fusion_dot" stays a matrix
 * product ("gemm"), "input_reduce_fusion" stays elementwise ("reduce"),
 * and the fusions and wrapped instructions that name no matrix product,
 * attention or copy are elementwise (XLA fuses elementwise, reduction,
 * transpose and concatenation work; its matrix products are cuBLAS or
 * Triton GEMM kernels, matched earlier). XLA's convolutions run as cuDNN
 * kernels (xmma, implicit_gemm: matrix-mul); "convolution" catches a
 * kernel XLA names after the instruction. XLA's names are HLO identifiers
 * (letters, digits, '_', '.', '-'), so these rules match only whole names
 * of that kind: a C++ kernel such as cuDNN's
 * "void cudnn::fusion::convert_dq_to_16bits<true>(...)" stays where it was.
 */
static const struct classify_rule xla_first_rules[] = {
	{"communication", "all-reduce", 0, 1},
	{"communication", "all_reduce", 0, 1},
	{"communication", "all-gather", 0, 1},
	{"communication", "all_gather", 0, 1},
	{"communication", "reduce-scatter", 0, 1},
	{"communication", "reduce_scatter", 0, 1},
	{"communication", "all-to-all", 0, 1},
	{"communication", "all_to_all", 0, 1},
	{"communication", "collective-permute", 0, 1},
	{"communication", "collective_permute", 0, 1},
};

static const struct classify_rule xla_rules[] = {
	{"matrix-mul", "^[A-Za-z0-9_.-]*convolution[A-Za-z0-9_.-]*$", 1, 0},
	{"elementwise", "^[A-Za-z0-9_.-]*fusion[A-Za-z0-9_.-]*$", 1, 0},
	{"elementwise", "^wrapped_[A-Za-z0-9_.-]*$", 1, 0},
};

/*
 * ROCm's kernel names (PyTorch on AMD Instinct GPUs, rocprofv3), rows of the
 * default preset kept apart like XLA's. rocm_first_rules come before
 * default_rules: RCCL's kernels are ncclDevKernel_* (matched by "nccl")
 * but also rcclGenericKernel and rccl_* ones; ROCm's legacy copy kernels
 * (rocclr's __amd_rocclr_copyBuffer*, __amd_rocclr_fillBuffer*, and
 * MEMORY_COPY_* in ROCm 7.1 and older, where later ROCm records
 * gpu_memcpy/gpu_memset events) are memory work. rocm_rules come after
 * them: hipBLASLt's and Tensile's GEMM kernels are named after their
 * problem, Cijk_Ailk_Bljk_... (C[i,j] = sum over k), and hipBLASLt's
 * newer ones start "Custom_Cijk"; Composable Kernel's GEMMs hold
 * "gemm" already. Flash attention on ROCm (the Triton kernels of
 * PyTorch's SDPA and of flash-attn: attn_fwd, attn_bwd, _attn_bwd_dq,
 * bwd_kernel_dk_dv, ...; CK's and aiter's fmha_fwd/fmha_bwd match "fmha"
 * before) is attention.
 */
static const struct classify_rule rocm_first_rules[] = {
	{"communication", "rccl", 0, 1},
	{"memory", "__amd_rocclr_copyBuffer", 0, 0},
	{"memory", "__amd_rocclr_fillBuffer", 0, 0},
	{"memory", "^MEMORY_COPY_", 1, 0},
};

static const struct classify_rule rocm_rules[] = {
	{"matrix-mul", "^(Custom_)?Cijk_", 1, 0},
	{"attention", "^_?attn_(fwd|bwd)", 1, 0},
	{"attention", "^_?bwd_kernel_(dk_dv|dq)", 1, 0},
};

/* The default preset's rules, table after table, in the order they are tried. */
static const struct rule_table {
	const struct classify_rule *rules;
	size_t n;
} default_tables[] = {
	{xla_first_rules, sizeof(xla_first_rules) / sizeof(xla_first_rules[0])},
	{rocm_first_rules, sizeof(rocm_first_rules) / sizeof(rocm_first_rules[0])},
	{default_rules, sizeof(default_rules) / sizeof(default_rules[0])},
	{xla_rules, sizeof(xla_rules) / sizeof(xla_rules[0])},
	{rocm_rules, sizeof(rocm_rules) / sizeof(rocm_rules[0])},
};

#define NRULES(t) (sizeof(t) / sizeof((t)[0]))
_Static_assert(NRULES(xla_first_rules) + NRULES(rocm_first_rules) + NRULES(default_rules) + NRULES(xla_rules) +
			       NRULES(rocm_rules) <= 64,
	       "classifier_preset's array holds the default preset's rules");

/*
 * get_ins_group of Payoungkhamdee & Phattiyaphaibun (2021), in its order:
 * gemm -> MATRIX-MUL; nccl or copy_device_to_device (any case) ->
 * MEMORY_MGMT; ::native, vectorized_elementwise, _cpp1_ii, reduce_kernel ->
 * CUSTOM_OPS; memcpy/memset activities are MEMORY_MGMT before any rule.
 */
static const struct classify_rule payoungkhamdee_rules[] = {
	{"matrix-mul", "gemm", 0, 0},
	{"memory_mgmt", "nccl", 0, 1},
	{"memory_mgmt", "copy_device_to_device", 0, 1},
	{"custom_ops", "::native", 0, 0},
	{"custom_ops", "vectorized_elementwise", 0, 0},
	{"custom_ops", "_cpp1_ii", 0, 0},
	{"custom_ops", "reduce_kernel", 0, 0},
};

static void add_group(struct classifier *c, const char *g, size_t *cap)
{
	for (size_t i = 0; i < c->ngroups; i++)
		if (!strcmp(c->groups[i], g))
			return;
	c->groups = xgrow(c->groups, cap, c->ngroups + 1, sizeof(*c->groups));
	c->groups[c->ngroups++] = g;
}

static struct classifier *build(const char *name, const char *memory_group,
				const struct classify_rule *rules, size_t n, const char *const *order)
{
	struct classifier *c = xcalloc(1, sizeof(*c));
	c->memo = xcalloc(1, sizeof(*c->memo));
	c->memo->nslots = 256;
	c->memo->slots = xcalloc(c->memo->nslots, sizeof(*c->memo->slots));
	c->name = xstrdup(name);
	c->memory_group = memory_group ? xstrdup(memory_group) : NULL;
	c->rules = xcalloc(n ? n : 1, sizeof(*c->rules));
	struct buf d;
	buf_init(&d);
	if (memory_group)
		buf_printf(&d, "memcpy and memset activities -> %s\n", memory_group);
	for (size_t i = 0; i < n; i++) {
		struct crule *r = &c->rules[i];
		r->group = xstrdup(rules[i].group);
		r->pattern = xstrdup(rules[i].pattern);
		r->is_regex = rules[i].is_regex;
		r->ignore_case = rules[i].ignore_case;
		if (r->is_regex) {
			int flags = REG_EXTENDED | REG_NOSUB | (r->ignore_case ? REG_ICASE : 0);
			int rc = regcomp(&r->re, r->pattern, flags);
			if (rc) {
				char msg[200];
				regerror(rc, &r->re, msg, sizeof(msg));
				diag_error(NULL, "invalid regular expression '%s': %s", r->pattern, msg);
				free(r->group);
				free(r->pattern);
				c->nrules = i;
				buf_release(&d);
				classifier_free(c);
				return NULL;
			}
		}
		c->nrules = i + 1;
		buf_printf(&d, "name %s '%s'%s -> %s\n", r->is_regex ? "matches" : "contains", r->pattern,
			   r->ignore_case ? " (any case)" : "", r->group);
	}
	buf_adds(&d, "anything else -> other\n");
	c->description = buf_detach(&d);
	buf_release(&d);
	size_t cap = 0;
	for (size_t i = 0; order && order[i]; i++)
		add_group(c, order[i], &cap);
	for (size_t i = 0; i < c->nrules; i++)
		add_group(c, c->rules[i].group, &cap);
	if (c->memory_group)
		add_group(c, c->memory_group, &cap);
	add_group(c, "other", &cap);
	return c;
}

struct classifier *classifier_preset(const char *name)
{
	if (!strcmp(name, "default")) {
		static const char *const order[] = {"matrix-mul", "attention", "communication", "memory",
						    "elementwise", NULL};
		struct classify_rule all[64];
		size_t n = 0;
		for (size_t t = 0; t < sizeof(default_tables) / sizeof(default_tables[0]); t++)
			for (size_t i = 0; i < default_tables[t].n && n < sizeof(all) / sizeof(all[0]); i++)
				all[n++] = default_tables[t].rules[i];
		return build(name, "memory", all, n, order);
	}
	if (!strcmp(name, "payoungkhamdee2021")) {
		static const char *const order[] = {"matrix-mul", "memory_mgmt", "custom_ops", NULL};
		return build(name, "memory_mgmt", payoungkhamdee_rules,
			     sizeof(payoungkhamdee_rules) / sizeof(payoungkhamdee_rules[0]), order);
	}
	return NULL;
}

struct classifier *classifier_rules(const struct classify_rule *rules, size_t n)
{
	return build("manifest rules", NULL, rules, n, NULL);
}

void classifier_free(struct classifier *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nrules; i++) {
		if (c->rules[i].is_regex)
			regfree(&c->rules[i].re);
		free(c->rules[i].group);
		free(c->rules[i].pattern);
	}
	free(c->rules);
	for (size_t i = 0; i < c->memo->nslots; i++)
		free(c->memo->slots[i].name);
	free(c->memo->slots);
	free(c->memo);
	free(c->groups);
	free(c->name);
	free(c->memory_group);
	free(c->description);
	free(c);
}

static int contains(const char *hay, const char *needle, int ignore_case)
{
	if (!ignore_case)
		return strstr(hay, needle) != NULL;
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

static const char *classify_rules(const struct classifier *c, const char *name)
{
	for (size_t i = 0; i < c->nrules; i++) {
		const struct crule *r = &c->rules[i];
		int hit = r->is_regex ? regexec(&r->re, name, 0, NULL, 0) == 0
				      : contains(name, r->pattern, r->ignore_case);
		if (hit)
			return r->group;
	}
	return "other";
}

static uint64_t hash_name(const char *p, int kind)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)kind;
	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static void memo_grow(struct memo *m)
{
	size_t n = m->nslots * 2;
	struct memo_slot *slots = xcalloc(n, sizeof(*slots));
	for (size_t i = 0; i < m->nslots; i++) {
		if (!m->slots[i].name)
			continue;
		size_t j = m->slots[i].hash & (n - 1);
		while (slots[j].name)
			j = (j + 1) & (n - 1);
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->nslots = n;
}

const char *classify(const struct classifier *c, enum activity_kind kind, const char *name)
{
	if (kind != ACT_KERNEL && c->memory_group)
		return c->memory_group;
	struct memo *m = c->memo;
	uint64_t h = hash_name(name, (int)kind);
	size_t j = h & (m->nslots - 1);
	while (m->slots[j].name) {
		if (m->slots[j].hash == h && m->slots[j].kind == (int)kind && !strcmp(m->slots[j].name, name))
			return m->slots[j].group;
		j = (j + 1) & (m->nslots - 1);
	}
	const char *g = classify_rules(c, name);
	m->slots[j].name = xstrdup(name);
	m->slots[j].hash = h;
	m->slots[j].kind = (int)kind;
	m->slots[j].group = g;
	if (++m->used * 2 > m->nslots)
		memo_grow(m);
	return g;
}

size_t classifier_groups(const struct classifier *c, const char *const **groups)
{
	*groups = c->groups;
	return c->ngroups;
}

const char *classifier_name(const struct classifier *c)
{
	return c->name;
}

const char *classifier_describe(const struct classifier *c)
{
	return c->description;
}
