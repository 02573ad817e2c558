// bf16 and f16 in the interpreter (docs/language.md §1): storage formats only. A half-precision input is
// read as f32, arithmetic on it is f32 (or f64 with an f64 operand), a typed output and the update of a
// half-precision inout are rounded to nearest-even once, on the store, and later bindings read the
// rounded values. The interpreter's rounding, written from the definition (ArrayOps.cpp), agrees with
// libmoart's bit-level conversions (moart/kernel.h) that the kernels use, on every float tried.
#include "Interp.h"

#include "ArrayOps.h"

#include <moart/kernel.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace moac;
using namespace moac::test;

namespace {
float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// The same value: equal, or both NaN.
bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
} // namespace

TEST_CASE("the interpreter's half-precision rounding is libmoart's", "[interp][half]") {
  // every 2^11-th float pattern (all exponents, signs, subnormals, NaN and Inf), and the patterns
  // around every bf16 and f16 tie: exact ties, one below, one above
  uint64_t mismatches = 0;
  auto compare = [&](uint32_t u) {
    float f = fromBits(u);
    mismatches += !same(roundTo(ElemType::BF16, f), moart_bf16_to_f32(moart_f32_to_bf16(f)));
    mismatches += !same(roundTo(ElemType::F16, f), moart_f16_to_f32(moart_f32_to_f16(f)));
  };
  for (uint64_t u = 0; u <= 0xffffffffu; u += 0x800)
    compare(uint32_t(u) | uint32_t(u >> 21)); // vary the low bits too
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    uint32_t bfTie = (h << 16) | 0x8000u, f16 = moart_f32_bits(moart_f16_to_f32(uint16_t(h)));
    for (uint32_t u : {bfTie, bfTie - 1, bfTie + 1, f16 + 0x1000u, f16 + 0xfffu, f16 + 0x1001u})
      compare(u);
  }
  CHECK(mismatches == 0);
  CHECK(roundTo(ElemType::F16, 65519.99) == 65504);
  CHECK(roundTo(ElemType::F16, 65520) == std::numeric_limits<double>::infinity());
  CHECK(roundTo(ElemType::BF16, 1 + std::ldexp(1.0, -8)) == 1);            // a tie: to even
  CHECK(roundTo(ElemType::BF16, 1 + 3 * std::ldexp(1.0, -8)) == 1 + std::ldexp(1.0, -6));
  CHECK(roundTo(ElemType::F16, std::ldexp(1.0, -25)) == 0);                  // half the least subnormal
  CHECK(roundTo(ElemType::F16, std::ldexp(3.0, -26)) == std::ldexp(1.0, -24));
}

TEST_CASE("a half-precision read is f32 and a typed output rounds once, on store", "[interp][half]") {
  const double tie = 1 + std::ldexp(1.0, -8), up = 1 + std::ldexp(3.0, -9);
  // x * 1 is x in f32; stored to bf16 the tie goes to even (1) and 1 + 3·2^-9 up to 1 + 2^-7
  std::vector<NDArray> out = runAll("dim n\nin x : f32[n]\nout r : bf16 = x * 1.0\nout s = x * 1.0",
                                    dims({{"n", 2}}), {array({2}, {tie, up})});
  CHECK(out[0].data == std::vector<double>{1, 1 + std::ldexp(1.0, -7)});
  CHECK(out[1].data == std::vector<double>{tie, up}); // untyped: f32
  // a sum of bf16 values accumulates in f32 (1 + 2^-9 + 2^-9 is not 1), rounded once
  std::vector<NDArray> sums = runAll("dim n\nin a : bf16[n]\nout r : bf16 = +/ a\nout s = +/ a", dims({{"n", 3}}),
                                     {array({3}, {1, std::ldexp(1.0, -9), std::ldexp(1.0, -9)})});
  CHECK(sums[0].data == std::vector<double>{1}); // 1 + 2^-8 stored: a tie, to even
  CHECK(sums[1].data == std::vector<double>{1 + std::ldexp(1.0, -8)});
}

TEST_CASE("later bindings read a half-precision output as stored", "[interp][half]") {
  const double up = 1 + std::ldexp(3.0, -9); // 1 + 3·2^-9: f16 keeps it, bf16 rounds it to 1 + 2^-7
  std::vector<NDArray> out =
      runAll("dim n\nin x : f32[n]\nout r : bf16 = x * 1.0\nout s = r - x\nout h : f16 = x * 1.0\nout t = h - x",
             dims({{"n", 1}}), {array({1}, {up})});
  CHECK(out[1].data == std::vector<double>{std::ldexp(1.0, -9)});
  CHECK(out[3].data == std::vector<double>{0});
}

TEST_CASE("the update of a bf16 inout is rounded, and read back rounded", "[interp][half]") {
  const double up = 1 + std::ldexp(3.0, -9);
  std::vector<NDArray> out = runAll("dim t, cap\nin k : f32\ninout K : bf16[cap]\nK = (t take K) cat k\nout s = +/ K",
                                    dims({{"t", 1}, {"cap", 3}}), {array({}, {up}), array({3}, {2, 5, 7})});
  CHECK(out[0].data == std::vector<double>{2 + 1 + std::ldexp(1.0, -7)});
  CHECK(out[1].data == std::vector<double>{2, 1 + std::ldexp(1.0, -7), 7}); // the storage after the update
}

TEST_CASE("an f64 operand makes a half-precision computation f64", "[interp][half]") {
  Checked c = check("dim n\nin a : bf16[n]\nin w : f64[n]\nout o = a * w\nout p = a * 0.5");
  REQUIRE(c.program);
  CHECK(c.program->bindings[0]->value->type.elem == ElemType::F64);
  CHECK(c.program->bindings[1]->value->type.elem == ElemType::F32);
  CHECK(c.program->inputs[0].elem == ElemType::BF16);
}
