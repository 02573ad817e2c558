// moac: the command-line driver. Parses the command line (CLI11), reads the source, runs the pipeline
// to the requested stage and prints the result. Exit status: 0 success, 1 errors in the program,
// 2 usage errors, 70 internal errors (a bug in moac).
#include "Diagnostics.h"
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
constexpr size_t maxSourceBytes = 64u << 20;

struct Options {
  std::string color = "auto";
  std::string input;
  std::string output = "-";
  Stage emit = Stage::Shapes;
  bool ascii = false;
};

// Reads FILE or standard input ("-"); an unreadable file is a user error with a diagnostic.
std::optional<uint32_t> readSource(SourceManager &sources, DiagnosticEngine &diags, const std::string &path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      diags.report(Diag::CannotRead, SourceLoc{}, path, std::strerror(errno));
      return std::nullopt;
    }
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) {
      diags.report(Diag::CannotRead, SourceLoc{}, path, "read error");
      return std::nullopt;
    }
  }
  if (text.size() > maxSourceBytes) {
    diags.report(Diag::SourceTooLarge, SourceLoc{}, maxSourceBytes);
    return std::nullopt;
  }
  return sources.add(path == "-" ? "<stdin>" : path, std::move(text));
}

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
  std::map<std::string, Stage> stages{{"tokens", Stage::Tokens}, {"ast", Stage::Ast}, {"shapes", Stage::Shapes}, {"dnf", Stage::Dnf}};
  compile->add_option("--emit", opts.emit, "stop after this stage and print it: tokens, ast, shapes, dnf")
      ->transform(CLI::CheckedTransformer(stages, CLI::ignore_case));
  compile->add_flag("--ascii", opts.ascii, "print ASCII <n dk> instead of Unicode ⟨n dk⟩");
  compile->add_option("--color", opts.color, "colour diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  CLI::App *explainApp = app.add_subcommand("explain", "show the derivation of FILE.moa: ψ-rules, DNF, storage");
  explainApp->add_option("file", opts.input, "the .moa program, or - for standard input")->required();
  explainApp->add_option("-o,--output", opts.output, "write the explanation here (default: standard output)");
  explainApp->add_flag("--ascii", opts.ascii, "ASCII spellings instead of the paper's Unicode");
  explainApp->add_option("--color", opts.color, "colour diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));

  RunOptions runOpts;
  CLI::App *runApp = addRunCommand(app, runOpts);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    app.exit(e);
    return exitUsage;
  }
  if (runApp->parsed())
    return runRunCommand(runOpts);
  if (compile->parsed())
    return runCompile(opts);
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
