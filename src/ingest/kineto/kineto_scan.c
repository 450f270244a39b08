/*
 * kineto_scan.c: where the elements of 'traceEvents' end, 64 bytes at a
 * time (kineto_stream_int.h): masks of quotes, backslashes and brackets
 * (one loop per vector width: AVX-512, AVX2, SSE2, portable C), the
 * in-string mask by a prefix XOR of the unescaped quotes, then a depth
 * count over the brackets outside strings. An element ends where the depth
 * comes back to 0; the array where it goes below.
 */
#include "ingest/kineto/kineto_stream_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_X86_SCAN 1
#endif

/* Bit i set where p[i] == c, for 64 bytes. */
struct masks {
	uint64_t quote, bslash, open, close;
};

static inline void masks_portable(const char *p, struct masks *m)
{
	m->quote = m->bslash = m->open = m->close = 0;
	for (int i = 0; i < 64; i++) {
		uint64_t bit = (uint64_t)1 << i;
		char c = p[i];
		if (c == '"')
			m->quote |= bit;
		else if (c == '\\')
			m->bslash |= bit;
		else if (c == '{' || c == '[')
			m->open |= bit;
		else if (c == '}' || c == ']')
			m->close |= bit;
	}
}

/*
 * The scan state a loop keeps in registers: depth, carries of escape and
 * string from the previous block, the last element end and the array end.
 */
struct scan_state {
	int depth;
	uint64_t str_carry, esc_carry;
	size_t boundary, array_end;
};

static inline void state_load(const struct framer *f, struct scan_state *st)
{
	st->depth = f->ev_depth;
	st->str_carry = f->str_carry;
	st->esc_carry = f->esc_carry;
	st->boundary = f->boundary;
	st->array_end = f->array_end;
}

static inline void state_store(struct framer *f, const struct scan_state *st)
{
	f->ev_depth = st->depth;
	f->str_carry = st->str_carry;
	f->esc_carry = st->esc_carry;
	f->boundary = st->boundary;
	f->array_end = st->array_end;
}

/* Prefix XOR: bit i of the result is the XOR of bits 0..i of x. */
static inline uint64_t prefix_xor(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

/*
 * One block's masks applied at buf[at]: the escaped bytes, the in-string
 * mask (prefix XOR of the unescaped quotes, xor_fn), then the brackets
 * outside strings in order. An element ends where the depth comes back to
 * 0; the array where a bracket closes at depth 0. Inlined into each loop.
 */
#define BLOCK_WALK(st, m, at, xor_fn)                                                                                  \
	do {                                                                                                           \
		uint64_t escaped_ = 0;                                                                                 \
		if ((m).bslash | (st).esc_carry) {                                                                     \
			/* Rare in traces: a backslash escapes the next byte unless itself escaped. */               \
			uint64_t carry_ = (st).esc_carry;                                                              \
			for (int i_ = 0; i_ < 64; i_++) {                                                              \
				uint64_t bit_ = (uint64_t)1 << i_;                                                     \
				if (carry_) {                                                                          \
					escaped_ |= bit_;                                                              \
					carry_ = 0;                                                                    \
				} else if ((m).bslash & bit_) {                                                        \
					carry_ = 1;                                                                    \
				}                                                                                      \
			}                                                                                              \
			(st).esc_carry = carry_;                                                                       \
		}                                                                                                      \
		uint64_t in_str_ = xor_fn((m).quote & ~escaped_) ^ (st).str_carry;                                     \
		(st).str_carry = (uint64_t)0 - (in_str_ >> 63);                                                        \
		uint64_t open_ = (m).open & ~in_str_, brackets_ = ((m).open | (m).close) & ~in_str_;                   \
		while (brackets_) {                                                                                    \
			int i_ = __builtin_ctzll(brackets_);                                                           \
			brackets_ &= brackets_ - 1;                                                                    \
			if (open_ >> i_ & 1) {                                                                         \
				(st).depth++;                                                                          \
			} else if ((st).depth == 0) {                                                                  \
				(st).array_end = (at) + (size_t)i_;                                                    \
				break;                                                                                 \
			} else if (--(st).depth == 0) {                                                                \
				(st).boundary = (at) + (size_t)i_ + 1;                                                 \
			}                                                                                              \
		}                                                                                                      \
	} while (0)

/* Whether a scan loop goes on with another whole block at scan. */
static inline int scan_more(const struct framer *f, const struct scan_state *st, size_t scan)
{
	return st->array_end == SIZE_MAX && scan + 64 <= f->len &&
	       (scan - f->ev_start < f->window || st->boundary <= f->ev_start + 1);
}

/*
 * A scan loop: whole blocks while scan_more, the masks of each by masks_fn
 * (inlined: the loop is compiled for the masks' instruction set, attr).
 */
#define SCAN_LOOP(name, attr, masks_fn, xor_fn)                                                                        \
	attr static void name(struct framer *f)                                                                        \
	{                                                                                                              \
		struct scan_state st;                                                                                  \
		size_t scan = f->scan;                                                                                 \
		state_load(f, &st);                                                                                    \
		while (scan_more(f, &st, scan)) {                                                                      \
			struct masks m;                                                                                \
			masks_fn(f->buf + scan, &m);                                                                   \
			BLOCK_WALK(st, m, scan, xor_fn);                                                               \
			scan += 64;                                                                                    \
		}                                                                                                      \
		state_store(f, &st);                                                                                   \
		f->scan = scan;                                                                                        \
	}

SCAN_LOOP(scan_portable, , masks_portable, prefix_xor)

#ifdef HAVE_X86_SCAN
static inline void masks_sse2(const char *p, struct masks *m)
{
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	const __m128i o1 = _mm_set1_epi8('{'), o2 = _mm_set1_epi8('[');
	const __m128i c1 = _mm_set1_epi8('}'), c2 = _mm_set1_epi8(']');
	m->quote = m->bslash = m->open = m->close = 0;
	for (int k = 0; k < 4; k++) { /* unrolled: constant shifts */
		__m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
		m->quote |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, q)) << 16 * k;
		m->bslash |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(v, b)) << 16 * k;
		m->open |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, o1), _mm_cmpeq_epi8(v, o2)))
			   << 16 * k;
		m->close |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, c1), _mm_cmpeq_epi8(v, c2)))
			    << 16 * k;
	}
}

/* Prefix XOR by a carry-less multiply with all ones, as simdjson does. */
__attribute__((target("pclmul"))) static inline uint64_t prefix_xor_clmul(uint64_t x)
{
	return (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0));
}

/* Bits of the two 32-byte halves' byte masks. */
#define AVX2_BITS(lo, hi) ((uint64_t)(uint32_t)_mm256_movemask_epi8(lo) | (uint64_t)(uint32_t)_mm256_movemask_epi8(hi) << 32)

__attribute__((target("avx2"))) static inline void masks_avx2(const char *p, struct masks *m)
{
	const __m256i q = _mm256_set1_epi8('"'), b = _mm256_set1_epi8('\\');
	const __m256i o1 = _mm256_set1_epi8('{'), o2 = _mm256_set1_epi8('[');
	const __m256i c1 = _mm256_set1_epi8('}'), c2 = _mm256_set1_epi8(']');
	__m256i lo = _mm256_loadu_si256((const __m256i *)p), hi = _mm256_loadu_si256((const __m256i *)(p + 32));
	m->quote = AVX2_BITS(_mm256_cmpeq_epi8(lo, q), _mm256_cmpeq_epi8(hi, q));
	m->bslash = AVX2_BITS(_mm256_cmpeq_epi8(lo, b), _mm256_cmpeq_epi8(hi, b));
	m->open = AVX2_BITS(_mm256_or_si256(_mm256_cmpeq_epi8(lo, o1), _mm256_cmpeq_epi8(lo, o2)),
			    _mm256_or_si256(_mm256_cmpeq_epi8(hi, o1), _mm256_cmpeq_epi8(hi, o2)));
	m->close = AVX2_BITS(_mm256_or_si256(_mm256_cmpeq_epi8(lo, c1), _mm256_cmpeq_epi8(lo, c2)),
			     _mm256_or_si256(_mm256_cmpeq_epi8(hi, c1), _mm256_cmpeq_epi8(hi, c2)));
}

__attribute__((target("avx512bw"))) static inline void masks_avx512(const char *p, struct masks *m)
{
	__m512i v = _mm512_loadu_si512((const void *)p);
	m->quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
	m->bslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
	m->open = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('{')) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('['));
	m->close = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('}')) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(']'));
}

SCAN_LOOP(scan_sse2, , masks_sse2, prefix_xor)
SCAN_LOOP(scan_avx2, __attribute__((target("avx2,pclmul"))), masks_avx2, prefix_xor_clmul)
SCAN_LOOP(scan_avx512, __attribute__((target("avx512bw,pclmul"))), masks_avx512, prefix_xor_clmul)
#endif

/* The widest scan loop this CPU runs, capped by PERFSTUDY_SIMD (portable, sse2, avx2). */
enum isa kstream_pick_isa(void)
{
	enum isa cap = ISA_AVX512;
	const char *e = getenv("PERFSTUDY_SIMD");
	if (e && !strcmp(e, "portable"))
		cap = ISA_PORTABLE;
	else if (e && !strcmp(e, "sse2"))
		cap = ISA_SSE2;
	else if (e && !strcmp(e, "avx2"))
		cap = ISA_AVX2;
#ifdef HAVE_X86_SCAN
	__builtin_cpu_init();
	int clmul = __builtin_cpu_supports("pclmul");
	enum isa have = clmul && __builtin_cpu_supports("avx512bw") ? ISA_AVX512
			: clmul && __builtin_cpu_supports("avx2")   ? ISA_AVX2
								    : ISA_SSE2;
#else
	enum isa have = ISA_PORTABLE;
#endif
	return have < cap ? have : cap;
}

/*
 * Scans the events phase in whole blocks (a partial one only at the end of
 * the file) until the array ends, the buffer is used up, or a window's
 * worth is scanned and holds a whole element.
 */
void kstream_scan_events(struct framer *f)
{
	switch (f->isa) {
#ifdef HAVE_X86_SCAN
	case ISA_AVX512:
		scan_avx512(f);
		break;
	case ISA_AVX2:
		scan_avx2(f);
		break;
	case ISA_SSE2:
		scan_sse2(f);
		break;
#endif
	default:
		scan_portable(f);
		break;
	}
	if (f->array_end == SIZE_MAX && f->eof && f->scan < f->len && f->scan + 64 > f->len) {
		char blk[64];
		memset(blk, ' ', sizeof(blk));
		memcpy(blk, f->buf + f->scan, f->len - f->scan);
		struct masks m;
		struct scan_state st;
		masks_portable(blk, &m);
		state_load(f, &st);
		BLOCK_WALK(st, m, f->scan, prefix_xor);
		state_store(f, &st);
		f->scan = f->len;
	}
}
