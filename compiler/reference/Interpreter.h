// The reference interpreter: evaluates the typed program by the operators' definitions, materialising
// every intermediate exactly as written (Kᵀ, the score vector, every temporary), in the element types
// the language gives them (f32 values rounded to f32 at every operation, int64 with overflow an error;
// docs/language.md §5 "Arithmetic"). It shares no code with ψ-reduction or the DNF, which is what
// makes it an independent oracle.
#pragma once

#include "NDArray.h"
#include "Typed.h"

#include <vector>

namespace moac {

// The work an interpretation did, for tests: how many nodes were evaluated and how many elements their
// values held. A node reused from the interpreter's cache, an input or a binding's use adds nothing.
struct EvalCounts {
  int64_t nodes = 0;
  int64_t elements = 0;
};

struct InterpretOptions {
  // Compute every f32 value in f64 instead (an "exact" evaluation: what the program's value would be
  // without f32 rounding), for comparing with evaluators that compute in double (DnfEval.h).
  bool exactFloats = false;
  EvalCounts *counts = nullptr; // when given, adds up the work
};

// `dims` binds every run-time dim; `inputs` follow program.inputs (declaration order) with matching
// shapes. Returns the outputs in the order of their `out` bindings, then, for each update of an inout
// in program order, that inout's whole storage after the update (the input with its leading rows
// replaced by the updated value). Throws EvalError when a guard fails,
// an index is out of range, an input has the wrong shape or an int operation overflows. Inputs may
// come in any float type; each is converted to its declared type.
std::vector<NDArray> interpret(const TypedProgram &program, const DimValues &dims,
                               const std::vector<NDArray> &inputs, const InterpretOptions &options = {});

// The concrete shape of an input or output for the given dims (checks every dim is bound).
std::vector<int64_t> concreteShape(const SymVec &shape, const DimValues &dims);

} // namespace moac
