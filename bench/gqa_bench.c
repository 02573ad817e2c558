/* Times moa_gqa (dsl-examples/gqa.moa) with hq query heads over hkv KV heads: the minimum traffic
 * (`moac explain`) reads each KV head once per group, (B·hkv·n·(dk + dv) + B·hq·(dk + dv)) × 4 B, so
 * if the query heads of a group share their KV head's reads the time falls with hkv. Each call is followed
 * by the ceiling over the same bytes; O is checked against the standard formula in double.
 * Usage: gqa_bench REPS B HQ N HKV...   (dk = dv = 128, or $MOAC_BENCH_D) */
#include "bench.h"
#include "moa_gqa.h"
#include "moart/layout.h"

static int64_t bench_d = 128; /* dk = dv */

static void run(int64_t B, int64_t hq, int64_t hkv, int64_t n, int reps) {
  const int64_t dk = bench_d, dv = bench_d;
  const int64_t qCount = B * hq * dk, kCount = B * hkv * n * dk, vCount = B * hkv * n * dv, oCount = B * hq * dv;
  if (moa_gqa_V_LIFTED_BLOCK || (moa_gqa_K_LIFTED_BLOCK && moa_gqa_K_LIFTED_AXIS != 2)) {
    fprintf(stderr, "gqa_bench: the kernel wants a layout this driver does not make\n");
    exit(2);
  }
  /* K is a batch of B·hkv slabs ⟨n dk⟩; the OpenACC kernel reads each slab lifted (coalesced lanes) */
  const int64_t kStored =
      moa_gqa_K_LIFTED_BLOCK ? moart_lifted_batch_count(B * hkv, n, dk, moa_gqa_K_LIFTED_BLOCK) : kCount;
  float *Q = bench_alloc(sizeof(float) * (size_t)qCount), *Krow = bench_alloc(sizeof(float) * (size_t)kCount);
  float *K = bench_alloc(sizeof(float) * (size_t)kStored), *V = bench_alloc(sizeof(float) * (size_t)vCount);
  float *O = bench_alloc(sizeof(float) * (size_t)oCount);
  bench_fill(Q, qCount);
  bench_fill(Krow, kCount);
  bench_fill(V, vCount);
  if (moa_gqa_K_LIFTED_BLOCK)
    moart_pack_lifted_batch_f32(Krow, K, B * hkv, n, dk, moa_gqa_K_LIFTED_BLOCK);
  else
    for (int64_t i = 0; i < kCount; ++i)
      K[i] = Krow[i];
  size_t wsBytes = moa_gqa_workspace_bytes(B, hq, hkv, n, dk, dv);
  char *ws = bench_alloc(wsBytes);
  double *times = bench_alloc(sizeof(double) * (size_t)reps), *ceiling = bench_alloc(sizeof(double) * (size_t)reps);
  const int64_t flat = kCount + vCount + qCount + oCount; /* the minimum traffic in floats */
  uint32_t *stream = bench_alloc(sizeof(uint32_t) * (size_t)flat);
  for (int64_t i = 0; i < flat; ++i)
    stream[i] = (uint32_t)i * 2654435761u;
  int status = 0;
  uint32_t sink = 0;
#pragma acc data copyin(Q[0:qCount], K[0:kStored], V[0:vCount], stream[0:flat]) copyout(O[0:oCount]) create(ws[0:wsBytes > 0 ? wsBytes : 64])
  {
    status |= moa_gqa(B, hq, hkv, n, dk, dv, Q, K, V, O, ws);
    sink ^= bench_read(stream, flat);
    for (int r = 0; r < reps; ++r) {
      double start = bench_now();
      status |= moa_gqa(B, hq, hkv, n, dk, dv, Q, K, V, O, ws);
      times[r] = bench_now() - start;
      ceiling[r] = bench_ceiling(stream, flat, &sink);
    }
  }
  if (status) {
    fprintf(stderr, "moa_gqa returned %d\n", status);
    exit(1);
  }
  double *ref = bench_alloc(sizeof(double) * (size_t)oCount);
  bench_reference(Q, Krow, V, ref, B, hq, hkv, n, dk);
  char what[80];
  snprintf(what, sizeof what, "gqa B=%lld hq=%lld hkv=%lld n=%lld%s", (long long)B, (long long)hq, (long long)hkv,
           (long long)n, sink == 12345u ? " " : "");
  bench_report(BENCH_SYSTEM, what, times, ceiling, reps, 4.0 * (double)flat, bench_error(O, ref, oCount));
  free(Q), free(Krow), free(K), free(V), free(O), free(ws), free(times), free(ceiling), free(stream), free(ref);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: gqa_bench REPS B HQ N HKV...\n");
    return 2;
  }
  bench_d = bench_start();
  int reps = atoi(argv[1]);
  int64_t B = strtoll(argv[2], NULL, 10), hq = strtoll(argv[3], NULL, 10), n = strtoll(argv[4], NULL, 10);
  for (int i = 5; i < argc; ++i)
    run(B, hq, strtoll(argv[i], NULL, 10), n, reps > 0 ? reps : 1);
  return 0;
}
