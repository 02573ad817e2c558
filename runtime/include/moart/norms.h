/* moart/norms.h - how far a kernel's result is from its reference.
 *
 * The result (f32 or f64) is compared with a reference (normally f64) element
 * by element. NaN anywhere, or an infinity the other side does not match,
 * counts as an infinite error: a broken kernel can never pass a tolerance. */
#ifndef MOART_NORMS_H
#define MOART_NORMS_H

#include <stdint.h>

#include "moart/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Relative errors divide by max(|ref|, MOART_REL_FLOOR) so that reference
 * values near zero do not turn round-off into huge relative errors. */
#define MOART_REL_FLOOR 1e-6

typedef struct moart_norms {
  int64_t count;       /* elements compared */
  double max_abs;      /* max |got - ref| (the inf-norm of the error) */
  double max_rel;      /* max |got - ref| / max(|ref|, MOART_REL_FLOOR) */
  double max_ulp;      /* max f32 ULP distance to ref rounded to f32;
                          -1 when the result is not f32 */
  int64_t worst_index; /* first element reaching max_abs; -1 if count is 0 */
  int64_t nonfinite;   /* elements with NaN, or unmatched infinities */
} moart_norms;

/* ULP distance between two floats: how many representable f32 values lie
 * between them (+0 and -0 are 0 apart). INFINITY if either is NaN, or one is
 * infinite and they differ. */
double moart_ulp_distance_f32(float a, float b);

moart_norms moart_norms_f32(const float *got, const double *ref, int64_t count);
moart_norms moart_norms_f64(const double *got, const double *ref,
                            int64_t count);
moart_norms moart_norms_f32_f32(const float *got, const float *ref,
                                int64_t count);

/* Compare two arrays of f32/f64 in any layout (the logical elements are
 * compared). MOART_ERR_SHAPE if the counts differ, MOART_ERR_DTYPE for i64. */
moart_status moart_compare(const moart_array *got, const moart_array *ref,
                           moart_norms *out);

#ifdef __cplusplus
}
#endif

#endif /* MOART_NORMS_H */
