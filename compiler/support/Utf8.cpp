#include "Utf8.h"

namespace moac {

Utf8Char decodeUtf8(std::string_view text, size_t at) {
  unsigned char lead = (unsigned char)text[at];
  if (lead < 0x80)
    return {lead, 1};
  // 0x80-0xC1 are continuations or the start of an overlong 2-byte form; 0xF5 and above would exceed U+10FFFF.
  uint32_t length = lead >= 0xC2 && lead < 0xE0   ? 2
                    : lead >= 0xE0 && lead < 0xF0 ? 3
                    : lead >= 0xF0 && lead < 0xF5 ? 4
                                                  : 0;
  if (length == 0 || at + length > text.size())
    return {};
  char32_t cp = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
  for (uint32_t k = 1; k < length; ++k) {
    if (!isUtf8Continuation(text[at + k]))
      return {};
    cp = (cp << 6) | ((unsigned char)text[at + k] & 0x3F);
  }
  bool overlong = (length == 3 && cp < 0x800) || (length == 4 && cp < 0x10000);
  if (overlong || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
    return {};
  return {cp, length};
}

} // namespace moac
