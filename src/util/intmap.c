/*
 * intmap.c: see intmap.h. hashkey_u64 is SipHash-1-3 (Aumasson and
 * Bernstein; the variant Rust's and Python's hash tables use) of one
 * eight-byte word: a keyed function whose collisions cannot be found
 * without the key, at a few nanoseconds per key.
 */
#include "util/intmap.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "util/xalloc.h"

static size_t slot_of(const struct intmap *m, int64_t key)
{
	size_t i = (size_t)hashkey_u64((uint64_t)key) & (m->cap - 1);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

size_t intmap_index(struct intmap *m, int64_t key, size_t n)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct intmap g = {.cap = m->cap ? m->cap * 2 : 64};
		g.keys = xcalloc(g.cap, sizeof(*g.keys));
		g.vals = xcalloc(g.cap, sizeof(*g.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->vals[i]) {
				size_t j = slot_of(&g, m->keys[i]);
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = slot_of(m, key);
	if (!m->vals[i]) {
		m->keys[i] = key;
		m->vals[i] = n + 1;
		m->n++;
	}
	return m->vals[i] - 1;
}

size_t intmap_get(const struct intmap *m, int64_t key)
{
	if (!m->cap)
		return SIZE_MAX;
	size_t i = slot_of(m, key);
	return m->vals[i] ? m->vals[i] - 1 : SIZE_MAX;
}

void intmap_free(struct intmap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static uint64_t key0, key1;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/*
 * Draws the key: getrandom(), else /dev/urandom, else (a system without
 * either) the clock, the pid and an address, which still differ between
 * runs. The key only protects speed, never a result, so a weak fallback
 * costs nothing but that protection.
 */
static void key_init(void)
{
	uint64_t k[2] = {0, 0};
	size_t got = 0;
	while (got < sizeof(k)) {
		ssize_t r = getrandom((char *)k + got, sizeof(k) - got, GRND_NONBLOCK);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (got < sizeof(k)) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			got = 0;
			while (got < sizeof(k)) {
				ssize_t r = read(fd, (char *)k + got, sizeof(k) - got);
				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					break;
				got += (size_t)r;
			}
			close(fd);
		}
	}
	if (got < sizeof(k)) {
		struct timespec ts = {0, 0};
		clock_gettime(CLOCK_REALTIME, &ts);
		k[0] ^= (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec;
		k[1] ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&ts;
	}
	key0 = k[0];
	key1 = k[1];
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                                      \
	do {                                                                                                          \
		v0 += v1;                                                                                             \
		v1 = ROTL(v1, 13);                                                                                    \
		v1 ^= v0;                                                                                             \
		v0 = ROTL(v0, 32);                                                                                    \
		v2 += v3;                                                                                             \
		v3 = ROTL(v3, 16);                                                                                    \
		v3 ^= v2;                                                                                             \
		v0 += v3;                                                                                             \
		v3 = ROTL(v3, 21);                                                                                    \
		v3 ^= v0;                                                                                             \
		v2 += v1;                                                                                             \
		v1 = ROTL(v1, 17);                                                                                    \
		v1 ^= v2;                                                                                             \
		v2 = ROTL(v2, 32);                                                                                    \
	} while (0)

uint64_t hashkey_u64(uint64_t x)
{
	pthread_once(&key_once, key_init);
	uint64_t v0 = key0 ^ 0x736f6d6570736575ull, v1 = key1 ^ 0x646f72616e646f6dull;
	uint64_t v2 = key0 ^ 0x6c7967656e657261ull, v3 = key1 ^ 0x7465646279746573ull;
	uint64_t b = (uint64_t)8 << 56; /* the message's length in its last word, as SipHash pads */
	v3 ^= x;
	SIPROUND;
	v0 ^= x;
	v3 ^= b;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}
