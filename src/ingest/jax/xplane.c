/*
 * xplane.c: the reader for the XSpace protobuf that jax.profiler writes
 * (`plugins/profile/<run>/<host>.xplane.pb`, perhaps gzipped): the profile
 * the trace JSON is made from, with the GPUs' properties besides.
 *
 * protobuf-c unpacks the message (xplane.proto, turned into C at build
 * time); this file walks it and jax_model.c decides what each event means,
 * exactly as for the trace JSON (jax.c): a plane "/device:GPU:N" is GPU N,
 * its lines named "Stream #..." its CUDA streams, "/host:CPU" the host;
 * other planes (metadata, a TPU) are not read. An event's name is its
 * event metadata's name; its arguments are its stats, named by the stat
 * metadata, with integer values as decimal text and a ref_value as the
 * name of the stat metadata it points at. Times are picoseconds: an event
 * starts at its line's timestamp_ns x 1000 + offset_ps, rounded half away
 * from zero to whole ns, and lasts duration_ps rounded the same way. A
 * GPU plane's stats give the device's name, SM count, memory size,
 * bandwidth and compute capability.
 *
 * The file is unpacked whole: protobuf-c builds every message, a few
 * dozen bytes per event (JAX writes a few megabytes per device and step).
 * What that takes is worked out from the wire format first (unpacked_size)
 * and a file that would take more than XPLANE_UNPACK_RATIO times its size
 * is refused; protobuf-c allocates through xmalloc, so running out of
 * memory is exit 3 naming the file, never "malformed".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/jax/xplane.pb-c.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "ingest/ingest.h"
#include "ingest/jax/jax_int.h"

typedef Tensorflow__Profiler__XSpace XSpace;
typedef Tensorflow__Profiler__XPlane XPlane;
typedef Tensorflow__Profiler__XLine XLine;
typedef Tensorflow__Profiler__XEvent XEvent;
typedef Tensorflow__Profiler__XStat XStat;

/* A plane's metadata names by id, sorted for bsearch. */
struct id_name {
	int64_t id;
	const char *name;
};

static int cmp_id(const void *a, const void *b)
{
	const struct id_name *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

static const char *name_of(const struct id_name *v, size_t n, int64_t id)
{
	struct id_name key = {.id = id};
	if (!n) /* bsearch's array may not be NULL, even when empty */
		return NULL;
	const struct id_name *f = bsearch(&key, v, n, sizeof(*v), cmp_id);
	return f ? f->name : NULL;
}

struct names {
	struct id_name *events, *stats;
	size_t nevents, nstats;
};

static void names_of(const XPlane *p, struct names *nm)
{
	nm->nevents = p->n_event_metadata;
	nm->nstats = p->n_stat_metadata;
	nm->events = xcalloc(nm->nevents ? nm->nevents : 1, sizeof(*nm->events));
	nm->stats = xcalloc(nm->nstats ? nm->nstats : 1, sizeof(*nm->stats));
	for (size_t i = 0; i < nm->nevents; i++) {
		const Tensorflow__Profiler__XEventMetadata *m = p->event_metadata[i]->value;
		const char *n = m && m->name && *m->name ? m->name : m && m->display_name ? m->display_name : "";
		nm->events[i] = (struct id_name){.id = p->event_metadata[i]->key, .name = n};
	}
	for (size_t i = 0; i < nm->nstats; i++) {
		const Tensorflow__Profiler__XStatMetadata *m = p->stat_metadata[i]->value;
		nm->stats[i] = (struct id_name){.id = p->stat_metadata[i]->key, .name = m && m->name ? m->name : ""};
	}
	if (nm->nevents) /* qsort's array may not be NULL, even when empty */
		qsort(nm->events, nm->nevents, sizeof(*nm->events), cmp_id);
	if (nm->nstats) /* qsort's array may not be NULL, even when empty */
		qsort(nm->stats, nm->nstats, sizeof(*nm->stats), cmp_id);
}

static void names_release(struct names *nm)
{
	free(nm->events);
	free(nm->stats);
}

/*
 * A stat's value as text into buf (owned by the caller, 32 bytes), or
 * pointing into the message; NULL for a value perfstudy does not read
 * (bytes, a double, none).
 */
static const char *stat_text(const XStat *s, const struct names *nm, char buf[32])
{
	switch (s->value_case) {
	case TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE:
		return s->str_value;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE:
		snprintf(buf, 32, "%" PRId64, s->int64_value);
		return buf;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE:
		snprintf(buf, 32, "%" PRIu64, s->uint64_value);
		return buf;
	case TENSORFLOW__PROFILER__XSTAT__VALUE_REF_VALUE:
		return s->ref_value <= INT64_MAX ? name_of(nm->stats, nm->nstats, (int64_t)s->ref_value) : NULL;
	default:
		return NULL;
	}
}

/* x / 1000 rounded half away from zero, for x in picoseconds. */
static int64_t ps_to_ns(__int128 x)
{
	__int128 q = x / 1000, r = x % 1000;
	if (r >= 500)
		q++;
	else if (r <= -500)
		q--;
	return q > INT64_MAX || q < INT64_MIN ? INT64_MIN : (int64_t)q;
}

struct xctx {
	const struct source *src;
	struct jax_model model;
	int64_t warned;
};

static void warn_skip(struct xctx *x, const XPlane *p, const XLine *l, const char *name, const char *what)
{
	x->model.counts->skipped++;
	if (x->warned++ < 5)
		diag_warning(x->src->path, "plane '%.80s' line '%.80s': skipped event '%.80s': %s", p->name, l->name,
			     name, what);
}

/* One line of a GPU (device >= 0) or host plane into the model. Returns 0, or -1 (the sink said stop). */
static int read_line(struct xctx *x, const XPlane *p, const XLine *l, int device, const struct names *nm)
{
	struct jax_kv *kv = NULL;
	char (*bufs)[32] = NULL;
	size_t cap = 0, bcap = 0;
	int ret = 0;
	for (size_t e = 0; e < l->n_events && ret == 0; e++) {
		const XEvent *ev = l->events[e];
		x->model.counts->events++;
		const char *name = name_of(nm->events, nm->nevents, ev->metadata_id);
		if (!name)
			name = "";
		if (ev->data_case != TENSORFLOW__PROFILER__XEVENT__DATA_OFFSET_PS) {
			/* an aggregate (num_occurrences), not a timed event */
			continue;
		}
		int64_t start = ps_to_ns((__int128)l->timestamp_ns * 1000 + ev->offset_ps);
		int64_t dur = ps_to_ns(ev->duration_ps);
		if (start == INT64_MIN || dur == INT64_MIN) {
			warn_skip(x, p, l, name, "a time beyond the int64 nanosecond range");
			continue;
		}
		if (dur < 0) {
			warn_skip(x, p, l, name, "negative duration_ps");
			continue;
		}
		const char *outside = ingest_span_problem(start, dur);
		if (outside) {
			warn_skip(x, p, l, name, outside);
			continue;
		}
		size_t n = 0;
		kv = xgrow(kv, &cap, ev->n_stats + 1, sizeof(*kv));
		bufs = xgrow(bufs, &bcap, ev->n_stats + 1, sizeof(*bufs));
		for (size_t s = 0; s < ev->n_stats; s++) {
			const char *key = name_of(nm->stats, nm->nstats, ev->stats[s]->metadata_id);
			const char *val = key ? stat_text(ev->stats[s], nm, bufs[n]) : NULL;
			if (val)
				kv[n++] = (struct jax_kv){.key = key, .value = val};
		}
		struct jax_event je = {
			.name = name, .start_ns = start, .dur_ns = dur, .tid = l->id, .args = kv, .nargs = n,
		};
		ret = device >= 0 ? jax_gpu_event(&x->model, device, &je) : jax_host_event(&x->model, &je);
	}
	free(kv);
	free(bufs);
	return ret;
}

/* A GPU plane's properties (its stats) into d. */
static void device_of(const XPlane *p, const struct names *nm, int id, struct device_info *d)
{
	*d = (struct device_info){.id = id, .name = "", .total_mem = -1, .sm_count = -1, .cc_major = -1, .cc_minor = -1};
	for (size_t s = 0; s < p->n_stats; s++) {
		const XStat *st = p->stats[s];
		const char *key = name_of(nm->stats, nm->nstats, st->metadata_id);
		if (!key)
			continue;
		int64_t v = st->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_INT64_VALUE ? st->int64_value
			  : st->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_UINT64_VALUE && st->uint64_value <= INT64_MAX
				  ? (int64_t)st->uint64_value
				  : -1;
		if (!strcmp(key, "gpu_device_name") && st->value_case == TENSORFLOW__PROFILER__XSTAT__VALUE_STR_VALUE)
			d->name = st->str_value;
		else if (!strcmp(key, "core_count") && v >= 0 && v <= INT32_MAX)
			d->sm_count = (int)v;
		else if (!strcmp(key, "memory_size") && v >= 0)
			d->total_mem = v;
		else if (!strcmp(key, "memory_bandwidth") && v >= 0)
			d->mem_bandwidth = v;
		else if (!strcmp(key, "compute_cap_major") && v >= 0 && v < 100)
			d->cc_major = (int)v;
		else if (!strcmp(key, "compute_cap_minor") && v >= 0 && v < 100)
			d->cc_minor = (int)v;
	}
}

/* A protobuf varint at d[*i] (before len) into *v, *i past it; 0, or -1 when cut or longer than 64 bits. */
static int read_varint(const unsigned char *d, size_t len, size_t *i, uint64_t *v)
{
	int shift = 0;
	*v = 0;
	for (;;) {
		if (*i >= len || shift > 63)
			return -1;
		*v |= (uint64_t)(d[*i] & 0x7f) << shift;
		shift += 7;
		if (!(d[(*i)++] & 0x80))
			return 0;
	}
}

/*
 * The offset of the first top-level field of an XSpace that is not a
 * well-formed length-delimited field 1-4, or len when all are: where a
 * file that protobuf-c refuses first goes wrong, as far as the top level
 * tells (also detect_source's test).
 */
static size_t first_bad_field(const unsigned char *d, size_t len, size_t *nplanes, int *cut)
{
	size_t i = 0;
	*nplanes = 0;
	*cut = 0;
	while (i < len) {
		size_t start = i;
		uint64_t key, n;
		if (read_varint(d, len, &i, &key) < 0 || (key & 7) != 2 || (key >> 3) < 1 || (key >> 3) > 4)
			return start;
		if (read_varint(d, len, &i, &n) < 0)
			return start;
		if (n > len - i) {
			*cut = 1;
			return start;
		}
		if ((key >> 3) == 1)
			(*nplanes)++;
		i += n;
	}
	return len;
}

/*
 * The first bytes of an XSpace: field 1 (planes, length-delimited: 0x0a),
 * its length, then the plane's id (0x08) or name (0x12). Only a guess
 * (0x0a is a newline): detect_source checks the whole file.
 */
static int xplane_detect(const char *head, size_t n)
{
	const unsigned char *h = (const unsigned char *)head;
	size_t i = 1;
	if (n < 3 || h[0] != 0x0a)
		return 0;
	while (i < n && i < 11 && (h[i] & 0x80))
		i++;
	i++;
	return i < n && (h[i] == 0x08 || h[i] == 0x12);
}

/*
 * A plane named "/device:..." or "/host:..." among the first bytes: an
 * XSpace, whole or not (a cut file is read and reported at its place).
 */
static int xplane_detect_source(const struct source *src)
{
	size_t n = src->len < 4096 ? src->len : 4096;
	return source_find(src->data, n, "/device:") || source_find(src->data, n, "/host:");
}

/*
 * What protobuf-c allocates to unpack a message of type desc from d[0..len),
 * in bytes, worked out from the wire format before unpacking: each
 * message's struct (sizeof_message) and the pointer to it in its
 * parent's array, each string and bytes value, each unknown field (kept
 * with its data), each element of a packed array (at most one per byte),
 * 16 bytes of malloc's overhead per block, and the 40-byte record
 * protobuf-c keeps per field of a message while it unpacks it (*fields,
 * the most of one message). Bytes that are not a well-formed field end
 * the count: protobuf-c refuses them anyway. The depth is the schema's
 * (five levels), whatever the input.
 */
static size_t unpacked_size(const ProtobufCMessageDescriptor *desc, const uint8_t *d, size_t len, size_t *fields)
{
	size_t total = desc->sizeof_message + 16, nfields = 0, i = 0;
	while (i < len) {
		uint64_t key, v;
		if (read_varint(d, len, &i, &key) < 0)
			goto out;
		int wire = (int)(key & 7);
		size_t n = 0;
		if (wire == 0 || wire == 2) {
			if (read_varint(d, len, &i, &v) < 0)
				goto out;
			if (wire == 2) {
				if (v > len - i)
					goto out;
				n = (size_t)v;
			}
		} else if (wire == 1 || wire == 5) {
			n = wire == 1 ? 8 : 4;
			if (n > len - i)
				goto out;
		} else {
			goto out;
		}
		nfields++;
		const ProtobufCFieldDescriptor *f =
			key >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)(key >> 3)) : NULL;
		if (!f)
			total += 32 + n + 16; /* an unknown field, copied */
		else if (f->label == PROTOBUF_C_LABEL_REPEATED && wire == 2 && f->type != PROTOBUF_C_TYPE_MESSAGE &&
			 f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_BYTES)
			total += 8 * n; /* packed numbers */
		else if (f->label == PROTOBUF_C_LABEL_REPEATED)
			total += 8;
		if (f && wire == 2 && f->type == PROTOBUF_C_TYPE_MESSAGE)
			total += unpacked_size(f->descriptor, d + i, n, fields);
		else if (f && wire == 2 && (f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES))
			total += n + 1 + 16;
		i += n;
	}
out:
	if (nfields > *fields)
		*fields = nfields;
	return total;
}

/*
 * The most an XSpace may take unpacked past 16 MiB, as a multiple of its
 * (inflated) size: real profiles take 2.4 to 4.8 times (the h100x4
 * example's); one of 64 MiB of 2-byte empty events would take 68 times
 * (it peaked at 4.0 GB). docs/guarantees.md states the bound.
 */
#define XPLANE_UNPACK_RATIO 10
#define XPLANE_UNPACK_FREE ((size_t)16 << 20)

/* protobuf-c's allocations through xmalloc: running out of memory is exit 3 naming the file, not "malformed". */
static void *pb_alloc(void *data, size_t n)
{
	(void)data;
	return xmalloc(n ? n : 1);
}

static void pb_free(void *data, void *p)
{
	(void)data;
	free(p);
}

static ProtobufCAllocator pb_allocator = {.alloc = pb_alloc, .free = pb_free, .allocator_data = NULL};

static int xplane_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	struct xctx x = {.src = src, .model = {.sink = sink, .counts = counts}};
	size_t fields = 0;
	size_t need = unpacked_size(&tensorflow__profiler__xspace__descriptor, (const uint8_t *)src->data, src->len,
				    &fields);
	need += 40 * fields;
	if (need > XPLANE_UNPACK_FREE && need / XPLANE_UNPACK_RATIO > src->len) {
		diag_error(src->path, "XSpace protobuf of %zu bytes%s would take %zu bytes to unpack, more than %d times "
			   "its size (events or stats of a few bytes each: a crafted file?); refused to bound memory",
			   src->len, src->meta.gzip ? " (uncompressed)" : "", need, XPLANE_UNPACK_RATIO);
		return -1;
	}
	XSpace *xs = tensorflow__profiler__xspace__unpack(&pb_allocator, src->len, (const uint8_t *)src->data);
	if (!xs) {
		size_t nplanes;
		int cut;
		size_t at = first_bad_field((const unsigned char *)src->data, src->len, &nplanes, &cut);
		const char *unz = src->meta.gzip ? " of the uncompressed file" : "";
		if (at < src->len && cut)
			diag_error(src->path, "truncated XSpace protobuf: the field at byte %zu%s runs past the end (byte %zu)",
				   at, unz, src->len);
		else if (at < src->len)
			diag_error(src->path, "malformed XSpace protobuf: byte %zu%s is not the start of an XSpace field "
				   "(planes, errors, warnings, hostnames)", at, unz);
		else
			diag_error(src->path, "malformed XSpace protobuf: a plane that does not decode (protobuf-c refuses it)");
		return -1;
	}
	int ret = 0;
	struct device_info *devs = NULL;
	size_t ndevs = 0, cap = 0;
	/* the host last, as in the trace JSON's order it does not matter; planes in file order */
	for (size_t i = 0; i < xs->n_planes && ret == 0; i++) {
		const XPlane *p = xs->planes[i];
		int gpu = jax_gpu_number(p->name);
		if (gpu < 0 && !jax_is_host(p->name))
			continue;
		struct names nm;
		names_of(p, &nm);
		if (gpu >= 0) {
			devs = xgrow(devs, &cap, ndevs + 1, sizeof(*devs));
			device_of(p, &nm, gpu, &devs[ndevs++]);
		}
		for (size_t l = 0; l < p->n_lines && ret == 0; l++)
			if (gpu < 0 || jax_is_stream(p->lines[l]->name))
				ret = read_line(&x, p, p->lines[l], gpu, &nm);
		names_release(&nm);
	}
	if (ret == 0) {
		if (counts->skipped > 5)
			diag_warning(src->path, "skipped %" PRId64 " malformed events in all", counts->skipped);
		counts->devices = jax_device_count(&x.model);
		struct trace_info info = {
			.format = "xplane", .rank = -1, .world_size = -1, .epoch_offset_ns = -1, .ndevices = ndevs, .devices = devs,
		};
		ret = sink->info && sink->info(sink->ctx, &info) ? -1 : 0;
	}
	free(devs);
	tensorflow__profiler__xspace__free_unpacked(xs, &pb_allocator);
	return ret;
}

const struct reader xplane_reader = {
	.name = "xplane",
	.detect = xplane_detect,
	.detect_source = xplane_detect_source,
	.read = xplane_read,
	.rank_suffixes = NULL,
};
