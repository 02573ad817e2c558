#include "Lower.h"

#include "Build.h"
#include "Gamma.h"
#include "LowerFused.h"
#include "SiblingLoops.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace moac {

std::string kernelName(const std::string &fileName) {
  std::string stem = fileName;
  if (auto slash = stem.find_last_of('/'); slash != std::string::npos)
    stem = stem.substr(slash + 1);
  if (auto dot = stem.find_last_of('.'); dot != std::string::npos && dot > 0)
    stem = stem.substr(0, dot);
  std::string name = "moa_";
  for (char c : stem)
    name += std::isalnum((unsigned char)c) ? c : '_';
  return name == "moa_" ? "moa_kernel" : name;
}

std::optional<SymExpr> gammaDifference(SymbolTable &symbols, const SymExpr &offset, Symbol lane, int64_t block) {
  // lane = block·g + r with 0 ≤ r < block: within a group only r moves.
  NameScope scratch(symbols);
  Symbol g = symbols.fresh("g"), r = symbols.fresh("r");
  SymExpr split = SymExpr::symbol(g) * SymExpr(block) + SymExpr::symbol(r);
  SymExpr e = simplify(offset.substitute({{lane, split}}), {{r, SymExpr(block)}});
  return e.linearCoefficient(r);
}

namespace {

// What the stages of one DNF array share while it is lowered.
struct ArrayLowering {
  const DnfArray &a;
  size_t buffer;     // where its value is stored
  ElemType type;     // a half-precision array computes in f32, rounded on its store
  SymVec index;      // its own index, as expressions
  WrittenRows rows;  // the rows it writes: all of them but for an update (writtenRows, Dnf.h)
  std::string ident; // what its partials are named after: an update's DNF name (K') is not a C identifier

  // The leading axes whose extents use no earlier index: the parallel part of a nest over the index space.
  size_t rectangular() const {
    for (size_t d = 0; d < a.shape.size(); ++d)
      for (size_t e = 0; e < d && e < a.index.size(); ++e)
        if (a.shape[d].dependsOn(a.index[e]))
          return d;
    return a.shape.size();
  }
  int parallelDepth(size_t depth) const { return int(std::min(depth, rectangular())); }

  // Appends to `into` the perfect nest of parallel loops over the outer `depth` indices of the array's
  // own index space around `inner` (an update's leading loop only over the rows it writes).
  // A loop whose trip count is over an enclosing index (j < i + 1, a triangular index space) is serial, inside
  // its parallel iteration: the parallel loops of a region stay a rectangular nest that every target can
  // collapse.
  void nest(std::vector<LStmt> inner, std::vector<LStmt> &into, size_t depth) const {
    const size_t parallel = rectangular();
    for (size_t d = depth; d-- > 0;) {
      const LoopKind kind = d < parallel ? LoopKind::Parallel : LoopKind::Serial;
      LStmt l = d == 0 ? loop(a.index[d], rows.start, rows.end, 1, kind, a.loc)
                       : loop(a.index[d], 0, a.shape[d], 1, kind, a.loc);
      l.body = std::move(inner);
      inner.clear();
      inner.push_back(std::move(l));
    }
    for (LStmt &s : inner)
      into.push_back(std::move(s));
  }
};

// A split reduction's two levels: P chunks of its terms into partials, Q groups of the partials.
struct SplitLowering {
  const DExpr &r;
  SymExpr items; // π of the array's shape
  LExprPtr zero; // every accumulator's start, the identity of r's operator
  Symbol chunks;
  size_t partials = 0;
  Symbol groups;
  size_t groupResults = 0;
};

// A scalar's split-reduction stage has no own index for its lanes: they are the chunk or group index
// `lane`, and `term` (the term or partial it reads) is lane + count·t in round t.
struct ScalarLanes {
  Symbol lane, term, count;
};

class Lowerer {
public:
  Lowerer(SymbolTable &symbols, const DnfProgram &dnf, const Schedule &schedule, Target target)
      : symbols(symbols), dnf(dnf), sched(schedule), target(target) {}
  Kernel run();

private:
  void chooseLayouts();
  void collectIndexChecks();
  void lowerArray(size_t id);
  void lowerGroupsRead(const DnfArray &a);
  bool chooseWrittenRows(ArrayLowering &s);
  void lowerMap(const ArrayLowering &s);
  void lowerSplitReduction(const ArrayLowering &s);
  std::pair<Symbol, size_t> splitLevel(const ArrayLowering &s, const SplitLowering &split, ChunkCount::Level level,
                                       const SymExpr &terms);
  Region partialsStage(const ArrayLowering &s, const SplitLowering &split, Symbol c);
  std::vector<LStmt> termsIntoRows(const ArrayLowering &s, const SplitLowering &split, const SymExpr &at, LStmt terms);
  std::vector<LStmt> termsIntoAccumulator(const ArrayLowering &s, const SplitLowering &split, const SymExpr &at,
                                          LStmt terms);
  std::vector<LStmt> combineInto(const ArrayLowering &s, const SplitLowering &split, size_t from, Symbol each,
                                 Symbol count, std::optional<Symbol> first, const SymExpr &step,
                                 std::optional<SymExpr> into);
  Region combineStage(const ArrayLowering &s, const SplitLowering &split);
  Region combineGroupsStage(const ArrayLowering &s, const SplitLowering &split);
  void reportStage(Region &stage, const DnfArray &a, std::optional<ScalarLanes> scalarLanes);
  LExprPtr lowerExpr(const DExprPtr &e, std::vector<LStmt> &prefix, ElemType type);
  LExprPtr load(size_t array, const SymVec &index);
  void reportAccesses(const Region &stage, Symbol lane, const std::map<Symbol, SymExpr> &laneSubst);
  bool termsAlongRows(const DnfArray &a, const DExpr &r) const;
  LExprPtr branchValue(LStmt branch, const DExpr &e, const DExprPtr &then, const DExprPtr &otherwise,
                       std::vector<LStmt> &prefix, ElemType type);
  LExprPtr rightFold(const DExpr &reduce, Symbol acc, ElemType accType, std::vector<LStmt> &prefix, ElemType type);
  int64_t interleaveLanes(const DExpr &reduce, const std::vector<LStmt> &termPrefix) const;
  void interleave(std::vector<LStmt> &prefix, Symbol acc, ElemType type, const DExpr &reduce, const LExprPtr &term,
                  int64_t lanes);

  void openStageNames(const DnfArray &a);

  SymbolTable &symbols;
  std::optional<NameScope> stageNames; // the names of the stage being lowered
  const DnfProgram &dnf;
  Schedule sched;
  Target target;
  Kernel k;
  std::vector<size_t> bufferOf; // DNF array -> buffer
  std::map<size_t, FusedPartials> fused; // lowered fused groups (LowerFused.h)
};

LExprPtr Lowerer::load(size_t array, const SymVec &index) {
  const Buffer &b = k.buffers[bufferOf[array]];
  return loadAt(bufferOf[array], b.offset(index), isInteger(b.elem));
}

// A reduction becomes an accumulator declared before its use and a serial loop that folds the body
// into it in index order; a select whose branches reduce becomes an if statement.
LExprPtr Lowerer::lowerExpr(const DExprPtr &e, std::vector<LStmt> &prefix, ElemType type) {
  // An operation on f32 values inside an f64 expression computes in f32, as the reference does
  // (floatTypeOf), and is widened after: `y + exp(x * 0.1)` must not take x · 0.1 in double.
  bool operation = e->kind == DKind::Unary || e->kind == DKind::Binary || e->kind == DKind::Select ||
                   e->kind == DKind::Where || (e->kind == DKind::Float && e->literalType);
  if (operation && type == ElemType::F64 && floatTypeOf(*e, dnf) == ElemType::F32) {
    LExpr x{};
    x.kind = LExprKind::InF32;
    x.args = {lowerExpr(e, prefix, ElemType::F32)};
    return makeL(x);
  }
  switch (e->kind) {
  case DKind::Float: return floatConst(e->floatValue);
  case DKind::Int: {
    LExpr x{};
    x.kind = LExprKind::Int;
    x.intValue = e->intValue;
    x.isInt = true;
    return makeL(x);
  }
  case DKind::Read: return load(e->array, e->index);
  case DKind::Fused: return lowerFusedRead(symbols, dnf.groups[e->group], fused.at(e->group), *e, prefix, type);
  case DKind::Unary: {
    LExpr x{};
    x.kind = LExprKind::Unary;
    x.unop = e->unop;
    x.isInt = e->isInt;
    x.args = {lowerExpr(e->args[0], prefix, type)};
    return makeL(x);
  }
  case DKind::Binary: {
    LExpr x{};
    x.kind = LExprKind::Binary;
    x.op = e->op;
    x.isInt = e->isInt;
    x.args = {lowerExpr(e->args[0], prefix, type), lowerExpr(e->args[1], prefix, type)};
    return makeL(x);
  }
  case DKind::Reduce: {
    // An f32 reduction inside an f64 expression accumulates in f32, as the reference does (floatTypeOf).
    ElemType accType = e->isInt                                                          ? ElemType::Int
                       : type == ElemType::F64 && floatTypeOf(*e, dnf) == ElemType::F32 ? ElemType::F32
                                                                                          : type;
    Symbol acc = symbols.fresh("acc");
    prefix.push_back(scalarStmt(LStmt::Decl, acc, accType, floatConst(identity(e->op, e->isInt)), e->loc));
    if (isRightFold(e->op))
      return rightFold(*e, acc, accType, prefix, type);
    LStmt l = loop(e->var, 0, e->extent, 1, LoopKind::Serial, e->loc);
    LExprPtr value = lowerExpr(e->args[0], l.body, e->isInt ? type : accType);
    if (int64_t lanes = interleaveLanes(*e, l.body); lanes > 1) {
      interleave(prefix, acc, accType, *e, value, lanes);
      return var(acc, e->isInt);
    }
    l.body.push_back(scalarStmt(LStmt::Accumulate, acc, accType, value, e->loc, e->op));
    prefix.push_back(std::move(l));
    return var(acc, e->isInt);
  }
  case DKind::Select: {
    if (!containsReduce(e)) {
      LExpr x{};
      x.kind = LExprKind::Select;
      x.lhs = e->lhs;
      x.rhs = e->rhs;
      x.isInt = e->isInt;
      x.args = {lowerExpr(e->args[0], prefix, type), lowerExpr(e->args[1], prefix, type)};
      return makeL(x);
    }
    LStmt branch{};
    branch.kind = LStmt::If;
    branch.lhs = e->lhs;
    branch.rhs = e->rhs;
    return branchValue(std::move(branch), *e, e->args[0], e->args[1], prefix, type);
  }
  case DKind::Where: {
    LExprPtr cond = lowerExpr(e->args[0], prefix, type);
    if (!containsReduce(e->args[1]) && !containsReduce(e->args[2])) {
      LExpr x{};
      x.kind = LExprKind::Where;
      x.isInt = e->isInt;
      x.args = {cond, lowerExpr(e->args[1], prefix, type), lowerExpr(e->args[2], prefix, type)};
      return makeL(x);
    }
    // A branch that reduces: an if statement, so that only the chosen branch's loop runs.
    LStmt branch{};
    branch.kind = LStmt::If;
    branch.value = cond;
    return branchValue(std::move(branch), *e, e->args[1], e->args[2], prefix, type);
  }
  }
  throw std::logic_error("lowering: unknown DNF node");
}

// Which inputs to store lifted, and on which axis: an input of rank ≥ 2 that some parallel lane reads
// along a row of its own — the lane index is the whole index on an axis a short of the last and no other
// index depends on the lane (those before a pick a slab, those after walk serial loops) — has γ-difference
// π(extents after a) between lanes row-major and 1 lifted on a. Not when some lane already reads it with
// γ-difference 1, or lanes would want it lifted on two different axes.
void Lowerer::chooseLayouts() {
  if (!sched.liftInputs(target))
    return;
  std::map<size_t, size_t> wanted; // array -> axis
  std::set<size_t> harmed;
  for (size_t id : dnf.order) {
    const DnfArray &a = dnf.arrays[id];
    // an index array stays row-major: a load reads it at the element's row-major offset
    forEachNode(a.body, [&](const DExpr &e) {
      for (const SymExpr *x : {&e.intValue, &e.lhs, &e.rhs})
        x->forEachLoad([&](const SymExpr::Atom &load) { harmed.insert(load.array); });
      for (const SymExpr &x : e.index)
        x.forEachLoad([&](const SymExpr::Atom &load) { harmed.insert(load.array); });
    });
    if (a.index.empty())
      continue;
    Symbol lane = a.index.back();
    forEachNode(a.body, [&](const DExpr &e) {
      if (e.kind != DKind::Read || dnf.arrays[e.array].storage != Storage::Input || e.index.size() < 2 ||
          dnf.arrays[e.array].inout) // an inout keeps the caller's row-major layout: it is written back
        return;
      std::vector<size_t> laneAxes;
      for (size_t i = 0; i < e.index.size(); ++i)
        if (e.index[i].dependsOn(lane))
          laneAxes.push_back(i);
      bool rowPerLane = laneAxes.size() == 1 && laneAxes[0] + 1 < e.index.size() &&
                        e.index[laneAxes[0]] == SymExpr::symbol(lane);
      auto diff = gamma(e.index, dnf.arrays[e.array].shape).linearCoefficient(lane);
      if (rowPerLane && !wanted.emplace(e.array, laneAxes[0]).second && wanted[e.array] != laneAxes[0])
        harmed.insert(e.array);
      else if (!rowPerLane && diff && *diff == SymExpr(1))
        harmed.insert(e.array);
    });
  }
  for (const auto &[id, axis] : wanted)
    if (!harmed.count(id)) {
      Buffer &b = k.buffers[bufferOf[id]];
      b.layout = Layout{Layout::Lifted, sched.block, axis};
      Decision d{Decision::LiftedRows};
      d.buffer = bufferOf[id];
      k.decisions.push_back(d);
    }
}

// The index arrays of the kernel's gathers, each with the extents of the axes it indexes: the loads in the
// stages' integer expressions (an input's buffer is its DNF array's: inputs come first, in order).
void Lowerer::collectIndexChecks() {
  auto add = [&](const SymExpr &e, bool) {
    e.forEachLoad([&](const SymExpr::Atom &load) {
      if (bufferOf.at(load.array) != load.array)
        throw std::logic_error("lowering: a gather's index array is not the buffer of its input");
      for (const IndexCheck &c : k.indexChecks)
        if (c.buffer == load.array && c.bound == load.rhs)
          return;
      k.indexChecks.push_back(IndexCheck{load.array, load.rhs});
    });
  };
  for (const Region &r : k.stages)
    forEachInteger(r.body, add);
}

// Called before the region joins k.stages: its accesses are recorded under the index it will have.
void Lowerer::reportAccesses(const Region &stage, Symbol lane, const std::map<Symbol, SymExpr> &laneSubst) {
  const size_t region = k.stages.size();
  auto visit = [&](size_t buffer, const SymExpr &offset, bool isStore) {
    Coalescing c{region, buffer, offset, isStore, lane,
                 gammaDifference(symbols, offset.substitute(laneSubst), lane, sched.block)};
    for (const Coalescing &seen : k.coalescing)
      if (seen.region == region && seen.buffer == buffer && seen.isStore == isStore && seen.offset == offset)
        return;
    k.coalescing.push_back(std::move(c));
  };
  forEachAccess(stage.body, visit);
}

// On a CPU target, whether a split reduction's terms read an input along its rows with the array's
// innermost index (o[k] = Σ_l p[l]·V[l, k]: k the last index of V, the term index l an earlier one). Its
// partial pass then runs the term loop outside the innermost index's loop and adds each term into the
// partials in memory, so a thread walks V row by row instead of down a column with a stride of P rows.
// Every partial still adds its terms in the same order, so the result is bit-identical to the OpenACC
// kernel's, which keeps the innermost index on the vector lanes (coalesced there already).
bool Lowerer::termsAlongRows(const DnfArray &a, const DExpr &r) const {
  if (isGpu(target) || a.updates || a.index.empty() || containsReduce(r.args[0]))
    return false;
  const Symbol inner = a.index.back();
  bool found = false;
  forEachNode(r.args[0], [&](const DExpr &e) {
    if (e.kind != DKind::Read || dnf.arrays[e.array].storage != Storage::Input || e.index.size() < 2 ||
        !(e.index.back() == SymExpr::symbol(inner)))
      return;
    bool termsOuter = false, innerOnlyLast = true;
    for (size_t i = 0; i + 1 < e.index.size(); ++i) {
      termsOuter |= e.index[i].dependsOn(r.var);
      innerOnlyLast &= !e.index[i].dependsOn(inner);
    }
    found |= termsOuter && innerOnlyLast;
  });
  return found;
}

// Each stage names its scalars and loop counters in a scope of its own (acc, c, g again in every stage),
// beside the names of the DNF definition it computes; what several stages share (the chunk counts P and
// Q) is made outside any stage.
void Lowerer::openStageNames(const DnfArray &a) {
  stageNames.reset();
  stageNames.emplace(symbols);
  for (Symbol s : a.index)
    stageNames->reserve(s.name());
  for (Symbol s : freeSymbols(a.body))
    stageNames->reserve(s.name());
  forEachNode(a.body, [&](const DExpr &e) {
    if (e.kind == DKind::Reduce)
      stageNames->reserve(e.var.name());
  });
}

// 1. An index space empty at compile time (an axis of extent 0, e.g. from `0 take A`) has nothing to
//    compute: no stage, rather than `for (i = 0; i < 0; …)` inside an OpenMP collapse, which GCC
//    compiles to a trap.
// 2. The fused groups it reads get their split pass first (lowerFusedGroup).
// 3. An update stores only the rows it changes into its inout's buffer, and none if it changes none.
// 4. A body with a reduction at its top becomes a split reduction, any other a parallel map.
void Lowerer::lowerArray(size_t id) {
  const DnfArray &a = dnf.arrays[id];
  if (std::any_of(a.shape.begin(), a.shape.end(), [](const SymExpr &e) { return e.constant() == int64_t(0); }))
    return;
  lowerGroupsRead(a);
  WrittenRows all{a.body, SymExpr(0), a.shape.empty() ? SymExpr(1) : a.shape[0]};
  ArrayLowering s{a, bufferOf[id], computeType(a.elem), {}, all, a.name};
  for (Symbol i : a.index)
    s.index.push_back(SymExpr::symbol(i));
  if (a.updates) {
    s.ident = k.buffers[s.buffer].name;
    if (!chooseWrittenRows(s))
      return;
  }
  if (s.rows.body->kind == DKind::Reduce && !isRightFold(s.rows.body->op)) // a right fold is never split
    lowerSplitReduction(s);
  else
    lowerMap(s);
}

// A fused group's split pass runs before its first reader, whose nest combines the splits.
void Lowerer::lowerGroupsRead(const DnfArray &a) {
  for (size_t g : groupsRead(a.body)) {
    if (!fused.count(g))
      fused[g] = lowerFusedGroup(symbols, k, dnf.groups[g], sched, target,
                                 [this](const DExprPtr &e, std::vector<LStmt> &prefix, ElemType t) {
                                   return lowerExpr(e, prefix, t);
                                 });
    fused[g].maxima.clear();
  }
}

// An update's rows (writtenRows, Dnf.h), with the decision that records them when they are not all of
// them; false when it writes none.
bool Lowerer::chooseWrittenRows(ArrayLowering &s) {
  const DnfArray &a = s.a;
  s.rows = writtenRows(a);
  Decision d{s.rows.body ? Decision::UpdateRows : Decision::UpdateUnchanged};
  d.buffer = s.buffer;
  d.start = s.rows.start;
  d.end = s.rows.end;
  if (!s.rows.body) {
    k.decisions.push_back(d);
    return false;
  }
  if (!a.shape.empty() && (!(s.rows.start == SymExpr(0)) || !(s.rows.end == a.shape[0])))
    k.decisions.push_back(d);
  return true;
}

// Fuses the stage's sibling reduction loops (SiblingLoops.h: each a decision), then records its accesses
// (reportAccesses) with the array's innermost own index as the lane; a
// scalar's stage has no such index: its lanes are `scalarLanes` (the chunk or group index), whose
// values stand for lane + count·t in `term`.
void Lowerer::reportStage(Region &stage, const DnfArray &a, std::optional<ScalarLanes> scalarLanes) {
  for (FusedSiblings &f : fuseSiblingReductions(stage.body, symbols)) {
    Decision d{Decision::SiblingLoops};
    d.region = k.stages.size();
    d.inner = f.var;
    d.start = f.start;
    d.end = f.end;
    d.locs = std::move(f.folded);
    k.decisions.push_back(std::move(d));
  }
  if (!a.index.empty()) {
    reportAccesses(stage, a.index.back(), {});
  } else if (scalarLanes) {
    Symbol t = symbols.fresh("t");
    const ScalarLanes &l = *scalarLanes;
    reportAccesses(stage, l.lane, {{l.term, SymExpr::symbol(l.lane) + SymExpr::symbol(l.count) * SymExpr::symbol(t)}});
  }
}

// A parallel map: one stage that stores the body's value at every index.
void Lowerer::lowerMap(const ArrayLowering &s) {
  openStageNames(s.a);
  Region st{s.buffer, Region::Whole, s.a.loc, s.parallelDepth(s.a.index.size()), {}, std::nullopt};
  std::vector<LStmt> body;
  LExprPtr value = lowerExpr(s.rows.body, body, s.type);
  body.push_back(store(s.buffer, k.buffers[s.buffer].offset(s.index), value, s.a.loc));
  s.nest(std::move(body), st.body, s.a.index.size());
  reportStage(st, s.a, std::nullopt);
  k.stages.push_back(std::move(st));
}

// A count of a split reduction's pieces (made outside any stage: every stage of the array reads it) and
// the workspace [count][items] that holds their results.
std::pair<Symbol, size_t> Lowerer::splitLevel(const ArrayLowering &s, const SplitLowering &split,
                                              ChunkCount::Level level, const SymExpr &terms) {
  const bool chunks = level == ChunkCount::Chunks;
  stageNames.reset();
  Symbol count = symbols.fresh((chunks ? "P_" : "Q_") + s.ident);
  k.chunkCounts.push_back(ChunkCount{count, split.items, terms, s.buffer, level, sched.threads, sched.chunk, 1, std::nullopt});
  const Buffer::Origin origin = chunks ? Buffer::Partials : Buffer::Groups;
  k.buffers.push_back(Buffer{Buffer::Workspace, s.ident, s.type, {SymExpr::symbol(count), split.items}, {}, origin, 0,
                             s.buffer, count});
  return {count, k.buffers.size() - 1};
}

// Split reduction: P chunks per index, chunk c takes terms c, c+P, c+2P, … (cyclic, so adjacent chunks
// read adjacent terms), partials[c][index], then the chunks combined in order.
//
// The combine has two levels, so that no thread adds more than about 2·chunk values in a row (one GPU
// thread adding decode's 16 384 partials of max/ at n = 4 M took 0.74 ms on an H200): Q groups, group g
// adding partials g, g + Q, g + 2Q, … (parallel, like the chunks), then the Q group results in order.
// Q = moart_chunks(items, P, threads, chunk), so Q = 1 whenever P ≤ chunk: the groups' pass is then the
// whole combine, in chunk order, and writes the result itself.
void Lowerer::lowerSplitReduction(const ArrayLowering &s) {
  // a triangular index space (Σ_{l<i+1} over i < n) is split by its greatest extent: a chunk past a row's
  // bound keeps the identity
  const SymVec box = boundingShape(s.a.shape, s.a.index);
  IndexRanges own;
  for (size_t d = 0; d < s.a.index.size(); ++d)
    own[s.a.index[d]] = s.a.shape[d];
  SplitLowering split{*s.rows.body, product(box), nullptr, {}, 0, {}, 0};
  std::tie(split.chunks, split.partials) =
      splitLevel(s, split, ChunkCount::Chunks, upperBound(split.r.extent, own));
  openStageNames(s.a);
  Symbol c = symbols.fresh("c");
  split.zero = floatConst(identity(split.r.op, s.type == ElemType::Int));
  k.stages.push_back(partialsStage(s, split, c));
  std::tie(split.groups, split.groupResults) = splitLevel(s, split, ChunkCount::Groups, SymExpr::symbol(split.chunks));
  k.stages.push_back(combineStage(s, split));
  k.stages.push_back(combineGroupsStage(s, split));
}

// The chunks' pass: chunk c of every index folds its terms into partials[c][index]. On a CPU target
// whose terms read along rows (termsAlongRows) the term loop runs outside the innermost index's loop.
Region Lowerer::partialsStage(const ArrayLowering &s, const SplitLowering &split, Symbol c) {
  const DnfArray &a = s.a;
  const DExpr &r = split.r;
  const bool alongRows = termsAlongRows(a, r);
  Region first{s.buffer, Region::Partials, a.loc, 1 + s.parallelDepth(a.index.size() - (alongRows ? 1 : 0)), {},
               std::nullopt};
  const SymExpr at = SymExpr::symbol(c) * split.items + gamma(s.index, k.buffers[s.buffer].shape);
  LStmt terms = loop(r.var, SymExpr::symbol(c), r.extent, SymExpr::symbol(split.chunks), LoopKind::Serial, r.loc);
  std::vector<LStmt> body =
      alongRows ? termsIntoRows(s, split, at, std::move(terms)) : termsIntoAccumulator(s, split, at, std::move(terms));
  std::vector<LStmt> inner;
  s.nest(std::move(body), inner, a.index.size() - (alongRows ? 1 : 0));
  LStmt outer = loop(c, 0, SymExpr::symbol(split.chunks), 1, LoopKind::Parallel, a.loc);
  outer.body = std::move(inner);
  first.body.push_back(std::move(outer));
  reportStage(first, a, ScalarLanes{c, r.var, split.chunks});
  return first;
}

// partial[c][…, k] = identity for every k; then for each term l, for each k: partial op= term
std::vector<LStmt> Lowerer::termsIntoRows(const ArrayLowering &s, const SplitLowering &split, const SymExpr &at,
                                          LStmt terms) {
  const DnfArray &a = s.a;
  const DExpr &r = split.r;
  const Symbol inner = a.index.back();
  LStmt clear = loop(inner, 0, a.shape.back(), 1, LoopKind::Serial, a.loc);
  clear.body.push_back(store(split.partials, at, split.zero, a.loc));
  LStmt row = loop(inner, 0, a.shape.back(), 1, LoopKind::Serial, r.loc);
  LExprPtr value = lowerExpr(r.args[0], row.body, s.type);
  LExpr sum{};
  sum.kind = LExprKind::Binary;
  sum.op = r.op;
  sum.isInt = s.type == ElemType::Int;
  sum.args = {loadAt(split.partials, at, sum.isInt), value};
  row.body.push_back(store(split.partials, at, makeL(sum), r.loc));
  terms.body.push_back(std::move(row));
  Decision d{Decision::TermsAlongRows};
  d.buffer = s.buffer;
  d.region = k.stages.size(); // the partials' stage, pushed next
  d.inner = inner;
  k.decisions.push_back(d);
  std::vector<LStmt> body;
  body.push_back(std::move(clear));
  body.push_back(std::move(terms));
  return body;
}

// acc = identity; acc op= each term of the chunk; partial[c][index] = acc
std::vector<LStmt> Lowerer::termsIntoAccumulator(const ArrayLowering &s, const SplitLowering &split, const SymExpr &at,
                                                 LStmt terms) {
  const DExpr &r = split.r;
  std::vector<LStmt> body;
  Symbol acc = symbols.fresh("acc");
  body.push_back(scalarStmt(LStmt::Decl, acc, s.type, split.zero, r.loc));
  LExprPtr value = lowerExpr(r.args[0], terms.body, s.type);
  terms.body.push_back(scalarStmt(LStmt::Accumulate, acc, s.type, value, r.loc, r.op));
  body.push_back(std::move(terms));
  body.push_back(store(split.partials, at, var(acc, s.type == ElemType::Int), s.a.loc));
  return body;
}

// acc = op over from[each][index], each from `first` (0 if none) below `count` by `step`; stored in
// groupResults[into][index], or with no `into` in the array's own buffer.
std::vector<LStmt> Lowerer::combineInto(const ArrayLowering &s, const SplitLowering &split, size_t from, Symbol each,
                                        Symbol count, std::optional<Symbol> first, const SymExpr &step,
                                        std::optional<SymExpr> into) {
  const DExpr &r = split.r;
  const bool isInt = s.type == ElemType::Int;
  const SymExpr at = gamma(s.index, k.buffers[s.buffer].shape);
  std::vector<LStmt> body;
  Symbol acc = symbols.fresh("acc");
  body.push_back(scalarStmt(LStmt::Decl, acc, s.type, split.zero, r.loc));
  LStmt combine =
      loop(each, first ? SymExpr::symbol(*first) : SymExpr(0), SymExpr::symbol(count), step, LoopKind::Serial, r.loc);
  LExprPtr partial = loadAt(from, SymExpr::symbol(each) * split.items + at, isInt);
  combine.body.push_back(scalarStmt(LStmt::Accumulate, acc, s.type, partial, r.loc, r.op));
  body.push_back(std::move(combine));
  body.push_back(store(into ? split.groupResults : s.buffer,
                       into ? *into * split.items + at : k.buffers[s.buffer].offset(s.index), var(acc, isInt),
                       s.a.loc));
  return body;
}

// The groups' pass: group g of every index combines partials g, g + Q, g + 2Q, … into its group result.
Region Lowerer::combineStage(const ArrayLowering &s, const SplitLowering &split) {
  openStageNames(s.a);
  Symbol g = symbols.fresh("g"), each = symbols.fresh("c");
  Region second{s.buffer, Region::Combine, s.a.loc, 1 + s.parallelDepth(s.a.index.size()), {}, split.chunks};
  std::vector<LStmt> inner;
  s.nest(
      combineInto(s, split, split.partials, each, split.chunks, g, SymExpr::symbol(split.groups), SymExpr::symbol(g)),
      inner, s.a.index.size());
  LStmt outer = loop(g, 0, SymExpr::symbol(split.groups), 1, LoopKind::Parallel, s.a.loc);
  outer.body = std::move(inner);
  second.body.push_back(std::move(outer));
  reportStage(second, s.a, ScalarLanes{g, each, split.groups});
  return second;
}

// The last pass: the Q group results of every index combined in order into the result.
Region Lowerer::combineGroupsStage(const ArrayLowering &s, const SplitLowering &split) {
  openStageNames(s.a);
  Region third{s.buffer, Region::CombineGroups, s.a.loc, s.parallelDepth(s.a.index.size()), {}, split.groups};
  Symbol each = symbols.fresh("c");
  s.nest(combineInto(s, split, split.groupResults, each, split.groups, std::nullopt, SymExpr(1), std::nullopt),
         third.body, s.a.index.size());
  reportStage(third, s.a, std::nullopt);
  return third;
}

// The accumulators an inline reduction gets (Schedule::lanes), or 1: a float sum or product whose term
// is one expression (no statement of its own: a nested reduction keeps the plain loop) on a CPU target,
// over an extent that may reach two rounds of the lanes.
// t₀ op (t₁ op (… op t_{n−1})) for − and ÷ (Ops.h, isRightFold), into `acc` (declared with op's
// identity, which t op acc leaves t exactly): one serial loop takes the terms from the last, acc = t op acc
// — an Assign, so no target splits it, interleaves it or spreads it over lanes, and every target computes
// the reference's operations in the reference's order. The loop counts up and reads term n − 1 − l.
LExprPtr Lowerer::rightFold(const DExpr &r, Symbol acc, ElemType accType, std::vector<LStmt> &prefix,
                            ElemType type) {
  LStmt l = loop(r.var, 0, r.extent, 1, LoopKind::Serial, r.loc);
  DExprPtr fromLast = substitute(r.args[0], {{r.var, r.extent - SymExpr(1) - SymExpr::symbol(r.var)}});
  LExprPtr term = lowerExpr(fromLast, l.body, r.isInt ? type : accType);
  l.body.push_back(scalarStmt(LStmt::Assign, acc, accType, binary(r.op, term, var(acc, r.isInt)), r.loc));
  prefix.push_back(std::move(l));
  return var(acc, r.isInt);
}

int64_t Lowerer::interleaveLanes(const DExpr &r, const std::vector<LStmt> &termPrefix) const {
  if (target == Target::Cuda || sched.lanes < 2 || r.isInt || !termPrefix.empty() ||
      (r.op != BinOp::Add && r.op != BinOp::Mul))
    return 1;
  if (auto extent = r.extent.constant(); extent && *extent < 2 * sched.lanes)
    return 1;
  return sched.lanes;
}

// acc (declared with the identity) and lanes − 1 more accumulators; the loop over the whole rounds
// adds term l + j into accumulator j; the remaining terms go into acc in order; then the accumulators
// are combined pairwise, acc = ((a0 ⊕ a1) ⊕ (a2 ⊕ a3)) ⊕ …. The order of the operations is fixed by
// the IR, so every target that prints it adds in the same order.
void Lowerer::interleave(std::vector<LStmt> &prefix, Symbol acc, ElemType type, const DExpr &r, const LExprPtr &term,
                         int64_t lanes) {
  for (LStmt &s : interleavedSum(symbols, acc, type, r.op, r.var, SymExpr(0), r.extent, term, lanes, r.loc))
    prefix.push_back(std::move(s));
  // one decision a sum of the program, however many copies of it the lowering prints (a tiled split pass
  // computes its scores in its whole tiles and again in a cut one)
  for (const Decision &seen : k.decisions)
    if (seen.kind == Decision::InterleavedSum && seen.inner == r.var && seen.lanes == lanes &&
        seen.loc.file == r.loc.file && seen.loc.offset == r.loc.offset)
      return;
  Decision d{Decision::InterleavedSum};
  d.inner = r.var;
  d.lanes = lanes;
  d.loc = r.loc;
  d.op = r.op;
  k.decisions.push_back(d);
}

// `branch` (an If with its condition) completed: each side computes its value into a fresh scalar, which
// is the result; only the chosen side's statements (its reductions' loops) run.
LExprPtr Lowerer::branchValue(LStmt branch, const DExpr &e, const DExprPtr &then, const DExprPtr &otherwise,
                              std::vector<LStmt> &prefix, ElemType type) {
  ElemType tmpType = e.isInt ? ElemType::Int : type;
  Symbol tmp = symbols.fresh("sel");
  prefix.push_back(scalarStmt(LStmt::Decl, tmp, tmpType, floatConst(0), e.loc));
  branch.loc = e.loc;
  LExprPtr a = lowerExpr(then, branch.body, type);
  branch.body.push_back(scalarStmt(LStmt::Assign, tmp, tmpType, a, e.loc));
  LExprPtr b = lowerExpr(otherwise, branch.orElse, type);
  branch.orElse.push_back(scalarStmt(LStmt::Assign, tmp, tmpType, b, e.loc));
  prefix.push_back(std::move(branch));
  return var(tmp, e.isInt);
}

Kernel Lowerer::run() {
  k.name = kernelName(dnf.fileName);
  k.fileName = dnf.fileName;
  k.dims = dnf.dims;
  k.guards = dnf.guards;
  bufferOf.assign(dnf.arrays.size(), 0);
  auto addBuffer = [&](size_t id, Buffer::Role role) {
    const DnfArray &a = dnf.arrays[id];
    // a triangular index space (⟨n, i + 1⟩) is stored in its bounding box (⟨n n⟩), read and written at the
    // same γ offsets in it
    k.buffers.push_back(Buffer{role, a.name, a.elem, boundingShape(a.shape, a.index), {}, Buffer::Array, id,
                               std::nullopt, Symbol{}, a.inout});
    bufferOf[id] = k.buffers.size() - 1;
  };
  for (size_t id = 0; id < dnf.arrays.size(); ++id)
    if (dnf.arrays[id].storage == Storage::Input)
      addBuffer(id, Buffer::Input);
  for (size_t id : dnf.outputs)
    addBuffer(id, Buffer::Output);
  for (size_t id : dnf.order)
    if (dnf.arrays[id].storage == Storage::Temp)
      addBuffer(id, Buffer::Workspace);
  // An update's value lives in its inout's buffer: later reads of the new value read that buffer.
  for (size_t id : dnf.updates)
    bufferOf[id] = bufferOf[*dnf.arrays[id].updates];
  chooseLayouts();
  for (size_t id : dnf.order) {
    lowerArray(id);
    stageNames.reset();
  }
  collectIndexChecks();
  return std::move(k);
}

} // namespace

Kernel lower(CompilationContext &ctx, const DnfProgram &dnf, const Schedule &schedule, Target target) {
  return Lowerer(ctx.symbols, dnf, schedule, target).run();
}

} // namespace moac
