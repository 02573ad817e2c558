// The test harness `moac check` builds around a generated kernel: a C99 program that reads the kernel's
// inputs from .moarr files, stores lifted inputs in their lifted layout (moart_array_relayout), maps the
// arrays onto the device for OpenACC, calls the kernel and writes its outputs as .moarr files.
#pragma once

#include "LoopIR.h"
#include "Schedule.h"

#include <string>

namespace moac {

// Usage of the built program: `harness DIR dim1 dim2 …` (run-time dims in declaration order); inputs are
// DIR/<input>.moarr, outputs go to DIR/out_<output>.moarr, and every inout's storage after the run to
// DIR/inout_<input>.moarr. Exit 0, or non-zero with a message. With arrayExtension ".npy" the files are
// .npy instead (libmoart reads and writes by the extension).
std::string emitHarness(const Kernel &kernel, Target target, const std::string &headerName,
                        const std::string &arrayExtension = ".moarr");

} // namespace moac
