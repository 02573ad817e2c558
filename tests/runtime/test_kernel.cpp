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

// The warps a result of a CUDA combine (moart_cuda_combine_width on the device's warps): ⌈partials / 128⌉
// within [8, 16], and no more than the device's warps / results (bench/cuda/NOTES.md #56).
TEST_CASE("moart_combine_warps: 8 to 16 warps a result by its partials, within the device's warps / results",
          "[kernel]") {
  const int64_t wave = 4224;
  CHECK(moart_combine_warps(wave, 128, 512) == 8);   // decode at n = 4k: 512 splits
  CHECK(moart_combine_warps(wave, 128, 1024) == 8);  // 8k
  CHECK(moart_combine_warps(wave, 128, 1025) == 9);  // one more: a ninth warp
  CHECK(moart_combine_warps(wave, 128, 2048) == 16); // 16k
  CHECK(moart_combine_warps(wave, 128, 4224) == 16); // 1M: at most 16
  CHECK(moart_combine_warps(wave, 128, 64) == 8);    // few partials: still 8
  CHECK(moart_combine_warps(wave, 1024, 4224) == 4); // the device's warps / results bind
  CHECK(moart_combine_warps(wave, 100000, 4224) == 1);
  CHECK(moart_combine_warps(wave, 0, 0) == 8);       // no results, no partials: the floor
  CHECK(moart_combine_warps(1, 1, 1 << 20) == 1);
}

// The CUDA launcher's split count (moart_cuda_splits on the device's warps): one wave of warps / items,
// none shorter than chunk rows, and at most max(half the wave, 8·⌈√terms⌉) (bench/cuda/NOTES.md #54).
TEST_CASE("moart_wave_splits: one wave, the rows' floor, and the split pass balanced against the combine",
          "[kernel]") {
  const int64_t wave = 4224; // an H100's or H200's 132 SMs × 32 warps
  CHECK(moart_wave_splits(wave, 1, 4096, 8, 1) == 512);         // n / 8: below half the wave
  CHECK(moart_wave_splits(wave, 1, 16384, 8, 1) == 2048);       // n / 8 again
  CHECK(moart_wave_splits(wave, 1, 65536, 8, 1) == 2112);       // half the wave, not 4224 (8·256 = 2048 < it)
  CHECK(moart_wave_splits(wave, 1, 131072, 8, 1) == 2904);      // 8·⌈√131072⌉ = 8·363
  CHECK(moart_wave_splits(wave, 1, 1 << 20, 8, 1) == 4224);     // the whole wave (8·1024 > it)
  CHECK(moart_wave_splits(wave, 8, 32768, 8, 4) == 132);        // GQA, packed four heads a warp: 1056 / 8
  CHECK(moart_wave_splits(wave, 256, 4096, 8, 4) == 4);         // B=64 GQA: 1056 / 256
  CHECK(moart_wave_splits(wave, 1, 1, 8, 1) == 1);
  CHECK(moart_wave_splits(wave, 0, 0, 0, 0) == 1);              // no items, no terms, no chunk or pack
  CHECK(moart_wave_splits(1, 1000, 1000, 8, 1) == 1);           // fewer warps than items
  // ⌈√n⌉ exactly, wherever the double rounds: with 12·r warps the cap 8·r binds (r = ⌈√n⌉, found in integers)
  const std::initializer_list<int64_t> counts{2, 3, 99, 100, 101, 4095, 4096, 4097, 1000003, 999999999999};
  for (int64_t n : counts) {
    int64_t r = 1;
    while (r * r < n)
      r += r * r * 4 < n ? r : 1;
    while (r > 1 && (r - 1) * (r - 1) >= n)
      --r;
    CHECK(moart_wave_splits(12 * r, 1, n, 1, 1) == std::min(n, 8 * r));
  }
  CHECK(moart_wave_splits(wave, 1, INT64_MAX, 8, 1) == wave); // no overflow near int64's limit
}
