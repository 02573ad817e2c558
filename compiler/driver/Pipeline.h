// The compiler as a straight list of stages (Halide's Lower.cpp): each stage is a function from one
// data structure to the next. runPipeline calls them in order and returns every stage's product, so
// that each command (compile, explain, check, run) takes what it needs from one run of the sequence.
#pragma once

#include "AST.h"
#include "Context.h"
#include "Diagnostics.h"
#include "Dnf.h"
#include "Lexer.h"
#include "LoopIR.h"
#include "Schedule.h"
#include "Source.h"
#include "Typed.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace moac {

// Ordered: running to a stage runs every stage before it.
enum class Stage {
#define STAGE(id, name, golden) id,
#include "Stages.def"
};

struct StageInfo {
  Stage stage;
  const char *name; // as `--emit=` spells it
  bool golden;      // tests/golden holds its dump of every example
};
inline constexpr StageInfo stageTable[] = {
#define STAGE(id, name, golden) {Stage::id, name, bool(golden)},
#include "Stages.def"
};
const char *stageName(Stage stage);

struct CompileOptions {
  Stage stopAfter = Stage::Code; // the last stage to run
  Target target = Target::C;
  Schedule schedule;
  std::string command;    // the command line, recorded in generated files
  std::string headerName; // the kernel's companion header, included by the code ("" = none)
  bool torch = false;     // --torch: also the PyTorch operator around the kernel (emit/EmitTorch.h)
  std::string kernelName; // --name: the kernel's C name ("" = moa_ + the file's stem); kernelNameProblem() is ""
};

// The kernel source and its header (formatted with clang::format).
struct GeneratedCode {
  std::string source, header;
  std::string torch; // with CompileOptions::torch: the C++ extension source
};

// Every stage's product, from the tokens up to the stage asked for, or up to the first stage that
// reported an error: then `reached` names the last stage that ran clean, nothing after the failing stage
// ran, and the failing stage's own product may be there (the parser's recovered tree, the DNF whose
// update conflicts were reported).
struct Compilation {
  Stage requested = Stage::Code;
  std::optional<Stage> reached; // the last stage that ran without errors
  std::vector<Token> tokens;
  std::optional<Program> ast;
  std::optional<TypedProgram> typed;
  std::optional<DnfProgram> dnf; // ψ-reduced, checked for update conflicts, fused unless fuse=off
  std::optional<Kernel> kernel;  // lowered for CompileOptions::target
  std::optional<GeneratedCode> code;
  bool ok() const { return reached == requested; }
};

// Runs the stages on one source file up to options.stopAfter. Diagnostics go to diags.
// ctx: a context made for this one compilation (file is one of its sources).
Compilation runPipeline(CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags,
                        const CompileOptions &options);

// The dump `--emit=STAGE` prints: the product of c.requested, which must be present (c.ok()).
std::string dumpStage(const Compilation &c, bool ascii);
std::string dumpTokens(const std::vector<Token> &tokens);

// The pipeline through the update-conflict check that follows ψ-reduction — everything the reference
// interpreter's callers must have passed — keeping only the typed program (nullopt after diagnostics).
std::optional<TypedProgram> typeCheck(CompilationContext &ctx, uint32_t file, DiagnosticEngine &diags);

} // namespace moac
