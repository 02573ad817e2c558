#include "Gamma.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace moac {

SymExpr gamma(const SymVec &index, const SymVec &shape) {
  SymExpr offset(0);
  for (size_t k = 0; k < index.size(); ++k)
    offset = offset * shape[k] + index[k];
  return offset;
}

SymVec gammaInverse(const SymExpr &offset, const SymVec &shape) {
  SymVec index(shape.size());
  SymExpr stride(1);
  for (size_t k = shape.size(); k-- > 0;) {
    SymExpr q = SymExpr::floorDiv(offset, stride);
    index[k] = k == 0 ? q : SymExpr::mod(q, shape[k]);
    stride = stride * shape[k];
  }
  return index;
}

static std::optional<std::pair<SymExpr, SymExpr>> boundsOnce(const SymExpr &e, const IndexRanges &ranges);

static bool usesRanges(const SymExpr &e, const IndexRanges &ranges) {
  for (Symbol s : e.symbols())
    if (ranges.count(s))
      return true;
  return false;
}

// An index's range may itself depend on an enclosing index (j < i + 1): the bounds of one pass are then
// bounded again, each side by its own side, until only dims remain.
// Affine in the indices (each with a coefficient of known sign): each index is replaced, innermost first (the
// latest made), by the end of its range that lowers or raises the value. A range over an outer index (j < i + 1)
// then puts that index in, to be eliminated in turn, so that i − j is bounded by [0, n − 1], not by the
// enclosure [−(n − 1), n − 1] that bounding j and i separately gives.
static std::optional<SymExpr> eliminate(SymExpr e, const IndexRanges &ranges, bool upper) {
  for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
    if (!e.dependsOn(it->first))
      continue;
    auto coef = e.linearCoefficient(it->first);
    if (!coef || usesRanges(*coef, ranges))
      return std::nullopt;
    Sign s = signOf(*coef);
    bool rising = s == Sign::Positive || s == Sign::NonNegative || s == Sign::Zero;
    bool falling = s == Sign::Negative || s == Sign::NonPositive;
    if (!rising && !falling)
      return std::nullopt;
    SymExpr end = rising == upper ? it->second - SymExpr(1) : SymExpr(0);
    e = e.substitute({{it->first, end}});
  }
  return usesRanges(e, ranges) ? std::nullopt : std::optional<SymExpr>(e);
}

std::optional<std::pair<SymExpr, SymExpr>> indexBounds(const SymExpr &e, const IndexRanges &ranges) {
  // a gathered index is bounded by its own axis, not by eliminating indices: boundsOnce handles loads
  if (!e.hasLoad()) {
    auto lo = eliminate(e, ranges, false), hi = eliminate(e, ranges, true);
    if (lo && hi)
      return std::make_pair(*lo, *hi);
  }
  auto b = boundsOnce(e, ranges);
  for (size_t round = 0; b && round <= ranges.size() && (usesRanges(b->first, ranges) || usesRanges(b->second, ranges));
       ++round) {
    auto lo = boundsOnce(b->first, ranges), hi = boundsOnce(b->second, ranges);
    if (!lo || !hi)
      return std::nullopt;
    b = std::make_pair(lo->first, hi->second);
  }
  if (b && (usesRanges(b->first, ranges) || usesRanges(b->second, ranges)))
    return std::nullopt;
  return b;
}

static std::optional<std::pair<SymExpr, SymExpr>> boundsOnce(const SymExpr &e, const IndexRanges &ranges) {
  SymExpr lo, hi;
  for (const auto &t : e.terms()) {
    SymExpr tlo(1), thi(1);
    for (const auto &f : t.factors) {
      SymExpr flo, fhi;
      if (f->kind == SymExpr::Atom::Sym) {
        auto range = ranges.find(f->sym);
        if (range != ranges.end()) {
          flo = SymExpr(0);
          fhi = range->second - 1;
        } else {
          flo = fhi = SymExpr::symbol(f->sym);
        }
      } else if (f->kind == SymExpr::Atom::Load) {
        // a gathered index: checked against [0, bound) before use (a bound over dims; 0 while unknown)
        if (f->rhs == SymExpr(0) || f->rhs.hasLoad())
          return std::nullopt;
        for (Symbol s : f->rhs.symbols())
          if (ranges.count(s))
            return std::nullopt;
        flo = SymExpr(0);
        fhi = f->rhs - 1;
      } else {
        // floor division and modulus by a positive divisor over dims only
        const SymExpr &den = f->rhs;
        for (Symbol s : den.symbols())
          if (ranges.count(s))
            return std::nullopt;
        if (signOf(den) != Sign::Positive)
          return std::nullopt;
        if (f->kind == SymExpr::Atom::Mod) {
          flo = SymExpr(0);
          fhi = den - 1;
        } else {
          auto inner = indexBounds(f->lhs, ranges);
          if (!inner)
            return std::nullopt;
          flo = SymExpr::floorDiv(inner->first, den);
          fhi = SymExpr::floorDiv(inner->second, den);
        }
      }
      if (!nonNegative(signOf(flo)))
        return std::nullopt; // products are monotone only over non-negative factors
      tlo = tlo * flo;
      thi = thi * fhi;
    }
    if (t.coef >= 0) {
      lo = lo + tlo * SymExpr(t.coef);
      hi = hi + thi * SymExpr(t.coef);
    } else {
      lo = lo + thi * SymExpr(t.coef);
      hi = hi + tlo * SymExpr(t.coef);
    }
  }
  return std::make_pair(lo, hi);
}

// lhs = den·q + r with every term of den·q a multiple of den (a constant or a single monomial).
static std::optional<std::pair<SymExpr, SymExpr>> splitMultiple(const SymExpr &lhs, const SymExpr &den) {
  const auto &dterms = den.terms();
  if (dterms.size() != 1)
    return std::nullopt;
  const auto &d = dterms[0];
  SymExpr q, r;
  for (const auto &t : lhs.terms()) {
    bool divisible = d.coef != 0 && t.coef % d.coef == 0;
    std::vector<std::shared_ptr<const SymExpr::Atom>> rest = t.factors;
    for (const auto &df : d.factors) {
      auto it = std::find_if(rest.begin(), rest.end(), [&](const auto &a) {
        return a->kind == SymExpr::Atom::Sym && df->kind == SymExpr::Atom::Sym && a->sym == df->sym;
      });
      if (it == rest.end()) {
        divisible = false;
        break;
      }
      rest.erase(it);
    }
    SymExpr whole(t.coef);
    for (const auto &f : t.factors)
      whole = whole * SymExpr::fromAtom(f);
    if (!divisible) {
      r = r + whole;
      continue;
    }
    SymExpr quotient(t.coef / d.coef);
    for (const auto &f : rest)
      quotient = quotient * SymExpr::fromAtom(f);
    q = q + quotient;
  }
  return std::make_pair(q, r);
}

static bool within(const SymExpr &e, const SymExpr &den, const IndexRanges &ranges) {
  auto b = indexBounds(e, ranges);
  return b && nonNegative(signOf(b->first)) && nonNegative(signOf(den - 1 - b->second));
}

SymExpr simplify(const SymExpr &e, const IndexRanges &ranges) {
  SymExpr out;
  for (const auto &t : e.terms()) {
    SymExpr term(t.coef);
    for (const auto &f : t.factors) {
      if (f->kind == SymExpr::Atom::Sym) {
        term = term * SymExpr::fromAtom(f);
        continue;
      }
      if (f->kind == SymExpr::Atom::Load) {
        term = term * SymExpr::load(f->array, f->name, simplify(f->lhs, ranges), f->rhs);
        continue;
      }
      SymExpr lhs = simplify(f->lhs, ranges), den = simplify(f->rhs, ranges);
      bool isDiv = f->kind == SymExpr::Atom::Div;
      SymExpr value = isDiv ? SymExpr::floorDiv(lhs, den) : SymExpr::mod(lhs, den);
      if (signOf(den) == Sign::Positive) {
        if (within(lhs, den, ranges)) {
          value = isDiv ? SymExpr(0) : lhs;
        } else if (auto split = splitMultiple(lhs, den); split && within(split->second, den, ranges)) {
          value = isDiv ? split->first : split->second;
        }
      }
      term = term * value;
    }
    out = out + term;
  }
  return out;
}

SymExpr upperBound(const SymExpr &e, const IndexRanges &ranges) {
  if (!usesRanges(e, ranges))
    return e;
  auto b = indexBounds(e, ranges);
  if (!b)
    throw std::logic_error("no upper bound over the indices for " + e.str());
  return b->second;
}

SymVec boundingShape(const SymVec &shape, const std::vector<Symbol> &index) {
  IndexRanges ranges;
  SymVec out;
  for (size_t k = 0; k < shape.size(); ++k) {
    out.push_back(upperBound(shape[k], ranges));
    if (k < index.size())
      ranges[index[k]] = shape[k];
  }
  return out;
}

// Σ_{v<N} body = numerator / denominator, for body = base + b·v + c·v² (b, c free of v):
// (6·base·N + 3·b·N(N − 1) + c·N(N − 1)(2N − 1)) / 6, or / 2 when c = 0, or base·N when body is free of v.
// The coefficients of body as a polynomial in var of degree at most 2; nullopt for a higher degree or var
// inside a floor division or modulus.
static std::optional<std::array<SymExpr, 3>> coefficients(Symbol var, const SymExpr &body) {
  std::array<SymExpr, 3> c{SymExpr(0), SymExpr(0), SymExpr(0)};
  for (const auto &t : body.terms()) {
    size_t degree = 0;
    SymExpr rest(t.coef);
    for (const auto &f : t.factors) {
      if (f->kind == SymExpr::Atom::Sym && f->sym == var) {
        ++degree;
        continue;
      }
      if (f->kind != SymExpr::Atom::Sym && (f->lhs.dependsOn(var) || f->rhs.dependsOn(var)))
        return std::nullopt;
      rest = rest * SymExpr::fromAtom(f);
    }
    if (degree > 2)
      return std::nullopt;
    c[degree] = c[degree] + rest;
  }
  return c;
}

static std::optional<std::pair<SymExpr, int64_t>> sumScaled(Symbol var, const SymExpr &N, const SymExpr &body) {
  auto c = coefficients(var, body);
  if (!c)
    return std::nullopt;
  const SymExpr pairs = N * (N - SymExpr(1));
  if ((*c)[2] == SymExpr(0) && (*c)[1] == SymExpr(0))
    return std::make_pair(N * (*c)[0], int64_t(1));
  if ((*c)[2] == SymExpr(0))
    return std::make_pair(SymExpr(2) * (*c)[0] * N + (*c)[1] * pairs, int64_t(2));
  return std::make_pair(SymExpr(6) * (*c)[0] * N + SymExpr(3) * (*c)[1] * pairs +
                            (*c)[2] * pairs * (SymExpr(2) * N - SymExpr(1)),
                        int64_t(6));
}

std::optional<SymExpr> sumOver(Symbol var, const SymExpr &extent, const SymExpr &body) {
  auto sum = sumScaled(var, extent, body);
  if (!sum)
    return std::nullopt;
  return sum->second == 1 ? sum->first : SymExpr::floorDiv(sum->first, SymExpr(sum->second));
}

// Summed innermost axis first; the numerators are kept whole and divided once at the end (every division is
// exact), so that a nested triangle (k ≤ j ≤ i) stays a polynomial in i to sum over.
SymExpr indexSpaceSize(const SymVec &shape, const std::vector<Symbol> &index) {
  SymExpr inner(1);
  int64_t denominator = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    if (k >= index.size()) {
      inner = shape[k] * inner;
      continue;
    }
    auto sum = sumScaled(index[k], shape[k], inner);
    if (!sum || denominator > (int64_t(1) << 40))
      return product(boundingShape(shape, index));
    inner = sum->first;
    denominator *= sum->second;
  }
  return denominator == 1 ? inner : SymExpr::floorDiv(inner, SymExpr(denominator));
}

} // namespace moac
