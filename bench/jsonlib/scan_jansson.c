/*
 * scan_jansson.c - kt_scan() with jansson (builds the whole tree).
 *
 * jansson has no access to a number's source text: a number with a '.' or
 * exponent becomes a double, so ts/dur in ns are recovered as
 * llround(value * 1000), which is not exact for large ts (see the checksum).
 */
#include "kt_bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <jansson.h>

/* Microseconds (integer or real) -> ns; the best a double allows. */
static int us_to_ns(json_t *v, int64_t *out)
{
	if (json_is_integer(v))
		*out = (int64_t)json_integer_value(v) * 1000;
	else if (json_is_real(v))
		*out = llround(json_real_value(v) * 1000.0);
	else
		return 0;
	return 1;
}

static int int_field(json_t *obj, const char *key, int64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v))
		return 0;
	*out = (int64_t)json_integer_value(v);
	return 1;
}

static void str_field(json_t *obj, const char *key, const char **s, size_t *n)
{
	json_t *v = json_object_get(obj, key);

	if (json_is_string(v)) {
		*s = json_string_value(v);
		*n = json_string_length(v);
	}
}

int kt_scan(const char *json, size_t len, struct kt_sum *sum)
{
	json_error_t err;
	json_t *root = json_loadb(json, len, 0, &err), *events, *e, *args;
	size_t i;

	if (!root) {
		fprintf(stderr, "jansson: %s at line %d\n", err.text, err.line);
		return 1;
	}
	events = json_object_get(root, "traceEvents");
	json_array_foreach(events, i, e) {
		struct kt_event ev;

		memset(&ev, 0, sizeof ev);
		str_field(e, "cat", &ev.cat, &ev.cat_len);
		str_field(e, "name", &ev.name, &ev.name_len);
		str_field(e, "ph", &ev.ph, &ev.ph_len);
		if (us_to_ns(json_object_get(e, "ts"), &ev.ts_ns))
			ev.has |= KT_HAS_TS;
		if (us_to_ns(json_object_get(e, "dur"), &ev.dur_ns))
			ev.has |= KT_HAS_DUR;
		args = json_object_get(e, "args");
		if (int_field(args, "correlation", &ev.corr)) ev.has |= KT_HAS_CORR;
		if (int_field(args, "stream", &ev.stream)) ev.has |= KT_HAS_STREAM;
		if (int_field(args, "device", &ev.device)) ev.has |= KT_HAS_DEVICE;
		if (int_field(args, "bytes", &ev.bytes)) ev.has |= KT_HAS_BYTES;
		kt_account(sum, &ev);
	}
	json_decref(root);
	return 0;
}

const char *kt_lib(void)
{
	return "jansson-" JANSSON_VERSION;
}
