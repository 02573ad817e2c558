// One compilation context (as MLIR's MLIRContext owns what it interns): the source buffers and the
// symbol table with its fresh-name supply belong to an object made once per compilation and passed to
// every stage that reads sources or makes symbols (shapes, ψ-reduction, lowering). Nothing of it is
// static, so a compilation's output never depends on what compiled before it in the same process (the
// fresh names used to be numbered across the process: `⟨i4⟩ψ s` in `moac explain`).
//
// Whoever compiles makes one: the driver's commands (compile, explain, run, check), the tests and the
// fuzzer. The context outlives every structure of its compilation (TypedProgram, DnfProgram, Kernel):
// their Symbols point into its table. It is neither copied nor moved, for the same reason.
#pragma once

#include "Source.h"
#include "Symbolic.h"

namespace moac {

class CompilationContext {
public:
  CompilationContext() = default;
  CompilationContext(const CompilationContext &) = delete;
  CompilationContext &operator=(const CompilationContext &) = delete;

  SourceManager sources;
  SymbolTable symbols;
};

} // namespace moac
