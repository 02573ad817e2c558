// One compilation context per compilation (support/Context.h): a program's every dump, its explanation
// and its generated code are the same bytes whether or not other programs were compiled before it in the
// same process; and the fresh-name rules of SymbolTable and NameScope.
#include "FrontEnd.h"

#include "Explain.h"
#include "Psi.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace moac;

namespace {

std::string readText(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Everything moac prints for one program, each output from a compilation of its own in this process:
// the dumps of --emit, the explanation, and the kernel and header for every target (CUDA's .cu too),
// under `schedule`.
std::vector<std::string> everyOutput(const std::string &name, const std::string &text, const Schedule &schedule = {}) {
  std::vector<std::string> out;
  auto compile = [&](auto &&stage) {
    CompilationContext ctx;
    uint32_t file = ctx.sources.add(name, text);
    DiagnosticEngine diags(ctx.sources);
    std::string messages;
    diags.captureInto(&messages);
    stage(ctx, file, diags);
    INFO(messages);
    CHECK(diags.errorCount() == 0);
  };
  for (Stage stage : {Stage::Tokens, Stage::Ast, Stage::Shapes, Stage::Dnf, Stage::Onf})
    compile([&](CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags) {
      CompileOptions options;
      options.stopAfter = stage;
      options.schedule = schedule;
      Compilation c = runPipeline(ctx, file, diags, options);
      out.push_back(c.ok() ? dumpStage(c, false) : "(failed)");
    });
  for (Target target : {Target::C, Target::OpenMP, Target::OpenACC, Target::Cuda})
    compile([&](CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags) {
      CompileOptions options;
      options.target = target;
      options.schedule = schedule;
      options.headerName = "k.h";
      Compilation c = runPipeline(ctx, file, diags, options);
      out.push_back(c.ok() ? c.code->source + c.code->header : "(failed)");
    });
  compile([&](CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags) {
    CompileOptions options;
    options.stopAfter = Stage::Onf;
    options.target = Target::OpenACC;
    options.schedule = schedule;
    Compilation c = runPipeline(ctx, file, diags, options);
    out.push_back(c.ok() ? explain(ctx.sources.file(file), *c.typed, *c.dnf, *c.kernel, Target::OpenACC) : "(failed)");
  });
  return out;
}

} // namespace

TEST_CASE("every output of a program is the same after another program compiled in the same process",
          "[context]") {
  std::vector<std::filesystem::path> examples;
  for (const auto &entry : std::filesystem::directory_iterator(MOAC_EXAMPLES_DIR))
    if (entry.path().extension() == ".moa")
      examples.push_back(entry.path());
  std::sort(examples.begin(), examples.end());
  REQUIRE(examples.size() >= 2);
  for (size_t k = 0; k < examples.size(); ++k) {
    const std::filesystem::path &a = examples[k], &b = examples[(k + 1) % examples.size()];
    INFO(a.filename().string() << ", then " << b.filename().string() << ", then it again");
    std::string name = a.filename().string(), text = readText(a);
    std::vector<std::string> first = everyOutput(name, text);
    everyOutput(b.filename().string(), readText(b));
    std::vector<std::string> again = everyOutput(name, text);
    REQUIRE(first.size() == again.size());
    for (size_t i = 0; i < first.size(); ++i)
      CHECK(first[i] == again[i]);
  }
}

TEST_CASE("decode's explanation and ONF use the paper's index names", "[context]") {
  // unfused (--schedule fuse=off): the stages of s, m, sum_e, p and o, each naming its indices afresh
  Schedule unfused;
  unfused.fuse = false;
  std::vector<std::string> out = everyOutput("decode.moa", readText(MOAC_EXAMPLES_DIR "/decode.moa"), unfused);
  const std::string &onf = out[4], &explanation = out.back();
  CHECK_THAT(explanation, Catch::Contains("⇒ ⟨i⟩ψ s = (Σ_{l<dk} ⟨l⟩ψ q × ⟨i l⟩ψ K) ÷ √dk"));
  CHECK_THAT(explanation, Catch::Contains("⇒ m = max_{l<n} ⟨l⟩ψ s"));
  CHECK_THAT(explanation, Catch::Contains("⇒ ⟨i⟩ψ p = exp(⟨i⟩ψ s − m) ÷ sum_e"));
  CHECK_THAT(onf, Catch::Contains("for i in [0, n) step 1 parallel"));
  CHECK_THAT(onf, Catch::Contains("for l in [0, 16*(dk div 16)) step 16 serial")); // interleaved (lanes=16)
  CHECK_THAT(onf, Catch::Contains("for l in [16*(dk div 16), dk) step 1 serial"));
  // The only digit in a name: o's two sums over n, one inside the other (Σ_l … Σ_l2).
  for (const std::string *text : {&onf, &explanation})
    for (const char *numbered : {"i2", "i3", "i4", "i5", "l3", "l4", "c2", "g6", "acc2"})
      CHECK_THAT(*text, !Catch::Contains(std::string(numbered) + " ") && !Catch::Contains(std::string(numbered) + "]"));
  // fused (the default): the group is a definition of its own, its split pass a stage of its own
  std::vector<std::string> fused = everyOutput("decode.moa", readText(MOAC_EXAMPLES_DIR "/decode.moa"));
  CHECK_THAT(fused[4], Catch::Contains("for c in [0, P_online) step 1 parallel"));
  CHECK_THAT(fused[4], Catch::Contains("for l0 in [8*c*(((n + P_online - 1) div P_online + 7) div 8)"));
  CHECK_THAT(fused[4], Catch::Contains("for l in [l0, l0 + 8) step 1 serial")); // a tile's terms
  CHECK_THAT(fused[4], Catch::Contains("for l2 in [0, 16*(dk div 16)) step 16 serial")); // s's Σ_l inside the group's l
  for (const std::string *text : {&fused[4], &fused.back()})
    for (const char *numbered : {"i2", "i3", "l3", "l4", "P_online2"})
      CHECK_THAT(*text, !Catch::Contains(std::string(numbered) + " ") && !Catch::Contains(std::string(numbered) + "]"));
}

TEST_CASE("fresh names: the hint while it is free, then the first free counter", "[context][symbolic]") {
  SymbolTable symbols;
  Symbol n = symbols.intern("n");
  CHECK(symbols.fresh("l").name() == "l");
  CHECK(symbols.fresh("l").name() == "l2");
  CHECK(symbols.fresh("n").name() == "n2"); // a program name is never taken by a fresh symbol
  symbols.intern("i2");
  CHECK(symbols.fresh("i").name() == "i");
  CHECK(symbols.fresh("i").name() == "i3"); // i2 is the user's
  CHECK(symbols.fresh("h2").name() == "h2");
  CHECK(symbols.fresh("h2").name() == "h2_2"); // not h22, which reads as another name
  CHECK(symbols.intern("n") == n);
  CHECK(symbols.fresh("l").hint() == "l");
}

TEST_CASE("fresh names: each scope spells its own names again, never a program name", "[context][symbolic]") {
  SymbolTable symbols;
  symbols.intern("n");
  Symbol outside = symbols.fresh("P");
  Symbol i1, l1, i2, l2, l3;
  {
    NameScope first(symbols);
    i1 = symbols.fresh("i");
    l1 = symbols.fresh("l");
    {
      NameScope other(symbols); // independent of `first`, which resumes when it closes
      i2 = symbols.fresh("i");
      CHECK(symbols.fresh("n").name() == "n2");
      CHECK(symbols.fresh("P").name() == "P2"); // made outside any scope: visible everywhere
    }
    l2 = symbols.fresh("l");
  }
  {
    NameScope second(symbols);
    second.reserve("l"); // a name from elsewhere that this scope shows
    l3 = symbols.fresh("l");
  }
  CHECK(i1.name() == "i");
  CHECK(i2.name() == "i");
  CHECK(i1 != i2); // the same spelling, distinct symbols
  CHECK(l1.name() == "l");
  CHECK(l2.name() == "l2");
  CHECK(l3.name() == "l2");
  CHECK(outside.name() == "P");
  // Outside scopes a name is unique in the whole compilation, scopes' names included.
  CHECK(symbols.fresh("i").name() == "i2");
  CHECK(i1 < i2); // creation order
}

TEST_CASE("symbols of two compilations do not interfere", "[context][symbolic]") {
  SymbolTable a, b;
  CHECK(a.fresh("l").name() == "l");
  CHECK(a.fresh("l").name() == "l2");
  CHECK(b.fresh("l").name() == "l"); // the old process-wide table would say l3
  CHECK(a.intern("n") != b.intern("n"));
}
