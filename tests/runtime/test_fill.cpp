// test_fill.cpp - the seeded fill (moart/fill.h) against the formula in
// docs/runtime.md, and its determinism, range and layout independence.
#include <catch2/catch.hpp>

#include "moart/moart.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {
struct Array {
  moart_array a;
  Array(moart_dtype dtype, std::vector<int64_t> shape) {
    REQUIRE(moart_array_create(&a, dtype, static_cast<int>(shape.size()),
                               shape.data()) == MOART_OK);
  }
  ~Array() { moart_array_free(&a); }
};
} // namespace

TEST_CASE("splitmix64 matches the published SplitMix64 outputs", "[fill]") {
  // The first two outputs of the reference SplitMix64 generator seeded with 0
  // (Vigna, splitmix64.c): state 0 and state 0 + gamma.
  CHECK(moart_splitmix64(0) == UINT64_C(0xE220A8397B1DCDAF));
  CHECK(moart_splitmix64(UINT64_C(0x9E3779B97F4A7C15)) ==
        UINT64_C(0x6E789E6AA1B965F4));
}

TEST_CASE("fill bits and values follow the documented formula", "[fill]") {
  // Computed with Python integers from the formula in docs/runtime.md:
  // key = sm(sm(42) ^ 7), bits_i = sm(key + i * gamma).
  CHECK(moart_fill_bits(42, 7, 0) == UINT64_C(0x55BE888977820BEF));
  CHECK(moart_fill_bits(42, 7, 1) == UINT64_C(0x62CD1D983D0525E0));
  CHECK(moart_fill_value_f64(42, 7, 0) == -0x1.520bbbb443efcp-2);
  CHECK(moart_fill_value_f64(42, 7, 1) == -0x1.d32e267c2fae0p-3);
  CHECK(moart_fill_value_f32(42, 7, 0) == -0x1.520bcp-2f);
  CHECK(moart_fill_value_f32(42, 7, 1) == -0x1.d32e3p-3f);
  CHECK(moart_fill_value_i64(42, 7, 0) == -346159);
  CHECK(moart_fill_value_i64(42, 7, 1) == -239197);
}

TEST_CASE("fill_uniform agrees with the per-element values", "[fill]") {
  Array f32(MOART_F32, {4, 5}), f64(MOART_F64, {4, 5}), i64(MOART_I64, {20});
  REQUIRE(moart_fill_uniform(&f32.a, 42, 7) == MOART_OK);
  REQUIRE(moart_fill_uniform(&f64.a, 42, 7) == MOART_OK);
  REQUIRE(moart_fill_uniform(&i64.a, 42, 7) == MOART_OK);
  for (int64_t i = 0; i < 20; ++i) {
    CHECK(static_cast<float *>(f32.a.data)[i] ==
          moart_fill_value_f32(42, 7, i));
    CHECK(static_cast<double *>(f64.a.data)[i] ==
          moart_fill_value_f64(42, 7, i));
    CHECK(static_cast<int64_t *>(i64.a.data)[i] ==
          moart_fill_value_i64(42, 7, i));
  }
}

TEST_CASE("fill is deterministic and depends on seed and stream", "[fill]") {
  Array a(MOART_F64, {1000}), b(MOART_F64, {1000}), c(MOART_F64, {1000}),
      d(MOART_F64, {1000});
  REQUIRE(moart_fill_uniform(&a.a, 1, 0) == MOART_OK);
  REQUIRE(moart_fill_uniform(&b.a, 1, 0) == MOART_OK);
  REQUIRE(moart_fill_uniform(&c.a, 2, 0) == MOART_OK);
  REQUIRE(moart_fill_uniform(&d.a, 1, 1) == MOART_OK);
  CHECK(std::memcmp(a.a.data, b.a.data, 8000) == 0);
  int sameSeed = 0, sameStream = 0;
  for (int i = 0; i < 1000; ++i) {
    sameSeed += static_cast<double *>(a.a.data)[i] ==
                static_cast<double *>(c.a.data)[i];
    sameStream += static_cast<double *>(a.a.data)[i] ==
                  static_cast<double *>(d.a.data)[i];
  }
  CHECK(sameSeed == 0);
  CHECK(sameStream == 0);
}

TEST_CASE("fill values lie in their documented ranges", "[fill]") {
  const int64_t n = 200000;
  Array f32(MOART_F32, {n}), f64(MOART_F64, {n}), i64(MOART_I64, {n});
  REQUIRE(moart_fill_uniform(&f32.a, 3, 9) == MOART_OK);
  REQUIRE(moart_fill_uniform(&f64.a, 3, 9) == MOART_OK);
  REQUIRE(moart_fill_uniform(&i64.a, 3, 9) == MOART_OK);
  const auto *x = static_cast<const float *>(f32.a.data);
  const auto *y = static_cast<const double *>(f64.a.data);
  const auto *z = static_cast<const int64_t *>(i64.a.data);
  double lo = 1, hi = -1, sum = 0;
  int64_t zlo = INT64_MAX, zhi = INT64_MIN;
  for (int64_t i = 0; i < n; ++i) {
    REQUIRE(y[i] >= -1.0);
    REQUIRE(y[i] < 1.0);
    REQUIRE(x[i] >= -1.0f);
    REQUIRE(x[i] < 1.0f);
    // f32 is the f64 value rounded down to a multiple of 2^-23.
    REQUIRE(static_cast<double>(x[i]) == std::floor(y[i] * 0x1p23) * 0x1p-23);
    REQUIRE(z[i] >= -(INT64_C(1) << 20));
    REQUIRE(z[i] < (INT64_C(1) << 20));
    lo = std::fmin(lo, y[i]);
    hi = std::fmax(hi, y[i]);
    sum += y[i];
    zlo = std::min(zlo, z[i]);
    zhi = std::max(zhi, z[i]);
  }
  // Uniform: both ends are reached and the mean is near 0 (sd of the mean
  // is 1/sqrt(3n) ~ 0.0013).
  CHECK(lo < -0.9999);
  CHECK(hi > 0.9999);
  CHECK(std::fabs(sum / n) < 0.01);
  CHECK(zlo < -(INT64_C(1) << 20) + 100);
  CHECK(zhi > (INT64_C(1) << 20) - 100);
}

TEST_CASE("fill of a lifted array is the packed row-major fill",
          "[fill][layout]") {
  const int64_t shape[] = {5, 3};
  moart_array lifted;
  REQUIRE(moart_array_create_lifted(&lifted, MOART_F32, 2, shape, 4) ==
          MOART_OK);
  std::memset(lifted.data, 0xff,
              moart_array_bytes(&lifted)); // padding must be reset
  REQUIRE(moart_fill_uniform(&lifted, 11, 2) == MOART_OK);
  Array rowMajor(MOART_F32, {5, 3});
  REQUIRE(moart_fill_uniform(&rowMajor.a, 11, 2) == MOART_OK);
  std::vector<float> packed(static_cast<size_t>(moart_lifted_count(5, 3, 4)));
  moart_pack_lifted_f32(static_cast<const float *>(rowMajor.a.data),
                        packed.data(), 5, 3, 4);
  CHECK(std::memcmp(packed.data(), lifted.data,
                    packed.size() * sizeof(float)) == 0);
  moart_array_free(&lifted);
}

TEST_CASE("fill of an array lifted on an inner axis is the relayout of the "
          "row-major fill",
          "[fill][layout]") {
  const int64_t shape[] = {2, 3, 70, 5};
  moart_dtype dtype = GENERATE(MOART_F32, MOART_F64, MOART_I64);
  int axis = GENERATE(1, 2, 3);
  CAPTURE(moart_dtype_name(dtype), axis);
  moart_array lifted, expected;
  REQUIRE(moart_array_create_lifted_axis(&lifted, dtype, 4, shape, axis, 32) ==
          MOART_OK);
  REQUIRE(moart_array_create_lifted_axis(&expected, dtype, 4, shape, axis,
                                         32) == MOART_OK);
  std::memset(lifted.data, 0xff,
              moart_array_bytes(&lifted)); // padding must be reset
  REQUIRE(moart_fill_uniform(&lifted, 11, 2) == MOART_OK);
  Array rowMajor(dtype, {2, 3, 70, 5});
  REQUIRE(moart_fill_uniform(&rowMajor.a, 11, 2) == MOART_OK);
  REQUIRE(moart_array_relayout(&rowMajor.a, &expected) == MOART_OK);
  CHECK(std::memcmp(expected.data, lifted.data, moart_array_bytes(&lifted)) ==
        0);
  moart_array_free(&lifted);
  moart_array_free(&expected);
}

TEST_CASE("fill rejects arrays without storage", "[fill]") {
  moart_array empty;
  std::memset(&empty, 0, sizeof empty);
  empty.dtype = MOART_F32;
  empty.rank = 1;
  empty.shape[0] = 3;
  empty.count = 3;
  CHECK(moart_fill_uniform(&empty, 1, 0) == MOART_ERR_ARG);
  CHECK(moart_fill_uniform(nullptr, 1, 0) == MOART_ERR_ARG);
}
