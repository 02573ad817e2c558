// Lowering: DnfProgram -> Kernel (the ONF). Every DNF array becomes one or two parallel stages:
//   - a body with a reduction at its top is a split (two-level) reduction: P chunks of the reduction
//     per index, each chunk summed cyclically by one work item into a partials buffer, then combined in
//     chunk order (no atomics; the order is the same for every target, so C, OpenMP and OpenACC agree
//     bit for bit);
//   - any other body is a parallel map over the array's index space.
// Each ψ read becomes a load at the γ offset of its buffer's layout; inputs that one lane reads along a
// row (map-invariant indexing) get the lifted layout on targets that coalesce (docs/schedule.md).
#pragma once

#include "Context.h"
#include "Dnf.h"
#include "LoopIR.h"
#include "Schedule.h"

namespace moac {

// ctx: the compilation of dnf; its symbol table gives the loop counters and scalars their names.
Kernel lower(CompilationContext &ctx, const DnfProgram &dnf, const Schedule &schedule, Target target);

// The change of `offset` between adjacent lanes of `lane` (the lane stepping by 1), within a group of
// `block` lanes: the derivative for affine offsets, also through the lifted layout's div/mod.
// Returns nullopt when the offset is not affine in the lane within a group. Makes two scratch symbols in
// `symbols` (the table of offset's symbols), in a scope of their own.
std::optional<SymExpr> gammaDifference(SymbolTable &symbols, const SymExpr &offset, Symbol lane, int64_t block);

// The C function name for a .moa file: moa_ + the file's stem, made a C identifier.
std::string kernelName(const std::string &fileName);

} // namespace moac
