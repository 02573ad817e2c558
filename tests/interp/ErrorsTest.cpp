// The interpreter's error paths: what the user can get wrong (dims, inputs, guards) is an EvalError
// with a message and the .moa location it concerns; an operator given operands its definition does not
// cover (which the shape rules and guards should already prevent) is an EvalError, never a bad read.
#include "ArrayOps.h"
#include "Interp.h"

#include <limits>

using namespace moac;
using namespace moac::test;
using Catch::Matchers::Contains;

namespace {

const char *takeProgram = "dim n, m\nin A : f32[n]\nout r = m take A\n";

} // namespace

TEST_CASE("a guard that does not hold is an error at its source location", "[interp][errors]") {
  EvalError e = evalError(takeProgram, dims({{"n", 2}, {"m", 3}}), {counting({2})});
  CHECK_THAT(e.what(), Contains("shape check 'm <= n' does not hold: 3 <= 2 is false"));
  CHECK_THAT(e.what(), Contains("take count within the leading extent"));
  CHECK(e.loc.line == 3);
  CHECK(e.loc.col == 11);
  // the same program with the guard satisfied runs
  CHECK(run(takeProgram, dims({{"n", 4}, {"m", 3}}), {counting({4})}) == array({3}, {0, 1, 2}));
}

TEST_CASE("reshape's element-count guard is checked before evaluation", "[interp][errors]") {
  EvalError e = evalError("dim n, m\nin A : f32[n]\nout r = <m 2> reshape A\n", dims({{"n", 6}, {"m", 2}}),
                          {counting({6})});
  CHECK_THAT(e.what(), Contains("does not hold"));
  CHECK_THAT(e.what(), Contains("reshape keeps the element count"));
  CHECK(e.loc.line == 3);
}

TEST_CASE("a missing or non-positive dim is an error naming it", "[interp][errors]") {
  const char *decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                       "out o = (q +.* tran K) +.* V\n";
  std::vector<NDArray> inputs{counting({2}), counting({3, 2}), counting({3, 1})};
  EvalError missing = evalError(decode, dims({{"n", 3}, {"dk", 2}}), inputs);
  CHECK_THAT(missing.what(), Contains("no value for dim 'dv'"));
  CHECK(missing.loc.line == 1);
  CHECK(missing.loc.col == 12);
  EvalError zero = evalError(decode, dims({{"n", 0}, {"dk", 2}, {"dv", 1}}), inputs);
  CHECK_THAT(zero.what(), Contains("dim 'n' must be a positive integer, not 0"));
  EvalError fixed = evalError("dim n = 4\nout r = iota n\n", dims({{"n", 5}}), {});
  CHECK_THAT(fixed.what(), Contains("dim 'n' is fixed to 4 by the program, not 5"));
  CHECK(run("dim n = 4\nout r = iota n\n", dims({{"n", 4}})) == counting({4}));
}

TEST_CASE("a dim declared >= 0 may be 0; below its least value, or where an assumption fails, is an error",
          "[interp][errors]") {
  const char *program = "dim t >= 0, n, w\nassume w <= n\nin K : f32[t, n]\nin x : f32[n]\n"
                        "out a = +/ K\nout b = [i < t] +/ <i> psi K\nout c = max/ [i < t] 1.0\n"
                        "out d = +/ ((n - w) drop x)\nout e = ÷/ (0 take x)\n";
  auto o = runAll(program, dims({{"t", 0}, {"n", 3}, {"w", 2}}), {array({0, 3}, {}), array({3}, {1, 2, 4})});
  double inf = std::numeric_limits<double>::infinity();
  CHECK(o[0] == array({3}, {0, 0, 0})); // a reduction over the empty axis: the identity
  CHECK(o[1] == array({0}, {}));        // an empty comprehension: its type's shape, no body evaluated
  CHECK(o[2] == array({}, {-inf}));
  CHECK(o[3] == array({}, {6}));        // the last w rows
  CHECK(o[4] == array({}, {1}));
  EvalError below = evalError(program, dims({{"t", -1}, {"n", 3}, {"w", 2}}), {});
  CHECK_THAT(below.what(), Contains("dim 't' must be at least 0, not -1"));
  EvalError assumed = evalError(program, dims({{"t", 1}, {"n", 3}, {"w", 4}}), {});
  CHECK_THAT(assumed.what(), Contains("shape check 'w <= n' does not hold: 4 <= 3 is false (assumption)"));
  CHECK(assumed.loc.line == 2);
  CHECK(assumed.loc.col == 10);
  EvalError divisor = evalError("dim t >= 0, n\nout r = (iota n) div t\n", dims({{"t", 0}, {"n", 2}}), {});
  CHECK_THAT(divisor.what(), Contains("'1 <= t' does not hold: 1 <= 0 is false (divisor not zero)"));
}

TEST_CASE("an input of the wrong shape is an error at its declaration", "[interp][errors]") {
  const char *program = "dim n, dk\nin q : f32[dk]\nin K : f32[n, dk]\nout s = K +.* q\n";
  EvalError e = evalError(program, dims({{"n", 3}, {"dk", 2}}), {counting({2}), counting({2, 3})});
  CHECK_THAT(e.what(), Contains("input 'K' has shape [2, 3] but the program declares f32[n, dk] = [3, 2]"));
  CHECK(e.loc.line == 3);
  EvalError count = evalError(program, dims({{"n", 3}, {"dk", 2}}), {counting({2})});
  CHECK_THAT(count.what(), Contains("the program has 2 inputs but 1 was given"));
  EvalError values = evalError(program, dims({{"n", 3}, {"dk", 2}}), {counting({2}), array({3, 2}, {1, 2})});
  CHECK_THAT(values.what(), Contains("input 'K' holds 2 values"));
}

TEST_CASE("integer division by zero is an error at the operator", "[interp][errors]") {
  EvalError e = evalError("dim n, m\nout r = 7 div (n - m)\n", dims({{"n", 2}, {"m", 2}}), {});
  CHECK_THAT(e.what(), Contains("integer division by zero"));
  CHECK(e.loc.line == 2);
  CHECK(e.loc.col == 11);
}

TEST_CASE("concreteShape evaluates a symbolic shape and names a missing dim", "[interp][errors]") {
  SymbolTable symbols;
  Symbol n = symbols.intern("n"), dk = symbols.intern("dk");
  SymVec shape{SymExpr::symbol(n), SymExpr::symbol(dk) * SymExpr(2) + SymExpr(1)};
  CHECK(concreteShape(shape, bindIn(symbols, dims({{"n", 3}, {"dk", 4}}))) == std::vector<int64_t>{3, 9});
  CHECK_THROWS_WITH(concreteShape(shape, bindIn(symbols, dims({{"n", 3}}))), Contains("no value for dim 'dk'"));
}

TEST_CASE("the array operators check their operands instead of reading out of bounds", "[interp][errors]") {
  At at{SourceLoc{1, 4, 2, 0}, 3};
  NDArray a = counting({2, 3});
  CHECK_THROWS_WITH(psi({2}, a, at), Contains("psi index 2 is out of range for axis 0 of extent 2"));
  CHECK_THROWS_WITH(psi({0, -1}, a, at), Contains("psi index -1 is out of range for axis 1"));
  CHECK_THROWS_WITH(psi({0, 0, 0}, a, at), Contains("index vector of length 3"));
  CHECK_THROWS_WITH(transpose({0, 0}, a, at), Contains("<0 0> is not a permutation of the 2 axes"));
  CHECK_THROWS_WITH(take(3, a, at), Contains("take of 3 exceeds the leading extent 2"));
  CHECK_THROWS_WITH(drop(-3, a, at), Contains("drop of 3 exceeds the leading extent 2"));
  CHECK_THROWS_WITH(cat(a, counting({2}), at), Contains("cat needs equal trailing axes"));
  CHECK_THROWS_WITH(reshape({4}, a, at), Contains("reshape changes the number of elements: 6 to 4"));
  CHECK_THROWS_WITH(inner(BinOp::Add, BinOp::Mul, ElemType::F64, a, a, at), Contains("inner product needs matching axes"));
  CHECK_THROWS_WITH(elementwise(BinOp::Add, ElemType::F64, a, counting({3, 2}), at), Contains("needs equal shapes"));
  CHECK_THROWS_WITH(reduce(BinOp::Add, ElemType::F64, scalar(1, ElemType::F64), at), Contains("rank at least 1"));
  CHECK_THROWS_WITH(makeArray({int64_t(1) << 20, int64_t(1) << 20}, at), Contains("the interpreter's limit"));
  CHECK_THROWS_WITH(toIntegers(array({1}, {1.5}), at, "the index of psi"), Contains("must hold integers"));
  try {
    psi({5}, a, at);
    FAIL("no EvalError");
  } catch (const EvalError &e) {
    CHECK(e.loc.line == 4);
    CHECK(e.loc.col == 2);
    CHECK(e.length == 3);
  }
}
