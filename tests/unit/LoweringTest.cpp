// Unit tests of the lowering to the ONF (compiler/lower/Lower.cpp, compiler/lower/LoopIR.h): dimension lifting of
// split reductions and of the coalescing layout (N divisible by the lifting factor, not divisible,
// N < Π, N = 1), γ lowering of reads and writes, the coalescing analysis (γ-differences), and the fusion of
// sibling reduction loops.
//
// A small evaluator of the loop IR below runs a lowered kernel on concrete dims and inputs, so the
// tests check what the loops and γ offsets compute, not how they print.
#include "FrontEnd.h"

#include "Build.h"
#include "Fuse.h"
#include "Interpreter.h"
#include "Lower.h"
#include "Pipeline.h"
#include "Psi.h"
#include "SiblingLoops.h"

#include "moart/kernel.h"
#include "moart/layout.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

using namespace moac;

namespace {

struct Lowered {
  std::shared_ptr<CompilationContext> ctx; // first: the program's symbols point into it
  std::optional<TypedProgram> typed;
  Kernel kernel;
};

// `fused`: the online-softmax rewrite first (psi/Fuse.h), as the pipeline does.
Lowered lowerText(const std::string &text, Target target, Schedule schedule = {}, bool fused = false) {
  test::Checked checked = test::checkText(text);
  INFO(checked.diags);
  REQUIRE(checked.program);
  Lowered out;
  out.ctx = checked.ctx;
  out.typed = std::move(checked.program);
  DnfProgram dnf = psiReduce(*out.ctx, *out.typed);
  if (fused)
    fuseReductions(*out.ctx, dnf);
  out.kernel = lower(*out.ctx, dnf, schedule, target);
  return out;
}

// Runs a kernel's stages on concrete dims. Buffers hold their storage (lifted ones lifted); values
// are doubles, as the interpreter's.
class LoopEval {
public:
  LoopEval(const Kernel &k, std::map<std::string, int64_t> dimValues) : k(k) {
    for (const TDim &d : k.dims)
      env[d.sym.id()] = d.value ? *d.value : dimValues.at(d.sym.name());
    for (const ChunkCount &c : k.chunkCounts)
      env[c.sym.id()] = moart_chunks(value(c.items), value(c.terms), c.threads, c.chunk);
    for (const Buffer &b : k.buffers)
      memory.emplace_back(size_t(value(b.storageElements())), 0.0);
    // partials of a reduction with one chunk are the result itself
    for (size_t b = 0; b < k.buffers.size(); ++b)
      home.push_back(k.buffers[b].aliasOf && env.at(k.buffers[b].aliasChunks.id()) <= 1 ? *k.buffers[b].aliasOf : b);
  }

  int64_t value(const SymExpr &e) const {
    return e.evaluate([&](Symbol s) { return env.at(s.id()); });
  }
  std::vector<double> &buffer(const std::string &name) {
    for (size_t b = 0; b < k.buffers.size(); ++b)
      if (k.buffers[b].label() == name)
        return memory[b];
    FAIL("no buffer " << name);
    return memory[0];
  }
  // Every store's buffer and offset, in execution order; every prefetch hint's.
  std::vector<std::pair<size_t, int64_t>> stores, prefetched;

  void run() {
    for (const Region &r : k.stages)
      if (!r.onlyIfChunks || env.at(r.onlyIfChunks->id()) > 1)
        exec(r.body);
  }

private:
  double eval(const LExprPtr &e) {
    switch (e->kind) {
    case LExprKind::Float: return e->floatValue;
    case LExprKind::Int: return double(value(e->intValue));
    case LExprKind::Load: {
      int64_t at = value(e->offset);
      REQUIRE(at >= 0);
      REQUIRE(size_t(at) < memory[home[e->buffer]].size());
      return memory[home[e->buffer]][size_t(at)];
    }
    case LExprKind::Var: return scalars.at(e->var.id());
    case LExprKind::Unary: return apply(e->unop, eval(e->args[0]));
    case LExprKind::Binary: return apply(e->op, eval(e->args[0]), eval(e->args[1]));
    case LExprKind::Select: return value(e->lhs) < value(e->rhs) ? eval(e->args[0]) : eval(e->args[1]);
    case LExprKind::Rescale: return moart_rescale(eval(e->args[0]), eval(e->args[1]));
    case LExprKind::Where: return eval(e->args[0]) != 0 ? eval(e->args[1]) : eval(e->args[2]);
    case LExprKind::InF32: return eval(e->args[0]);
    }
    return 0;
  }
  void exec(const std::vector<LStmt> &body) {
    for (const LStmt &s : body)
      switch (s.kind) {
      case LStmt::Loop:
        for (int64_t i = value(s.start), end = value(s.end), step = value(s.step); i < end; i += step) {
          env[s.var.id()] = i;
          exec(s.body);
        }
        env.erase(s.var.id());
        break;
      case LStmt::Decl:
      case LStmt::Assign: scalars[s.scalar.id()] = eval(s.value); break;
      case LStmt::Accumulate: scalars[s.scalar.id()] = apply(s.op, scalars.at(s.scalar.id()), eval(s.value)); break;
      case LStmt::Store: {
        int64_t at = value(s.offset);
        REQUIRE(at >= 0);
        REQUIRE(size_t(at) < memory[home[s.buffer]].size());
        memory[home[s.buffer]][size_t(at)] = eval(s.value);
        stores.emplace_back(s.buffer, at);
        break;
      }
      case LStmt::If:
        exec((s.value ? eval(s.value) != 0 : value(s.lhs) < value(s.rhs)) ? s.body : s.orElse);
        break;
      case LStmt::Prefetch: { // a hint, but its address must lie inside the buffer
        int64_t at = value(s.offset);
        REQUIRE(at >= 0);
        REQUIRE(size_t(at) < memory[home[s.buffer]].size());
        prefetched.emplace_back(s.buffer, at);
        break;
      }
      }
  }

  const Kernel &k;
  std::map<uint32_t, int64_t> env;
  std::map<uint32_t, double> scalars;
  std::vector<std::vector<double>> memory;
  std::vector<size_t> home; // the buffer whose memory each buffer uses
};

const Buffer &bufferNamed(const Kernel &k, const std::string &name) {
  for (const Buffer &b : k.buffers)
    if (b.name == name)
      return b;
  FAIL("no buffer " << name);
  return k.buffers[0];
}

std::vector<double> iotaData(int64_t n) {
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = double(i + 1);
  return v;
}

} // namespace

// ---- lifting of the coalescing layout: K ⟨N, r⟩ stored ⟨⌈N/B⌉, r, B⟩ --------------------------------

TEST_CASE("lifted layout offsets agree with the runtime's pack, N divisible or not, N < B, N = 1", "[lower][lifting]") {
  SymbolTable symbols;
  Symbol n = symbols.intern("n"), r = symbols.intern("r");
  Buffer K{Buffer::Input, "K", ElemType::F32, {SymExpr::symbol(n), SymExpr::symbol(r)}, Layout{Layout::Lifted, 32},
           Buffer::Array, 0, std::nullopt, Symbol()};
  Symbol x = symbols.intern("x"), y = symbols.intern("y");
  SymExpr offset = K.offset({SymExpr::symbol(x), SymExpr::symbol(y)});
  for (auto [N, R] : {std::pair<int64_t, int64_t>{64, 3}, {70, 3}, {5, 4}, {1, 2}, {33, 1}}) {
    INFO("N = " << N << ", row length " << R);
    std::map<uint32_t, int64_t> env{{n.id(), N}, {r.id(), R}};
    auto at = [&](const SymExpr &e) { return e.evaluate([&](Symbol s) { return env.at(s.id()); }); };
    int64_t storage = at(K.storageElements());
    CHECK(storage == moart_lifted_count(N, R, 32));
    CHECK(storage == (N + 31) / 32 * 32 * R); // ⌈N/B⌉ groups, the last padded
    std::vector<float> rowMajor(static_cast<size_t>(N * R)), lifted(static_cast<size_t>(storage));
    for (size_t i = 0; i < rowMajor.size(); ++i)
      rowMajor[i] = float(i + 1);
    moart_pack_lifted_f32(rowMajor.data(), lifted.data(), N, R, 32);
    std::set<int64_t> seen;
    for (int64_t i = 0; i < N; ++i)
      for (int64_t j = 0; j < R; ++j) {
        env[x.id()] = i;
        env[y.id()] = j;
        int64_t o = at(offset);
        CHECK(o == moart_lifted_offset(i, j, R, 32));
        REQUIRE(o >= 0);
        REQUIRE(o < storage);
        CHECK(lifted[size_t(o)] == rowMajor[size_t(i * R + j)]);
        seen.insert(o);
      }
    CHECK(int64_t(seen.size()) == N * R); // one place per element
  }
}

TEST_CASE("the lifting factor comes from the schedule and only lifts row-per-lane inputs", "[lower][lifting]") {
  const char *decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                       "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                       "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";
  Schedule s;
  s.block = 16;
  Lowered acc = lowerText(decode, Target::OpenACC, s);
  CHECK(bufferNamed(acc.kernel, "K").layout.kind == Layout::Lifted);
  CHECK(bufferNamed(acc.kernel, "K").layout.block == 16);
  // V is read along n by adjacent lanes i (dv*l + i): row-major is coalesced already
  CHECK(bufferNamed(acc.kernel, "V").layout.kind == Layout::RowMajor);
  CHECK(bufferNamed(acc.kernel, "q").layout.kind == Layout::RowMajor);
  // CPUs keep row-major unless told otherwise
  CHECK(bufferNamed(lowerText(decode, Target::C).kernel, "K").layout.kind == Layout::RowMajor);
  s.layouts = Schedule::Layouts::RowMajor;
  CHECK(bufferNamed(lowerText(decode, Target::OpenACC, s).kernel, "K").layout.kind == Layout::RowMajor);
}

// Runs a lowered decode.moa (f64) on n = N, dk = 3, dv = 2 and compares o with the interpreter's.
static void checkDecode(const Lowered &l, int64_t N) {
  INFO("n = " << N);
  const int64_t dk = 3, dv = 2;
  LoopEval ev(l.kernel, {{"n", N}, {"dk", dk}, {"dv", dv}});
  std::vector<double> q = iotaData(dk), K(static_cast<size_t>(N * dk)), V(static_cast<size_t>(N * dv));
  for (size_t i = 0; i < K.size(); ++i)
    K[i] = std::sin(double(i));
  for (size_t i = 0; i < V.size(); ++i)
    V[i] = std::cos(double(i));
  ev.buffer("q") = q;
  const Layout &lifted = bufferNamed(l.kernel, "K").layout;
  if (lifted.kind == Layout::Lifted)
    moart_pack_lifted_f64(K.data(), ev.buffer("K").data(), N, dk, lifted.block);
  else
    ev.buffer("K") = K;
  ev.buffer("V") = V;
  ev.run();
  DimValues dims{{l.ctx->symbols.intern("n"), N}, {l.ctx->symbols.intern("dk"), dk}, {l.ctx->symbols.intern("dv"), dv}};
  std::vector<NDArray> want = interpret(*l.typed, dims, {NDArray{{dk}, q}, NDArray{{N, dk}, K}, NDArray{{N, dv}, V}},
                                        InterpretOptions{true});
  std::vector<double> &o = ev.buffer("o");
  REQUIRE(o.size() == want[0].data.size());
  for (size_t i = 0; i < o.size(); ++i)
    CHECK(o[i] == Approx(want[0].data[i]).epsilon(1e-12));
}

static const char *decode64 = "dim n, dk, dv\nin q : f64[dk]\nin K : f64[n, dk]\nin V : f64[n, dv]\n"
                       "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                       "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";

TEST_CASE("the lowered decode computes the interpreter's result with K lifted, for N across the factor", "[lower][lifting]") {
  Lowered l = lowerText(decode64, Target::OpenACC);
  REQUIRE(bufferNamed(l.kernel, "K").layout.kind == Layout::Lifted);
  REQUIRE(bufferNamed(l.kernel, "K").layout.block == 32);
  for (int64_t N : {1, 5, 32, 70})
    checkDecode(l, N);
}

// ---- lifting on an inner axis: GQA's K ⟨B, hkv, n, dk⟩ stored ⟨B, hkv, ⌈n/32⌉, dk, 32⟩ ---------------------

TEST_CASE("GQA on OpenACC: K lifted on axis 2 (one slab per batch and KV head), every score-stage lane access "
          "coalesced, offsets the runtime's batch pack, the result the interpreter's",
          "[lower][lifting]") {
  const char *gqa = "dim B, hq, hkv, n, dk, dv\nin Q : f64[B, hq, dk]\nin K : f64[B, hkv, n, dk]\n"
                    "in V : f64[B, hkv, n, dv]\n"
                    "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                    "fn attend(q, K, V) = softmax((q +.* tran K) / sqrt(dk)) +.* V\n"
                    "out O = [b < B, g < hq] attend(<b g> psi Q, <b, g * hkv div hq> psi K, <b, g * hkv div hq> psi V)\n";
  Lowered l = lowerText(gqa, Target::OpenACC);
  const Buffer &K = bufferNamed(l.kernel, "K");
  REQUIRE(K.layout.kind == Layout::Lifted);
  CHECK(K.layout.axis == 2);
  CHECK(bufferNamed(l.kernel, "V").layout.kind == Layout::RowMajor); // its lanes already read along rows
  for (const Coalescing &c : l.kernel.coalescing)
    if (l.kernel.buffers[c.buffer].name == "K") {
      INFO(regionName(l.kernel, l.kernel.stages[c.region]) << ": " << describeAccess(l.kernel, c));
      CHECK(c.difference == std::optional<SymExpr>(SymExpr(1)));
    }
  for (auto [Bn, hq, hkv, N] : {std::array<int64_t, 4>{1, 4, 2, 5}, {2, 4, 1, 33}, {2, 2, 2, 64}}) {
    INFO("B = " << Bn << ", hq = " << hq << ", hkv = " << hkv << ", n = " << N);
    const int64_t dk = 3, dv = 2, slabs = Bn * hkv;
    LoopEval ev(l.kernel, {{"B", Bn}, {"hq", hq}, {"hkv", hkv}, {"n", N}, {"dk", dk}, {"dv", dv}});
    REQUIRE(int64_t(ev.buffer("K").size()) == moart_lifted_batch_count(slabs, N, dk, 32));
    std::vector<double> Q(static_cast<size_t>(Bn * hq * dk)), Kd(static_cast<size_t>(slabs * N * dk)),
        V(static_cast<size_t>(slabs * N * dv));
    for (size_t i = 0; i < Q.size(); ++i)
      Q[i] = std::cos(double(i) * 0.3);
    for (size_t i = 0; i < Kd.size(); ++i)
      Kd[i] = std::sin(double(i));
    for (size_t i = 0; i < V.size(); ++i)
      V[i] = std::cos(double(i));
    ev.buffer("Q") = Q;
    moart_pack_lifted_batch_f64(Kd.data(), ev.buffer("K").data(), slabs, N, dk, 32);
    ev.buffer("V") = V;
    ev.run();
    DimValues dims{{l.ctx->symbols.intern("B"), Bn}, {l.ctx->symbols.intern("hq"), hq}, {l.ctx->symbols.intern("hkv"), hkv},
                   {l.ctx->symbols.intern("n"), N},  {l.ctx->symbols.intern("dk"), dk}, {l.ctx->symbols.intern("dv"), dv}};
    std::vector<NDArray> want = interpret(*l.typed, dims,
                                          {NDArray{{Bn, hq, dk}, Q}, NDArray{{Bn, hkv, N, dk}, Kd},
                                           NDArray{{Bn, hkv, N, dv}, V}}, InterpretOptions{true});
    std::vector<double> &O = ev.buffer("O");
    REQUIRE(O.size() == want[0].data.size());
    for (size_t i = 0; i < O.size(); ++i)
      CHECK(O[i] == Approx(want[0].data[i]).epsilon(1e-12));
  }
}

// ---- lifting of split reductions: ⟨N⟩ → ⟨P, ⌈N/P⌉⟩, chunk c sums terms c, c + P, c + 2P, … --------------

TEST_CASE("a split reduction's chunks cover every term once, N divisible by P or not, N < P, N = 1", "[lower][lifting]") {
  Schedule s;
  s.threads = 8;
  s.chunk = 1; // so that P = min(8, N): N < P and N not divisible by P both occur
  Lowered l = lowerText("dim n\nin x : f64[n]\nout t = +/ x\n", Target::OpenMP, s);
  REQUIRE(l.kernel.chunkCounts.size() == 2); // P, and Q for the combine's groups
  for (int64_t N : {1, 3, 8, 13, 16}) {
    INFO("n = " << N);
    int64_t P = moart_chunks(1, N, 8, 1);
    CHECK(P == std::min<int64_t>(N, 8));
    LoopEval ev(l.kernel, {{"n", N}});
    std::vector<double> x(static_cast<size_t>(N));
    for (int64_t i = 0; i < N; ++i)
      x[size_t(i)] = double(int64_t(1) << i); // each term its own bit: the sum says which terms were added
    ev.buffer("x") = x;
    ev.run();
    CHECK(ev.buffer("t")[0] == double((int64_t(1) << N) - 1)); // all terms, none twice
    if (P > 1) {
      // the partials: chunk c holds the terms l ≡ c (mod P)
      std::vector<double> &part = ev.buffer("t_part");
      for (int64_t c = 0; c < P; ++c) {
        double want = 0;
        for (int64_t t = c; t < N; t += P)
          want += x[size_t(t)];
        CHECK(part[size_t(c)] == want);
      }
    }
  }
}

TEST_CASE("a triangular split reduction: row i's chunks cover terms 0 … i once, a chunk past the bound adds nothing",
          "[lower][triangular]") {
  Schedule s;
  s.threads = 8;
  s.chunk = 1;
  Lowered l = lowerText("dim n\nin x : f64[n]\nout t = [i < n] +/ ((i + 1) take x)\n", Target::OpenMP, s);
  REQUIRE(!l.kernel.chunkCounts.empty());
  CHECK(l.kernel.chunkCounts[0].terms.str() == "n"); // P from the greatest row, at compile time over dims only
  for (int64_t N : {1, 3, 13}) {
    INFO("n = " << N);
    LoopEval ev(l.kernel, {{"n", N}});
    std::vector<double> x(static_cast<size_t>(N));
    for (int64_t i = 0; i < N; ++i)
      x[size_t(i)] = double(int64_t(1) << i);
    ev.buffer("x") = x;
    ev.run();
    for (int64_t i = 0; i < N; ++i)
      CHECK(ev.buffer("t")[size_t(i)] == double((int64_t(2) << i) - 1));
  }
}

TEST_CASE("a triangular temp is stored in its bounding box, its ragged axis a serial loop of i + 1 trips",
          "[lower][triangular]") {
  const char *causal = "dim n, dk, dv\nin Q : f64[n, dk]\nin K : f64[n, dk]\nin V : f64[n, dv]\n"
                       "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                       "out O = [i < n] softmax(((i + 1) take K) +.* (<i> psi Q) / sqrt(dk)) +.* ((i + 1) take V)\n";
  Lowered l = lowerText(causal, Target::OpenMP);
  const Buffer &x = bufferNamed(l.kernel, "x");
  REQUIRE(x.shape.size() == 2);
  CHECK(x.shape[0] == x.shape[1]); // ⟨n n⟩ for ⟨n, i + 1⟩
  const Region &scores = l.kernel.stages.front();
  CHECK(scores.parallelDepth == 1);
  REQUIRE(scores.body.size() == 1);
  const LStmt &rows = scores.body[0];
  REQUIRE(!rows.body.empty());
  CHECK(rows.body[0].kind == LStmt::Loop);
  CHECK(rows.body[0].loopKind == LoopKind::Serial);
  CHECK(rows.body[0].end == SymExpr::symbol(rows.var) + 1);
  for (int64_t N : {1, 4, 9}) {
    INFO("n = " << N);
    const int64_t dk = 3, dv = 2;
    LoopEval ev(l.kernel, {{"n", N}, {"dk", dk}, {"dv", dv}});
    std::vector<double> Q(size_t(N * dk)), K(size_t(N * dk)), V(size_t(N * dv));
    for (size_t i = 0; i < Q.size(); ++i) {
      Q[i] = std::sin(double(i));
      K[i] = std::cos(double(3 * i));
    }
    for (size_t i = 0; i < V.size(); ++i)
      V[i] = std::sin(double(5 * i + 1));
    ev.buffer("Q") = Q;
    ev.buffer("K") = K;
    ev.buffer("V") = V;
    ev.run();
    DimValues dims{{l.ctx->symbols.intern("n"), N}, {l.ctx->symbols.intern("dk"), dk}, {l.ctx->symbols.intern("dv"), dv}};
    std::vector<NDArray> want = interpret(*l.typed, dims, {NDArray{{N, dk}, Q}, NDArray{{N, dk}, K}, NDArray{{N, dv}, V}},
                                          InterpretOptions{true});
    std::vector<double> &o = ev.buffer("O");
    REQUIRE(o.size() == want[0].data.size());
    for (size_t i = 0; i < o.size(); ++i)
      CHECK(o[i] == Approx(want[0].data[i]).epsilon(1e-12));
  }
}

TEST_CASE("the combine adds the partials in Q groups (group g: partials g, g + Q, …), then the groups in order",
          "[lower][lifting]") {
  Schedule s;
  s.threads = 8;
  s.chunk = 2; // P = min(8, ⌈N/2⌉) chunks, Q = min(8, ⌈P/2⌉) groups
  Lowered l = lowerText("dim n\nin x : f64[n]\nout t = +/ x\n", Target::C, s);
  REQUIRE(l.kernel.chunkCounts.size() == 2);
  for (int64_t N : {1, 2, 3, 5, 8, 13, 16, 40}) {
    INFO("n = " << N);
    int64_t P = moart_chunks(1, N, 8, 2), Q = moart_chunks(1, P, 8, 2);
    CHECK(Q == std::min<int64_t>(8, (P + 1) / 2));
    LoopEval ev(l.kernel, {{"n", N}});
    std::vector<double> x(static_cast<size_t>(N));
    for (int64_t i = 0; i < N; ++i)
      x[size_t(i)] = double(int64_t(1) << i);
    ev.buffer("x") = x;
    ev.run();
    CHECK(ev.buffer("t")[0] == double((int64_t(1) << N) - 1)); // all terms, none twice
    if (Q > 1) {
      std::vector<double> &group = ev.buffer("t_group");
      for (int64_t g = 0; g < Q; ++g) {
        double want = 0;
        for (int64_t t = 0; t < N; ++t)
          want += (t % P) % Q == g ? x[size_t(t)] : 0; // term t is in chunk t mod P, in group (t mod P) mod Q
        CHECK(group[size_t(g)] == want);
      }
    }
  }
}

TEST_CASE("the chunk count clamps to one chunk for short reductions and to the thread budget for long ones", "[lower][lifting]") {
  CHECK(moart_chunks(1, 1, 65536, 256) == 1);        // N = 1
  CHECK(moart_chunks(1, 255, 65536, 256) == 1);      // shorter than one chunk
  CHECK(moart_chunks(1, 257, 65536, 256) == 2);      // not divisible: ⌈257/256⌉
  CHECK(moart_chunks(1, 1 << 20, 65536, 256) == 4096);
  CHECK(moart_chunks(64, 1 << 30, 65536, 256) == 1024); // items share the thread budget
  CHECK(moart_chunks(1 << 20, 4096, 65536, 256) == 1);  // enough items: no split
}

// ---- γ lowering -------------------------------------------------------------------------------------

TEST_CASE("γ lowering: structural operators become offsets into the input, with no copies", "[lower][gamma]") {
  struct Case {
    const char *program;
    std::map<std::string, int64_t> dims;
  };
  for (const Case &c : std::vector<Case>{
           {"dim n, m\nin A : f64[n, m]\nout r = tran A\n", {{"n", 3}, {"m", 4}}},
           {"dim n, m\nin A : f64[n, m]\nout r = 2 drop A\n", {{"n", 5}, {"m", 2}}},
           {"dim n, m\nin A : f64[n, m]\nout r = -2 take A\n", {{"n", 5}, {"m", 3}}},
           {"dim n, m\nin A : f64[n, m]\nin B : f64[2, m]\nout r = A cat B\n", {{"n", 3}, {"m", 2}}},
           {"dim n\nin A : f64[n, 6]\nout r = <n * 3, 2> reshape A\n", {{"n", 2}}},
           {"dim n, m, p\nin A : f64[n, m, p]\nout r = <2 0 1> tran A\n", {{"n", 2}, {"m", 3}, {"p", 4}}},
           {"dim n, m\nin A : f64[n, m]\nout r = [i < m] <1, i> psi A\n", {{"n", 2}, {"m", 3}}},
       }) {
    INFO(c.program);
    Lowered l = lowerText(c.program, Target::C);
    CHECK(l.kernel.workspace().empty()); // no temporaries: every read is an offset into an input
    LoopEval ev(l.kernel, c.dims);
    DimValues dims;
    std::vector<NDArray> inputs;
    for (size_t b : l.kernel.inputs()) {
      std::vector<double> &mem = ev.buffer(l.kernel.buffers[b].label());
      mem = iotaData(int64_t(mem.size()));
      std::vector<int64_t> shape;
      for (const SymExpr &e : l.kernel.buffers[b].shape)
        shape.push_back(ev.value(e));
      inputs.push_back(NDArray{shape, mem});
    }
    for (const auto &[name, v] : c.dims)
      dims[l.ctx->symbols.intern(name)] = v;
    ev.run();
    std::vector<NDArray> want = interpret(*l.typed, dims, inputs, InterpretOptions{true});
    CHECK(ev.buffer("r") == want[0].data);
    // every output element is stored exactly once
    std::set<int64_t> stored;
    for (const auto &[buf, at] : ev.stores)
      CHECK(stored.insert(at).second);
    CHECK(stored.size() == want[0].data.size());
  }
}

// ---- coalescing analysis ----------------------------------------------------------------------------

TEST_CASE("gammaDifference: the change of an offset between adjacent lanes", "[lower][coalescing]") {
  SymbolTable symbols;
  Symbol i = symbols.intern("i"), l = symbols.intern("l"), dk = symbols.intern("dk");
  SymExpr I = SymExpr::symbol(i), L = SymExpr::symbol(l), DK = SymExpr::symbol(dk);
  CHECK(gammaDifference(symbols, DK * I + L, i, 32) == std::optional<SymExpr>(DK)); // one lane per row: stride dk
  CHECK(gammaDifference(symbols, DK * L + I, i, 32) == std::optional<SymExpr>(SymExpr(1)));
  CHECK(gammaDifference(symbols, L, i, 32) == std::optional<SymExpr>(SymExpr(0))); // broadcast
  // the lifted layout: 32·dk·(i div 32) + 32·l + i mod 32 steps by 1 inside a group of 32 lanes
  SymExpr lifted = SymExpr(32) * DK * SymExpr::floorDiv(I, SymExpr(32)) + SymExpr(32) * L + SymExpr::mod(I, SymExpr(32));
  CHECK(gammaDifference(symbols, lifted, i, 32) == std::optional<SymExpr>(SymExpr(1)));
  CHECK_FALSE(gammaDifference(symbols, I * I, i, 32)); // not affine in the lane
}

TEST_CASE("decode on OpenACC: every vector-lane access is coalesced or a broadcast; row-major K would not be", "[lower][coalescing]") {
  const char *decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                       "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                       "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";
  Lowered l = lowerText(decode, Target::OpenACC);
  REQUIRE(!l.kernel.coalescing.empty());
  bool sawK = false;
  for (const Coalescing &c : l.kernel.coalescing) {
    INFO(regionName(l.kernel, l.kernel.stages[c.region]) << ": " << describeAccess(l.kernel, c) << " Δ"
                                                          << c.lane.name() << " = " << describeDifference(c));
    REQUIRE(c.difference);
    CHECK((*c.difference == SymExpr(1) || *c.difference == SymExpr(0)));
    sawK |= l.kernel.buffers[c.buffer].name == "K";
  }
  CHECK(sawK);
  Schedule rowMajor;
  rowMajor.layouts = Schedule::Layouts::RowMajor;
  bool strided = false;
  Lowered r = lowerText(decode, Target::OpenACC, rowMajor);
  for (const Coalescing &c : r.kernel.coalescing)
    strided |= r.kernel.buffers[c.buffer].name == "K" && describeDifference(c) == "dk";
  CHECK(strided);
}

// ---- updates of an inout: the KV-cache append writes one row in place ---------------------------------

TEST_CASE("the KV-cache append stores exactly row t of K and V, O(dk + dv), and decode reads the new rows",
          "[lower][update]") {
  const char *kv = "dim t >= 0, cap, dk, dv\nin q : f64[dk]\nin k : f64[dk]\nin v : f64[dv]\n"
                   "inout K : f64[cap, dk]\ninout V : f64[cap, dv]\n"
                   "K = (t take K) cat k\nV = (t take V) cat v\n"
                   "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                   "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";
  for (Target target : {Target::C, Target::OpenACC}) {
    Lowered l = lowerText(kv, target);
    REQUIRE(bufferNamed(l.kernel, "K").layout.kind == Layout::RowMajor); // the caller's layout, written back
    REQUIRE(bufferNamed(l.kernel, "K").inout);
    for (int64_t t : {0, 1, 6}) {
      INFO("t = " << t);
      const int64_t cap = 7, dk = 3, dv = 2;
      LoopEval ev(l.kernel, {{"t", t}, {"cap", cap}, {"dk", dk}, {"dv", dv}});
      std::vector<double> q = iotaData(dk), k(static_cast<size_t>(dk)), v(static_cast<size_t>(dv)),
          K(static_cast<size_t>(cap * dk)), V(static_cast<size_t>(cap * dv));
      for (size_t i = 0; i < k.size(); ++i)
        k[i] = std::sin(double(i) + 0.5);
      for (size_t i = 0; i < v.size(); ++i)
        v[i] = std::cos(double(i) + 0.5);
      for (size_t i = 0; i < K.size(); ++i)
        K[i] = std::sin(double(i));
      for (size_t i = 0; i < V.size(); ++i)
        V[i] = std::cos(double(i));
      ev.buffer("q") = q;
      ev.buffer("k") = k;
      ev.buffer("v") = v;
      ev.buffer("K") = K;
      ev.buffer("V") = V;
      ev.run();
      // the stores into the caches: row t only, each element once
      std::map<std::string, std::vector<int64_t>> written;
      for (const auto &[buffer, offset] : ev.stores)
        if (l.kernel.buffers[buffer].inout)
          written[l.kernel.buffers[buffer].label()].push_back(offset);
      for (auto &[name, offsets] : written)
        std::sort(offsets.begin(), offsets.end());
      std::vector<int64_t> rowK, rowV;
      for (int64_t j = 0; j < dk; ++j)
        rowK.push_back(t * dk + j);
      for (int64_t j = 0; j < dv; ++j)
        rowV.push_back(t * dv + j);
      CHECK(written["K"] == rowK);
      CHECK(written["V"] == rowV);
      // o, and the whole storage of K and V after the step, as the interpreter has them
      DimValues dims{{l.ctx->symbols.intern("t"), t}, {l.ctx->symbols.intern("cap"), cap},
                     {l.ctx->symbols.intern("dk"), dk}, {l.ctx->symbols.intern("dv"), dv}};
      std::vector<NDArray> want = interpret(*l.typed, dims,
                                            {NDArray{{dk}, q}, NDArray{{dk}, k}, NDArray{{dv}, v},
                                             NDArray{{cap, dk}, K}, NDArray{{cap, dv}, V}}, InterpretOptions{true});
      REQUIRE(want.size() == 3);
      std::vector<double> &o = ev.buffer("o");
      for (size_t i = 0; i < o.size(); ++i)
        CHECK(o[i] == Approx(want[0].data[i]).epsilon(1e-12));
      CHECK(ev.buffer("K") == want[1].data);
      CHECK(ev.buffer("V") == want[2].data);
    }
  }
}

TEST_CASE("an update that keeps every element stores nothing; an elementwise update stores every element",
          "[lower][update]") {
  auto storesInto = [](const char *text) {
    Lowered l = lowerText(text, Target::C);
    LoopEval ev(l.kernel, {{"n", 4}});
    ev.run();
    size_t count = 0;
    for (const auto &[buffer, offset] : ev.stores)
      count += l.kernel.buffers[buffer].inout;
    return count;
  };
  CHECK(storesInto("dim n\ninout A : f32[n]\nA = A\nout y = +/ A\n") == 0);
  CHECK(storesInto("dim n\ninout A : f32[n]\nA = A * 0.5\n") == 4);
  CHECK(storesInto("dim n\nin b : f32[2]\ninout A : f32[n]\nA = (2 take A) cat b\n") == 2);
}

TEST_CASE("a right fold is never split, interleaved or spread: one loop from the last term, on every target",
          "[lower][rightfold]") {
  Schedule s;
  s.threads = 8;
  s.chunk = 1; // a sum would be split into min(8, n) chunks
  s.lanes = 4; // and an inline sum interleaved over 4 accumulators
  // (A along its leading axis: one lane per column, row-major on every target)
  const char *text = "dim n, m\nin x : f64[n]\nin A : f64[n, m]\nout a = -/ x\nout b = ÷/ x\nout c = −/ A\n";
  for (Target target : {Target::C, Target::OpenMP, Target::OpenACC, Target::Cuda}) {
    Lowered l = lowerText(text, target, s);
    CHECK(l.kernel.chunkCounts.empty());
    for (const Decision &d : l.kernel.decisions)
      CHECK(d.kind != Decision::InterleavedSum);
    LoopEval ev(l.kernel, {{"n", 13}, {"m", 2}});
    std::vector<double> x;
    for (int64_t i = 0; i < 13; ++i)
      x.push_back(double(int64_t(1) << i) * (i % 3 ? 1 : 3)); // no two orders of − or ÷ agree
    ev.buffer("x") = x;
    std::vector<double> A; // column 0 is x, column 1 x reversed
    for (size_t i = 0; i < x.size(); ++i)
      A.insert(A.end(), {x[i], x[x.size() - 1 - i]});
    ev.buffer("A") = A;
    ev.run();
    double sub = x.back(), quo = x.back(), rev = x.front();
    for (size_t i = x.size() - 1; i-- > 0;) {
      sub = x[i] - sub;
      quo = x[i] / quo;
    }
    for (size_t i = 1; i < x.size(); ++i)
      rev = x[i] - rev; // the fold of x reversed
    CHECK(ev.buffer("a")[0] == sub);
    CHECK(ev.buffer("b")[0] == quo);
    CHECK(ev.buffer("c") == std::vector<double>{sub, rev});
  }
}

// ---- sibling reductions (compiler/lower/SiblingLoops.h) ------------------------------------------------------

TEST_CASE("the combine's sums over the splits share one loop and one factor a split, and still compute the "
          "interpreter's result",
          "[lower][siblings]") {
  Schedule s;
  s.splits = 6; // several splits, so that the combine has partials to add
  s.scores = Schedule::Scores::Inline; // (stored scores: the factors come from a region of their own)
  for (Target target : {Target::C, Target::OpenMP, Target::OpenACC, Target::Cuda}) {
    INFO("target " << int(target));
    Lowered l = lowerText(decode64, target, s, true);
    const Decision *d = nullptr;
    for (const Decision &x : l.kernel.decisions)
      if (x.kind == Decision::SiblingLoops)
        d = &x;
    REQUIRE(d);
    CHECK(d->locs.size() == 2); // o's sum (line 11) and the normaliser's (line 8), in that order
    CHECK(d->locs[0].line == 11);
    CHECK(d->locs[1].line == 8);
    // the combine: the maximum's loop, then one loop holding the shared factor and both sums
    int fused = 0;
    std::function<void(const std::vector<LStmt> &)> walk = [&](const std::vector<LStmt> &body) {
      for (const LStmt &st : body) {
        if (st.kind == LStmt::Loop && st.var == d->inner) {
          REQUIRE(st.body.size() == 3);
          CHECK(st.body[0].kind == LStmt::Decl);
          CHECK(st.body[0].value->kind == LExprKind::Rescale);
          CHECK(st.body[1].kind == LStmt::Accumulate);
          CHECK(st.body[2].kind == LStmt::Accumulate);
          ++fused;
        }
        walk(st.body);
      }
    };
    walk(l.kernel.stages[d->region].body);
    CHECK(fused == 1);
    CHECK(describeDecision(l.kernel, *d).find("run as one loop") != std::string::npos);
    if (target == Target::Cuda)
      continue; // the evaluator runs the CPU targets' loops
    for (int64_t N : {1, 7, 40})
      checkDecode(l, N);
  }
}

TEST_CASE("sibling loops fuse only over the same range, when neither reads the other's scalars", "[lower][siblings]") {
  SymbolTable symbols;
  const Symbol n = symbols.intern("n"), c = symbols.fresh("c"), c2 = symbols.fresh("c2");
  const Symbol a = symbols.fresh("a"), b = symbols.fresh("b");
  const SourceLoc at{};
  auto decl = [&](Symbol s, LExprPtr v) { return scalarStmt(LStmt::Decl, s, ElemType::F64, std::move(v), at); };
  // loop `i` over [0, end) folding `term` into `into`
  auto sum = [&](Symbol i, SymExpr end, Symbol into, LExprPtr term) {
    LStmt l = loop(i, SymExpr(0), std::move(end), SymExpr(1), LoopKind::Serial, at);
    l.body.push_back(scalarStmt(LStmt::Accumulate, into, ElemType::F64, std::move(term), at));
    return l;
  };
  auto x = [&](Symbol i) { return loadAt(0, SymExpr::symbol(i), false); };
  auto factor = [&](Symbol i) { return rescale(loadAt(1, SymExpr::symbol(i), false), var(a, false)); };
  auto loops = [](const std::vector<LStmt> &body) {
    return std::count_if(body.begin(), body.end(), [](const LStmt &s) { return s.kind == LStmt::Loop; });
  };

  SECTION("same range, independent: one loop, b's terms at a's index, b's declaration before it") {
    std::vector<LStmt> body{decl(a, floatConst(0)), sum(c, SymExpr::symbol(n), a, x(c)), decl(b, floatConst(0)),
                            sum(c2, SymExpr::symbol(n), b, binary(BinOp::Mul, x(c2), x(c2)))};
    std::vector<FusedSiblings> f = fuseSiblingReductions(body, symbols);
    REQUIRE(f.size() == 1);
    CHECK(f[0].var == c);
    REQUIRE(body.size() == 3);
    CHECK(body[1].kind == LStmt::Decl);
    CHECK(body[1].scalar == b);
    REQUIRE(body[2].body.size() == 2);
    CHECK(body[2].body[0].scalar == a); // a's terms first, then b's: each in its own order
    CHECK(body[2].body[1].scalar == b);
    CHECK(body[2].body[1].value->args[0]->offset == SymExpr::symbol(c));
  }
  SECTION("a factor both terms compute is declared once a term") {
    const Symbol m = symbols.fresh("m");
    std::vector<LStmt> body{decl(a, floatConst(1)), decl(m, floatConst(0)), decl(b, floatConst(0)),
                            sum(c, SymExpr::symbol(n), m, factor(c)),
                            sum(c2, SymExpr::symbol(n), b, binary(BinOp::Mul, x(c2), factor(c2)))};
    REQUIRE(fuseSiblingReductions(body, symbols).size() == 1);
    const LStmt &l = body.back();
    REQUIRE(l.body.size() == 3);
    CHECK(l.body[0].kind == LStmt::Decl);
    CHECK(l.body[1].value->kind == LExprKind::Var);
    CHECK(l.body[2].value->args[1]->kind == LExprKind::Var);
  }
  SECTION("another range, a loop reading the other's scalar, or one scalar in both: left apart") {
    std::vector<std::vector<LStmt>> cases;
    cases.push_back({sum(c, SymExpr::symbol(n), a, x(c)), sum(c2, SymExpr::symbol(n) + SymExpr(-1), b, x(c2))});
    cases.push_back({sum(c, SymExpr::symbol(n), a, x(c)), sum(c2, SymExpr::symbol(n), b, var(a, false))});
    cases.push_back({sum(c, SymExpr::symbol(n), a, var(b, false)), sum(c2, SymExpr::symbol(n), b, x(c2))});
    cases.push_back({sum(c, SymExpr::symbol(n), a, x(c)), sum(c2, SymExpr::symbol(n), a, x(c2))});
    cases.push_back({sum(c, SymExpr::symbol(n), a, x(c)), decl(b, var(a, false)), sum(c2, SymExpr::symbol(n), b, x(c2))});
    for (std::vector<LStmt> &body : cases) {
      const size_t before = body.size();
      CHECK(fuseSiblingReductions(body, symbols).empty());
      CHECK(body.size() == before);
      CHECK(loops(body) == 2);
    }
  }
}

TEST_CASE("a tiled split pass prefetches the rows `prefetch` terms ahead: every line of them once a tile, inside "
          "the input, nothing with prefetch=0, the result unchanged",
          "[lower][prefetch]") {
  for (int64_t ahead : {0, 16, 3}) {
    INFO("prefetch " << ahead);
    Schedule s;
    s.splits = 2;
    s.prefetch = ahead;
    Lowered l = lowerText(decode64, Target::OpenMP, s, true);
    const bool decided = std::any_of(l.kernel.decisions.begin(), l.kernel.decisions.end(),
                                     [](const Decision &d) { return d.kind == Decision::PrefetchRows; });
    CHECK(decided == (ahead > 0));
    const int64_t N = 100, dk = 3, dv = 2, line = 8; // f64: 8 elements a 64-byte line
    LoopEval ev(l.kernel, {{"n", N}, {"dk", dk}, {"dv", dv}});
    ev.run();
    // split c of 2 takes 56 terms (50 rounded up to the tile of 8): whole tiles l0 = 0 … 48 and 56 … 88; a tile
    // prefetches rows l0 + ahead … l0 + ahead + 7 where the last of them exists
    std::set<int64_t> want;
    for (int64_t c = 0; c < 2 && ahead > 0; ++c)
      for (int64_t l0 = 56 * c; l0 + 7 < std::min(N, 56 * c + 56); l0 += 8)
        if (l0 + ahead + 8 <= N)
          for (int64_t r = l0 + ahead; r < l0 + ahead + 8; ++r)
            want.insert(r);
    for (const char *input : {"K", "V"}) {
      INFO(input);
      const int64_t row = std::string(input) == "K" ? dk : dv;
      const size_t b = size_t(&bufferNamed(l.kernel, input) - l.kernel.buffers.data());
      std::set<int64_t> covered; // the rows whose every element lies in a hinted line
      std::vector<int64_t> hints;
      for (const auto &[buffer, at] : ev.prefetched)
        if (buffer == b)
          hints.push_back(at);
      for (int64_t r = 0; r < N; ++r) {
        bool all = true;
        for (int64_t x = r * row; x < r * row + row; ++x)
          all &= std::any_of(hints.begin(), hints.end(), [&](int64_t h) { return h <= x && x < h + line; });
        if (all)
          covered.insert(r);
      }
      CHECK(covered == want);
      for (int64_t h : hints) // a hint starts in a wanted row (each inside the input: LoopEval requires it)
        CHECK(want.count(h / row) == 1);
    }
    checkDecode(l, 37);
    checkDecode(l, N);
  }
}
