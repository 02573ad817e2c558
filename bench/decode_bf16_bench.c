/* Times moa_decode_bf16 (dsl-examples/decode-bf16.moa: K and V stored in bf16, arithmetic in f32, o rounded
 * to bf16) for n in the given list, like decode_bench.c: the median of `reps` calls after one warm-up call,
 * each followed by the ceiling over the same bytes (the bf16 K and V, q in f32, o in bf16). The reference is
 * softmax(q·Kᵀ/√dk)·V in double over the bf16 values widened exactly; the output's own rounding to bf16
 * (at most 2⁻⁹ of an element) sets the tolerance, 2⁻⁸ of the largest |o|.
 * Usage: decode_bf16_bench REPS N...   (dk = dv = 128, or $MOAC_BENCH_D) */
#include "bench.h"
#include "moa_decode_bf16.h"
#include "moart/kernel.h"
#include "moart/layout.h"

#include <string.h>

static int64_t bench_d = 128; /* dk = dv */

/* x rounded to bf16 (into h) and widened back (into x): the values the kernel and the reference share */
static void to_bf16(float *x, uint16_t *h, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    h[i] = moart_f32_to_bf16(x[i]);
    x[i] = moart_bf16_to_f32(h[i]);
  }
}

static void run(int64_t n, int reps) {
  const int64_t dk = bench_d, dv = bench_d;
  float *q = bench_alloc(sizeof(float) * (size_t)dk), *Kf = bench_alloc(sizeof(float) * (size_t)(n * dk));
  float *Vf = bench_alloc(sizeof(float) * (size_t)(n * dv)), *of = bench_alloc(sizeof(float) * (size_t)dv);
  const int64_t block = moa_decode_bf16_K_LIFTED_BLOCK; /* K as the kernel's header lays it out */
  const int64_t kCount = block ? moart_lifted_count(n, dk, block) : n * dk;
  uint16_t *Krow = bench_alloc(sizeof(uint16_t) * (size_t)(n * dk)), *K = bench_alloc(sizeof(uint16_t) * (size_t)kCount);
  uint16_t *V = bench_alloc(sizeof(uint16_t) * (size_t)(n * dv));
  uint16_t *o = bench_alloc(sizeof(uint16_t) * (size_t)dv);
  bench_fill(q, dk);
  bench_fill(Kf, n * dk);
  bench_fill(Vf, n * dv);
  to_bf16(Kf, Krow, n * dk);
  if (block) { /* lifted: row x's element y at moart_lifted_offset(x, y), the last group's padding zero */
    memset(K, 0, sizeof(uint16_t) * (size_t)kCount);
    for (int64_t x = 0; x < n; ++x)
      for (int64_t y = 0; y < dk; ++y)
        K[moart_lifted_offset(x, y, dk, block)] = Krow[x * dk + y];
  } else {
    memcpy(K, Krow, sizeof(uint16_t) * (size_t)(n * dk));
  }
  to_bf16(Vf, V, n * dv);
  size_t wsBytes = moa_decode_bf16_workspace_bytes(n, dk, dv);
  char *ws = bench_alloc(wsBytes);
  double *times = bench_alloc(sizeof(double) * (size_t)reps), *ceiling = bench_alloc(sizeof(double) * (size_t)reps);
  const double bytes = 2.0 * (double)(n * (dk + dv)) + 4.0 * (double)dk + 2.0 * (double)dv; /* the minimum traffic */
  const int64_t flat = ((int64_t)bytes + 15) / 16 * 4; /* as 32-bit words, a multiple of 4 */
  uint32_t *stream = bench_alloc(sizeof(uint32_t) * (size_t)flat);
  for (int64_t i = 0; i < flat; ++i)
    stream[i] = (uint32_t)i * 2654435761u;
  int status = 0;
  uint32_t sink = 0;
#pragma acc data copyin(q[0:dk], K[0:kCount], V[0:n * dv], stream[0:flat]) copyout(o[0:dv]) create(ws[0:wsBytes > 0 ? wsBytes : 64])
  {
    status |= moa_decode_bf16(n, dk, dv, q, K, V, o, ws);
    sink ^= bench_read(stream, flat);
    for (int r = 0; r < reps; ++r) {
      double start = bench_now();
      status |= moa_decode_bf16(n, dk, dv, q, K, V, o, ws);
      times[r] = bench_now() - start;
      ceiling[r] = bench_ceiling(stream, flat, &sink);
    }
  }
  if (status) {
    fprintf(stderr, "moa_decode_bf16 returned %d\n", status);
    exit(1);
  }
  double *ref = bench_alloc(sizeof(double) * (size_t)dv);
  bench_reference(q, Kf, Vf, ref, 1, 1, 1, n, dk);
  for (int64_t j = 0; j < dv; ++j)
    of[j] = moart_bf16_to_f32(o[j]);
  char what[64];
  snprintf(what, sizeof what, "decode-bf16 n=%lld dk=dv=%lld%s", (long long)n, (long long)dk, sink == 12345u ? " " : "");
  bench_report_within(BENCH_SYSTEM, what, times, ceiling, reps, bytes, bench_error(of, ref, dv), 0.00390625);
  free(q), free(Kf), free(Vf), free(of), free(Krow), free(K), free(V), free(o), free(ws), free(times), free(ceiling), free(stream),
      free(ref);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: decode_bf16_bench REPS N...\n");
    return 2;
  }
  bench_d = bench_start();
  int reps = atoi(argv[1]);
  for (int i = 2; i < argc; ++i)
    run(strtoll(argv[i], NULL, 10), reps > 0 ? reps : 1);
  return 0;
}
