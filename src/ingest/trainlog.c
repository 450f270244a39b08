/*
 * trainlog.c: training logs, two readers.
 *
 * megatron-log: Megatron-LM's training_log lines,
 *   " iteration      100/  500000 | consumed samples: 800 | elapsed time per
 *   iteration (ms): 1234.5 | throughput per GPU (TFLOP/s/GPU): 150.3 | ... |
 *   global batch size: 8 | lm loss: 1.0E+01 | ..."
 * with or without the "[YYYY-MM-DD HH:MM:SS]" prefix and a launcher's
 * "[defaultN]:" prefix (torchrun --tee). Every other line of the log
 * (arguments, warnings) is ignored. Times are parsed exactly from the
 * decimal text into integer ns. One line more is read where a log has it:
 * "params N world W strategy S", which the generator of the bundled runs
 * (../shared/corpus/h200/generator/train_trace.py) writes last; S, the
 * parallel strategy it ran ("single", "ddp", "zero1", "fsdp", ...), and N,
 * the model's parameter count, go to the trace's info (trace_software
 * 'strategy' and 'params'). Megatron-LM writes no such line; no other
 * wording is taken for one.
 *
 * lightning-profiler: PyTorch Lightning's profiler report. The
 * SimpleProfiler table (Action | Mean duration (s) | Num calls | Total time
 * (s) | Percentage %, Lightning 1.x and 2.x layouts) becomes one phase per
 * action; the AdvancedProfiler's "Profile stats for: ACTION" blocks become
 * one phase each with the total of the cProfile line "N function calls in T
 * seconds".
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"
#include "ingest/source.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"

/* A line of the source: [p, p + n). */
struct line {
	const char *p;
	size_t n;
	int no;
};

static int next_line(const struct source *src, size_t *pos, int *no, struct line *l)
{
	if (*pos >= src->len)
		return 0;
	const char *s = src->data + *pos;
	const char *e = memchr(s, '\n', src->len - *pos);
	size_t n = e ? (size_t)(e - s) : src->len - *pos;
	*pos += n + (e != NULL);
	if (n && s[n - 1] == '\r')
		n--;
	l->p = s;
	l->n = n;
	l->no = ++*no;
	return 1;
}

/*
 * Strips "[defaultN]:" and "[YYYY-MM-DD HH:MM:SS]" prefixes and blanks;
 * returns where "iteration" starts, or NULL when the line is not an
 * iteration line. *rank is N or -1.
 */
static const char *iteration_start(const char *p, size_t n, int *rank)
{
	const char *e = p + n;
	*rank = -1;
	while (p < e && isspace((unsigned char)*p))
		p++;
	if (e - p > 9 && !memcmp(p, "[default", 8) && isdigit((unsigned char)p[8])) {
		const char *q = p + 8;
		int r = 0;
		while (q < e && isdigit((unsigned char)*q) && r < 1000000)
			r = r * 10 + (*q++ - '0');
		if (q + 1 < e && q[0] == ']' && q[1] == ':') {
			*rank = r;
			p = q + 2;
		}
	}
	while (p < e && isspace((unsigned char)*p))
		p++;
	/* [2024-05-01 10:00:00] */
	if (e - p >= 21 && p[0] == '[' && p[5] == '-' && p[8] == '-' && p[11] == ' ' && p[20] == ']')
		p += 21;
	while (p < e && isspace((unsigned char)*p))
		p++;
	if (e - p < 10 || memcmp(p, "iteration", 9) || !isspace((unsigned char)p[9]))
		return NULL;
	return source_find(p, (size_t)(e - p), "|") ? p : NULL;
}

static int megatron_detect(const char *head, size_t n)
{
	if (source_find(head, n, "------------------------ arguments ------------------------"))
		return 1;
	size_t i = 0;
	while (i < n) {
		const char *e = memchr(head + i, '\n', n - i);
		size_t len = e ? (size_t)(e - head - i) : n - i;
		int rank;
		const char *it = iteration_start(head + i, len, &rank);
		/* What is left of the line after the prefixes iteration_start() skipped. */
		size_t rest = it ? len - (size_t)(it - (head + i)) : 0;
		if (it && (source_find(it, rest, "consumed samples:") || source_find(it, rest, "elapsed time per iteration (ms):")))
			return 1;
		i += len + 1;
	}
	return 0;
}

/* The value text after "key:" up to the next '|', trimmed; NULL when key is absent. */
static const char *field(const char *p, size_t n, const char *key, size_t *len)
{
	const char *k = source_find(p, n, key);
	if (!k)
		return NULL;
	const char *v = k + strlen(key), *e = p + n;
	while (v < e && isspace((unsigned char)*v))
		v++;
	size_t rest = v < e ? (size_t)(e - v) : 0;
	const char *bar = rest ? memchr(v, '|', rest) : NULL;
	const char *end = bar ? bar : e;
	while (end > v && isspace((unsigned char)end[-1]))
		end--;
	*len = (size_t)(end - v);
	return v;
}

static int parse_int(const char *v, size_t n, int64_t *out)
{
	return parse_decimal_scaled(v, n, 0, out) == 0 && *out >= 0 ? 0 : -1;
}

/* p after a word w and one blank or more, else NULL. */
static const char *word(const char *p, const char *e, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(e - p) <= n || memcmp(p, w, n) || p[n] != ' ')
		return NULL;
	for (p += n; p < e && *p == ' '; p++)
		;
	return p;
}

/* p after digits and one blank or more, else NULL. */
static const char *digits(const char *p, const char *e)
{
	const char *q = p;
	while (q < e && isdigit((unsigned char)*q))
		q++;
	if (q == p || q == e || *q != ' ')
		return NULL;
	while (q < e && *q == ' ')
		q++;
	return q;
}

/*
 * The strategy S of a line "params N world W strategy S" (blanks around
 * it allowed), S of letters, digits and "_.-", at most 31 of them, copied
 * into out, and N into *params (0 where it does not fit); 0 when the line
 * is not one.
 */
static int strategy_line(const char *p, size_t n, char out[32], int64_t *params)
{
	const char *e = p + n, *np;
	while (p < e && isspace((unsigned char)*p))
		p++;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	if (!(p = word(p, e, "params")) || !(np = p, p = digits(p, e)) || !(p = word(p, e, "world")) ||
	    !(p = digits(p, e)) || !(p = word(p, e, "strategy")) || e - p < 1 || e - p > 31)
		return 0;
	for (const char *q = p; q < e; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && *q != '.' && *q != '-')
			return 0;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = 0;
	size_t nd = 0;
	while (isdigit((unsigned char)np[nd]))
		nd++;
	if (parse_int(np, nd, params) < 0)
		*params = 0;
	return 1;
}

static int megatron_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	size_t pos = 0;
	int no = 0;
	struct line l;
	char *where = NULL, strategy[32] = "";
	int64_t params = 0;
	while (next_line(src, &pos, &no, &l)) {
		int rank;
		const char *it = iteration_start(l.p, l.n, &rank);
		if (!it) {
			strategy_line(l.p, l.n, strategy, &params); /* the last such line */
			continue;
		}
		size_t n = (size_t)(l.p + l.n - it), len;
		struct log_iteration rec = {.iterations = -1, .consumed_samples = -1, .elapsed_ns = -1,
					    .tflops_per_gpu = -1, .global_batch = -1, .launcher_rank = rank};
		/* "iteration N/ M |" */
		const char *v = it + 9, *e = it + n;
		while (v < e && *v == ' ')
			v++;
		const char *q = v;
		while (q < e && isdigit((unsigned char)*q))
			q++;
		free(where);
		where = xasprintf("%s:%d", src->path, l.no);
		if (q == v || parse_int(v, (size_t)(q - v), &rec.iteration) < 0) {
			diag_error(where, "expected an iteration number after 'iteration'");
			goto fail;
		}
		if (q < e && *q == '/') {
			q++;
			while (q < e && *q == ' ')
				q++;
			const char *m = q;
			while (q < e && isdigit((unsigned char)*q))
				q++;
			if (q > m)
				parse_int(m, (size_t)(q - m), &rec.iterations);
		}
		if ((v = field(it, n, "consumed samples:", &len)) && parse_int(v, len, &rec.consumed_samples) < 0) {
			diag_error(where, "expected an integer for 'consumed samples', got '%.*s'", (int)len, v);
			goto fail;
		}
		/* milliseconds: scale 6 gives ns */
		if ((v = field(it, n, "elapsed time per iteration (ms):", &len)) &&
		    (parse_decimal_scaled(v, len, 6, &rec.elapsed_ns) < 0 || rec.elapsed_ns < 0)) {
			diag_error(where, "expected a number for 'elapsed time per iteration (ms)', got '%.*s'", (int)len, v);
			goto fail;
		}
		if ((v = field(it, n, "(TFLOP/s/GPU):", &len))) {
			char tmp[64];
			char *end;
			snprintf(tmp, sizeof(tmp), "%.*s", (int)(len < 63 ? len : 63), v);
			rec.tflops_per_gpu = strtod(tmp, &end);
			if (!len || *end || rec.tflops_per_gpu < 0) {
				diag_error(where, "expected a number for 'throughput per GPU (TFLOP/s/GPU)', got '%.*s'", (int)len, v);
				goto fail;
			}
		}
		if ((v = field(it, n, "global batch size:", &len)) && parse_int(v, len, &rec.global_batch) < 0) {
			diag_error(where, "expected an integer for 'global batch size', got '%.*s'", (int)len, v);
			goto fail;
		}
		if ((v = field(it, n, "lm loss:", &len))) {
			char tmp[64];
			char *end;
			snprintf(tmp, sizeof(tmp), "%.*s", (int)(len < 63 ? len : 63), v);
			rec.loss = strtod(tmp, &end);
			rec.has_loss = len && !*end;
		}
		counts->iterations++;
		counts->events++;
		if (sink->iteration && sink->iteration(sink->ctx, &rec) < 0)
			goto fail;
	}
	free(where);
	if (!counts->iterations) {
		diag_error(src->path, "Megatron-LM log without iteration lines ('iteration N/ M | ...')");
		return -1;
	}
	if (!strategy[0])
		return 0;
	struct trace_info info = {.format = "megatron-log", .rank = -1, .world_size = -1, .epoch_offset_ns = -1,
				  .strategy = strategy, .params = params};
	return sink->info && sink->info(sink->ctx, &info) < 0 ? -1 : 0;
fail:
	free(where);
	return -1;
}

/* Lightning. */

static int lightning_detect(const char *head, size_t n)
{
	return source_find(head, n, "Profiler Report") &&
	       (source_find(head, n, "Mean duration (s)") || source_find(head, n, "Profile stats for:"));
}

/* Splits a '|' table line into up to max trimmed cells; returns the count. */
static size_t cells(const char *p, size_t n, struct line *out, size_t max)
{
	size_t k = 0;
	const char *e = p + n;
	while (p < e && isspace((unsigned char)*p))
		p++;
	if (p < e && *p == '|')
		p++;
	while (p < e && k < max) {
		const char *bar = memchr(p, '|', (size_t)(e - p));
		const char *end = bar ? bar : e;
		const char *a = p, *b = end;
		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (bar || b > a) {
			out[k].p = a;
			out[k].n = (size_t)(b - a);
			k++;
		}
		if (!bar)
			break;
		p = bar + 1;
	}
	return k;
}

static int is_rule(const struct line *l)
{
	size_t dashes = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (l->p[i] == '-')
			dashes++;
		else if (!isspace((unsigned char)l->p[i]))
			return 0;
	}
	return dashes > 3;
}

static int64_t seconds_ns(const struct line *c)
{
	int64_t ns;
	if (!c->n || parse_decimal_scaled(c->p, c->n, 9, &ns) < 0 || ns < 0)
		return -1;
	return ns;
}

static int lightning_read(const struct source *src, const struct ingest_sink *sink, struct ingest_counts *counts)
{
	size_t pos = 0;
	int no = 0, in_table = 0;
	int c_action = -1, c_mean = -1, c_calls = -1, c_total = -1, c_pct = -1;
	struct line l, cell[8];
	char *pending = NULL; /* an AdvancedProfiler action waiting for its "function calls in" line */
	int ret = 0;
	while (ret == 0 && next_line(src, &pos, &no, &l)) {
		const char *ps = source_find(l.p, l.n, "Profile stats for: ");
		if (ps) {
			free(pending);
			size_t off = (size_t)(ps - l.p) + 19;
			pending = xasprintf("%.*s", (int)(l.n - off), ps + 19);
			continue;
		}
		const char *fc = pending ? source_find(l.p, l.n, " function calls") : NULL;
		const char *in = fc ? source_find(l.p, l.n, " in ") : NULL;
		if (in) {
			struct line t = {in + 4, 0, 0};
			while (t.p + t.n < l.p + l.n && !isspace((unsigned char)t.p[t.n]))
				t.n++;
			struct phase_time ph = {.action = pending, .calls = -1, .mean_ns = -1,
						.total_ns = seconds_ns(&t), .percent = -1};
			counts->phases++;
			counts->events++;
			if (sink->phase && sink->phase(sink->ctx, &ph) < 0)
				ret = -1;
			free(pending);
			pending = NULL;
			continue;
		}
		size_t k = cells(l.p, l.n, cell, 8);
		if (k >= 4 && source_find(l.p, l.n, "Action") && source_find(l.p, l.n, "Mean duration (s)")) {
			c_action = c_mean = c_calls = c_total = c_pct = -1;
			for (size_t i = 0; i < k; i++) {
				struct line *c = &cell[i];
				if (c->n == 6 && !memcmp(c->p, "Action", 6))
					c_action = (int)i;
				else if (source_find(c->p, c->n, "Mean duration"))
					c_mean = (int)i;
				else if (source_find(c->p, c->n, "Num calls"))
					c_calls = (int)i;
				else if (source_find(c->p, c->n, "Total time"))
					c_total = (int)i;
				else if (source_find(c->p, c->n, "Percentage"))
					c_pct = (int)i;
			}
			in_table = c_action >= 0 && c_total >= 0;
			continue;
		}
		if (!in_table || is_rule(&l))
			continue;
		if (!memchr(l.p, '|', l.n)) {
			if (l.n)
				in_table = 0;
			continue;
		}
		if ((int)k <= c_action || (int)k <= c_total) {
			diag_error(src->path, "line %d: %zu cells in a profiler table row, expected the header's", l.no, k);
			ret = -1;
			break;
		}
		char *action = xasprintf("%.*s", (int)cell[c_action].n, cell[c_action].p);
		struct phase_time ph = {.action = action, .calls = -1, .mean_ns = -1, .total_ns = -1, .percent = -1};
		ph.total_ns = seconds_ns(&cell[c_total]);
		if (c_mean >= 0 && c_mean < (int)k)
			ph.mean_ns = seconds_ns(&cell[c_mean]);
		if (c_calls >= 0 && c_calls < (int)k && parse_decimal_scaled(cell[c_calls].p, cell[c_calls].n, 0, &ph.calls) < 0)
			ph.calls = -1;
		if (c_pct >= 0 && c_pct < (int)k && cell[c_pct].n) {
			char tmp[32], *end;
			snprintf(tmp, sizeof(tmp), "%.*s", (int)(cell[c_pct].n < 31 ? cell[c_pct].n : 31), cell[c_pct].p);
			double x = strtod(tmp, &end);
			if (end != tmp)
				ph.percent = x;
		}
		if (ph.total_ns < 0) {
			diag_error(src->path, "line %d: expected a time in seconds for '%s', got '%.*s'", l.no, action,
				   (int)cell[c_total].n, cell[c_total].p);
			ret = -1;
		} else {
			counts->phases++;
			counts->events++;
			if (sink->phase && sink->phase(sink->ctx, &ph) < 0)
				ret = -1;
		}
		free(action);
	}
	free(pending);
	if (ret == 0 && !counts->phases) {
		diag_error(src->path, "Lightning profiler report without actions");
		ret = -1;
	}
	return ret;
}

const struct reader megatron_log_reader = {
	.name = "megatron-log",
	.detect = megatron_detect,
	.read = megatron_read,
};

const struct reader lightning_reader = {
	.name = "lightning-profiler",
	.detect = lightning_detect,
	.read = lightning_read,
};
