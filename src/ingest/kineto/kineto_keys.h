/*
 * kineto_keys.h: the keys of a Kineto event and of its args that
 * kineto_json.cpp reads, told apart in place on the raw JSON text (C++;
 * kineto_json.cpp is its one includer). Kineto writes its keys without
 * escapes; one written with them is unescaped and compared again.
 */
#ifndef PERFSTUDY_KINETO_KEYS_H
#define PERFSTUDY_KINETO_KEYS_H

#include <simdjson.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

namespace kj_keys {

using namespace simdjson;

/*
 * Length of the string text at p up to its closing quote; SIZE_MAX when a
 * backslash or a byte below 0x20 comes first. JSON refuses such a byte in
 * a string: simdjson's first stage has refused the text before its walk
 * asks (raw_string, key_of), and kineto_args.h's text path, which reads a
 * window before that stage, gives the window up to simdjson here.
 */
inline size_t plain_len(const char *p)
{
	const char *q = p;
#ifdef __SSE2__
	/* 16 bytes at a time: the text is followed by SIMDJSON_PADDING bytes, and a string ends before it. */
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), low = _mm_set1_epi8(0x1f);
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)q);
		__m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
					    _mm_cmpeq_epi8(_mm_max_epu8(v, low), low)); /* '"', '\\' or v <= 0x1f */
		unsigned m = (unsigned)_mm_movemask_epi8(stop);
		if (m) {
			q += __builtin_ctz(m);
			break;
		}
		q += 16;
	}
#else
	while (*q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
		q++;
#endif
	return *q == '"' ? (size_t)(q - p) : SIZE_MAX;
}

/* The keys read_event and read_args look at. */
enum key_id {
	K_OTHER, K_PH, K_TS, K_CAT, K_DUR, K_TID, K_NAME, K_ARGS,
	K_EXTERNAL_ID, K_DEVICE, K_STREAM, K_CORRELATION, K_BYTES, K_COLLECTIVE, K_DTYPE, K_IN_NELEMS,
	K_OUT_NELEMS, K_GROUP_SIZE, K_PG_NAME, K_PG_DESC, K_SEQ, K_DST_RANK, K_SRC_RANK,
	K_TOTAL_ALLOC, K_TOTAL_RESERVED, K_MEM_BYTES, K_ADDR, K_DEV_ID, K_DEV_TYPE, K_INPUT_DIMS,
	K_INPUT_TYPE, K_CONCRETE,
};

/* Whether the key text at p (after its opening quote) is exactly k: k's bytes, then the closing quote. */
template <size_t N> inline bool key_is(const char *p, const char (&k)[N])
{
	return !memcmp(p, k, N - 1) && p[N - 1] == '"';
}

/* An unescaped key's id, by comparing whole strings: the slow way, for keys written with escapes. */
inline key_id key_by_name(std::string_view k, bool args)
{
	static const struct {
		const char *name;
		key_id id;
		bool args;
	} keys[] = {
		{"ph", K_PH, false}, {"ts", K_TS, false}, {"cat", K_CAT, false}, {"dur", K_DUR, false},
		{"tid", K_TID, false}, {"name", K_NAME, false}, {"args", K_ARGS, false},
		{"External id", K_EXTERNAL_ID, true}, {"external id", K_EXTERNAL_ID, true}, {"device", K_DEVICE, true},
		{"stream", K_STREAM, true}, {"correlation", K_CORRELATION, true}, {"bytes", K_BYTES, true},
		{"Collective name", K_COLLECTIVE, true}, {"dtype", K_DTYPE, true}, {"In msg nelems", K_IN_NELEMS, true},
		{"Out msg nelems", K_OUT_NELEMS, true}, {"Group size", K_GROUP_SIZE, true},
		{"Process Group Name", K_PG_NAME, true}, {"Process Group Description", K_PG_DESC, true},
		{"Seq", K_SEQ, true}, {"Dst Rank", K_DST_RANK, true}, {"Src Rank", K_SRC_RANK, true},
		{"Total Allocated", K_TOTAL_ALLOC, true}, {"Total Reserved", K_TOTAL_RESERVED, true},
		{"Bytes", K_MEM_BYTES, true}, {"Addr", K_ADDR, true}, {"Device Id", K_DEV_ID, true},
		{"Device Type", K_DEV_TYPE, true}, {"Input Dims", K_INPUT_DIMS, true},
		{"Input type", K_INPUT_TYPE, true}, {"Concrete Inputs", K_CONCRETE, true},
	};
	for (const auto &e : keys)
		if (e.args == args && k == e.name)
			return e.id;
	return K_OTHER;
}

/*
 * The id of the key whose text (after its opening quote) is at p, compared
 * in place up to and with its closing quote (the text is padded: reading a
 * few bytes past a short key is safe); K_OTHER when none matches as
 * written. args: the keys of args, else those of the event.
 */
inline key_id key_at(const char *p, bool args)
{
	if (!args) {
		switch (p[0]) {
		case 'p': if (key_is(p, "ph")) return K_PH; break;
		case 't': if (key_is(p, "ts")) return K_TS; if (key_is(p, "tid")) return K_TID; break;
		case 'c': if (key_is(p, "cat")) return K_CAT; break;
		case 'd': if (key_is(p, "dur")) return K_DUR; break;
		case 'n': if (key_is(p, "name")) return K_NAME; break;
		case 'a': if (key_is(p, "args")) return K_ARGS; break;
		default: break;
		}
		return K_OTHER;
	}
	switch (p[0]) {
	case 'E': if (key_is(p, "External id")) return K_EXTERNAL_ID; break;
	case 'e': if (key_is(p, "external id")) return K_EXTERNAL_ID; break;
	case 'd': if (key_is(p, "device")) return K_DEVICE; if (key_is(p, "dtype")) return K_DTYPE; break;
	case 's': if (key_is(p, "stream")) return K_STREAM; break;
	case 'c': if (key_is(p, "correlation")) return K_CORRELATION; break;
	case 'b': if (key_is(p, "bytes")) return K_BYTES; break;
	case 'C':
		if (key_is(p, "Collective name")) return K_COLLECTIVE;
		if (key_is(p, "Concrete Inputs")) return K_CONCRETE;
		break;
	case 'I':
		if (key_is(p, "In msg nelems")) return K_IN_NELEMS;
		if (key_is(p, "Input Dims")) return K_INPUT_DIMS;
		if (key_is(p, "Input type")) return K_INPUT_TYPE;
		break;
	case 'O': if (key_is(p, "Out msg nelems")) return K_OUT_NELEMS; break;
	case 'G': if (key_is(p, "Group size")) return K_GROUP_SIZE; break;
	case 'P':
		if (key_is(p, "Process Group Name")) return K_PG_NAME;
		if (key_is(p, "Process Group Description")) return K_PG_DESC;
		break;
	case 'S': if (key_is(p, "Seq")) return K_SEQ; if (key_is(p, "Src Rank")) return K_SRC_RANK; break;
	case 'T':
		if (key_is(p, "Total Allocated")) return K_TOTAL_ALLOC;
		if (key_is(p, "Total Reserved")) return K_TOTAL_RESERVED;
		break;
	case 'B': if (key_is(p, "Bytes")) return K_MEM_BYTES; break;
	case 'A': if (key_is(p, "Addr")) return K_ADDR; break;
	case 'D':
		if (key_is(p, "Device Id")) return K_DEV_ID;
		if (key_is(p, "Device Type")) return K_DEV_TYPE;
		if (key_is(p, "Dst Rank")) return K_DST_RANK;
		break;
	default: break;
	}
	return K_OTHER;
}

/*
 * A field's key as a key_id (key_at). Kineto's keys never hold escapes; a
 * key that matches none is checked for a backslash: one written with
 * escapes is unescaped and compared again, so that "\u0074s" is still "ts".
 */
inline error_code key_of(simdjson_result<ondemand::field> &res, ondemand::field &field, bool args, key_id &id)
{
	error_code e = std::move(res).get(field);
	if (e)
		return e;
	const char *p = field.key().raw();
	id = key_at(p, args);
	if (id != K_OTHER || plain_len(p) != SIZE_MAX)
		return SUCCESS;
	std::string_view key;
	if ((e = field.unescaped_key().get(key)))
		return e;
	id = key_by_name(key, args);
	return SUCCESS;
}

} /* namespace kj_keys */

#endif
