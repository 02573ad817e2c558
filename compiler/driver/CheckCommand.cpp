#include "CheckCommand.h"

#include "CFormat.h"
#include "CheckInputs.h"
#include "DriverSupport.h"
#include "Harness.h"
#include "Lower.h"
#include "Pipeline.h"
#include "Psi.h"
#include "Traffic.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>

namespace moac {

namespace fs = std::filesystem;

CLI::App *addCheckCommand(CLI::App &app, CheckOptions &opts) {
  CLI::App *cmd = app.add_subcommand("check", "build the kernel for FILE.moa, run it and compare with the reference");
  cmd->add_option("file", opts.file, "the .moa program, or - for standard input")->required();
  cmd->add_option("--dims", opts.dims, "values of the run-time dims, e.g. n=4096,dk=64,dv=64");
  cmd->add_option("--seed", opts.seed, "seed of the inputs' fill (input k uses stream k)");
  cmd->add_option("--target", opts.target, "c, openmp, openacc")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, Target>{{"c", Target::C}, {"openmp", Target::OpenMP}, {"openacc", Target::OpenACC}},
          CLI::ignore_case));
  cmd->add_option("--inputs-range", opts.inputsRange,
                  "fill the float inputs uniformly in [A, B) (A,B; repeat for several sets; default -1,1 and "
                  "-2^40,2^40)");
  cmd->add_option("--cc", opts.cc, "the C compiler command (default: cc)");
  cmd->add_option("--keep", opts.keep, "write the kernel, harness, inputs and outputs to this folder and keep them");
  cmd->add_option("--schedule", opts.schedule, "override the schedule (docs/schedule.md)");
  cmd->add_option("--offload", opts.offload,
                  "openacc: none (build for the host, whatever offload compilers are installed) or nvptx (GCC "
                  "offload to an NVIDIA GPU, sm_80 PTX)")
      ->check(CLI::IsMember({"none", "nvptx"}));
  cmd->add_option("--color", opts.color, "colour diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  // `moac --color never check …` means the same as `moac check --color never …`.
  cmd->callback([&app, &opts, cmd] {
    const CLI::Option *global = app.get_option_no_throw("--color");
    if (cmd->count("--color") == 0 && global && global->count() > 0)
      opts.color = global->as<std::string>();
  });
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

} // namespace

int runCheckCommand(const CheckOptions &opts) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.setColor(opts.color == "always" ? ColorMode::Always : opts.color == "never" ? ColorMode::Never : ColorMode::Auto);
  auto file = readSource(sources, diags, opts.file);
  if (!file)
    return 1;
  std::optional<TypedProgram> typed = typeCheck(sources, *file, diags);
  if (!typed)
    return 1;
  auto parsed = parseDims(opts.dims);
  if (auto *problem = std::get_if<std::string>(&parsed)) {
    std::fprintf(stderr, "moac check: --dims: %s\n", problem->c_str());
    return 2;
  }
  auto dims = bindDims(*typed, std::get<std::vector<DimArg>>(parsed), diags);
  if (!dims)
    return 1;
  for (const Guard &g : typed->guards)
    if (!g.holds([&](Symbol s) { return dims->at(s); })) {
      std::fprintf(stderr, "moac check: shape guard %s does not hold for these dims (%s)\n", g.str().c_str(),
                   g.reason.c_str());
      return 1;
    }
  Schedule schedule;
  if (auto problem = parseSchedule(opts.schedule, schedule)) {
    std::fprintf(stderr, "moac check: --schedule: %s\n", problem->c_str());
    return 2;
  }
  std::vector<InputRange> ranges;
  if (auto problem = parseInputRanges(opts.inputsRange, *typed, ranges)) {
    std::fprintf(stderr, "moac check: --inputs-range: %s\n", problem->c_str());
    return 2;
  }

  // the kernel and its harness
  DnfProgram dnf = psiReduce(*typed);
  Kernel kernel = lower(dnf, schedule, opts.target);
  TrafficModel traffic = trafficModel(dnf, *typed);
  std::string headerName = kernel.name + ".h";
  CompileOptions compile;
  compile.target = opts.target;
  compile.schedule = schedule;
  compile.command = "moac check";
  GeneratedCode code = emitCode(dnf, kernel, traffic, sources.file(*file).text, compile, headerName);

  fs::path dir;
  bool keep = !opts.keep.empty();
  if (keep) {
    dir = opts.keep;
    fs::create_directories(dir);
  } else {
    std::string pattern = (fs::temp_directory_path() / "moac-check-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::fprintf(stderr, "moac check: cannot make a temporary folder\n");
      return 1;
    }
    dir = pattern;
  }
  struct Cleanup {
    fs::path dir;
    bool keep;
    ~Cleanup() {
      std::error_code ec;
      if (!keep)
        fs::remove_all(dir, ec);
    }
  } cleanup{dir, keep};

  writeFile(dir / (kernel.name + ".c"), code.source);
  writeFile(dir / headerName, code.header);
  writeFile(dir / "harness.c", formatC(emitHarness(kernel, opts.target, headerName), "harness.c"));

  // OpenACC is built for the host unless asked otherwise: with GCC's nvptx offload compiler installed,
  // plain -fopenacc would also build PTX for the default sm_35, which CUDA 12+ ptxas rejects.
  std::string acc = opts.offload == "nvptx"
                        ? " -fopenacc -foffload=nvptx-none '-foffload-options=nvptx-none=-misa=sm_80 -lm'"
                        : " -fopenacc -foffload=disable";
  std::string flags = opts.target == Target::OpenMP ? " -fopenmp" : opts.target == Target::OpenACC ? acc : "";
  fs::path exe = dir / "harness";
  RuntimePaths runtime = runtimePaths();
  std::string build = fmt::format("{} -std=c99 -O2 -Wall -Wextra -Werror{} -I{} -I{} {} {} {} -lm -o {} > {} 2>&1", opts.cc,
                                  flags, quote(runtime.includeDir), quote(dir.string()),
                                  quote((dir / (kernel.name + ".c")).string()), quote((dir / "harness.c").string()),
                                  quote(runtime.library), quote(exe.string()), quote((dir / "build.log").string()));
  if (std::system(build.c_str()) != 0) {
    std::fprintf(stderr, "moac check: building the kernel failed:\n%s\n%s", build.c_str(),
                 readFile(dir / "build.log").c_str());
    return 1;
  }
  std::string runCmd = quote(exe.string()) + " " + quote(dir.string());
  for (const TDim &d : typed->dims)
    if (!d.value)
      runCmd += " " + std::to_string(dims->at(d.sym));
  runCmd += " > " + quote((dir / "run.log").string()) + " 2>&1";

  std::printf("moac check %s --target=%s --dims %s --seed %llu\n", opts.file.c_str(), targetName(opts.target),
              opts.dims.c_str(), (unsigned long long)opts.seed);
  bool pass = true;
  for (const InputRange &range : ranges) {
    CheckRun run{*typed, dnf, kernel, *dims, dir, runCmd, opts.seed};
    std::optional<bool> ok = checkOnInputs(run, range, diags);
    if (!ok)
      return 1;
    pass &= *ok;
  }
  std::printf("%s", printTraffic(traffic, &*dims).c_str());
  if (keep)
    std::printf("kept the kernel, harness, inputs and outputs in %s\n", dir.c_str());
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

} // namespace moac
