#include "CheckCommand.h"

#include "CFormat.h"
#include "CheckInputs.h"
#include "DriverSupport.h"
#include "Harness.h"
#include "Lower.h"
#include "Pipeline.h"
#include "StepLog.h"
#include "TemporaryFolder.h"
#include "Usage.h"
#include "Traffic.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace moac {

namespace fs = std::filesystem;

CLI::App *addCheckCommand(CLI::App &app, CheckOptions &opts) {
  CLI::App *cmd = app.add_subcommand("check", "build the kernel for FILE.moa, run it and compare with the reference");
  cmd->add_option("file", opts.file, "the .moa program, or - for standard input")->required();
  cmd->add_option("--dims", opts.dims, "values of the run-time dims, e.g. n=4096,dk=64,dv=64");
  cmd->add_option("--seed", opts.seed, "seed of the inputs' fill (input k uses stream k)");
  addTargetOption(*cmd, opts.target, "c, openmp, openacc");
  cmd->add_option("--inputs-range", opts.inputsRange,
                  "fill the float inputs uniformly in [A, B) (A,B; repeat for several sets; default -1,1 and "
                  "-2^40,2^40)");
  cmd->add_option("--cc", opts.cc, "the C compiler command (default: cc)");
  cmd->add_option("--keep", opts.keep, "write the kernel, harness, inputs and outputs to this folder and keep them");
  cmd->add_option("--schedule", opts.schedule, "override the schedule (docs/schedule.md)");
  cmd->add_option("--offload", opts.offload,
                  "openacc: none (build for the host, whatever offload compilers are installed) or nvptx (GCC "
                  "offload to an NVIDIA GPU, sm_80 PTX)")
      ->check(oneOf({"none", "nvptx"}));
  cmd->add_flag("-v,--verbose", opts.verbose,
                "print each step (compile, the build command, run, reference, compare) and its time as it happens");
  cmd->add_flag("--time", opts.time, "print the time spent in each kind of step at the end");
  cmd->add_option("--array-format", opts.arrayFormat,
                  "the format of the inputs and outputs the harness reads and writes (what --keep keeps): moarr "
                  "(the default) or npy")
      ->check(oneOf({"moarr", "npy"}));
  return cmd;
}

namespace {

std::string quote(const std::string &s) {
  std::string out = "'";
  for (char c : s)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

bool writeFile(const fs::path &path, const std::string &text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

std::string readFile(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Where the kernel, harness, inputs and outputs go: the --keep folder (made if missing), or a temporary
// folder that `scratch` removes on return and on SIGINT/SIGTERM (TemporaryFolder.h). Empty after an error
// (reported).
fs::path workFolder(const CheckOptions &opts, std::unique_ptr<TemporaryFolder> &scratch) {
  if (!opts.keep.empty()) {
    std::error_code ec;
    fs::create_directories(opts.keep, ec);
    if (ec || !fs::is_directory(opts.keep)) {
      std::fprintf(stderr, "moac check: --keep: cannot make the folder '%s': %s\n", opts.keep.c_str(),
                   (ec ? ec : std::make_error_code(std::errc::not_a_directory)).message().c_str());
      return {};
    }
    return opts.keep;
  }
  scratch = TemporaryFolder::make("moac-check");
  if (!scratch) {
    std::fprintf(stderr, "moac check: cannot make a temporary folder\n");
    return {};
  }
  return scratch->path();
}

// Writes the kernel, its header and the harness into `dir` and builds them with opts.cc; the path of the
// harness executable, or empty after a failed build (reported with the compiler's log).
fs::path buildHarness(const CheckOptions &opts, const Kernel &kernel, const GeneratedCode &code,
                      const std::string &headerName, const fs::path &dir, StepLog &steps) {
  writeFile(dir / (kernel.name + ".c"), code.source);
  writeFile(dir / headerName, code.header);
  writeFile(dir / "harness.c", formatC(emitHarness(kernel, opts.target, headerName, arrayExtension(opts.arrayFormat)), "harness.c"));
  // OpenACC is built for the host unless asked otherwise: with GCC's nvptx offload compiler installed,
  // plain -fopenacc would also build PTX for the default sm_35, which CUDA 12+ ptxas rejects. The options
  // are cmake/MoacOpenACC.cmake's, which moac_add_kernel and the tests use too.
  std::string acc = std::string(" ") + (opts.offload == "nvptx" ? MOAC_OPENACC_FLAGS_NVPTX : MOAC_OPENACC_FLAGS_NONE);
  std::string flags = opts.target == Target::OpenMP ? " -fopenmp" : opts.target == Target::OpenACC ? acc : "";
  fs::path exe = dir / "harness";
  RuntimePaths runtime = runtimePaths();
  std::string build = fmt::format("{} -std=c99 -O2 -Wall -Wextra -Werror{} -I{} -I{} {} {} {} -lm -o {} > {} 2>&1", opts.cc,
                                  flags, quote(runtime.includeDir), quote(dir.string()),
                                  quote((dir / (kernel.name + ".c")).string()), quote((dir / "harness.c").string()),
                                  quote(runtime.library), quote(exe.string()), quote((dir / "build.log").string()));
  steps.begin("build", build);
  int status = runShell(build);
  steps.end();
  if (status != 0) {
    std::fprintf(stderr, "moac check: building the kernel failed:\n%s\n%s", build.c_str(),
                 readFile(dir / "build.log").c_str());
    return {};
  }
  return exe;
}

} // namespace

int runCheckCommand(const CheckOptions &opts, const DiagnosticOptions &diagOpts) {
  CompilationContext ctx; // this compilation's sources and symbols
  SourceManager &sources = ctx.sources;
  DiagnosticEngine diags(sources);
  diags.configure(diagOpts);
  auto file = readSource(sources, diags, opts.file);
  if (!file)
    return 1;
  // the whole pipeline, once: the typed program for the reference, the kernel and its code to build
  CompileOptions compile;
  compile.target = opts.target;
  compile.command = "moac check";
  compile.headerName = kernelName(sources.file(*file).name) + ".h";
  if (auto problem = parseSchedule(opts.schedule, compile.schedule))
    return usageError("--schedule: " + *problem);
  StepLog steps(opts.verbose, opts.time);
  steps.begin("compile", fmt::format("{} --target={}{}", opts.file, targetName(opts.target),
                                     opts.schedule.empty() ? "" : " --schedule=" + opts.schedule));
  Compilation compiled = runPipeline(ctx, *file, diags, compile);
  steps.end();
  if (!compiled.ok())
    return 1;
  const TypedProgram &typed = *compiled.typed;
  auto parsed = parseDims(opts.dims);
  if (auto *problem = std::get_if<std::string>(&parsed))
    return usageError("--dims: " + *problem);
  std::vector<InputRange> ranges;
  if (auto problem = parseInputRanges(opts.inputsRange, typed, ranges))
    return usageError("--inputs-range: " + *problem);
  auto dims = bindDims(typed, std::get<std::vector<DimArg>>(parsed), diags);
  if (!dims)
    return 1;
  for (const Guard &g : typed.guards)
    if (!guardHolds(g, *dims)) {
      std::fprintf(stderr, "moac check: shape guard %s does not hold for these dims (%s)\n", g.str().c_str(),
                   g.reason.c_str());
      return 1;
    }

  std::unique_ptr<TemporaryFolder> scratch;
  fs::path dir = workFolder(opts, scratch);
  if (dir.empty())
    return 1;
  const Kernel &kernel = *compiled.kernel;
  fs::path exe = buildHarness(opts, kernel, *compiled.code, compile.headerName, dir, steps);
  if (exe.empty())
    return 1;
  std::string runCmd = quote(exe.string()) + " " + quote(dir.string());
  for (const TDim &d : typed.dims)
    if (!d.value)
      runCmd += " " + std::to_string(dims->at(d.sym));
  runCmd += " > " + quote((dir / "run.log").string()) + " 2>&1";

  std::printf("moac check %s --target=%s --dims %s --seed %llu\n", opts.file.c_str(), targetName(opts.target),
              opts.dims.c_str(), (unsigned long long)opts.seed);
  bool pass = true;
  for (const InputRange &range : ranges) {
    CheckRun run{typed, *compiled.dnf, kernel, *dims, dir, runCmd, opts.seed, steps, arrayExtension(opts.arrayFormat)};
    std::optional<bool> ok = checkOnInputs(run, range, diags);
    if (!ok)
      return 1;
    pass &= *ok;
  }
  std::printf("%s", printTraffic(trafficModel(*compiled.dnf, typed), &*dims).c_str());
  if (!opts.keep.empty())
    std::printf("kept the kernel, harness, inputs and outputs in %s\n", dir.c_str());
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  std::fflush(stdout);
  steps.printSummary();
  return pass ? 0 : 1;
}

} // namespace moac
