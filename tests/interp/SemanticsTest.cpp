// The interpreter computes in the language's element types (docs/language.md §5 "Arithmetic"): f32
// literals and operations rounded to f32, so overflow gives ±inf as in the kernels; f64 in f64; int64
// exact, with overflow a located error; max and min propagating NaN in every order. And it does the
// program's own work once: a subexpression inside a comprehension that does not depend on the index
// is evaluated once, as if it were bound to a name (counted, not timed).
#include "Interp.h"

#include "Ops.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace moac;
using namespace moac::test;

namespace {
const double inf = std::numeric_limits<double>::infinity();
const double qnan = std::numeric_limits<double>::quiet_NaN();
double f32(double v) { return double(float(v)); }

// The error message of a run that must fail.
std::string failure(const std::string &text, const NamedDims &d = {}, const std::vector<NDArray> &inputs = {}) {
  return evalError(text, d, inputs).what();
}

EvalCounts work(const std::string &text, const NamedDims &d, const std::vector<NDArray> &inputs) {
  Checked c = check(text);
  INFO(c.diags);
  REQUIRE(c.program);
  EvalCounts counts;
  InterpretOptions options;
  options.counts = &counts;
  interpret(*c.program, c.bind(d), inputs, options);
  return counts;
}
} // namespace

TEST_CASE("an f32 literal is rounded to f32 where an f32 operation uses it", "[interp][f32]") {
  const char *f32prog = "dim n\nin x : f32[n]\nout r = x + 0.1\nout s = 0.1";
  std::vector<NDArray> out = runAll(f32prog, dims({{"n", 1}}), {array({1}, {0})});
  CHECK(out[0].data == std::vector<double>{f32(0.1)});
  CHECK(out[1].data == std::vector<double>{f32(0.1)});
  CHECK(f32(0.1) != 0.1);
  // in an f64 operation the literal keeps its f64 value, as the kernel's f64 expression does
  CHECK(run("dim n\nin x : f64[n]\nout r = x + 0.1", dims({{"n", 1}}), {array({1}, {0})}).data ==
        std::vector<double>{0.1});
}

TEST_CASE("a constant computed from literals and dims takes the type of the operation that uses it",
          "[interp][f32]") {
  // sqrt(dk) is f32 by the typing rules, but like a literal it is rounded only by an f32 operation
  NamedDims d = dims({{"n", 1}, {"dk", 3}});
  CHECK(run("dim n, dk\nin x : f64[n]\nout r = x / sqrt(dk)", d, {array({1}, {1})}).data ==
        std::vector<double>{1 / std::sqrt(3.0)});
  CHECK(run("dim n, dk\nin x : f32[n]\nout r = x / sqrt(dk)", d, {array({1}, {1})}).data ==
        std::vector<double>{f32(1 / f32(std::sqrt(3.0)))});
  // an output that is a constant is rounded to its type
  CHECK(run("dim n, dk\nout r = sqrt(dk)", d).data == std::vector<double>{f32(std::sqrt(3.0))});
  CHECK(run("in x : f64[2]\nout r = x * <0.1, 0.2>", {}, {array({2}, {1, 1})}).data ==
        std::vector<double>{0.1, 0.2});
  CHECK(run("in x : f32[2]\nout r = x * <0.1, 0.2>", {}, {array({2}, {1, 1})}).data ==
        std::vector<double>{f32(0.1), f32(0.2)});
}

TEST_CASE("an f32 input holds f32 values", "[interp][f32]") {
  CHECK(run("dim n\nin x : f32[n]\nout r = x", dims({{"n", 1}}), {array({1}, {0.1})}).data ==
        std::vector<double>{f32(0.1)});
}

TEST_CASE("every f32 operation is rounded to f32", "[interp][f32]") {
  // 1 + 1e-8 is 1 in f32, so the difference is 0; in f64 it is about 1e-8
  const char *text = "dim n\nin x : {T}[n]\nout r = (x + 0.00000001) - x";
  auto prog = [&](const char *t) { return std::string(text).replace(std::string(text).find("{T}"), 3, t); };
  CHECK(run(prog("f32"), dims({{"n", 1}}), {array({1}, {1})}).data == std::vector<double>{0});
  CHECK(run(prog("f64"), dims({{"n", 1}}), {array({1}, {1})}).data[0] == Approx(1e-8).epsilon(1e-6));
  // a product whose exact value needs more than 24 bits; a sum over f32 rounds after every term
  double x = 1 + std::ldexp(1.0, -12);
  CHECK(run("dim n\nin x : f32[n]\nout r = x * x", dims({{"n", 1}}), {array({1}, {x})}).data ==
        std::vector<double>{f32(x * x)});
  CHECK(run("dim n\nin x : f32[n]\nout r = +/ x", dims({{"n", 3}}), {array({3}, {1, 1e-8, 1e-8})}).data ==
        std::vector<double>{1});
  // a right fold rounds after every step, in its order: 1 − (1e-8 − 1) is 1 − (−1) = 2 in f32
  CHECK(run("dim n\nin x : f32[n]\nout r = -/ x", dims({{"n", 3}}), {array({3}, {1, 1e-8, 1})}).data ==
        std::vector<double>{2});
  CHECK(run("dim n\nin x : f32[n]\nout r = sqrt(x)", dims({{"n", 1}}), {array({1}, {2})}).data ==
        std::vector<double>{double(std::sqrt(2.0f))});
}

TEST_CASE("an exact evaluation computes f32 in f64", "[interp][f32]") {
  Checked c = check("dim n\nin x : f32[n]\nout r = (x + 0.00000001) - x\nout s = x * 1e300");
  REQUIRE(c.program);
  InterpretOptions exact;
  exact.exactFloats = true;
  std::vector<NDArray> out = interpret(*c.program, c.bind(dims({{"n", 1}})), {array({1}, {1})}, exact);
  CHECK(out[0].data[0] == Approx(1e-8).epsilon(1e-6));
  CHECK(out[1].data == std::vector<double>{1e300});
}

TEST_CASE("f32 overflow gives infinity, as in the kernels", "[interp][f32]") {
  CHECK(run("dim n\nin x : f32[n]\nout r = x * 1e300", dims({{"n", 2}}), {array({2}, {1, -2})}).data ==
        std::vector<double>{inf, -inf});
  CHECK(run("dim n\nin x : f32[n]\nout r = (x * 1e30) * 1e30", dims({{"n", 1}}), {array({1}, {1})}).data ==
        std::vector<double>{inf});
  CHECK(run("dim n\nin x : f32[n]\nout r = exp(x)", dims({{"n", 1}}), {array({1}, {100})}).data ==
        std::vector<double>{inf});
  // f64 is f64: the same program on f64 stays finite
  CHECK(run("dim n\nin x : f64[n]\nout r = x * 1e300", dims({{"n", 1}}), {array({1}, {1})}).data ==
        std::vector<double>{1e300});
}

TEST_CASE("decode with scores beyond f32's range is NaN, as the kernel's", "[interp][f32]") {
  // q·k = 4e40 overflows f32, so max/ s and s - m are inf and inf - inf: the softmax is NaN
  std::string text = readFile(MOAC_EXAMPLES_DIR "/decode.moa");
  NDArray q = array({2}, {2e20, 2e20}), K = array({2, 2}, {1e20, 1e20, -1, 1}), V = array({2, 1}, {1, 2});
  NDArray o = run(text, dims({{"n", 2}, {"dk", 2}, {"dv", 1}}), {q, K, V});
  REQUIRE(o.count() == 1);
  CHECK(std::isnan(o.data[0]));
}

TEST_CASE("integers are int64, exact above 2^53", "[interp][int]") {
  // 2^53 + 1 is not a double: an interpreter in double would give 2^53
  NDArray r = run("dim n\nout r = (iota n) + 9007199254740993", dims({{"n", 2}}));
  CHECK(r.elem == ElemType::Int);
  CHECK(r.ints == std::vector<int64_t>{9007199254740993, 9007199254740994});
  CHECK(run("dim n\nout r = 9223372036854775806 + (iota n)", dims({{"n", 2}})).ints ==
        std::vector<int64_t>{9223372036854775806, 9223372036854775807});
  CHECK(run("dim n\nout r = (iota n) * -4611686018427387904", dims({{"n", 3}})).ints ==
        std::vector<int64_t>{0, -4611686018427387904, std::numeric_limits<int64_t>::min()});
}

TEST_CASE("int64 overflow is an error at the operator", "[interp][int]") {
  CHECK(failure("dim n\nout r = (iota n) * 9223372036854775807", dims({{"n", 3}})) ==
        "integer overflow: 2 * 9223372036854775807 does not fit in int64");
  CHECK(failure("dim n\nout r = 9223372036854775807 + (iota n)", dims({{"n", 2}})) ==
        "integer overflow: 9223372036854775807 + 1 does not fit in int64");
  CHECK(failure("dim n\nout r = (0 - 9223372036854775807) - (iota n) - (iota n)", dims({{"n", 2}})) ==
        "integer overflow: -9223372036854775808 - 1 does not fit in int64");
  CHECK(failure("dim n\nout r = +/ ((iota n) + 4611686018427387904)", dims({{"n", 2}})) ==
        "integer overflow: 4611686018427387904 + 4611686018427387905 does not fit in int64");
  CHECK(failure("dim n\nout r = neg ((iota n) - 9223372036854775807 - 1)", dims({{"n", 1}})) ==
        "integer overflow: neg -9223372036854775808 does not fit in int64");
  CHECK(failure("dim n\nout r = ((iota n) - 9223372036854775807 - 1) div (0 - 1)", dims({{"n", 1}})) ==
        "integer overflow: -9223372036854775808 div -1 does not fit in int64");
  // a right fold checks every step, in its order: 0 − (1 − (2 − −2^63)) overflows at 2 − −2^63
  CHECK(failure("dim n\nout r = -/ where(iota n == n - 1, (0 - 9223372036854775807) - 1, iota n)",
                dims({{"n", 4}})) == "integer overflow: 2 - -9223372036854775808 does not fit in int64");
  // mod by -1 is 0 for every dividend, INT64_MIN included
  CHECK(run("dim n\nout r = ((iota n) - 9223372036854775807 - 1) mod (0 - 1)", dims({{"n", 1}})).ints ==
        std::vector<int64_t>{0});
}

TEST_CASE("max and min propagate NaN in every position", "[interp][nan]") {
  for (size_t at = 0; at < 4; ++at) {
    std::vector<double> x = {1, -2, 3, 0.5};
    x[at] = qnan;
    INFO("NaN at " << at);
    std::vector<NDArray> out =
        runAll("dim n\nin x : f32[n]\nin y : f32[n]\nout m = max/ x\nout l = min/ x\nout e = x max y\n"
               "out f = min(y, x)",
               dims({{"n", 4}}), {array({4}, x), array({4}, {1, 1, 1, 1})});
    CHECK(std::isnan(out[0].data[0]));
    CHECK(std::isnan(out[1].data[0]));
    for (size_t i = 0; i < 4; ++i) {
      CHECK(std::isnan(out[2].data[i]) == (i == at));
      CHECK(std::isnan(out[3].data[i]) == (i == at));
    }
  }
}

TEST_CASE("max orders -0 below +0, so every fold order agrees", "[interp][nan]") {
  for (std::vector<double> x : {std::vector<double>{-0.0, 0.0}, std::vector<double>{0.0, -0.0}}) {
    std::vector<NDArray> out = runAll("dim n\nin x : f32[n]\nout m = max/ x\nout l = min/ x", dims({{"n", 2}}),
                                      {array({2}, x)});
    CHECK(!std::signbit(out[0].data[0]));
    CHECK(std::signbit(out[1].data[0]));
  }
  CHECK(std::isnan(maximum(qnan, 1)));
  CHECK(std::isnan(maximum(1, qnan)));
  CHECK(std::isnan(minimum(qnan, 1)));
  CHECK(std::isnan(minimum(-inf, qnan)));
  CHECK(maximum(-inf, 2) == 2);
  CHECK(minimum(-inf, 2) == -inf);
}

TEST_CASE("a reshape inside a comprehension is evaluated once, as if bound to a name", "[interp][work]") {
  const char *inlined = "dim n\nin X : f32[n, 2]\nout r = [i < n] <i> psi (<n, 2> reshape (rav X))";
  const char *bound = "dim n\nin X : f32[n, 2]\nY = <n, 2> reshape (rav X)\nout r = [i < n] <i> psi Y";
  for (int64_t n : {10, 1000}) {
    NamedDims d = dims({{"n", n}});
    EvalCounts a = work(inlined, d, {counting({n, 2})}), b = work(bound, d, {counting({n, 2})});
    INFO("n = " << n);
    CHECK(a.nodes == b.nodes);
    CHECK(a.elements == b.elements);
    // linear in n: rav, reshape and the result (2n elements each) once, n selections of 2 elements
    // and their index vectors (2 each); re-evaluating the reshape per index would add 4n² elements
    CHECK(a.elements == 10 * n + 4);
    CHECK(run(inlined, d, {counting({n, 2})}) == run(bound, d, {counting({n, 2})}));
  }
}

TEST_CASE("prefill's scores written inline are computed once", "[interp][work]") {
  std::string head = "dim n, dk, dv\nin Q : f32[n, dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                     "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n";
  std::string inlined = head + "A = [i < n] softmax(<i> psi ((Q +.* tran K) / sqrt(dk)))\nout O = A +.* V";
  std::string bound = head + "S = (Q +.* tran K) / sqrt(dk)\nA = [i < n] softmax(<i> psi S)\nout O = A +.* V";
  for (int64_t n : {4, 64}) {
    NamedDims d = dims({{"n", n}, {"dk", 3}, {"dv", 2}});
    std::vector<NDArray> in = {counting({n, 3}), counting({n, 3}), counting({n, 2})};
    EvalCounts a = work(inlined, d, in), b = work(bound, d, in);
    INFO("n = " << n);
    CHECK(a.nodes == b.nodes);
    CHECK(a.elements == b.elements);
    CHECK(run(inlined, d, in) == run(bound, d, in));
  }
}

TEST_CASE("a subexpression that depends on the outer index only is evaluated once per outer index", "[interp][work]") {
  // tran K does not depend on i or j; <i> psi Q depends on i only
  const char *text = "dim n, d\nin Q : f32[n, d]\nin K : f32[n, d]\n"
                     "out S = [i < n] [j < n] <j> psi ((<i> psi Q) +.* tran K)";
  const char *bound = "dim n, d\nin Q : f32[n, d]\nin K : f32[n, d]\nKT = tran K\n"
                      "out S = [i < n] [j < n] <j> psi ((<i> psi Q) +.* KT)";
  NamedDims d = dims({{"n", 20}, {"d", 3}});
  std::vector<NDArray> in = {counting({20, 3}), counting({20, 3})};
  EvalCounts a = work(text, d, in), b = work(bound, d, in);
  CHECK(a.nodes == b.nodes);
  CHECK(a.elements == b.elements);
  CHECK(run(text, d, in) == run(bound, d, in));
}
