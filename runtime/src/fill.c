/* fill.c - deterministic seeded fill from SplitMix64 (Steele, Lea, Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014).
 *
 * Element i of (seed, stream) is the i-th output of a SplitMix64 generator
 * whose state starts at key = splitmix64(splitmix64(seed) ^ stream), so any
 * element is computed on its own: the fill is the same for every layout and
 * for any order of evaluation. docs/runtime.md gives the formula; Python
 * reproduces it in scripts/moarr.py. */
#include "moart/fill.h"
#include "moart/kernel.h"

#include <math.h>
#include <string.h>

#define GOLDEN_GAMMA UINT64_C(0x9E3779B97F4A7C15)

uint64_t moart_splitmix64(uint64_t x) {
  uint64_t z = x + GOLDEN_GAMMA;
  z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static uint64_t fill_key(uint64_t seed, uint64_t stream) {
  return moart_splitmix64(moart_splitmix64(seed) ^ stream);
}

/* Unsigned arithmetic: i * gamma wraps modulo 2^64 as the formula says. */
static uint64_t bits_at(uint64_t key, int64_t i) {
  return moart_splitmix64(key + (uint64_t)i * GOLDEN_GAMMA);
}

uint64_t moart_fill_bits(uint64_t seed, uint64_t stream, int64_t i) {
  return bits_at(fill_key(seed, stream), i);
}

/* Every step is exact in binary64: a 53-bit integer times a power of two,
 * minus one, stays representable. */
static double to_f64(uint64_t bits) {
  return (double)(bits >> 11) * (1.0 / 4503599627370496.0) - 1.0; /* 2^-52 */
}

/* A 24-bit integer times 2^-23, minus one: exact in binary64 and binary32. */
static float to_f32(uint64_t bits) {
  return (float)((double)(bits >> 40) * (1.0 / 8388608.0) - 1.0); /* 2^-23 */
}

/* An 8-bit (11-bit) integer times 2^-7 (2^-10), minus one: exact in bf16 (f16). */
static float to_bf16(uint64_t bits) {
  return (float)((double)(bits >> 56) * (1.0 / 128.0) - 1.0);
}
static float to_f16(uint64_t bits) {
  return (float)((double)(bits >> 53) * (1.0 / 1024.0) - 1.0);
}

static int64_t to_i64(uint64_t bits) {
  return (int64_t)(bits >> 43) - (1 << 20);
}

double moart_fill_value_f64(uint64_t seed, uint64_t stream, int64_t i) {
  return to_f64(moart_fill_bits(seed, stream, i));
}

float moart_fill_value_f32(uint64_t seed, uint64_t stream, int64_t i) {
  return to_f32(moart_fill_bits(seed, stream, i));
}

float moart_fill_value_bf16(uint64_t seed, uint64_t stream, int64_t i) {
  return to_bf16(moart_fill_bits(seed, stream, i));
}

float moart_fill_value_f16(uint64_t seed, uint64_t stream, int64_t i) {
  return to_f16(moart_fill_bits(seed, stream, i));
}

int64_t moart_fill_value_i64(uint64_t seed, uint64_t stream, int64_t i) {
  return to_i64(moart_fill_bits(seed, stream, i));
}

moart_status moart_fill_uniform(moart_array *array, uint64_t seed,
                                uint64_t stream) {
  uint64_t key = fill_key(seed, stream);
  int lifted;
  int64_t i;
  if (!array || (!array->data && array->count))
    return MOART_ERR_ARG;
  if (moart_dtype_size(array->dtype) == 0)
    return MOART_ERR_DTYPE;
  if (moart_array_storage_count(array) < 0)
    return MOART_ERR_LAYOUT;
  lifted = array->layout.kind == MOART_LAYOUT_LIFTED;
  if (lifted &&
      array->count) /* zero the padding; the loop overwrites the rest */
    memset(array->data, 0, moart_array_bytes(array));
  for (i = 0; i < array->count; ++i) {
    int64_t at = lifted ? moart_array_offset(array, i) : i;
    uint64_t bits = bits_at(key, i);
    switch (array->dtype) {
    case MOART_F32:
      ((float *)array->data)[at] = to_f32(bits);
      break;
    case MOART_F64:
      ((double *)array->data)[at] = to_f64(bits);
      break;
    case MOART_I64:
      ((int64_t *)array->data)[at] = to_i64(bits);
      break;
    case MOART_I32:
      ((int32_t *)array->data)[at] = (int32_t)to_i64(bits);
      break;
    case MOART_BF16:
      ((uint16_t *)array->data)[at] = moart_f32_to_bf16(to_bf16(bits));
      break;
    case MOART_F16:
      ((uint16_t *)array->data)[at] = moart_f32_to_f16(to_f16(bits));
      break;
    }
  }
  return MOART_OK;
}

moart_status moart_fill_poison(moart_array *array) {
  int lifted;
  int64_t i;
  if (!array || (!array->data && array->count))
    return MOART_ERR_ARG;
  if (moart_dtype_size(array->dtype) == 0)
    return MOART_ERR_DTYPE;
  if (moart_array_storage_count(array) < 0)
    return MOART_ERR_LAYOUT;
  lifted = array->layout.kind == MOART_LAYOUT_LIFTED;
  if (lifted && array->count)
    memset(array->data, 0, moart_array_bytes(array));
  for (i = 0; i < array->count; ++i) {
    int64_t at = lifted ? moart_array_offset(array, i) : i;
    switch (array->dtype) {
    case MOART_F32:
      ((float *)array->data)[at] = (float)NAN;
      break;
    case MOART_F64:
      ((double *)array->data)[at] = (double)NAN;
      break;
    case MOART_I64:
      ((int64_t *)array->data)[at] = INT64_MIN;
      break;
    case MOART_I32:
      ((int32_t *)array->data)[at] = INT32_MIN;
      break;
    case MOART_BF16:
      ((uint16_t *)array->data)[at] = 0x7fc0u; /* quiet NaN */
      break;
    case MOART_F16:
      ((uint16_t *)array->data)[at] = 0x7e00u;
      break;
    }
  }
  return MOART_OK;
}
