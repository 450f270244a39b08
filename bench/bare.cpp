/*
 * bare.cpp: the floors perfstudy is measured against, for `make bench`.
 *
 *   bare parse FILE.json        simdjson On-Demand over the whole file (read
 *                               into memory first, not timed), pulling cat,
 *                               name, ts (raw text) and dur out of every event;
 *                               cold (new parser) and warm (parser reused)
 *   bare inflate FILE.json.gz   zlib inflate of the file (in memory) in
 *                               pieces of 1 MiB, libdeflate's gzip
 *                               decompressor into one buffer, and
 *                               ISA-L's igzip in pieces of 1 MiB (perfstudy's way)
 *
 * Prints `key=value` pairs on one line: MB/s are 10^6 bytes of uncompressed
 * JSON per second. The same simdjson (Debian's), built with the project's
 * flags, as src/ingest/kineto/kineto_json.cpp.
 */
#include <simdjson.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace simdjson;

static double now()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static char *slurp(const char *path, size_t *n, size_t pad)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(1);
	}
	fseek(f, 0, SEEK_END);
	long sz = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *p = (char *)malloc((size_t)sz + pad);
	if (fread(p, 1, (size_t)sz, f) != (size_t)sz) {
		perror(path);
		exit(1);
	}
	fclose(f);
	memset(p + sz, 0, pad);
	*n = (size_t)sz;
	return p;
}

/* One On-Demand walk over the document; returns -1 on a parse error. */
static int walk(ondemand::parser &parser, padded_string_view json, uint64_t *events, uint64_t *chk)
{
	ondemand::document doc;
	if (parser.iterate(json).get(doc))
		return -1;
	ondemand::object root;
	if (doc.get_object().get(root))
		return -1;
	for (auto field : root) {
		std::string_view key;
		if (field.unescaped_key().get(key))
			return -1;
		if (key != "traceEvents")
			continue;
		ondemand::array arr;
		if (field.value().get_array().get(arr))
			return -1;
		for (auto elem : arr) {
			ondemand::object o;
			if (elem.get_object().get(o))
				return -1;
			(*events)++;
			for (auto f : o) {
				std::string_view k, s;
				if (f.unescaped_key().get(k))
					return -1;
				ondemand::value v;
				if (f.value().get(v))
					return -1;
				if (k == "cat" || k == "name") {
					if (v.get_string().get(s) == SUCCESS)
						*chk += s.size();
				} else if (k == "ts" || k == "dur") {
					std::string_view raw = v.raw_json_token();
					*chk += raw.size();
				}
			}
		}
	}
	return 0;
}

/*
 * Two walks: "cold", a new parser whose buffers (4 bytes of structural
 * index per input byte) are allocated and faulted in inside the timing, as
 * a one-shot program pays; "warm", the same parser again, as a reader that
 * reuses its parser pays (perfstudy's windows reuse one parser). The warm
 * one is the floor the parse ratio uses; best of three.
 */
static int parse(const char *path)
{
	size_t n;
	char *p = slurp(path, &n, SIMDJSON_PADDING);
	if (n > 0xFFFFFFFFu) {
		printf("parse_mbs=n/a parse_cold_mbs=n/a events=0 reason=over_4GiB\n");
		return 0;
	}
	padded_string_view json(p, n, n + SIMDJSON_PADDING);
	uint64_t events = 0, chk = 0;
	double t0 = now();
	ondemand::parser parser;
	if (walk(parser, json, &events, &chk) < 0) {
		fprintf(stderr, "bare: cannot parse\n");
		return 1;
	}
	double cold = now() - t0, warm = 0;
	for (int i = 0; i < 3; i++) {
		uint64_t e2 = 0, c2 = 0;
		t0 = now();
		if (walk(parser, json, &e2, &c2) < 0 || e2 != events || c2 != chk)
			return 1;
		double t = now() - t0;
		if (i == 0 || t < warm)
			warm = t;
	}
	printf("parse_mbs=%.0f parse_s=%.3f parse_cold_mbs=%.0f events=%llu chk=%llu\n", n / warm / 1e6, warm,
	       n / cold / 1e6, (unsigned long long)events, (unsigned long long)chk);
	free(p);
	return 0;
}

static int inflate_file(const char *path)
{
	size_t n;
	unsigned char *in = (unsigned char *)slurp(path, &n, 0);
	/* The gzip trailer holds the size mod 2^32; traces compress 5-20x. */
	size_t cap = n >= 4 ? (size_t)in[n - 4] | (size_t)in[n - 3] << 8 | (size_t)in[n - 2] << 16 | (size_t)in[n - 1] << 24 : 0;
	while (cap < n * 4)
		cap += (size_t)1 << 32;
	cap += 1 << 20;
	size_t len = 0;
	unsigned char *out = (unsigned char *)malloc(cap);
	memset(out, 0, cap); /* fault the pages in before timing */
	/*
	 * zlib as a program inflating the file alone would (gzip -dc): in pieces
	 * of 1 MiB into one reused buffer, as perfstudy does, members one after
	 * the other. Into one buffer the size of the trace, zlib is slower on
	 * large files (writing 1-4.5 GB of memory: 484 and 299 MB/s for 1 and
	 * 4.5 GB against about 800), which would flatter the gz ratio.
	 */
	double t0 = now();
	z_stream z;
	memset(&z, 0, sizeof(z));
	inflateInit2(&z, 16 + MAX_WBITS);
	z.next_in = in;
	size_t inoff = 0;
	int r;
	for (;;) {
		if (z.avail_in == 0) {
			size_t k = n - inoff > (1u << 30) ? (1u << 30) : n - inoff;
			z.next_in = in + inoff;
			z.avail_in = (uInt)k;
			inoff += k;
		}
		z.next_out = out;
		z.avail_out = 1u << 20;
		r = inflate(&z, Z_NO_FLUSH);
		len += (1u << 20) - z.avail_out;
		if (r == Z_STREAM_END && (z.avail_in > 0 || inoff < n)) {
			/* another member */
			inflateReset(&z);
			continue;
		}
		if (r != Z_OK)
			break;
	}
	inflateEnd(&z);
	double tz = now() - t0;
	if (r != Z_STREAM_END) {
		fprintf(stderr, "bare: inflate failed %d\n", r);
		return 1;
	}
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	size_t got = 0;
	t0 = now();
	enum libdeflate_result lr = libdeflate_gzip_decompress(d, in, n, out, cap, &got);
	double tl = now() - t0;
	libdeflate_free_decompressor(d);
	/* igzip into a 1 MiB buffer again and again, member after member. */
	struct inflate_state *st = (struct inflate_state *)malloc(sizeof(*st));
	size_t igot = 0;
	int iok = 1;
	t0 = now();
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	st->next_in = in;
	st->avail_in = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
	for (;;) {
		st->next_out = out;
		st->avail_out = 1u << 20;
		if (isal_inflate(st) != ISAL_DECOMP_OK) {
			iok = 0;
			break;
		}
		igot += (1u << 20) - st->avail_out;
		size_t off = (size_t)(st->next_in - in);
		if (st->block_state == ISAL_BLOCK_FINISH) {
			if (off >= n)
				break;
			isal_inflate_reset(st);
			st->crc_flag = ISAL_GZIP;
		}
		if (st->avail_in == 0 && off < n)
			st->avail_in = (uint32_t)(n - off > UINT32_MAX ? UINT32_MAX : n - off);
		else if (st->avail_in == 0 && st->avail_out > 0) {
			iok = 0;
			break;
		}
	}
	double ti = now() - t0;
	free(st);
	printf("inflate_mbs=%.0f inflate_s=%.3f libdeflate_mbs=%.0f igzip_mbs=%.0f uncompressed=%zu\n", len / tz / 1e6, tz,
	       lr == LIBDEFLATE_SUCCESS && got == len ? len / tl / 1e6 : 0.0, iok && igot == len ? len / ti / 1e6 : 0.0,
	       len);
	free(in);
	free(out);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "parse"))
		return parse(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "inflate"))
		return inflate_file(argv[2]);
	fprintf(stderr, "usage: bare parse FILE.json | bare inflate FILE.json.gz\n");
	return 2;
}
