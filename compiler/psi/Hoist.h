// Hoisting, the last step of ψ-reduction (DnfProgram → DnfProgram): a reduction that does not depend on
// an enclosing index, or exp/log/sqrt of data that does not, would be recomputed for every value of that
// index; each becomes a temp over the indices it does depend on, computed once and scheduled before the
// arrays that read it (softmax's Σ e and decode's weights exp(s[l] − m) are the examples).
#pragma once

#include "Dnf.h"

#include <set>
#include <string>
#include <vector>

namespace moac {

// Hoists out of the arrays in `order` (the temps, updates and outputs ψ-reduction made, in the order it
// made them) and returns the order they are computed in, each temp before the arrays that read it. The
// temps' names are drawn from, and added to, `names`, and never spelled like one of `symbols`' names.
std::vector<size_t> hoistInvariants(SymbolTable &symbols, DnfProgram &dnf, const std::vector<size_t> &order,
                                    std::set<std::string> &names);

} // namespace moac
