// The MoA operators' definitions on concrete arrays (MOA-PRIMER.md, 0-origin, row-major), for the
// reference interpreter: each takes whole NDArrays and returns a new, fully materialised one. Every
// precondition a shape rule or a guard should already have ensured is checked again here, so a bad
// index or extent becomes an EvalError at the operator's location instead of an out-of-bounds read.
// Arithmetic follows docs/language.md §5 "Arithmetic": an operator of result type t converts its
// operands to t, computes, and rounds to t (f32 results are f32 values; int is int64, and an overflow
// is an EvalError); the structural operators move elements and keep the operand's type.
#pragma once

#include "NDArray.h"
#include "Ops.h"

#include <cstdint>
#include <string>
#include <vector>

namespace moac {

using Extents = std::vector<int64_t>;

// Where an operator was written: the location and length of its spelling, for its EvalErrors.
struct At {
  SourceLoc loc;
  uint32_t length = 1;
};

// The largest intermediate the interpreter will allocate (2 GiB of doubles).
constexpr int64_t maxElements = int64_t(1) << 28;

std::string strExtents(const Extents &shape); // [5, 4]
// π(shape), or an EvalError when it overflows or exceeds maxElements.
int64_t elementCount(const Extents &shape, At at);
NDArray makeArray(Extents shape, At at, ElemType elem = ElemType::F64); // zero-filled
NDArray scalar(double value, ElemType elem);
NDArray intScalar(int64_t value);
// The value rounded to a float type: to the nearest f32 for F32, unchanged for F64.
double roundTo(ElemType t, double v);
// `a` with every element converted to type t (f32 rounding, int to float); an error for a float
// element that is not an integer when t is Int.
NDArray convert(const NDArray &a, ElemType t, At at);
// Advances a row-major index over shape (the last axis fastest); false after the last index.
bool nextIndex(Extents &index, const Extents &shape);

// The integers of a scalar or vector operand (an index, a count, a shape, a permutation).
std::vector<int64_t> toIntegers(const NDArray &value, At at, const char *what);

// `type` is the result's element type (the node's type); over int, overflow and division by zero are errors.
NDArray unary(UnOp op, ElemType type, const NDArray &a, At at);
// Equal shapes, or one operand a scalar. For a comparison, `and` and `or`, `type` is the operands' type
// and the result is int 0 or 1.
NDArray elementwise(BinOp op, ElemType type, const NDArray &a, const NDArray &b, At at);
NDArray psi(const std::vector<int64_t> &index, const NDArray &a, At at);
// Result axis perm[k] has A's axis k; tran A is perm = ⟨d−1 … 0⟩.
NDArray transpose(const std::vector<int64_t> &perm, const NDArray &a, At at);
NDArray take(int64_t count, const NDArray &a, At at);
NDArray drop(int64_t count, const NDArray &a, At at);
NDArray cat(const NDArray &a, const NDArray &b, At at);
NDArray reshape(const std::vector<int64_t> &shape, const NDArray &a, At at);
NDArray rav(const NDArray &a);
// op/[axis] A: a fold over an empty axis gives op's identity (int64's least and greatest for int max and
// min). + * max min fold from the first item upward; - and ÷ (isRightFold) from the right, as APL
// defines them: x0 - (x1 - (… - x(n-1))).
NDArray reduce(BinOp op, ElemType type, const NDArray &a, At at, size_t axis = 0);
NDArray inner(BinOp f, BinOp g, ElemType type, const NDArray &a, const NDArray &b, At at);
NDArray outer(BinOp g, ElemType type, const NDArray &a, const NDArray &b, At at);
NDArray iota(int64_t n, At at);
NDArray rho(const NDArray &a);

} // namespace moac
