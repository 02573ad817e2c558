/* layout.c - pack and unpack between row-major and the lifted layout
 * T([x, y]) = [x / B, y, x % B] (MOA-PRIMER.md, "ONF: dimension lifting").
 *
 * Algorithm (both directions walk the lifted buffer in storage order):
 *   1. for each group g < ceil(n/B), each y < rowlen, each lane l < B:
 *   2.   x = g*B + l is the logical row; lifted offset (g*rowlen + y)*B + l;
 *   3.   x < n maps to row-major offset x*rowlen + y, x >= n is zero padding.
 */
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

void moart_internal_lift(const void *src, void *dst, int64_t n, int64_t rowlen,
                         int64_t block, size_t elem_size, int unpack) {
  switch (elem_size) {
  case 4:
    lift((const char *)src, (char *)dst, n, rowlen, block, 4, unpack);
    break;
  case 8:
    lift((const char *)src, (char *)dst, n, rowlen, block, 8, unpack);
    break;
  default:
    lift((const char *)src, (char *)dst, n, rowlen, block, elem_size, unpack);
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
