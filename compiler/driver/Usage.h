// Usage errors, in one style for every subcommand: `moac: error: MESSAGE` on
// standard error and exit status 2, with a "did you mean" for a misspelt
// subcommand, option or option value (docs/cli.md).
#pragma once

#include "Diagnostics.h"

#include "Target.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class ParseError;
class Validator;
} // namespace CLI

namespace moac {

constexpr int exitUsage = 2;

// Prints `moac: error: MESSAGE` and returns exitUsage.
int usageError(const std::string &message);
// The same, for a command whose diagnostics options are known: with --diagnostics-format=json the error is
// an element of the array (no file, line or column) instead of the text line.
int usageError(const std::string &message, const DiagnosticOptions &diagnostics);

// The known name nearest to `given` by edit distance, when it is near enough to
// be a typo of it.
std::optional<std::string> nearestName(std::string_view given, const std::vector<std::string> &known);
// "; did you mean 'NAME'?" for the nearest known name, or "".
std::string didYouMean(std::string_view given, const std::vector<std::string> &known);

// An option value that must be one of `names`, spelt exactly so (`--target=2`
// or `--target=OpenMP` are refused): "'opnemp' is not one of c, openmp,
// openacc; did you mean 'openmp'?".
CLI::Validator oneOf(std::vector<std::string> names);

// `--target NAME` on cmd, by name only, for every target of compiler/support
// (allTargets).
void addTargetOption(CLI::App &cmd, Target &target, const std::string &description);

// A subcommand name that is not one of app's: the usage error with a
// suggestion; nullopt when `name` names a subcommand.
std::optional<int> checkSubcommand(const CLI::App &app, const std::string &name);

// CLI11's parse error as a usage error: an unknown option gets the nearest
// option of its subcommand;
// --help and --version print as CLI11 prints them (exit 0).
int reportParseError(const CLI::App &app, const CLI::ParseError &error);

} // namespace moac
