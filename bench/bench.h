/* Shared by the benchmark drivers: a seeded fill, a monotonic clock and the report line. Each driver
 * times a kernel that moac generated from a .moa file in dsl-examples/ (bench/run builds them); the
 * drivers hold no kernel code. */
#ifndef MOAC_BENCH_H
#define MOAC_BENCH_H

#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* one line per measurement: what ran, the median time per call, and the minimum traffic of `moac
 * explain` over that time (the kernel's effective bandwidth) */
static void bench_report(const char *what, double seconds, double bytes) {
  printf("%-44s %10.3f us  %8.2f MB  %9.1f GB/s\n", what, seconds * 1e6, bytes / 1e6, bytes / seconds / 1e9);
}

#endif
