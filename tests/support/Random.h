// A reproducible random source for the test generators: std::mt19937_64 (whose output the standard fixes
// bit for bit) with bounded draws of our own, since std::uniform_int_distribution is
// implementation-defined and would give other programs on another standard library.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <vector>

namespace moac::testgen {

class Rng {
public:
  explicit Rng(uint64_t seed) : engine(seed) {}

  uint64_t bits() { return engine(); }

  // Uniform in [0, n), n > 0: rejection sampling removes the bias of a plain modulus.
  uint64_t below(uint64_t n) {
    if (n == 0)
      throw std::logic_error("Rng::below(0)");
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
      x = engine();
    while (x >= limit);
    return x % n;
  }
  // Uniform in [lo, hi].
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo) + 1)); }
  bool chance(unsigned percent) { return below(100) < percent; }
  // An index drawn with the given non-negative weights (at least one positive).
  size_t weighted(const std::vector<unsigned> &weights) {
    uint64_t total = 0;
    for (unsigned w : weights)
      total += w;
    uint64_t x = below(total);
    for (size_t i = 0; i < weights.size(); ++i) {
      if (x < weights[i])
        return i;
      x -= weights[i];
    }
    return weights.size() - 1;
  }
  template <typename T> const T &pick(const std::vector<T> &items) { return items[below(items.size())]; }
  template <typename T> T pick(std::initializer_list<T> items) { return items.begin()[below(items.size())]; }
  template <typename T> void shuffle(std::vector<T> &items) {
    for (size_t i = items.size(); i > 1; --i)
      std::swap(items[i - 1], items[below(i)]);
  }

private:
  std::mt19937_64 engine;
};

} // namespace moac::testgen
