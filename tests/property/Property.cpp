#include "Property.h"

#include "DnfEval.h"
#include "Fuse.h"
#include "Interpreter.h"
#include "Pipeline.h"
#include "Psi.h"
#include "ProgramGenerator.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace moac::property {

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t k = 0; k < shape.size(); ++k)
    out += (k ? ", " : "") + std::to_string(shape[k]);
  return out + "]";
}

// Evaluates one side, turning every exception into a description.
template <typename F> std::optional<std::string> attempt(const char *who, F &&f) {
  try {
    f();
  } catch (const EvalError &error) {
    return fmt::format("{} failed at line {}, column {}: {}", who, error.loc.line, error.loc.col, error.what());
  } catch (const std::exception &error) {
    return fmt::format("{} threw: {}", who, error.what());
  }
  return std::nullopt;
}

} // namespace

Check checkProgram(const std::string &fileName, const std::string &text, const testgen::DimChoice &choice,
                   uint64_t inputSeed, bool requireFinite) {
  Check check;
  CompilationContext ctx;
  SourceManager &sources = ctx.sources;
  uint32_t file = sources.add(fileName, text);
  DiagnosticEngine diags(sources);
  diags.setColor(ColorMode::Never);
  std::string messages;
  diags.captureInto(&messages);
  std::optional<TypedProgram> program;
  if (auto e = attempt("typeCheck", [&] { program = typeCheck(ctx, file, diags); }); e || !program) {
    check.failure = e ? *e : "the program does not type-check:\n" + messages;
    return check;
  }
  DimValues dims = testgen::dimValues(*program, choice);
  if (auto g = testgen::failingGuard(*program, dims)) {
    check.failure = "a guard does not hold for these dims: " + *g;
    return check;
  }
  std::vector<NDArray> inputs, expected, actual, fused;
  if (auto e = attempt("making the inputs", [&] { inputs = testgen::makeInputs(*program, dims, inputSeed); })) {
    check.failure = *e;
    return check;
  }
  // exact: the DNF evaluator computes in double, so f32 values are f64 in the interpreter too
  if (auto e = attempt("the interpreter",
                       [&] { expected = interpret(*program, dims, inputs, InterpretOptions{true}); })) {
    check.failure = *e;
    return check;
  }
  if (auto e = attempt("psiReduce + evaluateDnf", [&] { actual = evaluateDnf(psiReduce(ctx, *program), dims, inputs); })) {
    check.failure = *e;
    return check;
  }
  // and the DNF after the online-softmax rewrite (psi/Fuse.h), whose groups DnfEval folds split by split
  if (auto e = attempt("psiReduce + fuseReductions + evaluateDnf", [&] {
        DnfProgram dnf = psiReduce(ctx, *program);
        fuseReductions(ctx, dnf);
        fused = evaluateDnf(dnf, dims, inputs);
      })) {
    check.failure = *e;
    return check;
  }
  std::vector<std::string> outputs;
  for (const auto &b : program->bindings)
    if (b->isOutput)
      outputs.push_back(b->name);
  // then the storage of each updated inout (interpret() and evaluateDnf() return both in this order)
  for (const auto &b : program->bindings)
    if (b->updates)
      outputs.push_back("inout " + program->inputs[*b->updates].name);
  if (expected.size() != actual.size() || expected.size() != outputs.size() || fused.size() != actual.size()) {
    check.failure = fmt::format("{} outputs from the interpreter, {} from the DNF evaluator, {} declared",
                                expected.size(), actual.size(), outputs.size());
    return check;
  }
  std::string report;
  int shown = 0;
  for (size_t k = 0; k < 2 * expected.size(); ++k) {
    const char *who = k < expected.size() ? "DNF" : "fused DNF";
    const NDArray &a = expected[k % expected.size()], &b = k < expected.size() ? actual[k] : fused[k - expected.size()];
    if (a.shape != b.shape || a.data.size() != b.data.size()) {
      report += fmt::format("output {}: shape {} from the interpreter, {} from the {} evaluator\n",
                            outputs[k % outputs.size()], shapeText(a.shape), shapeText(b.shape), who);
      continue;
    }
    for (size_t i = 0; i < a.data.size(); ++i) {
      double x = a.data[i], y = b.data[i];
      ++check.elements;
      bool agree = x == y || (std::isnan(x) && std::isnan(y)) ||
                   std::fabs(x - y) <= tolerance * std::max({1.0, std::fabs(x), std::fabs(y)});
      bool finite = std::isfinite(x) && std::isfinite(y);
      if ((!agree || (requireFinite && !finite)) && shown++ < 8)
        report += fmt::format("output {} element {} (of {}, shape {}): interpreter {:.17g}, {} {:.17g}{}\n",
                              outputs[k % outputs.size()], i, a.data.size(), shapeText(a.shape), x, who, y,
                              agree ? " (not finite)" : "");
    }
  }
  if (shown > 8)
    report += fmt::format("… {} disagreeing elements in all\n", shown);
  if (!report.empty())
    check.failure = report;
  return check;
}

std::string writeFailure(const std::string &name, const std::string &text, const testgen::DimChoice &dims,
                         uint64_t inputSeed, const std::string &failure) {
  std::filesystem::create_directories(MOAC_PROPERTY_FAILURES_DIR);
  std::string path = std::string(MOAC_PROPERTY_FAILURES_DIR) + "/" + name + ".moa";
  std::ofstream out(path);
  out << "# moac run " << name << ".moa --dims " << testgen::formatDims(dims) << " --seed " << inputSeed << "\n";
  out << "# dims: " << testgen::formatDims(dims) << "\n";
  std::istringstream lines(failure);
  for (std::string line; std::getline(lines, line);)
    out << "# " << line << "\n";
  out << text;
  return path;
}

std::vector<testgen::DimChoice> dimsFromComments(const std::string &text) {
  std::vector<testgen::DimChoice> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# dims:", 0) != 0)
      continue;
    testgen::DimChoice choice;
    std::istringstream items(line.substr(7));
    for (std::string item; std::getline(items, item, ',');) {
      auto eq = item.find('=');
      if (eq == std::string::npos)
        continue;
      std::string name = item.substr(0, eq);
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      choice[name] = std::stoll(item.substr(eq + 1));
    }
    out.push_back(choice);
  }
  return out;
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

} // namespace moac::property
