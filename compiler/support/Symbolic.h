// Symbolic integer expressions: the extents of shapes (over `dim`s) and, from the DNF stage on, index
// expressions (over bound indices). Kept in one canonical form, a sum of monomials with integer
// coefficients whose factors are symbols, floor-div / mod atoms or loads (an element of an integer input
// used as an index: a gather), so that `n`, `n+0` and `0+n`, or `n*dk` and `dk*n`, are the same value and
// compare equal.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace moac {

struct SymbolEntry;

// A symbol: a dim, an index variable or a fresh name made by a pass. It points at its entry in the
// SymbolTable of its compilation (so name() needs no table and a Symbol stays a small value), and
// compares by the entry's id, which follows creation order in that table: printing order is
// deterministic (declaration order) and never depends on what other compilations made. A Symbol must
// not outlive its table; symbols of different tables are never mixed.
struct Symbol {
  const SymbolEntry *entry = nullptr; // null: "no symbol"
  uint32_t id() const;
  const std::string &name() const; // the spelling, unique within the scope the symbol was made in
  const std::string &hint() const; // the spelling asked for (a fresh symbol's hint, else the name)
  friend bool operator==(Symbol a, Symbol b) { return a.entry == b.entry; }
  friend bool operator!=(Symbol a, Symbol b) { return a.entry != b.entry; }
  friend bool operator<(Symbol a, Symbol b) { return a.id() < b.id(); }
};

class SymExpr;

struct SymbolEntry {
  std::string name, hint;
  uint32_t id;
  // What signOf may take as known of a dim: its least value (1, the language's default; 0 for `dim t >= 0`),
  // and the program's assumptions that mention it (`assume w <= n`), each an expression assumed not negative
  // (n − w). Every assumption is also a run-time guard, so a kernel or `moac run` never computes where one
  // does not hold.
  int64_t least = 1;
  std::vector<std::shared_ptr<const SymExpr>> facts;
};

class NameScope;

// The symbols of one compilation (owned by its CompilationContext, support/Context.h).
//
// Fresh names are chosen for reading: a fresh symbol takes its hint unchanged (the paper's i, j, l, the
// user's own index names) when that spelling is free, else the hint with the first free counter
// (l2, l3; h2_2 after a hint that ends in a digit). "Free" means: not a name of the program (every
// interned or reserved spelling) and not taken in the symbol's scope. Outside any NameScope a fresh
// name is unique in the whole compilation. Inside one it is unique among the compilation's names and
// the scope's own, so each DNF definition (or each lowered stage) may spell its index `i` again: a scope
// is a unit that is printed and read on its own, and a symbol made in one must not be seen inside
// another (a pass that moves a subexpression into another definition renames its binders, or reserves
// their spellings there with NameScope::reserve). Symbols stay distinct by identity whatever their
// spelling, so a printer that shows several scopes at once (the C emitter: one kernel function) tells
// them apart by Symbol, never by name.
class SymbolTable {
public:
  SymbolTable() = default;
  SymbolTable(const SymbolTable &) = delete; // symbols point into it
  SymbolTable &operator=(const SymbolTable &) = delete;

  // The same name always gives the same symbol; the spelling counts as a program name from then on.
  Symbol intern(const std::string &name);
  // A new symbol distinct from every other, spelled as the rules above choose.
  Symbol fresh(const std::string &hint);
  // A dim's least value (`dim t >= 0`), and an assumption `fact >= 0` over dims, for signOf (SymbolEntry).
  void setLeast(Symbol s, int64_t least);
  void assume(const SymExpr &fact);
  // Marks a spelling as a program name (an array or binding that is not a Symbol), so that no fresh
  // symbol takes it.
  void reserve(const std::string &spelling) { programNames.insert(spelling); }
  // Whether a spelling is taken anywhere in the compilation (a program name or any symbol's name).
  bool used(const std::string &spelling) const { return programNames.count(spelling) || everSpelled.count(spelling); }

private:
  friend class NameScope;
  Symbol make(std::string name, std::string hint);

  std::deque<SymbolEntry> entries; // a deque: entries never move, symbols point at them
  std::map<std::string, Symbol> byName;
  std::set<std::string> programNames; // interned and reserved spellings, and fresh ones made outside scopes
  std::set<std::string> everSpelled;  // every spelling given, in or out of a scope
  NameScope *current = nullptr;
};

// While alive, fresh symbols of its table are made in this scope (see SymbolTable). Scopes do not nest:
// one opened while another is alive is independent of it, and the other resumes when it closes.
class NameScope {
public:
  explicit NameScope(SymbolTable &table) : table(table), previous(table.current) { table.current = this; }
  ~NameScope() { table.current = previous; }
  NameScope(const NameScope &) = delete;
  NameScope &operator=(const NameScope &) = delete;
  // A spelling visible in this scope although made elsewhere (a symbol of the definition being lowered).
  void reserve(const std::string &spelling) { spelled.insert(spelling); }

private:
  friend class SymbolTable;
  SymbolTable &table;
  NameScope *previous;
  std::set<std::string> spelled;
};

// Thrown by arithmetic that leaves int64 or divides by zero; callers turn it into a diagnostic.
struct SymArithmeticError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SymExpr {
public:
  struct Atom;
  SymExpr() : SymExpr(int64_t(0)) {}
  SymExpr(int64_t value); // NOLINT: integers convert implicitly
  static SymExpr symbol(Symbol s);

  friend SymExpr operator+(const SymExpr &a, const SymExpr &b);
  friend SymExpr operator-(const SymExpr &a, const SymExpr &b);
  friend SymExpr operator*(const SymExpr &a, const SymExpr &b);
  SymExpr operator-() const;
  // Floor division and the matching non-negative-divisor modulus (Python's // and %).
  static SymExpr floorDiv(const SymExpr &a, const SymExpr &b);
  static SymExpr mod(const SymExpr &a, const SymExpr &b);
  // The element at row-major `offset` of the integer array `array` (named `name`), a value known to lie in
  // [0, bound) (Atom::Load); bound 0: not yet known.
  static SymExpr load(uint32_t array, const std::string &name, const SymExpr &offset, const SymExpr &bound);

  std::optional<int64_t> constant() const;
  bool isConstant() const { return constant().has_value(); }
  std::optional<Symbol> asSymbol() const;
  bool dependsOn(Symbol s) const;
  std::vector<Symbol> symbols() const; // sorted, unique

  SymExpr substitute(const std::map<Symbol, SymExpr> &bindings) const;
  // Evaluates with every symbol bound; throws SymArithmeticError for a missing binding too, and for a load
  // without loadOf (the array's element at an offset).
  using LoadValue = std::function<int64_t(uint32_t array, int64_t offset)>;
  int64_t evaluate(const std::function<int64_t(Symbol)> &valueOf, const LoadValue &loadOf = nullptr) const;

  // Whether a load (a value read from array data) occurs in it, nested ones included.
  bool hasLoad() const;
  // Calls f for every load atom in it, inner ones (in an offset) first.
  void forEachLoad(const std::function<void(const Atom &)> &f) const;
  // The same expression with every load's bound replaced by bound(atom) (its offset rewritten first).
  SymExpr withLoadBounds(const std::function<SymExpr(const Atom &)> &bound) const;

  // Coefficient of s in the affine part (terms s·c with c constant); nullopt if s occurs non-linearly.
  std::optional<SymExpr> linearCoefficient(Symbol s) const;

  // `n*dk + 2`, `g*hkv div hq`; Unicode uses × and ÷-free MoA spelling where it helps reading.
  std::string str() const;
  // The same with each symbol spelled by nameOf (a printer's display names), in the same term order.
  std::string str(const std::function<std::string(Symbol)> &nameOf) const;

  friend bool operator==(const SymExpr &a, const SymExpr &b) { return compare(a, b) == 0; }
  friend bool operator!=(const SymExpr &a, const SymExpr &b) { return compare(a, b) != 0; }
  friend bool operator<(const SymExpr &a, const SymExpr &b) { return compare(a, b) < 0; }
  static int compare(const SymExpr &a, const SymExpr &b);

  struct Term {
    int64_t coef;
    std::vector<std::shared_ptr<const Atom>> factors; // sorted; repeated for powers
  };
  const std::vector<Term> &terms() const { return sum; }

private:
  std::vector<Term> sum; // canonical: sorted by factors, no zero coefficients
  static SymExpr fromTerms(std::vector<Term> terms);

public:
  static SymExpr fromAtom(std::shared_ptr<const Atom> atom);
};

// Load: the value of element `lhs` (a row-major offset) of the integer array `array` — the input's slot in
// the typed program and the DNF, the buffer in the loop IR — named `name`, used as an index (a gather). Its
// value lies in [0, rhs): the kernels and the interpreter check every element of the array against rhs,
// the extent of the axis it indexes, before they use one (rhs 0: not yet known). Walkers that only know
// floor divisions see lhs and rhs as operands, so symbols, substitution and dependence are right for it.
struct SymExpr::Atom {
  enum Kind { Sym, Div, Mod, Load } kind;
  Symbol sym;          // Sym
  SymExpr lhs, rhs;    // Div, Mod; Load: the offset and the bound
  uint32_t array = 0;  // Load
  std::string name{};  // Load
};

// What is known of an expression's sign given that every symbol in it is an integer at least its least value
// (dims: 1, or 0 for `dim t >= 0`; callers bound index variables separately) and the program's assumptions
// over the dims (`assume w <= n`). AsIfPositive takes every least as at least 1: the sign the expression
// would have were no dim allowed to be 0 (an extent that is positive then may be 0 only where such a dim is).
enum class Sign { Positive, NonNegative, Zero, NonPositive, Negative, Unknown };
enum class Least { Declared, AsIfPositive };
Sign signOf(const SymExpr &e, Least least = Least::Declared);
inline bool nonNegative(Sign s) { return s == Sign::Positive || s == Sign::NonNegative || s == Sign::Zero; }

// A vector of extents: a shape, or an index vector.
using SymVec = std::vector<SymExpr>;
std::string strShape(const SymVec &shape); // ⟨n dk⟩, or ⟨b, g*hkv div hq⟩ when an entry is not plain
std::string strShapeAscii(const SymVec &shape);
SymExpr product(const SymVec &v);

} // namespace moac
