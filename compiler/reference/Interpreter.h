// The reference interpreter: evaluates the typed program by the operators' definitions, materialising
// every intermediate exactly as written (Kᵀ, the score vector, every temporary), in double precision.
// It shares no code with ψ-reduction or the DNF, which is what makes it an independent oracle.
#pragma once

#include "NDArray.h"
#include "Typed.h"

#include <vector>

namespace moac {

// `dims` binds every run-time dim; `inputs` follow program.inputs (declaration order) with matching
// shapes. Returns the outputs in the order of their `out` bindings, then, for each update of an inout
// in program order, that inout's whole storage after the update (the input with its leading rows
// replaced by the updated value). Throws EvalError when a guard fails,
// an index is out of range or an input has the wrong shape.
std::vector<NDArray> interpret(const TypedProgram &program, const DimValues &dims,
                               const std::vector<NDArray> &inputs);

// The concrete shape of an input or output for the given dims (checks every dim is bound).
std::vector<int64_t> concreteShape(const SymVec &shape, const DimValues &dims);

} // namespace moac
