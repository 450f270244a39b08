/*
 * main.c - driver shared by all JSON-library bench programs.
 *
 *   bench_<lib> TRACE.json[.gz]
 *
 * Inflates the whole trace into memory with zlib (timed as inflate_s), then
 * times kt_scan() of the linked library (parse + walk + free: parse_s) and
 * prints one line of key=value pairs: speed in MB/s (10^6 bytes of
 * uncompressed JSON per second), peak RSS, and the checksum.
 *
 * Peak RSS: getrusage's ru_maxrss is printed, but Linux carries it over
 * execve() from the pre-exec image (the forked driver: ~15 MB of Python),
 * so the table uses VmHWM of /proc/self/status, which starts fresh at exec.
 */
#include "kt_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zlib.h>

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss; /* kilobytes on Linux */
}

/* Peak RSS of this image in kB (VmHWM), or ru_maxrss where unavailable. */
static long hwm_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && kb < 0 && fgets(line, sizeof line, f))
		if (strncmp(line, "VmHWM:", 6) == 0)
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb < 0 ? maxrss_kb() : kb;
}

/* Size hint: gzip's ISIZE trailer (size mod 2^32), else the file size. */
static size_t size_hint(const char *path)
{
	struct stat st;
	unsigned char t[4];
	size_t hint;
	FILE *f;

	if (stat(path, &st) != 0)
		return 1 << 20;
	hint = (size_t)st.st_size;
	f = fopen(path, "rb");
	if (f && fread(t, 1, 2, f) == 2 && t[0] == 0x1f && t[1] == 0x8b &&
	    fseek(f, -4, SEEK_END) == 0 && fread(t, 1, 4, f) == 4)
		hint = (size_t)t[0] | (size_t)t[1] << 8 | (size_t)t[2] << 16 |
		       (size_t)t[3] << 24;
	if (f)
		fclose(f);
	return hint + 1;
}

/* Whole file, inflated if gzip, followed by KT_PAD zero bytes. */
static char *load(const char *path, size_t *len_out)
{
	size_t cap = size_hint(path), len = 0;
	char *buf = malloc(cap + KT_PAD);
	gzFile gz = gzopen(path, "rb");
	int n;

	if (!buf || !gz) {
		fprintf(stderr, "cannot open %s\n", path);
		exit(1);
	}
	gzbuffer(gz, 1 << 20);
	for (;;) {
		if (cap - len < (1 << 20)) { /* grow; realloc of big blocks is mremap */
			cap = cap * 2 + (1 << 20);
			buf = realloc(buf, cap + KT_PAD);
			if (!buf) {
				fprintf(stderr, "out of memory\n");
				exit(1);
			}
		}
		n = gzread(gz, buf + len, (unsigned)(cap - len > (1u << 30) ? 1u << 30 : cap - len));
		if (n < 0) {
			fprintf(stderr, "%s: inflate error\n", path);
			exit(1);
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	gzclose(gz);
	memset(buf + len, 0, KT_PAD);
	*len_out = len;
	return buf;
}

int main(int argc, char **argv)
{
	struct kt_sum s;
	size_t len;
	double t0, t1, t2;
	long rss_load;
	char *json;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s TRACE.json[.gz]\n", argv[0]);
		return 2;
	}
	t0 = now();
	json = load(argv[1], &len);
	rss_load = hwm_kb();
	t1 = now();
	memset(&s, 0, sizeof s);
	rc = kt_scan(json, len, &s);
	t2 = now();
	if (rc != 0) {
		fprintf(stderr, "%s: %s failed to parse %s\n", argv[0], kt_lib(), argv[1]);
		return 1;
	}
	printf("lib=%s bytes=%zu inflate_s=%.4f parse_s=%.4f MBps=%.1f "
	       "rss_load_kb=%ld rss_peak_kb=%ld ru_maxrss_kb=%ld ",
	       kt_lib(), len, t1 - t0, t2 - t1, (double)len / 1e6 / (t2 - t1),
	       rss_load, hwm_kb(), maxrss_kb());
	printf("sum=events:%llu,kernels:%llu,kernel_dur_ns:%llu,X:%llu,"
	       "ts_ns:%llu,corr:%llu,stream:%llu,device:%llu,bytes:%llu,name_bytes:%llu\n",
	       (unsigned long long)s.events, (unsigned long long)s.kernels,
	       (unsigned long long)s.kernel_dur_ns, (unsigned long long)s.x_events,
	       (unsigned long long)s.ts_ns, (unsigned long long)s.corr,
	       (unsigned long long)s.stream, (unsigned long long)s.device,
	       (unsigned long long)s.bytes, (unsigned long long)s.name_bytes);
	free(json);
	return 0;
}

/* ---- helpers shared by the scanners ---- */

int64_t kt_us_text_to_ns(const char *s, size_t n)
{
	const char *e = s + n;
	int64_t v = 0;
	int neg = 0, frac = 0;

	if (s < e && *s == '-') {
		neg = 1;
		s++;
	}
	for (; s < e && *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	if (s < e && *s == '.')
		for (s++; s < e && *s >= '0' && *s <= '9'; s++)
			if (frac < 3) {
				v = v * 10 + (*s - '0');
				frac++;
			}
	if (s < e && (*s == 'e' || *s == 'E'))
		return 0; /* not produced by Kineto; flagged by a checksum change */
	for (; frac < 3; frac++)
		v *= 10;
	return neg ? -v : v;
}

int64_t kt_int_text(const char *s, size_t n)
{
	const char *e = s + n;
	int64_t v = 0;
	int neg = 0;

	if (s < e && *s == '-') {
		neg = 1;
		s++;
	}
	for (; s < e && *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (*s - '0');
	return neg ? -v : v;
}

void kt_account(struct kt_sum *sum, const struct kt_event *ev)
{
	sum->events++;
	if (ev->cat && ev->cat_len == 6 && memcmp(ev->cat, "kernel", 6) == 0) {
		sum->kernels++;
		if (ev->has & KT_HAS_DUR)
			sum->kernel_dur_ns += (uint64_t)ev->dur_ns;
	}
	if (ev->ph && ev->ph_len == 1 && ev->ph[0] == 'X')
		sum->x_events++;
	if (ev->has & KT_HAS_TS)
		sum->ts_ns += (uint64_t)ev->ts_ns;
	if (ev->has & KT_HAS_CORR)
		sum->corr += (uint64_t)ev->corr;
	if (ev->has & KT_HAS_STREAM)
		sum->stream += (uint64_t)ev->stream;
	if (ev->has & KT_HAS_DEVICE)
		sum->device += (uint64_t)ev->device;
	if (ev->has & KT_HAS_BYTES)
		sum->bytes += (uint64_t)ev->bytes;
	sum->name_bytes += ev->name_len;
}
