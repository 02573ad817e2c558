// The evaluators' shared core: what the reference interpreter (Interpreter.h) and the DNF evaluator
// (analysis/DnfEval.h) both do around their own evaluation of a program's values, so that the two
// bind dims, check guards and write an update into its inout's storage by one rule with one set of
// messages. Over the shapes stage's vocabulary only (dims, guards, concrete arrays): the interpreter
// still shares no code with ψ-reduction.
#pragma once

#include "NDArray.h"
#include "Typed.h"

#include <vector>

namespace moac {

// The value of every dim: a fixed dim's from the program (a given value must agree), any other's from
// `given`, which must hold it and be positive. Throws EvalError at the dim's declaration otherwise.
DimValues bindDims(const std::vector<TDim> &dims, const DimValues &given);

// Throws EvalError at the first guard that does not hold for the bound dims (bindDims), or whose sides
// leave int64.
void checkGuards(const std::vector<Guard> &guards, const DimValues &dims);

// An inout's whole storage after an update: `storage` with its leading elements (the rows the update
// covers) replaced by `update`'s values, the rest as it was. `update` is in storage's element type (a
// float type: inputs, and so inouts, are never int).
NDArray writeBack(NDArray storage, const NDArray &update);

} // namespace moac
