/* internal.h - helpers shared by the runtime's .c files; not installed. */
#ifndef MOART_INTERNAL_H
#define MOART_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Byte-generic pack (unpack = 0) or unpack (unpack = 1) between a row-major
 * buffer of batch slabs, each of n rows of rowlen elements, and its lifted
 * form with block B (each slab lifted on its own, one after the other). */
void moart_internal_lift(const void *src, void *dst, int64_t batch, int64_t n,
                         int64_t rowlen, int64_t block, size_t elem_size,
                         int unpack);

/* 1 on a little-endian host. */
int moart_internal_little_endian(void);

#endif /* MOART_INTERNAL_H */
