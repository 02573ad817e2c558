/* nan_max_test.c N - runs one kernel moac generates from nan-max.moa (KERNEL, one per target and
 * schedule: the build compiles this file once for each) on vectors of N f32 values and checks the
 * language's rule for max and min: NaN propagates wherever it sits (the first element, one inside a
 * later chunk of the split reduction, the last), and max/ of -0 and +0 is +0, min/ -0, in any order.
 * Exit 0 when every case holds. */
#include KERNEL_HEADER

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

static void expect(int ok, const char *what, int64_t at) {
  if (!ok) {
    fprintf(stderr, "nan_max_test (%s): FAILED: %s (special element at %lld)\n", KERNEL_NAME, what, (long long)at);
    ++failures;
  }
}

/* Runs the kernel on x (y = 1 everywhere); returns max/ x and min/ x, checks e and f elementwise. */
static void run(int64_t n, const float *x, float *m, float *l, int64_t at) {
  float *y = malloc((size_t)n * sizeof(float)), *e = malloc((size_t)n * sizeof(float)),
        *f = malloc((size_t)n * sizeof(float));
  size_t bytes = KERNEL_WORKSPACE(n);
  void *ws = malloc(bytes ? bytes : 1);
  int64_t i;
  if (!y || !e || !f || !ws) {
    fprintf(stderr, "nan_max_test: out of memory\n");
    exit(1);
  }
  for (i = 0; i < n; ++i)
    y[i] = 1.0f;
  expect(KERNEL(n, x, y, m, l, e, f, ws) == 0, "status 0", at);
  for (i = 0; i < n; ++i) {
    if (isnan(x[i])) {
      expect(isnan(e[i]) && isnan(f[i]), "x max y and min(x, y) are NaN where x is", i);
    } else {
      expect(e[i] == (x[i] > 1.0f ? x[i] : 1.0f) && f[i] == (x[i] < 1.0f ? x[i] : 1.0f), "x max y, min(x, y)", i);
    }
  }
  free(y);
  free(e);
  free(f);
  free(ws);
}

int main(int argc, char **argv) {
  int64_t n, i, k;
  float *x, m, l;
  if (argc != 2 || (n = strtoll(argv[1], NULL, 10)) < 4) {
    fprintf(stderr, "usage: nan_max_test N (N >= 4)\n");
    return 2;
  }
  x = malloc((size_t)n * sizeof(float));
  if (!x)
    return 1;
  {
    int64_t places[4];
    places[0] = 0;
    places[1] = n / 2 + 1;
    places[2] = n - 2;
    places[3] = n - 1;
    for (k = 0; k < 4; ++k) {
      for (i = 0; i < n; ++i)
        x[i] = (float)(i % 97) - 48.0f;
      x[places[k]] = NAN;
      run(n, x, &m, &l, places[k]);
      expect(isnan(m), "max/ x is NaN", places[k]);
      expect(isnan(l), "min/ x is NaN", places[k]);
    }
  }
  /* zeros of both signs, alternating from each end: max/ is +0 and min/ is -0 whichever comes first */
  for (k = 0; k < 2; ++k) {
    for (i = 0; i < n; ++i)
      x[i] = ((i + k) % 2) ? 0.0f : -0.0f;
    run(n, x, &m, &l, k);
    expect(m == 0.0f && !signbit(m), "max/ of -0 and +0 is +0", k);
    expect(l == 0.0f && signbit(l), "min/ of -0 and +0 is -0", k);
  }
  free(x);
  printf("nan_max_test (%s): n = %lld, %s\n", KERNEL_NAME, (long long)n, failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
