// Lexer: .moa source text -> tokens with source locations. ASCII spellings are primary; the paper's
// Unicode spellings (ψ ρ ι ⍉ ↑ ↓ ⟨ ⟩ × ÷ ∘ ⧺ √ ≤ ≥ ≠) lex to the same tokens. Newlines separate statements and
// are kept as tokens; the parser ignores them inside brackets.
#pragma once

#include "Diagnostics.h"
#include "Ops.h"

#include <string>
#include <vector>

namespace moac {

enum class Tok {
  End,
  Newline,
  Ident,
  Int,
  Float,
  // keywords
  KwDim,
  KwIn,
  KwOut,
  KwInout,
  KwFn,
  KwAssume,
  KwPsi,
  KwRho,
  KwIota,
  KwTran,
  KwTake,
  KwDrop,
  KwCat,
  KwReshape,
  KwRav,
  KwDiv,
  KwMod,
  KwMax,
  KwMin,
  KwNeg,
  KwExp,
  KwLog,
  KwSqrt,
  KwAbs,
  KwNot,
  KwAnd,
  KwOr,
  KwWhere,
  KwTanh,
  KwSin,
  KwCos,
  KwExp2,
  KwLog2,
  KwSigmoid,
  KwPow, // the last keyword
  // punctuation
  Plus,
  Minus,
  Star,
  Slash,
  Assign,
  Comma,
  Colon,
  Semicolon,
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Less,
  Greater,
  LessEq,    // <=
  GreaterEq, // >=
  EqEq,      // ==
  NotEq,     // !=
  // operator forms
  Reduce, // `+/`, `max/`: op in Token::op
  Inner,  // `+.*`, `max.+`: op (f) and op2 (g)
  Outer,  // `o.*`, `∘.×`: op2 (g)
  Invalid, // bytes the lexer reported as an error; the parser drops the statement without a second error
};

const char *tokName(Tok kind); // for "expected X but found Y"

struct Token {
  Tok kind = Tok::End;
  SourceLoc loc;
  uint32_t length = 0;
  std::string text;  // spelling as written
  int64_t intValue = 0;
  double floatValue = 0;
  BinOp op = BinOp::Add;  // Reduce, Inner (f)
  BinOp op2 = BinOp::Mul; // Inner, Outer (g)
};

std::string describe(const Token &tok); // `'foo'`, `end of file`, `newline`

// Splits the whole file; lexical errors are reported and the offending bytes skipped.
std::vector<Token> lex(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

} // namespace moac
