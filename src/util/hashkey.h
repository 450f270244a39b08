/*
 * hashkey.h: a keyed hash of 64-bit integers, for the hash tables whose
 * keys come from the input (an allocation's address, a Kineto "External
 * id"). A fixed hash lets a crafted trace choose keys that all land in one
 * slot and turn each lookup into a scan of the table (160k colliding
 * addresses took 21 s against 0.14 s); here the key of the hash is drawn
 * once per process from the kernel's random source, so no input can be
 * prepared against it. Tables that use it must never let their slot order
 * reach the output: the order would change from one run to the next.
 */
#ifndef PERFSTUDY_HASHKEY_H
#define PERFSTUDY_HASHKEY_H

#include <stdint.h>

/* SipHash-1-3 of the eight bytes of x under this process's random key. */
uint64_t hashkey_u64(uint64_t x);

#endif
