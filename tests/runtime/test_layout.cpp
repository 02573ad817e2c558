// test_layout.cpp - the lifted layout T([x, y]) = [x / B, y, x % B]
// (moart/layout.h): storage count, pack and unpack element by element, and
// array relayout.
#include <catch2/catch.hpp>

#include "moart/moart.h"

#include <cmath>
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
void packBatch(const float *r, float *l, int64_t p, int64_t n, int64_t w,
               int64_t b) {
  moart_pack_lifted_batch_f32(r, l, p, n, w, b);
}
void packBatch(const double *r, double *l, int64_t p, int64_t n, int64_t w,
               int64_t b) {
  moart_pack_lifted_batch_f64(r, l, p, n, w, b);
}
void unpackBatch(const float *l, float *r, int64_t p, int64_t n, int64_t w,
                 int64_t b) {
  moart_unpack_lifted_batch_f32(l, r, p, n, w, b);
}
void unpackBatch(const double *l, double *r, int64_t p, int64_t n, int64_t w,
                 int64_t b) {
  moart_unpack_lifted_batch_f64(l, r, p, n, w, b);
}

// A row-major f64 array of the given shape holding 1000 + its logical offset.
moart_array numbered(std::vector<int64_t> shape) {
  moart_array a;
  REQUIRE(moart_array_create(&a, MOART_F64, static_cast<int>(shape.size()),
                             shape.data()) == MOART_OK);
  for (int64_t i = 0; i < a.count; ++i)
    static_cast<double *>(a.data)[i] = static_cast<double>(1000 + i);
  return a;
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

TEST_CASE("batch count is batch times one lifted slab", "[layout]") {
  CHECK(moart_lifted_batch_count(1, 37, 3, 32) == moart_lifted_count(37, 3, 32));
  CHECK(moart_lifted_batch_count(6, 70, 5, 32) == 6 * 3 * 5 * 32);
  CHECK(moart_lifted_batch_count(0, 70, 5, 32) == 0);
  CHECK(moart_lifted_batch_count(6, 0, 5, 32) == 0);
  CHECK(moart_lifted_batch_count(INT64_MAX, 0, 5, 32) == 0);
  CHECK(moart_lifted_batch_count(-1, 70, 5, 32) == -1);
  CHECK(moart_lifted_batch_count(6, 70, 5, 0) == -1);
  CHECK(moart_lifted_batch_count(6, -1, 5, 32) == -1);
  CHECK(moart_lifted_batch_count(INT64_C(1) << 44, INT64_C(1) << 20, 1,
                                 INT64_C(1) << 10) == -1); // product overflows
  CHECK(moart_lifted_batch_count(2, INT64_MAX, 2, 4) == -1); // slab overflows
}

TEMPLATE_TEST_CASE("batch pack lifts each slab on its own", "[layout]", float,
                   double) {
  auto [batch, n, block] = GENERATE(table<int64_t, int64_t, int64_t>(
      {{1, 37, 32}, {3, 5, 4}, {6, 70, 32}, {2, 7, 32}}));
  int64_t rowlen = GENERATE(1, 5);
  CAPTURE(batch, n, block, rowlen);
  const int64_t slab = moart_lifted_count(n, rowlen, block);
  std::vector<TestType> rowMajor(static_cast<size_t>(batch * n * rowlen));
  for (size_t i = 0; i < rowMajor.size(); ++i)
    rowMajor[i] = static_cast<TestType>(1 + i);
  const TestType sentinel = -7;
  std::vector<TestType> lifted(static_cast<size_t>(batch * slab), sentinel);
  std::vector<TestType> expected(lifted.size(), sentinel);
  packBatch(rowMajor.data(), lifted.data(), batch, n, rowlen, block);
  for (int64_t p = 0; p < batch; ++p)
    pack(rowMajor.data() + p * n * rowlen, expected.data() + p * slab, n,
         rowlen, block);
  CHECK(lifted == expected);

  std::vector<TestType> back(rowMajor.size(), sentinel);
  unpackBatch(lifted.data(), back.data(), batch, n, rowlen, block);
  CHECK(back == rowMajor);

  // Invalid arguments leave both buffers alone.
  packBatch(rowMajor.data(), lifted.data(), -1, n, rowlen, block);
  packBatch(rowMajor.data(), lifted.data(), batch, n, rowlen, 0);
  CHECK(lifted == expected);
}

TEST_CASE("relayout lifts an inner axis and converts between axes",
          "[layout][array]") {
  const int64_t shape[] = {2, 3, 70, 5}, block = 32, groups = 3;
  moart_array rowMajor = numbered({2, 3, 70, 5}), onAxis2, onAxis1, back;
  REQUIRE(moart_array_create_lifted_axis(&onAxis2, MOART_F64, 4, shape, 2,
                                         block) == MOART_OK);
  REQUIRE(moart_array_create_lifted_axis(&onAxis1, MOART_F64, 4, shape, 1,
                                         4) == MOART_OK);
  REQUIRE(moart_array_create(&back, MOART_F64, 4, shape) == MOART_OK);
  std::memset(onAxis2.data, 0xff, moart_array_bytes(&onAxis2));

  REQUIRE(moart_array_relayout(&rowMajor, &onAxis2) == MOART_OK);
  // Walk the physical [2][3][ceil(70/32)][5][32] in storage order: element
  // [p0, p1, g, y, l] holds logical [p0, p1, g*B + l, y], zero past row 70.
  auto *l = static_cast<const double *>(onAxis2.data);
  int64_t at = 0;
  for (int64_t p = 0; p < 6; ++p)
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t y = 0; y < 5; ++y)
        for (int64_t lane = 0; lane < block; ++lane, ++at) {
          int64_t x = g * block + lane;
          CAPTURE(p, g, y, lane);
          REQUIRE(l[at] == (x < 70 ? 1000 + (p * 70 + x) * 5 + y : 0));
          REQUIRE(std::signbit(l[at]) == false); // padding is +0, not -0
        }
  REQUIRE(at == moart_array_storage_count(&onAxis2));

  // The batch pack of the raw buffers gives the same storage.
  std::vector<double> packed(static_cast<size_t>(at), -1);
  moart_pack_lifted_batch_f64(static_cast<const double *>(rowMajor.data),
                              packed.data(), 6, 70, 5, block);
  CHECK(std::memcmp(packed.data(), onAxis2.data,
                    moart_array_bytes(&onAxis2)) == 0);

  // Axis 2 -> axis 1 (element by element) -> row-major gives the input back.
  REQUIRE(moart_array_relayout(&onAxis2, &onAxis1) == MOART_OK);
  REQUIRE(moart_array_relayout(&onAxis1, &back) == MOART_OK);
  CHECK(std::memcmp(back.data, rowMajor.data, moart_array_bytes(&back)) == 0);
  // ... and axis 1 -> axis 2 gives the packed storage back, padding included.
  std::memset(onAxis2.data, 0xff, moart_array_bytes(&onAxis2));
  REQUIRE(moart_array_relayout(&onAxis1, &onAxis2) == MOART_OK);
  CHECK(std::memcmp(packed.data(), onAxis2.data,
                    moart_array_bytes(&onAxis2)) == 0);

  for (moart_array *a : {&rowMajor, &onAxis2, &onAxis1, &back})
    moart_array_free(a);
}
