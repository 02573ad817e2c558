// The page of `moac explain --html` (analysis/ExplainHtml): its escaping, its structure (every pane, every
// derivation step linked to a .moa location, nothing fetched, no folder names), and the map from lines of
// the generated C to .moa locations, checked for every example and target against the `/* FILE:LINE */`
// comments the emitter writes (an oracle the map does not read: it takes the loop IR's locations).
#include "FrontEnd.h"

#include "Emit.h"
#include "ExplainHtml.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>
#include <stdexcept>

using namespace moac;

namespace {

std::string readText(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::filesystem::path> examples() {
  std::vector<std::filesystem::path> found;
  for (const auto &entry : std::filesystem::directory_iterator(MOAC_EXAMPLES_DIR))
    if (entry.path().extension() == ".moa")
      found.push_back(entry.path());
  std::sort(found.begin(), found.end());
  return found;
}

struct Compiled {
  CompilationContext ctx;
  uint32_t file = 0;
  std::string diags;
  Compilation c;
  Target target = Target::C;
  std::string page() const {
    return explainHtml({ctx.sources.file(file), c.tokens, *c.typed, *c.dnf, *c.kernel, c.code->source, target});
  }
};

std::unique_ptr<Compiled> compile(const std::string &name, const std::string &text, Target target,
                                  bool fuse = true) {
  auto run = std::make_unique<Compiled>();
  run->target = target;
  run->file = run->ctx.sources.add(name, text);
  DiagnosticEngine engine(run->ctx.sources);
  engine.setColor(ColorMode::Never);
  engine.captureInto(&run->diags);
  CompileOptions options;
  options.target = target;
  options.schedule.fuse = fuse;
  run->c = runPipeline(run->ctx, run->file, engine, options);
  return run;
}

size_t count(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

// The numbers N of the comments `/* STEM:N */` on a line of C (clang-format may join two statements).
std::vector<uint32_t> commentLines(const std::string &line, const std::string &stem) {
  std::vector<uint32_t> found;
  std::string prefix = "/* " + stem + ":";
  for (size_t at = line.find(prefix); at != std::string::npos; at = line.find(prefix, at + 1)) {
    size_t end = at + prefix.size();
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end])))
      ++end;
    if (end > at + prefix.size() && line.compare(end, 3, " */") == 0)
      found.push_back(uint32_t(std::stoul(line.substr(at + prefix.size()))));
  }
  return found;
}

} // namespace

TEST_CASE("escapeHtml: markup characters become references, UTF-8 stays", "[explain-html]") {
  CHECK(escapeHtml("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
  CHECK(escapeHtml("⟨i j⟩ψ ⍉K") == "⟨i j⟩ψ ⍉K");
  CHECK(escapeHtml("") == "");
}

namespace {

// Every line of `code` with statement comments maps to exactly the .moa lines they name.
void checkAgainstComments(const Kernel &kernel, const std::string &code, const std::string &name) {
  std::vector<std::vector<SourceLoc>> locs = codeLineLocations(kernel, code);
  std::istringstream lines(code);
  std::string line;
  size_t commented = 0;
  for (size_t i = 0; std::getline(lines, line); ++i) {
    std::vector<uint32_t> expected = commentLines(line, name);
    if (expected.empty())
      continue;
    ++commented;
    INFO("C line " << i + 1 << ": " << line);
    REQUIRE(i < locs.size());
    std::set<uint32_t> mapped;
    for (SourceLoc loc : locs[i])
      mapped.insert(loc.line);
    CHECK(mapped == std::set<uint32_t>(expected.begin(), expected.end()));
  }
  CHECK(commented > 0);
}

} // namespace

TEST_CASE("every C line with a statement comment maps to that .moa line, for every example and target",
          "[explain-html]") {
  for (const auto &path : examples())
    for (Target target : {Target::C, Target::OpenMP, Target::OpenACC}) {
      std::string name = path.filename().string();
      INFO(name << " for " << targetName(target));
      auto run = compile(name, readText(path), target);
      REQUIRE(run->c.ok());
      INFO("formatted, as moac prints it");
      checkAgainstComments(*run->c.kernel, run->c.code->source, name);
      INFO("as the emitter wrote it, what the fuzzer sees");
      checkAgainstComments(*run->c.kernel, emitKernel(*run->c.kernel, target, {}).source, name);
    }
}

TEST_CASE("codeLineLocations refuses C that does not have the kernel's statements", "[explain-html]") {
  auto run = compile("d.moa", readText(std::filesystem::path(MOAC_EXAMPLES_DIR) / "decode.moa"), Target::C);
  REQUIRE(run->c.ok());
  std::string code = run->c.code->source;
  size_t body = code.find("  return 0;\n}");
  REQUIRE(body != std::string::npos);
  std::string extra = code;
  extra.insert(body, "  x = 1; /* d.moa:3 */\n");
  CHECK_THROWS_AS(codeLineLocations(*run->c.kernel, extra), std::logic_error);
  std::string missing = code;
  size_t comment = missing.find(" /* d.moa:");
  missing.erase(comment, missing.find("*/", comment) + 2 - comment);
  CHECK_THROWS_AS(codeLineLocations(*run->c.kernel, missing), std::logic_error);
  CHECK_THROWS_AS(codeLineLocations(*run->c.kernel, "int other(void) {\n}\n"), std::logic_error);
}

TEST_CASE("the page: self-contained, every pane, every derivation step linked, text escaped", "[explain-html]") {
  std::string text = readText(std::filesystem::path(MOAC_EXAMPLES_DIR) / "decode.moa") + "y = <1> psi q\n";
  auto run = compile("some/folder/decode.moa", text, Target::OpenACC);
  REQUIRE(run->c.ok());
  std::string page = run->page();
  CHECK(page.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(page == run->page()); // deterministic
  for (const char *id : {"source", "derivation", "dnf", "onf", "code", "traffic"})
    CHECK(count(page, fmt::format("<section class=\"pane\" id=\"{}\">", id)) == 1);
  for (const char *external : {"<link", " src=", "http://", "https://", "@import", "url("})
    CHECK(count(page, external) == 0);
  CHECK(count(page, "some/folder") == 0);
  CHECK(count(page, "&lt;1&gt; psi q") == 1); // the source line, escaped
  // Every step is on the page, collapsible, and linked when its record has a location, as every step of
  // ψ-reduction's own rules and of hoisting has (a rewrite added later may not).
  const std::set<std::string> psiRules = {"definition", "stored", "inline", "elementwise", "scalar extension",
                                          "reduce", "inner product", "outer product", "comprehension", "rho",
                                          "iota", "psi of psi", "transpose", "permute", "take", "drop", "rav",
                                          "reshape", "cat", "hoist"};
  size_t steps = 0, located = 0;
  for (const TraceBlock &block : run->c.dnf->trace)
    for (const TraceStep &step : block.steps) {
      INFO(block.title << ": " << step.rule);
      if (psiRules.count(step.rule))
        CHECK(step.loc.valid());
      ++steps;
      located += step.loc.valid();
    }
  CHECK(count(page, "<details class=\"step\" open") == steps);
  std::regex linkedStep(R"(<details class="step" open style="[^"]*" data-loc="\d+:\d+"><summary>)");
  CHECK(size_t(std::distance(std::sregex_iterator(page.begin(), page.end(), linkedStep), std::sregex_iterator())) ==
        located);
  // Kᵀ is never formed: the transpose step at `tran` (line 13, column 12), its note as the justification.
  CHECK(count(page, "data-loc=\"13:12\"><summary><span class=\"rule\">transpose</span>") == 1);
  CHECK(count(page, "the transpose of K is never formed") == 1);
  CHECK(count(page, "<tr class=\"coalesced\"") > 0);
  CHECK(count(page, "<tr class=\"broadcast\"") > 0);
  // The fused default: the online-softmax rule is a step of its own. On OpenACC the scores are stored
  // (scores=stored), so K is lifted and the score loop of `q +.* tran K` is the C loop over l at that
  // operator, in the fused page as in the unfused one.
  CHECK(count(page, "<span class=\"rule\">online softmax</span>") == 1);
  CHECK(count(page, "<span class=\"rule\">scores stored</span>") == 1);
  CHECK(count(page, "lifted: stored ⟨⌈n/32⌉ dk 32⟩") == 1);
  CHECK(count(page, "data-loc=\"13:8\">    for (int64_t l = 0; l &lt; 16 * moa_div0; l += 16) {</div>") == 1);
  // Unfused (fuse=off), K is lifted on OpenACC, and the score loop of `q +.* tran K` is the C loop over l
  // at that operator.
  auto unfused = compile("some/folder/decode.moa", text, Target::OpenACC, false);
  REQUIRE(unfused->c.ok());
  std::string plain = unfused->page();
  CHECK(count(plain, "lifted: stored ⟨⌈n/32⌉ dk 32⟩") == 1);
  CHECK(count(plain, "data-loc=\"13:8\">    for (int64_t l = 0; l &lt; 16 * moa_div0; l += 16) {</div>") == 1);
  CHECK(count(plain, "data-loc=\"13:8\">    for (int64_t l = 16 * moa_div0; l &lt; dk; ++l) {</div>") == 1);
}
