// The tolerance of `moac check` (docs/cli.md, "The tolerance"): a rounding-error bound per output
// element, derived from the program's DNF and the inputs actually used, and the comparison of a kernel's
// array with the reference's against it.
#pragma once

#include "Dnf.h"
#include "NDArray.h"

#include <string>
#include <vector>

namespace moac {

// How far one output's elements may be from the exact values, for one set of inputs.
struct OutputBounds {
  std::vector<double> error;     // per element (row-major): a bound on |computed − exact|; +inf when unbounded
  std::vector<double> magnitude; // per element: the size of the partial results it was made of (≥ |value|)
  // per element: a reduction feeding it may overflow in one order of its terms and not another, so a
  // non-finite value on one side only is no error there
  std::vector<char> reordered;
  double unit = 0;           // unit roundoff u of the output and the data that fed it (0: integers, exact)
  double terms = 0;          // R: the most reduction terms on one chain of sums feeding an element
  double steps = 0;          // L: the most other rounded operations on such a chain
  double storeUnit = 0;      // a bf16 or f16 output's unit roundoff: its one rounding on store (else 0)
  // 2·λ·u·(√R + L + 1) + 2·u_store: the normwise bound on ‖kernel − reference‖₂ / ‖reference‖₂ of a
  // well-conditioned output; compareWithBounds multiplies it by κ = max(1, ‖magnitude‖₂ / ‖reference‖₂).
  double normwise() const;
};

// Bounds for the outputs in `out` order, then for each update the elements it writes (the order
// interpret() and evaluateDnf() return them in). Throws EvalError as evaluateDnf() does.
std::vector<OutputBounds> errorBounds(const DnfProgram &program, const DimValues &dims,
                                      const std::vector<NDArray> &inputs);

struct Verdict {
  bool ok = true;
  std::string detail; // the measured errors against their bounds, for the report line
};

// Compares the kernel's array with the reference's: elements [0, bounds.error.size()) against the bounds
// (normwise and elementwise), every element from there on bit-identical (an inout's rows the update does
// not write). `elem` is the array's element type: the reference is rounded into it first.
Verdict compareWithBounds(const NDArray &kernel, const NDArray &reference, const OutputBounds &bounds,
                          ElemType elem);

} // namespace moac
