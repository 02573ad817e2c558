// ψ-reduction: TypedProgram -> DnfProgram (paper §2, eqs. 1–3; MOA-PRIMER "ψ-correspondence rules").
// Each output is indexed by a symbolic full index and the index is pushed through the expression, one
// named rule per operator, until only ψ-selections of inputs (and of materialised intermediates)
// remain. Then reductions that do not depend on an enclosing index are hoisted into temps (Hoist.h).
#pragma once

#include "Context.h"
#include "Dnf.h"
#include "Diagnostics.h"
#include "Typed.h"

#include <optional>
#include <stdexcept>

namespace moac {

// Throws PsiArithmeticError when the index or integer arithmetic it folds at compile time leaves int64
// (`neg ((iota n) - 9223372036854775807 - 1)`) or divides by zero (`(iota n) div 0`).
DnfProgram psiReduce(CompilationContext &ctx, const TypedProgram &program);

struct PsiArithmeticError : std::runtime_error {
  PsiArithmeticError(SourceLoc at, const std::string &what) : std::runtime_error(what), loc(at) {}
  SourceLoc loc; // the operator whose reduction raised it
};

// Reports each read of an inout inside its own update at an element other than the one written
// (DnfProgram::conflicts); returns false when there is one. Pipeline's typeCheck calls it.
bool reportUpdateConflicts(const DnfProgram &dnf, DiagnosticEngine &diags);

// The rules, one function each (tests/unit/PsiRulesTest.cpp tests them by these names). Each takes the
// full index `idx` of the result (|idx| = rank) and returns the index of the operand it reads.
SymVec psiOfPsi(const SymVec &selector, const SymVec &idx);           // ⟨v⟩ψ A: v ++ idx
SymVec psiOfTranspose(const SymVec &idx);                             // ⍉A: reverse
SymVec psiOfPermute(const std::vector<int64_t> &perm, const SymVec &idx); // ⟨p⟩⍉A: A index k = idx[p_k]
// `negative`: the count's sign as the shape checker decided it (over the comprehension indices' ranges for a
// count that uses them); without it, the sign signOf gives.
SymVec psiOfTake(const SymExpr &count, const SymExpr &leading, const SymVec &idx, std::optional<bool> negative = {});
SymVec psiOfDrop(const SymExpr &count, const SymVec &idx, std::optional<bool> negative = {});
SymVec psiOfReshape(const SymVec &newShape, const SymVec &oldShape, const SymVec &idx);
SymVec psiOfRav(const SymVec &oldShape, const SymVec &idx);
SymVec psiOfReduce(size_t axis, const SymExpr &bound, const SymVec &idx); // op/[k] A: bound in at k

} // namespace moac
