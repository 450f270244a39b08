/*
 * kineto_args.h: a Kineto event, its args above all, read straight from
 * the JSON text (C++; kineto_json.cpp is its one includer), and the
 * compact texts of an operator's "Input Dims", "Input type" and "Concrete
 * Inputs" that both ways of reading share.
 *
 * read_event and read_args in kineto_json.cpp walk an event with
 * simdjson's on-demand iterator, a field at a time; most of a big trace's
 * events are operators whose args hold nine fields and three arrays, and
 * walking them so cost more than the rest of the event. event_text and
 * args_text read the same fields from the text in one pass, for events as
 * Kineto writes them: keys and strings without escapes, integers as
 * take_int reads them in place, plain JSON structure. Whatever else they
 * meet (an escape, a string that is copied for a collective, a number not
 * read in place, a value that is not what read_event takes, structure that
 * is not well formed) they give up on, having kept nothing, and
 * kineto_json.cpp reads the event its way: the same fields and the same
 * errors either way. simdjson then skips the object read from the text
 * as it skips any value not read.
 */
#ifndef PERFSTUDY_KINETO_ARGS_H
#define PERFSTUDY_KINETO_ARGS_H

#include "ingest/kineto/kineto_json.h"
#include "ingest/kineto/kineto_keys.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace kj_args {

using kj_keys::key_id;
using kj_keys::plain_len;

/* The buffers behind an event's strings, kept from one event to the next; end: where the JSON text ends. */
struct event_bufs {
	std::string ph, cat, name, collective, dtype, process_group, dims, types, concrete;
	const char *end = nullptr;
};

/* The longest compact "Input Dims" text kept; a longer one is cut after its last whole input, then ",...". */
#define KJ_DIMS_MAX 256

/*
 * An operator's "Input Dims" ([[36, 1024], [50257, 1024]], one list per
 * input, [] for a non-tensor), raw: the array's JSON text, as compact text
 * without the outer brackets and spaces: "[36,1024],[50257,1024]". An
 * input that is a list of tensors (a TensorList: [[768, 768], [768]], as
 * aten::_fused_adamw_ and the _foreach_ operators take) is written
 * "{T:E}", its T tensors and their E elements in all (a 0-d tensor, [],
 * counts one): "{2:590592}"; store/sink.c keeps such text for model_ops
 * alone. Left absent when the value is not an array of arrays of integers
 * (or of lists of them: only digits, '-', ',', '[', ']' and spaces), when
 * a list of tensors holds a negative size or more than 2^53 elements, or
 * when no input is a tensor with dimensions.
 */
inline void dims_text(std::string_view raw, std::string &d, kj_str &out)
{
	d.clear();
	const uint64_t lim = (uint64_t)1 << 53;
	int depth = 0, any = 0, list = 0, num = 0;
	size_t open = 0;              /* where the input at depth 2 starts in d */
	uint64_t tensors = 0, elems = 0, prod = 1, x = 0;
	for (char c : raw) {
		if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
			continue;
		if (c == '[') {
			if (++depth > 3)
				return;
			if (depth == 1)
				continue;
			if (depth == 3) {
				if (!list) {
					if (d.size() != open + 1)
						return; /* [768,[1]]: neither a shape nor a list of them */
					d.resize(open);
					list = 1;
					tensors = elems = 0;
				}
				tensors++;
				prod = 1;
				num = 0;
				continue;
			}
			open = d.size();
			list = 0;
		} else if (c == ']') {
			if (--depth < 0)
				return;
			if (depth == 0)
				break;
			if (depth == 2) {
				if (num) {
					if (x && prod > lim / x)
						return;
					prod *= x;
				}
				num = 0;
				elems += prod;
				if (elems > lim)
					return;
				continue;
			}
			if (list) {
				d += "{" + std::to_string(tensors) + ":" + std::to_string(elems) + "}";
				any = 1;
				list = 0;
				continue;
			}
		} else if ((c >= '0' && c <= '9') || c == '-') {
			if (depth == 3) {
				if (c == '-')
					return;
				if (!num)
					x = 0;
				num = 1;
				if (x > lim / 10)
					return;
				x = x * 10 + (uint64_t)(c - '0');
				continue;
			}
			if (depth == 2 && !list)
				any = 1;
			else
				return;
		} else if (c == ',') {
			if (depth == 3) {
				if (num) {
					if (x && prod > lim / x)
						return;
					prod *= x;
				}
				num = 0;
				continue;
			}
			if (depth == 2 && list)
				continue;
		} else {
			return;
		}
		d.push_back(c);
	}
	if (!any || depth != 0)
		return;
	if (d.size() > KJ_DIMS_MAX) {
		/* after the last whole input ("]," or "},") that leaves room for ",..." */
		size_t cut = std::string::npos;
		for (size_t i = 0; i + 4 <= KJ_DIMS_MAX; i++)
			if ((d[i] == ']' || d[i] == '}') && d[i + 1] == ',')
				cut = i;
		if (cut == std::string::npos)
			return;
		d.resize(cut + 1);
		d += ",...";
	}
	out.p = d.c_str();
	out.n = d.size();
}

/* The bytes that may stand in a string of the compact list text (see list_add), as a table. */
struct list_chars {
	bool ok[256];
	list_chars() : ok()
	{
		for (int c = 0; c < 256; c++)
			ok[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' ||
				c == '_' || c == ':' || c == '.' || c == '<' || c == '>' || c == '+' || c == '-' || c == '[' ||
				c == ']' || c == ',';
	}
};
inline const list_chars list_char_table;

/*
 * Adds one string of an operator's "Input type" or "Concrete Inputs" to
 * its compact text d (see take_strings in kineto_json.cpp): after a ','
 * unless first, the string, or "?" when it holds a character other than a
 * letter, digit, space or one of _:.<>+-[], a ',' outside brackets, or
 * unbalanced brackets. False once d is long enough that no later string
 * can be kept: the list's other strings are not added.
 */
inline bool list_add(std::string &d, std::string_view s, bool &first, bool &any)
{
	if (!first)
		d.push_back(',');
	first = false;
	size_t at = d.size();
	int depth = 0;
	bool ok = true;
	for (char c : s) {
		depth += c == '[' ? 1 : c == ']' ? -1 : 0;
		if (!list_char_table.ok[(unsigned char)c] || depth < 0 || (c == ',' && !depth)) {
			ok = false;
			break;
		}
	}
	if (ok && !depth)
		d.append(s);
	else
		d.push_back('?');
	any = any || d.size() > at;
	return d.size() <= KJ_DIMS_MAX + 1;
}

/* The list's compact text d to out once its strings are added: absent when all were empty; cut when too long. */
inline void list_done(std::string &d, bool any, kj_str &out)
{
	if (!any)
		return;
	if (d.size() > KJ_DIMS_MAX) {
		/* the last ',' at depth 0 that leaves room for ",..." */
		size_t cut = std::string::npos;
		int depth = 0;
		for (size_t i = 0; i + 4 <= KJ_DIMS_MAX; i++) {
			depth += d[i] == '[' ? 1 : d[i] == ']' ? -1 : 0;
			if (d[i] == ',' && !depth)
				cut = i;
		}
		if (cut == std::string::npos)
			return;
		d.resize(cut);
		d += ",...";
	}
	out.p = d.c_str();
	out.n = d.size();
}

/* The text reader's steps: each returns where it stopped, or nullptr to give up. */

inline bool blank(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

inline const char *skip_blanks(const char *p, const char *end)
{
	while (p < end && blank(*p))
		p++;
	return p;
}

/* A string at p (its opening quote) without escapes or control bytes: after its closing quote. */
inline const char *text_string(const char *p, const char *end, std::string_view &s)
{
	size_t n = plain_len(p + 1);
	if (n == SIZE_MAX || p + 1 + n >= end)
		return nullptr;
	s = std::string_view(p + 1, n);
	return p + n + 2;
}

/*
 * An integer at p as take_int reads it in place (up to 16 digits, no
 * leading zero, followed by what may follow a value), or a negative one
 * ('-', then such digits, not zero): what get_int64 reads the same.
 */
inline const char *text_int(const char *p, const char *end, int64_t &out)
{
	bool neg = p < end && *p == '-';
	const char *q = p + neg;
	uint64_t x = 0;
	size_t k = 0;
	while (k < 17 && q + k < end && q[k] >= '0' && q[k] <= '9')
		x = x * 10 + (uint64_t)(q[k++] - '0');
	if (k == 0 || k >= 17 || q + k >= end || (q[0] == '0' && (k != 1 || neg)))
		return nullptr;
	char c = q[k];
	if (c != ',' && c != '}' && c != ']' && !blank(c))
		return nullptr;
	out = neg ? -(int64_t)x : (int64_t)x;
	return q + k;
}

/*
 * Any value at p, skipped: a string, a scalar (a run of letters, digits,
 * '.', '+', '-'), or an array or object, whose structure is checked as
 * JSON's (commas between values, a key and ':' before each of an object's,
 * brackets that match) down to depth levels. simdjson reads malformed
 * structure differently when it walks values than when it skips them, so
 * the text is only read here where it is well formed.
 */
/* The bytes of a number's run as skip_value takes it: letters, digits, '.', '+' and '-'. */
struct token_chars {
	bool ok[256];
	token_chars() : ok()
	{
		for (int c = 0; c < 256; c++)
			ok[c] = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
				c == '+' || c == '-';
	}
};
inline const token_chars token_char_table;

inline bool token_char(char c)
{
	return token_char_table.ok[(unsigned char)c];
}

/*
 * An array at p ('[') of numbers and arrays of them only ("Input Strides",
 * "Input Dims": most of what an operator's args hold), skipped in one loop
 * instead of a call a value: where it ends, as skip_value's walk would
 * find it, or nullptr at anything else (a string, an object, a value that
 * does not start with a digit or '-', structure that is not JSON's, more
 * than depth arrays deep, the text's end), where skip_value walks it its
 * way from p and so gives the same answer.
 */
inline const char *skip_number_array(const char *p, const char *end, int depth)
{
	int level = 0;
	bool value = false; /* after a value: ',' or ']' next */
	bool open = false;  /* just after '[': ']' may close it */
	for (; p < end; p++) {
		char c = *p;
		if (c == '[') {
			if (value || level >= depth)
				return nullptr;
			level++;
			open = true;
		} else if (c == ']') {
			if (!value && !open)
				return nullptr;
			if (--level == 0)
				return p + 1;
			value = true;
			open = false;
		} else if (c == ',') {
			if (!value)
				return nullptr;
			value = false;
		} else if ((c >= '0' && c <= '9') || c == '-') {
			if (value)
				return nullptr;
			while (p + 1 < end && token_char(p[1]))
				p++;
			value = true;
			open = false;
		} else if (!blank(c)) {
			return nullptr;
		}
	}
	return nullptr;
}

inline const char *skip_value(const char *p, const char *end, int depth = 16)
{
	std::string_view s;
	if (p >= end)
		return nullptr;
	if (*p == '"')
		return text_string(p, end, s);
	if (*p == '[' && depth) {
		const char *q = skip_number_array(p, end, depth);
		if (q)
			return q;
	}
	if (*p == '[' || *p == '{') {
		char close = *p == '[' ? ']' : '}';
		if (!depth)
			return nullptr;
		p = skip_blanks(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				if (p >= end || *p != '"' || !(p = text_string(p, end, s)))
					return nullptr;
				p = skip_blanks(p, end);
				if (p >= end || *p != ':')
					return nullptr;
				p = skip_blanks(p + 1, end);
			}
			if (!(p = skip_value(p, end, depth - 1)))
				return nullptr;
			p = skip_blanks(p, end);
			if (p >= end)
				return nullptr;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return nullptr;
			p = skip_blanks(p + 1, end);
		}
	}
	const char *q = p;
	while (q < end && token_char(*q))
		q++;
	return q > p ? q : nullptr;
}

/* An array of strings without escapes at p into the compact list text d and out (see list_add). */
inline const char *text_list(const char *p, const char *end, std::string &d, kj_str &out)
{
	if (*p != '[')
		return skip_value(p, end); /* not an array: absent */
	d.clear();
	bool first = true, any = false, adding = true;
	p = skip_blanks(p + 1, end);
	if (p < end && *p == ']') {
		list_done(d, any, out);
		return p + 1;
	}
	for (;;) {
		std::string_view s;
		if (p >= end || *p != '"' || !(p = text_string(p, end, s)))
			return nullptr; /* not a string, or escaped: read_args says what */
		if (adding)
			adding = list_add(d, s, first, any);
		p = skip_blanks(p, end);
		if (p >= end)
			return nullptr;
		if (*p == ']')
			break;
		if (*p != ',')
			return nullptr;
		p = skip_blanks(p + 1, end);
	}
	list_done(d, any, out);
	return p + 1;
}

/* An integer arg into *v and *has; false to give up (read_args then says whether it is one). */
inline const char *int_arg(const char *p, const char *end, int64_t *v, int *has)
{
	int64_t i;
	if (!(p = text_int(p, end, i)))
		return nullptr;
	*v = i;
	if (has)
		*has = 1;
	return p;
}

/*
 * The object at p ('{') walked in its text, a field at a time: field(key,
 * v) for each, key its key's text after the opening quote (a key without
 * escapes, followed by its closing quote), v its value's first byte (before
 * end), returning where the value ends, or nullptr to give up. Returns
 * where the object ends, or nullptr where field gave up or the object is
 * not plain JSON (a key, ':', a value, then ',' or '}').
 *
 * args_text and event_text walk with it, field a lambda of theirs; it and
 * the lambdas are always inlined, so that each of the two is one loop, as
 * when each had its own: with the lambdas called out of line, a call a
 * field, the walk of a trace took 4 % more instructions (callgrind).
 */
template <typename F>
inline __attribute__((always_inline)) const char *text_object(const char *p, const char *end, F &&field)
{
	p = skip_blanks(p + 1, end);
	if (p < end && *p == '}')
		return p + 1;
	for (;;) {
		std::string_view k;
		if (p >= end || *p != '"' || !(p = text_string(p, end, k)))
			return nullptr;
		p = skip_blanks(p, end);
		if (p >= end || *p != ':')
			return nullptr;
		p = skip_blanks(p + 1, end);
		if (p >= end || !(p = field(k.data(), p)))
			return nullptr;
		p = skip_blanks(p, end);
		if (p >= end)
			return nullptr;
		if (*p == '}')
			return p + 1;
		if (*p != ',')
			return nullptr;
		p = skip_blanks(p + 1, end);
	}
}

/*
 * The args object at p ('{') into ev as read_args reads them for want
 * (want & KJ_ONLY_EXTERNAL_ID: the four of an operator, reading stopped
 * once all four were read; the rest skipped, as simdjson skips it). Returns
 * where the object ends, or nullptr to give up: ev's args may then be half
 * filled and bufs' texts changed; the caller clears the args and reads
 * them again through simdjson.
 */
inline const char *args_text(const char *p, const char *end, kj_event &ev, event_bufs &b, int want)
{
	unsigned seen = 0;
	bool done = false; /* all four of an operator's read: the rest only skipped */
	return text_object(p, end, [&](const char *k, const char *v) __attribute__((always_inline)) -> const char * {
		key_id key = done ? kj_keys::K_OTHER : kj_keys::key_at(k, true);
		bool four = key == kj_keys::K_EXTERNAL_ID || key == kj_keys::K_INPUT_DIMS || key == kj_keys::K_INPUT_TYPE ||
			    key == kj_keys::K_CONCRETE;
		if ((want & KJ_ONLY_EXTERNAL_ID) && !four)
			return skip_value(v, end);
		const char *q;
		switch (key) {
		case kj_keys::K_EXTERNAL_ID: q = int_arg(v, end, &ev.external_id, &ev.has_external_id); break;
		case kj_keys::K_INPUT_DIMS:
			q = skip_value(v, end);
			if (q && *v == '[')
				dims_text(std::string_view(v, (size_t)(q - v)), b.dims, ev.dims);
			break;
		case kj_keys::K_INPUT_TYPE: q = text_list(v, end, b.types, ev.types); break;
		case kj_keys::K_CONCRETE: q = text_list(v, end, b.concrete, ev.concrete); break;
		case kj_keys::K_DEVICE: return int_arg(v, end, &ev.device, &ev.has_device);
		case kj_keys::K_STREAM: return int_arg(v, end, &ev.stream, &ev.has_stream);
		case kj_keys::K_CORRELATION: return int_arg(v, end, &ev.correlation, &ev.has_correlation);
		case kj_keys::K_BYTES: return int_arg(v, end, &ev.bytes, &ev.has_bytes);
		case kj_keys::K_IN_NELEMS: return int_arg(v, end, &ev.in_nelems, nullptr);
		case kj_keys::K_OUT_NELEMS: return int_arg(v, end, &ev.out_nelems, nullptr);
		case kj_keys::K_GROUP_SIZE: return int_arg(v, end, &ev.group_size, nullptr);
		case kj_keys::K_SEQ: return int_arg(v, end, &ev.seq, &ev.has_seq);
		case kj_keys::K_DST_RANK: return int_arg(v, end, &ev.dst, &ev.has_dst);
		case kj_keys::K_SRC_RANK: return int_arg(v, end, &ev.src, &ev.has_src);
		case kj_keys::K_TOTAL_ALLOC: return int_arg(v, end, &ev.total_alloc, &ev.has_total_alloc);
		case kj_keys::K_TOTAL_RESERVED: return int_arg(v, end, &ev.total_reserved, &ev.has_total_reserved);
		case kj_keys::K_MEM_BYTES: return int_arg(v, end, &ev.mem_bytes, &ev.has_mem_bytes);
		case kj_keys::K_ADDR: return int_arg(v, end, &ev.addr, &ev.has_addr);
		case kj_keys::K_DEV_ID: return int_arg(v, end, &ev.dev_id, &ev.has_dev_id);
		case kj_keys::K_DEV_TYPE: return int_arg(v, end, &ev.dev_type, &ev.has_dev_type);
		case kj_keys::K_OTHER: return skip_value(v, end);
		default: return nullptr; /* a string copied (the collective's), or a key written with escapes */
		}
		/* one of the four, read */
		if (q) {
			seen |= 1u << (key == kj_keys::K_EXTERNAL_ID ? 0 : key == kj_keys::K_INPUT_DIMS ? 1 :
				       key == kj_keys::K_INPUT_TYPE ? 2 : 3);
			done = (want & KJ_ONLY_EXTERNAL_ID) && seen == 15;
		}
		return q;
	});
}

/* A string value at p without escapes or NUL bytes copied into buf, out pointing at it. */
inline const char *text_copy(const char *p, const char *end, std::string &buf, kj_str &out)
{
	std::string_view s;
	if (p >= end || *p != '"' || !(p = text_string(p, end, s)) || memchr(s.data(), 0, s.size()))
		return nullptr;
	buf.assign(s.data(), s.size());
	out.p = buf.c_str();
	out.n = buf.size();
	return p;
}

/*
 * A number's text at p as take_number_text takes it: a run of letters,
 * digits, '.', '+', '-' that starts with a digit or '-'.
 */
inline const char *text_number(const char *p, const char *end, kj_str &out)
{
	if (p >= end || !((*p >= '0' && *p <= '9') || *p == '-'))
		return nullptr;
	const char *q = skip_value(p, end);
	if (q) {
		out.p = p;
		out.n = (size_t)(q - p);
	}
	return q;
}

/*
 * The whole event object at p ('{') into ev as read_event reads it: "ph",
 * "cat" (reading stops at a "ph" other than "X" or "i", or a category
 * cat_fn does not want: the rest is skipped), "ts", "dur", "tid", "name"
 * and the args (args_text). Returns where the object ends, or nullptr to
 * give up where read_event would copy or unescape what it reads, or where
 * the text is not plain JSON; ev is then to be read again from scratch
 * through simdjson.
 */
inline const char *event_text(const char *p, const char *end, kj_event &ev, event_bufs &b, kj_cat_fn cat_fn,
			      int (*want_of)(const kj_event &, int))
{
	int want = KJ_ONLY_EXTERNAL_ID - 1; /* everything, until cat says otherwise */
	bool args = false, stop = false;
	return text_object(p, end, [&](const char *k, const char *v) __attribute__((always_inline)) -> const char * {
		switch (stop ? kj_keys::K_OTHER : kj_keys::key_at(k, false)) {
		case kj_keys::K_PH:
			if (v + 2 < end && v[0] == '"' && (v[1] == 'X' || v[1] == 'i') && v[2] == '"') {
				ev.ph.p = v[1] == 'X' ? "X" : "i";
				ev.ph.n = 1;
				return v + 3;
			}
			stop = true;
			return text_copy(v, end, b.ph, ev.ph);
		case kj_keys::K_TS: return text_number(v, end, ev.ts);
		case kj_keys::K_DUR: return text_number(v, end, ev.dur);
		case kj_keys::K_CAT: {
			std::string_view s;
			if (*v != '"' || !(v = text_string(v, end, s)))
				return nullptr;
			ev.cat.p = s.data();
			ev.cat.n = s.size();
			want = cat_fn(ev.cat.p, ev.cat.n);
			ev.cls = want & 0xff;
			stop = !ev.cls;
			return v;
		}
		case kj_keys::K_TID:
			if (*v == '"') {
				std::string_view s; /* a name ("PyTorch Profiler"): no tid, as take_int reads none */
				return text_string(v, end, s);
			}
			return text_int(v, end, ev.tid);
		case kj_keys::K_NAME: return text_copy(v, end, b.name, ev.name);
		case kj_keys::K_ARGS:
			if (args || *v != '{')
				return nullptr;
			args = true;
			return args_text(v, end, ev, b, want_of(ev, want));
		default: return skip_value(v, end);
		}
	});
}

} /* namespace kj_args */

#endif
