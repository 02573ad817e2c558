// What the driver's commands share: reading a source file, binding --dims, making seeded inputs,
// and converting between libmoart arrays and the evaluators' NDArrays.
#pragma once

#include "Diagnostics.h"
#include "NDArray.h"
#include "RunCommand.h"
#include "Typed.h"

#include <moart/moart.h>

#include <optional>
#include <string>
#include <vector>

namespace moac {

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

moart_dtype dtypeOf(ElemType elem);
NDArray toNDArray(const moart_array &a);
// The result of an output as an f64 array, or i64 for an integer output.
moart_status fromNDArray(const NDArray &v, ElemType elem, OwnedArray &out);
// Reads FILE or standard input ("-"); an unreadable file is a user error with a diagnostic.
std::optional<uint32_t> readSource(SourceManager &sources, DiagnosticEngine &diags, const std::string &path);
// --dims against the program's dims: every run-time dim bound, each positive, fixed ones unchanged.
std::optional<DimValues> bindDims(const TypedProgram &program, const std::vector<DimArg> &args,
                                  DiagnosticEngine &diags);
// Whether a run-time shape guard holds for these dims, as the kernel decides it: a guard whose sides
// overflow int64 does not hold (the kernel returns MOART_ERR_SHAPE for it, docs/abi.md).
bool guardHolds(const Guard &guard, const DimValues &dims);
// Each input from DIR/<name>.npy or DIR/<name>.moarr (opts.inputsDir) or from the seeded fill, stream =
// declaration index.
std::optional<std::vector<OwnedArray>> makeInputs(const TypedProgram &program, const DimValues &dims,
                                                  const RunOptions &opts, DiagnosticEngine &diags);
// `--array-format moarr|npy` of moac run and moac check: the extension of the files they write (".moarr",
// ".npy"), which libmoart's reader and writer go by.
std::string arrayExtension(const std::string &format);
// DIR/FILE.EXT (EXT from arrayExtension), the array file `moac run --outputs` and the check harness use.
std::string arrayPath(const std::string &dir, const std::string &file, const std::string &extension);
// The file `moac run --inputs DIR` reads for input NAME: DIR/NAME.npy when it exists, else DIR/NAME.moarr.
std::string inputArrayPath(const std::string &dir, const std::string &name);
// Writes DIR/FILE.EXT atomically and only when its bytes change; a failure is a Diag::CannotWrite.
bool writeArray(const std::string &dir, const std::string &file, const std::string &extension, const moart_array &a,
                DiagnosticEngine &diags);

// libmoart's headers and static library, which `moac check` builds against and `--verify-output` parses
// with: beside the executable when moac runs installed (PREFIX/bin/moac: PREFIX/include and
// PREFIX/lib/libmoart.a), else the build tree moac was built in.
struct RuntimePaths {
  std::string includeDir, library;
};
RuntimePaths runtimePaths();

// A make-style dependency file: `targets: deps` on one line, each path escaped for make (space, '#',
// '$'), as compilers write for -MD. The deps are every file the source manager read.
std::string depfileText(const std::vector<std::string> &targets, const SourceManager &sources);

} // namespace moac
