// Common subexpressions across arrays, the last step of ψ-reduction (DnfProgram → DnfProgram): a value that
// two outputs, or an output and a binding, both compute is computed once (docs/dnf.md, §5c). Bodies are
// compared structurally (sameExpr: up to the renaming of reduction binders and of an array's own indices).
//   1. A subexpression that is an earlier array's whole body, read at indices that line up one to one with
//      that array's own, becomes a read of it:
//        ⟨i⟩ψ s = Σ_{l<n} ⟨l i⟩ψ x,   ⟨i⟩ψ t = (Σ_{l<n} ⟨l i⟩ψ x) × 2   ⇒   ⟨i⟩ψ t = ⟨i⟩ψ s × 2
//   2. A reduction inside an array's body (under no reduction, select or where) that a later array computes
//      too is stored once, in a temp computed just before the array; step 1 then makes both read it.
//   3. A temp whose whole body became a read of another array is that array: its readers read the other
//      one, and it is not stored.
// The rewrite is exact: an array read this way holds its body's value in the type the body computes in, so
// the value is the same operations in the same order as the subexpression it replaces.
#pragma once

#include "Dnf.h"

#include <set>
#include <string>

namespace moac {

// Rewrites the arrays of dnf.order in place. dnf.order is the order they are computed in, so an array only
// ever reads one before it, and never one whose inputs an update between the two overwrites. Each decision
// goes into dnf.trace; a new temp's name is drawn from, and added to, `names`, and never spelled like one of
// `symbols`' names.
void shareCommonSubexpressions(SymbolTable &symbols, DnfProgram &dnf, std::set<std::string> &names);

} // namespace moac
