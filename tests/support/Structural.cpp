// The structural productions of the generator, the operators that only move indices (Psi.cpp's
// reduceStructural): ψ, tran, <p> tran, take, drop, cat, reshape, rav, iota and rho. Each picks the
// shape its operand must have for the result to have shape s.
#include "GeneratorImpl.h"

#include <algorithm>
#include <cctype>

namespace moac::testgen::detail {

// Digits only: `-` written before it makes a negative literal (before a name it is a negation).
static bool isLiteral(const std::string &text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// <i …> psi A: A has shape prefix ++ s; a partial index when s is not a scalar.
std::optional<Expr> Generator::psi(const Shape &s, Scope &scope, int depth) {
  // Often a selection from a name in scope (a stored binding, an input, a parameter) whose trailing
  // extents are s.
  std::vector<const Value *> named;
  for (const std::vector<Value> *values : {&scope.values, &inputs})
    for (const Value &v : *values)
      if (!isGeneric(v.shape) && v.shape.size() > s.size() && std::equal(s.rbegin(), s.rend(), v.shape.rbegin()))
        named.push_back(&v);
  if (!s.empty() && rng.chance(3)) {
    Expr a = gen(s, scope, depth - 1);
    note("psi-empty-index");
    return Expr{"<> psi " + operand(a), false, a.bound, a.isInt};
  }
  if (!named.empty() && rng.chance(50)) {
    const Value &v = *rng.pick(named);
    note(s.empty() ? "psi-full" : "psi-partial");
    std::string idx = indexVector(slice(v.shape, 0, v.shape.size() - s.size()), scope);
    return Expr{idx + " psi " + v.name, false, v.bound, v.isInt};
  }
  size_t k = size_t(rng.range(1, int64_t(3 - s.size())));
  Shape prefix;
  for (size_t n = 0; n < k; ++n)
    prefix.push_back(!scope.indices.empty() && rng.chance(60) ? rng.pick(scope.indices).extent : pickExtent());
  if (!fits(concat(prefix, s)))
    return std::nullopt;
  Expr a = gen(concat(prefix, s), scope, depth - 1);
  note(s.empty() ? "psi-full" : "psi-partial");
  std::string idx = indexVector(prefix, scope);
  return Expr{idx + (unicode() ? " ψ " : " psi ") + operand(a), false, a.bound, a.isInt};
}

// tran A reverses the axes.
std::optional<Expr> Generator::tran(const Shape &s, Scope &scope, int depth) {
  Expr a = gen(Shape(s.rbegin(), s.rend()), scope, depth - 1);
  note(s.size() >= 2 ? "tran" : "tran-low-rank");
  return Expr{(unicode() ? "⍉" : "tran ") + operand(a), false, a.bound, a.isInt};
}

// <p> tran A: result axis p_k has the extent of A's axis k, so A's axis k is s[p_k].
std::optional<Expr> Generator::perm(const Shape &s, Scope &scope, int depth) {
  std::vector<size_t> p(s.size());
  for (size_t k = 0; k < p.size(); ++k)
    p[k] = k;
  rng.shuffle(p);
  Shape as;
  std::string text = "<";
  for (size_t k = 0; k < p.size(); ++k) {
    as.push_back(s[p[k]]);
    text += (k ? " " : "") + std::to_string(p[k]);
  }
  Expr a = gen(as, scope, depth - 1);
  note(s.size() == 3 ? "perm-tran-rank3" : "perm-tran");
  return Expr{text + "> tran " + operand(a), false, a.bound, a.isInt};
}

// k take A (k ≥ 0 from the front, k < 0 from the back): s[0] = |k|, A has ⟨s[0] + δ⟩ ++ tail.
// k drop A: A has ⟨s[0] + |k|⟩ ++ tail.
std::optional<Expr> Generator::takeDrop(bool take, const Shape &s, Scope &scope, int depth) {
  const Extent &lead = s[0];
  bool negative = rng.chance(45);
  Extent delta;
  std::string count;
  Extent operandLead;
  if (take) {
    if (!lead.provablyPositive())
      return std::nullopt;
    switch (rng.weighted({4, 3, 2})) {
    case 0: delta = Extent::constant(0); break; // take all of it
    case 1: delta = Extent::constant(rng.range(1, 2)); break;
    default: delta = Extent::dim(int(rng.below(dimNames.size()))); break;
    }
    operandLead = lead + delta;
    // A guard: the count is a constant and A's leading extent a dim that must be at least that large.
    if (rng.chance(25) && lead.isConstant() && lead.constantPart() <= 3) {
      Extent d = Extent::dim(int(rng.below(dimNames.size())));
      if (atLeast(d, lead.constantPart())) {
        operandLead = d;
        note("take-guard");
      }
    }
    std::string k = ext(lead);
    if (!negative)
      count = lead.atomic() ? k : "(" + k + ")";
    else if (isLiteral(k) && rng.chance(70))
      count = "-" + k; // a negative literal: -2 take A (but -B take A is -(B take A))
    else
      count = "(-" + (lead.atomic() ? k : "(" + k + ")") + ")";
  } else {
    switch (rng.weighted({4, 2, 1})) {
    case 0: delta = Extent::constant(rng.range(1, 2)); break;
    case 1: delta = Extent::dim(int(rng.below(dimNames.size()))); break;
    default: delta = Extent::constant(0); break;
    }
    operandLead = lead + delta;
    std::string k = ext(delta);
    if (!negative || delta.terms.empty())
      count = k;
    else if (isLiteral(k))
      count = "-" + k;
    else
      count = "(-" + k + ")";
  }
  Shape as = s;
  as[0] = operandLead;
  if (!fits(as))
    return std::nullopt;
  Expr a = gen(as, scope, depth - 1);
  note(std::string(take ? "take" : "drop") + (negative ? "-negative" : "-positive"));
  const char *word = take ? (unicode() ? " ↑ " : " take ") : (unicode() ? " ↓ " : " drop ");
  return Expr{count + word + operand(a), false, a.bound, a.isInt};
}

// A cat B along the leading axis: s[0] = a₀ + b₀, or one operand is a single item (the row append).
std::optional<Expr> Generator::cat(const Shape &s, Scope &scope, int depth) {
  const Extent &lead = s[0];
  std::vector<std::pair<Extent, Extent>> splits;
  int64_t c = lead.constantPart();
  for (int64_t k = 1; k < c; ++k)
    splits.emplace_back(Extent::constant(k), lead - Extent::constant(k));
  if (lead.terms.size() >= 2)
    for (const auto &[mono, coef] : lead.terms) {
      Extent one;
      one.terms[mono] = coef;
      if (one.provablyPositive() && (lead - one).provablyPositive())
        splits.emplace_back(one, lead - one);
    }
  for (const auto &[mono, coef] : lead.terms)
    if (!mono.empty() && coef >= 2) {
      Extent one;
      one.terms[mono] = 1;
      if ((lead - one).provablyPositive()) // 2*n - 2 = n + (n - 2), and n - 2 may be 0
        splits.emplace_back(one, lead - one);
    }
  if (splits.empty())
    return std::nullopt;
  if (rng.chance(4))
    splits = {{Extent::constant(0), lead}}; // an empty operand: 0 take A
  auto [ea, eb] = rng.pick(splits);
  if (rng.chance(50))
    std::swap(ea, eb);
  Shape tail = slice(s, 1, s.size());
  // At most one operand is an item: two items of rank r would be joined as rank-r arrays.
  bool itemA = ea == Extent::constant(1) && rng.chance(70);
  bool itemB = !itemA && eb == Extent::constant(1) && rng.chance(70);
  if (itemA || itemB)
    note(tail.empty() ? "cat-scalar-item" : "cat-row-append");
  auto part = [&](const Extent &e, bool item) {
    if (e.terms.empty()) {
      note("empty-array");
      Expr x = gen(concat({pickExtent()}, tail), scope, depth - 1);
      return Expr{"0 take " + operand(x), false, x.bound, x.isInt};
    }
    return gen(item ? tail : concat({e}, tail), scope, depth - 1);
  };
  Expr a = part(ea, itemA), b = part(eb, itemB);
  note("cat");
  const char *word = rng.pick({" cat ", " cat ", " ++ ", " ⧺ "});
  return Expr{operand(a) + word + operand(b), false, std::max(a.bound, b.bound), a.isInt && b.isInt};
}

// A shape with the same element count as s, symbolically: the monomial extents' factors (primes of the
// coefficients, dims) regrouped into one to three extents; other extents stay whole.
std::optional<Shape> Generator::regroup(const Shape &s) {
  std::vector<Extent> factors;
  for (const Extent &e : s) {
    if (!e.isMonomial()) {
      factors.push_back(e);
      continue;
    }
    std::vector<int64_t> primes;
    std::vector<int> dims;
    e.factors(primes, dims);
    for (int64_t p : primes)
      factors.push_back(Extent::constant(p));
    for (int d : dims)
      factors.push_back(Extent::dim(d));
  }
  if (factors.empty())
    factors.push_back(Extent::constant(1));
  rng.shuffle(factors);
  size_t groups = size_t(rng.range(1, int64_t(std::min<size_t>(3, factors.size()))));
  Shape out(groups, Extent::constant(1));
  for (size_t k = 0; k < factors.size(); ++k) {
    size_t g = k < groups ? k : rng.below(groups);
    out[g] = out[g] * factors[k];
  }
  if (rng.chance(15) && out.size() < 3)
    out.insert(out.begin() + long(rng.below(out.size() + 1)), Extent::constant(1));
  return fits(out) ? std::optional(out) : std::nullopt;
}

// <s> reshape A: A's shape has the same symbolic element count; sometimes s is written (rho V).
std::optional<Expr> Generator::reshape(const Shape &s, Scope &scope, int depth) {
  if (s.empty()) {
    // to a scalar, from a one-element array; the empty shape written <> or as rho of a scalar
    Expr a = gen(Shape(size_t(rng.range(1, 2)), Extent::constant(1)), scope, depth - 1);
    std::string shape = "<>";
    for (const Value &v : inputs)
      if (v.shape.empty() && rng.chance(50))
        shape = "(rho " + v.name + ")";
    note("reshape-scalar");
    return Expr{shape + " reshape " + operand(a), false, a.bound, a.isInt};
  }
  auto as = regroup(s);
  if (!as)
    return std::nullopt;
  Expr a = gen(*as, scope, depth - 1);
  std::string shape;
  for (const Value &v : inputs)
    if (v.shape == s && rng.chance(30)) {
      note("reshape-rho");
      shape = "(rho " + v.name + ")";
      break;
    }
  if (shape.empty()) {
    bool spaces = std::all_of(s.begin(), s.end(), [](const Extent &e) { return e.atomic(); }) && rng.chance(50);
    shape = "<";
    for (size_t k = 0; k < s.size(); ++k)
      shape += (k ? (spaces ? " " : ", ") : "") + ext(s[k]);
    shape += ">";
  }
  note("reshape");
  return Expr{shape + " reshape " + operand(a), false, a.bound, a.isInt};
}

std::optional<Expr> Generator::rav(const Shape &s, Scope &scope, int depth) {
  auto as = regroup(s);
  if (!as)
    return std::nullopt;
  if (s[0] == Extent::constant(1) && rng.chance(50))
    as = Shape{}; // rav of a scalar is ⟨1⟩
  Expr a = gen(*as, scope, depth - 1);
  note("rav");
  return Expr{"rav " + operand(a), false, a.bound, a.isInt};
}

// iota e (an integer vector) in arithmetic; e written directly or read back from rho.
std::optional<Expr> Generator::iota(const Shape &s) {
  const Extent &e = s[0];
  if (!e.provablyPositive())
    return std::nullopt;
  std::string count = extOperand(e);
  for (const Value &v : inputs)
    for (size_t k = 0; k < v.shape.size(); ++k)
      if (v.shape[k] == e && rng.chance(25)) {
        count = "(<" + std::to_string(k) + "> psi rho " + v.name + ")";
        note("iota-of-rho");
      }
  note("iota");
  Expr i{(unicode() ? "ι " : "iota ") + count, false, double(maxOf(e) - 1), true};
  if (rng.chance(50))
    return i;
  const Literal &l = rng.pick(literals());
  return Expr{operand(i) + " * " + l.text, false, i.bound * l.value, false};
}

// rho A for A of rank s[0] (1 to 3): an integer vector of A's extents.
std::optional<Expr> Generator::rho(const Shape &s, Scope &scope, int depth) {
  if (!s[0].isConstant() || s[0].constantPart() < 1 || s[0].constantPart() > 3)
    return std::nullopt;
  Shape as = randomShape(size_t(s[0].constantPart()));
  Expr a = gen(as, scope, std::min(depth - 1, 1));
  double bound = 1;
  for (const Extent &e : as)
    bound = std::max(bound, double(maxOf(e)));
  note("rho");
  return Expr{(unicode() ? "ρ " : "rho ") + operand(a), false, bound, true};
}

} // namespace moac::testgen::detail
