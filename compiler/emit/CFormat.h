// Clang's libTooling, in process: clang::format for the emitted C (LLVM style, so generated/ reads like
// code a person wrote). Kept to this one translation unit: Clang's headers are slow to compile.
#pragma once

#include <string>

namespace moac {

// Reformats C source; returns the input unchanged if clang::format reports an error.
std::string formatC(const std::string &code, const std::string &fileName);

// "clang version 14.0.6"
std::string clangVersion();

} // namespace moac
