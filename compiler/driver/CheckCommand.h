// `moac check FILE.moa --dims n=4096,dk=64,dv=64 [--target=T] [--seed S] [--cc CC] [--keep DIR]`:
// generates the kernel and a harness, builds them with the system C compiler, runs them on seeded
// inputs, runs the reference interpreter on the same inputs and compares every output (docs/cli.md).
#pragma once

#include "Diagnostics.h"
#include "Schedule.h"

#include <cstdint>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace moac {

struct CheckOptions {
  std::string file;
  std::string dims;
  uint64_t seed = 0;
  Target target = Target::C;
  std::string cc = "cc";
  std::string keep; // keep the generated files in this folder
  std::string schedule;
  std::vector<std::string> inputsRange; // "A,B" each: one comparison per range (docs/cli.md)
  std::string offload = "none"; // openacc: none (run on the host) or nvptx (GCC offload to NVIDIA GPUs)
  // cuda: the compiler and the GPU architecture it builds for (docs/cli.md)
  std::string nvcc;             // default: $MOAC_NVCC, else /usr/local/cuda/bin/nvcc when present, else nvcc
  std::string cudaArch = "sm_90";
  // Build here, run elsewhere: --no-run builds the harness and writes every input set into --keep DIR
  // (DIR/set1, DIR/set2, … and DIR/run.sh); --compare compares the outputs run.sh wrote there.
  bool noRun = false, compare = false;
  bool verbose = false;         // -v: each step and its time as it happens (StepLog.h)
  bool time = false;            // --time: the time of each kind of step at the end
  std::string arrayFormat = "moarr"; // the harness's input and output files: moarr or npy
};

// The exit status of `moac check --target=cuda` where no CUDA device is present: built, not run.
constexpr int exitNoDevice = 77;

CLI::App *addCheckCommand(CLI::App &app, CheckOptions &opts);
// Exit status: 0 every output within tolerance, 1 otherwise (or a build, run or program error), 2 usage,
// exitNoDevice for a CUDA check without a device.
int runCheckCommand(const CheckOptions &opts, const DiagnosticOptions &diagOpts);

} // namespace moac
