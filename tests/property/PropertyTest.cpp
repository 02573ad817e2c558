// interpreter(AST) equals DNF-evaluator(DNF) to 1e-12 relative: on the dsl-examples, on the regression
// programs in regressions/, and on generated programs. A failure prints the seed, the dims and the whole
// program, and writes it to build/property-failures/NAME.moa with the `moac run` line that reproduces it.
//
// More programs: MOAC_PROPERTY_COUNT=5000 MOAC_PROPERTY_SEED=1000 build/bin/moac_property_tests "[generated]"
// MOAC_PROPERTY_DEPTH (default 6) bounds the expression depth, MOAC_PROPERTY_MAXDIM (default 5) the dims'
// values, and MOAC_PROPERTY_EMPTY_REDUCTIONS=0 keeps programs from reducing empty axes (see ProgramGenerator.h).
#include "Property.h"

#include "Pipeline.h"
#include "ProgramGenerator.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>

using namespace moac;
using namespace moac::property;

namespace {

uint64_t envOr(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

std::vector<std::string> moaFiles(const std::string &dir) {
  std::vector<std::string> out;
  if (std::filesystem::is_directory(dir))
    for (const auto &entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".moa")
        out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<TypedProgram> typed(const std::string &name, const std::string &text) {
  // The program is handed back alone; its context (which its symbols point into) lives to the end of the run.
  static std::vector<std::unique_ptr<CompilationContext>> kept;
  CompilationContext &ctx = *kept.emplace_back(std::make_unique<CompilationContext>());
  SourceManager &sources = ctx.sources;
  uint32_t file = sources.add(name, text);
  DiagnosticEngine diags(sources);
  diags.setColor(ColorMode::Never);
  std::string messages;
  diags.captureInto(&messages);
  return typeCheck(ctx, file, diags);
}

void expectAgreement(const std::string &name, const std::string &text, const testgen::DimChoice &dims,
                     uint64_t inputSeed, bool requireFinite) {
  Check check = checkProgram(name + ".moa", text, dims, inputSeed, requireFinite);
  if (check.failure) {
    std::string path = writeFailure(name, text, dims, inputSeed, *check.failure);
    FAIL_CHECK(name << " with dims " << testgen::formatDims(dims) << ", input seed " << inputSeed << ":\n"
                    << *check.failure << "\nwritten to " << path << "\n----\n" << text << "----");
  } else {
    SUCCEED();
  }
}

// Seeds start, start + 1, … start + count − 1 with (seed − start) mod parts = part: the generated
// programs split into parts that ctest can run in parallel.
void generatedPart(uint64_t part, uint64_t parts) {
  uint64_t start = envOr("MOAC_PROPERTY_SEED", 1), count = envOr("MOAC_PROPERTY_COUNT", 500);
  testgen::GeneratorOptions options;
  options.maxDepth = int(envOr("MOAC_PROPERTY_DEPTH", uint64_t(options.maxDepth)));
  options.maxDim = int(envOr("MOAC_PROPERTY_MAXDIM", uint64_t(options.maxDim)));
  options.emptyReductions = envOr("MOAC_PROPERTY_EMPTY_REDUCTIONS", 1) != 0;
  size_t programs = 0, elements = 0;
  double slowest = 0;
  uint64_t slowestSeed = 0;
  auto begin = std::chrono::steady_clock::now();
  for (uint64_t seed = start + part; seed < start + count; seed += parts) {
    testgen::GeneratedProgram p = testgen::generateProgram(seed, options);
    // Drawn dims, and every dim at its least value (mostly 1): the edge where extents are 1 or 0.
    std::vector<testgen::DimChoice> choices{testgen::chooseDims(p, seed, options),
                                            testgen::DimChoice(p.minDims.begin(), p.minDims.end())};
    if (choices[1] == choices[0])
      choices.pop_back();
    auto t0 = std::chrono::steady_clock::now();
    for (size_t k = 0; k < choices.size(); ++k) {
      std::string name = "seed-" + std::to_string(seed) + (k ? "-least" : "");
      Check check = checkProgram(name + ".moa", p.text, choices[k], seed, true);
      elements += check.elements;
      if (check.failure) {
        std::string path = writeFailure(name, p.text, choices[k], seed, *check.failure);
        FAIL_CHECK("generated program, seed " << seed << ", dims " << testgen::formatDims(choices[k]) << ":\n"
                                              << *check.failure << "\nwritten to " << path << "\n----\n"
                                              << p.text << "----");
      }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (seconds > slowest) {
      slowest = seconds;
      slowestSeed = seed;
    }
    ++programs;
  }
  double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  WARN(programs << " generated programs (seeds " << start << " … " << start + count - 1 << ", part " << part + 1
                << " of " << parts << "), " << elements << " output elements compared in " << total
                << " s; slowest: seed " << slowestSeed << ", " << slowest << " s");
}

} // namespace

TEST_CASE("dsl-examples: interpreter equals DNF evaluator", "[property][examples]") {
  std::vector<std::string> files = moaFiles(MOAC_EXAMPLES_DIR);
  REQUIRE(files.size() == MOAC_EXAMPLE_COUNT);
  for (const std::string &path : files) {
    std::string text = readFile(path), name = std::filesystem::path(path).stem().string();
    auto program = typed(name, text);
    INFO(name);
    REQUIRE(program);
    std::set<testgen::DimChoice> tried;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      auto dims = testgen::chooseDimsFor(*program, seed, 5);
      REQUIRE(dims);
      if (tried.insert(*dims).second)
        expectAgreement("example-" + name, text, *dims, seed, false);
    }
  }
}

TEST_CASE("regressions: interpreter equals DNF evaluator", "[property][regressions]") {
  for (const std::string &path : moaFiles(MOAC_REGRESSIONS_DIR)) {
    std::string text = readFile(path), name = std::filesystem::path(path).stem().string();
    auto program = typed(name, text);
    INFO(name);
    REQUIRE(program);
    std::vector<testgen::DimChoice> choices = dimsFromComments(text);
    for (uint64_t seed = 1; seed <= 3; ++seed)
      if (auto dims = testgen::chooseDimsFor(*program, seed, 5))
        choices.push_back(*dims);
    for (const auto &dims : choices)
      expectAgreement("regression-" + name, text, dims, 1, false);
  }
}

TEST_CASE("generated programs, part 1 of 4: interpreter equals DNF evaluator", "[property][generated]") {
  generatedPart(0, 4);
}
TEST_CASE("generated programs, part 2 of 4: interpreter equals DNF evaluator", "[property][generated]") {
  generatedPart(1, 4);
}
TEST_CASE("generated programs, part 3 of 4: interpreter equals DNF evaluator", "[property][generated]") {
  generatedPart(2, 4);
}
TEST_CASE("generated programs, part 4 of 4: interpreter equals DNF evaluator", "[property][generated]") {
  generatedPart(3, 4);
}
