// Sibling reductions: adjacent serial loops over the same range, each folding terms into scalars declared
// outside it, become one loop (loop fusion). Each scalar still receives the same terms in the same order,
// so no result changes by a bit; the range is walked once, and a rescaling factor their terms share (the
// splits' combine: exp(m_c − M) for o's sum and for the normaliser's) is computed once a term.
#pragma once

#include "LoopIR.h"

#include <vector>

namespace moac {

struct FusedSiblings {
  Symbol var;                   // the loop that remains, and the index the others' terms now use
  SymExpr start, end;
  std::vector<SourceLoc> folded; // the reductions it now holds, the first loop's first
};

// Fuses sibling reduction loops in `body` and in every statement list nested in it. A loop B joins the
// loop A before it when both are serial with the same start, end and step, their bodies hold only
// Accumulate statements into scalars from outside, B's terms read none of A's scalars, and the statements
// between them only declare scalars with values that read none of A's (those declarations move before A).
// A rescaling factor that two of the fused loop's terms compute alike becomes one scalar (`symbols`
// names it) declared at the top of the loop's body.
std::vector<FusedSiblings> fuseSiblingReductions(std::vector<LStmt> &body, SymbolTable &symbols);

} // namespace moac
