// Symbolic integer expressions: the extents of shapes (over `dim`s) and, from the DNF stage on, index
// expressions (over bound indices). Kept in one canonical form, a sum of monomials with integer
// coefficients whose factors are symbols or floor-div / mod atoms, so that `n`, `n+0` and `0+n`, or
// `n*dk` and `dk*n`, are the same value and compare equal.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace moac {

// An interned symbol: a dim, an index variable or a fresh name made by a pass. Compared by id, which
// follows creation order, so printing order is deterministic (declaration order).
struct Symbol {
  uint32_t id = 0;
  friend bool operator==(Symbol a, Symbol b) { return a.id == b.id; }
  friend bool operator!=(Symbol a, Symbol b) { return a.id != b.id; }
  friend bool operator<(Symbol a, Symbol b) { return a.id < b.id; }
  const std::string &name() const;
};

class SymbolTable {
public:
  // The same name always gives the same symbol.
  static Symbol intern(const std::string &name);
  // A new symbol distinct from every other, printed as `hint` (a numeric suffix keeps it unique).
  static Symbol fresh(const std::string &hint);
  static const std::string &name(Symbol s);
};

// Thrown by arithmetic that leaves int64 or divides by zero; callers turn it into a diagnostic.
struct SymArithmeticError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class SymExpr {
public:
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

  std::optional<int64_t> constant() const;
  bool isConstant() const { return constant().has_value(); }
  std::optional<Symbol> asSymbol() const;
  bool dependsOn(Symbol s) const;
  std::vector<Symbol> symbols() const; // sorted, unique

  SymExpr substitute(const std::map<Symbol, SymExpr> &bindings) const;
  // Evaluates with every symbol bound; throws SymArithmeticError for a missing binding too.
  int64_t evaluate(const std::function<int64_t(Symbol)> &valueOf) const;

  // Coefficient of s in the affine part (terms s·c with c constant); nullopt if s occurs non-linearly.
  std::optional<SymExpr> linearCoefficient(Symbol s) const;

  // `n*dk + 2`, `g*hkv div hq`; Unicode uses × and ÷-free MoA spelling where it helps reading.
  std::string str() const;

  friend bool operator==(const SymExpr &a, const SymExpr &b) { return compare(a, b) == 0; }
  friend bool operator!=(const SymExpr &a, const SymExpr &b) { return compare(a, b) != 0; }
  friend bool operator<(const SymExpr &a, const SymExpr &b) { return compare(a, b) < 0; }
  static int compare(const SymExpr &a, const SymExpr &b);

  struct Atom;
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

struct SymExpr::Atom {
  enum Kind { Sym, Div, Mod } kind;
  Symbol sym;          // Sym
  SymExpr lhs, rhs;    // Div, Mod
};

// What is known of an expression's sign given that every symbol in it is a positive integer (true of
// dims; callers bound index variables separately).
enum class Sign { Positive, NonNegative, Zero, NonPositive, Negative, Unknown };
Sign signOf(const SymExpr &e);
inline bool nonNegative(Sign s) { return s == Sign::Positive || s == Sign::NonNegative || s == Sign::Zero; }

// A vector of extents: a shape, or an index vector.
using SymVec = std::vector<SymExpr>;
std::string strShape(const SymVec &shape); // ⟨n dk⟩, or ⟨b, g*hkv div hq⟩ when an entry is not plain
std::string strShapeAscii(const SymVec &shape);
SymExpr product(const SymVec &v);

} // namespace moac
