/* big_sum_test.c N - runs the kernels moac generates from big-sum.moa (the default split reduction,
 * big_sum_split, and one plain loop, big_sum_serial: --schedule threads=1) on a vector of N f32 values
 * and checks both outputs exactly.
 *
 * The values are chosen so that every partial sum is exact in f32 and an index that went wrong is seen:
 * x[i] = 0.25 for i < 8, 1 for the six elements n-7 .. n-2, 3 for the last, 0 elsewhere, so +/ x = 11
 * and max/ x = 3. With N = 2^31 + 7 the seven last elements sit past INT32_MAX: a kernel that computed
 * their offsets in 32 bits would read elsewhere (or crash) and miss them.
 *
 * N = 2^31 + 7 needs 8.6 GB of address space; the array is calloc'ed, so the zeros stay untouched pages
 * of the kernel's reads. ctest runs it with N = 2^31 + 7 only when MOAC_BIG_TESTS=1 (exit 77, skipped,
 * otherwise); a small N always runs. Exit 0 when both kernels agree with the expected values. */
#include "big_sum_serial.h"
#include "big_sum_split.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int (*kernel_fn)(int64_t, const float *, float *, float *, void *);
typedef size_t (*workspace_fn)(int64_t);

static double seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int check(const char *name, kernel_fn kernel, workspace_fn workspace, int64_t n, const float *x) {
  float s = -1, m = -1;
  size_t bytes = workspace(n);
  void *ws = malloc(bytes ? bytes : 1);
  double start = seconds();
  int status;
  if (!ws) {
    fprintf(stderr, "big_sum_test: cannot allocate %zu bytes of workspace\n", bytes);
    return 0;
  }
  status = kernel(n, x, &s, &m, ws);
  printf("%s: n = %lld, status %d, +/ x = %.9g, max/ x = %.9g, %.2f s\n", name, (long long)n, status,
         (double)s, (double)m, seconds() - start);
  free(ws);
  if (status != 0 || s != 11.0f || m != 3.0f) {
    fprintf(stderr, "big_sum_test: %s FAILED: expected status 0, +/ x = 11, max/ x = 3\n", name);
    return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  int64_t n, i;
  float *x;
  int ok;
  if (argc != 2 || (n = strtoll(argv[1], NULL, 10)) < 15) {
    fprintf(stderr, "usage: big_sum_test N (N >= 15)\n");
    return 2;
  }
  if (n > INT32_MAX && (!getenv("MOAC_BIG_TESTS") || strcmp(getenv("MOAC_BIG_TESTS"), "1") != 0)) {
    printf("big_sum_test: skipped (n = %lld needs %.1f GB: set MOAC_BIG_TESTS=1 to run it)\n", (long long)n,
           4e-9 * (double)n);
    return 77;
  }
  x = calloc((size_t)n, sizeof(float));
  if (!x) {
    fprintf(stderr, "big_sum_test: cannot allocate %lld floats\n", (long long)n);
    return 1;
  }
  for (i = 0; i < 8; ++i)
    x[i] = 0.25f;
  for (i = n - 7; i < n - 1; ++i)
    x[i] = 1.0f;
  x[n - 1] = 3.0f;
  ok = check("split (default schedule)", moa_big_sum_split, moa_big_sum_split_workspace_bytes, n, x);
  ok &= check("serial (threads=1)", moa_big_sum_serial, moa_big_sum_serial_workspace_bytes, n, x);
  free(x);
  return ok ? 0 : 1;
}
