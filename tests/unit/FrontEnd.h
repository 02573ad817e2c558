// Helpers shared by the front-end tests: Catch printers for symbolic values, and runners that take a
// source text through the lexer, the parser or shape inference with the diagnostics captured as plain
// text (no colour), so that tests can assert on both.
#pragma once

#include "Diagnostics.h"
#include "Dnf.h"
#include "Lexer.h"
#include "Parser.h"
#include "Pipeline.h"
#include "Shapes.h"
#include "Symbolic.h"

#include <catch2/catch.hpp>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace moac::test {

inline constexpr const char *fileName = "t.moa";

// The symbols of the tests that build symbolic expressions by hand rather than by compiling a program
// (which has a CompilationContext of its own): one table for the whole test binary.
inline SymbolTable &testSymbols() {
  static SymbolTable table;
  return table;
}

struct Lexed {
  std::vector<Token> tokens;
  std::string diags;
  unsigned errors = 0;
};

inline Lexed lexText(const std::string &text) {
  SourceManager sources;
  uint32_t file = sources.add(fileName, text);
  DiagnosticEngine engine(sources);
  engine.setColor(ColorMode::Never);
  Lexed out;
  engine.captureInto(&out.diags);
  out.tokens = lex(sources, file, engine);
  out.errors = engine.errorCount();
  return out;
}

struct Parsed {
  Program program;
  std::string diags;
  unsigned errors = 0;
};

inline Parsed parseText(const std::string &text) {
  SourceManager sources;
  uint32_t file = sources.add(fileName, text);
  DiagnosticEngine engine(sources);
  engine.setColor(ColorMode::Never);
  Parsed out;
  engine.captureInto(&out.diags);
  std::vector<Token> tokens = lex(sources, file, engine);
  out.program = parse(tokens, fileName, engine);
  out.errors = engine.errorCount();
  return out;
}

// lex -> parse -> inferShapes (the pipeline's typeCheck); `program` is set only when every stage succeeded.
struct Checked {
  std::shared_ptr<CompilationContext> ctx = std::make_shared<CompilationContext>(); // first: outlives program
  std::optional<TypedProgram> program;
  std::string diags;
};

inline Checked checkText(const std::string &text) {
  Checked out;
  uint32_t file = out.ctx->sources.add(fileName, text);
  DiagnosticEngine engine(out.ctx->sources);
  engine.setColor(ColorMode::Never);
  engine.captureInto(&out.diags);
  out.program = typeCheck(*out.ctx, file, engine);
  return out;
}

// The names of the rules a derivation applied (the [rule] lines of `moac explain`).
inline std::set<std::string> rulesOf(const DnfProgram &dnf) {
  std::set<std::string> out;
  for (const TraceBlock &b : dnf.trace)
    for (const TraceStep &s : b.steps)
      out.insert(s.rule);
  return out;
}

} // namespace moac::test

// Failed checks print symbolic values as moac writes them.
namespace Catch {
template <> struct StringMaker<moac::SymExpr> {
  static std::string convert(const moac::SymExpr &e) { return e.str(); }
};
template <> struct StringMaker<moac::Symbol> {
  static std::string convert(moac::Symbol s) { return s.name(); }
};
} // namespace Catch
