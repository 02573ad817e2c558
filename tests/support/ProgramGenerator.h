// A random generator of well-shaped .moa programs for property tests (tests/property/).
//
// generateProgram(seed) writes the text of a program over the whole language: symbolic and fixed dims,
// inputs of rank 0–3 in f32 and f64, elementwise operators with scalar extension, the unary functions,
// the four reductions, inner and outer products, full and partial ψ, tran and <p> tran, take and drop
// with both signs, cat (row append included), reshape, rav, iota, rho, comprehensions (nested too),
// reductions over triangular slices of an index in scope, gathers (an index read from an i32 or i64
// input, `g1[i]`, `g2[i, j]`: moac check and makeInputs fold its values into the extent it indexes), a dim
// declared `>= 0` whose reductions give the identity at 0 (with `assume` relations bounding it),
// functions (shape-polymorphic, called several times and from each other), named bindings and several
// outputs. It works type-directed: it picks the shape a subexpression must have and then an operator
// that produces that shape from operands whose shapes it picks in turn, so every program type-checks
// by construction. Values stay finite: every subexpression carries a bound on its magnitude, exp only
// sees bounded arguments, log and sqrt only abs(x) + c, division only by abs(y) + c.
//
// The same seed gives the same text on every machine: the random source is std::mt19937_64 with bounded
// draws of our own (Random.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace moac::testgen {

struct GeneratorOptions {
  int maxDepth = 6;          // of an expression tree, leaves excluded
  int maxElements = 400;     // of any array, with every run-time dim at maxDim
  int maxDim = 5;            // run-time dims are bound to 1 … maxDim
  // `+/ (0 take A)`: a reduction over an empty axis, which gives the identity (docs/language.md).
  bool emptyReductions = true;
};

struct GeneratedProgram {
  uint64_t seed = 0;
  std::string text;
  std::vector<std::string> dims;          // the run-time dims, in declaration order
  std::map<std::string, int64_t> minDims; // the least value each needs so that every guard holds
  // a dim declared `>= 0` (its least 0 in minDims) and the dims its `assume z <= d` bound it by
  std::map<std::string, std::vector<std::string>> atMost;
  std::vector<std::string> features;      // what the program exercises ("take-negative", "fn-generic", …)
};

GeneratedProgram generateProgram(uint64_t seed, const GeneratorOptions &options = {});

// Binds every run-time dim of a generated program to a value in [minDims, maxDim], drawn from the
// seed: 1 and the primes 2, 3, 5 most often, 4 less; a dim that may be 0 is 0 a third of the time, and at
// most the dims its assumptions name.
std::map<std::string, int64_t> chooseDims(const GeneratedProgram &program, uint64_t seed,
                                          const GeneratorOptions &options = {});

// `n=3,m=1`, as `moac run --dims` takes it.
std::string formatDims(const std::map<std::string, int64_t> &dims);

} // namespace moac::testgen
