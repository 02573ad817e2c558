#include "KernelChecks.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace moac {

namespace {

// Calls f for every integer expression of the statements (bounds, conditions, offsets, integer values)
// and, with the divisor flag, for every expression an LExpr divides by.
void forEachInteger(const std::vector<LStmt> &body, const std::function<void(const SymExpr &, bool divisor)> &f) {
  std::function<void(const LExpr &)> visit = [&](const LExpr &e) {
    for (const SymExpr *x : {&e.intValue, &e.offset, &e.lhs, &e.rhs})
      f(*x, false);
    if (e.kind == LExprKind::Binary && (e.op == BinOp::IntDiv || e.op == BinOp::Mod) && e.args.size() == 2) {
      // a divisor that is a dim read as a value, or an integer expression over dims
      const LExpr &d = *e.args[1];
      if (d.kind == LExprKind::Var)
        f(SymExpr::symbol(d.var), true);
      else
        f(d.intValue, true);
    }
    for (const auto &a : e.args)
      visit(*a);
  };
  for (const LStmt &s : body) {
    for (const SymExpr *x : {&s.start, &s.end, &s.step, &s.offset, &s.lhs, &s.rhs})
      f(*x, false);
    if (s.value)
      visit(*s.value);
    forEachInteger(s.body, f);
    forEachInteger(s.orElse, f);
  }
}

// Calls f for e and every divisor inside it (the right side of each floor division and modulus).
void forEachDivisor(const SymExpr &e, const std::function<void(const SymExpr &)> &f) {
  for (const auto &t : e.terms())
    for (const auto &a : t.factors)
      if (a->kind != SymExpr::Atom::Sym) {
        f(a->rhs);
        forEachDivisor(a->lhs, f);
        forEachDivisor(a->rhs, f);
      }
}

std::string literal(int64_t c) {
  if (c == std::numeric_limits<int64_t>::min())
    return "INT64_MIN";
  if (c > 0x7fffffff || c < -0x7fffffff)
    return fmt::format("INT64_C({})", c);
  return std::to_string(c);
}

} // namespace

std::set<Symbol> dimsAllowedZero(const Kernel &k) {
  std::set<Symbol> zero;
  for (const TDim &d : k.dims)
    if (!d.value)
      zero.insert(d.sym);
  auto exclude = [&](const SymExpr &e) {
    for (Symbol s : e.symbols())
      zero.erase(s);
  };
  auto divisors = [&](const SymExpr &e, bool divisor) {
    if (divisor)
      exclude(e);
    forEachDivisor(e, exclude);
  };
  for (const Buffer &b : k.buffers)
    for (const SymExpr &e : b.shape) {
      if (b.role != Buffer::Workspace)
        exclude(e);
      divisors(e, false);
    }
  for (const Guard &g : k.guards) {
    divisors(g.lhs, false);
    divisors(g.rhs, false);
  }
  for (const Region &r : k.stages)
    forEachInteger(r.body, divisors);
  return zero;
}

std::vector<SymExpr> dimExpressions(const Kernel &k) {
  std::set<Symbol> known;
  for (const TDim &d : k.dims)
    known.insert(d.sym);
  for (const ChunkCount &c : k.chunkCounts)
    known.insert(c.sym);
  std::vector<SymExpr> out;
  auto add = [&](const SymExpr &e, bool) {
    if (e.isConstant() || e.asSymbol() || std::find(out.begin(), out.end(), e) != out.end())
      return;
    std::vector<Symbol> symbols = e.symbols();
    if (std::all_of(symbols.begin(), symbols.end(), [&](Symbol s) { return known.count(s) > 0; }))
      out.push_back(e);
  };
  for (const Region &r : k.stages)
    forEachInteger(r.body, add);
  return out;
}

std::string checkedInteger(const SymExpr &e, const std::function<std::string(Symbol)> &name, const std::string &flag) {
  std::function<std::string(const SymExpr &)> print = [&](const SymExpr &x) {
    std::string sum;
    for (const auto &t : x.terms()) {
      std::string term = t.coef == 1 && !t.factors.empty() ? "" : literal(t.coef);
      for (const auto &a : t.factors) {
        std::string factor =
            a->kind == SymExpr::Atom::Sym
                ? name(a->sym)
                : fmt::format("{}({}, {}, &{})",
                              a->kind == SymExpr::Atom::Div ? "moart_floordiv_checked" : "moart_floormod_checked",
                              print(a->lhs), print(a->rhs), flag);
        term = term.empty() ? factor : fmt::format("moart_mul_checked({}, {}, &{})", term, factor, flag);
      }
      sum = sum.empty() ? term : fmt::format("moart_add_checked({}, {}, &{})", sum, term, flag);
    }
    return sum.empty() ? std::string("0") : sum;
  };
  return print(e);
}

} // namespace moac
