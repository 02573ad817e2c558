// Split-K lowering of a fused online-softmax group (psi/Fuse.h; docs/schedule.md, "Fused reductions"):
//   - one parallel region over (frame, split c < P): split c folds its contiguous terms
//     [c·L, c·L + L) ∩ [0, n), L = ⌈n / P⌉, into (m, S₁, S₂, …) in one pass — each score e_l computed
//     once, then every sum rescaled and updated for each of its elements — and stores its partials;
//   - every read of a member (DKind::Fused) in a later array combines the P partials with the same
//     monoid, in split order, inside that array's own parallel nest: no region of its own — except for
//     stored scores, whose splits' maximum and factors exp(m_c − M) a region computes once (a gang per
//     frame element, vector loops over the splits), which the readers then only multiply by.
// P = moart_chunks(frame items, n, splits, chunk) with splits = Schedule::fusedSplits(target).
#pragma once

#include "Dnf.h"
#include "LoopIR.h"
#include "Schedule.h"

#include <functional>
#include <map>
#include <optional>

namespace moac {

// Where a lowered group keeps its partial results.
struct FusedPartials {
  Symbol splits;                 // P
  std::vector<size_t> buffers;   // per member: [frame][c][extra]; buffers[0] holds the maxima
  // The combined maximum already declared in a statement list (by the list and the frame element's γ),
  // so that a reader of several members combines the maxima once; cleared for each reading array.
  std::map<std::pair<const void *, std::string>, Symbol> maxima;
  // Stored scores: the splits' maximum ([frame]) and each split's factor exp(m_c − M) ([frame][c]),
  // computed once by a region of their own after the split pass, so that a reader's combine multiplies
  // instead of taking an exp per element and split.
  std::optional<size_t> maximum, factors;
  int64_t lanes = 1; // the chains of a reader's sum over the splits (with stored factors: Schedule::lanes)
};

using LowerExprFn = std::function<LExprPtr(const DExprPtr &, std::vector<LStmt> &, ElemType)>;

// Adds the group's chunk count, partial buffers and split region (with its decision) to the kernel. Its
// scalars and loop counters are named in a stage scope of their own; lowerExpr lowers the score and the
// weights in it. symbols: the table of the group's symbols (the compilation's).
FusedPartials lowerFusedGroup(SymbolTable &symbols, Kernel &k, const FusedGroup &g, const Schedule &schedule,
                              Target target, const LowerExprFn &lowerExpr);

// The value of member e.member at e.index: the partials combined, with the statements that combine them
// appended to `prefix`; their names are made in the current (the reading stage's) scope.
LExprPtr lowerFusedRead(SymbolTable &symbols, const FusedGroup &g, FusedPartials &partials, const DExpr &e,
                        std::vector<LStmt> &prefix, ElemType type);

} // namespace moac
