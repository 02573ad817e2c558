// `moac check` on one set of inputs: fill them from a range, run the built harness on them, evaluate the
// reference and compare every output against its rounding-error bounds (Tolerance.h).
#pragma once

#include "Dnf.h"
#include "Lower.h"
#include "NDArray.h"
#include "StepLog.h"
#include "Typed.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace moac {

class DiagnosticEngine;

// Float inputs are uniform in [lo, hi): the seeded fill in [−1, 1) mapped affinely (integers keep theirs).
struct InputRange {
  double lo = -1, hi = 1;
};

// Parses the --inputs-range values ("A,B" each); none gives the default sets, [−1, 1) and
// [−2⁴⁰, 2⁴⁰). Returns a message for a usage error.
std::optional<std::string> parseInputRanges(const std::vector<std::string> &specs, const TypedProgram &program,
                                            std::vector<InputRange> &out);

struct CheckRun {
  const TypedProgram &typed;
  const DnfProgram &dnf;
  const Kernel &kernel;
  const DimValues &dims;
  std::string harness; // the built harness: `harness DIR dims…` reads DIR's inputs, writes its outputs
  uint64_t seed;
  StepLog &steps;        // -v and --time
  std::string extension; // of the array files: ".moarr" or ".npy"
};

// The exit status of a CUDA harness on a machine without a CUDA device (docs/cli.md).
constexpr int noDeviceStatus = 77;

// The inputs of one set, seeded and mapped into `range`, written into `dir` for the harness; the reference's
// copy of them, or nullopt after an error (reported).
std::optional<std::vector<NDArray>> writeInputs(const CheckRun &run, const InputRange &range,
                                                const std::filesystem::path &dir, DiagnosticEngine &diags);
// The same inputs, not written (to compare outputs a harness wrote elsewhere).
std::optional<std::vector<NDArray>> makeInputSet(const CheckRun &run, const InputRange &range, DiagnosticEngine &diags);
// The shell command that runs the harness on the set in `dir` (its output to dir/run.log).
std::string harnessCommand(const CheckRun &run, const std::filesystem::path &dir);
// Compares the outputs the harness wrote into `dir` with the reference on `inputs`: one line per output
// and updated inout; nullopt when the reference failed (reported), else whether every comparison passed.
std::optional<bool> compareOutputs(const CheckRun &run, const InputRange &range, const std::filesystem::path &dir,
                                   const std::vector<NDArray> &inputs, DiagnosticEngine &diags);

// All three on one set in `dir`: nullopt when the inputs, the run or the reference failed (reported; a
// harness without its device sets *noDevice), else whether every comparison passed.
std::optional<bool> checkOnInputs(const CheckRun &run, const InputRange &range, const std::filesystem::path &dir,
                                  DiagnosticEngine &diags, bool *noDevice);

} // namespace moac
