#include "ShapeRules.h"

#include "Gamma.h"

#include <algorithm>
#include <set>

namespace moac {

static RuleResult ok(Type t) { return RuleResult{std::move(t), {}}; }
static RuleResult err(Diag kind, std::vector<std::string> args) {
  return RuleResult{RuleError{kind, std::move(args)}, {}};
}
static std::string sh(const SymVec &s) { return strShape(s); }

ElemType promote(ElemType a, ElemType b) {
  if (a == ElemType::F64 || b == ElemType::F64)
    return ElemType::F64;
  if (a == ElemType::F32 || b == ElemType::F32)
    return ElemType::F32;
  return ElemType::Int;
}

static std::optional<SymExpr> foldInt(BinOp op, const SymExpr &a, const SymExpr &b) {
  switch (op) {
  case BinOp::Add: return a + b;
  case BinOp::Sub: return a - b;
  case BinOp::Mul: return a * b;
  case BinOp::IntDiv: return SymExpr::floorDiv(a, b);
  case BinOp::Mod: return SymExpr::mod(a, b);
  case BinOp::Max:
  case BinOp::Min:
    if (a.isConstant() && b.isConstant()) {
      int64_t x = *a.constant(), y = *b.constant();
      return SymExpr(op == BinOp::Max ? std::max(x, y) : std::min(x, y));
    }
    return std::nullopt;
  case BinOp::Div:
  case BinOp::Pow: return std::nullopt;
  default: // comparisons and logic: known only between constants
    if (a.isConstant() && b.isConstant())
      return SymExpr(int64_t(apply(op, double(*a.constant()), double(*b.constant()))));
    return std::nullopt;
  }
}

// A op B: equal shapes, or one side a scalar (scalar extension).
RuleResult shapeOfElementwise(BinOp op, const Type &a, const Type &b) {
  Type r;
  if (a.rank() != 0 && b.rank() != 0 && a.shape != b.shape)
    return err(Diag::ShapeMismatch, {std::string("'") + std::string(spell(op)) + "'", sh(a.shape), sh(b.shape)});
  r.shape = a.rank() != 0 ? a.shape : b.shape;
  r.elem = op == BinOp::Div || op == BinOp::Pow ? promote(promote(a.elem, b.elem), ElemType::F32)
                                                : promote(a.elem, b.elem);
  if ((op == BinOp::IntDiv || op == BinOp::Mod || op == BinOp::And || op == BinOp::Or) && r.elem != ElemType::Int)
    return err(Diag::NotInteger, {std::string("the operands of '") + std::string(spell(op)) + "'",
                                  op == BinOp::And || op == BinOp::Or
                                      ? "they are not integers (write a comparison such as x > 0)"
                                      : "they are not integers"});
  if (givesTruth(op)) // compared in the operands' type; the truth value is an int 0 or 1
    r.elem = ElemType::Int;
  if (r.elem == ElemType::Int && a.value && b.value) {
    SymVec v;
    // a scalar extends to the other operand's elements, of which there may be none (rho of a scalar)
    size_t n = a.rank() == 0 ? b.value->size() : a.value->size();
    try {
      for (size_t i = 0; i < n; ++i) {
        const SymExpr &x = (*a.value)[a.rank() == 0 ? 0 : i];
        const SymExpr &y = (*b.value)[b.rank() == 0 ? 0 : i];
        auto folded = foldInt(op, x, y);
        if (!folded)
          break;
        v.push_back(*folded);
      }
    } catch (const SymArithmeticError &e) {
      return err(Diag::Arithmetic, {e.what()}); // division by zero or int64 overflow
    }
    if (v.size() == n)
      r.value = std::move(v);
  }
  return ok(r);
}

RuleResult shapeOfUnary(UnOp op, const Type &a) {
  Type r = a;
  r.value.reset();
  if (op == UnOp::Not) {
    if (a.elem != ElemType::Int)
      return err(Diag::NotInteger, {"the operand of 'not'", "it is " + strType(a) + " (write a comparison such as x > 0)"});
    if (a.value) {
      r.value = SymVec{};
      for (const auto &x : *a.value) {
        if (!x.isConstant())
          return ok(Type{r.elem, r.shape, std::nullopt});
        r.value->push_back(SymExpr(int64_t(*x.constant() == 0)));
      }
    }
    return ok(r);
  }
  bool keepsInt = op == UnOp::Neg || op == UnOp::Abs;
  if (!keepsInt)
    r.elem = promote(a.elem, ElemType::F32);
  if (op == UnOp::Neg && a.value && a.elem == ElemType::Int) {
    r.value = SymVec{};
    for (const auto &x : *a.value)
      r.value->push_back(-x);
  }
  return ok(r);
}

// where(c, a, b): c an int (a comparison); the three shapes equal, or scalars (scalar extension); the
// element type is the wider of a's and b's.
RuleResult shapeOfWhere(const Type &c, const Type &a, const Type &b) {
  if (c.elem != ElemType::Int)
    return err(Diag::NotInteger, {"the condition of 'where'", "it is " + strType(c) + " (write a comparison such as x > 0)"});
  const SymVec *shape = nullptr;
  for (const Type *t : {&c, &a, &b}) {
    if (t->rank() == 0)
      continue;
    if (shape && *shape != t->shape)
      return err(Diag::ShapeMismatch, {"'where'", sh(*shape), sh(t->shape)});
    shape = &t->shape;
  }
  Type r;
  r.elem = promote(a.elem, b.elem);
  if (shape)
    r.shape = *shape;
  return ok(r);
}

// An index operand: an integer scalar (length 1) or an integer vector of known length.
static std::optional<RuleError> checkIndexVector(const Type &index, const char *what) {
  if (index.elem != ElemType::Int)
    return RuleError{Diag::NotInteger, {std::string("the left operand of ") + what, "it is " + strType(index)}};
  if (index.rank() > 1)
    return RuleError{Diag::NeedsVector, {what, sh(index.shape)}};
  if (index.rank() == 1 && !index.shape[0].isConstant())
    return RuleError{Diag::NeedsConstantLength, {what}};
  return std::nullopt;
}

static size_t vectorLength(const Type &v) { return v.rank() == 0 ? 1 : size_t(*v.shape[0].constant()); }

// <i> psi A: a full index gives a scalar; a partial one the subarray, ρ = drop(len i, ρA).
RuleResult shapeOfPsi(const Type &index, const Type &array) {
  if (auto e = checkIndexVector(index, "psi"))
    return RuleResult{*e, {}};
  size_t len = vectorLength(index);
  if (len > array.rank())
    return err(Diag::IndexTooLong, {std::to_string(len), std::to_string(array.rank())});
  // ψ-reduction turns every selection into index arithmetic, so the index must be symbolic (dims,
  // comprehension indices, literals) or, for a gather, hold elements of integer `in` arrays as they are.
  if (!index.value && !index.gather)
    return err(Diag::GatherIndex, {});
  Type r;
  r.elem = array.elem;
  r.shape.assign(array.shape.begin() + long(len), array.shape.end());
  if (array.value && array.rank() == 1 && len == 1 && index.value) {
    if (auto c = (*index.value)[0].constant(); c && *c >= 0 && size_t(*c) < array.value->size())
      r.value = SymVec{(*array.value)[size_t(*c)]};
  }
  return ok(r);
}

// tran A: reverse the axes.
RuleResult shapeOfTran(const Type &array) {
  Type r = array;
  r.value.reset();
  std::reverse(r.shape.begin(), r.shape.end());
  if (array.rank() <= 1)
    r.value = array.value;
  return ok(r);
}

// <p> tran A: result axis p_k has the extent of A's axis k.
RuleResult shapeOfTranPerm(const Type &perm, const Type &array) {
  if (auto e = checkIndexVector(perm, "tran"))
    return RuleResult{*e, {}};
  std::string shown = perm.value ? strShape(*perm.value) : std::string("the left operand");
  size_t d = array.rank();
  if (!perm.value || vectorLength(perm) != d)
    return err(Diag::BadPermutation, {shown, std::to_string(d)});
  std::vector<bool> seen(d, false);
  Type r;
  r.elem = array.elem;
  r.shape.resize(d);
  for (size_t k = 0; k < d; ++k) {
    auto p = (*perm.value)[k].constant();
    if (!p || *p < 0 || size_t(*p) >= d || seen[size_t(*p)])
      return err(Diag::BadPermutation, {shown, std::to_string(d)});
    seen[size_t(*p)] = true;
    r.shape[size_t(*p)] = array.shape[k];
  }
  return ok(r);
}

// A take/drop count: an integer scalar over dims with a known sign.
static Guard guard(Guard::Cmp cmp, SymExpr lhs, SymExpr rhs) { return Guard{cmp, lhs, rhs, {}, {}}; }

static bool usesIndices(const SymExpr &e, const IndexRanges &indices) {
  for (Symbol s : e.symbols())
    if (indices.count(s))
      return true;
  return false;
}

// Whether indexBounds(e) is attained, not only an enclosure: every index in e has a range over dims only,
// occurs in one term at most once, linearly, and outside any floor division or modulus.
bool boundsAttained(const SymExpr &e, const IndexRanges &indices) {
  std::set<Symbol> seen;
  for (const auto &t : e.terms())
    for (const auto &f : t.factors) {
      if (f->kind != SymExpr::Atom::Sym) {
        if (usesIndices(f->lhs, indices) || usesIndices(f->rhs, indices))
          return false;
        continue;
      }
      auto range = indices.find(f->sym);
      if (range == indices.end())
        continue;
      if (usesIndices(range->second, indices) || !seen.insert(f->sym).second || t.factors.size() > 1)
        return false;
    }
  return true;
}

// Why a value read from an input cannot size an array, and what to write instead: a run-time integer that
// sizes one is a dim (dims are passed to the kernel at each call; `assume` relates them, docs/language.md §4).
static const char *const dataValueHint =
    "its value is not known at compile time (a value read from an input array cannot size a result; "
    "a run-time integer that does is a dim: `dim w`, with `assume w <= n` where it is bounded)";

// The count k of take or drop: its sign fixes which end is cut. A count over comprehension indices
// (`(i + 1) take K`) takes the sign its least and greatest values share over the indices' ranges.
static std::optional<RuleError> checkCount(const Type &count, const char *what, const IndexRanges &indices, SymExpr &k,
                                           bool &negative) {
  if (count.elem != ElemType::Int || count.rank() != 0)
    return RuleError{Diag::NotInteger, {std::string("the count of ") + what, "it is " + strType(count)}};
  if (!count.value)
    return RuleError{Diag::NotInteger, {std::string("the count of ") + what, dataValueHint}};
  k = (*count.value)[0];
  if (usesIndices(k, indices)) {
    auto range = indexBounds(k, indices);
    Sign low = range ? signOf(range->first) : Sign::Unknown, high = range ? signOf(range->second) : Sign::Unknown;
    if (nonNegative(low)) {
      negative = false;
      return std::nullopt;
    }
    if (high == Sign::Negative || high == Sign::NonPositive || high == Sign::Zero) {
      negative = true;
      return std::nullopt;
    }
    return RuleError{Diag::NotInteger,
                     {std::string("the count of ") + what,
                      range ? "its sign changes over the comprehension's range (from " + range->first.str() + " to " +
                                  range->second.str() + ")"
                            : "the range of " + k.str() + " over the comprehension's indices is not known"}};
  }
  Sign s = signOf(k);
  if (s == Sign::Unknown)
    return RuleError{Diag::NotInteger,
                     {std::string("the count of ") + what,
                      "the sign of " + k.str() + " is not known (an 'assume' of the dims can declare it)"}};
  negative = s == Sign::Negative || s == Sign::NonPositive;
  return std::nullopt;
}

// |k| ≤ ρA[0], the room left by take or drop, for every value of the comprehension indices in either: an error
// when it fails for every dims (at some index, where the bounds are attained), a guard where the dims decide.
static std::optional<RuleError> checkRoom(const char *what, const SymExpr &len, const SymExpr &leading,
                                          const IndexRanges &indices, std::vector<Guard> &guards) {
  SymExpr room = leading - len;
  if (!usesIndices(room, indices)) {
    Sign s = signOf(room);
    if (s == Sign::Negative)
      return RuleError{Diag::TakeTooLong, {what, len.str(), leading.str()}};
    if (s == Sign::Unknown || s == Sign::NonPositive)
      guards.push_back(guard(Guard::Le, len, leading));
    return std::nullopt;
  }
  auto range = indexBounds(room, indices);
  if (!range)
    return RuleError{Diag::NotInteger, {std::string("the count of ") + what,
                                        "its range over the comprehension's indices is not known"}};
  Sign least = signOf(range->first);
  if (nonNegative(least))
    return std::nullopt;
  if (signOf(range->second) == Sign::Negative || (least == Sign::Negative && boundsAttained(room, indices))) {
    auto lenRange = indexBounds(len, indices);
    return RuleError{Diag::TakeTooLongAt, {what, len.str(), leading.str(),
                                           lenRange ? lenRange->second.str() : len.str()}};
  }
  if (usesIndices(leading, indices))
    guards.push_back(guard(Guard::Le, SymExpr(0), range->first));
  else
    guards.push_back(guard(Guard::Le, leading - range->first, leading));
  return std::nullopt;
}

// k take A: ⟨|k|⟩ ++ tail ρA; |k| ≤ ρA[0].
RuleResult shapeOfTake(const Type &count, const Type &array, const IndexRanges &indices) {
  SymExpr k;
  bool negative;
  if (auto e = checkCount(count, "take", indices, k, negative))
    return RuleResult{*e, {}};
  if (array.rank() == 0)
    return err(Diag::NeedsRank, {"take", "1", sh(array.shape)});
  SymExpr len = negative ? -k : k;
  RuleResult r = ok(Type{array.elem, array.shape, std::nullopt});
  std::get<Type>(r.result).shape[0] = len;
  if (auto e = checkRoom("take", len, array.shape[0], indices, r.guards))
    return RuleResult{*e, {}};
  return r;
}

// k drop A: ⟨ρA[0] − |k|⟩ ++ tail ρA.
RuleResult shapeOfDrop(const Type &count, const Type &array, const IndexRanges &indices) {
  SymExpr k;
  bool negative;
  if (auto e = checkCount(count, "drop", indices, k, negative))
    return RuleResult{*e, {}};
  if (array.rank() == 0)
    return err(Diag::NeedsRank, {"drop", "1", sh(array.shape)});
  SymExpr len = negative ? -k : k;
  RuleResult r = ok(Type{array.elem, array.shape, std::nullopt});
  std::get<Type>(r.result).shape[0] = array.shape[0] - len;
  if (auto e = checkRoom("drop", len, array.shape[0], indices, r.guards))
    return RuleResult{*e, {}};
  return r;
}

// A cat B along the leading axis; an operand of one rank less is one item (the KV-cache row append).
RuleResult shapeOfCat(const Type &a, const Type &b) {
  auto asItems = [](const Type &t, size_t rank) {
    SymVec s = t.shape;
    if (t.rank() + 1 == rank)
      s.insert(s.begin(), SymExpr(1));
    return s;
  };
  size_t rank = std::max({a.rank(), b.rank(), size_t(1)});
  SymVec sa = asItems(a, rank), sb = asItems(b, rank);
  if (sa.size() != rank || sb.size() != rank || !std::equal(sa.begin() + 1, sa.end(), sb.begin() + 1))
    return err(Diag::CatTailMismatch, {sh(a.shape), sh(b.shape)});
  Type r;
  r.elem = promote(a.elem, b.elem);
  r.shape = sa;
  r.shape[0] = sa[0] + sb[0];
  if (a.value && b.value && rank == 1)
    r.value = SymVec(a.value->begin(), a.value->end()), r.value->insert(r.value->end(), b.value->begin(), b.value->end());
  return ok(r);
}

// ψ of reshape and rav divides an offset by A's trailing extents (γ⁻¹): one a dim declared `>= 0` may make 0
// is guarded, as the kernels refuse a dim at 0 where it divides.
static void guardDivisors(const Type &array, RuleResult &result) {
  for (size_t k = 1; k < array.rank(); ++k)
    if (divisorNeedsGuard(array.shape[k])) {
      Guard g = guard(Guard::Le, SymExpr(1), array.shape[k]);
      g.reason = "divisor not zero";
      result.guards.push_back(g);
    }
}

// <s> reshape A: ρ = s, π s = τA.
RuleResult shapeOfReshape(const Type &shape, const Type &array) {
  if (auto e = checkIndexVector(shape, "reshape"))
    return RuleResult{*e, {}};
  if (!shape.value)
    return err(Diag::NotInteger, {"the new shape of reshape", dataValueHint});
  Type r{array.elem, *shape.value, std::nullopt};
  SymExpr from = product(array.shape), to = product(*shape.value);
  RuleResult result = ok(r);
  for (const auto &s : *shape.value) {
    ExtentCheck check = checkExtent(s);
    if (check == ExtentCheck::Never)
      return err(Diag::NonPositiveExtent, {s.str()});
    if (check == ExtentCheck::Guarded)
      result.guards.push_back(guard(Guard::Le, SymExpr(1), s));
  }
  guardDivisors(array, result);
  if (from != to) {
    Sign diff = signOf(from - to);
    if (diff == Sign::Positive || diff == Sign::Negative)
      return err(Diag::ReshapeMismatch, {from.str(), to.str()});
    result.guards.push_back(guard(Guard::Eq, to, from));
  }
  return result;
}

RuleResult shapeOfRav(const Type &array) {
  RuleResult result = ok(Type{array.elem, {product(array.shape)}, std::nullopt});
  guardDivisors(array, result);
  return result;
}

ExtentCheck checkExtent(const SymExpr &e) {
  Sign s = signOf(e);
  if (s == Sign::Positive || (nonNegative(s) && signOf(e, Least::AsIfPositive) == Sign::Positive))
    return ExtentCheck::Fine;
  if (s == Sign::Zero || s == Sign::Negative || s == Sign::NonPositive)
    return ExtentCheck::Never;
  return ExtentCheck::Guarded;
}

bool divisorNeedsGuard(const SymExpr &d) {
  return signOf(d) != Sign::Positive && signOf(d, Least::AsIfPositive) == Sign::Positive;
}

// op/[k] A: reduce along axis k (op/ A: the leading axis), ρ = ρA without its axis k. ÷/ divides, so
// its result is a float like that of `/`.
RuleResult shapeOfReduce(BinOp op, const Type &array, int64_t axis) {
  if (array.rank() == 0)
    return err(Diag::NeedsRank, {"reduction", "1", sh(array.shape)});
  if (axis < 0 || uint64_t(axis) >= array.rank())
    return err(Diag::ReduceAxis, {std::to_string(axis), std::to_string(array.rank()), sh(array.shape),
                                  std::to_string(array.rank() - 1)});
  SymVec shape = array.shape;
  shape.erase(shape.begin() + axis);
  ElemType elem = op == BinOp::Div ? promote(array.elem, ElemType::F32) : array.elem;
  return ok(Type{elem, std::move(shape), std::nullopt});
}

// A f.g B: contract the last axis of A with the first of B, ρ = init ρA ++ tail ρB.
RuleResult shapeOfInner(BinOp f, BinOp g, const Type &a, const Type &b) {
  if (a.rank() == 0)
    return err(Diag::NeedsRank, {"the left operand of an inner product", "1", sh(a.shape)});
  if (b.rank() == 0)
    return err(Diag::NeedsRank, {"the right operand of an inner product", "1", sh(b.shape)});
  if (a.shape.back() != b.shape.front())
    return err(Diag::InnerMismatch, {a.shape.back().str(), b.shape.front().str()});
  Type r;
  // f is one of the reducers (the lexer makes no other inner product); ÷ as f or g divides
  const bool divides = f == BinOp::Div || g == BinOp::Div;
  r.elem = divides ? promote(promote(a.elem, b.elem), ElemType::F32) : promote(a.elem, b.elem);
  r.shape.assign(a.shape.begin(), a.shape.end() - 1);
  r.shape.insert(r.shape.end(), b.shape.begin() + 1, b.shape.end());
  return ok(r);
}

// A o.g B: ρ = ρA ++ ρB.
RuleResult shapeOfOuter(BinOp g, const Type &a, const Type &b) {
  Type r;
  r.elem = g == BinOp::Div ? promote(promote(a.elem, b.elem), ElemType::F32) : promote(a.elem, b.elem);
  r.shape = a.shape;
  r.shape.insert(r.shape.end(), b.shape.begin(), b.shape.end());
  return ok(r);
}

// iota n: ⟨n⟩, the integers 0 … n−1.
RuleResult shapeOfIota(const Type &count) {
  if (count.elem != ElemType::Int || count.rank() != 0 || !count.value)
    return err(Diag::NotInteger, {"the operand of iota", "it is not an integer known at compile time"});
  SymExpr n = (*count.value)[0];
  ExtentCheck check = checkExtent(n);
  if (check == ExtentCheck::Never)
    return err(Diag::NonPositiveExtent, {n.str()});
  Type r{ElemType::Int, {n}, std::nullopt};
  if (auto c = n.constant(); c && *c <= 64) {
    r.value = SymVec{};
    for (int64_t i = 0; i < *c; ++i)
      r.value->push_back(SymExpr(i));
  }
  RuleResult result = ok(r);
  if (check == ExtentCheck::Guarded)
    result.guards.push_back(guard(Guard::Le, SymExpr(1), n));
  return result;
}

// rho A: ⟨δA⟩, whose value is ρA.
RuleResult shapeOfRho(const Type &array) {
  return ok(Type{ElemType::Int, {SymExpr(int64_t(array.rank()))}, array.shape});
}

// <a b …>: a vector of scalars.
RuleResult shapeOfVector(const std::vector<Type> &elements) {
  Type r{ElemType::Int, {SymExpr(int64_t(elements.size()))}, SymVec{}};
  SymVec gather;
  bool data = false;
  for (const Type &e : elements) {
    if (e.rank() != 0)
      return err(Diag::NotScalar, {"a vector element", sh(e.shape)});
    r.elem = promote(r.elem, e.elem);
    if (e.value) {
      r.value->push_back((*e.value)[0]);
      gather.push_back((*e.value)[0]);
    } else if (e.gather) {
      gather.push_back((*e.gather)[0]);
      data = true;
    }
  }
  if (r.elem == ElemType::Int && data && gather.size() == elements.size())
    r.gather = std::move(gather); // <b, table[b, j div page]>: a gather index
  if (r.elem != ElemType::Int || r.value->size() != elements.size())
    r.value.reset();
  return ok(r);
}

// [i < n, j < m] e: ⟨n m⟩ ++ ρe.
RuleResult shapeOfComprehension(const SymVec &extents, const Type &body) {
  Type r{body.elem, extents, std::nullopt};
  r.shape.insert(r.shape.end(), body.shape.begin(), body.shape.end());
  return ok(r);
}

} // namespace moac
