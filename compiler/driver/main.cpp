// moac: the command-line driver. Parses the command line (CLI11), reads the source, runs the pipeline
// to the requested stage and prints the result. Exit status: 0 success, 1 errors in the program,
// 2 usage errors, 70 internal errors (a bug in moac).
#include "Diagnostics.h"
#include "CheckCommand.h"
#include "DriverSupport.h"
#include "Explain.h"
#include "Pipeline.h"
#include "Psi.h"
#include "RunCommand.h"
#include "Version.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

namespace {

using namespace moac;

constexpr int exitUserError = 1;
constexpr int exitUsage = 2;
constexpr int exitInternal = 70;

struct Options {
  std::string color = "auto";
  std::string input;
  std::string output = "-";
  Stage emit = Stage::Code;
  bool ascii = false;
  Target target = Target::C;
  std::string header;   // --header OUT.h
  std::string schedule; // --schedule key=value,…
  std::string command;  // the command line, for generated files
};

bool writeOutput(const std::string &path, const std::string &text) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return std::fflush(stdout) == 0;
  }
  std::ofstream out(path, std::ios::binary);
  out << text;
  return bool(out);
}

ColorMode colorMode(const std::string &s) {
  return s == "always" ? ColorMode::Always : s == "never" ? ColorMode::Never : ColorMode::Auto;
}

int runCompile(const Options &opts) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.setColor(colorMode(opts.color));
  auto file = readSource(sources, diags, opts.input);
  if (!file)
    return exitUserError;
  CompileOptions options;
  options.emit = opts.emit;
  options.ascii = opts.ascii;
  options.target = opts.target;
  options.command = opts.command;
  if (auto problem = parseSchedule(opts.schedule, options.schedule)) {
    std::fprintf(stderr, "moac: --schedule: %s\n", problem->c_str());
    return exitUsage;
  }
  if (opts.emit == Stage::Code) {
    std::string headerName = opts.header.substr(opts.header.find_last_of('/') + 1);
    auto code = generateCode(sources, *file, diags, options, headerName);
    if (!code)
      return exitUserError;
    if (!writeOutput(opts.output, code->source) || (!opts.header.empty() && !writeOutput(opts.header, code->header))) {
      diags.report(Diag::CannotRead, SourceLoc{}, opts.output, "cannot write the output");
      return exitUserError;
    }
    return 0;
  }
  std::optional<std::string> result = compileToStage(sources, *file, diags, options);
  if (!result)
    return exitUserError;
  if (!writeOutput(opts.output, *result)) {
    diags.report(Diag::CannotRead, SourceLoc{}, opts.output, "cannot write the output");
    return exitUserError;
  }
  return 0;
}

// moac explain FILE: the derivation from the program to its DNF and the storage analysis.
int runExplain(const Options &opts) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.setColor(colorMode(opts.color));
  auto file = readSource(sources, diags, opts.input);
  if (!file)
    return exitUserError;
  std::optional<TypedProgram> typed = typeCheck(sources, *file, diags);
  if (!typed)
    return exitUserError;
  DnfProgram dnf = psiReduce(*typed);
  std::string text = explain(sources.file(*file), *typed, dnf);
  if (!writeOutput(opts.output, opts.ascii ? asciify(text) : text)) {
    diags.report(Diag::CannotRead, SourceLoc{}, opts.output, "cannot write the output");
    return exitUserError;
  }
  return 0;
}

int run(int argc, char **argv) {
  CLI::App app{"moac: a Mathematics-of-Arrays compiler from .moa programs to C/OpenMP/OpenACC kernels"};
  app.set_version_flag("--version", std::string("moac ") + moacVersion);
  app.require_subcommand(1);
  Options opts;
  app.add_option("--color", opts.color, "colour diagnostics: auto (TTY without NO_COLOR), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  CLI::App *compile = app.add_subcommand("compile", "compile FILE.moa (or - for standard input)");
  compile->add_option("file", opts.input, "the .moa program, or - for standard input")->required();
  compile->add_option("-o,--output", opts.output, "write the result here (default: standard output)");
  // In stage order, so that a bad value is answered with "bogus not in {tokens,ast,shapes,dnf}".
  const std::vector<std::pair<std::string, Stage>> stages{
      {"tokens", Stage::Tokens}, {"ast", Stage::Ast}, {"shapes", Stage::Shapes}, {"dnf", Stage::Dnf}, {"onf", Stage::Onf},
      {"code", Stage::Code}};
  std::vector<std::string> stageNames;
  for (const auto &stage : stages)
    stageNames.push_back(stage.first);
  compile
      ->add_option_function<std::string>(
          "--emit",
          [&](const std::string &name) {
            for (const auto &stage : stages)
              if (CLI::detail::to_lower(name) == stage.first)
                opts.emit = stage.second;
          },
          "stop after this stage and print it: tokens, ast, shapes, dnf, onf, code (the default)")
      ->check(CLI::IsMember(stageNames, CLI::ignore_case));
  compile->add_flag("--ascii", opts.ascii, "print ASCII <n dk> instead of Unicode ⟨n dk⟩");
  compile
      ->add_option("--target", opts.target, "c (sequential C99), openmp, openacc")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, Target>{{"c", Target::C}, {"openmp", Target::OpenMP}, {"openacc", Target::OpenACC}},
          CLI::ignore_case));
  compile->add_option("--header", opts.header, "also write the kernel's header (signature, workspace size) here");
  compile->add_option("--schedule", opts.schedule,
                      "override the schedule: threads=N,chunk=N,block=N,layout=auto|rowmajor|lifted "
                      "(docs/schedule.md)");
  compile->add_option("--color", opts.color, "colour diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  CLI::App *explainApp = app.add_subcommand("explain", "show the derivation of FILE.moa: ψ-rules, DNF, storage");
  explainApp->add_option("file", opts.input, "the .moa program, or - for standard input")->required();
  explainApp->add_option("-o,--output", opts.output, "write the explanation here (default: standard output)");
  explainApp->add_flag("--ascii", opts.ascii, "ASCII spellings instead of the paper's Unicode");
  explainApp->add_option("--color", opts.color, "colour diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  CheckOptions checkOpts;
  CLI::App *checkApp = addCheckCommand(app, checkOpts);
  RunOptions runOpts;
  CLI::App *runApp = addRunCommand(app, runOpts);

  // CLI11 answers a misspelt subcommand with "A subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    try {
      app.get_subcommand(argv[1]);
    } catch (const CLI::OptionNotFound &) {
      std::fprintf(stderr, "unknown subcommand '%s' (expected compile, explain or run)\n"
                           "Run with --help for more information.\n", argv[1]);
      return exitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return exitUsage;
  }
  if (checkApp->parsed())
    return runCheckCommand(checkOpts);
  if (runApp->parsed())
    return runRunCommand(runOpts);
  if (compile->parsed()) {
    opts.command = fmt::format("moac compile {} --target={}{}", opts.input, targetName(opts.target),
                               opts.schedule.empty() ? "" : " --schedule=" + opts.schedule);
    return runCompile(opts);
  }
  if (explainApp->parsed())
    return runExplain(opts);
  return exitUsage;
}

} // namespace

int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "moac: internal error: %s\nplease report this as a bug, with the input\n", e.what());
    return exitInternal;
  }
}
