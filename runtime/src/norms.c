/* norms.c - error norms of a result against its reference.
 *
 * For each element pair (got, ref), both read as double:
 *   1. NaN on either side, or an infinity the other side does not equal, is a
 *      non-finite element: every norm becomes +inf;
 *   2. equal values (same-signed infinities included) have zero error;
 *   3. otherwise d = |got - ref|, relative d / max(|ref|, MOART_REL_FLOOR), and
 *      for f32 results the ULP distance to ref rounded to f32.
 * Each norm is the maximum over the elements. */
#include "moart/norms.h"
#include "moart/kernel.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Order-preserving map of a float's bits onto the integers: adjacent floats
 * map to adjacent integers, +0 and -0 both to 0. */
static int64_t ordered(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  if (bits & UINT32_C(0x80000000))
    return -(int64_t)(bits & UINT32_C(0x7fffffff));
  return (int64_t)bits;
}

double moart_ulp_distance_f32(float a, float b) {
  int64_t d;
  if (isnan(a) || isnan(b))
    return INFINITY;
  if (a == b)
    return 0.0;
  if (isinf(a) || isinf(b))
    return INFINITY;
  d = ordered(a) - ordered(b);
  return (double)(d < 0 ? -d : d);
}

/* Round a double to the nearest float without relying on out-of-range
 * conversions: beyond FLT_MAX plus half an ULP the result is infinite. */
static float round_to_f32(double x) {
  const double overflow =
      0x1.ffffffp127; /* halfway between FLT_MAX and 2^128 */
  if (fabs(x) >= overflow)
    return x < 0 ? -INFINITY : INFINITY;
  if (fabs(x) > FLT_MAX)
    return x < 0 ? -FLT_MAX : FLT_MAX;
  return (float)x;
}

static double load(const void *data, moart_dtype dtype, int64_t i) {
  switch (dtype) {
  case MOART_F32:
    return (double)((const float *)data)[i];
  case MOART_BF16:
    return (double)moart_bf16_to_f32(((const uint16_t *)data)[i]);
  case MOART_F16:
    return (double)moart_f16_to_f32(((const uint16_t *)data)[i]);
  default:
    return ((const double *)data)[i];
  }
}

static void worsen(moart_norms *n, int64_t i, double abs_err, double rel_err,
                   double ulp) {
  if (abs_err > n->max_abs) {
    n->max_abs = abs_err;
    n->worst_index = i;
  }
  if (rel_err > n->max_rel)
    n->max_rel = rel_err;
  if (n->max_ulp >= 0 && ulp > n->max_ulp)
    n->max_ulp = ulp;
}

/* got and ref are each MOART_F32, MOART_F64, MOART_BF16 or MOART_F16. */
static moart_norms compare(const void *got, moart_dtype got_type,
                           const void *ref, moart_dtype ref_type,
                           int64_t count) {
  moart_norms n;
  int64_t i;
  n.count = count < 0 ? 0 : count;
  n.max_abs = n.max_rel = 0.0;
  n.max_ulp = got_type == MOART_F32 ? 0.0 : -1.0;
  n.worst_index = count > 0 ? 0 : -1;
  n.nonfinite = 0;
  for (i = 0; i < count; ++i) {
    double g = load(got, got_type, i), r = load(ref, ref_type, i), d;
    if (isnan(g) || isnan(r) || ((isinf(g) || isinf(r)) && g != r)) {
      ++n.nonfinite;
      worsen(&n, i, INFINITY, INFINITY, INFINITY);
      continue;
    }
    if (g == r)
      continue;
    d = fabs(g - r);
    worsen(&n, i, d, d / fmax(fabs(r), MOART_REL_FLOOR),
           got_type == MOART_F32
               ? moart_ulp_distance_f32((float)g, round_to_f32(r))
               : -1.0);
  }
  return n;
}

moart_norms moart_norms_f32(const float *got, const double *ref,
                            int64_t count) {
  return compare(got, MOART_F32, ref, MOART_F64, count);
}

moart_norms moart_norms_f64(const double *got, const double *ref,
                            int64_t count) {
  return compare(got, MOART_F64, ref, MOART_F64, count);
}

moart_norms moart_norms_f32_f32(const float *got, const float *ref,
                                int64_t count) {
  return compare(got, MOART_F32, ref, MOART_F32, count);
}

static int is_float(moart_dtype dtype) {
  return dtype == MOART_F32 || dtype == MOART_F64 || dtype == MOART_BF16 ||
         dtype == MOART_F16;
}

/* A row-major view of a (possibly lifted) array; *copy is set when one had
 * to be allocated. */
static moart_status row_major(const moart_array *a, moart_array *copy,
                              const void **data) {
  moart_status status;
  memset(copy, 0, sizeof *copy);
  *data = a->data;
  if (a->layout.kind == MOART_LAYOUT_ROW_MAJOR)
    return MOART_OK;
  status = moart_array_create(copy, a->dtype, a->rank, a->shape);
  if (status == MOART_OK)
    status = moart_array_relayout(a, copy);
  *data = copy->data;
  return status;
}

moart_status moart_compare(const moart_array *got, const moart_array *ref,
                           moart_norms *out) {
  moart_array got_copy, ref_copy;
  const void *got_data, *ref_data;
  moart_status status;
  memset(&got_copy, 0, sizeof got_copy);
  memset(&ref_copy, 0, sizeof ref_copy);
  if (!got || !ref || !out || (!got->data && got->count) ||
      (!ref->data && ref->count))
    return MOART_ERR_ARG;
  if (!is_float(got->dtype) || !is_float(ref->dtype))
    return MOART_ERR_DTYPE;
  if (got->count != ref->count)
    return MOART_ERR_SHAPE;
  status = row_major(got, &got_copy, &got_data);
  if (status == MOART_OK)
    status = row_major(ref, &ref_copy, &ref_data);
  if (status == MOART_OK)
    *out = compare(got_data, got->dtype, ref_data, ref->dtype, got->count);
  moart_array_free(&got_copy);
  moart_array_free(&ref_copy);
  return status;
}
