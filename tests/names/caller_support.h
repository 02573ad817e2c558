/* What both C callers of tests/names/ do besides calling the kernel: read the arrays `moac run --outputs`
 * wrote, and compare the kernel's result with the interpreter's. */
#include <math.h>
#include <stdio.h>

#include "moart/moart.h"

static moart_array read_array(const char *dir, const char *name) {
  char path[4096], err[512];
  moart_array a;
  snprintf(path, sizeof path, "%s/%s.moarr", dir, name);
  if (moart_read_array(path, &a, err, sizeof err) != MOART_OK) {
    fprintf(stderr, "%s\n", err);
    exit(1);
  }
  return a;
}

static double element(const moart_array *a, int64_t i) {
  return a->dtype == MOART_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}

/* Prints every element of got next to the interpreter's; the number of elements off by more than f32
 * rounding. */
static int compare(const char *label, const float *got, const moart_array *want) {
  int bad = 0;
  for (int64_t i = 0; i < want->count; ++i) {
    double expected = element(want, i);
    printf("%s[%lld] = %.9g (interpreter %.9g)\n", label, (long long)i, got[i], expected);
    bad += fabs(got[i] - expected) > 1e-5 * (1 + fabs(expected));
  }
  return bad;
}
