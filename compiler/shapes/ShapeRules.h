// The shape rule of every operator, as pure functions from operand types to the result type
// (docs/language.md lists them; tests/unit/ShapeRulesTest.cpp has one test per rule, named after it).
// A rule either returns the type or a RuleError naming the diagnostic; facts that only the dims' run-time
// values can decide come back as guards for the caller to record.
#pragma once

#include "Diagnostics.h"
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

RuleResult shapeOfElementwise(BinOp op, const Type &a, const Type &b);
RuleResult shapeOfUnary(UnOp op, const Type &a);
RuleResult shapeOfWhere(const Type &c, const Type &a, const Type &b);
RuleResult shapeOfPsi(const Type &index, const Type &array);
RuleResult shapeOfTran(const Type &array);
RuleResult shapeOfTranPerm(const Type &perm, const Type &array);
RuleResult shapeOfTake(const Type &count, const Type &array);
RuleResult shapeOfDrop(const Type &count, const Type &array);
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
