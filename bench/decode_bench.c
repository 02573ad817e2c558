/* Times moa_decode (dsl-examples/decode.moa) for n in the given list: the median of `reps` calls after
 * one warm-up call (on a GPU the first launch JIT-compiles the PTX), each followed by the ceiling over the
 * same bytes; checks o against softmax(q·Kᵀ/√dk)·V in double. With OpenACC every array lives on the
 * device for the whole run, as a serving loop would keep its KV cache there.
 * Usage: decode_bench REPS N...   (dk = dv = 128, or $MOAC_BENCH_D) */
#include "bench.h"
#include "moa_decode.h"
#include "moart/layout.h"

static int64_t bench_d = 128; /* dk = dv */

static void run(int64_t n, int reps) {
  const int64_t dk = bench_d, dv = bench_d;
  const int64_t kCount = moa_decode_K_LIFTED_BLOCK ? moart_lifted_count(n, dk, moa_decode_K_LIFTED_BLOCK) : n * dk;
  float *q = bench_alloc(sizeof(float) * (size_t)dk), *Krow = bench_alloc(sizeof(float) * (size_t)(n * dk));
  float *K = bench_alloc(sizeof(float) * (size_t)kCount), *V = bench_alloc(sizeof(float) * (size_t)(n * dv));
  float *o = bench_alloc(sizeof(float) * (size_t)dv);
  bench_fill(q, dk);
  bench_fill(Krow, n * dk);
  bench_fill(V, n * dv);
  if (moa_decode_K_LIFTED_BLOCK)
    moart_pack_lifted_f32(Krow, K, n, dk, moa_decode_K_LIFTED_BLOCK);
  else
    for (int64_t i = 0; i < n * dk; ++i)
      K[i] = Krow[i];
  size_t wsBytes = moa_decode_workspace_bytes(n, dk, dv);
  char *ws = bench_alloc(wsBytes);
  double *times = bench_alloc(sizeof(double) * (size_t)reps), *ceiling = bench_alloc(sizeof(double) * (size_t)reps);
  const int64_t flat = n * (dk + dv) + dk + dv; /* the minimum traffic in floats */
  uint32_t *stream = bench_alloc(sizeof(uint32_t) * (size_t)flat);
  for (int64_t i = 0; i < flat; ++i)
    stream[i] = (uint32_t)i * 2654435761u;
  int status = 0;
  uint32_t sink = 0;
#pragma acc data copyin(q[0:dk], K[0:kCount], V[0:n * dv], stream[0:flat]) copyout(o[0:dv]) create(ws[0:wsBytes > 0 ? wsBytes : 64])
  {
    status |= moa_decode(n, dk, dv, q, K, V, o, ws);
    sink ^= bench_read(stream, flat);
    for (int r = 0; r < reps; ++r) {
      double start = bench_now();
      status |= moa_decode(n, dk, dv, q, K, V, o, ws);
      times[r] = bench_now() - start;
      ceiling[r] = bench_ceiling(stream, flat, &sink);
    }
  }
  if (status) {
    fprintf(stderr, "moa_decode returned %d\n", status);
    exit(1);
  }
  double *ref = bench_alloc(sizeof(double) * (size_t)dv);
  bench_reference(q, Krow, V, ref, 1, 1, 1, n, dk);
  char what[64];
  snprintf(what, sizeof what, "decode n=%lld dk=dv=%lld%s", (long long)n, (long long)dk, sink == 12345u ? " " : "");
  bench_report(BENCH_SYSTEM, what, times, ceiling, reps, 4.0 * (double)flat, bench_error(o, ref, dv));
  free(q), free(Krow), free(K), free(V), free(o), free(ws), free(times), free(ceiling), free(stream), free(ref);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: decode_bench REPS N...\n");
    return 2;
  }
  bench_d = bench_start();
  int reps = atoi(argv[1]);
  for (int i = 2; i < argc; ++i)
    run(strtoll(argv[i], NULL, 10), reps > 0 ? reps : 1);
  return 0;
}
