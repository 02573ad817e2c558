// `moac run FILE.moa --dims n=8,dk=4,dv=4 [--seed S] [--inputs DIR] [--outputs DIR] [--ascii]`:
// type-checks the program, binds its dims, makes its inputs (seeded fill, or DIR/<name>.moarr files),
// evaluates it with the reference interpreter and prints every output (docs/cli.md).
#pragma once

#include "Diagnostics.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace CLI {
class App;
}

namespace moac {

struct RunOptions {
  std::string file;
  std::string dims;       // "n=8,dk=4,dv=4"
  uint64_t seed = 0;      // for moart_fill_uniform; input k uses stream k
  std::string inputsDir;  // read DIR/<input>.npy or DIR/<input>.moarr instead of filling
  std::string outputsDir; // write DIR/<input>.EXT and DIR/<output>.EXT
  std::string arrayFormat = "moarr"; // EXT of the files written: moarr or npy
  bool ascii = false;
  bool exact = false;     // compute f32 values in f64 (InterpretOptions::exactFloats)
};

struct DimArg {
  std::string name;
  int64_t value;
};

// "n=8, dk=4": NAME=INTEGER items separated by commas, each name once. The pairs in order, or a message
// saying what is malformed. Values are not range-checked here (0 and -1 parse).
std::variant<std::vector<DimArg>, std::string> parseDims(std::string_view text);

// Registers the `run` subcommand on app; opts is filled when it is parsed. A malformed --dims is a
// CLI11 validation error, so it exits with the usage status like any other bad option.
CLI::App *addRunCommand(CLI::App &app, RunOptions &opts);

// Exit status: 0 success, 1 errors in the program, its dims, its inputs or during evaluation.
int runRunCommand(const RunOptions &opts, const DiagnosticOptions &diagOpts);

} // namespace moac
