/* moart/layout.h - the lifted (coalescing) layout T([x, y]) = [x / B, y, x %
 * B].
 *
 * A row-major buffer of n rows, each of rowlen elements (rowlen = product of
 * the trailing extents), is stored lifted as [ceil(n/B)][rowlen][B]: lane x % B
 * of a B-wide group of rows reads consecutive addresses at every step y. Rows
 * x >= n that fill the last group are padding and hold zero.
 *
 * An array lifted on an axis a > 0 is a batch of such buffers: the extents
 * before a (batch = their product) index independent slabs of n * rowlen
 * elements, each lifted on its own and stored one after the other, so logical
 * [p, x, y] is at p * moart_lifted_count(n, rowlen, B) + the offset above. */
#ifndef MOART_LAYOUT_H
#define MOART_LAYOUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Elements of the lifted buffer, ceil(n/B) * rowlen * B; -1 if n < 0,
 * rowlen < 0, block < 1 or the product overflows int64. */
int64_t moart_lifted_count(int64_t n, int64_t rowlen, int64_t block);

/* Elements of batch lifted slabs, batch * moart_lifted_count(n, rowlen,
 * block); -1 if batch < 0, moart_lifted_count gives -1, or the product
 * overflows int64. */
int64_t moart_lifted_batch_count(int64_t batch, int64_t n, int64_t rowlen,
                                 int64_t block);

/* Lifted offset of logical element [x, y]:
 * ((x / B) * rowlen + y) * B + x % B. */
int64_t moart_lifted_offset(int64_t x, int64_t y, int64_t rowlen,
                            int64_t block);

/* rowmajor has n * rowlen elements, lifted has moart_lifted_count(n, rowlen,
 * block); the buffers must not overlap. Pack writes every lifted element,
 * padding included (as zero). Arguments for which moart_lifted_count gives -1
 * make them do nothing. */
void moart_pack_lifted_f32(const float *rowmajor, float *lifted, int64_t n,
                           int64_t rowlen, int64_t block);
void moart_unpack_lifted_f32(const float *lifted, float *rowmajor, int64_t n,
                             int64_t rowlen, int64_t block);
void moart_pack_lifted_f64(const double *rowmajor, double *lifted, int64_t n,
                           int64_t rowlen, int64_t block);
void moart_unpack_lifted_f64(const double *lifted, double *rowmajor, int64_t n,
                             int64_t rowlen, int64_t block);

/* The same for batch slabs: rowmajor has batch * n * rowlen elements, lifted
 * has moart_lifted_batch_count(batch, n, rowlen, block); slab p goes from
 * rowmajor + p * n * rowlen to lifted + p * moart_lifted_count(n, rowlen,
 * block). batch = 1 is the single-slab function. Arguments for which
 * moart_lifted_batch_count gives -1 make them do nothing. */
void moart_pack_lifted_batch_f32(const float *rowmajor, float *lifted,
                                 int64_t batch, int64_t n, int64_t rowlen,
                                 int64_t block);
void moart_unpack_lifted_batch_f32(const float *lifted, float *rowmajor,
                                   int64_t batch, int64_t n, int64_t rowlen,
                                   int64_t block);
void moart_pack_lifted_batch_f64(const double *rowmajor, double *lifted,
                                 int64_t batch, int64_t n, int64_t rowlen,
                                 int64_t block);
void moart_unpack_lifted_batch_f64(const double *lifted, double *rowmajor,
                                   int64_t batch, int64_t n, int64_t rowlen,
                                   int64_t block);

#ifdef __cplusplus
}
#endif

#endif /* MOART_LAYOUT_H */
