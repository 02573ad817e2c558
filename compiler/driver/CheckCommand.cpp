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
#include <llvm/Support/Process.h>

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
  addTargetOption(*cmd, opts.target, "c, openmp, openacc, cuda");
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
  cmd->add_option("--nvcc", opts.nvcc,
                  "cuda: the CUDA compiler (default: $MOAC_NVCC, else /usr/local/cuda/bin/nvcc, else nvcc)");
  cmd->add_option("--cuda-arch", opts.cudaArch, "cuda: the GPU architecture to build for (default sm_90)");
  cmd->add_flag("--no-run", opts.noRun,
                "build the harness and write every input set into the --keep folder with a run.sh, and stop");
  cmd->add_flag("--compare", opts.compare,
                "compare the outputs that the --keep folder's run.sh wrote (after --no-run) with the reference");
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

std::string nvccCommand(const CheckOptions &opts) {
  if (!opts.nvcc.empty())
    return opts.nvcc;
  if (const char *env = std::getenv("MOAC_NVCC"); env && *env)
    return env;
  std::error_code ec;
  return fs::exists("/usr/local/cuda/bin/nvcc", ec) ? "/usr/local/cuda/bin/nvcc" : "nvcc";
}

// The command that builds the CUDA kernel and the harness with nvcc (the host compiler checks the
// harness's C as strictly as the other targets'), and links the runtime and the static CUDA runtime.
std::string cudaBuild(const CheckOptions &opts, const fs::path &kernel, const fs::path &dir, const fs::path &exe) {
  std::string arch = opts.cudaArch.substr(opts.cudaArch.find('_') == std::string::npos ? 0 : opts.cudaArch.find('_') + 1);
  RuntimePaths runtime = runtimePaths();
  return fmt::format("{} -O3 -std=c++17 -gencode arch=compute_{},code=sm_{} -Werror all-warnings -I{} -I{} {} {} {} "
                     "-cudart static -o {} > {} 2>&1",
                     nvccCommand(opts), arch, arch, shellQuote(runtime.includeDir), shellQuote(dir.string()),
                     shellQuote(kernel.string()), shellQuote((dir / "harness.c").string()), shellQuote(runtime.library),
                     shellQuote(exe.string()), shellQuote((dir / "build.log").string()));
}

// Writes the kernel, its header and the harness into `dir` and builds them with opts.cc (nvcc for CUDA);
// the path of the harness executable, or empty after a failed build (reported with the compiler's log).
fs::path buildHarness(const CheckOptions &opts, const Kernel &kernel, const GeneratedCode &code,
                      const std::string &headerName, const fs::path &dir, StepLog &steps) {
  const fs::path source = dir / (kernel.name + (opts.target == Target::Cuda ? ".cu" : ".c"));
  writeFile(source, code.source);
  writeFile(dir / headerName, code.header);
  writeFile(dir / "harness.c", formatC(emitHarness(kernel, opts.target, headerName, arrayExtension(opts.arrayFormat)), "harness.c"));
  // OpenACC is built for the host unless asked otherwise: with GCC's nvptx offload compiler installed,
  // plain -fopenacc would also build PTX for the default sm_35, which CUDA 12+ ptxas rejects. The options
  // are cmake/MoacOpenACC.cmake's, which moac_add_kernel and the tests use too.
  std::string acc = std::string(" ") + (opts.offload == "nvptx" ? MOAC_OPENACC_FLAGS_NVPTX : MOAC_OPENACC_FLAGS_NONE);
  std::string flags = opts.target == Target::OpenMP ? " -fopenmp" : opts.target == Target::OpenACC ? acc : "";
  fs::path exe = dir / "harness";
  RuntimePaths runtime = runtimePaths();
  std::string build =
      opts.target == Target::Cuda
          ? cudaBuild(opts, source, dir, exe)
          : fmt::format("{} -std=c99 -O2 -Wall -Wextra -Werror{} -I{} -I{} {} {} {} -lm -o {} > {} 2>&1", opts.cc, flags,
                        shellQuote(runtime.includeDir), shellQuote(dir.string()), shellQuote(source.string()),
                        shellQuote((dir / "harness.c").string()), shellQuote(runtime.library), shellQuote(exe.string()),
                        shellQuote((dir / "build.log").string()));
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

fs::path setFolder(const fs::path &dir, size_t k) { return dir / fmt::format("set{}", k + 1); }

// --no-run: every set's inputs in DIR/setK and DIR/run.sh, which runs the harness on each (its exit status
// the first failure's).
int writeKept(const CheckOptions &opts, const CheckRun &run, const std::vector<InputRange> &ranges,
              const fs::path &dir, DiagnosticEngine &diags) {
  std::string script = "#!/bin/sh\n# Runs the harness of `moac check --no-run` on each input set; then run\n"
                       "# `moac check ... --compare --keep DIR` where moac is.\ncd \"$(dirname \"$0\")\" || exit 1\n";
  CheckRun here = run;
  here.harness = "./harness";
  for (size_t k = 0; k < ranges.size(); ++k) {
    std::error_code ec;
    fs::create_directories(setFolder(dir, k), ec);
    if (!writeInputs(run, ranges[k], setFolder(dir, k), diags))
      return 1;
    script += harnessCommand(here, setFolder(dir, k).filename()) + " || { cat " +
              shellQuote((setFolder(dir, k).filename() / "run.log").string()) + "; exit 1; }\n";
  }
  if (!writeFile(dir / "run.sh", script)) {
    std::fprintf(stderr, "moac check: cannot write %s\n", (dir / "run.sh").c_str());
    return 1;
  }
  fs::permissions(dir / "run.sh", fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                  fs::perm_options::add);
  std::printf("moac check: built the harness and wrote %zu input set%s into %s: run %s there, then the same "
              "moac check with --compare\n",
              ranges.size(), ranges.size() == 1 ? "" : "s", dir.c_str(), (dir / "run.sh").c_str());
  (void)opts;
  return 0;
}

// --compare: the outputs in DIR/setK against the reference on the same seeded inputs.
int compareKept(const CheckOptions &opts, const CheckRun &run, const std::vector<InputRange> &ranges,
                const fs::path &dir, DiagnosticEngine &diags) {
  std::printf("moac check %s --target=%s --dims %s --seed %llu (outputs from %s)\n", opts.file.c_str(),
              targetName(opts.target), opts.dims.c_str(), (unsigned long long)opts.seed, dir.c_str());
  bool pass = true;
  for (size_t k = 0; k < ranges.size(); ++k) {
    auto inputs = makeInputSet(run, ranges[k], diags);
    if (!inputs)
      return 1;
    std::optional<bool> ok = compareOutputs(run, ranges[k], setFolder(dir, k), *inputs, diags);
    if (!ok)
      return 1;
    pass &= *ok;
  }
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

} // namespace

int runCheckCommand(const CheckOptions &opts, const DiagnosticOptions &diagOpts) {
  CompilationContext ctx; // this compilation's sources and symbols
  SourceManager &sources = ctx.sources;
  DiagnosticEngine diags(sources);
  diags.configure(diagOpts);
  if ((opts.noRun || opts.compare) && opts.keep.empty())
    return usageError(fmt::format("{} needs --keep DIR: the folder the sets are written to and read from",
                                  opts.noRun ? "--no-run" : "--compare"), diagOpts);
  if (opts.noRun && opts.compare)
    return usageError("--no-run and --compare are two steps: give one of them", diagOpts);
  auto file = readSource(sources, diags, opts.file);
  if (!file)
    return 1;
  // the whole pipeline, once: the typed program for the reference, the kernel and its code to build
  CompileOptions compile;
  compile.target = opts.target;
  compile.command = "moac check";
  compile.headerName = kernelName(sources.file(*file).name) + ".h";
  if (auto problem = parseSchedule(opts.schedule, compile.schedule))
    return usageError("--schedule: " + *problem, diagOpts);
  StepLog steps(opts.verbose, opts.time, llvm::sys::Process::StandardErrIsDisplayed());
  steps.begin("compile", fmt::format("{} --target={}{}", opts.file, targetName(opts.target),
                                     opts.schedule.empty() ? "" : " --schedule=" + opts.schedule));
  Compilation compiled = runPipeline(ctx, *file, diags, compile);
  steps.end();
  if (!compiled.ok())
    return 1;
  const TypedProgram &typed = *compiled.typed;
  auto parsed = parseDims(opts.dims);
  if (auto *problem = std::get_if<std::string>(&parsed))
    return usageError("--dims: " + *problem, diagOpts);
  std::vector<InputRange> ranges;
  if (auto problem = parseInputRanges(opts.inputsRange, typed, ranges))
    return usageError("--inputs-range: " + *problem, diagOpts);
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
  CheckRun run{typed, *compiled.dnf, kernel, *dims, (dir / "harness").string(), opts.seed, steps,
               arrayExtension(opts.arrayFormat)};
  if (opts.compare)
    return compareKept(opts, run, ranges, dir, diags);
  if (buildHarness(opts, kernel, *compiled.code, compile.headerName, dir, steps).empty())
    return 1;
  if (opts.noRun)
    return writeKept(opts, run, ranges, dir, diags);

  std::printf("moac check %s --target=%s --dims %s --seed %llu\n", opts.file.c_str(), targetName(opts.target),
              opts.dims.c_str(), (unsigned long long)opts.seed);
  bool pass = true;
  for (const InputRange &range : ranges) {
    bool noDevice = false;
    std::optional<bool> ok = checkOnInputs(run, range, dir, diags, &noDevice);
    if (noDevice) {
      std::printf("moac check: no CUDA device here: the kernel and its harness were built, not run (exit status %d; "
                  "--no-run and --compare check on another machine)\n",
                  exitNoDevice);
      return exitNoDevice;
    }
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
