#include "LowerFused.h"

#include "Build.h"
#include "Fuse.h"
#include "Gamma.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace moac {

namespace {

SymVec symbolExprs(const std::vector<Symbol> &syms) {
  SymVec out;
  for (Symbol s : syms)
    out.push_back(SymExpr::symbol(s));
  return out;
}

bool isOne(const DExprPtr &e) { return e->kind == DKind::Float && e->floatValue == 1; }

// Serial loops over `vars` < `shape` around `inner`.
std::vector<LStmt> serialNest(const std::vector<Symbol> &vars, const SymVec &shape, std::vector<LStmt> inner,
                              SourceLoc loc) {
  for (size_t d = vars.size(); d-- > 0;) {
    LStmt l = loop(vars[d], 0, shape[d], 1, LoopKind::Serial, loc);
    l.body = std::move(inner);
    inner.clear();
    inner.push_back(std::move(l));
  }
  return inner;
}

// Whether `e` is the same in every term: constants and dims only (no load, scalar or index), through
// a function (√dk: more than a literal), so that computing it before the terms, where a `where` may not
// have chosen it, is harmless: float arithmetic, no integer division.
bool invariantCall(const LExprPtr &e, const std::set<Symbol> &dims, bool &call) {
  switch (e->kind) {
  case LExprKind::Float: return true;
  case LExprKind::Int: {
    const std::vector<Symbol> used = e->intValue.symbols();
    for (const auto &t : e->intValue.terms())
      for (const auto &a : t.factors)
        if (a->kind != SymExpr::Atom::Sym) // a floor division or modulus
          return false;
    return std::all_of(used.begin(), used.end(), [&](Symbol s) { return dims.count(s) > 0; });
  }
  case LExprKind::Unary: call = true; return invariantCall(e->args[0], dims, call);
  case LExprKind::Binary: // not an integer division: the term may have been guarded against its zero
    return e->op != BinOp::IntDiv && e->op != BinOp::Mod && invariantCall(e->args[0], dims, call) &&
           invariantCall(e->args[1], dims, call);
  default: return false;
  }
}

// `e` with each largest invariant call (invariantCall) read from a scalar declared into `decls`.
LExprPtr hoistCalls(const LExprPtr &e, const std::set<Symbol> &dims, SymbolTable &symbols, ElemType type,
                    std::vector<LStmt> &decls, SourceLoc loc) {
  if (!e)
    return e;
  bool call = false;
  if (invariantCall(e, dims, call)) {
    if (!call)
      return e;
    Symbol s = symbols.fresh("inv");
    decls.push_back(scalarStmt(LStmt::Decl, s, e->isInt ? ElemType::Int : type, e, loc));
    return var(s, e->isInt);
  }
  if (e->kind != LExprKind::Unary && e->kind != LExprKind::Binary)
    return e;
  LExpr copy = *e;
  for (LExprPtr &a : copy.args)
    a = hoistCalls(a, dims, symbols, type, decls, loc);
  return makeL(std::move(copy));
}

void hoistCalls(std::vector<LStmt> &body, const std::set<Symbol> &dims, SymbolTable &symbols, ElemType type,
                std::vector<LStmt> &decls) {
  for (LStmt &s : body) {
    s.value = hoistCalls(s.value, dims, symbols, type, decls, s.loc);
    hoistCalls(s.body, dims, symbols, type, decls);
    hoistCalls(s.orElse, dims, symbols, type, decls);
  }
}

// The group's partial buffers, one a member ([frame][c][extra]), and its chunk count P (made outside any
// stage's scope: the split pass and every reader's combine share it).
FusedPartials addPartials(SymbolTable &symbols, Kernel &k, const FusedGroup &g, const Schedule &schedule,
                          Target target) {
  FusedPartials out;
  const SymExpr frameItems = product(g.frameShape);
  out.splits = symbols.fresh("P_" + g.name);
  const SymExpr P = SymExpr::symbol(out.splits);
  for (const FusedMember &m : g.members) {
    Buffer b{Buffer::Workspace, m.name, g.elem, {frameItems, P, product(m.extraShape)}, {}, Buffer::FusedPartials,
             0, std::nullopt, Symbol{}, false, g.name};
    k.buffers.push_back(std::move(b));
    out.buffers.push_back(k.buffers.size() - 1);
  }
  k.chunkCounts.push_back(ChunkCount{out.splits, frameItems, g.extent, out.buffers[0], ChunkCount::Splits,
                                     schedule.fusedSplits(target), schedule.fusedChunk(target)});
  return out;
}

// The body of split c's pass for one frame element: m = −∞ and every sum 0, each term of the split in
// order, then the partials stored. A term (inside `if (l < n)`) computes its score e once, the new
// maximum next = max(m, e), the two rescaling factors scale = exp(m − next) and w = exp(e − next), updates
// every sum to sum·scale + w·weight, and moves the maximum.
//
// CUDA rescales only where the maximum moved (`lazy`): where next = m the factor is exactly 1 (exp(0),
// or, both −∞, 0 against sums that are then exactly 0), so a warp skips an exp and a multiply an element
// on all but the few terms that raise the maximum (about ln of a split's length).
class SplitPass {
public:
  SplitPass(SymbolTable &symbols, const Kernel &k, const FusedGroup &g, const FusedPartials &out, Symbol c,
            Target target, const LowerExprFn &lowerExpr)
      : symbols(symbols), k(k), g(g), out(out), c(c), cuda(target == Target::Cuda), lazy(cuda), lowerExpr(lowerExpr),
        type(g.elem), loc(g.loc), P(SymExpr::symbol(out.splits)),
        split(gamma(symbolExprs(g.frame), g.frameShape) * P + SymExpr::symbol(c)) {}

  std::vector<LStmt> build() {
    startTerm();
    body.push_back(scalarStmt(LStmt::Decl, mx, type, floatConst(-INFINITY), loc));
    for (size_t j = 1; j < g.members.size(); ++j)
      addMember(g.members[j], out.buffers[j]);
    if (lazy) // before the updates, after w (which the scaling does not read)
      guard.body.insert(guard.body.begin() + std::ptrdiff_t(wAt + 1), std::move(moved));
    guard.body.push_back(scalarStmt(LStmt::Assign, mx, type, var(next, false), loc));
    if (cuda) // a term's invariant calls (the score's √dk) once a split, before its terms: nvcc kept them in
      hoistCalls(guard.body, dimSymbols(), symbols, type, body);
    const SymExpr length = SymExpr::floorDiv(g.extent + P - SymExpr(1), P);
    LStmt terms =
        loop(g.var, SymExpr::symbol(c) * length, SymExpr::symbol(c) * length + length, 1, LoopKind::Serial, loc);
    terms.body.push_back(std::move(guard));
    body.push_back(std::move(terms));
    body.push_back(store(out.buffers[0], split, var(mx, false), loc));
    for (LStmt &s : stores)
      body.push_back(std::move(s));
    return std::move(body);
  }

private:
  // The term's guard with e, next, w and the scaling (in `moved` when lazy) declared.
  void startTerm() {
    guard.kind = LStmt::If;
    guard.lhs = SymExpr::symbol(g.var);
    guard.rhs = g.extent;
    guard.loc = loc;
    mx = symbols.fresh("m");
    e = symbols.fresh("e");
    next = symbols.fresh("next");
    scale = symbols.fresh("scale");
    w = symbols.fresh("w");
    guard.body.push_back(scalarStmt(LStmt::Decl, e, type, lowerExpr(g.score, guard.body, type), loc));
    guard.body.push_back(scalarStmt(LStmt::Decl, next, type, binary(BinOp::Max, var(mx, false), var(e, false)), loc));
    moved.kind = LStmt::If; // lazy: if (next != m) { scale; every sum × scale }
    moved.value = binary(BinOp::Ne, var(next, false), var(mx, false));
    moved.loc = loc;
    moved.onlySaves = true;
    std::vector<LStmt> &scaling = lazy ? moved.body : guard.body;
    scaling.push_back(scalarStmt(LStmt::Decl, scale, type, rescale(var(mx, false), var(next, false)), loc));
    guard.body.push_back(scalarStmt(LStmt::Decl, w, type, rescale(var(e, false), var(next, false)), loc));
    wAt = guard.body.size() - 1;
  }

  LExprPtr scaled(LExprPtr old) const { return binary(BinOp::Mul, std::move(old), var(scale, false)); }

  // old·scale + w·weight, or (lazy, the scaling done before) old + w·weight
  LExprPtr term(const FusedMember &m, std::vector<LStmt> &into, LExprPtr old) {
    LExprPtr h = isOne(m.weight) ? var(w, false) : binary(BinOp::Mul, var(w, false), lowerExpr(m.weight, into, type));
    return binary(BinOp::Add, lazy ? std::move(old) : scaled(std::move(old)), h);
  }

  // A sum of scalars lives in an accumulator, stored after the terms; a sum with elements of its own
  // lives in the partials, updated in place row by row (a row of V streamed once).
  void addMember(const FusedMember &m, size_t part) {
    if (m.extra.empty()) {
      Symbol acc = symbols.fresh("acc");
      body.push_back(scalarStmt(LStmt::Decl, acc, type, floatConst(0), loc));
      if (lazy)
        moved.body.push_back(scalarStmt(LStmt::Assign, acc, type, scaled(var(acc, false)), loc));
      LExprPtr value = term(m, guard.body, var(acc, false));
      guard.body.push_back(scalarStmt(LStmt::Assign, acc, type, value, loc));
      stores.push_back(store(part, split, var(acc, false), loc));
      return;
    }
    const SymExpr at = split * product(m.extraShape) + gamma(symbolExprs(m.extra), m.extraShape);
    for (LStmt &s : serialNest(m.extra, m.extraShape, {store(part, at, floatConst(0), loc)}, loc))
      body.push_back(std::move(s));
    if (lazy)
      for (LStmt &s : serialNest(m.extra, m.extraShape, {store(part, at, scaled(loadAt(part, at, false)), loc)}, loc))
        moved.body.push_back(std::move(s));
    std::vector<LStmt> update;
    LExprPtr value = term(m, update, loadAt(part, at, false));
    update.push_back(store(part, at, value, loc));
    for (LStmt &s : serialNest(m.extra, m.extraShape, std::move(update), loc))
      guard.body.push_back(std::move(s));
  }

  std::set<Symbol> dimSymbols() const {
    std::set<Symbol> dims;
    for (const TDim &d : k.dims)
      dims.insert(d.sym);
    return dims;
  }

  SymbolTable &symbols;
  const Kernel &k;
  const FusedGroup &g;
  const FusedPartials &out;
  const Symbol c;
  const bool cuda, lazy;
  const LowerExprFn &lowerExpr;
  const ElemType type;
  const SourceLoc loc;
  const SymExpr P;
  const SymExpr split; // the partials' γ at (frame element, c)
  Symbol mx, e, next, scale, w;
  LStmt guard{};
  LStmt moved{};
  size_t wAt = 0;            // where w is declared in the guard
  std::vector<LStmt> body;   // inside the split's loop
  std::vector<LStmt> stores; // the accumulators' partials, after the terms
};

// The split pass's region: parallel loops over the frame and the split c around `body`, with its decision.
Region splitRegion(Kernel &k, const FusedGroup &g, const FusedPartials &out, Symbol c, std::vector<LStmt> body) {
  LStmt nest = loop(c, 0, SymExpr::symbol(out.splits), 1, LoopKind::Parallel, g.loc);
  nest.body = std::move(body);
  for (size_t d = g.frame.size(); d-- > 0;) {
    LStmt l = loop(g.frame[d], 0, g.frameShape[d], 1, LoopKind::Parallel, g.loc);
    l.body.push_back(std::move(nest));
    nest = std::move(l);
  }
  Region region{out.buffers[0], Region::Splits, g.loc, int(g.frame.size()) + 1, {}, std::nullopt};
  region.body.push_back(std::move(nest));
  Decision d{Decision::FusedSplits};
  d.buffer = out.buffers[0];
  d.region = k.stages.size();
  k.decisions.push_back(d);
  return region;
}

// CUDA: a frame index that the term's loads of inputs depend on only through floor divisions (a GQA
// group's heads, ⌊hkv·g / hq⌋) is packed, the innermost such: a warp takes `pack` of its values, so that
// heads of a group load each row of K and V in the same instructions; the splits (k.chunkCounts[splits])
// then count packs.
void packFrame(Kernel &k, const FusedGroup &g, const Schedule &schedule, Region &region, size_t splits) {
  for (size_t f = g.frame.size(); f-- > 0 && !region.packed.entry;) {
    bool shares = false;
    forEachAccess(region.body, [&](size_t b, const SymExpr &offset, bool isStore) {
      shares |= !isStore && k.buffers[b].role == Buffer::Input && onlyThroughDivisions(offset, g.frame[f]);
    });
    if (!shares)
      continue;
    region.packed = g.frame[f];
    region.packing = schedule.pack;
    SymVec packs = g.frameShape;
    packs[f] = SymExpr::floorDiv(packs[f] + SymExpr(schedule.pack - 1), SymExpr(schedule.pack));
    k.chunkCounts[splits].items = product(packs);
    k.chunkCounts[splits].pack = schedule.pack;
    Decision p{Decision::PackedFrame};
    p.region = k.stages.size();
    p.inner = g.frame[f];
    p.lanes = schedule.pack;
    k.decisions.push_back(p);
  }
}

} // namespace

FusedPartials lowerFusedGroup(SymbolTable &symbols, Kernel &k, const FusedGroup &g, const Schedule &schedule,
                              Target target, const LowerExprFn &lowerExpr) {
  FusedPartials out = addPartials(symbols, k, g, schedule, target);
  const size_t splits = k.chunkCounts.size() - 1;
  NameScope stageNames(symbols); // the split pass is a stage: its names beside the group's own
  reserveNames(stageNames, g);
  const Symbol c = symbols.fresh("c");
  Region region = splitRegion(k, g, out, c, SplitPass(symbols, k, g, out, c, target, lowerExpr).build());
  if (target == Target::Cuda && schedule.pack > 1)
    packFrame(k, g, schedule, region, splits);
  k.stages.push_back(std::move(region));
  return out;
}

LExprPtr lowerFusedRead(SymbolTable &symbols, const FusedGroup &g, FusedPartials &partials, const DExpr &e,
                        std::vector<LStmt> &prefix, ElemType type) {
  const FusedMember &m = g.members[e.member];
  const SymExpr P = SymExpr::symbol(partials.splits);
  SymVec frame(e.index.begin(), e.index.begin() + std::ptrdiff_t(g.frame.size()));
  SymVec extra(e.index.begin() + std::ptrdiff_t(g.frame.size()), e.index.end());
  const SymExpr base = gamma(frame, g.frameShape) * P;
  const size_t maxima = partials.buffers[0];
  // The combined maximum over the splits, once per statement list and frame element. A list is known by
  // its address, which a later list may reuse once this one has been moved away: the cached maximum
  // counts only while the list still holds its declaration.
  auto key = std::make_pair(static_cast<const void *>(&prefix), base.str());
  auto found = partials.maxima.find(key);
  Symbol top;
  if (found != partials.maxima.end() &&
      std::any_of(prefix.begin(), prefix.end(), [&](const LStmt &s) {
        return s.kind == LStmt::Decl && s.scalar == found->second;
      })) {
    top = found->second;
  } else {
    top = symbols.fresh("M");
    Symbol c = symbols.fresh("c");
    prefix.push_back(scalarStmt(LStmt::Decl, top, type, floatConst(-INFINITY), e.loc));
    LStmt l = loop(c, 0, P, 1, LoopKind::Serial, e.loc);
    l.body.push_back(
        scalarStmt(LStmt::Accumulate, top, type, loadAt(maxima, base + SymExpr::symbol(c), false), e.loc, BinOp::Max));
    prefix.push_back(std::move(l));
    partials.maxima[key] = top;
  }
  if (e.member == 0)
    return var(top, false);
  Symbol sum = symbols.fresh("S"), c = symbols.fresh("c");
  prefix.push_back(scalarStmt(LStmt::Decl, sum, type, floatConst(0), e.loc));
  LStmt l = loop(c, 0, P, 1, LoopKind::Serial, e.loc);
  SymExpr at = (base + SymExpr::symbol(c)) * product(m.extraShape) + gamma(extra, m.extraShape);
  LExprPtr factor = rescale(loadAt(maxima, base + SymExpr::symbol(c), false), var(top, false));
  l.body.push_back(scalarStmt(LStmt::Accumulate, sum, type,
                              binary(BinOp::Mul, loadAt(partials.buffers[e.member], at, false), factor), e.loc));
  prefix.push_back(std::move(l));
  return var(sum, false);
}

} // namespace moac
