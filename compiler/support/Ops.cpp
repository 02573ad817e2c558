#include "Ops.h"

#include <cmath>
#include <cstdint>
#include <limits>

namespace moac {

std::string_view spell(BinOp op) {
  switch (op) {
  case BinOp::Add: return "+";
  case BinOp::Sub: return "-";
  case BinOp::Mul: return "*";
  case BinOp::Div: return "/";
  case BinOp::Max: return "max";
  case BinOp::Min: return "min";
  case BinOp::IntDiv: return "div";
  case BinOp::Mod: return "mod";
  case BinOp::Lt: return "<";
  case BinOp::Le: return "<=";
  case BinOp::Gt: return ">";
  case BinOp::Ge: return ">=";
  case BinOp::Eq: return "==";
  case BinOp::Ne: return "!=";
  case BinOp::And: return "and";
  case BinOp::Or: return "or";
  case BinOp::Pow: return "pow";
  }
  return "?";
}

std::string_view spellUnicode(BinOp op) {
  switch (op) {
  case BinOp::Sub: return "−";
  case BinOp::Mul: return "×";
  case BinOp::Div: return "÷";
  case BinOp::Le: return "≤";
  case BinOp::Ge: return "≥";
  case BinOp::Ne: return "≠";
  default: return spell(op);
  }
}

std::string_view spell(UnOp op) {
  switch (op) {
  case UnOp::Neg: return "neg";
  case UnOp::Exp: return "exp";
  case UnOp::Log: return "log";
  case UnOp::Sqrt: return "sqrt";
  case UnOp::Abs: return "abs";
  case UnOp::Not: return "not";
  case UnOp::Tanh: return "tanh";
  case UnOp::Sin: return "sin";
  case UnOp::Cos: return "cos";
  case UnOp::Exp2: return "exp2";
  case UnOp::Log2: return "log2";
  case UnOp::Sigmoid: return "sigmoid";
  }
  return "?";
}

bool isComparison(BinOp op) {
  return op == BinOp::Lt || op == BinOp::Le || op == BinOp::Gt || op == BinOp::Ge || op == BinOp::Eq ||
         op == BinOp::Ne;
}

bool givesTruth(BinOp op) { return isComparison(op) || op == BinOp::And || op == BinOp::Or; }

bool isReducer(BinOp op) {
  return op == BinOp::Add || op == BinOp::Mul || op == BinOp::Max || op == BinOp::Min || isRightFold(op);
}

bool isRightFold(BinOp op) { return op == BinOp::Sub || op == BinOp::Div; }

double identity(BinOp op, bool integer) {
  switch (op) {
  case BinOp::Mul:
  case BinOp::Div: return 1.0;
  case BinOp::Max:
    return integer ? double(std::numeric_limits<int64_t>::min()) : -std::numeric_limits<double>::infinity();
  case BinOp::Min:
    return integer ? double(std::numeric_limits<int64_t>::max()) : std::numeric_limits<double>::infinity();
  default: return 0.0;
  }
}

// NaN propagates and -0 < +0 (IEEE 754-2019 maximum and minimum): both are then commutative and
// associative on every input, so a fold gives the same value in every order and every schedule.
double maximum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return a + b;
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

double minimum(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return a + b;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

double apply(BinOp op, double a, double b) {
  switch (op) {
  case BinOp::Add: return a + b;
  case BinOp::Sub: return a - b;
  case BinOp::Mul: return a * b;
  case BinOp::Div: return a / b;
  case BinOp::Max: return maximum(a, b);
  case BinOp::Min: return minimum(a, b);
  case BinOp::IntDiv: return std::floor(a / b);
  case BinOp::Mod: return a - std::floor(a / b) * b;
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
  case BinOp::Eq:
  case BinOp::Ne:
  case BinOp::And:
  case BinOp::Or: return truthOf(op, a, b);
  case BinOp::Pow: return std::pow(a, b);
  }
  return 0;
}

double apply(UnOp op, double a) {
  switch (op) {
  case UnOp::Neg: return -a;
  case UnOp::Exp: return std::exp(a);
  case UnOp::Log: return std::log(a);
  case UnOp::Sqrt: return std::sqrt(a);
  case UnOp::Abs: return std::fabs(a);
  case UnOp::Not: return a == 0;
  case UnOp::Tanh: return std::tanh(a);
  case UnOp::Sin: return std::sin(a);
  case UnOp::Cos: return std::cos(a);
  case UnOp::Exp2: return std::exp2(a);
  case UnOp::Log2: return std::log2(a);
  case UnOp::Sigmoid: return 1 / (1 + std::exp(-a));
  }
  return 0;
}

} // namespace moac
