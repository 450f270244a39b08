/*
 * source.c: loads an input file whole, inflating gzip.
 *
 * Traces are read in one piece because simdjson parses a padded buffer; the
 * streaming reader for traces larger than memory is planned in the
 * performance issue. Corrupt or truncated gzip is the user's input problem
 * (exit 1), a failed read(2) is the system's (exit 3).
 */
#include "ingest/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "util/diag.h"
#include "util/fs.h"
#include "util/sha256.h"
#include "util/xalloc.h"

/*
 * The file's bytes into *out (*len of them), with room for SOURCE_PADDING
 * more after them: a plain file is used as loaded, not copied (the copy
 * held it twice).
 */
static int read_all(const char *path, unsigned char **out, size_t *len)
{
	long long size;
	int fd = fs_open_regular(path, "a trace file", &size);
	if (fd < 0)
		return -1;
	size_t cap = (size_t)size + 1 + SOURCE_PADDING;
	unsigned char *p = xmalloc(cap);
	size_t n = 0;
	for (;;) {
		if (n + SOURCE_PADDING >= cap) /* the file grew while read */
			p = xgrow(p, &cap, n + SOURCE_PADDING + 65536, 1);
		ssize_t r = read(fd, p + n, cap - n - SOURCE_PADDING);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			diag_syserror(path, "cannot read: %s", strerror(errno));
			free(p);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	*out = p;
	*len = n;
	return 0;
}

/*
 * A file loaded whole is held inflated whole, so a gzip bomb (10 MB of
 * members holding 10 GiB of blanks) would take all memory. Real exports
 * inflate 5-20 times (text, SQLite pages); deflate's most is about 1030.
 * Past INFLATE_FREE bytes, output of more than INFLATE_RATIO times the
 * compressed size is refused, naming the ratio reached: memory stays below
 * INFLATE_FREE or INFLATE_RATIO times the file's size. The output
 * buffer never grows past that bound plus one byte (it grew by half its
 * size and was filled before the check, so a bomb reached 1.5 times the
 * bound). (Kineto JSON is streamed and never loaded whole: it is not
 * bounded by this.)
 */
#define INFLATE_FREE ((size_t)64 << 20)
#define INFLATE_RATIO 100

/* Inflates every gzip member of in; returns the padded output or NULL after diag. */
static char *inflate_all(const char *path, const unsigned char *in, size_t n, size_t *outlen)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		diag_syserror(path, "cannot start zlib");
		return NULL;
	}
	/* the most output kept: one byte past it is the proof of a bomb, so no buffer grows beyond it */
	size_t limit = n > INFLATE_FREE / INFLATE_RATIO ? n * INFLATE_RATIO : INFLATE_FREE;
	if (n > SIZE_MAX / INFLATE_RATIO - SOURCE_PADDING - 1)
		limit = SIZE_MAX - SOURCE_PADDING - 1;
	size_t cap = (n < limit / 8 ? n * 8 : limit + 1) + SOURCE_PADDING, len = 0;
	char *out = xmalloc(cap);
	z.next_in = (unsigned char *)in;
	z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	size_t consumed_before = 0;
	int ret;
	for (;;) {
		if (cap - len < SOURCE_PADDING + 65536 && cap < limit + 1 + SOURCE_PADDING) {
			size_t want = len + SOURCE_PADDING + 65536 + cap / 2;
			if (want > limit + 1 + SOURCE_PADDING)
				want = limit + 1 + SOURCE_PADDING;
			out = xrealloc(out, want);
			cap = want;
		}
		size_t room = cap - len - SOURCE_PADDING;
		z.next_out = (unsigned char *)out + len;
		z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		ret = inflate(&z, Z_NO_FLUSH);
		len = (size_t)((char *)z.next_out - out);
		if (len > limit) {
			diag_error(path, "gzip data inflates more than %d times (%zu bytes to %zu so far);"
				   " refused as a gzip bomb", INFLATE_RATIO, n, len);
			goto fail;
		}
		if (z.avail_in == 0 && (size_t)(z.next_in - in) < n) {
			size_t off = (size_t)(z.next_in - in);
			z.avail_in = n - off > UINT32_MAX ? UINT32_MAX : (uInt)(n - off);
		}
		if (ret == Z_STREAM_END) {
			size_t off = (size_t)(z.next_in - in);
			/* Another member follows (gzip allows concatenation); trailing zeros are padding. */
			while (off < n && in[off] == 0)
				off++;
			if (off >= n)
				break;
			if (n - off < 2 || in[off] != 0x1f || in[off + 1] != 0x8b) {
				diag_error(path, "trailing garbage after gzip data at byte %zu", off);
				goto fail;
			}
			inflateReset(&z);
			z.next_in = (unsigned char *)in + off;
			z.avail_in = n - off > UINT32_MAX ? UINT32_MAX : (uInt)(n - off);
			consumed_before = off;
			continue;
		}
		if (ret == Z_OK || ret == Z_BUF_ERROR) {
			if (ret == Z_BUF_ERROR && z.avail_in == 0 && (size_t)(z.next_in - in) >= n) {
				diag_error(path, "truncated gzip stream after %zu bytes of uncompressed data", len);
				goto fail;
			}
			continue;
		}
		if (ret == Z_MEM_ERROR) {
			fputs("perfstudy: error: out of memory\n", stderr);
			exit(3);
		}
		diag_error(path, "corrupt gzip data near byte %zu: %s", (size_t)(z.next_in - in),
			   z.msg ? z.msg : "invalid data");
		goto fail;
	}
	(void)consumed_before;
	inflateEnd(&z);
	memset(out + len, 0, SOURCE_PADDING);
	*outlen = len;
	return out;
fail:
	inflateEnd(&z);
	free(out);
	return NULL;
}

int source_load(struct source *src, const char *path)
{
	memset(src, 0, sizeof(*src));
	src->path = path;
	unsigned char *raw;
	size_t n;
	if (read_all(path, &raw, &n) < 0)
		return -1;
	struct sha256 h;
	sha256_init(&h);
	sha256_update(&h, raw, n);
	sha256_final_hex(&h, src->meta.sha256);
	src->meta.size = (int64_t)n;
	if (n >= 2 && raw[0] == 0x1f && raw[1] == 0x8b) {
		src->meta.gzip = 1;
		src->data = inflate_all(path, raw, n, &src->len);
		free(raw);
		return src->data ? 0 : -1;
	}
	memset(raw + n, 0, SOURCE_PADDING);
	src->data = (char *)raw;
	src->len = n;
	return 0;
}

void source_release(struct source *src)
{
	free(src->data);
	src->data = NULL;
	src->len = 0;
}

const char *source_find(const char *p, size_t n, const char *needle)
{
	size_t m = strlen(needle);
	for (size_t i = 0; i + m <= n; i++)
		if (!memcmp(p + i, needle, m))
			return p + i;
	return NULL;
}

void source_line_col(const char *p, size_t n, size_t at, size_t *line, size_t *col)
{
	*line = *col = 1;
	for (size_t i = 0; i < at && i < n; i++) {
		if (p[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}
