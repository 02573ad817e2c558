#include "Pipeline.h"

#include "Lexer.h"
#include "CFormat.h"
#include "Emit.h"
#include "Lower.h"
#include "Traffic.h"
#include "Parser.h"
#include "Fuse.h"
#include "Psi.h"
#include "Shapes.h"

#include <fmt/format.h>

#include <algorithm>

namespace moac {

DnfProgram reduceToDnf(const TypedProgram &typed, const Schedule &schedule) {
  DnfProgram dnf = psiReduce(typed);
  if (schedule.fuse)
    fuseReductions(dnf);
  return dnf;
}

std::string dumpTokens(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags) {
  std::string out;
  for (const Token &t : lex(sources, file, diags)) {
    std::string kind = tokName(t.kind);
    if (t.kind == Tok::End || t.kind == Tok::Newline)
      out += fmt::format("{}:{} {}\n", t.loc.line, t.loc.col, kind);
    else
      out += fmt::format("{}:{} {} {}\n", t.loc.line, t.loc.col, kind, describe(t));
  }
  return out;
}

std::optional<std::string> compileToStage(const SourceManager &sources, uint32_t file,
                                          DiagnosticEngine &diags, const CompileOptions &options) {
  if (options.emit == Stage::Tokens) {
    std::string text = dumpTokens(sources, file, diags);
    return diags.hasErrors() ? std::nullopt : std::optional(text);
  }
  if (options.emit == Stage::Ast) {
    Program ast = parse(lex(sources, file, diags), sources.file(file).name, diags);
    return diags.hasErrors() ? std::nullopt : std::optional(dumpAst(ast));
  }
  std::optional<TypedProgram> typed = typeCheck(sources, file, diags);
  if (!typed)
    return std::nullopt;
  if (options.emit == Stage::Shapes)
    return dumpShapes(*typed, options.ascii);
  DnfProgram dnf = reduceToDnf(*typed, options.schedule);
  if (options.emit == Stage::Dnf)
    return dumpDnf(dnf, options.ascii);
  Kernel kernel = lower(dnf, options.schedule, options.target);
  if (options.emit == Stage::Onf)
    return dumpLoopIR(kernel);
  return emitCode(dnf, kernel, trafficModel(dnf, *typed), sources.file(file).text, options, "").source;
}

GeneratedCode emitCode(const DnfProgram &dnf, const Kernel &kernel, const TrafficModel &traffic,
                       const std::string &sourceText, const CompileOptions &options, const std::string &headerName) {
  EmitInputs inputs{sourceText, dumpDnf(dnf), printTraffic(traffic), options.command, headerName};
  EmittedKernel emitted = emitKernel(kernel, options.target, inputs);
  return GeneratedCode{formatC(emitted.source, "kernel.c"), formatC(emitted.header, "kernel.h")};
}

std::optional<GeneratedCode> generateCode(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags,
                                          const CompileOptions &options, const std::string &headerName) {
  std::optional<TypedProgram> typed = typeCheck(sources, file, diags);
  if (!typed)
    return std::nullopt;
  DnfProgram dnf = reduceToDnf(*typed, options.schedule);
  Kernel kernel = lower(dnf, options.schedule, options.target);
  return emitCode(dnf, kernel, trafficModel(dnf, *typed), sources.file(file).text, options, headerName);
}

std::optional<TypedProgram> typeCheck(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags) {
  std::vector<Token> tokens = lex(sources, file, diags);
  Program ast = parse(tokens, sources.file(file).name, diags);
  if (diags.hasErrors())
    return std::nullopt;
  std::optional<TypedProgram> typed = inferShapes(ast, diags);
  // An update's reads of its own inout are checked on the ψ-reduced indices.
  if (typed && std::any_of(typed->bindings.begin(), typed->bindings.end(), [](const auto &b) { return b->updates; }) &&
      !reportUpdateConflicts(psiReduce(*typed), diags))
    return std::nullopt;
  return typed;
}

} // namespace moac
