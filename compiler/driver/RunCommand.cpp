#include "RunCommand.h"

#include "DriverSupport.h"

#include "ArrayOps.h"
#include "Diagnostics.h"
#include "Interpreter.h"
#include "Outputs.h"
#include "Pipeline.h"
#include "Usage.h"

#include <moart/moart.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>

namespace moac {

namespace {

constexpr int exitUserError = 1;

bool validName(std::string_view s) {
  if (s.empty() || !(std::isalpha((unsigned char)s[0]) || s[0] == '_'))
    return false;
  for (char c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_'))
      return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace((unsigned char)s.front()))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace((unsigned char)s.back()))
    s.remove_suffix(1);
  return s;
}

// An updated inout's file: a name with a dot is no program name, so it never meets an input's or an
// output's NAME.moarr (the old `inout_NAME` met an input called inout_NAME).
std::string updatedFile(const std::string &inout) { return inout + ".updated"; }

std::vector<NamedPath> readFiles(const TypedProgram &program, const RunOptions &opts) {
  std::vector<NamedPath> files{{"the program", opts.file}};
  if (!opts.inputsDir.empty())
    for (const TInput &in : program.inputs)
      files.push_back({"input file", inputArrayPath(opts.inputsDir, in.name)});
  return files;
}

// What --outputs writes: the inputs' copies, then the results. An input copied onto the file it was read
// from (--inputs DIR --outputs DIR) writes the same bytes, so only the results are held against the
// input files; everything is held against the program and against each other.
std::optional<std::string> outputsClash(const TypedProgram &program, const RunOptions &opts) {
  std::vector<NamedPath> files, results;
  std::string ext = arrayExtension(opts.arrayFormat);
  for (const TInput &in : program.inputs)
    files.push_back({"output file", arrayPath(opts.outputsDir, in.name, ext)});
  for (const auto &binding : program.bindings)
    if (binding->isOutput)
      files.push_back({"output file", arrayPath(opts.outputsDir, binding->name, ext)});
  for (const auto &binding : program.bindings)
    if (binding->updates)
      files.push_back({"output file", arrayPath(opts.outputsDir, updatedFile(program.inputs[*binding->updates].name), ext)});
  results.assign(files.begin() + std::ptrdiff_t(program.inputs.size()), files.end());
  if (auto clash = outputClash(readFiles(program, opts), results))
    return clash;
  return outputClash({{"the program", opts.file}}, files);
}

} // namespace

std::variant<std::vector<DimArg>, std::string> parseDims(std::string_view text) {
  std::vector<DimArg> out;
  if (trim(text).empty())
    return out;
  std::set<std::string> seen;
  while (true) {
    size_t comma = text.find(',');
    std::string_view item = trim(text.substr(0, comma));
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return fmt::format("'{}' is not NAME=VALUE (expected e.g. n=8,dk=4)", item);
    std::string_view name = trim(item.substr(0, eq)), value = trim(item.substr(eq + 1));
    if (!validName(name))
      return fmt::format("'{}' is not a dim name", name);
    int64_t v = 0;
    auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (value.empty() || ec != std::errc() || end != value.data() + value.size())
      return fmt::format("the value of '{}' is '{}', not an integer", name, value);
    if (!seen.insert(std::string(name)).second)
      return fmt::format("dim '{}' is given twice", name);
    out.push_back(DimArg{std::string(name), v});
    if (comma == std::string_view::npos)
      return out;
    text.remove_prefix(comma + 1);
  }
}

CLI::App *addRunCommand(CLI::App &app, RunOptions &opts) {
  CLI::App *run = app.add_subcommand("run", "evaluate FILE.moa with the reference interpreter and print its outputs");
  run->add_option("file", opts.file, "the .moa program, or - for standard input")->required();
  run->add_option("--dims", opts.dims, "values of the run-time dims: NAME=N,NAME=N,…")
      ->check(
          [](const std::string &text) {
            auto parsed = parseDims(text);
            return std::holds_alternative<std::string>(parsed) ? std::get<std::string>(parsed) : std::string();
          },
          "NAME=N,...");
  run->add_option("--seed", opts.seed, "seed of the generated inputs (input k uses stream k; default 0)")
      ->option_text("S");
  run->add_option("--inputs", opts.inputsDir,
                  "read each input from DIR/<name>.npy or DIR/<name>.moarr instead of generating it")
      ->option_text("DIR");
  run->add_option("--outputs", opts.outputsDir, "write every input and output to DIR/<name>.moarr (or .npy)")
      ->option_text("DIR");
  run->add_option("--array-format", opts.arrayFormat, "the format of the files --outputs writes: moarr (the "
                  "default) or npy (NumPy's, for np.load)")
      ->check(oneOf({"moarr", "npy"}));
  run->add_flag("--exact", opts.exact,
                "compute every f32 value in f64: the program's value without f32 rounding (a float64 reference)");
  run->add_flag("--ascii", opts.ascii, "spell symbolic shapes in messages as <n dk> instead of ⟨n dk⟩");
  return run;
}

int runRunCommand(const RunOptions &opts, const DiagnosticOptions &diagOpts) {
  CompilationContext ctx; // this compilation's sources and symbols
  SourceManager &sources = ctx.sources;
  DiagnosticEngine diags(sources);
  diags.configure(diagOpts);
  auto parsed = parseDims(opts.dims);
  if (auto *message = std::get_if<std::string>(&parsed))
    return usageError("--dims: " + *message, diagOpts);
  auto file = readSource(sources, diags, opts.file);
  if (!file)
    return exitUserError;
  // Through the shapes (runPipeline also checks an update's reads of its own inout, which the interpreter
  // relies on).
  CompileOptions pipeline;
  pipeline.stopAfter = Stage::Shapes;
  Compilation compiled = runPipeline(ctx, *file, diags, pipeline);
  if (!compiled.ok())
    return exitUserError;
  const std::optional<TypedProgram> &program = compiled.typed;
  std::optional<DimValues> dims = bindDims(*program, std::get<std::vector<DimArg>>(parsed), diags);
  if (!dims)
    return exitUserError;
  try {
    std::optional<std::vector<OwnedArray>> arrays = makeInputs(*program, *dims, opts, diags);
    if (!arrays)
      return exitUserError;
    std::vector<NDArray> inputs;
    for (const OwnedArray &array : *arrays)
      inputs.push_back(toNDArray(array.a));
    if (!opts.outputsDir.empty()) {
      if (auto clash = outputsClash(*program, opts))
        return usageError(*clash, diagOpts);
      std::error_code ec;
      std::filesystem::create_directories(opts.outputsDir, ec);
      if (ec) {
        diags.report(Diag::CannotWrite, SourceLoc{}, opts.outputsDir, ec.message());
        return exitUserError;
      }
      for (size_t i = 0; i < arrays->size(); ++i)
        if (!writeArray(opts.outputsDir, program->inputs[i].name, arrayExtension(opts.arrayFormat), (*arrays)[i].a,
                        diags))
          return exitUserError;
    }
    InterpretOptions interpretOptions;
    interpretOptions.exactFloats = opts.exact;
    std::vector<NDArray> outputs = interpret(*program, *dims, inputs, interpretOptions);
    // Prints one result (and writes it to the outputs folder as FILE.moarr); false after a diagnostic.
    auto show = [&](const NDArray &value, ElemType elem, const std::string &name, const std::string &file,
                    const char *what, const TBinding &binding) {
      OwnedArray out;
      moart_status st = fromNDArray(value, elem, out);
      if (st == MOART_OK)
        st = moart_print_array(stdout, &out.a, name.c_str());
      if (st != MOART_OK) {
        diags.reportSpan(Diag::RunError, binding.loc, uint32_t(binding.name.size()),
                         fmt::format("cannot print {} '{}': {}", what, name, moart_status_string(st)));
        return false;
      }
      return opts.outputsDir.empty() || writeArray(opts.outputsDir, file, arrayExtension(opts.arrayFormat), out.a, diags);
    };
    // the outputs in `out` order, then each updated inout's storage after its update, under the inout's name
    size_t k = 0;
    for (const auto &binding : program->bindings)
      if (binding->isOutput &&
          !show(outputs.at(k++), binding->stored(), binding->name, binding->name, "output", *binding))
        return exitUserError;
    for (const auto &binding : program->bindings) {
      if (!binding->updates)
        continue;
      const TInput &in = program->inputs[*binding->updates];
      if (!show(outputs.at(k++), in.elem, in.name, updatedFile(in.name), "inout", *binding))
        return exitUserError;
    }
  } catch (const EvalError &error) {
    diags.reportSpan(Diag::RunError, error.loc, error.length, error.what());
    return exitUserError;
  }
  return std::fflush(stdout) == 0 ? 0 : exitUserError;
}

} // namespace moac
