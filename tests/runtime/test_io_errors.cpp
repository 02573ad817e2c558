// test_io_errors.cpp - every malformed .moarr file gives its own status and a
// message naming the problem; the output array is left empty; nothing
// crashes. The broken files are written byte by byte.
#include <catch2/catch.hpp>

#include "TempDir.h"
#include "moart/moart.h"

#include <csignal>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

namespace {
using Bytes = std::vector<unsigned char>;

void putLe(Bytes &b, uint64_t v, int n) {
  for (int k = 0; k < n; ++k)
    b.push_back(static_cast<unsigned char>(v >> (8 * k)));
}

// A header: magic, dtype, rank, extents.
Bytes header(uint32_t dtype, std::vector<uint64_t> extents) {
  Bytes b = {'M', 'O', 'A', 'R', 'R', 1, 0, 0};
  putLe(b, dtype, 4);
  putLe(b, extents.size(), 4);
  for (uint64_t e : extents)
    putLe(b, e, 8);
  return b;
}

Bytes withData(Bytes b, size_t bytes) {
  b.resize(b.size() + bytes, 0x42);
  return b;
}

struct Outcome {
  moart_status status;
  std::string message;
};

Outcome readBytes(const TempDir &dir, const Bytes &bytes) {
  std::string path = dir.write("bad.moarr", bytes);
  moart_array out;
  char err[256] = "";
  moart_status status = moart_read_array(path.c_str(), &out, err, sizeof err);
  CHECK(out.data == nullptr); // nothing to free after a failure
  CHECK(out.count == 0);
  std::string message = err;
  CHECK(message.rfind(path + ": ", 0) == 0); // the message names the file
  return {status, message};
}
} // namespace

TEST_CASE("a well-formed hand-written file reads", "[io]") {
  TempDir dir;
  Bytes b = header(MOART_I64, {2});
  putLe(b, static_cast<uint64_t>(-5), 8);
  putLe(b, 7, 8);
  std::string path = dir.write("ok.moarr", b);
  moart_array out;
  REQUIRE(moart_read_array(path.c_str(), &out, nullptr, 0) == MOART_OK);
  CHECK(static_cast<int64_t *>(out.data)[0] == -5);
  CHECK(static_cast<int64_t *>(out.data)[1] == 7);
  moart_array_free(&out);
}

TEST_CASE("bad files: missing file", "[io][errors]") {
  TempDir dir;
  moart_array out;
  char err[256];
  std::string path = dir.path("missing.moarr");
  CHECK(moart_read_array(path.c_str(), &out, err, sizeof err) == MOART_ERR_IO);
  CHECK(out.data == nullptr);
  CHECK_THAT(err,
             Catch::Contains("cannot open") && Catch::Contains("No such file"));
  CHECK(moart_read_array(nullptr, &out, err, sizeof err) == MOART_ERR_ARG);
  CHECK(moart_read_array(path.c_str(), nullptr, err, sizeof err) ==
        MOART_ERR_ARG);
}

TEST_CASE("bad files: a directory is an i/o error", "[io][errors]") {
  TempDir dir;
  moart_array out;
  char err[256];
  std::string path = dir.path("");
  CHECK(moart_read_array(path.c_str(), &out, err, sizeof err) == MOART_ERR_IO);
  CHECK(out.data == nullptr);
}

TEST_CASE("bad files: wrong magic", "[io][errors]") {
  TempDir dir;
  Bytes b = header(MOART_F32, {1});
  b[0] = 'N';
  Outcome o = readBytes(dir, withData(b, 4));
  CHECK(o.status == MOART_ERR_MAGIC);
  CHECK_THAT(o.message, Catch::Contains("bad magic"));
  o = readBytes(dir, Bytes{'h', 'i', '\n'}); // short and not ours
  CHECK(o.status == MOART_ERR_MAGIC);
}

TEST_CASE("bad files: unsupported version", "[io][errors]") {
  TempDir dir;
  Bytes b = header(MOART_F32, {1});
  b[5] = 2;
  Outcome o = readBytes(dir, withData(b, 4));
  CHECK(o.status == MOART_ERR_VERSION);
  CHECK_THAT(o.message, Catch::Contains("unsupported .moarr version"));
}

TEST_CASE("bad files: truncated header", "[io][errors]") {
  TempDir dir;
  Outcome o = readBytes(dir, Bytes{});
  CHECK(o.status == MOART_ERR_TRUNCATED);
  CHECK_THAT(o.message, Catch::Contains("truncated header: 0 of 16 bytes"));
  Bytes shortHeader = header(MOART_F32, {});
  shortHeader.resize(10);
  o = readBytes(dir, shortHeader);
  CHECK(o.status == MOART_ERR_TRUNCATED);
  Bytes missingExtent = header(MOART_F32, {3, 4});
  missingExtent.resize(missingExtent.size() - 3);
  o = readBytes(dir, missingExtent);
  CHECK(o.status == MOART_ERR_TRUNCATED);
  CHECK_THAT(o.message, Catch::Contains("1 of 2 extents"));
}

TEST_CASE("bad files: unknown dtype", "[io][errors]") {
  TempDir dir;
  for (uint32_t code : {0u, 7u, 0xffffffffu}) {
    CAPTURE(code);
    Outcome o = readBytes(dir, withData(header(code, {1}), 8));
    CHECK(o.status == MOART_ERR_DTYPE);
    CHECK_THAT(o.message,
               Catch::Contains("unknown dtype code " + std::to_string(code)));
  }
}

TEST_CASE("bad files: rank above 8", "[io][errors]") {
  TempDir dir;
  Outcome o = readBytes(
      dir, withData(header(MOART_F32, std::vector<uint64_t>(9, 1)), 4));
  CHECK(o.status == MOART_ERR_RANK);
  CHECK_THAT(o.message, Catch::Contains("rank 9 exceeds the maximum of 8"));
  Bytes huge = header(MOART_F32, {});
  huge[12] = huge[13] = huge[14] = huge[15] = 0xff; // rank 2^32 - 1
  o = readBytes(dir, huge);
  CHECK(o.status == MOART_ERR_RANK);
}

TEST_CASE("bad files: extents overflow", "[io][errors]") {
  TempDir dir;
  Outcome o = readBytes(dir, header(MOART_F32, {UINT64_C(1) << 63}));
  CHECK(o.status == MOART_ERR_OVERFLOW);
  CHECK_THAT(o.message, Catch::Contains("extents overflow"));
  o = readBytes(dir, header(MOART_F32, {UINT64_C(1) << 32, UINT64_C(1) << 32}));
  CHECK(o.status == MOART_ERR_OVERFLOW);
  o = readBytes(
      dir, header(MOART_F64, {UINT64_C(1) << 61})); // count fits, bytes do not
  CHECK(o.status == MOART_ERR_OVERFLOW);
  CHECK_THAT(o.message, Catch::Contains("extents overflow"));
}

TEST_CASE("bad files: truncated data", "[io][errors]") {
  TempDir dir;
  Outcome o = readBytes(dir, withData(header(MOART_F32, {2, 3}), 23));
  CHECK(o.status == MOART_ERR_TRUNCATED);
  CHECK_THAT(o.message,
             Catch::Contains(
                 "truncated data: 24 bytes of elements expected, 23 present"));
  // Huge but valid extents with no data: rejected before any allocation.
  o = readBytes(dir, header(MOART_F32, {UINT64_C(1) << 40, 1024}));
  CHECK(o.status == MOART_ERR_TRUNCATED);
}

TEST_CASE("bad files: trailing bytes", "[io][errors]") {
  TempDir dir;
  Outcome o = readBytes(dir, withData(header(MOART_F64, {2}), 17));
  CHECK(o.status == MOART_ERR_TRAILING);
  CHECK_THAT(o.message, Catch::Contains("1 trailing bytes"));
  o = readBytes(
      dir, withData(header(MOART_F64, {}), 9)); // a scalar and one byte more
  CHECK(o.status == MOART_ERR_TRAILING);
}

TEST_CASE("a pipe is read without seeking, trailing bytes still caught",
          "[io][errors]") {
  TempDir dir;
  std::signal(SIGPIPE, SIG_IGN); // the reader may close first
  Bytes good = header(MOART_F32, {3});
  putLe(good, 0x3f800000, 4);
  putLe(good, 0x40000000, 4);
  putLe(good, 0x40400000, 4);
  Bytes trailing = good;
  trailing.push_back(0);
  for (const Bytes &bytes : {good, trailing}) {
    std::string path = dir.path("pipe");
    REQUIRE(mkfifo(path.c_str(), 0600) == 0);
    std::thread writer([&] { dir.write("pipe", bytes); });
    moart_array out;
    char err[256] = "";
    moart_status status = moart_read_array(path.c_str(), &out, err, sizeof err);
    writer.join();
    std::remove(path.c_str());
    if (bytes.size() == good.size()) {
      REQUIRE(status == MOART_OK);
      CHECK(static_cast<float *>(out.data)[2] == 3.0f);
      moart_array_free(&out);
    } else {
      CHECK(status == MOART_ERR_TRAILING);
      CHECK_THAT(err, Catch::Contains("trailing bytes after the data"));
    }
  }
}

TEST_CASE("a pipe whose header promises terabytes allocates only what arrives",
          "[io][errors]") {
  TempDir dir;
  std::signal(SIGPIPE, SIG_IGN);
  // 2^38 f32 elements (1 TiB) promised, three sent: allocating the promise first would fail (or, under
  // AddressSanitizer, abort), so the reader must grow its buffer with the data.
  Bytes lying = header(MOART_F32, {uint64_t(1) << 19, uint64_t(1) << 19});
  putLe(lying, 0x3f800000, 4);
  putLe(lying, 0x40000000, 4);
  putLe(lying, 0x40400000, 4);
  std::string path = dir.path("pipe");
  REQUIRE(mkfifo(path.c_str(), 0600) == 0);
  std::thread writer([&] { dir.write("pipe", lying); });
  moart_array out;
  char err[256] = "";
  moart_status status = moart_read_array(path.c_str(), &out, err, sizeof err);
  writer.join();
  std::remove(path.c_str());
  CHECK(status == MOART_ERR_TRUNCATED);
  CHECK_THAT(err, Catch::Contains("truncated data: 3 of 274877906944 elements present"));
  CHECK(out.data == nullptr);
}

TEST_CASE("error messages are cut to errlen and err may be NULL",
          "[io][errors]") {
  TempDir dir;
  std::string path = dir.write("bad.moarr", Bytes{'x'});
  moart_array out;
  char err[8];
  CHECK(moart_read_array(path.c_str(), &out, err, sizeof err) ==
        MOART_ERR_MAGIC);
  CHECK(std::string(err).size() == 7);
  CHECK(moart_read_array(path.c_str(), &out, nullptr, 0) == MOART_ERR_MAGIC);
  char one[1] = {'z'};
  CHECK(moart_read_array(path.c_str(), &out, one, 0) == MOART_ERR_MAGIC);
  CHECK(one[0] == 'z'); // errlen 0: untouched
}
