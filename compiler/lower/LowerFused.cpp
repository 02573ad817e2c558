#include "LowerFused.h"

#include "Build.h"
#include "Fuse.h"
#include "Gamma.h"
#include "Lower.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
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


// Whether the statements hold a prefetch hint, nested ones included.
bool hasPrefetch(const std::vector<LStmt> &body) {
  return std::any_of(body.begin(), body.end(), [](const LStmt &s) {
    return s.kind == LStmt::Prefetch || hasPrefetch(s.body) || hasPrefetch(s.orElse);
  });
}

// The loop indices of the statements, nested ones included.
void loopIndices(const std::vector<LStmt> &body, std::set<Symbol> &out) {
  for (const LStmt &s : body) {
    if (s.kind == LStmt::Loop)
      out.insert(s.var);
    loopIndices(s.body, out);
    loopIndices(s.orElse, out);
  }
}

// The prefetch hints of a whole tile of T terms from l0 (Schedule::prefetch): for every input that the tile's
// statements read at offsets linear in the term, with a step S the same for every term and inner index (a
// row of K: dk) and every coefficient positive (so the offsets grow with every index), the lines of the rows
// D terms ahead: from the offset of row l0 + D with every inner index 0 (the least of those reads' offsets
// there), T·S elements, one hint per 64-byte line, under a guard that the last of them lies inside the
// input. Reads through a gather (a page table) are not prefetched.
std::vector<LStmt> prefetchRows(SymbolTable &symbols, const Kernel &k, const std::vector<LStmt> &tileBody, Symbol term,
                                const SymExpr &l0, int64_t T, int64_t D, SourceLoc loc) {
  std::set<Symbol> indices;
  loopIndices(tileBody, indices);
  std::map<Symbol, SymExpr> ahead;
  for (Symbol i : indices)
    ahead[i] = i == term ? l0 + SymExpr(D) : SymExpr(0);
  struct Rows {
    size_t buffer;
    SymExpr step, from;
    bool seen = false, usable = true;
  };
  std::vector<Rows> rows;
  forEachAccess(tileBody, [&](size_t b, const SymExpr &offset, bool isStore) {
    if (isStore || k.buffers[b].role != Buffer::Input || !offset.dependsOn(term))
      return;
    auto at = std::find_if(rows.begin(), rows.end(), [&](const Rows &r) { return r.buffer == b; });
    if (at == rows.end())
      at = rows.insert(rows.end(), Rows{b, {}, {}});
    const std::optional<SymExpr> step = offset.linearCoefficient(term);
    const bool positive = std::all_of(offset.terms().begin(), offset.terms().end(),
                                      [](const SymExpr::Term &t) { return t.coef > 0; });
    const SymExpr from = offset.substitute(ahead);
    if (!step || offset.hasLoad() || !positive ||
        std::any_of(indices.begin(), indices.end(), [&](Symbol i) { return step->dependsOn(i); })) {
      at->usable = false;
      return;
    }
    if (!at->seen) { // the first read of this input
      at->seen = true, at->step = *step, at->from = from;
      return;
    }
    const std::optional<int64_t> apart = (from - at->from).constant();
    if (!(at->step == *step) || !apart)
      at->usable = false;
    else if (*apart < 0)
      at->from = from;
  });
  std::vector<LStmt> hints;
  for (const Rows &r : rows) {
    if (!r.usable)
      continue;
    const SymExpr span = SymExpr(T) * r.step;
    LStmt inside{}; // if (from + T·S − 1 < the input's elements)
    inside.kind = LStmt::If;
    inside.lhs = r.from + span - SymExpr(1);
    inside.rhs = k.buffers[r.buffer].storageElements();
    inside.loc = loc;
    const Symbol pf = symbols.fresh("pf");
    LStmt lines = loop(pf, 0, span, 64 / elemBytes(k.buffers[r.buffer].elem), LoopKind::Serial, loc);
    LStmt hint{};
    hint.kind = LStmt::Prefetch;
    hint.buffer = r.buffer;
    hint.offset = r.from + SymExpr::symbol(pf);
    hint.loc = loc;
    lines.body.push_back(std::move(hint));
    inside.body.push_back(std::move(lines));
    hints.push_back(std::move(inside));
  }
  return hints;
}
} // namespace

namespace {

// The greatest number of terms over the frame: the extent itself unless it is over the frame's indices
// (causal prefill's l < i + 1 gives n).
SymExpr termsBound(const FusedGroup &g) {
  IndexRanges frame;
  for (size_t f = 0; f < g.frame.size(); ++f)
    frame[g.frame[f]] = g.frameShape[f];
  return upperBound(g.extent, frame);
}

struct Running;

// What the split pass of one group is made of: the group, its partials, and split c's place.
struct SplitPass {
  SymbolTable &symbols;
  Kernel &k;
  const FusedGroup &g;
  const FusedPartials &out;
  const LowerExprFn &lowerExpr;
  Symbol c;       // the split
  SymExpr length; // L = ⌈n / P⌉ terms a split
  SymExpr split;  // the frame element's split, γ(frame)·P + c: where its partials go
  ElemType type;
  SourceLoc loc;
  int64_t lanes; // accumulators of a member's sum over a split's terms (Schedule::lanes; CUDA: 1)

  LStmt terms(LoopKind kind) const {
    return loop(g.var, SymExpr::symbol(c) * length, SymExpr::symbol(c) * length + length, 1, kind, loc);
  }
  // if (l + ahead < n) { … }: the last split may run past the terms
  LStmt inRange(int64_t ahead = 0) const {
    LStmt guard{};
    guard.kind = LStmt::If;
    guard.lhs = SymExpr::symbol(g.var) + SymExpr(ahead);
    guard.rhs = g.extent;
    guard.loc = loc;
    return guard;
  }
  SymExpr memberAt(const FusedMember &m) const {
    return split * product(m.extraShape) + gamma(symbolExprs(m.extra), m.extraShape);
  }
  Running running(std::vector<LStmt> &body, std::vector<LStmt> &stores) const;
  LExprPtr weighted(size_t j, LExprPtr w, std::vector<LStmt> &into) const;
  LStmt onlineTerm(const Running &r, bool lazy) const;
  std::vector<LStmt> online(bool lazy, const std::set<Symbol> &dims) const;
  std::vector<LStmt> tiled(int64_t T, size_t tile, int64_t stride, int64_t prefetch) const;
  std::vector<LStmt> stored(std::optional<size_t> weights) const;
  std::vector<LStmt> rowSum(Symbol acc, const LExprPtr &term) const;
};

// acc = Σ over the split's terms of `term` (over g.var), in `lanes` chains: term l into accumulator
// (l − c·L) mod lanes over the whole rounds, the rest into acc, the chains combined pairwise — the order
// of Lower.cpp's interleaved sums, so that a lane keeps `lanes` loads in flight instead of one.
std::vector<LStmt> SplitPass::rowSum(Symbol acc, const LExprPtr &term) const {
  std::vector<LStmt> out{scalarStmt(LStmt::Decl, acc, type, floatConst(0), loc)};
  const SymExpr first = SymExpr::symbol(c) * length;
  for (LStmt &s : interleavedSum(symbols, acc, type, BinOp::Add, g.var, first, first + length, term, lanes, loc,
                                 [this](int64_t ahead) { return inRange(ahead); }))
    out.push_back(std::move(s));
  return out;
}

// The state a split of the online form carries from term to term: its running maximum and, for each member
// past the first whose sum has no own indices, the scalar sum (the elements of the others live in the
// partials, updated in place).
struct Running {
  Symbol mx;
  std::vector<Symbol> sums; // by member; none for the maximum and for members with own indices
};

// The running state's declarations (the maximum −∞, every sum 0) into `body`, and the split's results
// stored from it into `stores`: the maximum, then each scalar sum.
Running SplitPass::running(std::vector<LStmt> &body, std::vector<LStmt> &stores) const {
  Running r{symbols.fresh("m"), std::vector<Symbol>(g.members.size())};
  body.push_back(scalarStmt(LStmt::Decl, r.mx, type, floatConst(-INFINITY), loc));
  stores.push_back(store(out.buffers[0], split, var(r.mx, false), loc));
  for (size_t j = 1; j < g.members.size(); ++j) {
    const FusedMember &m = g.members[j];
    if (m.extra.empty()) {
      r.sums[j] = symbols.fresh("acc");
      body.push_back(scalarStmt(LStmt::Decl, r.sums[j], type, floatConst(0), loc));
      stores.push_back(store(out.buffers[j], split, var(r.sums[j], false), loc));
      continue;
    }
    for (LStmt &s : serialNest(m.extra, m.extraShape, {store(out.buffers[j], memberAt(m), floatConst(0), loc)}, loc))
      body.push_back(std::move(s));
  }
  return r;
}

// Member j's term for the weight w: w, or w·h_j (its weight lowered into `into`).
LExprPtr SplitPass::weighted(size_t j, LExprPtr w, std::vector<LStmt> &into) const {
  const FusedMember &m = g.members[j];
  return isOne(m.weight) ? w : binary(BinOp::Mul, std::move(w), lowerExpr(m.weight, into, type));
}

// One term of the online form, under its guard: e once, the new maximum, the two rescaling factors,
// every sum updated, the maximum moved. `lazy` (CUDA) rescales only where the maximum moved: where
// next = m the factor is exactly 1 (exp(0), or, both −∞, 0 against sums that are then exactly 0), so a
// warp skips an exp and a multiply an element on all but the few terms that raise the maximum (about ln
// of a split's length).
LStmt SplitPass::onlineTerm(const Running &r, bool lazy) const {
  LStmt guard = inRange();
  Symbol e = symbols.fresh("e"), next = symbols.fresh("next");
  Symbol scale = symbols.fresh("scale"), w = symbols.fresh("w");
  guard.body.push_back(scalarStmt(LStmt::Decl, e, type, lowerExpr(g.score, guard.body, type), loc));
  guard.body.push_back(scalarStmt(LStmt::Decl, next, type, binary(BinOp::Max, var(r.mx, false), var(e, false)), loc));
  LStmt moved{}; // lazy: if (next != m) { scale; every sum × scale }
  moved.kind = LStmt::If;
  moved.value = binary(BinOp::Ne, var(next, false), var(r.mx, false));
  moved.loc = loc;
  moved.onlySaves = true;
  std::vector<LStmt> &scaling = lazy ? moved.body : guard.body;
  scaling.push_back(scalarStmt(LStmt::Decl, scale, type, rescale(var(r.mx, false), var(next, false)), loc));
  guard.body.push_back(scalarStmt(LStmt::Decl, w, type, rescale(var(e, false), var(next, false)), loc));
  const size_t wAt = guard.body.size() - 1;
  auto scaled = [&](LExprPtr old) { return binary(BinOp::Mul, std::move(old), var(scale, false)); };
  for (size_t j = 1; j < g.members.size(); ++j) {
    const FusedMember &m = g.members[j];
    // old·scale + w·weight, or (lazy, the scaling done before) old + w·weight
    auto term = [&](std::vector<LStmt> &into, LExprPtr old) {
      LExprPtr h = weighted(j, var(w, false), into);
      return binary(BinOp::Add, lazy ? std::move(old) : scaled(std::move(old)), h);
    };
    if (m.extra.empty()) {
      const Symbol acc = r.sums[j];
      if (lazy)
        moved.body.push_back(scalarStmt(LStmt::Assign, acc, type, scaled(var(acc, false)), loc));
      LExprPtr value = term(guard.body, var(acc, false));
      guard.body.push_back(scalarStmt(LStmt::Assign, acc, type, value, loc));
      continue;
    }
    // the sum's elements live in the partials, updated in place row by row (a row of V streamed once)
    const size_t part = out.buffers[j];
    const SymExpr at = memberAt(m);
    if (lazy)
      for (LStmt &s : serialNest(m.extra, m.extraShape, {store(part, at, scaled(loadAt(part, at, false)), loc)}, loc))
        moved.body.push_back(std::move(s));
    std::vector<LStmt> update;
    LExprPtr value = term(update, loadAt(part, at, false));
    update.push_back(store(part, at, value, loc));
    for (LStmt &s : serialNest(m.extra, m.extraShape, std::move(update), loc))
      guard.body.push_back(std::move(s));
  }
  if (lazy) // before the updates, after w (which the scaling does not read)
    guard.body.insert(guard.body.begin() + std::ptrdiff_t(wAt + 1), std::move(moved));
  guard.body.push_back(scalarStmt(LStmt::Assign, r.mx, type, var(next, false), loc));
  return guard;
}

// Split c of the online form, one term at a time (onlineTerm). dims: the kernel's, whose invariant calls
// (the score's √dk) CUDA computes once a split, before its terms (nvcc kept them in the loop); empty for
// the other targets.
std::vector<LStmt> SplitPass::online(bool lazy, const std::set<Symbol> &dims) const {
  std::vector<LStmt> body, stores;
  const Running r = running(body, stores);
  LStmt guard = onlineTerm(r, lazy);
  if (!dims.empty())
    hoistCalls(guard.body, dims, symbols, type, body);
  LStmt each = terms(LoopKind::Serial);
  each.body.push_back(std::move(guard));
  body.push_back(std::move(each));
  for (LStmt &s : stores)
    body.push_back(std::move(s));
  return body;
}

// Split c of the online form `T` terms a step (Schedule::tile; the split's length a multiple of T). A tile
// whose last term exists runs
//   t = max_l e_l, e_l into tile[l − l0]         the scores, each computed once
//   next = max(m, t); scale = rescale(m, next)    the running maximum moved once a tile, every sum × scale
//   w_l = rescale(tile[l − l0], next) into tile[l − l0], and the scalar sums S += w_l·h_l
//   S[x] += w_l·h_l[x], term by term, a row of V streamed whole (without the exp's call in its loop)
// (the monoid of the term-by-term form: exp(e − next) = exp(e − t')·exp(t' − next) for any t', so the sums
// end equal in real arithmetic; the roundings differ); a tile past the terms goes term by term (onlineTerm).
std::vector<LStmt> SplitPass::tiled(int64_t T, size_t tile, int64_t stride, int64_t prefetch) const {
  std::vector<LStmt> body, stores;
  const Running r = running(body, stores);
  const Symbol l0 = symbols.fresh(g.var.name() + "0"), top = symbols.fresh("top"), next = symbols.fresh("next");
  const Symbol scale = symbols.fresh("scale"), e = symbols.fresh("e"), w = symbols.fresh("w");
  const SymExpr from = SymExpr::symbol(l0), slot = split * SymExpr(stride) + SymExpr::symbol(g.var) - from;
  auto overTile = [&](std::vector<LStmt> inner) { // for (l = l0; l < l0 + T; ++l)
    LStmt each = loop(g.var, from, from + SymExpr(T), 1, LoopKind::Serial, loc);
    each.body = std::move(inner);
    return each;
  };
  LStmt full{};
  full.kind = LStmt::If;
  full.lhs = from + SymExpr(T - 1);
  full.rhs = g.extent;
  full.loc = loc;
  full.body.push_back(scalarStmt(LStmt::Decl, top, type, floatConst(-INFINITY), loc));
  std::vector<LStmt> scores;
  scores.push_back(scalarStmt(LStmt::Decl, e, type, lowerExpr(g.score, scores, type), loc));
  scores.push_back(store(tile, slot, var(e, false), loc));
  scores.push_back(scalarStmt(LStmt::Accumulate, top, type, var(e, false), loc, BinOp::Max));
  full.body.push_back(overTile(std::move(scores)));
  full.body.push_back(scalarStmt(LStmt::Decl, next, type, binary(BinOp::Max, var(r.mx, false), var(top, false)), loc));
  full.body.push_back(scalarStmt(LStmt::Decl, scale, type, rescale(var(r.mx, false), var(next, false)), loc));
  auto scaled = [&](LExprPtr old) { return binary(BinOp::Mul, std::move(old), var(scale, false)); };
  std::vector<LStmt> weights{
      scalarStmt(LStmt::Decl, w, type, rescale(loadAt(tile, slot, false), var(next, false)), loc)};
  std::vector<LStmt> rows; // the members with own indices: row l of each added in place, after the weights
  for (size_t j = 1; j < g.members.size(); ++j) {
    const FusedMember &m = g.members[j];
    if (m.extra.empty()) {
      const Symbol acc = r.sums[j];
      full.body.push_back(scalarStmt(LStmt::Assign, acc, type, scaled(var(acc, false)), loc));
      LExprPtr h = weighted(j, var(w, false), weights);
      weights.push_back(scalarStmt(LStmt::Accumulate, acc, type, h, loc, BinOp::Add));
      continue;
    }
    const size_t part = out.buffers[j];
    const SymExpr at = memberAt(m);
    for (LStmt &s : serialNest(m.extra, m.extraShape, {store(part, at, scaled(loadAt(part, at, false)), loc)}, loc))
      full.body.push_back(std::move(s));
    std::vector<LStmt> update;
    LExprPtr value = binary(BinOp::Add, loadAt(part, at, false), weighted(j, loadAt(tile, slot, false), update));
    update.push_back(store(part, at, value, loc));
    for (LStmt &s : serialNest(m.extra, m.extraShape, std::move(update), loc))
      rows.push_back(std::move(s));
  }
  if (!rows.empty()) // read back by the rows' loop
    weights.push_back(store(tile, slot, var(w, false), loc));
  full.body.push_back(overTile(std::move(weights)));
  if (!rows.empty())
    full.body.push_back(overTile(std::move(rows)));
  full.body.push_back(scalarStmt(LStmt::Assign, r.mx, type, var(next, false), loc));
  if (prefetch > 0) { // the rows `prefetch` terms ahead asked for before this tile's reads
    std::vector<LStmt> hints = prefetchRows(symbols, k, full.body, g.var, from, T, prefetch, loc);
    full.body.insert(full.body.begin(), std::make_move_iterator(hints.begin()), std::make_move_iterator(hints.end()));
  }
  full.orElse.push_back(overTile({onlineTerm(r, false)}));
  const SymExpr first = SymExpr::symbol(c) * length;
  LStmt tiles = loop(l0, first, first + length, SymExpr(T), LoopKind::Serial, loc);
  tiles.body.push_back(std::move(full));
  body.push_back(std::move(tiles));
  for (LStmt &s : stores)
    body.push_back(std::move(s));
  return body;
}

// Split c of a group whose scores are stored (scores=stored: the score reads an array): the scores are
// read twice, so the maximum is known before any weight and nothing is rescaled:
//   m = max_l e_l                                   a vector loop over the split's terms
//   w_l = rescale(e_l, m); S_j += w_l·h_j           a vector loop, each weight computed once (and stored
//                                                   in `weights` when a member has own indices)
//   S_j[x] = Σ_l w_l·h_j[x]                          a vector loop over the member's last own index, the
//                                                   terms in order inside (a row of V across the lanes)
// The partials are those of the online form (each split's sums against its own maximum), so the readers
// combine them alike.
std::vector<LStmt> SplitPass::stored(std::optional<size_t> weights) const {
  Symbol mx = symbols.fresh("m"), w = symbols.fresh("w");
  std::vector<LStmt> body{scalarStmt(LStmt::Decl, mx, type, floatConst(-INFINITY), loc)};
  {
    LStmt guard = inRange();
    guard.body.push_back(scalarStmt(LStmt::Accumulate, mx, type, lowerExpr(g.score, guard.body, type), loc, BinOp::Max));
    LStmt each = terms(LoopKind::Vector);
    each.body.push_back(std::move(guard));
    body.push_back(std::move(each));
  }
  const SymExpr weightAt = gamma(symbolExprs(g.frame), g.frameShape) * termsBound(g) + SymExpr::symbol(g.var);
  LStmt guard = inRange();
  guard.body.push_back(scalarStmt(LStmt::Decl, w, type, rescale(lowerExpr(g.score, guard.body, type), var(mx, false)), loc));
  if (weights)
    guard.body.push_back(store(*weights, weightAt, var(w, false), loc));
  std::vector<LStmt> stores{store(out.buffers[0], split, var(mx, false), loc)};
  std::vector<LStmt> rows; // the members with own indices, after the weights
  for (size_t j = 1; j < g.members.size(); ++j) {
    const FusedMember &m = g.members[j];
    Symbol acc = symbols.fresh("acc");
    if (m.extra.empty()) {
      body.push_back(scalarStmt(LStmt::Decl, acc, type, floatConst(0), loc));
      LExprPtr term = weighted(j, var(w, false), guard.body);
      guard.body.push_back(scalarStmt(LStmt::Accumulate, acc, type, term, loc, BinOp::Add));
      stores.push_back(store(out.buffers[j], split, var(acc, false), loc));
      continue;
    }
    std::vector<LStmt> none; // a weight is loads and arithmetic: no statements of its own
    std::vector<LStmt> element = rowSum(acc, weighted(j, loadAt(*weights, weightAt, false), none));
    element.push_back(store(out.buffers[j], memberAt(m), var(acc, false), loc));
    std::vector<LStmt> nest = serialNest(m.extra, m.extraShape, std::move(element), loc);
    LStmt *last = &nest.back();
    while (!(last->var == m.extra.back()))
      last = &last->body.back();
    last->loopKind = LoopKind::Vector;
    for (LStmt &s : nest)
      rows.push_back(std::move(s));
  }
  LStmt each = terms(LoopKind::Vector);
  each.body.push_back(std::move(guard));
  body.push_back(std::move(each));
  for (LStmt &s : rows)
    body.push_back(std::move(s));
  for (LStmt &s : stores)
    body.push_back(std::move(s));
  return body;
}

// The group's chunk count and partial buffers (one per member: [frame][c][extra]; buffers[0] the maxima).
FusedPartials addPartials(SymbolTable &symbols, Kernel &k, const FusedGroup &g, const Schedule &schedule,
                          Target target) {
  FusedPartials out;
  const SymExpr frameItems = product(g.frameShape);
  // P is shared by the split pass and every reader's combine: made outside any stage's scope
  out.splits = symbols.fresh("P_" + g.name);
  const SymExpr P = SymExpr::symbol(out.splits);
  for (const FusedMember &m : g.members) {
    Buffer b{Buffer::Workspace, m.name, g.elem, {frameItems, P, product(m.extraShape)}, {}, Buffer::FusedPartials,
             0, std::nullopt, Symbol{}, false, g.name};
    k.buffers.push_back(std::move(b));
    out.buffers.push_back(k.buffers.size() - 1);
  }
  // a triangular range (l < i + 1 over frame i < n) is split by its greatest extent; the splits of a row past
  // its bound hold the monoid's identity (−∞, 0, 0)
  k.chunkCounts.push_back(ChunkCount{out.splits, frameItems, termsBound(g), out.buffers[0], ChunkCount::Splits,
                                     schedule.fusedSplits(target), schedule.fusedChunk(target), 1, std::nullopt});
  return out;
}

// CUDA: a frame index that the term's loads of inputs depend on only through floor divisions (a GQA
// group's heads, ⌊hkv·g / hq⌋) is packed, the innermost such: a warp takes `pack` of its values, so that
// heads of a group load each row of K and V in the same instructions; the splits then count packs.
// `pack` 0 is the default: 2, or 4 where every such load is of a half-precision input, whose group of four
// a lane holds in half the registers (uint2, not float4), so that twice the values a warp cost what 2 do in
// f32 (bench/cuda/NOTES.md #40-#41: GQA bf16 10-13 % faster with 4; GQA f32 slower with 4).
void packFrame(Kernel &k, const FusedGroup &g, int64_t pack, Region &region, ChunkCount &splits) {
  for (size_t f = g.frame.size(); f-- > 0 && !region.packed.entry;) {
    bool shares = false, allHalf = true;
    forEachAccess(region.body, [&](size_t b, const SymExpr &offset, bool isStore) {
      if (!isStore && k.buffers[b].role == Buffer::Input && onlyThroughDivisions(offset, g.frame[f])) {
        shares = true;
        allHalf &= isHalf(k.buffers[b].elem);
      }
    });
    if (!shares)
      continue;
    if (pack == 0)
      pack = allHalf ? 4 : 2;
    region.packed = g.frame[f];
    region.packing = pack;
    SymVec packs = g.frameShape;
    packs[f] = SymExpr::floorDiv(packs[f] + SymExpr(pack - 1), SymExpr(pack));
    splits.items = product(packs);
    splits.pack = pack;
    Decision p{Decision::PackedFrame};
    p.region = k.stages.size();
    p.inner = g.frame[f];
    p.lanes = pack;
    k.decisions.push_back(p);
  }
}

// CUDA: the rows of its moving loads (K's and V's) a warp of a split pass keeps in flight while it computes
// with the current one (emit/CudaHeld.cpp pipelines the row loop): the schedule's `ahead`, else enough that
// a SM has about 32 KB of loads outstanding (Little's law: the H100's and H200's ~4.4 TB/s times a DRAM
// latency near 1 µs, over 132 SMs). A SM runs 32 / pack warps of a split pass (__launch_bounds__), so a warp
// wants 1 KB · pack in flight: f32 decode (a row of K and of V, 1 KB a warp) keeps one row ahead, bf16 decode
// two, packed GQA two in f32 and four (the most) in bf16 (bench/cuda/NOTES.md #38: one row of bf16 reached
// 64 % of the ceiling, with half the f32 kernel's bytes in flight). A region on the tensor cores
// (Region::tiles) keeps the same: its pipelined loop is the path of the calls whose heads of a warp read
// different rows (GQA's kernel called with hq = hkv), which one row ahead slowed by 13 % (NOTES.md #50).
// Half-precision rows (every moving load bf16 or f16) keep three, whatever the pack: a row's loads take half
// the registers of an f32 row, and three rows measured 2–5 % faster than the bytes' two (decode at n = 4k and
// 64k) and than four (the packed GQA warp at B = 8), 1 % at GQA B = 1, 0.5–0.7 % slower only at decode n = 1M,
// on two H100s (NOTES.md #62 – #64).
constexpr int64_t halfRowsAhead = 3;
void rowsAhead(Kernel &k, const FusedGroup &g, const Schedule &schedule, Region &region) {
  const int64_t row = rowBytes(k, region, g.var), want = 1024 * region.packing;
  const bool half = halfPrecisionRows(k, region, g.var);
  region.ahead = schedule.ahead > 0 ? schedule.ahead
                 : row == 0        ? 1
                 : half            ? halfRowsAhead
                                   : std::clamp<int64_t>((want + row - 1) / row, 1, Schedule::maxAhead);
  Decision d{Decision::RowsAhead};
  d.region = k.stages.size();
  d.inner = g.var;
  d.lanes = region.ahead;
  k.decisions.push_back(d);
}

// CUDA: a packed split pass (four or more query heads a warp) whose moving loads (K's and V's rows) are all
// half precision runs its row loop on the tensor cores, sixteen rows a tile: the heads are the rows of the
// products, each row of K and V read once for them (emit/CudaMma.cpp, which also checks the statements'
// shape). Four heads fill a quarter of a product's sixteen rows; the tensor cores still finish far ahead of
// the memory (bench/cuda/NOTES.md #48).
void tensorTiles(Kernel &k, const FusedGroup &g, Region &region) {
  if (region.packing < 4 || !halfPrecisionRows(k, region, g.var))
    return;
  region.tiles = true;
  Decision d{Decision::TensorTiles};
  d.region = k.stages.size();
  d.inner = g.var;
  d.lanes = region.packing;
  k.decisions.push_back(d);
}

// CUDA: a tiled split pass of the default pack (four values a warp) is also printed as a kernel of twice that,
// which the launcher runs where every pack of eight adjacent values agrees on each floor division its loads
// depend on them through (an MQA, or a GQA group of eight or more heads): a warp then serves eight heads with each
// tile it loads, the tensor cores' eight columns of the weighted sum all live, and half the warps read each row
// (bench/cuda/NOTES.md #57: MQA bf16 ~27 % faster). Not where the schedule sets `pack`, nor where a division
// depends on anything but the packed index and the dims (the launcher tests them before any index is known).
//
// The split count P then counts the eight-head kernel's frames where the launcher runs it (ChunkCount::Wider):
// with the four-head kernel's P an MQA at B = 8 ran half a wave (128 blocks of four warps, 3.98 warps a SM of
// the 8 resident; bench/cuda/NOTES.md #67-#68). Its residency is the four-head kernel's: two blocks of four warps
// a SM fit at any register count (65536 / 256 threads is above ptxas's 255), so `pack` stays 4 and P is a wave
// of 8 warps a SM over B·⌈hq / 8⌉ frames.
void widerPack(Kernel &k, const FusedGroup &g, const Schedule &schedule, Region &region, ChunkCount &splits) {
  if (!region.tiles || schedule.pack != 0)
    return;
  std::set<Symbol> known{region.packed};
  for (const TDim &d : k.dims)
    known.insert(d.sym);
  const std::vector<SymExpr> divisions = divisionsOf(k, region.body, region.packed);
  for (const SymExpr &d : divisions)
    for (Symbol s : d.symbols())
      if (!known.count(s))
        return;
  if (divisions.empty())
    return;
  region.widerPacking = 2 * region.packing;
  const size_t f = size_t(std::find(g.frame.begin(), g.frame.end(), region.packed) - g.frame.begin());
  SymVec packs = g.frameShape;
  packs[f] = SymExpr::floorDiv(packs[f] + SymExpr(region.widerPacking - 1), SymExpr(region.widerPacking));
  splits.wider = ChunkCount::Wider{region.packed, g.frameShape[f], region.widerPacking, divisions, product(packs)};
  Decision w{Decision::WiderPack};
  w.region = k.stages.size();
  w.inner = region.packed;
  w.lanes = region.widerPacking;
  k.decisions.push_back(w);
}

// CPU and OpenACC targets: the frame indices that no load of a split's terms tells apart — each load that
// depends on the term index depends on them only through floor divisions (a GQA group's query heads,
// ⌊hkv·g / hq⌋) or not at all (queries over one K) — so that iterations differing only in them read the same
// rows of K and V. Those loops run inside the split loop: a thread runs them back to back, and all but the
// first read the split's rows from its cache. The splits then count only the other frame elements.
std::vector<bool> framesSharingRows(const Kernel &k, const FusedGroup &g, const std::vector<LStmt> &body) {
  std::vector<bool> shares(g.frame.size(), true);
  // a range over a frame index (l < i + 1) cuts each row's terms into splits of its own length: no rows shared
  for (size_t f = 0; f < g.frame.size(); ++f)
    shares[f] = !g.extent.dependsOn(g.frame[f]);
  forEachAccess(body, [&](size_t b, const SymExpr &offset, bool isStore) {
    if (isStore || !offset.dependsOn(g.var) || k.buffers[b].origin == Buffer::FusedTile) // a split's own tile
      return;
    for (size_t f = 0; f < g.frame.size(); ++f)
      if (offset.dependsOn(g.frame[f]) && !onlyThroughDivisions(offset, g.frame[f]))
        shares[f] = false;
  });
  return shares;
}

// The split pass's perfect nest of parallel loops around `body`: the frame loops that tell rows apart,
// the split loop, then those that share rows (framesSharingRows), each recorded as a decision.
LStmt splitNest(Kernel &k, const FusedGroup &g, Symbol c, const SymExpr &P, const std::vector<bool> &inside,
                std::vector<LStmt> body, ChunkCount &splits) {
  auto wrap = [&](Symbol var, const SymExpr &extent, std::vector<LStmt> inner) {
    LStmt l = loop(var, 0, extent, 1, LoopKind::Parallel, g.loc);
    l.body = std::move(inner);
    return l;
  };
  SymExpr items(1);
  for (size_t d = g.frame.size(); d-- > 0;)
    if (inside[d]) {
      body = {wrap(g.frame[d], g.frameShape[d], std::move(body))};
    } else {
      items = g.frameShape[d] * items;
    }
  LStmt nest = wrap(c, P, std::move(body));
  for (size_t d = g.frame.size(); d-- > 0;)
    if (!inside[d])
      nest = wrap(g.frame[d], g.frameShape[d], {std::move(nest)});
  splits.items = items;
  for (size_t d = 0; d < g.frame.size(); ++d)
    if (inside[d]) {
      Decision s{Decision::RowsShared};
      s.region = k.stages.size();
      s.inner = g.frame[d];
      k.decisions.push_back(s);
    }
  return nest;
}

// The accesses of a split pass's vector loops, each measured along its own loop's index (the lanes).
void reportVectorAccesses(SymbolTable &symbols, Kernel &k, const std::vector<LStmt> &body, int64_t block) {
  for (const LStmt &s : body) {
    if (s.kind == LStmt::Loop && s.loopKind == LoopKind::Vector) {
      forEachAccess(s.body, [&](size_t buffer, const SymExpr &offset, bool isStore) {
        for (const Coalescing &seen : k.coalescing)
          if (seen.region == k.stages.size() && seen.buffer == buffer && seen.isStore == isStore &&
              seen.offset == offset)
            return;
        k.coalescing.push_back(Coalescing{k.stages.size(), buffer, offset, isStore, s.var,
                                          gammaDifference(symbols, offset, s.var, block)});
      });
      continue;
    }
    reportVectorAccesses(symbols, k, s.body, block);
    reportVectorAccesses(symbols, k, s.orElse, block);
  }
}

// Stored scores: the region after the split pass that combines the splits' maxima once per frame element,
//   M = max_c m_c;  factor_c = rescale(m_c, M)
// a parallel iteration per frame element (one of [0, 1) for an empty frame, so that its loops over the
// splits are vector loops), M and the factors stored for the readers (lowerFusedRead).
void addFactors(SymbolTable &symbols, Kernel &k, const FusedGroup &g, FusedPartials &out, int64_t block) {
  const SymExpr frameItems = product(g.frameShape), P = SymExpr::symbol(out.splits);
  k.buffers.push_back(Buffer{Buffer::Workspace, "max", g.elem, {frameItems}, {}, Buffer::FusedMaximum, 0,
                             std::nullopt, Symbol{}, false, g.name});
  out.maximum = k.buffers.size() - 1;
  k.buffers.push_back(Buffer{Buffer::Workspace, "factors", g.elem, {frameItems, P}, {}, Buffer::FusedFactors, 0,
                             std::nullopt, Symbol{}, false, g.name});
  out.factors = k.buffers.size() - 1;
  NameScope stageNames(symbols);
  reserveNames(stageNames, g);
  std::vector<Symbol> frame = g.frame;
  SymVec shape = g.frameShape;
  if (frame.empty()) {
    frame.push_back(symbols.fresh("f"));
    shape.push_back(SymExpr(1));
  }
  const SymExpr at = gamma(symbolExprs(g.frame), g.frameShape);
  const Symbol top = symbols.fresh("M"), c = symbols.fresh("c");
  const SymExpr split = at * P + SymExpr::symbol(c);
  std::vector<LStmt> body{scalarStmt(LStmt::Decl, top, g.elem, floatConst(-INFINITY), g.loc)};
  LStmt maxima = loop(c, 0, P, 1, LoopKind::Vector, g.loc);
  maxima.body.push_back(scalarStmt(LStmt::Accumulate, top, g.elem, loadAt(out.buffers[0], split, false), g.loc,
                                   BinOp::Max));
  body.push_back(std::move(maxima));
  LStmt factors = loop(c, 0, P, 1, LoopKind::Vector, g.loc);
  factors.body.push_back(
      store(*out.factors, split, rescale(loadAt(out.buffers[0], split, false), var(top, false)), g.loc));
  body.push_back(std::move(factors));
  body.push_back(store(*out.maximum, at, var(top, false), g.loc));
  std::vector<LStmt> nest = std::move(body);
  for (size_t d = frame.size(); d-- > 0;) {
    LStmt l = loop(frame[d], 0, shape[d], 1, LoopKind::Parallel, g.loc);
    l.body = std::move(nest);
    nest.clear();
    nest.push_back(std::move(l));
  }
  Region region{out.buffers[0], Region::Factors, g.loc, int(frame.size()), std::move(nest), std::nullopt};
  reportVectorAccesses(symbols, k, region.body, block);
  k.stages.push_back(std::move(region));
}

// The combined maximum over the splits, once per statement list and frame element (at `base`). A list is
// known by its address, which a later list may reuse once this one has been moved away: the cached
// maximum counts only while the list still holds its declaration.
Symbol combinedMaximum(SymbolTable &symbols, FusedPartials &partials, size_t maxima, const SymExpr &base,
                       const SymExpr &P, std::vector<LStmt> &prefix, ElemType type, SourceLoc loc) {
  auto key = std::make_pair(static_cast<const void *>(&prefix), base.str());
  auto found = partials.maxima.find(key);
  if (found != partials.maxima.end() && std::any_of(prefix.begin(), prefix.end(), [&](const LStmt &s) {
        return s.kind == LStmt::Decl && s.scalar == found->second;
      }))
    return found->second;
  Symbol top = symbols.fresh("M"), c = symbols.fresh("c");
  prefix.push_back(scalarStmt(LStmt::Decl, top, type, floatConst(-INFINITY), loc));
  LStmt l = loop(c, 0, P, 1, LoopKind::Serial, loc);
  l.body.push_back(scalarStmt(LStmt::Accumulate, top, type, loadAt(maxima, base + SymExpr::symbol(c), false), loc,
                              BinOp::Max));
  prefix.push_back(std::move(l));
  partials.maxima[key] = top;
  return top;
}

} // namespace

FusedPartials lowerFusedGroup(SymbolTable &symbols, Kernel &k, const FusedGroup &g, const Schedule &schedule,
                              Target target, const LowerExprFn &lowerExpr) {
  FusedPartials out = addPartials(symbols, k, g, schedule, target);
  const size_t splitsCount = k.chunkCounts.size() - 1;
  // A stored score (scores=stored) is a read of an array; the weights get a buffer when a member has own
  // indices, whose loop the lanes take while each reads a weight per term.
  const bool storedScores = g.score->kind == DKind::Read;
  std::optional<size_t> weights;
  if (storedScores && std::any_of(g.members.begin(), g.members.end(), [](const FusedMember &m) {
        return !m.extra.empty();
      })) {
    k.buffers.push_back(Buffer{Buffer::Workspace, "weights", g.elem, {product(g.frameShape), termsBound(g)}, {},
                               Buffer::FusedWeights, 0, std::nullopt, Symbol{}, false, g.name});
    weights = k.buffers.size() - 1;
  }
  // CPU targets, inline scores: the terms `tile` at a time, each split's length a multiple of it
  const int64_t T = target != Target::Cuda && !storedScores ? schedule.tile : 1;
  // a split's tile is `stride` elements apart from the next one's: a 64-byte line between them, so that no two
  // threads write one line
  const int64_t line = 64 / elemBytes(g.elem), stride = (T + line - 1) / line * line + line;
  std::optional<size_t> tile;
  if (T > 1) {
    k.buffers.push_back(Buffer{Buffer::Workspace, "tile", g.elem,
                               {product(g.frameShape), SymExpr::symbol(out.splits), SymExpr(stride)}, {},
                               Buffer::FusedTile, 0, std::nullopt, Symbol{}, false, g.name});
    tile = k.buffers.size() - 1;
  }
  NameScope stageNames(symbols); // the split pass is a stage: its names beside the group's own
  reserveNames(stageNames, g);
  const Symbol c = symbols.fresh("c");
  const SymExpr P = SymExpr::symbol(out.splits);
  const SymExpr length = SymExpr::floorDiv(g.extent + P - SymExpr(1), P);
  SplitPass pass{symbols,
                 k,
                 g,
                 out,
                 lowerExpr,
                 c,
                 T > 1 ? SymExpr::floorDiv(length + SymExpr(T - 1), SymExpr(T)) * SymExpr(T) : length,
                 gamma(symbolExprs(g.frame), g.frameShape) * P + SymExpr::symbol(c),
                 g.elem,
                 g.loc,
                 target == Target::Cuda ? 1 : schedule.lanes};
  std::set<Symbol> dims;
  if (target == Target::Cuda)
    for (const TDim &d : k.dims)
      dims.insert(d.sym);
  std::vector<LStmt> body = storedScores ? pass.stored(weights)
                           : tile       ? pass.tiled(T, *tile, stride, schedule.prefetch)
                                        : pass.online(target == Target::Cuda, dims);

  const bool reuse = target != Target::Cuda && schedule.reuse; // CUDA packs such indices instead (packFrame)
  const std::vector<bool> inside =
      reuse ? framesSharingRows(k, g, body) : std::vector<bool>(g.frame.size(), false);
  Region region{out.buffers[0], Region::Splits, g.loc, int(g.frame.size()) + 1, {}, std::nullopt};
  region.body.push_back(splitNest(k, g, c, P, inside, std::move(body), k.chunkCounts[splitsCount]));
  Decision d{Decision::FusedSplits};
  d.buffer = out.buffers[0];
  d.region = k.stages.size();
  k.decisions.push_back(d);
  if (tile) {
    Decision t{Decision::RowTiles};
    t.region = k.stages.size();
    t.inner = g.var;
    t.lanes = T;
    k.decisions.push_back(t);
    if (hasPrefetch(region.body)) {
      t.kind = Decision::PrefetchRows;
      t.lanes = schedule.prefetch;
      k.decisions.push_back(t);
    }
  }
  if (storedScores) {
    Decision s{Decision::StoredScores};
    s.lanes = weights ? pass.lanes : 1;
    std::vector<LStmt> none; // a read lowers to one load, of the scores' buffer
    s.buffer = lowerExpr(g.score, none, g.elem)->buffer;
    s.region = k.stages.size();
    k.decisions.push_back(s);
    reportVectorAccesses(symbols, k, region.body, schedule.block);
  }
  if (target == Target::Cuda && schedule.pack != 1)
    packFrame(k, g, schedule.pack, region, k.chunkCounts[splitsCount]);
  if (target == Target::Cuda && schedule.mma) {
    tensorTiles(k, g, region);
    widerPack(k, g, schedule, region, k.chunkCounts[splitsCount]);
  }
  if (target == Target::Cuda)
    rowsAhead(k, g, schedule, region);
  k.stages.push_back(std::move(region));
  if (storedScores) {
    addFactors(symbols, k, g, out, schedule.block);
    out.lanes = pass.lanes;
  }
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
  // split c's factor: computed once by the factors region (stored scores), or here against the combined
  // maximum
  std::function<LExprPtr(Symbol)> factor;
  if (partials.factors) {
    if (e.member == 0)
      return loadAt(*partials.maximum, gamma(frame, g.frameShape), false);
    factor = [&](Symbol c) { return loadAt(*partials.factors, base + SymExpr::symbol(c), false); };
  } else {
    Symbol top = combinedMaximum(symbols, partials, maxima, base, P, prefix, type, e.loc);
    if (e.member == 0)
      return var(top, false);
    factor = [&, top](Symbol c) {
      return rescale(loadAt(maxima, base + SymExpr::symbol(c), false), var(top, false));
    };
  }
  // Σ_c partial_c·factor_c, in split order (as `lanes` chains where the factors are stored: a GPU thread of
  // the reader then keeps that many loads in flight over thousands of splits)
  Symbol sum = symbols.fresh("S"), c = symbols.fresh("c");
  prefix.push_back(scalarStmt(LStmt::Decl, sum, type, floatConst(0), e.loc));
  SymExpr at = (base + SymExpr::symbol(c)) * product(m.extraShape) + gamma(extra, m.extraShape);
  LExprPtr term = binary(BinOp::Mul, loadAt(partials.buffers[e.member], at, false), factor(c));
  for (LStmt &s : interleavedSum(symbols, sum, type, BinOp::Add, c, SymExpr(0), P, term,
                                 partials.factors ? partials.lanes : 1, e.loc))
    prefix.push_back(std::move(s));
  return var(sum, false);
}

} // namespace moac
