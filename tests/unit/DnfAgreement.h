// The interpreter and the DNF evaluator on the same seeded inputs (values in [-2, 2)), within 1e-12
// relative: the interpreter computes f32 values in f64 here, as the DNF evaluator does. Shared by the
// tests of the DNF rewrites (fusion, common subexpressions), which must not change a program's values.
#pragma once

#include "DnfEval.h"
#include "Interpreter.h"

#include <catch2/catch.hpp>

#include <vector>

namespace moac::test {

inline void dnfAgreesWithInterpreter(const TypedProgram &typed, const DnfProgram &dnf, const DimValues &dims) {
  std::vector<NDArray> inputs;
  uint64_t state = 12345;
  for (const TInput &in : typed.inputs) {
    NDArray a{concreteShape(in.shape, dims), {}};
    int64_t count = 1;
    for (int64_t s : a.shape)
      count *= s;
    for (int64_t e = 0; e < count; ++e) {
      state = state * 6364136223846793005u + 1442695040888963407u;
      a.data.push_back(double(state >> 11) / 9007199254740992.0 * 4 - 2);
    }
    inputs.push_back(std::move(a));
  }
  std::vector<NDArray> expected = interpret(typed, dims, inputs, InterpretOptions{true}),
                       got = evaluateDnf(dnf, dims, inputs);
  REQUIRE(got.size() == expected.size());
  for (size_t o = 0; o < got.size(); ++o) {
    REQUIRE(got[o].shape == expected[o].shape);
    for (size_t e = 0; e < got[o].data.size(); ++e)
      CHECK(got[o].data[e] == Approx(expected[o].data[e]).epsilon(1e-12));
  }
}

} // namespace moac::test
