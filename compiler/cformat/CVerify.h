// The self-check of emitted code (`moac compile --verify-output`): Clang's libTooling parses the kernel
// in process (-fsyntax-only -std=c99 -Wall -Wextra, the target's pragmas) over an in-memory file system,
// and every diagnostic it reports is traced back to the .moa line the statement came from through the
// `/* file.moa:LINE */` comment EmitC puts after each statement. A diagnostic is a bug in moac, never the
// user's: the driver reports it as an internal error. Clang's headers stay in CVerify.cpp.
#pragma once

#include "Target.h"
#include "Source.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace moac {

// One diagnostic of the C parser, in the generated file's coordinates.
struct CDiagnostic {
  std::string file;
  unsigned line = 0, col = 0; // 1-based; 0 when Clang gave no location (a driver error)
  std::string severity;       // "warning", "error", "fatal error"
  std::string message;
};

struct VerifyInput {
  std::string fileName; // the kernel, as named in diagnostics ("decode.c")
  std::string source;
  // Other in-memory files beside it, e.g. the companion header the kernel includes: {name, text}.
  std::vector<std::pair<std::string, std::string>> siblings;
  std::vector<std::string> includeDirs; // -I, for moart/kernel.h
  Target target = Target::C;
};

// The diagnostics (warnings and errors; notes are dropped) of parsing input.source; empty when clean.
std::vector<CDiagnostic> verifyC(const VerifyInput &input);

// The .moa file and line of the statement that contains generated line `line`: the first
// `/* NAME.moa:N */` comment from that line on (a statement may wrap over several lines and carries its
// comment on its last one; a loop or if header leads to the first statement of its body), up to the end
// of the statement; nullopt for code that came from no .moa line (the workspace layout, declarations).
struct MoaLine {
  std::string file;
  unsigned line = 0;
};
std::optional<MoaLine> moaLineOf(const std::string &generated, unsigned line);

// The internal-error text for the diagnostics of verifyC(input): for each, the .moa line it came from
// (`dsl-examples/decode.moa:13: …` — the path of `moa` when its base name matches the comment — and that
// source line), then Clang's diagnostic and the generated line with a caret.
std::string verifyReport(const std::vector<CDiagnostic> &diags, const VerifyInput &input, const SourceFile *moa);

} // namespace moac
