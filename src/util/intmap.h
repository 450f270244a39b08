/*
 * intmap.h: a map from a 64-bit integer key (a rank, a pair of ranks) to
 * the index of an entry in the caller's array, by open addressing, so that
 * the analyses that gather table rows per rank do it in one pass whatever
 * the rank count (a linear search per row made them quadratic in ranks).
 * Keys hash under this process's random key (hashkey_u64 below), so keys taken
 * from a trace (Kineto "External id"s) cannot be chosen to collide; the
 * map has no iteration, so its slot order never reaches an output.
 */
#ifndef PERFSTUDY_INTMAP_H
#define PERFSTUDY_INTMAP_H

#include <stddef.h>
#include <stdint.h>

struct intmap {
	int64_t *keys;
	size_t *vals; /* the index plus one; 0: a free slot */
	size_t cap, n; /* cap a power of two, or 0 */
};

/* The index of key; when key is new, it gets index n (the caller's next entry), which is returned. */
size_t intmap_index(struct intmap *m, int64_t key, size_t n);
/* The index of key, or SIZE_MAX when it has none. */
size_t intmap_get(const struct intmap *m, int64_t key);
void intmap_free(struct intmap *m);

/*
 * A keyed hash of 64-bit integers, for the hash tables whose keys come from
 * the input (an allocation's address, a Kineto "External id"). A fixed hash
 * lets a crafted trace choose keys that all land in one slot and turn each
 * lookup into a scan of the table (160k colliding addresses took 21 s
 * against 0.14 s); here the key of the hash is drawn once per process from
 * the kernel's random source, so no input can be prepared against it.
 * Tables that use it must never let their slot order reach the output: the
 * order would change from one run to the next. SipHash-1-3 of the eight
 * bytes of x under this process's random key.
 */
uint64_t hashkey_u64(uint64_t x);

#endif
