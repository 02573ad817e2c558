// moart/kernel.h: the helpers generated kernels call. The checked arithmetic of the kernels' extent checks
// (docs/abi.md, "Checked extents") at int64's limits, and moart_chunks and moart_floormod where they
// overflowed or divided by zero (issue 13 item 5). In the sanitizer build UBSan aborts on any signed
// overflow inside them.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "moart/kernel.h"

namespace {

constexpr int64_t kMax = INT64_MAX, kMin = INT64_MIN;

// {result, overflowed}
template <class F> std::pair<int64_t, bool> checked(F f) {
  int overflow = 0;
  int64_t r = f(&overflow);
  return {r, overflow != 0};
}

} // namespace

TEST_CASE("moart_mul_checked is exact inside int64 and flags every product outside", "[kernel]") {
  auto mul = [](int64_t a, int64_t b) { return checked([&](int *o) { return moart_mul_checked(a, b, o); }); };
  CHECK(mul(kMax, 1) == std::pair<int64_t, bool>{kMax, false});
  CHECK(mul(kMin, 1) == std::pair<int64_t, bool>{kMin, false});
  CHECK(mul(kMax, -1) == std::pair<int64_t, bool>{-kMax, false});
  CHECK(mul(kMin, -1).second);
  CHECK(mul(-1, kMin).second);
  CHECK(mul(int64_t(1) << 32, int64_t(1) << 30) == std::pair<int64_t, bool>{int64_t(1) << 62, false});
  CHECK(mul(int64_t(1) << 32, int64_t(1) << 31).second); // 2^63
  CHECK(mul(int64_t(1) << 32, int64_t(1) << 32).second);
  CHECK(mul(-(int64_t(1) << 32), int64_t(1) << 31) == std::pair<int64_t, bool>{kMin, false});
  CHECK(mul(-(int64_t(1) << 32), -(int64_t(1) << 31)).second);
  CHECK(mul(3074457345618258602, 3) == std::pair<int64_t, bool>{9223372036854775806, false});
  CHECK(mul(3074457345618258603, 3).second);
  CHECK(mul(-3074457345618258603, -3).second);
  CHECK(mul(0, kMin) == std::pair<int64_t, bool>{0, false});
}

TEST_CASE("moart_add_checked, floordiv and floormod flag overflow and division by zero", "[kernel]") {
  auto add = [](int64_t a, int64_t b) { return checked([&](int *o) { return moart_add_checked(a, b, o); }); };
  CHECK(add(kMax, 0) == std::pair<int64_t, bool>{kMax, false});
  CHECK(add(kMax, 1).second);
  CHECK(add(kMin, -1).second);
  CHECK(add(kMin, kMax) == std::pair<int64_t, bool>{-1, false});
  CHECK(checked([](int *o) { return moart_floordiv_checked(kMin, -1, o); }).second);
  CHECK(checked([](int *o) { return moart_floordiv_checked(7, 0, o); }).second);
  CHECK(checked([](int *o) { return moart_floormod_checked(7, 0, o); }).second);
  CHECK(checked([](int *o) { return moart_floordiv_checked(-7, 2, o); }) == std::pair<int64_t, bool>{-4, false});
  CHECK(checked([](int *o) { return moart_extent_checked(-1, o); }).second);
  CHECK(checked([](int *o) { return moart_bytes_checked(kMax / 4 + 1, 4, o); }).second);
  CHECK(checked([](int *o) { return moart_bytes_checked(3, 4, o); }) == std::pair<int64_t, bool>{64, false});
}

TEST_CASE("moart_floormod near INT64_MIN and with divisor -1", "[kernel]") {
  CHECK(moart_floormod(kMin, 3) == 1); // INT64_MIN = 3 * (-3074457345618258603) + 1
  CHECK(moart_floormod(kMin, -1) == 0);
  CHECK(moart_floormod(-7, 3) == 2);
  CHECK(moart_floormod(7, -3) == -2);
  CHECK(moart_floormod(kMax, kMin) == -1);
}

TEST_CASE("moart_chunks with no items or terms and with threads = INT64_MAX", "[kernel]") {
  CHECK(moart_chunks(0, 100, 65536, 256) == 1);
  CHECK(moart_chunks(5, 0, 65536, 256) == 1);
  CHECK(moart_chunks(1, kMax, kMax, 256) == kMax / 256 + 1);
  CHECK(moart_chunks(1, kMax, kMax, kMax) == 1);
  CHECK(moart_chunks(3, 1000, kMax, 1) == 1000);
  CHECK(moart_chunks(1, 100000, 65536, 256) == 391);
}

// The rescaling factor skips the exponential where the difference is zero; its value must be exp's for
// every pair, the special cases included (Inf - Inf is NaN, not the shortcut's 1).
TEST_CASE("moart_rescalef and moart_rescale give exp(a - m) bit for bit, 0 for a = -inf", "[kernel]") {
  const float inf = INFINITY;
  const float vals[] = {0.0f, -0.0f, 1.0f, -2.5f, 88.0f, -103.0f, 1e-40f, -1e-40f, 3.0e38f, -3.0e38f, inf, -inf};
  for (float a : vals)
    for (float m : vals) {
      if (a == -inf)
        continue;
      float want = expf(a - m), got = moart_rescalef(a, m);
      double wantD = exp((double)a - (double)m), gotD = moart_rescale(a, m);
      if (std::isnan(want)) {
        CHECK(std::isnan(got));
        CHECK(std::isnan(gotD));
        continue;
      }
      CHECK(moart_f32_bits(got) == moart_f32_bits(want));
      CHECK(std::memcmp(&gotD, &wantD, sizeof gotD) == 0);
    }
  CHECK(moart_rescalef(-inf, -inf) == 0.0f);
  CHECK(moart_rescalef(-inf, 3.0f) == 0.0f);
  CHECK(moart_rescale(-inf, -inf) == 0.0);
  CHECK(std::isnan(moart_rescalef(inf, inf)));
  CHECK(std::isnan(moart_rescalef(NAN, NAN)));
  CHECK(moart_rescalef(5.0f, 5.0f) == 1.0f);
}
