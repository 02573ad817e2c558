// The compiler as a straight list of stages (Halide's Lower.cpp): each stage is a function from one
// data structure to the next, and the driver may stop after any of them (`--emit=STAGE`).
#pragma once

#include "Diagnostics.h"
#include "Source.h"
#include "Typed.h"

#include <optional>
#include <string>

namespace moac {

// Ordered: emitting a stage runs every stage before it.
enum class Stage { Tokens, Ast, Shapes, Dnf };

struct CompileOptions {
  Stage emit = Stage::Shapes;
  bool ascii = false;
};

// Runs the stages up to options.emit on one source file and returns that stage's dump, or nullopt
// when diagnostics were reported (they already are, through diags).
std::optional<std::string> compileToStage(const SourceManager &sources, uint32_t file,
                                          DiagnosticEngine &diags, const CompileOptions &options);

std::string dumpTokens(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

// Lexes, parses and shape-checks one source file: the typed program that the later stages and the
// reference interpreter take, or nullopt when diagnostics were reported.
std::optional<TypedProgram> typeCheck(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

} // namespace moac
