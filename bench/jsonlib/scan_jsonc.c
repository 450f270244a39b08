/*
 * scan_jsonc.c - kt_scan() with json-c (builds the whole tree).
 *
 * json-c keeps the source text of every parsed double as the object's
 * userdata (json_object_new_double_s(), documented for exact
 * re-serialization), so ts/dur are exact here; integers are exact anyway.
 * json_tokener_parse_ex() takes an int length, so input is fed in chunks.
 */
#include "kt_bench.h"

#include <stdio.h>
#include <string.h>
#include <json-c/json.h>

/* Microseconds -> exact ns, from the number's source text. */
static int us_to_ns(json_object *v, int64_t *out)
{
	const char *text;

	switch (json_object_get_type(v)) {
	case json_type_int:
		*out = json_object_get_int64(v) * 1000;
		return 1;
	case json_type_double:
		text = json_object_get_userdata(v);
		*out = text ? kt_us_text_to_ns(text, strlen(text))
			    : (int64_t)(json_object_get_double(v) * 1000.0);
		return 1;
	default:
		return 0;
	}
}

static int int_field(json_object *obj, const char *key, int64_t *out)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
		return 0;
	*out = json_object_get_int64(v);
	return 1;
}

static void str_field(json_object *obj, const char *key, const char **s, size_t *n)
{
	json_object *v;

	if (json_object_object_get_ex(obj, key, &v) && json_object_is_type(v, json_type_string)) {
		*s = json_object_get_string(v);
		*n = (size_t)json_object_get_string_len(v);
	}
}

static json_object *parse(const char *json, size_t len)
{
	json_tokener *tok = json_tokener_new();
	json_object *root = NULL;
	size_t off = 0, step;

	while (off < len) {
		step = len - off > (1u << 30) ? 1u << 30 : len - off;
		root = json_tokener_parse_ex(tok, json + off, (int)step);
		off += step;
		if (json_tokener_get_error(tok) != json_tokener_continue)
			break;
	}
	if (!root)
		fprintf(stderr, "json-c: %s\n", json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	return root;
}

int kt_scan(const char *json, size_t len, struct kt_sum *sum)
{
	json_object *root = parse(json, len), *events, *e, *v, *args;
	size_t i, n;

	if (!root)
		return 1;
	if (!json_object_object_get_ex(root, "traceEvents", &events) ||
	    !json_object_is_type(events, json_type_array))
		events = NULL;
	n = events ? json_object_array_length(events) : 0;
	for (i = 0; i < n; i++) {
		struct kt_event ev;

		e = json_object_array_get_idx(events, i);
		memset(&ev, 0, sizeof ev);
		str_field(e, "cat", &ev.cat, &ev.cat_len);
		str_field(e, "name", &ev.name, &ev.name_len);
		str_field(e, "ph", &ev.ph, &ev.ph_len);
		if (json_object_object_get_ex(e, "ts", &v) && us_to_ns(v, &ev.ts_ns))
			ev.has |= KT_HAS_TS;
		if (json_object_object_get_ex(e, "dur", &v) && us_to_ns(v, &ev.dur_ns))
			ev.has |= KT_HAS_DUR;
		if (json_object_object_get_ex(e, "args", &args)) {
			if (int_field(args, "correlation", &ev.corr)) ev.has |= KT_HAS_CORR;
			if (int_field(args, "stream", &ev.stream)) ev.has |= KT_HAS_STREAM;
			if (int_field(args, "device", &ev.device)) ev.has |= KT_HAS_DEVICE;
			if (int_field(args, "bytes", &ev.bytes)) ev.has |= KT_HAS_BYTES;
		}
		kt_account(sum, &ev);
	}
	json_object_put(root);
	return 0;
}

const char *kt_lib(void)
{
	return "json-c-" JSON_C_VERSION;
}
