#include "CudaLanes.h"

#include <algorithm>

namespace moac {

namespace {

// Scalars declared in the statements (at any depth).
void declared(const std::vector<LStmt> &body, std::set<Symbol> &out) {
  for (const LStmt &s : body) {
    if (s.kind == LStmt::Decl)
      out.insert(s.scalar);
    declared(s.body, out);
    declared(s.orElse, out);
  }
}

bool readsVar(const LExprPtr &e, Symbol v) {
  if (!e)
    return false;
  if (e->kind == LExprKind::Var && e->var == v)
    return true;
  for (const LExprPtr &a : e->args)
    if (readsVar(a, v))
      return true;
  return false;
}

bool readsScalar(const std::vector<LStmt> &body, Symbol v) {
  for (const LStmt &s : body)
    if (readsVar(s.value, v) || readsScalar(s.body, v) || readsScalar(s.orElse, v))
      return true;
  return false;
}

} // namespace

ParallelNest nestOf(const Region &r) {
  ParallelNest nest{{}, &r.body};
  for (int d = 0; d < r.parallelDepth; ++d) {
    const std::vector<LStmt> &b = *nest.body;
    if (b.size() != 1 || b[0].kind != LStmt::Loop || b[0].loopKind != LoopKind::Parallel)
      break;
    nest.loops.push_back(&b[0]);
    nest.body = &b[0].body;
  }
  return nest;
}

LaneLoop::LaneLoop(const LStmt &loop) : loop(loop) { declared(loop.body, inside); }

bool LaneLoop::independent() {
  if (loop.kind != LStmt::Loop || loop.loopKind == LoopKind::Parallel || !check(loop.body, 0))
    return false;
  for (Symbol s : reductions)
    if (readsScalar(loop.body, s))
      return false;
  bool ok = true;
  forEachAccess(loop.body, [&](size_t buffer, const SymExpr &offset, bool isStore) {
    auto stored = stores.find(buffer);
    if (!isStore && stored != stores.end() && !(stored->second == offset))
      ok = false;
  });
  return ok && (!stores.empty() || !reductions.empty());
}

bool LaneLoop::check(const std::vector<LStmt> &body, int depth) {
  for (const LStmt &s : body) {
    switch (s.kind) {
    case LStmt::Assign:
      if (!inside.count(s.scalar))
        return false;
      break;
    case LStmt::Accumulate:
      if (!inside.count(s.scalar)) {
        if (s.op != BinOp::Add && s.op != BinOp::Mul && s.op != BinOp::Max && s.op != BinOp::Min)
          return false;
        if (reductions.insert(s.scalar).second)
          reducers.push_back(&s);
      }
      break;
    case LStmt::Store: {
      std::optional<SymExpr> step = s.offset.linearCoefficient(loop.var);
      Sign sign = step ? signOf(*step) : Sign::Unknown;
      if (depth > 0 || (sign != Sign::Positive && sign != Sign::Negative))
        return false;
      auto [at, fresh] = stores.emplace(s.buffer, s.offset);
      if (!fresh && !(at->second == s.offset))
        return false;
      break;
    }
    case LStmt::Loop:
      if (!check(s.body, depth + 1))
        return false;
      break;
    case LStmt::If:
      if (!check(s.body, depth) || !check(s.orElse, depth))
        return false;
      break;
    case LStmt::Decl: break;
    case LStmt::Prefetch: return false; // the CPU targets' hint (CUDA's passes have none)
    }
  }
  return true;
}

std::optional<VectorLoop> vectorLoop(const LStmt &loop, const Kernel &k) {
  if (!(loop.step == SymExpr(1)))
    return std::nullopt;
  for (const LStmt &s : loop.body)
    if (s.kind == LStmt::Loop || s.kind == LStmt::If)
      return std::nullopt;
  VectorLoop v;
  bool ok = true;
  forEachAccess(loop.body, [&](size_t buffer, const SymExpr &offset, bool isStore) {
    if (!offset.dependsOn(loop.var))
      return;
    std::optional<SymExpr> step = offset.linearCoefficient(loop.var);
    // f32 moves four elements a 16-byte access; a half-precision input four a load of 8 bytes, widened
    // (moart_cuda_bf16x4): its stores stay scalar, each rounded on its own
    const ElemType elem = k.buffers[buffer].elem;
    if (!step || !(*step == SymExpr(1)) || !(elem == ElemType::F32 || (isHalf(elem) && !isStore))) {
      ok = false;
      return;
    }
    SymExpr base = offset.substitute({{loop.var, SymExpr(0)}});
    std::vector<VectorLoop::Access> &list = isStore ? v.stores : v.loads;
    for (const VectorLoop::Access &a : list)
      if (a.buffer == buffer && a.base == base)
        return;
    list.push_back({buffer, base});
  });
  if (!ok || (v.loads.empty() && v.stores.empty()))
    return std::nullopt;
  return v;
}

void forEachLaneAccess(const std::vector<LStmt> &body,
                       const std::function<void(size_t buffer, const SymExpr &offset, const LStmt *lanes)> &f,
                       const LStmt *lanes) {
  for (const LStmt &s : body) {
    const LStmt *inner = lanes;
    if (!lanes && s.kind == LStmt::Loop && LaneLoop(s).independent())
      inner = &s;
    if (s.kind == LStmt::Loop || s.kind == LStmt::If) {
      forEachLaneAccess(s.body, f, inner);
      forEachLaneAccess(s.orElse, f, inner);
    } else {
      forEachAccess({s}, [&](size_t b, const SymExpr &offset, bool) { f(b, offset, inner); });
    }
  }
}

} // namespace moac
