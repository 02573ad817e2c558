#include "Pipeline.h"

#include "CFormat.h"
#include "Emit.h"
#include "EmitTorch.h"
#include "Fuse.h"
#include "Lower.h"
#include "Parser.h"
#include "Psi.h"
#include "Shapes.h"
#include "Traffic.h"

#include <algorithm>

#include <fmt/format.h>

namespace moac {

const char *stageName(Stage stage) {
  for (const StageInfo &s : stageTable)
    if (s.stage == stage)
      return s.name;
  return "?";
}

namespace {

// The last stage: the emitter for options.target, then clang::format. The DNF and the traffic model go
// into the file's header comment with the source text.
GeneratedCode emitCode(const TypedProgram &typed, const DnfProgram &dnf, const Kernel &kernel,
                       const std::string &sourceText, const CompileOptions &options) {
  EmitInputs inputs{sourceText, dumpDnf(dnf), printTraffic(trafficModel(dnf, typed)), options.command,
                    options.headerName};
  EmittedKernel emitted = emitKernel(kernel, options.target, inputs);
  std::string torch = options.torch ? formatC(emitTorch(kernel, options.target, inputs), "kernel.cpp") : "";
  return GeneratedCode{formatC(emitted.source, "kernel.c"), formatC(emitted.header, "kernel.h"), torch};
}

} // namespace

Compilation runPipeline(CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags,
                        const CompileOptions &options) {
  const SourceManager &sources = ctx.sources;
  Compilation c;
  c.requested = options.stopAfter;
  // Whether to stop after `stage`: it reported errors, or it is the one asked for.
  auto stopAfter = [&](Stage stage) {
    if (diags.hasErrors())
      return true;
    c.reached = stage;
    return stage == options.stopAfter;
  };
  c.tokens = lex(sources, file, diags);
  if (options.stopAfter == Stage::Tokens) {
    stopAfter(Stage::Tokens);
    return c;
  }
  // A lexical error does not stop the parser: the lexer recovers at the next character, and what the
  // parser finds in the rest is reported with it.
  c.ast = parse(c.tokens, sources.file(file).name, diags);
  if (stopAfter(Stage::Ast))
    return c;
  c.typed = inferShapes(ctx, *c.ast, diags);
  if (!c.typed || diags.hasErrors())
    return c;
  // An update's reads of its own inout are checked on the ψ-reduced indices. The check belongs to the
  // program's validity, so it runs even when only the shapes were asked for (`--emit=shapes`, `moac run`):
  // a program with an update is ψ-reduced then; one without is not (the interpreter runs programs that
  // ψ-reduction need not see). Its errors are the shapes' when the shapes were asked for, else the DNF's.
  const bool shapesOnly = options.stopAfter == Stage::Shapes;
  const bool updates =
      std::any_of(c.typed->bindings.begin(), c.typed->bindings.end(), [](const auto &b) { return b->updates; });
  if (!shapesOnly)
    c.reached = Stage::Shapes;
  if (updates || !shapesOnly) {
    try {
      c.dnf = psiReduce(ctx, *c.typed);
    } catch (const PsiArithmeticError &error) {
      diags.report(Diag::Arithmetic, error.loc,
                   fmt::format("this integer arithmetic, folded at compile time by ψ-reduction, fails: {}",
                               error.what()));
      return c;
    }
    if (!reportUpdateConflicts(*c.dnf, diags))
      return c;
  }
  if (stopAfter(Stage::Shapes))
    return c;
  // The online-softmax rewrite (psi/Fuse.h) is part of the DNF the later stages and dumps see.
  if (options.schedule.fuse)
    fuseReductions(ctx, *c.dnf, options.schedule.storesScores(options.target));
  if (stopAfter(Stage::Dnf))
    return c;
  c.kernel = lower(ctx, *c.dnf, options.schedule, options.target);
  if (!options.kernelName.empty())
    c.kernel->name = options.kernelName;
  if (stopAfter(Stage::Onf))
    return c;
  c.code = emitCode(*c.typed, *c.dnf, *c.kernel, sources.file(file).text, options);
  stopAfter(Stage::Code);
  return c;
}

std::string dumpTokens(const std::vector<Token> &tokens) {
  std::string out;
  for (const Token &t : tokens) {
    std::string kind = tokName(t.kind);
    if (t.kind == Tok::End || t.kind == Tok::Newline)
      out += fmt::format("{}:{} {}\n", t.loc.line, t.loc.col, kind);
    else
      out += fmt::format("{}:{} {} {}\n", t.loc.line, t.loc.col, kind, describe(t));
  }
  return out;
}

std::string dumpStage(const Compilation &c, bool ascii) {
  switch (c.requested) {
  case Stage::Tokens: return dumpTokens(c.tokens);
  case Stage::Ast: return dumpAst(*c.ast);
  case Stage::Shapes: return dumpShapes(*c.typed, ascii);
  case Stage::Dnf: return dumpDnf(*c.dnf, ascii);
  case Stage::Onf: return dumpLoopIR(*c.kernel, *c.dnf);
  case Stage::Code: return c.code->source;
  }
  return "";
}

std::optional<TypedProgram> typeCheck(CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags) {
  CompileOptions options;
  options.stopAfter = Stage::Shapes;
  Compilation c = runPipeline(ctx, file, diags, options);
  if (!c.ok())
    return std::nullopt;
  return std::move(c.typed);
}

} // namespace moac
