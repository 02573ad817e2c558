#include "CheckInputs.h"

#include "DriverSupport.h"
#include "TemporaryFolder.h"
#include "Interpreter.h"
#include "Tolerance.h"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

namespace moac {

namespace fs = std::filesystem;

namespace {

std::optional<double> parseNumber(const std::string &text) {
  const char *begin = text.c_str();
  char *end = nullptr;
  errno = 0;
  double v = std::strtod(begin, &end);
  while (end && *end == ' ')
    ++end;
  if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Maps the [−1, 1) fill of every float input onto [lo, hi) and rounds it to the input's type.
void mapInto(moart_array &a, const InputRange &range) {
  double mid = range.lo / 2 + range.hi / 2, half = range.hi / 2 - range.lo / 2;
  for (int64_t i = 0; i < a.count; ++i) {
    if (a.dtype == MOART_F32) {
      float &x = static_cast<float *>(a.data)[i];
      x = float(mid + half * double(x));
    } else if (a.dtype == MOART_F64) {
      double &x = static_cast<double *>(a.data)[i];
      x = mid + half * x;
    } else if (a.dtype == MOART_BF16) {
      uint16_t &x = static_cast<uint16_t *>(a.data)[i];
      x = moart_f32_to_bf16(float(mid + half * double(moart_bf16_to_f32(x))));
    } else if (a.dtype == MOART_F16) {
      uint16_t &x = static_cast<uint16_t *>(a.data)[i];
      x = moart_f32_to_f16(float(mid + half * double(moart_f16_to_f32(x))));
    }
  }
}

// The set's inputs (written into *dir when given) and the reference's copy.
std::optional<std::vector<NDArray>> makeSet(const CheckRun &run, const InputRange &range, DiagnosticEngine &diags,
                                            const fs::path *dir) {
  RunOptions runOpts;
  runOpts.seed = run.seed;
  auto inputs = makeInputs(run.typed, run.dims, runOpts, diags);
  if (!inputs)
    return std::nullopt;
  std::vector<NDArray> reference;
  for (size_t i = 0; i < inputs->size(); ++i) {
    mapInto((*inputs)[i].a, range);
    if (dir && !writeArray(dir->string(), run.typed.inputs[i].name, run.extension, (*inputs)[i].a, diags))
      return std::nullopt;
    reference.push_back(toNDArray((*inputs)[i].a));
  }
  return reference;
}

} // namespace

std::optional<std::string> parseInputRanges(const std::vector<std::string> &specs, const TypedProgram &program,
                                            std::vector<InputRange> &out) {
  out.clear();
  bool f16 = false;
  for (const TInput &in : program.inputs)
    f16 |= in.elem == ElemType::F16;
  if (specs.empty()) {
    // wide values, within f16's range (largest finite 65504) when an input is f16
    double wide = f16 ? 256 : std::ldexp(1.0, 40);
    out = {InputRange{-1, 1}, InputRange{-wide, wide}};
    return std::nullopt;
  }
  bool f32 = false;
  for (const TInput &in : program.inputs)
    f32 |= in.elem == ElemType::F32 || in.elem == ElemType::BF16; // bf16 has f32's range
  for (const std::string &spec : specs) {
    size_t comma = spec.find(',');
    std::optional<double> lo, hi;
    if (comma != std::string::npos) {
      lo = parseNumber(spec.substr(0, comma));
      hi = parseNumber(spec.substr(comma + 1));
    }
    if (!lo || !hi)
      return fmt::format("'{}' is not two finite numbers A,B", spec);
    if (!(*lo < *hi))
      return fmt::format("'{}' is empty: A must be less than B", spec);
    double limit = std::numeric_limits<float>::max();
    if (f32 && (std::fabs(*lo) > limit || std::fabs(*hi) > limit))
      return fmt::format("'{}' leaves f32's range (|A|, |B| at most {:g})", spec, limit);
    if (f16 && (std::fabs(*lo) > 65504 || std::fabs(*hi) > 65504))
      return fmt::format("'{}' leaves f16's range (|A|, |B| at most 65504)", spec);
    out.push_back(InputRange{*lo, *hi});
  }
  return std::nullopt;
}

std::optional<std::vector<NDArray>> makeInputSet(const CheckRun &run, const InputRange &range, DiagnosticEngine &diags) {
  return makeSet(run, range, diags, nullptr);
}

std::optional<std::vector<NDArray>> writeInputs(const CheckRun &run, const InputRange &range, const fs::path &dir,
                                                DiagnosticEngine &diags) {
  return makeSet(run, range, diags, &dir);
}

std::string harnessCommand(const CheckRun &run, const fs::path &dir) {
  std::string cmd = shellQuote(run.harness) + " " + shellQuote(dir.string());
  for (const TDim &d : run.typed.dims)
    if (!d.value)
      cmd += " " + std::to_string(run.dims.at(d.sym));
  return cmd + " > " + shellQuote((dir / "run.log").string()) + " 2>&1";
}

std::optional<bool> compareOutputs(const CheckRun &run, const InputRange &range, const fs::path &dir,
                                   const std::vector<NDArray> &reference, DiagnosticEngine &diags) {
  std::vector<NDArray> expected;
  std::vector<OutputBounds> bounds;
  try {
    run.steps.begin("reference", "the interpreter and the error bounds on the same inputs");
    expected = interpret(run.typed, run.dims, reference);
    bounds = errorBounds(run.dnf, run.dims, reference);
    run.steps.end();
  } catch (const EvalError &e) {
    diags.report(Diag::RunError, e.loc, e.what());
    return std::nullopt;
  }
  std::printf(" inputs uniform in [%g, %g):\n", range.lo, range.hi);
  auto compare = [&](const std::string &file, const std::string &label, ElemType elem, const SymVec &shape,
                     size_t k) -> bool {
    OwnedArray got;
    char err[512] = "";
    std::string path = (dir / file).string();
    if (moart_read_array(path.c_str(), &got.a, err, sizeof err) != MOART_OK) {
      std::fprintf(stderr, "moac check: %s\n", err);
      return false;
    }
    Verdict v = compareWithBounds(toNDArray(got.a), expected[k], bounds[k], elem);
    std::printf("  %s : %s%s  %s  %s\n", label.c_str(), spell(elem), strShape(shape).c_str(), v.detail.c_str(),
                v.ok ? "ok" : "FAIL");
    return v.ok;
  };
  bool pass = true;
  run.steps.begin("compare", "every output against its bounds");
  std::vector<size_t> outs = run.kernel.outputs();
  for (size_t i = 0; i < outs.size(); ++i) {
    const Buffer &buf = run.kernel.buffers[outs[i]];
    pass &= compare("out_" + buf.name + run.extension, buf.name, buf.elem, buf.shape, i);
  }
  // Each updated inout's whole storage: the rows the update writes, and the rest unchanged.
  for (size_t u = 0; u < run.dnf.updates.size(); ++u) {
    const DnfArray &in = run.dnf.arrays[*run.dnf.arrays[run.dnf.updates[u]].updates];
    pass &= compare("inout_" + in.name + run.extension, in.name + " (inout, after its update)", in.elem, in.shape,
                    outs.size() + u);
  }
  run.steps.end();
  return pass;
}

std::optional<bool> checkOnInputs(const CheckRun &run, const InputRange &range, const fs::path &dir,
                                  DiagnosticEngine &diags, bool *noDevice) {
  auto reference = writeInputs(run, range, dir, diags);
  if (!reference)
    return std::nullopt;
  const std::string command = harnessCommand(run, dir);
  run.steps.begin("run", command);
  int status = runShell(command);
  run.steps.end();
  if (status == noDeviceStatus) {
    *noDevice = true;
    return std::nullopt;
  }
  if (status != 0) {
    std::fprintf(stderr, "moac check: running the kernel failed:\n%s", readText(dir / "run.log").c_str());
    return std::nullopt;
  }
  return compareOutputs(run, range, dir, *reference, diags);
}

} // namespace moac
