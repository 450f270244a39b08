/*
 * kineto.c: the reader for PyTorch profiler (Kineto) Chrome-trace JSON.
 *
 * kineto_json.cpp walks the JSON; this file decides what each event means.
 * Kineto writes complete events (ph "X") whose "cat" says what they are:
 *   kernel, gpu_memcpy, gpu_memset          GPU activities
 *   cuda_runtime, cuda_driver               host launches (correlation links them to kernels)
 *   user_annotation, gpu_user_annotation    named ranges (ProfilerStep#N, forward, ...)
 *   cpu_op                                  host operators (dispatch analysis)
 * and, from traces recorded with profile_memory=True, instant events (ph
 * "i") of category cpu_instant_event named "[memory]": one allocation or
 * free of the caching allocator each, args "Bytes" (negative: a free),
 * "Addr", "Total Allocated", "Total Reserved", "Device Id" (-1: the host),
 * "Device Type" (0 CPU, 1 CUDA). They go to the sink's memory callback.
 * Very old traces spell them Kernel, Memcpy, Memset, Runtime; categories are
 * compared without case. "ts" and "dur" are microseconds as decimal text,
 * turned into integer nanoseconds exactly (parse_us_to_ns): a trace's ts
 * of 4443677150109.176 has 16 significant digits, one more than a double
 * keeps at that magnitude.
 *
 * An event with a missing, non-numeric or negative time is skipped with a
 * warning naming its byte offset; the count of skipped events is reported.
 *
 * Communication args. Recent PyTorch (torch/csrc/profiler/util.cpp,
 * saveNcclMeta) copies only some of a collective's args onto its NCCL
 * kernel ("Collective name", "In/Out msg nelems", "Group size", the
 * process group); "dtype", "Seq" and a send's "Dst Rank" or a recv's "Src
 * Rank" are on the host op record_param_comms alone, which carries the
 * kernel's "External id". A kernel with a "Collective name" takes each of
 * those four it lacks from the record_param_comms op of its External id
 * (its own win where both have one), whichever of the two comes first in
 * the file: the ops are kept by External id as they come (the first of an
 * id), and a kernel that lacks one and whose op has not come yet is held
 * back and given to the sink when the file ends (with what its op then
 * gave, or without). So its row is the same in every order but the
 * position of held kernels among the others. A coalesced batch's kernel
 * (a batch_isend_irecv: ncclDevKernel_SendRecv naming no collective and
 * carrying no External id) is held back the same way and takes its send or
 * recv, peer and counts from the ops of its batch (kineto_coalesced.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/intmap.h"
#include "util/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/json_error.h"
#include "ingest/kineto/kineto_coalesced.h"
#include "ingest/kineto/kineto_json.h"
#include "ingest/kineto/kineto_stream.h"

enum ev_class {
	EV_OTHER, EV_KERNEL, EV_MEMCPY, EV_MEMSET, EV_RUNTIME, EV_DRIVER, EV_ANNOT, EV_GPU_ANNOT, EV_CPU_OP, EV_INSTANT
};

/* The args of one record_param_comms op that its kernel may lack (see the file's comment). */
struct comm_args {
	int has_dst, has_src, has_seq;
	int64_t dst, src, seq;
	char *dtype; /* NULL: none */
};

/* A communication kernel held back until its record_param_comms op comes: its row, strings owned. */
struct held_kernel {
	struct gpu_activity a;
	int64_t external_id;
	int coalesced; /* a coalesced batch's kernel (kineto_coalesced.h), not joined by External id */
	struct comm_args own; /* the kernel's own Dst Rank, Src Rank (dtype and Seq are in a) */
};

struct kctx {
	const struct source *src;
	const struct ingest_sink *sink;
	struct ingest_counts *counts;
	int64_t warned;
	int failed;
	struct intmap comm_ids; /* External id -> index into comm */
	struct comm_args *comm;
	size_t ncomm, cap_comm;
	struct held_kernel *held;
	size_t nheld, cap_held;
	struct coalesced *coalesced; /* the batches of coalesced send/recv kernels (kineto_coalesced.h) */
};

/*
 * kj_cat_fn: the class of a category, 0 (EV_OTHER) for those not read.
 * Of a host operator's args only "External id", "Input Dims", "Input type"
 * and "Concrete Inputs" are used
 * (the shim reads all of a record_param_comms op's: see the file's comment).
 */
int kineto_cat_class(const char *cat, size_t n)
{
	static const struct {
		const char *name;
		size_t len;
		enum ev_class cls;
	} cats[] = {
#define CAT(s, c) {s, sizeof(s) - 1, c}
		CAT("kernel", EV_KERNEL),         CAT("gpu_memcpy", EV_MEMCPY),   CAT("memcpy", EV_MEMCPY),
		CAT("gpu_memset", EV_MEMSET),     CAT("memset", EV_MEMSET),       CAT("cuda_runtime", EV_RUNTIME),
		CAT("runtime", EV_RUNTIME),       CAT("cuda_driver", EV_DRIVER),  CAT("user_annotation", EV_ANNOT),
		CAT("gpu_user_annotation", EV_GPU_ANNOT), CAT("cpu_op", EV_CPU_OP), CAT("operator", EV_CPU_OP),
		CAT("cpu_instant_event", EV_INSTANT),
#undef CAT
	};
	/* Kineto writes them in lower case: compared exactly first, then without case. */
	for (int exact = 1; exact >= 0; exact--)
		for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
			if (cats[i].len == n && (exact ? !memcmp(cat, cats[i].name, n) : !strncasecmp(cat, cats[i].name, n)))
				return cats[i].cls == EV_CPU_OP ? EV_CPU_OP | KJ_ONLY_EXTERNAL_ID : (int)cats[i].cls;
	return EV_OTHER;
}

/*
 * parse_us_to_ns for the form Kineto writes times in, 1 to 15 digits, '.',
 * three digits ("5043029021981.550"): those 18 digits at most are the
 * nanoseconds, read without the general parser's rounding and scaling (the
 * same value). Any other text goes to parse_us_to_ns.
 */
static int us_to_ns(const char *s, size_t n, int64_t *ns)
{
	if (n < 5 || n > 19 || s[n - 4] != '.')
		return parse_us_to_ns(s, n, ns);
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == n - 4)
			continue;
		unsigned d = (unsigned)(unsigned char)s[i] - '0';
		if (d > 9)
			return parse_us_to_ns(s, n, ns);
		v = v * 10 + (int64_t)d;
	}
	*ns = v;
	return 0;
}

/* "Memcpy HtoD (Pageable -> Device)" -> "HtoD"; NULL when the name says nothing. */
static const char *copy_kind_of(const char *name, char out[16])
{
	static const char *const kinds[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "HtoA", "AtoH", "AtoA", "DtoA", "AtoD"};
	if (!name)
		return NULL;
	const char *p = strstr(name, "Memcpy ");
	if (!p)
		return NULL;
	p += 7;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strncmp(p, kinds[i], 4) && (p[4] == ' ' || p[4] == '\0')) {
			memcpy(out, kinds[i], 5);
			return out;
		}
	return NULL;
}

static void warn_skip(struct kctx *k, const struct kj_event *ev, const char *what)
{
	k->counts->skipped++;
	if (k->warned++ < 5) {
		char where[64];
		snprintf(where, sizeof(where), "byte %zu", ev->offset);
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s: %s", k->src->path, where);
		diag_warning(b.data, "skipped event '%.80s': %s", ev->name.p ? ev->name.p : "", what);
		buf_release(&b);
	}
}

/* A value that is there but unusable: the event is kept and the value taken as unknown, said aloud. */
static void warn_value(struct kctx *k, const struct kj_event *ev, const char *field)
{
	if (k->warned++ < 5) {
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s: byte %zu", k->src->path, ev->offset);
		diag_warning(b.data, "event '%.80s': '%s' is not an integer in the int64 range; taken as unknown",
			     ev->name.p ? ev->name.p : "", field);
		buf_release(&b);
	}
}

/*
 * A "[memory]" instant event to the sink. One without a valid time, or
 * without "Bytes" or "Total Allocated" (the two the analyses rest on), is
 * skipped with a warning.
 */
static int on_memory(struct kctx *k, const struct kj_event *ev)
{
	if (!ev->name.p || strcmp(ev->name.p, "[memory]"))
		return 0;
	k->counts->memory++;
	int64_t ts;
	if (!ev->ts.p || ev->ts_bad || us_to_ns(ev->ts.p, ev->ts.n, &ts) < 0) {
		warn_skip(k, ev, ev->ts.p || ev->ts_bad ? "'ts' is not a representable number" : "no 'ts'");
		return 0;
	}
	const char *outside = ingest_span_problem(ts, 0);
	if (outside) {
		warn_skip(k, ev, outside);
		return 0;
	}
	if (!ev->has_mem_bytes || !ev->has_total_alloc) {
		warn_skip(k, ev, "a memory event without the integers 'Bytes' and 'Total Allocated' in its args");
		return 0;
	}
	if (!k->sink->memory)
		return 0;
	struct memory_event m = {
		.ts_ns = ts,
		.bytes = ev->mem_bytes,
		.addr = ev->has_addr ? ev->addr : -1,
		.total_allocated = ev->total_alloc,
		.total_reserved = ev->has_total_reserved ? ev->total_reserved : -1,
		.device = ev->has_dev_id && ev->dev_id >= -1 && ev->dev_id <= INT32_MAX ? (int)ev->dev_id : -1,
		.device_type = ev->has_dev_type && ev->dev_type >= 0 && ev->dev_type <= INT32_MAX ? (int)ev->dev_type : -1,
		.tid = ev->tid,
	};
	if (k->sink->memory(k->sink->ctx, &m)) {
		k->failed = 1;
		return 1;
	}
	return 0;
}

/* Keeps a record_param_comms op's args by its External id (the first op of an id). */
static void keep_comm_args(struct kctx *k, const struct kj_event *ev)
{
	if (ev->bad_int)
		warn_value(k, ev, ev->bad_int);
	if (intmap_get(&k->comm_ids, ev->external_id) != SIZE_MAX)
		return;
	intmap_index(&k->comm_ids, ev->external_id, k->ncomm);
	k->comm = xgrow(k->comm, &k->cap_comm, k->ncomm + 1, sizeof(*k->comm));
	k->comm[k->ncomm++] = (struct comm_args){
		.has_dst = ev->has_dst, .dst = ev->dst, .has_src = ev->has_src, .src = ev->src,
		.has_seq = ev->has_seq, .seq = ev->seq, .dtype = ev->dtype.p ? xstrdup(ev->dtype.p) : NULL,
	};
}

/*
 * A point-to-point op's peer, the global rank it sends to or receives from:
 * the kernel's own "Dst Rank" (send) or "Src Rank" (recv), else its op's
 * (op NULL: none); a negative one is unknown.
 */
static void set_peer(struct gpu_activity *a, const struct comm_args *own, const struct comm_args *op)
{
	int send = a->collective && !strcmp(a->collective, "send"), recv = a->collective && !strcmp(a->collective, "recv");
	for (int i = 0; i < 2 && !a->has_peer && (send || recv); i++) {
		const struct comm_args *c = i ? op : own;
		if (c && (send ? c->has_dst && c->dst >= 0 : c->has_src && c->src >= 0)) {
			a->has_peer = 1;
			a->peer = send ? c->dst : c->src;
		}
	}
}

/* What a communication kernel lacks of its op's args: dtype, Seq, a send's or recv's peer. */
static int lacks_comm_args(const struct gpu_activity *a)
{
	return !a->dtype || !a->has_seq ||
	       (!a->has_peer && a->collective && (!strcmp(a->collective, "send") || !strcmp(a->collective, "recv")));
}

/* Fills what a lacks from op (NULL: nothing); dtype points into op. */
static void fill_comm_args(struct gpu_activity *a, const struct comm_args *own, const struct comm_args *op)
{
	set_peer(a, own, op);
	if (!op)
		return;
	if (!a->dtype)
		a->dtype = op->dtype;
	if (!a->has_seq && op->has_seq) {
		a->has_seq = 1;
		a->seq = op->seq;
	}
}

/* The batches of coalesced kernels, made when first needed. */
static struct coalesced *coalesced_of(struct kctx *k)
{
	if (!k->coalesced)
		k->coalesced = coalesced_new();
	return k->coalesced;
}

/* A record_param_comms send or recv with a valid time, for the coalesced batch it may belong to. */
static void keep_p2p_op(struct kctx *k, const struct kj_event *ev)
{
	int send = ev->collective.p && !strcmp(ev->collective.p, "send");
	int recv = ev->collective.p && !strcmp(ev->collective.p, "recv");
	int64_t ts;
	if ((!send && !recv) || !ev->ts.p || ev->ts_bad || us_to_ns(ev->ts.p, ev->ts.n, &ts) < 0)
		return;
	int64_t peer = send ? (ev->has_dst ? ev->dst : -1) : (ev->has_src ? ev->src : -1);
	coalesced_op(coalesced_of(k), ev->tid, ts, ev->external_id, send, peer < 0 ? -1 : peer,
		     ev->in_nelems > 0 ? ev->in_nelems : 0, ev->dtype.p, ev->process_group.p);
}

/* The sink's activity callback for a; 1 when it failed. */
static int give_activity(struct kctx *k, const struct gpu_activity *a)
{
	return k->sink->activity && k->sink->activity(k->sink->ctx, a) ? 1 : 0;
}

/* Holds a kernel back (its strings copied) until the file ends. */
static void hold_kernel(struct kctx *k, const struct gpu_activity *a, int64_t external_id, int coalesced,
			const struct comm_args *own)
{
	k->held = xgrow(k->held, &k->cap_held, k->nheld + 1, sizeof(*k->held));
	struct held_kernel *h = &k->held[k->nheld++];
	h->a = *a;
	h->a.name = xstrdup(a->name);
	h->a.collective = a->collective ? xstrdup(a->collective) : NULL;
	h->a.dtype = a->dtype ? xstrdup(a->dtype) : NULL;
	h->a.process_group = a->process_group ? xstrdup(a->process_group) : NULL;
	h->external_id = external_id;
	h->coalesced = coalesced;
	h->own = *own;
}

/*
 * The held kernels to the sink, in file order, each with what its op gave
 * (when the parse succeeded: give 1); then frees what the join kept.
 * Returns 1 when the sink failed.
 */
static int give_held(struct kctx *k, int give)
{
	int r = 0;
	for (size_t i = 0; i < k->nheld; i++) {
		struct held_kernel *h = &k->held[i];
		if (give && !r) {
			struct gpu_activity a = h->a;
			if (h->coalesced) {
				if (k->coalesced)
					coalesced_fill(k->coalesced, &a);
			} else {
				size_t ci = intmap_get(&k->comm_ids, h->external_id);
				fill_comm_args(&a, &h->own, ci == SIZE_MAX ? NULL : &k->comm[ci]);
			}
			r = give_activity(k, &a);
		}
		free((char *)h->a.name);
		free((char *)h->a.collective);
		free((char *)h->a.dtype);
		free((char *)h->a.process_group);
	}
	free(k->held);
	for (size_t i = 0; i < k->ncomm; i++)
		free(k->comm[i].dtype);
	free(k->comm);
	intmap_free(&k->comm_ids);
	coalesced_free(k->coalesced);
	k->coalesced = NULL;
	if (r)
		k->failed = 1;
	return r;
}

static int on_event(void *ctx, const struct kj_event *ev)
{
	struct kctx *k = ctx;
	k->counts->events++;
	if (ev->ph.p && !strcmp(ev->ph.p, "i") && ev->cls == EV_INSTANT)
		return on_memory(k, ev);
	if (!ev->ph.p || strcmp(ev->ph.p, "X"))
		return 0;
	enum ev_class cls = (enum ev_class)ev->cls;
	if (cls == EV_OTHER || cls == EV_INSTANT)
		return 0;
	if (cls == EV_CPU_OP) {
		/*
		 * Counted always; kept (for the dispatch analysis) when the sink
		 * wants them and the times are valid. A cpu_op with a bad time is
		 * dropped without a warning: no GPU figure depends on one op.
		 */
		k->counts->cpu_ops++;
		if (ev->has_external_id && ev->name.p && !strcmp(ev->name.p, "record_param_comms")) {
			keep_comm_args(k, ev);
			keep_p2p_op(k, ev);
		}
		int64_t ots, odur;
		if (!k->sink->cpu_op || !ev->ts.p || ev->ts_bad || !ev->dur.p || ev->dur_bad ||
		    us_to_ns(ev->ts.p, ev->ts.n, &ots) < 0 || us_to_ns(ev->dur.p, ev->dur.n, &odur) < 0 ||
		    ingest_span_problem(ots, odur))
			return 0;
		struct cpu_op op = {
			.name = ev->name.p ? ev->name.p : "",
			.start_ns = ots,
			.dur_ns = odur,
			.tid = ev->tid,
			.external_id = ev->has_external_id ? ev->external_id : -1,
			.dims = ev->dims.p,
			.types = ev->types.p,
			.concrete = ev->concrete.p,
		};
		if (k->sink->cpu_op(k->sink->ctx, &op)) {
			k->failed = 1;
			return 1;
		}
		return 0;
	}
	int64_t ts, dur;
	if (!ev->ts.p || ev->ts_bad || us_to_ns(ev->ts.p, ev->ts.n, &ts) < 0) {
		warn_skip(k, ev, ev->ts.p || ev->ts_bad ? "'ts' is not a representable number" : "no 'ts'");
		return 0;
	}
	if (!ev->dur.p || ev->dur_bad || us_to_ns(ev->dur.p, ev->dur.n, &dur) < 0) {
		warn_skip(k, ev, ev->dur.p || ev->dur_bad ? "'dur' is not a representable number" : "no 'dur'");
		return 0;
	}
	if (dur < 0) {
		warn_skip(k, ev, "negative 'dur'");
		return 0;
	}
	const char *outside = ingest_span_problem(ts, dur);
	if (outside) {
		warn_skip(k, ev, outside);
		return 0;
	}
	const char *name = ev->name.p ? ev->name.p : "";
	if (ev->bad_int)
		warn_value(k, ev, ev->bad_int);
	int r = 0;
	switch (cls) {
	case EV_KERNEL:
	case EV_MEMCPY:
	case EV_MEMSET: {
		char ck[16];
		struct gpu_activity a = {
			.kind = cls == EV_KERNEL ? ACT_KERNEL : cls == EV_MEMCPY ? ACT_MEMCPY : ACT_MEMSET,
			.name = name,
			.start_ns = ts,
			.dur_ns = dur,
			.device = ev->has_device && ev->device >= 0 && ev->device <= INT32_MAX ? (int)ev->device : -1,
			.stream = ev->has_stream ? ev->stream : -1,
			.correlation = ev->has_correlation ? ev->correlation : -1,
			.bytes = ev->has_bytes && ev->bytes >= 0 ? ev->bytes : -1, /* negative: unknown */
			.copy_kind = cls == EV_MEMCPY ? copy_kind_of(name, ck) : NULL,
			.collective = cls == EV_KERNEL ? ev->collective.p : NULL,
			.dtype = ev->dtype.p,
			.in_nelems = ev->in_nelems,
			.out_nelems = ev->out_nelems,
			.group_size = ev->group_size,
			.process_group = cls == EV_KERNEL ? ev->process_group.p : NULL,
			.has_seq = ev->has_seq,
			.seq = ev->seq,
		};
		struct comm_args own = {.has_dst = ev->has_dst, .dst = ev->dst, .has_src = ev->has_src, .src = ev->src};
		set_peer(&a, &own, NULL);
		int held = 0;
		/* A send or recv kernel of its own: its op is no member of a coalesced batch (only those can be). */
		if (a.collective && ev->has_external_id && (!strcmp(a.collective, "send") || !strcmp(a.collective, "recv")))
			coalesced_claim(coalesced_of(k), ev->external_id);
		if (coalesced_candidate(&a))
			held = -1; /* a coalesced batch's kernel: its ops are known when the file ends */
		else if (a.collective && ev->has_external_id && lacks_comm_args(&a)) {
			/* the rest from its record_param_comms op: now, or when the file ends if it has not come */
			size_t ci = intmap_get(&k->comm_ids, ev->external_id);
			if (ci != SIZE_MAX)
				fill_comm_args(&a, &own, &k->comm[ci]);
			else
				held = 1;
		}
		if (cls == EV_KERNEL)
			k->counts->kernels++;
		else if (cls == EV_MEMCPY)
			k->counts->memcpys++;
		else
			k->counts->memsets++;
		if (held)
			hold_kernel(k, &a, ev->external_id, held < 0, &own);
		else
			r = give_activity(k, &a);
		break;
	}
	case EV_RUNTIME:
	case EV_DRIVER: {
		struct runtime_call rc = {
			.name = name,
			.start_ns = ts,
			.dur_ns = dur,
			.correlation = ev->has_correlation ? ev->correlation : -1,
			.tid = ev->tid,
			.is_driver = cls == EV_DRIVER,
		};
		k->counts->runtime++;
		if (k->sink->runtime)
			r = k->sink->runtime(k->sink->ctx, &rc);
		break;
	}
	case EV_ANNOT:
	case EV_GPU_ANNOT: {
		struct annotation an = {
			.name = name,
			.start_ns = ts,
			.dur_ns = dur,
			.on_gpu = cls == EV_GPU_ANNOT,
			.tid = cls == EV_GPU_ANNOT && ev->has_stream ? ev->stream : ev->tid,
		};
		if (cls == EV_GPU_ANNOT)
			k->counts->gpu_annotations++;
		else
			k->counts->annotations++;
		if (cls == EV_ANNOT && !strncmp(name, "ProfilerStep#", 13))
			k->counts->steps++;
		if (ev->has_external_id && !strcmp(name, "nccl:coalesced"))
			coalesced_annotation(coalesced_of(k), cls == EV_GPU_ANNOT, an.tid, ts, dur, ev->external_id);
		if (k->sink->annotation)
			r = k->sink->annotation(k->sink->ctx, &an);
		break;
	}
	default:
		break;
	}
	if (r) {
		k->failed = 1;
		return 1;
	}
	return 0;
}

static int kineto_detect(const char *head, size_t n)
{
	size_t i = 0;
	if (n >= 3 && (unsigned char)head[0] == 0xef && (unsigned char)head[1] == 0xbb && (unsigned char)head[2] == 0xbf)
		i = 3; /* UTF-8 byte order mark */
	while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	return i < n && head[i] == '{';
}

/*
 * Offset of the first byte that is not valid UTF-8 (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), or len. simdjson checks the whole
 * document at once and does not say where, so the message asks us.
 */
static size_t first_invalid_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		size_t n;
		unsigned lo = 0x80, hi = 0xbf;
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xc2 && c <= 0xdf) {
			n = 1;
		} else if (c >= 0xe0 && c <= 0xef) {
			n = 2;
			if (c == 0xe0)
				lo = 0xa0;
			else if (c == 0xed)
				hi = 0x9f;
		} else if (c >= 0xf0 && c <= 0xf4) {
			n = 3;
			if (c == 0xf0)
				lo = 0x90;
			else if (c == 0xf4)
				hi = 0x8f;
		} else {
			return i;
		}
		if (len - i <= n)
			return i;
		for (size_t k = 1; k <= n; k++) {
			unsigned b = s[i + k];
			if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf))
				return i;
		}
		i += n + 1;
	}
	return len;
}

static int kineto_finish(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts,
			 struct kj_meta *mp);

static int kineto_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct kctx k = {.src = src, .sink = sink, .counts = counts};
	struct kj_meta meta;
	struct kj_error err;
	const char *data = src->data;
	size_t len = src->len;
	if (len >= 3 && (unsigned char)data[0] == 0xef && (unsigned char)data[1] == 0xbb && (unsigned char)data[2] == 0xbf) {
		data += 3;
		len -= 3;
	}
	int r = kj_parse(data, len, on_event, kineto_cat_class, &k, &meta, &err);
	give_held(&k, r == 0 && !k.failed);
	if (r < 0) {
		if (strstr(err.detail, "UTF-8"))
			err.offset = first_invalid_utf8((const unsigned char *)data, len);
		json_report_error(src, (size_t)(data - src->data), err.offset, err.message, err.detail);
		return -1;
	}
	if (r > 0 || k.failed) {
		kj_meta_release(&meta);
		return -1;
	}
	return kineto_finish(src, sink, counts, &meta);
}

/* After a parse: checks, warnings and the trace info; releases *meta. */
static int kineto_finish(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts,
			 struct kj_meta *mp)
{
	struct kj_meta meta = *mp;
	int ret = 0;
	if (meta.rank_bad || (meta.rank < -1 || meta.rank > INT32_MAX))
		diag_warning(src->path, "'distributedInfo.rank' is not a rank (an integer from 0); ignored");
	if (meta.world_size_bad || meta.world_size == 0 || meta.world_size < -1 || meta.world_size > INT32_MAX)
		diag_warning(src->path, "'distributedInfo.world_size' is not a count of ranks (an integer from 1); ignored");
	if (!meta.has_trace_events) {
		diag_error(src->path, "not a Kineto trace: no 'traceEvents' array");
		ret = -1;
		goto out;
	}
	if (counts->skipped > 5)
		diag_warning(src->path, "skipped %" PRId64 " malformed events in all", counts->skipped);
	struct device_info *devs = xcalloc(meta.ndevices ? meta.ndevices : 1, sizeof(*devs));
	for (size_t i = 0; i < meta.ndevices; i++) {
		const struct kj_device *d = &meta.devices[i];
		devs[i].id = d->id >= 0 && d->id <= INT32_MAX ? (int)d->id : (int)i;
		devs[i].name = d->name.p ? d->name.p : "";
		devs[i].total_mem = d->total_mem >= 0 ? d->total_mem : -1;
		devs[i].sm_count = d->num_sms >= 0 && d->num_sms <= INT32_MAX ? (int)d->num_sms : -1;
		devs[i].cc_major = d->cc_major >= 0 && d->cc_major < 100 ? (int)d->cc_major : -1;
		devs[i].cc_minor = d->cc_minor >= 0 && d->cc_minor < 100 ? (int)d->cc_minor : -1;
	}
	struct trace_info info = {
		.format = "kineto",
		.rank = meta.rank >= 0 && meta.rank <= INT32_MAX ? (int)meta.rank : -1,
		.world_size = meta.world_size > 0 && meta.world_size <= INT32_MAX ? (int)meta.world_size : -1,
		.epoch_offset_ns = meta.base_time_ns,
		.nccl_version = meta.nccl_version,
		.cuda_runtime_version = meta.cuda_runtime > 0 ? meta.cuda_runtime : 0,
		.cuda_driver_version = meta.cuda_driver > 0 ? meta.cuda_driver : 0,
		.ndevices = meta.ndevices,
		.devices = devs,
	};
	if (sink->info && sink->info(sink->ctx, &info))
		ret = -1;
	free(devs);
out:
	kj_meta_release(&meta);
	return ret;
}

/* A null sink: the whole-file reread below only reports where the text is broken. */
static const struct ingest_sink quiet_sink;

/*
 * The same in windows of the stream (kineto_stream.c), in bounded memory.
 * Malformed JSON is reported by reading the file again whole with
 * kineto_read and a null sink, so messages stay exactly those of the
 * one-document parse; only a trace too large for that (over 2 GiB) is
 * reported at the windowed parse's byte offset.
 */
static int kineto_read_stream(struct source_stream *ss, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct source src = {.path = ss->path};
	struct kctx k = {.src = &src, .sink = sink, .counts = counts};
	struct kj_meta meta;
	struct kj_error err;
	memset(&err, 0, sizeof(err));
	int r = kj_stream_parse(ss, on_event, kineto_cat_class, &k, &meta, &err);
	give_held(&k, r == 0 && !k.failed);
	if (r == -2)
		return -1;
	src.meta = *source_stream_meta(ss);
	if (r == -1) {
		if (ss->out_total < ((size_t)2 << 30)) {
			struct source whole;
			struct ingest_counts c2;
			memset(&c2, 0, sizeof(c2));
			if (source_load(&whole, ss->path) < 0)
				return -1;
			size_t before = diag_error_count();
			int r2 = kineto_read(&whole, &quiet_sink, &c2);
			source_release(&whole);
			if (r2 < 0 && diag_error_count() > before)
				return -1;
		}
		diag_error(ss->path, "%s at byte %zu%s%s%s", err.message, err.offset,
			   src.meta.gzip ? " of the uncompressed JSON" : "", err.detail[0] ? ": " : "", err.detail);
		return -1;
	}
	if (r > 0 || k.failed) {
		kj_meta_release(&meta);
		return -1;
	}
	return kineto_finish(&src, sink, counts, &meta);
}

const struct reader kineto_reader = {
	.name = "kineto",
	.detect = kineto_detect,
	.read = kineto_read,
	.read_stream = kineto_read_stream,
	.rank_suffixes = (const char *const[]){".json", ".json.gz", NULL},
};
