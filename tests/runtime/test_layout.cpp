// test_layout.cpp - the lifted layout T([x, y]) = [x / B, y, x % B]
// (moart/layout.h): storage count, pack and unpack element by element, and
// array relayout.
#include <catch2/catch.hpp>

#include "moart/moart.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace {
void pack(const float *r, float *l, int64_t n, int64_t w, int64_t b) {
  moart_pack_lifted_f32(r, l, n, w, b);
}
void pack(const double *r, double *l, int64_t n, int64_t w, int64_t b) {
  moart_pack_lifted_f64(r, l, n, w, b);
}
void unpack(const float *l, float *r, int64_t n, int64_t w, int64_t b) {
  moart_unpack_lifted_f32(l, r, n, w, b);
}
void unpack(const double *l, double *r, int64_t n, int64_t w, int64_t b) {
  moart_unpack_lifted_f64(l, r, n, w, b);
}
} // namespace

TEST_CASE("lifted storage count pads the leading axis to a multiple of B",
          "[layout]") {
  CHECK(moart_lifted_count(1, 1, 4) == 4);
  CHECK(moart_lifted_count(3, 3, 4) == 12);
  CHECK(moart_lifted_count(4, 3, 4) == 12);
  CHECK(moart_lifted_count(5, 3, 4) == 24);
  CHECK(moart_lifted_count(37, 1, 32) == 64);
  CHECK(moart_lifted_count(64, 3, 32) == 192);
  CHECK(moart_lifted_count(0, 3, 32) == 0);
  CHECK(moart_lifted_count(5, 0, 4) == 0);
  CHECK(moart_lifted_count(5, 3, 0) == -1);
  CHECK(moart_lifted_count(-1, 3, 4) == -1);
  CHECK(moart_lifted_count(5, -3, 4) == -1);
  CHECK(moart_lifted_count(INT64_MAX, 2, 4) == -1);
  CHECK(moart_lifted_count(INT64_MAX - 2, 1, 4) == -1); // padding overflows
}

TEST_CASE("lifted offset is ((x / B) * rowlen + y) * B + x % B", "[layout]") {
  CHECK(moart_lifted_offset(0, 0, 3, 4) == 0);
  CHECK(moart_lifted_offset(1, 0, 3, 4) == 1); // lanes are adjacent
  CHECK(moart_lifted_offset(0, 1, 3, 4) ==
        4); // a step in y jumps one group of B
  CHECK(moart_lifted_offset(4, 0, 3, 4) == 12); // the next block of rows
  CHECK(moart_lifted_offset(6, 2, 3, 4) == (1 * 3 + 2) * 4 + 2);
}

TEMPLATE_TEST_CASE("pack and unpack implement T([x, y]) = [x / B, y, x % B]",
                   "[layout]", float, double) {
  auto [n, block] = GENERATE(table<int64_t, int64_t>(
      {{1, 4}, {3, 4}, {4, 4}, {5, 4}, {37, 32}, {64, 32}}));
  int64_t rowlen = GENERATE(1, 3);
  CAPTURE(n, block, rowlen);

  std::vector<TestType> rowMajor(static_cast<size_t>(n * rowlen));
  for (int64_t x = 0; x < n; ++x)
    for (int64_t y = 0; y < rowlen; ++y)
      rowMajor[static_cast<size_t>(x * rowlen + y)] =
          static_cast<TestType>(1 + 100 * x + y);

  int64_t groups = (n + block - 1) / block;
  REQUIRE(moart_lifted_count(n, rowlen, block) == groups * rowlen * block);
  const TestType sentinel = -7;
  std::vector<TestType> lifted(static_cast<size_t>(groups * rowlen * block),
                               sentinel);
  pack(rowMajor.data(), lifted.data(), n, rowlen, block);

  // Walk the physical array [ceil(n/B)][rowlen][B] in storage order: element
  // [g, y, l] must hold logical [g*B + l, y], or zero past the last row.
  size_t at = 0;
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t y = 0; y < rowlen; ++y)
      for (int64_t l = 0; l < block; ++l, ++at) {
        int64_t x = g * block + l;
        TestType expected =
            x < n ? rowMajor[static_cast<size_t>(x * rowlen + y)] : 0;
        CAPTURE(g, y, l);
        REQUIRE(lifted[at] == expected);
        REQUIRE(moart_lifted_offset(x, y, rowlen, block) ==
                static_cast<int64_t>(at));
      }

  std::vector<TestType> back(rowMajor.size(), sentinel);
  unpack(lifted.data(), back.data(), n, rowlen, block);
  CHECK(back == rowMajor);
}

TEST_CASE("relayout converts between row-major and lifted arrays",
          "[layout][array]") {
  const int64_t shape[] = {5, 2, 3};
  moart_array rowMajor, lifted4, lifted2, back;
  REQUIRE(moart_array_create(&rowMajor, MOART_I64, 3, shape) == MOART_OK);
  REQUIRE(moart_array_create_lifted(&lifted4, MOART_I64, 3, shape, 4) ==
          MOART_OK);
  REQUIRE(moart_array_create_lifted(&lifted2, MOART_I64, 3, shape, 2) ==
          MOART_OK);
  REQUIRE(moart_array_create(&back, MOART_I64, 3, shape) == MOART_OK);
  auto *r = static_cast<int64_t *>(rowMajor.data);
  for (int64_t i = 0; i < 30; ++i)
    r[i] = 1000 + i;

  REQUIRE(moart_array_relayout(&rowMajor, &lifted4) == MOART_OK);
  auto *l = static_cast<const int64_t *>(lifted4.data);
  REQUIRE(moart_array_storage_count(&lifted4) == 2 * 6 * 4);
  for (int64_t x = 0; x < 8; ++x)
    for (int64_t y = 0; y < 6; ++y)
      CHECK(l[((x / 4) * 6 + y) * 4 + x % 4] == (x < 5 ? 1000 + x * 6 + y : 0));

  REQUIRE(moart_array_relayout(&lifted4, &lifted2) ==
          MOART_OK); // B = 4 -> B = 2
  REQUIRE(moart_array_relayout(&lifted2, &back) == MOART_OK);
  CHECK(std::memcmp(back.data, rowMajor.data, 30 * sizeof(int64_t)) == 0);

  const int64_t other[] = {5, 3, 2};
  moart_array wrong;
  REQUIRE(moart_array_create(&wrong, MOART_I64, 3, other) == MOART_OK);
  CHECK(moart_array_relayout(&rowMajor, &wrong) == MOART_ERR_SHAPE);
  moart_array_free(&wrong);
  REQUIRE(moart_array_create(&wrong, MOART_F64, 3, shape) == MOART_OK);
  CHECK(moart_array_relayout(&rowMajor, &wrong) == MOART_ERR_DTYPE);
  moart_array_free(&wrong);

  for (moart_array *a : {&rowMajor, &lifted4, &lifted2, &back})
    moart_array_free(a);
}
