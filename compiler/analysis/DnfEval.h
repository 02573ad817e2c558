// The DNF evaluator: runs a DnfProgram on concrete dims and inputs, in double precision, by walking
// each array's index space and evaluating its body. Tests compare it with the reference interpreter
// (which never sees the DNF) to prove the ψ-rules.
#pragma once

#include "Dnf.h"
#include "NDArray.h"

namespace moac {

// Outputs in `out` order, then each updated inout's storage (as interpret() returns them). Throws EvalError for a failed guard, a missing dim or an out-of-range read.
std::vector<NDArray> evaluateDnf(const DnfProgram &program, const DimValues &dims,
                                 const std::vector<NDArray> &inputs);

} // namespace moac
