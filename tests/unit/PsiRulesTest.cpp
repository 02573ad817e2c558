// Unit tests of ψ-reduction (Psi.h) and of γ (Gamma.h): one TEST_CASE per ψ-rule, named after it.
// The index rules are checked on symbolic indices — the operand index each returns, and that it stays
// inside the operand for every index of the result shape (from the shape rule) at concrete dims. Whole
// programs go through typeCheck and psiReduce; their DNF is compared as printed by dumpDnf (ASCII) and
// evaluated by the DNF evaluator against the reference interpreter, which never sees the DNF.
#include "DnfEval.h"
#include "FrontEnd.h"
#include "Gamma.h"
#include "Interpreter.h"
#include "Pipeline.h"
#include "Psi.h"
#include "ShapeRules.h"

#include <functional>
#include <set>

using namespace moac;

namespace {

Symbol sym(const std::string &name) { return test::testSymbols().intern(name); }
SymExpr var(const std::string &name) { return SymExpr::symbol(sym(name)); }

// Sums and products print in the order their symbols were interned (SymbolicTest.cpp), so every name
// these tests print is interned here first, in one order: dims before index names, as in moac, which
// interns an index's display name only when it prints the DNF. The expected strings below are then
// exactly what `moac compile --emit=dnf --ascii` prints. (ShapeRulesTest.cpp interns n, m, dk, dv, B
// at start-up too, in the same order.)
[[maybe_unused]] const bool interned = [] {
  for (const char *name : {"n", "m", "dk", "dv", "B", "p", "w", "a", "b", "c", "hq", "hkv", "g", "x", "i", "j",
                           "k", "l"})
    test::testSymbols().intern(name);
  return true;
}();

const SymExpr n = var("n"), m = var("m"), p = var("p"), dk = var("dk");
const SymExpr i = var("i"), j = var("j"), k = var("k"), l = var("l");

std::vector<std::string> strs(const SymVec &v) {
  std::vector<std::string> out;
  for (const auto &e : v)
    out.push_back(e.str());
  return out;
}

Type f32(SymVec shape) { return Type{ElemType::F32, std::move(shape), std::nullopt}; }
Type intScalar(SymExpr v) { return Type{ElemType::Int, {}, SymVec{std::move(v)}}; }
Type intVector(SymVec v) {
  SymExpr len(int64_t(v.size()));
  return Type{ElemType::Int, {len}, std::move(v)};
}
SymVec shapeOf(const RuleResult &r) {
  REQUIRE(r.ok());
  return r.type().shape;
}

using Values = std::map<std::string, int64_t>;

std::vector<int64_t> evaluate(const SymVec &v, const Values &values) {
  std::vector<int64_t> out;
  for (const auto &e : v)
    out.push_back(e.evaluate([&](Symbol s) { return values.at(s.name()); }));
  return out;
}

// Calls f with every index of a concrete shape, in row-major order.
void forEachIndex(const std::vector<int64_t> &shape, const std::function<void(const std::vector<int64_t> &)> &f) {
  int64_t count = 1;
  for (int64_t s : shape)
    count *= s;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < count; ++flat) {
    f(idx);
    for (size_t a = idx.size(); a-- > 0;) {
      if (++idx[a] < shape[a])
        break;
      idx[a] = 0;
    }
  }
}

// Checks an index rule at concrete dims: for every index of the result shape, the operand index the rule
// gives equals `expected` (the operator's definition, computed on integers) and lies inside the operand.
void checkRule(const SymVec &resultShape, const SymVec &operandShape, Values dims,
               const std::function<SymVec(const SymVec &)> &rule,
               const std::function<std::vector<int64_t>(const std::vector<int64_t> &)> &expected) {
  std::vector<int64_t> rs = evaluate(resultShape, dims), os = evaluate(operandShape, dims);
  static const char *names[] = {"i", "j", "k", "l"};
  REQUIRE(rs.size() <= 4);
  SymVec idx;
  for (size_t a = 0; a < rs.size(); ++a)
    idx.push_back(var(names[a]));
  SymVec operandIndex = rule(idx);
  REQUIRE(operandIndex.size() == os.size());
  forEachIndex(rs, [&](const std::vector<int64_t> &at) {
    Values values = dims;
    for (size_t a = 0; a < at.size(); ++a)
      values[names[a]] = at[a];
    std::vector<int64_t> got = evaluate(operandIndex, values);
    INFO("result index " << Catch::Detail::stringify(at));
    CHECK(got == expected(at));
    for (size_t a = 0; a < got.size(); ++a) {
      CHECK(got[a] >= 0);
      CHECK(got[a] < os[a]);
    }
  });
}

// ---- whole programs --------------------------------------------------------------------------------

struct Reduced {
  std::shared_ptr<CompilationContext> ctx; // first: outlives the programs
  std::optional<TypedProgram> typed;
  DnfProgram dnf;
  std::string diags;
};

Reduced reduceText(const std::string &text) {
  test::Checked checked = test::checkText(text);
  Reduced out{checked.ctx, std::move(checked.program), {}, std::move(checked.diags)};
  INFO(out.diags);
  REQUIRE(out.typed);
  out.dnf = psiReduce(*out.ctx, *out.typed);
  return out;
}

// The DNF as `moac compile --emit=dnf --ascii` prints it.
std::string dnfOf(const std::string &text) { return dumpDnf(reduceText(text).dnf, true); }

// Dims by name, as symbols of the program's own compilation.
DimValues dimValues(const Reduced &r, const Values &values) {
  DimValues out;
  for (const auto &[name, v] : values)
    out[r.ctx->symbols.intern(name)] = v;
  return out;
}

// Inputs with distinct small integer entries (exact in double): input t holds 100·t + 0, 1, 2, …
std::vector<NDArray> inputsFor(const TypedProgram &typed, const DimValues &dims) {
  std::vector<NDArray> out;
  for (size_t t = 0; t < typed.inputs.size(); ++t) {
    NDArray a{concreteShape(typed.inputs[t].shape, dims), {}};
    int64_t count = 1;
    for (int64_t s : a.shape)
      count *= s;
    for (int64_t e = 0; e < count; ++e)
      a.data.push_back(double(100 * int64_t(t) + e % 97) * (e % 2 ? -0.5 : 1.0));
    out.push_back(std::move(a));
  }
  return out;
}

// Evaluates the DNF and the reference interpreter on the same inputs; they must agree (to rounding:
// the DNF evaluator may sum in another order only where the program has no reduction to reorder).
std::vector<NDArray> evaluateBoth(const std::string &text, const Values &values) {
  Reduced r = reduceText(text);
  DimValues dims = dimValues(r, values);
  std::vector<NDArray> inputs = inputsFor(*r.typed, dims);
  std::vector<NDArray> expected = interpret(*r.typed, dims, inputs, InterpretOptions{true});
  std::vector<NDArray> got = evaluateDnf(r.dnf, dims, inputs);
  REQUIRE(got.size() == expected.size());
  for (size_t o = 0; o < got.size(); ++o) {
    REQUIRE(got[o].shape == expected[o].shape);
    for (size_t e = 0; e < got[o].data.size(); ++e)
      CHECK(got[o].data[e] == Approx(expected[o].data[e]).epsilon(1e-12));
  }
  return got;
}

// dsl-examples/decode.moa and gqa.moa, without their comments.
const char *decode = "dim n, dk, dv\n"
                     "in  q : f32[dk]\n"
                     "in  K : f32[n, dk]\n"
                     "in  V : f32[n, dv]\n"
                     "fn softmax(x) {\n"
                     "  m = max/ x\n"
                     "  e = exp(x - m)\n"
                     "  e / (+/ e)\n"
                     "}\n"
                     "s = (q +.* tran K) / sqrt(dk)\n"
                     "out o = softmax(s) +.* V\n";
const char *gqa = "dim B, hq, hkv, n, dk, dv\n"
                  "in  Q : f32[B, hq, dk]\n"
                  "in  K : f32[B, hkv, n, dk]\n"
                  "in  V : f32[B, hkv, n, dv]\n"
                  "fn softmax(x) {\n"
                  "  m = max/ x\n"
                  "  e = exp(x - m)\n"
                  "  e / (+/ e)\n"
                  "}\n"
                  "fn attend(q, K, V) = softmax((q +.* tran K) / sqrt(dk)) +.* V\n"
                  "out O = [b < B, g < hq] attend(<b g> psi Q, <b, g * hkv div hq> psi K, "
                  "<b, g * hkv div hq> psi V)\n";

} // namespace

// ---- γ ---------------------------------------------------------------------------------------------

TEST_CASE("gamma", "[gamma]") {
  CHECK(gamma({i, j}, {n, m}).str() == "m*i + j");
  CHECK(gamma({i, j, k}, {n, m, p}) == (i * m + j) * p + k);
  CHECK(gamma({i}, {n}) == i);
  CHECK(gamma({}, {}) == SymExpr(0));
  // the paper's K offset γ(⟨l j⟩; ⟨n dk⟩) = l·dk + j
  CHECK(gamma({l, j}, {n, dk}) == l * dk + j);
  // row-major: concrete offsets run 0, 1, 2, … over ⟨2 3 4⟩
  int64_t expected = 0;
  forEachIndex({2, 3, 4}, [&](const std::vector<int64_t> &at) {
    SymVec idx{SymExpr(at[0]), SymExpr(at[1]), SymExpr(at[2])};
    CHECK(gamma(idx, {SymExpr(2), SymExpr(3), SymExpr(4)}).constant() == expected++);
  });
}

TEST_CASE("gammaInverse", "[gamma]") {
  SymExpr x = var("x");
  CHECK(strs(gammaInverse(x, {n, m})) == std::vector<std::string>{"x div m", "x mod m"});
  CHECK(strs(gammaInverse(x, {n, m, p})) ==
        std::vector<std::string>{"x div (m*p)", "(x div p) mod m", "x mod p"});
  CHECK(strs(gammaInverse(x, {n})) == std::vector<std::string>{"x"});
  // γ⁻¹(γ(i)) = i at every concrete index of ⟨3 2 4⟩
  SymVec shape{SymExpr(3), SymExpr(2), SymExpr(4)};
  forEachIndex({3, 2, 4}, [&](const std::vector<int64_t> &at) {
    SymVec idx{SymExpr(at[0]), SymExpr(at[1]), SymExpr(at[2])};
    CHECK(evaluate(gammaInverse(gamma(idx, shape), shape), {}) == at);
  });
}

TEST_CASE("simplify", "[gamma]") {
  IndexRanges ranges{{sym("i"), n}, {sym("j"), m}};
  // γ⁻¹ of γ: (m·i + j) div m = i and (m·i + j) mod m = j, since 0 ≤ j < m
  CHECK(simplify(SymExpr::floorDiv(m * i + j, m), ranges) == i);
  CHECK(simplify(SymExpr::mod(m * i + j, m), ranges) == j);
  // a whole expression in range: i div n = 0, i mod n = i
  CHECK(simplify(SymExpr::floorDiv(i, n), ranges) == SymExpr(0));
  CHECK(simplify(SymExpr::mod(i, n), ranges) == i);
  // the remainder 2 + j may reach m + 1: nothing is proven, nothing changes
  SymExpr shifted = SymExpr::floorDiv(m * i + j + 2, m);
  CHECK(simplify(shifted, ranges) == shifted);
  // j < m is no bound against n
  SymExpr other = SymExpr::mod(n * i + j, n);
  CHECK(simplify(other, ranges) == other);
  // i − 1 may be −1: floor division by n is then −1, not 0
  SymExpr negative = SymExpr::floorDiv(i - 1, n);
  CHECK(simplify(negative, ranges) == negative);
  // a remainder that is a multiple of nothing: (2n·i + n + j) div 2n = i when j < n
  IndexRanges square{{sym("i"), n}, {sym("j"), n}};
  CHECK(simplify(SymExpr::floorDiv(2 * n * i + n + j, 2 * n), square) == i);
  CHECK(simplify(SymExpr::mod(2 * n * i + n + j, 2 * n), square) == n + j);
  // without ranges nothing is known of i and j
  CHECK(simplify(SymExpr::floorDiv(m * i + j, m), {}) == SymExpr::floorDiv(m * i + j, m));
}

TEST_CASE("simplify keeps the value", "[gamma]") {
  // every rewrite is checked against the unsimplified expression at all values in range
  IndexRanges ranges{{sym("i"), SymExpr(3)}, {sym("j"), SymExpr(4)}};
  std::vector<SymExpr> exprs = {
      SymExpr::floorDiv(4 * i + j, SymExpr(4)),     SymExpr::mod(4 * i + j, SymExpr(4)),
      SymExpr::floorDiv(8 * i + j + 3, SymExpr(4)), SymExpr::mod(8 * i + 2 * j, SymExpr(4)),
      SymExpr::floorDiv(i + j, SymExpr(6)),         SymExpr::mod(j - 1, SymExpr(4)),
      SymExpr::floorDiv(12 * i + 4 + j, SymExpr(8)),
  };
  for (const SymExpr &e : exprs) {
    SymExpr s = simplify(e, ranges);
    INFO(e.str() << "  simplified to  " << s.str());
    forEachIndex({3, 4}, [&](const std::vector<int64_t> &at) {
      Values v{{"i", at[0]}, {"j", at[1]}};
      auto value = [&](Symbol x) { return v.at(x.name()); };
      CHECK(s.evaluate(value) == e.evaluate(value));
    });
  }
  CHECK(simplify(exprs[0], ranges) == i);
  CHECK(simplify(exprs[1], ranges) == j);
  CHECK(simplify(exprs[4], ranges) == SymExpr(0)); // i + j ≤ 5
}

TEST_CASE("indexBounds", "[gamma]") {
  IndexRanges ranges{{sym("i"), n}, {sym("j"), m}};
  auto b = indexBounds(m * i + j, ranges);
  REQUIRE(b);
  CHECK(b->first == SymExpr(0));
  CHECK(b->second == n * m - 1);
  auto shifted = indexBounds(i - 2, ranges);
  REQUIRE(shifted);
  CHECK(shifted->first == SymExpr(-2));
  CHECK(shifted->second == n - 3);
}

TEST_CASE("indexBounds over nested ranges", "[gamma]") {
  // j < i + 1, i < n: j reaches n − 1, i − j lies in [−(n − 1), n − 1] (an enclosure: j ≤ i is not known)
  IndexRanges nested{{sym("i"), n}, {sym("j"), i + 1}};
  auto b = indexBounds(j + 1, nested);
  REQUIRE(b);
  CHECK(b->first == SymExpr(1));
  CHECK(b->second == n);
  CHECK(upperBound(j + 1, nested) == n);
  CHECK(upperBound(m, nested) == m);
}

TEST_CASE("sumOver and indexSpaceSize: triangular index spaces", "[gamma]") {
  const Symbol si = sym("i");
  CHECK(*sumOver(si, n, i + 1) == SymExpr::floorDiv(n * n + n, 2));
  CHECK(*sumOver(si, n, m) == n * m);
  // Σ_{i<n} i² = (n − 1)n(2n − 1)/6: 30 at n = 5; a cube has no closed form here
  CHECK(sumOver(si, n, i * i)->evaluate([&](Symbol s) { return s == sym("n") ? int64_t(5) : int64_t(0); }) == 30);
  CHECK(!sumOver(si, n, i * i * i));
  // the nested triangle k ≤ j ≤ i < n holds n(n + 1)(n + 2)/6 elements: 35 at n = 5
  SymExpr tet = indexSpaceSize({n, i + 1, j + 1}, {si, sym("j"), sym("k")});
  CHECK(tet.evaluate([&](Symbol s) { return s == sym("n") ? int64_t(5) : int64_t(0); }) == 35);
  // ⟨n, i + 1⟩ over ⟨i j⟩: n(n + 1)/2 elements, at n = 5 fifteen
  SymExpr tri = indexSpaceSize({n, i + 1}, {si, sym("j")});
  CHECK(tri.evaluate([&](Symbol s) { return s == sym("n") ? int64_t(5) : int64_t(0); }) == 15);
  CHECK(indexSpaceSize({n, m}, {si, sym("j")}) == n * m);
  CHECK(boundingShape({n, i + 1}, {si, sym("j")}) == SymVec{n, n});
}

TEST_CASE("take of a count whose sign only the ranges decide, n − i for i < n: from the front", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nout s = [i < n] +/ ((n - i) take (i drop x))\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "out s : f32<n>\n"
                                "  <i> psi s = sum_{j<n - i} <i + j> psi x\n");
  evaluateBoth(text, {{"n", 4}});
}

TEST_CASE("take over a comprehension index in a program: a triangular reduction", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nout s = [i < n] +/ ((i + 1) take A)\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out s : f32<n m>\n"
                                "  <i j> psi s = sum_{k<=i} <k j> psi A\n");
  std::vector<NDArray> out = evaluateBoth(text, {{"n", 3}, {"m", 1}});
  // prefix sums of A's column: entries 0, 1, 2 with odd ones scaled by −0.5 → 0, −0.5, 2
  CHECK(out[0].data == std::vector<double>{0, -0.5, 1.5});
}

// ---- the index rules, one by one ----------------------------------------------------------------

TEST_CASE("psiOfPsi", "[psi]") {
  // ⟨j⟩ψ(⟨b g⟩ψ K) = ⟨b g j⟩ψ K: selections compose by concatenating the index vectors
  SymExpr b = var("b"), g = var("g");
  CHECK(strs(psiOfPsi({b, g}, {j})) == std::vector<std::string>{"b", "g", "j"});
  CHECK(strs(psiOfPsi({}, {i, j})) == std::vector<std::string>{"i", "j"});
  CHECK(strs(psiOfPsi({b, SymExpr::floorDiv(g * var("hkv"), var("hq"))}, {})) ==
        std::vector<std::string>{"b", "(hkv*g) div hq"});
  CHECK(strs(psiOfPsi({SymExpr(1)}, {i, j})) == std::vector<std::string>{"1", "i", "j"});
  // shape: ⟨1⟩ψ A of A : ⟨n m p⟩ is ⟨m p⟩, and every index of it reads inside A
  SymVec shape = shapeOf(shapeOfPsi(intVector({SymExpr(1)}), f32({n, m, p})));
  CHECK(strShape(shape) == "⟨m p⟩");
  checkRule(
      shape, {n, m, p}, {{"n", 2}, {"m", 3}, {"p", 2}}, [](const SymVec &idx) { return psiOfPsi({SymExpr(1)}, idx); },
      [](const std::vector<int64_t> &at) { return std::vector<int64_t>{1, at[0], at[1]}; });
}

TEST_CASE("psiOfReduce", "[psi]") {
  // ⟨i j⟩ψ(op/[1] A) = op_l ⟨i l j⟩ψ A: the bound index goes in at the axis reduced
  CHECK(strs(psiOfReduce(1, l, {i, j})) == std::vector<std::string>{"i", "l", "j"});
  CHECK(strs(psiOfReduce(0, l, {i, j})) == std::vector<std::string>{"l", "i", "j"});
  CHECK(strs(psiOfReduce(2, l, {i, j})) == std::vector<std::string>{"i", "j", "l"});
  CHECK(strs(psiOfReduce(0, l, {})) == std::vector<std::string>{"l"});
}

TEST_CASE("psiOfTranspose", "[psi]") {
  // ⟨j l⟩ψ ⍉K = ⟨l j⟩ψ K: the paper's Kᵀ as index arithmetic
  CHECK(strs(psiOfTranspose({j, l})) == std::vector<std::string>{"l", "j"});
  CHECK(strs(psiOfTranspose({i, j, k})) == std::vector<std::string>{"k", "j", "i"});
  CHECK(strs(psiOfTranspose({i})) == std::vector<std::string>{"i"});
  SymVec shape = shapeOf(shapeOfTran(f32({n, m, p})));
  CHECK(strShape(shape) == "⟨p m n⟩");
  checkRule(shape, {n, m, p}, {{"n", 2}, {"m", 3}, {"p", 4}}, psiOfTranspose,
            [](const std::vector<int64_t> &at) { return std::vector<int64_t>{at[2], at[1], at[0]}; });
}

TEST_CASE("psiOfPermute", "[psi]") {
  // the primer's example: ⟨i j k⟩ψ(⟨2 0 1⟩⍉A) = ⟨k i j⟩ψ A
  CHECK(strs(psiOfPermute({2, 0, 1}, {i, j, k})) == std::vector<std::string>{"k", "i", "j"});
  CHECK(strs(psiOfPermute({1, 2, 0}, {i, j, k})) == std::vector<std::string>{"j", "k", "i"});
  CHECK(strs(psiOfPermute({0, 1, 2}, {i, j, k})) == std::vector<std::string>{"i", "j", "k"});
  // ⟨2 1 0⟩ is the reversal: the same as ⍉
  CHECK(psiOfPermute({2, 1, 0}, {i, j, k}) == psiOfTranspose({i, j, k}));
  // shape: result axis p_k has A's extent s_k, so ⟨2 0 1⟩⍉ of ⟨n m p⟩ is ⟨m p n⟩
  SymVec shape = shapeOf(shapeOfTranPerm(intVector({SymExpr(2), SymExpr(0), SymExpr(1)}), f32({n, m, p})));
  CHECK(strShape(shape) == "⟨m p n⟩");
  // numpy: np.transpose(A, argsort(p)) = np.transpose(A, (1, 2, 0)), whose [a b c] is A[c a b]
  checkRule(
      shape, {n, m, p}, {{"n", 2}, {"m", 3}, {"p", 4}},
      [](const SymVec &idx) { return psiOfPermute({2, 0, 1}, idx); },
      [](const std::vector<int64_t> &at) { return std::vector<int64_t>{at[2], at[0], at[1]}; });
}

TEST_CASE("psiOfTake", "[psi]") {
  // 2↑A reads the first rows unchanged; (−2)↑A starts at s₀ − 2
  CHECK(strs(psiOfTake(SymExpr(2), n, {i, j})) == std::vector<std::string>{"i", "j"});
  CHECK(strs(psiOfTake(SymExpr(-2), n, {i, j})) == std::vector<std::string>{"n + i - 2", "j"});
  SymExpr w = var("w");
  CHECK(strs(psiOfTake(-w, n, {i})) == std::vector<std::string>{"n - w + i"});
  CHECK(strShape(shapeOf(shapeOfTake(intScalar(SymExpr(-2)), f32({n, m})))) == "⟨2 m⟩");
  Values dims{{"n", 5}, {"m", 2}};
  checkRule(
      shapeOf(shapeOfTake(intScalar(SymExpr(2)), f32({n, m}))), {n, m}, dims,
      [](const SymVec &idx) { return psiOfTake(SymExpr(2), n, idx); },
      [](const std::vector<int64_t> &at) { return at; });
  // numpy A[-2:]: row i is row n − 2 + i
  checkRule(
      shapeOf(shapeOfTake(intScalar(SymExpr(-2)), f32({n, m}))), {n, m}, dims,
      [](const SymVec &idx) { return psiOfTake(SymExpr(-2), n, idx); },
      [](const std::vector<int64_t> &at) { return std::vector<int64_t>{5 - 2 + at[0], at[1]}; });
}

TEST_CASE("psiOfDrop", "[psi]") {
  CHECK(strs(psiOfDrop(SymExpr(2), {i, j})) == std::vector<std::string>{"i + 2", "j"});
  CHECK(strs(psiOfDrop(SymExpr(-2), {i, j})) == std::vector<std::string>{"i", "j"});
  CHECK(strShape(shapeOf(shapeOfDrop(intScalar(SymExpr(-2)), f32({n, m})))) == "⟨n - 2, m⟩");
  Values dims{{"n", 5}, {"m", 2}};
  // numpy A[2:]
  checkRule(
      shapeOf(shapeOfDrop(intScalar(SymExpr(2)), f32({n, m}))), {n, m}, dims,
      [](const SymVec &idx) { return psiOfDrop(SymExpr(2), idx); },
      [](const std::vector<int64_t> &at) { return std::vector<int64_t>{at[0] + 2, at[1]}; });
  // numpy A[:-2]
  checkRule(
      shapeOf(shapeOfDrop(intScalar(SymExpr(-2)), f32({n, m}))), {n, m}, dims,
      [](const SymVec &idx) { return psiOfDrop(SymExpr(-2), idx); },
      [](const std::vector<int64_t> &at) { return at; });
}

TEST_CASE("psiOfReshape", "[psi]") {
  // ⟨n m⟩ reshape of ⟨m n⟩: γ(⟨i j⟩; ⟨n m⟩) = m·i + j, then γ⁻¹ in ⟨m n⟩
  CHECK(strs(psiOfReshape({n, m}, {m, n}, {i, j})) ==
        std::vector<std::string>{"(m*i + j) div n", "(m*i + j) mod n"});
  // the same shape: γ⁻¹(γ(i)) simplifies to the identity index
  CHECK(strs(psiOfReshape({n, m}, {n, m}, {i, j})) == std::vector<std::string>{"i", "j"});
  // splitting the leading axis: ⟨2 2 n⟩ reshape of ⟨4 n⟩ reads row 2i + j
  CHECK(strs(psiOfReshape({SymExpr(2), SymExpr(2), n}, {SymExpr(4), n}, {i, j, k})) ==
        std::vector<std::string>{"2*i + j", "k"});
  // numpy A.reshape(3, 8) of A : 4 × 6
  SymVec newShape = shapeOf(shapeOfReshape(intVector({SymExpr(3), SymExpr(8)}), f32({SymExpr(4), SymExpr(6)})));
  CHECK(strShape(newShape) == "⟨3 8⟩");
  checkRule(
      newShape, {SymExpr(4), SymExpr(6)}, {},
      [&](const SymVec &idx) { return psiOfReshape(newShape, {SymExpr(4), SymExpr(6)}, idx); },
      [](const std::vector<int64_t> &at) {
        int64_t flat = at[0] * 8 + at[1];
        return std::vector<int64_t>{flat / 6, flat % 6};
      });
  checkRule(
      {m, n}, {n, m}, {{"n", 3}, {"m", 4}}, [](const SymVec &idx) { return psiOfReshape({m, n}, {n, m}, idx); },
      [](const std::vector<int64_t> &at) {
        int64_t flat = at[0] * 3 + at[1];
        return std::vector<int64_t>{flat / 4, flat % 4};
      });
}

TEST_CASE("psiOfRav", "[psi]") {
  CHECK(strs(psiOfRav({n, m}, {i})) == std::vector<std::string>{"i div m", "i mod m"});
  CHECK(strs(psiOfRav({n, m, p}, {i})) == std::vector<std::string>{"i div (m*p)", "(i div p) mod m", "i mod p"});
  CHECK(strs(psiOfRav({n}, {i})) == std::vector<std::string>{"i"});
  SymVec shape = shapeOf(shapeOfRav(f32({n, m, p})));
  CHECK(strShape(shape) == "⟨n*m*p⟩");
  // numpy A.ravel()[i] = A[np.unravel_index(i, A.shape)]
  checkRule(
      shape, {n, m, p}, {{"n", 2}, {"m", 3}, {"p", 4}}, [](const SymVec &idx) { return psiOfRav({n, m, p}, idx); },
      [](const std::vector<int64_t> &at) {
        return std::vector<int64_t>{at[0] / 12, at[0] / 4 % 3, at[0] % 4};
      });
}

// ---- the rules in whole programs ------------------------------------------------------------------

TEST_CASE("psi of psi in a program", "[psi]") {
  const char *text = "dim n, m, p\nin A : f32[n, m, p]\n"
                     "out r = [i < n] <1> psi (<i> psi A)\n"
                     "out s = <0 1> psi A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m p>\n"
                                "out r : f32<n p>\n"
                                "  <i j> psi r = <i 1 j> psi A\n"
                                "out s : f32<p>\n"
                                "  <i> psi s = <0 1 i> psi A\n"
                                "guard 1 < m (psi index within its axis, line 3)\n");
  CHECK(test::rulesOf(r.dnf).count("psi of psi"));
  evaluateBoth(text, {{"n", 2}, {"m", 3}, {"p", 2}});
}

TEST_CASE("transpose in a program: no K transpose, K read with swapped index", "[psi]") {
  const char *text = "dim n, dk\nin q : f32[dk]\nin K : f32[n, dk]\nout s = q +.* tran K\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in q : f32<dk>\n"
                                "in K : f32<n dk>\n"
                                "out s : f32<n>\n"
                                "  <i> psi s = sum_{j<dk} <j> psi q * <i j> psi K\n");
  // only the inputs and the output exist: nothing of shape ⟨dk n⟩
  CHECK(r.dnf.arrays.size() == 3);
  bool noted = false;
  for (const TraceBlock &b : r.dnf.trace)
    for (const TraceStep &s : b.steps)
      if (s.rule == "transpose") {
        CHECK(s.after.find("ψ K") != std::string::npos);
        noted = s.note == "the transpose of K is never formed";
      }
  CHECK(noted);
  evaluateBoth(text, {{"n", 3}, {"dk", 4}});
}

TEST_CASE("permute in a program, rank 3", "[psi]") {
  const char *text = "dim a, b, c\nin A : f32[a, b, c]\nout P = <2 0 1> tran A\n"
                     "out U = <1 2 0> tran (<2 0 1> tran A)\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<a b c>\n"
                                "out P : f32<b c a>\n"
                                "  <i j k> psi P = <k i j> psi A\n"
                                "out U : f32<a b c>\n"
                                "  <i j k> psi U = <i j k> psi A\n"); // inverse permutations cancel
  CHECK(test::rulesOf(r.dnf).count("permute"));
  evaluateBoth(text, {{"a", 2}, {"b", 3}, {"c", 4}});
}

TEST_CASE("take in a program, negative count", "[psi]") {
  const char *text = "dim n, m, w\nin A : f32[n, m]\n"
                     "out t1 = 2 take A\nout t2 = (-2) take A\nout t3 = (-w) take A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out t1 : f32<2 m>\n"
                                "  <i j> psi t1 = <i j> psi A\n"
                                "out t2 : f32<2 m>\n"
                                "  <i j> psi t2 = <n + i - 2, j> psi A\n"
                                "out t3 : f32<w m>\n"
                                "  <i j> psi t3 = <n - w + i, j> psi A\n"
                                "guard 2 <= n (take count within the leading extent, line 3)\n"
                                "guard w <= n (take count within the leading extent, line 5)\n");
  CHECK(test::rulesOf(r.dnf).count("take"));
  std::vector<NDArray> out = evaluateBoth(text, {{"n", 5}, {"m", 2}, {"w", 3}});
  // the last two rows of A: A[3], A[4], entries 6 … 9 (odd entries scaled by −0.5)
  CHECK(out[1].data == std::vector<double>{6, -3.5, 8, -4.5});
}

TEST_CASE("drop in a program, negative count", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nout d1 = 2 drop A\nout d2 = (-2) drop A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out d1 : f32<n - 2, m>\n"
                                "  <i j> psi d1 = <i + 2, j> psi A\n"
                                "out d2 : f32<n - 2, m>\n"
                                "  <i j> psi d2 = <i j> psi A\n"
                                "guard 2 <= n (drop count within the leading extent, line 3)\n");
  CHECK(test::rulesOf(r.dnf).count("drop"));
  evaluateBoth(text, {{"n", 5}, {"m", 2}});
}

TEST_CASE("cat in a program: a case split on the leading index", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nin B : f32[2, m]\nin k : f32[m]\n"
                     "out C = A cat B\nout D = k cat A\nout E = A cat k\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "in B : f32<2 m>\n"
                                "in k : f32<m>\n"
                                "out C : f32<n + 2, m>\n"
                                "  <i j> psi C = i < n ? <i j> psi A : <-n + i, j> psi B\n"
                                "out D : f32<n + 1, m>\n"
                                "  <i j> psi D = i < 1 ? <j> psi k : <i - 1, j> psi A\n"
                                "out E : f32<n + 1, m>\n"
                                "  <i j> psi E = i < n ? <i j> psi A : <j> psi k\n");
  CHECK(test::rulesOf(r.dnf).count("cat"));
  // the boundary: row a₀ − 1 is A's last row, row a₀ is B's first (k itself for E)
  const int64_t rows = 3, cols = 2;
  DimValues dims = dimValues(r, {{"n", rows}, {"m", cols}});
  std::vector<NDArray> inputs = inputsFor(*r.typed, dims);
  std::vector<NDArray> out = evaluateDnf(r.dnf, dims, inputs);
  const NDArray &A = inputs[0], &B = inputs[1], &kk = inputs[2];
  for (int64_t c = 0; c < cols; ++c) {
    CHECK(out[0].data[size_t((rows - 1) * cols + c)] == A.data[size_t((rows - 1) * cols + c)]);
    CHECK(out[0].data[size_t(rows * cols + c)] == B.data[size_t(c)]);
    CHECK(out[1].data[size_t(c)] == kk.data[size_t(c)]);
    CHECK(out[1].data[size_t(cols + c)] == A.data[size_t(c)]);
    CHECK(out[2].data[size_t((rows - 1) * cols + c)] == A.data[size_t((rows - 1) * cols + c)]);
    CHECK(out[2].data[size_t(rows * cols + c)] == kk.data[size_t(c)]);
  }
  evaluateBoth(text, {{"n", rows}, {"m", cols}});
}

TEST_CASE("cat in a program: a reduction hoisted out of one branch keeps the branch's condition", "[psi]") {
  // ⟨i j⟩ψ Z = (i < n ? Σ A[i]·c : Σ B[i−n]·c) × d[j]: both sums are invariant in j and are stored over
  // i < 2n; computing Σ B[i−n]·c for i < n would read B[−n …], so the temp keeps the select.
  const char *text = "dim n, m\nin A : f32[n, m]\nin B : f32[n, m]\nin c : f32[m]\nin d : f32[2]\n"
                     "out Z = ((A +.* c) cat (B +.* c)) o.* d\n";
  CHECK(dnfOf(text) == "in A : f32<n m>\n"
                       "in B : f32<n m>\n"
                       "in c : f32<m>\n"
                       "in d : f32<2>\n"
                       "temp dot : f32<2*n>   # a reduction invariant in an enclosing index, computed once\n"
                       "  <i> psi dot = i < n ? sum_{j<m} <i j> psi A * <j> psi c : 0\n"
                       "temp dot_2 : f32<2*n>   # a reduction invariant in an enclosing index, computed once\n"
                       "  <i> psi dot_2 = i < n ? 0 : sum_{j<m} <-n + i, j> psi B * <j> psi c\n"
                       "out Z : f32<2*n, 2>\n"
                       "  <i j> psi Z = (i < n ? <i> psi dot : <i> psi dot_2) * <j> psi d\n");
  evaluateBoth(text, {{"n", 3}, {"m", 2}});
  // the same for exp of data hoisted out of a branch
  evaluateBoth("dim n\nin A : f32[n]\nin B : f32[n, 3]\nX = [i < n, j < 3] exp(<i> psi A)\nout Y = X cat B\n",
               {{"n", 3}});
}

TEST_CASE("reshape in a program: gamma then gamma inverse", "[psi]") {
  const char *text = "dim n = 4, m = 6\nin A : f32[n, m]\n"
                     "out B = <3 8> reshape A\nout C = <2 3 4> reshape A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<4 6>\n"
                                "out B : f32<3 8>\n"
                                "  <i j> psi B = <(8*i + j) div 6, (8*i + j) mod 6> psi A\n"
                                "out C : f32<2 3 4>\n"
                                "  <i j k> psi C = <(12*i + 4*j + k) div 6, (12*i + 4*j + k) mod 6> psi A\n");
  CHECK(test::rulesOf(r.dnf).count("reshape"));
  evaluateBoth(text, {});
}

TEST_CASE("rav in a program, and reshape of rav round trips to the identity index", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\n"
                     "out R = rav A\n"
                     "out S = <n m> reshape rav A\n"
                     "out T = (rho A) reshape rav A\n"
                     "out U = rav (<n m> reshape rav A)\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out R : f32<n*m>\n"
                                "  <i> psi R = <i div m, i mod m> psi A\n"
                                "out S : f32<n m>\n"
                                "  <i j> psi S = <i j> psi A\n"
                                "out T : f32<n m>\n"
                                "  <i j> psi T = <i j> psi A\n"
                                "out U : f32<n*m>\n"
                                "  <i> psi U = <i div m, i mod m> psi A\n");
  CHECK(test::rulesOf(r.dnf).count("rav"));
  evaluateBoth(text, {{"n", 3}, {"m", 4}});
  // fixed dims take the same path: <4 6> reshape rav A is A
  CHECK(dnfOf("dim n = 4, m = 6\nin A : f32[n, m]\nout E = <4 6> reshape rav A\n") ==
        "in A : f32<4 6>\nout E : f32<4 6>\n  <i j> psi E = <i j> psi A\n");
}

TEST_CASE("reshape across non-divisible constant factors is rejected at compile time", "[psi]") {
  // 16 elements cannot be ⟨3 5⟩ (15): the shape checker rejects it before ψ-reduction
  test::Checked c = test::checkText("in A : f32[16]\nout B = <3 5> reshape A\n");
  CHECK_FALSE(c.program);
  CHECK(c.diags.find("error: reshape changes the number of elements: 16 to 15") != std::string::npos);
  c = test::checkText("in A : f32[4, 4]\nout B = <3 5> reshape A\n");
  CHECK_FALSE(c.program);
  CHECK(c.diags.find("16 to 15") != std::string::npos);
  RuleResult rule = shapeOfReshape(intVector({SymExpr(3), SymExpr(5)}), f32({SymExpr(16)}));
  CHECK_FALSE(rule.ok());
}

TEST_CASE("iota in a program", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nout y = x * iota n\nout s = +/ iota n\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "out y : f32<n>\n"
                                "  <i> psi y = <i> psi x * i\n"
                                "out s : int<>\n"
                                "  s = sum_{i<n} i\n");
  CHECK(test::rulesOf(r.dnf).count("iota"));
  std::vector<NDArray> out = evaluateBoth(text, {{"n", 4}});
  CHECK(out[1].data == std::vector<double>{6});
}

TEST_CASE("rho in a program", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nout v = (rho A) * 2\nout s = +/ rho A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out v : int<2>\n"
                                "  <i> psi v = (i < 1 ? n : m) * 2\n"
                                "out s : int<>\n"
                                "  s = sum_{i<2} i < 1 ? n : m\n");
  CHECK(test::rulesOf(r.dnf).count("rho"));
  std::vector<NDArray> out = evaluateBoth(text, {{"n", 3}, {"m", 5}});
  CHECK(out[0].data == std::vector<double>{6, 10});
  CHECK(out[1].data == std::vector<double>{8});
}

TEST_CASE("scalar extension in a program", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nin t : f32\nout a = 2.5 * x\nout b = x - t\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "in t : f32<>\n"
                                "out a : f32<n>\n"
                                "  <i> psi a = 2.5 * <i> psi x\n"
                                "out b : f32<n>\n"
                                "  <i> psi b = <i> psi x - t\n");
  CHECK(test::rulesOf(r.dnf).count("scalar extension"));
  evaluateBoth(text, {{"n", 3}});
}

TEST_CASE("elementwise in a program", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nin B : f32[n, m]\nout C = exp(A - B) * A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "in B : f32<n m>\n"
                                "out C : f32<n m>\n"
                                "  <i j> psi C = exp(<i j> psi A - <i j> psi B) * <i j> psi A\n");
  CHECK(test::rulesOf(r.dnf).count("elementwise"));
  evaluateBoth(text, {{"n", 2}, {"m", 3}});
}

TEST_CASE("where in a program: the index goes to the condition and both branches", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nin y : f32[n]\nout a = where(x > y, x, y * 2.0)\n"
                     "out b = [i < n, j < n] where(j <= i, <j> psi x, -inf)\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "in y : f32<n>\n"
                                "out a : f32<n>\n"
                                "  <i> psi a = where(<i> psi x > <i> psi y, <i> psi x, <i> psi y * 2)\n"
                                "out b : f32<n n>\n"
                                "  <i j> psi b = where(j <= i, <j> psi x, -inf)\n");
  CHECK(test::rulesOf(r.dnf).count("where"));
  evaluateBoth(text, {{"n", 4}});
}

TEST_CASE("where in a program: a constant condition keeps only its branch", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nout a = where(n >= 1, x, -x)\nout b = where(not (2 < 1), x, -x)\n";
  CHECK(dnfOf(text) == "in x : f32<n>\n"
                       "out a : f32<n>\n"
                       "  <i> psi a = where(n >= 1, <i> psi x, -(<i> psi x))\n"
                       "out b : f32<n>\n"
                       "  <i> psi b = <i> psi x\n");
}

TEST_CASE("comparisons of indices that differ by a constant are decided at compile time", "[psi]") {
  // C compilers reject `i != i` under -Wall -Werror (a self-comparison), so none reaches the kernel
  const char *text = "dim n\nin x : f32[n]\nout y = [i < n] where(i == i and i + 1 > i, <i> psi x, 0.0) + (i != i)\n";
  CHECK(dnfOf(text) == "in x : f32<n>\n"
                       "out y : f32<n>\n"
                       "  <i> psi y = <i> psi x + 0\n");
}

TEST_CASE("comparisons their operands decide are decided: equal operands, a truth value against a constant",
          "[psi]") {
  // gcc -Wtautological-compare (`o[0] <= o[0]` of an int array) and -Wbool-compare (`(x > y) <= 4`) reject
  // these under -Werror; x < x is 0 even for NaN, while the float x == x (false for NaN) stays
  const char *text = "dim n\ndim B = 4\nin x : f32[n]\nin y : f32[n]\nout o = x > y\n"
                     "out p = ((<0> psi o) <= (<0> psi o)) + ((x > y) <= B) + ((x <= y) == 2) + (x < x) + (x == x)\n";
  CHECK(dnfOf(text) == "in x : f32<n>\n"
                       "in y : f32<n>\n"
                       "out o : int<n>\n"
                       "  <i> psi o = <i> psi x > <i> psi y\n"
                       "out p : int<n>\n"
                       "  <i> psi p = 2 + (<i> psi x == <i> psi x)\n");
}

TEST_CASE("comparisons and logic in a program: int 0 or 1", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nout a = [i < n] ((i < 2) or not (<i> psi x >= 0.0)) * 1.5\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "out a : f32<n>\n"
                                "  <i> psi a = ((i < 2) or not(<i> psi x >= 0)) * 1.5\n");
  std::vector<NDArray> got = evaluateBoth(text, {{"n", 5}});
  // x = 0, -0.5, 2, -1.5, 4: i < 2 for the first two, x < 0 for the fourth
  CHECK(got[0].data == std::vector<double>{1.5, 1.5, 0, 1.5, 0});
}

TEST_CASE("reduce in a program: a new binder over the leading axis", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nout c = +/ A\nout t = max/ +/ A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out c : f32<m>\n"
                                "  <i> psi c = sum_{j<n} <j i> psi A\n"
                                "out t : f32<>\n"
                                "  t = max_{i<m} <i> psi c\n"); // the column sums are c's (Cse.h)
  CHECK(test::rulesOf(r.dnf).count("reduce"));
  evaluateBoth(text, {{"n", 3}, {"m", 4}});
}

TEST_CASE("reduce along an axis in a program: the binder goes in at that axis", "[psi]") {
  const char *text = "dim n, m, p\nin A : f32[n, m, p]\nout r = +/[1] A\nout s = min/[2] A\nout t = */[1] +/[1] A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m p>\n"
                                "out r : f32<n p>\n"
                                "  <i j> psi r = sum_{k<m} <i k j> psi A\n"
                                "out s : f32<n m>\n"
                                "  <i j> psi s = min_{k<p} <i j k> psi A\n"
                                "out t : f32<n>\n"
                                "  <i> psi t = prod_{j<p} <i j> psi r\n"); // the sums over m are r's (Cse.h)
  evaluateBoth(text, {{"n", 2}, {"m", 3}, {"p", 4}});
}

TEST_CASE("right folds in a program: -/ and ÷/ keep their order, x0 op (x1 op (…))", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\nin x : f32[n]\nin y : f32[m]\n"
                     "out a = -/ x\nout b = ÷/ (abs x + 1.0)\nout c = −/[1] A\nout d = A -.* y\n"
                     "out e = (abs A + 1.0) ÷.+ y\nout f = -/ iota n\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "in x : f32<n>\n"
                                "in y : f32<m>\n"
                                "out a : f32<>\n"
                                "  a = rsub_{i<n} <i> psi x\n"
                                "out b : f32<>\n"
                                "  b = rdiv_{i<n} abs(<i> psi x) + 1\n"
                                "out c : f32<n>\n"
                                "  <i> psi c = rsub_{j<m} <i j> psi A\n"
                                "out d : f32<n>\n"
                                "  <i> psi d = rsub_{j<m} <i j> psi A * <j> psi y\n"
                                "out e : f32<n>\n"
                                "  <i> psi e = rdiv_{j<m} abs(<i j> psi A) + 1 + <j> psi y\n"
                                "out f : int<>\n"
                                "  f = rsub_{i<n} i\n");
  std::vector<NDArray> out = evaluateBoth(text, {{"n", 5}, {"m", 3}});
  // x = 100, -50.5, 102, -51.5, 104: 100 − (−50.5 − (102 − (−51.5 − 104))) = 100 + 50.5 + 102 + 51.5 + 104
  CHECK(out[0].data == std::vector<double>{408});
  CHECK(out[5].data == std::vector<double>{2}); // 0 − (1 − (2 − (3 − 4)))
  bool noted = false;
  for (const TraceBlock &b : r.dnf.trace)
    for (const TraceStep &s : b.steps)
      noted |= s.rule == "reduce" && s.note.find("a right fold") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("inner product in a program: a new bound index", "[psi]") {
  const char *text = "dim m, k, p\nin A : f32[m, k]\nin B : f32[k, p]\nout C = A +.* B\nout D = A max.+ B\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<m k>\n"
                                "in B : f32<k p>\n"
                                "out C : f32<m p>\n"
                                "  <i j> psi C = sum_{l<k} <i l> psi A * <l j> psi B\n"
                                "out D : f32<m p>\n"
                                "  <i j> psi D = max_{l<k} <i l> psi A + <l j> psi B\n");
  CHECK(test::rulesOf(r.dnf).count("inner product"));
  evaluateBoth(text, {{"m", 2}, {"k", 3}, {"p", 4}});
}

TEST_CASE("outer product in a program", "[psi]") {
  const char *text = "dim n, m\nin x : f32[n]\nin Y : f32[m, 2]\nout O = x o.* Y\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "in Y : f32<m 2>\n"
                                "out O : f32<n m 2>\n"
                                "  <i j k> psi O = <i> psi x * <j k> psi Y\n");
  CHECK(test::rulesOf(r.dnf).count("outer product"));
  evaluateBoth(text, {{"n", 3}, {"m", 2}});
}

TEST_CASE("comprehension in a program: the index is bound to the leading entries", "[psi]") {
  const char *text = "dim n, m\nin A : f32[n, m]\n"
                     "out T = [j < m, i < n] <i j> psi A\n"
                     "out R = [i < n] +/ <i> psi A\n"
                     "out S = [i < n - 1] <i + 1> psi A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in A : f32<n m>\n"
                                "out T : f32<m n>\n"
                                "  <i j> psi T = <j i> psi A\n"
                                "out R : f32<n>\n"
                                "  <i> psi R = sum_{j<m} <i j> psi A\n"
                                "out S : f32<n - 1, m>\n"
                                "  <i j> psi S = <i + 1, j> psi A\n"
                                "guard 1 <= n - 1 (comprehension extent positive, line 5)\n");
  CHECK(test::rulesOf(r.dnf).count("comprehension"));
  evaluateBoth(text, {{"n", 3}, {"m", 4}});
}

TEST_CASE("inline: function application substitutes the body", "[psi]") {
  const char *text = "dim n\nin x : f32[n]\nfn sq(v) = v * v\nfn twice(v) { w = v + v; w }\n"
                     "out y = sq(x) + twice(x)\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "out y : f32<n>\n"
                                "  <i> psi y = <i> psi x * <i> psi x + (<i> psi x + <i> psi x)\n");
  CHECK(test::rulesOf(r.dnf).count("inline"));
  evaluateBoth(text, {{"n", 3}});
}

TEST_CASE("stored: named bindings with a reduction are materialised, the rest inlined (decode)", "[psi]") {
  Reduced r = reduceText(decode);
  CHECK(dumpDnf(r.dnf, true) ==
        "in q : f32<dk>\n"
        "in K : f32<n dk>\n"
        "in V : f32<n dv>\n"
        "temp s : f32<n>   # named binding with a reduction\n"
        "  <i> psi s = (sum_{j<dk} <j> psi q * <i j> psi K) / sqrt(dk)\n"
        "temp m : f32<>   # softmax's 'm', a reduction\n"
        "  m = max_{i<n} <i> psi s\n"
        "temp sum_e : f32<>   # a reduction invariant in an enclosing index, computed once\n"
        "  sum_e = sum_{i<n} exp(<i> psi s - m)\n"
        "temp p : f32<n>   # exp/log/sqrt of data invariant in an enclosing index, computed once\n"
        "  <i> psi p = exp(<i> psi s - m) / sum_e\n"
        "out o : f32<dv>\n"
        "  <i> psi o = sum_{j<n} <j> psi p * <j i> psi V\n");
  // s, m and the hoisted Σ e are stored; softmax's x and e are not arrays of their own
  std::set<std::string> stored;
  for (const DnfArray &a : r.dnf.arrays)
    if (a.storage == Storage::Temp)
      stored.insert(a.name);
  CHECK(stored == std::set<std::string>{"s", "m", "sum_e", "p"});
  std::set<std::string> titles;
  for (const TraceBlock &b : r.dnf.trace)
    titles.insert(b.title);
  CHECK(titles.count("x — inlined where it is used (from softmax)"));
  CHECK(titles.count("e — inlined where it is used (from softmax)"));
  CHECK(titles.count("s — stored: it contains a reduction"));
  evaluateBoth(decode, {{"n", 5}, {"dk", 3}, {"dv", 4}});
}

TEST_CASE("stored: a binding inside a comprehension is stored over the indices it uses (gqa)", "[psi]") {
  std::string dnf = dnfOf(gqa);
  CHECK(dnf.find("temp x : f32<B hq n>   # softmax's 'x', a reduction\n"
                 "  <i j k> psi x = (sum_{l<dk} <i j l> psi Q * <i, (hkv*j) div hq, k, l> psi K) / sqrt(dk)\n") !=
        std::string::npos);
  CHECK(dnf.find("temp m : f32<B hq>   # softmax's 'm', a reduction\n"
                 "  <i j> psi m = max_{k<n} <i j k> psi x\n") != std::string::npos);
  evaluateBoth(gqa, {{"B", 2}, {"hq", 4}, {"hkv", 2}, {"n", 3}, {"dk", 2}, {"dv", 3}});
}

TEST_CASE("hoist: a reduction invariant in an enclosing index is computed once", "[psi]") {
  const char *text = "dim n, m\nin x : f32[n]\nin A : f32[n, m]\n"
                     "out y = x / (+/ x)\n"
                     "out Z = [i < n, j < m] (<i j> psi A) * (max/ <i> psi A)\n"
                     "out W = [i < n] +/ [j < m] (+/ <j> psi (tran A)) * <i j> psi A\n";
  Reduced r = reduceText(text);
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n>\n"
                                "in A : f32<n m>\n"
                                "temp sum : f32<>   # a reduction invariant in an enclosing index, computed once\n"
                                "  sum = sum_{i<n} <i> psi x\n"
                                "out y : f32<n>\n"
                                "  <i> psi y = <i> psi x / sum\n"
                                "temp max : f32<n>   # a reduction invariant in an enclosing index, computed once\n"
                                "  <i> psi max = max_{j<m} <i j> psi A\n"
                                "out Z : f32<n m>\n"
                                "  <i j> psi Z = <i j> psi A * <i> psi max\n"
                                "temp sum_2 : f32<m>   # a reduction invariant in an enclosing index, computed once\n"
                                "  <i> psi sum_2 = sum_{j<n} <j i> psi A\n"
                                "out W : f32<n>\n"
                                "  <i> psi W = sum_{j<m} <j> psi sum_2 * <i j> psi A\n");
  CHECK(test::rulesOf(r.dnf).count("hoist"));
  evaluateBoth(text, {{"n", 3}, {"m", 4}});
}

// The interpreter and the DNF evaluator bind dims, check guards and write an update back by one core
// (reference/EvalCore.h): the same error, with the same message and location, and the same storage.
TEST_CASE("evaluators: dims, guards and the update's write-back are shared (EvalCore)", "[psi][eval]") {
  const std::string text = "dim t, cap\n"
                           "dim w = 2\n"
                           "in k : f32[w]\n"
                           "inout K : f32[cap]\n"
                           "K = (t take K) cat k\n"
                           "out y = +/ K\n";
  Reduced r = reduceText(text);
  auto sameError = [&](const Values &values, const std::string &message) {
    DimValues dims = dimValues(r, values);
    std::vector<NDArray> inputs{NDArray{{2}, {1, 2}}, NDArray{{6}, {10, 20, 30, 40, 50, 60}}};
    std::optional<EvalError> interpreted, evaluated;
    try {
      interpret(*r.typed, dims, inputs, InterpretOptions{true});
    } catch (const EvalError &e) {
      interpreted = e;
    }
    try {
      evaluateDnf(r.dnf, dims, inputs);
    } catch (const EvalError &e) {
      evaluated = e;
    }
    REQUIRE(interpreted);
    REQUIRE(evaluated);
    CHECK(std::string(interpreted->what()) == message);
    CHECK(std::string(evaluated->what()) == message);
    CHECK(interpreted->loc.line == evaluated->loc.line);
    CHECK(interpreted->loc.col == evaluated->loc.col);
  };
  sameError({{"t", 1}}, "no value for dim 'cap'");
  sameError({{"t", 1}, {"cap", 6}, {"w", 3}}, "dim 'w' is fixed to 2 by the program, not 3");
  sameError({{"t", 1}, {"cap", -6}}, "dim 'cap' must be a positive integer, not -6");
  sameError({{"t", 5}, {"cap", 6}},
            "shape check 't + 2 <= cap' does not hold: 7 <= 6 is false (update within the inout's storage)");
  // the update writes rows 0 … t + 1 of K's storage, the rest stays
  DimValues dims = dimValues(r, {{"t", 2}, {"cap", 6}});
  std::vector<NDArray> inputs{NDArray{{2}, {1, 2}}, NDArray{{6}, {10, 20, 30, 40, 50, 60}}};
  std::vector<NDArray> expected = interpret(*r.typed, dims, inputs, InterpretOptions{true});
  std::vector<NDArray> got = evaluateDnf(r.dnf, dims, inputs);
  REQUIRE(got.size() == 2);
  REQUIRE(expected.size() == 2);
  CHECK(expected[1].data == std::vector<double>{10, 20, 1, 2, 50, 60});
  CHECK(got[1].data == expected[1].data);
  CHECK(got[0].data == expected[0].data);
}
