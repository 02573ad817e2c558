/* Times moa_gqa (dsl-examples/gqa.moa) with hq query heads over hkv KV heads: the minimum traffic
 * (`moac explain`) reads each KV head once per group, (B·hkv·n·(dk + dv) + B·hq·(dk + dv)) × 4 B, so
 * if the query heads of a group share their KV head's reads the time falls with hkv.
 * Usage: gqa_bench REPS B HQ N HKV... */
#include "bench.h"
#include "moa_gqa.h"
#include "moart/layout.h"

static void run(int64_t B, int64_t hq, int64_t hkv, int64_t n, int reps) {
  const int64_t dk = 64, dv = 64;
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
  double *times = bench_alloc(sizeof(double) * (size_t)reps);
  int status = 0;
#pragma acc data copyin(Q[0:qCount], K[0:kStored], V[0:vCount]) copyout(O[0:oCount]) create(ws[0:wsBytes > 0 ? wsBytes : 64])
  {
    status |= moa_gqa(B, hq, hkv, n, dk, dv, Q, K, V, O, ws);
    for (int r = 0; r < reps; ++r) {
      double start = bench_now();
      status |= moa_gqa(B, hq, hkv, n, dk, dv, Q, K, V, O, ws);
      times[r] = bench_now() - start;
    }
  }
  if (status) {
    fprintf(stderr, "moa_gqa returned %d\n", status);
    exit(1);
  }
  char what[80];
  snprintf(what, sizeof what, "gqa B=%lld hq=%lld hkv=%lld n=%lld", (long long)B, (long long)hq, (long long)hkv,
           (long long)n);
  bench_report(what, bench_median(times, reps), 4.0 * (double)(kCount + vCount + qCount + oCount));
  free(Q), free(Krow), free(K), free(V), free(O), free(ws), free(times);
}

int main(int argc, char **argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: gqa_bench REPS B HQ N HKV...\n");
    return 2;
  }
  int reps = atoi(argv[1]);
  int64_t B = strtoll(argv[2], NULL, 10), hq = strtoll(argv[3], NULL, 10), n = strtoll(argv[4], NULL, 10);
  for (int i = 5; i < argc; ++i)
    run(B, hq, strtoll(argv[i], NULL, 10), n, reps > 0 ? reps : 1);
  return 0;
}
