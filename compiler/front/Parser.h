// Parser: tokens -> AST (recursive descent; each parse function carries its grammar rule, and the
// whole grammar is in docs/language.md). Errors are reported and the parser resynchronises at the next
// line, so one run reports several mistakes.
#pragma once

#include "AST.h"
#include "Lexer.h"

namespace moac {

Program parse(const std::vector<Token> &tokens, const std::string &fileName, DiagnosticEngine &diags);

} // namespace moac
