// Unit tests of the online-softmax rewrite (compiler/psi/Fuse.{h,cpp}): which reduction groups it
// recognises (by the DNF's shape: renamed bindings, the normaliser written out, extra weights), which
// it leaves alone, what it stores afterwards, the rule in the trace, and the fused DNF evaluated
// (DnfEval runs the group's monoid over three splits) against the reference interpreter.
#include "FrontEnd.h"

#include "DnfAgreement.h"
#include "DnfEval.h"
#include "Fuse.h"
#include "Interpreter.h"
#include "Psi.h"

#include <algorithm>
#include <cmath>
#include <set>

using namespace moac;

namespace {

struct Fused {
  std::shared_ptr<CompilationContext> ctx; // first: the program's symbols point into it
  std::optional<TypedProgram> typed;
  DnfProgram dnf;
};

Fused fuseText(const std::string &text) {
  test::Checked checked = test::checkText(text);
  INFO(checked.diags);
  REQUIRE(checked.program);
  Fused out{checked.ctx, std::move(checked.program), {}};
  out.dnf = psiReduce(*out.ctx, *out.typed);
  fuseReductions(*out.ctx, out.dnf);
  return out;
}

std::vector<std::string> storedTemps(const DnfProgram &dnf) {
  std::vector<std::string> out;
  for (size_t id : dnf.order)
    if (dnf.arrays[id].storage == Storage::Temp)
      out.push_back(dnf.arrays[id].name);
  return out;
}

std::vector<std::string> memberNames(const FusedGroup &g) {
  std::vector<std::string> out;
  for (const FusedMember &m : g.members)
    out.push_back(m.name);
  return out;
}

// Interpreter and fused DNF on the same inputs (DnfAgreement.h).
void agrees(const Fused &f, const DimValues &dims) {
  test::dnfAgreesWithInterpreter(*f.typed, f.dnf, dims);
}

DimValues dimsOf(const Fused &f, std::initializer_list<std::pair<const char *, int64_t>> values) {
  DimValues out;
  for (auto [name, v] : values)
    out[f.ctx->symbols.intern(name)] = v;
  return out;
}

const char *decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                     "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                     "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";

} // namespace

TEST_CASE("decode fuses into one group: m, the normaliser and o, the scores inlined, nothing stored", "[fuse]") {
  Fused f = fuseText(decode);
  REQUIRE(f.dnf.groups.size() == 1);
  CHECK(memberNames(f.dnf.groups[0]) == std::vector<std::string>{"m", "sum_e", "o"});
  CHECK(storedTemps(f.dnf).empty()); // s, m, sum_e and p are gone
  REQUIRE(f.dnf.order.size() == 1);
  std::string dnf = dumpDnf(f.dnf, true);
  INFO(dnf);
  CHECK(dnf.find("fused online : f32<>, i < n") != std::string::npos);
  CHECK(dnf.find("e_i = (sum_{k<dk} <k> psi q * <i k> psi K) / sqrt(dk)") != std::string::npos);
  CHECK(dnf.find("<j> psi o = sum_{i<n} exp(e_i - m) * <i j> psi V") != std::string::npos);
  CHECK(dnf.find("<i> psi o = <i> psi online.o / online.sum_e") != std::string::npos);
  std::set<std::string> rules = test::rulesOf(f.dnf);
  CHECK(rules.count("online softmax"));
  CHECK(rules.count("invariant divisor"));
  CHECK(rules.count("score inlined"));
  for (int64_t n : {1, 2, 3, 4, 7, 40})
    agrees(f, dimsOf(f, {{"n", n}, {"dk", 3}, {"dv", 2}}));
}

TEST_CASE("recognised by shape, not by names: other names, the normaliser written out", "[fuse]") {
  Fused f = fuseText("dim n, d\nin a : f64[n]\nin W : f64[n, d]\n"
                     "top = max/ a\nw = exp(a - top)\nz = +/ w\nout r = (w / z) +.* W\n");
  REQUIRE(f.dnf.groups.size() == 1);
  CHECK(memberNames(f.dnf.groups[0]) == std::vector<std::string>{"top", "z", "r"});
  CHECK(storedTemps(f.dnf).empty());
  for (int64_t n : {1, 5, 9})
    agrees(f, dimsOf(f, {{"n", n}, {"d", 4}}));
}

TEST_CASE("a weighted sum with any weight, and logsumexp, read the group's members", "[fuse]") {
  // logsumexp m + log Σ exp(x − m), and Σ exp(x − m)·x·x with the weight x·x
  Fused f = fuseText("dim n, d\nin x : f64[n]\nin W : f64[n, d]\nm = max/ x\nz = +/ exp(x - m)\n"
                     "out lse = m + log(z)\nout second = (exp(x - m) * x * x) +.* W\n");
  REQUIRE(f.dnf.groups.size() == 1);
  CHECK(memberNames(f.dnf.groups[0]) == std::vector<std::string>{"m", "z", "second"});
  CHECK(storedTemps(f.dnf).empty());
  for (int64_t n : {1, 2, 6})
    agrees(f, dimsOf(f, {{"n", n}, {"d", 3}}));
  // a sum inside a larger expression is not fused (yet): it reads the group's m and runs a pass of its own
  Fused inner = fuseText("dim n\nin x : f64[n]\nm = max/ x\nz = +/ exp(x - m)\n"
                         "out mean2 = (+/ (exp(x - m) * x * x)) / z\n");
  CHECK(memberNames(inner.dnf.groups.at(0)) == std::vector<std::string>{"m", "z"});
  agrees(inner, dimsOf(inner, {{"n", 5}}));
}

TEST_CASE("GQA fuses over the frame of batch and query head", "[fuse]") {
  Fused f = fuseText("dim B, hq, hkv, n, dk, dv\nin Q : f32[B, hq, dk]\nin K : f32[B, hkv, n, dk]\n"
                     "in V : f32[B, hkv, n, dv]\n"
                     "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                     "fn attend(q, K, V) = softmax((q +.* tran K) / sqrt(dk)) +.* V\n"
                     "out O = [b < B, g < hq] attend(<b g> psi Q, <b, g * hkv div hq> psi K, "
                     "<b, g * hkv div hq> psi V)\n");
  REQUIRE(f.dnf.groups.size() == 1);
  CHECK(f.dnf.groups[0].frame.size() == 2);
  CHECK(storedTemps(f.dnf).empty());
  agrees(f, dimsOf(f, {{"B", 2}, {"hq", 4}, {"hkv", 2}, {"n", 5}, {"dk", 3}, {"dv", 2}}));
}

TEST_CASE("a half-precision output is stored from the fused combine: its f32 accumulator inlined", "[fuse]") {
  // V in f32: the agreement harness seeds values a bf16 input would round; the rounding on store is the point
  const std::string head = "dim n, dv\nin s : f32[n]\nin V : f32[n, dv]\n"
                           "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n";
  Fused f = fuseText(head + "out o : bf16 = softmax(s) +.* V\n");
  CHECK(storedTemps(f.dnf).empty()); // o_acc is gone: o reads the group's members
  std::string dnf = dumpDnf(f.dnf, true);
  INFO(dnf);
  CHECK(dnf.find("<i> psi o = <i> psi online.o_acc / online.sum_e") != std::string::npos);
  std::set<std::string> rules = test::rulesOf(f.dnf);
  CHECK(rules.count("accumulator inlined"));
  for (int64_t n : {1, 3, 40})
    agrees(f, dimsOf(f, {{"n", n}, {"dv", 3}}));
  // another array reads the accumulator too (shared by CSE): it stays, and o copies it
  Fused shared = fuseText(head + "out o : bf16 = softmax(s) +.* V\nout w = (softmax(s) +.* V) + 1\n");
  CHECK(storedTemps(shared.dnf) == std::vector<std::string>{"o_acc"});
  agrees(shared, dimsOf(shared, {{"n", 7}, {"dv", 2}}));
  // an f32 output has no accumulator: nothing to inline
  Fused plain = fuseText(head + "out o = softmax(s) +.* V\n");
  CHECK(test::rulesOf(plain.dnf).count("accumulator inlined") == 0);
}

TEST_CASE("prefill: one group per query row, no ⟨n n⟩ temp left", "[fuse]") {
  Fused f = fuseText("dim n, dk, dv\nin Q : f32[n, dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                     "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                     "S = (Q +.* tran K) / sqrt(dk)\nA = [i < n] softmax(<i> psi S)\nout O = A +.* V\n");
  REQUIRE(f.dnf.groups.size() == 1);
  CHECK(f.dnf.groups[0].frame.size() == 1);
  CHECK(storedTemps(f.dnf).empty());
  agrees(f, dimsOf(f, {{"n", 6}, {"dk", 3}, {"dv", 2}}));
}

TEST_CASE("causal prefill with (i + 1) take K: one group over the triangular range l < i + 1", "[fuse]") {
  Fused f = fuseText("dim n, dk, dv\nin Q : f32[n, dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                     "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                     "out O = [i < n] softmax(((i + 1) take K) +.* (<i> psi Q) / sqrt(dk)) +.* ((i + 1) take V)\n");
  REQUIRE(f.dnf.groups.size() == 1);
  const FusedGroup &g = f.dnf.groups[0];
  REQUIRE(g.frame.size() == 1);
  CHECK(g.extent == SymExpr::symbol(g.frame[0]) + 1);
  CHECK(storedTemps(f.dnf).empty());
  for (int64_t rows : {1, 2, 7})
    agrees(f, dimsOf(f, {{"n", rows}, {"dk", 3}, {"dv", 2}}));
}

TEST_CASE("a range that is empty at some row (l < i) stays unfused", "[fuse]") {
  Fused f = fuseText("dim n\nin x : f64[n]\n"
                     "out z = [i < n] +/ exp((i take x) - max/ (i take x))\n");
  CHECK(f.dnf.groups.empty());
}

TEST_CASE("left alone: no exp against the max, another range, the max read outside the exp", "[fuse]") {
  // Σ exp(x − m) over a different range than max
  CHECK(fuseText("dim n\nin x : f64[n]\nin y : f64[n + 1]\nm = max/ x\nout z = +/ exp(y - m)\n").dnf.groups.empty());
  // exp of something else against m
  CHECK(fuseText("dim n\nin x : f64[n]\nin y : f64[n]\nm = max/ x\nout z = +/ exp(y - m)\n").dnf.groups.empty());
  // m read in the weight as well: not a sum of exp(e − m)·h with h free of m
  CHECK(fuseText("dim n\nin x : f64[n]\nm = max/ x\nout z = +/ (exp(x - m) * (x - m))\n").dnf.groups.empty());
  // a plain max is still a plain max
  Fused plain = fuseText("dim n\nin x : f64[n]\nout m = max/ x\n");
  CHECK(plain.dnf.groups.empty());
  CHECK(plain.dnf.arrays[plain.dnf.order[0]].body->kind == DKind::Reduce);
}

TEST_CASE("the rescaling factor of an empty or −∞ partial is 0, never NaN", "[fuse]") {
  CHECK(onlineRescale(-INFINITY, -INFINITY) == 0);
  CHECK(onlineRescale(-INFINITY, 3) == 0);
  CHECK(onlineRescale(2, 2) == 1);
  CHECK(onlineRescale(1, 2) == Approx(std::exp(-1.0)));
}
