// The program level of the generator: dims, inputs (declared on demand, when a leaf needs an array of a
// shape nothing in scope has), functions (made on demand by the call production), and the top-level
// bindings and outputs. Expressions are in Productions.cpp.
#include "GeneratorImpl.h"

#include <algorithm>

namespace moac::testgen {

namespace detail {

int64_t Generator::maxOf(const Extent &e) const {
  return e.eval(std::vector<int64_t>(dimNames.size(), opt.maxDim));
}

int64_t Generator::minOf(const Extent &e) const { return e.eval(mins); }

bool Generator::fits(const Shape &s) const {
  int64_t count = 1;
  for (const Extent &e : s) {
    int64_t m = maxOf(e);
    if (m < 1 || m > opt.maxElements)
      return false;
    count *= m;
    if (count > opt.maxElements)
      return false;
  }
  return s.size() <= 3;
}

bool Generator::atLeast(const Extent &e, int64_t value) {
  if (minOf(e) >= value)
    return true;
  if (value > opt.maxDim || e.terms.size() != 1)
    return false;
  const auto &[mono, coef] = *e.terms.begin();
  if (mono.size() != 1 || coef != 1)
    return false;
  mins[size_t(mono[0])] = value; // a single dim: ask chooseDims for a larger value
  return true;
}

// Symbolic dims most often, then fixed dims, small constants and now and then a compound extent.
Extent Generator::pickExtent() {
  for (;;) {
    size_t kind = rng.weighted({50, fixedDims.empty() ? 0u : 12u, 28, 10, 3});
    Extent e;
    if (kind == 0) {
      e = Extent::dim(int(rng.below(dimNames.size())));
    } else if (kind == 1) {
      e = Extent::constant(rng.pick(fixedDims).second);
    } else if (kind == 2) {
      e = Extent::constant(rng.range(1, 3));
    } else if (kind == 4) {
      // n - 1: an extent the shape checker cannot prove positive (guards; no input may have it)
      Extent d = Extent::dim(int(rng.below(dimNames.size())));
      if (!atLeast(d, 2))
        continue;
      e = d - Extent::constant(1);
      note("extent-minus-one");
    } else {
      Extent d = Extent::dim(int(rng.below(dimNames.size())));
      switch (rng.below(3)) {
      case 0: e = d + Extent::constant(1); break;
      case 1: e = Extent::constant(2) * d; break;
      default: e = d * Extent::dim(int(rng.below(dimNames.size()))); break;
      }
    }
    if (maxOf(e) <= 12)
      return e;
  }
}

Shape Generator::randomShape(size_t rank) {
  for (;;) {
    Shape s;
    for (size_t k = 0; k < rank; ++k)
      s.push_back(pickExtent());
    if (fits(s))
      return s;
  }
}

std::string Generator::ext(const Extent &e) {
  if (e.isConstant() && rng.chance(50))
    for (const auto &[name, value] : fixedDims)
      if (value == e.constantPart())
        return name;
  return e.str(dimNames);
}

std::string Generator::extOperand(const Extent &e) {
  std::string text = ext(e);
  return e.atomic() ? text : "(" + text + ")";
}

std::optional<Value> Generator::newInput(const Shape &s) {
  if (inputs.size() >= 8 || !std::all_of(s.begin(), s.end(), [](const Extent &e) { return e.provablyPositive(); }))
    return std::nullopt;
  Value v{"x" + std::to_string(inputs.size() + 1), s, 1.0, false};
  bool f64 = rng.chance(40);
  std::string decl = (rng.chance(10) ? "inout " : "in ") + v.name + " : " + (f64 ? "f64" : "f32");
  if (!s.empty() || rng.chance(30)) {
    decl += "[";
    for (size_t k = 0; k < s.size(); ++k)
      decl += (k ? ", " : "") + ext(s[k]);
    decl += "]";
  }
  note(s.empty() ? "input-rank0" : "input-rank" + std::to_string(s.size()));
  inputDecls.push_back(decl);
  inputs.push_back(v);
  return v;
}

std::string Generator::freshIndex() {
  static const char *names[] = {"i", "j", "k", "l", "p", "q"};
  int n = indexCounter++;
  return std::string(names[n % 6]) + (n >= 6 ? std::to_string(n / 6) : "");
}

std::string Generator::freshLocal() { return "y" + std::to_string(++localCounter); }

// A function, generated in full before anything can call it: its body may call only complete
// functions, so calls never form a cycle.
Function *Generator::makeFunction(bool generic, const Shape &result) {
  functions.push_back(std::make_unique<Function>());
  Function &f = *functions.back();
  f.name = "f" + std::to_string(functions.size());
  f.generic = generic;
  f.result = result;
  Scope scope;
  scope.inFunction = true;
  scope.function = &f;
  static const char *paramNames[] = {"a", "b", "c"};
  std::vector<std::string> lines;
  Expr body;
  if (generic) {
    note("fn-generic");
    f.arity = size_t(rng.range(1, 2));
    for (size_t k = 0; k < f.arity; ++k)
      scope.values.push_back(Value{paramNames[k], {Extent::constant(-1)}, argBound, false});
    for (int n = int(rng.range(0, 2)); n > 0; --n) {
      bool scalar = rng.chance(50);
      Expr local = genGeneric(scope, 2, scalar);
      std::string name = freshLocal();
      lines.push_back(name + " = " + local.text);
      scope.values.push_back(Value{name, scalar ? Shape{} : Shape{Extent::constant(-1)}, local.bound, local.isInt});
    }
    body = genGeneric(scope, 2, false);
  } else {
    note("fn-specific");
    f.arity = rng.chance(10) ? 0 : size_t(rng.range(1, 3));
    for (size_t k = 0; k < f.arity; ++k) {
      Shape p = k == 0 && rng.chance(50) ? result : randomShape(size_t(rng.weighted({2, 3, 2, 1})));
      f.params.push_back(p);
      scope.values.push_back(Value{paramNames[k], p, argBound, false});
    }
    for (int n = int(rng.weighted({3, 2, 1})); n > 0; --n) {
      Shape s = randomShape(size_t(rng.weighted({2, 3, 2, 1})));
      Expr local = gen(s, scope, 3);
      std::string name = freshLocal();
      lines.push_back(name + " = " + local.text);
      scope.values.push_back(Value{name, s, local.bound, local.isInt});
    }
    body = gen(result, scope, 3);
  }
  f.resultBound = body.bound;
  std::string params;
  for (size_t k = 0; k < f.arity; ++k)
    params += (k ? ", " : "") + std::string(paramNames[k]);
  if (lines.empty() && rng.chance(60)) {
    f.text = "fn " + f.name + "(" + params + ") = " + body.text;
  } else {
    bool oneLine = rng.chance(25);
    f.text = "fn " + f.name + "(" + params + ") {" + (oneLine ? " " : "\n");
    for (const std::string &line : lines)
      f.text += (oneLine ? "" : "  ") + line + (oneLine ? "; " : "\n");
    f.text += (oneLine ? "" : "  ") + body.text + (oneLine ? " }" : "\n}");
  }
  f.complete = true;
  return &f;
}

GeneratedProgram Generator::run(uint64_t seed) {
  static const char *symbolic[] = {"n", "m", "d", "w"};
  size_t nDims = size_t(rng.range(1, 4));
  for (size_t k = 0; k < nDims; ++k)
    dimNames.push_back(symbolic[k]);
  mins.assign(nDims, 1);
  std::vector<std::string> dimLines;
  std::string line = "dim ";
  for (size_t k = 0; k < nDims; ++k)
    line += (k ? ", " : "") + dimNames[k];
  dimLines.push_back(line);
  zeroDim = rng.chance(25);
  if (zeroDim) {
    dimLines.push_back("dim z >= 0");
    note("dim-zero");
  }
  if (rng.chance(45)) {
    int64_t b = rng.range(2, 4);
    fixedDims.emplace_back("B", b);
    dimLines.push_back("dim B = " + std::to_string(b));
    note("dim-fixed");
    if (rng.chance(30)) {
      fixedDims.emplace_back("C", 2 * b - 1);
      dimLines.push_back("dim C = 2 * B - 1");
    }
  }

  Scope top;
  std::vector<std::string> bindingLines;
  size_t items = size_t(rng.range(2, 5));
  int outputs = 0;
  for (size_t k = 0; k < items; ++k) {
    bool isOut = k + 1 == items || rng.chance(40);
    Shape s;
    std::vector<Value> known = inputs;
    known.insert(known.end(), top.values.begin(), top.values.end());
    if (!known.empty() && rng.chance(30))
      s = rng.pick(known).shape;
    else
      s = randomShape(size_t(rng.weighted({2, 4, 4, 3})));
    Expr e = gen(s, top, int(rng.range(3, opt.maxDepth)));
    std::string name = isOut ? "o" + std::to_string(++outputs) : "t" + std::to_string(k + 1 - size_t(outputs));
    bindingLines.push_back((isOut ? "out " : "") + name + " = " + e.text);
    top.values.push_back(Value{name, s, e.bound, e.isInt});
  }
  if (outputs > 1)
    note("outputs-several");
  if (items > size_t(outputs))
    note("binding-named");

  GeneratedProgram out;
  out.seed = seed;
  out.text = "# generated by moac_testgen, seed " + std::to_string(seed) + "\n";
  for (const auto &l : dimLines)
    out.text += l + "\n";
  for (const std::string &d : zeroBounds)
    out.text += "assume z <= " + d + "\n";
  for (const auto &l : inputDecls)
    out.text += l + "\n";
  for (const auto &f : functions)
    out.text += f->text + "\n";
  for (const auto &l : bindingLines)
    out.text += l + "\n";
  out.dims = dimNames;
  for (size_t k = 0; k < nDims; ++k)
    out.minDims[dimNames[k]] = mins[k];
  if (zeroDim) { // after the dims that bound it: chooseDims draws it last
    out.dims.push_back("z");
    out.minDims["z"] = 0;
    out.atMost["z"] = zeroBounds;
  }
  out.features.assign(features.begin(), features.end());
  return out;
}

} // namespace detail

GeneratedProgram generateProgram(uint64_t seed, const GeneratorOptions &options) {
  return detail::Generator(seed, options).run(seed);
}

std::map<std::string, int64_t> chooseDims(const GeneratedProgram &program, uint64_t seed,
                                          const GeneratorOptions &options) {
  Rng rng(seed * 0x9E3779B97F4A7C15ull + 0xD1B54A32D192ED03ull);
  std::map<std::string, int64_t> dims;
  for (const std::string &name : program.dims) {
    auto it = program.minDims.find(name);
    int64_t least = it == program.minDims.end() ? 1 : it->second, most = options.maxDim;
    if (auto bound = program.atMost.find(name); bound != program.atMost.end())
      for (const std::string &d : bound->second)
        most = std::min(most, dims.at(d));
    std::vector<int64_t> values;
    std::vector<unsigned> weights;
    for (int64_t v = least; v <= most; ++v) {
      values.push_back(v);
      weights.push_back(v == 0 ? 5 : v == 4 ? 1 : 3); // 0 (an empty axis), 1 and the primes more often
    }
    dims[name] = values.empty() ? least : values[rng.weighted(weights)];
  }
  return dims;
}

std::string formatDims(const std::map<std::string, int64_t> &dims) {
  std::string out;
  for (const auto &[name, value] : dims)
    out += (out.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return out;
}

} // namespace moac::testgen
