/* moart/kernel.h: the small inline helpers every generated kernel includes.
 *
 * Floor division and modulus (MoA's div and mod round toward -inf, C's / and % toward 0), max/min with
 * the language's rule (NaN propagates, -0 < +0: IEEE 754-2019 maximum and minimum, unlike fmaxf, so a
 * split or reordered max/ gives the interpreter's value bit for bit), the chunk count of a split reduction, and
 * the 64-byte alignment of workspace slots, and the conversions between f32 and the half-precision storage
 * formats bf16 and f16. Header-only: the kernels need no library to link for these. */
#ifndef MOART_KERNEL_H
#define MOART_KERNEL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "moart/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MOART_INLINE: each helper is a static inline function; CUDA (nvcc) compiles it for the host and the
 * device, so kernels and their host launchers share one definition. */
#ifdef __CUDACC__
#define MOART_INLINE static inline __host__ __device__
#else
#define MOART_INLINE static inline
#endif

/* MOART_PREFETCH(p): a hint that the cache line at p will be read soon, for reading, with no temporal
 * locality (each row of K and V is read once a call): what a tiled split pass asks for the rows a few tiles
 * ahead (schedule prefetch=D, docs/schedule.md). p always points inside its array. GCC and Clang have
 * __builtin_prefetch (on a target without a prefetch instruction, such as GCC's nvptx offloading, it
 * produces no code); elsewhere the hint is dropped. */
#if defined(__GNUC__) || defined(__clang__)
#define MOART_PREFETCH(p) __builtin_prefetch((p), 0, 0)
#else
#define MOART_PREFETCH(p) ((void)(p))
#endif

/* MOART_CPU_CLONES: what the C and OpenMP targets put before a kernel's definition. Where GCC ≥ 11 compiles
 * for x86-64 ELF with glibc (whose loader resolves ifuncs) and the compilation's own ISA is below AVX2, the
 * kernel and its OpenMP regions are compiled twice, for x86-64-v3 (AVX2, 32-byte vectors) and for the
 * compilation's ISA, and the loader binds the kernel's symbol to the first the CPU runs. Only the vector
 * width and the instructions change, not the order of any sum (the kernels' lanes are explicit), so a
 * clone rounds like the plain kernel unless GCC contracts a * b + c into one FMA (outside ISO C mode;
 * within the checker's tolerance). Not with Clang: Clang 14 defines a cloned function only under a
 * mangled name, so a caller in another file does not link. x86-64-v4 (AVX-512) is not a clone: measured
 * slower on the bench machine (bench/NOTES.md, 2026-12-07). -DMOART_NO_CPU_CLONES turns the clones off. */
#if !defined(MOART_NO_CPU_CLONES) && !defined(__CUDACC__) && !defined(_OPENACC) && defined(__x86_64__) &&             \
    defined(__ELF__) && defined(__GLIBC__) && !defined(__AVX2__) && !defined(__clang__) && defined(__GNUC__) &&         \
    __GNUC__ >= 11
#define MOART_CPU_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define MOART_CPU_CLONES
#endif

/* The helpers are OpenACC device routines, so that offloaded kernels may call them at every optimisation
 * level: otherwise GCC's nvptx offloading stops with "function 'moart_maxf' has been referenced in
 * offloaded code but hasn't been marked to be included" wherever it does not inline the call (-O0, -O1).
 * GCC takes `acc routine(NAME)` only after a declaration and before the definition, hence this block. */
#ifdef _OPENACC
static inline int64_t moart_floordiv(int64_t a, int64_t b);
#pragma acc routine(moart_floordiv) seq
static inline int64_t moart_floormod(int64_t a, int64_t b);
#pragma acc routine(moart_floormod) seq
static inline float moart_maxf(float a, float b);
#pragma acc routine(moart_maxf) seq
static inline float moart_minf(float a, float b);
#pragma acc routine(moart_minf) seq
static inline double moart_max(double a, double b);
#pragma acc routine(moart_max) seq
static inline double moart_min(double a, double b);
#pragma acc routine(moart_min) seq
static inline int64_t moart_maxi(int64_t a, int64_t b);
#pragma acc routine(moart_maxi) seq
static inline int64_t moart_mini(int64_t a, int64_t b);
#pragma acc routine(moart_mini) seq
static inline int64_t moart_absi(int64_t a);
#pragma acc routine(moart_absi) seq
static inline int64_t moart_chunks(int64_t items, int64_t terms, int64_t threads, int64_t chunk);
#pragma acc routine(moart_chunks) seq
static inline size_t moart_align64(size_t bytes);
#pragma acc routine(moart_align64) seq
static inline uint32_t moart_f32_bits(float f);
#pragma acc routine(moart_f32_bits) seq
static inline float moart_f32_from_bits(uint32_t u);
#pragma acc routine(moart_f32_from_bits) seq
static inline float moart_bf16_to_f32(uint16_t h);
#pragma acc routine(moart_bf16_to_f32) seq
static inline uint16_t moart_f32_to_bf16(float f);
#pragma acc routine(moart_f32_to_bf16) seq
static inline float moart_f16_to_f32(uint16_t h);
#pragma acc routine(moart_f16_to_f32) seq
static inline uint16_t moart_f32_to_f16(float f);
#pragma acc routine(moart_f32_to_f16) seq
static inline float moart_sigmoidf(float a);
#pragma acc routine(moart_sigmoidf) seq
static inline double moart_sigmoid(double a);
#pragma acc routine(moart_sigmoid) seq
static inline float moart_rescalef(float a, float m);
#pragma acc routine(moart_rescalef) seq
static inline double moart_rescale(double a, double m);
#pragma acc routine(moart_rescale) seq
#endif

/* Floor division and modulo (the language's div and mod). Branch-free (`&`, not `&&`): a branch in an
 * index such as GQA's KV head (hkv*g) div hq stops GCC from vectorising the loop around it (the score's
 * dot product ran scalar: bench/NOTES.md, 2026-12-02). */
MOART_INLINE int64_t moart_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return q - (int64_t)((a % b != 0) & ((a < 0) != (b < 0)));
}

/* a % b, not a - floordiv(a, b) * b, whose product leaves int64 for a near INT64_MIN (and b = -1, for
 * which a % b itself is undefined, always leaves remainder 0). */
MOART_INLINE int64_t moart_floormod(int64_t a, int64_t b) {
  int64_t r = b == -1 ? 0 : a % b;
  return r + (b & -(int64_t)((r != 0) & ((r < 0) != (b < 0))));
}

/* a + b is NaN when either is: NaN propagates. Equal operands differ only as -0 and +0. On a CUDA device
 * the f32 pair takes a form without branches, with the same results (tests/cuda/extrema.cu): the larger, or
 * for equal operands the AND (maximum) or OR (minimum) of their bits, which is +0 (-0) for a pair of zeros
 * and the operand itself otherwise; a warp's reductions and a combine's maxima then run as selects, not as
 * branches that the lanes may take apart. */
MOART_INLINE float moart_maxf(float a, float b) {
#ifdef __CUDA_ARCH__
  const float larger = a > b ? a : b, equal = __int_as_float(__float_as_int(a) & __float_as_int(b));
  const float r = a == b ? equal : larger;
  return a != a || b != b ? a + b : r;
#else
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
#endif
}
MOART_INLINE float moart_minf(float a, float b) {
#ifdef __CUDA_ARCH__
  const float smaller = a < b ? a : b, equal = __int_as_float(__float_as_int(a) | __float_as_int(b));
  const float r = a == b ? equal : smaller;
  return a != a || b != b ? a + b : r;
#else
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
#endif
}
MOART_INLINE double moart_max(double a, double b) {
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}
MOART_INLINE double moart_min(double a, double b) {
  if (a != a || b != b)
    return a + b;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
}
MOART_INLINE int64_t moart_maxi(int64_t a, int64_t b) { return a > b ? a : b; }
MOART_INLINE int64_t moart_mini(int64_t a, int64_t b) { return a < b ? a : b; }
MOART_INLINE int64_t moart_absi(int64_t a) { return a < 0 ? -a : a; }

/* The half-precision storage formats (docs/language.md §1, docs/runtime.md): an element is held as its
 * 16-bit pattern, widened exactly to f32 on every load and rounded from f32 to nearest-even on every store.
 * bf16 is the top half of an f32 (8 exponent bits, 7 fraction bits); f16 is IEEE binary16 (5 exponent
 * bits, 10 fraction bits, largest finite 65504). Rounding keeps Inf, overflows to Inf past the largest
 * finite value's halfway point, rounds into the subnormals, and turns every NaN into a quiet NaN of the
 * same sign keeping the payload's leading bits. Bits move through a union: C99 defines it, and GCC, Clang
 * and nvcc honour it in C++. */
MOART_INLINE uint32_t moart_f32_bits(float f) {
  union {
    float f;
    uint32_t u;
  } v;
  v.f = f;
  return v.u;
}
MOART_INLINE float moart_f32_from_bits(uint32_t u) {
  union {
    float f;
    uint32_t u;
  } v;
  v.u = u;
  return v.f;
}
MOART_INLINE float moart_bf16_to_f32(uint16_t h) { return moart_f32_from_bits((uint32_t)h << 16); }
MOART_INLINE uint16_t moart_f32_to_bf16(float f) {
  uint32_t u = moart_f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet it */
    return (uint16_t)((u >> 16) | 0x0040u);
  /* adding just under half an ulp, plus the kept lowest bit, rounds ties to even; a carry out of the
   * fraction steps the exponent, up to Inf */
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
MOART_INLINE float moart_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  float sub;
  if (e == 31) /* Inf and NaN */
    return moart_f32_from_bits(sign | 0x7f800000u | (m << 13));
  if (e != 0)
    return moart_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
  sub = (float)m * 5.9604644775390625e-08f; /* m · 2^-24, exact: zero or a subnormal */
  return sign ? -sub : sub;
}
MOART_INLINE uint16_t moart_f32_to_f16(float f) {
  uint32_t u = moart_f32_bits(f), a = u & 0x7fffffffu, m, q, rest, half;
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  int shift;
  if (a > 0x7f800000u) /* NaN: quiet it, keep the payload's top 9 bits */
    return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) /* 65520, halfway from 65504 to 2^16, and above: Inf */
    return (uint16_t)(sign | 0x7c00u);
  if (a >= 0x38800000u) { /* 2^-14 and above: normal; rebias the exponent by 127 - 15 */
    a += 0xfffu + ((a >> 13) & 1u);
    return (uint16_t)(sign | ((a - 0x38000000u) >> 13));
  }
  /* below 2^-14: a subnormal (or zero), m · 2^(e - 150) in units of 2^-24 is m >> (126 - e) */
  shift = 126 - (int)(a >> 23);
  if (shift > 24)
    return sign; /* below half the least subnormal 2^-24 */
  m = (a & 0x7fffffu) | 0x800000u;
  q = m >> shift;
  rest = m & ((1u << shift) - 1u);
  half = 1u << (shift - 1);
  if (rest > half || (rest == half && (q & 1u)))
    ++q;
  return (uint16_t)(sign | q);
}
/* The logistic function 1 / (1 + e^-a) (the language's `sigmoid`, docs/language.md §5). */
MOART_INLINE float moart_sigmoidf(float a) { return 1.0f / (1.0f + expf(-a)); }
MOART_INLINE double moart_sigmoid(double a) { return 1.0 / (1.0 + exp(-a)); }

/* The online-softmax monoid's rescaling factor exp(a - m) of a partial result whose running maximum is a,
 * to the maximum m >= a; 0 when a is -inf (an empty split, or only -inf terms so far), so that such a
 * partial is the identity and never turns -inf - -inf into NaN. A difference of zero gives 1, exp(±0)
 * (C99 F.9.3.1), without the call: of an online softmax's two factors a row, the old maximum's and the
 * new term's, one is almost always exp(0), so a row pays for one exponential, not two (bench/NOTES.md,
 * 2026-12-06). Only a zero difference takes the shortcut, so Inf - Inf still gives exp(NaN). */
MOART_INLINE float moart_rescalef(float a, float m) {
  float d = a - m;
#ifdef __CUDA_ARCH__ /* the CUDA kernels already skip the old maximum's factor where it did not move (a warp's
                        test, docs/schedule.md): there the shortcut's test is only more work a row */
  return a == -INFINITY ? 0.0f : expf(d);
#else
  return a == -INFINITY ? 0.0f : d == 0.0f ? 1.0f : expf(d);
#endif
}
MOART_INLINE double moart_rescale(double a, double m) {
  double d = a - m;
#ifdef __CUDA_ARCH__
  return a == -INFINITY ? 0.0 : exp(d);
#else
  return a == -INFINITY ? 0.0 : d == 0.0 ? 1.0 : exp(d);
#endif
}

/* Chunks of a split reduction over `terms` terms for each of `items` results: enough chunks that about
 * `threads` work items run, but no chunk shorter than `chunk` terms; at least 1. The ceilings are taken
 * without adding first, so threads = INT64_MAX does not overflow, and no items or no terms (an empty
 * index space) give one chunk rather than a division by zero. */
MOART_INLINE int64_t moart_chunks(int64_t items, int64_t terms, int64_t threads, int64_t chunk) {
  int64_t wanted, most;
  if (items < 1 || terms < 1 || threads < 1)
    return 1;
  if (chunk < 1)
    chunk = 1;
  wanted = threads / items + (threads % items != 0);
  most = terms / chunk + (terms % chunk != 0);
  if (wanted > most)
    wanted = most;
  return wanted < 1 ? 1 : wanted;
}

/* The splits of each of `items` frames of a fused group on a device of `warps` warps, one split a warp
 * (moart_cuda_splits asks the current device): as many as fit in one wave (the floor of warps / items, at
 * least 1), none shorter than `chunk` terms. A pass whose warps take `pack` frame values at once holds `pack`
 * times the registers a lane, so it aims at 1 / pack of the warps.
 * The count also trades the split pass against the combine: each split's warp takes ⌈terms / P⌉ rows one
 * after another, and each result of the combine reads P partials, so their sum is least near P ∝ √terms.
 * So P is at most max(half the wave, MOART_SPLIT_BALANCE · ⌈√terms⌉): half the wave (16 warps a SM) still
 * streams at the pass's full rate. Measured on an H100 (bf16 decode, a wave of 4224 warps; µs a call):
 * n = 32k 29.6 → 23.0–23.2, 64k 37.1 → 33.0, 128k 52.5 → 47.7, the rest unchanged (bench/cuda/NOTES.md
 * #54). */
#ifndef MOART_SPLIT_BALANCE
#define MOART_SPLIT_BALANCE 8
#endif
static inline int64_t moart_wave_splits(int64_t warps, int64_t items, int64_t terms, int64_t chunk, int64_t pack) {
  int64_t fit = items < 1 ? 1 : warps / (pack < 1 ? 1 : pack) / items;
  /* ⌈√terms⌉ in double: exact below 2^52 terms, and past that far above any wave */
  double cap = MOART_SPLIT_BALANCE * ceil(sqrt((double)(terms < 1 ? 1 : terms)));
  if (cap < (double)(fit / 2))
    cap = (double)(fit / 2);
  if ((double)fit > cap)
    fit = (int64_t)cap;
  return moart_chunks(1, terms, fit < 1 ? 1 : fit, chunk);
}

/* The warps that compute one result of a combine of `partials` partials a result, on a device of `warps`
 * warps (32 a SM): with fewer results than warps, a block a result (NAME_stageN_wide) of ⌈partials / 128⌉
 * warps, at least MOART_CUDA_COMBINE_WARPS_MIN and at most MOART_CUDA_COMBINE_WARPS, and no more than the
 * device's warps / results; otherwise one warp. Measured on an H100 (bench/cuda/NOTES.md #56; batch-1
 * decode, 128 results, µs a call, bf16): 512 partials (n = 4k) 12.5 with 8 warps, 13.8 with 16, 14.6 with
 * 32; 1024 (8k) 13.8 with 8, 14.9 with 16; 2048–4224 (16k–1M) 16 best: 16k 17.1 → 15.8, 32k 22.5 → 20.8,
 * 256k 75.2 → 72.3, 1M 206.7 → 201.3 against 8, and 32 slower than either. */
#ifndef MOART_CUDA_COMBINE_WARPS_MIN
#define MOART_CUDA_COMBINE_WARPS_MIN 8
#endif
#ifndef MOART_CUDA_COMBINE_WARPS
#define MOART_CUDA_COMBINE_WARPS 16
#endif
#if MOART_CUDA_COMBINE_WARPS < 1 || MOART_CUDA_COMBINE_WARPS > 32 || MOART_CUDA_COMBINE_WARPS_MIN < 1 || \
    MOART_CUDA_COMBINE_WARPS_MIN > MOART_CUDA_COMBINE_WARPS
#error "MOART_CUDA_COMBINE_WARPS_MIN <= MOART_CUDA_COMBINE_WARPS, both 1 to 32 (a block of at most 1024 threads)"
#endif
static inline int64_t moart_combine_warps(int64_t warps, int64_t results, int64_t partials) {
  int64_t per = partials < 1 ? 1 : (partials + 127) / 128;
  if (per < MOART_CUDA_COMBINE_WARPS_MIN)
    per = MOART_CUDA_COMBINE_WARPS_MIN;
  if (per > MOART_CUDA_COMBINE_WARPS)
    per = MOART_CUDA_COMBINE_WARPS;
  if (results > 0 && per > warps / results)
    per = warps / results;
  return per < 1 ? 1 : per;
}

/* Bytes rounded up to a multiple of 64, so every workspace slot starts cache-line aligned. */
MOART_INLINE size_t moart_align64(size_t bytes) { return (bytes + 63u) & ~(size_t)63u; }

/* Checked int64 arithmetic for a kernel's extent checks (its `_workspace_layout` function, docs/abi.md):
 * the exact result, or 0 with *overflow set when the result leaves int64, a division is by zero, an
 * extent is negative or a byte size does not fit in size_t. Each tests against the limits before it
 * computes, so no check itself overflows (C99: no __builtin_mul_overflow). */
MOART_INLINE int64_t moart_add_checked(int64_t a, int64_t b, int *overflow) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) {
    *overflow = 1;
    return 0;
  }
  return a + b;
}
MOART_INLINE int64_t moart_mul_checked(int64_t a, int64_t b, int *overflow) {
  int out;
  if (a == 0 || b == 0)
    return 0;
  if (a > 0)
    out = b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a;
  else
    out = b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b;
  if (out) {
    *overflow = 1;
    return 0;
  }
  return a * b;
}
MOART_INLINE int64_t moart_floordiv_checked(int64_t a, int64_t b, int *overflow) {
  if (b == 0 || (a == INT64_MIN && b == -1)) {
    *overflow = 1;
    return 0;
  }
  return moart_floordiv(a, b);
}
MOART_INLINE int64_t moart_floormod_checked(int64_t a, int64_t b, int *overflow) {
  if (b == 0) {
    *overflow = 1;
    return 0;
  }
  return moart_floormod(a, b);
}
/* A bound on the magnitude of an integer the kernel's loops compute (docs/abi.md, "Checked extents"): it
 * must be at most 2^62, which leaves the printers' lane and step offsets room below INT64_MAX. */
MOART_INLINE int64_t moart_magnitude_checked(int64_t bound, int *overflow) {
  if (bound < 0 || bound > INT64_MAX / 2) {
    *overflow = 1;
    return 0;
  }
  return bound;
}
MOART_INLINE int64_t moart_magnitude_max(int64_t a, int64_t b) { return a > b ? a : b; }
/* Bounds of ⌊a / b⌋ and of a mod b from a bound of |a| and b's value: |a| / |b| + 1 and |b|. */
MOART_INLINE int64_t moart_magnitude_div(int64_t a, int64_t b, int *overflow) {
  if (b == 0) {
    *overflow = 1;
    return 0;
  }
  return (b == INT64_MIN ? 0 : a / (b < 0 ? -b : b)) + 1;
}
MOART_INLINE int64_t moart_magnitude_mod(int64_t b, int *overflow) {
  if (b == 0 || b == INT64_MIN) {
    *overflow = 1;
    return 0;
  }
  return b < 0 ? -b : b;
}
/* An extent: it must not be negative. */
MOART_INLINE int64_t moart_extent_checked(int64_t extent, int *overflow) {
  if (extent < 0) {
    *overflow = 1;
    return 0;
  }
  return extent;
}
/* The bytes of `count` elements of `size` bytes, rounded up to a multiple of 64 (a workspace slot). */
MOART_INLINE int64_t moart_bytes_checked(int64_t count, size_t size, int *overflow) {
  int64_t bytes = moart_mul_checked(moart_extent_checked(count, overflow), (int64_t)size, overflow);
  if (bytes > INT64_MAX - 63) {
    *overflow = 1;
    return 0;
  }
  return (bytes + 63) & ~(int64_t)63;
}
/* A total in bytes as a size_t. */
MOART_INLINE size_t moart_size_checked(int64_t bytes, int *overflow) {
  (void)overflow; /* needed only where size_t is narrower than int64_t */
#if SIZE_MAX < INT64_MAX
  if (bytes > (int64_t)SIZE_MAX) {
    *overflow = 1;
    return 0;
  }
#endif
  return bytes < 0 ? 0 : (size_t)bytes;
}

#ifdef __CUDACC__
/* CUDA kernels (moac --target=cuda, docs/schedule.md "CUDA"): the sum, maximum, minimum and product of a
 * value over the 32 lanes of a warp, in every lane; or, with `width` (a power of two) below 32, over each
 * aligned group of `width` lanes on its own (a packed split pass: a group a query head). The butterfly
 * adds the same two values in every lane of a pair (a + b == b + a exactly), so every lane ends with the
 * same bits. Every lane of the warp calls it. */
#define MOART_WARP_REDUCE(NAME, T, OP)                                                                     \
  static inline __device__ T NAME(T x, int width = 32) {                                                   \
    for (int offset = width / 2; offset > 0; offset >>= 1)                                                 \
      x = OP(x, __shfl_xor_sync(0xffffffffu, x, offset));                                                  \
    return x;                                                                                              \
  }
#define MOART_ADD_(a, b) ((a) + (b))
#define MOART_MUL_(a, b) ((a) * (b))
MOART_WARP_REDUCE(moart_warp_addf, float, MOART_ADD_)
MOART_WARP_REDUCE(moart_warp_add, double, MOART_ADD_)
MOART_WARP_REDUCE(moart_warp_addi, long long, MOART_ADD_)
MOART_WARP_REDUCE(moart_warp_mulf, float, MOART_MUL_)
MOART_WARP_REDUCE(moart_warp_mul, double, MOART_MUL_)
MOART_WARP_REDUCE(moart_warp_muli, long long, MOART_MUL_)
MOART_WARP_REDUCE(moart_warp_maxf, float, moart_maxf)
MOART_WARP_REDUCE(moart_warp_max, double, moart_max)
MOART_WARP_REDUCE(moart_warp_maxi, long long, moart_maxi)
MOART_WARP_REDUCE(moart_warp_minf, float, moart_minf)
MOART_WARP_REDUCE(moart_warp_min, double, moart_min)
MOART_WARP_REDUCE(moart_warp_mini, long long, moart_mini)

/* The same over the `width` threads that compute one result of a combine (`width` a multiple of 32): a
 * warp, or a whole block of width / 32 warps (a block a result), whose warps' sums are exchanged through
 * `scratch` (32 elements of __shared__ memory) and combined by a second butterfly in every warp (lane w
 * takes warp w's sum, the lanes past the block's warps the operation's identity ID), so that every thread
 * ends with the same bits in five dependent steps rather than one a warp. Every thread of the block calls
 * it, each with the same `width`. */
#define MOART_GROUP_REDUCE(NAME, WARP, T, ID)                                                              \
  static inline __device__ T NAME(T x, int width, void *scratch) {                                         \
    x = WARP(x, 32);                                                                                       \
    if (width <= 32)                                                                                       \
      return x;                                                                                            \
    T *s = (T *)scratch;                                                                                   \
    __syncthreads(); /* every thread is done with the scratch's last sums */                              \
    if ((threadIdx.x & 31u) == 0)                                                                          \
      s[threadIdx.x >> 5] = x;                                                                             \
    __syncthreads();                                                                                       \
    x = (int)(threadIdx.x & 31u) < width / 32 ? s[threadIdx.x & 31u] : (T)(ID);                           \
    return WARP(x, 32);                                                                                    \
  }
MOART_GROUP_REDUCE(moart_group_addf, moart_warp_addf, float, -0.0f)
MOART_GROUP_REDUCE(moart_group_add, moart_warp_add, double, -0.0)
MOART_GROUP_REDUCE(moart_group_addi, moart_warp_addi, long long, 0)
MOART_GROUP_REDUCE(moart_group_mulf, moart_warp_mulf, float, 1.0f)
MOART_GROUP_REDUCE(moart_group_mul, moart_warp_mul, double, 1.0)
MOART_GROUP_REDUCE(moart_group_muli, moart_warp_muli, long long, 1)
MOART_GROUP_REDUCE(moart_group_maxf, moart_warp_maxf, float, -INFINITY)
MOART_GROUP_REDUCE(moart_group_max, moart_warp_max, double, -INFINITY)
MOART_GROUP_REDUCE(moart_group_maxi, moart_warp_maxi, long long, INT64_MIN)
MOART_GROUP_REDUCE(moart_group_minf, moart_warp_minf, float, INFINITY)
MOART_GROUP_REDUCE(moart_group_min, moart_warp_min, double, INFINITY)
MOART_GROUP_REDUCE(moart_group_mini, moart_warp_mini, long long, INT64_MAX)
#undef MOART_GROUP_REDUCE
#undef MOART_WARP_REDUCE
#undef MOART_ADD_
#undef MOART_MUL_

/* Four adjacent bf16 or f16 elements loaded as one 8-byte uint2 (element 0 in the low half of .x), widened
 * to a float4 exactly as moart_bf16_to_f32 and moart_f16_to_f32 widen each: the lane loops' groups of four
 * over a half-precision input (docs/schedule.md, "CUDA"). */
static inline __device__ float4 moart_cuda_bf16x4(uint2 u) {
  return make_float4(__uint_as_float(u.x << 16), __uint_as_float(u.x & 0xffff0000u), __uint_as_float(u.y << 16),
                     __uint_as_float(u.y & 0xffff0000u));
}
static inline __device__ float4 moart_cuda_f16x4(uint2 u) {
  return make_float4(moart_f16_to_f32((uint16_t)(u.x & 0xffffu)), moart_f16_to_f32((uint16_t)(u.x >> 16)),
                     moart_f16_to_f32((uint16_t)(u.y & 0xffffu)), moart_f16_to_f32((uint16_t)(u.y >> 16)));
}

/* Tensor-core tiles of a split pass (docs/schedule.md, "Tensor-core tiles"): one warp-wide
 * mma.sync.m16n8k16 with f32 accumulators, d += a·b, its operands two elements a 32-bit register (element
 * 0 in the low half) in bf16 or f16 (sm_80 and later; the generated kernels test __CUDA_ARCH__ before
 * taking this path). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define MOART_CUDA_MMA 1
#define MOART_CUDA_MMA_(name, type)                                                                              \
  static inline __device__ void name(float4 *d, uint4 a, uint2 b) {                                            \
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." type "." type ".f32 {%0, %1, %2, %3}, "             \
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"                                               \
                 : "+f"(d->x), "+f"(d->y), "+f"(d->z), "+f"(d->w)                                              \
                 : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y));                                \
  }
#else
#define MOART_CUDA_MMA 0
#define MOART_CUDA_MMA_(name, type)                                                                              \
  static inline __device__ void name(float4 *d, uint4 a, uint2 b) { (void)d, (void)a, (void)b; }
#endif
MOART_CUDA_MMA_(moart_cuda_mma_bf16, "bf16")
MOART_CUDA_MMA_(moart_cuda_mma_f16, "f16")
#undef MOART_CUDA_MMA_
/* Two floats as a register of two bf16 or f16 elements (lo in the low half), each rounded to nearest-even
 * as moart_f32_to_bf16 and moart_f32_to_f16 round; and the part of each that the rounding lost, so that
 * hi + lo carries 16 (bf16) or 22 (f16) bits of the float: a weight of the online softmax is an operand
 * of two products, never one rounded to 8 bits. */
static inline __device__ uint32_t moart_cuda_bf16x2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (uint32_t)moart_f32_to_bf16(lo) | (uint32_t)moart_f32_to_bf16(hi) << 16;
#endif
}
static inline __device__ uint32_t moart_cuda_f16x2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  uint32_t r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
#else
  return (uint32_t)moart_f32_to_f16(lo) | (uint32_t)moart_f32_to_f16(hi) << 16;
#endif
}
static inline __device__ void moart_cuda_split_bf16x2(float lo, float hi, uint32_t *big, uint32_t *rest) {
  *big = moart_cuda_bf16x2(lo, hi);
  *rest = moart_cuda_bf16x2(lo - __uint_as_float(*big << 16), hi - __uint_as_float(*big & 0xffff0000u));
}
static inline __device__ void moart_cuda_split_f16x2(float lo, float hi, uint32_t *big, uint32_t *rest) {
  *big = moart_cuda_f16x2(lo, hi);
  *rest = moart_cuda_f16x2(lo - moart_f16_to_f32((uint16_t)(*big & 0xffffu)),
                           hi - moart_f16_to_f32((uint16_t)(*big >> 16)));
}
/* Eight floats (a lane's group of eight of an f32 row) as three registers-of-eight of bf16 whose sum is the
 * float to within 2^-24 of it (each part the rounding's remainder of the one before): an f32 operand of a
 * bf16 product, exact to f32's precision, in three tensor-core products. */
static inline __device__ void moart_cuda_split_bf16x8(float4 a, float4 b, uint4 *p0, uint4 *p1, uint4 *p2) {
  float x[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  uint32_t w[3][4];
  for (int i = 0; i < 4; ++i) {
    float lo = x[2 * i], hi = x[2 * i + 1];
    for (int p = 0; p < 3; ++p) {
      w[p][i] = moart_cuda_bf16x2(lo, hi);
      lo -= __uint_as_float(w[p][i] << 16);
      hi -= __uint_as_float(w[p][i] & 0xffff0000u);
    }
  }
  *p0 = make_uint4(w[0][0], w[0][1], w[0][2], w[0][3]);
  *p1 = make_uint4(w[1][0], w[1][1], w[1][2], w[1][3]);
  *p2 = make_uint4(w[2][0], w[2][1], w[2][2], w[2][3]);
}

/* The barrier after a combine's stores that other threads of its result read: a warp's, or the block's. */
static inline __device__ void moart_group_sync(int width) {
  if (width > 32)
    __syncthreads();
  else
    __syncwarp();
}

/* Programmatic dependent launch (sm_90 and later): the launcher starts each stage with
 * moart_cuda_launch_config, which lets it begin while the kernel before it in the stream (the previous
 * stage, or the caller's) still runs: its launch overlaps that kernel's last blocks. Every moac kernel
 * lets the next start at once (moart_cuda_start_next) and then waits, before its first access, until the
 * kernel before it has finished and its stores are seen (moart_cuda_wait_previous; at once when it was
 * launched without the attribute). Older devices launch as before. */
static inline __device__ void moart_cuda_start_next(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
static inline __device__ void moart_cuda_wait_previous(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
static inline cudaLaunchConfig_t moart_cuda_launch_config(int64_t blocks, int threads, cudaStream_t stream,
                                                          cudaLaunchAttribute *attribute) {
  cudaLaunchConfig_t config = {};
  int device = 0, major = 0;
  config.gridDim = dim3((unsigned)blocks, 1, 1);
  config.blockDim = dim3((unsigned)threads, 1, 1);
  config.stream = stream;
  attribute->id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute->val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = cudaGetDevice(&device) == cudaSuccess &&
                            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                            major >= 9
                        ? 1
                        : 0;
  return config;
}

/* The split count's aim on the current device: 32 warps on each SM (half of what an SM keeps resident:
 * measured faster than 64 at batch 1, where the combine reads P partials; bench/cuda/NOTES.md);
 * 1 when no device answers (the launch then fails and reports it). A split pass's kernel is compiled
 * for that many resident warps (__launch_bounds__), so that its registers never make a second wave. */
#ifndef MOART_CUDA_SPLIT_WARPS_PER_SM
#define MOART_CUDA_SPLIT_WARPS_PER_SM 32
#endif
static inline int64_t moart_cuda_device_warps(void) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || sms < 1)
    return 1;
  return (int64_t)sms * MOART_CUDA_SPLIT_WARPS_PER_SM;
}

/* The threads that compute one result of a combine (a stage that reduces the partials of P splits):
 * moart_combine_warps on the current device (the warps a result, times 32). */
/* A combine whose results each read at most MOART_CUDA_THIN_COMBINE partials (a batched GQA's few splits a
 * head) runs a thread a result instead (NAME_stageN_thin), the partials read in turn: a warp a result would
 * leave most of its lanes idle and the device would run the results in many short waves. 16 measured
 * better than 8 (GQA B=8, 16 splits a head: 293.7 µs a call against 305.0; bench/cuda/NOTES.md). */
#ifndef MOART_CUDA_THIN_COMBINE
#define MOART_CUDA_THIN_COMBINE 16
#endif
static inline int moart_cuda_combine_width(int64_t results, int64_t partials) {
  return 32 * (int)moart_combine_warps(moart_cuda_device_warps(), results, partials);
}

/* moart_wave_splits on the current device: the floor of its warps / items, not the ceiling (moart_chunks
 * alone would start a second wave for a few warps, each a whole split long: 256 frames × 17 splits on 4224
 * warps took 1.4× as long as 256 × 16, bench/cuda/NOTES.md). */
static inline int64_t moart_cuda_splits(int64_t items, int64_t terms, int64_t chunk, int64_t pack) {
  return moart_wave_splits(moart_cuda_device_warps(), items, terms, chunk, pack);
}
#endif

#ifdef __cplusplus
}
#endif

#endif
