// `moac explain`: the derivation a student can follow — the program, its shapes, every ψ-rewrite with
// the rule's name (before ⇒ after), the DNF in MoA notation, and the storage/traffic analysis.
#pragma once

#include "Dnf.h"
#include "LoopIR.h"
#include "Source.h"
#include "Target.h"
#include "Typed.h"

#include <string>

namespace moac {

// `kernel` is the DNF lowered for `target`: its layout decisions and γ-differences close the derivation.
std::string explain(const SourceFile &source, const TypedProgram &typed, const DnfProgram &dnf, const Kernel &kernel,
                    Target target);

// The same text in ASCII spellings (⟨i j⟩ψ → <i j> psi, Σ → sum, × → *, …) for `--ascii`.
std::string asciify(const std::string &text);

} // namespace moac
