// Unit tests of common subexpressions across arrays (compiler/psi/Cse.{h,cpp}), the last step of
// psiReduce: which subexpressions become reads of an earlier array, which reductions are stored once, which
// temps are forwarded, what is left alone, the work that remains (counted in the DNF's reductions, never
// timed), the decision in the trace, and the DNF evaluated against the reference interpreter.
#include "FrontEnd.h"

#include "DnfAgreement.h"
#include "DnfEval.h"
#include "Fuse.h"
#include "Interpreter.h"
#include "Psi.h"

#include <set>

using namespace moac;

namespace {

struct Reduced {
  std::shared_ptr<CompilationContext> ctx; // first: the program's symbols point into it
  std::optional<TypedProgram> typed;
  DnfProgram dnf;
};

Reduced reduceText(const std::string &text) {
  test::Checked checked = test::checkText(text);
  INFO(checked.diags);
  REQUIRE(checked.program);
  Reduced out{checked.ctx, std::move(checked.program), {}};
  out.dnf = psiReduce(*out.ctx, *out.typed);
  return out;
}

// The work left: the reduction nodes of the arrays computed (a reduction read from a temp counts once).
size_t reductions(const DnfProgram &dnf) {
  size_t n = 0;
  for (size_t id : dnf.order)
    forEachNode(dnf.arrays[id].body, [&](const DExpr &e) { n += e.kind == DKind::Reduce; });
  return n;
}

std::vector<std::string> storedTemps(const DnfProgram &dnf) {
  std::vector<std::string> out;
  for (size_t id : dnf.order)
    if (dnf.arrays[id].storage == Storage::Temp)
      out.push_back(dnf.arrays[id].name);
  return out;
}

// The trace's steps of one rule, as "before = after (note)".
std::vector<std::string> stepsOf(const DnfProgram &dnf, const std::string &rule) {
  std::vector<std::string> out;
  for (const TraceBlock &b : dnf.trace)
    for (const TraceStep &s : b.steps)
      if (s.rule == rule)
        out.push_back(s.before + " = " + s.after + " (" + s.note + ")");
  return out;
}

// Interpreter and DNF on the same inputs (values in [-2, 2)), within 1e-12 relative: both compute in f64.
void agrees(const Reduced &r, std::initializer_list<std::pair<const char *, int64_t>> values) {
  DimValues dims;
  for (auto [name, v] : values)
    dims[r.ctx->symbols.intern(name)] = v;
  test::dnfAgreesWithInterpreter(*r.typed, r.dnf, dims);
}

} // namespace

TEST_CASE("common subexpression: an output that contains an earlier output's body reads it", "[cse]") {
  Reduced r = reduceText("dim n, m\nin x : f32[n, m]\nout s = +/ x\nout t = (+/ x) * 2.0\n");
  CHECK(dumpDnf(r.dnf, true) == "in x : f32<n m>\n"
                                "out s : f32<m>\n"
                                "  <i> psi s = sum_{j<n} <j i> psi x\n"
                                "out t : f32<m>\n"
                                "  <i> psi t = <i> psi s * 2\n");
  CHECK(reductions(r.dnf) == 1); // the column sums are computed once
  std::vector<std::string> steps = stepsOf(r.dnf, "common subexpression");
  REQUIRE(steps.size() == 1);
  CHECK(steps[0].find("= ⟨i⟩ψ s (this is s's body: s is read, its value computed once)") != std::string::npos);
  agrees(r, {{"n", 5}, {"m", 3}});
}

TEST_CASE("common subexpression: a binding's reduction is read by the outputs that compute it", "[cse]") {
  Reduced r = reduceText("dim n, m\nin A : f32[n, m]\n"
                         "r = [i < n] +/ <i> psi A\n"
                         "out c = r - (([i < n] +/ <i> psi A) * 0.5)\n"
                         "out u = exp([i < n] +/ <i> psi A)\n"
                         "out g = [i < n] +/ <i> psi A\n");
  std::string dnf = dumpDnf(r.dnf, true);
  INFO(dnf);
  CHECK(dnf.find("  <i> psi c = <i> psi r - <i> psi r * 0.5\n") != std::string::npos);
  CHECK(dnf.find("  <i> psi u = exp(<i> psi r)\n") != std::string::npos);
  CHECK(dnf.find("  <i> psi g = <i> psi r\n") != std::string::npos); // the whole body: a copy into the output
  CHECK(reductions(r.dnf) == 1);
  agrees(r, {{"n", 4}, {"m", 3}});
}

TEST_CASE("common subexpression: a reduction two outputs compute is stored once", "[cse]") {
  Reduced r = reduceText("dim n, m\nin B : f32[n, m]\n"
                         "out a = ([i < m] max/ <i> psi tran B) * 2.0\n"
                         "out b = ([i < m] max/ <i> psi tran B) + 1.0\n");
  CHECK(dumpDnf(r.dnf, true) == "in B : f32<n m>\n"
                                "temp max : f32<m>   # a reduction a and b both compute, computed once\n"
                                "  <i> psi max = max_{j<n} <j i> psi B\n"
                                "out a : f32<m>\n"
                                "  <i> psi a = <i> psi max * 2\n"
                                "out b : f32<m>\n"
                                "  <i> psi b = <i> psi max + 1\n");
  CHECK(reductions(r.dnf) == 1);
  std::set<std::string> titles;
  for (const TraceBlock &b : r.dnf.trace)
    titles.insert(b.title);
  CHECK(titles.count("max — stored: a and b both compute it"));
  agrees(r, {{"n", 3}, {"m", 4}});
}

TEST_CASE("common subexpression: a temp that is another array is not stored, its readers read that one", "[cse]") {
  Reduced r = reduceText("dim n\nin x : f32[n]\nout y = x / (+/ x)\nout z = exp(x) / (+/ x)\n");
  CHECK(storedTemps(r.dnf) == std::vector<std::string>{"sum"}); // hoisting made sum and sum_2
  std::string dnf = dumpDnf(r.dnf, true);
  INFO(dnf);
  CHECK(dnf.find("  <i> psi z = exp(<i> psi x) / sum\n") != std::string::npos);
  CHECK(reductions(r.dnf) == 1);
  CHECK(stepsOf(r.dnf, "copy forwarded") ==
        std::vector<std::string>{"sum_2 = sum (sum_2 is sum: its readers read sum, and sum_2 is not stored)"});
  agrees(r, {{"n", 6}});
}

TEST_CASE("common subexpression: a half-precision output is never read for the f32 value it rounds", "[cse]") {
  Reduced r = reduceText("dim n, m\nin A : f32[n, m]\nout h : bf16 = +/ A\nout w = (+/ A) + 1.0\n");
  std::string dnf = dumpDnf(r.dnf, true);
  INFO(dnf);
  // h's f32 accumulator is kept (w reads it), h rounds it once
  CHECK(dnf.find("  <i> psi h = <i> psi h_acc\n") != std::string::npos);
  CHECK(dnf.find("  <i> psi w = <i> psi h_acc + 1\n") != std::string::npos);
  CHECK(reductions(r.dnf) == 1);
  agrees(r, {{"n", 3}, {"m", 2}});
}

TEST_CASE("common subexpression: left alone where indices do not line up or values differ", "[cse]") {
  Reduced r = reduceText("dim n, m\nin A : f32[n, m]\n"
                         "out r = [i < n] +/ <i> psi A\n"
                         "out q = [i < n - 1] +/ <i + 1> psi A\n" // r at i + 1: not matched
                         "out p = [i < n] */ <i> psi A\n"         // another operator
                         "out c = +/ A\n");                        // the other axis
  CHECK(reductions(r.dnf) == 4);
  CHECK(stepsOf(r.dnf, "common subexpression").empty());
  agrees(r, {{"n", 4}, {"m", 3}});
}

TEST_CASE("common subexpression: after an update, outputs share what they read of the inout", "[cse]") {
  Reduced r = reduceText("dim t, cap, dk\nin k : f32[dk]\ninout K : f32[cap, dk]\n"
                         "K = (t take K) cat k\nout a = +/ K\nout b = (+/ K) * 2.0\n");
  std::string dnf = dumpDnf(r.dnf, true);
  INFO(dnf);
  CHECK(dnf.find("  <i> psi b = <i> psi a * 2\n") != std::string::npos);
  CHECK(reductions(r.dnf) == 1);
  agrees(r, {{"t", 2}, {"cap", 5}, {"dk", 3}});
}

TEST_CASE("common subexpression: decode still fuses, and an output sharing its scores' dot product", "[cse]") {
  const std::string decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                             "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                             "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";
  Reduced plain = reduceText(decode);
  CHECK(stepsOf(plain.dnf, "common subexpression").empty());
  fuseReductions(*plain.ctx, plain.dnf);
  CHECK(plain.dnf.groups.size() == 1);
  // the dot products q·K_l, an output of their own too: stored once, the fused group still forms
  Reduced shared = reduceText(decode + "out d = q +.* tran K\n");
  fuseReductions(*shared.ctx, shared.dnf);
  CHECK(shared.dnf.groups.size() == 1);
  CHECK(!stepsOf(shared.dnf, "common subexpression").empty());
  agrees(shared, {{"n", 5}, {"dk", 3}, {"dv", 2}});
}
