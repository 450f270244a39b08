/*
 * sha256.h: SHA-256 (FIPS 180-4), for the content hashes of input files.
 *
 * The store records each trace's hash so a rerun can tell unchanged traces,
 * and the report's Provenance lists it. Incremental: init, update, final.
 */
#ifndef PERFSTUDY_SHA256_H
#define PERFSTUDY_SHA256_H

#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes so far */
	unsigned char block[64];
	size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t n);
/* Writes 64 lowercase hex digits and a NUL into hex. */
void sha256_final_hex(struct sha256 *s, char hex[65]);
/* Whether the x86 SHA extensions are used where the CPU has them (the
 * default, 1) or the portable C compression always (0); returns the previous
 * setting. For tests, which check both against the same digests. */
int sha256_use_cpu_extensions(int on);

#endif
