// Unit tests of the UTF-8 decoder that the lexer and the diagnostics share: it accepts exactly the
// shortest-form encodings of the Unicode scalar values (U+0000-U+10FFFF without the surrogates). Checked
// both ways: every scalar value's encoding decodes back to it, and whatever the decoder accepts from every
// byte string of up to three bytes (and a sample of four) is the encoding of what it returned.
#include "Utf8.h"

#include <catch2/catch.hpp>

#include <string>

using namespace moac;

namespace {

// The encoding by RFC 3629's table, written independently of the decoder.
std::string encode(char32_t cp) {
  std::string out;
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
  return out;
}

bool isScalarValue(char32_t cp) { return cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF); }

// Whatever decodeUtf8 accepts at the start of `bytes` must be the encoding of the value it returns;
// counts the strings that break this.
int acceptedButNotAnEncoding(const std::string &bytes) {
  Utf8Char ch = decodeUtf8(bytes, 0);
  if (ch.length == 0)
    return 0;
  bool ok = ch.length <= bytes.size() && isScalarValue(ch.codePoint) &&
            encode(ch.codePoint) == bytes.substr(0, ch.length);
  return ok ? 0 : 1;
}

} // namespace

TEST_CASE("decodeUtf8 decodes every scalar value's encoding", "[utf8]") {
  int wrong = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (!isScalarValue(cp))
      continue;
    std::string bytes = encode(cp) + "x";
    Utf8Char ch = decodeUtf8(bytes, 0);
    wrong += ch.codePoint != cp || ch.length != bytes.size() - 1;
  }
  CHECK(wrong == 0);
}

TEST_CASE("decodeUtf8 accepts nothing but encodings", "[utf8]") {
  int wrong = 0;
  for (int a = 0; a < 256; ++a) {
    wrong += acceptedButNotAnEncoding(std::string(1, char(a)));
    for (int b = 0; b < 256; ++b) {
      wrong += acceptedButNotAnEncoding({char(a), char(b)});
      for (int c = 0; c < 256; ++c)
        wrong += acceptedButNotAnEncoding({char(a), char(b), char(c)});
    }
  }
  // Four bytes: every lead and second byte, the third and fourth at the continuation range's edges.
  const int edges[] = {0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
  for (int a = 0xF0; a < 256; ++a)
    for (int b = 0; b < 256; ++b)
      for (int c : edges)
        for (int d : edges)
          wrong += acceptedButNotAnEncoding({char(a), char(b), char(c), char(d)});
  CHECK(wrong == 0);
}

TEST_CASE("decodeUtf8 rejects the malformed sequences by name", "[utf8]") {
  auto length = [](const std::string &bytes) { return decodeUtf8(bytes, 0).length; };
  CHECK(length("\x80") == 0);             // a lone continuation byte
  CHECK(length("\xc0\xaf") == 0);         // overlong '/'
  CHECK(length("\xc1\xbf") == 0);         // overlong, 2 bytes
  CHECK(length("\xe0\x80\xaf") == 0);     // overlong, 3 bytes
  CHECK(length("\xf0\x80\x80\xaf") == 0); // overlong, 4 bytes
  CHECK(length("\xed\xa0\x80") == 0);     // a surrogate
  CHECK(length("\xf4\x90\x80\x80") == 0); // above U+10FFFF
  CHECK(length("\xf5\x80\x80\x80") == 0); // a lead byte past U+10FFFF
  CHECK(length("\xe2\x9f") == 0);         // cut short by the end
  CHECK(length("\xe2\x9f x") == 0);       // cut short by a space
  CHECK(length("\xe2\x9f\xa8") == 3);     // ⟨
  CHECK(decodeUtf8("a\xcf\x88", 1).codePoint == U'ψ');
  CHECK(isUtf8Continuation('\x80'));
  CHECK(isUtf8Continuation('\xbf'));
  CHECK(!isUtf8Continuation('\xc0'));
  CHECK(!isUtf8Continuation('a'));
}
