/* layout.c - pack and unpack between row-major and the lifted layout
 * T([x, y]) = [x / B, y, x % B] (MOA-PRIMER.md, "ONF: dimension lifting").
 *
 * Algorithm (both directions walk the lifted buffer in storage order):
 *   1. for each group g < ceil(n/B), each y < rowlen, each lane l < B:
 *   2.   x = g*B + l is the logical row; lifted offset (g*rowlen + y)*B + l;
 *   3.   x < n maps to row-major offset x*rowlen + y, x >= n is zero padding.
 * A batch of slabs (an array lifted on an axis after the first) is the same
 * walk once per slab: slab p is n*rowlen elements at p*n*rowlen row-major and
 * moart_lifted_count(n, rowlen, B) elements at p times that count lifted. */
#include "moart/layout.h"
#include "internal.h"

#include <string.h>

int64_t moart_lifted_count(int64_t n, int64_t rowlen, int64_t block) {
  int64_t groups;
  if (n < 0 || rowlen < 0 || block < 1)
    return -1;
  groups = n / block + (n % block != 0);
  if (groups == 0 || rowlen == 0)
    return 0;
  if (groups > INT64_MAX / block || groups * block > INT64_MAX / rowlen)
    return -1;
  return groups * block * rowlen;
}

int64_t moart_lifted_batch_count(int64_t batch, int64_t n, int64_t rowlen,
                                 int64_t block) {
  int64_t slab = moart_lifted_count(n, rowlen, block);
  if (batch < 0 || slab < 0)
    return -1;
  if (batch == 0 || slab == 0) /* the other factor may be huge: it is unused */
    return 0;
  return batch > INT64_MAX / slab ? -1 : batch * slab;
}

int64_t moart_lifted_offset(int64_t x, int64_t y, int64_t rowlen,
                            int64_t block) {
  return ((x / block) * rowlen + y) * block + x % block;
}

/* The element size is a parameter, but the typed wrappers pass a constant so
 * the compiler turns each memcpy into one load and store. */
static inline void lift(const char *src, char *dst, int64_t n, int64_t rowlen,
                        int64_t block, size_t elem, int unpack) {
  int64_t groups, g, y, l, lifted = 0;
  if (moart_lifted_count(n, rowlen, block) < 0)
    return;
  groups = n / block + (n % block != 0);
  for (g = 0; g < groups; ++g) {
    for (y = 0; y < rowlen; ++y) {
      for (l = 0; l < block; ++l, ++lifted) {
        int64_t x = g * block + l;
        size_t at = (size_t)lifted * elem;
        if (x < n && unpack)
          memcpy(dst + (size_t)(x * rowlen + y) * elem, src + at, elem);
        else if (x < n)
          memcpy(dst + at, src + (size_t)(x * rowlen + y) * elem, elem);
        else if (!unpack)
          memset(dst + at, 0, elem);
      }
    }
  }
}

/* One lift per slab. The batch count bounds both buffers, so once it is
 * valid no slab offset below can overflow. */
static inline void lift_batch(const char *src, char *dst, int64_t batch,
                              int64_t n, int64_t rowlen, int64_t block,
                              size_t elem, int unpack) {
  size_t rows = (size_t)(n * rowlen) * elem, lifted, from, to;
  int64_t p;
  if (moart_lifted_batch_count(batch, n, rowlen, block) <= 0)
    return;
  lifted = (size_t)moart_lifted_count(n, rowlen, block) * elem;
  from = unpack ? lifted : rows;
  to = unpack ? rows : lifted;
  for (p = 0; p < batch; ++p)
    lift(src + (size_t)p * from, dst + (size_t)p * to, n, rowlen, block, elem,
         unpack);
}

void moart_internal_lift(const void *src, void *dst, int64_t batch, int64_t n,
                         int64_t rowlen, int64_t block, size_t elem_size,
                         int unpack) {
  switch (elem_size) {
  case 4:
    lift_batch((const char *)src, (char *)dst, batch, n, rowlen, block, 4,
               unpack);
    break;
  case 8:
    lift_batch((const char *)src, (char *)dst, batch, n, rowlen, block, 8,
               unpack);
    break;
  default:
    lift_batch((const char *)src, (char *)dst, batch, n, rowlen, block,
               elem_size, unpack);
  }
}

void moart_pack_lifted_f32(const float *rowmajor, float *lifted, int64_t n,
                           int64_t rowlen, int64_t block) {
  lift((const char *)rowmajor, (char *)lifted, n, rowlen, block, sizeof(float),
       0);
}

void moart_unpack_lifted_f32(const float *lifted, float *rowmajor, int64_t n,
                             int64_t rowlen, int64_t block) {
  lift((const char *)lifted, (char *)rowmajor, n, rowlen, block, sizeof(float),
       1);
}

void moart_pack_lifted_f64(const double *rowmajor, double *lifted, int64_t n,
                           int64_t rowlen, int64_t block) {
  lift((const char *)rowmajor, (char *)lifted, n, rowlen, block, sizeof(double),
       0);
}

void moart_unpack_lifted_f64(const double *lifted, double *rowmajor, int64_t n,
                             int64_t rowlen, int64_t block) {
  lift((const char *)lifted, (char *)rowmajor, n, rowlen, block, sizeof(double),
       1);
}

void moart_pack_lifted_batch_f32(const float *rowmajor, float *lifted,
                                 int64_t batch, int64_t n, int64_t rowlen,
                                 int64_t block) {
  lift_batch((const char *)rowmajor, (char *)lifted, batch, n, rowlen, block,
             sizeof(float), 0);
}

void moart_unpack_lifted_batch_f32(const float *lifted, float *rowmajor,
                                   int64_t batch, int64_t n, int64_t rowlen,
                                   int64_t block) {
  lift_batch((const char *)lifted, (char *)rowmajor, batch, n, rowlen, block,
             sizeof(float), 1);
}

void moart_pack_lifted_batch_f64(const double *rowmajor, double *lifted,
                                 int64_t batch, int64_t n, int64_t rowlen,
                                 int64_t block) {
  lift_batch((const char *)rowmajor, (char *)lifted, batch, n, rowlen, block,
             sizeof(double), 0);
}

void moart_unpack_lifted_batch_f64(const double *lifted, double *rowmajor,
                                   int64_t batch, int64_t n, int64_t rowlen,
                                   int64_t block) {
  lift_batch((const char *)lifted, (char *)rowmajor, batch, n, rowlen, block,
             sizeof(double), 1);
}
