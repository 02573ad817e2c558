#include "Gamma.h"

#include <algorithm>

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

std::optional<std::pair<SymExpr, SymExpr>> indexBounds(const SymExpr &e, const IndexRanges &ranges) {
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

} // namespace moac
