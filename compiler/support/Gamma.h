// γ, the row-major offset of an index in a shape, and its inverse — the index arithmetic behind
// reshape and rav in the DNF and behind every memory access in the ONF. Also the range-aware
// simplification that turns γ⁻¹(γ(i)) back into i: (a·s + b) div s = a and (a·s + b) mod s = b when
// 0 ≤ b < s.
#pragma once

#include "Symbolic.h"

#include <map>

namespace moac {

// γ(⟨i₀ … i_{d−1}⟩; ⟨s₀ … s_{d−1}⟩) = (…(i₀·s₁ + i₁)·s₂ + …)·s_{d−1} + i_{d−1}
SymExpr gamma(const SymVec &index, const SymVec &shape);
// γ⁻¹(k; s): component j = (k div π(s_{j+1}…)) mod s_j; the leading component needs no mod.
SymVec gammaInverse(const SymExpr &offset, const SymVec &shape);

// The ranges of index symbols: each symbol s in the map satisfies 0 ≤ s < extent.
using IndexRanges = std::map<Symbol, SymExpr>;
SymExpr simplify(const SymExpr &e, const IndexRanges &ranges);

// A symbolic interval [lo, hi] of e over the ranges, with dims-only bounds; nullopt when the
// expression is not monotone in a way the analysis understands.
std::optional<std::pair<SymExpr, SymExpr>> indexBounds(const SymExpr &e, const IndexRanges &ranges);

} // namespace moac
