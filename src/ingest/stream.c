/*
 * stream.c: reads a file's uncompressed bytes in pieces (see stream.h).
 *
 * Time spent here (I/O, hashing, inflating) is counted as the "read" stage
 * of PERFSTUDY_TIMING.
 */
#include "ingest/stream.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isa-l/igzip_lib.h>

#include "util/cleanup.h"
#include "util/diag.h"
#include "util/fs.h"
#include "util/timing.h"
#include "util/xalloc.h"

static ssize_t read_fd(struct source_stream *s, unsigned char *p, size_t n)
{
	for (;;) {
		ssize_t r = read(s->fd, p, n);
		if (r >= 0)
			return r;
		if (errno != EINTR) {
			diag_syserror(s->path, "cannot read: %s", strerror(errno));
			return -1;
		}
	}
}

/*
 * Read-ahead: a thread reads the file into RA_SLOTS slots of RA_CHUNK bytes
 * in turn and hashes each, while the caller copies from the filled ones.
 * Slots [head, tail) are filled (counters, modulo RA_SLOTS); the thread
 * writes only the slot at tail, the caller reads only those before it, so
 * the bytes need no lock, only the counters. The thread never calls diag
 * (the caller's thread reports its errno) and stops at the end of the file,
 * at a read error, or when the stream closes.
 */
/*
 * 1 MiB in all, so that the slots stay in the core's L2 from the read to the
 * hash and the caller's copy: 16 slots of 1 MiB (the first choice) left the
 * kernel's copy writing, and the hash reading, cold memory (one 113 MB
 * trace, --jobs 2, read and parse: CPU 0.32 -> 0.28 s, wall 0.18 -> 0.16 s,
 * medians of 6; 4 x 512 KiB, 8 x 128 KiB and 16 x 64 KiB the same).
 */
#define RA_SLOTS 4
#define RA_CHUNK (256u << 10)

static _Atomic int readahead_on;

void source_stream_readahead(int spare)
{
	readahead_on = spare > 0 ? spare : 0;
}

struct readahead {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	struct sha256 *sha;
	char *buf[RA_SLOTS];
	size_t len[RA_SLOTS];
	uint64_t head, tail; /* slots taken by the caller / filled by the thread */
	size_t off;          /* the caller's position in slot head */
	uint64_t total;      /* bytes read */
	int done, err, stop; /* at the end; errno of a failed read; closing */
};

static void *ra_main(void *arg)
{
	struct readahead *ra = arg;
	for (;;) {
		pthread_mutex_lock(&ra->mu);
		while (ra->tail - ra->head == RA_SLOTS && !ra->stop)
			pthread_cond_wait(&ra->cv, &ra->mu);
		int stop = ra->stop;
		size_t slot = (size_t)(ra->tail % RA_SLOTS);
		pthread_mutex_unlock(&ra->mu);
		if (stop)
			return NULL;
		double t0 = timing_now();
		char *p = ra->buf[slot];
		size_t n = 0;
		int err = 0;
		while (n < RA_CHUNK) {
			ssize_t r = read(ra->fd, p + n, RA_CHUNK - n);
			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				err = errno;
			if (r <= 0)
				break;
			n += (size_t)r;
		}
		sha256_update(ra->sha, p, n);
		timing_add(TIME_READ, timing_now() - t0);
		pthread_mutex_lock(&ra->mu);
		ra->len[slot] = n;
		ra->total += n;
		if (n > 0)
			ra->tail++;
		if (err)
			ra->err = err;
		if (err || n < RA_CHUNK)
			ra->done = 1;
		int done = ra->done;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
		if (done)
			return NULL;
	}
}

static int ra_start(struct source_stream *s)
{
	struct readahead *ra = xcalloc(1, sizeof(*ra));
	ra->fd = s->fd;
	ra->sha = &s->sha;
	for (int i = 0; i < RA_SLOTS; i++)
		ra->buf[i] = xmalloc(RA_CHUNK);
	pthread_mutex_init(&ra->mu, NULL);
	pthread_cond_init(&ra->cv, NULL);
	if (cleanup_thread(&ra->thread, ra_main, ra) != 0) {
		/* No thread: read here instead. */
		pthread_mutex_destroy(&ra->mu);
		pthread_cond_destroy(&ra->cv);
		for (int i = 0; i < RA_SLOTS; i++)
			free(ra->buf[i]);
		free(ra);
		return -1;
	}
	s->ra = ra;
	return 0;
}

static void ra_stop(struct source_stream *s)
{
	struct readahead *ra = s->ra;
	if (!ra)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = 1;
	pthread_cond_broadcast(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	pthread_join(ra->thread, NULL);
	pthread_mutex_destroy(&ra->mu);
	pthread_cond_destroy(&ra->cv);
	for (int i = 0; i < RA_SLOTS; i++)
		free(ra->buf[i]);
	free(ra);
	s->ra = NULL;
}

/* Up to n bytes from the filled slots, as read_fd: 0 at the end, -1 after diag. */
static ssize_t ra_read(struct source_stream *s, char *p, size_t n)
{
	struct readahead *ra = s->ra;
	pthread_mutex_lock(&ra->mu);
	while (ra->head == ra->tail && !ra->done)
		pthread_cond_wait(&ra->cv, &ra->mu);
	if (ra->head == ra->tail) {
		int err = ra->err;
		uint64_t total = ra->total;
		pthread_mutex_unlock(&ra->mu);
		if (err) {
			diag_syserror(s->path, "cannot read: %s", strerror(err));
			return -1;
		}
		s->meta.size += (int64_t)total;
		return 0;
	}
	size_t slot = (size_t)(ra->head % RA_SLOTS);
	size_t avail = ra->len[slot] - ra->off;
	pthread_mutex_unlock(&ra->mu);
	size_t k = avail < n ? avail : n;
	memcpy(p, ra->buf[slot] + ra->off, k);
	ra->off += k;
	if (ra->off == ra->len[slot]) {
		pthread_mutex_lock(&ra->mu);
		ra->head++;
		ra->off = 0;
		pthread_cond_broadcast(&ra->cv);
		pthread_mutex_unlock(&ra->mu);
	}
	return (ssize_t)k;
}

/* Up to n bytes of the file, hashed and counted (by the read-ahead thread when there is one): 0 at its end, -1 after diag. */
static ssize_t file_read(struct source_stream *s, unsigned char *p, size_t n)
{
	if (s->ra)
		return ra_read(s, (char *)p, n);
	ssize_t r = read_fd(s, p, n);
	if (r > 0) {
		sha256_update(&s->sha, p, (size_t)r);
		s->meta.size += r;
	}
	return r;
}

/*
 * A .json.gz's compressed bytes are read in pieces as the inflater needs
 * them, into zbuf (ZBUF bytes, file bytes [zoff, zoff + zlen), the inflater
 * at zpos), by the read-ahead thread when a core is spare (it hashes them)
 * or here. The whole compressed file was read at open into memory made for
 * it: on a machine whose fresh memory is slow to fault in (this benchmark's
 * VM: 0.2-0.7 s for the 321 MB of a 4.5 GB trace, clearing pages) that
 * was most of a second on one core before the first byte was inflated,
 * and as much memory again as the file (bench/RESULTS.md).
 *
 * When igzip gives up, zlib inflates the file again from its start
 * (isal_fallback): the bytes already read (below zreplay_end) are read
 * again with pread, at zreplay, the rest as before, so each byte is hashed
 * once.
 */
#define ZBUF (256u << 10)

/* Up to n compressed bytes from the file: 0 at its end, -1 after diag. */
static ssize_t zsrc_read(struct source_stream *s, unsigned char *p, size_t n)
{
	while (s->zreplay < s->zreplay_end) {
		uint64_t left = s->zreplay_end - s->zreplay;
		ssize_t r = pread(s->fd, p, left < n ? (size_t)left : n, (off_t)s->zreplay);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			diag_syserror(s->path, "cannot read: %s", strerror(errno));
			return -1;
		}
		if (r == 0) {
			s->zreplay = s->zreplay_end; /* shorter than it was: what follows comes as before */
			break;
		}
		s->zreplay += (uint64_t)r;
		return r;
	}
	if (s->zsrc_done)
		return 0;
	ssize_t r = file_read(s, p, n);
	if (r == 0)
		s->zsrc_done = 1; /* read once: ra_read counts the size at its end */
	return r;
}

/* Whether the inflater has every byte of the file (none is left to read, again or for the first time). */
static int zin_all(const struct source_stream *s)
{
	return s->zsrc_done && s->zreplay >= s->zreplay_end;
}

/*
 * At least k bytes (k <= ZBUF) from zpos in zbuf, reading as needed (the
 * bytes before zpos are dropped): how many there are, fewer only at the end
 * of the file; -1 after diag.
 */
static ssize_t zin_need(struct source_stream *s, size_t k)
{
	if (s->zlen - s->zpos >= k)
		return (ssize_t)(s->zlen - s->zpos);
	if (s->zpos) {
		memmove(s->zbuf, s->zbuf + s->zpos, s->zlen - s->zpos);
		s->zoff += s->zpos;
		s->zlen -= s->zpos;
		s->zpos = 0;
	}
	while (s->zlen < k && !zin_all(s)) {
		ssize_t r = zsrc_read(s, s->zbuf + s->zlen, ZBUF - s->zlen);
		if (r < 0)
			return -1;
		s->zlen += (size_t)r;
	}
	return (ssize_t)s->zlen;
}

/* Starts zlib at zpos. */
static int zlib_start(struct source_stream *s)
{
	if (inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
		diag_syserror(s->path, "cannot start zlib");
		return -1;
	}
	s->zinit = 1;
	s->z.next_in = s->zbuf + s->zpos;
	s->z.avail_in = (uInt)(s->zlen - s->zpos);
	return 0;
}

int source_stream_open(struct source_stream *s, const char *path)
{
	memset(s, 0, sizeof(*s));
	s->path = path;
	s->fd = -1;
	sha256_init(&s->sha);
	long long size;
	s->fd = fs_open_regular(path, "a trace file", &size);
	if (s->fd < 0)
		return -1;
	double t0 = timing_now();
	unsigned char first[2];
	size_t nfirst = 0;
	while (nfirst < 2) {
		ssize_t r = read_fd(s, first + nfirst, 2 - nfirst);
		if (r < 0)
			return -1;
		if (r == 0)
			break;
		nfirst += (size_t)r;
	}
	/* PERFSTUDY_READAHEAD=always: whatever the size (tests run the threads on small files). */
	const char *env = getenv("PERFSTUDY_READAHEAD");
	int ahead = getenv("PERFSTUDY_NO_READAHEAD") ? 0 : readahead_on, always = env && !strcmp(env, "always");
	if (nfirst == 2 && first[0] == 0x1f && first[1] == 0x8b) {
		s->meta.gzip = 1;
		s->spare_core = ahead && ((uint64_t)size >= (1u << 20) || always) ? ahead : 0;
		sha256_update(&s->sha, first, nfirst);
		s->meta.size = (int64_t)nfirst;
		s->zbuf = xmalloc(ZBUF);
		memcpy(s->zbuf, first, nfirst);
		s->zlen = nfirst;
		if (s->spare_core)
			ra_start(s);
		/* PERFSTUDY_INFLATE=zlib: zlib from the start (tests of its path, benchmarks). */
		const char *inf = getenv("PERFSTUDY_INFLATE");
		if (inf && !strcmp(inf, "zlib")) {
			if (zlib_start(s) < 0)
				return -1;
		} else {
			s->isal = xmalloc(sizeof(*s->isal));
			isal_inflate_init(s->isal);
			s->isal->crc_flag = ISAL_GZIP;
			s->isal->next_in = s->zbuf;
			s->isal->avail_in = (uint32_t)s->zlen;
		}
	} else {
		sha256_update(&s->sha, first, nfirst);
		s->meta.size = (int64_t)nfirst;
		memcpy(s->head, first, nfirst);
		s->head_len = nfirst;
		s->spare_core = ahead && ((uint64_t)size >= STREAM_AHEAD_MIN || always) ? ahead : 0;
		if (s->spare_core)
			ra_start(s);
	}
	timing_add(TIME_READ, timing_now() - t0);
	return 0;
}

/*
 * After a gzip member ends at zpos: another may follow (gzip allows
 * concatenation), zeros are padding. 1: a member starts at zpos; 0: the
 * end (s->eof set); 2: something else is there (zpos at it), which each
 * inflater reports its own way; -1: a read error, after diag.
 */
static int next_member(struct source_stream *s)
{
	for (;;) {
		while (s->zpos < s->zlen && s->zbuf[s->zpos] == 0)
			s->zpos++;
		if (s->zpos < s->zlen)
			break;
		ssize_t k = zin_need(s, 1);
		if (k < 0)
			return -1;
		if (k == 0) {
			s->eof = 1;
			return 0;
		}
	}
	ssize_t k = zin_need(s, 2);
	if (k < 0)
		return -1;
	return k >= 2 && s->zbuf[s->zpos] == 0x1f && s->zbuf[s->zpos + 1] == 0x8b ? 1 : 2;
}

/* zlib in pieces, with the messages of source.c's inflate_all; z_out counts its output. */
static ssize_t inflate_some(struct source_stream *s, char *p, size_t n)
{
	z_stream *z = &s->z;
	z->next_out = (unsigned char *)p;
	z->avail_out = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	while (z->avail_out > 0) {
		if (z->avail_in == 0) {
			s->zpos = s->zlen;
			if (zin_need(s, 1) < 0)
				return -1;
			z->next_in = s->zbuf + s->zpos;
			z->avail_in = (uInt)(s->zlen - s->zpos);
		}
		int ret = inflate(z, Z_NO_FLUSH);
		s->zpos = (size_t)(z->next_in - s->zbuf);
		if (ret == Z_STREAM_END) {
			int more = next_member(s);
			if (more < 0)
				return -1;
			if (more == 0)
				break;
			if (more == 2) {
				diag_error(s->path, "trailing garbage after gzip data at byte %llu",
					   (unsigned long long)(s->zoff + s->zpos));
				return -1;
			}
			inflateReset(z);
			z->next_in = s->zbuf + s->zpos;
			z->avail_in = (uInt)(s->zlen - s->zpos);
			continue;
		}
		if (ret == Z_OK || ret == Z_BUF_ERROR) {
			if (ret == Z_BUF_ERROR && z->avail_in == 0 && zin_all(s)) {
				size_t done = (size_t)s->z_out + (size_t)((char *)z->next_out - p);
				diag_error(s->path, "truncated gzip stream after %zu bytes of uncompressed data", done);
				return -1;
			}
			continue;
		}
		if (ret == Z_MEM_ERROR) {
			fputs("perfstudy: error: out of memory\n", stderr);
			exit(3);
		}
		diag_error(s->path, "corrupt gzip data near byte %llu: %s", (unsigned long long)(s->zoff + s->zpos),
			   z->msg ? z->msg : "invalid data");
		return -1;
	}
	s->z_out += (uint64_t)((char *)z->next_out - p);
	return (char *)z->next_out - p;
}

/*
 * ISA-L gave up (corrupt, truncated or trailing data: its codes do not say
 * where or why): zlib inflates the file again from the start, drops the
 * `done` bytes already handed out, and goes on from there, so the message
 * is zlib's, at zlib's place, as if zlib had read the file all along.
 */
static int isal_fallback(struct source_stream *s, uint64_t done)
{
	free(s->isal);
	s->isal = NULL;
	/* The bytes read so far again, from the start (zsrc_read). */
	s->zreplay = 0;
	s->zreplay_end = s->zoff + s->zlen;
	s->zoff = s->zlen = s->zpos = 0;
	if (zlib_start(s) < 0)
		return -1;
	char scratch[1 << 14];
	while (s->z_out < done && !s->eof) {
		uint64_t left = done - s->z_out;
		if (inflate_some(s, scratch, left < sizeof(scratch) ? (size_t)left : sizeof(scratch)) < 0)
			return -1;
	}
	return 0;
}

/*
 * ISA-L in pieces (igzip: as fast as libdeflate here and, unlike it, able
 * to stop when the caller's buffer is full, so a .json.gz is never held
 * inflated whole), member after member; zeros after a member are padding.
 * Anything else it does not accept goes to isal_fallback.
 */
static ssize_t isal_some(struct source_stream *s, char *p, size_t n)
{
	struct inflate_state *st = s->isal;
	st->next_out = (uint8_t *)p;
	st->avail_out = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	int ok = 1;
	while (st->avail_out > 0) {
		if (st->block_state == ISAL_BLOCK_FINISH) {
			s->zpos = (size_t)(st->next_in - s->zbuf);
			int more = next_member(s);
			if (more < 0)
				return -1;
			if (more == 2) {
				ok = 0; /* not gzip: isal_fallback lets zlib say so */
				break;
			}
			if (more == 0)
				break;
			isal_inflate_reset(st);
			st->crc_flag = ISAL_GZIP;
			st->next_in = s->zbuf + s->zpos;
			st->avail_in = (uint32_t)(s->zlen - s->zpos);
		}
		if (st->avail_in == 0) {
			s->zpos = s->zlen;
			if (zin_need(s, 1) < 0)
				return -1;
			st->next_in = s->zbuf + s->zpos;
			st->avail_in = (uint32_t)(s->zlen - s->zpos);
		}
		uint32_t before = st->avail_out;
		if (isal_inflate(st) != ISAL_DECOMP_OK) {
			ok = 0;
			break;
		}
		if (st->block_state != ISAL_BLOCK_FINISH && st->avail_in == 0 && zin_all(s) && st->avail_out == before) {
			ok = 0; /* the input ended inside a member */
			break;
		}
	}
	size_t got = (size_t)((char *)st->next_out - p);
	s->isal_out += got;
	if (ok)
		return (ssize_t)got;
	if (isal_fallback(s, s->isal_out) < 0)
		return -1;
	return (ssize_t)got;
}

static ssize_t read_raw(struct source_stream *s, char *p, size_t n)
{
	if (s->eof || n == 0)
		return 0;
	if (s->isal)
		return isal_some(s, p, n);
	if (s->zinit)
		return inflate_some(s, p, n);
	ssize_t r = file_read(s, (unsigned char *)p, n);
	if (r == 0)
		s->eof = 1;
	return r;
}

/* Up to n bytes of the whitespace source_stream_head dropped, as spaces and newlines, into p. */
static size_t ws_give(struct source_stream *s, char *p, size_t n)
{
	size_t got = 0;
	/* Spaces, then the newlines, then the spaces after the last newline. */
	uint64_t nl_from = s->ws_len - s->ws_tail - s->ws_newlines, nl_to = s->ws_len - s->ws_tail;
	while (got < n && s->ws_off < s->ws_len) {
		uint64_t end = s->ws_off < nl_from ? nl_from : s->ws_off < nl_to ? nl_to : s->ws_len;
		size_t k = end - s->ws_off < n - got ? (size_t)(end - s->ws_off) : n - got;
		memset(p + got, s->ws_off >= nl_from && s->ws_off < nl_to ? '\n' : ' ', k);
		got += k;
		s->ws_off += k;
	}
	return got;
}

ssize_t source_stream_read(struct source_stream *s, char *p, size_t n)
{
	size_t got = ws_give(s, p, n);
	if (got < n && s->head_off < s->head_len) {
		size_t k = s->head_len - s->head_off < n - got ? s->head_len - s->head_off : n - got;
		memcpy(p + got, s->head + s->head_off, k);
		s->head_off += k;
		got += k;
	}
	double t0 = timing_now();
	/* Fill as much as asked, so callers see short counts only at the end. */
	while (got < n && !s->eof) {
		ssize_t r = read_raw(s, p + got, n - got);
		if (r < 0)
			return -1;
		got += (size_t)r;
	}
	timing_add(TIME_READ, timing_now() - t0);
	s->out_total += got;
	return (ssize_t)got;
}

static int is_ws(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

ssize_t source_stream_head(struct source_stream *s, const char **p, uint64_t *skipped)
{
	double t0 = timing_now();
	for (;;) {
		while (s->head_len < sizeof(s->head) && !s->eof) {
			ssize_t r = read_raw(s, s->head + s->head_len, sizeof(s->head) - s->head_len);
			if (r < 0)
				return -1;
			s->head_len += (size_t)r;
		}
		/* Only before anything was read, and only a head of whitespace alone. */
		size_t i = 0;
		while (i < s->head_len && is_ws(s->head[i]))
			i++;
		if (s->head_off || !s->head_len || i < s->head_len)
			break;
		for (size_t k = 0; k < s->head_len; k++) {
			if (s->head[k] == '\n') {
				s->ws_newlines++;
				s->ws_tail = 0;
			} else {
				s->ws_tail++;
			}
		}
		s->ws_len += s->head_len;
		s->head_len = 0;
	}
	timing_add(TIME_READ, timing_now() - t0);
	*p = s->head;
	if (skipped)
		*skipped = s->ws_len;
	return (ssize_t)s->head_len;
}

int source_stream_spare_core(const struct source_stream *s)
{
	return s->spare_core;
}

int source_stream_parse_helpers(const struct source_stream *s)
{
	if (!s->spare_core)
		return 0;
	/* The first spare core cuts the windows (kineto_cut.c's cutter); helpers take the others. */
	const char *e = getenv("PERFSTUDY_PARSE_HELPERS");
	int n = e && *e ? atoi(e) : s->spare_core - 1;
	return n < 0 ? 0 : n > STREAM_HELPERS_MAX ? STREAM_HELPERS_MAX : n;
}

const struct source_meta *source_stream_meta(struct source_stream *s)
{
	if (s->eof && !s->meta.sha256[0])
		sha256_final_hex(&s->sha, s->meta.sha256);
	return &s->meta;
}

void source_stream_close(struct source_stream *s)
{
	ra_stop(s);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->zinit)
		inflateEnd(&s->z);
	s->zinit = 0;
	free(s->zbuf);
	free(s->isal);
	s->zbuf = NULL;
	s->isal = NULL;
}
