// The code generation targets: shared vocabulary of lowering (the schedule depends on the target), the
// emitters, the C verifier and the driver.
#pragma once

namespace moac {

enum class Target { C, OpenMP, OpenACC };

// The spelling of `--target=`: `c`, `openmp`, `openacc`.
const char *targetName(Target t);

} // namespace moac
