#include "RunCommand.h"

#include "ArrayOps.h"
#include "Diagnostics.h"
#include "Interpreter.h"
#include "Pipeline.h"

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
constexpr int exitUsage = 2;
constexpr size_t maxSourceBytes = 64u << 20;

// A libmoart array that frees itself.
struct OwnedArray {
  moart_array a{};
  OwnedArray() = default;
  OwnedArray(const OwnedArray &) = delete;
  OwnedArray &operator=(const OwnedArray &) = delete;
  OwnedArray(OwnedArray &&other) noexcept : a(other.a) { other.a = moart_array{}; }
  ~OwnedArray() { moart_array_free(&a); }
};

moart_dtype dtypeOf(ElemType elem) {
  return elem == ElemType::F32 ? MOART_F32 : elem == ElemType::F64 ? MOART_F64 : MOART_I64;
}

NDArray toNDArray(const moart_array &a) {
  NDArray r{std::vector<int64_t>(a.shape, a.shape + a.rank), std::vector<double>(size_t(a.count))};
  for (int64_t i = 0; i < a.count; ++i) {
    if (a.dtype == MOART_F32)
      r.data[size_t(i)] = static_cast<const float *>(a.data)[i];
    else if (a.dtype == MOART_F64)
      r.data[size_t(i)] = static_cast<const double *>(a.data)[i];
    else
      r.data[size_t(i)] = double(static_cast<const int64_t *>(a.data)[i]);
  }
  return r;
}

// The result of an output as an f64 array, or i64 for an integer output.
moart_status fromNDArray(const NDArray &v, ElemType elem, OwnedArray &out) {
  if (v.shape.size() > MOART_MAX_RANK)
    return MOART_ERR_RANK;
  moart_dtype dtype = elem == ElemType::Int ? MOART_I64 : MOART_F64;
  moart_status st = moart_array_create(&out.a, dtype, int(v.shape.size()), v.shape.data());
  if (st != MOART_OK)
    return st;
  for (size_t i = 0; i < v.count(); ++i) {
    if (dtype == MOART_I64)
      static_cast<int64_t *>(out.a.data)[i] = int64_t(std::llround(v.data[i]));
    else
      static_cast<double *>(out.a.data)[i] = v.data[i];
  }
  return MOART_OK;
}

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

// --dims against the program's dims: every run-time dim bound, each positive, fixed ones unchanged.
std::optional<DimValues> bindDims(const TypedProgram &program, const std::vector<DimArg> &args,
                                  DiagnosticEngine &diags) {
  DimValues dims;
  unsigned errors = diags.errorCount();
  std::set<std::string> given;
  for (const DimArg &arg : args) {
    given.insert(arg.name);
    auto dim = std::find_if(program.dims.begin(), program.dims.end(),
                            [&](const TDim &d) { return d.name == arg.name; });
    if (dim == program.dims.end()) {
      diags.report(Diag::DimUnknown, SourceLoc{}, arg.name);
    } else if (dim->value) {
      if (*dim->value != arg.value) {
        diags.reportSpan(Diag::DimFixed, dim->loc, uint32_t(dim->name.size()), dim->name, *dim->value, arg.value);
      }
    } else if (arg.value < 1) {
      diags.report(Diag::DimNotPositive, SourceLoc{}, arg.name, arg.value);
    } else {
      dims[dim->sym] = arg.value;
    }
  }
  for (const TDim &d : program.dims)
    if (!d.value && !given.count(d.name))
      diags.reportSpan(Diag::DimMissing, d.loc, uint32_t(d.name.size()), d.name, d.name);
  if (diags.errorCount() != errors)
    return std::nullopt;
  return dims;
}

// Each input from DIR/<name>.moarr (its dtype and shape must be the declared ones) or from the seeded
// fill with stream = the input's declaration index.
std::optional<std::vector<OwnedArray>> makeInputs(const TypedProgram &program, const DimValues &dims,
                                                  const RunOptions &opts, DiagnosticEngine &diags) {
  std::vector<OwnedArray> arrays;
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const TInput &in = program.inputs[i];
    uint32_t length = uint32_t(in.name.size());
    Extents shape = concreteShape(in.shape, dims);
    elementCount(shape, At{in.loc, length});
    OwnedArray array;
    if (!opts.inputsDir.empty()) {
      std::string path = (std::filesystem::path(opts.inputsDir) / (in.name + ".moarr")).string();
      char err[512] = "";
      if (moart_read_array(path.c_str(), &array.a, err, sizeof err) != MOART_OK) {
        diags.reportSpan(Diag::InputFileError, in.loc, length, in.name, err);
        return std::nullopt;
      }
      if (array.a.dtype != dtypeOf(in.elem) || Extents(array.a.shape, array.a.shape + array.a.rank) != shape) {
        Type type{in.elem, in.shape, std::nullopt};
        diags.reportSpan(Diag::InputFileMismatch, in.loc, length, in.name, path, moart_dtype_name(array.a.dtype),
                         strExtents(Extents(array.a.shape, array.a.shape + array.a.rank)),
                         strType(type, opts.ascii), spell(in.elem), strExtents(shape));
        return std::nullopt;
      }
    } else {
      moart_status st = moart_array_create(&array.a, dtypeOf(in.elem), int(shape.size()), shape.data());
      if (st == MOART_OK)
        st = moart_fill_uniform(&array.a, opts.seed, uint64_t(i));
      if (st != MOART_OK) {
        diags.reportSpan(Diag::InputFileError, in.loc, length, in.name,
                         fmt::format("cannot make a {}{} array: {}", spell(in.elem), strExtents(shape),
                                     moart_status_string(st)));
        return std::nullopt;
      }
    }
    arrays.push_back(std::move(array));
  }
  return arrays;
}

bool writeArray(const std::string &dir, const std::string &name, const moart_array &a, DiagnosticEngine &diags) {
  std::string path = (std::filesystem::path(dir) / (name + ".moarr")).string();
  moart_status st = moart_write_array(path.c_str(), &a);
  if (st != MOART_OK)
    diags.report(Diag::CannotWrite, SourceLoc{}, path, moart_status_string(st));
  return st == MOART_OK;
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
  run->add_option("--inputs", opts.inputsDir, "read each input from DIR/<name>.moarr instead of generating it")
      ->option_text("DIR");
  run->add_option("--outputs", opts.outputsDir, "write every input and output to DIR/<name>.moarr")
      ->option_text("DIR");
  run->add_flag("--ascii", opts.ascii, "spell symbolic shapes in messages as <n dk> instead of ⟨n dk⟩");
  run->add_option("--color", opts.color, "colour diagnostics: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  // `moac --color never run …` means the same as `moac run --color never …`.
  run->callback([&app, &opts, run] {
    const CLI::Option *global = app.get_option_no_throw("--color");
    if (run->count("--color") == 0 && global && global->count() > 0)
      opts.color = global->as<std::string>();
  });
  return run;
}

int runRunCommand(const RunOptions &opts) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  diags.setColor(opts.color == "always" ? ColorMode::Always : opts.color == "never" ? ColorMode::Never
                                                                                      : ColorMode::Auto);
  auto parsed = parseDims(opts.dims);
  if (auto *message = std::get_if<std::string>(&parsed)) {
    std::fprintf(stderr, "--dims: %s\n", message->c_str());
    return exitUsage;
  }
  auto file = readSource(sources, diags, opts.file);
  if (!file)
    return exitUserError;
  std::optional<TypedProgram> program = typeCheck(sources, *file, diags);
  if (!program)
    return exitUserError;
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
      std::error_code ec;
      std::filesystem::create_directories(opts.outputsDir, ec);
      if (ec) {
        diags.report(Diag::CannotWrite, SourceLoc{}, opts.outputsDir, ec.message());
        return exitUserError;
      }
      for (size_t i = 0; i < arrays->size(); ++i)
        if (!writeArray(opts.outputsDir, program->inputs[i].name, (*arrays)[i].a, diags))
          return exitUserError;
    }
    std::vector<NDArray> outputs = interpret(*program, *dims, inputs);
    size_t k = 0;
    for (const auto &binding : program->bindings) {
      if (!binding->isOutput)
        continue;
      OwnedArray out;
      moart_status st = fromNDArray(outputs.at(k++), binding->value->type.elem, out);
      if (st == MOART_OK)
        st = moart_print_array(stdout, &out.a, binding->name.c_str());
      if (st != MOART_OK) {
        diags.reportSpan(Diag::RunError, binding->loc, uint32_t(binding->name.size()),
                         fmt::format("cannot print output '{}': {}", binding->name, moart_status_string(st)));
        return exitUserError;
      }
      if (!opts.outputsDir.empty() && !writeArray(opts.outputsDir, binding->name, out.a, diags))
        return exitUserError;
    }
  } catch (const EvalError &error) {
    diags.reportSpan(Diag::RunError, error.loc, error.length, error.what());
    return exitUserError;
  }
  return std::fflush(stdout) == 0 ? 0 : exitUserError;
}

} // namespace moac
