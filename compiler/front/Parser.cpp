#include "Parser.h"

#include <optional>

namespace moac {

namespace {

// Thrown after a diagnostic has been reported; caught at statement level to resynchronise.
struct ParseError {};

constexpr unsigned maxNesting = 200;

class Parser {
public:
  Parser(const std::vector<Token> &tokens, DiagnosticEngine &diags) : toks(tokens), diags(diags) {}

  Program run(const std::string &fileName);

private:
  // ---- token stream; newlines are invisible inside ( [ < brackets ----
  const Token &peek() {
    skipInvisibleNewlines();
    return toks[pos];
  }
  const Token &peekAhead(size_t n) {
    skipInvisibleNewlines();
    size_t at = pos;
    for (size_t seen = 0; at < toks.size() - 1; ++at) {
      if (toks[at].kind == Tok::Newline && bracketDepth > 0)
        continue;
      if (seen++ == n)
        break;
    }
    return toks[std::min(at, toks.size() - 1)];
  }
  void skipInvisibleNewlines() {
    while (bracketDepth > 0 && toks[pos].kind == Tok::Newline)
      ++pos;
  }
  const Token &advance() {
    const Token &t = peek();
    if (t.kind != Tok::End)
      ++pos;
    return t;
  }
  bool at(Tok kind) { return peek().kind == kind; }
  bool accept(Tok kind) {
    if (!at(kind))
      return false;
    advance();
    return true;
  }
  const Token &expect(Tok kind, const char *what) {
    if (!at(kind))
      fail(Diag::Expected, what, describe(peek()));
    return advance();
  }
  // Where a complaint about the next token points. Something missing at the end of a line (the next
  // token is a newline or the end of the file; for a missing closer, any token on a later line) is
  // reported just past the last token written, not at the start of the next statement or on a blank
  // last line.
  std::pair<SourceLoc, uint32_t> foundAt(bool missingCloser = false) {
    const Token &t = peek();
    bool lineEnded = t.kind == Tok::End || t.kind == Tok::Newline ||
                     (missingCloser && pos > 0 && toks[pos - 1].kind == Tok::Newline);
    size_t last = pos;
    while (last > 0 && toks[last - 1].kind == Tok::Newline)
      --last;
    if (!lineEnded || last == 0)
      return {t.loc, std::max<uint32_t>(t.length, 1)};
    SourceLoc after = toks[last - 1].loc;
    after.col += toks[last - 1].length;
    after.offset += toks[last - 1].length;
    return {after, 1};
  }
  // A lexical error has been reported for an Invalid token: the statement is abandoned silently.
  template <typename... Args> [[noreturn]] void fail(Diag kind, const Args &...args) {
    if (peek().kind != Tok::Invalid) {
      auto [loc, length] = foundAt();
      diags.reportSpan(kind, loc, length, args...);
    }
    throw ParseError{};
  }
  // Closes a bracket opened at `open`, with a note pointing at it when the closer is missing.
  void close(Tok kind, const char *closer, const char *opener, SourceLoc open) {
    if (at(kind)) {
      advance();
      return;
    }
    if (peek().kind != Tok::Invalid) {
      auto [loc, length] = foundAt(true);
      diags.reportSpan(Diag::Unbalanced, loc, length, closer, opener);
      diags.report(Diag::OpenedHere, open, opener);
    }
    // A new item on the next line was read as part of the bracket: parsing resumes with it.
    if (pos > 0 && toks[pos - 1].kind == Tok::Newline && startsItem())
      resumeAt = pos;
    throw ParseError{};
  }
  // Whether the next token starts a top-level item: a declaration keyword or `NAME =`.
  bool startsItem() {
    const Token &t = peek();
    return t.kind == Tok::KwDim || t.kind == Tok::KwIn || t.kind == Tok::KwInout || t.kind == Tok::KwOut ||
           t.kind == Tok::KwFn || t.kind == Tok::KwAssume ||
           (t.kind == Tok::Ident && toks[pos + 1].kind == Tok::Assign);
  }
  void endOfStatement() {
    if (at(Tok::Newline) || at(Tok::Semicolon)) {
      advance();
      return;
    }
    if (at(Tok::End) || at(Tok::RBrace))
      return;
    fail(Diag::Expected, "end of line", describe(peek()));
  }
  void recover();
  // A `-` with a space before it and a number right after it: a negative literal in a spaced vector.
  bool negativeLiteralAhead() {
    const Token &minus = peek();
    const Token &num = toks[pos + 1];
    bool spaceBefore = pos > 0 && toks[pos - 1].loc.offset + toks[pos - 1].length < minus.loc.offset;
    return minus.kind == Tok::Minus && spaceBefore && (num.kind == Tok::Int || num.kind == Tok::Float) &&
           num.loc.offset == minus.loc.offset + minus.length;
  }

  // ---- grammar ----
  void item(Program &program);
  void dimDecl(Program &program);
  void assumeDecl(Program &program);
  ArrayDecl arrayDecl();
  FnDecl fnDecl();
  Binding binding(bool isOutput);
  ElemType elemType(SourceLoc &loc);
  ExprPtr expr();
  ExprPtr orExpr();
  ExprPtr andExpr();
  ExprPtr notExpr();
  ExprPtr cmpExpr();
  ExprPtr catExpr();
  ExprPtr addExpr();
  ExprPtr mulExpr();
  ExprPtr prefixExpr();
  ExprPtr reduction();
  ExprPtr structural();
  ExprPtr primary();
  ExprPtr vector();
  ExprPtr comprehension();
  std::vector<ExprPtr> callArgs(SourceLoc open);
  ExprPtr subscript(const Token &name);
  std::string identifier(const char *what, SourceLoc &loc);

  struct Nest {
    Parser &p;
    explicit Nest(Parser &p) : p(p) {
      if (++p.nesting > maxNesting) {
        --p.nesting; // unwinding skips the destructor of a Nest whose constructor throws
        p.fail(Diag::NestingTooDeep, maxNesting);
      }
    }
    ~Nest() { --p.nesting; }
  };
  // A left-associative chain `a + b + c` nests its tree one level per operator, so its links count
  // against the same limit as brackets (later stages recurse over the tree).
  struct Chain {
    Parser &p;
    unsigned links = 0;
    explicit Chain(Parser &p) : p(p) {}
    void link() {
      if (p.nesting >= maxNesting)
        p.fail(Diag::NestingTooDeep, maxNesting);
      ++p.nesting;
      ++links;
    }
    ~Chain() { p.nesting -= links; }
  };
  // Inside a bracket the enclosing vector's element level no longer applies: `<(a > b)>`, `<f(x > y)>`.
  struct Bracket {
    Parser &p;
    bool savedElement;
    explicit Bracket(Parser &p) : p(p), savedElement(p.vectorElement) {
      ++p.bracketDepth;
      p.vectorElement = false;
    }
    ~Bracket() {
      --p.bracketDepth;
      p.vectorElement = savedElement;
    }
  };

  const std::vector<Token> &toks;
  DiagnosticEngine &diags;
  size_t pos = 0;
  size_t resumeAt = SIZE_MAX; // set by close() when the next item is already in view
  unsigned bracketDepth = 0;
  unsigned nesting = 0;
  bool spacedVector = false; // inside <…> separated by spaces: ` -1` starts a new element
  bool vectorElement = false; // an element of <…> outside any inner bracket: a `>` there closes the vector
};

static ExprPtr node(ExprKind kind, const Token &at) {
  return std::make_unique<Expr>(kind, at.loc, std::max<uint32_t>(at.length, 1));
}

static ExprPtr unary(ExprKind kind, const Token &at, ExprPtr operand) {
  ExprPtr e = node(kind, at);
  e->args.push_back(std::move(operand));
  return e;
}

static ExprPtr binary(ExprKind kind, const Token &at, ExprPtr lhs, ExprPtr rhs) {
  ExprPtr e = node(kind, at);
  e->args.push_back(std::move(lhs));
  e->args.push_back(std::move(rhs));
  return e;
}

// Skips to the start of the next statement after an error.
void Parser::recover() {
  bracketDepth = 0;
  if (resumeAt == pos)
    return;
  while (!at(Tok::End) && !at(Tok::Newline) && !at(Tok::Semicolon))
    advance();
  advance();
}

Program Parser::run(const std::string &fileName) {
  Program program;
  program.fileName = fileName;
  program.end = toks.back().loc;
  while (!at(Tok::End) && !diags.tooMany()) {
    try {
      item(program);
    } catch (ParseError &) {
      recover();
    }
  }
  if (diags.tooMany()) // the lexer or the parser stopped early: say so (printed once)
    diags.report(Diag::TooManyErrors, SourceLoc{});
  return program;
}

std::string Parser::identifier(const char *what, SourceLoc &loc) {
  if (!at(Tok::Ident)) {
    const Token &t = peek();
    bool keyword = t.kind >= Tok::KwDim && t.kind <= Tok::KwPow;
    if (keyword)
      fail(Diag::ReservedName, t.text, what);
    fail(Diag::Expected, what, describe(t));
  }
  const Token &t = advance();
  loc = t.loc;
  return t.text;
}

// item = NEWLINE | ";" | dimDecl | assumeDecl | arrayDecl | fnDecl | ["out"] binding
void Parser::item(Program &program) {
  switch (peek().kind) {
  case Tok::Newline:
  case Tok::Semicolon:
    advance();
    return;
  case Tok::KwDim:
    dimDecl(program);
    return;
  case Tok::KwAssume:
    assumeDecl(program);
    return;
  case Tok::KwIn:
  case Tok::KwInout:
    program.items.push_back(arrayDecl());
    return;
  case Tok::KwFn:
    program.items.push_back(fnDecl());
    return;
  case Tok::KwOut:
    advance();
    program.items.push_back(binding(true));
    return;
  case Tok::Ident:
    // `s : bf16 = …` is refused by binding(): only an out declares an element type
    if (peekAhead(1).kind == Tok::Assign || peekAhead(1).kind == Tok::Colon) {
      program.items.push_back(binding(false));
      return;
    }
    break;
  default:
    break;
  }
  // An expression on its own line is the commonest slip: say so rather than "expected a name".
  const Token &start = peek();
  bool startsExpr = start.kind == Tok::Ident || start.kind == Tok::Int || start.kind == Tok::Float ||
                    start.kind == Tok::LParen || start.kind == Tok::Less || start.kind == Tok::LBracket ||
                    start.kind == Tok::Minus || start.kind == Tok::Reduce ||
                    (start.kind >= Tok::KwPsi && start.kind <= Tok::KwPow && start.kind != Tok::KwAnd &&
                     start.kind != Tok::KwOr);
  if (startsExpr) {
    size_t before = pos;
    bool parsed = true;
    try {
      expr();
    } catch (ParseError &) {
      parsed = false;
    }
    if (parsed && !at(Tok::Invalid)) {
      diags.report(Diag::NotAStatement, toks[before].loc);
      throw ParseError{};
    }
    throw ParseError{};
  }
  fail(Diag::Expected, "a declaration or 'NAME = expr'", describe(start));
}

// dimDecl = "dim" dimItem { "," dimItem } ;  dimItem = IDENT [ "=" addExpr | ">=" INT ]
void Parser::dimDecl(Program &program) {
  advance();
  do {
    DimDecl dim;
    dim.name = identifier("a dim name", dim.loc);
    if (accept(Tok::Assign)) {
      dim.value = addExpr();
    } else if (accept(Tok::GreaterEq)) {
      dim.leastLoc = peek().loc;
      dim.least = expect(Tok::Int, "the dim's least value, an integer such as 0").intValue;
    }
    program.items.push_back(std::move(dim));
  } while (accept(Tok::Comma));
  endOfStatement();
}

// assumeDecl = "assume" relation { "," relation } ;  relation = addExpr CMP addExpr (checked by the shapes)
void Parser::assumeDecl(Program &program) {
  advance();
  do {
    AssumeDecl a;
    a.loc = peek().loc;
    a.relation = cmpExpr();
    program.items.push_back(std::move(a));
  } while (accept(Tok::Comma));
  endOfStatement();
}

// TYPE = "f32" | "f64" | "bf16" | "f16" | "i32" | "i64" | "int"   (int is i64)
ElemType Parser::elemType(SourceLoc &loc) {
  const Token &type = peek();
  if (type.kind != Tok::Ident)
    fail(Diag::Expected, "an element type (f32, f64, bf16, f16, i32 or i64)", describe(type));
  std::optional<ElemType> elem = parseElemType(type.text);
  if (!elem)
    fail(Diag::UnknownType, type.text);
  loc = advance().loc;
  return *elem;
}

// arrayDecl = ("in" | "inout") IDENT ":" TYPE [ "[" [ addExpr { "," addExpr } ] "]" ]
ArrayDecl Parser::arrayDecl() {
  ArrayDecl decl;
  decl.role = advance().kind == Tok::KwInout ? ArrayRole::InOut : ArrayRole::In;
  decl.name = identifier("an array name", decl.loc);
  expect(Tok::Colon, "':' and an element type");
  SourceLoc typeLoc;
  decl.elem = elemType(typeLoc);
  if (at(Tok::LBracket)) {
    SourceLoc open = advance().loc;
    Bracket b(*this);
    if (!at(Tok::RBracket)) {
      do
        decl.extents.push_back(addExpr());
      while (accept(Tok::Comma));
    }
    close(Tok::RBracket, "]", "[", open);
  }
  endOfStatement();
  return decl;
}

// fnDecl = "fn" IDENT "(" [ IDENT { "," IDENT } ] ")"
//          ( "=" expr | "{" { binding } expr "}" )
FnDecl Parser::fnDecl() {
  FnDecl fn;
  advance();
  fn.name = identifier("a function name", fn.loc);
  SourceLoc open = peek().loc;
  expect(Tok::LParen, "'(' and the parameter list");
  {
    Bracket b(*this);
    if (!at(Tok::RParen)) {
      do {
        SourceLoc loc;
        fn.params.push_back(identifier("a parameter name", loc));
        fn.paramLocs.push_back(loc);
      } while (accept(Tok::Comma));
    }
    close(Tok::RParen, ")", "(", open);
  }
  if (accept(Tok::Assign)) {
    fn.result = expr();
    endOfStatement();
    return fn;
  }
  SourceLoc brace = peek().loc;
  expect(Tok::LBrace, "'=' or '{' to start the body");
  unsigned savedDepth = bracketDepth;
  bracketDepth = 0;
  SourceLoc resultLoc;
  bool broken = false;
  while (true) {
    while (accept(Tok::Newline) || accept(Tok::Semicolon)) {
    }
    // A declaration keyword can only start a top-level item: the body's '}' is missing.
    Tok next = peek().kind;
    if (next == Tok::RBrace || next == Tok::End || next == Tok::KwDim || next == Tok::KwIn ||
        next == Tok::KwInout || next == Tok::KwOut || next == Tok::KwFn)
      break;
    if (fn.result) { // an expression was followed by another statement: that expression is unused
      diags.report(Diag::NotAStatement, resultLoc);
      fn.result.reset();
      broken = true;
    }
    try {
      if (at(Tok::Ident) && peekAhead(1).kind == Tok::Assign)
        fn.locals.push_back(binding(false));
      else {
        resultLoc = peek().loc;
        fn.result = expr();
        endOfStatement();
      }
    } catch (ParseError &) {
      // Resynchronise at the body's next statement (or its '}'), not at the top level.
      broken = true;
      bracketDepth = 0;
      while (!at(Tok::End) && !at(Tok::Newline) && !at(Tok::Semicolon) && !at(Tok::RBrace))
        advance();
    }
  }
  bracketDepth = savedDepth;
  if (!at(Tok::RBrace)) {
    // Parsing goes on with the item that follows, so one missing '}' is one error.
    auto [loc, length] = foundAt(true);
    diags.reportSpan(Diag::Unbalanced, loc, length, "}", "{");
    diags.report(Diag::OpenedHere, brace, "{");
    return fn;
  }
  SourceLoc closeLoc = advance().loc;
  if (!fn.result && !broken)
    diags.report(Diag::EmptyFunction, closeLoc, fn.name);
  endOfStatement();
  return fn;
}

// binding = IDENT [ ":" TYPE ] "=" expr     (the type only after "out")
Binding Parser::binding(bool isOutput) {
  Binding b;
  b.isOutput = isOutput;
  b.name = identifier(isOutput ? "an output name" : "a name", b.loc);
  if (!isOutput && at(Tok::Colon)) {
    diags.report(Diag::TypedBinding, b.loc, b.name);
    throw ParseError{};
  }
  if (isOutput && accept(Tok::Colon))
    b.elem = elemType(b.elemLoc);
  expect(Tok::Assign, "'='");
  b.value = expr();
  endOfStatement();
  return b;
}

// expr = orExpr   (nesting is counted in prefixExpr, which every level of brackets passes through)
ExprPtr Parser::expr() { return orExpr(); }

// orExpr = andExpr { "or" andExpr }
ExprPtr Parser::orExpr() {
  ExprPtr lhs = andExpr();
  Chain chain(*this);
  while (at(Tok::KwOr)) {
    chain.link();
    const Token &op = advance();
    ExprPtr rhs = andExpr();
    lhs = binary(ExprKind::Binary, op, std::move(lhs), std::move(rhs));
    lhs->op = BinOp::Or;
  }
  return lhs;
}

// andExpr = notExpr { "and" notExpr }
ExprPtr Parser::andExpr() {
  ExprPtr lhs = notExpr();
  Chain chain(*this);
  while (at(Tok::KwAnd)) {
    chain.link();
    const Token &op = advance();
    ExprPtr rhs = notExpr();
    lhs = binary(ExprKind::Binary, op, std::move(lhs), std::move(rhs));
    lhs->op = BinOp::And;
  }
  return lhs;
}

// notExpr = "not" notExpr | cmpExpr
ExprPtr Parser::notExpr() {
  if (!at(Tok::KwNot))
    return cmpExpr();
  Nest n(*this);
  const Token &op = advance();
  ExprPtr e = unary(ExprKind::Unary, op, notExpr());
  e->unop = UnOp::Not;
  return e;
}

static std::optional<BinOp> comparison(Tok kind) {
  switch (kind) {
  case Tok::Less: return BinOp::Lt;
  case Tok::LessEq: return BinOp::Le;
  case Tok::Greater: return BinOp::Gt;
  case Tok::GreaterEq: return BinOp::Ge;
  case Tok::EqEq: return BinOp::Eq;
  case Tok::NotEq: return BinOp::Ne;
  default: return std::nullopt;
  }
}

// cmpExpr = catExpr [ ( "<" | "<=" | ">" | ">=" | "==" | "!=" ) catExpr ]   (comparisons do not chain)
ExprPtr Parser::cmpExpr() {
  ExprPtr lhs = catExpr();
  std::optional<BinOp> op = comparison(peek().kind);
  if (!op)
    return lhs;
  const Token &opTok = advance();
  ExprPtr rhs = catExpr();
  if (comparison(peek().kind)) {
    diags.reportSpan(Diag::ChainedComparison, peek().loc, std::max<uint32_t>(peek().length, 1));
    throw ParseError{};
  }
  ExprPtr e = binary(ExprKind::Binary, opTok, std::move(lhs), std::move(rhs));
  e->op = *op;
  return e;
}

// catExpr = addExpr { "cat" addExpr }
ExprPtr Parser::catExpr() {
  ExprPtr lhs = addExpr();
  Chain chain(*this);
  while (at(Tok::KwCat)) {
    chain.link();
    const Token &op = advance();
    ExprPtr rhs = addExpr();
    lhs = binary(ExprKind::Cat, op, std::move(lhs), std::move(rhs));
  }
  return lhs;
}

// addExpr = mulExpr { ("+" | "-") mulExpr }
ExprPtr Parser::addExpr() {
  ExprPtr lhs = mulExpr();
  Chain chain(*this);
  while (at(Tok::Plus) || at(Tok::Minus)) {
    if (spacedVector && negativeLiteralAhead())
      break; // <0 -1> is two elements
    chain.link();
    const Token &op = advance();
    ExprPtr rhs = mulExpr();
    ExprPtr e = binary(ExprKind::Binary, op, std::move(lhs), std::move(rhs));
    e->op = op.kind == Tok::Plus ? BinOp::Add : BinOp::Sub;
    lhs = std::move(e);
  }
  return lhs;
}

// mulExpr = prefixExpr { ("*" | "/" | "div" | "mod" | "max" | "min" | INNER | OUTER) prefixExpr }
ExprPtr Parser::mulExpr() {
  ExprPtr lhs = prefixExpr();
  Chain chain(*this);
  while (true) {
    const Token &op = peek();
    ExprKind kind = ExprKind::Binary;
    BinOp bin;
    switch (op.kind) {
    case Tok::Star: bin = BinOp::Mul; break;
    case Tok::Slash: bin = BinOp::Div; break;
    case Tok::KwDiv: bin = BinOp::IntDiv; break;
    case Tok::KwMod: bin = BinOp::Mod; break;
    case Tok::KwMax: bin = BinOp::Max; break;
    case Tok::KwMin: bin = BinOp::Min; break;
    case Tok::Inner: kind = ExprKind::Inner; bin = op.op; break;
    case Tok::Outer: kind = ExprKind::Outer; bin = op.op2; break;
    default: return lhs;
    }
    chain.link();
    const Token &opTok = advance();
    ExprPtr rhs = prefixExpr();
    ExprPtr e = binary(kind, opTok, std::move(lhs), std::move(rhs));
    e->op = bin;
    e->op2 = opTok.op2;
    lhs = std::move(e);
  }
}

// prefixExpr = ("-" | "neg" | "exp" | "log" | "sqrt" | "abs" | "tran" | "rav" | "rho" | "iota") prefixExpr
//            | reduction
//            | structural
ExprPtr Parser::prefixExpr() {
  Nest n(*this);
  const Token &t = peek();
  // The operator token is consumed before its operand is parsed (argument order is unspecified).
  auto structuralPrefix = [&](ExprKind kind) {
    const Token &opTok = advance();
    ExprPtr operand = prefixExpr();
    return unary(kind, opTok, std::move(operand));
  };
  auto unaryOp = [&](UnOp op) {
    const Token &opTok = advance();
    ExprPtr operand = prefixExpr();
    ExprPtr e = unary(ExprKind::Unary, opTok, std::move(operand));
    e->unop = op;
    return e;
  };
  switch (t.kind) {
  case Tok::Minus: {
    // `-2` written together is a negative literal (so `-1 take A` means what it says).
    const Token &next = toks[pos + 1];
    if ((next.kind == Tok::Int || next.kind == Tok::Float) && next.loc.offset == t.loc.offset + t.length)
      return structural();
    return unaryOp(UnOp::Neg);
  }
  case Tok::KwNeg: return unaryOp(UnOp::Neg);
  case Tok::KwExp: return unaryOp(UnOp::Exp);
  case Tok::KwLog: return unaryOp(UnOp::Log);
  case Tok::KwSqrt: return unaryOp(UnOp::Sqrt);
  case Tok::KwAbs: return unaryOp(UnOp::Abs);
  case Tok::KwTanh: return unaryOp(UnOp::Tanh);
  case Tok::KwSin: return unaryOp(UnOp::Sin);
  case Tok::KwCos: return unaryOp(UnOp::Cos);
  case Tok::KwExp2: return unaryOp(UnOp::Exp2);
  case Tok::KwLog2: return unaryOp(UnOp::Log2);
  case Tok::KwSigmoid: return unaryOp(UnOp::Sigmoid);
  case Tok::KwTran: return structuralPrefix(ExprKind::Tran);
  case Tok::KwRav: return structuralPrefix(ExprKind::Rav);
  case Tok::KwRho: return structuralPrefix(ExprKind::Rho);
  case Tok::KwIota: return structuralPrefix(ExprKind::Iota);
  case Tok::Reduce: return reduction();
  default: return structural();
  }
}

// reduction = REDUCE [ "[" [ "-" ] INT "]" ] prefixExpr
// The axis is a literal, so `[` followed by a number and `]` is never a comprehension (whose binders
// are names): `+/[1] A` reduces along axis 1, `+/ [i < n] e` a comprehension along its leading axis.
// The node spans `+/[1]`, where a shape error about the axis points.
ExprPtr Parser::reduction() {
  const Token &opTok = advance();
  ExprPtr e = node(ExprKind::Reduce, opTok);
  e->op = opTok.op;
  const bool negative = peekAhead(1).kind == Tok::Minus;
  if (const Token &number = peekAhead(negative ? 2 : 1); at(Tok::LBracket) && number.kind == Tok::Float) {
    diags.reportSpan(Diag::Expected, number.loc, number.length, "an integer axis", describe(number));
    throw ParseError{};
  }
  if (at(Tok::LBracket) && peekAhead(negative ? 2 : 1).kind == Tok::Int &&
      peekAhead(negative ? 3 : 2).kind == Tok::RBracket) {
    advance();
    if (negative)
      advance();
    e->axis = negative ? -advance().intValue : advance().intValue;
    const Token &close = advance();
    e->length = close.loc.offset + close.length - opTok.loc.offset;
  }
  e->args.push_back(prefixExpr());
  return e;
}

// structural = primary [ ("psi" | "take" | "drop" | "reshape" | "tran") prefixExpr ]
ExprPtr Parser::structural() {
  ExprPtr lhs = primary();
  ExprKind kind;
  switch (peek().kind) {
  case Tok::KwPsi: kind = ExprKind::Psi; break;
  case Tok::KwTake: kind = ExprKind::Take; break;
  case Tok::KwDrop: kind = ExprKind::Drop; break;
  case Tok::KwReshape: kind = ExprKind::Reshape; break;
  case Tok::KwTran: kind = ExprKind::Tran; break;
  default: return lhs;
  }
  const Token &op = advance();
  ExprPtr rhs = prefixExpr();
  return binary(kind, op, std::move(lhs), std::move(rhs));
}

// primary = INT | FLOAT | "-" INT | "-" FLOAT | IDENT | IDENT "(" args ")" | IDENT "[" index "]"
//         | "(" expr ")" | ("max" | "min" | "pow") "(" expr "," expr ")"
//         | "where" "(" expr "," expr "," expr ")" | vector | comprehension
ExprPtr Parser::primary() {
  const Token &t = peek();
  switch (t.kind) {
  case Tok::Int:
  case Tok::Float:
  case Tok::Minus: {
    bool negative = t.kind == Tok::Minus;
    const Token &first = advance();
    const Token &num = negative ? advance() : first;
    ExprPtr e = node(ExprKind::Number, first);
    e->length = num.loc.offset + num.length - first.loc.offset;
    e->isInt = num.kind == Tok::Int;
    e->intValue = negative ? -num.intValue : num.intValue;
    e->floatValue = negative ? -num.floatValue : num.floatValue;
    if (e->isInt)
      e->floatValue = double(e->intValue);
    return e;
  }
  case Tok::Ident: {
    const Token &name = advance();
    if (at(Tok::LParen) && peek().loc.offset == name.loc.offset + name.length) {
      ExprPtr call = node(ExprKind::Call, name);
      call->name = name.text;
      SourceLoc open = advance().loc;
      call->args = callArgs(open);
      return call;
    }
    if (at(Tok::LBracket) && peek().loc.offset == name.loc.offset + name.length)
      return subscript(name);
    ExprPtr e = node(ExprKind::Name, name);
    e->name = name.text;
    return e;
  }
  case Tok::KwMax:
  case Tok::KwMin:
  case Tok::KwPow: {
    const Token &op = advance();
    SourceLoc open = peek().loc;
    expect(Tok::LParen, op.kind == Tok::KwPow ? "'(' and the base and exponent" : "'(' (or use 'a max b')");
    ExprPtr e = node(ExprKind::Binary, op);
    e->op = op.kind == Tok::KwMax ? BinOp::Max : op.kind == Tok::KwMin ? BinOp::Min : BinOp::Pow;
    e->args = callArgs(open);
    if (e->args.size() != 2) {
      diags.report(Diag::ArityMismatch, op.loc, op.text, 2, "s", e->args.size(), e->args.size() == 1 ? "was" : "were");
      throw ParseError{};
    }
    return e;
  }
  case Tok::KwWhere: {
    const Token &op = advance();
    SourceLoc open = peek().loc;
    expect(Tok::LParen, "'(' and the condition, the value where it holds and the value where it does not");
    ExprPtr e = node(ExprKind::Where, op);
    e->args = callArgs(open);
    if (e->args.size() != 3) {
      diags.report(Diag::ArityMismatch, op.loc, op.text, 3, "s", e->args.size(), e->args.size() == 1 ? "was" : "were");
      throw ParseError{};
    }
    return e;
  }
  case Tok::LParen: {
    SourceLoc open = advance().loc;
    Bracket b(*this);
    bool savedSpaced = spacedVector;
    spacedVector = false;
    ExprPtr inner = expr();
    spacedVector = savedSpaced;
    close(Tok::RParen, ")", "(", open);
    return inner;
  }
  case Tok::Less: return vector();
  case Tok::LBracket: return comprehension();
  default:
    fail(Diag::Expected, "an expression", describe(t));
  }
}

// IDENT "[" addExpr { "," addExpr } "]": `ids[i, j]` is `<i, j> psi ids`, the element of an array (no
// space before "["; a gather's index reads one: <ids[i]> psi E)
ExprPtr Parser::subscript(const Token &name) {
  SourceLoc open = advance().loc;
  ExprPtr index = node(ExprKind::Vector, name);
  index->commas = true;
  {
    Bracket b(*this);
    bool savedSpaced = spacedVector;
    spacedVector = false;
    do
      index->args.push_back(addExpr());
    while (accept(Tok::Comma));
    spacedVector = savedSpaced;
    close(Tok::RBracket, "]", "[", open);
  }
  ExprPtr array = node(ExprKind::Name, name);
  array->name = name.text;
  ExprPtr e = node(ExprKind::Psi, name);
  e->length = index->length = toks[pos - 1].loc.offset + toks[pos - 1].length - name.loc.offset;
  e->args.push_back(std::move(index));
  e->args.push_back(std::move(array));
  return e;
}

// args = [ expr { "," expr } ] ")"
std::vector<ExprPtr> Parser::callArgs(SourceLoc open) {
  Bracket b(*this);
  std::vector<ExprPtr> args;
  if (!at(Tok::RParen)) {
    do
      args.push_back(expr());
    while (accept(Tok::Comma));
  }
  close(Tok::RParen, ")", "(", open);
  return args;
}

// vector = "<" [ addExpr { "," addExpr } ] ">"  |  "<" plain { plain } ">"
//   plain = IDENT | INT | "-" INT  (spaces alone separate plain names and literals: <l j>)
ExprPtr Parser::vector() {
  const Token &open = advance();
  ExprPtr v = node(ExprKind::Vector, open);
  Bracket b(*this);
  bool spaces = false;
  while (!at(Tok::Greater)) {
    if (!v->args.empty()) {
      if (accept(Tok::Comma))
        v->commas = true;
      else
        spaces = true;
    }
    if (at(Tok::Greater) || at(Tok::End))
      break;
    bool savedSpaced = spacedVector;
    spacedVector = !v->commas;
    vectorElement = true; // Bracket b restores the enclosing value when the vector closes
    try {
      v->args.push_back(addExpr());
    } catch (ParseError &) {
      spacedVector = savedSpaced;
      throw;
    }
    spacedVector = savedSpaced;
    if (!at(Tok::Comma) && !at(Tok::Greater)) {
      const Token &next = peek();
      bool startsElement = next.kind == Tok::Ident || next.kind == Tok::Int || next.kind == Tok::Float ||
                           next.kind == Tok::LParen || next.kind == Tok::Minus;
      if (!startsElement)
        close(Tok::Greater, ">", "<", open.loc);
    }
  }
  if (spaces) {
    for (const auto &e : v->args)
      if (e->kind != ExprKind::Name && e->kind != ExprKind::Number) {
        diags.reportSpan(Diag::MixedIndexSeparators, e->loc, e->length);
        throw ParseError{};
      }
    if (v->commas) {
      diags.reportSpan(Diag::MixedIndexSeparators, open.loc, 1);
      throw ParseError{};
    }
  }
  close(Tok::Greater, ">", "<", open.loc);
  return v;
}

// comprehension = "[" binder { "," binder } "]" expr ;  binder = IDENT "<" addExpr
ExprPtr Parser::comprehension() {
  const Token &open = advance();
  ExprPtr c = node(ExprKind::Comprehension, open);
  {
    Bracket b(*this);
    do {
      Binder binder;
      binder.name = identifier("an index name", binder.loc);
      expect(Tok::Less, "'<' and the extent of the index");
      binder.extent = addExpr();
      c->binders.push_back(std::move(binder));
    } while (accept(Tok::Comma));
    close(Tok::RBracket, "]", "[", open.loc);
  }
  // The body extends as far to the right as it can: to the end of the expression, or, in an element of a
  // vector, to the end of the element (`<+/ [j < n] <j> psi v>`: the `>` closes the vector).
  c->args.push_back(vectorElement ? addExpr() : expr());
  return c;
}

} // namespace

Program parse(const std::vector<Token> &tokens, const std::string &fileName, DiagnosticEngine &diags) {
  return Parser(tokens, diags).run(fileName);
}

} // namespace moac
