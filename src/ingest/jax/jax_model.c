/*
 * jax_model.c: what the events of a JAX (XLA) profile mean (jax_int.h),
 * for the trace JSON reader (jax.c) and the XSpace reader (xplane.c).
 *
 * On a GPU's streams, an event is
 *   a memcpy  when it has a "memcpy_details" argument or its name starts
 *             with "Memcpy" (MemcpyH2D, MemcpyD2H, MemcpyD2D, MemcpyP2P);
 *   a memset  when it has "memset_details" (any case: JAX writes
 *             "Memset_details") or its name starts with "Memset";
 *   a kernel  otherwise (XLA fusions, cuBLAS/nvjet GEMMs, NCCL kernels, and
 *             XLA's own copy kernels such as memcpy128, which are kernels).
 * Its stream is the thread (line) id, its correlation CUPTI's
 * "correlation_id". A memcpy's bytes are the "size:" of memcpy_details, a
 * memset's the "num_bytes:" of its details. An NCCL kernel
 * (ncclDevKernel_AllReduce_Sum_bf16_RING_LL) records its collective
 * (AllReduce) and type (bf16) from its name and its communicator as its
 * "hlo_module" (one SPMD program: every device runs the program's
 * collectives in the same order, which is what cross-rank matching needs);
 * JAX does not record element counts, so no bytes.
 */
#include "ingest/jax/jax_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An argument's value, or NULL; keys compared without case (JAX writes "Memset_details", XPlane "memset_details"). */
static const char *arg(const struct jax_event *ev, const char *key)
{
	for (size_t i = 0; i < ev->nargs; i++)
		if (!strcasecmp(ev->args[i].key, key))
			return ev->args[i].value;
	return NULL;
}

/* A whole decimal integer from 0 to INT64_MAX into *out; -1 for anything else. */
static int parse_count(const char *s, int64_t *out)
{
	if (!s || !*s)
		return -1;
	int64_t v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	*out = v;
	return 0;
}

/* The integer after "key:" in a details string ("kind_src:pinned kind_dst:device size:16384"), or -1. */
static int64_t detail_int(const char *details, const char *key)
{
	size_t k = strlen(key);
	for (const char *p = details; p && *p;) {
		while (*p == ' ')
			p++;
		const char *end = strchr(p, ' ');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > k && !strncmp(p, key, k) && p[k] == ':') {
			char num[24];
			size_t m = n - k - 1;
			int64_t v;
			if (m < sizeof(num)) {
				memcpy(num, p + k + 1, m);
				num[m] = '\0';
				if (parse_count(num, &v) == 0)
					return v;
			}
			return -1;
		}
		p = end;
	}
	return -1;
}

/* A memory kind of memcpy_details ("device", "pinned", "pageable", ...) as one letter of a copy kind. */
static char side_letter(const char *details, const char *key)
{
	size_t k = strlen(key);
	const char *p = details ? strstr(details, key) : NULL;
	if (!p || p[k] != ':')
		return 0;
	p += k + 1;
	if (!strncmp(p, "device", 6))
		return 'D';
	if (!strncmp(p, "pinned", 6) || !strncmp(p, "pageable", 8) || !strncmp(p, "host", 4))
		return 'H';
	return 0;
}

/* HtoD, DtoH, DtoD, PtoP from the name (MemcpyH2D), else from memcpy_details; NULL when neither says. */
static const char *copy_kind(const char *name, const char *details)
{
	static const struct {
		const char *suffix, *kind;
	} names[] = {{"H2D", "HtoD"}, {"D2H", "DtoH"}, {"D2D", "DtoD"}, {"P2P", "PtoP"}, {"H2H", "HtoH"}};
	if (!strncmp(name, "Memcpy", 6))
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(name + 6, names[i].suffix))
				return names[i].kind;
	char s = side_letter(details, "kind_src"), d = side_letter(details, "kind_dst");
	if (s == 'H' && d == 'D')
		return "HtoD";
	if (s == 'D' && d == 'H')
		return "DtoH";
	if (s == 'D' && d == 'D')
		return "DtoD";
	if (s == 'H' && d == 'H')
		return "HtoH";
	return NULL;
}

/*
 * The collective and element type of an NCCL kernel's name:
 * ncclDevKernel_AllReduce_Sum_bf16_RING_LL(...) -> AllReduce, bf16;
 * ncclDevKernel_AllGather_RING_LL -> AllGather, no type. Returns 0 when the
 * name is not an NCCL kernel's.
 */
static int nccl_of(const char *name, char *coll, size_t ncoll, const char **dtype)
{
	static const char *const prefixes[] = {"ncclDevKernel_", "ncclKernel_"};
	static const struct {
		const char *nccl, *ours; /* NCCL's type token, collective_dtype_size's name */
	} types[] = {{"bf16", "bf16"}, {"f16", "float16"}, {"f32", "float32"}, {"f64", "double"},
		     {"i8", "Char"}, {"u8", "uint8"}, {"i32", "int32"}, {"i64", "int64"}};
	const char *p = NULL;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]) && !p; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			p = name + strlen(prefixes[i]);
	if (!p)
		return 0;
	size_t n = strcspn(p, "_(");
	if (n == 0 || n >= ncoll)
		return 0;
	memcpy(coll, p, n);
	coll[n] = '\0';
	*dtype = NULL;
	/* the type is the third token: <Collective>_<Op>_<type>_... */
	const char *q = p + n;
	for (int tok = 0; *q == '_' && tok < 2; tok++) {
		q++;
		size_t m = strcspn(q, "_(");
		if (tok == 1)
			for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
				if (strlen(types[i].nccl) == m && !strncmp(q, types[i].nccl, m))
					*dtype = types[i].ours;
		q += m;
	}
	return 1;
}

int jax_gpu_number(const char *name)
{
	static const char prefix[] = "/device:GPU:";
	if (!name || strncmp(name, prefix, sizeof(prefix) - 1))
		return -1;
	/* N, perhaps followed by a description after a blank ("/device:GPU:0 (pid 1)" in some viewers' JSON) */
	const char *p = name + sizeof(prefix) - 1;
	size_t n = strspn(p, "0123456789");
	if (n == 0 || n > 3 || (p[0] == '0' && n > 1) || (p[n] && p[n] != ' '))
		return -1;
	int v = 0;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (p[i] - '0');
	return v <= 255 ? v : -1;
}

int jax_is_host(const char *name)
{
	return name && !strcmp(name, "/host:CPU");
}

int jax_is_stream(const char *name)
{
	return name && !strncmp(name, "Stream #", 8);
}

int jax_gpu_event(struct jax_model *m, int device, const struct jax_event *ev)
{
	const char *name = ev->name ? ev->name : "";
	const char *mdet = arg(ev, "memcpy_details"), *sdet = arg(ev, "memset_details");
	enum activity_kind kind = ACT_KERNEL;
	if (mdet || !strncmp(name, "Memcpy", 6))
		kind = ACT_MEMCPY;
	else if (sdet || !strncmp(name, "Memset", 6))
		kind = ACT_MEMSET;
	int64_t corr;
	if (parse_count(arg(ev, "correlation_id"), &corr) < 0)
		corr = -1;
	char coll[32];
	const char *dtype = NULL;
	int is_nccl = kind == ACT_KERNEL && nccl_of(name, coll, sizeof(coll), &dtype);
	struct gpu_activity a = {
		.kind = kind,
		.name = name,
		.start_ns = ev->start_ns,
		.dur_ns = ev->dur_ns,
		.device = device,
		.stream = ev->tid,
		.correlation = corr,
		.bytes = kind == ACT_MEMCPY ? detail_int(mdet, "size") : kind == ACT_MEMSET ? detail_int(sdet, "num_bytes") : -1,
		.copy_kind = kind == ACT_MEMCPY ? copy_kind(name, mdet) : NULL,
		.collective = is_nccl ? coll : NULL,
		.dtype = is_nccl ? dtype : NULL,
		.process_group = is_nccl ? arg(ev, "hlo_module") : NULL,
	};
	if (kind == ACT_KERNEL)
		m->counts->kernels++;
	else if (kind == ACT_MEMCPY)
		m->counts->memcpys++;
	else
		m->counts->memsets++;
	m->devices_seen[device / 64] |= (uint64_t)1 << (device % 64);
	return m->sink->activity && m->sink->activity(m->sink->ctx, &a) ? -1 : 0;
}

int jax_host_event(struct jax_model *m, const struct jax_event *ev)
{
	const char *name = ev->name ? ev->name : "";
	int64_t step, corr;
	if (parse_count(arg(ev, "step_num"), &step) == 0) {
		char label[40];
		snprintf(label, sizeof(label), "ProfilerStep#%lld", (long long)step);
		struct annotation an = {
			.name = label, .start_ns = ev->start_ns, .dur_ns = ev->dur_ns, .on_gpu = 0, .tid = ev->tid,
		};
		m->counts->annotations++;
		m->counts->steps++;
		return m->sink->annotation && m->sink->annotation(m->sink->ctx, &an) ? -1 : 0;
	}
	if (parse_count(arg(ev, "correlation_id"), &corr) == 0) {
		struct runtime_call rc = {
			.name = name, .start_ns = ev->start_ns, .dur_ns = ev->dur_ns, .correlation = corr, .tid = ev->tid,
		};
		m->counts->runtime++;
		return m->sink->runtime && m->sink->runtime(m->sink->ctx, &rc) ? -1 : 0;
	}
	return 0;
}

int jax_device_count(const struct jax_model *m)
{
	int n = 0;
	for (size_t i = 0; i < 4; i++)
		n += __builtin_popcountll(m->devices_seen[i]);
	return n;
}
