// One small program per operator, evaluated by the reference interpreter and compared with a result
// worked out by hand from the operator's definition (MOA-PRIMER.md). Inputs count 0, 1, 2, … in
// row-major order, so A = counting({2, 3}) is [[0 1 2] [3 4 5]].
#include "Interp.h"

#include <cstdint>
#include <limits>

using namespace moac;
using namespace moac::test;

namespace {
const char *matrix = "dim n, m\nin A : f32[n, m]\n";
NDArray a23() { return counting({2, 3}); }
} // namespace

TEST_CASE("psi with a full index selects one element", "[interp][psi]") {
  CHECK(run(std::string(matrix) + "out r = <1 2> psi A", dims({{"n", 2}, {"m", 3}}), {a23()}) ==
        array({}, {5}));
  CHECK(run(std::string(matrix) + "out r = <0, m - 1> psi A", dims({{"n", 2}, {"m", 3}}), {a23()}) ==
        array({}, {2}));
}

TEST_CASE("psi with a partial index selects a subarray", "[interp][psi]") {
  CHECK(run(std::string(matrix) + "out r = <1> psi A", dims({{"n", 2}, {"m", 3}}), {a23()}) ==
        array({3}, {3, 4, 5}));
  CHECK(run("dim n\nin A : f32[2, 3, n]\nout r = <1 0> psi A", dims({{"n", 2}}), {counting({2, 3, 2})}) ==
        array({2}, {6, 7}));
  // ψ∘ψ: selections compose by concatenating the index vectors
  CHECK(run("dim n\nin A : f32[2, 3, n]\nout r = <1> psi (<2> psi (<1> psi A))", dims({{"n", 2}}),
            {counting({2, 3, 2})}) == array({}, {11}));
}

TEST_CASE("tran reverses the axes of a matrix", "[interp][tran]") {
  CHECK(run(std::string(matrix) + "out r = tran A", dims({{"n", 2}, {"m", 3}}), {a23()}) ==
        array({3, 2}, {0, 3, 1, 4, 2, 5}));
  CHECK(run("dim n\nin x : f32[n]\nout r = tran x", dims({{"n", 3}}), {counting({3})}) == counting({3}));
}

TEST_CASE("tran reverses the axes of a rank-3 array", "[interp][tran]") {
  // (tran A)[k j i] = A[i j k] = 12 i + 4 j + k
  NDArray expected{{4, 3, 2}, {}};
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i)
        expected.data.push_back(12 * i + 4 * j + k);
  CHECK(run("dim a, b, c\nin A : f32[a, b, c]\nout r = tran A", dims({{"a", 2}, {"b", 3}, {"c", 4}}),
            {counting({2, 3, 4})}) == expected);
}

TEST_CASE("permuted tran puts A's axis k at result axis p_k", "[interp][tran]") {
  const char *program = "dim a, b, c\nin A : f32[a, b, c]\n"
                        "out r = <2 0 1> tran A\n"
                        "out s = <1 0 2> tran A\n"
                        "out lhs = [i < b, j < c, k < a] <i j k> psi (<2 0 1> tran A)\n"
                        "out rhs = [i < b, j < c, k < a] <k i j> psi A\n";
  auto outputs = runAll(program, dims({{"a", 2}, {"b", 3}, {"c", 4}}), {counting({2, 3, 4})});
  // r[i j k] = A[k i j], shape <3 4 2>
  NDArray r{{3, 4, 2}, {}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 2; ++k)
        r.data.push_back(12 * k + 4 * i + j);
  // s[i j k] = A[j i k], shape <3 2 4>
  NDArray s{{3, 2, 4}, {}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 4; ++k)
        s.data.push_back(12 * j + 4 * i + k);
  CHECK(outputs[0] == r);
  CHECK(outputs[1] == s);
  CHECK(outputs[2] == outputs[3]); // the primer's ⟨i j k⟩ψ(⟨2 0 1⟩⍉A) = ⟨k i j⟩ψA
  CHECK(outputs[2] == r);
}

TEST_CASE("take and drop along the leading axis, negative from the end", "[interp][take][drop]") {
  const char *program = "dim n\nin A : f32[n, 2]\n"
                        "out t2 = 2 take A\nout tm1 = -1 take A\nout d1 = 1 drop A\nout dm3 = -3 drop A\n"
                        "out t0 = n take A\n";
  auto o = runAll(program, dims({{"n", 4}}), {counting({4, 2})});
  CHECK(o[0] == array({2, 2}, {0, 1, 2, 3}));
  CHECK(o[1] == array({1, 2}, {6, 7}));
  CHECK(o[2] == array({3, 2}, {2, 3, 4, 5, 6, 7}));
  CHECK(o[3] == array({1, 2}, {0, 1}));
  CHECK(o[4] == counting({4, 2}));
  CHECK(run("dim n\nin x : f32[n]\nout r = -2 take x", dims({{"n", 5}}), {counting({5})}) ==
        array({2}, {3, 4}));
}

TEST_CASE("cat joins along the leading axis", "[interp][cat]") {
  const char *program = "dim n, m\nin A : f32[n, 2]\nin B : f32[m, 2]\nin v : f32[2]\n"
                        "out ab = A cat B\nout append = A cat v\nout prepend = v cat A\nout vv = v cat v\n"
                        "out ints = <1 2> cat 3\n";
  auto o = runAll(program, dims({{"n", 2}, {"m", 1}}),
                  {counting({2, 2}), array({1, 2}, {10, 11}), array({2}, {20, 21})});
  CHECK(o[0] == array({3, 2}, {0, 1, 2, 3, 10, 11}));
  CHECK(o[1] == array({3, 2}, {0, 1, 2, 3, 20, 21})); // the KV-cache row append
  CHECK(o[2] == array({3, 2}, {20, 21, 0, 1, 2, 3}));
  CHECK(o[3] == array({4}, {20, 21, 20, 21}));
  CHECK(o[4] == array({3}, {1, 2, 3}));
}

TEST_CASE("reshape and rav re-flow the elements in row-major order", "[interp][reshape][rav]") {
  const char *program = "dim n, m\nin A : f32[n, m]\n"
                        "out r32 = <3 2> reshape A\nout r6 = <6> reshape A\nout rt = <6> reshape tran A\n"
                        "out flat = rav A\nout flatT = rav tran A\nout r123 = <1 2 3> reshape A\n";
  auto o = runAll(program, dims({{"n", 2}, {"m", 3}}), {a23()});
  CHECK(o[0] == array({3, 2}, {0, 1, 2, 3, 4, 5}));
  CHECK(o[1] == counting({6}));
  CHECK(o[2] == array({6}, {0, 3, 1, 4, 2, 5})); // Kᵀ is really materialised before the re-flow
  CHECK(o[3] == counting({6}));
  CHECK(o[4] == array({6}, {0, 3, 1, 4, 2, 5}));
  CHECK(o[5] == counting({1, 2, 3}));
}

TEST_CASE("iota counts from zero and rho gives the shape", "[interp][iota][rho]") {
  const char *program = "dim n, m\nin A : f32[n, m]\n"
                        "out i = iota n\nout i5 = iota 5\nout s = rho A\nout rr = rho rho A\nout r0 = rho 7\n";
  auto o = runAll(program, dims({{"n", 4}, {"m", 3}}), {counting({4, 3})});
  CHECK(o[0] == array({4}, {0, 1, 2, 3}));
  CHECK(o[1] == array({5}, {0, 1, 2, 3, 4}));
  CHECK(o[2] == array({2}, {4, 3}));
  CHECK(o[3] == array({1}, {2}));
  CHECK(o[4] == array({0}, {}));
}

TEST_CASE("every reduction folds the leading axis", "[interp][reduce]") {
  const char *program = "dim n, m\nin A : f32[n, m]\nin x : f32[n]\n"
                        "out sum = +/ A\nout prod = */ A\nout mx = max/ x\nout mn = min/ x\nout total = +/ x\n"
                        "out sum3 = +/ (<2 2 2> reshape iota 8)\n";
  auto o = runAll(program, dims({{"n", 2}, {"m", 3}}), {a23(), array({2}, {-1.5, 4})});
  CHECK(o[0] == array({3}, {3, 5, 7}));
  CHECK(o[1] == array({3}, {0, 4, 10}));
  CHECK(o[2] == array({}, {4}));
  CHECK(o[3] == array({}, {-1.5}));
  CHECK(o[4] == array({}, {2.5}));
  CHECK(o[5] == array({2, 2}, {4, 6, 8, 10})); // only the leading axis is reduced
}

TEST_CASE("a reduction over an empty axis gives the operator's identity", "[interp][reduce]") {
  const char *program = "in A : f32[2, 3]\nin x : f32[2]\n"
                        "out sum = +/ (0 take A)\nout prod = */ (0 take x)\nout mx = max/ (0 take x)\n"
                        "out mn = min/ (0 take x)\nout imx = max/ (0 take iota 3)\nout imn = min/ (3 drop iota 3)\n"
                        "out dot = (0 take x) +.* (0 take A)\n";
  auto o = runAll(program, {}, {a23(), array({2}, {-1.5, 4})});
  double inf = std::numeric_limits<double>::infinity();
  CHECK(o[0] == array({3}, {0, 0, 0}));
  CHECK(o[1] == array({}, {1}));
  CHECK(o[2] == array({}, {-inf}));
  CHECK(o[3] == array({}, {inf}));
  CHECK(o[4] == array({}, {double(std::numeric_limits<int64_t>::min())})); // int: INT64_MIN, not -inf
  CHECK(o[5] == array({}, {double(std::numeric_limits<int64_t>::max())}));
  CHECK(o[6] == array({3}, {0, 0, 0}));
}

TEST_CASE("op/[k] reduces along axis k", "[interp][reduce]") {
  // B = counting({2, 3, 2}): B[i j k] = 6 i + 2 j + k
  const char *program = "in B : f32[2, 3, 2]\n"
                        "out a0 = +/[0] B\nout a1 = +/[1] B\nout a2 = +/[2] B\nout m1 = max/[1] B\n"
                        "out p2 = */[2] B\nout n1 = min/[1] (B * -1)\nout rows = +/[1] (<2 3> reshape iota 6)\n";
  auto o = runAll(program, {}, {counting({2, 3, 2})});
  CHECK(o[0] == array({3, 2}, {6, 8, 10, 12, 14, 16}));
  CHECK(o[1] == array({2, 2}, {6, 9, 24, 27}));        // Σ_j: 0+2+4, 1+3+5, 6+8+10, 7+9+11
  CHECK(o[2] == array({2, 3}, {1, 5, 9, 13, 17, 21})); // Σ_k: 0+1, 2+3, …
  CHECK(o[3] == array({2, 2}, {4, 5, 10, 11}));
  CHECK(o[4] == array({2, 3}, {0, 6, 20, 42, 72, 110}));
  CHECK(o[5] == array({2, 2}, {-4, -5, -10, -11}));
  CHECK(o[6] == array({2}, {3, 12}));
  CHECK(o[6].elem == ElemType::Int);
}

TEST_CASE("the right folds -/ and ÷/ fold from the last term, as APL: x0 op (x1 op (x2 op …))", "[interp][reduce]") {
  const char *program = "dim n\nin x : f64[n]\nin A : f64[2, 3]\n"
                        "out sub = -/ x\nout quo = ÷/ x\nout rows = −/[1] A\nout cols = //[0] (A + 1.0)\n"
                        "out one = -/ (1 take x)\nout ints = -/ iota n\nout q = ÷/ (1 + iota n)\n";
  auto o = runAll(program, dims({{"n", 4}}), {array({4}, {2, 8, 4, 16}), counting({2, 3})});
  CHECK(o[0] == array({}, {2 - (8 - (4 - 16))}));   // -14: not the left fold ((2 - 8) - 4) - 16 = -26
  CHECK(o[1] == array({}, {2 / (8 / (4.0 / 16))})); // 0.0625: not ((2 / 8) / 4) / 16
  CHECK(o[2] == array({2}, {0 - (1 - 2), 3 - (4 - 5)}));
  CHECK(o[3] == array({3}, {1 / 4.0, 2 / 5.0, 3 / 6.0}));
  CHECK(o[4] == array({}, {2}));                 // one term: the term itself
  CHECK(o[5] == array({}, {0 - (1 - (2 - 3))})); // -2
  CHECK(o[5].elem == ElemType::Int);
  CHECK(o[6] == array({}, {1 / (2 / (3 / 4.0))}));
}

TEST_CASE("the right folds over an empty axis give 0 and 1, and f.g folds by f - and ÷", "[interp][reduce]") {
  const char *program = "in x : f32[3]\nin A : f32[3, 2]\n"
                        "out e1 = -/ (0 take x)\nout e2 = ÷/ (0 take x)\nout e3 = (0 take x) -.* (0 take A)\n"
                        "out sub = x -.* A\nout quo = x ÷.+ A\n";
  auto o = runAll(program, {}, {array({3}, {1, 2, 3}), counting({3, 2})});
  CHECK(o[0] == array({}, {0}));
  CHECK(o[1] == array({}, {1}));
  CHECK(o[2] == array({2}, {0, 0}));
  // column j: x0·A[0 j] − (x1·A[1 j] − x2·A[2 j])
  CHECK(o[3] == array({2}, {0 - (4 - 12), 1 - (6 - 15)}));
  // f32: each step rounded
  CHECK(o[4] == array({2}, {double(1.0f / (4.0f / 7.0f)), double(2.0f / (5.0f / 8.0f))}));
}

TEST_CASE("inner product +.* contracts the last axis with the first", "[interp][inner]") {
  const char *program = "dim n, m\nin A : f32[n, m]\nin x : f32[m]\nin B : f32[m, 2]\n"
                        "out Ax = A +.* x\nout AB = A +.* B\nout xx = x +.* x\n";
  auto o = runAll(program, dims({{"n", 2}, {"m", 3}}), {a23(), array({3}, {1, 2, 3}), counting({3, 2})});
  CHECK(o[0] == array({2}, {8, 26}));             // [0+2+6, 3+8+15]
  CHECK(o[1] == array({2, 2}, {10, 13, 28, 40})); // [[0·0+1·2+2·4, 0·1+1·3+2·5], [3·0+4·2+5·4, 3·1+4·3+5·5]]
  CHECK(o[2] == array({}, {14}));
}

TEST_CASE("inner product max.+ is the tropical matrix product", "[interp][inner]") {
  const char *program = "in A : f32[2, 2]\nin B : f32[2, 2]\nout r = A max.+ B\nout s = A min.* B\n";
  auto o = runAll(program, {}, {array({2, 2}, {1, 5, 3, 2}), array({2, 2}, {1, 2, 3, 1})});
  // r[i j] = max_k A[i k] + B[k j]: [[max(1+1, 5+3), max(1+2, 5+1)], [max(3+1, 2+3), max(3+2, 2+1)]]
  CHECK(o[0] == array({2, 2}, {8, 6, 5, 5}));
  // s[i j] = min_k A[i k] · B[k j]: [[min(1, 15), min(2, 5)], [min(3, 6), min(6, 2)]]
  CHECK(o[1] == array({2, 2}, {1, 2, 3, 2}));
}

TEST_CASE("outer product pairs every element of A with every element of B", "[interp][outer]") {
  const char *program = "in x : f32[2]\nin y : f32[3]\nout p = x o.* y\nout d = x o.- y\nout s = 2 o.+ y\n";
  auto o = runAll(program, {}, {array({2}, {1, 2}), array({3}, {3, 4, 5})});
  CHECK(o[0] == array({2, 3}, {3, 4, 5, 6, 8, 10}));
  CHECK(o[1] == array({2, 3}, {-2, -3, -4, -1, -2, -3}));
  CHECK(o[2] == array({3}, {5, 6, 7}));
}

TEST_CASE("a comprehension evaluates its body at every index and stacks the results", "[interp][comprehension]") {
  std::string program = std::string(matrix) + "out rowSums = [i < n] +/ (<i> psi A)\n"
                                              "out grid = [i < 2, j < 3] i * 10 + j\n"
                                              "out doubled = [i < n] (<i> psi A) * 2\n"
                                              "out lastCol = [i < n] <i, m - 1> psi A\n"
                                              "out cols = [j < m] [i < n] <i j> psi A\n";
  auto o = runAll(program, dims({{"n", 2}, {"m", 3}}), {a23()});
  CHECK(o[0] == array({2}, {3, 12}));
  CHECK(o[1] == array({2, 3}, {0, 1, 2, 10, 11, 12}));
  CHECK(o[2] == array({2, 3}, {0, 2, 4, 6, 8, 10}));
  CHECK(o[3] == array({2}, {2, 5}));
  CHECK(o[4] == array({3, 2}, {0, 3, 1, 4, 2, 5}));
}

TEST_CASE("scalar extension applies the scalar to every element", "[interp][elementwise]") {
  std::string program = std::string(matrix) + "out a = A - 1\nout b = 1 - A\nout c = A / 2\nout d = A max 2\n"
                                              "out e = min(3, A)\nout f = A * A + A\n";
  auto o = runAll(program, dims({{"n", 2}, {"m", 3}}), {a23()});
  CHECK(o[0] == array({2, 3}, {-1, 0, 1, 2, 3, 4}));
  CHECK(o[1] == array({2, 3}, {1, 0, -1, -2, -3, -4}));
  CHECK(o[2] == array({2, 3}, {0, 0.5, 1, 1.5, 2, 2.5}));
  CHECK(o[3] == array({2, 3}, {2, 2, 2, 3, 4, 5}));
  CHECK(o[4] == array({2, 3}, {0, 1, 2, 3, 3, 3}));
  CHECK(o[5] == array({2, 3}, {0, 2, 6, 12, 20, 30}));
}

TEST_CASE("unary functions apply elementwise", "[interp][unary]") {
  const char *program = "in x : f64[3]\nout n = neg x\nout m = -x\nout a = abs x\nout e = exp(x * 0)\n"
                        "out s = sqrt(abs x)\nout l = log(x * 0 + 1)\n";
  auto o = runAll(program, {}, {array({3}, {-4, 0, 9})});
  CHECK(o[0] == array({3}, {4, -0.0, -9}));
  CHECK(o[1] == array({3}, {4, -0.0, -9}));
  CHECK(o[2] == array({3}, {4, 0, 9}));
  CHECK(o[3] == array({3}, {1, 1, 1}));
  CHECK(o[4] == array({3}, {2, 0, 3}));
  CHECK(o[5] == array({3}, {0, 0, 0}));
}

TEST_CASE("integer div and mod are floor division and modulus, / is real division", "[interp][elementwise]") {
  const char *program = "dim n\nout a = 7 div 2\nout b = -7 div 2\nout c = -7 mod 2\nout d = 7 mod -2\n"
                        "out e = 7 / 2\nout f = (iota n) div 2\nout g = (iota n - 2) mod 3\n";
  auto o = runAll(program, dims({{"n", 5}}));
  CHECK(o[0] == array({}, {3}));
  CHECK(o[1] == array({}, {-4}));
  CHECK(o[2] == array({}, {1}));
  CHECK(o[3] == array({}, {-1}));
  CHECK(o[4] == array({}, {3.5}));
  CHECK(o[5] == array({5}, {0, 0, 1, 1, 2}));
  CHECK(o[6] == array({5}, {1, 2, 0, 1, 2}));
}

TEST_CASE("dims and indices evaluate to their bound values", "[interp][intconst]") {
  const char *program = "dim n, k = 3\nout a = n * k + 1\nout b = <n, k, n div k>\nout c = [i < n] i * i\n";
  auto o = runAll(program, dims({{"n", 4}}));
  CHECK(o[0] == array({}, {13}));
  CHECK(o[1] == array({3}, {4, 3, 1}));
  CHECK(o[2] == array({4}, {0, 1, 4, 9}));
}

TEST_CASE("functions are evaluated through their inlined Let chains", "[interp][functions]") {
  const char *program = "dim n\nin x : f32[n]\n"
                        "fn sq(v) = v * v\n"
                        "fn norm2(v) {\n  s = sq(v)\n  +/ s\n}\n"
                        "fn twice(v) {\n  a = v + v\n  b = a cat a\n  b\n}\n"
                        "out r = sq(x) + sq(2)\nout s = norm2(x)\nout t = twice(x)\nout u = norm2(sq(x))\n"
                        "out w = [i < n] sq(<i> psi x)\n";
  auto o = runAll(program, dims({{"n", 3}}), {array({3}, {1, 2, 3})});
  CHECK(o[0] == array({3}, {5, 8, 13}));
  CHECK(o[1] == array({}, {14}));
  CHECK(o[2] == array({6}, {2, 4, 6, 2, 4, 6}));
  CHECK(o[3] == array({}, {98}));
  CHECK(o[4] == array({3}, {1, 4, 9}));
}

TEST_CASE("top-level bindings are evaluated once and shared by later bindings", "[interp][bindings]") {
  const char *program = "dim n\nin x : f32[n]\ns = +/ x\ne = x - s\nout r = e / s\nout t = s\n";
  auto o = runAll(program, dims({{"n", 2}}), {array({2}, {1, 3})});
  CHECK(o[0] == array({2}, {-0.75, -0.25}));
  CHECK(o[1] == array({}, {4}));
}
