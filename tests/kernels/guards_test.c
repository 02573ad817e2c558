/* guards_test.c - calls the kernel moac generates from guards.moa with dims that break each run-time
 * shape guard, and checks that it returns MOART_ERR_SHAPE and writes nothing; with dims that satisfy
 * them it checks the results against plain loops. Every array is allocated at exactly the size its
 * dims give, so in the sanitizer build (scripts/test-sanitizers) an out-of-bounds read of an unguarded
 * kernel is an AddressSanitizer report. Exit 0 when every check passes. */
#include "guards.h"

#include "moart/status.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "guards_test: FAILED %s: ", #cond);                                          \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static float *filled(int64_t count, float scale) {
  float *a = malloc(sizeof(float) * (size_t)(count > 0 ? count : 1));
  int64_t i;
  if (!a) {
    fprintf(stderr, "guards_test: out of memory\n");
    exit(2);
  }
  for (i = 0; i < count; ++i)
    a[i] = scale * (float)((i * 7) % 11 - 5);
  return a;
}

/* Runs the kernel on dims (hq, hkv, m, n, dk, w); returns its status. Outputs are pre-filled with a
 * sentinel; when the status is not MOART_OK, they must still hold it. */
static int run(int64_t hq, int64_t hkv, int64_t m, int64_t n, int64_t dk, int64_t w, int checkValues) {
  int64_t groups = hq / hkv, sCount = hkv * groups * n, i, h, g, l, k;
  float *Q = filled(hq * dk, 0.5f), *K = filled(hkv * n * dk, 0.25f), *x = filled(n, 1.0f);
  float *S = filled(sCount, 0.0f), *T = filled(m, 0.0f), E = -777.0f, W = -777.0f;
  size_t wsBytes = moa_guards_workspace_bytes(hq, hkv, m, n, dk, w);
  /* SIZE_MAX: the dims are rejected (docs/abi.md); the kernel must refuse them whatever it is given */
  void *ws = malloc(wsBytes && wsBytes != SIZE_MAX ? wsBytes : 1);
  int status;
  for (i = 0; i < sCount; ++i)
    S[i] = -777.0f;
  for (i = 0; i < m; ++i)
    T[i] = -777.0f;
  status = moa_guards(hq, hkv, m, n, dk, w, Q, K, x, S, T, &E, &W, ws);
  if (status != MOART_OK) {
    for (i = 0; i < sCount; ++i)
      CHECK(S[i] == -777.0f, "S[%lld] written although the kernel failed", (long long)i);
    for (i = 0; i < m; ++i)
      CHECK(T[i] == -777.0f, "T[%lld] written although the kernel failed", (long long)i);
    CHECK(E == -777.0f, "E written although the kernel failed");
    CHECK(W == -777.0f, "W written although the kernel failed");
  } else if (checkValues) {
    float want = 0;
    for (i = n - w; i < n; ++i)
      want += x[i];
    CHECK(W == want, "W = %g, expected %g", W, want);
    for (h = 0; h < hkv; ++h)
      for (g = 0; g < groups; ++g)
        for (l = 0; l < n; ++l) {
          double want = 0;
          for (k = 0; k < dk; ++k)
            want += (double)Q[(h * groups + g) * dk + k] * K[(h * n + l) * dk + k];
          CHECK(fabs(S[(h * groups + g) * n + l] - want) < 1e-4, "S[%lld %lld %lld] = %g, expected %g",
                (long long)h, (long long)g, (long long)l, S[(h * groups + g) * n + l], want);
        }
    for (i = 0; i < m; ++i)
      CHECK(T[i] == x[i], "T[%lld] = %g, expected %g", (long long)i, T[i], x[i]);
    CHECK(E == x[3], "E = %g, expected %g", E, x[3]);
  }
  free(Q);
  free(K);
  free(x);
  free(S);
  free(T);
  free(ws);
  return status;
}

int main(void) {
  int status;
  status = run(4, 2, 2, 5, 3, 2, 1);
  CHECK(status == MOART_OK, "dims that satisfy every guard: status %d", status);
  status = run(6, 3, 5, 5, 2, 5, 1);
  CHECK(status == MOART_OK, "dims on the edge of every guard (m = n): status %d", status);
  /* hq = 3 is no multiple of hkv = 2: the reshape would drop a query head */
  status = run(3, 2, 2, 5, 3, 2, 0);
  CHECK(status == MOART_ERR_SHAPE, "hq not divisible by hkv: status %d, expected MOART_ERR_SHAPE", status);
  /* m = 6 > n = 5: take would read x[5] */
  status = run(4, 2, 6, 5, 3, 2, 0);
  CHECK(status == MOART_ERR_SHAPE, "take longer than x: status %d, expected MOART_ERR_SHAPE", status);
  /* n = 3: <3> psi x would read x[3] */
  status = run(4, 2, 2, 3, 3, 2, 0);
  CHECK(status == MOART_ERR_SHAPE, "psi index past x: status %d, expected MOART_ERR_SHAPE", status);
  /* w = 6 > n = 5: the assumption w <= n does not hold */
  status = run(4, 2, 2, 5, 3, 6, 0);
  CHECK(status == MOART_ERR_SHAPE, "assumption w <= n broken: status %d, expected MOART_ERR_SHAPE", status);
  if (failures) {
    fprintf(stderr, "guards_test: %d check(s) failed\n", failures);
    return 1;
  }
  printf("guards_test: all checks passed\n");
  return 0;
}
