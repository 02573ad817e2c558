#include "CheckCommand.h"

#include "CFormat.h"
#include "DriverSupport.h"
#include "Harness.h"
#include "Interpreter.h"
#include "Lower.h"
#include "Pipeline.h"
#include "TemporaryFolder.h"
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
  cmd->add_option("--cc", opts.cc, "the C compiler command (default: cc)");
  cmd->add_option("--keep", opts.keep, "write the kernel, harness, inputs and outputs to this folder and keep them");
  cmd->add_option("--schedule", opts.schedule, "override the schedule (docs/schedule.md)");
  cmd->add_option("--offload", opts.offload,
                  "openacc: none (build for the host, whatever offload compilers are installed) or nvptx (GCC "
                  "offload to an NVIDIA GPU, sm_80 PTX)")
      ->check(CLI::IsMember({"none", "nvptx"}));
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

// The longest chain of reductions one output element goes through: the number of terms a rounding error
// can accumulate over (n for a sum of n terms, n + dk for decode's scores then weights).
double reductionDepth(const DnfProgram &dnf, const DimValues &dims) {
  auto value = [&](const SymExpr &e) { return double(e.evaluate([&](Symbol s) { return dims.at(s); })); };
  double total = 0;
  for (const DnfArray &a : dnf.arrays) {
    if (!a.body)
      continue;
    std::vector<const DExpr *> stack{a.body.get()};
    while (!stack.empty()) {
      const DExpr *e = stack.back();
      stack.pop_back();
      if (e->kind == DKind::Reduce)
        total += value(e->extent);
      for (const auto &x : e->args)
        stack.push_back(x.get());
    }
  }
  return total;
}

} // namespace

int runCheckCommand(const CheckOptions &opts, ColorMode color) {
  CompilationContext ctx; // this compilation's sources and symbols
  SourceManager &sources = ctx.sources;
  DiagnosticEngine diags(sources);
  diags.setColor(color);
  auto file = readSource(sources, diags, opts.file);
  if (!file)
    return 1;
  // the whole pipeline, once: the typed program for the reference, the kernel and its code to build
  CompileOptions compile;
  compile.target = opts.target;
  compile.command = "moac check";
  compile.headerName = kernelName(sources.file(*file).name) + ".h";
  if (auto problem = parseSchedule(opts.schedule, compile.schedule)) {
    std::fprintf(stderr, "moac check: --schedule: %s\n", problem->c_str());
    return 2;
  }
  Compilation compiled = runPipeline(ctx, *file, diags, compile);
  if (!compiled.ok())
    return 1;
  const std::optional<TypedProgram> &typed = compiled.typed;
  auto parsed = parseDims(opts.dims);
  if (auto *problem = std::get_if<std::string>(&parsed)) {
    std::fprintf(stderr, "moac check: --dims: %s\n", problem->c_str());
    return 2;
  }
  auto dims = bindDims(*typed, std::get<std::vector<DimArg>>(parsed), diags);
  if (!dims)
    return 1;
  for (const Guard &g : typed->guards)
    if (!guardHolds(g, *dims)) {
      std::fprintf(stderr, "moac check: shape guard %s does not hold for these dims (%s)\n", g.str().c_str(),
                   g.reason.c_str());
      return 1;
    }
  const DnfProgram &dnf = *compiled.dnf;
  const Kernel &kernel = *compiled.kernel;
  const GeneratedCode &code = *compiled.code;
  const std::string &headerName = compile.headerName;
  TrafficModel traffic = trafficModel(dnf, *typed);

  fs::path dir;
  bool keep = !opts.keep.empty();
  std::unique_ptr<TemporaryFolder> scratch; // removed on return and on SIGINT/SIGTERM (TemporaryFolder.h)
  if (keep) {
    dir = opts.keep;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
      std::fprintf(stderr, "moac check: --keep: cannot make the folder '%s': %s\n", opts.keep.c_str(),
                   (ec ? ec : std::make_error_code(std::errc::not_a_directory)).message().c_str());
      return 1;
    }
  } else {
    scratch = TemporaryFolder::make("moac-check");
    if (!scratch) {
      std::fprintf(stderr, "moac check: cannot make a temporary folder\n");
      return 1;
    }
    dir = scratch->path();
  }

  writeFile(dir / (kernel.name + ".c"), code.source);
  writeFile(dir / headerName, code.header);
  writeFile(dir / "harness.c", formatC(emitHarness(kernel, opts.target, headerName), "harness.c"));

  RunOptions runOpts;
  runOpts.seed = opts.seed;
  auto inputs = makeInputs(*typed, *dims, runOpts, diags);
  if (!inputs)
    return 1;
  std::vector<NDArray> reference;
  for (size_t i = 0; i < inputs->size(); ++i) {
    if (!writeArray(dir.string(), typed->inputs[i].name, (*inputs)[i].a, diags))
      return 1;
    reference.push_back(toNDArray((*inputs)[i].a));
  }

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
  if (runShell(build) != 0) {
    std::fprintf(stderr, "moac check: building the kernel failed:\n%s\n%s", build.c_str(),
                 readFile(dir / "build.log").c_str());
    return 1;
  }
  std::string runCmd = quote(exe.string()) + " " + quote(dir.string());
  for (const TDim &d : typed->dims)
    if (!d.value)
      runCmd += " " + std::to_string(dims->at(d.sym));
  runCmd += " > " + quote((dir / "run.log").string()) + " 2>&1";
  if (runShell(runCmd) != 0) {
    std::fprintf(stderr, "moac check: running the kernel failed:\n%s", readFile(dir / "run.log").c_str());
    return 1;
  }

  std::vector<NDArray> expected;
  try {
    expected = interpret(*typed, *dims, reference);
  } catch (const EvalError &e) {
    diags.report(Diag::RunError, e.loc, e.what());
    return 1;
  }

  // tolerance: (terms + 1) rounding steps of the output's precision, relative to the largest magnitude
  double depth = reductionDepth(dnf, *dims);
  std::printf("moac check %s --target=%s --dims %s --seed %llu\n", opts.file.c_str(), targetName(opts.target),
              opts.dims.c_str(), (unsigned long long)opts.seed);
  bool pass = true;
  // The coarsest float of the kernel's data sets the rounding step: an f64 output computed from f32
  // inputs carries f32 rounding. Integers are exact.
  double eps = 0;
  for (const Buffer &b : kernel.buffers)
    eps = std::max(eps, b.elem == ElemType::F32 ? std::ldexp(1.0, -24) : b.elem == ElemType::F64 ? std::ldexp(1.0, -53) : 0.0);
  // Compares one array the kernel wrote with the reference; elements from `exactFrom` on (the rows of an
  // inout its update does not write) must be bit-identical.
  auto compare = [&](const std::string &file, const std::string &label, ElemType elem, const SymVec &shape,
                     const NDArray &want, size_t exactFrom) -> bool {
    OwnedArray got;
    char err[512] = "";
    std::string path = (dir / file).string();
    if (moart_read_array(path.c_str(), &got.a, err, sizeof err) != MOART_OK) {
      std::fprintf(stderr, "moac check: %s\n", err);
      return false;
    }
    NDArray actual = toNDArray(got.a);
    double scale = 1, worst = 0;
    for (double v : want.data)
      if (std::isfinite(v))
        scale = std::max(scale, std::fabs(v));
    // Elements where the reference is not finite (max/ over an empty axis is -inf, log 0 is -inf) must
    // match it exactly; every other element must be finite and within the tolerance.
    double tolerance = 4 * (elem == ElemType::Int ? 0 : eps) * (depth + 1) * scale;
    size_t bad = actual.data.size() == want.data.size() ? 0 : 1;
    size_t changed = 0;
    for (size_t j = 0; !bad && j < want.data.size(); ++j) {
      double a = actual.data[j], w = want.data[j];
      if (j >= exactFrom) {
        changed += !(a == w || (std::isnan(a) && std::isnan(w)));
        continue;
      }
      if (!std::isfinite(w)) {
        bad += !(a == w || (std::isnan(a) && std::isnan(w)));
        continue;
      }
      double d = std::isfinite(a) ? std::fabs(a - w) : std::numeric_limits<double>::infinity();
      worst = std::max(worst, d);
      bad += d > tolerance;
    }
    bool ok = bad == 0 && changed == 0;
    std::printf("  %s : %s%s  ‖err‖∞ = %.3g  (tolerance %.3g = 4·ε·(%g reduction terms + 1)·max|ref| %.3g)", label.c_str(),
                spell(elem), strShape(shape).c_str(), worst, tolerance, depth, scale);
    if (exactFrom < want.data.size())
      std::printf("; elements %zu… left unchanged: %s", exactFrom, changed == 0 ? "bit-identical" : "CHANGED");
    std::printf("  %s\n", ok ? "ok" : "FAIL");
    return ok;
  };
  std::vector<size_t> outs = kernel.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    const Buffer &buf = kernel.buffers[outs[i]];
    pass &= compare("out_" + buf.name + ".moarr", buf.name, buf.elem, buf.shape, expected[i], SIZE_MAX);
  }
  // Each updated inout's whole storage: the rows the update writes, and the rest unchanged.
  for (size_t u = 0; u < dnf.updates.size(); ++u) {
    const DnfArray &update = dnf.arrays[dnf.updates[u]];
    const DnfArray &in = dnf.arrays[*update.updates];
    int64_t written = product(update.shape).evaluate([&](Symbol s) { return dims->at(s); });
    pass &= compare("inout_" + in.name + ".moarr", in.name + " (inout, after its update)", in.elem, in.shape,
                    expected[outs.size() + u], size_t(written));
  }
  std::printf("%s", printTraffic(traffic, &*dims).c_str());
  if (keep)
    std::printf("kept the kernel, harness, inputs and outputs in %s\n", dir.c_str());
  std::printf("%s\n", pass ? "PASS" : "FAIL");
  return pass ? 0 : 1;
}

} // namespace moac
