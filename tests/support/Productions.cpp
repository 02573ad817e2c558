// The expression productions of the generator, type-directed: gen(s) returns an expression of shape s,
// choosing an operator that can produce s and generating its operands at the shapes the operator's
// shape rule (docs/language.md §5) requires of them. Here: leaves, index vectors (in range by
// construction, from the comprehension indices in scope, literals and dims), the arithmetic operators,
// comprehensions, vectors, calls and the bodies of shape-polymorphic functions; the operators that only
// move indices are in Structural.cpp.
#include "GeneratorImpl.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace moac::testgen::detail {

const std::vector<Literal> &literals() {
  static const std::vector<Literal> all = {{"0.5", 0.5}, {"1.5", 1.5}, {"2.0", 2.0}, {"0.25", 0.25},
                                           {"3", 3},     {"1", 1},     {"2.5e-1", 0.25}, {"-0.75", 0.75}};
  return all;
}

Expr Generator::clamp(const Expr &e, double limit) {
  char c[32];
  std::snprintf(c, sizeof c, "%.1f", limit); // 0.5, 2.0: a float literal
  return Expr{operand(e) + " max -" + std::string(c) + " min " + c, false, limit, false};
}

// ---- leaves ----------------------------------------------------------------------------------------

// A scalar: a literal, a dim, index arithmetic, a full ψ-selection of an array in scope, or an extent
// read back with ψ from rho.
Expr Generator::scalarLeaf(Scope &scope) {
  std::vector<const Value *> arrays, scalars;
  for (const Value &v : scope.values)
    if (!isGeneric(v.shape))
      (v.shape.empty() ? scalars : arrays).push_back(&v);
  for (const Value &v : inputs)
    (v.shape.empty() ? scalars : arrays).push_back(&v);
  size_t kind = rng.weighted({4, 2, scope.indices.empty() ? 0u : 5u, arrays.empty() ? 0u : 6u,
                              arrays.empty() ? 0u : 1u, scalars.empty() ? 0u : 5u});
  switch (kind) {
  case 0: {
    const Literal &l = rng.pick(literals());
    return Expr{l.text, l.text[0] != '-', l.value, std::string(l.text).find_first_of(".e") == std::string::npos};
  }
  case 1: {
    if (!fixedDims.empty() && rng.chance(30)) {
      const auto &[name, value] = rng.pick(fixedDims);
      return Expr{name, true, double(value), true};
    }
    size_t d = rng.below(dimNames.size());
    note("dim-value");
    if (rng.chance(30))
      return Expr{"sqrt " + dimNames[d], false, std::sqrt(double(opt.maxDim)), false};
    return Expr{dimNames[d], true, double(opt.maxDim), true};
  }
  case 2: {
    note("index-arithmetic");
    const Index &i = rng.pick(scope.indices);
    double b = double(maxOf(i.extent));
    switch (rng.below(5)) {
    case 0: return Expr{i.name, true, b, true};
    case 1: return Expr{i.name + " + 1", false, b + 1, true};
    case 2: {
      const Index &j = rng.pick(scope.indices);
      return Expr{i.name + " * " + j.name, false, b * double(maxOf(j.extent)), true};
    }
    case 3:
      if (rng.chance(50))
        return Expr{"(" + i.name + " - 2) mod 3", false, 2, true};
      return Expr{"(" + i.name + " - " + ext(i.extent) + ") div 2", false, b, true};
    default: return Expr{ext(i.extent) + " - " + i.name, false, b, true};
    }
  }
  case 3: {
    const Value &v = *rng.pick(arrays);
    note("psi-full");
    return Expr{indexVector(v.shape, scope) + " psi " + v.name, false, v.bound, v.isInt};
  }
  case 4: {
    const Value &v = *rng.pick(arrays);
    size_t k = rng.below(v.shape.size());
    note("rho");
    return Expr{"<" + std::to_string(k) + "> psi rho " + v.name, false, double(maxOf(v.shape[k])), true};
  }
  default: {
    const Value &v = *rng.pick(scalars);
    return Expr{v.name, true, v.bound, v.isInt};
  }
  }
}

// An expression of shape s without operators where possible: a name in scope, or a new input.
Expr Generator::leaf(const Shape &s, Scope &scope) {
  if (s.empty() && rng.chance(60))
    return scalarLeaf(scope);
  std::vector<const Value *> matches;
  for (const Value &v : scope.values)
    if (v.shape == s)
      matches.push_back(&v);
  for (const Value &v : inputs)
    if (v.shape == s)
      matches.push_back(&v);
  if (!matches.empty() && (rng.chance(75) || inputs.size() >= 8)) {
    const Value &v = *rng.pick(matches);
    return Expr{v.name, true, v.bound, v.isInt};
  }
  if (s.empty() && rng.chance(60))
    return scalarLeaf(scope);
  if (auto v = newInput(s))
    return Expr{v->name, true, v->bound, false};
  if (s.empty())
    return scalarLeaf(scope);
  // No input can have this shape (an extent like n - 1), or there are enough inputs: a comprehension
  // over the extents whose body is a scalar.
  Scope inner = scope;
  std::string binders;
  for (const Extent &e : s) {
    Index i{freshIndex(), e};
    binders += (binders.empty() ? "" : ", ") + i.name + " < " + ext(e);
    inner.indices.push_back(i);
  }
  Expr body = scalarLeaf(inner);
  note("comprehension");
  return Expr{"[" + binders + "] " + body.text, false, body.bound, body.isInt};
}

// ---- index vectors ---------------------------------------------------------------------------------

// An integer expression in [0, e) for every value of the indices in scope, provably so (the shape
// checker's interval arithmetic sees it), or with a guard that the chosen dims satisfy.
std::string Generator::indexFor(const Extent &e, Scope &scope, bool &simple) {
  if (rng.chance(6))
    if (auto g = gather(e, scope)) {
      simple = false;
      return *g;
    }
  struct Option {
    unsigned weight;
    std::string text;
    bool simple;
  };
  std::vector<Option> options{{3, "0", true}, {1, ext(e - Extent::constant(1)), (e - Extent::constant(1)).atomic()}};
  if (minOf(e) >= 2 || rng.chance(30))
    options.push_back({1, "1", true});
  for (const Index &i : scope.indices) {
    if (i.extent == e) {
      options.push_back({10, i.name, true});
      options.push_back({2, ext(e - Extent::constant(1)) + " - " + i.name, false});
    } else if ((e - i.extent).provablyNonNegative()) {
      options.push_back({3, i.name, true});
    }
    options.push_back({2, i.name + " mod " + extOperand(e), false});
    options.push_back({1, "(" + i.name + " + 1) mod " + extOperand(e), false});
    options.push_back({1, "(" + i.name + " - 2) mod " + extOperand(e), false}); // a negative dividend
    if (i.extent.provablyPositive())
      options.push_back({2, i.name + " * " + extOperand(e) + " div " + extOperand(i.extent), false});
  }
  std::vector<unsigned> weights;
  for (const Option &o : options)
    weights.push_back(o.weight);
  const Option &o = options[rng.weighted(weights)];
  if (o.text == "1" && !atLeast(e, 2)) {
    simple = true;
    return "0";
  }
  if (o.text.find(" div ") != std::string::npos)
    note("index-div");
  simple = o.simple;
  return o.text;
}

// A gather (docs/language.md §7): an element of an integer input, indexed by indices in scope or by 0.
// Its values are data; moac check and the property tests fill an index array with values folded into
// the least extent it indexes, so e must be positive for the chosen dims.
std::optional<std::string> Generator::gather(const Extent &e, Scope &scope) {
  if (!e.provablyPositive())
    return std::nullopt;
  std::vector<const Index *> usable;
  for (const Index &i : scope.indices)
    if (i.extent.provablyPositive())
      usable.push_back(&i);
  Shape shape;
  std::vector<std::string> at;
  if (!usable.empty() && rng.chance(80)) {
    const Index &i = *rng.pick(usable);
    shape.push_back(i.extent);
    at.push_back(i.name);
    const Index &j = *rng.pick(usable);
    if (&j != &i && rng.chance(30)) { // a table: g[b, j]
      shape.push_back(j.extent);
      at.push_back(j.name);
    }
  } else {
    shape.push_back(pickExtent());
    if (!shape[0].provablyPositive())
      return std::nullopt;
    at.push_back("0");
  }
  std::string name;
  for (const Value &g : indexInputs)
    if (g.shape == shape && rng.chance(70))
      name = g.name;
  if (name.empty()) {
    if (indexInputs.size() >= 3)
      return std::nullopt;
    name = "g" + std::to_string(indexInputs.size() + 1);
    std::string decl = "in " + name + " : " + (rng.chance(50) ? "i32" : "i64") + "[";
    for (size_t k = 0; k < shape.size(); ++k)
      decl += (k ? ", " : "") + ext(shape[k]);
    inputDecls.push_back(decl + "]");
    indexInputs.push_back(Value{name, shape, double(opt.maxDim), true});
  }
  note(shape.size() == 2 ? "gather-table" : "gather");
  std::string text = name + "[";
  for (size_t k = 0; k < at.size(); ++k)
    text += (k ? ", " : "") + at[k];
  return text + "]";
}

std::string Generator::indexVector(const Shape &prefix, Scope &scope) {
  std::vector<std::string> parts;
  bool allSimple = true;
  for (const Extent &e : prefix) {
    bool simple = false;
    parts.push_back(indexFor(e, scope, simple));
    allSimple = allSimple && simple;
  }
  if (parts.size() == 1 && rng.chance(25)) {
    note("psi-scalar-index");
    return allSimple ? parts[0] : "(" + parts[0] + ")";
  }
  bool spaces = allSimple && rng.chance(60);
  std::string out = "<";
  for (size_t k = 0; k < parts.size(); ++k)
    out += (k ? (spaces ? " " : ", ") : "") + parts[k];
  return out + ">";
}

// ---- the productions -------------------------------------------------------------------------------

Expr Generator::gen(const Shape &s, Scope &scope, int depth) {
  if (depth > 0) {
    size_t r = s.size();
    bool indices = !scope.indices.empty();
    std::vector<unsigned> weights(size_t(Prod::Count), 0);
    auto w = [&](Prod p, unsigned value) { weights[size_t(p)] = value; };
    w(Prod::Leaf, 4);
    w(Prod::Elementwise, 14);
    w(Prod::Unary, 6);
    w(Prod::Reduce, r <= 2 ? 8 : 0);
    w(Prod::Inner, r <= 2 ? 7 : 0);
    w(Prod::Outer, r >= 1 ? 5 : 1);
    w(Prod::Psi, r <= 2 ? (indices ? 16 : 8) : 0);
    w(Prod::Tran, r >= 2 ? 5 : 1);
    w(Prod::Perm, r >= 2 ? 5 : 0);
    w(Prod::Take, r >= 1 ? 5 : 0);
    w(Prod::Drop, r >= 1 ? 5 : 0);
    w(Prod::Cat, r >= 1 ? 7 : 0);
    w(Prod::Reshape, r >= 1 ? 5 : 1);
    w(Prod::Rav, r == 1 ? 4 : 0);
    w(Prod::Iota, r == 1 ? 3 : 0);
    w(Prod::Rho, r == 1 ? 2 : 0);
    w(Prod::Comprehension, r >= 1 ? 8 : 0);
    w(Prod::Call, 6);
    w(Prod::Vector, r == 1 && s[0].isConstant() && s[0].constantPart() <= 4 ? 4 : 0);
    w(Prod::Where, 5);
    w(Prod::Compare, 2);
    w(Prod::Zero, zeroDim && r <= 2 ? 4 : 0);
    for (int attempt = 0; attempt < 6; ++attempt)
      if (auto e = produce(Prod(rng.weighted(weights)), s, scope, depth))
        return e->bound > clampAbove ? clamp(*e, clampTo) : *e;
  }
  return leaf(s, scope);
}

std::optional<Expr> Generator::produce(Prod p, const Shape &s, Scope &scope, int depth) {
  switch (p) {
  case Prod::Leaf: return leaf(s, scope);
  case Prod::Elementwise: return elementwise(s, scope, depth);
  case Prod::Unary: return unary(s, scope, depth);
  case Prod::Reduce: return reduce(s, scope, depth);
  case Prod::Inner: return inner(s, scope, depth);
  case Prod::Outer: return outer(s, scope, depth);
  case Prod::Psi: return psi(s, scope, depth);
  case Prod::Tran: return tran(s, scope, depth);
  case Prod::Perm: return perm(s, scope, depth);
  case Prod::Take: return takeDrop(true, s, scope, depth);
  case Prod::Drop: return takeDrop(false, s, scope, depth);
  case Prod::Cat: return cat(s, scope, depth);
  case Prod::Reshape: return reshape(s, scope, depth);
  case Prod::Rav: return rav(s, scope, depth);
  case Prod::Iota: return iota(s);
  case Prod::Rho: return rho(s, scope, depth);
  case Prod::Comprehension: return comprehension(s, scope, depth);
  case Prod::Vector: return vector(s, scope, depth);
  case Prod::Call: return call(s, scope, depth);
  case Prod::Where: return where(s, scope, depth);
  case Prod::Zero: return zero(s, scope, depth);
  case Prod::Compare:
    note("compare-value");
    return Expr{"(" + condition(s, scope, depth, true) + ")", true, 1, true};
  case Prod::Count: break;
  }
  return std::nullopt;
}

// a op b with equal shapes, or with one side a scalar (scalar extension). Division is always by
// abs(y) + c, so never by zero.
std::optional<Expr> Generator::elementwise(const Shape &s, Scope &scope, int depth) {
  bool extend = !s.empty() && rng.chance(35);
  bool scalarLeft = extend && rng.chance(40);
  Expr a = gen(scalarLeft ? Shape{} : s, scope, depth - 1);
  Expr b = gen(extend && !scalarLeft ? Shape{} : s, scope, depth - 1);
  if (extend)
    note("scalar-extension");
  bool ints = a.isInt && b.isInt;
  switch (rng.weighted({5, 4, 4, 3, 2, 2, 1})) {
  case 6: { // a positive base (abs a + 1) and an exponent in [-2, 2]: bounded by (|a| + 1)^2
    note("op-pow");
    Expr e{"pow(abs " + operand(a) + " + 1.0, " + operand(b) + " max -2.0 min 2.0)", false, 0, false};
    e.bound = std::pow(a.bound + 1.0, 2.0);
    return e;
  }
  case 0: note("op+"); return Expr{operand(a) + " + " + operand(b), false, a.bound + b.bound, ints};
  case 1: note("op-"); return Expr{operand(a) + " - " + operand(b), false, a.bound + b.bound, ints};
  case 2:
    note("op*");
    return Expr{operand(a) + (unicode() ? " × " : " * ") + operand(b), false, a.bound * b.bound, ints};
  case 3: {
    note("op/");
    std::string c = rng.pick({"1.0", "1", "0.5"});
    double lower = c == std::string("0.5") ? 0.5 : 1.0;
    return Expr{operand(a) + (unicode() ? " ÷ " : " / ") + "(abs " + operand(b) + " + " + c + ")", false,
                a.bound / lower, false};
  }
  default: {
    bool isMax = rng.chance(50);
    note(isMax ? "op-max" : "op-min");
    const char *op = isMax ? "max" : "min";
    double bound = std::max(a.bound, b.bound);
    if (rng.chance(40))
      return Expr{std::string(op) + "(" + a.text + ", " + b.text + ")", true, bound, ints};
    return Expr{operand(a) + " " + op + " " + operand(b), false, bound, ints};
  }
  }
}

// One comparison of shape s or a scalar: of the comprehension indices in scope (a causal mask, j <= i),
// or of leaves (reads, literals, dims, index arithmetic: exact values, so that a kernel and the
// reference never decide a tie differently; compared values from a reduction could be reassociated).
std::string Generator::comparison(const Shape &s, Scope &scope, bool exact) {
  const char *op = rng.pick({" < ", " <= ", " > ", " >= ", " == ", " != "});
  if (!scope.indices.empty() && (s.empty() || !exact) && rng.chance(50)) {
    note("compare-index");
    const Index &i = rng.pick(scope.indices), &j = rng.pick(scope.indices);
    if (rng.chance(30))
      return i.name + op + rng.pick({"0", "1", "2"});
    return i.name + op + j.name;
  }
  note("compare-data");
  Shape shape = s.empty() || (!exact && rng.chance(30)) ? Shape{} : s;
  Expr a = leaf(shape, scope), b = rng.chance(50) ? leaf(shape, scope) : scalarLeaf(scope);
  return operand(a) + op + operand(b);
}

// A condition: a comparison, or comparisons joined by `and`, `or`, `not`; of shape s when `exact`, else
// of shape s or a scalar (one operand of `and` and `or` always has shape s then).
std::string Generator::condition(const Shape &s, Scope &scope, int depth, bool exact) {
  switch (rng.weighted({6, 2, 2, 1})) {
  case 1: { // the operands in order: the two draws are sequenced (+'s operands are not), as on every compiler
    note("logic-and");
    std::string a = comparison(s, scope, exact);
    std::string b = comparison(s, scope, false);
    return "(" + a + ") and (" + b + ")";
  }
  case 2: {
    note("logic-or");
    std::string a = comparison(s, scope, false);
    std::string b = comparison(s, scope, exact);
    return "(" + a + ") or (" + b + ")";
  }
  case 3: note("logic-not"); return "not (" + condition(s, scope, depth - 1, exact) + ")";
  default: return comparison(s, scope, exact);
  }
}

// where(c, a, b): a and b of shape s (one of them a scalar at times), c a condition of shape s or a
// scalar. At times b is `-inf`, a mask, with the result clamped back below (so no infinity reaches a
// later operator: −∞ + ∞ would be NaN).
std::optional<Expr> Generator::where(const Shape &s, Scope &scope, int depth) {
  bool scalarElse = !s.empty() && rng.chance(30);
  Expr a = gen(s, scope, depth - 1);
  std::string c = condition(s, scope, depth, false);
  if (scalarElse && a.bound <= clampAbove && rng.chance(30)) {
    note("where-inf");
    return clamp(Expr{"where(" + c + ", " + a.text + ", -inf)", true, a.bound, false}, std::ceil(a.bound) + 1);
  }
  Expr b = gen(scalarElse ? Shape{} : s, scope, depth - 1);
  note("where");
  return Expr{"where(" + c + ", " + a.text + ", " + b.text + ")", true, std::max(a.bound, b.bound), a.isInt && b.isInt};
}

// A reduction over an axis of extent z, a dim declared `>= 0`: of a comprehension [iz < z] e, of an input
// ⟨z⟩ ++ s, or of z rows of an array ⟨d⟩ ++ s (z take, (-z) take, (d - z) drop) under `assume z <= d`. At
// z = 0 each is the identity: + and − only (0), or * of terms in [-1, 1] (1), never max or min (∓inf).
std::optional<Expr> Generator::zero(const Shape &s, Scope &scope, int depth) {
  const size_t form = rng.below(3);
  std::string operandText;
  double bound = 1, n = double(opt.maxDim);
  bool isInt = false;
  if (form == 0) {
    note("zero-comprehension");
    Expr e = gen(s, scope, depth - 1);
    operandText = "[" + freshIndex() + " < z] " + operand(e);
    bound = e.bound;
    isInt = e.isInt;
  } else if (form == 1) {
    Shape rows = concat({Extent::dim(int(rng.below(dimNames.size())))}, s);
    if (!fits(rows))
      return std::nullopt;
    const std::string d = dimNames[size_t(rows[0].terms.begin()->first[0])];
    Expr a = gen(rows, scope, depth - 1);
    note("zero-take");
    operandText = rng.pick<std::string>({"z take ", "(-z) take ", "(" + d + " - z) drop "}) + operand(a);
    if (std::find(zeroBounds.begin(), zeroBounds.end(), d) == zeroBounds.end())
      zeroBounds.push_back(d);
    note("assume");
    bound = a.bound;
    isInt = a.isInt;
  } else {
    if (zeroInputs >= 2 || !fits(concat({Extent::constant(opt.maxDim)}, s)))
      return std::nullopt;
    note("zero-input");
    // not among `inputs`: no other production knows an extent z
    std::string name = "xz" + std::to_string(++zeroInputs), decl = "in " + name + " : f32[z";
    for (const Extent &e : s)
      decl += ", " + ext(e);
    inputDecls.push_back(decl + "]");
    operandText = name;
  }
  switch (rng.below(3)) {
  case 0: return Expr{"+/ " + operandText, false, n * bound, isInt};
  case 1: return Expr{(unicode() ? "−/ " : "-/ ") + operandText, false, n * bound, isInt};
  default:
    if (bound > 1)
      return Expr{"*/ ((" + operandText + ") max -1.0 min 1.0)", false, 1, false};
    return Expr{"*/ " + operandText, false, 1, isInt};
  }
}

std::optional<Expr> Generator::unary(const Shape &s, Scope &scope, int depth) {
  Expr a = gen(s, scope, depth - 1);
  switch (rng.weighted({3, 2, 3, 2, 2, 3})) {
  case 5: { // the bounded functions, and exp2/log2 as exp/log
    switch (rng.below(6)) {
    case 0: note("unary-tanh"); return Expr{"tanh " + operand(a), false, 1, false};
    case 1: note("unary-sin"); return Expr{"sin " + operand(a), false, 1, false};
    case 2: note("unary-cos"); return Expr{"cos(" + a.text + ")", true, 1, false};
    case 3: note("unary-sigmoid"); return Expr{"sigmoid " + operand(a), false, 1, false};
    case 4:
      note("unary-exp2");
      return Expr{"exp2 (" + operand(a) + " min 2.0)", false, 4, false};
    default:
      note("unary-log2");
      return Expr{"log2 (abs " + operand(a) + " + 1.0)", false, std::log2(a.bound + 1.0) + 1e-9, false};
    }
  }
  case 0: {
    note("unary-neg");
    const char *form = rng.pick({"-", "neg ", "- "});
    return Expr{form + operand(a), false, a.bound, a.isInt};
  }
  case 1: note("unary-abs"); return Expr{"abs " + operand(a), false, a.bound, a.isInt};
  case 2:
    note("unary-exp");
    if (a.bound <= 3)
      return Expr{"exp " + operand(a), false, std::exp(a.bound), false};
    return Expr{"exp (" + operand(a) + " min 2.0)", false, std::exp(2.0), false};
  case 3:
    note("unary-log");
    return Expr{"log (abs " + operand(a) + " + 1.0)", false, std::log(a.bound + 1.0) + 1e-9, false};
  default:
    note("unary-sqrt");
    return Expr{(unicode() ? "√(abs " : "sqrt (abs ") + operand(a) + " + 1)", false, std::sqrt(a.bound + 1.0), false};
  }
}

// op/ A reduces the leading axis, op/[k] A axis k: A has shape s with an extent put in at k. −/ and ÷/
// are right folds (x0 − (x1 − …)); ÷/'s terms are kept in [1, 2], so its value within 2^±⌈n/2⌉.
std::optional<Expr> Generator::reduce(const Shape &s, Scope &scope, int depth) {
  const size_t axis = rng.chance(30) ? rng.below(s.size() + 1) : 0;
  Shape operandShape = s;
  operandShape.insert(operandShape.begin() + long(axis), pickExtent());
  if (!fits(operandShape))
    return std::nullopt;
  Expr a = gen(operandShape, scope, depth - 1);
  if (axis > 0)
    note("reduce-axis");
  // the token, its axis when not the leading one (at times written [0]), and a space
  auto form = [&](const char *op) {
    return op + (axis > 0 || rng.chance(5) ? "[" + std::to_string(axis) + "] " : std::string(" "));
  };
  if (opt.emptyReductions && axis == 0 && rng.chance(3)) {
    // over an empty axis: the identity (0 or 1; max and min would give ∓inf)
    note("reduce-empty");
    std::string op = rng.pick({"+/ ", "*/ ", "-/ ", "// "});
    return Expr{op + "(0 take " + operand(a) + ")", false, 1, a.isInt && op != "// "};
  }
  double n = double(maxOf(operandShape[axis]));
  // Over the rows of an index in scope, i < d, a triangular range: the rows 0 … i, i … d − 1 or the last i + 1
  // (index-dependent counts, docs/language.md §8), each at least one row, so max and min stay finite.
  if (axis == 0)
    for (const Index &i : scope.indices)
      if (i.extent == operandShape[0] && rng.chance(30)) {
        note("reduce-triangular");
        a.text = rng.pick<std::string>({"(" + i.name + " + 1) take ", i.name + " drop ", "(-1 - " + i.name + ") take "}) +
                 operand(a);
        a.atomic = false;
        break;
      }
  switch (rng.weighted({4, 3, 2, 2, 2, 2})) {
  case 0: note("reduce+"); return Expr{form("+/") + operand(a), false, n * a.bound, a.isInt};
  case 1: note("reduce-max"); return Expr{form("max/") + operand(a), false, a.bound, a.isInt};
  case 2: note("reduce-min"); return Expr{form("min/") + operand(a), false, a.bound, a.isInt};
  case 3:
    note("reduce*");
    if (a.bound > 1)
      a = clamp(a, 1);
    return Expr{form(unicode() ? "×/" : "*/") + operand(a), false, a.bound, a.isInt};
  case 4: note("reduce-"); return Expr{form(unicode() ? "−/" : "-/") + operand(a), false, n * a.bound, a.isInt};
  default:
    note("reduce/");
    return Expr{form(unicode() ? "÷/" : "//") + "((abs " + operand(a) + " + 1.0) min 2.0)", false,
                std::pow(2.0, std::ceil(n / 2)), false};
  }
}

// A f.g B: A has shape s[0:p] ++ ⟨e⟩ and B ⟨e⟩ ++ s[p:].
std::optional<Expr> Generator::inner(const Shape &s, Scope &scope, int depth) {
  size_t p = rng.below(s.size() + 1);
  Extent e = pickExtent();
  Shape as = concat(slice(s, 0, p), {e}), bs = concat({e}, slice(s, p, s.size()));
  if (!fits(as) || !fits(bs))
    return std::nullopt;
  Expr a = gen(as, scope, depth - 1), b = gen(bs, scope, depth - 1);
  double n = double(maxOf(e));
  size_t kind = rng.weighted({6, 4, 4, 3});
  if (kind == 3)
    return rightFoldInner(a, b, n);
  const char *f = kind == 0 ? "+" : kind == 1 ? "max" : rng.pick({"+", "*", "max", "min"});
  const char *g = kind == 0 ? "*" : kind == 1 ? "+" : rng.pick({"+", "-", "*", "/", "max", "min"});
  std::string fs = f, gs = g;
  if (fs == "*") {
    // A product of n terms: keep each in [-1, 1].
    if (a.bound > 0.5)
      a = clamp(a, 0.5);
    if (b.bound > 0.5)
      b = clamp(b, 0.5);
    if (gs == "/")
      gs = "-";
  }
  std::string rhs = gs == "/" ? "(abs " + operand(b) + " + 1)" : operand(b);
  double term = gs == "*" ? a.bound * b.bound : gs == "/" ? a.bound : gs == "+" || gs == "-" ? a.bound + b.bound
                                                                                             : std::max(a.bound, b.bound);
  double bound = fs == "+" ? n * term : fs == "*" ? 1.0 : term;
  note("inner" + fs + "." + gs);
  std::string op = fs == "+" && gs == "*" && unicode() ? "+.×" : fs + "." + gs;
  return Expr{operand(a) + " " + op + " " + rhs, false, bound, a.isInt && b.isInt && gs != "/"};
}

// A f.g B with f − or ÷, the right folds: with ÷ both operands in [1, 2] and g + or ×, so every term is
// in [1, 4] and the quotient within 4^±⌈n/2⌉.
Expr Generator::rightFoldInner(Expr a, Expr b, double n) {
  if (rng.chance(50)) {
    note("inner-.g");
    const std::string g = rng.pick({"+", "-", "*", "max", "min"});
    double term = g == "*" ? a.bound * b.bound : g == "max" || g == "min" ? std::max(a.bound, b.bound) : a.bound + b.bound;
    return Expr{operand(a) + (unicode() ? " −." : " -.") + g + " " + operand(b), false, n * term, a.isInt && b.isInt};
  }
  note("inner/.g");
  auto positive = [](const Expr &x) { return "((abs " + operand(x) + " + 1.0) min 2.0)"; };
  const char *g = rng.pick({"+", "*"});
  return Expr{positive(a) + (unicode() ? " ÷." : " /.") + g + " " + positive(b), false, std::pow(4.0, std::ceil(n / 2)),
              false};
}

// A o.g B: A has shape s[0:p] and B s[p:].
std::optional<Expr> Generator::outer(const Shape &s, Scope &scope, int depth) {
  size_t p = rng.below(s.size() + 1);
  Expr a = gen(slice(s, 0, p), scope, depth - 1), b = gen(slice(s, p, s.size()), scope, depth - 1);
  note("outer");
  switch (rng.weighted({4, 3, 2, 1, 1, 1})) {
  case 0: return Expr{operand(a) + (unicode() ? " ∘.× " : " o.* ") + operand(b), false, a.bound * b.bound, false};
  case 1: return Expr{operand(a) + " o.+ " + operand(b), false, a.bound + b.bound, false};
  case 2: return Expr{operand(a) + " o.- " + operand(b), false, a.bound + b.bound, false};
  case 3: return Expr{operand(a) + " o.max " + operand(b), false, std::max(a.bound, b.bound), false};
  case 4: return Expr{operand(a) + " o./ (abs " + operand(b) + " + 1)", false, a.bound, false};
  default: return Expr{operand(a) + " o.min " + operand(b), false, std::max(a.bound, b.bound), false};
  }
}

// <a, b, …>: a vector of c scalars, any scalars (a float vector is data, not an index).
std::optional<Expr> Generator::vector(const Shape &s, Scope &scope, int depth) {
  std::string text = "<";
  double bound = 0;
  bool ints = true;
  for (int64_t k = 0; k < s[0].constantPart(); ++k) {
    Expr e = gen({}, scope, std::min(depth - 1, 2));
    text += (k ? ", " : "") + e.text;
    bound = std::max(bound, e.bound);
    ints = ints && e.isInt;
  }
  note("vector");
  return Expr{text + ">", true, bound, ints};
}

// [i < e₀, j < e₁] body: the body has shape s[k:]; its indices are in scope there.
std::optional<Expr> Generator::comprehension(const Shape &s, Scope &scope, int depth) {
  size_t k = size_t(rng.range(1, int64_t(std::min<size_t>(2, s.size()))));
  Scope inner = scope;
  std::string binders;
  for (size_t n = 0; n < k; ++n) {
    Index i{freshIndex(), s[n]};
    binders += (n ? ", " : "") + i.name + " < " + ext(s[n]);
    inner.indices.push_back(i);
  }
  if (!scope.indices.empty())
    note("comprehension-nested");
  note("comprehension");
  Expr body = gen(slice(s, k, s.size()), inner, depth - 1);
  return Expr{"[" + binders + "] " + body.text, false, body.bound, body.isInt};
}

// f(args): a shape-polymorphic function at any shape, or a specific one whose result has shape s; made
// on first use.
std::optional<Expr> Generator::call(const Shape &s, Scope &scope, int depth) {
  bool generic = rng.chance(50);
  std::vector<Function *> candidates;
  for (const auto &f : functions)
    if (f->complete && f.get() != scope.function && f->generic == generic && (generic || f->result == s))
      candidates.push_back(f.get());
  Function *f = nullptr;
  if (!candidates.empty() && (rng.chance(70) || functions.size() >= 5))
    f = rng.pick(candidates);
  else if (functions.size() < 5 && !scope.function)
    f = makeFunction(generic, s);
  else if (functions.size() < 5 && rng.chance(50))
    f = makeFunction(generic, s); // a function made while generating another's body: a nested call
  if (!f)
    return std::nullopt;
  if (scope.inFunction)
    note("fn-nested-call");
  if (++f->calls > 1)
    note("fn-called-again");
  if (f->generic && f->shapes.insert(s).second && f->shapes.size() > 1)
    note("fn-polymorphic");
  std::string args;
  for (size_t k = 0; k < f->arity; ++k) {
    Expr a = gen(f->generic ? s : f->params[k], scope, depth - 1);
    if (a.bound > argBound)
      a = clamp(a, argBound);
    args += (k ? ", " : "") + a.text;
  }
  return Expr{f->name + "(" + args + ")", true, f->resultBound, false};
}

// ---- the bodies of shape-polymorphic functions ---------------------------------------------------

// An expression over parameters of one unknown shape: elementwise and unary operators, scalars made by
// reducing rav of an array, identity reshapes and double transposes, calls of other such functions.
Expr Generator::genGeneric(Scope &scope, int depth, bool scalar) {
  std::vector<const Value *> arrays, scalars;
  for (const Value &v : scope.values)
    (isGeneric(v.shape) ? arrays : scalars).push_back(&v);
  if (scalar) {
    size_t kind = rng.weighted({2, depth > 0 ? 4u : 0u, depth > 0 ? 2u : 0u, scalars.empty() ? 0u : 3u, 1, 2});
    switch (kind) {
    case 0: {
      const Literal &l = rng.pick(literals());
      return Expr{l.text, l.text[0] != '-', l.value, false};
    }
    case 1: {
      Expr a = genGeneric(scope, depth - 1, false);
      const char *op = rng.pick({"max/ rav ", "min/ rav "});
      return Expr{op + operand(a), false, a.bound, a.isInt};
    }
    case 2: {
      Expr a = genGeneric(scope, depth - 1, false);
      return Expr{"*/ rav " + operand(clamp(a, 1)), false, 1, false};
    }
    case 3: {
      const Value &v = *rng.pick(scalars);
      return Expr{v.name, true, v.bound, v.isInt};
    }
    case 4: return Expr{dimNames[rng.below(dimNames.size())], true, double(opt.maxDim), true};
    default: {
      // The mean: the sum over the count, which rho of the raveled parameter gives.
      const Value &v = *rng.pick(arrays);
      note("rho");
      return Expr{"(+/ rav " + v.name + ") / (<0> psi rho rav " + v.name + ")", false, v.bound, false};
    }
    }
  }
  size_t kind = depth <= 0 ? 0 : rng.weighted({3, 5, 4, 3, 1, 1, 2});
  switch (kind) {
  case 0: {
    const Value &v = *rng.pick(arrays);
    return Expr{v.name, true, v.bound, v.isInt};
  }
  case 1: {
    Expr a = genGeneric(scope, depth - 1, false), b = genGeneric(scope, depth - 1, false);
    switch (rng.below(4)) {
    case 0: return Expr{operand(a) + " + " + operand(b), false, a.bound + b.bound, false};
    case 1: return Expr{operand(a) + " * " + operand(b), false, a.bound * b.bound, false};
    case 2: return Expr{operand(a) + " / (abs " + operand(b) + " + 1)", false, a.bound, false};
    default: return Expr{operand(a) + " max " + operand(b), false, std::max(a.bound, b.bound), false};
    }
  }
  case 2: {
    Expr a = genGeneric(scope, depth - 1, false), b = genGeneric(scope, depth - 1, true);
    note("scalar-extension");
    if (rng.chance(50))
      return Expr{operand(a) + " - " + operand(b), false, a.bound + b.bound, false};
    return Expr{operand(b) + " * " + operand(a), false, a.bound * b.bound, false};
  }
  case 3: {
    Expr a = genGeneric(scope, depth - 1, false);
    if (a.bound > 3)
      a = clamp(a, 2);
    return rng.chance(50) ? Expr{"exp " + operand(a), false, std::exp(a.bound), false}
                          : Expr{"sqrt (abs " + operand(a) + " + 1)", false, std::sqrt(a.bound + 1), false};
  }
  case 4: {
    Expr a = genGeneric(scope, depth - 1, false);
    note("reshape-rho");
    return Expr{"(rho " + rng.pick(arrays)->name + ") reshape rav " + operand(a), false, a.bound, a.isInt};
  }
  case 5: {
    Expr a = genGeneric(scope, depth - 1, false);
    return Expr{"tran tran " + operand(a), false, a.bound, a.isInt};
  }
  default: {
    std::vector<Function *> callable;
    for (const auto &f : functions)
      if (f->complete && f->generic && f.get() != scope.function)
        callable.push_back(f.get());
    if (callable.empty())
      return genGeneric(scope, depth - 1, false);
    Function *f = rng.pick(callable);
    ++f->calls;
    note("fn-nested-call");
    std::string args;
    for (size_t k = 0; k < f->arity; ++k) {
      Expr a = genGeneric(scope, depth - 1, false);
      if (a.bound > argBound)
        a = clamp(a, argBound);
      args += (k ? ", " : "") + a.text;
    }
    return Expr{f->name + "(" + args + ")", true, f->resultBound, false};
  }
  }
}

} // namespace moac::testgen::detail
