// test_array.cpp - the array descriptor (moart/array.h), status strings and
// the timer.
#include <catch2/catch.hpp>

#include "moart/moart.h"

#include <cstdint>
#include <cstring>
#include <set>
#include <string>

TEST_CASE("dtype sizes and names", "[array]") {
  CHECK(moart_dtype_size(MOART_F32) == 4);
  CHECK(moart_dtype_size(MOART_F64) == 8);
  CHECK(moart_dtype_size(MOART_I64) == 8);
  CHECK(moart_dtype_size(static_cast<moart_dtype>(0)) == 0);
  CHECK(std::string(moart_dtype_name(MOART_F32)) == "f32");
  CHECK(std::string(moart_dtype_name(MOART_F64)) == "f64");
  CHECK(std::string(moart_dtype_name(MOART_I64)) == "i64");
  CHECK(std::string(moart_dtype_name(static_cast<moart_dtype>(0))) == "?");
}

TEST_CASE("shape count is the product of the extents, overflow-checked",
          "[array]") {
  int64_t count = -5;
  const int64_t s3[] = {2, 3, 4};
  CHECK(moart_shape_count(3, s3, 4, &count) == MOART_OK);
  CHECK(count == 24);
  CHECK(moart_shape_count(0, nullptr, 4, &count) == MOART_OK);
  CHECK(count == 1); // a scalar

  const int64_t zero[] = {INT64_MAX, 0, INT64_MAX};
  CHECK(moart_shape_count(3, zero, 8, &count) == MOART_OK);
  CHECK(count == 0);

  const int64_t big[] = {INT64_C(1) << 32, INT64_C(1) << 32};
  CHECK(moart_shape_count(2, big, 0, &count) == MOART_ERR_OVERFLOW);
  const int64_t bytes[] = {INT64_C(1)
                           << 61}; // fits as a count, not as bytes of f64
  CHECK(moart_shape_count(1, bytes, 0, &count) == MOART_OK);
  CHECK(moart_shape_count(1, bytes, 8, &count) == MOART_ERR_OVERFLOW);

  const int64_t negative[] = {3, -1};
  CHECK(moart_shape_count(2, negative, 4, &count) == MOART_ERR_ARG);
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(moart_shape_count(9, nine, 4, &count) == MOART_ERR_RANK);
  CHECK(moart_shape_count(-1, nine, 4, &count) == MOART_ERR_RANK);
}

TEST_CASE("aligned allocation is 64-byte aligned and zeroed", "[array]") {
  for (size_t bytes : {size_t(0), size_t(1), size_t(63), size_t(1000)}) {
    auto *p = static_cast<unsigned char *>(moart_alloc_aligned(bytes));
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % MOART_ALIGNMENT == 0);
    for (size_t i = 0; i < bytes; ++i)
      REQUIRE(p[i] == 0);
    moart_free_aligned(p);
  }
  moart_free_aligned(nullptr);
}

TEST_CASE("a row-major array describes its storage", "[array]") {
  moart_array a;
  const int64_t shape[] = {3, 5};
  REQUIRE(moart_array_create(&a, MOART_F64, 2, shape) == MOART_OK);
  CHECK(a.dtype == MOART_F64);
  CHECK(a.rank == 2);
  CHECK(a.shape[0] == 3);
  CHECK(a.shape[1] == 5);
  CHECK(a.shape[2] == 0);
  CHECK(a.layout.kind == MOART_LAYOUT_ROW_MAJOR);
  CHECK(a.count == 15);
  CHECK(moart_array_storage_count(&a) == 15);
  CHECK(moart_array_bytes(&a) == 120);
  CHECK(reinterpret_cast<uintptr_t>(a.data) % MOART_ALIGNMENT == 0);
  CHECK(moart_array_offset(&a, 7) == 7);
  moart_array_free(&a);
  CHECK(a.data == nullptr);
  CHECK(a.count == 0);
  moart_array_free(&a); // freeing twice is harmless
}

TEST_CASE("a scalar has rank 0 and one element", "[array]") {
  moart_array a;
  REQUIRE(moart_array_create(&a, MOART_I64, 0, nullptr) == MOART_OK);
  CHECK(a.count == 1);
  CHECK(moart_array_bytes(&a) == 8);
  moart_array_free(&a);
}

TEST_CASE("a lifted array stores ceil(n/B)*B*rest elements",
          "[array][layout]") {
  moart_array a;
  const int64_t shape[] = {37, 3};
  REQUIRE(moart_array_create_lifted(&a, MOART_F32, 2, shape, 32) == MOART_OK);
  CHECK(a.count == 111);
  CHECK(a.layout.kind == MOART_LAYOUT_LIFTED);
  CHECK(a.layout.block == 32);
  CHECK(moart_array_storage_count(&a) == 2 * 32 * 3);
  CHECK(moart_array_bytes(&a) == 2 * 32 * 3 * 4);
  // logical [33, 2] is physical [1, 2, 1] of [2][3][32]
  CHECK(moart_array_offset(&a, 33 * 3 + 2) == (1 * 3 + 2) * 32 + 1);
  moart_array_free(&a);
}

TEST_CASE("array creation rejects bad arguments without allocating",
          "[array]") {
  moart_array a;
  const int64_t shape[] = {4, 4};
  CHECK(moart_array_create(&a, static_cast<moart_dtype>(0), 2, shape) ==
        MOART_ERR_DTYPE);
  CHECK(a.data == nullptr);
  CHECK(moart_array_create(&a, MOART_F32, 9, shape) == MOART_ERR_RANK);
  CHECK(moart_array_create(nullptr, MOART_F32, 2, shape) == MOART_ERR_ARG);
  const int64_t huge[] = {INT64_C(1) << 40, INT64_C(1) << 40};
  CHECK(moart_array_create(&a, MOART_F32, 2, huge) == MOART_ERR_OVERFLOW);
  CHECK(a.data == nullptr);
  CHECK(moart_array_create_lifted(&a, MOART_F32, 0, shape, 4) ==
        MOART_ERR_LAYOUT);
  CHECK(moart_array_create_lifted(&a, MOART_F32, 2, shape, 0) ==
        MOART_ERR_LAYOUT);
  // The count fits but padding the leading axis to a multiple of B does not.
  const int64_t edge[] = {INT64_MAX / 8 - 1};
  CHECK(moart_array_create_lifted(&a, MOART_F64, 1, edge, INT64_C(1) << 40) ==
        MOART_ERR_OVERFLOW);
  CHECK(a.data == nullptr);
}

TEST_CASE("an array lifted on axis 2 stores each slab lifted on its own",
          "[array][layout]") {
  // n not a multiple of B, a multiple of B, and smaller than B.
  int64_t n = GENERATE(70, 64, 7);
  CAPTURE(n);
  const int64_t block = 32, shape[] = {2, 3, n, 5};
  const int64_t groups = (n + block - 1) / block, batch = 2 * 3, rowlen = 5;
  moart_array a;
  REQUIRE(moart_array_create_lifted_axis(&a, MOART_F32, 4, shape, 2, block) ==
          MOART_OK);
  CHECK(a.layout.kind == MOART_LAYOUT_LIFTED);
  CHECK(a.layout.block == block);
  CHECK(a.layout.axis == 2);
  CHECK(a.count == batch * n * rowlen);
  CHECK(moart_array_storage_count(&a) == batch * groups * block * rowlen);
  CHECK(moart_array_bytes(&a) ==
        static_cast<size_t>(batch * groups * block * rowlen * 4));
  // ((γ(p) * ceil(n/B) + x / B) * rowlen + γ(y)) * B + x % B for every element.
  int64_t i = 0;
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t x = 0; x < n; ++x)
      for (int64_t y = 0; y < rowlen; ++y, ++i)
        REQUIRE(moart_array_offset(&a, i) ==
                ((p * groups + x / block) * rowlen + y) * block + x % block);
  moart_array_free(&a);
}

TEST_CASE("lifting on axis 0 is the leading-axis lifted layout",
          "[array][layout]") {
  const int64_t shape[] = {37, 2, 3};
  moart_array lead, axis0;
  REQUIRE(moart_array_create_lifted(&lead, MOART_F64, 3, shape, 8) ==
          MOART_OK);
  REQUIRE(moart_array_create_lifted_axis(&axis0, MOART_F64, 3, shape, 0, 8) ==
          MOART_OK);
  CHECK(lead.layout.axis == 0);
  CHECK(moart_array_storage_count(&axis0) == moart_array_storage_count(&lead));
  for (int64_t i = 0; i < lead.count; ++i)
    REQUIRE(moart_array_offset(&axis0, i) ==
            moart_lifted_offset(i / 6, i % 6, 6, 8));
  moart_array_free(&lead);
  moart_array_free(&axis0);
}

TEST_CASE("a lifted axis of extent 0, or any extent 0, stores nothing",
          "[array][layout]") {
  moart_array a;
  const int64_t emptyAxis[] = {2, 3, 0, 5};
  REQUIRE(moart_array_create_lifted_axis(&a, MOART_F32, 4, emptyAxis, 2, 32) ==
          MOART_OK);
  CHECK(a.count == 0);
  CHECK(moart_array_storage_count(&a) == 0);
  CHECK(moart_array_bytes(&a) == 0);
  CHECK(a.data != nullptr); // still a unique pointer
  moart_array_free(&a);
  // The other extents are huge: a zero one before the axis makes them moot.
  const int64_t emptyBatch[] = {0, INT64_MAX, INT64_MAX};
  REQUIRE(moart_array_create_lifted_axis(&a, MOART_F64, 3, emptyBatch, 1, 4) ==
          MOART_OK);
  CHECK(moart_array_storage_count(&a) == 0);
  moart_array_free(&a);
}

TEST_CASE("lifted creation rejects a bad axis, block or rank",
          "[array][layout]") {
  moart_array a;
  const int64_t shape[] = {2, 3, 70, 5};
  int axis = GENERATE(-1, 4, 100);
  CAPTURE(axis);
  std::memset(&a, 0x5a, sizeof a);
  CHECK(moart_array_create_lifted_axis(&a, MOART_F32, 4, shape, axis, 32) ==
        MOART_ERR_LAYOUT);
  CHECK(a.data == nullptr);
  CHECK(a.rank == 0);
  CHECK(moart_array_create_lifted_axis(&a, MOART_F32, 4, shape, 2, 0) ==
        MOART_ERR_LAYOUT);
  CHECK(moart_array_create_lifted_axis(&a, MOART_F32, 0, nullptr, 0, 4) ==
        MOART_ERR_LAYOUT);
  const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  CHECK(moart_array_create_lifted_axis(&a, MOART_F32, 9, nine, 2, 4) ==
        MOART_ERR_RANK);
  CHECK(moart_array_create_lifted_axis(nullptr, MOART_F32, 4, shape, 2, 4) ==
        MOART_ERR_ARG);

  // A descriptor edited into an invalid axis has no storage count.
  REQUIRE(moart_array_create_lifted_axis(&a, MOART_F32, 4, shape, 2, 32) ==
          MOART_OK);
  a.layout.axis = 4;
  CHECK(moart_array_storage_count(&a) == -1);
  CHECK(moart_array_offset(&a, 0) == -1);
  a.layout.axis = 2;
  moart_array_free(&a);
}

TEST_CASE("lifted creation on an inner axis detects overflow",
          "[array][layout]") {
  moart_array a;
  // 2 * n f64 fits, but padding n to a multiple of 2^40 does not.
  const int64_t padded[] = {2, (INT64_C(1) << 59) - 1};
  CHECK(moart_array_create_lifted_axis(&a, MOART_F64, 2, padded, 1,
                                       INT64_C(1) << 40) == MOART_ERR_OVERFLOW);
  CHECK(a.data == nullptr);
  // The batch times one padded slab overflows though each factor fits.
  const int64_t slabs[] = {INT64_C(1) << 30, 5, INT64_C(1) << 20};
  CHECK(moart_array_create_lifted_axis(&a, MOART_F32, 3, slabs, 1,
                                       INT64_C(1) << 40) == MOART_ERR_OVERFLOW);
  CHECK(a.data == nullptr);
}

TEST_CASE("every status has its own message", "[status]") {
  std::set<std::string> seen;
  for (int s = MOART_OK; s <= MOART_ERR_TOLERANCE; ++s) {
    std::string text = moart_status_string(static_cast<moart_status>(s));
    CHECK(text != "unknown status");
    CHECK(seen.insert(text).second);
  }
  CHECK(std::string(moart_status_string(MOART_OK)) == "ok");
  CHECK(std::string(moart_status_string(MOART_ERR_SHAPE)) ==
        "shape guard failed");
  CHECK(std::string(moart_status_string(static_cast<moart_status>(15))) ==
        "unknown status");
}

TEST_CASE("the timer never runs backwards", "[timer]") {
  double first = moart_now_seconds();
  double second = moart_now_seconds();
  CHECK(first > 0); // CLOCK_MONOTONIC worked (0 is its failure value)
  CHECK(second >= first);
}
