#include "Pipeline.h"

#include "Lexer.h"
#include "Parser.h"
#include "Psi.h"
#include "Shapes.h"

#include <fmt/format.h>

namespace moac {

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
  DnfProgram dnf = psiReduce(*typed);
  return dumpDnf(dnf, options.ascii);
}

std::optional<TypedProgram> typeCheck(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags) {
  std::vector<Token> tokens = lex(sources, file, diags);
  Program ast = parse(tokens, sources.file(file).name, diags);
  if (diags.hasErrors())
    return std::nullopt;
  return inferShapes(ast, diags);
}

} // namespace moac
