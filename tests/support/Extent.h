// The generator's own symbolic extents: integer polynomials over the program's run-time dims (fixed dims
// are folded to their values, as the shape checker folds them), kept canonical so that equal extents
// compare equal. Deliberately independent of compiler/support/Symbolic.h: the generator must not share the
// arithmetic it is testing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace moac::testgen {

class Extent {
public:
  Extent() = default;
  static Extent constant(int64_t c);
  static Extent dim(int id);

  friend Extent operator+(const Extent &a, const Extent &b);
  friend Extent operator-(const Extent &a, const Extent &b);
  friend Extent operator*(const Extent &a, const Extent &b);
  friend bool operator==(const Extent &a, const Extent &b) { return a.terms == b.terms; }
  friend bool operator!=(const Extent &a, const Extent &b) { return a.terms != b.terms; }
  friend bool operator<(const Extent &a, const Extent &b) { return a.terms < b.terms; }

  bool isConstant() const;
  int64_t constantPart() const;
  // A single term c·d₁·d₂…, or a constant.
  bool isMonomial() const { return terms.size() <= 1; }
  // Every coefficient non-negative and the value not identically zero: positive for all dims ≥ 1.
  bool provablyPositive() const;
  // Every coefficient non-negative (so also the constant): ≥ 0 for all dims ≥ 1.
  bool provablyNonNegative() const;
  // The value with each dim id bound (ids index `values`).
  int64_t eval(const std::vector<int64_t> &values) const;
  // `2*n + 1` with the given dim names; a product of factors prints with `*`.
  std::string str(const std::vector<std::string> &names) const;
  // Whether str() is a single name or literal (needs no parentheses anywhere).
  bool atomic() const;

  // The monomial's factors: the prime factors of its coefficient and its dims.
  void factors(std::vector<int64_t> &primes, std::vector<int> &dims) const;

  std::map<std::vector<int>, int64_t> terms; // sorted dim ids (empty: the constant) -> coefficient ≠ 0
};

using Shape = std::vector<Extent>;

} // namespace moac::testgen
