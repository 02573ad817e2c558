#include "DnfEval.h"

#include "Gamma.h"

#include "ArrayOps.h"
#include "EvalCore.h"
#include "Fuse.h"

#include <algorithm>

#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

namespace moac {

namespace {

class DnfEvaluator {
public:
  DnfEvaluator(const DnfProgram &p, const DimValues &given) : p(p), dims(bindDims(p.dims, given)) {}
  std::vector<NDArray> run(const std::vector<NDArray> &inputs);

private:
  int64_t value(Symbol s) const {
    if (auto it = env.find(s.id()); it != env.end())
      return it->second;
    if (auto it = dims.find(s); it != dims.end())
      return it->second;
    throw EvalError(fmt::format("no value for '{}'", s.name()), SourceLoc{});
  }
  int64_t integer(const SymExpr &e) const { // a gather's load reads its (integer) input
    return e.evaluate([this](Symbol s) { return value(s); },
                      [this](uint32_t array, int64_t at) { return int64_t(arrays.at(array).data.at(size_t(at))); });
  }
  double eval(const DExpr &e);
  double evalFused(const DExpr &e);

  const DnfProgram &p;
  const DimValues dims;
  std::unordered_map<uint32_t, int64_t> env;
  std::vector<NDArray> arrays;
};

double DnfEvaluator::eval(const DExpr &e) {
  switch (e.kind) {
  case DKind::Float: return e.floatValue;
  case DKind::Int: return double(integer(e.intValue));
  case DKind::Read: {
    const NDArray &a = arrays[e.array];
    int64_t offset = 0;
    for (size_t k = 0; k < e.index.size(); ++k) {
      int64_t i = integer(e.index[k]);
      if (i < 0 || i >= a.shape[k])
        throw EvalError(fmt::format("index {} out of range for axis {} of '{}' (extent {})", i, k,
                                    p.arrays[e.array].name, a.shape[k]),
                        e.loc);
      offset = offset * a.shape[k] + i;
    }
    return a.data[size_t(offset)];
  }
  case DKind::Unary: return apply(e.unop, eval(*e.args[0]));
  case DKind::Binary: {
    double a = eval(*e.args[0]), b = eval(*e.args[1]);
    if ((e.op == BinOp::IntDiv || e.op == BinOp::Mod) && b == 0)
      throw EvalError("integer division by zero", e.loc);
    return apply(e.op, a, b);
  }
  case DKind::Reduce: {
    // from the identity: acc op t_l upward, or for − and ÷ (right folds) t_l op acc downward, which
    // gives t₀ op (t₁ op (…)) exactly since t op 0 and t op 1 are t
    int64_t n = integer(e.extent);
    double acc = identity(e.op, e.isInt);
    const bool right = isRightFold(e.op);
    for (int64_t k = 0; k < n; ++k) {
      env[e.var.id()] = right ? n - 1 - k : k;
      acc = right ? apply(e.op, eval(*e.args[0]), acc) : apply(e.op, acc, eval(*e.args[0]));
    }
    env.erase(e.var.id());
    return acc;
  }
  case DKind::Select: return integer(e.lhs) < integer(e.rhs) ? eval(*e.args[0]) : eval(*e.args[1]);
  case DKind::Where: return eval(*e.args[0]) != 0 ? eval(*e.args[1]) : eval(*e.args[2]);
  case DKind::Fused: return evalFused(e);
  }
  return 0;
}

// A member of a fused group at one index, by the group's own rule rather than the sums it replaced: the
// terms cut into three contiguous splits (one of them empty when there are fewer than three terms), each
// folded online against its running maximum, then the splits combined with the monoid. So the property
// tests check the rewrite, its rescaling and its combine against the interpreter.
double DnfEvaluator::evalFused(const DExpr &e) {
  const FusedGroup &g = p.groups[e.group];
  const FusedMember &member = g.members[e.member];
  std::vector<int64_t> at;
  for (const SymExpr &i : e.index)
    at.push_back(integer(i));
  std::vector<Symbol> bound = g.frame;
  bound.insert(bound.end(), member.extra.begin(), member.extra.end());
  for (size_t k = 0; k < bound.size(); ++k)
    env[bound[k].id()] = at[k];
  const int64_t n = integer(g.extent), splits = 3, length = (n + splits - 1) / splits;
  double m = -INFINITY, sum = 0;
  for (int64_t c = 0; c < splits; ++c) {
    double mc = -INFINITY, sc = 0;
    for (int64_t l = c * length; l < std::min(n, c * length + length); ++l) {
      env[g.var.id()] = l;
      double score = eval(*g.score), next = apply(BinOp::Max, mc, score);
      double weight = member.weight ? eval(*member.weight) : 0;
      sc = sc * onlineRescale(mc, next) + onlineRescale(score, next) * weight;
      mc = next;
    }
    double top = apply(BinOp::Max, m, mc);
    sum = sum * onlineRescale(m, top) + sc * onlineRescale(mc, top);
    m = top;
  }
  env.erase(g.var.id());
  for (Symbol s : bound)
    env.erase(s.id());
  return e.member == 0 ? m : sum;
}

std::vector<NDArray> DnfEvaluator::run(const std::vector<NDArray> &inputs) {
  checkGuards(p.guards, dims);
  arrays.resize(p.arrays.size());
  size_t nextInput = 0;
  for (size_t k = 0; k < p.arrays.size(); ++k) {
    const DnfArray &a = p.arrays[k];
    // a triangular array (⟨n, i + 1⟩) is held in its bounding box; the cells outside it stay NaN, so a read
    // of one would show in the result
    for (const auto &s : boundingShape(a.shape, a.index))
      arrays[k].shape.push_back(integer(s));
    if (a.storage == Storage::Input) {
      const NDArray &in = inputs.at(nextInput++);
      if (in.shape != arrays[k].shape)
        throw EvalError(fmt::format("input '{}' has the wrong shape", a.name), a.loc);
      arrays[k].data = in.data;
    }
  }
  for (size_t id : p.order) {
    const DnfArray &a = p.arrays[id];
    NDArray &out = arrays[id];
    size_t count = 1;
    for (int64_t s : out.shape)
      count *= size_t(s);
    const bool ragged = boundingShape(a.shape, a.index) != a.shape;
    out.data.assign(count, ragged ? NAN : 0.0);
    std::vector<int64_t> idx(out.shape.size(), 0);
    for (size_t flat = 0; flat < count; ++flat) {
      bool inside = true;
      for (size_t k = 0; k < idx.size(); ++k) {
        inside = inside && (!ragged || idx[k] < integer(a.shape[k])); // the earlier axes' indices are bound
        env[a.index[k].id()] = idx[k];
      }
      if (!inside) {
        nextIndex(idx, out.shape);
        continue;
      }
      out.data[flat] = eval(*a.body);
      if (isHalf(a.elem)) // a bf16 or f16 array's store rounds (docs/language.md §1)
        out.data[flat] = roundTo(a.elem, out.data[flat]);
      nextIndex(idx, out.shape);
    }
    for (Symbol s : a.index)
      env.erase(s.id());
  }
  std::vector<NDArray> outputs;
  for (size_t id : p.outputs)
    outputs.push_back(arrays[id]);
  for (size_t id : p.updates)
    outputs.push_back(writeBack(arrays[*p.arrays[id].updates], arrays[id]));
  return outputs;
}

} // namespace

std::vector<NDArray> evaluateDnf(const DnfProgram &program, const DimValues &dims,
                                 const std::vector<NDArray> &inputs) {
  return DnfEvaluator(program, dims).run(inputs);
}

} // namespace moac
