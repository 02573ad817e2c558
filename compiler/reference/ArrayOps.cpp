#include "ArrayOps.h"

#include "Arith.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

namespace moac {

namespace {

[[noreturn]] void fail(At at, const std::string &message) { throw EvalError(message, at.loc, at.length); }

// Every element a structural operator moves goes through here: an offset outside the array is an
// error, never a read. The element keeps its type (and an int its exact value).
void copyElement(NDArray &r, int64_t to, const NDArray &a, int64_t offset, At at) {
  if (offset < 0 || uint64_t(offset) >= a.data.size())
    fail(at, fmt::format("element {} is out of range for an array of shape {}", offset, strExtents(a.shape)));
  r.data.at(size_t(to)) = a.data[size_t(offset)];
  if (a.elem == ElemType::Int)
    r.ints.at(size_t(to)) = a.ints[size_t(offset)];
}

// Row-major strides: stride[k] = π shape[k+1 …].
Extents strides(const Extents &shape) {
  Extents s(shape.size(), 1);
  for (size_t k = shape.size(); k-- > 1;)
    s[k - 1] = s[k] * shape[k];
  return s;
}

Extents tail(const Extents &shape) { return Extents(shape.begin() + 1, shape.end()); }

void needRank(const NDArray &a, size_t rank, const char *what, At at) {
  if (a.shape.size() < rank)
    fail(at, fmt::format("{} needs an array of rank at least {}, but the operand has shape {}", what, rank,
                         strExtents(a.shape)));
}

// Rows [first, first + count) of the leading axis.
NDArray rows(const NDArray &a, int64_t first, int64_t count, At at) {
  Extents shape = a.shape;
  shape[0] = count;
  NDArray r = makeArray(shape, at, a.elem);
  int64_t row = elementCount(tail(a.shape), at);
  for (int64_t i = 0; i < count * row; ++i)
    copyElement(r, i, a, first * row + i, at);
  return r;
}

// |count| rows of the leading axis must exist for take and drop.
void checkCount(int64_t count, const NDArray &a, const char *what, At at) {
  needRank(a, 1, what, at);
  if (count < -a.shape[0] || count > a.shape[0])
    fail(at, fmt::format("{} of {} exceeds the leading extent {}", what, count < 0 ? -count : count, a.shape[0]));
}

} // namespace

std::string strExtents(const Extents &shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

int64_t elementCount(const Extents &shape, At at) {
  int64_t count = 1;
  for (int64_t s : shape) {
    if (s < 0)
      fail(at, fmt::format("extent {} of shape {} is negative", s, strExtents(shape)));
    if (__builtin_mul_overflow(count, s, &count) || count > maxElements)
      fail(at, fmt::format("an array of shape {} has more than {} elements, the interpreter's limit",
                           strExtents(shape), maxElements));
  }
  return count;
}

NDArray makeArray(Extents shape, At at, ElemType elem) {
  NDArray r;
  r.data.assign(size_t(elementCount(shape, at)), 0.0);
  if (elem == ElemType::Int)
    r.ints.assign(r.data.size(), 0);
  r.shape = std::move(shape);
  r.elem = elem;
  return r;
}

NDArray scalar(double value, ElemType elem) { return NDArray{{}, {value}, elem, {}}; }

NDArray intScalar(int64_t value) { return NDArray{{}, {double(value)}, ElemType::Int, {value}}; }

// Rounding to nearest-even with p significant bits, least normal exponent emin and largest finite value
// (2 − 2^(1−p))·2^emax: by the definition (v scaled to an integer at its quantum, rounded, scaled back),
// independent of moart's bit-level conversions in kernel.h that it checks.
static double roundToFormat(double v, int p, int emin, int emax) {
  if (!std::isfinite(v) || v == 0)
    return v; // NaN, ±inf and ±0 are themselves
  int e = 0;
  std::frexp(v, &e); // |v| = f·2^e with 0.5 ≤ f < 1: the leading bit's exponent is e − 1
  double quantum = std::ldexp(1.0, std::max(e - 1, emin) - (p - 1));
  double r = std::nearbyint(v / quantum) * quantum; // exact scaling; nearbyint rounds ties to even
  double largest = std::ldexp(2.0 - std::ldexp(1.0, 1 - p), emax);
  if (std::fabs(r) > largest)
    return std::copysign(HUGE_VAL, v);
  return r == 0 ? std::copysign(0.0, v) : r;
}

double roundTo(ElemType t, double v) {
  switch (t) {
  case ElemType::F32: return double(float(v));
  case ElemType::BF16: return roundToFormat(v, 8, -126, 127);
  case ElemType::F16: return roundToFormat(v, 11, -14, 15);
  default: return v;
  }
}

NDArray convert(const NDArray &a, ElemType t, At at) {
  if (a.elem == t && t != ElemType::F32 && !isHalf(t))
    return a;
  NDArray r = makeArray(a.shape, at, t);
  if (t == ElemType::Int) {
    std::vector<int64_t> values = toIntegers(rav(a), at, "an int value");
    for (size_t i = 0; i < values.size(); ++i)
      store(r, int64_t(i), t, Num{0, values[i]});
    return r;
  }
  for (int64_t i = 0; i < int64_t(r.count()); ++i)
    store(r, i, t, load(a, i, t, at));
  return r;
}

bool nextIndex(Extents &index, const Extents &shape) {
  for (size_t k = index.size(); k-- > 0;) {
    if (++index[k] < shape[k])
      return true;
    index[k] = 0;
  }
  return false;
}

std::vector<int64_t> toIntegers(const NDArray &value, At at, const char *what) {
  if (value.shape.size() > 1)
    fail(at, fmt::format("{} must be a scalar or a vector, but it has shape {}", what, strExtents(value.shape)));
  if (value.elem == ElemType::Int)
    return value.ints;
  std::vector<int64_t> out;
  for (double v : value.data) {
    if (!(std::fabs(v) < 0x1p63) || v != std::floor(v))
      fail(at, fmt::format("{} must hold integers, but it holds {}", what, v));
    out.push_back(int64_t(v));
  }
  return out;
}

NDArray unary(UnOp op, ElemType type, const NDArray &a, At at) {
  NDArray r = makeArray(a.shape, at, type);
  for (int64_t i = 0; i < int64_t(r.count()); ++i)
    store(r, i, type, apply(op, type, load(a, i, type, at), at));
  return r;
}

NDArray elementwise(BinOp op, ElemType type, const NDArray &a, const NDArray &b, At at) {
  bool aScalar = a.shape.empty(), bScalar = b.shape.empty();
  if (!aScalar && !bScalar && a.shape != b.shape)
    fail(at, fmt::format("'{}' needs equal shapes: {} vs {}", spell(op), strExtents(a.shape), strExtents(b.shape)));
  // A comparison (and `and`, `or`) computes in `type`, its operands', and gives an int 0 or 1.
  ElemType result = givesTruth(op) ? ElemType::Int : type;
  NDArray r = makeArray(aScalar ? b.shape : a.shape, at, result);
  for (int64_t i = 0; i < int64_t(r.count()); ++i) {
    Num x = load(a, aScalar ? 0 : i, type, at), y = load(b, bScalar ? 0 : i, type, at);
    store(r, i, result, apply(op, type, x, y, at));
  }
  return r;
}

// ⟨i⟩ψA: the scalar (full index) or the subarray ⟨s_k …⟩ (partial index) at offset γ(i; ⟨s₀ … s_{k−1}⟩).
NDArray psi(const std::vector<int64_t> &index, const NDArray &a, At at) {
  if (index.size() > a.shape.size())
    fail(at, fmt::format("index vector of length {} selects from an array of rank {}", index.size(),
                         a.shape.size()));
  int64_t offset = 0;
  for (size_t k = 0; k < index.size(); ++k) {
    if (index[k] < 0 || index[k] >= a.shape[k])
      fail(at, fmt::format("psi index {} is out of range for axis {} of extent {} (index <{}>, shape {})",
                           index[k], k, a.shape[k], fmt::join(index, " "), strExtents(a.shape)));
    offset = offset * a.shape[k] + index[k];
  }
  NDArray r = makeArray(Extents(a.shape.begin() + long(index.size()), a.shape.end()), at, a.elem);
  int64_t size = int64_t(r.count());
  for (int64_t i = 0; i < size; ++i)
    copyElement(r, i, a, offset * size + i, at);
  return r;
}

// Walks A in row-major order and writes each element where its index lands: A's index j goes to the
// result index i with i[perm[k]] = j[k].
NDArray transpose(const std::vector<int64_t> &perm, const NDArray &a, At at) {
  size_t d = a.shape.size();
  std::vector<bool> seen(d, false);
  bool valid = perm.size() == d;
  for (size_t k = 0; valid && k < d; ++k) {
    valid = perm[k] >= 0 && size_t(perm[k]) < d && !seen[size_t(perm[k])];
    if (valid)
      seen[size_t(perm[k])] = true;
  }
  if (!valid)
    fail(at, fmt::format("<{}> is not a permutation of the {} axes", fmt::join(perm, " "), d));
  Extents shape(d);
  for (size_t k = 0; k < d; ++k)
    shape[size_t(perm[k])] = a.shape[k];
  NDArray r = makeArray(shape, at, a.elem);
  if (r.count() == 0)
    return r;
  Extents stride = strides(shape), j(d, 0);
  int64_t from = 0;
  do {
    int64_t to = 0;
    for (size_t k = 0; k < d; ++k)
      to += j[k] * stride[size_t(perm[k])];
    copyElement(r, to, a, from++, at);
  } while (nextIndex(j, a.shape));
  return r;
}

NDArray take(int64_t count, const NDArray &a, At at) {
  checkCount(count, a, "take", at);
  return count >= 0 ? rows(a, 0, count, at) : rows(a, a.shape[0] + count, -count, at);
}

NDArray drop(int64_t count, const NDArray &a, At at) {
  checkCount(count, a, "drop", at);
  return count >= 0 ? rows(a, count, a.shape[0] - count, at) : rows(a, 0, a.shape[0] + count, at);
}

// Along the leading axis; an operand of one rank less than the other is a single item.
NDArray cat(const NDArray &a, const NDArray &b, At at) {
  size_t rank = std::max({a.shape.size(), b.shape.size(), size_t(1)});
  auto asItems = [&](const NDArray &x) {
    Extents s = x.shape;
    if (s.size() + 1 == rank)
      s.insert(s.begin(), 1);
    return s;
  };
  Extents sa = asItems(a), sb = asItems(b);
  if (sa.size() != rank || sb.size() != rank || !std::equal(sa.begin() + 1, sa.end(), sb.begin() + 1))
    fail(at, fmt::format("cat needs equal trailing axes: {} vs {}", strExtents(a.shape), strExtents(b.shape)));
  Extents shape = sa;
  shape[0] = sa[0] + sb[0];
  if (a.elem != b.elem)
    fail(at, fmt::format("cat needs operands of one element type: {} vs {}", spell(a.elem), spell(b.elem)));
  NDArray r = makeArray(shape, at, a.elem);
  int64_t na = int64_t(a.count());
  for (int64_t i = 0; i < int64_t(r.count()); ++i)
    copyElement(r, i, i < na ? a : b, i < na ? i : i - na, at);
  return r;
}

// Row-major order is the order of `data`, so re-flowing keeps the elements and changes the shape.
NDArray reshape(const std::vector<int64_t> &shape, const NDArray &a, At at) {
  int64_t count = elementCount(shape, at);
  if (count != int64_t(a.count()))
    fail(at, fmt::format("reshape changes the number of elements: {} to {} (shape {} to {})", a.count(), count,
                         strExtents(a.shape), strExtents(shape)));
  NDArray r = makeArray(shape, at, a.elem);
  for (int64_t i = 0; i < count; ++i)
    copyElement(r, i, a, i, at);
  return r;
}

NDArray rav(const NDArray &a) { return NDArray{{int64_t(a.count())}, a.data, a.elem, a.ints}; }

// The fold of the n terms term(0 … n−1) by op, by its definition: the identity when n = 0; else from
// term(0) upward, acc op term(l), or for a right fold from term(n−1) downward, term(l) op acc.
template <typename Term> Num fold(BinOp op, ElemType type, int64_t n, Term &&term, At at) {
  if (n == 0)
    return identityOf(op, type);
  if (isRightFold(op)) {
    Num acc = term(n - 1);
    for (int64_t l = n - 1; l-- > 0;)
      acc = apply(op, type, term(l), acc, at);
    return acc;
  }
  Num acc = term(0);
  for (int64_t l = 1; l < n; ++l)
    acc = apply(op, type, acc, term(l), at);
  return acc;
}

// op/[axis] A: element ⟨o, j⟩ of the result (o over the axes before `axis`, j over those after) folds
// A's elements ⟨o, l, j⟩ over l.
NDArray reduce(BinOp op, ElemType type, const NDArray &a, At at, size_t axis) {
  needRank(a, axis + 1, "reduction", at);
  Extents shape = a.shape;
  shape.erase(shape.begin() + long(axis));
  NDArray r = makeArray(shape, at, type);
  const int64_t n = a.shape[axis];
  const int64_t after = elementCount(Extents(a.shape.begin() + long(axis) + 1, a.shape.end()), at);
  for (int64_t k = 0; k < int64_t(r.count()); ++k) {
    const int64_t o = k / after, j = k % after;
    store(r, k, type, fold(op, type, n, [&](int64_t l) { return load(a, (o * n + l) * after + j, type, at); }, at));
  }
  return r;
}

// (A f.g B)[i′, i″] = f-fold over k of A[i′, k] g B[k, i″] (fold: from k = 0 upward, or from the right).
NDArray inner(BinOp f, BinOp g, ElemType type, const NDArray &a, const NDArray &b, At at) {
  needRank(a, 1, "the left operand of an inner product", at);
  needRank(b, 1, "the right operand of an inner product", at);
  int64_t m = a.shape.back();
  if (m != b.shape.front())
    fail(at, fmt::format("inner product needs matching axes: {} vs {}", m, b.shape.front()));
  Extents shape(a.shape.begin(), a.shape.end() - 1);
  shape.insert(shape.end(), b.shape.begin() + 1, b.shape.end());
  NDArray r = makeArray(shape, at, type);
  int64_t rowsA = elementCount(Extents(a.shape.begin(), a.shape.end() - 1), at);
  int64_t colsB = elementCount(Extents(b.shape.begin() + 1, b.shape.end()), at);
  auto term = [&](int64_t i, int64_t j, int64_t k) {
    return apply(g, type, load(a, i * m + k, type, at), load(b, k * colsB + j, type, at), at);
  };
  for (int64_t i = 0; i < rowsA; ++i)
    for (int64_t j = 0; j < colsB; ++j)
      store(r, i * colsB + j, type, fold(f, type, m, [&](int64_t k) { return term(i, j, k); }, at));
  return r;
}

NDArray outer(BinOp g, ElemType type, const NDArray &a, const NDArray &b, At at) {
  Extents shape = a.shape;
  shape.insert(shape.end(), b.shape.begin(), b.shape.end());
  NDArray r = makeArray(shape, at, type);
  int64_t nb = int64_t(b.count());
  for (int64_t i = 0; i < int64_t(r.count()); ++i)
    store(r, i, type, apply(g, type, load(a, i / nb, type, at), load(b, i % nb, type, at), at));
  return r;
}

NDArray iota(int64_t n, At at) {
  if (n < 0)
    fail(at, fmt::format("iota of a negative count {}", n));
  NDArray r = makeArray({n}, at, ElemType::Int);
  for (int64_t i = 0; i < n; ++i)
    store(r, i, ElemType::Int, Num{0, i});
  return r;
}

NDArray rho(const NDArray &a) {
  NDArray r{{int64_t(a.shape.size())}, {}, ElemType::Int, a.shape};
  for (int64_t s : a.shape)
    r.data.push_back(double(s));
  return r;
}

} // namespace moac
