// UTF-8 decoding, the one definition of a valid character for the lexer (which accepts Unicode operator
// spellings) and the diagnostics (which show a source line with its caret): shortest form only, no UTF-16
// surrogates, nothing above U+10FFFF (RFC 3629).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace moac {

struct Utf8Char {
  char32_t codePoint = 0;
  uint32_t length = 0; // in bytes; 0 when the bytes at the position start no valid character
};

// The character starting at byte `at` (< text.size()) of `text`.
Utf8Char decodeUtf8(std::string_view text, size_t at);

// A byte that continues a multi-byte character (10xxxxxx).
inline bool isUtf8Continuation(char byte) { return ((unsigned char)byte & 0xC0) == 0x80; }

} // namespace moac
