#include "CommentText.h"

#include "Utf8.h"

#include <fmt/format.h>

namespace moac {

namespace {

// Characters that are written <U+XXXX> rather than copied.
bool escaped(char32_t c) {
  if (c < 0x20)
    return c != '\t';
  if (c == '\\' || (c >= 0x7F && c <= 0x9F))
    return true;
  return (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F ||
         c == 0x061C || c == 0x2028 || c == 0x2029 || c == 0xFEFF;
}

bool trigraphThird(char c) {
  switch (c) {
  case '=': case '(': case '/': case ')': case '\'': case '<': case '!': case '>': case '-': return true;
  default: return false;
  }
}

} // namespace

std::string commentText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    Utf8Char ch = decodeUtf8(text, at);
    if (ch.length == 0) {
      out += fmt::format("<0x{:02X}>", (unsigned char)text[at]);
      ++at;
      continue;
    }
    if (escaped(ch.codePoint)) {
      out += fmt::format("<U+{:04X}>", uint32_t(ch.codePoint));
    } else {
      char c = text[at];
      size_t n = out.size();
      bool split = (c == '/' && n > 0 && out[n - 1] == '*') || (c == '*' && n > 0 && out[n - 1] == '/') ||
                   (trigraphThird(c) && n > 1 && out[n - 1] == '?' && out[n - 2] == '?');
      if (split)
        out += ' ';
      out.append(text.substr(at, ch.length));
    }
    at += ch.length;
  }
  return out;
}

} // namespace moac
