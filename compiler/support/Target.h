// The code generation targets: shared vocabulary of lowering (the schedule depends on the target), the
// emitters, the C verifier and the driver.
#pragma once

#include <vector>

namespace moac {

enum class Target { C, OpenMP, OpenACC, Cuda };

// Whether the target runs on a GPU (OpenACC offloads, CUDA): the schedule keeps the innermost index on
// adjacent lanes there, where a CPU walks rows.
inline bool isGpu(Target t) { return t == Target::OpenACC || t == Target::Cuda; }

// The spelling of `--target=`: `c`, `openmp`, `openacc`, `cuda`.
const char *targetName(Target t);

// Every target, in declaration order: what `--target=` accepts and --help lists.
std::vector<Target> allTargets();

} // namespace moac
