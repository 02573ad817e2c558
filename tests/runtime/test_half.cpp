// test_half.cpp - the bf16 and f16 conversions of moart/kernel.h: round to nearest-even from f32 (ties,
// the largest finite value, overflow to Inf, subnormals, NaN quieted with its sign), exact widening, and
// every 16-bit pattern through a round trip; the half-precision fill, poison, norms and print.
#include <catch2/catch.hpp>

#include "moart/moart.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

namespace {
float fromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
} // namespace

TEST_CASE("bf16 rounds to nearest, ties to even", "[half]") {
  CHECK(moart_f32_to_bf16(1.0f) == 0x3f80);
  CHECK(moart_f32_to_bf16(fromBits(0x3f808000u)) == 0x3f80); // tie, 0x3f80 even
  CHECK(moart_f32_to_bf16(fromBits(0x3f818000u)) == 0x3f82); // tie, 0x3f81 odd: up
  CHECK(moart_f32_to_bf16(fromBits(0x3f808001u)) == 0x3f81); // just above the tie
  CHECK(moart_f32_to_bf16(fromBits(0x3f807fffu)) == 0x3f80); // just below
  CHECK(moart_f32_to_bf16(-2.5f) == 0xc020);
  CHECK(moart_f32_to_bf16(-0.0f) == 0x8000);
}

TEST_CASE("bf16 keeps its largest finite value and overflows to Inf", "[half]") {
  CHECK(moart_f32_to_bf16(fromBits(0x7f7f7fffu)) == 0x7f7f); // below the tie: the largest finite bf16
  CHECK(moart_f32_to_bf16(fromBits(0x7f7f8000u)) == 0x7f80); // the tie, 0x7f7f odd: Inf
  CHECK(moart_f32_to_bf16(fromBits(0x7f7fffffu)) == 0x7f80); // FLT_MAX
  CHECK(moart_f32_to_bf16(INFINITY) == 0x7f80);
  CHECK(moart_f32_to_bf16(-INFINITY) == 0xff80);
  CHECK(moart_bf16_to_f32(0x7f7f) == fromBits(0x7f7f0000u));
}

TEST_CASE("bf16 subnormals", "[half]") {
  CHECK(moart_f32_to_bf16(fromBits(0x00010000u)) == 0x0001); // 2^-133, the least bf16 subnormal
  CHECK(moart_bf16_to_f32(0x0001) == std::ldexp(1.0f, -133));
  CHECK(moart_f32_to_bf16(fromBits(0x00008000u)) == 0x0000); // half of it: a tie, to even 0
  CHECK(moart_f32_to_bf16(fromBits(0x00008001u)) == 0x0001);
  CHECK(moart_f32_to_bf16(fromBits(0x80000001u)) == 0x8000); // the least f32 subnormal: -0
  CHECK(moart_f32_to_bf16(fromBits(0x007fffffu)) == 0x0080); // rounds up into the normals
}

TEST_CASE("bf16 quiets NaN and keeps its sign", "[half]") {
  CHECK(moart_f32_to_bf16(fromBits(0x7f800001u)) == 0x7fc0); // a signalling NaN whose payload is all below
  CHECK(moart_f32_to_bf16(fromBits(0xff812345u)) == 0xffc1); // the payload's leading bits stay
  CHECK(moart_f32_to_bf16(NAN) == 0x7fc0);
  CHECK(std::isnan(moart_bf16_to_f32(0x7f81)));
}

TEST_CASE("f16 rounds to nearest, ties to even", "[half]") {
  CHECK(moart_f32_to_f16(1.0f) == 0x3c00);
  CHECK(moart_f32_to_f16(fromBits(0x3f801000u)) == 0x3c00); // 1 + 2^-11: tie, to even
  CHECK(moart_f32_to_f16(fromBits(0x3f803000u)) == 0x3c02); // 1 + 3·2^-11: tie, up to even
  CHECK(moart_f32_to_f16(fromBits(0x3f801001u)) == 0x3c01);
  CHECK(moart_f32_to_f16(-2.0f) == 0xc000);
  CHECK(moart_f32_to_f16(-0.0f) == 0x8000);
  CHECK(moart_f32_to_f16(0.1f) == 0x2e66);
}

TEST_CASE("f16 keeps 65504 and overflows to Inf from 65520", "[half]") {
  CHECK(moart_f32_to_f16(65504.0f) == 0x7bff);
  CHECK(moart_f32_to_f16(fromBits(0x477fefffu)) == 0x7bff); // just below 65520
  CHECK(moart_f32_to_f16(65520.0f) == 0x7c00);              // the tie, 0x7bff odd: Inf
  CHECK(moart_f32_to_f16(fromBits(0x7f7fffffu)) == 0x7c00);
  CHECK(moart_f32_to_f16(INFINITY) == 0x7c00);
  CHECK(moart_f32_to_f16(-INFINITY) == 0xfc00);
  CHECK(moart_f32_to_f16(-1e6f) == 0xfc00);
  CHECK(moart_f16_to_f32(0x7bff) == 65504.0f);
}

TEST_CASE("f16 subnormals", "[half]") {
  const float least = std::ldexp(1.0f, -24);
  CHECK(moart_f32_to_f16(least) == 0x0001);
  CHECK(moart_f16_to_f32(0x0001) == least);
  CHECK(moart_f32_to_f16(least / 2) == 0x0000);                       // a tie, to even 0
  CHECK(moart_f32_to_f16(std::nextafter(least / 2, 1.0f)) == 0x0001); // above the tie
  CHECK(moart_f32_to_f16(least / 4) == 0x0000);
  CHECK(moart_f32_to_f16(1.5f * least) == 0x0002); // tie between 1 and 2: to even
  CHECK(moart_f32_to_f16(2.5f * least) == 0x0002); // tie between 2 and 3: to even
  CHECK(moart_f32_to_f16(1023 * least) == 0x03ff); // the largest subnormal
  CHECK(moart_f16_to_f32(0x03ff) == 1023 * least);
  CHECK(moart_f32_to_f16(1023.5f * least) == 0x0400); // tie, 0x3ff odd: up to the least normal
  CHECK(moart_f32_to_f16(std::ldexp(1.0f, -14)) == 0x0400);
  CHECK(moart_f32_to_f16(-least) == 0x8001);
  CHECK(moart_f16_to_f32(0x8000) == 0.0f);
  CHECK(std::signbit(moart_f16_to_f32(0x8000)));
  CHECK(moart_f32_to_f16(fromBits(0x00000001u)) == 0x0000); // an f32 subnormal
}

TEST_CASE("f16 quiets NaN and keeps its sign", "[half]") {
  CHECK(moart_f32_to_f16(fromBits(0x7f800001u)) == 0x7e00);
  CHECK(moart_f32_to_f16(fromBits(0xff802000u)) == 0xfe01); // payload's leading bits kept
  CHECK(moart_f32_to_f16(NAN) == 0x7e00);
  CHECK(std::isnan(moart_f16_to_f32(0x7c01)));
  CHECK(std::isinf(moart_f16_to_f32(0x7c00)));
}

TEST_CASE("every bf16 and f16 value widens exactly and rounds back to itself", "[half]") {
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const uint16_t b = uint16_t(h);
    float wb = moart_bf16_to_f32(b), wf = moart_f16_to_f32(b);
    if (std::isnan(wb))
      CHECK(std::isnan(moart_bf16_to_f32(moart_f32_to_bf16(wb))));
    else if (moart_f32_to_bf16(wb) != b)
      FAIL("bf16 " << h);
    if (std::isnan(wf))
      CHECK(std::isnan(moart_f16_to_f32(moart_f32_to_f16(wf))));
    else if (moart_f32_to_f16(wf) != b)
      FAIL("f16 " << h);
  }
}

TEST_CASE("half-precision arrays: fill exactly representable, poison NaN, norms, print", "[half]") {
  const int64_t shape[1] = {64};
  for (moart_dtype dtype : {MOART_BF16, MOART_F16}) {
    moart_array a, b;
    REQUIRE(moart_array_create(&a, dtype, 1, shape) == MOART_OK);
    REQUIRE(moart_array_create(&b, dtype, 1, shape) == MOART_OK);
    CHECK(moart_dtype_size(dtype) == 2);
    REQUIRE(moart_fill_uniform(&a, 42, 3) == MOART_OK);
    const uint16_t *bits = static_cast<const uint16_t *>(a.data);
    for (int64_t i = 0; i < 64; ++i) {
      float want = dtype == MOART_BF16 ? moart_fill_value_bf16(42, 3, i) : moart_fill_value_f16(42, 3, i);
      float got = dtype == MOART_BF16 ? moart_bf16_to_f32(bits[i]) : moart_f16_to_f32(bits[i]);
      CHECK(got == want); // the stored value is the fill's value: it was exact
      CHECK(got >= -1.0f);
      CHECK(got < 1.0f);
    }
    REQUIRE(moart_array_relayout(&a, &b) == MOART_OK);
    moart_norms n;
    REQUIRE(moart_compare(&a, &b, &n) == MOART_OK);
    CHECK(n.max_abs == 0);
    CHECK(n.nonfinite == 0);
    static_cast<uint16_t *>(b.data)[5] ^= 1; // one ulp away
    REQUIRE(moart_compare(&a, &b, &n) == MOART_OK);
    CHECK(n.max_abs > 0);
    CHECK(n.worst_index == 5);
    REQUIRE(moart_fill_poison(&b) == MOART_OK);
    REQUIRE(moart_compare(&a, &b, &n) == MOART_OK);
    CHECK(n.nonfinite == 64);
    moart_array_free(&a);
    moart_array_free(&b);
  }
  CHECK(std::string(moart_dtype_name(MOART_BF16)) == "bf16");
  CHECK(std::string(moart_dtype_name(MOART_F16)) == "f16");
  // the fill's formula: (bits >> 56)·2^-7 − 1 and (bits >> 53)·2^-10 − 1
  CHECK(moart_fill_value_bf16(42, 7, 0) ==
        float(double(moart_fill_bits(42, 7, 0) >> 56) / 128.0 - 1.0));
  CHECK(moart_fill_value_f16(42, 7, 1) ==
        float(double(moart_fill_bits(42, 7, 1) >> 53) / 1024.0 - 1.0));
}
