#include "Usage.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <llvm/ADT/StringRef.h>

#include <algorithm>
#include <cstdio>

namespace moac {

int usageError(const std::string &message) {
  std::fprintf(stderr, "moac: error: %s\n", message.c_str());
  return exitUsage;
}

int usageError(const std::string &message, const DiagnosticOptions &diagnostics) {
  if (!diagnostics.consumer)
    return usageError(message);
  diagnostics.consumer(DiagRecord{Severity::Error, "", 0, 0, message});
  return exitUsage;
}

// A typo is a few edits, case aside (`OpenMP` is `openmp` misspelt): at most a
// third of the letters (at least 2), and never the whole name (`-o` is no typo
// of `-x`).
std::optional<std::string> nearestName(std::string_view given, const std::vector<std::string> &known) {
  std::optional<std::string> best;
  unsigned bestDistance = 0;
  unsigned limit = std::max<unsigned>(2, unsigned(given.size() / 3));
  std::string lowerGiven = llvm::StringRef(given.data(), given.size()).lower();
  for (const std::string &name : known) {
    unsigned d = llvm::StringRef(llvm::StringRef(name).lower()).edit_distance(lowerGiven, true, limit + 1);
    if (d <= limit && d < given.size() && (!best || d < bestDistance)) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

std::string didYouMean(std::string_view given, const std::vector<std::string> &known) {
  std::optional<std::string> near = nearestName(given, known);
  return near ? fmt::format("; did you mean '{}'?", *near) : "";
}

CLI::Validator oneOf(std::vector<std::string> names) {
  std::string description = fmt::format("{{{}}}", fmt::join(names, ","));
  return CLI::Validator(
      [names](std::string &value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end())
          return {};
        return fmt::format("'{}' is not one of {}{}", value, fmt::join(names, ", "), didYouMean(value, names));
      },
      description);
}

void addTargetOption(CLI::App &cmd, Target &target, const std::string &description) {
  std::vector<std::string> names;
  for (Target t : allTargets())
    names.push_back(targetName(t));
  cmd.add_option_function<std::string>(
         "--target",
         [&target](const std::string &name) {
           for (Target t : allTargets())
             if (name == targetName(t))
               target = t;
         },
         description)
      ->check(oneOf(names));
}

namespace {

std::vector<std::string> subcommandNames(const CLI::App &app) {
  std::vector<std::string> names;
  for (const CLI::App *sub : app.get_subcommands([](const CLI::App *) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// Every spelling of every option of `app` ("-o", "--output", …).
void addOptionNames(const CLI::App &app, std::vector<std::string> &names) {
  for (const CLI::Option *opt : app.get_options()) {
    for (const std::string &s : opt->get_snames())
      names.push_back("-" + s);
    for (const std::string &l : opt->get_lnames())
      names.push_back("--" + l);
  }
}

// "unknown option '--emti' for 'moac compile'; did you mean '--emit'?" for the
// first argument left over.
std::string extrasMessage(const CLI::App &app) {
  std::vector<CLI::App *> parsed = app.get_subcommands();
  const CLI::App &owner = parsed.empty() ? app : *parsed.front();
  std::string command = parsed.empty() ? "moac" : "moac " + owner.get_name();
  std::vector<std::string> left = app.remaining(true);
  if (left.empty())
    return "unexpected arguments";
  const std::string &arg = left.front();
  if (arg.size() < 2 || arg[0] != '-')
    return fmt::format("unexpected argument '{}' for '{}'", arg, command);
  std::string name = arg.substr(0, arg.find('='));
  std::vector<std::string> known;
  addOptionNames(owner, known);
  if (&owner != &app)
    addOptionNames(app, known);
  return fmt::format("unknown option '{}' for '{}'{}", name, command, didYouMean(name, known));
}

} // namespace

std::optional<int> checkSubcommand(const CLI::App &app, const std::string &name) {
  std::vector<std::string> names = subcommandNames(app);
  if (std::find(names.begin(), names.end(), name) != names.end())
    return std::nullopt;
  std::string suggestion = didYouMean(name, names);
  return usageError(
      fmt::format("unknown subcommand '{}'{}", name,
                  suggestion.empty() ? fmt::format(" (expected {})", fmt::join(names, ", ")) : suggestion));
}

int reportParseError(const CLI::App &app, const CLI::ParseError &error) {
  if (dynamic_cast<const CLI::ExtrasError *>(&error))
    return usageError(extrasMessage(app));
  std::vector<CLI::App *> parsed = app.get_subcommands();
  if (dynamic_cast<const CLI::RequiredError *>(&error) && std::string(error.what()) == "file is required" &&
      !parsed.empty())
    return usageError(
        fmt::format("'moac {}' needs the program: a .moa file, or - for standard input", parsed.front()->get_name()));
  // CLI11's own messages ("Could not convert: --seed = abc") in LLVM's style:
  // lower-case first letter.
  std::string message = error.what();
  if (!message.empty() && message[0] >= 'A' && message[0] <= 'Z')
    message[0] = char(message[0] - 'A' + 'a');
  return usageError(message);
}

} // namespace moac
