// Concrete arrays for the evaluators (the reference interpreter and the DNF evaluator): a shape and
// row-major double-precision data. Converted to and from libmoart's array files by the driver.
#pragma once

#include "Source.h"
#include "Symbolic.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace moac {

struct NDArray {
  std::vector<int64_t> shape;
  std::vector<double> data; // row-major, size = product(shape)
  size_t count() const { return data.size(); }
};

// Values of the run-time dims, by symbol.
using DimValues = std::map<Symbol, int64_t>;

// An evaluation failure the user can act on (a guard that does not hold, an index out of range, a
// missing dim), with the .moa location it concerns.
struct EvalError : std::runtime_error {
  SourceLoc loc;
  uint32_t length = 1; // bytes the caret underlines at loc (the operator's spelling)
  EvalError(const std::string &message, SourceLoc loc, uint32_t length = 1)
      : std::runtime_error(message), loc(loc), length(length) {}
};

} // namespace moac
