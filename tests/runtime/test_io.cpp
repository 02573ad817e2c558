// test_io.cpp - .moarr round trips for every dtype and rank 0..3, the exact
// header bytes, lifted arrays written in logical order, and the text printer.
#include <catch2/catch.hpp>

#include "TempDir.h"
#include "moart/moart.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {
std::string printed(const moart_array &a, const char *name) {
  std::FILE *f = std::tmpfile();
  REQUIRE(f != nullptr);
  REQUIRE(moart_print_array(f, &a, name) == MOART_OK);
  std::rewind(f);
  std::string text;
  for (int c; (c = std::fgetc(f)) != EOF;)
    text += static_cast<char>(c);
  std::fclose(f);
  return text;
}
} // namespace

TEST_CASE("files round-trip every dtype and rank 0..3", "[io]") {
  TempDir dir;
  moart_dtype dtype = GENERATE(MOART_F32, MOART_F64, MOART_I64);
  std::vector<int64_t> shape =
      GENERATE(std::vector<int64_t>{}, std::vector<int64_t>{7},
               std::vector<int64_t>{3, 4}, std::vector<int64_t>{2, 3, 5},
               std::vector<int64_t>{2, 0, 3});
  CAPTURE(moart_dtype_name(dtype), shape);
  int rank = static_cast<int>(shape.size());
  moart_array a, b;
  REQUIRE(moart_array_create(&a, dtype, rank, shape.data()) == MOART_OK);
  REQUIRE(moart_fill_uniform(&a, 17, 3) == MOART_OK);
  std::string path = dir.path("a.moarr");
  REQUIRE(moart_write_array(path.c_str(), &a) == MOART_OK);

  int64_t count = 1;
  for (int64_t e : shape)
    count *= e;
  size_t expectedSize = 16 + 8 * shape.size() +
                        static_cast<size_t>(count) * moart_dtype_size(dtype);
  CHECK(dir.read("a.moarr").size() == expectedSize);

  char err[256] = "unchanged";
  REQUIRE(moart_read_array(path.c_str(), &b, err, sizeof err) == MOART_OK);
  CHECK(std::string(err).empty());
  CHECK(b.dtype == dtype);
  CHECK(b.rank == rank);
  for (int k = 0; k < rank; ++k)
    CHECK(b.shape[k] == shape[static_cast<size_t>(k)]);
  CHECK(b.layout.kind == MOART_LAYOUT_ROW_MAJOR);
  REQUIRE(b.count == count);
  CHECK(std::memcmp(a.data, b.data, moart_array_bytes(&a)) == 0);
  moart_array_free(&a);
  moart_array_free(&b);
}

TEST_CASE(
    "the header is magic, u32 dtype, u32 rank, u64 extents, little-endian",
    "[io]") {
  TempDir dir;
  moart_array a;
  // An empty leading axis keeps the file small while the extent stays large.
  const int64_t small[] = {0, 0x0102030405};
  REQUIRE(moart_array_create(&a, MOART_F64, 2, small) == MOART_OK);
  REQUIRE(moart_write_array(dir.path("h.moarr").c_str(), &a) == MOART_OK);
  std::vector<unsigned char> expected = {
      'M', 'O', 'A', 'R', 'R', 1, 0, 0,  // magic
      2,   0,   0,   0,                  // f64
      2,   0,   0,   0,                  // rank
      0,   0,   0,   0,   0,   0, 0, 0,  // extent 0
      5,   4,   3,   2,   1,   0, 0, 0}; // extent 1
  CHECK(dir.read("h.moarr") == expected);
  moart_array_free(&a);

  const int64_t one[] = {1};
  REQUIRE(moart_array_create(&a, MOART_F32, 1, one) == MOART_OK);
  static_cast<float *>(a.data)[0] = 1.0f; // 0x3f800000
  REQUIRE(moart_write_array(dir.path("f.moarr").c_str(), &a) == MOART_OK);
  std::vector<unsigned char> bytes = dir.read("f.moarr");
  REQUIRE(bytes.size() == 28);
  CHECK(bytes[8] == 1);
  CHECK(std::vector<unsigned char>(bytes.begin() + 24, bytes.end()) ==
        std::vector<unsigned char>{0x00, 0x00, 0x80, 0x3f});
  moart_array_free(&a);
}

TEST_CASE("a lifted array is written in logical row-major order",
          "[io][layout]") {
  TempDir dir;
  const int64_t shape[] = {5, 3};
  moart_array lifted, rowMajor;
  REQUIRE(moart_array_create_lifted(&lifted, MOART_F32, 2, shape, 4) ==
          MOART_OK);
  REQUIRE(moart_array_create(&rowMajor, MOART_F32, 2, shape) == MOART_OK);
  REQUIRE(moart_fill_uniform(&lifted, 8, 0) == MOART_OK);
  REQUIRE(moart_fill_uniform(&rowMajor, 8, 0) == MOART_OK);
  REQUIRE(moart_write_array(dir.path("l.moarr").c_str(), &lifted) == MOART_OK);
  REQUIRE(moart_write_array(dir.path("r.moarr").c_str(), &rowMajor) ==
          MOART_OK);
  CHECK(dir.read("l.moarr") == dir.read("r.moarr"));
  CHECK(printed(lifted, "k") == printed(rowMajor, "k"));
  moart_array_free(&lifted);
  moart_array_free(&rowMajor);
}

TEST_CASE("an array lifted on an inner axis round-trips in logical order",
          "[io][layout]") {
  TempDir dir;
  const int64_t shape[] = {2, 3, 70, 5};
  moart_array lifted, rowMajor, read;
  REQUIRE(moart_array_create_lifted_axis(&lifted, MOART_F64, 4, shape, 2, 32) ==
          MOART_OK);
  REQUIRE(moart_array_create(&rowMajor, MOART_F64, 4, shape) == MOART_OK);
  REQUIRE(moart_fill_uniform(&lifted, 9, 4) == MOART_OK);
  REQUIRE(moart_fill_uniform(&rowMajor, 9, 4) == MOART_OK);
  std::string path = dir.path("l.moarr");
  REQUIRE(moart_write_array(path.c_str(), &lifted) == MOART_OK);
  REQUIRE(moart_write_array(dir.path("r.moarr").c_str(), &rowMajor) ==
          MOART_OK);
  CHECK(dir.read("l.moarr") == dir.read("r.moarr"));
  CHECK(printed(lifted, "k") == printed(rowMajor, "k"));

  char err[256];
  REQUIRE(moart_read_array(path.c_str(), &read, err, sizeof err) == MOART_OK);
  CHECK(read.layout.kind == MOART_LAYOUT_ROW_MAJOR);
  REQUIRE(read.count == rowMajor.count);
  CHECK(std::memcmp(read.data, rowMajor.data, moart_array_bytes(&read)) == 0);
  for (moart_array *a : {&lifted, &rowMajor, &read})
    moart_array_free(a);
}

TEST_CASE("write rejects invalid arrays and unwritable paths", "[io]") {
  TempDir dir;
  moart_array a;
  const int64_t shape[] = {2};
  REQUIRE(moart_array_create(&a, MOART_F32, 1, shape) == MOART_OK);
  CHECK(moart_write_array(dir.path("no/such/dir/a.moarr").c_str(), &a) ==
        MOART_ERR_IO);
  CHECK(moart_write_array(nullptr, &a) == MOART_ERR_ARG);
  a.rank = 9;
  CHECK(moart_write_array(dir.path("a.moarr").c_str(), &a) == MOART_ERR_RANK);
  a.rank = 1;
  moart_array_free(&a);
}

TEST_CASE("print shows a header line and one row of the last axis per line",
          "[io]") {
  const int64_t shape[] = {2, 3};
  moart_array a;
  REQUIRE(moart_array_create(&a, MOART_F32, 2, shape) == MOART_OK);
  float values[] = {1.0f, -2.5f, 0.1f, 3.0f, 1e-8f, 16777216.0f};
  std::memcpy(a.data, values, sizeof values);
  CHECK(printed(a, "x") == "x : f32[2, 3]\n"
                           "1 -2.5 0.100000001\n"
                           "3 9.99999994e-09 16777216\n");
  moart_array_free(&a);

  const int64_t three[] = {2, 1, 2};
  REQUIRE(moart_array_create(&a, MOART_F64, 3, three) == MOART_OK);
  double dv[] = {0.1, 1.0, -3.0, 1e300};
  std::memcpy(a.data, dv, sizeof dv);
  CHECK(printed(a, "y") == "y : f64[2, 1, 2]\n"
                           "0.10000000000000001 1\n"
                           "-3 1.0000000000000001e+300\n");
  moart_array_free(&a);

  REQUIRE(moart_array_create(&a, MOART_I64, 0, nullptr) == MOART_OK);
  static_cast<int64_t *>(a.data)[0] = -9007199254740993;
  CHECK(printed(a, "s") == "s : i64[]\n-9007199254740993\n");
  moart_array_free(&a);

  const int64_t empty[] = {0, 4};
  REQUIRE(moart_array_create(&a, MOART_I64, 2, empty) == MOART_OK);
  CHECK(printed(a, nullptr) == "array : i64[0, 4]\n");
  moart_array_free(&a);
}
