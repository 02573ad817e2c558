// The shape rule of every operator, as pure functions from operand types to the result type
// (docs/language.md lists them; tests/unit/ShapeRulesTest.cpp has one test per rule, named after it).
// A rule either returns the type or a RuleError naming the diagnostic; facts that only the dims' run-time
// values can decide come back as guards for the caller to record.
#pragma once

#include "Diagnostics.h"
#include "Gamma.h"
#include "Typed.h"

#include <string>
#include <variant>
#include <vector>

namespace moac {

struct RuleError {
  Diag kind;
  std::vector<std::string> args;
};

struct RuleResult {
  std::variant<Type, RuleError> result;
  std::vector<Guard> guards; // loc and reason are filled in by the caller
  bool ok() const { return std::holds_alternative<Type>(result); }
  const Type &type() const { return std::get<Type>(result); }
  const RuleError &error() const { return std::get<RuleError>(result); }
};

ElemType promote(ElemType a, ElemType b);

// An extent (of an input, a comprehension index, iota, a reshape) must be positive, except that it may be 0
// where a dim declared `>= 0` is 0 (docs/language.md §4): Fine as it is, Guarded by `1 <= e` where the dims
// decide, or Never positive (an error).
enum class ExtentCheck { Fine, Guarded, Never };
ExtentCheck checkExtent(const SymExpr &e);
// A dims-only divisor (of div and mod on dims, and the extents reshape and rav divide by) that a dim declared
// `>= 0` may make 0: it needs the guard `1 <= d` (the kernels refuse such a dim at 0 where it divides).
bool divisorNeedsGuard(const SymExpr &d);

RuleResult shapeOfElementwise(BinOp op, const Type &a, const Type &b);
RuleResult shapeOfUnary(UnOp op, const Type &a);
RuleResult shapeOfWhere(const Type &c, const Type &a, const Type &b);
RuleResult shapeOfPsi(const Type &index, const Type &array);
RuleResult shapeOfTran(const Type &array);
RuleResult shapeOfTranPerm(const Type &perm, const Type &array);
// A count over comprehension indices (`(i + 1) take K`) is checked over their ranges, `indices` (i < n): its
// sign must not change, and |k| ≤ ρA[0] must hold at every index (an error when it fails for all dims where
// the bounds are attained, a guard over the dims where they decide).
RuleResult shapeOfTake(const Type &count, const Type &array, const IndexRanges &indices = {});
RuleResult shapeOfDrop(const Type &count, const Type &array, const IndexRanges &indices = {});
// Whether indexBounds(e, indices) is attained at some index rather than only an enclosure.
bool boundsAttained(const SymExpr &e, const IndexRanges &indices);
RuleResult shapeOfCat(const Type &a, const Type &b);
RuleResult shapeOfReshape(const Type &shape, const Type &array);
RuleResult shapeOfRav(const Type &array);
RuleResult shapeOfReduce(BinOp op, const Type &array, int64_t axis = 0);
RuleResult shapeOfInner(BinOp f, BinOp g, const Type &a, const Type &b);
RuleResult shapeOfOuter(BinOp g, const Type &a, const Type &b);
RuleResult shapeOfIota(const Type &count);
RuleResult shapeOfRho(const Type &array);
RuleResult shapeOfVector(const std::vector<Type> &elements);
RuleResult shapeOfComprehension(const SymVec &extents, const Type &body);

} // namespace moac
