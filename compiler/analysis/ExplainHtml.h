// `moac explain --html`: the derivation as one self-contained page (inline CSS and script, no network)
// whose panes — the .moa source, the ψ-derivation, the DNF, the ONF (loops, layouts, γ-differences), the
// traffic model and the generated C — are linked through the .moa locations their elements came from:
// hovering or clicking a source span highlights the derivation steps, DNF terms, loop-IR statements and
// C lines from it, and back (ExplainPage.js says how).
#pragma once

#include "Dnf.h"
#include "Lexer.h"
#include "LoopIR.h"
#include "Source.h"
#include "Target.h"
#include "Typed.h"

#include <string>
#include <string_view>
#include <vector>

namespace moac {

struct ExplainPageInputs {
  const SourceFile &source;
  const std::vector<Token> &tokens; // of `source`: the spans of the source pane
  const TypedProgram &typed;
  const DnfProgram &dnf;
  const Kernel &kernel;    // the DNF lowered for `target`
  const std::string &code; // the C emitted from `kernel` (formatted)
  Target target;
};

// The page; deterministic, and naming the source by its file name only (no folders).
std::string explainHtml(const ExplainPageInputs &in);

// For each line of `code` (0-based), the .moa locations of the loop-IR statements printed on it. The
// emitter prints the kernel's regions in order and each region's statements depth first, so the k-th
// located statement (declaration, assignment, accumulation, store) is the one whose line comment
// `/* FILE:LINE */` is the k-th in the kernel's body (a statement wrapped by clang-format ends on that
// line), and the k-th `for` header the k-th loop. The locations are the loop IR's own, line and column.
// `code` may be formatted or not; throws std::logic_error when it does not have the kernel's shape. For
// CUDA the stages are the __global__ functions, whose parallel nests are the grid, not loops.
std::vector<std::vector<SourceLoc>> codeLineLocations(const Kernel &kernel, const std::string &code,
                                                      Target target = Target::C);

// Text for HTML: & < > " ' as character references; the rest (UTF-8) as it is.
std::string escapeHtml(std::string_view text);

} // namespace moac
