// The PyTorch operator around a generated kernel (`moac compile --torch FILE.cpp`, docs/pytorch.md): a C++
// extension source that registers torch.ops.moac.OP (OP: the kernel's name without its `moa_` prefix). It
// takes the inputs as tensors, reads each run-time dim from the first input axis whose extent is that dim
// (a dim no axis gives alone, such as kvcache's `t`, is an `int` argument after the tensors), checks
// every tensor's device, dtype, rank, contiguity and shape against the program's (TORCH_CHECK, naming the
// array and its .moa shape), allocates the outputs and the workspace, calls the kernel through its header
// and returns the outputs; an `inout` array is updated in place (`Tensor(a!)` in the schema).
#pragma once

#include "Emit.h"
#include "LoopIR.h"

#include <string>

namespace moac {

// The operator's name in torch.ops.moac: the kernel's C name without a leading `moa_`.
std::string torchOperatorName(const Kernel &kernel);

// The extension's C++ source; the kernel's header is included as inputs.headerName. Only for kernels
// whose inputs are row-major (the CPU targets' layout; the driver refuses --schedule layout=lifted).
std::string emitTorch(const Kernel &kernel, Target target, const EmitInputs &inputs);

} // namespace moac
