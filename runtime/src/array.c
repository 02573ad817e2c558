/* array.c - the array descriptor: sizes with overflow checks, aligned
 * allocation, creation in row-major or lifted layout, and relayout. */
#define _POSIX_C_SOURCE 200809L

#include "moart/array.h"
#include "internal.h"
#include "moart/layout.h"

#include <stdlib.h>
#include <string.h>

size_t moart_dtype_size(moart_dtype dtype) {
  switch (dtype) {
  case MOART_F32:
    return 4;
  case MOART_F64:
  case MOART_I64:
    return 8;
  }
  return 0;
}

const char *moart_dtype_name(moart_dtype dtype) {
  switch (dtype) {
  case MOART_F32:
    return "f32";
  case MOART_F64:
    return "f64";
  case MOART_I64:
    return "i64";
  }
  return "?";
}

/* The largest element count whose bytes fit both int64_t and size_t. */
static int64_t max_elements(size_t elem_size) {
  uint64_t limit = (uint64_t)INT64_MAX;
  if ((uint64_t)SIZE_MAX < limit)
    limit = (uint64_t)SIZE_MAX;
  return elem_size ? (int64_t)(limit / elem_size) : INT64_MAX;
}

moart_status moart_shape_count(int rank, const int64_t *shape, size_t elem_size,
                               int64_t *count) {
  int64_t total = 1, limit = max_elements(elem_size);
  int k, zero = 0, overflow = 0;
  if (!count)
    return MOART_ERR_ARG;
  *count = 0;
  if (rank < 0 || rank > MOART_MAX_RANK)
    return MOART_ERR_RANK;
  if (rank > 0 && !shape)
    return MOART_ERR_ARG;
  /* A zero extent makes the product 0 whatever the other extents are. */
  for (k = 0; k < rank; ++k) {
    if (shape[k] < 0)
      return MOART_ERR_ARG;
    if (shape[k] == 0)
      zero = 1;
  }
  if (zero)
    return MOART_OK;
  for (k = 0; k < rank; ++k) {
    if (total > limit / shape[k])
      overflow = 1;
    else
      total *= shape[k];
  }
  if (overflow)
    return MOART_ERR_OVERFLOW;
  *count = total;
  return MOART_OK;
}

void *moart_alloc_aligned(size_t bytes) {
  void *ptr = NULL;
  if (bytes == 0)
    bytes = MOART_ALIGNMENT;
  if (posix_memalign(&ptr, MOART_ALIGNMENT, bytes) != 0)
    return NULL;
  memset(ptr, 0, bytes);
  return ptr;
}

void moart_free_aligned(void *ptr) { free(ptr); }

/* Fill in everything but the storage; *out is zero on failure. */
static moart_status describe(moart_array *out, moart_dtype dtype, int rank,
                             const int64_t *shape, moart_layout layout) {
  size_t elem = moart_dtype_size(dtype);
  int64_t count;
  moart_status status;
  int k;
  memset(out, 0, sizeof *out);
  if (elem == 0)
    return MOART_ERR_DTYPE;
  status = moart_shape_count(rank, shape, elem, &count);
  if (status != MOART_OK)
    return status;
  out->dtype = dtype;
  out->rank = rank;
  for (k = 0; k < rank; ++k)
    out->shape[k] = shape[k];
  out->layout = layout;
  out->count = count;
  if (moart_array_storage_count(out) < 0) {
    memset(out, 0, sizeof *out);
    return MOART_ERR_OVERFLOW;
  }
  return MOART_OK;
}

static moart_status allocate(moart_array *out) {
  out->data = moart_alloc_aligned(moart_array_bytes(out));
  if (!out->data) {
    memset(out, 0, sizeof *out);
    return MOART_ERR_NOMEM;
  }
  return MOART_OK;
}

moart_status moart_array_create(moart_array *out, moart_dtype dtype, int rank,
                                const int64_t *shape) {
  moart_layout layout = {MOART_LAYOUT_ROW_MAJOR, 0};
  moart_status status;
  if (!out)
    return MOART_ERR_ARG;
  status = describe(out, dtype, rank, shape, layout);
  return status == MOART_OK ? allocate(out) : status;
}

moart_status moart_array_create_lifted(moart_array *out, moart_dtype dtype,
                                       int rank, const int64_t *shape,
                                       int64_t block) {
  moart_layout layout = {MOART_LAYOUT_LIFTED, 0};
  moart_status status;
  if (!out)
    return MOART_ERR_ARG;
  layout.block = block;
  if (rank < 1 || block < 1) {
    memset(out, 0, sizeof *out);
    return rank > MOART_MAX_RANK ? MOART_ERR_RANK : MOART_ERR_LAYOUT;
  }
  status = describe(out, dtype, rank, shape, layout);
  return status == MOART_OK ? allocate(out) : status;
}

void moart_array_free(moart_array *array) {
  if (!array)
    return;
  moart_free_aligned(array->data);
  memset(array, 0, sizeof *array);
}

/* Product of the extents after the leading one (the lifted row length). */
static int64_t row_length(const moart_array *array) {
  return array->shape[0] ? array->count / array->shape[0] : 0;
}

int64_t moart_array_storage_count(const moart_array *array) {
  int64_t lifted;
  if (!array)
    return -1;
  if (array->layout.kind != MOART_LAYOUT_LIFTED)
    return array->count;
  if (array->rank < 1 || array->layout.block < 1)
    return -1;
  if (array->shape[0] == 0) /* other extents may be huge: count them apart */
    return 0;
  lifted = moart_lifted_count(array->shape[0], row_length(array),
                              array->layout.block);
  if (lifted < 0 || lifted > max_elements(moart_dtype_size(array->dtype)))
    return -1;
  return lifted;
}

size_t moart_array_bytes(const moart_array *array) {
  int64_t stored = moart_array_storage_count(array);
  return stored < 0 ? 0 : (size_t)stored * moart_dtype_size(array->dtype);
}

int64_t moart_array_offset(const moart_array *array, int64_t i) {
  int64_t rowlen;
  if (array->layout.kind != MOART_LAYOUT_LIFTED)
    return i;
  rowlen = row_length(array);
  if (rowlen <= 0)
    return -1;
  return moart_lifted_offset(i / rowlen, i % rowlen, rowlen,
                             array->layout.block);
}

moart_status moart_array_relayout(const moart_array *src, moart_array *dst) {
  size_t elem;
  int64_t i;
  int k;
  if (!src || !dst || (!src->data && src->count) || (!dst->data && dst->count))
    return MOART_ERR_ARG;
  if (src->dtype != dst->dtype)
    return MOART_ERR_DTYPE;
  if (src->rank != dst->rank)
    return MOART_ERR_SHAPE;
  for (k = 0; k < src->rank; ++k)
    if (src->shape[k] != dst->shape[k])
      return MOART_ERR_SHAPE;
  if (moart_array_storage_count(src) < 0 || moart_array_storage_count(dst) < 0)
    return MOART_ERR_LAYOUT;
  if (src->count == 0)
    return MOART_OK;
  elem = moart_dtype_size(src->dtype);
  if (src->layout.kind == dst->layout.kind &&
      src->layout.block == dst->layout.block) {
    memcpy(dst->data, src->data, moart_array_bytes(src));
  } else if (src->layout.kind == MOART_LAYOUT_ROW_MAJOR) {
    moart_internal_lift(src->data, dst->data, dst->shape[0], row_length(dst),
                        dst->layout.block, elem, 0);
  } else if (dst->layout.kind == MOART_LAYOUT_ROW_MAJOR) {
    moart_internal_lift(src->data, dst->data, src->shape[0], row_length(src),
                        src->layout.block, elem, 1);
  } else { /* lifted with two different blocks: element by element */
    memset(dst->data, 0, moart_array_bytes(dst));
    for (i = 0; i < src->count; ++i)
      memcpy((char *)dst->data + (size_t)moart_array_offset(dst, i) * elem,
             (const char *)src->data +
                 (size_t)moart_array_offset(src, i) * elem,
             elem);
  }
  return MOART_OK;
}
