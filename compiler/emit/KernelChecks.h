// The checks a kernel makes of its dims before it touches memory (docs/abi.md, "Checked extents"): which
// dims may be 0, the dims-only integer expressions its loops and conditions evaluate, and a printer of
// integer expressions whose every operation is checked against int64's limits (moart/kernel.h's
// moart_*_checked helpers), so that the checks themselves never overflow.
#pragma once

#include "LoopIR.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace moac {

// The run-time dims the kernel takes as 0: those declared `dim t >= 0` (kvcache's t, the rows already in the
// cache) that no division or modulus divides by (the shape checker guards those, `divisor not zero`).
// Every other dim must be at least 1, the language's least, which the shape checker relied on.
std::set<Symbol> dimsAllowedZero(const Kernel &k);

// Every integer expression over the dims alone (and chunk counts) that the kernel's statements evaluate
// (loop bounds and steps, conditions, integer values), once each, in the order the statements have them.
std::vector<SymExpr> dimExpressions(const Kernel &k);

// The layout function's checks of the integers the loops compute (offsets, bounds, integer values over
// loop indices): for each loop a local `moa_boundN` bounding its index's magnitude from its start, end and
// step, and for each expression over loop indices a checked bound on its magnitude
// (moart_magnitude_checked: at most 2^62), so that no index arithmetic of the kernel overflows int64
// (docs/abi.md, "Checked extents"). Symbols other than loop indices are spelt by `name`.
std::string checkedLoopMagnitudes(const Kernel &k, const std::function<std::string(Symbol)> &name,
                                  const std::string &flag);

// `e` as C whose every addition, multiplication, floor division and modulus is a moart_*_checked call
// that sets the int named `flag` when it leaves int64 or divides by zero; symbols are spelt by `name`.
std::string checkedInteger(const SymExpr &e, const std::function<std::string(Symbol)> &name, const std::string &flag);

} // namespace moac
