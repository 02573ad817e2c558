// Shape inference: AST -> TypedProgram. Resolves names, inlines every function call (functions are
// shape-polymorphic: each call is checked with its own argument shapes), gives comprehension indices
// fresh symbols, applies each operator's shape rule (ShapeRules.h) and records run-time guards for
// preconditions that only the dims' values decide. Returns nullopt after reporting errors.
#pragma once

#include "AST.h"
#include "Context.h"
#include "Diagnostics.h"
#include "Typed.h"

#include <optional>

namespace moac {

// The program's names are reserved in ctx's symbol table, so that no later fresh name takes one.
std::optional<TypedProgram> inferShapes(CompilationContext &ctx, const Program &program, DiagnosticEngine &diags);

} // namespace moac
