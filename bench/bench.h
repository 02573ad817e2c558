/* Shared by the benchmark drivers: a seeded fill, a monotonic clock, the ceiling (a read-only stream over
 * as many bytes as the kernel's minimum traffic, timed in the same process, interleaved with the kernel)
 * and the report line (also appended as CSV to $BENCH_CSV). Each driver times a kernel that moac generated
 * from a .moa file in dsl-examples/ (bench/run builds them), checks its output against a double-precision
 * reference, and holds no kernel code. */
#ifndef MOAC_BENCH_H
#define MOAC_BENCH_H

#define _POSIX_C_SOURCE 199309L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "moart/kernel.h" /* MOART_CPU_CLONES */

static uint64_t bench_state = 0x9e3779b97f4a7c15u;

/* uniform in [-1, 1) from a 64-bit LCG: the same data on every machine */
static void bench_fill(float *x, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    bench_state = bench_state * 6364136223846793005u + 1442695040888963407u;
    x[i] = (float)((double)(bench_state >> 11) / 9007199254740992.0 * 2.0 - 1.0);
  }
}

static double bench_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *bench_alloc(size_t bytes) {
  void *p = malloc(bytes > 0 ? bytes : 64);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

static int bench_compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* the median of `count` timings, sorted in place */
static double bench_median(double *times, int count) {
  qsort(times, (size_t)count, sizeof(double), bench_compare);
  return count % 2 ? times[count / 2] : 0.5 * (times[count / 2 - 1] + times[count / 2]);
}

/* The ceiling: every word of x read once (all threads, or the device's lanes), XOR-folded — integer
 * operations, which the compiler vectorises without reassociating anything, so the loop runs at the
 * memory's speed; the result is returned so that nothing is elided. On the device under OpenACC; built
 * for an NVIDIA GPU (BENCH_DEVICE_CEILING, bench/run --offload=nvptx) the device copy of x is read by a
 * CUDA streaming kernel instead (bench/cuda/acc_ceiling.cu): GCC's OpenACC reduction reads far slower
 * than the memory allows. count must then be a multiple of 4. */
#ifdef BENCH_DEVICE_CEILING
#include <openacc.h>
int bench_device_init(void);
double bench_device_read(const void *data, int64_t bytes);
#endif
/* cloned per ISA like the kernels it is set beside (moart/kernel.h, MOART_CPU_CLONES) */
MOART_CPU_CLONES static uint32_t bench_read(const uint32_t *x, int64_t count) {
  uint32_t s = 0;
#if defined(_OPENACC)
#pragma acc parallel loop gang vector reduction(^ : s) present(x[0:count])
#elif defined(_OPENMP)
#pragma omp parallel for simd reduction(^ : s) schedule(static)
#endif
  for (int64_t i = 0; i < count; ++i)
    s ^= x[i];
  return s;
}

/* The seconds one ceiling read of x takes: timed around bench_read, or on an NVIDIA GPU by CUDA events
 * around the CUDA stream kernel (bench/cuda/acc_ceiling.cu). */
static double bench_ceiling(const uint32_t *x, int64_t count, uint32_t *sink) {
#if defined(BENCH_DEVICE_CEILING)
  double t = bench_device_read(acc_deviceptr((void *)x), count / 4 * 16);
  if (t < 0) {
    fprintf(stderr, "bench: the CUDA ceiling failed\n");
    exit(1);
  }
  (void)sink;
  return t;
#else
  double start = bench_now();
  *sink ^= bench_read(x, count);
  return bench_now() - start;
#endif
}

/* max |got - ref| / max |ref| */
static double bench_error(const float *got, const double *ref, int64_t count) {
  double err = 0, scale = 0;
  for (int64_t i = 0; i < count; ++i) {
    double d = fabs((double)got[i] - ref[i]);
    err = d > err || d != d ? d : err;
    scale = fabs(ref[i]) > scale ? fabs(ref[i]) : scale;
  }
  return scale > 0 ? err / scale : err;
}

/* One line per measurement: what ran, the median time per call (min–max), the minimum traffic of `moac
 * explain` over that time (the kernel's effective bandwidth), the ceiling's bandwidth over the same bytes
 * and the ratio, and the relative error against the double-precision reference (a failure above
 * `tolerance` exits 1: bench_report's 1e-4 for f32 outputs, the storage's rounding for narrower ones). */
static void bench_report_within(const char *system, const char *what, double *times, double *ceiling, int reps,
                                double bytes, double error, double tolerance) {
  double t = bench_median(times, reps), c = bench_median(ceiling, reps);
  const char *csv = getenv("BENCH_CSV");
  printf("%-10s %-36s %10.3f us (%.3f–%.3f)  %8.2f MB  %8.1f GB/s  ceiling %8.1f GB/s  %5.1f %%  err %.1e\n", system,
         what, t * 1e6, times[0] * 1e6, times[reps - 1] * 1e6, bytes / 1e6, bytes / t / 1e9, bytes / c / 1e9,
         100.0 * c / t, error);
  if (csv && *csv) {
    FILE *f = fopen(csv, "a");
    if (f) {
      fprintf(f, "%s,moac %s,%.1f,%.2f,%.2f,%.2f,%.0f,%.1f,,%.2e\n", what, system, bytes / 1e6, t * 1e6,
              times[0] * 1e6, times[reps - 1] * 1e6, bytes / t / 1e9, 100.0 * c / t, error);
      fprintf(f, "%s,ceiling,%.1f,%.2f,%.2f,%.2f,%.0f,100.0,,\n", what, bytes / 1e6, c * 1e6, ceiling[0] * 1e6,
              ceiling[reps - 1] * 1e6, bytes / c / 1e9);
      fclose(f);
    }
  }
  if (!(error < tolerance)) {
    fprintf(stderr, "%s: the output differs from the double-precision reference by %g (tolerance %g)\n", what,
            error, tolerance);
    exit(1);
  }
}

static inline void bench_report(const char *system, const char *what, double *times, double *ceiling, int reps,
                                double bytes, double error) {
  bench_report_within(system, what, times, ceiling, reps, bytes, error, 1e-4);
}

/* The reference: O[b, g] = softmax(Q[b, g]·Kᵀ/√d)·V in double over KV head g·hkv div hq (B = hq = hkv = 1:
 * decode), every array row-major with d = dk = dv. */
static void bench_reference(const float *Q, const float *K, const float *V, double *ref, int64_t B, int64_t hq, int64_t hkv,
                      int64_t n, int64_t d) {
  double *s = bench_alloc(sizeof(double) * (size_t)n);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t g = 0; g < hq; ++g) {
      const float *q = Q + (b * hq + g) * d, *k = K + (b * hkv + g * hkv / hq) * n * d, *v = V + (b * hkv + g * hkv / hq) * n * d;
      double *o = ref + (b * hq + g) * d, m = -INFINITY, z = 0;
      for (int64_t l = 0; l < n; ++l) {
        double dot = 0;
        for (int64_t j = 0; j < d; ++j)
          dot += (double)q[j] * k[l * d + j];
        s[l] = dot / sqrt((double)d);
        m = s[l] > m ? s[l] : m;
      }
      for (int64_t j = 0; j < d; ++j)
        o[j] = 0;
      for (int64_t l = 0; l < n; ++l) {
        double p = exp(s[l] - m);
        z += p;
        for (int64_t j = 0; j < d; ++j)
          o[j] += p * v[l * d + j];
      }
      for (int64_t j = 0; j < d; ++j)
        o[j] /= z;
    }
  free(s);
}

/* What every driver's main does first: on an NVIDIA GPU, start the CUDA context of the ceiling before libgomp
 * starts, so that they share it (exits 1 without a device); returns dk = dv, 128 or $MOAC_BENCH_D. */
static int64_t bench_start(void) {
#ifdef BENCH_DEVICE_CEILING
  if (bench_device_init()) {
    fprintf(stderr, "no CUDA device for the ceiling\n");
    exit(1);
  }
#endif
  return getenv("MOAC_BENCH_D") ? strtoll(getenv("MOAC_BENCH_D"), NULL, 10) : 128;
}

#ifndef BENCH_SYSTEM
#define BENCH_SYSTEM "kernel"
#endif

#endif
