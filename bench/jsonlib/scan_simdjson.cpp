/*
 * scan_simdjson.cpp - kt_scan() with simdjson On-Demand (C++17).
 *
 * This is also the shape of the shim perfstudy would link: a C entry point,
 * one pass over each event's fields (key order does not matter), strings
 * unescaped by simdjson, numbers taken as raw text with raw_json_token() so
 * ts/dur become exact integer nanoseconds. No exception leaves the file.
 *
 * Note: On-Demand's stage 2 is compiled into this file for the "builtin"
 * kernel chosen by compiler flags (fallback without -march, haswell with
 * -march=x86-64-v3); stage 1 is dispatched at run time by libsimdjson.
 */
#include "kt_bench.h"

#include <simdjson.h>

using namespace simdjson;

static_assert(SIMDJSON_PADDING <= KT_PAD, "buffer slack too small for simdjson");

#define KT_STR2(x) #x
#define KT_STR(x) KT_STR2(x)

/* Raw number token (may carry trailing whitespace, which the parsers stop at). */
static std::string_view num(ondemand::value v)
{
	return v.raw_json_token();
}

static void scan_args(ondemand::object args, kt_event &ev)
{
	for (ondemand::field f : args) {
		ondemand::raw_json_string k = f.key();
		if (k == "correlation") {
			std::string_view t = num(f.value());
			ev.corr = kt_int_text(t.data(), t.size());
			ev.has |= KT_HAS_CORR;
		} else if (k == "stream") {
			std::string_view t = num(f.value());
			ev.stream = kt_int_text(t.data(), t.size());
			ev.has |= KT_HAS_STREAM;
		} else if (k == "device") {
			std::string_view t = num(f.value());
			ev.device = kt_int_text(t.data(), t.size());
			ev.has |= KT_HAS_DEVICE;
		} else if (k == "bytes") {
			std::string_view t = num(f.value());
			ev.bytes = kt_int_text(t.data(), t.size());
			ev.has |= KT_HAS_BYTES;
		}
	}
}

static void scan_event(ondemand::object obj, kt_sum *sum)
{
	kt_event ev{};
	for (ondemand::field f : obj) {
		ondemand::raw_json_string k = f.key();
		if (k == "cat") {
			std::string_view s = f.value().get_string();
			ev.cat = s.data(), ev.cat_len = s.size();
		} else if (k == "name") {
			std::string_view s = f.value().get_string();
			ev.name = s.data(), ev.name_len = s.size();
		} else if (k == "ph") {
			std::string_view s = f.value().get_string();
			ev.ph = s.data(), ev.ph_len = s.size();
		} else if (k == "ts") {
			std::string_view t = num(f.value());
			ev.ts_ns = kt_us_text_to_ns(t.data(), t.size());
			ev.has |= KT_HAS_TS;
		} else if (k == "dur") {
			std::string_view t = num(f.value());
			ev.dur_ns = kt_us_text_to_ns(t.data(), t.size());
			ev.has |= KT_HAS_DUR;
		} else if (k == "args") {
			ondemand::object args;
			if (f.value().get_object().get(args) == SUCCESS)
				scan_args(args, ev);
		}
	}
	kt_account(sum, &ev);
}

extern "C" int kt_scan(const char *json, size_t len, kt_sum *sum)
{
	try {
		ondemand::parser parser;
		ondemand::document doc = parser.iterate(json, len, len + KT_PAD);
		for (ondemand::field top : doc.get_object()) {
			if (top.key() != "traceEvents")
				continue; /* On-Demand skips the value */
			for (ondemand::object ev : top.value().get_array())
				scan_event(ev, sum);
		}
		return 0;
	} catch (const simdjson_error &e) {
		fprintf(stderr, "simdjson: %s\n", e.what());
		return 1;
	}
}

extern "C" const char *kt_lib(void)
{
	return "simdjson-" KT_STR(SIMDJSON_VERSION) "-ondemand-" KT_STR(SIMDJSON_BUILTIN_IMPLEMENTATION);
}
