#include "Symbolic.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace moac {

// ---- symbols ---------------------------------------------------------------------------------

Symbol SymbolTable::make(std::string name, std::string hint) {
  everSpelled.insert(name);
  entries.push_back(SymbolEntry{std::move(name), std::move(hint), uint32_t(entries.size() + 1), 1, {}});
  return Symbol{&entries.back()};
}

Symbol SymbolTable::intern(const std::string &name) {
  if (auto it = byName.find(name); it != byName.end())
    return it->second;
  programNames.insert(name);
  return byName[name] = make(name, name);
}

Symbol SymbolTable::fresh(const std::string &hint) {
  auto taken = [&](const std::string &s) {
    return current ? programNames.count(s) || current->spelled.count(s) : used(s);
  };
  std::string name = hint;
  const char *separator = !hint.empty() && std::isdigit((unsigned char)hint.back()) ? "_" : "";
  for (unsigned n = 2; taken(name); ++n)
    name = fmt::format("{}{}{}", hint, separator, n);
  if (current)
    current->spelled.insert(name);
  else
    programNames.insert(name);
  return make(name, hint);
}

void SymbolTable::setLeast(Symbol s, int64_t least) { entries.at(s.id() - 1).least = least; }

void SymbolTable::assume(const SymExpr &fact) {
  auto shared = std::make_shared<const SymExpr>(fact);
  for (Symbol s : fact.symbols())
    entries.at(s.id() - 1).facts.push_back(shared);
}

static const SymbolEntry &entryOf(const Symbol &s) {
  if (!s.entry)
    throw std::logic_error("the name of no symbol");
  return *s.entry;
}
uint32_t Symbol::id() const { return entry ? entry->id : 0; }
const std::string &Symbol::name() const { return entryOf(*this).name; }
const std::string &Symbol::hint() const { return entryOf(*this).hint; }

// ---- checked int64 arithmetic ----------------------------------------------------------------

static int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    throw SymArithmeticError("integer overflow in extent arithmetic");
  return r;
}
static int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r))
    throw SymArithmeticError("integer overflow in extent arithmetic");
  return r;
}
static int64_t floorDivInt(int64_t a, int64_t b) {
  if (b == 0)
    throw SymArithmeticError("division by zero in integer expression");
  if (a == INT64_MIN && b == -1)
    throw SymArithmeticError("integer overflow in extent arithmetic");
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
// Computed from the remainder: a − (a div b)·b overflows for some a, b whose modulus fits.
static int64_t floorModInt(int64_t a, int64_t b) {
  if (b == 0)
    throw SymArithmeticError("division by zero in integer expression");
  if (b == -1)
    return 0; // INT64_MIN % -1 is undefined in C++
  int64_t r = a % b;
  return r != 0 && (r < 0) != (b < 0) ? r + b : r;
}

// ---- ordering --------------------------------------------------------------------------------

using AtomPtr = std::shared_ptr<const SymExpr::Atom>;

static int compareAtoms(const AtomPtr &a, const AtomPtr &b) {
  if (a->kind != b->kind)
    return a->kind < b->kind ? -1 : 1;
  if (a->kind == SymExpr::Atom::Sym)
    return a->sym == b->sym ? 0 : (a->sym < b->sym ? -1 : 1);
  if (a->kind == SymExpr::Atom::Load && a->array != b->array)
    return a->array < b->array ? -1 : 1;
  if (int c = SymExpr::compare(a->lhs, b->lhs))
    return c;
  return SymExpr::compare(a->rhs, b->rhs);
}

static int compareFactors(const std::vector<AtomPtr> &a, const std::vector<AtomPtr> &b) {
  // Higher degree first, so `n*dk + n + 1` prints in the usual order; the constant term comes last.
  if (a.size() != b.size())
    return a.size() > b.size() ? -1 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    if (int c = compareAtoms(a[i], b[i]))
      return c;
  return 0;
}

int SymExpr::compare(const SymExpr &a, const SymExpr &b) {
  size_t n = std::min(a.sum.size(), b.sum.size());
  for (size_t i = 0; i < n; ++i) {
    if (int c = compareFactors(a.sum[i].factors, b.sum[i].factors))
      return c;
    if (a.sum[i].coef != b.sum[i].coef)
      return a.sum[i].coef < b.sum[i].coef ? -1 : 1;
  }
  if (a.sum.size() != b.sum.size())
    return a.sum.size() < b.sum.size() ? -1 : 1;
  return 0;
}

// ---- construction ----------------------------------------------------------------------------

SymExpr SymExpr::fromTerms(std::vector<Term> terms) {
  for (Term &t : terms)
    std::sort(t.factors.begin(), t.factors.end(),
              [](const AtomPtr &x, const AtomPtr &y) { return compareAtoms(x, y) < 0; });
  std::sort(terms.begin(), terms.end(), [](const Term &x, const Term &y) {
    return compareFactors(x.factors, y.factors) < 0;
  });
  SymExpr result;
  result.sum.clear();
  for (Term &t : terms) {
    if (!result.sum.empty() && compareFactors(result.sum.back().factors, t.factors) == 0)
      result.sum.back().coef = checkedAdd(result.sum.back().coef, t.coef);
    else
      result.sum.push_back(std::move(t));
  }
  std::erase_if(result.sum, [](const Term &t) { return t.coef == 0; });
  return result;
}

SymExpr::SymExpr(int64_t value) {
  if (value != 0)
    sum.push_back(Term{value, {}});
}

SymExpr SymExpr::symbol(Symbol s) {
  SymExpr e;
  e.sum.push_back(Term{1, {std::make_shared<Atom>(Atom{Atom::Sym, s, {}, {}})}});
  return e;
}

SymExpr operator+(const SymExpr &a, const SymExpr &b) {
  std::vector<SymExpr::Term> terms = a.sum;
  terms.insert(terms.end(), b.sum.begin(), b.sum.end());
  return SymExpr::fromTerms(std::move(terms));
}

SymExpr SymExpr::operator-() const { return *this * SymExpr(-1); }
SymExpr operator-(const SymExpr &a, const SymExpr &b) { return a + (-b); }

SymExpr operator*(const SymExpr &a, const SymExpr &b) {
  std::vector<SymExpr::Term> terms;
  for (const auto &x : a.sum)
    for (const auto &y : b.sum) {
      SymExpr::Term t{checkedMul(x.coef, y.coef), x.factors};
      t.factors.insert(t.factors.end(), y.factors.begin(), y.factors.end());
      terms.push_back(std::move(t));
    }
  return SymExpr::fromTerms(std::move(terms));
}

// a / c when every coefficient of a is a multiple of the constant c.
static std::optional<SymExpr> divideExactly(const SymExpr &a, int64_t c) {
  SymExpr out;
  for (const auto &t : a.terms()) {
    if (t.coef % c != 0)
      return std::nullopt;
    SymExpr term(t.coef / c);
    for (const auto &f : t.factors)
      term = term * SymExpr::fromAtom(f);
    out = out + term;
  }
  return out;
}

SymExpr SymExpr::fromAtom(std::shared_ptr<const Atom> atom) {
  SymExpr e;
  e.sum.push_back(Term{1, {std::move(atom)}});
  return e;
}

SymExpr SymExpr::floorDiv(const SymExpr &a, const SymExpr &b) {
  auto ca = a.constant(), cb = b.constant();
  if (cb && *cb == 0)
    throw SymArithmeticError("division by zero in integer expression");
  if (ca && cb)
    return SymExpr(floorDivInt(*ca, *cb));
  if (cb && *cb == 1)
    return a;
  if (ca && *ca == 0)
    return SymExpr(0);
  if (cb && *cb > 0)
    if (auto exact = divideExactly(a, *cb))
      return *exact;
  if (a == b)
    return SymExpr(1); // divisors are extents, never zero once shapes have been checked
  return fromAtom(std::make_shared<Atom>(Atom{Atom::Div, Symbol{}, a, b}));
}

SymExpr SymExpr::mod(const SymExpr &a, const SymExpr &b) {
  auto ca = a.constant(), cb = b.constant();
  if (cb && *cb == 0)
    throw SymArithmeticError("division by zero in integer expression");
  if (ca && cb)
    return SymExpr(floorModInt(*ca, *cb));
  if (cb && (*cb == 1 || *cb == -1))
    return SymExpr(0);
  if (ca && *ca == 0)
    return SymExpr(0);
  if (cb && *cb > 0 && divideExactly(a, *cb))
    return SymExpr(0);
  if (a == b)
    return SymExpr(0);
  return fromAtom(std::make_shared<Atom>(Atom{Atom::Mod, Symbol{}, a, b}));
}

SymExpr SymExpr::load(uint32_t array, const std::string &name, const SymExpr &offset, const SymExpr &bound) {
  return fromAtom(std::make_shared<Atom>(Atom{Atom::Load, Symbol{}, offset, bound, array, name}));
}

// ---- queries ---------------------------------------------------------------------------------

bool SymExpr::hasLoad() const {
  for (const auto &t : sum)
    for (const auto &f : t.factors)
      if (f->kind == Atom::Load || (f->kind != Atom::Sym && (f->lhs.hasLoad() || f->rhs.hasLoad())))
        return true;
  return false;
}

void SymExpr::forEachLoad(const std::function<void(const Atom &)> &f) const {
  for (const auto &t : sum)
    for (const auto &a : t.factors)
      if (a->kind != Atom::Sym) {
        a->lhs.forEachLoad(f);
        a->rhs.forEachLoad(f);
        if (a->kind == Atom::Load)
          f(*a);
      }
}

SymExpr SymExpr::withLoadBounds(const std::function<SymExpr(const Atom &)> &bound) const {
  if (!hasLoad())
    return *this;
  SymExpr out;
  for (const auto &t : sum) {
    SymExpr term(t.coef);
    for (const auto &f : t.factors) {
      if (f->kind == Atom::Sym) {
        term = term * fromAtom(f);
        continue;
      }
      SymExpr l = f->lhs.withLoadBounds(bound), r = f->rhs.withLoadBounds(bound);
      if (f->kind == Atom::Load)
        term = term * load(f->array, f->name, l, bound(Atom{Atom::Load, Symbol{}, l, r, f->array, f->name}));
      else
        term = term * (f->kind == Atom::Div ? floorDiv(l, r) : mod(l, r));
    }
    out = out + term;
  }
  return out;
}

std::optional<int64_t> SymExpr::constant() const {
  if (sum.empty())
    return int64_t(0);
  if (sum.size() == 1 && sum[0].factors.empty())
    return sum[0].coef;
  return std::nullopt;
}

std::optional<Symbol> SymExpr::asSymbol() const {
  if (sum.size() == 1 && sum[0].coef == 1 && sum[0].factors.size() == 1 &&
      sum[0].factors[0]->kind == Atom::Sym)
    return sum[0].factors[0]->sym;
  return std::nullopt;
}

static void collectSymbols(const SymExpr &e, std::vector<Symbol> &out) {
  for (const auto &t : e.terms())
    for (const auto &f : t.factors) {
      if (f->kind == SymExpr::Atom::Sym) {
        out.push_back(f->sym);
      } else {
        collectSymbols(f->lhs, out);
        collectSymbols(f->rhs, out);
      }
    }
}

std::vector<Symbol> SymExpr::symbols() const {
  std::vector<Symbol> out;
  collectSymbols(*this, out);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool SymExpr::dependsOn(Symbol s) const {
  auto syms = symbols();
  return std::binary_search(syms.begin(), syms.end(), s);
}

SymExpr SymExpr::substitute(const std::map<Symbol, SymExpr> &bindings) const {
  SymExpr out;
  for (const auto &t : sum) {
    SymExpr term(t.coef);
    for (const auto &f : t.factors) {
      if (f->kind == Atom::Sym) {
        auto it = bindings.find(f->sym);
        term = term * (it != bindings.end() ? it->second : SymExpr::symbol(f->sym));
      } else {
        SymExpr l = f->lhs.substitute(bindings), r = f->rhs.substitute(bindings);
        term = term * (f->kind == Atom::Load  ? load(f->array, f->name, l, r)
                       : f->kind == Atom::Div ? floorDiv(l, r)
                                              : mod(l, r));
      }
    }
    out = out + term;
  }
  return out;
}

int64_t SymExpr::evaluate(const std::function<int64_t(Symbol)> &valueOf, const LoadValue &loadOf) const {
  int64_t total = 0;
  for (const auto &t : sum) {
    int64_t term = t.coef;
    for (const auto &f : t.factors) {
      int64_t v;
      if (f->kind == Atom::Sym) {
        v = valueOf(f->sym);
      } else if (f->kind == Atom::Load) {
        if (!loadOf)
          throw SymArithmeticError("a value read from array data is not known here");
        v = loadOf(f->array, f->lhs.evaluate(valueOf, loadOf));
      } else {
        int64_t l = f->lhs.evaluate(valueOf, loadOf), r = f->rhs.evaluate(valueOf, loadOf);
        v = f->kind == Atom::Div ? floorDivInt(l, r) : floorModInt(l, r);
      }
      term = checkedMul(term, v);
    }
    total = checkedAdd(total, term);
  }
  return total;
}

std::optional<SymExpr> SymExpr::linearCoefficient(Symbol s) const {
  SymExpr coef;
  for (const auto &t : sum) {
    size_t uses = 0;
    bool nested = false;
    for (const auto &f : t.factors) {
      if (f->kind == Atom::Sym)
        uses += f->sym == s;
      else
        nested |= f->lhs.dependsOn(s) || f->rhs.dependsOn(s);
    }
    if (nested || uses > 1)
      return std::nullopt;
    if (uses == 0)
      continue;
    SymExpr rest(t.coef);
    for (const auto &f : t.factors)
      if (!(f->kind == Atom::Sym && f->sym == s))
        rest = rest * fromAtom(f);
    coef = coef + rest;
  }
  return coef;
}

// Every monomial of a polynomial over positive dims grows with each dim, so with all non-constant
// coefficients of one sign the extreme value is at dims = 1.
// The sign from the symbols' least values alone: over non-negative symbols a monomial with a positive
// coefficient is smallest where each symbol is at its least, so a sum of such monomials (and a constant)
// is at least its value there, and one of negative monomials at most.
static Sign signAtLeast(const SymExpr &e, Least mode) {
  if (auto c = e.constant())
    return *c > 0 ? Sign::Positive : *c < 0 ? Sign::Negative : Sign::Zero;
  bool allPos = true, allNeg = true;
  int64_t atLeast = 0;
  for (const auto &t : e.terms()) {
    int64_t value = t.coef;
    for (const auto &f : t.factors) {
      if (f->kind == SymExpr::Atom::Load) { // checked to lie in [0, bound) before use: at least 0
        value = 0;
        continue;
      }
      if (f->kind != SymExpr::Atom::Sym)
        return Sign::Unknown;
      int64_t least = f->sym.entry ? f->sym.entry->least : 1;
      if (mode == Least::AsIfPositive)
        least = std::max<int64_t>(least, 1);
      if (__builtin_mul_overflow(value, least, &value))
        return Sign::Unknown;
    }
    if (!t.factors.empty()) {
      allPos &= t.coef > 0;
      allNeg &= t.coef < 0;
    }
    if (__builtin_add_overflow(atLeast, value, &atLeast))
      return Sign::Unknown;
  }
  if (allPos)
    return atLeast > 0 ? Sign::Positive : atLeast == 0 ? Sign::NonNegative : Sign::Unknown;
  if (allNeg)
    return atLeast < 0 ? Sign::Negative : atLeast == 0 ? Sign::NonPositive : Sign::Unknown;
  return Sign::Unknown;
}

// With the assumptions over e's symbols: e ≥ c ≥ 0 when e − c is provably not negative for c a fact or the
// sum of two (assume a <= b, b <= c give c − a), and e ≤ −c ≤ 0 likewise; both at once make e zero.
Sign signOf(const SymExpr &e, Least mode) {
  Sign own = signAtLeast(e, mode);
  if (own == Sign::Positive || own == Sign::Negative || own == Sign::Zero)
    return own;
  std::vector<const SymExpr *> facts;
  for (Symbol s : e.symbols())
    if (s.entry)
      for (const auto &f : s.entry->facts)
        if (std::find(facts.begin(), facts.end(), f.get()) == facts.end())
          facts.push_back(f.get());
  if (facts.empty())
    return own;
  bool above = nonNegative(own), below = own == Sign::NonPositive, positive = false, negative = false;
  auto compare = [&](const SymExpr &c) {
    try {
      Sign over = signAtLeast(e - c, mode), under = signAtLeast(e + c, mode);
      above |= nonNegative(over);
      positive |= over == Sign::Positive;
      below |= under == Sign::Negative || under == Sign::NonPositive || under == Sign::Zero;
      negative |= under == Sign::Negative;
    } catch (const SymArithmeticError &) { // a coefficient beyond int64: this bound tells nothing
    }
  };
  for (size_t a = 0; a < facts.size(); ++a) {
    compare(*facts[a]);
    for (size_t b = a + 1; b < facts.size(); ++b)
      try {
        compare(*facts[a] + *facts[b]);
      } catch (const SymArithmeticError &) {
      }
  }
  if (positive)
    return Sign::Positive;
  if (negative)
    return Sign::Negative;
  if (above && below)
    return Sign::Zero;
  return above ? Sign::NonNegative : below ? Sign::NonPositive : Sign::Unknown;
}

// ---- printing --------------------------------------------------------------------------------

using NameOf = std::function<std::string(Symbol)>;

static std::string strAtom(const SymExpr::Atom &a, const NameOf &nameOf) {
  if (a.kind == SymExpr::Atom::Sym)
    return nameOf(a.sym);
  if (a.kind == SymExpr::Atom::Load) // the element at a row-major offset: ids[i], table[b*pages + j div page]
    return fmt::format("{}[{}]", a.name, a.lhs.str(nameOf));
  auto operand = [&](const SymExpr &e) {
    std::string s = e.str(nameOf);
    bool simple = e.isConstant() ? *e.constant() >= 0 : e.asSymbol().has_value();
    return simple ? s : "(" + s + ")";
  };
  return fmt::format("{} {} {}", operand(a.lhs), a.kind == SymExpr::Atom::Div ? "div" : "mod",
                     operand(a.rhs));
}

std::string SymExpr::str() const {
  return str([](Symbol s) { return s.name(); });
}

std::string SymExpr::str(const NameOf &nameOf) const {
  if (sum.empty())
    return "0";
  std::string out;
  for (size_t i = 0; i < sum.size(); ++i) {
    const Term &t = sum[i];
    // The sign is printed apart from the magnitude, kept unsigned so that INT64_MIN prints too.
    bool minus = t.coef < 0 && (i > 0 || !t.factors.empty());
    if (i > 0)
      out += minus ? " - " : " + ";
    else if (minus)
      out += "-";
    uint64_t c = minus ? 0 - uint64_t(t.coef) : uint64_t(t.coef);
    std::string body;
    if (c != 1 || t.factors.empty())
      body = minus ? std::to_string(c) : std::to_string(t.coef);
    for (const auto &f : t.factors) {
      std::string piece = strAtom(*f, nameOf);
      // A leading `-` would bind to the div's left operand alone: -(n div 2), not -n div 2.
      bool needsParens = f->kind != Atom::Sym && f->kind != Atom::Load && (t.factors.size() > 1 || c != 1 || (i == 0 && minus));
      if (needsParens)
        piece = "(" + piece + ")";
      body += body.empty() ? piece : "*" + piece;
    }
    out += body;
  }
  return out;
}

static bool isPlain(const SymExpr &e) {
  auto c = e.constant();
  return (c && *c >= 0) || e.asSymbol().has_value();
}

static std::string joinShape(const SymVec &shape) {
  bool plain = std::all_of(shape.begin(), shape.end(), isPlain);
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      out += plain ? " " : ", ";
    out += shape[i].str();
  }
  return out;
}

std::string strShape(const SymVec &shape) { return "⟨" + joinShape(shape) + "⟩"; }
std::string strShapeAscii(const SymVec &shape) { return "<" + joinShape(shape) + ">"; }

SymExpr product(const SymVec &v) {
  SymExpr p(1);
  for (const auto &e : v)
    p = p * e;
  return p;
}

} // namespace moac
