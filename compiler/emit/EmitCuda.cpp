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
//     splits or chunks, thousands on a GPU) that lanes may take, one warp computes each result — or, with
//     fewer results than the device has warps (decode: dv of them), a whole block of up to 32 warps
//     (moa_width threads, chosen at the launch), its reductions exchanged through shared memory.
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
  void kernelOf(const Region &r, const ParallelNest &nest, const std::string &kernel, bool warps, bool wide,
                const std::set<size_t> &used, ElemType t, const char *note = "");
  void warpStmt(const LStmt &s, ElemType t);
  void laneLoop(const LStmt &s, LaneLoop &spread, ElemType t);
  std::string identity(const LStmt &reducer) const;
  std::string params(const std::set<size_t> &used) const;
  std::string args(const std::set<size_t> &used) const;
  void launch(const std::string &kernel, const std::string &blocks, const std::string &threads,
              const std::set<size_t> &used);
  std::string total(const ParallelNest &nest);
  std::vector<std::tuple<bool, SymExpr, SymExpr>> hoist(const std::vector<LStmt> &body, const std::set<Symbol> &known);
  bool lanePrivate(size_t buffer, const LStmt &loop, const SymExpr &offset) const;

  const std::vector<LStmt> *warpBody = nullptr; // the statements of a warp's iteration
  // The lanes one value of the warp's iteration runs on: 32, or in a packed split pass (Region::packing)
  // 32 / packing, the group of moa_lane; then only live groups (moa_live: a value inside its extent) store.
  int lanes = 32;
  bool packed = false;
  // A combine (see the file comment): a result's lanes are moa_width threads, a warp or a block.
  bool combine = false;
  std::string laneStep() const { return combine ? "moa_width" : std::to_string(lanes); }
  std::string widthArg() const { return lanes == 32 ? "" : fmt::format(", {}", lanes); }
  // A lane's groups of four in a held lane loop: 128 / (4 · lanes), so that they cover 128 iterations.
  int groups() const { return 32 / lanes; }
  // The offset of a lane's group from the loop's start: 4 · moa_lane, + 4 · lanes · group.
  std::string groupStart(int group) const {
    return group ? fmt::format("4 * moa_lane + {}", 4 * lanes * group) : "4 * moa_lane";
  }
  int vectorLoops = 0;                           // numbers their alignment tests
  void vectorLaneLoop(const LStmt &s, const VectorLoop &v, ElemType t);
  std::string alignedTest(const LStmt &s, const VectorLoop &v);
  void vectorGroup(const LStmt &s, const VectorLoop &v, ElemType t, int group);
  void holdAcross(const LStmt &loop, ElemType t);
  // The elements held in registers across a serial loop of a warp (holdAcross): {buffer, base} → the lane's
  // float4 for each of its groups, whether holding was possible at run time (warp-uniform), and whether the
  // lane owns each group.
  struct Held {
    std::vector<std::string> regs;
    std::string possible;
    std::vector<std::string> owns;
  };
  std::map<std::pair<size_t, SymExpr>, Held> held;
  const Held *heldBy(const VectorLoop &v) const;
  int heldCount = 0, prefetchCount = 0;
  // The loads of read-only inputs that a held lane loop makes, issued at the start of the statements that
  // hold the loop (prefetch): {buffer, base} → the lane's float4 for each of its groups.
  std::map<std::pair<size_t, SymExpr>, std::vector<std::string>> prefetched;
  void warpBlock(const std::vector<LStmt> &body, ElemType t);
  bool pipeline(const LStmt &loop, ElemType t);
  // While a pipelined loop's body prints (pipeline): each lane loop's groups that the lane owns.
  std::map<const LStmt *, std::vector<std::string>> piped;
  int pipeCount = 0;

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
void CudaPrinter::laneLoop(const LStmt &s, LaneLoop &spread, ElemType t) {
  for (const LStmt *r : spread.reducers)
    line(fmt::format("if (moa_lane != 0) {} = {};", name(r->scalar), identity(*r)));
  bool stores = false;
  forEachAccess(s.body, [&](size_t, const SymExpr &, bool isStore) { stores |= isStore; });
  if (stores && packed)
    line("if (moa_live) {");
  if (std::optional<VectorLoop> vector = vectorLoop(s, k)) {
    vectorLaneLoop(s, *vector, t);
  } else {
    const std::string &v = name(s.var);
    std::string step = s.step == SymExpr(1) ? "" : " * " + integer(s.step);
    if (!stores) // a reduction: the loads of four iterations in flight at once
      line("#pragma unroll 4");
    line(fmt::format("for (int64_t {} = {} + moa_lane{}; {} < {}; {} += {}{}) {{", v, integer(s.start), step, v,
                     integer(s.end), v, laneStep(), step));
    for (const LStmt &x : s.body)
      stmt(x, t);
    line("}");
  }
  if (stores && packed)
    line("}");
  for (const LStmt *r : spread.reducers) {
    const char *suffix = r->type == ElemType::Int ? "i" : r->type == ElemType::F32 ? "f" : "";
    const char *op = r->op == BinOp::Add ? "add" : r->op == BinOp::Mul ? "mul" : r->op == BinOp::Max ? "max" : "min";
    // no `/* FILE:LINE */`: that comment marks the loop IR's own statements (explain --html counts them)
    line(fmt::format("{} = moart_{}_{}{}({}{}); /* the lanes' partial results combined */", name(r->scalar),
                     combine ? "group" : "warp", op, suffix, name(r->scalar),
                     combine ? ", moa_width, moa_scratch" : widthArg()));
  }
  bool barrier = false;
  forEachAccess(s.body, [&](size_t b, const SymExpr &offset, bool isStore) {
    barrier |= isStore && !lanePrivate(b, s, offset);
  });
  if (barrier)
    line(combine ? "moart_group_sync(moa_width); /* the lanes' stores are seen by the result's threads */"
                 : "__syncwarp(); /* the lanes' stores are seen by the whole warp */");
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
void CudaPrinter::vectorGroup(const LStmt &s, const VectorLoop &v, ElemType t, int group) {
  auto at = [&](const VectorLoop::Access &a) {
    return fmt::format("{}[{}]", cn.buffer(a.buffer),
                       a.base == SymExpr(0) ? "moa_g" : fmt::format("{} + moa_g", integer(a.base)));
  };
  std::map<std::pair<size_t, SymExpr>, std::string> regs; // {buffer, base} → its float4
  for (const auto &[key, h] : held)
    regs[key] = h.regs[size_t(group)];
  for (const auto &[key, r] : prefetched)
    regs[key] = r[size_t(group)];
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

// Lane l takes the iterations 4l…4l+3, 4l+4·lanes…, of a VectorLoop: where the group is whole and every
// vector access is 16-byte aligned (tested once, before the loop: the pointers and each access's first
// offset), four floats a load or store (vectorGroup); otherwise the same iterations one by one (the
// statements located for explain). Where the loop's stores are held in registers across an enclosing
// loop (holdAcross), and that was possible at run time, the lane's groups read and update its
// registers instead: through their components on the scalar path (a conditional of the four, an lvalue in
// C++).
void CudaPrinter::vectorLaneLoop(const LStmt &s, const VectorLoop &v, ElemType t) {
  if (auto pipe = piped.find(&s); pipe != piped.end()) { // every access in a register (pipeline)
    for (int group = 0; group < groups(); ++group) {
      line(fmt::format("if ({}) {{", pipe->second[size_t(group)]));
      line(fmt::format("const int64_t moa_g = {} + {};", integer(s.start), groupStart(group)));
      line("(void)moa_g;");
      vectorGroup(s, v, t, group);
      line("}");
    }
    return;
  }
  const Held *keep = heldBy(v);
  if (keep) {
    line(fmt::format("if ({}) {{", keep->possible));
    const int test = vectorLoops++;
    line(fmt::format("const bool moa_vec{} = {};", test, alignedTest(s, v)));
    bool others = false; // accesses not held, which the scalar path makes when they are not aligned
    for (const auto *list : {&v.loads, &v.stores})
      for (const VectorLoop::Access &a : *list)
        others |= !held.count({a.buffer, a.base});
    for (int group = 0; group < groups(); ++group) {
      line(fmt::format("if ({}) {{", keep->owns[size_t(group)]));
      line(fmt::format("const int64_t moa_g = {} + {};", integer(s.start), groupStart(group)));
      line(fmt::format("if (moa_vec{}) {{", test));
      vectorGroup(s, v, t, group);
      line(others ? "} else {" : "} else { /* not reached: every access is held */");
      const bool wasLocated = locate;
      locate = false;
      line("for (int64_t moa_u = moa_g; moa_u < moa_g + 4; ++moa_u) {");
      line(fmt::format("const int64_t {} = moa_u;", name(s.var)));
      if (!others)
        line(fmt::format("(void){};", name(s.var)));
      for (const auto &[key, h] : held)
        registers[{key.first, key.second + SymExpr::symbol(s.var)}] =
            fmt::format("(moa_u == moa_g ? {0}.x : moa_u == moa_g + 1 ? {0}.y : moa_u == moa_g + 2 ? {0}.z : {0}.w)",
                        h.regs[size_t(group)]);
      for (const LStmt &x : s.body)
        stmt(x, t);
      registers.clear();
      locate = wasLocated;
      line("}");
      line("}");
      line("}");
    }
    line("} else {");
  }
  const std::string aligned = fmt::format("moa_vec{}", vectorLoops++);
  auto heldNow = std::move(held); // the fallback of a held loop accesses memory
  held.clear();
  auto prefetchedNow = std::move(prefetched);
  prefetched.clear();
  line(fmt::format("const bool {} = {};", aligned, alignedTest(s, v)));
  const std::string &var = name(s.var), end = integer(s.end);
  line(fmt::format("for (int64_t moa_g = {} + 4 * moa_lane; moa_g < {}; moa_g += {}) {{", integer(s.start), end,
                   combine ? "4 * moa_width" : std::to_string(4 * lanes)));
  line(fmt::format("if ({} && moa_g + 4 <= {}) {{", aligned, end));
  vectorGroup(s, v, t, 0);
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
// with it (o's partial row, updated once per row of V): each lane's groups of four held in float4 registers
// across the loop, loaded before it and stored after it, where at run time the loop's extent is at most
// 128 and a multiple of four and the accesses are aligned (else the lane loops access memory as before).
// A lane has 128 / (4 · lanes) groups: one on 32 lanes, four in a split pass packed four to a warp.
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
  if (!combine) // a combine's lanes are a run-time count: its groups are not known here
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
    Held h{{}, fmt::format("moa_hold{}", n), {}};
    SymExpr extent = x.end - x.start, first = c.access.base + x.start;
    line(fmt::format("const bool {} = ((uintptr_t){} & 15u) == 0 && (({}) & 3) == 0 && {} <= 128 && (({}) & 3) == 0;",
                     h.possible, cn.buffer(c.access.buffer), integer(first), integer(extent), integer(extent)));
    for (int group = 0; group < groups(); ++group) {
      std::string suffix = group ? fmt::format("_{}", group) : "";
      h.regs.push_back(fmt::format("moa_h{}{}", n, suffix));
      h.owns.push_back(fmt::format("moa_own{}{}", n, suffix));
      line(fmt::format("const bool {} = {}{} && {} + {} < {};", h.owns.back(), h.possible, packed ? " && moa_live" : "",
                       integer(x.start), groupStart(group), integer(x.end)));
      line(fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", h.regs.back()));
      line(fmt::format("if ({})", h.owns.back()));
      line(fmt::format("{} = *(const float4 *)&{}[{} + {}];", h.regs.back(), cn.buffer(c.access.buffer),
                       integer(first), groupStart(group)));
    }
    held.emplace(std::pair{c.access.buffer, c.access.base}, h);
  }
  const bool piped = !kept.empty() && pipeline(loop, t);
  line(loopHeader(loop));
  warpBlock(loop.body, t);
  line("}");
  if (piped)
    line("}");
  for (const Candidate &c : kept) {
    const Held &h = held.at({c.access.buffer, c.access.base});
    for (int group = 0; group < groups(); ++group) {
      line(fmt::format("if ({})", h.owns[size_t(group)]));
      line(fmt::format("*(float4 *)&{}[{} + {}] = {};", cn.buffer(c.access.buffer),
                       integer(c.access.base + c.lanes->start), groupStart(group), h.regs[size_t(group)]));
    }
    held.erase({c.access.buffer, c.access.base});
  }
}

// A serial loop of a warp whose lane loops' accesses are all held registers (holdAcross) or loads of
// read-only inputs, and which run one pass a lane (at most 128 iterations, a multiple of four, aligned):
// where that holds at run time (one test before the loop), the loop runs software-pipelined. The loads that
// move with the loop's index (a row of K, of V) are made one iteration ahead, into registers that the next
// iteration reads, and the invariant ones (q's row) once before it; the lane loops inside read only
// registers, with no test a row. Prints `if (test) { registers; pipelined loop }  else {` and returns true,
// the caller printing the loop as before and the closing brace; or prints nothing and returns false.
bool CudaPrinter::pipeline(const LStmt &loop, ElemType t) {
  struct Lanes {
    const LStmt *loop;
    VectorLoop v;
    std::vector<const LStmt *> guards; // the Ifs around it in the loop's body
  };
  std::vector<Lanes> found;
  std::vector<const LStmt *> path;
  bool ok = loop.step == SymExpr(1);
  bool onValue = false; // inside an If on a value (the online softmax's `next != m`), known only in the row
  std::function<void(const std::vector<LStmt> &)> walk = [&](const std::vector<LStmt> &body) {
    for (const LStmt &s : body) {
      if (s.kind == LStmt::If && s.value) {
        // its lane loops may only read and write held registers: no load to issue ahead under it
        ok &= s.orElse.empty();
        const bool was = onValue;
        onValue = true;
        walk(s.body);
        onValue = was;
      } else if (s.kind == LStmt::If) {
        // a guard on the index (l < n): it decides the next iteration's loads too
        ok &= !onValue && s.orElse.empty() && (s.lhs.dependsOn(loop.var) || s.rhs.dependsOn(loop.var));
        path.push_back(&s);
        walk(s.body);
        path.pop_back();
      } else if (s.kind == LStmt::Loop) {
        std::optional<VectorLoop> v = LaneLoop(s).independent() ? vectorLoop(s, k) : std::nullopt;
        ok &= v && !s.start.dependsOn(loop.var) && !s.end.dependsOn(loop.var);
        if (v && onValue)
          for (const VectorLoop::Access &a : v->loads)
            ok &= held.count({a.buffer, a.base}) > 0;
        if (v)
          found.push_back({&s, *v, path});
      }
    }
  };
  walk(loop.body);
  if (!ok || found.empty())
    return false;
  // the loads in registers: {buffer, base} → the lane loop that makes it and whether it moves with the loop
  struct Stream {
    size_t buffer;
    SymExpr base;
    const Lanes *lanes;
    bool moves;
    SymExpr step;                  // the offset's change from one iteration to the next
    std::vector<std::string> regs; // per group: the next iteration's (moves) or the loop's (invariant)
    std::string offset{};          // moves: the local holding the next load's offset, stepped each iteration
  };
  std::vector<Stream> streams;
  std::vector<std::string> tests;
  auto multipleOf4 = [&](const SymExpr &e) {
    std::optional<int64_t> known = e.constant();
    std::string test = known ? (*known % 4 == 0 ? "" : "false") : fmt::format("(({}) & 3) == 0", integer(e));
    if (!test.empty() && std::find(tests.begin(), tests.end(), test) == tests.end())
      tests.push_back(test);
  };
  std::set<std::string> possible;
  for (const Lanes &x : found) {
    for (const VectorLoop::Access &a : x.v.stores)
      if (!held.count({a.buffer, a.base}))
        return false;
    for (const VectorLoop::Access &a : x.v.loads) {
      if (auto h = held.find({a.buffer, a.base}); h != held.end()) {
        possible.insert(h->second.possible);
        continue;
      }
      const Buffer &b = k.buffers[a.buffer];
      std::optional<SymExpr> step = a.base.linearCoefficient(loop.var);
      if (b.role != Buffer::Input || b.inout || !step)
        return false;
      auto same = std::find_if(streams.begin(), streams.end(),
                               [&](const Stream &o) { return o.buffer == a.buffer && o.base == a.base; });
      if (same != streams.end()) {
        if (!(same->lanes->loop->start == x.loop->start && same->lanes->loop->end == x.loop->end))
          return false;
        continue;
      }
      streams.push_back({a.buffer, a.base, &x, a.base.dependsOn(loop.var), *step, {}});
      std::string aligned = fmt::format("((uintptr_t){} & 15u) == 0", cn.buffer(a.buffer));
      if (std::find(tests.begin(), tests.end(), aligned) == tests.end())
        tests.push_back(aligned);
      multipleOf4(a.base.substitute({{loop.var, loop.start}}) + x.loop->start);
      if (streams.back().moves)
        multipleOf4(*step);
    }
    SymExpr extent = x.loop->end - x.loop->start;
    std::string fits = fmt::format("{} <= {}", integer(extent), 4 * lanes * groups());
    if (std::find(tests.begin(), tests.end(), fits) == tests.end())
      tests.push_back(fits);
    multipleOf4(extent);
  }
  for (const std::string &p : possible)
    tests.insert(tests.begin(), p);
  const int n = pipeCount++;
  line(fmt::format("const bool moa_pipe{} = {};", n, fmt::join(tests, " && ")));
  line(fmt::format("if (moa_pipe{}) {{", n));
  // each lane loop's groups that this lane owns
  for (size_t x = 0; x < found.size(); ++x) {
    std::vector<std::string> owns;
    for (int group = 0; group < groups(); ++group) {
      owns.push_back(fmt::format("moa_on{}_{}_{}", n, x, group));
      line(fmt::format("const bool {} = {}{} + {} < {};", owns.back(), packed ? "moa_live && " : "",
                       integer(found[x].loop->start), groupStart(group), integer(found[x].loop->end)));
    }
    piped[found[x].loop] = owns;
  }
  auto ownsOf = [&](const Lanes *x) -> const std::vector<std::string> & { return piped.at(x->loop); };
  auto load = [&](const Stream &st, int group, const SymExpr &at) {
    return fmt::format("*(const float4 *)&{}[{} + {}]", cn.buffer(st.buffer),
                       st.moves ? st.offset : integer(st.base.substitute({{loop.var, at}}) + st.lanes->loop->start),
                       groupStart(group));
  };
  // the loads of iteration `at` into the next iteration's registers, where its guards hold
  auto loadAhead = [&](const SymExpr &at, const std::string &inRange) {
    for (const Lanes &x : found) {
      std::vector<std::string> conditions{inRange};
      for (const LStmt *g : x.guards)
        conditions.push_back(fmt::format("{} < {}", integer(g->lhs.substitute({{loop.var, at}})),
                                         integer(g->rhs.substitute({{loop.var, at}}))));
      bool any = false;
      for (const Stream &st : streams)
        any |= st.moves && st.lanes == &x;
      if (!any)
        continue;
      line(fmt::format("if ({}) {{", fmt::join(conditions, " && ")));
      for (const Stream &st : streams)
        if (st.moves && st.lanes == &x)
          for (int group = 0; group < groups(); ++group)
            line(fmt::format("if ({}) {} = {};", ownsOf(&x)[size_t(group)], st.regs[size_t(group)], load(st, group, at)));
      line("}");
    }
  };
  for (size_t i = 0; i < streams.size(); ++i) {
    Stream &st = streams[i];
    for (int group = 0; group < groups(); ++group) {
      st.regs.push_back(fmt::format("moa_{}{}_{}_{}", st.moves ? "nx" : "iv", n, i, group));
      line(fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", st.regs.back()));
      if (!st.moves)
        line(fmt::format("if ({}) {} = {};", ownsOf(st.lanes)[size_t(group)], st.regs.back(),
                         load(st, group, SymExpr::symbol(loop.var))));
    }
  }
  // a moving load's offset a local, stepped once an iteration (no 64-bit products a row), and the end once
  for (size_t i = 0; i < streams.size(); ++i)
    if (Stream &st = streams[i]; st.moves) {
      st.offset = fmt::format("moa_so{}_{}", n, i);
      line(fmt::format("int64_t {} = {};", st.offset,
                       integer(st.base.substitute({{loop.var, loop.start}}) + st.lanes->loop->start)));
    }
  const std::string end = fmt::format("moa_end{}", n);
  line(fmt::format("const int64_t {} = {};", end, integer(loop.end)));
  loadAhead(loop.start, fmt::format("{} < {}", integer(loop.start), end));
  // the printer's own loop (`moa_`), like the rest of this copy unlocated: explain --html maps the loop IR's
  // loop to the copy after it
  line(fmt::format("for (int64_t moa_row{0} = {1}; moa_row{0} < {2}; ++moa_row{0}) {{", n, integer(loop.start), end));
  line(fmt::format("const int64_t {} = moa_row{};", name(loop.var), n));
  const SymExpr next = SymExpr::symbol(loop.var) + SymExpr(1);
  std::map<std::pair<size_t, SymExpr>, std::vector<std::string>> current;
  for (size_t i = 0; i < streams.size(); ++i) {
    const Stream &st = streams[i];
    std::vector<std::string> now = st.regs;
    if (st.moves)
      for (int group = 0; group < groups(); ++group) {
        now[size_t(group)] = fmt::format("moa_cx{}_{}_{}", n, i, group);
        line(fmt::format("const float4 {} = {};", now[size_t(group)], st.regs[size_t(group)]));
      }
    current[{st.buffer, st.base}] = now;
  }
  for (const Stream &st : streams)
    if (st.moves)
      line(fmt::format("{} += {};", st.offset, integer(st.step)));
  loadAhead(next, fmt::format("{} < {}", integer(next), end));
  auto outside = std::move(prefetched);
  prefetched = current;
  // the statements' `/* FILE:LINE */` comments go with the copy after it, printed as before (explain --html
  // maps each loop-IR statement to one line of the kernel)
  const bool wasLocated = locate;
  locate = false;
  for (const LStmt &x : loop.body)
    warpStmt(x, t);
  locate = wasLocated;
  prefetched = std::move(outside);
  for (const Lanes &x : found)
    piped.erase(x.loop);
  line("}");
  line("} else {");
  return true;
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
      const int n = prefetchCount++;
      SymExpr first = a.base + s.start;
      std::vector<std::string> regs;
      for (int group = 0; group < groups(); ++group) {
        regs.push_back(fmt::format("moa_pf{}{}", n, group ? fmt::format("_{}", group) : ""));
        line(fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", regs.back()));
        line(fmt::format("if ({} && ((uintptr_t){} & 15u) == 0 && (({}) & 3) == 0)", keep->owns[size_t(group)],
                         cn.buffer(a.buffer), integer(first)));
        line(fmt::format("{} = *(const float4 *)&{}[{} + {}];", regs.back(), cn.buffer(a.buffer), integer(first),
                         groupStart(group)));
      }
      prefetched.emplace(std::pair{a.buffer, a.base}, regs);
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
    LaneLoop spread(s);
    if (spread.independent()) {
      laneLoop(s, spread, t);
      return;
    }
    holdAcross(s, t);
    return;
  }
  case LStmt::If:
    // a test that only saves work is the warp's: taken where any lane's holds, so no lane diverges
    line(s.onlySaves && s.value && s.orElse.empty()
             ? fmt::format("if (__any_sync(0xffffffffu, {})) {{", asType(s.value, ElemType::Int))
             : ifHeader(s));
    warpBlock(s.body, t);
    if (!s.orElse.empty()) {
      line("} else {");
      warpBlock(s.orElse, t);
    }
    line("}");
    return;
  case LStmt::Store:
    line(packed ? "if (moa_lane == 0 && moa_live) {" : "if (moa_lane == 0) {");
    stmt(s, t);
    line("}");
    line(combine ? "moart_group_sync(moa_width);" : "__syncwarp();");
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

// The kernel of a region, printed into `kernels`: a thread an iteration of its parallel nest, a warp one
// (`warps`), or, for a combine printed `wide`, a block one (its moa_width threads, the block's).
void CudaPrinter::kernelOf(const Region &r, const ParallelNest &nest, const std::string &kernel, bool warps,
                           bool wide, const std::set<size_t> &used, ElemType t, const char *note) {
  const int threads = warps ? warpThreadsPerBlock : threadsPerBlock;
  std::string host = std::move(body);
  body.clear();
  line(fmt::format("/* {}{} */", commentText(regionName(k, r)), note));
  // a split pass: as many warps resident on an SM as its split count aims for (a register budget), of which
  // a packed pass, whose lanes each hold `packing` groups of a row, aims for 1 / packing (moart_cuda_splits)
  std::string bounds = r.part == Region::Splits ? fmt::format("{}, MOART_CUDA_SPLIT_WARPS_PER_SM / {}", threads,
                                                              r.packing * threads / 32)
                       : wide                   ? "32 * MOART_CUDA_COMBINE_WARPS"
                                                : std::to_string(threads);
  line(fmt::format("__global__ void __launch_bounds__({}) {}({}) {{", bounds, kernel, params(used)));
  for (const TDim &d : k.dims)
    if (!d.value)
      line(fmt::format("(void){};", cn.dim(d.sym)));
  for (const ChunkCount &c : k.chunkCounts)
    line(fmt::format("(void){};", cn.dim(c.sym)));
  line("moart_cuda_start_next();");
  line("moart_cuda_wait_previous(); /* the kernel before it has finished: its stores are seen */");
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
    // a packed split pass: the packed loop's extent counts packs of `packing` values
    packed = warps && r.packing > 1;
    lanes = packed ? int(32 / r.packing) : 32;
    auto isPacked = [&](const LStmt *l) { return packed && l->var == r.packed; };
    for (size_t d = 0; d < nest.loops.size(); ++d) {
      std::string extent = integer(nest.loops[d]->end - nest.loops[d]->start);
      line(fmt::format("const int64_t moa_extent{} = {};", d,
                       isPacked(nest.loops[d]) ? fmt::format("(({}) + {}) / {}", extent, r.packing - 1, r.packing)
                                               : extent));
    }
    std::string count;
    for (size_t d = 0; d < nest.loops.size(); ++d)
      count += fmt::format("{}moa_extent{}", d ? " * " : "", d);
    line(fmt::format("const int64_t moa_total = {};", count));
    if (packed) {
      line(fmt::format("const int moa_lane = (int)(threadIdx.x & {}u); /* a value's lanes: {} of the warp's */",
                       lanes - 1, lanes));
      line(fmt::format("const int moa_pack = (int)((threadIdx.x & 31u) / {}u); /* the value of the pack */", lanes));
    }
    combine = wide;
    if (combine) {
      line("__shared__ long long moa_scratch[32]; /* the warps' sums of a result's reductions */");
      line("const int moa_width = (int)blockDim.x;");
      line("const int moa_lane = (int)threadIdx.x;");
      line("for (int64_t moa_t = blockIdx.x; moa_t < moa_total; moa_t += gridDim.x) {");
    } else if (warps) {
      if (!packed)
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
      std::string index = d == 0 ? "moa_rest" : fmt::format("moa_rest % moa_extent{}", d);
      if (isPacked(&l)) {
        // a group past the extent (a last pack cut short) computes the last value again and stores nothing
        std::string extent = integer(l.end - l.start);
        line(fmt::format("const int64_t moa_value = {} * ({}) + moa_pack;", r.packing, index));
        line(fmt::format("const bool moa_live = moa_value < {};", extent));
        line(fmt::format("const int64_t {} = {} + (moa_live ? moa_value : {} - 1);", name(l.var), integer(l.start),
                         extent));
      } else {
        line(fmt::format("const int64_t {} = {} + {};", name(l.var), integer(l.start), index));
      }
      if (d > 0)
        line(fmt::format("moa_rest /= moa_extent{};", d));
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
    packed = combine = false;
    lanes = 32;
  }
  line("}");
  line("");
  hoisted.clear();
  kernels += body;
  body = std::move(host);
}

// A kernel's launch on the caller's stream, allowed to begin before the kernel ahead of it ends (a
// programmatic dependent launch: moart_cuda_launch_config; each kernel waits for the one before it first).
// A failed launch is the launcher's cudaGetLastError at its end, as for any launch.
void CudaPrinter::launch(const std::string &kernel, const std::string &blocks, const std::string &threads,
                         const std::set<size_t> &used) {
  line("{");
  line("cudaLaunchAttribute moa_attribute;");
  line(fmt::format("const cudaLaunchConfig_t moa_config = moart_cuda_launch_config({}, {}, stream, &moa_attribute);",
                   blocks, threads));
  line(fmt::format("(void)cudaLaunchKernelEx(&moa_config, {}, {});", kernel, args(used)));
  line("}");
}

void CudaPrinter::region(const Region &r) {
  const std::string kernel = fmt::format("{}_stage{}", k.name, stages++);
  const ParallelNest nest = nestOf(r);
  const bool warps = !nest.loops.empty() && (r.part == Region::Splits || spreadsChunks(*nest.body));
  // a warp region runs four warps a block, except a combine with fewer results than the device has warps:
  // a block a result then, of as many warps as spread the results over every SM (moa_width threads,
  // moart_cuda_combine_width, chosen at the launch), or one warp a block where that is one warp
  const int threads = warps ? warpThreadsPerBlock : threadsPerBlock;
  const bool fewWarps = warps && r.part != Region::Splits;
  std::set<size_t> used;
  forEachAccess(r.body, [&](size_t b, const SymExpr &, bool) { used.insert(b); });
  const ElemType t = regionType(r);
  floatType = t == ElemType::Int ? ElemType::F32 : t;
  kernelOf(r, nest, kernel, warps, false, used, t);
  if (fewWarps) { // the same statements again, located once (explain --html links the first kernel's)
    const bool wasLocated = locate;
    locate = false;
    kernelOf(r, nest, kernel + "_wide", warps, true, used, t, ": a block a result");
    kernelOf(r, nest, kernel + "_thin", false, false, used, t, ": a thread a result");
    locate = wasLocated;
  }
  // the chunk counts whose partials the combine reads: few of them, a thread a result reads them in turn
  std::set<Symbol> counts;
  if (fewWarps)
    for (const LStmt &s : *nest.body)
      for (const ChunkCount &c : k.chunkCounts)
        if (s.kind == LStmt::Loop && s.end.dependsOn(c.sym))
          counts.insert(c.sym);
  std::vector<std::string> few;
  for (Symbol c : counts)
    few.push_back(fmt::format("{} <= MOART_CUDA_THIN_COMBINE", name(c)));

  // the launch
  line("");
  line(fmt::format("/* {} */", commentText(regionName(k, r))));
  if (r.onlyIfChunks)
    line(fmt::format("if ({} > 1) {{", name(*r.onlyIfChunks)));
  line("{");
  const int per = warps ? threads / 32 : threads;
  line(fmt::format("const int64_t moa_total = {};", nest.loops.empty() ? "1" : total(nest)));
  if (fewWarps) {
    line("const int moa_width = moart_cuda_combine_width(moa_total);");
    if (!few.empty()) {
      line(fmt::format("if ({}) {{", fmt::join(few, " && ")));
      line(fmt::format("const int64_t moa_blocks = (moa_total + {}) / {};", threadsPerBlock - 1, threadsPerBlock));
      line("if (moa_total > 0)");
      launch(kernel + "_thin", fmt::format("moa_blocks < INT64_C({}) ? moa_blocks : INT64_C({})", maxBlocks, maxBlocks),
             std::to_string(threadsPerBlock), used);
      line("} else");
    }
    line("if (moa_width > 32) {");
    launch(kernel + "_wide", fmt::format("moa_total < INT64_C({}) ? moa_total : INT64_C({})", maxBlocks, maxBlocks),
           "moa_width", used);
    line("} else {");
    line(fmt::format("const int moa_per = moa_total < moart_cuda_device_warps() ? 1 : {};", per));
    line("const int64_t moa_blocks = (moa_total + moa_per - 1) / moa_per;");
  } else {
    line(fmt::format("const int64_t moa_blocks = (moa_total + {}) / {};", per - 1, per));
  }
  line("if (moa_total > 0)");
  launch(kernel, fmt::format("moa_blocks < INT64_C({}) ? moa_blocks : INT64_C({})", maxBlocks, maxBlocks),
         nest.loops.empty() ? "1" : fewWarps ? "32 * moa_per" : std::to_string(threads), used);
  if (fewWarps)
    line("}");
  line("}");
  if (r.onlyIfChunks)
    line("}");
}

} // namespace

EmittedKernel emitCuda(const Kernel &kernel, const EmitInputs &inputs) { return CudaPrinter(kernel).print(inputs); }

} // namespace moac
