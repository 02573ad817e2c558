// The compiler as a straight list of stages (Halide's Lower.cpp): each stage is a function from one
// data structure to the next, and the driver may stop after any of them (`--emit=STAGE`).
#pragma once

#include "Diagnostics.h"
#include "Dnf.h"
#include "LoopIR.h"
#include "Source.h"
#include "Schedule.h"
#include "Traffic.h"
#include "Typed.h"

#include <optional>
#include <string>

namespace moac {

// Ordered: emitting a stage runs every stage before it.
enum class Stage { Tokens, Ast, Shapes, Dnf, Onf, Code };

struct CompileOptions {
  Stage emit = Stage::Shapes;
  bool ascii = false;
  Target target = Target::C;
  Schedule schedule;
  std::string command; // the command line, recorded in generated files
};

// Runs the stages up to options.emit on one source file and returns that stage's dump, or nullopt
// when diagnostics were reported (they already are, through diags).
std::optional<std::string> compileToStage(const SourceManager &sources, uint32_t file,
                                          DiagnosticEngine &diags, const CompileOptions &options);

// The whole pipeline to C: the kernel source and its header (formatted with clang::format).
struct GeneratedCode {
  std::string source, header;
};
// The last stage on a lowered program: the emitter for options.target, then clang::format. `dnf` and
// `traffic` go into the file's header comment with the source text.
GeneratedCode emitCode(const DnfProgram &dnf, const Kernel &kernel, const TrafficModel &traffic,
                       const std::string &sourceText, const CompileOptions &options, const std::string &headerName);
std::optional<GeneratedCode> generateCode(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags,
                                          const CompileOptions &options, const std::string &headerName);

// ψ-reduction, then the online-softmax rewrite unless the schedule says fuse=off (psi/Fuse.h).
DnfProgram reduceToDnf(const TypedProgram &typed, const Schedule &schedule);

std::string dumpTokens(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

// Lexes, parses and shape-checks one source file: the typed program that the later stages and the
// reference interpreter take, or nullopt when diagnostics were reported.
std::optional<TypedProgram> typeCheck(const SourceManager &sources, uint32_t file, DiagnosticEngine &diags);

} // namespace moac
