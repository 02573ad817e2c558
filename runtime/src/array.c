/* array.c - the array descriptor: sizes with overflow checks, aligned
 * allocation, creation in row-major or lifted layout (on any axis), and
 * relayout. */
#define _POSIX_C_SOURCE 200809L

#include "moart/array.h"
#include "internal.h"
#include "moart/layout.h"

#include <stdlib.h>
#include <string.h>

size_t moart_dtype_size(moart_dtype dtype) {
  switch (dtype) {
  case MOART_F32:
  case MOART_I32:
    return 4;
  case MOART_F64:
  case MOART_I64:
    return 8;
  case MOART_BF16:
  case MOART_F16:
    return 2;
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
  case MOART_I32:
    return "i32";
  case MOART_BF16:
    return "bf16";
  case MOART_F16:
    return "f16";
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
  moart_layout layout = {MOART_LAYOUT_ROW_MAJOR, 0, 0};
  moart_status status;
  if (!out)
    return MOART_ERR_ARG;
  status = describe(out, dtype, rank, shape, layout);
  return status == MOART_OK ? allocate(out) : status;
}

moart_status moart_array_create_lifted_axis(moart_array *out, moart_dtype dtype,
                                            int rank, const int64_t *shape,
                                            int axis, int64_t block) {
  moart_layout layout = {MOART_LAYOUT_LIFTED, 0, 0};
  moart_status status;
  if (!out)
    return MOART_ERR_ARG;
  layout.block = block;
  layout.axis = axis;
  if (rank < 1 || rank > MOART_MAX_RANK || axis < 0 || axis >= rank ||
      block < 1) {
    memset(out, 0, sizeof *out);
    return rank > MOART_MAX_RANK ? MOART_ERR_RANK : MOART_ERR_LAYOUT;
  }
  status = describe(out, dtype, rank, shape, layout);
  return status == MOART_OK ? allocate(out) : status;
}

moart_status moart_array_create_lifted(moart_array *out, moart_dtype dtype,
                                       int rank, const int64_t *shape,
                                       int64_t block) {
  return moart_array_create_lifted_axis(out, dtype, rank, shape, 0, block);
}

void moart_array_free(moart_array *array) {
  if (!array)
    return;
  moart_free_aligned(array->data);
  memset(array, 0, sizeof *array);
}

/* Product of shape[from..to). Only called when count > 0: then every extent
 * is at least 1, so a partial product cannot exceed count. */
static int64_t extent_product(const moart_array *array, int from, int to) {
  int64_t product = 1;
  for (; from < to; ++from)
    product *= array->shape[from];
  return product;
}

/* The slab count and the lifted row length, for a lifted array with a valid
 * axis and count > 0. */
static int64_t batch_of(const moart_array *array) {
  return extent_product(array, 0, array->layout.axis);
}
static int64_t row_length(const moart_array *array) {
  return extent_product(array, array->layout.axis + 1, array->rank);
}

static int valid_lifted(const moart_array *array) {
  const moart_layout *l = &array->layout;
  return array->rank >= 1 && array->rank <= MOART_MAX_RANK && l->block >= 1 &&
         l->axis >= 0 && l->axis < array->rank;
}

int64_t moart_array_storage_count(const moart_array *array) {
  int64_t lifted;
  if (!array)
    return -1;
  if (array->layout.kind != MOART_LAYOUT_LIFTED)
    return array->count;
  if (!valid_lifted(array))
    return -1;
  if (array->count == 0) /* other extents may be huge: count them apart */
    return 0;
  lifted = moart_lifted_batch_count(batch_of(array),
                                    array->shape[array->layout.axis],
                                    row_length(array), array->layout.block);
  if (lifted < 0 || lifted > max_elements(moart_dtype_size(array->dtype)))
    return -1;
  return lifted;
}

size_t moart_array_bytes(const moart_array *array) {
  int64_t stored = moart_array_storage_count(array);
  return stored < 0 ? 0 : (size_t)stored * moart_dtype_size(array->dtype);
}

/* Logical offset i is slab p = i / (n * rowlen), then row x and column y of
 * that slab; the slabs are stored one lifted slab after the other. */
int64_t moart_array_offset(const moart_array *array, int64_t i) {
  int64_t n, rowlen, slab, within;
  if (array->layout.kind != MOART_LAYOUT_LIFTED)
    return i;
  if (!valid_lifted(array) || array->count <= 0)
    return -1;
  n = array->shape[array->layout.axis];
  rowlen = row_length(array);
  slab = n * rowlen;
  within = i % slab;
  return i / slab * moart_lifted_count(n, rowlen, array->layout.block) +
         moart_lifted_offset(within / rowlen, within % rowlen, rowlen,
                             array->layout.block);
}

/* Row-major storage ignores block and axis. */
static int same_layout(const moart_layout *a, const moart_layout *b) {
  if (a->kind != b->kind)
    return 0;
  return a->kind == MOART_LAYOUT_ROW_MAJOR ||
         (a->block == b->block && a->axis == b->axis);
}

/* Pack a row-major array into a lifted one (unpack = 0) or back. */
static void lift_array(const moart_array *src, moart_array *dst, int unpack) {
  const moart_array *lifted = unpack ? src : dst;
  moart_internal_lift(src->data, dst->data, batch_of(lifted),
                      lifted->shape[lifted->layout.axis], row_length(lifted),
                      lifted->layout.block, moart_dtype_size(src->dtype),
                      unpack);
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
  if (same_layout(&src->layout, &dst->layout)) {
    memcpy(dst->data, src->data, moart_array_bytes(src));
  } else if (src->layout.kind == MOART_LAYOUT_ROW_MAJOR) {
    lift_array(src, dst, 0);
  } else if (dst->layout.kind == MOART_LAYOUT_ROW_MAJOR) {
    lift_array(src, dst, 1);
  } else { /* lifted with a different block or axis: element by element */
    memset(dst->data, 0, moart_array_bytes(dst));
    for (i = 0; i < src->count; ++i)
      memcpy((char *)dst->data + (size_t)moart_array_offset(dst, i) * elem,
             (const char *)src->data +
                 (size_t)moart_array_offset(src, i) * elem,
             elem);
  }
  return MOART_OK;
}
