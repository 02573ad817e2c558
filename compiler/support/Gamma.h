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

// The greatest value of e over the ranges, over dims only: e itself when it uses none of them. What a
// triangular index space (j < i + 1) is stored and counted in: its bounding box, n rows of n.
SymExpr upperBound(const SymExpr &e, const IndexRanges &ranges);
// The bounding box of an index space whose extents may use the earlier axes' indices (⟨n, i + 1⟩ over
// ⟨i j⟩): each extent's greatest value over the axes before it.
SymVec boundingShape(const SymVec &shape, const std::vector<Symbol> &index);

// Σ_{var < extent} body, in closed form where body is affine in var (Σ_{i<n} (i + 1) = n(n + 1)/2, written
// (n*n + n) div 2; the division is exact); nullopt otherwise.
std::optional<SymExpr> sumOver(Symbol var, const SymExpr &extent, const SymExpr &body);
// The number of elements of an index space whose extents may use the earlier axes' indices: π(shape) when
// they do not, n(n + 1)/2 for ⟨n, i + 1⟩ over ⟨i j⟩; the bounding box's count where no closed form is known.
SymExpr indexSpaceSize(const SymVec &shape, const std::vector<Symbol> &index);

} // namespace moac
