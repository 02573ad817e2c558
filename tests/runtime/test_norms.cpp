// test_norms.cpp - error norms (moart/norms.h): inf-norm, relative error with
// its floor, f32 ULP distance, and NaN/infinity counting as failure.
#include <catch2/catch.hpp>

#include "moart/moart.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();
} // namespace

TEST_CASE("ULP distance counts the floats between two values", "[norms]") {
  float one = 1.0f;
  CHECK(moart_ulp_distance_f32(one, one) == 0);
  CHECK(moart_ulp_distance_f32(one, std::nextafter(one, 2.0f)) == 1);
  CHECK(moart_ulp_distance_f32(std::nextafter(one, 0.0f), one) == 1);
  CHECK(moart_ulp_distance_f32(one, 1.0f + 3 * FLT_EPSILON) == 3);
  CHECK(moart_ulp_distance_f32(0.0f, -0.0f) == 0);
  float tiny = std::numeric_limits<float>::denorm_min();
  CHECK(moart_ulp_distance_f32(tiny, -tiny) == 2); // across zero
  CHECK(moart_ulp_distance_f32(1.0f, -1.0f) == 2.0 * 0x3f800000);
  CHECK(moart_ulp_distance_f32(FLT_MAX,
                               std::numeric_limits<float>::infinity()) == inf);
  CHECK(moart_ulp_distance_f32(std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::infinity()) == 0);
  CHECK(moart_ulp_distance_f32(std::nanf(""), std::nanf("")) == inf);
  CHECK(moart_ulp_distance_f32(1.0f, std::nanf("")) == inf);
}

TEST_CASE("identical arrays have zero error", "[norms]") {
  std::vector<double> ref = {1.0, -2.0, 0.0, 1e-30};
  std::vector<float> got = {1.0f, -2.0f, 0.0f, 0.0f};
  moart_norms n = moart_norms_f64(ref.data(), ref.data(), 4);
  CHECK(n.count == 4);
  CHECK(n.max_abs == 0);
  CHECK(n.max_rel == 0);
  CHECK(n.max_ulp == -1); // not an f32 result
  CHECK(n.nonfinite == 0);
  std::vector<float> same = {1.0f, -2.0f, 0.0f};
  n = moart_norms_f32_f32(same.data(), same.data(), 3);
  CHECK(n.max_ulp == 0);
  CHECK(n.max_abs == 0);
}

TEST_CASE("max abs, max rel and the worst element", "[norms]") {
  std::vector<double> got = {1.0, 2.0, 3.5, 10.25};
  std::vector<double> ref = {1.0, 2.5, 3.0, 10.0};
  moart_norms n = moart_norms_f64(got.data(), ref.data(), 4);
  CHECK(n.max_abs == 0.5);
  CHECK(n.worst_index == 1); // the first of the two elements 0.5 off
  CHECK(n.max_rel == Approx(0.5 / 2.5).epsilon(1e-15));
  CHECK(n.nonfinite == 0);
}

TEST_CASE("relative error uses the floor for tiny references", "[norms]") {
  std::vector<double> got = {1e-9, 2.0};
  std::vector<double> ref = {0.0, 2.0};
  moart_norms n = moart_norms_f64(got.data(), ref.data(), 2);
  CHECK(n.max_abs == 1e-9);
  CHECK(n.max_rel == Approx(1e-9 / MOART_REL_FLOOR).epsilon(1e-12));
  CHECK(std::isfinite(n.max_rel));
}

TEST_CASE("f32 results against an f64 reference", "[norms]") {
  // 1 + 2^-30 rounds to 1.0f: a correct f32 result 0 ULP away, yet not equal.
  std::vector<float> got = {1.0f, 0.5f};
  std::vector<double> ref = {1.0 + 0x1p-30, 0.5};
  moart_norms n = moart_norms_f32(got.data(), ref.data(), 2);
  CHECK(n.max_abs == 0x1p-30);
  CHECK(n.max_ulp == 0);
  got[1] = std::nextafter(0.5f, 1.0f);
  got[1] = std::nextafter(got[1], 1.0f);
  n = moart_norms_f32(got.data(), ref.data(), 2);
  CHECK(n.max_ulp == 2);
  CHECK(n.worst_index == 1);
  // A reference beyond the float range rounds to infinity: a finite result is
  // infinitely many ULPs away.
  std::vector<double> big = {1e300};
  std::vector<float> max = {FLT_MAX};
  n = moart_norms_f32(max.data(), big.data(), 1);
  CHECK(n.max_ulp == inf);
}

TEST_CASE("NaN anywhere is an infinite error", "[norms]") {
  std::vector<double> ref = {1.0, 2.0, 3.0};
  std::vector<double> got = {1.0, qnan, 3.0};
  moart_norms n = moart_norms_f64(got.data(), ref.data(), 3);
  CHECK(n.max_abs == inf);
  CHECK(n.max_rel == inf);
  CHECK(n.nonfinite == 1);
  CHECK(n.worst_index == 1);

  std::vector<float> gotf = {1.0f, 2.0f, 3.0f};
  ref[2] = qnan; // a broken reference fails too
  n = moart_norms_f32(gotf.data(), ref.data(), 3);
  CHECK(n.max_abs == inf);
  CHECK(n.max_ulp == inf);
  CHECK(n.nonfinite == 1);
  CHECK(n.worst_index == 2);

  ref[2] = 3.0;
  gotf[0] = std::nanf("");
  n = moart_norms_f32(gotf.data(), ref.data(), 3);
  CHECK(n.max_ulp == inf);
  CHECK(n.nonfinite == 1);
}

TEST_CASE("infinities match only themselves", "[norms]") {
  std::vector<double> ref = {inf, -inf, 1.0};
  std::vector<double> got = {inf, -inf, 1.0};
  moart_norms n = moart_norms_f64(got.data(), ref.data(), 3);
  CHECK(n.max_abs == 0);
  CHECK(n.nonfinite == 0);
  got[1] = inf;
  got[2] = -inf;
  n = moart_norms_f64(got.data(), ref.data(), 3);
  CHECK(n.max_abs == inf);
  CHECK(n.nonfinite == 2);
}

TEST_CASE("an empty comparison has no worst element", "[norms]") {
  moart_norms n = moart_norms_f64(nullptr, nullptr, 0);
  CHECK(n.count == 0);
  CHECK(n.max_abs == 0);
  CHECK(n.worst_index == -1);
}

TEST_CASE("compare checks dtype and count and reads any layout",
          "[norms][array]") {
  const int64_t shape[] = {5, 3};
  moart_array got, ref, small, ints;
  REQUIRE(moart_array_create_lifted(&got, MOART_F32, 2, shape, 4) == MOART_OK);
  REQUIRE(moart_array_create(&ref, MOART_F64, 2, shape) == MOART_OK);
  REQUIRE(moart_fill_uniform(&got, 5, 1) == MOART_OK);
  REQUIRE(moart_fill_uniform(&ref, 5, 1) == MOART_OK);
  moart_norms n;
  REQUIRE(moart_compare(&got, &ref, &n) == MOART_OK);
  CHECK(n.count == 15);
  CHECK(n.max_abs > 0);       // the f32 fill is the f64 one rounded down ...
  CHECK(n.max_abs < 0x1p-23); // ... to a multiple of 2^-23
  CHECK(n.max_ulp >= 0);      // computed for an f32 result
  CHECK(n.nonfinite == 0);

  const int64_t fewer[] = {14};
  REQUIRE(moart_array_create(&small, MOART_F64, 1, fewer) == MOART_OK);
  CHECK(moart_compare(&got, &small, &n) == MOART_ERR_SHAPE);
  REQUIRE(moart_array_create(&ints, MOART_I64, 2, shape) == MOART_OK);
  CHECK(moart_compare(&ints, &ref, &n) == MOART_ERR_DTYPE);
  CHECK(moart_compare(nullptr, &ref, &n) == MOART_ERR_ARG);
  for (moart_array *a : {&got, &ref, &small, &ints})
    moart_array_free(a);
}

TEST_CASE("compare reads arrays lifted on an inner axis", "[norms][layout]") {
  const int64_t shape[] = {2, 3, 70, 5};
  moart_array got, ref;
  REQUIRE(moart_array_create_lifted_axis(&got, MOART_F64, 4, shape, 2, 32) ==
          MOART_OK);
  REQUIRE(moart_array_create_lifted_axis(&ref, MOART_F64, 4, shape, 1, 4) ==
          MOART_OK);
  REQUIRE(moart_fill_uniform(&got, 5, 1) == MOART_OK);
  REQUIRE(moart_fill_uniform(&ref, 5, 1) == MOART_OK);
  moart_norms n;
  REQUIRE(moart_compare(&got, &ref, &n) == MOART_OK);
  CHECK(n.count == 2100);
  CHECK(n.max_abs == 0);
  // One logical element changed: the worst index is its logical offset.
  static_cast<double *>(got.data)[moart_array_offset(&got, 777)] += 0.5;
  REQUIRE(moart_compare(&got, &ref, &n) == MOART_OK);
  CHECK(n.worst_index == 777);
  CHECK(n.max_abs == 0.5);
  moart_array_free(&got);
  moart_array_free(&ref);
}
