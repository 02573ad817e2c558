// Helpers for the interpreter tests: type-check a source text (diagnostics captured as plain text),
// bind dims by name, build arrays, and run the interpreter.
#pragma once

#include "Interpreter.h"
#include "Pipeline.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace moac::test {

// Dims by name: bound to a program's symbols by Checked::bind, since every compilation has its own.
using NamedDims = std::map<std::string, int64_t>;

inline DimValues bindIn(SymbolTable &symbols, const NamedDims &named) {
  DimValues out;
  for (const auto &[name, value] : named)
    out[symbols.intern(name)] = value;
  return out;
}

struct Checked {
  std::shared_ptr<CompilationContext> ctx = std::make_shared<CompilationContext>(); // first: outlives program
  DimValues bind(const NamedDims &named) const { return bindIn(ctx->symbols, named); }
  std::optional<TypedProgram> program;
  std::string diags;
};

inline Checked check(const std::string &text) {
  Checked out;
  uint32_t file = out.ctx->sources.add("t.moa", text);
  DiagnosticEngine engine(out.ctx->sources);
  engine.setColor(ColorMode::Never);
  engine.captureInto(&out.diags);
  out.program = typeCheck(*out.ctx, file, engine);
  return out;
}

inline std::string readFile(const std::string &path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline NamedDims dims(std::initializer_list<std::pair<const char *, int64_t>> values) {
  NamedDims out;
  for (const auto &[name, value] : values)
    out[name] = value;
  return out;
}

inline NDArray array(std::vector<int64_t> shape, std::vector<double> data) {
  return NDArray{std::move(shape), std::move(data)};
}

// 0, 1, 2, … in row-major order.
inline NDArray counting(std::vector<int64_t> shape) {
  NDArray a{std::move(shape), {}};
  int64_t n = 1;
  for (int64_t s : a.shape)
    n *= s;
  for (int64_t i = 0; i < n; ++i)
    a.data.push_back(double(i));
  return a;
}

// The EvalError that interpreting text throws.
inline EvalError evalError(const std::string &text, const NamedDims &d = {}, const std::vector<NDArray> &inputs = {}) {
  Checked c = check(text);
  INFO(c.diags);
  REQUIRE(c.program);
  try {
    interpret(*c.program, c.bind(d), inputs);
  } catch (const EvalError &e) {
    return e;
  }
  FAIL("no EvalError");
  return EvalError("", SourceLoc{});
}

// Type-checks text (which must succeed) and returns every output.
inline std::vector<NDArray> runAll(const std::string &text, const NamedDims &d = {},
                                   const std::vector<NDArray> &inputs = {}, const InterpretOptions &options = {}) {
  Checked c = check(text);
  INFO(c.diags);
  REQUIRE(c.program);
  return interpret(*c.program, c.bind(d), inputs, options);
}

// The first output.
inline NDArray run(const std::string &text, const NamedDims &d = {}, const std::vector<NDArray> &inputs = {},
                   const InterpretOptions &options = {}) {
  std::vector<NDArray> outputs = runAll(text, d, inputs, options);
  REQUIRE(!outputs.empty());
  return outputs[0];
}

} // namespace moac::test

namespace Catch {
template <> struct StringMaker<moac::NDArray> {
  static std::string convert(const moac::NDArray &a) {
    std::string out = "shape [";
    for (size_t i = 0; i < a.shape.size(); ++i)
      out += (i ? ", " : "") + std::to_string(a.shape[i]);
    out += "] data {";
    for (size_t i = 0; i < a.data.size(); ++i)
      out += (i ? ", " : "") + StringMaker<double>::convert(a.data[i]);
    return out + "}";
  }
};
} // namespace Catch

namespace moac {
// Exact equality: the hand-computed results below are exactly representable.
inline bool operator==(const NDArray &a, const NDArray &b) { return a.shape == b.shape && a.data == b.data; }
} // namespace moac
