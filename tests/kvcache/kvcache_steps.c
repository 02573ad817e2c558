/* The multi-step KV-cache driver (issue 5, paper §5 Tables 3–4): T decode steps of the kernel moac
 * compiles from dsl-examples/kvcache.moa, each appending this step's key and value to the caches in place
 * and attending over them, against causal attention over the whole sequence computed directly in double.
 * After every step the rows beyond t must still hold what the caller put there (the append writes one row,
 * never a copy), and a step with t = cap must fail its guard. Usage: kvcache_steps T dk dv [DIR]; with DIR
 * it also writes the inputs and outputs of every step there as raw float32 (q, k, v, o: T rows each, row t
 * the step's), for scripts/reproduce-paper's comparison with PyTorch. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "moa_kvcache.h"
#include "moart/status.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

static int dump(const char *dir, const char *name, const float *data, int64_t count) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.f32", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f)
    return 0;
  size_t n = fwrite(data, sizeof(float), (size_t)count, f);
  return fclose(f) == 0 && n == (size_t)count;
}

/* uniform in [-1, 1), from a 64-bit LCG: seeded, the same on every machine */
static float next(void) {
  state = state * 6364136223846793005u + 1442695040888963407u;
  return (float)((double)(state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
}

int main(int argc, char **argv) {
  if (argc != 4 && argc != 5) {
    fprintf(stderr, "usage: kvcache_steps T dk dv [DIR]\n");
    return 2;
  }
  const int64_t T = strtoll(argv[1], NULL, 10), dk = strtoll(argv[2], NULL, 10), dv = strtoll(argv[3], NULL, 10);
  const int64_t cap = T;
  const float untouched = 12345.0f; /* what the caller leaves in rows the cache does not use yet */
  float *q = malloc(sizeof(float) * (size_t)(T * dk)), *k = malloc(sizeof(float) * (size_t)(T * dk));
  float *v = malloc(sizeof(float) * (size_t)(T * dv)), *K = malloc(sizeof(float) * (size_t)(cap * dk));
  float *V = malloc(sizeof(float) * (size_t)(cap * dv)), *o = malloc(sizeof(float) * (size_t)(T * dv));
  double *p = malloc(sizeof(double) * (size_t)T);
  if (!q || !k || !v || !K || !V || !o || !p)
    return 2;
  for (int64_t i = 0; i < T * dk; ++i) {
    q[i] = next();
    k[i] = next();
  }
  for (int64_t i = 0; i < T * dv; ++i)
    v[i] = next();
  for (int64_t i = 0; i < cap * dk; ++i)
    K[i] = untouched;
  for (int64_t i = 0; i < cap * dv; ++i)
    V[i] = untouched;

  double worst = 0;
  int failures = 0;
  for (int64_t t = 0; t < T; ++t) {
    size_t bytes = moa_kvcache_workspace_bytes(t, cap, dk, dv);
    void *ws = malloc(bytes > 0 ? bytes : 64);
    int status = moa_kvcache(t, cap, dk, dv, q + t * dk, k + t * dk, v + t * dv, K, V, o + t * dv, ws);
    free(ws);
    if (status != 0) {
      fprintf(stderr, "step %lld: kernel returned %d\n", (long long)t, status);
      return 1;
    }
    /* the caches: rows 0..t are the keys and values so far, bit for bit; the rest untouched */
    for (int64_t i = 0; i < cap; ++i) {
      for (int64_t j = 0; j < dk; ++j)
        failures += K[i * dk + j] != (i <= t ? k[i * dk + j] : untouched);
      for (int64_t j = 0; j < dv; ++j)
        failures += V[i * dv + j] != (i <= t ? v[i * dv + j] : untouched);
    }
    /* causal attention of query t over keys and values 0..t, in double */
    double m = -INFINITY, sum = 0;
    for (int64_t i = 0; i <= t; ++i) {
      double s = 0;
      for (int64_t j = 0; j < dk; ++j)
        s += (double)q[t * dk + j] * (double)k[i * dk + j];
      p[i] = s / sqrt((double)dk);
      m = p[i] > m ? p[i] : m;
    }
    for (int64_t i = 0; i <= t; ++i)
      sum += p[i] = exp(p[i] - m);
    for (int64_t j = 0; j < dv; ++j) {
      double want = 0;
      for (int64_t i = 0; i <= t; ++i)
        want += p[i] / sum * (double)v[i * dv + j];
      double err = fabs((double)o[t * dv + j] - want);
      worst = err > worst ? err : worst;
    }
  }
  /* a full cache: appending one more row fails the guard t + 1 <= cap, and writes nothing */
  size_t bytes = moa_kvcache_workspace_bytes(T, cap, dk, dv);
  void *ws = malloc(bytes > 0 ? bytes : 64);
  int full = moa_kvcache(T, cap, dk, dv, q, k, v, K, V, o, ws);
  free(ws);
  if (argc == 5 && !(dump(argv[4], "q", q, T * dk) && dump(argv[4], "k", k, T * dk) &&
                     dump(argv[4], "v", v, T * dv) && dump(argv[4], "o", o, T * dv))) {
    fprintf(stderr, "cannot write the arrays to %s\n", argv[4]);
    return 2;
  }
  const double tolerance = 1e-5;
  printf("kvcache T=%lld dk=%lld dv=%lld: max over steps of ||o_t - causal attention||_inf = %.3g (tolerance %.0e); "
         "cache rows wrong or beyond t touched: %d; step with t = cap: %s\n",
         (long long)T, (long long)dk, (long long)dv, worst, tolerance, failures,
         full == MOART_ERR_SHAPE ? "MOART_ERR_SHAPE" : "NOT REJECTED");
  free(q), free(k), free(v), free(K), free(V), free(o), free(p);
  return worst <= tolerance && failures == 0 && full == MOART_ERR_SHAPE ? 0 : 1;
}
