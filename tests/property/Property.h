// The property: the reference interpreter on the typed program and the DNF evaluator on its
// ψ-reduction agree on every output element to 1e-12 relative, |a − b| ≤ 1e-12·max(1, |a|, |b|),
// given the same dims and the same seeded inputs.
#pragma once

#include "TestInputs.h"

#include <optional>
#include <string>

namespace moac::property {

constexpr double tolerance = 1e-12;

struct Check {
  std::optional<std::string> failure; // what went wrong, or nothing
  size_t elements = 0;                 // output elements compared
};

// Type-checks `text`, binds `dims`, fills the inputs from `inputSeed` (as `moac run --seed` does), runs
// both evaluators and compares. `requireFinite`: a non-finite output is a failure too (generated
// programs keep their values bounded).
Check checkProgram(const std::string &fileName, const std::string &text, const testgen::DimChoice &dims,
                   uint64_t inputSeed, bool requireFinite);

// Writes a failing program where `moac run` can take it: DIR/NAME.moa, with the command line that
// reproduces the run in its first line. Returns the path.
std::string writeFailure(const std::string &name, const std::string &text, const testgen::DimChoice &dims,
                         uint64_t inputSeed, const std::string &failure);

// `# dims: n=3,m=2` lines of a regression file: one choice each.
std::vector<testgen::DimChoice> dimsFromComments(const std::string &text);

std::string readFile(const std::string &path);

} // namespace moac::property
