/* gather_test.c - calls the kernels moac generates from dsl-examples/embedding.moa (C and OpenMP) and
 * dsl-examples/paged-decode.moa (C) with index arrays that hold a value outside the axis they index (-1,
 * the extent itself, INT32_MIN, INT32_MAX, in the first, a middle or the last element), and checks that
 * each returns MOART_ERR_SHAPE and writes nothing; with indices in range it checks the embedding's rows
 * against plain loops. Every array is allocated at exactly its size, so in the sanitizer build an
 * unchecked gather is an AddressSanitizer report. Exit 0 when every check passes. */
#include "gather_c.h"
#include "gather_omp.h"
#include "paged_c.h"

#include "moart/status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "gather_test: FAILED %s: ", #cond);                                          \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      ++failures;                                                                                  \
    }                                                                                              \
  } while (0)

static void *allocate(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "gather_test: out of memory\n");
    exit(2);
  }
  return p;
}

typedef int (*embedding_kernel)(int64_t, int64_t, int64_t, const int32_t *, const float *, float *, void *);

/* The embedding with ids[at] = bad (or every id in range when at < 0): the status, and y either the
 * gathered rows (status 0) or untouched. */
static void embedding(embedding_kernel kernel, const char *which, int64_t at, int32_t bad) {
  const int64_t m = 37, V = 50, d = 8;
  int32_t *ids = allocate(sizeof(int32_t) * m);
  float *E = allocate(sizeof(float) * V * d), *y = allocate(sizeof(float) * m * d);
  int64_t i, j;
  int status;
  for (i = 0; i < m; ++i)
    ids[i] = (int32_t)((i * 17 + 3) % V);
  if (at >= 0)
    ids[at] = bad;
  for (i = 0; i < V * d; ++i)
    E[i] = (float)i;
  for (i = 0; i < m * d; ++i)
    y[i] = -777.0f;
  status = kernel(m, V, d, ids, E, y, NULL);
  if (at < 0) {
    CHECK(status == MOART_OK, "%s: status %d with every id in range", which, status);
    for (i = 0; i < m; ++i)
      for (j = 0; j < d; ++j)
        CHECK(y[i * d + j] == E[ids[i] * d + j], "%s: y[%lld, %lld] is not E[ids[i], j]", which, (long long)i,
              (long long)j);
  } else {
    CHECK(status == MOART_ERR_SHAPE, "%s: status %d with ids[%lld] = %ld", which, status, (long long)at, (long)bad);
    for (i = 0; i < m * d; ++i)
      CHECK(y[i] == -777.0f, "%s: y[%lld] written although ids[%lld] = %ld", which, (long long)i, (long long)at,
            (long)bad);
  }
  free(ids);
  free(E);
  free(y);
}

/* Paged decode with table[at] = bad: MOART_ERR_SHAPE and O untouched (the pool has P pages). */
static void paged(int64_t at, int32_t bad) {
  const int64_t B = 3, P = 11, pages = 4, page = 5, dk = 8, dv = 6;
  float *Q = allocate(sizeof(float) * B * dk), *K = allocate(sizeof(float) * P * page * dk);
  float *Vp = allocate(sizeof(float) * P * page * dv), *O = allocate(sizeof(float) * B * dv);
  int32_t *table = allocate(sizeof(int32_t) * B * pages);
  size_t bytes = paged_c_workspace_bytes(B, P, pages, page, dk, dv);
  void *ws = allocate(bytes);
  int64_t i;
  int status;
  for (i = 0; i < B * dk; ++i)
    Q[i] = (float)(i % 5) * 0.25f;
  for (i = 0; i < P * page * dk; ++i)
    K[i] = (float)(i % 7) * 0.125f;
  for (i = 0; i < P * page * dv; ++i)
    Vp[i] = (float)(i % 3);
  for (i = 0; i < B * pages; ++i)
    table[i] = (int32_t)((i * 5) % P);
  table[at] = bad;
  for (i = 0; i < B * dv; ++i)
    O[i] = -777.0f;
  status = paged_c(B, P, pages, page, dk, dv, Q, K, Vp, table, O, ws);
  CHECK(status == MOART_ERR_SHAPE, "paged: status %d with table[%lld] = %ld", status, (long long)at, (long)bad);
  for (i = 0; i < B * dv; ++i)
    CHECK(O[i] == -777.0f, "paged: O[%lld] written although table[%lld] = %ld", (long long)i, (long long)at, (long)bad);
  free(Q);
  free(K);
  free(Vp);
  free(O);
  free(table);
  free(ws);
}

int main(void) {
  const int32_t bad[] = {-1, 50, INT32_MIN, INT32_MAX};
  const int64_t where[] = {0, 18, 36};
  size_t b, w;
  embedding(gather_c, "c", -1, 0);
  embedding(gather_omp, "openmp", -1, 0);
  for (b = 0; b < sizeof bad / sizeof bad[0]; ++b)
    for (w = 0; w < sizeof where / sizeof where[0]; ++w) {
      embedding(gather_c, "c", where[w], bad[b]);
      embedding(gather_omp, "openmp", where[w], bad[b]);
    }
  paged(0, -1);
  paged(5, 11); /* P: one past the last page */
  paged(11, INT32_MAX);
  if (failures)
    fprintf(stderr, "gather_test: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
