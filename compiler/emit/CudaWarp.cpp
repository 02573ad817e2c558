// The statements of a warp (CudaPrinter.h): uniform statements, the serial loops whose iterations the
// lanes share (LaneLoop), four floats at a time where they can (VectorLoop), and the stores of uniform
// values that one lane makes.
#include "CudaPrinter.h"

#include <algorithm>
#include <functional>

namespace moac {

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
        tests.push_back(groupAligned(a.buffer));
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
  int widenedCount = 0;
  for (auto &[key, r] : regs) // a prefetched half-precision group, widened where the statements read it
    if (auto loaded = loadedHalf.find(r); loaded != loadedHalf.end()) {
      std::string floats = fmt::format("moa_r{}", regs.size() + widenedCount++);
      line(fmt::format("const float4 {} = {};", floats, widened(loaded->second, r)));
      r = floats;
    }
  for (const VectorLoop::Access &a : v.loads)
    if (regs.emplace(std::pair{a.buffer, a.base}, fmt::format("moa_r{}", regs.size() + widenedCount)).second)
      line(fmt::format("float4 {} = {};", regs[{a.buffer, a.base}], widened(a.buffer, groupLoad(a.buffer, at(a)))));
  for (const VectorLoop::Access &a : v.stores)
    if (regs.emplace(std::pair{a.buffer, a.base}, fmt::format("moa_r{}", regs.size() + widenedCount)).second)
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

} // namespace moac
