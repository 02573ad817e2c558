/* decode-check: runs the decode-attention kernel that moac_add_kernel generated from decode.moa and checks
 * it against softmax(q·Kᵀ/√dk)·V computed here, directly and in double precision. The inputs are libmoart's
 * seeded fill (q, K, V are streams 0, 1, 2, as `moac run` and `moac check` use them). The same program
 * serves every target: built with -fopenacc it wraps the call in a data region (docs/abi.md).
 * KERNEL and KERNEL_HEADER name another kernel of decode.moa (moac_add_kernel's FUNCTION_NAME).
 * Usage: decode-check [n dk dv]; exit status 0 when the error is within tolerance. */
#ifndef KERNEL
#define KERNEL moa_decode
#define KERNEL_HEADER "decode.h"
#endif
#include KERNEL_HEADER

#include <moart/moart.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* The input as the kernel wants it stored: row-major, or lifted with block B (the header says which). */
static float *storedAs(const moart_array *rowmajor, int64_t block, moart_array *owned, int64_t *count) {
  if (block == 0) {
    *count = rowmajor->count;
    return (float *)rowmajor->data;
  }
  if (moart_array_create_lifted(owned, MOART_F32, rowmajor->rank, rowmajor->shape, block) != MOART_OK ||
      moart_array_relayout(rowmajor, owned) != MOART_OK) {
    fprintf(stderr, "decode-check: cannot lay out an input lifted\n");
    exit(2);
  }
  *count = moart_array_storage_count(owned);
  return (float *)owned->data;
}

int main(int argc, char **argv) {
  int64_t n = 1000, dk = 64, dv = 48;
  if (argc == 4) {
    n = atoll(argv[1]);
    dk = atoll(argv[2]);
    dv = atoll(argv[3]);
  }
  const int64_t qShape[1] = {dk}, kShape[2] = {n, dk}, vShape[2] = {n, dv};
  moart_array q, K, V, qLifted = {0}, kLifted = {0}, vLifted = {0};
  if (moart_array_create(&q, MOART_F32, 1, qShape) != MOART_OK ||
      moart_array_create(&K, MOART_F32, 2, kShape) != MOART_OK ||
      moart_array_create(&V, MOART_F32, 2, vShape) != MOART_OK) {
    fprintf(stderr, "decode-check: out of memory\n");
    return 2;
  }
  moart_fill_uniform(&q, 0, 0);
  moart_fill_uniform(&K, 0, 1);
  moart_fill_uniform(&V, 0, 2);

  int64_t qCount, kCount, vCount;
  const float *qs = storedAs(&q, CAT(KERNEL, _q_LIFTED_BLOCK), &qLifted, &qCount);
  const float *ks = storedAs(&K, CAT(KERNEL, _K_LIFTED_BLOCK), &kLifted, &kCount);
  const float *vs = storedAs(&V, CAT(KERNEL, _V_LIFTED_BLOCK), &vLifted, &vCount);
  float *o = calloc((size_t)dv, sizeof(float));
  size_t wsBytes = CAT(KERNEL, _workspace_bytes)(n, dk, dv);
  char *ws = moart_alloc_aligned(wsBytes > 0 ? wsBytes : 64);
  int status;
#ifdef _OPENACC
#pragma acc data copyin(qs[0:qCount], ks[0:kCount], vs[0:vCount]) copyout(o[0:dv]) create(ws[0:wsBytes])
  { status = KERNEL(n, dk, dv, qs, ks, vs, o, ws); }
#else
  (void)qCount;
  (void)kCount;
  (void)vCount;
  status = KERNEL(n, dk, dv, qs, ks, vs, o, ws);
#endif
  if (status != 0) {
    fprintf(stderr, "decode-check: the kernel returned %d\n", status);
    return 1;
  }

  /* The reference: scores s = q·Kᵀ/√dk, p = softmax(s), o = p·V, in double. */
  const float *qd = q.data, *kd = K.data, *vd = V.data;
  double *s = malloc((size_t)n * sizeof(double));
  double m = -INFINITY, sum = 0, maxRef = 0, err = 0;
  for (int64_t l = 0; l < n; ++l) {
    double dot = 0;
    for (int64_t j = 0; j < dk; ++j)
      dot += (double)qd[j] * kd[l * dk + j];
    s[l] = dot / sqrt((double)dk);
    m = s[l] > m ? s[l] : m;
  }
  for (int64_t l = 0; l < n; ++l)
    sum += exp(s[l] - m);
  for (int64_t i = 0; i < dv; ++i) {
    double ref = 0;
    for (int64_t l = 0; l < n; ++l)
      ref += exp(s[l] - m) / sum * vd[l * dv + i];
    maxRef = fabs(ref) > maxRef ? fabs(ref) : maxRef;
    err = fabs(o[i] - ref) > err ? fabs(o[i] - ref) : err;
  }
  /* f32 rounding over the n + dk terms one output goes through, as `moac check` allows. */
  double tolerance = 4 * ldexp(1.0, -24) * (double)(n + dk + 1) * maxRef;
  int ok = err <= tolerance;
#if defined(_OPENACC)
  const char *target = "openacc";
#elif defined(_OPENMP)
  const char *target = "openmp";
#else
  const char *target = "c";
#endif
  printf("decode (%s) n=%lld dk=%lld dv=%lld: max error %.3g, tolerance %.3g: %s\n", target, (long long)n,
         (long long)dk, (long long)dv, err, tolerance, ok ? "ok" : "FAIL");

  free(s);
  free(o);
  moart_free_aligned(ws);
  moart_array_free(&q);
  moart_array_free(&K);
  moart_array_free(&V);
  moart_array_free(&qLifted);
  moart_array_free(&kLifted);
  moart_array_free(&vLifted);
  return ok ? 0 : 1;
}
