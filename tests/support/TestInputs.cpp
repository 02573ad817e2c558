#include "TestInputs.h"

#include "Interpreter.h"
#include "Random.h"

#include <moart/fill.h>

#include <algorithm>
#include <map>

namespace moac::testgen {

DimValues dimValues(const TypedProgram &program, const DimChoice &choice) {
  DimValues out;
  for (const TDim &d : program.dims) {
    if (d.value)
      out[d.sym] = *d.value;
    else if (auto it = choice.find(d.name); it != choice.end())
      out[d.sym] = it->second;
  }
  return out;
}

std::optional<std::string> failingGuard(const TypedProgram &program, const DimValues &dims) {
  auto valueOf = [&](Symbol s) {
    auto it = dims.find(s);
    if (it == dims.end())
      throw SymArithmeticError("no value for dim '" + s.name() + "'");
    return it->second;
  };
  for (const Guard &g : program.guards) {
    try {
      if (!g.holds(valueOf))
        return g.str() + " (" + g.reason + ")";
    } catch (const SymArithmeticError &error) {
      return g.str() + ": " + error.what();
    }
  }
  return std::nullopt;
}

std::optional<DimChoice> chooseDimsFor(const TypedProgram &program, uint64_t seed, int maxDim,
                                       const DimChoice &least) {
  Rng rng(seed * 0xBF58476D1CE4E5B9ull + 0x94D049BB133111EBull);
  for (int attempt = 0; attempt < 64; ++attempt) {
    DimChoice choice;
    for (const TDim &d : program.dims) {
      if (d.value)
        continue;
      auto it = least.find(d.name);
      int64_t lo = it == least.end() ? 1 : it->second;
      std::vector<int64_t> values;
      std::vector<unsigned> weights;
      for (int64_t v = lo; v <= maxDim; ++v) {
        values.push_back(v);
        weights.push_back(v == 4 ? 1 : 3);
      }
      choice[d.name] = values.empty() ? lo : values[rng.weighted(weights)];
    }
    if (!failingGuard(program, dimValues(program, choice)))
      return choice;
  }
  return std::nullopt;
}

std::vector<NDArray> makeInputs(const TypedProgram &program, const DimValues &dims, uint64_t seed) {
  std::vector<NDArray> out;
  const std::map<size_t, SymVec> indexArrays = gatherBounds(program);
  for (size_t k = 0; k < program.inputs.size(); ++k) {
    const TInput &in = program.inputs[k];
    NDArray a{concreteShape(in.shape, dims), {}};
    int64_t count = 1;
    for (int64_t s : a.shape)
      count *= s;
    a.data.reserve(size_t(count));
    if (isInteger(in.elem)) { // the fill's integers; an index array's folded into the extent it indexes
      int64_t least = 0;
      if (auto it = indexArrays.find(k); it != indexArrays.end()) {
        std::vector<int64_t> bounds = concreteShape(it->second, dims);
        least = *std::min_element(bounds.begin(), bounds.end());
      }
      for (int64_t i = 0; i < count; ++i) {
        int64_t v = moart_fill_value_i64(seed, k, i);
        a.data.push_back(double(least > 0 ? ((v % least) + least) % least : v));
      }
      out.push_back(std::move(a));
      continue;
    }
    for (int64_t i = 0; i < count; ++i)
      a.data.push_back(in.elem == ElemType::F64    ? moart_fill_value_f64(seed, k, i)
                       : in.elem == ElemType::BF16 ? double(moart_fill_value_bf16(seed, k, i))
                       : in.elem == ElemType::F16  ? double(moart_fill_value_f16(seed, k, i))
                                                   : double(moart_fill_value_f32(seed, k, i)));
    out.push_back(std::move(a));
  }
  return out;
}

} // namespace moac::testgen
