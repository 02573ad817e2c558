// The online-softmax rewrite (docs/dnf.md, "Fusing softmax: the online rule"), run on the DNF after
// ψ-reduction and before lowering. A group of reductions over the same range l < n, one of them
//   m = max_l e_l
// and the others Σ_l exp(e_l − m)·h_l (h = 1: the normaliser; a ψ-selection of V: the weighted sum; any
// expression), becomes one FusedGroup (Dnf.h): a single reduction over l whose partial results combine
// with the monoid (m, S) ⊕ (m′, S′) = (M, S·e^{m−M} + S′·e^{m′−M}), M = max(m, m′). It holds because
// exp(a − m) = exp(a − m′)·exp(m′ − m). A divisor that does not depend on l is first moved out of a sum
// (Σ_l (a_l ÷ Z)·b_l = (Σ_l a_l·b_l) ÷ Z), which is what turns o = Σ_l p_l·V with p_l = exp(e_l − m) ÷ Z
// into such a sum. Recognised by the DNF's shape only: names play no part.
#pragma once

#include "Context.h"
#include "Dnf.h"

namespace moac {

// Rewrites every such group in place, records the rule in dnf.trace and drops the temps nobody reads any
// more (the scores, the weights p, m and the normaliser when only the group used them). ctx: the
// compilation of dnf; its symbol table names the group's indices, in a scope of the group's own.
// storeScores (the schedule's scores=stored): a group whose scores may be stored (scoresStorable) reads
// them from an array of their own (decode's s kept, or a new temp `scores`) instead of computing them in
// the group; the lowering then reads each split's scores twice instead of rescaling (lower/LowerFused.h).
void fuseReductions(CompilationContext &ctx, DnfProgram &dnf, bool storeScores = false);

// Whether storing the group's scores costs memory linear in what they read: some input read by the score
// depends on every frame index and on the term index (not prefill, whose n × n scores would be quadratic).
bool scoresStorable(const DnfProgram &dnf, const FusedGroup &g);

// Reserves in `scope` every name the group's definition spells (its indices, the free symbols and
// binders of its score and weights): a pass that adds to the group, or lowers it, names its own symbols
// in that scope without taking them.
void reserveNames(NameScope &scope, const FusedGroup &g);

// The group's definition as --emit=dnf prints it, one line per member.
std::string dumpGroup(const DnfProgram &dnf, size_t group, bool ascii);

// exp(a − m), or 0 when a is −∞: the rescaling of a partial result whose running maximum is a to the
// maximum m ≥ a. An empty split (a = m = −∞) then contributes the monoid's identity instead of NaN.
double onlineRescale(double a, double m);

} // namespace moac
