/*
 * ingest.c: format detection and the reader table.
 *
 * The format of an input is decided by its content (after inflating gzip),
 * never by its name: users rename files, and .json is used by several tools.
 */
#include "ingest/ingest.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

extern const struct reader kineto_reader;
extern const struct reader jax_trace_reader;
extern const struct reader xplane_reader;
extern const struct reader nsys_reader;
extern const struct reader nvvp_reader;
extern const struct reader rocpd_reader;
extern const struct reader sqlite_other_reader;
extern const struct reader nvprof_reader;
extern const struct reader ncu_reader;
extern const struct reader nvsmi_reader;
extern const struct reader megatron_log_reader;
extern const struct reader lightning_reader;
extern const struct reader pytorch_et_reader;
extern const struct reader memory_timeline_reader;
extern const struct reader nvtx_csv_reader;
extern const struct reader nvsmi_topo_reader;
extern const struct reader nccl_log_reader;

static const struct reader *const readers[] = {
	&xplane_reader,       /* 0x0a, a length, 0x08 or 0x12; detect_source checks the whole XSpace */
	&pytorch_et_reader,   /* JSON object whose first key is "schema", with "nodes": before Kineto */
	&jax_trace_reader,    /* JSON object whose first events name "/device:GPU:N" or "/host:CPU": before Kineto */
	&kineto_reader,
	&memory_timeline_reader, /* [[time, action, bytes, category], ...] */
	&nsys_reader,         /* SQLite: StringIds and nsys tables */
	&nvvp_reader,         /* SQLite: StringTable and CUPTI_ACTIVITY_KIND_* */
	&rocpd_reader,        /* SQLite: rocpd_string[_<uuid>] and rocpd data tables (rocprofv3) */
	&sqlite_other_reader, /* any other SQLite file: an error that says so */
	&ncu_reader,          /* ==PROF== lines, then "ID","Process ID", ... (details page) */
	&nvsmi_reader,        /* XML with an <nvidia_smi_log> element */
	&megatron_log_reader, /* "iteration N/ M | consumed samples: ..." lines */
	&lightning_reader,    /* "Profiler Report" with an Action table or "Profile stats for:" */
	&nvtx_csv_reader,     /* nsys stats CSV header with "Start (ns)", "Name", "RangeId"... */
	&nvsmi_topo_reader,   /* nvidia-smi topo -m: a first line with "GPU0" and "CPU Affinity" */
	&nvprof_reader,       /* ==PID== lines, then a gpu-trace or gpu-summary header */
	&nccl_log_reader,     /* " NCCL INFO " lines (NCCL_DEBUG=INFO): after the training logs */
};

int ingest_is_rank_file(const char *name)
{
	size_t len = strlen(name);
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		for (const char *const *s = readers[i]->rank_suffixes; s && *s; s++) {
			size_t k = strlen(*s);
			if (len >= k && !strcmp(name + len - k, *s))
				return 1;
		}
	return 0;
}

char *ingest_rank_file_patterns(void)
{
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++)
		for (const char *const *s = readers[i]->rank_suffixes; s && *s; s++) {
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				for (const char *const *t = readers[j]->rank_suffixes; t && *t && !seen; t++)
					seen = !strcmp(*s, *t);
			if (!seen)
				buf_printf(&b, "%s*%s", b.len ? ", " : "", *s);
		}
	return buf_detach(&b);
}

const struct reader *const *ingest_readers(size_t *n)
{
	*n = sizeof(readers) / sizeof(readers[0]);
	return readers;
}

/*
 * Reports that no reader knows the n bytes at data, path's first, naming
 * what the readers[] above accept (kineto_reader takes any JSON object).
 */
static void unknown_format(const char *path, const char *data, size_t n, int gzip)
{
	if (n == 0)
		diag_error(path, "empty file%s", gzip ? " (after inflating gzip)" : "");
	else
		diag_error(path, "unknown format (first byte 0x%02x): expected a trace JSON (Kineto, JAX, PyTorch), a JAX"
			   " .xplane.pb, a SQLite export (nsys, nvprof, rocprofv3), a CSV (nvprof, Nsight Compute, nsys"
			   " NVTX), nvidia-smi output (XML, topo -m), or a Megatron or Lightning log",
			   (unsigned char)data[0]);
}

/*
 * Reads path as a stream when the first reader whose detect() accepts its
 * first bytes can read streams (Kineto JSON: traces of any size in bounded
 * memory). Returns 0 or -1 like ingest_file, or 1 when the file is to be
 * loaded whole (another reader, or no reader: ingest_file's messages).
 */
static int ingest_stream(const char *path, const struct ingest_sink *sink, struct ingest_counts *counts,
			 const char **format, struct source_meta *meta)
{
	struct source_stream ss;
	int ret = 1;
	if (source_stream_open(&ss, path) < 0) {
		ret = -1;
		goto out;
	}
	const char *head;
	uint64_t blanks;
	ssize_t n = source_stream_head(&ss, &head, &blanks);
	if (n < 0) {
		ret = -1;
		goto out;
	}
	size_t i;
	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		if (!readers[i]->detect(head, (size_t)n))
			continue;
		if (!readers[i]->read_stream || readers[i]->detect_source)
			break;
		if (format)
			*format = readers[i]->name;
		ret = readers[i]->read_stream(&ss, sink, counts);
		if (meta)
			*meta = *source_stream_meta(&ss);
		break;
	}
	/*
	 * No reader knows the head: said here, without loading the file whole
	 * (source_load would hold a gzip bomb inflated only to refuse it).
	 */
	if (i == sizeof(readers) / sizeof(readers[0])) {
		ret = -1;
		if (n == 0 && blanks)
			diag_error(path, "only whitespace (%llu bytes%s)", (unsigned long long)blanks,
				   ss.meta.gzip ? " after inflating gzip" : "");
		else
			unknown_format(path, head, (size_t)n, ss.meta.gzip);
	}
out:
	source_stream_close(&ss);
	return ret;
}

static int ingest_file_at(const char *path, const struct ingest_sink *sink, struct ingest_counts *counts,
			  const char **format, struct source_meta *meta)
{
	struct source src;
	memset(counts, 0, sizeof(*counts));
	if (format)
		*format = NULL;
	int streamed = ingest_stream(path, sink, counts, format, meta);
	if (streamed != 1)
		return streamed;
	if (source_load(&src, path) < 0)
		return -1;
	if (meta)
		*meta = src.meta;
	int ret = -1;
	/* Whole heads of whitespace are skipped, as source_stream_head() does. */
	size_t skip = 0;
	while (skip < src.len && (src.data[skip] == ' ' || src.data[skip] == '\n' || src.data[skip] == '\r' ||
				  src.data[skip] == '\t'))
		skip++;
	skip -= skip % 4096;
	size_t head = src.len - skip < 4096 ? src.len - skip : 4096;
	for (size_t i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		if (!readers[i]->detect(src.data + skip, head))
			continue;
		if (readers[i]->detect_source && !readers[i]->detect_source(&src))
			continue;
		if (format)
			*format = readers[i]->name;
		ret = readers[i]->read(&src, sink, counts);
		goto out;
	}
	unknown_format(path, src.data, src.len, src.meta.gzip);
out:
	source_release(&src);
	return ret;
}

/*
 * Decimal text to integer nanoseconds from microseconds: the digits are
 * collected as an integer mantissa with a decimal exponent, then scaled by
 * 10^(exp + 3) with integer arithmetic, so "4443677150109.176" becomes
 * exactly 4443677150109176.
 */
const char *ingest_span_problem(int64_t start, int64_t dur)
{
	if (dur < 0)
		return "a negative duration";
	if (start < INGEST_MIN_NS || start > INGEST_MAX_NS)
		return "a start outside -2^60 to 3 * 2^60 ns (the years 1933 to 2079)";
	if (dur > INGEST_MAX_DUR_NS)
		return "a duration over 2^52 ns (52 days)";
	return NULL;
}

int parse_us_to_ns(const char *s, size_t n, int64_t *ns)
{
	return parse_decimal_scaled(s, n, 3, ns);
}

int parse_decimal_scaled(const char *s, size_t n, int scale_pow10, int64_t *ns)
{
	size_t i = 0;
	int neg = 0;
	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	uint64_t mant = 0;
	int digits = 0, exp10 = 0, any = 0, dropped_nonzero = 0;
	int round_digit = -1; /* first digit beyond what the mantissa holds */
	/*
	 * The digits before and after one '.': the first 19 significant ones
	 * into mant (each after the point lowers exp10), the next rounds, and
	 * each further one before the point raises exp10.
	 */
	for (int frac = 0; i < n; i++) {
		if (s[i] == '.' && !frac) {
			frac = 1;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			break;
		any = 1;
		if (digits < 19) {
			mant = mant * 10 + (uint64_t)(s[i] - '0');
			if (mant)
				digits++;
			if (frac)
				exp10--;
		} else {
			if (round_digit < 0)
				round_digit = s[i] - '0';
			else if (s[i] != '0')
				dropped_nonzero = 1;
			if (!frac)
				exp10++;
		}
	}
	if (!any)
		return -1;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		int eneg = 0;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		int e = 0, edigits = 0;
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
			if (e < 10000)
				e = e * 10 + (s[i] - '0');
		if (!edigits)
			return -1;
		exp10 += eneg ? -e : e;
	}
	if (i != n)
		return -1;
	exp10 += scale_pow10; /* e.g. 3: microseconds to nanoseconds */
	(void)dropped_nonzero;
	if (mant == 0) {
		*ns = 0;
		return 0;
	}
	while (exp10 > 0) {
		if (mant > UINT64_MAX / 10)
			return -1;
		mant *= 10;
		exp10--;
	}
	if (exp10 < 0) {
		if (exp10 < -19) {
			mant = 0; /* below half a nanosecond: mant < 10^19 <= div / 10 */
		} else {
			uint64_t div = 1;
			for (int k = 0; k < -exp10; k++)
				div *= 10;
			uint64_t q = mant / div, rem = mant % div;
			/* Round half away from zero. */
			if (rem >= div - rem)
				q++;
			mant = q;
		}
	} else if (round_digit >= 5) {
		mant++;
	}
	if (mant > (uint64_t)INT64_MAX)
		return -1;
	*ns = neg ? -(int64_t)mant : (int64_t)mant;
	return 0;
}

int ingest_file(const char *path, const struct ingest_sink *sink, struct ingest_counts *counts,
		const char **format, struct source_meta *meta)
{
	/* Running out of memory names the file being read (xalloc.h). */
	char saved[XALLOC_CONTEXT_MAX];
	xalloc_context("reading", path, saved);
	int r = ingest_file_at(path, sink, counts, format, meta);
	xalloc_context_restore(saved);
	return r;
}
