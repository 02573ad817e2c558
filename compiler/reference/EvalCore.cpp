#include "EvalCore.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include <fmt/format.h>

namespace moac {

DimValues bindDims(const std::vector<TDim> &dims, const DimValues &given) {
  DimValues values;
  for (const TDim &d : dims) {
    auto it = given.find(d.sym);
    uint32_t length = uint32_t(d.name.size());
    if (d.value) {
      if (it != given.end() && it->second != *d.value)
        throw EvalError(fmt::format("dim '{}' is fixed to {} by the program, not {}", d.name, *d.value, it->second),
                        d.loc, length);
      values[d.sym] = *d.value;
      continue;
    }
    if (it == given.end())
      throw EvalError(fmt::format("no value for dim '{}'", d.name), d.loc, length);
    if (it->second < d.least)
      throw EvalError(d.least == 1 ? fmt::format("dim '{}' must be a positive integer, not {}", d.name, it->second)
                                   : fmt::format("dim '{}' must be at least {}, not {}", d.name, d.least, it->second),
                      d.loc, length);
    values[d.sym] = it->second;
  }
  return values;
}

namespace {

// A side of a guard: over dims only, so an unbound symbol is a compiler bug.
int64_t guardSide(const SymExpr &x, const std::function<int64_t(Symbol)> &dimValue, SourceLoc loc) {
  try {
    return x.evaluate(dimValue);
  } catch (const SymArithmeticError &error) {
    throw EvalError(fmt::format("integer expression {} cannot be evaluated: {}", x.str(), error.what()), loc);
  }
}

} // namespace

void checkGuards(const std::vector<Guard> &guards, const DimValues &dims) {
  auto dimValue = [&](Symbol s) {
    auto it = dims.find(s);
    if (it == dims.end())
      throw std::logic_error(fmt::format("evaluator: a guard reads '{}', which is not a dim", s.name()));
    return it->second;
  };
  for (const Guard &g : guards) {
    int64_t lhs = guardSide(g.lhs, dimValue, g.loc), rhs = guardSide(g.rhs, dimValue, g.loc);
    if (!g.holds(dimValue)) {
      const char *op = g.cmp == Guard::Eq ? "==" : g.cmp == Guard::Le ? "<=" : "<";
      throw EvalError(fmt::format("shape check '{}' does not hold: {} {} {} is false ({})", g.str(), lhs, op, rhs,
                                  g.reason),
                      g.loc);
    }
  }
}

NDArray writeBack(NDArray storage, const NDArray &update) {
  if (update.count() > storage.count())
    throw std::logic_error("evaluator: an update holds more elements than its inout's storage");
  std::copy(update.data.begin(), update.data.end(), storage.data.begin());
  return storage;
}

} // namespace moac
