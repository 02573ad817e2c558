// libFuzzer target over every stage `moac compile` and `moac explain` run: lex → parse → shapes → DNF
// (ψ-reduction) → loop IR (lowering) → C for each target (c, openmp, openacc), with every stage's dump,
// the explanation (text and page), the `moac check` harness, and the reference interpreter on small dims
// within an element budget (interpretSmall). The C is not formatted (NoFormat.cpp stands in for
// clang::format), so the binary needs no Clang library.
//
// What counts as a finding: a crash, a sanitizer report, a hang (libFuzzer's -timeout), an exception
// escaping a stage (moac would print "internal error", exit 70), and a rejection that is not a located
// diagnostic: a stage that fails must have reported an error, and every error names file:line:col.
// docs/testing.md explains how to run it (scripts/fuzz) and how findings become regression tests.
#include "Diagnostics.h"
#include "Emit.h"
#include "Explain.h"
#include "ExplainHtml.h"
#include "Harness.h"
#include "Interpreter.h"
#include "Lexer.h"
#include "Lower.h"
#include "Parser.h"
#include "Pipeline.h"
#include "Psi.h"
#include "Traffic.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
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

// The reference interpreter's work on one run is bounded by this many elements in any array the program
// names or computes (a fuzzed `<1000000000> reshape x` is skipped, not run).
constexpr int64_t elementBudget = 4096;

// The element count of a concrete shape, or -1 when it is negative or above elementBudget.
int64_t elementsWithinBudget(const std::vector<int64_t> &shape) {
  int64_t elements = 1;
  for (int64_t extent : shape) {
    if (extent < 0 || (extent > 0 && elements > elementBudget / extent))
      return -1;
    elements *= extent;
  }
  return elements > elementBudget ? -1 : elements;
}

// Whether every array of `e` (its subexpressions and let bindings included) has at most elementBudget
// elements for these dims.
bool withinBudget(const TExpr &e, const DimValues &dims) {
  if (elementsWithinBudget(concreteShape(e.type.shape, dims)) < 0 || (e.let && !withinBudget(*e.let->value, dims)))
    return false;
  for (const auto &arg : e.args)
    if (!withinBudget(*arg, dims))
      return false;
  return true;
}

// Runs the interpreter on what the front end accepted, every run-time dim 2, inputs a fixed pattern in
// [-1, 1): a located EvalError (a failed guard, an index out of range, int overflow) is the program's own
// mistake; any other exception, a crash or a sanitizer report is a finding.
void interpretSmall(const TypedProgram &typed) {
  DimValues dims;
  for (const TDim &d : typed.dims)
    dims[d.sym] = d.value ? *d.value : 2;
  std::vector<NDArray> inputs;
  try {
    for (const auto &b : typed.bindings)
      if (!withinBudget(*b->value, dims))
        return;
    for (size_t k = 0; k < typed.inputs.size(); ++k) {
      NDArray a;
      a.shape = concreteShape(typed.inputs[k].shape, dims);
      int64_t elements = elementsWithinBudget(a.shape);
      if (elements < 0)
        return;
      for (int64_t i = 0; i < elements; ++i)
        a.data.push_back(double((i * 7 + int64_t(k)) % 13) / 6.5 - 1);
      inputs.push_back(std::move(a));
    }
  } catch (const EvalError &) {
    return; // an extent that cannot be evaluated for these dims
  }
  try {
    interpret(typed, dims, inputs);
  } catch (const EvalError &) {
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
  interpretSmall(*typed);
  std::string dnfText = dumpDnf(dnf, true);
  std::string traffic = printTraffic(trafficModel(dnf, *typed));
  for (Target target : {Target::C, Target::OpenMP, Target::OpenACC}) {
    Kernel kernel = lower(ctx, dnf, Schedule{}, target);
    explain(sources.file(file), *typed, dnf, kernel, target);
    dumpLoopIR(kernel, dnf);
    EmitInputs inputs{text, dnfText, traffic, "fuzz", "fuzz.h"};
    EmittedKernel emitted = emitKernel(kernel, target, inputs);
    explainHtml({sources.file(file), c.tokens, *typed, dnf, kernel, emitted.source, target});
    emitHarness(kernel, target, "fuzz.h");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  compileAll(std::string(reinterpret_cast<const char *>(data), size));
  return 0;
}
