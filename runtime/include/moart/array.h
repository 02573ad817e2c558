/* moart/array.h - the array descriptor: element type, shape, layout, storage.
 *
 * An array is logically row-major (γ offsets, see MOA-PRIMER.md). Its storage
 * is either row-major too, or *lifted* on an axis a: that axis x of extent n
 * is split by a block B and logical [p..., x, y...] (p: the a indices before
 * x) lives at physical [p..., x / B, y..., x % B] of a buffer shaped
 * [p..., ceil(n/B), y..., B] - the coalescing transform T of the paper,
 * applied to each slab p on its own. Padding elements (x >= n) are zero. With
 * rowlen the product of the extents after a and γ the row-major offset, the
 * element's storage offset is
 *   ((γ(p) * ceil(n/B) + x / B) * rowlen + γ(y)) * B + x % B.
 * a = 0 is the plain lifted layout: one slab, the leading axis split. */
#ifndef MOART_ARRAY_H
#define MOART_ARRAY_H

#include <stddef.h>
#include <stdint.h>

#include "moart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MOART_MAX_RANK 8
#define MOART_ALIGNMENT 64

typedef enum moart_dtype {
  MOART_F32 = 1, /* IEEE-754 binary32 */
  MOART_F64 = 2, /* IEEE-754 binary64 */
  MOART_I64 = 3, /* two's complement 64-bit integer */
  MOART_BF16 = 4, /* bfloat16, held as uint16_t bit patterns (the top half of a binary32) */
  MOART_F16 = 5,  /* IEEE-754 binary16, held as uint16_t bit patterns */
  MOART_I32 = 6   /* two's complement 32-bit integer */
} moart_dtype;

typedef enum moart_layout_kind {
  MOART_LAYOUT_ROW_MAJOR = 0,
  MOART_LAYOUT_LIFTED = 1 /* layout.axis split by layout.block, see above */
} moart_layout_kind;

typedef struct moart_layout {
  moart_layout_kind kind;
  int64_t block; /* B for MOART_LAYOUT_LIFTED (>= 1); 0 for row-major */
  int axis; /* the lifted axis, 0 <= axis < rank; 0 for row-major. Last so
               that {kind, block} initialisers keep meaning axis 0. */
} moart_layout;

typedef struct moart_array {
  moart_dtype dtype;
  int rank;                      /* 0..MOART_MAX_RANK; rank 0 is a scalar */
  int64_t shape[MOART_MAX_RANK]; /* logical extents; entries >= rank are 0 */
  moart_layout layout;
  void *data;    /* MOART_ALIGNMENT-aligned storage */
  int64_t count; /* logical element count, product of shape */
} moart_array;

/* Bytes per element: 4, 8, 8, 2, 2, 4; 0 for an unknown dtype. */
size_t moart_dtype_size(moart_dtype dtype);
/* "f32", "f64", "i64", "bf16", "f16", "i32"; "?" for an unknown dtype. */
const char *moart_dtype_name(moart_dtype dtype);

/* Product of the extents into *count (1 for rank 0). MOART_ERR_RANK,
 * MOART_ERR_ARG for a negative extent, MOART_ERR_OVERFLOW if the product or its
 * byte size (for elem_size > 0) exceeds INT64_MAX or SIZE_MAX. */
moart_status moart_shape_count(int rank, const int64_t *shape, size_t elem_size,
                               int64_t *count);

/* MOART_ALIGNMENT-aligned, zero-filled memory; NULL on failure. bytes == 0
 * still returns a unique pointer. Release with moart_free_aligned. */
void *moart_alloc_aligned(size_t bytes);
void moart_free_aligned(void *ptr);

/* Allocate a zero-filled row-major array. On failure *out is all zero. */
moart_status moart_array_create(moart_array *out, moart_dtype dtype, int rank,
                                const int64_t *shape);
/* Allocate a zero-filled array lifted on axis (rank >= 1, 0 <= axis < rank,
 * block >= 1; MOART_ERR_LAYOUT otherwise). On failure *out is all zero. */
moart_status moart_array_create_lifted_axis(moart_array *out, moart_dtype dtype,
                                            int rank, const int64_t *shape,
                                            int axis, int64_t block);
/* The same on axis 0, the leading axis. */
moart_status moart_array_create_lifted(moart_array *out, moart_dtype dtype,
                                       int rank, const int64_t *shape,
                                       int64_t block);
/* Free the storage and zero the descriptor; NULL and zeroed arrays are fine. */
void moart_array_free(moart_array *array);

/* Elements actually stored: count for row-major, batch*ceil(n/B)*B*rowlen
 * for lifted (batch: product of the extents before the axis); 0 if any extent
 * is 0; -1 for an invalid layout or if it overflows. */
int64_t moart_array_storage_count(const moart_array *array);
/* Bytes of storage: storage count times element size. */
size_t moart_array_bytes(const moart_array *array);
/* Storage offset (in elements) of the element at logical row-major offset i. */
int64_t moart_array_offset(const moart_array *array, int64_t i);

/* Copy src into dst, converting between layouts. Both must exist with equal
 * dtype and shape (MOART_ERR_DTYPE / MOART_ERR_SHAPE otherwise). */
moart_status moart_array_relayout(const moart_array *src, moart_array *dst);

#ifdef __cplusplus
}
#endif

#endif /* MOART_ARRAY_H */
