/*
 * jax_json.cpp: the simdjson on-demand walk over a JAX profiler trace.
 *
 * Like kineto_json.cpp, written with error codes, not exceptions, on the
 * helpers both share (ingest/simdjson_util.h); nothing C++ crosses the C
 * API of jax_json.h. Strings handed to C are copied into
 * reusable std::string buffers so they are NUL-terminated. The events of a
 * JAX trace are few (about 2,500 per device and step) and their args are
 * all strings, so the walk keeps to the plain on-demand API.
 */
#include "ingest/jax/jax_json.h"
#include "ingest/simdjson_util.h"

#include <simdjson.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace simdjson;

namespace {

using sj::assign_visible;
using sj::set_error;
using sj::take_string;
using sj::where;

/* A number's raw text as p and n (sj::take_number_text); false when the value is not a number. */
bool take_number_text(ondemand::value v, const char *&p, size_t &n)
{
	std::string_view raw;
	if (!sj::take_number_text(v, raw))
		return false;
	p = raw.data();
	n = raw.size();
	return true;
}

struct bufs {
	std::string ph, name;
	std::vector<std::string> keys, values;
	std::vector<jj_arg> args;
};

error_code read_args(ondemand::object obj, bufs &b, size_t &nargs)
{
	nargs = 0;
	for (auto field : obj) {
		std::string_view key;
		ondemand::value v;
		error_code e = sj::field_kv(field, key, v);
		if (e)
			return e;
		if (b.keys.size() <= nargs) {
			b.keys.resize(nargs + 1);
			b.values.resize(nargs + 1);
			b.args.resize(nargs + 1);
		}
		assign_visible(b.keys[nargs], key);
		ondemand::json_type t;
		if ((e = v.type().get(t)))
			return e;
		int is_string = t == ondemand::json_type::string;
		if (is_string) {
			if (!take_string(v, b.values[nargs]))
				return INCORRECT_TYPE;
		} else {
			std::string_view raw = sj::trim_blanks(v.raw_json_token());
			b.values[nargs].assign(raw.data(), raw.size());
		}
		b.args[nargs].is_string = is_string;
		nargs++;
	}
	for (size_t i = 0; i < nargs; i++) {
		b.args[i].key = b.keys[i].c_str();
		b.args[i].value = b.values[i].c_str();
	}
	return SUCCESS;
}

/* One event's fields. In pass 1 the reading stops at a "ph" that is not "M". */
error_code read_event(ondemand::object obj, jj_event &ev, bufs &b, int pass, bool &skip)
{
	skip = false;
	for (auto field : obj) {
		std::string_view key;
		ondemand::value v;
		error_code e = sj::field_kv(field, key, v);
		if (e)
			return e;
		if (key == "ph") {
			if (take_string(v, b.ph))
				ev.ph = b.ph.c_str();
			if (pass == 1 && !(ev.ph && !strcmp(ev.ph, "M"))) {
				skip = true;
				return SUCCESS;
			}
		} else if (key == "name") {
			if (take_string(v, b.name))
				ev.name = b.name.c_str();
		} else if (key == "pid" || key == "tid") {
			int64_t i;
			if (v.get_int64().get(i) == SUCCESS) {
				if (key == "pid") {
					ev.pid = i;
					ev.has_pid = 1;
				} else {
					ev.tid = i;
					ev.has_tid = 1;
				}
			}
		} else if (key == "ts") {
			if (!take_number_text(v, ev.ts, ev.ts_n))
				ev.ts_bad = 1;
		} else if (key == "dur") {
			if (!take_number_text(v, ev.dur, ev.dur_n))
				ev.dur_bad = 1;
		} else if (key == "args") {
			ondemand::object args;
			if (v.get_object().get(args) == SUCCESS) {
				if ((e = read_args(args, b, ev.nargs)))
					return e;
				ev.args = ev.nargs ? b.args.data() : nullptr;
			}
		}
	}
	/* pass 1 wants "M" events only; an event without "ph" is left to pass 2 */
	if (pass == 1 && !(ev.ph && !strcmp(ev.ph, "M")))
		skip = true;
	if (pass == 2 && ev.ph && !strcmp(ev.ph, "M"))
		skip = true;
	return SUCCESS;
}

int walk(const char *data, size_t len, int pass, jj_event_fn on_event, void *ctx, jj_error *err)
{
	ondemand::parser parser;
	ondemand::document doc;
	ondemand::object root;
	error_code e = sj::open_object(parser, data, len, doc, root, err);
	if (e)
		return -1;
	bufs b;
	size_t last = 0;
	bool seen = false;
	for (auto field : root) {
		std::string_view key;
		if ((e = field.unescaped_key().get(key)))
			break;
		if (key != "traceEvents")
			continue;
		seen = true;
		auto each = [&](ondemand::object &obj, size_t at, error_code &ee) {
			jj_event ev;
			std::memset(&ev, 0, sizeof(ev));
			ev.offset = at;
			bool skip;
			if ((ee = read_event(obj, ev, b, pass, skip)))
				return false;
			return !skip && on_event(ctx, pass, &ev);
		};
		int r = sj::each_event(field, doc, data, last, e, err, each);
		if (r)
			return r;
		if (e)
			break;
	}
	if (!sj::close_object(doc, data, len, last, e, err))
		return -1;
	return seen ? 0 : 2;
}

} /* namespace */

extern "C" int jj_parse(const char *data, size_t len, jj_event_fn on_event, void *ctx, jj_error *err)
{
	try {
		int r = walk(data, len, 1, on_event, ctx, err);
		if (r != 0)
			return r;
		return walk(data, len, 2, on_event, ctx, err);
	} catch (...) {
		set_error(err, 0, "internal error while parsing JSON", SUCCESS);
		return -1;
	}
}
