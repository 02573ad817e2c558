// The registers a warp holds across a serial loop (CudaPrinter.h): the elements its lane loops update in
// place, held for the whole loop (holdAcross); the loads of read-only inputs issued ahead of the statements
// that use them (warpBlock); and, where every access of the loop's lane loops is one of those, the loop
// software-pipelined (pipeline).
#include "CudaPrinter.h"

#include <algorithm>
#include <functional>

namespace moac {

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

// The lane loops of a serial loop of a warp that may run pipelined (pipeline), each with the guards on the
// index around it; none when a statement of the loop forbids it.
std::optional<std::vector<CudaPrinter::PipeLanes>> CudaPrinter::pipelinedLanes(const LStmt &loop) const {
  std::vector<PipeLanes> found;
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
    return std::nullopt;
  return found;
}

// The loads of the lane loops that the pipelined loop keeps in registers, and the run-time tests that it
// may (the held registers possible, every pointer aligned, every first offset, step and extent a multiple
// of four, one pass a lane); false when a lane loop stores other than into held registers or loads other
// than held registers and read-only inputs.
bool CudaPrinter::pipeStreams(const LStmt &loop, const std::vector<PipeLanes> &found, std::vector<PipeStream> &streams,
                              std::vector<std::string> &tests) {
  auto multipleOf4 = [&](const SymExpr &e) {
    std::optional<int64_t> known = e.constant();
    std::string test = known ? (*known % 4 == 0 ? "" : "false") : fmt::format("(({}) & 3) == 0", integer(e));
    if (!test.empty() && std::find(tests.begin(), tests.end(), test) == tests.end())
      tests.push_back(test);
  };
  std::set<std::string> possible;
  for (const PipeLanes &x : found) {
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
                               [&](const PipeStream &o) { return o.buffer == a.buffer && o.base == a.base; });
      if (same != streams.end()) {
        if (!(same->lanes->loop->start == x.loop->start && same->lanes->loop->end == x.loop->end))
          return false;
        continue;
      }
      streams.push_back({a.buffer, a.base, &x, a.base.dependsOn(loop.var), *step, {}});
      std::string aligned = groupAligned(a.buffer);
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
  return true;
}

// A stream's load for the lane's group at iteration `at`, as loaded: a moving stream's through its pointer (at
// the lane's first group; the others a constant past it), an invariant one's at its offset.
std::string CudaPrinter::pipeLoad(const LStmt &loop, const PipeStream &st, int group, const SymExpr &at) {
  if (st.moves)
    return groupLoad(st.buffer, fmt::format("{}[{}]", st.offset, 4 * lanes * group));
  return groupLoad(st.buffer, fmt::format("{}[{} + {}]", cn.buffer(st.buffer),
                                          integer(st.base.substitute({{loop.var, at}}) + st.lanes->loop->start),
                                          groupStart(group)));
}

// The loads of iteration `at` into the registers of slot `slot`, where its guards hold.
void CudaPrinter::loadAhead(const LStmt &loop, const std::vector<PipeLanes> &found,
                            const std::vector<PipeStream> &streams, const SymExpr &at, const std::string &inRange,
                            size_t slot) {
  for (const PipeLanes &x : found) {
    std::vector<std::string> conditions{stop.empty() ? inRange : fmt::format("{} < {}", integer(at), stop)};
    if (stop.empty())
      for (const LStmt *g : x.guards)
        conditions.push_back(fmt::format("{} < {}", integer(g->lhs.substitute({{loop.var, at}})),
                                         integer(g->rhs.substitute({{loop.var, at}}))));
    bool any = false;
    for (const PipeStream &st : streams)
      any |= st.moves && st.lanes == &x;
    if (!any)
      continue;
    line(fmt::format("if ({}) {{", fmt::join(conditions, " && ")));
    for (const PipeStream &st : streams)
      if (st.moves && st.lanes == &x)
        for (int group = 0; group < groups(); ++group)
          line(fmt::format("if ({}) {} = {};", piped.at(x.loop)[size_t(group)], st.regs[slot][size_t(group)],
                           pipeLoad(loop, st, group, at)));
    line("}");
  }
}

// The rows a pipelined loop keeps in flight: its region's choice (Region::ahead, lower/LowerFused.cpp's
// rowsAhead), one where it has none.
int CudaPrinter::rowsAhead() const { return ahead > 0 ? int(ahead) : 1; }

// A serial loop of a warp whose lane loops' accesses are all held registers (holdAcross) or loads of
// read-only inputs, and which run one pass a lane (at most 128 iterations, a multiple of four, aligned):
// where that holds at run time (one test before the loop), the loop runs software-pipelined. The loads that
// move with the loop's index (a row of K, of V) are made one iteration ahead, into registers that the next
// iteration reads, and the invariant ones (q's row) once before it; the lane loops inside read only
// registers, with no test a row. Prints `if (test) { registers; pipelined loop }  else {` and returns true,
// the caller printing the loop as before and the closing brace; or prints nothing and returns false.
bool CudaPrinter::pipeline(const LStmt &loop, ElemType t) {
  std::optional<std::vector<PipeLanes>> found = pipelinedLanes(loop);
  std::vector<PipeStream> streams;
  std::vector<std::string> tests;
  if (!found || !pipeStreams(loop, *found, streams, tests))
    return false;
  const int n = pipeCount++;
  line(fmt::format("const bool moa_pipe{} = {};", n, fmt::join(tests, " && ")));
  mmaTiles(loop, t, n, streams);
  line(fmt::format("if (moa_pipe{}) {{", n));
  // each lane loop's groups that this lane owns
  for (size_t x = 0; x < found->size(); ++x) {
    const LStmt &lanesLoop = *(*found)[x].loop;
    std::vector<std::string> owns;
    for (int group = 0; group < groups(); ++group) {
      owns.push_back(fmt::format("moa_on{}_{}_{}", n, x, group));
      line(fmt::format("const bool {} = {}{} + {} < {};", owns.back(), packed ? "moa_live && " : "",
                       integer(lanesLoop.start), groupStart(group), integer(lanesLoop.end)));
    }
    piped[&lanesLoop] = owns;
  }
  const int slots = rowsAhead();
  for (size_t i = 0; i < streams.size(); ++i) {
    PipeStream &st = streams[i];
    for (int slot = 0; slot < (st.moves ? slots : 1); ++slot) {
      st.regs.emplace_back();
      for (int group = 0; group < groups(); ++group) {
        std::string reg = fmt::format("moa_{}{}_{}_{}{}", st.moves ? "nx" : "iv", n, i, group,
                                      slot ? fmt::format("_{}", slot) : "");
        st.regs.back().push_back(reg);
        // the rows ahead as loaded; an invariant one widened once, here
        line(st.moves ? fmt::format("{} {} = {};", groupType(st.buffer), reg, groupZero(st.buffer))
                      : fmt::format("float4 {} = make_float4(0.0f, 0.0f, 0.0f, 0.0f);", reg));
        if (!st.moves)
          line(fmt::format("if ({}) {} = {};", piped.at(st.lanes->loop)[size_t(group)], reg,
                           widened(st.buffer, pipeLoad(loop, st, group, SymExpr::symbol(loop.var)))));
      }
    }
  }
  // a moving load's pointer a local, at the lane's first group (its other groups a constant past it), stepped
  // once an iteration: no 64-bit offset products or address arithmetic a row
  for (size_t i = 0; i < streams.size(); ++i)
    if (PipeStream &st = streams[i]; st.moves) {
      st.offset = fmt::format("moa_sp{}_{}", n, i);
      line(fmt::format("const auto *{} = &{}[{} + {}];", st.offset, cn.buffer(st.buffer),
                       integer(st.base.substitute({{loop.var, loop.start}}) + st.lanes->loop->start), groupStart(0)));
    }
  pipelinedLoop(loop, t, n, *found, streams);
  for (const PipeLanes &x : *found)
    piped.erase(x.loop);
  line("} else {");
  return true;
}

// The pipelined loop itself: the first rows' loads, one slot of registers each (rowsAhead of them), then
// the loop, its body printed once a slot: the copy for slot d takes the registers loaded for its row, issues
// into them the loads of the row `slots` ahead and runs the statements on them. Printed so, no register is
// copied into another while its load may be outstanding (a copy would wait for the data).
void CudaPrinter::pipelinedLoop(const LStmt &loop, ElemType t, int n, const std::vector<PipeLanes> &found,
                                std::vector<PipeStream> &streams) {
  const std::string end = fmt::format("moa_end{}", n);
  line(fmt::format("const int64_t {} = {};", end, integer(loop.end)));
  // the lane loops' guards on the index (l < n), where each is `index + c < bound` with the bound invariant,
  // folded with the end into one bound, computed once: the loads ahead then test one 64-bit compare
  std::vector<std::string> bounds{end};
  bool folds = true;
  for (const PipeLanes &x : found)
    for (const LStmt *g : x.guards) {
      std::optional<int64_t> c = (g->lhs - SymExpr::symbol(loop.var)).constant();
      folds &= c.has_value() && !g->rhs.dependsOn(loop.var);
      if (folds) {
        std::string b = integer(g->rhs - SymExpr(*c));
        if (std::find(bounds.begin(), bounds.end(), b) == bounds.end())
          bounds.push_back(b);
      }
    }
  if (folds && bounds.size() > 1) {
    std::string min = bounds[0];
    for (size_t b = 1; b < bounds.size(); ++b)
      min = fmt::format("moart_mini({}, {})", min, bounds[b]);
    stop = fmt::format("moa_stop{}", n);
    line(fmt::format("const int64_t {} = {};", stop, min));
  }
  size_t slots = 1;
  for (const PipeStream &st : streams)
    slots = std::max(slots, st.regs.size());
  auto stepOffsets = [&] {
    for (const PipeStream &st : streams)
      if (st.moves)
        line(fmt::format("{} += {};", st.offset, integer(st.step)));
  };
  for (size_t slot = 0; slot < slots; ++slot) {
    if (slot)
      stepOffsets();
    const SymExpr at = loop.start + SymExpr(int64_t(slot));
    loadAhead(loop, found, streams, at, fmt::format("{} < {}", integer(at), end), slot);
  }
  // the printer's own loop (`moa_`), like the rest of this copy unlocated: explain --html maps the loop IR's
  // loop to the copy after it
  const std::string row = fmt::format("moa_row{}", n);
  line(slots == 1 ? fmt::format("for (int64_t {0} = {1}; {0} < {2}; ++{0}) {{", row, integer(loop.start), end)
                   : fmt::format("for (int64_t {0} = {1}; {0} < {2}; {0} += {3}) {{", row, integer(loop.start), end, slots));
  for (size_t slot = 0; slot < slots; ++slot) {
    if (slots > 1)
      line("{");
    line(fmt::format("const int64_t {} = {}{};", name(loop.var), row, slot ? fmt::format(" + {}", slot) : ""));
    if (slot)
      line(fmt::format("if ({} < {}) {{", name(loop.var), end));
    std::map<std::pair<size_t, SymExpr>, std::vector<std::string>> current;
    for (size_t i = 0; i < streams.size(); ++i) {
      const PipeStream &st = streams[i];
      std::vector<std::string> now = st.regs[0];
      if (st.moves)
        for (int group = 0; group < groups(); ++group) {
          now[size_t(group)] = fmt::format("moa_cx{}_{}_{}", n, i, group);
          line(fmt::format("const float4 {} = {};", now[size_t(group)],
                           widened(st.buffer, st.regs[slot][size_t(group)])));
        }
      current[{st.buffer, st.base}] = now;
    }
    stepOffsets();
    const SymExpr later = SymExpr::symbol(loop.var) + SymExpr(int64_t(slots));
    loadAhead(loop, found, streams, later, fmt::format("{} < {}", integer(later), end), slot);
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
    if (slot)
      line("}");
    if (slots > 1)
      line("}");
  }
  line("}");
  stop.clear();
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
        line(fmt::format("{} {} = {};", groupType(a.buffer), regs.back(), groupZero(a.buffer)));
        line(fmt::format("if ({} && {} && (({}) & 3) == 0)", keep->owns[size_t(group)], groupAligned(a.buffer),
                         integer(first)));
        line(fmt::format("{} = {};", regs.back(),
                         groupLoad(a.buffer, fmt::format("{}[{} + {}]", cn.buffer(a.buffer), integer(first),
                                                         groupStart(group)))));
        if (half(a.buffer))
          loadedHalf.emplace(regs.back(), a.buffer);
      }
      prefetched.emplace(std::pair{a.buffer, a.base}, regs);
      issued.push_back({a.buffer, a.base});
    }
  }
  for (const LStmt &x : body)
    warpStmt(x, t);
  for (const auto &key : issued) {
    for (const std::string &r : prefetched.at(key))
      loadedHalf.erase(r);
    prefetched.erase(key);
  }
}

} // namespace moac
