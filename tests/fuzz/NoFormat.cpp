// Stands in for compiler/emit/CFormat.cpp in the fuzz binary: the emitted C is returned as it is, so that
// the fuzzer links without libclang-cpp (formatting is Clang's code, not moac's, and is not fuzzed).
#include "CFormat.h"

namespace moac {

std::string formatC(const std::string &code, const std::string &) { return code; }

std::string clangVersion() { return "none (fuzz build)"; }

} // namespace moac
