// `moac check` on one set of inputs: fill them from a range, run the built harness on them, evaluate the
// reference and compare every output against its rounding-error bounds (Tolerance.h).
#pragma once

#include "Dnf.h"
#include "StepLog.h"
#include "Lower.h"
#include "NDArray.h"
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
  std::filesystem::path dir; // where the harness reads its inputs and writes its outputs
  std::string runCommand;    // runs the harness (its output goes to dir/run.log)
  uint64_t seed;
  StepLog &steps;        // -v and --time
  std::string extension; // of the array files: ".moarr" or ".npy"
};

// Prints one line per output and updated inout; nullopt when the inputs, the run or the reference failed
// (already reported), else whether every comparison passed.
std::optional<bool> checkOnInputs(const CheckRun &run, const InputRange &range, DiagnosticEngine &diags);

} // namespace moac
