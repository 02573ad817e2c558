// The interpreter's scalar arithmetic, by element type (docs/language.md §5 "Arithmetic"): an element
// is read converted to the operator's type, the operator computes in that type (float operations
// exactly, then rounded to f32 for an f32 result), and int64 overflow or division by zero is an
// EvalError at the operator instead of a wrapped or rounded value.
#pragma once

#include "ArrayOps.h"

namespace moac {

// One element of an operator's type: `i` when the type is int, `f` otherwise.
struct Num {
  double f = 0;
  int64_t i = 0;
};

// Element `offset` of a, converted to type t (int to float rounds as C's conversion does).
Num load(const NDArray &a, int64_t offset, ElemType t, At at);
void store(NDArray &r, int64_t offset, ElemType t, Num v);
Num apply(BinOp op, ElemType t, Num a, Num b, At at);
Num apply(UnOp op, ElemType t, Num a, At at);
Num identityOf(BinOp op, ElemType t);

} // namespace moac
