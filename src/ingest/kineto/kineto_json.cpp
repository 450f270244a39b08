/*
 * kineto_json.cpp: the simdjson on-demand walk over a Kineto trace.
 *
 * simdjson was chosen by measurement (see bench/JSON_LIBRARY.md). It is
 * written with error codes, not exceptions, and nothing C++ crosses the C API
 * of kineto_json.h. Strings handed to C are copied into reusable std::string
 * buffers so they are NUL-terminated. What it shares with jax_json.cpp
 * (errors, offsets, strings, numbers) is in ingest/simdjson_util.h.
 */
#include "ingest/kineto/kineto_json.h"
#include "ingest/simdjson_util.h"
#include "ingest/kineto/kineto_keys.h"
#include "ingest/kineto/kineto_args.h"

#include <simdjson.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "util/xalloc.h"
}

using namespace simdjson;
using namespace kj_keys;
using namespace kj_args;

extern "C" {
int kj_text_read = 1;
}

namespace {

/*
 * A failed operator new (std::string, std::vector, simdjson's buffers, the
 * template engine) ends as a failed xmalloc does: the message naming what was
 * being read, the build's temporary directory removed, exit 3; not
 * std::bad_alloc, which would abort and leave DIR.tmp.<pid> behind.
 */
void on_new_failure()
{
	xalloc_die();
}
const std::new_handler installed_new_handler = std::set_new_handler(on_new_failure);

struct device_store {
	std::vector<kj_device> devs;
	std::vector<std::string> names;
	std::string nccl; /* distributedInfo.nccl_version */
	bool has_nccl = false;
};

using sj::assign_visible;
using sj::set_error;
using sj::where;

/* A string value into buf (sj::take_string), and out pointing at it; false when not a string. */
bool take_string(ondemand::value v, std::string &buf, kj_str &out)
{
	if (!sj::take_string(v, buf))
		return false;
	out.p = buf.c_str();
	out.n = buf.size();
	return true;
}

bool take_int(ondemand::value v, int64_t &out)
{
	/*
	 * Kineto's ints (tid, device, stream, correlation, External id) are short
	 * and non-negative: up to 16 digits, without a leading zero, and followed
	 * by what may follow a JSON value, are read in place (the walk 3 % faster
	 * on the 113 MB trace). Anything else goes to get_int64, which fails on
	 * all but an integer in range: a string, a float, true, "12x", ...
	 */
	const char *p = v.raw_json_token().data();
	uint64_t x = 0;
	size_t k = 0;
	while (k < 17 && p[k] >= '0' && p[k] <= '9')
		x = x * 10 + (uint64_t)(p[k++] - '0');
	if (k > 0 && k < 17 && (p[0] != '0' || k == 1) &&
	    (p[k] == ',' || p[k] == '}' || p[k] == ']' || p[k] == ' ' || p[k] == '\n' || p[k] == '\r' || p[k] == '\t')) {
		out = (int64_t)x;
		return true;
	}
	int64_t i;
	if (v.get_int64().get(i) == SUCCESS) {
		out = i;
		return true;
	}
	return false;
}

/* A number's raw text, pointing into the JSON text (sj::take_number_text); false when not a number. */
bool take_number_text(ondemand::value v, kj_str &out)
{
	std::string_view raw;
	if (!sj::take_number_text(v, raw))
		return false;
	out.p = raw.data();
	out.n = raw.size();
	return true;
}

/*
 * A string value without copying when it holds no escape: sv points into the
 * JSON text (not NUL-terminated). False when it is not a string or holds a
 * backslash (take_string then unescapes it).
 */
bool raw_string(ondemand::value v, std::string_view &sv)
{
	ondemand::raw_json_string rs;
	if (v.get_raw_json_string().get(rs) != SUCCESS)
		return false;
	size_t n = plain_len(rs.raw());
	if (n == SIZE_MAX)
		return false;
	sv = std::string_view(rs.raw(), n);
	return true;
}

/* An operator's "Input Dims" as compact text (dims_text in kineto_args.h); absent when not an array. */
void take_dims(ondemand::value v, event_bufs &b, kj_str &out)
{
	std::string_view raw;
	ondemand::array arr;
	if (v.get_array().get(arr) != SUCCESS || arr.raw_json().get(raw) != SUCCESS)
		return;
	dims_text(raw, b.dims, out);
}

/*
 * An operator's "Input type" (["c10::BFloat16", "float", "", "Scalar"], one
 * string per input) or "Concrete Inputs" (["[8388608]", "15", "", "False"]:
 * a scalar input's value, a list's, "" for a tensor) as compact text, the
 * strings joined by ',': "c10::BFloat16,float,,Scalar", "[8388608],15,,False".
 * A string with any character other than a letter, digit, space or one of
 * _:.<>+-[], or with a ',' outside brackets, or unbalanced brackets, is
 * written "?" (so that the text splits at its commas outside brackets into
 * the inputs, in order). Left absent when the value is not an array of
 * strings or all its strings are empty; longer than KJ_DIMS_MAX, cut after
 * its last whole string, then ",...".
 */
void take_strings(ondemand::value v, std::string &d, kj_str &out)
{
	ondemand::array arr;
	if (v.get_array().get(arr) != SUCCESS)
		return;
	d.clear();
	bool any = false, first = true;
	for (auto el : arr) {
		/* the raw text where it holds no escape (no copy), else unescaped */
		ondemand::value ev;
		std::string_view s;
		if (el.get(ev) != SUCCESS || (!raw_string(ev, s) && ev.get_string().get(s) != SUCCESS))
			return;
		if (!list_add(d, s, first, any))
			break;
	}
	list_done(d, any, out);
}

/*
 * The args an event's class uses: all, or "External id", "Input Dims",
 * "Input type" and "Concrete Inputs" alone (KJ_ONLY_EXTERNAL_ID: an
 * operator's; the rest skipped once all four were read), but of an
 * operator named record_param_comms, or not named before its args, all
 * (its c10d args: kineto.c joins them to its kernel).
 */
int args_want(const kj_event &ev, int want)
{
	if ((want & KJ_ONLY_EXTERNAL_ID) && (!ev.name.p || !strcmp(ev.name.p, "record_param_comms")))
		want &= ~KJ_ONLY_EXTERNAL_ID;
	return want;
}

/* Reads the args of args_want through simdjson, a field at a time. */
error_code read_args(ondemand::object args, kj_event &ev, event_bufs &b, int want)
{
	want = args_want(ev, want);
	unsigned seen = 0; /* of the four an operator's args are read for, those read */
	for (auto field : args) {
		key_id key;
		ondemand::field f;
		error_code e = key_of(field, f, true, key);
		if (e)
			return e;
		ondemand::value v = f.value();
		int64_t i;
		if (key == K_EXTERNAL_ID || key == K_INPUT_DIMS || key == K_INPUT_TYPE || key == K_CONCRETE) {
			if (key == K_EXTERNAL_ID && take_int(v, i)) {
				ev.external_id = i;
				ev.has_external_id = 1;
			} else if (key == K_INPUT_DIMS) {
				take_dims(v, b, ev.dims);
			} else if (key == K_INPUT_TYPE) {
				take_strings(v, b.types, ev.types);
			} else if (key == K_CONCRETE) {
				take_strings(v, b.concrete, ev.concrete);
			}
			seen |= 1u << (key == K_EXTERNAL_ID ? 0 : key == K_INPUT_DIMS ? 1 : key == K_INPUT_TYPE ? 2 : 3);
			if ((want & KJ_ONLY_EXTERNAL_ID) && seen == 15)
				break; /* nothing else is used: the rest is skipped */
			continue;
		}
		if (want & KJ_ONLY_EXTERNAL_ID)
			continue;
		switch (key) {
		case K_DEVICE:
			if (take_int(v, i)) { ev.device = i; ev.has_device = 1; }
			else if (!ev.bad_int) ev.bad_int = "device";
			break;
		case K_STREAM:
			if (take_int(v, i)) { ev.stream = i; ev.has_stream = 1; }
			else if (!ev.bad_int) ev.bad_int = "stream";
			break;
		case K_CORRELATION:
			if (take_int(v, i)) { ev.correlation = i; ev.has_correlation = 1; }
			else if (!ev.bad_int) ev.bad_int = "correlation";
			break;
		case K_BYTES:
			if (take_int(v, i)) { ev.bytes = i; ev.has_bytes = 1; }
			break;
		case K_COLLECTIVE: take_string(v, b.collective, ev.collective); break;
		case K_DTYPE: take_string(v, b.dtype, ev.dtype); break;
		case K_IN_NELEMS: if (take_int(v, i)) ev.in_nelems = i; break;
		case K_OUT_NELEMS: if (take_int(v, i)) ev.out_nelems = i; break;
		case K_GROUP_SIZE: if (take_int(v, i)) ev.group_size = i; break;
		case K_PG_NAME:
			if (take_string(v, b.process_group, ev.process_group)) ev.pg_from_name = 1;
			break;
		case K_PG_DESC:
			if (!ev.pg_from_name) take_string(v, b.process_group, ev.process_group);
			break;
		case K_SEQ: if (take_int(v, i)) { ev.seq = i; ev.has_seq = 1; } break;
		case K_DST_RANK:
			if (take_int(v, i)) { ev.dst = i; ev.has_dst = 1; }
			else if (!ev.bad_int) ev.bad_int = "Dst Rank";
			break;
		case K_SRC_RANK:
			if (take_int(v, i)) { ev.src = i; ev.has_src = 1; }
			else if (!ev.bad_int) ev.bad_int = "Src Rank";
			break;
		case K_TOTAL_ALLOC: if (take_int(v, i)) { ev.total_alloc = i; ev.has_total_alloc = 1; } break;
		case K_TOTAL_RESERVED: if (take_int(v, i)) { ev.total_reserved = i; ev.has_total_reserved = 1; } break;
		case K_MEM_BYTES: if (take_int(v, i)) { ev.mem_bytes = i; ev.has_mem_bytes = 1; } break;
		case K_ADDR: if (take_int(v, i)) { ev.addr = i; ev.has_addr = 1; } break;
		case K_DEV_ID: if (take_int(v, i)) { ev.dev_id = i; ev.has_dev_id = 1; } break;
		case K_DEV_TYPE: if (take_int(v, i)) { ev.dev_type = i; ev.has_dev_type = 1; } break;
		default: break;
		}
	}
	return SUCCESS;
}

/*
 * The fields of one event. Reading stops early, the rest skipped by
 * simdjson as the array moves on, once "ph" is not "X" or "i" or cat_fn says the
 * category is not used (see kj_cat_fn).
 */
error_code read_event(ondemand::object obj, const char *at, kj_event &ev, event_bufs &b, kj_cat_fn cat_fn)
{
	/* The event from its text (at: its '{', or nullptr) where event_text can; else from a clean slate. */
	if (at && *at == '{' && kj_text_read) {
		if (event_text(at, b.end, ev, b, cat_fn, args_want))
			return SUCCESS;
		size_t offset = ev.offset;
		std::memset(&ev, 0, sizeof(ev));
		ev.offset = offset;
		ev.tid = -1;
	}
	int want = KJ_ONLY_EXTERNAL_ID - 1; /* everything, until cat says otherwise */
	int args_seen = 0;
	for (auto field : obj) {
		key_id key;
		ondemand::field f;
		error_code e = key_of(field, f, false, key);
		if (e)
			return e;
		ondemand::value v = f.value();
		switch (key) {
		case K_PH: {
			/* "X" as it nearly always is: no copy; anything else copied (and unescaped). */
			ondemand::raw_json_string rs;
			if (v.get_raw_json_string().get(rs) == SUCCESS && key_is(rs.raw(), "X")) {
				ev.ph.p = "X";
				ev.ph.n = 1;
			} else {
				take_string(v, b.ph, ev.ph);
			}
			if (ev.ph.p && (ev.ph.n != 1 || (ev.ph.p[0] != 'X' && ev.ph.p[0] != 'i')))
				return SUCCESS;
			break;
		}
		case K_TS:
			if (!take_number_text(v, ev.ts))
				ev.ts_bad = 1;
			break;
		case K_CAT: {
			std::string_view sv;
			int got = raw_string(v, sv);
			if (got) {
				ev.cat.p = sv.data(); /* not NUL-terminated: only cat_fn reads it */
				ev.cat.n = sv.size();
			} else {
				got = take_string(v, b.cat, ev.cat);
			}
			if (got) {
				want = cat_fn(ev.cat.p, ev.cat.n);
				ev.cls = want & 0xff;
				if (!ev.cls)
					return SUCCESS;
			}
			break;
		}
		case K_DUR:
			if (!take_number_text(v, ev.dur))
				ev.dur_bad = 1;
			break;
		case K_TID: {
			int64_t i;
			if (take_int(v, i))
				ev.tid = i;
			break;
		}
		case K_NAME:
			take_string(v, b.name, ev.name);
			break;
		case K_ARGS: {
			/*
			 * The first args from the text where args_text can
			 * (kineto_args.h); else, or when it gives up, through
			 * simdjson, from a clean slate.
			 */
			const char *p = v.raw_json_token().data();
			if (!args_seen++ && kj_text_read && *p == '{') {
				if (args_text(p, b.end, ev, b, args_want(ev, want)))
					break;
				std::memset(&ev.has_device, 0, sizeof(ev) - offsetof(kj_event, has_device));
			}
			ondemand::object args;
			if (v.get_object().get(args) == SUCCESS) {
				if ((e = read_args(args, ev, b, want)))
					return e;
			}
			break;
		}
		default:
			break;
		}
	}
	return SUCCESS;
}

error_code read_devices(ondemand::array arr, device_store &ds)
{
	for (auto elem : arr) {
		ondemand::object o;
		error_code e = elem.get_object().get(o);
		if (e)
			return e;
		kj_device d;
		d.id = -1;
		d.name.p = nullptr;
		d.name.n = 0;
		d.total_mem = d.num_sms = d.cc_major = d.cc_minor = -1;
		std::string name;
		for (auto field : o) {
			std::string_view key;
			ondemand::value v;
			if ((e = sj::field_kv(field, key, v)))
				return e;
			int64_t i;
			if (key == "id") {
				if (take_int(v, i)) d.id = i;
			} else if (key == "name") {
				std::string_view sv;
				if (v.get_string().get(sv) == SUCCESS)
					assign_visible(name, sv);
			} else if (key == "totalGlobalMem") {
				if (take_int(v, i)) d.total_mem = i;
			} else if (key == "numSms") {
				if (take_int(v, i)) d.num_sms = i;
			} else if (key == "computeMajor") {
				if (take_int(v, i)) d.cc_major = i;
			} else if (key == "computeMinor") {
				if (take_int(v, i)) d.cc_minor = i;
			}
		}
		ds.devs.push_back(d);
		ds.names.push_back(name);
	}
	return SUCCESS;
}

} /* namespace */

namespace {

int parse_doc(const char *data, size_t len, kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx, kj_meta *meta,
	      device_store &ds, kj_error *err)
{
	ondemand::parser parser;
	ondemand::document doc;
	ondemand::object root;
	error_code e = sj::open_object(parser, data, len, doc, root, err);
	if (e)
		return -1;
	event_bufs bufs;
	bufs.end = data + len;
	size_t last = 0;
	for (auto field : root) {
		std::string_view key;
		if ((e = field.unescaped_key().get(key)))
			break;
		if (key == "traceEvents") {
			meta->has_trace_events = 1;
			auto each = [&](ondemand::object &obj, size_t at, error_code &ee) {
				kj_event ev;
				std::memset(&ev, 0, sizeof(ev));
				ev.offset = at;
				ev.tid = -1;
				if ((ee = read_event(obj, nullptr, ev, bufs, cat_fn)))
					return false;
				return on_event(ctx, &ev) != 0;
			};
			int r = sj::each_event(field, doc, data, last, e, err, each);
			if (r)
				return r;
			if (e)
				break;
		} else if (key == "distributedInfo") {
			ondemand::object o;
			if (field.value().get_object().get(o) == SUCCESS) {
				meta->has_distributed = 1;
				for (auto f2 : o) {
					std::string_view k2;
					ondemand::value v;
					if ((e = sj::field_kv(f2, k2, v)))
						break;
					int64_t i;
					if (k2 == "rank")
						take_int(v, i) ? (void)(meta->rank = i) : (void)(meta->rank_bad = 1);
					else if (k2 == "world_size")
						take_int(v, i) ? (void)(meta->world_size = i) : (void)(meta->world_size_bad = 1);
					else if (k2 == "nccl_version") {
						std::string_view sv;
						if (v.get_string().get(sv) == SUCCESS && !sv.empty()) {
							assign_visible(ds.nccl, sv);
							ds.has_nccl = true;
						}
					}
				}
				if (e)
					break;
			}
		} else if (key == "cuda_runtime_version" || key == "cuda_driver_version") {
			ondemand::value v;
			int64_t i;
			if (field.value().get(v) == SUCCESS && take_int(v, i) && i > 0)
				*(key == "cuda_runtime_version" ? &meta->cuda_runtime : &meta->cuda_driver) = i;
		} else if (key == "baseTimeNanoseconds") {
			ondemand::value v;
			int64_t i;
			if (field.value().get(v) == SUCCESS && take_int(v, i))
				meta->base_time_ns = i;
		} else if (key == "deviceProperties") {
			ondemand::array arr;
			if (field.value().get_array().get(arr) == SUCCESS) {
				if ((e = read_devices(arr, ds)))
					break;
			}
		}
	}
	if (!sj::close_object(doc, data, len, last, e, err))
		return -1;
	return 0;
}

} /* namespace */

extern "C" int kj_parse(const char *data, size_t len, kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx,
			kj_meta *meta, kj_error *err)
{
	std::memset(meta, 0, sizeof(*meta));
	meta->rank = meta->world_size = meta->base_time_ns = meta->cuda_runtime = meta->cuda_driver = -1;
	device_store *ds = nullptr;
	try {
		ds = new device_store;
		int r = parse_doc(data, len, on_event, cat_fn, ctx, meta, *ds, err);
		if (r < 0) {
			delete ds;
			return -1;
		}
		for (size_t i = 0; i < ds->devs.size(); i++) {
			ds->devs[i].name.p = ds->names[i].c_str();
			ds->devs[i].name.n = ds->names[i].size();
		}
		meta->ndevices = ds->devs.size();
		meta->devices = ds->devs.empty() ? nullptr : ds->devs.data();
		meta->nccl_version = ds->has_nccl ? ds->nccl.c_str() : nullptr;
		meta->priv = ds;
		return r;
	} catch (...) {
		delete ds;
		set_error(err, 0, "internal error while parsing JSON", SUCCESS);
		return -1;
	}
}

extern "C" void kj_meta_release(kj_meta *meta)
{
	delete static_cast<device_store *>(meta->priv);
	meta->priv = nullptr;
	meta->devices = nullptr;
	meta->ndevices = 0;
	meta->nccl_version = nullptr;
}

/*
 * Windows of traceEvents (kj_parse_events): one parser and one set of string
 * buffers live as long as the kj_parser, so a trace read in hundreds of
 * windows allocates once. A window is a JSON array of whole events that
 * kineto_stream.c cut out of the trace.
 */
struct kj_parser {
	ondemand::parser parser;
	event_bufs bufs;
};

extern "C" struct kj_parser *kj_parser_new(size_t capacity)
{
	try {
		kj_parser *p = new kj_parser;
		/* Failing here is not fatal: iterate() allocates what a window needs. */
		if (capacity && p->parser.allocate(capacity) != SUCCESS)
			p->parser = ondemand::parser(); /* as windows come */
		return p;
	} catch (...) {
		fputs("perfstudy: error: out of memory\n", stderr);
		exit(3);
	}
}

extern "C" void kj_parser_free(struct kj_parser *p)
{
	delete p;
}

namespace {

int parse_window(kj_parser *p, const char *data, size_t len, size_t base, kj_event_fn on_event, kj_cat_fn cat_fn,
		 void *ctx,
		 kj_error *err)
{
	padded_string_view json(data, len, len + SIMDJSON_PADDING);
	p->bufs.end = data + len;
	size_t last = 0;
	/*
	 * The events from the text while event_text can read them (its
	 * comment), then, from the first it cannot, through simdjson, which
	 * skips those already read (the same text walked again: only where an
	 * event is not plain JSON, rare). The array read to its end from the
	 * text with nothing but blanks after it is the whole window, and then
	 * simdjson never looks at it: its first stage (structure, UTF-8, a
	 * string closed, no control byte in one) was a tenth of the reading
	 * thread's time on the big trace. What that stage alone would refuse
	 * the text path refuses too: the window's UTF-8 is checked first, and
	 * a string with a byte below 0x20 ends the text path, where simdjson's
	 * first stage then gives its error. Where the window is refused so, the
	 * events before the refusal have been handed on already; the error is
	 * the same, and an error ends the trace.
	 */
	size_t done = 0;
	const char *end = data + len, *q = kj_args::skip_blanks(data, end);
	if (kj_text_read && q < end && *q == '[' && simdjson::validate_utf8(data, len)) {
		for (q = kj_args::skip_blanks(q + 1, end); q < end && *q == '{'; done++) {
			kj_event ev;
			std::memset(&ev, 0, sizeof(ev));
			ev.offset = base + (size_t)(q - data);
			ev.tid = -1;
			const char *r = event_text(q, end, ev, p->bufs, cat_fn, args_want);
			if (!r)
				break;
			if (on_event(ctx, &ev))
				return 1;
			q = kj_args::skip_blanks(r, end);
			if (q < end && *q == ',') {
				q = kj_args::skip_blanks(q + 1, end);
			} else {
				if (q < end && *q == ']' && kj_args::skip_blanks(q + 1, end) == end)
					return 0;
				done++;
				break;
			}
		}
	}
	ondemand::document doc;
	error_code e = p->parser.iterate(json).get(doc);
	if (e) {
		set_error(err, base, "cannot parse JSON", e);
		return -1;
	}
	ondemand::array arr;
	if ((e = doc.get_array().get(arr))) {
		set_error(err, base + where(doc, data, 0), "malformed JSON", e);
		return -1;
	}
	for (auto elem : arr) {
		if (done) {
			last = where(doc, data, last); /* as event_object keeps it */
			done--;
			continue;
		}
		ondemand::object obj;
		std::string_view tok;
		const char *at = elem.raw_json_token().get(tok) == SUCCESS ? tok.data() : nullptr;
		if ((e = sj::event_object(elem, doc, data, base, last, obj, err)))
			return -1;
		kj_event ev;
		std::memset(&ev, 0, sizeof(ev));
		ev.offset = base + last;
		ev.tid = -1;
		if ((e = read_event(obj, at, ev, p->bufs, cat_fn)))
			break;
		if (on_event(ctx, &ev))
			return 1;
	}
	if (e) {
		set_error(err, base + where(doc, data, last), "malformed JSON", e);
		return -1;
	}
	size_t rest;
	if (sj::trailing_content(doc, data, len, &rest)) {
		set_error(err, base + rest, "malformed JSON", TAPE_ERROR);
		return -1;
	}
	return 0;
}

} /* namespace */

extern "C" int kj_parse_events(struct kj_parser *p, const char *data, size_t len, size_t base,
			       kj_event_fn on_event, kj_cat_fn cat_fn, void *ctx, struct kj_error *err)
{
	try {
		return parse_window(p, data, len, base, on_event, cat_fn, ctx, err);
	} catch (...) {
		set_error(err, base, "internal error while parsing JSON", SUCCESS);
		return -1;
	}
}
