/*
 * rankpack.h: one rank's arrays packed for rankdata.c's cache (rankpack.c).
 *
 * Packed ranks: each array as zigzag LEB128 varints of the difference of
 * every field from the previous element's (sorted by start, so start
 * steps are small; ids, correlations and threads repeat or count up), about
 * a fifth of the arrays' size, and exact. A hit unpacks into arrays the
 * caller owns, in about a millisecond where a reload from SQLite takes
 * tens: with 64 ranks of 100 MB, all of them fit the cache this way.
 */
#ifndef PERFSTUDY_RANKPACK_H
#define PERFSTUDY_RANKPACK_H

#include <stddef.h>

#include "analyze/lib/rankdata.h"

/* d's arrays packed into a new buffer (the caller frees it) of *bytes bytes. */
unsigned char *rank_pack(const struct rank_data *d, size_t *bytes);
/* The arrays of a buffer rank_pack made, into d (its arrays new: rank_data_release frees them). */
void rank_unpack(const unsigned char *p, struct rank_data *d);

#endif
