// The CUDA printer: the C printer's statements, with each region of the loop IR printed as a __global__
// kernel and its launch on the caller's stream (docs/schedule.md, "CUDA").
//   - A parallel nest is one index space: thread t of the grid (grid-stride) takes the collapsed index t,
//     the innermost loop fastest, so adjacent threads are adjacent iterations of the innermost index —
//     the lanes the γ-differences of `moac explain` are measured along.
//   - The split pass of a fused reduction (Region::Splits) runs one split per warp. Its statements are
//     warp-uniform, except the serial loops whose iterations are independent (a store per iteration to
//     its own element, a reduction into a scalar from outside): those are spread over the 32 lanes, a
//     reduction combined with a butterfly of shuffles. The dot product of a score and the update of a
//     weighted sum along a row are such loops, so a warp reads a row of K and of V with coalesced loads.
//   - So does a region that combines partial results: where its work is a loop over a chunk count (P
//     splits or chunks, thousands on a GPU) that lanes may take, one warp computes each result.
//   - A region of one thread is a kernel of one thread.
// The launcher checks the dims and the pointers like every target and launches the kernels in order.
#include "CPrinter.h"

#include <algorithm>
#include <functional>
#include <set>

namespace moac {

namespace {

constexpr int threadsPerBlock = 256;
constexpr int warpThreadsPerBlock = 128; // four warps: four splits a block
constexpr int64_t maxBlocks = int64_t(1) << 20; // grid-stride beyond this

struct ParallelNest {
  std::vector<const LStmt *> loops; // outermost first
  const std::vector<LStmt> *body;   // the innermost loop's statements (the region's, without loops)
};

// The region's perfect nest of parallel loops around its work.
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

// Whether the iterations of a serial loop are independent but for reductions into scalars from outside
// it, so that lanes may take them (see the file comment): every store writes an element of its own (its
// γ is affine in the loop's index with a coefficient of known sign), not inside a nested loop; a loaded
// buffer the loop stores into is loaded only at the stored element; a scalar from outside is only
// reduced into, with an associative operation, and not read. At least one store or reduction, or the
// spread gains nothing.
class LaneLoop {
public:
  explicit LaneLoop(const LStmt &loop) : loop(loop) { declared(loop.body, inside); }

  bool independent() {
    if (loop.kind != LStmt::Loop || loop.loopKind != LoopKind::Serial || !check(loop.body, 0))
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

  // The outer scalars the loop reduces into, with their operation and type.
  std::vector<const LStmt *> reducers;

private:
  bool check(const std::vector<LStmt> &body, int depth) {
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
      }
    }
    return true;
  }

  const LStmt &loop;
  std::set<Symbol> inside, reductions;
  std::map<size_t, SymExpr> stores;
};

// A lane loop whose lanes take four adjacent iterations at a time, so that each access that moves by one
// element per iteration is one 16-byte load or store of four floats (docs/schedule.md, "CUDA"): a loop of
// step 1 over straight-line statements, whose every access is either invariant in the loop or an f32
// element at γ-difference 1 (its offset is `base + var`). The lanes own the same iterations whether the
// vector path or its scalar fallback (a pointer or a base not 16-byte aligned, a group cut by the end) runs.
struct VectorLoop {
  struct Access {
    size_t buffer;
    SymExpr base; // the offset at var = 0
  };
  std::vector<Access> loads, stores; // distinct, in the order the body first makes them
};

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
    if (!step || !(*step == SymExpr(1)) || k.buffers[buffer].elem != ElemType::F32) {
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

// Calls f for every load and store of the statements with the lane loop it is made in (the outermost
// loop around it whose iterations lanes take, LaneLoop), or null for an access of the whole warp.
void forEachLaneAccess(const std::vector<LStmt> &body,
                       const std::function<void(size_t buffer, const SymExpr &offset, const LStmt *lanes)> &f,
                       const LStmt *lanes = nullptr) {
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

// Every SymExpr of the statements (loop bounds, conditions, offsets, integer values).
void forEachInteger(const LExprPtr &e, const std::function<void(const SymExpr &)> &f) {
  if (!e)
    return;
  if (e->kind == LExprKind::Int)
    f(e->intValue);
  if (e->kind == LExprKind::Load)
    f(e->offset);
  if (e->kind == LExprKind::Select) {
    f(e->lhs);
    f(e->rhs);
  }
  for (const LExprPtr &a : e->args)
    forEachInteger(a, f);
}

void forEachInteger(const std::vector<LStmt> &body, const std::function<void(const SymExpr &)> &f) {
  for (const LStmt &s : body) {
    switch (s.kind) {
    case LStmt::Loop: f(s.start), f(s.end), f(s.step); break;
    case LStmt::If: f(s.lhs), f(s.rhs); break;
    case LStmt::Store: f(s.offset); break;
    default: break;
    }
    forEachInteger(s.value, f);
    forEachInteger(s.body, f);
    forEachInteger(s.orElse, f);
  }
}

// The floor divisions and moduli of an expression whose operands use only `known` symbols, innermost
// first (so that an outer one is printed with the inner one's local).
void invariantAtoms(const SymExpr &e, const std::set<Symbol> &known, std::vector<std::tuple<bool, SymExpr, SymExpr>> &out) {
  for (const auto &t : e.terms())
    for (const auto &a : t.factors) {
      if (a->kind == SymExpr::Atom::Sym)
        continue;
      invariantAtoms(a->lhs, known, out);
      invariantAtoms(a->rhs, known, out);
      bool invariant = true;
      for (const SymExpr *side : {&a->lhs, &a->rhs})
        for (Symbol s : side->symbols())
          invariant &= known.count(s) > 0;
      std::tuple<bool, SymExpr, SymExpr> key{a->kind == SymExpr::Atom::Div, a->lhs, a->rhs};
      if (invariant && std::find(out.begin(), out.end(), key) == out.end())
        out.push_back(key);
    }
}

class CudaPrinter final : public CPrinter {
public:
  explicit CudaPrinter(const Kernel &k) : CPrinter(k, sequentialPolicy(), Target::Cuda) {}

private:
  void region(const Region &r) override;
  void warpStmt(const LStmt &s, ElemType t);
  void laneLoop(const LStmt &s, LaneLoop &lanes, ElemType t);
  std::string identity(const LStmt &reducer) const;
  std::string params(const std::set<size_t> &used) const;
  std::string args(const std::set<size_t> &used) const;
  std::string total(const ParallelNest &nest);
  std::vector<std::tuple<bool, SymExpr, SymExpr>> hoist(const std::vector<LStmt> &body, const std::set<Symbol> &known);
  bool lanePrivate(size_t buffer, const LStmt &loop, const SymExpr &offset) const;

  const std::vector<LStmt> *warpBody = nullptr; // the statements of a warp's iteration
  int vectorLoops = 0;                           // numbers their alignment tests
  void vectorLaneLoop(const LStmt &s, const VectorLoop &v, ElemType t);
  std::string alignedTest(const LStmt &s, const VectorLoop &v);
  void vectorGroup(const LStmt &s, const VectorLoop &v, ElemType t);
  void holdAcross(const LStmt &loop, ElemType t);
  // The elements held in registers across a serial loop of a warp (holdAcross): {buffer, base} → the lane's
  // float4, whether holding was possible at run time (warp-uniform), and whether the lane owns a group.
  struct Held {
    std::string reg, possible, owns;
  };
  std::map<std::pair<size_t, SymExpr>, Held> held;
  const Held *heldBy(const VectorLoop &v) const;
  int heldCount = 0, prefetchCount = 0;
  // The loads of read-only inputs that a held lane loop makes, issued at the start of the statements that
  // hold the loop (prefetch): {buffer, base} → the lane's float4.
  std::map<std::pair<size_t, SymExpr>, std::string> prefetched;
  void warpBlock(const std::vector<LStmt> &body, ElemType t);

  bool spreadsChunks(const std::vector<LStmt> &body) const;

  int stages = 0;
};

// Declares a local for each floor division and modulus of the statements whose operands are `known`
// (the dims and chunk counts, then also the parallel indices), before them.
std::vector<std::tuple<bool, SymExpr, SymExpr>> CudaPrinter::hoist(const std::vector<LStmt> &body,
                                                                   const std::set<Symbol> &known) {
  std::vector<std::tuple<bool, SymExpr, SymExpr>> atoms, added;
  forEachInteger(body, [&](const SymExpr &e) { invariantAtoms(e, known, atoms); });
  for (const auto &key : atoms) {
    if (hoisted.count(key))
      continue;
    added.push_back(key);
    const auto &[div, lhs, rhs] = key;
    std::string text = fmt::format("{}({}, {})", div ? "moart_floordiv" : "moart_floormod", integer(lhs), integer(rhs));
    std::string local = fmt::format("moa_{}{}", div ? "div" : "mod", hoisted.size());
    line(fmt::format("const int64_t {} = {};", local, text));
    hoisted.emplace(key, local);
  }
  return added;
}

// Whether every access to `buffer` in the warp's statements is made by the lane that stores it in `loop`
// (at `offset`): inside a loop spread over the lanes the same way (start and step), at the same element
// of its index. Then the lanes need no barrier after the loop.
bool CudaPrinter::lanePrivate(size_t buffer, const LStmt &loop, const SymExpr &offset) const {
  bool ok = true;
  forEachLaneAccess(*warpBody, [&](size_t b, const SymExpr &at, const LStmt *inner) {
    if (b != buffer)
      return;
    ok &= inner && inner->start == loop.start && inner->step == loop.step &&
          vectorLoop(*inner, k).has_value() == vectorLoop(loop, k).has_value() &&
          at == offset.substitute({{loop.var, SymExpr::symbol(inner->var)}});
  });
  return ok;
}

// Whether the work of each iteration has a loop over a chunk count that lanes may take.
bool CudaPrinter::spreadsChunks(const std::vector<LStmt> &body) const {
  for (const LStmt &s : body) {
    if (s.kind == LStmt::If && (spreadsChunks(s.body) || spreadsChunks(s.orElse)))
      return true;
    if (s.kind != LStmt::Loop)
      continue;
    bool overChunks = false;
    for (const ChunkCount &c : k.chunkCounts)
      overChunks |= s.end.dependsOn(c.sym);
    if (overChunks && LaneLoop(s).independent())
      return true;
  }
  return false;
}

std::string CudaPrinter::identity(const LStmt &reducer) const {
  const bool isInt = reducer.type == ElemType::Int, f32 = reducer.type == ElemType::F32;
  switch (reducer.op) {
  case BinOp::Add: return isInt ? "0" : f32 ? "-0.0f" : "-0.0"; // x + -0 is x, -0 included
  case BinOp::Mul: return isInt ? "1" : f32 ? "1.0f" : "1.0";
  case BinOp::Max: return isInt ? "INT64_MIN" : "-INFINITY";
  default: return isInt ? "INT64_MAX" : "INFINITY";
  }
}

// Lanes take the iterations start + lane·step, start + (lane + 32)·step, …; a reduction into an outer
// scalar starts from the operation's identity in every lane but the first, which keeps the scalar's
// value, and the butterfly then leaves the whole reduction in every lane.
void CudaPrinter::laneLoop(const LStmt &s, LaneLoop &lanes, ElemType t) {
  for (const LStmt *r : lanes.reducers)
    line(fmt::format("if (moa_lane != 0) {} = {};", name(r->scalar), identity(*r)));
  if (std::optional<VectorLoop> vector = vectorLoop(s, k)) {
    vectorLaneLoop(s, *vector, t);
  } else {
    const std::string &v = name(s.var);
    std::string step = s.step == SymExpr(1) ? "" : " * " + integer(s.step);
    bool stores = false;
    forEachAccess(s.body, [&](size_t, const SymExpr &, bool isStore) { stores |= isStore; });
    if (!stores) // a reduction: the loads of four iterations in flight at once
      line("#pragma unroll 4");
    line(fmt::format("for (int64_t {} = {} + moa_lane{}; {} < {}; {} += 32{}) {{", v, integer(s.start), step, v,
                     integer(s.end), v, step));
    for (const LStmt &x : s.body)
      stmt(x, t);
    line("}");
  }
  for (const LStmt *r : lanes.reducers) {
    const char *suffix = r->type == ElemType::Int ? "i" : r->type == ElemType::F32 ? "f" : "";
    const char *op = r->op == BinOp::Add ? "add" : r->op == BinOp::Mul ? "mul" : r->op == BinOp::Max ? "max" : "min";
    // no `/* FILE:LINE */`: that comment marks the loop IR's own statements (explain --html counts them)
    line(fmt::format("{} = moart_warp_{}{}({}); /* the lanes' partial results combined */", name(r->scalar), op,
                     suffix, name(r->scalar)));
  }
  bool barrier = false;
  forEachAccess(s.body, [&](size_t b, const SymExpr &offset, bool isStore) {
    barrier |= isStore && !lanePrivate(b, s, offset);
  });
  if (barrier)
    line("__syncwarp(); /* the lanes' stores are seen by the whole warp */");
}

// The register a VectorLoop's accesses hold across an enclosing loop (holdAcross), if any.
const CudaPrinter::Held *CudaPrinter::heldBy(const VectorLoop &v) const {
  for (const auto *list : {&v.loads, &v.stores})
    for (const VectorLoop::Access &a : *list)
      if (auto h = held.find({a.buffer, a.base}); h != held.end())
        return &h->second;
  return nullptr;
}

// The run-time test that a VectorLoop's accesses (but the held ones) may be made 16 bytes at a time: every
// pointer 16-byte aligned, every access's first offset a multiple of four.
std::string CudaPrinter::alignedTest(const LStmt &s, const VectorLoop &v) {
  std::vector<std::string> tests;
  std::set<size_t> pointers;
  for (const auto *list : {&v.loads, &v.stores})
    for (const VectorLoop::Access &a : *list) {
      if (held.count({a.buffer, a.base}))
        continue;
      if (pointers.insert(a.buffer).second)
        tests.push_back(fmt::format("((uintptr_t){} & 15u) == 0", cn.buffer(a.buffer)));
      SymExpr first = a.base + s.start;
      std::optional<int64_t> known = first.constant();
      std::string test = known ? (*known % 4 == 0 ? "" : "false") : fmt::format("(({}) & 3) == 0", integer(first));
      if (!test.empty() && std::find(tests.begin(), tests.end(), test) == tests.end())
        tests.push_back(test);
    }
  return tests.empty() ? "true" : fmt::format("{}", fmt::join(tests, " && "));
}

// The group of four iterations from `moa_g` with 16-byte accesses: each access (but the held ones, whose
// register is live across the enclosing loop) loaded once before the statements, which are printed once
// per iteration with the access a component of its vector, and stored once after them.
void CudaPrinter::vectorGroup(const LStmt &s, const VectorLoop &v, ElemType t) {
  auto at = [&](const VectorLoop::Access &a) {
    return fmt::format("{}[{}]", cn.buffer(a.buffer),
                       a.base == SymExpr(0) ? "moa_g" : fmt::format("{} + moa_g", integer(a.base)));
  };
  std::map<std::pair<size_t, SymExpr>, std::string> regs; // {buffer, base} → its float4
  for (const auto &[key, h] : held)
    regs[key] = h.reg;
  for (const auto &[key, r] : prefetched)
    regs[key] = r;
  for (const VectorLoop::Access &a : v.loads)
    if (regs.emplace(std::pair{a.buffer, a.base}, fmt::format("moa_r{}", regs.size())).second)
      line(fmt::format("float4 {} = *(const float4 *)&{};", regs[{a.buffer, a.base}], at(a)));
  for (const VectorLoop::Access &a : v.stores)
    if (regs.emplace(std::pair{a.buffer, a.base}, fmt::format("moa_r{}", regs.size())).second)
      line(fmt::format("float4 {};", regs[{a.buffer, a.base}]));
  // whether the statements read the index other than through the vector accesses
  bool readsIndex = false;
  std::function<void(const LExprPtr &)> visit = [&](const LExprPtr &e) {
    if (!e)
      return;
    if (e->kind == LExprKind::Load && e->offset.dependsOn(s.var))
      return; // a vector access (vectorLoop)
    readsIndex |= (e->kind == LExprKind::Var && e->var == s.var) ||
                  (e->kind == LExprKind::Int && e->intValue.dependsOn(s.var)) ||
                  (e->kind == LExprKind::Select && (e->lhs.dependsOn(s.var) || e->rhs.dependsOn(s.var)));
    for (const LExprPtr &a : e->args)
      visit(a);
  };
  for (const LStmt &x : s.body)
    visit(x.value);
  const bool wasLocated = locate;
  locate = false;
  static const char *const component[] = {".x", ".y", ".z", ".w"};
  for (int u = 0; u < 4; ++u) {
    line("{");
    if (readsIndex)
      line(fmt::format("const int64_t {} = moa_g + {};", name(s.var), u));
    registers.clear();
    for (const auto &[key, text] : regs)
      registers[{key.first, key.second + SymExpr::symbol(s.var)}] = text + component[u];
    for (const LStmt &x : s.body)
      stmt(x, t);
    line("}");
  }
  registers.clear();
  locate = wasLocated;
  for (const VectorLoop::Access &a : v.stores)
    if (!held.count({a.buffer, a.base}))
      line(fmt::format("*(float4 *)&{} = {};", at(a), regs[{a.buffer, a.base}]));
}

// Lane l takes the iterations 4l…4l+3, 4l+128…, of a VectorLoop: where the group is whole and every
// vector access is 16-byte aligned (tested once, before the loop: the pointers and each access's first
// offset), four floats a load or store (vectorGroup); otherwise the same iterations one by one (the
// statements located for explain). Where the loop's stores are held in registers across an enclosing
// loop (holdAcross), and that was possible at run time, the lane's one group reads and updates its
// registers instead: through its components on the scalar path (a conditional of the four, an lvalue in C++).
void CudaPrinter::vectorLaneLoop(const LStmt &s, const VectorLoop &v, ElemType t) {
  const Held *keep = heldBy(v);
  if (keep) {
    line(fmt::format("if ({}) {{", keep->possible));
    line(fmt::format("const bool moa_vec{} = {};", vectorLoops, alignedTest(s, v)));
    line(fmt::format("if ({}) {{", keep->owns));
    line(fmt::format("const int64_t moa_g = {} + 4 * moa_lane;", integer(s.start)));
    bool others = false; // accesses not held, which the scalar path makes when they are not aligned
    for (const auto *list : {&v.loads, &v.stores})
      for (const VectorLoop::Access &a : *list)
        others |= !held.count({a.buffer, a.base});
    line(fmt::format("if (moa_vec{}) {{", vectorLoops++));
    vectorGroup(s, v, t);
    line(others ? "} else {" : "} else { /* not reached: every access is held */");
    const bool wasLocated = locate;
    locate = false;
    line("for (int64_t moa_u = moa_g; moa_u < moa_g + 4; ++moa_u) {");
    line(fmt::format("const int64_t {} = moa_u;", name(s.var)));
    if (!others)
      line(fmt::format("(void){};", name(s.var)));
    for (const auto &[key, h] : held)
      registers[{key.first, key.second + SymExpr::symbol(s.var)}] = fmt::format(
          "(moa_u == moa_g ? {0}.x : moa_u == moa_g + 1 ? {0}.y : moa_u == moa_g + 2 ? {0}.z : {0}.w)", h.reg);
    for (const LStmt &x : s.body)
      stmt(x, t);
    registers.clear();
    locate = wasLocated;
    line("}");
    line("}");
    line("}");
    line("} else {");
  }
  const std::string aligned = fmt::format("moa_vec{}", vectorLoops++);
  auto heldNow = std::move(held); // the fallback of a held loop accesses memory
  held.clear();
  auto prefetchedNow = std::move(prefetched);
  prefetched.clear();
  line(fmt::format("const bool {} = {};", aligned, alignedTest(s, v)));
  const std::string &var = name(s.var), end = integer(s.end);
  line(fmt::format("for (int64_t moa_g = {} + 4 * moa_lane; moa_g < {}; moa_g += 128) {{", integer(s.start), end));
  line(fmt::format("if ({} && moa_g + 4 <= {}) {{", aligned, end));
  vectorGroup(s, v, t);
  line("} else {");
  line(fmt::format("for (int64_t {} = moa_g; {} < moa_g + 4 && {} < {}; ++{}) {{", var, var, var, end, var));
  for (const LStmt &x : s.body)
    stmt(x, t);
  line("}");
  line("}");
  line("}");
  held = std::move(heldNow);
  prefetched = std::move(prefetchedNow);
  if (keep)
    line("}");
}

// The buffers that the lane loops inside a serial loop of a warp update at an element that does not move
// with it (o's partial row, updated once per row of V): each lane's group of four held in a float4 register
// across the loop, loaded before it and stored after it, where at run time the loop's extent is at most
// 128 and a multiple of four and the accesses are aligned (else the lane loops access memory as before).
// Every access to the buffer inside the loop must be such a lane loop's, at the same element.
void CudaPrinter::holdAcross(const LStmt &loop, ElemType t) {
  struct Candidate {
    const LStmt *lanes;
    VectorLoop::Access access;
  };
  std::vector<Candidate> found;
  std::function<void(const std::vector<LStmt> &)> collect = [&](const std::vector<LStmt> &body) {
    for (const LStmt &s : body) {
      if (s.kind == LStmt::If) {
        collect(s.body);
        collect(s.orElse);
      } else if (s.kind == LStmt::Loop && LaneLoop(s).independent()) {
        if (std::optional<VectorLoop> v = vectorLoop(s, k))
          for (const VectorLoop::Access &a : v->stores)
            found.push_back({&s, a});
      }
    }
  };
  collect(loop.body);
  std::vector<Candidate> kept;
  for (const Candidate &c : found) {
    const LStmt &x = *c.lanes;
    bool ok = !c.access.base.dependsOn(loop.var) && !x.start.dependsOn(loop.var) && !x.end.dependsOn(loop.var) &&
              !held.count({c.access.buffer, c.access.base});
    for (const Candidate &o : kept)
      ok &= o.access.buffer != c.access.buffer; // one element of a buffer held, once
    // every access to the buffer in the loop is a candidate's lane loop's, at the same element
    forEachLaneAccess(loop.body, [&](size_t b, const SymExpr &offset, const LStmt *inner) {
      if (b != c.access.buffer)
        return;
      ok &= inner && inner->start == x.start && inner->end == x.end && vectorLoop(*inner, k).has_value() &&
            offset == c.access.base + SymExpr::symbol(inner->var);
    });
    if (ok)
      kept.push_back(c);
  }
  for (const Candidate &c : kept) {
    const LStmt &x = *c.lanes;
    int n = heldCount++;
    Held h{fmt::format("moa_h{}", n), fmt::format("moa_hold{}", n), fmt::format("moa_own{}", n)};
    SymExpr extent = x.end - x.start, first = c.access.base + x.start;
    line(fmt::format("const bool {} = ((uintptr_t){} & 15u) == 0 && (({}) & 3) == 0 && {} <= 128 && (({}) & 3) == 0;",
                     h.possible, cn.buffer(c.access.buffer), integer(first), integer(extent), integer(extent)));
    line(fmt::format("const bool {} = {} && {} + 4 * moa_lane < {};", h.owns, h.possible, integer(x.start),
                     integer(x.end)));
    line(fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", h.reg));
    line(fmt::format("if ({})", h.owns));
    line(fmt::format("{} = *(const float4 *)&{}[{} + 4 * moa_lane];", h.reg, cn.buffer(c.access.buffer),
                     integer(first)));
    held.emplace(std::pair{c.access.buffer, c.access.base}, h);
  }
  line(loopHeader(loop));
  warpBlock(loop.body, t);
  line("}");
  for (const Candidate &c : kept) {
    const Held &h = held.at({c.access.buffer, c.access.base});
    line(fmt::format("if ({})", h.owns));
    line(fmt::format("*(float4 *)&{}[{} + 4 * moa_lane] = {};", cn.buffer(c.access.buffer),
                     integer(c.access.base + c.lanes->start), h.reg));
    held.erase({c.access.buffer, c.access.base});
  }
}

// Statements of a warp, where a lane loop among them updates held registers (holdAcross): its lane then
// runs one group of four, known here, so its 16-byte loads of inputs that the kernel never writes are
// issued first, before the statements before it (a score's dot product and its shuffles): the loads of
// K's row and V's row are then in flight together, not one after the other.
void CudaPrinter::warpBlock(const std::vector<LStmt> &body, ElemType t) {
  std::vector<std::pair<size_t, SymExpr>> issued;
  for (const LStmt &s : body) {
    if (held.empty() || s.kind != LStmt::Loop || !LaneLoop(s).independent())
      continue;
    std::optional<VectorLoop> v = vectorLoop(s, k);
    if (!v)
      continue;
    const Held *keep = heldBy(*v);
    if (!keep)
      continue;
    for (const VectorLoop::Access &a : v->loads) {
      const Buffer &b = k.buffers[a.buffer];
      if (b.role != Buffer::Input || b.inout || held.count({a.buffer, a.base}) || prefetched.count({a.buffer, a.base}))
        continue;
      std::string r = fmt::format("moa_pf{}", prefetchCount++);
      SymExpr first = a.base + s.start;
      line(fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", r));
      line(fmt::format("if ({} && ((uintptr_t){} & 15u) == 0 && (({}) & 3) == 0)", keep->owns, cn.buffer(a.buffer),
                       integer(first)));
      line(fmt::format("{} = *(const float4 *)&{}[{} + 4 * moa_lane];", r, cn.buffer(a.buffer), integer(first)));
      prefetched.emplace(std::pair{a.buffer, a.base}, r);
      issued.push_back({a.buffer, a.base});
    }
  }
  for (const LStmt &x : body)
    warpStmt(x, t);
  for (const auto &key : issued)
    prefetched.erase(key);
}

// A statement of a warp's split: uniform (every lane computes it alike), a loop spread over the lanes,
// or a store of a uniform value, which the first lane writes.
void CudaPrinter::warpStmt(const LStmt &s, ElemType t) {
  switch (s.kind) {
  case LStmt::Loop: {
    LaneLoop lanes(s);
    if (lanes.independent()) {
      laneLoop(s, lanes, t);
      return;
    }
    holdAcross(s, t);
    return;
  }
  case LStmt::If:
    line(ifHeader(s));
    warpBlock(s.body, t);
    if (!s.orElse.empty()) {
      line("} else {");
      warpBlock(s.orElse, t);
    }
    line("}");
    return;
  case LStmt::Store:
    line("if (moa_lane == 0) {");
    stmt(s, t);
    line("}");
    line("__syncwarp();");
    return;
  default: stmt(s, t);
  }
}

// The kernel's parameters: every dim and chunk count (a kernel need not read each: `(void)`), then the
// buffers it touches. Inputs it only reads are const and __restrict__; a partials buffer may be its own
// result (one chunk), so written buffers are not.
std::string CudaPrinter::params(const std::set<size_t> &used) const {
  std::vector<std::string> out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out.push_back("int64_t " + cn.dim(d.sym));
  for (const ChunkCount &c : k.chunkCounts)
    out.push_back("int64_t " + cn.dim(c.sym));
  for (size_t b : used) {
    const Buffer &buf = k.buffers[b];
    bool readOnly = buf.role == Buffer::Input && !buf.inout;
    out.push_back(fmt::format("{}{} *{}{}", readOnly ? "const " : "", cType(buf.elem), readOnly ? "__restrict__ " : "",
                              cn.buffer(b)));
  }
  return fmt::format("{}", fmt::join(out, ", "));
}

std::string CudaPrinter::args(const std::set<size_t> &used) const {
  std::vector<std::string> out;
  for (const TDim &d : k.dims)
    if (!d.value)
      out.push_back(cn.dim(d.sym));
  for (const ChunkCount &c : k.chunkCounts)
    out.push_back(cn.dim(c.sym));
  for (size_t b : used)
    out.push_back(cn.buffer(b));
  return fmt::format("{}", fmt::join(out, ", "));
}

// The nest's iteration count, Π (end − start).
std::string CudaPrinter::total(const ParallelNest &nest) {
  std::string out;
  for (const LStmt *l : nest.loops)
    out += fmt::format("{}{}", out.empty() ? "" : " * ", integer(l->end - l->start));
  return out.empty() ? "1" : out;
}

void CudaPrinter::region(const Region &r) {
  const std::string kernel = fmt::format("{}_stage{}", k.name, stages++);
  const ParallelNest nest = nestOf(r);
  const bool warps = !nest.loops.empty() && (r.part == Region::Splits || spreadsChunks(*nest.body));
  // a warp region runs four warps a block, except a combine with fewer warps than the device keeps resident
  // (as few as one a result): one a block then, so that they spread over every SM (chosen at the launch)
  const int threads = warps ? warpThreadsPerBlock : threadsPerBlock;
  const bool fewWarps = warps && r.part != Region::Splits;
  std::set<size_t> used;
  forEachAccess(r.body, [&](size_t b, const SymExpr &, bool) { used.insert(b); });
  const ElemType t = regionType(r);
  floatType = t == ElemType::Int ? ElemType::F32 : t;

  // the kernel, printed into `body` and moved to `kernels`
  std::string host = std::move(body);
  body.clear();
  line(fmt::format("/* {} */", commentText(regionName(k, r))));
  // a split pass: as many warps resident on an SM as its split count aims for (a register budget)
  std::string bounds = r.part == Region::Splits
                           ? fmt::format("{}, MOART_CUDA_SPLIT_WARPS_PER_SM / {}", threads, threads / 32)
                           : std::to_string(threads);
  line(fmt::format("__global__ void __launch_bounds__({}) {}({}) {{", bounds, kernel, params(used)));
  for (const TDim &d : k.dims)
    if (!d.value)
      line(fmt::format("(void){};", cn.dim(d.sym)));
  for (const ChunkCount &c : k.chunkCounts)
    line(fmt::format("(void){};", cn.dim(c.sym)));
  std::set<Symbol> known;
  for (const TDim &d : k.dims)
    known.insert(d.sym);
  for (const ChunkCount &c : k.chunkCounts)
    known.insert(c.sym);
  hoisted.clear();
  hoist(r.body, known);
  if (nest.loops.empty()) {
    for (const LStmt &s : r.body)
      stmt(s, t);
  } else {
    for (size_t d = 0; d < nest.loops.size(); ++d)
      line(fmt::format("const int64_t moa_extent{} = {};", d, integer(nest.loops[d]->end - nest.loops[d]->start)));
    std::string count;
    for (size_t d = 0; d < nest.loops.size(); ++d)
      count += fmt::format("{}moa_extent{}", d ? " * " : "", d);
    line(fmt::format("const int64_t moa_total = {};", count));
    if (warps) {
      line("const int moa_lane = (int)(threadIdx.x & 31u);");
      line("for (int64_t moa_t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; moa_t < moa_total;"
           " moa_t += ((int64_t)gridDim.x * blockDim.x) >> 5) {");
    } else {
      line("for (int64_t moa_t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; moa_t < moa_total;"
           " moa_t += (int64_t)gridDim.x * blockDim.x) {");
    }
    line("int64_t moa_rest = moa_t;");
    for (size_t d = nest.loops.size(); d-- > 0;) {
      const LStmt &l = *nest.loops[d];
      if (d == 0)
        line(fmt::format("const int64_t {} = {} + moa_rest;", name(l.var), integer(l.start)));
      else
        line(fmt::format("const int64_t {} = {} + moa_rest % moa_extent{};\nmoa_rest /= moa_extent{};", name(l.var),
                         integer(l.start), d, d));
    }
    for (const LStmt *l : nest.loops)
      known.insert(l->var);
    auto perIteration = hoist(*nest.body, known);
    warpBody = nest.body;
    for (const LStmt &s : *nest.body)
      warps ? warpStmt(s, t) : stmt(s, t);
    for (const auto &key : perIteration) // their locals end with the iteration
      hoisted.erase(key);
    line("}");
  }
  line("}");
  line("");
  hoisted.clear();
  kernels += body;
  body = std::move(host);

  // the launch
  line("");
  line(fmt::format("/* {} */", commentText(regionName(k, r))));
  if (r.onlyIfChunks)
    line(fmt::format("if ({} > 1) {{", name(*r.onlyIfChunks)));
  line("{");
  const int per = warps ? threads / 32 : threads;
  line(fmt::format("const int64_t moa_total = {};", nest.loops.empty() ? "1" : total(nest)));
  if (fewWarps) {
    line(fmt::format("const int moa_per = moa_total < moart_cuda_device_warps() ? 1 : {};", per));
    line("const int64_t moa_blocks = (moa_total + moa_per - 1) / moa_per;");
  } else {
    line(fmt::format("const int64_t moa_blocks = (moa_total + {}) / {};", per - 1, per));
  }
  line("if (moa_total > 0)");
  line(fmt::format("{}<<<(unsigned)(moa_blocks < INT64_C({}) ? moa_blocks : INT64_C({})), {}, 0, stream>>>({});",
                   kernel, maxBlocks, maxBlocks,
                   nest.loops.empty() ? "1" : fewWarps ? "32 * moa_per" : std::to_string(threads), args(used)));
  line("}");
  if (r.onlyIfChunks)
    line("}");
}

} // namespace

EmittedKernel emitCuda(const Kernel &kernel, const EmitInputs &inputs) { return CudaPrinter(kernel).print(inputs); }

} // namespace moac
