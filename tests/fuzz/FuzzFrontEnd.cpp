// libFuzzer target over every stage `moac compile` and `moac explain` run: lex → parse → shapes → DNF
// (ψ-reduction) → loop IR (lowering) → C for each target (c, openmp, openacc), with every stage's dump,
// the explanation and the `moac check` harness. The C is not formatted (NoFormat.cpp stands in for
// clang::format), so the binary needs no Clang library.
//
// What counts as a finding: a crash, a sanitizer report, a hang (libFuzzer's -timeout), an exception
// escaping a stage (moac would print "internal error", exit 70), and a rejection that is not a located
// diagnostic: a stage that fails must have reported an error, and every error names file:line:col.
// docs/testing.md explains how to run it (scripts/fuzz) and how findings become regression tests.
#include "Diagnostics.h"
#include "Emit.h"
#include "Explain.h"
#include "Harness.h"
#include "Lexer.h"
#include "Lower.h"
#include "Parser.h"
#include "Pipeline.h"
#include "Psi.h"
#include "Traffic.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

using namespace moac;

constexpr const char *fileName = "fuzz.moa";

[[noreturn]] void finding(const char *what, const std::string &diagnostics) {
  std::fprintf(stderr, "fuzz finding: %s\n--- diagnostics ---\n%s--- end ---\n", what, diagnostics.c_str());
  std::abort();
}

// Every error line is "fuzz.moa:L:C: error: …" (source lines and carets are indented by two spaces);
// the one unlocated error allowed is the "too many errors" cut-off.
void checkLocated(const std::string &diagnostics) {
  const std::string tooMany = std::string("error: ") + diagInfo(Diag::TooManyErrors).format;
  size_t start = 0;
  while (start < diagnostics.size()) {
    size_t end = diagnostics.find('\n', start);
    if (end == std::string::npos)
      end = diagnostics.size();
    std::string line = diagnostics.substr(start, end - start);
    start = end + 1;
    bool indented = line.rfind("  ", 0) == 0;
    if (!indented && line.find("error: ") != std::string::npos && line != tooMany &&
        line.rfind(std::string(fileName) + ":", 0) != 0)
      finding("an error without a location", diagnostics);
  }
}

void compileAll(const std::string &text) {
  CompilationContext ctx;
  SourceManager &sources = ctx.sources;
  std::string diagnostics;
  DiagnosticEngine diags(sources);
  diags.captureInto(&diagnostics);
  uint32_t file = sources.add(fileName, text);

  dumpTokens(lex(sources, file, diags));
  DiagnosticEngine astDiags(sources);
  std::string astDiagnostics;
  astDiags.captureInto(&astDiagnostics);
  Program ast = parse(lex(sources, file, astDiags), fileName, astDiags);
  if (!astDiags.hasErrors())
    dumpAst(ast);
  checkLocated(diagnostics + astDiagnostics);

  DiagnosticEngine typeDiags(sources);
  std::string typeDiagnostics;
  typeDiags.captureInto(&typeDiagnostics);
  // Through ψ-reduction, whose compile-time arithmetic errors are diagnostics too.
  CompileOptions through;
  through.stopAfter = Stage::Dnf;
  Compilation c = runPipeline(ctx, file, typeDiags, through);
  checkLocated(typeDiagnostics);
  if (!c.ok()) {
    if (!typeDiags.hasErrors())
      finding("the program was rejected without an error", typeDiagnostics);
    return;
  }
  if (typeDiags.hasErrors())
    finding("the pipeline reported errors but returned a program", typeDiagnostics);
  const TypedProgram *typed = &*c.typed;
  const DnfProgram &dnf = *c.dnf;

  dumpShapes(*typed, false);
  std::string dnfText = dumpDnf(dnf, true);
  std::string traffic = printTraffic(trafficModel(dnf, *typed));
  for (Target target : {Target::C, Target::OpenMP, Target::OpenACC}) {
    Kernel kernel = lower(ctx, dnf, Schedule{}, target);
    explain(sources.file(file), *typed, dnf, kernel, target);
    dumpLoopIR(kernel, dnf);
    EmitInputs inputs{text, dnfText, traffic, "fuzz", "fuzz.h"};
    emitKernel(kernel, target, inputs);
    emitHarness(kernel, target, "fuzz.h");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  compileAll(std::string(reinterpret_cast<const char *>(data), size));
  return 0;
}
