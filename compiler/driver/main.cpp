// moac: the command-line driver. Parses the command line (CLI11), reads the source, runs the pipeline
// to the requested stage and prints the result. Exit status: 0 success, 1 errors in the program,
// 2 usage errors, 70 internal errors (a bug in moac).
#include "CFormat.h"
#include "CNames.h"
#include "CVerify.h"
#include "CommentText.h"
#include "CheckCommand.h"
#include "Diagnostics.h"
#include "DiagnosticsJson.h"
#include "DriverSupport.h"
#include "Explain.h"
#include "ExplainHtml.h"
#include "ManPage.h"
#include "Outputs.h"
#include "Pipeline.h"
#include "Psi.h"
#include "RunCommand.h"
#include "Usage.h"
#include "Version.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <new>
#include <optional>
#include <sstream>

namespace {

using namespace moac;

constexpr int exitUserError = 1;
constexpr int exitInternal = 70;

struct Options {
  std::string input;
  std::string output = "-";
  Stage emit = Stage::Code;
  bool ascii = false;
  Target target = Target::C;
  Target explainTarget = Target::OpenACC; // explain shows the GPU mapping unless told otherwise
  std::string header;   // --header OUT.h
  std::string schedule; // --schedule key=value,…
  std::string command;  // the command line, for generated files
  std::string depfile;  // --depfile FILE: make-style dependencies of the output
  std::string name;     // --name IDENT: the kernel's C name
  std::string torch;    // --torch FILE.cpp: also write a PyTorch operator around the kernel
  bool verifyOutput = false;
  bool html = false; // explain --html: the derivation as a page
};

// The one way moac reports its own bugs: a message, a plea, exit status 70.
int internalError(const std::string &what) {
  std::fprintf(stderr, "moac: internal error: %s\nplease report this as a bug, with the input\n", what.c_str());
  return exitInternal;
}

// The input as the generated files record it: never absolute, so that the output does not depend on
// where the build machine keeps the tree. An absolute path is made relative to the working folder (both
// with symbolic links resolved, as getcwd gives it; the file's own name is kept).
std::string recordedPath(const std::string &path) {
  namespace fs = std::filesystem;
  if (!fs::path(path).is_absolute())
    return path;
  std::error_code ec;
  fs::path folder = fs::weakly_canonical(fs::path(path).parent_path(), ec);
  fs::path cwd = ec ? fs::path() : fs::current_path(ec);
  fs::path relative = ec ? fs::path() : (folder / fs::path(path).filename()).lexically_relative(cwd);
  return relative.empty() ? fs::path(path).filename().string() : relative.string();
}

// Standard output, or the file written atomically and only when its content changed (Outputs.h).
bool writeOutput(DiagnosticEngine &diags, const std::string &path, const std::string &text) {
  if (auto problem = writeFileAtomically(path, text)) {
    diags.report(Diag::CannotWrite, SourceLoc{}, path, *problem);
    return false;
  }
  return true;
}

// Every file the compilation read (the source and whatever it pulled in) is an input no output may name.
std::vector<NamedPath> inputsRead(const SourceManager &sources) {
  std::vector<NamedPath> inputs;
  for (uint32_t id = 1; id <= sources.fileCount(); ++id)
    if (sources.file(id).name != "<stdin>")
      inputs.push_back({"the input", sources.file(id).name});
  return inputs;
}

// `moac --list-stages`: the stage table for scripts (scripts/update-golden, the completion script).
int listStages() {
  for (const StageInfo &stage : stageTable)
    std::printf("%s%s\n", stage.name, stage.golden ? "\tgolden" : "");
  return std::fflush(stdout) == 0 ? 0 : exitUserError;
}

// `--color`: declared once, here, on moac and on every subcommand (before or after the subcommand's
// name it means the same; after it, it wins), all into one setting that each command's diagnostics use.
void addColorOption(CLI::App &app, std::string &color) {
  app.add_option("--color", color, "colour diagnostics: auto (TTY without NO_COLOR), always, never")
      ->check(oneOf({"auto", "always", "never"}));
  for (CLI::App *cmd : app.get_subcommands({}))
    cmd->add_option("--color", color, "colour diagnostics: auto, always, never")
        ->check(oneOf({"auto", "always", "never"}));
}

ColorMode colorMode(const std::string &s) {
  return s == "always" ? ColorMode::Always : s == "never" ? ColorMode::Never : ColorMode::Auto;
}

int runCompile(const Options &opts, const DiagnosticOptions &diagOpts) {
  CompilationContext ctx; // this compilation's sources and symbols
  SourceManager &sources = ctx.sources;
  DiagnosticEngine diags(sources);
  diags.configure(diagOpts);
  auto file = readSource(sources, diags, opts.input);
  if (!file)
    return exitUserError;
  CompileOptions options;
  options.stopAfter = opts.emit;
  options.target = opts.target;
  options.command = opts.command;
  options.headerName = opts.header.substr(opts.header.find_last_of('/') + 1);
  options.kernelName = opts.name;
  options.torch = !opts.torch.empty();
  if (auto problem = parseSchedule(opts.schedule, options.schedule))
    return usageError("--schedule: " + *problem, diagOpts);
  if (opts.verifyOutput && opts.target == Target::Cuda)
    return usageError("--verify-output checks C (Clang in process); a .cu kernel is checked by nvcc: moac check "
                      "--target=cuda builds it", diagOpts);
  if (options.torch && options.schedule.layouts == Schedule::Layouts::Lifted)
    return usageError("--torch: the operator passes tensors as they are, row-major: not with --schedule layout=lifted", diagOpts);
  Compilation result = runPipeline(ctx, *file, diags, options);
  if (!result.ok())
    return exitUserError;
  std::vector<std::pair<std::string, std::string>> outputs; // {path, text}
  if (opts.emit == Stage::Code) {
    const std::string &headerName = options.headerName;
    const GeneratedCode *code = &*result.code;
    if (opts.verifyOutput) {
      VerifyInput input;
      input.fileName = opts.output == "-" ? "kernel.c" : opts.output.substr(opts.output.find_last_of('/') + 1);
      input.source = code->source;
      if (!headerName.empty())
        input.siblings.push_back({headerName, code->header});
      input.includeDirs.push_back(runtimePaths().includeDir);
      input.target = opts.target;
      std::vector<CDiagnostic> problems = verifyC(input);
      if (!problems.empty())
        return internalError(fmt::format("the generated C for target {} does not pass {} -fsyntax-only "
                                         "(--verify-output):\n{}",
                                         targetName(opts.target), clangVersion(),
                                         verifyReport(problems, input, &sources.file(*file))));
    }
    outputs.push_back({opts.output, code->source});
    if (!opts.header.empty())
      outputs.push_back({opts.header, code->header});
    if (!opts.torch.empty())
      outputs.push_back({opts.torch, code->torch});
  } else {
    outputs.push_back({opts.output, dumpStage(result, opts.ascii)});
  }
  std::vector<NamedPath> written;
  for (size_t i = 0; i < outputs.size(); ++i)
    written.push_back({i == 0 ? "-o" : outputs[i].first == opts.torch ? "--torch" : "--header", outputs[i].first});
  if (!opts.depfile.empty())
    written.push_back({"--depfile", opts.depfile});
  if (auto clash = outputClash(inputsRead(sources), written))
    return usageError(*clash, diagOpts);
  for (const auto &[path, text] : outputs)
    if (!writeOutput(diags, path, text))
      return exitUserError;
  // Written last, so that a failed compilation leaves no depfile claiming an up-to-date output.
  if (!opts.depfile.empty()) {
    std::vector<std::string> targets;
    for (const auto &output : outputs)
      targets.push_back(output.first);
    if (!writeOutput(diags, opts.depfile, depfileText(targets, sources)))
      return exitUserError;
  }
  return 0;
}

// moac explain FILE: the derivation from the program to its DNF and the storage analysis.
int runExplain(const Options &opts, const DiagnosticOptions &diagOpts) {
  CompilationContext ctx; // this compilation's sources and symbols
  SourceManager &sources = ctx.sources;
  DiagnosticEngine diags(sources);
  diags.configure(diagOpts);
  auto file = readSource(sources, diags, opts.input);
  if (!file)
    return exitUserError;
  CompileOptions options;
  options.stopAfter = opts.html ? Stage::Code : Stage::Onf; // the page shows the C too
  options.target = opts.explainTarget;
  if (auto problem = parseSchedule(opts.schedule, options.schedule))
    return usageError("--schedule: " + *problem, diagOpts);
  // The page's C is what `moac compile FILE --target=T` prints, byte for byte, run in FILE's folder: the
  // page names no folder.
  options.command = fmt::format("moac compile {} --target={}", opts.input.substr(opts.input.find_last_of('/') + 1),
                                targetName(opts.explainTarget));
  if (!opts.schedule.empty())
    options.command += " --schedule=" + opts.schedule;
  Compilation result = runPipeline(ctx, *file, diags, options);
  if (!result.ok())
    return exitUserError;
  const SourceFile &source = sources.file(*file);
  std::string text =
      opts.html ? explainHtml({source, result.tokens, *result.typed, *result.dnf, *result.kernel, result.code->source,
                               opts.explainTarget})
                : explain(source, *result.typed, *result.dnf, *result.kernel, opts.explainTarget);
  if (auto clash = outputClash(inputsRead(sources), {{"-o", opts.output}}))
    return usageError(*clash, diagOpts);
  if (!writeOutput(diags, opts.output, opts.ascii ? asciify(text) : text))
    return exitUserError;
  return 0;
}

// `moac compile`'s arguments and options.
CLI::App *addCompileCommand(CLI::App &app, Options &opts) {
  CLI::App *compile = app.add_subcommand("compile", "compile FILE.moa (or - for standard input)");
  compile->add_option("file", opts.input, "the .moa program, or - for standard input")->required();
  compile->add_option("-o,--output", opts.output, "write the result here (default: standard output)");
  // In stage order, so that a bad value is answered with "bogus not in {tokens,ast,shapes,dnf,…}".
  std::vector<std::string> stageNames;
  for (const StageInfo &stage : stageTable)
    stageNames.push_back(stage.name);
  compile
      ->add_option_function<std::string>(
          "--emit",
          [&opts](const std::string &name) {
            for (const StageInfo &stage : stageTable)
              if (name == stage.name)
                opts.emit = stage.stage;
          },
          fmt::format("stop after this stage and print it: {} (the default)", fmt::join(stageNames, ", ")))
      ->check(oneOf(stageNames));
  compile->add_flag("--ascii", opts.ascii, "print ASCII <n dk> instead of Unicode ⟨n dk⟩");
  addTargetOption(*compile, opts.target, "c (sequential C99), openmp, openacc, cuda (a .cu file)");
  compile->add_option("--header", opts.header, "also write the kernel's header (signature, workspace size) here");
  compile->add_option("--schedule", opts.schedule,
                      "override the schedule: threads=N,chunk=N,block=N,layout=auto|rowmajor|lifted,"
                      "fuse=on|off,splits=N (docs/schedule.md)");
  compile->add_option("--name", opts.name,
                      "the kernel's C name (default moa_ + the file's stem); also names NAME_workspace_bytes and "
                      "the header's guard and macros");
  compile->add_option("--torch", opts.torch,
                      "also write a PyTorch operator (C++ extension source registering torch.ops.moac.NAME) "
                      "around the kernel; needs --header (docs/pytorch.md)");
  compile->add_option("--depfile", opts.depfile,
                      "also write a make-style dependency file: the outputs depend on the .moa source");
  compile->add_flag("--verify-output", opts.verifyOutput,
                    "parse the generated C with Clang (-fsyntax-only -Wall -Wextra); any diagnostic is an "
                    "internal error (exit 70)");
  return compile;
}

// `moac explain`'s arguments and options.
CLI::App *addExplainCommand(CLI::App &app, Options &opts) {
  CLI::App *explainApp = app.add_subcommand("explain", "show the derivation of FILE.moa: ψ-rules, DNF, storage");
  explainApp->add_option("file", opts.input, "the .moa program, or - for standard input")->required();
  explainApp->add_option("-o,--output", opts.output, "write the explanation here (default: standard output)");
  explainApp->add_flag("--ascii", opts.ascii, "ASCII spellings instead of the paper's Unicode");
  addTargetOption(*explainApp, opts.explainTarget,
                  "lower for this target to show its layouts and γ-differences: c, openmp, openacc (the default), cuda");
  explainApp->add_flag("--html", opts.html,
                       "write the derivation as one self-contained HTML page (needs -o FILE): source, ψ-rules, DNF, "
                       "ONF, traffic and C, linked through the source locations");
  explainApp->add_option("--schedule", opts.schedule,
                         "the schedule to explain, as for compile; fuse=off explains the unfused DNF "
                         "(docs/schedule.md)");
  return explainApp;
}

// `moac compile` once its options parsed: the combinations the parser cannot refuse, then the compilation.
int compileCommand(Options &opts, const DiagnosticOptions &diagnostics) {
  if (opts.verifyOutput && opts.emit != Stage::Code)
    return usageError("--verify-output checks generated C: it needs --emit=code", diagnostics);
  if (!opts.depfile.empty() && (opts.output == "-" || opts.header == "-" || opts.depfile == "-"))
    return usageError("--depfile needs -o FILE, and --header FILE if given: a make target is a file", diagnostics);
  // The kernel includes its header by this name: it must read the same in `#include "…"` (no quote, no
  // backslash, no control or bidirectional character, no trigraph; CommentText.h names them).
  std::string headerName = opts.header.substr(opts.header.find_last_of('/') + 1);
  if (headerName.find_first_of("\"'") != std::string::npos || commentText(headerName) != headerName)
    return usageError(fmt::format("--header: the name '{}' cannot be written in #include \"…\" (a quote, "
                                  "backslash, control character or trigraph)",
                                  commentText(headerName)),
                      diagnostics);
  if (std::string problem = opts.name.empty() ? "" : kernelNameProblem(opts.name); !problem.empty())
    return usageError(fmt::format("--name: '{}' cannot name a kernel: {}", commentText(opts.name), problem),
                      diagnostics);
  if (!opts.torch.empty() && (opts.emit != Stage::Code || opts.header.empty() || opts.header == "-" ||
                              opts.output == "-" || opts.torch == "-" || opts.target == Target::OpenACC))
    return usageError("--torch writes an operator that includes the kernel's header and runs it on the CPU or "
                      "a CUDA device: it needs --emit=code, -o FILE, --header FILE and --target=c, openmp or cuda",
                      diagnostics);
  opts.command = fmt::format("moac compile {} --target={}{}{}", recordedPath(opts.input), targetName(opts.target),
                             opts.schedule.empty() ? "" : " --schedule=" + opts.schedule,
                             opts.name.empty() ? "" : " --name=" + opts.name);
  return runCompile(opts, diagnostics);
}

// `moac explain` once its options parsed.
int explainCommand(const Options &opts, const DiagnosticOptions &diagnostics) {
  if (opts.html && opts.output == "-")
    return usageError("--html writes a page: it needs -o FILE", diagnostics);
  if (opts.html && opts.ascii)
    return usageError("--ascii is for the text form: the page shows the paper's Unicode", diagnostics);
  return runExplain(opts, diagnostics);
}

// The flags of moac itself that print something about the installation and exit.
struct InfoFlags {
  bool stages = false;
  bool manPage = false; // for the build, which installs it as moac.1; not in --help
  bool includeDir = false, library = false;
};

// The flags other than --list-stages, which run() adds first: the order --help lists them in.
void addInfoFlags(CLI::App &app, InfoFlags &flags) {
  app.add_flag("--man-page", flags.manPage, "print the manual page moac(1) in troff")->group("");
  app.add_flag("--print-include-dir", flags.includeDir,
               "print the folder of libmoart's headers (moart/moart.h), for cc -I: PREFIX/include when installed");
  app.add_flag("--print-library", flags.library, "print the path of libmoart.a, which kernels link");
}

// What the flags asked to print, or nothing when none was given.
std::optional<int> printInfo(const CLI::App &app, const InfoFlags &flags) {
  if (flags.stages)
    return listStages();
  if (flags.includeDir || flags.library) {
    std::printf("%s\n", flags.includeDir ? runtimePaths().includeDir.c_str() : runtimePaths().library.c_str());
    return std::fflush(stdout) == 0 ? 0 : exitUserError;
  }
  if (flags.manPage) {
    std::fputs(manPage(app, fmt::format("moac {}", moacVersion)).c_str(), stdout);
    return std::fflush(stdout) == 0 ? 0 : exitUserError;
  }
  return std::nullopt;
}

int run(int argc, char **argv) {
  CLI::App app{"moac: a Mathematics-of-Arrays compiler from .moa programs to C/OpenMP/OpenACC kernels"};
  std::string version = fmt::format("moac {}{}\nlibTooling: {}", moacVersion,
                                    *moacGitRevision ? fmt::format(" (git {})", moacGitRevision) : "", clangVersion());
  app.set_version_flag("--version", version, "print the version, the git revision and the Clang it uses");
  app.require_subcommand(0, 1); // one, unless --list-stages (checked below)
  InfoFlags info;
  app.add_flag("--list-stages", info.stages,
               "print the pipeline's stages in order, one per line: the --emit= name, then \"golden\" when "
               "tests/golden holds its dumps");
  Options opts;
  CLI::App *compile = addCompileCommand(app, opts);
  CLI::App *explainApp = addExplainCommand(app, opts);
  CheckOptions checkOpts;
  CLI::App *checkApp = addCheckCommand(app, checkOpts);
  RunOptions runOpts;
  CLI::App *runApp = addRunCommand(app, runOpts);
  std::string colorName = "auto";
  addColorOption(app, colorName);
  std::string diagnosticsFormat = "text";
  addDiagnosticsFormatOption(app, diagnosticsFormat);
  JsonDiagnostics json; // written when run returns, after the command's last diagnostic
  addInfoFlags(app, info);

  // CLI11 answers a misspelt subcommand with "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-')
    if (std::optional<int> status = checkSubcommand(app, argv[1]))
      return *status;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    return reportParseError(app, e);
  }
  DiagnosticOptions diagnostics{colorMode(colorName), diagnosticsFormat == "json" ? json.enable() : nullptr};
  if (std::optional<int> status = printInfo(app, info))
    return *status;
  if (app.get_subcommands().empty())
    return usageError("a subcommand is required: compile, explain, check or run (moac --help lists them)", diagnostics);
  if (checkApp->parsed())
    return runCheckCommand(checkOpts, diagnostics);
  if (runApp->parsed())
    return runRunCommand(runOpts, diagnostics);
  if (compile->parsed())
    return compileCommand(opts, diagnostics);
  if (explainApp->parsed())
    return explainCommand(opts, diagnostics);
  return exitUsage;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc &) {
    // Not a bug: the reference interpreter materialises every intermediate, and a program within its
    // element limit may still need more memory than the machine gives (docs/cli.md).
    std::fprintf(stderr, "moac: error: out of memory (the reference interpreter keeps every intermediate "
                         "array: try smaller --dims)\n");
    return exitUserError;
  } catch (const std::exception &e) {
    return internalError(e.what());
  }
}
