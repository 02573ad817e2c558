/* moart/fill.h - deterministic, seeded, layout-independent test data.
 *
 * Element i (its logical row-major offset) of an array filled with (seed,
 * stream) depends on nothing else, so a C harness, a generated kernel's driver
 * and scripts/moarr.py produce bit-identical inputs. The formula is in
 * docs/runtime.md ("Deterministic fill"). */
#ifndef MOART_FILL_H
#define MOART_FILL_H

#include <stdint.h>

#include "moart/array.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One SplitMix64 step from state x: mix(x + 0x9E3779B97F4A7C15) where mix is
 * the SplitMix64 finaliser. moart_splitmix64(0) == 0xE220A8397B1DCDAF. */
uint64_t moart_splitmix64(uint64_t x);

/* The 64 random bits of element i: splitmix64(key + i * 0x9E3779B97F4A7C15)
 * with key = splitmix64(splitmix64(seed) ^ stream). */
uint64_t moart_fill_bits(uint64_t seed, uint64_t stream, int64_t i);

/* The value of element i for each dtype:
 *   f64: (bits >> 11) * 2^-52 - 1         uniform in [-1, 1), 53 random bits
 *   f32: (bits >> 40) * 2^-23 - 1         in [-1, 1), the f64 value rounded
 *                                         down to a multiple of 2^-23 (exact)
 *   i64: (bits >> 43) - 2^20              uniform in [-2^20, 2^20)
 *   bf16: (bits >> 56) * 2^-7 - 1         in [-1, 1), a multiple of 2^-7:
 *                                         exact in bf16's 8 significant bits
 *   f16: (bits >> 53) * 2^-10 - 1         in [-1, 1), a multiple of 2^-10:
 *                                         exact in f16's 11 significant bits
 * The half-precision values are returned as the f32 they widen to. */
double moart_fill_value_f64(uint64_t seed, uint64_t stream, int64_t i);
float moart_fill_value_f32(uint64_t seed, uint64_t stream, int64_t i);
float moart_fill_value_bf16(uint64_t seed, uint64_t stream, int64_t i);
float moart_fill_value_f16(uint64_t seed, uint64_t stream, int64_t i);
int64_t moart_fill_value_i64(uint64_t seed, uint64_t stream, int64_t i);

/* Fill every logical element of array (any dtype and layout); lifted padding
 * is set to zero. MOART_ERR_ARG for a NULL or storage-less array. */
moart_status moart_fill_uniform(moart_array *array, uint64_t seed,
                                uint64_t stream);

/* Fill every logical element with a value no correct kernel leaves there:
 * NaN for f32, f64, bf16 and f16, INT64_MIN for i64 (lifted padding is zero). moac
 * check's harness poisons its outputs so that an element the kernel never
 * writes fails the comparison. MOART_ERR_ARG for a NULL or storage-less
 * array. */
moart_status moart_fill_poison(moart_array *array);

#ifdef __cplusplus
}
#endif

#endif /* MOART_FILL_H */
