// The code generation targets: shared vocabulary of lowering (the schedule depends on the target), the
// emitters, the C verifier and the driver.
#pragma once

#include <vector>

namespace moac {

enum class Target { C, OpenMP, OpenACC };

// The spelling of `--target=`: `c`, `openmp`, `openacc`.
const char *targetName(Target t);

// Every target, in declaration order: what `--target=` accepts and --help lists.
std::vector<Target> allTargets();

} // namespace moac
