#include "Arith.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace moac {

namespace {

[[noreturn]] void overflow(At at, const std::string &what) {
  throw EvalError(fmt::format("integer overflow: {} does not fit in int64", what), at.loc, at.length);
}

int64_t floorDiv(int64_t a, int64_t b, At at) {
  if (b == 0)
    throw EvalError("integer division by zero in 'div'", at.loc, at.length);
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    overflow(at, fmt::format("{} div {}", a, b));
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

int64_t floorMod(int64_t a, int64_t b, At at) {
  if (b == 0)
    throw EvalError("integer division by zero in 'mod'", at.loc, at.length);
  if (b == -1)
    return 0; // a mod -1, without computing INT64_MIN div -1
  int64_t r = a % b;
  return (r != 0 && (r < 0) != (b < 0)) ? r + b : r;
}

int64_t intOp(BinOp op, int64_t a, int64_t b, At at) {
  int64_t r = 0;
  bool overflowed = false;
  switch (op) {
  case BinOp::Add: overflowed = __builtin_add_overflow(a, b, &r); break;
  case BinOp::Sub: overflowed = __builtin_sub_overflow(a, b, &r); break;
  case BinOp::Mul: overflowed = __builtin_mul_overflow(a, b, &r); break;
  case BinOp::Max: return a > b ? a : b;
  case BinOp::Min: return a < b ? a : b;
  case BinOp::IntDiv: return floorDiv(a, b, at);
  case BinOp::Mod: return floorMod(a, b, at);
  case BinOp::Div:
  case BinOp::Pow: throw std::logic_error("interpreter: '/' or pow with an int result");
  case BinOp::Lt:
  case BinOp::Le:
  case BinOp::Gt:
  case BinOp::Ge:
  case BinOp::Eq:
  case BinOp::Ne:
  case BinOp::And:
  case BinOp::Or: return truthOf(op, a, b);
  }
  if (overflowed)
    overflow(at, fmt::format("{} {} {}", a, spell(op), b));
  return r;
}

} // namespace

Num load(const NDArray &a, int64_t offset, ElemType t, At at) {
  if (offset < 0 || uint64_t(offset) >= a.data.size())
    throw EvalError(fmt::format("element {} is out of range for an array of shape {}", offset, strExtents(a.shape)),
                    at.loc, at.length);
  size_t k = size_t(offset);
  Num v;
  if (t == ElemType::Int) {
    if (a.elem != ElemType::Int)
      throw std::logic_error("interpreter: a float operand of an int operator");
    v.i = a.ints[k];
  } else if (a.elem == ElemType::Int) {
    // as C converts: int64 to float rounds once, to nearest
    v.f = t == ElemType::F32 ? double(float(a.ints[k])) : double(a.ints[k]);
  } else {
    v.f = roundTo(t, a.data[k]);
  }
  return v;
}

void store(NDArray &r, int64_t offset, ElemType t, Num v) {
  size_t k = size_t(offset);
  if (t == ElemType::Int) {
    r.ints.at(k) = v.i;
    r.data.at(k) = double(v.i);
  } else {
    r.data.at(k) = v.f;
  }
}

Num apply(BinOp op, ElemType t, Num a, Num b, At at) {
  Num r;
  if (givesTruth(op) && t != ElemType::Int) { // a comparison of floats: its truth value, an int
    r.i = int64_t(apply(op, a.f, b.f));
    r.f = double(r.i);
  } else if (t == ElemType::Int)
    r.i = intOp(op, a.i, b.i, at);
  else // a double operation on f32 values, rounded once, is the correctly rounded f32 operation
    r.f = roundTo(t, apply(op, a.f, b.f));
  return r;
}

Num apply(UnOp op, ElemType t, Num a, At at) {
  Num r;
  if (t != ElemType::Int) {
    r.f = roundTo(t, apply(op, a.f));
    return r;
  }
  if (op == UnOp::Not) {
    r.i = a.i == 0;
    return r;
  }
  if (op != UnOp::Neg && op != UnOp::Abs)
    throw std::logic_error("interpreter: exp, log or sqrt with an int result");
  if (a.i == std::numeric_limits<int64_t>::min())
    overflow(at, fmt::format("{} {}", spell(op), a.i));
  r.i = op == UnOp::Neg || a.i < 0 ? -a.i : a.i;
  return r;
}

Num identityOf(BinOp op, ElemType t) {
  Num r;
  if (t != ElemType::Int) {
    r.f = identity(op, false);
    return r;
  }
  r.i = op == BinOp::Mul ? 1
        : op == BinOp::Max ? std::numeric_limits<int64_t>::min()
        : op == BinOp::Min ? std::numeric_limits<int64_t>::max()
                           : 0;
  return r;
}

} // namespace moac
