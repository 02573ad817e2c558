// Scalar operators shared by every stage from the AST to the emitters: enums, never strings.
#pragma once

#include <optional>
#include <string_view>

namespace moac {

// Binary scalar operators; applied elementwise with scalar extension. The comparisons (Lt … Ne) and
// the logical And and Or give an int 0 or 1 (docs/language.md §5, "Comparisons and selection").
// Pow is pow(x, y), a float result like Div.
enum class BinOp { Add, Sub, Mul, Div, Max, Min, IntDiv, Mod, Lt, Le, Gt, Ge, Eq, Ne, And, Or, Pow };
// Unary scalar functions; Not is logical negation of an int (0 becomes 1, anything else 0).
// Sigmoid is 1 / (1 + exp(-x)).
enum class UnOp { Neg, Exp, Log, Sqrt, Abs, Not, Tanh, Sin, Cos, Exp2, Log2, Sigmoid };

std::string_view spell(BinOp op);        // + - * / max min div mod < <= > >= == != and or pow
std::string_view spellUnicode(BinOp op); // + - × ÷ max min div mod < ≤ > ≥ == ≠ and or
std::string_view spell(UnOp op);         // neg exp log sqrt abs not tanh sin cos exp2 log2 sigmoid
// < <= > >= == !=: compare their operands in the operands' own (promoted) type, give int 0 or 1.
bool isComparison(BinOp op);
// and, or (and the comparisons): an int 0/1 result whatever the operands' type.
bool givesTruth(BinOp op);
// Operators that may reduce (`op/`) or be the f of an inner product f.g: + * max min, which are
// associative and commutative, and - and /, which fold from the right (isRightFold).
bool isReducer(BinOp op);
// - and / reduce as APL does, from the right: -/ x is x0 - (x1 - (x2 - … x(n-1))), ÷/ likewise with /.
// Neither is associative, so such a fold is computed in that one order, never split or reassociated.
bool isRightFold(BinOp op);
// Identity element of a reducer, the value of a fold over an empty axis: 0 (+ and -), 1 (* and /), and
// for max and min -inf and +inf, or over int the least and greatest int64 (-2^63 and 2^63 - 1, which
// rounds to 2^63 as a double; the C emitter spells both as INT64_MIN and INT64_MAX). For a right fold it
// is also the start of the accumulator: x op 0 (for -) and x op 1 (for /) are x exactly, so folding
// x(n-1), …, x0 into it as acc = x op acc gives APL's value bit for bit.
double identity(BinOp op, bool integer);
// max and min: NaN if either operand is NaN, and -0 < +0 (docs/language.md §5; moart/kernel.h's
// moart_max* helpers implement the same rule for the kernels).
double maximum(double a, double b);
double minimum(double a, double b);
double apply(BinOp op, double a, double b);
double apply(UnOp op, double a);

// The truth value (0 or 1) of a comparison, and or or on two values of one type (double, or the
// interpreter's int64), for the operators givesTruth names.
template <typename T> int64_t truthOf(BinOp op, T a, T b) {
  switch (op) {
  case BinOp::Lt: return a < b;
  case BinOp::Le: return a <= b;
  case BinOp::Gt: return a > b;
  case BinOp::Ge: return a >= b;
  case BinOp::Eq: return a == b;
  case BinOp::Ne: return a != b;
  case BinOp::And: return a != 0 && b != 0;
  case BinOp::Or: return a != 0 || b != 0;
  default: return 0; // not a truth operator: callers ask givesTruth first
  }
}

} // namespace moac
