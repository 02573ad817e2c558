// Concrete arrays for the evaluators (the reference interpreter and the DNF evaluator): a shape, an
// element type and row-major data. Converted to and from libmoart's array files by the driver.
#pragma once

#include "ElemType.h"
#include "Source.h"
#include "Symbolic.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace moac {

// `data` holds every element as a double: for f32 an f32 value (exactly representable), for f64 the
// value, for int the value rounded to double. An int array also holds its exact values in `ints`, which
// is what the interpreter computes with; `data` is the view for code that compares numbers.
struct NDArray {
  std::vector<int64_t> shape;
  std::vector<double> data; // row-major, size = product(shape)
  ElemType elem = ElemType::F64;
  std::vector<int64_t> ints = {}; // elem == Int: the exact values, data's size; otherwise empty
  size_t count() const { return data.size(); }
};

// Values of the run-time dims, by symbol.
using DimValues = std::map<Symbol, int64_t>;

// An evaluation failure the user can act on (a guard that does not hold, an index out of range, a
// missing dim, an integer overflow), with the .moa location it concerns.
struct EvalError : std::runtime_error {
  SourceLoc loc;
  uint32_t length = 1; // bytes the caret underlines at loc (the operator's spelling)
  EvalError(const std::string &message, SourceLoc loc, uint32_t length = 1)
      : std::runtime_error(message), loc(loc), length(length) {}
};

} // namespace moac
