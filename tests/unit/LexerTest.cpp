// Unit tests of the lexer: every token kind, the operator forms (+/ +.* o.* ++), the Unicode aliases,
// comments, numbers, source locations, and malformed input (bad UTF-8, NUL bytes) that must give a
// diagnostic and never crash.
#include "FrontEnd.h"

#include <cmath>

#include <random>

using namespace moac;
using moac::test::lexText;

namespace {

// Token kinds as their readable names, End included, so failures print legibly.
std::vector<std::string> kinds(const std::vector<Token> &tokens) {
  std::vector<std::string> out;
  for (const Token &t : tokens)
    out.push_back(tokName(t.kind));
  return out;
}

std::vector<std::string> kindsOf(const std::string &text) { return kinds(lexText(text).tokens); }

// The single token that `text` lexes to (followed only by the implicit newline and End).
Token only(const std::string &text) {
  auto lexed = lexText(text);
  INFO("lexing '" << text << "': " << lexed.diags);
  REQUIRE(lexed.diags.empty());
  REQUIRE(lexed.tokens.size() == 3);
  CHECK(lexed.tokens[1].kind == Tok::Newline);
  CHECK(lexed.tokens[2].kind == Tok::End);
  return lexed.tokens[0];
}

} // namespace

TEST_CASE("Lexer keywords", "[lexer]") {
  const std::pair<const char *, Tok> table[] = {
      {"dim", Tok::KwDim},   {"in", Tok::KwIn},     {"out", Tok::KwOut},         {"inout", Tok::KwInout},
      {"fn", Tok::KwFn},     {"psi", Tok::KwPsi},   {"rho", Tok::KwRho},         {"iota", Tok::KwIota},
      {"tran", Tok::KwTran}, {"take", Tok::KwTake}, {"drop", Tok::KwDrop},       {"cat", Tok::KwCat},
      {"rav", Tok::KwRav},   {"div", Tok::KwDiv},   {"reshape", Tok::KwReshape}, {"mod", Tok::KwMod},
      {"max", Tok::KwMax},   {"min", Tok::KwMin},   {"neg", Tok::KwNeg},         {"exp", Tok::KwExp},
      {"log", Tok::KwLog},   {"sqrt", Tok::KwSqrt}, {"abs", Tok::KwAbs},
      {"not", Tok::KwNot},   {"and", Tok::KwAnd},   {"or", Tok::KwOr},           {"where", Tok::KwWhere},
      {"tanh", Tok::KwTanh}, {"sin", Tok::KwSin},   {"cos", Tok::KwCos},         {"exp2", Tok::KwExp2},
      {"log2", Tok::KwLog2}, {"pow", Tok::KwPow},   {"sigmoid", Tok::KwSigmoid},
  };
  for (auto [text, kind] : table) {
    INFO(text);
    Token t = only(text);
    CHECK(t.kind == kind);
    CHECK(t.text == text);
  }
  SECTION("longer words are names") {
    for (const char *name : {"dims", "input", "psi2", "maxi", "_max", "o", "oo", "n_1", "Tran"}) {
      INFO(name);
      Token t = only(name);
      CHECK(t.kind == Tok::Ident);
      CHECK(t.text == name);
    }
  }
}

TEST_CASE("Lexer punctuation", "[lexer]") {
  CHECK(kindsOf("+ - * / = , : ; ( ) [ ] { } < >") ==
        std::vector<std::string>{"'+'", "'-'", "'*'", "'/'", "'='", "','", "':'", "';'", "'('", "')'",
                                 "'['", "']'", "'{'", "'}'", "'<'", "'>'", "end of line", "end of file"});
  CHECK(kindsOf("(a+b)*c") == std::vector<std::string>{"'('", "a name", "'+'", "a name", "')'", "'*'",
                                                       "a name", "end of line", "end of file"});
}

TEST_CASE("Lexer comparisons", "[lexer]") {
  CHECK(kindsOf("< <= > >= == != = ≤ ≥ ≠") ==
        std::vector<std::string>{"'<'", "'<='", "'>'", "'>='", "'=='", "'!='", "'='", "'<='", "'>='", "'!='",
                                 "end of line", "end of file"});
  CHECK(kindsOf("j<=i") == std::vector<std::string>{"a name", "'<='", "a name", "end of line", "end of file"});
  SECTION("a lone ! is an error") {
    auto lexed = lexText("a ! b");
    CHECK(lexed.errors);
  }
}

TEST_CASE("Lexer inf", "[lexer]") {
  Token t = only("inf");
  CHECK(t.kind == Tok::Float);
  CHECK(std::isinf(t.floatValue));
  CHECK(t.floatValue > 0);
  CHECK(only("infx").kind == Tok::Ident);
  CHECK(kindsOf("-inf") == std::vector<std::string>{"'-'", "a number", "end of line", "end of file"});
}

TEST_CASE("Lexer reductions", "[lexer]") {
  const std::pair<const char *, BinOp> table[] = {
      {"+/", BinOp::Add}, {"*/", BinOp::Mul}, {"max/", BinOp::Max}, {"min/", BinOp::Min}, {"×/", BinOp::Mul},
      {"-/", BinOp::Sub}, {"−/", BinOp::Sub}, {"//", BinOp::Div},  {"÷/", BinOp::Div}};
  for (auto [text, op] : table) {
    INFO(text);
    Token t = only(text);
    CHECK(t.kind == Tok::Reduce);
    CHECK(t.op == op);
    CHECK(t.text == text);
    CHECK(t.length == std::string(text).size());
  }
  SECTION("a third slash ends the operator form: ///, +// are no reductions of a reduction") {
    CHECK(kindsOf("+//") == std::vector<std::string>{"'+'", "a reduction", "end of line", "end of file"});
    CHECK(kindsOf("///") == std::vector<std::string>{"'/'", "a reduction", "end of line", "end of file"});
  }
  SECTION("an axis is separate tokens: +/[1]") {
    CHECK(kindsOf("+/[1] A") ==
          std::vector<std::string>{"a reduction", "'['", "an integer", "']'", "a name", "end of line", "end of file"});
  }
  SECTION("a reduction applied to a name") {
    auto lexed = lexText("max/ x");
    CHECK(kinds(lexed.tokens) == std::vector<std::string>{"a reduction", "a name", "end of line", "end of file"});
    CHECK(lexed.tokens[1].loc.col == 6);
  }
  SECTION("e / (+/ e): a lone slash stays division") {
    CHECK(kindsOf("e / (+/ e)") == std::vector<std::string>{"a name", "'/'", "'('", "a reduction", "a name",
                                                            "')'", "end of line", "end of file"});
  }
}

TEST_CASE("Lexer inner and outer products", "[lexer]") {
  struct Case {
    const char *text;
    Tok kind;
    BinOp f, g;
  };
  const Case table[] = {
      {"+.*", Tok::Inner, BinOp::Add, BinOp::Mul}, {"max.+", Tok::Inner, BinOp::Max, BinOp::Add},
      {"min.max", Tok::Inner, BinOp::Min, BinOp::Max}, {"+.×", Tok::Inner, BinOp::Add, BinOp::Mul},
      {"+.-", Tok::Inner, BinOp::Add, BinOp::Sub}, {"-.*", Tok::Inner, BinOp::Sub, BinOp::Mul},
      {"÷.×", Tok::Inner, BinOp::Div, BinOp::Mul}, {"−.+", Tok::Inner, BinOp::Sub, BinOp::Add},
  };
  for (const Case &c : table) {
    INFO(c.text);
    Token t = only(c.text);
    CHECK(t.kind == c.kind);
    CHECK(t.op == c.f);
    CHECK(t.op2 == c.g);
    CHECK(t.length == std::string(c.text).size());
  }
  const std::pair<const char *, BinOp> outer[] = {
      {"o.*", BinOp::Mul}, {"∘.×", BinOp::Mul}, {"o.+", BinOp::Add}, {"∘.max", BinOp::Max}, {"o.÷", BinOp::Div}};
  for (auto [text, g] : outer) {
    INFO(text);
    Token t = only(text);
    CHECK(t.kind == Tok::Outer);
    CHECK(t.op2 == g);
    CHECK(t.text == text);
  }
  SECTION("in context") {
    CHECK(kindsOf("q +.* tran K") ==
          std::vector<std::string>{"a name", "an inner product", "'tran'", "a name", "end of line", "end of file"});
    CHECK(kindsOf("a o.* b") ==
          std::vector<std::string>{"a name", "an outer product", "a name", "end of line", "end of file"});
    // `o` on its own, or not followed by `.op`, is an ordinary name
    auto dotted = lexText("o.x");
    CHECK(kinds(dotted.tokens) ==
          std::vector<std::string>{"a name", "an invalid character", "a name", "end of line", "end of file"});
    CHECK(dotted.diags.find("t.moa:1:2: error: unexpected character '.'") != std::string::npos);
    auto lexed = lexText("o = o + 1");
    CHECK(kinds(lexed.tokens) == std::vector<std::string>{"a name", "'='", "a name", "'+'", "an integer",
                                                          "end of line", "end of file"});
    CHECK(lexed.diags.empty());
  }
}

TEST_CASE("Lexer catenation", "[lexer]") {
  Token t = only("++");
  CHECK(t.kind == Tok::KwCat);
  CHECK(t.length == 2);
  CHECK(only("cat").kind == Tok::KwCat);
  CHECK(only("⧺").kind == Tok::KwCat);
  CHECK(kindsOf("K ++ k") == std::vector<std::string>{"a name", "'cat'", "a name", "end of line", "end of file"});
  CHECK(kindsOf("a + +b") == std::vector<std::string>{"a name", "'+'", "'+'", "a name", "end of line", "end of file"});
  CHECK(kindsOf("+++") == std::vector<std::string>{"'cat'", "'+'", "end of line", "end of file"});
}

TEST_CASE("Lexer Unicode aliases", "[lexer]") {
  const std::pair<const char *, Tok> table[] = {
      {"ψ", Tok::KwPsi},  {"ρ", Tok::KwRho}, {"ι", Tok::KwIota},  {"⍉", Tok::KwTran},
      {"↑", Tok::KwTake}, {"↓", Tok::KwDrop}, {"⟨", Tok::Less},   {"⟩", Tok::Greater},
      {"×", Tok::Star},   {"÷", Tok::Slash}, {"⧺", Tok::KwCat},  {"√", Tok::KwSqrt},
      {"−", Tok::Minus}, // U+2212, the minus sign moac explain prints
  };
  for (auto [text, kind] : table) {
    INFO(text);
    Token t = only(text);
    CHECK(t.kind == kind);
    CHECK(t.text == text);
    CHECK(t.length == std::string(text).size());
  }
  SECTION("a paper-style line lexes like its ASCII spelling") {
    CHECK(kindsOf("⟨l j⟩ ψ ⍉ K × √ dk") == kindsOf("<l j> psi tran K * sqrt dk"));
    CHECK(kindsOf("2 ↑ A ↓ B ÷ ρ ι n") == kindsOf("2 take A drop B / rho iota n"));
    CHECK(kindsOf("x − m") == kindsOf("x - m"));
  }
  SECTION("other non-ASCII characters are errors") {
    auto lexed = lexText("a ∑ b");
    CHECK(kinds(lexed.tokens) ==
          std::vector<std::string>{"a name", "an invalid character", "a name", "end of line", "end of file"});
    CHECK(lexed.diags.find("t.moa:1:3: error: unexpected character '∑'") != std::string::npos);
    CHECK(lexed.errors == 1);
  }
}

TEST_CASE("Lexer comments and newlines", "[lexer]") {
  auto lexed = lexText("# header ψ ∑ \xff\n\n a # trailing ++ +/\n\n\nb");
  CHECK(lexed.diags.empty());
  CHECK(kinds(lexed.tokens) ==
        std::vector<std::string>{"a name", "end of line", "a name", "end of line", "end of file"});
  CHECK(lexed.tokens[0].loc.line == 3);
  CHECK(lexed.tokens[0].loc.col == 2);
  CHECK(lexed.tokens[1].loc.line == 3); // the newline ending line 3
  CHECK(lexed.tokens[2].loc.line == 6);
  SECTION("carriage returns are blanks") {
    CHECK(kindsOf("a\r\nb\r\n") == std::vector<std::string>{"a name", "end of line", "a name", "end of line",
                                                             "end of file"});
  }
  SECTION("empty and comment-only files give just End") {
    CHECK(kindsOf("") == std::vector<std::string>{"end of file"});
    CHECK(kindsOf("# nothing\n\n") == std::vector<std::string>{"end of file"});
  }
}

TEST_CASE("Lexer negative literals", "[lexer]") {
  // The lexer always splits `-1` into '-' and 1; the parser joins them when they touch.
  auto lexed = lexText("-1 - 2");
  REQUIRE(kinds(lexed.tokens) ==
          std::vector<std::string>{"'-'", "an integer", "'-'", "an integer", "end of line", "end of file"});
  CHECK(lexed.tokens[1].intValue == 1);
  CHECK(lexed.tokens[1].loc.offset == lexed.tokens[0].loc.offset + 1);
  CHECK(lexed.tokens[3].loc.offset == lexed.tokens[2].loc.offset + 2);
  CHECK(kindsOf("x-1") == std::vector<std::string>{"a name", "'-'", "an integer", "end of line", "end of file"});
}

TEST_CASE("Lexer numbers", "[lexer]") {
  SECTION("integers") {
    Token t = only("42");
    CHECK(t.kind == Tok::Int);
    CHECK(t.intValue == 42);
    CHECK(only("0").intValue == 0);
    CHECK(only("9223372036854775807").intValue == INT64_MAX);
  }
  SECTION("floats") {
    Token half = only("0.5");
    CHECK(half.kind == Tok::Float);
    CHECK(half.floatValue == 0.5);
    Token milli = only("1e-3");
    CHECK(milli.kind == Tok::Float);
    CHECK(milli.floatValue == Approx(0.001).epsilon(1e-15));
    CHECK(milli.text == "1e-3");
    CHECK(only("2.5E+2").floatValue == 250.0);
    CHECK(only("3e2").kind == Tok::Float);
    CHECK(only("3e2").floatValue == 300.0);
  }
  SECTION("a number running into a name is one malformed token") {
    auto lexed = lexText("x = 3x + 1");
    CHECK(kinds(lexed.tokens) == std::vector<std::string>{"a name", "'='", "an integer", "'+'", "an integer",
                                                          "end of line", "end of file"});
    CHECK(lexed.errors == 1);
    CHECK(lexed.diags == "t.moa:1:5: error: malformed number '3x'\n"
                         "  x = 3x + 1\n"
                         "      ^~\n");
    CHECK(lexText("1e").diags.find("malformed number '1e'") != std::string::npos);
    CHECK(lexText("2.5.1").diags.find("unexpected character '.'") != std::string::npos);
    CHECK(lexText("1e-3x").diags.find("malformed number '1e-3x'") != std::string::npos);
  }
  SECTION("a trailing dot is not part of the number") {
    auto lexed = lexText("1.");
    CHECK(kinds(lexed.tokens) ==
          std::vector<std::string>{"an integer", "an invalid character", "end of line", "end of file"});
    CHECK(lexed.tokens[0].intValue == 1);
    CHECK(lexed.diags.find("t.moa:1:2: error: unexpected character '.'") != std::string::npos);
  }
  SECTION("an integer that does not fit") {
    auto lexed = lexText("99999999999999999999");
    CHECK(lexed.errors == 1);
    CHECK(lexed.diags.find("t.moa:1:1: error: integer literal '99999999999999999999' does not fit in 63 bits") !=
          std::string::npos);
  }
}

TEST_CASE("Lexer locations", "[lexer]") {
  auto lexed = lexText("dim n\n  in  q : f32[n]\nout o = ψ q");
  const auto &t = lexed.tokens;
  REQUIRE(kinds(t) == std::vector<std::string>{"'dim'", "a name", "end of line", "'in'", "a name", "':'",
                                               "a name", "'['", "a name", "']'", "end of line", "'out'", "a name",
                                               "'='", "'psi'", "a name", "end of line", "end of file"});
  auto at = [&](size_t i) { return std::make_pair(t[i].loc.line, t[i].loc.col); };
  CHECK(at(0) == std::make_pair(1u, 1u));
  CHECK(at(1) == std::make_pair(1u, 5u));
  CHECK(at(2) == std::make_pair(1u, 6u)); // the newline character
  CHECK(at(3) == std::make_pair(2u, 3u));
  CHECK(at(4) == std::make_pair(2u, 7u));
  CHECK(at(6) == std::make_pair(2u, 11u));
  CHECK(at(9) == std::make_pair(2u, 16u));
  CHECK(at(14) == std::make_pair(3u, 9u));
  CHECK(at(15) == std::make_pair(3u, 12u)); // columns count bytes: ψ is two
  CHECK(at(17) == std::make_pair(3u, 13u)); // End sits just past the last byte
  CHECK(t[14].length == 2);
  CHECK(t[6].text == "f32");
  for (const Token &tok : t)
    CHECK(tok.loc.file == 1);
}

TEST_CASE("Lexer bad UTF-8 and NUL bytes", "[lexer]") {
  struct Case {
    std::string text, diag;
  };
  const Case cases[] = {
      {"a \xff b", "t.moa:1:3: error: invalid UTF-8 byte 0xff"},
      {"a \xc3", "t.moa:1:3: error: invalid UTF-8 byte 0xc3"},             // truncated at end of file
      {"a \xc0\xaf", "t.moa:1:3: error: invalid UTF-8 byte 0xc0"},         // overlong '/'
      {"a \xe0\x80\xaf", "t.moa:1:3: error: invalid UTF-8 byte 0xe0"},     // overlong, 3 bytes
      {"a \xed\xa0\x80", "t.moa:1:3: error: invalid UTF-8 byte 0xed"},     // a surrogate
      {"a \xf4\x90\x80\x80", "t.moa:1:3: error: invalid UTF-8 byte 0xf4"}, // above U+10FFFF
      {"a \xe2\x9f x", "t.moa:1:3: error: invalid UTF-8 byte 0xe2"},       // cut short by a space
      {"a \x80", "t.moa:1:3: error: invalid UTF-8 byte 0x80"},             // a lone continuation byte
      {"a \xff\x80\x80", "t.moa:1:3: error: invalid UTF-8 byte 0xff"},     // 0xf8-0xff never lead
      {"a \xf8\x88\x80\x80\x80", "t.moa:1:3: error: invalid UTF-8 byte 0xf8"},
      {std::string("a \0 b", 5), "t.moa:1:3: error: unexpected NUL byte in source"},
      {"a \x01", "t.moa:1:3: error: unexpected character '\\x01'"},
      {"a \x7f", "t.moa:1:3: error: unexpected character '\\x7f'"},
  };
  for (const Case &c : cases) {
    INFO("input bytes: " << c.text.size());
    auto lexed = lexText(c.text);
    CHECK(lexed.errors >= 1);
    CHECK(lexed.diags.rfind(c.diag, 0) == 0);
    // the bad bytes become Invalid tokens; the name before them survives
    REQUIRE(lexed.tokens.size() >= 3);
    CHECK(lexed.tokens[1].kind == Tok::Invalid);
    CHECK(lexed.tokens.front().kind == Tok::Ident);
    CHECK(lexed.tokens.front().text == "a");
    CHECK(lexed.tokens.back().kind == Tok::End);
  }
  SECTION("NUL bytes between names") {
    auto lexed = lexText(std::string("a\0b", 3));
    CHECK(lexed.errors == 1);
    CHECK(kinds(lexed.tokens) ==
          std::vector<std::string>{"a name", "an invalid character", "a name", "end of line", "end of file"});
  }
  SECTION("valid multi-byte characters right after bad bytes still lex") {
    auto lexed = lexText("\xc3 ψ");
    CHECK(lexed.errors == 1);
    CHECK(kinds(lexed.tokens) ==
          std::vector<std::string>{"an invalid character", "'psi'", "end of line", "end of file"});
  }
}

TEST_CASE("Lexer never crashes on arbitrary bytes", "[lexer]") {
  // Every single byte, then deterministic pseudo-random strings biased towards UTF-8 lead bytes.
  for (int b = 0; b < 256; ++b) {
    auto lexed = lexText(std::string(1, char(b)) + "x");
    REQUIRE(!lexed.tokens.empty());
    CHECK(lexed.tokens.back().kind == Tok::End);
  }
  std::mt19937 rng(12345);
  const std::string alphabet = "ab01.e+-*/<>[](){}#\n o\xc3\xa8\xe2\x9f\xa8\xf0\x9f\x98\x80\xff\x80";
  for (int round = 0; round < 2000; ++round) {
    std::string text;
    size_t len = rng() % 24;
    for (size_t i = 0; i < len; ++i)
      text += rng() % 4 == 0 ? char(rng() % 256) : alphabet[rng() % alphabet.size()];
    auto lexed = lexText(text);
    REQUIRE(!lexed.tokens.empty());
    CHECK(lexed.tokens.back().kind == Tok::End);
    for (const Token &t : lexed.tokens)
      CHECK(t.loc.offset <= text.size());
  }
}

TEST_CASE("Lexer stops after too many errors", "[lexer]") {
  // The lexer stops at the limit; the parser's next error prints "too many errors".
  auto lexed = lexText(std::string(50, '$'));
  CHECK(lexed.errors == DiagnosticEngine::errorLimit);
  CHECK(lexed.tokens.size() == DiagnosticEngine::errorLimit + 2); // the bad bytes, a newline, End
  CHECK(lexed.tokens.back().kind == Tok::End);
}

TEST_CASE("Lexer describe", "[lexer]") {
  auto lexed = lexText("foo ψ");
  CHECK(describe(lexed.tokens[0]) == "'foo'");
  CHECK(describe(lexed.tokens[1]) == "'ψ'");
  CHECK(describe(lexed.tokens[2]) == "end of line");
  CHECK(describe(lexed.tokens[3]) == "end of file");
  Token longName = only(std::string(60, 'x'));
  CHECK(describe(longName) == "'" + std::string(40, 'x') + "...'");
}
