// `moac explain`: the derivation a student can follow — the program, its shapes, every ψ-rewrite with
// the rule's name (before ⇒ after), the DNF in MoA notation, and the storage/traffic analysis.
#pragma once

#include "Context.h"
#include "Dnf.h"
#include "Source.h"
#include "Typed.h"

#include <string>

namespace moac {

// ctx: the compilation of typed and dnf (explain lowers dnf to report coalescing).
std::string explain(CompilationContext &ctx, const SourceFile &source, const TypedProgram &typed, const DnfProgram &dnf);

// The same text in ASCII spellings (⟨i j⟩ψ → <i j> psi, Σ → sum, × → *, …) for `--ascii`.
std::string asciify(const std::string &text);

} // namespace moac
