#include "Lexer.h"
#include "Utf8.h"

#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <algorithm>
#include <iterator>
#include <utility>

namespace moac {

const char *tokName(Tok kind) {
  switch (kind) {
  case Tok::End: return "end of file";
  case Tok::Newline: return "end of line";
  case Tok::Ident: return "a name";
  case Tok::Int: return "an integer";
  case Tok::Float: return "a number";
  case Tok::KwDim: return "'dim'";
  case Tok::KwIn: return "'in'";
  case Tok::KwOut: return "'out'";
  case Tok::KwInout: return "'inout'";
  case Tok::KwFn: return "'fn'";
  case Tok::KwAssume: return "'assume'";
  case Tok::KwPsi: return "'psi'";
  case Tok::KwRho: return "'rho'";
  case Tok::KwIota: return "'iota'";
  case Tok::KwTran: return "'tran'";
  case Tok::KwTake: return "'take'";
  case Tok::KwDrop: return "'drop'";
  case Tok::KwCat: return "'cat'";
  case Tok::KwReshape: return "'reshape'";
  case Tok::KwRav: return "'rav'";
  case Tok::KwDiv: return "'div'";
  case Tok::KwMod: return "'mod'";
  case Tok::KwMax: return "'max'";
  case Tok::KwMin: return "'min'";
  case Tok::KwNeg: return "'neg'";
  case Tok::KwExp: return "'exp'";
  case Tok::KwLog: return "'log'";
  case Tok::KwSqrt: return "'sqrt'";
  case Tok::KwAbs: return "'abs'";
  case Tok::KwNot: return "'not'";
  case Tok::KwAnd: return "'and'";
  case Tok::KwOr: return "'or'";
  case Tok::KwWhere: return "'where'";
  case Tok::KwTanh: return "'tanh'";
  case Tok::KwSin: return "'sin'";
  case Tok::KwCos: return "'cos'";
  case Tok::KwExp2: return "'exp2'";
  case Tok::KwLog2: return "'log2'";
  case Tok::KwSigmoid: return "'sigmoid'";
  case Tok::KwPow: return "'pow'";
  case Tok::Plus: return "'+'";
  case Tok::Minus: return "'-'";
  case Tok::Star: return "'*'";
  case Tok::Slash: return "'/'";
  case Tok::Assign: return "'='";
  case Tok::Comma: return "','";
  case Tok::Colon: return "':'";
  case Tok::Semicolon: return "';'";
  case Tok::LParen: return "'('";
  case Tok::RParen: return "')'";
  case Tok::LBracket: return "'['";
  case Tok::RBracket: return "']'";
  case Tok::LBrace: return "'{'";
  case Tok::RBrace: return "'}'";
  case Tok::Less: return "'<'";
  case Tok::Greater: return "'>'";
  case Tok::LessEq: return "'<='";
  case Tok::GreaterEq: return "'>='";
  case Tok::EqEq: return "'=='";
  case Tok::NotEq: return "'!='";
  case Tok::Reduce: return "a reduction";
  case Tok::Inner: return "an inner product";
  case Tok::Outer: return "an outer product";
  case Tok::Invalid: return "an invalid character";
  }
  return "a token";
}

std::string describe(const Token &tok) {
  switch (tok.kind) {
  case Tok::End:
  case Tok::Newline:
    return tokName(tok.kind);
  default: {
    std::string text = tok.text.size() > 40 ? tok.text.substr(0, 40) + "..." : tok.text;
    return "'" + text + "'";
  }
  }
}

namespace {

// A constant table (read-only data, no static constructor); 35 entries are searched in order.
constexpr std::pair<std::string_view, Tok> keywords[] = {
    {"dim", Tok::KwDim},       {"in", Tok::KwIn},     {"out", Tok::KwOut},   {"inout", Tok::KwInout},
    {"fn", Tok::KwFn},         {"assume", Tok::KwAssume}, {"psi", Tok::KwPsi}, {"rho", Tok::KwRho},
    {"iota", Tok::KwIota},
    {"tran", Tok::KwTran},     {"take", Tok::KwTake}, {"drop", Tok::KwDrop}, {"cat", Tok::KwCat},
    {"reshape", Tok::KwReshape}, {"rav", Tok::KwRav}, {"div", Tok::KwDiv},   {"mod", Tok::KwMod},
    {"max", Tok::KwMax},       {"min", Tok::KwMin},   {"neg", Tok::KwNeg},   {"exp", Tok::KwExp},
    {"log", Tok::KwLog},       {"sqrt", Tok::KwSqrt}, {"abs", Tok::KwAbs},   {"not", Tok::KwNot},
    {"and", Tok::KwAnd},       {"or", Tok::KwOr},     {"where", Tok::KwWhere}, {"tanh", Tok::KwTanh},
    {"sin", Tok::KwSin},       {"cos", Tok::KwCos},   {"exp2", Tok::KwExp2}, {"log2", Tok::KwLog2},
    {"sigmoid", Tok::KwSigmoid}, {"pow", Tok::KwPow},
};

// Unicode aliases: code point -> the ASCII token it stands for.
struct Alias {
  char32_t cp;
  Tok kind;
};
const Alias unicodeAliases[] = {
    {U'ψ', Tok::KwPsi},  {U'ρ', Tok::KwRho},  {U'ι', Tok::KwIota}, {U'⍉', Tok::KwTran},
    {U'↑', Tok::KwTake}, {U'↓', Tok::KwDrop}, {U'⟨', Tok::Less},   {U'⟩', Tok::Greater},
    {U'×', Tok::Star},   {U'÷', Tok::Slash},  {U'⧺', Tok::KwCat},  {U'√', Tok::KwSqrt},
    {U'≤', Tok::LessEq}, {U'≥', Tok::GreaterEq}, {U'≠', Tok::NotEq}, {U'−', Tok::Minus},
};

class Lexer {
public:
  Lexer(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags)
      : sources(sources), file(file), text(sources.file(file).text), diags(diags) {}

  std::vector<Token> run();

private:
  // A scalar operator spelled at pos (+ - * / × ÷ − max min), for `op/` and `f.g` forms.
  bool scalarOp(size_t at, BinOp &op, size_t &len) const;
  bool tryOperatorForm(Token &tok);
  void lexToken(Token &tok);
  void lexNumber(Token &tok);
  void lexWord(Token &tok);
  bool lexPunctuation(Token &tok);
  void lexUnicode(Token &tok);
  void finish(std::vector<Token> &tokens) const;
  SourceLoc loc(size_t at) const { return sources.locate(file, uint32_t(at)); }

  const SourceManager &sources;
  uint32_t file;
  const std::string &text;
  DiagnosticEngine &diags;
  size_t pos = 0;
};

bool Lexer::scalarOp(size_t at, BinOp &op, size_t &len) const {
  if (at >= text.size())
    return false;
  switch (text[at]) {
  case '+': op = BinOp::Add; len = 1; return true;
  case '-': op = BinOp::Sub; len = 1; return true;
  case '*': op = BinOp::Mul; len = 1; return true;
  case '/': op = BinOp::Div; len = 1; return true;
  default: break;
  }
  auto word = [&](const char *w) {
    size_t n = std::strlen(w);
    if (text.compare(at, n, w) != 0)
      return false;
    size_t after = at + n;
    return after >= text.size() || !(std::isalnum((unsigned char)text[after]) || text[after] == '_');
  };
  if (word("max")) { op = BinOp::Max; len = 3; return true; }
  if (word("min")) { op = BinOp::Min; len = 3; return true; }
  Utf8Char ch = decodeUtf8(text, at);
  if (ch.codePoint == U'×') { op = BinOp::Mul; len = ch.length; return true; }
  if (ch.codePoint == U'÷') { op = BinOp::Div; len = ch.length; return true; }
  if (ch.codePoint == U'−') { op = BinOp::Sub; len = ch.length; return true; }
  return false;
}

// The APL-style operator forms, written without spaces: `op/` (reduce), `f.g` (inner product) and
// `o.g` / `∘.g` (outer product). A lone operator falls through to ordinary punctuation.
bool Lexer::tryOperatorForm(Token &tok) {
  size_t len;
  BinOp f;
  // outer product: `o.g` or `∘.g`
  Utf8Char ch = decodeUtf8(text, pos);
  size_t cpLen = ch.length;
  char32_t cp = ch.codePoint;
  bool isO = text[pos] == 'o' && !(pos + 1 < text.size() && (std::isalnum((unsigned char)text[pos + 1]) || text[pos + 1] == '_'));
  if ((isO || cp == U'∘') && pos + (isO ? 1 : cpLen) < text.size() && text[pos + (isO ? 1 : cpLen)] == '.') {
    size_t at = pos + (isO ? 1 : cpLen) + 1;
    BinOp g;
    if (scalarOp(at, g, len)) {
      tok.kind = Tok::Outer;
      tok.op2 = g;
      pos = at + len;
      return true;
    }
  }
  if (!scalarOp(pos, f, len))
    return false;
  size_t at = pos + len;
  if (at < text.size() && text[at] == '/' && isReducer(f) && !(at + 1 < text.size() && text[at + 1] == '/')) {
    tok.kind = Tok::Reduce;
    tok.op = f;
    pos = at + 1;
    return true;
  }
  size_t gLen;
  BinOp g;
  if (at < text.size() && text[at] == '.' && scalarOp(at + 1, g, gLen)) {
    tok.kind = Tok::Inner;
    tok.op = f;
    tok.op2 = g;
    pos = at + 1 + gLen;
    return true;
  }
  return false;
}

void Lexer::lexNumber(Token &tok) {
  size_t start = pos;
  while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
    ++pos;
  bool isFloat = false;
  if (pos + 1 < text.size() && text[pos] == '.' && std::isdigit((unsigned char)text[pos + 1])) {
    isFloat = true;
    ++pos;
    while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
      ++pos;
  }
  if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
    size_t at = pos + 1;
    if (at < text.size() && (text[at] == '+' || text[at] == '-'))
      ++at;
    if (at < text.size() && std::isdigit((unsigned char)text[at])) {
      isFloat = true;
      pos = at;
      while (pos < text.size() && std::isdigit((unsigned char)text[pos]))
        ++pos;
    }
  }
  // A number running straight into a name (`3x`) is one malformed token, not two.
  size_t end = pos;
  while (end < text.size() && (std::isalnum((unsigned char)text[end]) || text[end] == '_'))
    ++end;
  tok.text = text.substr(start, end - start);
  if (end != pos) {
    diags.reportSpan(Diag::BadNumber, tok.loc, uint32_t(end - start), tok.text);
    pos = end;
    tok.kind = Tok::Int;
    return;
  }
  if (isFloat) {
    tok.kind = Tok::Float;
    errno = 0;
    tok.floatValue = std::strtod(tok.text.c_str(), nullptr);
    // Overflow would silently become infinity; an underflow to zero or a denormal is what was written.
    if (errno == ERANGE && std::isinf(tok.floatValue)) {
      diags.reportSpan(Diag::FloatTooLarge, tok.loc, uint32_t(tok.text.size()), tok.text);
      tok.floatValue = 0;
    }
    return;
  }
  tok.kind = Tok::Int;
  errno = 0;
  char *endp = nullptr;
  long long v = std::strtoll(tok.text.c_str(), &endp, 10);
  if (errno == ERANGE) {
    diags.reportSpan(Diag::NumberTooLarge, tok.loc, uint32_t(tok.text.size()), tok.text);
    v = 0;
  }
  tok.intValue = v;
}

// One word: a keyword or a name.
void Lexer::lexWord(Token &tok) {
  size_t start = pos;
  while (pos < text.size() && (std::isalnum((unsigned char)text[pos]) || text[pos] == '_'))
    ++pos;
  std::string_view word(text.data() + start, pos - start);
  if (word == "inf") { // the float literal +∞ (`-inf` written together is -∞, like any negative literal)
    tok.kind = Tok::Float;
    tok.floatValue = HUGE_VAL;
    return;
  }
  auto kw = std::find_if(std::begin(keywords), std::end(keywords), [&](const auto &k) { return k.first == word; });
  tok.kind = kw != std::end(keywords) ? kw->second : Tok::Ident;
}

// One ASCII punctuation character, or `++`; false when the character at pos is none.
bool Lexer::lexPunctuation(Token &tok) {
  unsigned char c = (unsigned char)text[pos];
  if (c == '!' && pos + 1 < text.size() && text[pos + 1] == '=') {
    tok.kind = Tok::NotEq;
    pos += 2;
    return true;
  }
  static constexpr std::pair<char, Tok> punct[] = {
      {'+', Tok::Plus},     {'-', Tok::Minus},    {'*', Tok::Star},     {'/', Tok::Slash},
      {'=', Tok::Assign},   {',', Tok::Comma},    {':', Tok::Colon},    {';', Tok::Semicolon},
      {'(', Tok::LParen},   {')', Tok::RParen},   {'[', Tok::LBracket}, {']', Tok::RBracket},
      {'{', Tok::LBrace},   {'}', Tok::RBrace},   {'<', Tok::Less},     {'>', Tok::Greater},
  };
  bool matched = false;
  for (auto [ch, kind] : punct)
    if (c == (unsigned char)ch) {
      tok.kind = kind;
      ++pos;
      matched = true;
      break;
    }
  if (!matched)
    return false;
  // `++` is catenation (the paper's #, which in .moa starts a comment)
  if (tok.kind == Tok::Plus && pos < text.size() && text[pos] == '+') {
    tok.kind = Tok::KwCat;
    ++pos;
  }
  // the two-character comparisons <= >= ==
  if (pos < text.size() && text[pos] == '=' &&
      (tok.kind == Tok::Less || tok.kind == Tok::Greater || tok.kind == Tok::Assign)) {
    tok.kind = tok.kind == Tok::Less ? Tok::LessEq : tok.kind == Tok::Greater ? Tok::GreaterEq : Tok::EqEq;
    ++pos;
  }
  return true;
}

// A character outside ASCII: a Unicode alias of a token, or an error (bad UTF-8, a character that is
// no token) that still makes an Invalid token.
void Lexer::lexUnicode(Token &tok) {
  unsigned char c = (unsigned char)text[pos];
  size_t start = pos;
  Utf8Char ch = decodeUtf8(text, pos);
  size_t len = ch.length;
  char32_t cp = ch.codePoint;
  if (len == 0) {
    diags.report(Diag::BadUtf8, tok.loc, c);
    ++pos;
    // The rest of a broken sequence is part of the same error.
    while (pos < text.size() && isUtf8Continuation(text[pos]))
      ++pos;
    tok.kind = Tok::Invalid;
    return;
  }
  pos += len;
  for (auto alias : unicodeAliases)
    if (alias.cp == cp) {
      tok.kind = alias.kind;
      return;
    }
  std::string shown = cp < 0x20 || cp == 0x7f ? fmt::format("\\x{:02x}", uint32_t(cp))
                                              : text.substr(start, len);
  diags.report(Diag::BadCharacter, tok.loc, shown);
  tok.kind = Tok::Invalid;
}

// Every token ends a line: the last line gets its Newline even without a final '\n', then End.
void Lexer::finish(std::vector<Token> &tokens) const {
  Token end;
  end.kind = Tok::End;
  end.loc = loc(text.size());
  if (!tokens.empty() && tokens.back().kind != Tok::Newline) {
    Token nl = end;
    nl.kind = Tok::Newline;
    nl.text = "\\n";
    tokens.push_back(nl);
  }
  tokens.push_back(end);
}

// One token starting at pos, which holds no blank, comment or newline.
void Lexer::lexToken(Token &tok) {
  unsigned char c = (unsigned char)text[pos];
  if (c == 0) {
    diags.report(Diag::NulByte, tok.loc);
    ++pos;
    tok.kind = Tok::Invalid;
    return;
  }
  if (std::isdigit(c))
    return lexNumber(tok);
  if (tryOperatorForm(tok))
    return;
  if (std::isalpha(c) || c == '_')
    return lexWord(tok);
  if (!lexPunctuation(tok))
    lexUnicode(tok);
}

std::vector<Token> Lexer::run() {
  std::vector<Token> tokens;
  auto push = [&](Token tok, size_t start) {
    tok.length = uint32_t(pos - start);
    if (tok.text.empty())
      tok.text = text.substr(start, pos - start);
    tokens.push_back(std::move(tok));
  };
  while (pos < text.size() && !diags.tooMany()) {
    unsigned char c = (unsigned char)text[pos];
    size_t start = pos;
    Token tok;
    tok.loc = loc(pos);
    if (c == '\n') {
      ++pos;
      if (!tokens.empty() && tokens.back().kind != Tok::Newline)
        push(tok, start), tokens.back().kind = Tok::Newline, tokens.back().text = "\\n";
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos;
      continue;
    }
    if (c == '#') { // comment to end of line
      while (pos < text.size() && text[pos] != '\n')
        ++pos;
      continue;
    }
    lexToken(tok);
    push(tok, start);
  }
  finish(tokens);
  return tokens;
}

} // namespace

std::vector<Token> lex(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags) {
  return Lexer(sources, file, diags).run();
}

} // namespace moac
