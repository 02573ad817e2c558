#include "KernelChecks.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

namespace moac {

namespace {

// Calls f for e and every divisor inside it (the right side of each floor division and modulus).
void forEachDivisor(const SymExpr &e, const std::function<void(const SymExpr &)> &f) {
  for (const auto &t : e.terms())
    for (const auto &a : t.factors)
      if (a->kind == SymExpr::Atom::Load) { // a gather's offset; its bound divides nothing
        forEachDivisor(a->lhs, f);
      } else if (a->kind != SymExpr::Atom::Sym) {
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
    if (!d.value && d.least == 0)
      zero.insert(d.sym);
  // a divisor that may be 0 (t, not t + 1): its dims must be at least 1
  auto exclude = [&](const SymExpr &e) {
    if (signOf(e) == Sign::Positive)
      return;
    for (Symbol s : e.symbols())
      zero.erase(s);
  };
  auto divisors = [&](const SymExpr &e, bool divisor) {
    if (divisor)
      exclude(e);
    forEachDivisor(e, exclude);
  };
  for (const Buffer &b : k.buffers)
    for (const SymExpr &e : b.shape)
      divisors(e, false);
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
    if (e.isConstant() || e.asSymbol() || e.hasLoad() || std::find(out.begin(), out.end(), e) != out.end())
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
        if (a->kind == SymExpr::Atom::Load)
          throw std::logic_error("kernel checks: a gather's load in an expression over dims");
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

namespace {

// The bounds of checkedLoopMagnitudes. For a term c·x·y…, |c|·max(|x|, 1)·max(|y|, 1)… bounds the term
// and every partial product of it in any order of evaluation, so the sum of the bounds of every term of
// every expression (with the largest |c| a term has anywhere) bounds each expression and every partial
// sum of it. ⌊a / b⌋ is at most |a| / |b| + 1 where b's value is known (no loop index in it), else |a|;
// a mod b is at most |b|; computing either computes a and b, whose terms join the sum.
class Magnitudes {
public:
  Magnitudes(const Kernel &k, const std::function<std::string(Symbol)> &name, const std::string &flag)
      : name(name), flag(flag), zero(dimsAllowedZero(k)) {
    for (const TDim &d : k.dims)
      known.insert(d.sym);
    for (const ChunkCount &c : k.chunkCounts)
      known.insert(c.sym);
  }

  bool overLoops(const SymExpr &e) const {
    std::vector<Symbol> symbols = e.symbols();
    return std::any_of(symbols.begin(), symbols.end(), [&](Symbol s) { return loops.count(s) > 0; });
  }

  // A bound of |e|; its terms (and their divisions' operands) join the sum.
  std::string bound(const SymExpr &e) {
    std::string sum;
    for (const auto &t : e.terms()) {
      std::string m = monomial(t);
      uint64_t c = t.coef < 0 ? uint64_t(0) - uint64_t(t.coef) : uint64_t(t.coef);
      auto [it, fresh] = coefficients.emplace(m, c);
      if (fresh)
        order.push_back(m);
      else
        it->second = std::max(it->second, c);
      std::string term = scaled(m, c);
      sum = sum.empty() ? term : fmt::format("moart_add_checked({}, {}, &{})", sum, term, flag);
    }
    return sum.empty() ? std::string("0") : sum;
  }

  // The layout function's statements that sum every term's bound and check the sum.
  std::string sum() const {
    if (order.empty())
      return "";
    std::string out = "  {\n    int64_t moa_magnitude = 0; /* every term of the loops' integer expressions */\n";
    for (const std::string &m : order)
      out += fmt::format("    moa_magnitude = moart_add_checked(moa_magnitude, {}, &{});\n", scaled(m, coefficients.at(m)),
                         flag);
    return out + fmt::format("    (void)moart_magnitude_checked(moa_magnitude, &{});\n  }}\n", flag);
  }

  // A loop index in scope → the local that holds its bound (at least 1).
  std::map<Symbol, std::string> loops;
  // The locals of `loops` that some term's bound mentions (all of the sum's, since every term printed
  // joins it), the only ones the layout function declares.
  std::set<std::string> mentioned;

private:
  std::string scaled(const std::string &monomial, uint64_t c) const {
    if (c > uint64_t(std::numeric_limits<int64_t>::max()))
      return "INT64_MAX"; // |INT64_MIN|, far above the limit of 2^62
    if (monomial == "1" || c == 1)
      return monomial == "1" ? literal(int64_t(c)) : monomial;
    return fmt::format("moart_mul_checked({}, {}, &{})", literal(int64_t(c)), monomial, flag);
  }

  std::string monomial(const SymExpr::Term &t) {
    std::string product;
    for (const auto &a : t.factors) {
      std::string f = atom(*a);
      product = product.empty() ? f : fmt::format("moart_mul_checked({}, {}, &{})", product, f, flag);
    }
    return product.empty() ? std::string("1") : product;
  }

  std::string atom(const SymExpr::Atom &a) {
    if (a.kind == SymExpr::Atom::Load) { // below its bound (checked before any stage); reading it computes its offset
      (void)bound(a.lhs);
      return bound(a.rhs);
    }
    if (a.kind != SymExpr::Atom::Sym) {
      std::string lhs = bound(a.lhs), rhs = bound(a.rhs);
      std::string value = overLoops(a.rhs) ? "" : checkedInteger(a.rhs, name, flag);
      if (a.kind == SymExpr::Atom::Mod)
        return value.empty() ? rhs : fmt::format("moart_magnitude_mod({}, &{})", value, flag);
      return value.empty() ? lhs : fmt::format("moart_magnitude_div({}, {}, &{})", lhs, value, flag);
    }
    if (auto it = loops.find(a.sym); it != loops.end()) {
      mentioned.insert(it->second);
      return it->second;
    }
    if (!known.count(a.sym))
      throw std::logic_error(fmt::format("kernel checks: {} is neither a dim, a chunk count nor a loop index in scope",
                                         a.sym.name()));
    // dims are at least 1 here (the range check comes first), except those allowed to be 0
    return zero.count(a.sym) ? fmt::format("moart_magnitude_max({}, 1)", name(a.sym)) : name(a.sym);
  }

  const std::function<std::string(Symbol)> &name;
  const std::string &flag;
  std::set<Symbol> zero, known;
  std::vector<std::string> order;                // the terms' bounds, first seen first
  std::map<std::string, uint64_t> coefficients; // a term's bound → its largest |coefficient|
};

} // namespace

std::string checkedLoopMagnitudes(const Kernel &k, const std::function<std::string(Symbol)> &name,
                                  const std::string &flag) {
  Magnitudes magnitudes(k, name, flag);
  std::map<std::string, std::string> locals; // a loop bound's text → the local that holds it
  std::vector<std::pair<std::string, std::string>> declarations; // (local, its declaration), in order
  std::function<void(const std::vector<LStmt> &)> walk = [&](const std::vector<LStmt> &body) {
    for (const LStmt &s : body) {
      forEachOwnInteger(s, [&](const SymExpr &e, bool) {
        if (magnitudes.overLoops(e)) // over dims alone: dimExpressions
          (void)magnitudes.bound(e);
      });
      if (s.kind == LStmt::Loop) {
        // the index runs from start to below end; its last value, the one that ends the loop, is below
        // end + step
        // (bound() adds to the sum: one statement each, so the order of the terms is the same with every
        // C++ compiler, whose order of evaluating a call's arguments is unspecified)
        std::string start = magnitudes.bound(s.start);
        std::string end = magnitudes.bound(s.end);
        std::string step = magnitudes.bound(s.step);
        std::string bound = fmt::format("moart_magnitude_max(moart_magnitude_checked(moart_magnitude_max({}, "
                                        "moart_add_checked({}, {}, &{})), &{}), 1)",
                                        start, end, step, flag, flag);
        auto [local, fresh] = locals.emplace(bound, fmt::format("moa_bound{}", locals.size()));
        if (fresh)
          declarations.emplace_back(local->second,
                                    fmt::format("  const int64_t {} = {}; /* {} */\n", local->second, bound, s.var.name()));
        std::optional<std::string> hidden;
        if (auto outer = magnitudes.loops.find(s.var); outer != magnitudes.loops.end())
          hidden = outer->second;
        magnitudes.loops[s.var] = local->second;
        walk(s.body);
        if (hidden)
          magnitudes.loops[s.var] = *hidden;
        else
          magnitudes.loops.erase(s.var);
      } else {
        walk(s.body);
      }
      walk(s.orElse);
    }
  };
  for (const Region &r : k.stages)
    walk(r.body);
  // a bound mentions only outer loops' bounds, through terms of its start and end, which the sum has too
  std::string out;
  for (const auto &[local, declaration] : declarations)
    if (magnitudes.mentioned.count(local))
      out += declaration;
  return out + magnitudes.sum();
}

} // namespace moac
