// Source buffers and locations. Every token and AST node carries a SourceLoc so that diagnostics, the
// DNF and the generated code can point back at the .moa line they came from.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace moac {

struct SourceLoc {
  uint32_t file = 0;   // index into SourceManager; 0 means "no location"
  uint32_t line = 0;   // 1-based
  uint32_t col = 0;    // 1-based, counted in bytes
  uint32_t offset = 0; // byte offset into the buffer
  bool valid() const { return file != 0; }
};

struct SourceFile {
  std::string name; // as shown in diagnostics: the path given, or <stdin>
  std::string text;
  std::vector<uint32_t> lineStarts;
  std::string_view lineText(uint32_t line) const;
};

class SourceManager {
public:
  // Registers a buffer and returns its file id (>= 1).
  uint32_t add(std::string name, std::string text);
  const SourceFile &file(uint32_t id) const { return *files.at(id - 1); }
  uint32_t fileCount() const { return uint32_t(files.size()); }
  SourceLoc locate(uint32_t file, uint32_t offset) const;

private:
  std::vector<std::unique_ptr<SourceFile>> files;
};

} // namespace moac
