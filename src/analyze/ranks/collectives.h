/*
 * collectives.h: NCCL's types and sizes as collectives.c names them, for the
 * analyses that count or time collectives (busbw, crossrank, comm_volume, ...).
 */
#ifndef PERFSTUDY_COLLECTIVES_H
#define PERFSTUDY_COLLECTIVES_H

#include <stdint.h>

struct buf;

/* collectives.c: bytes of a Kineto NCCL dtype ("Float", "BFloat16", ...; 0 unknown); canonical type names. */
int collective_dtype_size(const char *dtype);
void collective_canonical(const char *raw, struct buf *out);
/*
 * The elements a communication kernel of canonical type moves, from its
 * In and Out msg nelems (<= 0: unknown): a SendRecv (a fused send and recv,
 * in what it sends, out what it receives) both, any other the larger.
 */
int64_t collective_message_nelems(const char *type, int64_t in, int64_t out);
/* NCCL's bus bandwidth factor busbw / algbw of a canonical type on n ranks (nccl-tests PERFORMANCE.md); 0 if n <= 0. */
double collective_bus_factor(const char *type, int64_t n);

#endif
