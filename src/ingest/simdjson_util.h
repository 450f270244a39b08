/*
 * simdjson_util.h: the pieces of a simdjson on-demand walk that the JSON
 * readers' shims (kineto/kineto_json.cpp, jax/jax_json.cpp) share. C++ only,
 * never included from C: nothing here crosses a reader's C API.
 *
 * Reads values from a simdjson document; writes into std::string buffers
 * the caller owns, or points into the JSON text (valid as long as the text).
 * Everything is inline, in namespace sj, and throws nothing of its own.
 */
#ifndef PERFSTUDY_INGEST_SIMDJSON_UTIL_H
#define PERFSTUDY_INGEST_SIMDJSON_UTIL_H

#ifndef __cplusplus
#error "ingest/simdjson_util.h is C++ only"
#endif

#include <simdjson.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

namespace sj {

/*
 * Fills a reader's error struct (kj_error, jj_error: offset, message,
 * detail): what was expected, and simdjson's reason for code, or an empty
 * detail for SUCCESS. simdjson's messages are sentences; ours are lowercase,
 * without a full stop.
 */
template <class Err> inline void set_error(Err *err, size_t offset, const char *what, simdjson::error_code code)
{
	err->offset = offset;
	snprintf(err->message, sizeof(err->message), "%s", what);
	std::string m = code != simdjson::SUCCESS ? simdjson::error_message(code) : "";
	if (m.size() > 1 && m[0] >= 'A' && m[0] <= 'Z' && m[1] >= 'a' && m[1] <= 'z')
		m[0] = (char)(m[0] - 'A' + 'a');
	while (!m.empty() && m.back() == '.')
		m.pop_back();
	snprintf(err->detail, sizeof(err->detail), "%s", m.c_str());
}

/* Offset of the iterator's position in the text at base, or fallback when unknown. */
inline size_t where(simdjson::ondemand::document &doc, const char *base, size_t fallback)
{
	const char *loc = nullptr;
	if (doc.current_location().get(loc) == simdjson::SUCCESS && loc)
		return (size_t)(loc - base);
	return fallback;
}

/*
 * A string's unescaped bytes into buf, each NUL (from "\u0000") as U+2400
 * SYMBOL FOR NULL: the C side reads names as NUL-terminated strings, so
 * "gemm\u0000_fp16" and "gemm\u0000_fp32" became one kernel "gemm",
 * silently truncated. Kept visible and distinct instead (docs/formats.md).
 * The common case, no NUL, is one copy.
 */
inline void assign_visible(std::string &buf, std::string_view sv)
{
	buf.assign(sv.data(), sv.size());
	if (!memchr(sv.data(), 0, sv.size()))
		return;
	buf.clear();
	for (char c : sv) {
		if (c)
			buf.push_back(c);
		else
			buf.append("\xE2\x90\x80");
	}
}

/* A string value into buf (assign_visible); false when the value is not a string. */
inline bool take_string(simdjson::ondemand::value v, std::string &buf)
{
	std::string_view sv;
	if (v.get_string().get(sv) != simdjson::SUCCESS)
		return false;
	assign_visible(buf, sv);
	return true;
}

/* raw (a value's raw JSON text) without the blanks that may follow the value. */
inline std::string_view trim_blanks(std::string_view raw)
{
	while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
		raw.remove_suffix(1);
	return raw;
}

/*
 * A number's raw text into out (pointing into the JSON text, not
 * NUL-terminated, blanks trimmed); false when the value is not a number. A
 * JSON number starts with a digit or '-'; strings, literals, objects and
 * arrays do not.
 */
inline bool take_number_text(simdjson::ondemand::value v, std::string_view &out)
{
	std::string_view raw = v.raw_json_token();
	if (raw.empty() || !((raw[0] >= '0' && raw[0] <= '9') || raw[0] == '-'))
		return false;
	out = trim_blanks(raw);
	return true;
}

/*
 * An object field's unescaped key and value; an error code when either
 * cannot be read. F: what iterating an ondemand::object yields.
 */
template <class F> inline simdjson::error_code field_kv(F &field, std::string_view &key, simdjson::ondemand::value &v)
{
	simdjson::error_code e = field.unescaped_key().get(key);
	if (e)
		return e;
	return field.value().get(v);
}

/*
 * Starts a walk over data[0..len) (followed by SIMDJSON_PADDING bytes):
 * doc over the text, root its top-level object. SUCCESS, or simdjson's
 * error code with *err filled.
 */
template <class Err>
inline simdjson::error_code open_object(simdjson::ondemand::parser &parser, const char *data, size_t len,
					simdjson::ondemand::document &doc, simdjson::ondemand::object &root, Err *err)
{
	simdjson::padded_string_view json(data, len, len + simdjson::SIMDJSON_PADDING);
	simdjson::error_code e = parser.iterate(json).get(doc);
	if (e) {
		set_error(err, 0, "cannot parse JSON", e);
		return e;
	}
	if ((e = doc.get_object().get(root)))
		set_error(err, where(doc, data, 0), "malformed JSON document", e);
	return e;
}

/*
 * The value of the root's field 'traceEvents' (field, what iterating an
 * ondemand::object yields) as arr. SUCCESS, or simdjson's error code with
 * *err filled at last, the offset of the event before.
 */
template <class F, class Err>
inline simdjson::error_code events_array(F &field, simdjson::ondemand::document &doc, const char *data, size_t last,
					 simdjson::ondemand::array &arr, Err *err)
{
	simdjson::error_code e = field.value().get_array().get(arr);
	if (e)
		set_error(err, where(doc, data, last), "expected an array for 'traceEvents'", e);
	return e;
}

/*
 * An element of 'traceEvents' (elem, what iterating an ondemand::array
 * yields) as obj, last becoming its offset in data. SUCCESS, or simdjson's
 * error code with *err filled at base + last (base: where data starts in
 * the whole text).
 */
template <class Elem, class Err>
inline simdjson::error_code event_object(Elem &elem, simdjson::ondemand::document &doc, const char *data, size_t base,
					 size_t &last, simdjson::ondemand::object &obj, Err *err)
{
	last = where(doc, data, last);
	simdjson::error_code e = elem.get_object().get(obj);
	if (e)
		set_error(err, base + last, "expected an event object in 'traceEvents'", e);
	return e;
}

/*
 * The walk over the root's field 'traceEvents' (field, as events_array
 * takes it) that both readers make: each element, as event_object gives
 * it, to each(obj, offset, e), which returns true to stop the walk or sets
 * e for an event it cannot read. Returns -1 when the field or an element
 * is not what it should be (*err filled), 1 when each stopped the walk,
 * else 0 with e the error each set (the caller ends its walk with
 * close_object) or SUCCESS.
 */
template <class F, class Err, class Each>
inline int each_event(F &field, simdjson::ondemand::document &doc, const char *data, size_t &last,
		      simdjson::error_code &e, Err *err, Each each)
{
	simdjson::ondemand::array arr;
	if ((e = events_array(field, doc, data, last, arr, err)))
		return -1;
	for (auto elem : arr) {
		simdjson::ondemand::object obj;
		if ((e = event_object(elem, doc, data, 0, last, obj, err)))
			return -1;
		bool stop = each(obj, last, e);
		if (e)
			return 0;
		if (stop)
			return 1;
	}
	return 0;
}

/*
 * Where content follows the document's root value: its offset in data into
 * *off, and true. On-demand parses lazily, so after the root the iterator
 * must be at the end; a location before data + len means more text.
 */
inline bool trailing_content(simdjson::ondemand::document &doc, const char *data, size_t len, size_t *off)
{
	const char *rest = nullptr;
	if (doc.current_location().get(rest) == simdjson::SUCCESS && rest && rest < data + len) {
		*off = (size_t)(rest - data);
		return true;
	}
	return false;
}

/*
 * The end of a walk over a top-level object (open_object): e, the walk's
 * error, reported in *err at last ("malformed JSON"), or else content after
 * the object. True when neither.
 */
template <class Err>
inline bool close_object(simdjson::ondemand::document &doc, const char *data, size_t len, size_t last,
			 simdjson::error_code e, Err *err)
{
	if (e) {
		set_error(err, where(doc, data, last), "malformed JSON", e);
		return false;
	}
	size_t rest;
	if (trailing_content(doc, data, len, &rest)) {
		set_error(err, rest, "unexpected content after the top-level object", simdjson::SUCCESS);
		return false;
	}
	return true;
}

} /* namespace sj */

#endif
