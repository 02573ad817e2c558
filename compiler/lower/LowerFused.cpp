#include "LowerFused.h"

#include "Build.h"
#include "Fuse.h"
#include "Gamma.h"

#include <algorithm>
#include <cmath>

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

} // namespace

FusedPartials lowerFusedGroup(SymbolTable &symbols, Kernel &k, const FusedGroup &g, const Schedule &schedule,
                              Target target, const LowerExprFn &lowerExpr) {
  FusedPartials out;
  const ElemType type = g.elem;
  const SymExpr frameItems = product(g.frameShape);
  // P is shared by the split pass and every reader's combine: made outside any stage's scope
  out.splits = symbols.fresh("P_" + g.name);
  const SymExpr P = SymExpr::symbol(out.splits);
  for (const FusedMember &m : g.members) {
    Buffer b{Buffer::Workspace, m.name, type, {frameItems, P, product(m.extraShape)}, {}, Buffer::FusedPartials,
             0, std::nullopt, Symbol{}, false, g.name};
    k.buffers.push_back(std::move(b));
    out.buffers.push_back(k.buffers.size() - 1);
  }
  const size_t splitsCount = k.chunkCounts.size();
  k.chunkCounts.push_back(ChunkCount{out.splits, frameItems, g.extent, out.buffers[0], ChunkCount::Splits,
                                     schedule.fusedSplits(target), schedule.fusedChunk(target)});
  NameScope stageNames(symbols); // the split pass is a stage: its names beside the group's own
  reserveNames(stageNames, g);
  const Symbol c = symbols.fresh("c");
  const SymExpr length = SymExpr::floorDiv(g.extent + P - SymExpr(1), P);
  const SymExpr split = gamma(symbolExprs(g.frame), g.frameShape) * P + SymExpr::symbol(c);
  const SourceLoc loc = g.loc;

  // one term: e once, the new maximum, the two rescaling factors, every sum updated, the maximum moved
  LStmt guard{};
  guard.kind = LStmt::If;
  guard.lhs = SymExpr::symbol(g.var);
  guard.rhs = g.extent;
  guard.loc = loc;
  Symbol mx = symbols.fresh("m"), e = symbols.fresh("e"), next = symbols.fresh("next");
  Symbol scale = symbols.fresh("scale"), w = symbols.fresh("w");
  guard.body.push_back(scalarStmt(LStmt::Decl, e, type, lowerExpr(g.score, guard.body, type), loc));
  guard.body.push_back(scalarStmt(LStmt::Decl, next, type, binary(BinOp::Max, var(mx, false), var(e, false)), loc));
  guard.body.push_back(scalarStmt(LStmt::Decl, scale, type, rescale(var(mx, false), var(next, false)), loc));
  guard.body.push_back(scalarStmt(LStmt::Decl, w, type, rescale(var(e, false), var(next, false)), loc));

  std::vector<LStmt> body{scalarStmt(LStmt::Decl, mx, type, floatConst(-INFINITY), loc)};
  std::vector<LStmt> stores;
  for (size_t j = 1; j < g.members.size(); ++j) {
    const FusedMember &m = g.members[j];
    const size_t part = out.buffers[j];
    auto term = [&](std::vector<LStmt> &into, LExprPtr old) {
      LExprPtr h = isOne(m.weight) ? var(w, false) : binary(BinOp::Mul, var(w, false), lowerExpr(m.weight, into, type));
      return binary(BinOp::Add, binary(BinOp::Mul, std::move(old), var(scale, false)), h);
    };
    if (m.extra.empty()) {
      Symbol acc = symbols.fresh("acc");
      body.push_back(scalarStmt(LStmt::Decl, acc, type, floatConst(0), loc));
      LExprPtr value = term(guard.body, var(acc, false));
      guard.body.push_back(scalarStmt(LStmt::Assign, acc, type, value, loc));
      stores.push_back(store(part, split, var(acc, false), loc));
      continue;
    }
    // the sum's elements live in the partials, updated in place row by row (a row of V streamed once)
    const SymExpr at = split * product(m.extraShape) + gamma(symbolExprs(m.extra), m.extraShape);
    for (LStmt &s : serialNest(m.extra, m.extraShape, {store(part, at, floatConst(0), loc)}, loc))
      body.push_back(std::move(s));
    std::vector<LStmt> update;
    LExprPtr value = term(update, loadAt(part, at, false));
    update.push_back(store(part, at, value, loc));
    for (LStmt &s : serialNest(m.extra, m.extraShape, std::move(update), loc))
      guard.body.push_back(std::move(s));
  }
  guard.body.push_back(scalarStmt(LStmt::Assign, mx, type, var(next, false), loc));
  LStmt terms = loop(g.var, SymExpr::symbol(c) * length, SymExpr::symbol(c) * length + length, 1, LoopKind::Serial, loc);
  terms.body.push_back(std::move(guard));
  body.push_back(std::move(terms));
  body.push_back(store(out.buffers[0], split, var(mx, false), loc));
  for (LStmt &s : stores)
    body.push_back(std::move(s));

  LStmt nest = loop(c, 0, P, 1, LoopKind::Parallel, loc);
  nest.body = std::move(body);
  for (size_t d = g.frame.size(); d-- > 0;) {
    LStmt l = loop(g.frame[d], 0, g.frameShape[d], 1, LoopKind::Parallel, loc);
    l.body.push_back(std::move(nest));
    nest = std::move(l);
  }
  Region region{out.buffers[0], Region::Splits, loc, int(g.frame.size()) + 1, {}, std::nullopt};
  region.body.push_back(std::move(nest));
  Decision d{Decision::FusedSplits};
  d.buffer = out.buffers[0];
  d.region = k.stages.size();
  k.decisions.push_back(d);
  // CUDA: a frame index that the term's loads of inputs depend on only through floor divisions (a GQA
  // group's heads, ⌊hkv·g / hq⌋) is packed, the innermost such: a warp takes `pack` of its values, so that
  // heads of a group load each row of K and V in the same instructions; the splits then count packs.
  if (target == Target::Cuda && schedule.pack > 1) {
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
      k.chunkCounts[splitsCount].items = product(packs);
      k.chunkCounts[splitsCount].pack = schedule.pack;
      Decision p{Decision::PackedFrame};
      p.region = k.stages.size();
      p.inner = g.frame[f];
      p.lanes = schedule.pack;
      k.decisions.push_back(p);
    }
  }
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
