#include "Extent.h"

#include <algorithm>

namespace moac::testgen {

static Extent normalised(Extent e) {
  for (auto it = e.terms.begin(); it != e.terms.end();)
    it = it->second == 0 ? e.terms.erase(it) : std::next(it);
  return e;
}

Extent Extent::constant(int64_t c) {
  Extent e;
  e.terms[{}] = c;
  return normalised(e);
}

Extent Extent::dim(int id) {
  Extent e;
  e.terms[{id}] = 1;
  return e;
}

Extent operator+(const Extent &a, const Extent &b) {
  Extent r = a;
  for (const auto &[mono, coef] : b.terms)
    r.terms[mono] += coef;
  return normalised(r);
}

Extent operator-(const Extent &a, const Extent &b) { return a + b * Extent::constant(-1); }

Extent operator*(const Extent &a, const Extent &b) {
  Extent r;
  for (const auto &[ma, ca] : a.terms)
    for (const auto &[mb, cb] : b.terms) {
      std::vector<int> mono = ma;
      mono.insert(mono.end(), mb.begin(), mb.end());
      std::sort(mono.begin(), mono.end());
      r.terms[mono] += ca * cb;
    }
  return normalised(r);
}

bool Extent::isConstant() const { return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty()); }

int64_t Extent::constantPart() const {
  auto it = terms.find({});
  return it == terms.end() ? 0 : it->second;
}

bool Extent::provablyNonNegative() const {
  return std::all_of(terms.begin(), terms.end(), [](const auto &t) { return t.second > 0; });
}

bool Extent::provablyPositive() const { return !terms.empty() && provablyNonNegative(); }

int64_t Extent::eval(const std::vector<int64_t> &values) const {
  int64_t sum = 0;
  for (const auto &[mono, coef] : terms) {
    int64_t term = coef;
    for (int id : mono)
      term *= values.at(size_t(id));
    sum += term;
  }
  return sum;
}

bool Extent::atomic() const {
  if (terms.empty())
    return true;
  if (terms.size() != 1)
    return false;
  const auto &[mono, coef] = *terms.begin();
  return mono.empty() ? coef >= 0 : (mono.size() == 1 && coef == 1);
}

std::string Extent::str(const std::vector<std::string> &names) const {
  if (terms.empty())
    return "0";
  std::string out;
  // Dim terms first (in id order), the constant last: `2*n + 1`.
  std::vector<std::pair<std::vector<int>, int64_t>> ordered(terms.begin(), terms.end());
  std::stable_partition(ordered.begin(), ordered.end(), [](const auto &t) { return !t.first.empty(); });
  for (const auto &[mono, coef] : ordered) {
    int64_t c = coef;
    if (out.empty()) {
      if (c < 0) {
        out += "-";
        c = -c;
      }
    } else {
      out += c < 0 ? " - " : " + ";
      c = c < 0 ? -c : c;
    }
    std::string term;
    if (c != 1 || mono.empty())
      term = std::to_string(c);
    for (int id : mono)
      term += (term.empty() ? "" : "*") + names.at(size_t(id));
    out += term;
  }
  return out;
}

void Extent::factors(std::vector<int64_t> &primes, std::vector<int> &dims) const {
  if (terms.empty())
    return;
  const auto &[mono, coef] = *terms.begin();
  int64_t c = coef;
  for (int64_t p = 2; p * p <= c; ++p)
    while (c % p == 0) {
      primes.push_back(p);
      c /= p;
    }
  if (c > 1)
    primes.push_back(c);
  dims.insert(dims.end(), mono.begin(), mono.end());
}

} // namespace moac::testgen
