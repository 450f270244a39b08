/*
 * mktrace.c: makes a large Kineto trace from a real one, for `make bench`.
 *
 *   mktrace IN.json[.gz] OUT.json MB [RANK WORLD]
 *
 * Copies the header and tail of IN as they are and repeats its traceEvents
 * until OUT holds at least MB * 10^6 bytes. Repetition k shifts every "ts"
 * by k times the trace's span (plus 1 ms), adds k times (max + 1) to every
 * "correlation" and "External id", and renumbers ProfilerStep#N by k times
 * the step count, so the result reads as one long profile. Number text is
 * rewritten only where it changes; repetition 0 is a byte copy of IN's
 * events. With RANK and WORLD, distributedInfo's "rank" and "world_size"
 * in the header are replaced (a many-rank study from one rank's trace).
 *
 * The event boundaries are found with a plain byte loop that respects
 * strings and escapes: this tool is independent of perfstudy's scanner.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct span {
	size_t off, len;
};

static void die(const char *msg)
{
	fprintf(stderr, "mktrace: %s\n", msg);
	exit(1);
}

static char *load(const char *path, size_t *n)
{
	gzFile f = gzopen(path, "rb");
	if (!f)
		die("cannot open input");
	size_t cap = 1 << 24, len = 0;
	char *p = malloc(cap);
	for (;;) {
		if (cap - len < (1 << 20))
			p = realloc(p, cap *= 2);
		int r = gzread(f, p + len, (unsigned)(cap - len - 1));
		if (r < 0)
			die("cannot read input");
		if (r == 0)
			break;
		len += (size_t)r;
	}
	gzclose(f);
	p[len] = 0;
	*n = len;
	return p;
}

/* Parses the number text at p (microseconds) into ns; *end after it. */
static int64_t num_ns(const char *p, const char **end)
{
	int64_t ip = 0, fp = 0;
	int fd = 0;
	while (*p >= '0' && *p <= '9')
		ip = ip * 10 + (*p++ - '0');
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (fd < 3) {
				fp = fp * 10 + (*p - '0');
				fd++;
			}
			p++;
		}
	}
	while (fd++ < 3)
		fp *= 10;
	*end = p;
	return ip * 1000 + fp;
}

static int64_t num_int(const char *p, const char **end)
{
	int64_t v = 0;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (*p++ - '0');
	*end = p;
	return v;
}

static int match(const char *p, const char *lit)
{
	return !strncmp(p, lit, strlen(lit));
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 6)
		die("usage: mktrace IN.json[.gz] OUT.json MB [RANK WORLD]");
	size_t n;
	char *t = load(argv[1], &n);
	double target = atof(argv[3]) * 1e6;

	/* Find the traceEvents array and the extent of each element. */
	const char *te = strstr(t, "\"traceEvents\"");
	if (!te)
		die("no traceEvents");
	size_t i = (size_t)(te - t) + 13;
	while (t[i] != '[')
		i++;
	size_t arr = i++;
	struct span *ev = NULL;
	size_t nev = 0, cap = 0;
	int depth = 0, instr = 0;
	size_t start = 0;
	for (; i < n; i++) {
		char c = t[i];
		if (instr) {
			if (c == '\\')
				i++;
			else if (c == '"')
				instr = 0;
			continue;
		}
		if (c == '"') {
			instr = 1;
		} else if (c == '{' || c == '[') {
			if (depth++ == 0)
				start = i;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				break; /* the array's ']' */
			if (--depth == 0) {
				if (nev == cap)
					ev = realloc(ev, (cap = cap ? cap * 2 : 4096) * sizeof(*ev));
				ev[nev].off = start;
				ev[nev].len = i + 1 - start;
				nev++;
			}
		}
	}
	if (!nev || i >= n)
		die("no events or no end of traceEvents");
	size_t tail = i;

	/* Span of the times, largest ids, step count. */
	int64_t tmin = INT64_MAX, tmax = INT64_MIN, cmax = 0, xmax = 0, smax = 0;
	for (size_t k = 0; k < nev; k++) {
		const char *p = t + ev[k].off, *e = p + ev[k].len, *q;
		int64_t ts = -1, dur = 0;
		for (; p < e; p++) {
			if (*p != '"')
				continue;
			if (match(p, "\"ts\": ") && p[6] >= '0' && p[6] <= '9')
				ts = num_ns(p + 6, &q);
			else if (match(p, "\"dur\": ") && p[7] >= '0' && p[7] <= '9')
				dur = num_ns(p + 7, &q);
			else if (match(p, "\"correlation\": ")) {
				int64_t v = num_int(p + 15, &q);
				cmax = v > cmax ? v : cmax;
			} else if (match(p, "\"External id\": ")) {
				int64_t v = num_int(p + 15, &q);
				xmax = v > xmax ? v : xmax;
			} else if (match(p, "\"ProfilerStep#")) {
				int64_t v = num_int(p + 14, &q);
				smax = v > smax ? v : smax;
			}
		}
		if (ts >= 0) {
			tmin = ts < tmin ? ts : tmin;
			tmax = ts + dur > tmax ? ts + dur : tmax;
		}
	}
	int64_t shift = tmax - tmin + 1000000;

	FILE *out = fopen(argv[2], "wb");
	if (!out)
		die("cannot create output");
	static char obuf[1 << 20];
	setvbuf(out, obuf, _IOFBF, sizeof(obuf));
	/* Header, with distributedInfo's rank and world size replaced. */
	const char *di = strstr(t, "\"distributedInfo\"");
	if (argc == 6 && di && (size_t)(di - t) < arr) {
		const char *r = strstr(di, "\"rank\": "), *w = strstr(di, "\"world_size\": "), *q;
		if (!r || !w || r > w)
			die("unexpected distributedInfo");
		fwrite(t, 1, (size_t)(r - t) + 8, out);
		fputs(argv[4], out);
		num_int(r + 8, &q);
		fwrite(q, 1, (size_t)(w - q) + 14, out);
		fputs(argv[5], out);
		num_int(w + 14, &q);
		fwrite(q, 1, (size_t)(t + ev[0].off - q), out);
	} else {
		fwrite(t, 1, ev[0].off, out);
	}
	size_t written = ev[0].off + (n - tail);
	for (int64_t rep = 0; rep == 0 || written < target; rep++) {
		for (size_t k = 0; k < nev; k++) {
			const char *p = t + ev[k].off, *e = p + ev[k].len, *from = p, *q;
			if (rep || k) {
				fputs(",\n  ", out);
				written += 4;
			}
			if (rep == 0) {
				fwrite(p, 1, ev[k].len, out);
				written += ev[k].len;
				continue;
			}
			for (; p < e; p++) {
				if (*p != '"')
					continue;
				char num[48];
				int len = -1;
				size_t skip = 0;
				if (match(p, "\"ts\": ") && p[6] >= '0' && p[6] <= '9') {
					skip = 6;
					int64_t v = num_ns(p + 6, &q) + rep * shift;
					len = snprintf(num, sizeof(num), "%" PRId64 ".%03" PRId64, v / 1000, v % 1000);
				} else if (match(p, "\"correlation\": ") && p[15] >= '0' && p[15] <= '9') {
					skip = 15;
					len = snprintf(num, sizeof(num), "%" PRId64, num_int(p + 15, &q) + rep * (cmax + 1));
				} else if (match(p, "\"External id\": ") && p[15] >= '0' && p[15] <= '9') {
					skip = 15;
					len = snprintf(num, sizeof(num), "%" PRId64, num_int(p + 15, &q) + rep * (xmax + 1));
				} else if (match(p, "\"ProfilerStep#") && p[14] >= '0' && p[14] <= '9') {
					skip = 14;
					len = snprintf(num, sizeof(num), "%" PRId64, num_int(p + 14, &q) + rep * (smax + 1));
				}
				if (len < 0)
					continue;
				fwrite(from, 1, (size_t)(p + skip - from), out);
				fwrite(num, 1, (size_t)len, out);
				written += (size_t)(p + skip - from) + (size_t)len;
				from = q;
				p = q - 1;
			}
			fwrite(from, 1, (size_t)(e - from), out);
			written += (size_t)(e - from);
		}
	}
	fwrite(t + tail, 1, n - tail, out);
	if (fclose(out) != 0)
		die("cannot write output");
	free(ev);
	free(t);
	return 0;
}
