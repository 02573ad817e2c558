// TempDir.h - a fresh directory per test case for the file tests, removed
// afterwards. Test cases may run in parallel processes, so each gets its own.
#ifndef MOART_TESTS_TEMPDIR_H
#define MOART_TESTS_TEMPDIR_H

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

class TempDir {
public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "moart_tests_XXXXXX")
            .string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data()))
      throw std::runtime_error("mkdtemp failed");
    dir = buf.data();
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  TempDir(const TempDir &) = delete;
  TempDir &operator=(const TempDir &) = delete;

  std::string path(const std::string &name) const {
    return (dir / name).string();
  }

  // Write raw bytes, for files the library itself would never produce.
  std::string write(const std::string &name,
                    const std::vector<unsigned char> &bytes) const {
    std::string p = path(name);
    std::FILE *f = std::fopen(p.c_str(), "wb");
    if (!f)
      throw std::runtime_error("cannot create " + p);
    if (!bytes.empty())
      std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
    return p;
  }

  std::vector<unsigned char> read(const std::string &name) const {
    std::vector<unsigned char> bytes;
    std::FILE *f = std::fopen(path(name).c_str(), "rb");
    if (!f)
      return bytes;
    for (int c; (c = std::fgetc(f)) != EOF;)
      bytes.push_back(static_cast<unsigned char>(c));
    std::fclose(f);
    return bytes;
  }

private:
  std::filesystem::path dir;
};

#endif // MOART_TESTS_TEMPDIR_H
