// Unit tests of the pipeline (compiler/driver/Pipeline.cpp): runPipeline returns every stage's product up
// to the stage asked for and stops at the first stage that reports an error; and of the loop IR's typed
// records (Kernel::decisions, Kernel::coalescing, Buffer::origin, Region parts) as their printers word
// them in `--emit=onf` and `moac explain`, for the OpenACC and the OpenMP schedules.
#include "FrontEnd.h"

#include "Explain.h"
#include "Pipeline.h"

#include <algorithm>
#include <functional>
#include <optional>

using namespace moac;

namespace {

const char *decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                     "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
                     "s = (q +.* tran K) / sqrt(dk)\nout o = softmax(s) +.* V\n";

struct Run {
  CompilationContext ctx;
  SourceManager &sources = ctx.sources;
  uint32_t file = 0;
  std::string diags;
  Compilation c;
};

// The schedule without the online-softmax rewrite, for the tests of the split reductions it replaces.
Schedule unfused() {
  Schedule s;
  s.fuse = false;
  return s;
}

// Runs the pipeline on `text` up to `stage` (for `target`), diagnostics captured.
std::unique_ptr<Run> runText(const std::string &text, Stage stage, Target target = Target::C,
                             const Schedule &schedule = {}) {
  auto run = std::make_unique<Run>();
  run->file = run->sources.add(test::fileName, text);
  DiagnosticEngine engine(run->sources);
  engine.setColor(ColorMode::Never);
  engine.captureInto(&run->diags);
  CompileOptions options;
  options.stopAfter = stage;
  options.target = target;
  options.schedule = schedule;
  run->c = runPipeline(run->ctx, run->file, engine, options);
  return run;
}

// The products present, in stage order.
std::vector<bool> present(const Compilation &c) {
  return {!c.tokens.empty(), bool(c.ast), bool(c.typed), bool(c.dnf), bool(c.kernel), bool(c.code)};
}

std::vector<std::string> lines(const std::string &text, const std::string &prefix) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    std::string line = text.substr(at, end - at);
    if (line.rfind(prefix, 0) == 0)
      out.push_back(line);
    at = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}

// Whether some line starts with `head` and ends with `tail`: the tests match the words around what they
// do not pin down (offsets, bounds, fresh names).
bool has(const std::vector<std::string> &list, const std::string &head, const std::string &tail) {
  return std::any_of(list.begin(), list.end(), [&](const std::string &line) {
    return line.size() >= head.size() + tail.size() && line.rfind(head, 0) == 0 &&
           line.compare(line.size() - tail.size(), tail.size(), tail) == 0;
  });
}

} // namespace

TEST_CASE("the stage table lists every stage once, in enum order, with distinct --emit names", "[pipeline]") {
  std::vector<std::string> names;
  for (size_t i = 0; i < std::size(stageTable); ++i) {
    CHECK(size_t(stageTable[i].stage) == i);
    CHECK(stageName(stageTable[i].stage) == std::string(stageTable[i].name));
    CHECK(std::find(names.begin(), names.end(), stageTable[i].name) == names.end());
    names.push_back(stageTable[i].name);
  }
  CHECK(names == std::vector<std::string>{"tokens", "ast", "shapes", "dnf", "onf", "code"});
  CHECK_FALSE(stageTable[size_t(Stage::Code)].golden); // the code's goldens are generated/
}

TEST_CASE("runPipeline carries every stage's product up to the one asked for, and none after it", "[pipeline]") {
  for (const StageInfo &stage : stageTable) {
    INFO("--emit=" << stage.name);
    auto run = runText(decode, stage.stage);
    CHECK(run->diags.empty());
    CHECK(run->c.ok());
    CHECK(run->c.reached == std::optional<Stage>(stage.stage));
    std::vector<bool> want(std::size(stageTable), false);
    std::fill(want.begin(), want.begin() + ptrdiff_t(stage.stage) + 1, true);
    CHECK(present(run->c) == want);
    CHECK_FALSE(dumpStage(run->c, false).empty());
  }
  auto code = runText(decode, Stage::Code, Target::OpenMP);
  CHECK(code->c.code->source.find("#pragma omp parallel for") != std::string::npos);
  CHECK(code->c.kernel->name == "moa_t");
}

TEST_CASE("runPipeline stops at the first stage that reports an error", "[pipeline]") {
  SECTION("a shape error: the tokens and the tree, nothing typed") {
    auto run = runText("dim n, m\nin A : f32[n]\nin B : f32[m]\nout C = A + B\n", Stage::Code);
    CHECK(run->diags.find("error:") != std::string::npos);
    CHECK_FALSE(run->c.ok());
    CHECK(run->c.reached == std::optional<Stage>(Stage::Ast));
    CHECK(present(run->c) == std::vector<bool>{true, true, false, false, false, false});
  }
  SECTION("a lexical error: parsed too (both report), nothing reached") {
    auto run = runText("dim n\nin A : f32[n] $\nout B = A\n", Stage::Code);
    CHECK(run->diags.find("error:") != std::string::npos);
    CHECK_FALSE(run->c.reached);
    CHECK(present(run->c) == std::vector<bool>{true, true, false, false, false, false});
  }
  SECTION("an update conflict: found after ψ-reduction, so the DNF is there and nothing is lowered") {
    auto run = runText("dim t, cap, dk\nin k : f32[dk]\ninout K : f32[cap, dk]\nK = (1 drop (t take K)) cat k\n",
                       Stage::Code);
    CHECK(run->diags.find("would need a copy") != std::string::npos);
    CHECK(run->c.reached == std::optional<Stage>(Stage::Shapes));
    CHECK(present(run->c) == std::vector<bool>{true, true, true, true, false, false});
    // asked for the shapes alone, the program is still rejected (moac run and --emit=shapes rely on it)
    auto shapes = runText("dim t, cap, dk\nin k : f32[dk]\ninout K : f32[cap, dk]\nK = (1 drop (t take K)) cat k\n",
                          Stage::Shapes);
    CHECK_FALSE(shapes->c.ok());
    CHECK(shapes->diags.find("would need a copy") != std::string::npos);
  }
  SECTION("integer arithmetic that ψ-reduction folds and that leaves int64 is a located error") {
    auto run = runText("dim n\nout r = (iota n) div 0\n", Stage::Code);
    CHECK(run->diags.find("2:18: error: this integer arithmetic, folded at compile time by ψ-reduction, fails: "
                          "division by zero") != std::string::npos);
    CHECK(run->c.reached == std::optional<Stage>(Stage::Shapes));
    CHECK_FALSE(run->c.dnf);
  }
}

TEST_CASE("the loop IR's typed records print as before: layouts, partials, γ-differences (OpenACC)",
          "[pipeline][loopir]") {
  auto run = runText(decode, Stage::Onf, Target::OpenACC, unfused());
  REQUIRE(run->c.ok());
  const Kernel &k = *run->c.kernel;
  // the layout decision is data: the buffer, its layout, the reason; then the score's dot product run as
  // interleaved accumulators, with its index, lanes and operator
  REQUIRE(k.decisions.size() == 2);
  CHECK(k.decisions[0].kind == Decision::LiftedRows);
  CHECK(k.buffers[k.decisions[0].buffer].name == "K");
  CHECK(k.buffers[k.decisions[0].buffer].layout.kind == Layout::Lifted);
  CHECK(k.decisions[1].kind == Decision::InterleavedSum);
  CHECK(k.decisions[1].inner.name() == "l");
  CHECK(k.decisions[1].lanes == 16);
  CHECK(k.decisions[1].op == BinOp::Add);
  CHECK(k.decisions[1].loc.line == 10);
  std::string onf = dumpStage(run->c, false);
  CHECK(lines(onf, "schedule: ") ==
        std::vector<std::string>{"schedule: K is read along its rows by one lane per row: stored lifted T([x, y]) = "
                                 "[x div 32, y, x mod 32] so 32 adjacent lanes read adjacent addresses",
                                 "schedule: the sum over l at t.moa:10 runs as 16 independent chains: term l goes "
                                 "into accumulator l mod 16, and the 16 accumulators are combined pairwise at the end "
                                 "(schedule lanes=16)"});
  auto buffers = lines(onf, "buffer workspace ");
  CHECK(has(buffers, "buffer workspace m : f32⟨⟩  row-major  # softmax's 'm', a reduction", ""));
  CHECK(has(buffers, "buffer workspace o_part : f32⟨P_o", " dv⟩  row-major  # partial results of o, one per chunk"));
  CHECK(has(buffers, "buffer workspace o_group : f32⟨Q_o",
            " dv⟩  row-major  # partials of o combined in groups, one per group"));
  auto chunks = lines(onf, "chunks ");
  CHECK(has(chunks, "chunks P_o", " = clamp(⌈threads / (dv)⌉, 1, ⌈(n) / chunk⌉)  # split reduction of o"));
  CHECK(has(chunks, "chunks Q_o", ") / chunk⌉)  # split reduction of o's partials"));
  // every access of K is coalesced under the lifted layout; q is a broadcast
  bool sawK = false, sawBroadcast = false;
  for (const Coalescing &c : k.coalescing) {
    const std::string &name = k.buffers[c.buffer].name;
    if (name == "K") {
      sawK = true;
      CHECK(describeLanes(c) == "coalesced");
      CHECK(regionName(k, k.stages[c.region]) == "s");
    }
    if (name == "q" && !c.isStore) {
      sawBroadcast = true;
      CHECK(c.difference == std::optional<SymExpr>(SymExpr(0)));
      CHECK(describeLanes(c) == "the same address in every lane (broadcast)");
    }
  }
  CHECK((sawK && sawBroadcast));
  std::vector<std::string> names;
  for (const Region &r : k.stages)
    names.push_back(regionName(k, r));
  CHECK(std::find(names.begin(), names.end(), "o (combine groups)") != names.end());
}

TEST_CASE("updates: the rows an update writes are a decision over the inout's buffer", "[pipeline][loopir]") {
  auto run = runText("dim t, cap, dk\nin k : f32[dk]\ninout K : f32[cap, dk]\nK = (t take K) cat k\n", Stage::Onf);
  REQUIRE(run->c.ok());
  const Kernel &k = *run->c.kernel;
  REQUIRE(k.decisions.size() == 1);
  CHECK(k.decisions[0].kind == Decision::UpdateRows);
  CHECK(k.buffers[k.decisions[0].buffer].name == "K");
  CHECK(describeDecision(k, k.decisions[0]) ==
        "the update of K writes only rows [t, t + 1) of K: the other rows keep their values in place (no copy)");
  REQUIRE(k.stages.size() == 1);
  CHECK(regionName(k, k.stages[0]) == "update K");
}

TEST_CASE("explain --target=openmp shows the OpenMP schedule: row-by-row partials, no lifting", "[pipeline][explain]") {
  auto acc = runText(decode, Stage::Onf, Target::OpenACC, unfused());
  auto omp = runText(decode, Stage::Onf, Target::OpenMP, unfused());
  REQUIRE((acc->c.ok() && omp->c.ok()));
  std::string accText = explain(acc->sources.file(acc->file), *acc->c.typed, *acc->c.dnf, *acc->c.kernel,
                                Target::OpenACC);
  std::string ompText = explain(omp->sources.file(omp->file), *omp->c.typed, *omp->c.dnf, *omp->c.kernel,
                                Target::OpenMP);
  CHECK(accText.find("== ONF for OpenACC: coalescing ==") != std::string::npos);
  CHECK(accText.find("stored lifted") != std::string::npos);
  CHECK(ompText.find("== ONF for OpenMP: coalescing ==") != std::string::npos);
  CHECK(ompText.find("stored lifted") == std::string::npos); // CPUs keep the caller's row-major K
  auto ompLines = lines(ompText, "");
  CHECK(has(ompLines, "o (partials): the terms are read along rows with ", " on the lanes)"));
  CHECK(has(ompLines, "  s: load K[dk*", ": dk")); // row-major K: lanes a row apart
}

TEST_CASE("a fused group's split pass is typed records too: its partials, splits, region and decision",
          "[pipeline][loopir][fuse]") {
  auto run = runText(decode, Stage::Code, Target::OpenMP);
  REQUIRE(run->c.ok());
  const Kernel &k = *run->c.kernel;
  // the score's interleaved dot product (lowered first, once for its two copies: the whole tiles' and the cut
  // tile's), the split pass, its row tiles, their prefetch of the rows ahead, the combine's two sums in one loop
  REQUIRE(k.decisions.size() == 5);
  CHECK(k.decisions[0].kind == Decision::InterleavedSum);
  CHECK(k.decisions[2].kind == Decision::RowTiles);
  CHECK(k.decisions[3].kind == Decision::PrefetchRows);
  CHECK(k.decisions[3].lanes == 16);
  CHECK(k.decisions[4].kind == Decision::SiblingLoops);
  const Decision &d = k.decisions[1];
  CHECK(d.kind == Decision::FusedSplits);
  const Buffer &maxima = k.buffers[d.buffer];
  CHECK(maxima.origin == Buffer::FusedPartials);
  CHECK(maxima.group == "online");
  CHECK(maxima.label() == "online_m_part");
  CHECK(regionName(k, k.stages[d.region]) == "online (splits)");
  CHECK(k.stages[d.region].part == Region::Splits);
  std::vector<std::string> partials;
  for (const Buffer &b : k.buffers)
    if (b.origin == Buffer::FusedPartials)
      partials.push_back(b.label());
  CHECK(partials == std::vector<std::string>{"online_m_part", "online_sum_e_part", "online_o_part"});
  REQUIRE(k.chunkCounts.size() == 1);
  CHECK(k.chunkCounts[0].level == ChunkCount::Splits);
  CHECK(k.chunkCounts[0].of == d.buffer);
  CHECK(describeDecision(k, d) == "online: the fused reduction of m, sum_e, o runs as P_online splits of contiguous "
                                  "terms, each computing every score once; its readers combine the splits' partials");
  // two parallel regions: the splits, then o combining them; no stored scores
  std::vector<std::string> names;
  for (const Region &r : k.stages)
    names.push_back(regionName(k, r));
  CHECK(names == std::vector<std::string>{"online (splits)", "o"});
  std::string onf = dumpStage(runText(decode, Stage::Onf, Target::OpenMP)->c, false);
  CHECK(has(lines(onf, "chunks "), "chunks P_online = ", "  # splits of the fused online"));
  // the C names come from CNames: derived from the group and the member
  const std::string &code = run->c.code->source;
  CHECK(code.find("float *online_o_part = ") != std::string::npos);
  CHECK(code.find("moart_rescalef(") != std::string::npos);
}

namespace {

// GQA decode: query head g reads KV head g·hkv div hq.
const std::string gqaProgram =
    "dim B, hq, hkv, n, dk, dv\nin Q : f32[B, hq, dk]\nin K : f32[B, hkv, n, dk]\nin V : f32[B, hkv, n, dv]\n"
    "fn softmax(x) {\n  m = max/ x\n  e = exp(x - m)\n  e / (+/ e)\n}\n"
    "fn attend(q, K, V) = softmax((q +.* tran K) / sqrt(dk)) +.* V\n"
    "out O = [b < B, g < hq] attend(<b g> psi Q, <b, g * hkv div hq> psi K, <b, g * hkv div hq> psi V)\n";

// The same program with the heads indexed directly (MHA): K and V have hq heads.
std::string mhaFrom(std::string gqa) {
  gqa.replace(gqa.find("<b, g * hkv div hq> psi K"), 25, "<b, g> psi K");
  gqa.replace(gqa.find("<b, g * hkv div hq> psi V"), 25, "<b, g> psi V");
  gqa.replace(gqa.find("hkv, n, dk]"), 3, "hq");
  gqa.replace(gqa.find("hkv, n, dv]"), 3, "hq");
  return gqa;
}

} // namespace

TEST_CASE("CUDA packs the query heads of a GQA group into a warp, by the DNF's floor divisions", "[pipeline][cuda]") {
  const std::string gqa = gqaProgram;
  auto packed = [](const Kernel &k) -> const Region * {
    for (const Region &r : k.stages)
      if (r.packing > 1)
        return &r;
    return nullptr;
  };
  auto run = runText(gqa, Stage::Code, Target::Cuda);
  REQUIRE(run->c.ok());
  const Kernel &k = *run->c.kernel;
  const Region *r = packed(k);
  REQUIRE(r);
  CHECK(r->part == Region::Splits);
  CHECK(r->packing == 2);
  CHECK(r->packed.name() == "j"); // the frame's second index, g's: K and V see it only in ⌊hkv·j / hq⌋
  REQUIRE(k.chunkCounts.size() == 1);
  CHECK(k.chunkCounts[0].items.str() == "B*((hq + 1) div 2)"); // the splits count packs
  auto d = std::find_if(k.decisions.begin(), k.decisions.end(),
                        [](const Decision &x) { return x.kind == Decision::PackedFrame; });
  REQUIRE(d != k.decisions.end());
  CHECK(describeDecision(k, *d) ==
        "online (splits): a warp takes 2 adjacent values of j together, each on 16 of its lanes: K and V depend on j "
        "only through floor divisions, so values that agree on them (the query heads of a GQA group) load the same "
        "rows in the same instructions (schedule pack=2)");
  const std::string &code = run->c.code->source;
  CHECK(code.find("moart_warp_addf(acc2, 16)") != std::string::npos); // a score's sum over 16 lanes
  CHECK(code.find("if (moa_lane == 0 && moa_live) {") != std::string::npos); // a short last pack stores nothing
  CHECK(code.find("moa_h0_1") != std::string::npos); // two groups of o's row held a lane
  // the same program on the CPU targets, with pack=1, or with the heads indexed directly (MHA): a warp a head
  CHECK(!packed(*runText(gqa, Stage::Code, Target::OpenMP)->c.kernel));
  Schedule one;
  one.pack = 1;
  CHECK(!packed(*runText(gqa, Stage::Code, Target::Cuda, one)->c.kernel));
  const std::string mha = mhaFrom(gqa);
  auto direct = runText(mha, Stage::Code, Target::Cuda);
  INFO(direct->diags);
  REQUIRE(direct->c.ok());
  CHECK(!packed(*direct->c.kernel));
  // half-precision K and V: four heads a warp (a lane's groups of them take half the registers); half K
  // beside f32 V: two
  auto halves = [&](const char *kType, const char *vType) {
    std::string text = gqa;
    text.replace(text.find("K : f32"), 7, std::string("K : ") + kType);
    text.replace(text.find("V : f32"), 7, std::string("V : ") + vType);
    auto half = runText(text, Stage::Code, Target::Cuda);
    INFO(half->diags);
    REQUIRE(half->c.ok());
    const Region *p = packed(*half->c.kernel);
    return p ? p->packing : int64_t(1);
  };
  CHECK(halves("bf16", "bf16") == 4);
  CHECK(halves("f16", "bf16") == 4);
  CHECK(halves("bf16", "f32") == 2);
}

TEST_CASE("On the CPU targets the query heads of a GQA group loop inside the split loop, by the DNF's floor "
          "divisions; queries over one K alike; reuse=off keeps the split loop innermost",
          "[pipeline][schedule]") {
  const std::string gqa = gqaProgram;
  // the split pass's nest, outermost first, and what its splits count
  auto nest = [](const Kernel &k) {
    std::vector<std::string> vars;
    for (const Region &r : k.stages)
      if (r.part == Region::Splits)
        for (const LStmt *s = &r.body[0]; s->kind == LStmt::Loop && s->loopKind == LoopKind::Parallel;
             s = &s->body[0])
          vars.push_back(s->var.name());
    return vars;
  };
  auto shared = [](const Kernel &k) {
    return std::count_if(k.decisions.begin(), k.decisions.end(),
                         [](const Decision &d) { return d.kind == Decision::RowsShared; });
  };
  for (Target t : {Target::C, Target::OpenMP}) {
    auto run = runText(gqa, Stage::Code, t);
    INFO(run->diags);
    REQUIRE(run->c.ok());
    const Kernel &k = *run->c.kernel;
    CHECK(nest(k) == std::vector<std::string>{"i", "c", "j"}); // b, the split, then g
    REQUIRE(k.chunkCounts.size() == 1);
    CHECK(k.chunkCounts[0].items.str() == "B"); // the splits count the batch only
    REQUIRE(shared(k) == 1);
  }
  auto omp = runText(gqa, Stage::Code, Target::OpenMP);
  const Kernel &ompKernel = *omp->c.kernel;
  auto rows = std::find_if(ompKernel.decisions.begin(), ompKernel.decisions.end(),
                           [](const Decision &x) { return x.kind == Decision::RowsShared; });
  REQUIRE(rows != ompKernel.decisions.end());
  CHECK(describeDecision(ompKernel, *rows) ==
        "online (splits): the loop over j runs inside the split loop: K and V depend on j only through floor "
        "divisions, so the values of j that agree on them (a GQA group's query heads) read the same rows of a split, "
        "one after the other on one thread, all but the first from its cache; the splits count the other frame "
        "elements (schedule reuse=on)");
  Schedule off;
  off.reuse = false;
  auto apartRun = runText(gqa, Stage::Code, Target::OpenMP, off);
  const Kernel &apart = *apartRun->c.kernel;
  CHECK(nest(apart) == std::vector<std::string>{"i", "j", "c"});
  CHECK(apart.chunkCounts[0].items.str() == "B*hq");
  CHECK(shared(apart) == 0);
  // CUDA packs such heads into a warp instead; heads indexed directly (MHA) read rows of their own
  CHECK(shared(*runText(gqa, Stage::Code, Target::Cuda)->c.kernel) == 0);
  const std::string mha = mhaFrom(gqa);
  auto headsRun = runText(mha, Stage::Code, Target::OpenMP);
  const Kernel &heads = *headsRun->c.kernel;
  CHECK(nest(heads) == std::vector<std::string>{"i", "j", "c"});
  CHECK(shared(heads) == 0);
  // queries over one K and V (prefill): no load of a term depends on the query, which loops inside
  const std::string prefill = "dim m, n, dk, dv\nin Q : f32[m, dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                              "fn softmax(x) {\n  mx = max/ x\n  e = exp(x - mx)\n  e / (+/ e)\n}\n"
                              "out O = [i < m] softmax((<i> psi Q) +.* tran K) +.* V\n";
  auto query = runText(prefill, Stage::Code, Target::C);
  INFO(query->diags);
  REQUIRE(query->c.ok());
  const Kernel &queries = *query->c.kernel;
  const std::vector<std::string> order = nest(queries);
  REQUIRE(order.size() == 2);
  CHECK(order[0] == "c");
  CHECK(queries.chunkCounts[0].items.str() == "1");
  CHECK(shared(queries) == 1);
}

TEST_CASE("On the CPU targets a fused split pass takes its terms a tile at a time: the scores once into a tile a "
          "line apart from the next split's, whole tiles under one guard, a cut tile term by term; tile=1, CUDA and "
          "stored scores keep the term-by-term form",
          "[pipeline][schedule]") {
  const std::string decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                             "s = (q +.* tran K) / sqrt(dk)\nm = max/ s\ne = exp(s - m)\n"
                             "out o = (e / (+/ e)) +.* V\n";
  auto tiles = [](const Kernel &k) {
    std::vector<std::string> shapes;
    for (const Buffer &b : k.buffers)
      if (b.origin == Buffer::FusedTile)
        shapes.push_back(b.label() + " " + b.shape[0].str() + "," + b.shape[1].str() + "," + b.shape[2].str());
    return shapes;
  };
  auto decided = [](const Kernel &k) -> std::optional<Decision> {
    for (const Decision &d : k.decisions)
      if (d.kind == Decision::RowTiles)
        return d;
    return std::nullopt;
  };
  for (Target t : {Target::C, Target::OpenMP}) {
    auto run = runText(decode, Stage::Code, t);
    INFO(run->diags);
    REQUIRE(run->c.ok());
    const Kernel &k = *run->c.kernel;
    // eight f32 terms, then a 64-byte line: 32 floats a split
    CHECK(tiles(k) == std::vector<std::string>{"online_tile 1,P_online,32"});
    const std::optional<Decision> d = decided(k);
    REQUIRE(d);
    CHECK(d->lanes == 8);
    CHECK(describeDecision(k, *d) ==
          "online (splits): each split takes its terms over l 8 at a time: the tile's scores first, each computed once "
          "into online_tile, then their maximum merged into the running one, so the sums are rescaled once a tile, not "
          "once a term; then the weights exp(e − m) into the same place, and the tile's terms added to the sums one "
          "row after another; a tile that runs past the terms goes term by term (schedule tile=8)");
    const std::string &code = run->c.code->source;
    CHECK(code.find("if ((l0 + 7) < n) {") != std::string::npos); // a whole tile
    CHECK(code.find("} else {") != std::string::npos);           // a cut one
  }
  Schedule wide; // a line apart in f64 too: 8 doubles
  wide.tile = 3;
  std::string f64 = decode;
  for (size_t at; (at = f64.find("f32")) != std::string::npos;)
    f64.replace(at, 3, "f64");
  auto doubles = runText(f64, Stage::Code, Target::C, wide);
  INFO(doubles->diags);
  REQUIRE(doubles->c.ok());
  CHECK(tiles(*doubles->c.kernel) == std::vector<std::string>{"online_tile 1,P_online,16"});
  Schedule one;
  one.tile = 1;
  for (const auto &[target, schedule] : std::vector<std::pair<Target, Schedule>>{
           {Target::C, one}, {Target::Cuda, Schedule{}}, {Target::OpenACC, Schedule{}}}) {
    auto run = runText(decode, Stage::Code, target, schedule);
    REQUIRE(run->c.ok());
    CHECK(tiles(*run->c.kernel).empty());
    CHECK(!decided(*run->c.kernel));
  }
}

TEST_CASE("CUDA prints a combine three times: a warp a result, a block a result for few results, a thread a result "
          "for few partials",
          "[pipeline][cuda]") {
  const std::string decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                             "s = (q +.* tran K) / sqrt(dk)\nm = max/ s\ne = exp(s - m)\n"
                             "out o = (e / (+/ e)) +.* V\n";
  auto run = runText(decode, Stage::Code, Target::Cuda);
  INFO(run->diags);
  REQUIRE(run->c.ok());
  const std::string &code = run->c.code->source;
  auto count = [&](const std::string &what) {
    size_t n = 0;
    for (size_t at = code.find(what); at != std::string::npos; at = code.find(what, at + 1))
      ++n;
    return n;
  };
  // the split pass once, the combine (o's stage) as a warp kernel, a block kernel and a thread kernel
  CHECK(count("__global__") == 4);
  CHECK(count("_wide(") == 1);
  CHECK(count("_thin(") == 1);
  CHECK(count("/* o: a thread a result */") == 1);
  CHECK(count("__launch_bounds__(32 * MOART_CUDA_COMBINE_WARPS)") == 1);
  // the block kernel's reductions go through shared memory, the warp kernel's through shuffles only
  CHECK(count("__shared__ long long moa_scratch[32];") == 1);
  CHECK(count("moa_width, moa_scratch);") == 3); // max, Σ, Σ (the two sums in one loop: siblings)
  CHECK(count("for (int64_t moa_t = blockIdx.x; moa_t < moa_total; moa_t += gridDim.x) {") == 1);
  // the launcher picks one by the device's warps per result
  // (and by the partials each reads: P_online)
  CHECK(count("const int moa_width = moart_cuda_combine_width(moa_total, P_online);") == 1);
  CHECK(code.find("} else if (moa_width > 32) {") != std::string::npos);
  // and by the partials a result reads: a thread reads up to MOART_CUDA_THIN_COMBINE of them in turn
  CHECK(count("if (P_online <= MOART_CUDA_THIN_COMBINE) {") == 1);
  // a program without a combine has one kernel a stage and no block kernel
  auto plain = runText("dim n\nin x : f32[n]\nout y = x * 2.0\n", Stage::Code, Target::Cuda);
  REQUIRE(plain->c.ok());
  CHECK(plain->c.code->source.find("_wide") == std::string::npos);
  CHECK(plain->c.code->source.find("_thin") == std::string::npos);
}

TEST_CASE("a fused member named like a C keyword gets a partials name C can have", "[pipeline][fuse]") {
  auto run = runText("dim n, d\nin a : f32[n]\nin W : f32[n, d]\nint = max/ a\nw = exp(a - int)\n"
                     "z = +/ w\nout r = (w / z) +.* W\n",
                     Stage::Code);
  REQUIRE(run->c.ok());
  const std::string &code = run->c.code->source;
  CHECK(code.find("online_int_part") != std::string::npos);
}

// CNames names a loop index, scalar or chunk count after its symbol's hint (the spelling the program or
// the pass chose), never after the symbol's name with its digits stripped: y1's chunk counts are P_y1
// and Q_y1 (P_y1_2 where a dim already is P_y1), y2's P_y2 and Q_y2 (they were P_y1_, Q_y, P_y, Q_y2).
TEST_CASE("C names come from the symbol's hint: a program name keeps its digits", "[pipeline][names]") {
  auto run = runText("dim n, P_y1\nin x : f32[n]\nin w : f32[P_y1]\nout y1 = +/ x\nout y2 = +/ w\n", Stage::Code);
  REQUIRE(run->c.ok());
  const std::string &code = run->c.code->source;
  for (const char *declared : {"P_y1_2 = moart_chunks(1, n,", "Q_y1 = moart_chunks(1, P_y1_2,",
                               "P_y2 = moart_chunks(1, P_y1,", "Q_y2 = moart_chunks(1, P_y2,"})
    CHECK_THAT(code, Catch::Contains(std::string("const int64_t ") + declared));
  for (const char *stripped : {"P_y1_ ", "Q_y ", "P_y "})
    CHECK_THAT(code, !Catch::Contains(std::string("const int64_t ") + stripped));
}

namespace {
// The interleaved-sum decisions of a program's kernel for `target` and `schedule`.
std::vector<Decision> interleaved(const std::string &text, Target target, const Schedule &schedule = {}) {
  auto run = runText(text, Stage::Onf, target, schedule);
  REQUIRE(run->c.ok());
  std::vector<Decision> found;
  for (const Decision &d : run->c.kernel->decisions)
    if (d.kind == Decision::InterleavedSum)
      found.push_back(d);
  return found;
}
} // namespace

TEST_CASE("inline float sums and products run as interleaved accumulators on the CPU targets only",
          "[pipeline][loopir][lanes]") {
  // inline: the sum is part of the element's expression (a whole element that is a sum is a split
  // reduction, whose terms the chunks share out instead)
  const std::string rows = "dim n, m\nin A : f32[n, m]\nout r = [i < n] (+/ (<i> psi A)) * 2.0\n";
  for (Target t : {Target::C, Target::OpenMP, Target::OpenACC}) {
    std::vector<Decision> d = interleaved(rows, t);
    REQUIRE(d.size() == 1);
    CHECK(d[0].lanes == 16);
    CHECK(d[0].op == BinOp::Add);
  }
  CHECK(interleaved(rows, Target::Cuda).empty()); // a warp's lanes take the terms there
  Schedule one;
  one.lanes = 1;
  CHECK(interleaved(rows, Target::C, one).empty());
  Schedule four;
  four.lanes = 4;
  REQUIRE(interleaved(rows, Target::C, four).size() == 1);
  CHECK(interleaved(rows, Target::C, four)[0].lanes == 4);
  // a product
  std::vector<Decision> product = interleaved("dim n, m\nin A : f32[n, m]\nout r = [i < n] (*/ (<i> psi A)) * 2.0\n", Target::C);
  REQUIRE(product.size() == 1);
  CHECK(product[0].op == BinOp::Mul);
  // a constant extent below two rounds of lanes keeps one chain; from two rounds on it is interleaved
  CHECK(interleaved("dim n\nin A : f32[n, 31]\nout r = [i < n] (+/ (<i> psi A)) * 2.0\n", Target::C).empty());
  CHECK(interleaved("dim n\nin A : f32[n, 32]\nout r = [i < n] (+/ (<i> psi A)) * 2.0\n", Target::C).size() == 1);
  // max keeps one chain
  CHECK(interleaved("dim n, m\nin A : f32[n, m]\nout r = [i < n] (max/ (<i> psi A)) * 2.0\n", Target::C).empty());
}

TEST_CASE("CUDA rescales the online softmax only where a warp's maximum moved, and launches each stage to overlap",
          "[pipeline][cuda]") {
  const std::string decode = "dim n, dk, dv\nin q : f32[dk]\nin K : f32[n, dk]\nin V : f32[n, dv]\n"
                             "s = (q +.* tran K) / sqrt(dk)\nm = max/ s\ne = exp(s - m)\n"
                             "out o = (e / (+/ e)) +.* V\n";
  // the If of the split pass's term that only saves work, anywhere in a stage
  std::function<const LStmt *(const std::vector<LStmt> &)> saving = [&](const std::vector<LStmt> &body) -> const LStmt * {
    for (const LStmt &s : body) {
      if (s.kind == LStmt::If && s.onlySaves)
        return &s;
      if (const LStmt *inner = saving(s.body))
        return inner;
    }
    return nullptr;
  };
  auto cuda = runText(decode, Stage::Code, Target::Cuda);
  INFO(cuda->diags);
  REQUIRE(cuda->c.ok());
  const LStmt *test = nullptr;
  for (const Region &r : cuda->c.kernel->stages)
    if (const LStmt *found = saving(r.body))
      test = found;
  REQUIRE(test);
  REQUIRE(test->value);
  CHECK(test->value->kind == LExprKind::Binary);
  CHECK(test->value->op == BinOp::Ne); // next != m
  CHECK(test->orElse.empty());
  // inside: the factor, then each sum scaled (sum_e, and o's row in a loop over dv)
  REQUIRE(test->body.size() == 3);
  CHECK(test->body[0].kind == LStmt::Decl);
  CHECK(test->body[0].value->kind == LExprKind::Rescale);
  CHECK(test->body[2].kind == LStmt::Loop);
  const std::string &code = cuda->c.code->source;
  CHECK(code.find("if (__any_sync(0xffffffffu, (next != m))) {") != std::string::npos); // the warp's test
  CHECK(code.find("float inv = sqrtf((float)(dk));") != std::string::npos); // √dk once a split
  CHECK(code.find("<<<") == std::string::npos); // every launch a programmatic dependent one
  CHECK(code.find("moart_cuda_launch_config(") != std::string::npos);
  CHECK(code.find("moart_cuda_wait_previous();") != std::string::npos);
  // the CPU targets keep the plain term: no such test, the factor in every update
  for (Target t : {Target::C, Target::OpenMP, Target::OpenACC}) {
    auto cpu = runText(decode, Stage::Code, t);
    REQUIRE(cpu->c.ok());
    for (const Region &r : cpu->c.kernel->stages)
      CHECK(!saving(r.body));
  }
}

TEST_CASE("CUDA loads a half-precision row four elements at a time, widened where it is read",
          "[pipeline][cuda]") {
  const std::string decode = "dim n, dk, dv\nin q : f32[dk]\nin K : bf16[n, dk]\nin V : bf16[n, dv]\n"
                             "s = (q +.* tran K) / sqrt(dk)\nm = max/ s\ne = exp(s - m)\n"
                             "out o : bf16 = (e / (+/ e)) +.* V\n";
  auto run = runText(decode, Stage::Code, Target::Cuda);
  INFO(run->diags);
  REQUIRE(run->c.ok());
  const std::string &code = run->c.code->source;
  // the pipelined row loop: each group of four bf16 is one 8-byte load into a uint2, issued a row ahead,
  // widened when its row is taken; the pointer tests ask for 8 bytes, q's (f32) for 16
  CHECK(code.find("uint2 moa_nx0_0_0 = make_uint2(0u, 0u);") != std::string::npos);
  CHECK(code.find("const auto *moa_sp0_0 = &K[dk * c * moa_div0 + 4 * moa_lane];") != std::string::npos);
  CHECK(code.find("moa_nx0_0_0 = *(const uint2 *)&moa_sp0_0[0];") != std::string::npos);
  CHECK(code.find("const float4 moa_cx0_0_0 = moart_cuda_bf16x4(moa_nx0_0_0);") != std::string::npos);
  CHECK(code.find("((uintptr_t)K & 7u) == 0") != std::string::npos);
  CHECK(code.find("((uintptr_t)q & 15u) == 0") != std::string::npos);
  // the scalar path stays for rows not so aligned, and o's bf16 stores stay scalar, each rounded once
  CHECK(code.find("moart_bf16_to_f32(K[") != std::string::npos);
  CHECK(code.find("moart_f32_to_bf16(") != std::string::npos);
  CHECK(code.find("*(uint2 *)&") == std::string::npos);
}

TEST_CASE("CUDA keeps enough rows in flight for a SM: one of f32 decode, three of half-precision rows, others on "
          "request",
          "[pipeline][cuda]") {
  auto decode = [](const char *elem) {
    return fmt::format("dim n, dk, dv\nin q : f32[dk]\nin K : {0}[n, dk]\nin V : {0}[n, dv]\n"
                       "s = (q +.* tran K) / sqrt(dk)\nm = max/ s\ne = exp(s - m)\nout o = (e / (+/ e)) +.* V\n",
                       elem);
  };
  auto code = [](const std::string &text, const Schedule &schedule = {}) {
    auto run = runText(text, Stage::Code, Target::Cuda, schedule);
    INFO(run->diags);
    REQUIRE(run->c.ok());
    return run->c.code->source;
  };
  // the choice is the lowering's, a decision that explain prints
  auto decision = [](const std::string &text) {
    auto run = runText(text, Stage::Code, Target::Cuda);
    REQUIRE(run->c.ok());
    const Kernel &k = *run->c.kernel;
    auto d = std::find_if(k.decisions.begin(), k.decisions.end(),
                          [](const Decision &x) { return x.kind == Decision::RowsAhead; });
    REQUIRE(d != k.decisions.end());
    CHECK(k.stages[d->region].ahead == d->lanes);
    return describeDecision(k, *d);
  };
  CHECK(decision(decode("bf16")) ==
        "online (splits): each warp keeps 3 rows of K and V loaded ahead of the one it computes with, each in registers "
        "of its own (512 bytes a row a warp; half-precision rows keep three, their loads taking half the registers of "
        "an f32 row's) (schedule ahead=3)");
  CHECK(decision(decode("f16")).find("keeps 3 rows of K and V") != std::string::npos);
  CHECK(decision(decode("f32")) ==
        "online (splits): each warp keeps 1 row of K and V loaded ahead of the one it computes with, each in registers "
        "of its own (1024 bytes a row a warp; at 32 warps a SM, about 1024 bytes a warp in flight keep the memory "
        "busy) (schedule ahead=1)");
  CHECK(decision(gqaProgram).find("keeps 2 rows of K and V") != std::string::npos); // two heads a warp
  auto cpu = runText(decode("bf16"), Stage::Code, Target::OpenMP);
  REQUIRE(cpu->c.ok());
  for (const Decision &d : cpu->c.kernel->decisions)
    CHECK(d.kind != Decision::RowsAhead); // CUDA's alone
  // f32: a row of K and one of V are 1 KB a warp, enough: one slot, the loop as before
  const std::string f32 = code(decode("f32"));
  CHECK(f32.find("++moa_row0) {") != std::string::npos);
  CHECK(f32.find("moa_nx0_0_0_1") == std::string::npos);
  // bf16: three rows ahead by default
  CHECK(code(decode("bf16")).find("moa_row0 += 3) {") != std::string::npos);
  // two on request: the body printed once a slot, each copy loading into its own registers the row two past
  // it (no register copied while its load is outstanding)
  Schedule two;
  two.ahead = 2;
  const std::string bf16 = code(decode("bf16"), two);
  CHECK(bf16.find("moa_row0 += 2) {") != std::string::npos);
  CHECK(bf16.find("const int64_t l = moa_row0 + 1;") != std::string::npos);
  // the loads ahead test one bound, the split's end and the guard l < n folded once; each stream's pointer
  // is stepped a row, at the lane's first group
  CHECK(bf16.find("const int64_t moa_stop0 = moart_mini(moa_end0, n);") != std::string::npos);
  CHECK(bf16.find("if ((l + 2) < moa_stop0) {") != std::string::npos);
  CHECK(bf16.find("moa_sp0_0 += dk;") != std::string::npos);
  CHECK(bf16.find("moa_nx0_0_0_1 = *(const uint2 *)&moa_sp0_0[0];") != std::string::npos);
  CHECK(bf16.find("const float4 moa_cx0_0_0 = moart_cuda_bf16x4(moa_nx0_0_0_1);") != std::string::npos);
  CHECK(bf16.find("moa_nx0_0_0 = moa_nx0_0_0_1") == std::string::npos);
  // the schedule's ahead
  Schedule three;
  three.ahead = 3;
  const std::string more = code(decode("f32"), three);
  CHECK(more.find("moa_row0 += 3) {") != std::string::npos);
  CHECK(more.find("moa_nx0_2_0_2 = *(const float4 *)&moa_sp0_2[0];") != std::string::npos);
  CHECK(more.find("if ((l + 3) < moa_stop0) {") != std::string::npos);
}

TEST_CASE("CUDA runs a packed half-precision split pass on the tensor cores, sixteen rows a tile",
          "[pipeline][cuda][mma]") {
  auto typed = [](const char *q, const char *kv) {
    std::string text = gqaProgram;
    text.replace(text.find("Q : f32"), 7, std::string("Q : ") + q);
    text.replace(text.find("K : f32"), 7, std::string("K : ") + kv);
    text.replace(text.find("V : f32"), 7, std::string("V : ") + kv);
    return text;
  };
  auto lowered = [](const std::string &text, const Schedule &schedule = {}) {
    auto run = runText(text, Stage::Code, Target::Cuda, schedule);
    INFO(run->diags);
    REQUIRE(run->c.ok());
    return run;
  };
  auto tiles = [](const Kernel &k) -> const Decision * {
    for (const Decision &d : k.decisions)
      if (d.kind == Decision::TensorTiles)
        return &d;
    return nullptr;
  };
  // the lowering's decision, printed by explain, where four heads a warp read half-precision rows
  auto bf16 = lowered(typed("bf16", "bf16"));
  const Kernel &k = *bf16->c.kernel;
  const Decision *d = tiles(k);
  REQUIRE(d);
  CHECK(k.stages[d->region].tiles);
  CHECK(describeDecision(k, *d).find("online (splits): the row loop over l runs sixteen rows a step on the tensor "
                                     "cores: the 4 values a warp takes are the rows of 16×8×16 products") == 0);
  const std::string &code = bf16->c.code->source;
  // chosen at run time before the pipelined path, every lane voting; the scores and the weighted sum as
  // bf16 products; the weights in two parts; V's columns paired across rows for the right operand
  CHECK(code.find("const bool moa_mma0 = __all_sync(") != std::string::npos);
  CHECK(code.find("MOART_CUDA_MMA && moa_pipe0 &&") != std::string::npos);
  CHECK(code.find("} else if (moa_pipe0) {") != std::string::npos);
  // (q's operands made once, before the loop: value r's rows of a product, the dead heads' zero)
  CHECK(code.find("const uint4 moa_qa0_0_0 = make_uint4(moa_q0_0_0_0.x, 0u, moa_q0_0_0_0.y, 0u);") != std::string::npos);
  CHECK(code.find("moart_cuda_mma_bf16(&moa_s0_1, moa_qa0_0_0, make_uint2(moa_k0_0_1_0.x, moa_k0_0_1_0.y));") !=
        std::string::npos);
  // its lanes' path (the calls whose heads of a warp read different rows) keeps its rows in flight
  CHECK(k.stages[d->region].ahead == 3);
  CHECK(code.find("moart_cuda_split_bf16x2(moa_w0_000, moa_w0_001, &moa_pa0_00, &moa_pb0_00);") != std::string::npos);
  // (Oᵀ = Vᵀ·Pᵀ: V's columns 16r + 2mt, + 1 paired across rows 2c, 2c + 1; the weights as they lie)
  CHECK(code.find("__byte_perm(moa_v0_0_0_0.x, moa_v0_0_1_0.x, 0x7632)") != std::string::npos);
  CHECK(code.find("moart_cuda_mma_bf16(&moa_o0_0_0, moa_a, make_uint2(moa_pb0_00, moa_pb0_01));") != std::string::npos);
  // whole tiles test no row; the tile cut by the split's end scores its rows past it −∞
  CHECK(code.find("for (int64_t moa_lt0 = c * moa_div0; moa_lt0 < moa_full0; moa_lt0 += 16) {") != std::string::npos);
  CHECK(code.find("if (moa_full0 + 9 + 2 * moa_gc0 >= moa_ms0)") != std::string::npos);
  // and there a row past the end adds nothing to a sum and weighs nothing in o, as the guard l < n skips it
  CHECK(code.find("if (moa_full0 + 9 + 2 * moa_gc0 < moa_ms0)\n          moa_acc_0 = (moa_acc_0 + moa_w_011);") !=
        std::string::npos);
  CHECK(code.find("const float moa_w0_011 = moa_full0 + 9 + 2 * moa_gc0 < moa_ms0 ? moa_w_011 : 0.0f;") !=
        std::string::npos);
  // the statements between score and sums run on each score a lane holds; the maximum once a tile
  CHECK(code.find("float moa_e_011 = (moa_s0_1.y / inv);") != std::string::npos);
  CHECK(code.find("moa_tm0_0 = moart_maxf(moa_tm0_0, __shfl_xor_sync(0xffffffffu, moa_tm0_0, 2));") !=
        std::string::npos);
  CHECK(code.find("if (__any_sync(0xffffffffu, (moa_next_0 != moa_m_0))) {") != std::string::npos);
  // the carried scalars back into each lane of their head: the sums added over the quad first
  CHECK(code.find("moa_acc_0 += __shfl_xor_sync(0xffffffffu, moa_acc_0, 2);\n      acc = __shfl_sync(0xffffffffu, "
                  "moa_acc_0, 4 * (moa_pack % 8));") != std::string::npos);
  // f16 rows take f16 products; an f32 query three bf16 parts of each element
  CHECK(lowered(typed("f16", "f16"))->c.code->source.find("moart_cuda_mma_f16(") != std::string::npos);
  CHECK(lowered(typed("f32", "bf16"))->c.code->source.find("moart_cuda_split_bf16x8(moa_a, moa_b, &moa_q0_0_0_0, "
                                                           "&moa_q0_0_0_1, &moa_q0_0_0_2);") != std::string::npos);
  // none where the rows are f32, two heads a warp, an f16 query beside bf16 rows, or mma=off
  CHECK(!tiles(*lowered(gqaProgram)->c.kernel));
  Schedule two, off;
  two.pack = 2;
  off.mma = false;
  CHECK(!tiles(*lowered(typed("bf16", "bf16"), two)->c.kernel));
  CHECK(!tiles(*lowered(typed("bf16", "bf16"), off)->c.kernel));
  CHECK(lowered(typed("bf16", "bf16"), off)->c.code->source.find("moart_cuda_mma") == std::string::npos);
  CHECK(lowered(typed("f16", "bf16"))->c.code->source.find("moart_cuda_mma") == std::string::npos);
}
