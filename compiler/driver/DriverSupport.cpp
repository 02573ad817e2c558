#include "DriverSupport.h"

#include "ArrayOps.h"
#include "Interpreter.h"
#include "Outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

namespace moac {

namespace fs = std::filesystem;

RuntimePaths runtimePaths() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path prefix = exe.parent_path().parent_path();
    fs::path include = prefix / MOAC_INSTALL_INCLUDEDIR;
    fs::path library = prefix / MOAC_INSTALL_LIBDIR / "libmoart.a";
    if (exe.parent_path().filename() == MOAC_INSTALL_BINDIR && fs::exists(include / "moart" / "kernel.h", ec) &&
        fs::exists(library, ec))
      return {include.string(), library.string()};
  }
  return {MOAC_RUNTIME_INCLUDE_DIR, MOAC_RUNTIME_LIBRARY};
}

namespace {
std::string makeEscape(const std::string &path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '#')
      out += '\\';
    if (c == '$')
      out += '$';
    out += c;
  }
  return out;
}
} // namespace

std::string depfileText(const std::vector<std::string> &targets, const SourceManager &sources) {
  std::string out;
  for (const std::string &t : targets)
    out += (out.empty() ? "" : " ") + makeEscape(t);
  out += ":";
  for (uint32_t id = 1; id <= sources.fileCount(); ++id)
    if (sources.file(id).name != "<stdin>")
      out += " " + makeEscape(sources.file(id).name);
  return out + "\n";
}


moart_dtype dtypeOf(ElemType elem) {
  switch (elem) {
  case ElemType::F32: return MOART_F32;
  case ElemType::F64: return MOART_F64;
  case ElemType::BF16: return MOART_BF16;
  case ElemType::F16: return MOART_F16;
  case ElemType::I32: return MOART_I32;
  case ElemType::Int: break;
  }
  return MOART_I64;
}

NDArray toNDArray(const moart_array &a) {
  NDArray r{std::vector<int64_t>(a.shape, a.shape + a.rank), std::vector<double>(size_t(a.count))};
  r.elem = a.dtype == MOART_F32    ? ElemType::F32
           : a.dtype == MOART_F64  ? ElemType::F64
           : a.dtype == MOART_BF16 ? ElemType::BF16
           : a.dtype == MOART_F16  ? ElemType::F16
                                   : ElemType::Int;
  if (a.dtype == MOART_I32) // an i32 array computes as int: its values, widened
    r.ints.assign(static_cast<const int32_t *>(a.data), static_cast<const int32_t *>(a.data) + a.count);
  else if (r.elem == ElemType::Int)
    r.ints.assign(static_cast<const int64_t *>(a.data), static_cast<const int64_t *>(a.data) + a.count);
  for (int64_t i = 0; i < a.count; ++i) {
    if (a.dtype == MOART_F32)
      r.data[size_t(i)] = static_cast<const float *>(a.data)[i];
    else if (a.dtype == MOART_BF16)
      r.data[size_t(i)] = moart_bf16_to_f32(static_cast<const uint16_t *>(a.data)[i]);
    else if (a.dtype == MOART_F16)
      r.data[size_t(i)] = moart_f16_to_f32(static_cast<const uint16_t *>(a.data)[i]);
    else if (a.dtype == MOART_F64)
      r.data[size_t(i)] = static_cast<const double *>(a.data)[i];
    else
      r.data[size_t(i)] = double(r.ints[size_t(i)]);
  }
  return r;
}

// The result of an output as an f64 array, or i64 (i32 for an i32 output) for an integer output.
moart_status fromNDArray(const NDArray &v, ElemType elem, OwnedArray &out) {
  if (v.shape.size() > MOART_MAX_RANK)
    return MOART_ERR_RANK;
  moart_dtype dtype = elem == ElemType::I32 ? MOART_I32 : elem == ElemType::Int ? MOART_I64 : MOART_F64;
  moart_status st = moart_array_create(&out.a, dtype, int(v.shape.size()), v.shape.data());
  if (st != MOART_OK)
    return st;
  for (size_t i = 0; i < v.count(); ++i) {
    if (dtype == MOART_I32) // the interpreter checked that the stored values fit
      static_cast<int32_t *>(out.a.data)[i] = int32_t(v.elem == ElemType::Int ? v.ints[i] : std::llround(v.data[i]));
    else if (dtype == MOART_I64)
      static_cast<int64_t *>(out.a.data)[i] = v.elem == ElemType::Int ? v.ints[i] : int64_t(std::llround(v.data[i]));
    else
      static_cast<double *>(out.a.data)[i] = v.data[i];
  }
  return MOART_OK;
}

std::optional<uint32_t> readSource(SourceManager &sources, DiagnosticEngine &diags, const std::string &path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    // A folder opens as a stream on Linux and fails only at the first read, as an exception.
    if (std::error_code ec; fs::is_directory(path, ec)) {
      diags.report(Diag::CannotRead, SourceLoc{}, path, "it is a directory");
      return std::nullopt;
    }
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

// --dims against the program's dims: every run-time dim bound, each at least its least value (1, or as
// `dim t >= 0` declares), fixed ones unchanged.
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
    } else if (arg.value < dim->least) {
      if (dim->least == 1)
        diags.report(Diag::DimNotPositive, SourceLoc{}, arg.name, arg.value);
      else
        diags.reportSpan(Diag::DimBelowLeast, dim->loc, uint32_t(dim->name.size()), dim->name, dim->least, arg.value);
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

bool guardHolds(const Guard &guard, const DimValues &dims) {
  try {
    return guard.holds([&](Symbol s) { return dims.at(s); });
  } catch (const SymArithmeticError &) {
    return false;
  }
}

// An index array's seeded integers folded into [0, bound), the least extent of the axes it indexes, so that
// every gather reads in range (docs/cli.md): v mod bound.
static void foldIndices(moart_array &a, int64_t bound) {
  for (int64_t i = 0; i < a.count; ++i) {
    if (a.dtype == MOART_I32) {
      int32_t &x = static_cast<int32_t *>(a.data)[i];
      x = int32_t(((int64_t(x) % bound) + bound) % bound);
    } else if (a.dtype == MOART_I64) {
      int64_t &x = static_cast<int64_t *>(a.data)[i];
      x = ((x % bound) + bound) % bound;
    }
  }
}

// Each input from DIR/<name>.npy or .moarr (its dtype and shape must be the declared ones) or from the
// seeded fill with stream = the input's declaration index.
std::optional<std::vector<OwnedArray>> makeInputs(const TypedProgram &program, const DimValues &dims,
                                                  const RunOptions &opts, DiagnosticEngine &diags) {
  std::vector<OwnedArray> arrays;
  const std::map<size_t, SymVec> indexArrays = gatherBounds(program);
  for (size_t i = 0; i < program.inputs.size(); ++i) {
    const TInput &in = program.inputs[i];
    uint32_t length = uint32_t(in.name.size());
    // An extent that overflows int64, or a count past the interpreter's limit, is an error located at the
    // input's declaration (moac check reached it as an uncaught EvalError: an internal error).
    Extents shape;
    try {
      shape = concreteShape(in.shape, dims);
      elementCount(shape, At{in.loc, length});
    } catch (const EvalError &error) {
      diags.reportSpan(Diag::RunError, in.loc, length, error.what());
      return std::nullopt;
    }
    OwnedArray array;
    if (!opts.inputsDir.empty()) {
      std::string path = inputArrayPath(opts.inputsDir, in.name);
      char err[512] = "";
      if (std::error_code ec; path.size() > 4 && path.substr(path.size() - 4) == ".npy" &&
                              fs::exists(arrayPath(opts.inputsDir, in.name, ".moarr"), ec)) {
        diags.reportSpan(Diag::InputFileError, in.loc, length, in.name,
                         fmt::format("both {} and {} exist: remove one", path,
                                     arrayPath(opts.inputsDir, in.name, ".moarr")));
        return std::nullopt;
      }
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
      // an index array's fill folded into the least extent it indexes, so that every gather is in range
      if (auto it = indexArrays.find(i); st == MOART_OK && it != indexArrays.end()) {
        std::vector<int64_t> bounds = concreteShape(it->second, dims);
        if (int64_t least = *std::min_element(bounds.begin(), bounds.end()); least > 0)
          foldIndices(array.a, least);
      }
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

std::string arrayExtension(const std::string &format) { return "." + format; }

std::string arrayPath(const std::string &dir, const std::string &file, const std::string &extension) {
  return (std::filesystem::path(dir) / (file + extension)).string();
}

std::string inputArrayPath(const std::string &dir, const std::string &name) {
  std::error_code ec;
  std::string npy = arrayPath(dir, name, ".npy");
  return fs::exists(npy, ec) ? npy : arrayPath(dir, name, ".moarr");
}

// Through a temporary file beside the target, renamed over it unless the bytes are the same (Outputs.h).
bool writeArray(const std::string &dir, const std::string &file, const std::string &extension, const moart_array &a,
                DiagnosticEngine &diags) {
  std::string path = arrayPath(dir, file, extension), temporary;
  std::optional<std::string> problem = makeTemporaryBeside(path, temporary);
  if (!problem) {
    // in the target's format: the temporary's name does not end in it
    moart_status st = extension == ".npy" ? moart_write_npy(temporary.c_str(), &a)
                                          : moart_write_moarr(temporary.c_str(), &a);
    if (st != MOART_OK) {
      std::remove(temporary.c_str());
      problem = moart_status_string(st);
    } else {
      problem = commitFile(temporary, path);
    }
  }
  if (problem)
    diags.report(Diag::CannotWrite, SourceLoc{}, path, *problem);
  return !problem;
}

} // namespace moac
